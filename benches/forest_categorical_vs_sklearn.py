#!/usr/bin/env python3
"""rarity's `forest` with native categorical splits against scikit-learn's `TargetEncoder` +
`RandomForestClassifier`, side by side on the tables of gbdt_categorical_vs_lightgbm.py:
fit + predict time, ROC AUC, AP.

Usage (from the repository root; needs numpy, pandas, scikit-learn >= 1.3 and lightgbm is not
needed):

    cargo build --release
    nice python3 benches/forest_categorical_vs_sklearn.py [--tables fraud,synthetic,keel]
        [--rows 1000000] [--trees 100] [--min-leaf 5] [--repeat 1]

The tables (`fraud`: `rarity generate fraud --categorical`; `synthetic`; `keel`: the KEEL sets
with nominal attributes, stratified 5-fold CV) are those of gbdt_categorical_vs_lightgbm.py,
built by its functions, with the same 80/20 stratified split of the large tables.

Settings, as close as the two allow: --trees trees, each grown on a bootstrap sample of the
training rows, sqrt(features) candidate features per split, Gini, no depth limit, --min-leaf
rows per leaf (rarity's min_samples_leaf counts the bootstrap copies, as scikit-learn's does),
probabilities averaged over the trees; two threads each side (n_jobs=2, --threads 2).
The categorical columns differ by design: rarity splits them natively (at each node the levels
ordered by their positive rate, the best prefix sent left: Breiman et al. 1984, sec. 9.4),
scikit-learn replaces each by TargetEncoder's cross-fitted (cv=5), shrunk (smooth='auto')
positive rate (5 stratified folds), fitted on the training rows and applied to the test rows. rarity's trees are
its histogram trees (at most 255 quantile bins a numeric feature, one bin per level of a
categorical one, levels covering 99% of the rows kept); scikit-learn's are exact.

Times are wall-clock seconds: scikit-learn from the pandas table in memory to the test
probabilities (the encoding included); rarity from the CSV files (`rarity fit`, then
`rarity predict`), its figure including reading the CSVs. Ratio = scikit-learn seconds /
rarity seconds (above 1: rarity is faster).
"""
import argparse, os, subprocess, sys, time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gbdt_categorical_vs_lightgbm as tables  # noqa: E402


def sklearn_side(train, test, cats, args):
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.model_selection import StratifiedKFold
    from sklearn.preprocessing import TargetEncoder
    t0 = time.perf_counter()
    xtr, xte = train.drop(columns="class"), test.drop(columns="class")
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    enc = TargetEncoder(target_type="binary", smooth="auto", cv=folds)
    etr = enc.fit_transform(xtr[cats].astype(str), train["class"])
    ete = enc.transform(xte[cats].astype(str))
    rest = [c for c in xtr.columns if c not in cats]
    xtr = np.hstack([etr, xtr[rest].to_numpy(float)])
    xte = np.hstack([ete, xte[rest].to_numpy(float)])
    rf = RandomForestClassifier(n_estimators=args.trees, max_features="sqrt",
                                min_samples_leaf=args.min_leaf, n_jobs=2, random_state=0)
    rf.fit(xtr, train["class"])
    p = rf.predict_proba(xte)[:, 1]
    return time.perf_counter() - t0, p


def rarity_side(train_csv, test_csv, cats, args):
    model, pred = train_csv + ".forest.rarity", test_csv + ".forest.pred.csv"
    spec = f"forest(n={args.trees},min_samples_leaf={args.min_leaf})"
    t0 = time.perf_counter()
    subprocess.run([tables.RARITY, "fit", train_csv, "--target", "class", "--categorical",
                    "native", "--categorical-cols", ",".join(cats), "-m", spec, "-o", model,
                    "--threads", "2", "--seed", "0", "-q"], check=True)
    subprocess.run([tables.RARITY, "predict", model, test_csv, "-o", pred, "--threads", "2",
                    "-q"], check=True)
    seconds = time.perf_counter() - t0
    import pandas as pd
    return seconds, pd.read_csv(pred)["p_1"].to_numpy()


def both_sides(train, test, cats, args, base):
    """scikit-learn's and rarity's (seconds, probabilities) on one split."""
    return tables.both_sides(train, test, cats, args, base, sklearn_side, rarity_side)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", default="fraud,synthetic,keel")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--min-leaf", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--keel-dir", default=os.path.join(tables.ROOT, "..", "shared", "data",
                                                       "keel-raw"))
    args = ap.parse_args()
    os.makedirs(tables.WORK, exist_ok=True)
    chosen = args.tables.split(",")
    settings = f"trees={args.trees} min_samples_leaf={args.min_leaf}"
    side = dict(peer="sklearn", sides=both_sides)
    if "fraud" in chosen:
        tables.large("fraud", tables.fraud_table(args.rows), tables.FRAUD_CATS, args, settings,
                     **side)
    if "synthetic" in chosen:
        tables.large("synthetic", tables.table(args.rows), tables.SYNTHETIC_CATS, args, settings,
                     **side)
    if "keel" in chosen:
        tables.keel(args, settings, **side)


if __name__ == "__main__":
    main()
