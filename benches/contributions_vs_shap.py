#!/usr/bin/env python3
"""Per-row contributions, side by side in one process, one thread each:
rarity's exact TreeSHAP (`predict_contributions`) against LightGBM's
`predict(X, pred_contrib=True)` and `shap.TreeExplainer` (issue 54).

Usage (from the repository root, in an environment with the rarity package,
numpy, scikit-learn, lightgbm and shap: `pip install ./python[test] lightgbm`):

    nice -n 15 python3 benches/contributions_vs_shap.py [--train 200000] [--explain 5000]
                                                       [--forest-train 20000] [--forest-explain 200]

Boosting: 100 rounds x 31 leaves on 30 features, fitted on TRAIN rows
(standard normal features, a nonlinear logistic target, seed 0) by rarity's
`gbdt(rounds=100,max_leaves=31)` and by LightGBM 4 (`num_leaves=31`), then
EXPLAIN rows explained by each: rarity's contributions of its model, and
LightGBM's `pred_contrib` and shap's TreeExplainer on the LightGBM booster.

Forests: 100 unpruned trees (sqrt features, bootstrap) fitted on
FOREST_TRAIN rows of the same table by rarity's `forest(n=100)` and
scikit-learn's `RandomForestClassifier(n_estimators=100)`; FOREST_EXPLAIN
rows explained by rarity and by shap's TreeExplainer on scikit-learn's
forest (trees of the same size: both unpruned on the same rows).

Each timing is the best of three runs; rows per second are printed with
the ratio rarity / peer. The models' local accuracy (the contributions
adding up to the output) is checked on the way.
"""
import argparse
import os
import time

import numpy as np


def table(n, d=30, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    z = 1.5 * X[:, 0] - X[:, 1] * X[:, 2] + np.sin(2 * X[:, 3]) + 0.5 * X[:, 4:10].sum(axis=1) - 3.0
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(int)
    return X, y


def best(f, runs=3):
    out, t = None, float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        out = f()
        t = min(t, time.perf_counter() - t0)
    return t, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", type=int, default=200_000)
    ap.add_argument("--explain", type=int, default=5000)
    ap.add_argument("--forest-train", type=int, default=20_000)
    ap.add_argument("--forest-explain", type=int, default=200)
    a = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import lightgbm as lgb
    import shap
    from sklearn.ensemble import RandomForestClassifier

    import rarity

    X, y = table(a.train)
    Xe = table(a.explain, seed=1)[0]
    print(f"load: {os.getloadavg()[0]:.2f}; rarity, lightgbm {lgb.__version__}, shap {shap.__version__}")

    ours = rarity.Classifier("gbdt(rounds=100,max_leaves=31)", n_jobs=1, seed=0).fit(X, y)
    t_r, c_r = best(lambda: ours.predict_contributions(Xe))
    p = ours.predict_proba(Xe)[:, 1]
    gap = np.abs(c_r.sum(axis=1) - np.log(p / (1 - p))).max()
    booster = lgb.LGBMClassifier(n_estimators=100, num_leaves=31, n_jobs=1, verbose=-1).fit(X, y).booster_
    t_l, c_l = best(lambda: booster.predict(Xe, pred_contrib=True, num_threads=1))
    explainer = shap.TreeExplainer(booster)
    t_s, c_s = best(lambda: explainer.shap_values(Xe, check_additivity=False))
    n = len(Xe)
    rows = [
        ("rarity gbdt predict_contributions", n / t_r),
        ("LightGBM pred_contrib", n / t_l),
        ("shap TreeExplainer (LightGBM booster)", n / t_s),
    ]
    print(f"\ngbdt, 100 rounds x 31 leaves, 30 features, {a.train} training rows, {n} rows explained, 1 thread")
    print(f"  (rarity local accuracy in log-odds: max |base + sum - logit p| = {gap:.1e})")
    for name, r in rows:
        print(f"  {name:42s} {r:12,.0f} rows/s")
    print(f"  rarity / shap = {rows[0][1] / rows[2][1]:.1f}x; rarity / LightGBM pred_contrib = {rows[0][1] / rows[1][1]:.1f}x")

    Xf, yf = X[: a.forest_train], y[: a.forest_train]
    Xfe = Xe[: a.forest_explain]
    ours_f = rarity.Classifier("forest(n=100)", n_jobs=1, seed=0).fit(Xf, yf)
    t_rf, c_rf = best(lambda: ours_f.predict_contributions(Xfe))
    gap_f = np.abs(c_rf.sum(axis=1) - ours_f.predict_proba(Xfe)[:, 1]).max()
    rf = RandomForestClassifier(n_estimators=100, n_jobs=1, random_state=0).fit(Xf, yf)
    ex_f = shap.TreeExplainer(rf)
    t_sf, _ = best(lambda: ex_f.shap_values(Xfe, check_additivity=False), runs=1)
    leaves_r = sum(len([f for f in t["features"] if f < 0]) for t in ours_f.dump_trees()["models"][0]["trees"])
    leaves_s = sum(e.tree_.n_leaves for e in rf.estimators_)
    m = len(Xfe)
    print(f"\nforest, 100 unpruned trees, {a.forest_train} training rows, {m} rows explained, 1 thread")
    print(f"  (leaves: rarity {leaves_r:,}, scikit-learn {leaves_s:,}; rarity local accuracy in probability: {gap_f:.1e})")
    print(f"  {'rarity forest predict_contributions':42s} {m / t_rf:12,.1f} rows/s")
    print(f"  {'shap TreeExplainer (scikit-learn forest)':42s} {m / t_sf:12,.1f} rows/s")
    print(f"  rarity / shap = {(m / t_rf) / (m / t_sf):.1f}x")


if __name__ == "__main__":
    main()
