#!/usr/bin/env python3
"""EB-bagging from Python against imbalanced-learn's BalancedBaggingClassifier,
over the 70 shared binary sets, in one process.

Usage (from the repository root, with the package installed: pip install
./python; needs imbalanced-learn):

    nice python3 benches/python_ebbagging_vs_imblearn.py
        [--data-dir ../shared/data/binary] [--trees 100] [--threads 2]

For every CSV: 5x2 stratified CV (the same folds both sides), fit +
predict_proba on each fold, two threads each side:

  rarity.EBBagging(n_estimators=TREES, n_jobs=THREADS, seed=fold)
  BalancedBaggingClassifier(DecisionTreeClassifier(), n_estimators=TREES,
                            bootstrap=False, n_jobs=THREADS, random_state=fold)

bootstrap=False makes each imbalanced-learn member see every minority row
and as many majority rows drawn without replacement, as rarity's eb-bagging
(Collell et al.'s EB); with bootstrap=True a bootstrap of a set with a
handful of positives can hold one class and imbalanced-learn stops with an
error (see benches/ensembles_vs_imblearn.py). Prints the total seconds of
both sides, the ratio, and the mean ROC AUC and average precision.
"""

import argparse
import glob
import os
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default=os.path.join("..", "shared", "data", "binary"))
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only")
    a = ap.parse_args()
    from imblearn.ensemble import BalancedBaggingClassifier
    from sklearn.metrics import average_precision_score, roc_auc_score
    from sklearn.model_selection import StratifiedKFold
    from sklearn.tree import DecisionTreeClassifier
    from threadpoolctl import threadpool_limits

    import rarity

    files = sorted(glob.glob(os.path.join(a.data_dir, "*.csv")))
    if a.only:
        files = [f for f in files if os.path.basename(f)[:-4] in set(a.only.split(","))]
    tot = {"rarity": 0.0, "imblearn": 0.0}
    scores = {"rarity": [], "imblearn": []}
    for f in files:
        arr = np.loadtxt(f, delimiter=",", skiprows=1, ndmin=2)
        X, y = np.ascontiguousarray(arr[:, :-1]), arr[:, -1].astype(int)
        t_set = {"rarity": 0.0, "imblearn": 0.0}
        for rep in range(5):
            skf = StratifiedKFold(n_splits=2, shuffle=True, random_state=rep)
            for k, (tr, te) in enumerate(skf.split(X, y)):
                seed = 10 * rep + k
                Xtr, Xte = np.ascontiguousarray(X[tr]), np.ascontiguousarray(X[te])
                t0 = time.perf_counter()
                p = rarity.EBBagging(n_estimators=a.trees, n_jobs=a.threads, seed=seed).fit(Xtr, y[tr]).predict_proba(Xte)
                t_set["rarity"] += time.perf_counter() - t0
                scores["rarity"].append((roc_auc_score(y[te], p[:, 1]), average_precision_score(y[te], p[:, 1])))
                with threadpool_limits(a.threads):
                    m = BalancedBaggingClassifier(
                        DecisionTreeClassifier(), n_estimators=a.trees, bootstrap=False,
                        n_jobs=a.threads, random_state=seed,
                    )
                    t0 = time.perf_counter()
                    q = m.fit(Xtr, y[tr]).predict_proba(Xte)
                    t_set["imblearn"] += time.perf_counter() - t0
                scores["imblearn"].append((roc_auc_score(y[te], q[:, 1]), average_precision_score(y[te], q[:, 1])))
        for s in tot:
            tot[s] += t_set[s]
        print(f"{os.path.basename(f)[:-4]:40s} rarity {t_set['rarity']:8.2f} s  imbalanced-learn "
              f"{t_set['imblearn']:8.2f} s  {t_set['imblearn'] / t_set['rarity']:6.1f}x", flush=True)
    auc = {s: np.mean([v[0] for v in scores[s]]) for s in scores}
    ap_ = {s: np.mean([v[1] for v in scores[s]]) for s in scores}
    print(f"\n{len(files)} sets, 5x2 CV, {a.trees} trees, {a.threads} threads each side")
    print(f"total: rarity {tot['rarity']:.1f} s, imbalanced-learn {tot['imblearn']:.1f} s, "
          f"ratio {tot['imblearn'] / tot['rarity']:.1f}x")
    print(f"mean AUC {auc['rarity']:.4f} vs {auc['imblearn']:.4f}; AP {ap_['rarity']:.4f} vs {ap_['imblearn']:.4f}")


if __name__ == "__main__":
    main()
