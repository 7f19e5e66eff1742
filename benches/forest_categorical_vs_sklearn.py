#!/usr/bin/env python3
"""rarity's `forest` with native categorical splits against scikit-learn's `TargetEncoder` +
`RandomForestClassifier`, side by side on the tables of gbdt_categorical_vs_lightgbm.py:
fit + predict time, ROC AUC, AP.

Usage (from the repository root; needs numpy, pandas, scikit-learn >= 1.3 and lightgbm is not
needed):

    cargo build --release
    nice python3 benches/forest_categorical_vs_sklearn.py [--tables fraud,synthetic,keel]
        [--rows 1000000] [--trees 100] [--min-leaf 5] [--specs 'SPEC;SPEC'] [--reuse-peer]
        [--folds K]

--specs: the rarity rows, model specs separated by ';' ({trees} and {leaf} stand for --trees
and --min-leaf); by default the forest with native categorical splits (its categorical
parameters at their defaults: cat_smooth, min_data_per_group, max_cat_threshold, cat_l2,
max_cat_to_onehot) and
`encode(target)+forest(...)` (the categories replaced by cross-fitted target statistics).
--reuse-peer: reuse scikit-learn's probabilities and seconds saved by an earlier run on the
same split and settings (rarity's rows are always run).
--folds K (K >= 2): the large tables by stratified K-fold CV (scikit-learn StratifiedKFold,
shuffle, random_state=0; the same folds both sides) instead of one 80/20 split: each fold's
figures, then per row the mean over the folds, their spread (sample standard deviation) and the
mean and spread of its paired difference from scikit-learn's fold by fold (the folds share their
noise, so the paired difference is what tells two rows apart). One 80/20 split of the synthetic
table at 200,000 rows holds ~208 test positives: +-0.01 AUC is within its noise.

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


def rarity_side(train_csv, test_csv, cats, spec):
    """rarity's (seconds, probabilities) for one model spec, from the CSV files."""
    tag = str(abs(hash(spec)) % 10**8)
    model, pred = f"{train_csv}.{tag}.rarity", f"{test_csv}.{tag}.pred.csv"
    t0 = time.perf_counter()
    subprocess.run([tables.RARITY, "fit", train_csv, "--target", "class", "--categorical",
                    "native", "--categorical-cols", ",".join(cats), "-m", spec, "-o", model,
                    "--threads", "2", "--seed", "0", "-q"], check=True)
    subprocess.run([tables.RARITY, "predict", model, test_csv, "-o", pred, "--threads", "2",
                    "-q"], check=True)
    seconds = time.perf_counter() - t0
    import pandas as pd
    return seconds, pd.read_csv(pred)["p_1"].to_numpy()


def specs(args):
    """The rarity rows: each --specs template with {trees} and {leaf} filled in."""
    return [t.format(trees=args.trees, leaf=args.min_leaf) for t in args.specs.split(";")]


def all_sides(train, test, cats, args, base):
    """scikit-learn's (seconds, probabilities), then rarity's for each spec, on one split.
    scikit-learn's are kept in BASE-sklearn-T-L.npz and reused with --reuse-peer."""
    train_csv, test_csv = base + "-train.csv", base + "-test.csv"
    train.to_csv(train_csv, index=False)
    test.drop(columns="class").to_csv(test_csv, index=False)
    kept = f"{base}-sklearn-{args.trees}-{args.min_leaf}.npz"
    if args.reuse_peer and os.path.exists(kept):
        z = np.load(kept)
        peer = (float(z["seconds"]), z["p"])
    else:
        peer = sklearn_side(train, test, cats, args)
        np.savez(kept, seconds=peer[0], p=peer[1])
    return [peer] + [rarity_side(train_csv, test_csv, cats, s) for s in specs(args)]


def large(name, df, cats, args):
    """One 80/20 split of a large table (or --folds K folds): each row's seconds, ROC AUC, AP
    and speed ratio, per split, then their summary over the folds."""
    from sklearn.model_selection import StratifiedKFold, train_test_split
    base = os.path.join(tables.WORK, f"{name}-{len(df)}")
    if args.folds >= 2:
        folds = StratifiedKFold(args.folds, shuffle=True, random_state=0).split(df, df["class"])
        splits = [(df.iloc[a], df.iloc[b], f"{base}-cv{args.folds}-{k}")
                  for k, (a, b) in enumerate(folds)]
    else:
        train, test = train_test_split(df, test_size=0.2, stratify=df["class"], random_state=0)
        splits = [(train, test, base)]
    print(f"\n{name}: {len(df)} rows, {df['class'].mean():.4f} positives; "
          f"trees={args.trees} min_samples_leaf={args.min_leaf}")
    names = ["sklearn TargetEncoder+RF"] + specs(args)
    per = []  # per split, per row: seconds, AUC, AP
    for k, (train, test, at) in enumerate(splits):
        if len(splits) > 1:
            print(f"fold {k + 1} of {len(splits)}: {int(test['class'].sum())} test positives")
        print(f"{'side':58} {'seconds':>8} {'ratio':>7} {'ROC AUC':>8} {'AP':>8}")
        sides = all_sides(train, test, cats, args, at)
        per.append([(t,) + tables.score(test["class"], p) for t, p in sides])
        for side, (t, auc, ap_) in zip(names, per[-1]):
            print(f"{side:58} {t:8.2f} {per[-1][0][0] / t:7.2f} {auc:8.4f} {ap_:8.4f}")
    if len(splits) > 1:
        summary(names, np.array(per))


def summary(names, per):
    """Over the folds (`per`: fold x row x [seconds, AUC, AP]): each row's total seconds and
    ratio, mean +- spread of AUC and AP, and of the paired difference from the first row."""
    print(f"over {len(per)} folds: mean +- sample standard deviation; diff = row - sklearn, "
          f"fold by fold")
    print(f"{'side':58} {'seconds':>8} {'ratio':>7} {'ROC AUC':>16} {'AP':>16} "
          f"{'AUC diff':>17} {'AP diff':>17}")
    sd = lambda x: np.std(x, ddof=1)  # noqa: E731
    total = per[:, :, 0].sum(axis=0)
    for j, side in enumerate(names):
        auc, ap_ = per[:, j, 1], per[:, j, 2]
        dauc, dap = auc - per[:, 0, 1], ap_ - per[:, 0, 2]
        print(f"{side:58} {total[j]:8.2f} {total[0] / total[j]:7.2f} "
              f"{auc.mean():.4f} +-{sd(auc):.4f} {ap_.mean():.4f} +-{sd(ap_):.4f} "
              f"{dauc.mean():+.4f} +-{sd(dauc):.4f} {dap.mean():+.4f} +-{sd(dap):.4f}")


def keel(args):
    """Stratified 5-fold CV on each KEEL set with nominal attributes: mean AUC / AP per set and
    row, and over the sets; total seconds per row."""
    from sklearn.model_selection import StratifiedKFold
    names = ["sklearn TargetEncoder+RF"] + specs(args)
    print(f"\nKEEL sets with nominal attributes, 5-fold CV; trees={args.trees} "
          f"min_samples_leaf={args.min_leaf}; AUC / AP per row")
    means, seconds = [], np.zeros(len(names))
    for path in tables.keel_sets(args.keel_dir):
        name = os.path.basename(path)[:-4]
        df, cats = tables.keel_table(path)
        folds = StratifiedKFold(5, shuffle=True, random_state=0).split(df, df["class"])
        per = []
        for k, (a, b) in enumerate(folds):
            train, test = df.iloc[a], df.iloc[b]
            sides = all_sides(train, test, cats, args,
                              os.path.join(tables.WORK, f"keel-{name}-{k}"))
            seconds += [t for t, _ in sides]
            per.append([tables.score(test["class"], p) for _, p in sides])
        m = np.mean(per, axis=0)
        means.append(m)
        print(f"{name:14} " + "  ".join(f"{auc:.4f} / {ap_:.4f}" for auc, ap_ in m))
    m = np.mean(means, axis=0)
    print(f"{'mean':14} " + "  ".join(f"{auc:.4f} / {ap_:.4f}" for auc, ap_ in m))
    for side, t in zip(names, seconds):
        print(f"  {side:58} {t:8.2f} s (ratio {seconds[0] / t:.2f})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", default="fraud,synthetic,keel")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--min-leaf", type=int, default=5)
    ap.add_argument("--specs", default=SPECS)
    ap.add_argument("--reuse-peer", action="store_true")
    ap.add_argument("--folds", type=int, default=0)
    ap.add_argument("--keel-dir", default=os.path.join(tables.ROOT, "..", "shared", "data",
                                                       "keel-raw"))
    args = ap.parse_args()
    os.makedirs(tables.WORK, exist_ok=True)
    chosen = args.tables.split(",")
    if "fraud" in chosen:
        large("fraud", tables.fraud_table(args.rows), tables.FRAUD_CATS, args)
    if "synthetic" in chosen:
        large("synthetic", tables.table(args.rows), tables.SYNTHETIC_CATS, args)
    if "keel" in chosen:
        keel(args)


SPECS = ("forest(n={trees},min_samples_leaf={leaf});"
         "encode(target)+forest(n={trees},min_samples_leaf={leaf})")

if __name__ == "__main__":
    main()
