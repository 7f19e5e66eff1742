#!/usr/bin/env python3
"""Times rarity's named ensembles against imbalanced-learn's, side by side.

Usage (from the repository root; needs numpy, scikit-learn, imbalanced-learn):

    python3 benches/ensembles_vs_imblearn.py [--data-dir ../shared/data/binary]
        [--only NAME,...] [--models bagging,forest,easy,rusboost] [--trees 100]

For every CSV in the directory: 5x2 stratified CV (same folds both sides),
fit + predict_proba, one thread each side; prints per model the total time
ratio and mean ROC AUC / average precision (AUCPR) of both sides.

  bagging   BalancedBaggingClassifier(DecisionTree, n)  vs  eb-bagging(n=N)
  forest    BalancedRandomForestClassifier(n)            vs  balanced-forest(n=N)
  easy      EasyEnsembleClassifier(10)                   vs  easy-ensemble(n=10)
  rusboost  RUSBoostClassifier(50)                       vs  rus-boost(n=50)

BalancedBagging runs with bootstrap=False, so that each member, as in
rarity's eb-bagging (Collell et al.'s EB), sees every minority row and as many
majority rows drawn without replacement (with its default bootstrap=True a
bootstrap of a set with a handful of positives can hold a single class, and
imbalanced-learn then stops with an error).
The rarity side is the `trees` bench target in `cv` mode, which fits any
learner spec.
"""
import argparse, json, os, sys, time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trees_vs_sklearn import WORK, csv_files, metrics, rarity_binary, run_child  # noqa: E402


def imblearn_model(kind, trees, seed):
    from imblearn.ensemble import (BalancedBaggingClassifier, BalancedRandomForestClassifier,
                                   EasyEnsembleClassifier, RUSBoostClassifier)
    from sklearn.tree import DecisionTreeClassifier
    if kind == "bagging":
        return BalancedBaggingClassifier(DecisionTreeClassifier(), n_estimators=trees,
                                         bootstrap=False, n_jobs=1, random_state=seed)
    if kind == "forest":
        return BalancedRandomForestClassifier(n_estimators=trees, sampling_strategy="all",
                                              replacement=True, bootstrap=False, n_jobs=1,
                                              random_state=seed)
    if kind == "easy":
        return EasyEnsembleClassifier(n_estimators=10, n_jobs=1, random_state=seed)
    return RUSBoostClassifier(n_estimators=50, random_state=seed)


def rarity_spec(kind, trees):
    return {"bagging": f"eb-bagging(n={trees})", "forest": f"balanced-forest(n={trees})",
            "easy": "easy-ensemble(n=10)", "rusboost": "rus-boost(n=50)"}[kind]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default=os.path.join("..", "shared", "data", "binary"))
    ap.add_argument("--only")
    ap.add_argument("--models", default="bagging,forest,easy,rusboost")
    ap.add_argument("--trees", type=int, default=100)
    args = ap.parse_args()
    from sklearn.model_selection import StratifiedKFold
    files = csv_files(args.data_dir, args.only)
    os.makedirs(WORK, exist_ok=True)
    plan, data = [], {}
    for f in files:
        arr = np.loadtxt(f, delimiter=",", skiprows=1, ndmin=2)
        X, y = arr[:, :-1], arr[:, -1].astype(int)
        folds = []
        for r in range(5):
            skf = StratifiedKFold(n_splits=2, shuffle=True, random_state=r)
            folds += [{"train": tr.tolist(), "test": te.tolist()} for tr, te in skf.split(X, y)]
        name = os.path.basename(f)[:-4]
        plan.append({"name": name, "path": f, "folds": folds})
        data[name] = (X, y, folds)
    plan_path = os.path.join(WORK, "ensemble-folds.json")
    with open(plan_path, "w") as fh:
        json.dump(plan, fh)
    exe = rarity_binary()
    summary = []
    for kind in args.models.split(","):
        out_path = os.path.join(WORK, f"ensemble-{kind}.json")
        run_child([exe, "cv", plan_path, out_path, "1", rarity_spec(kind, args.trees)])
        with open(out_path) as fh:
            ours = {d["name"]: d for d in json.load(fh)}
        t_r = t_s = 0.0
        rows, failed = [], []
        for name, (X, y, folds) in data.items():
            secs, r_m, s_m = 0.0, [], []
            try:
                for i, fold in enumerate(folds):
                    tr, te = np.array(fold["train"]), np.array(fold["test"])
                    start = time.perf_counter()
                    model = imblearn_model(kind, args.trees, i).fit(X[tr], y[tr])
                    p = model.predict_proba(X[te])[:, 1]
                    secs += time.perf_counter() - start
                    s_m.append(metrics(y[te], p))
                    r_m.append(metrics(y[te], np.array(ours[name]["proba"][i])))
            except ValueError as e:
                # e.g. RUSBoost: "BaseClassifier ... is worse than random": the
                # dataset leaves both sides' totals and means.
                failed.append(f"{name} ({e})")
                continue
            t_r += ours[name]["seconds"]
            t_s += secs
            rows.append((*np.mean(r_m, axis=0), *np.mean(s_m, axis=0)))
        m = np.mean(rows, axis=0)
        line = (f"{kind:9s} {rarity_spec(kind, args.trees):22s} rarity {t_r:8.2f}s  imblearn {t_s:8.2f}s  "
                f"speed-up {t_s / t_r:6.1f}x  AUC {m[0]:.4f} vs {m[2]:.4f}  AP {m[1]:.4f} vs {m[3]:.4f} "
                f"(diff {m[1] - m[3]:+.4f}); {len(rows)} sets, imblearn failed on {len(failed)}")
        for f in failed:
            print(f"  imblearn failed: {f}")
        print(line, flush=True)
        summary.append(line)
    print(f"\n{len(data)} datasets, 5x2 CV, fit + predict_proba, one thread each side")
    print("\n".join(summary))


if __name__ == "__main__":
    main()
