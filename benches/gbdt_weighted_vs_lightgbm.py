#!/usr/bin/env python3
"""Weighted boosting with right probabilities: rarity's gbdt(scale_pos_weight=N-/N+)+correct
against LightGBM's is_unbalance=True, side by side on a directory of binary datasets.

Usage (from the repository root; needs numpy, scikit-learn and lightgbm 4.x):

    nice python3 benches/gbdt_weighted_vs_lightgbm.py [--data-dir ../shared/data/binary]
        [--only NAME,...] [--rounds 100] [--leaves 31] [--lr 0.1] [--bins 255]
        [--min-leaf 20] [--threads 2] [--repeats 1] [--extra max_delta_step=0] [--per-set]

For every CSV of the directory (last column the class, 1 the positive class): 5-fold
stratified CV (scikit-learn StratifiedKFold(5, shuffle=True, random_state=r) for r < repeats,
the same folds both sides; a set's figure is the mean over all its folds). In each fold S = N-/N+ of the training rows, LightGBM's is_unbalance weight of
the positive class. rarity fits three strategies on the same seed (the `gbdt sets` mode of
benches/gbdt.rs):

  weighted   gbdt(..., scale_pos_weight=S)          (what LightGBM's is_unbalance fits)
  corrected  gbdt(..., scale_pos_weight=S)+correct  (the weight undone as a keep rate, eq. 9)
  plain      gbdt(...)                              (no weights, for reference)

and LightGBM lgb.train(objective=binary, is_unbalance=True) with the same rounds, leaves,
bins, learning rate and minimum rows per leaf, no early stopping. LightGBM's probabilities
are also corrected by the same eq. 9 (p / (p + S (1 - p))), as a reference for what the
correction does in LightGBM's hands. Reported: the number of
sets where the corrected model's Brier score (mean over folds) is lower than LightGBM's
(and the same count for LightGBM's own corrected probabilities);
mean Brier, ROC AUC and AP over the sets; whether the weighted and corrected models' AUC
are identical to the last digit on every fold of every set (the correction is monotone).
"""
import argparse, json, os, subprocess, sys, time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gbdt_vs_lightgbm import WORK, bench_binary  # noqa: E402
from trees_vs_sklearn import csv_files  # noqa: E402


def scores(y, p):
    from sklearn.metrics import average_precision_score, roc_auc_score
    return roc_auc_score(y, p), average_precision_score(y, p), float(np.mean((p - y) ** 2))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=os.path.join("..", "shared", "data", "binary"))
    ap.add_argument("--only")
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--leaves", type=int, default=31)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--bins", type=int, default=255)
    ap.add_argument("--min-leaf", type=int, default=20)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=1, help="repetitions of the 5-fold CV")
    ap.add_argument("--extra", default="", help="more gbdt parameters for rarity, e.g. max_delta_step=0")
    ap.add_argument("--per-set", action="store_true", help="print one line per dataset")
    a = ap.parse_args()
    import lightgbm as lgb
    from sklearn.model_selection import StratifiedKFold
    files = csv_files(a.data_dir, a.only)
    os.makedirs(WORK, exist_ok=True)
    common = (f"rounds={a.rounds},learning_rate={a.lr},max_leaves={a.leaves},bins={a.bins},"
              f"min_samples_leaf={a.min_leaf}" + (f",{a.extra}" if a.extra else ""))
    plan, data = [], {}
    for f in files:
        arr = np.loadtxt(f, delimiter=",", skiprows=1, ndmin=2)
        X, y = arr[:, :-1], arr[:, -1].astype(int)
        folds = []
        splits = [s for r in range(a.repeats) for s in StratifiedKFold(5, shuffle=True, random_state=r).split(X, y)]
        for tr, te in splits:
            s = float(np.sum(y[tr] == 0)) / float(np.sum(y[tr] == 1))
            weighted = f"gbdt({common},scale_pos_weight={s!r})"
            folds.append({"train": tr.tolist(), "test": te.tolist(),
                          "specs": [weighted, weighted + "+correct", f"gbdt({common})"]})
        name = os.path.basename(f)[:-4]
        plan.append({"name": name, "path": os.path.abspath(f), "folds": folds})
        data[name] = (X, y, folds)
    plan_path, out_path = os.path.join(WORK, "gbdt-weighted-plan.json"), os.path.join(WORK, "gbdt-weighted.json")
    with open(plan_path, "w") as fh:
        json.dump(plan, fh)
    exe = bench_binary()
    load0 = os.getloadavg()[0]
    subprocess.run([exe, "sets", plan_path, out_path, str(a.threads)], check=True)
    with open(out_path) as fh:
        ours = {d["name"]: d for d in json.load(fh)}
    params = dict(objective="binary", is_unbalance=True, learning_rate=a.lr, num_leaves=a.leaves,
                  max_bin=a.bins, min_data_in_leaf=a.min_leaf, min_sum_hessian_in_leaf=1e-3,
                  lambda_l2=0.0, num_threads=a.threads, verbose=-1, seed=0)
    rows, same_auc, n_folds, t_r, t_l = [], 0, 0, 0.0, 0.0
    for name, (X, y, folds) in data.items():
        per = []  # per fold: weighted, corrected, plain, lightgbm -> (auc, ap, brier)
        for i, fold in enumerate(folds):
            tr, te = np.array(fold["train"]), np.array(fold["test"])
            start = time.perf_counter()
            model = lgb.train(params, lgb.Dataset(X[tr], label=y[tr]), num_boost_round=a.rounds)
            pl = model.predict(X[te])
            t_l += time.perf_counter() - start
            s = float(np.sum(y[tr] == 0)) / float(np.sum(y[tr] == 1))
            pl_corrected = pl / (pl + s * (1.0 - pl))
            t_r += sum(ours[name]["seconds"][i])
            mine = [scores(y[te], np.array(p)) for p in ours[name]["proba"][i]]
            same_auc += mine[0][0] == mine[1][0]
            n_folds += 1
            per.append(mine + [scores(y[te], pl), scores(y[te], pl_corrected)])
        m = np.mean(np.array(per), axis=0)  # 5 models x (auc, ap, brier)
        rows.append((name, m))
        if a.per_set:
            print(f"{name:40s} Brier corrected {m[1][2]:.4f} weighted {m[0][2]:.4f} plain {m[2][2]:.4f} "
                  f"LightGBM {m[3][2]:.4f} (+eq. 9 {m[4][2]:.4f}) | AUC {m[1][0]:.4f} vs {m[3][0]:.4f}",
                  flush=True)
    wins = sum(m[1][2] < m[3][2] for _, m in rows)
    lgb_wins = sum(m[4][2] < m[3][2] for _, m in rows)
    mean = np.mean([m for _, m in rows], axis=0)
    result = {
        "sets": len(rows), "folds": n_folds, "corrected_brier_lower": int(wins),
        "lightgbm_corrected_brier_lower": int(lgb_wins),
        "auc_identical_folds": int(same_auc),
        "mean": {k: dict(zip(["roc_auc", "average_precision", "brier"], map(float, mean[j])))
                 for j, k in enumerate(["weighted", "corrected", "plain", "lightgbm_is_unbalance",
                                        "lightgbm_is_unbalance_corrected"])},
        "seconds": {"rarity_three_strategies": t_r, "lightgbm": t_l},
        "per_set": {n: {"brier_corrected": float(m[1][2]), "brier_lightgbm": float(m[3][2])} for n, m in rows},
    }
    with open(os.path.join(WORK, "gbdt-weighted-summary.json"), "w") as fh:
        json.dump(result, fh, indent=1)
    print(f"LightGBM {lgb.__version__}; {len(rows)} sets x {a.repeats} x 5 folds; gbdt({common}); {a.threads} threads each side; "
          f"load {load0:.1f}-{os.getloadavg()[0]:.1f}")
    print(f"Brier lower with gbdt(scale_pos_weight=S)+correct than LightGBM is_unbalance=True: "
          f"{wins}/{len(rows)} sets ({100 * wins / len(rows):.1f}%)")
    print(f"Brier lower with LightGBM is_unbalance=True + eq. 9 than without: "
          f"{lgb_wins}/{len(rows)} sets ({100 * lgb_wins / len(rows):.1f}%)")
    print(f"AUC identical with and without +correct: {same_auc}/{n_folds} folds")
    for j, k in enumerate(["weighted", "corrected", "plain", "LightGBM is_unbalance", "LightGBM + eq. 9"]):
        print(f"  mean over sets, {k:22s} AUC {mean[j][0]:.4f}  AP {mean[j][1]:.4f}  Brier {mean[j][2]:.4f}")
    print(f"fit + predict seconds: rarity {t_r:.2f} (three strategies), LightGBM {t_l:.2f} (one)")
    losses = [(n, m[1][2], m[3][2]) for n, m in rows if not m[1][2] < m[3][2]]
    for n, b, bl in losses:
        print(f"  not lower: {n} ({b:.4f} vs {bl:.4f})")


if __name__ == "__main__":
    main()
