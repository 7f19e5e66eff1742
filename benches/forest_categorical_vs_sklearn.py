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
positive rate, fitted on the training rows and applied to the test rows. rarity's trees are
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
    from sklearn.preprocessing import TargetEncoder
    t0 = time.perf_counter()
    xtr, xte = train.drop(columns="class"), test.drop(columns="class")
    enc = TargetEncoder(target_type="binary", smooth="auto", cv=5, random_state=0)
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
    train_csv, test_csv = base + "-train.csv", base + "-test.csv"
    train.to_csv(train_csv, index=False)
    test.drop(columns="class").to_csv(test_csv, index=False)
    return sklearn_side(train, test, cats, args), rarity_side(train_csv, test_csv, cats, args)


def large(name, df, cats, args):
    from sklearn.model_selection import train_test_split
    train, test = train_test_split(df, test_size=0.2, stratify=df["class"], random_state=0)
    print(f"\n{name}: {len(df)} rows, {df['class'].mean():.4f} positives; trees={args.trees} "
          f"min_samples_leaf={args.min_leaf}")
    print(f"{'side':10} {'seconds':>8} {'ROC AUC':>8} {'AP':>8}")
    ratios = []
    for _ in range(args.repeat):
        (ts, ps), (tr, pr) = both_sides(train, test, cats, args,
                                        os.path.join(tables.WORK, f"{name}-{len(df)}"))
        for side, t, p in [("sklearn", ts, ps), ("rarity", tr, pr)]:
            auc, ap_ = tables.score(test["class"], p)
            print(f"{side:10} {t:8.2f} {auc:8.4f} {ap_:8.4f}")
        ratios.append(ts / tr)
    print(f"speed ratio (sklearn s / rarity s), median of {len(ratios)}: {np.median(ratios):.2f}")


def keel(args):
    from sklearn.model_selection import StratifiedKFold
    print(f"\nKEEL sets with nominal attributes, 5-fold CV; trees={args.trees} "
          f"min_samples_leaf={args.min_leaf}")
    print(f"{'set':14} {'skl AUC':>8} {'rarity':>8} {'skl AP':>8} {'rarity':>8}")
    means, wins, seconds = [], [0, 0, 0, 0], [0.0, 0.0]
    for path in tables.keel_sets(args.keel_dir):
        name = os.path.basename(path)[:-4]
        df, cats = tables.keel_table(path)
        folds = StratifiedKFold(5, shuffle=True, random_state=0).split(df, df["class"])
        per = []
        for k, (a, b) in enumerate(folds):
            train, test = df.iloc[a], df.iloc[b]
            (ts, ps), (tr, pr) = both_sides(train, test, cats, args,
                                            os.path.join(tables.WORK, f"keel-{name}-{k}"))
            seconds[0] += ts
            seconds[1] += tr
            per.append(tables.score(test["class"], ps) + tables.score(test["class"], pr))
        m = np.mean(per, axis=0)  # sklearn auc, sklearn ap, rarity auc, rarity ap
        means.append(m)
        wins[0] += m[2] > m[0]
        wins[1] += m[0] > m[2]
        wins[2] += m[3] > m[1]
        wins[3] += m[1] > m[3]
        print(f"{name:14} {m[0]:8.4f} {m[2]:8.4f} {m[1]:8.4f} {m[3]:8.4f}")
    m = np.mean(means, axis=0)
    print(f"{'mean':14} {m[0]:8.4f} {m[2]:8.4f} {m[1]:8.4f} {m[3]:8.4f}")
    print(f"wins rarity/sklearn: AUC {wins[0]}/{wins[1]}, AP {wins[2]}/{wins[3]}; seconds "
          f"sklearn {seconds[0]:.2f}, rarity {seconds[1]:.2f} (ratio {seconds[0] / seconds[1]:.2f})")


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
    if "fraud" in chosen:
        large("fraud", tables.fraud_table(args.rows), tables.FRAUD_CATS, args)
    if "synthetic" in chosen:
        large("synthetic", tables.table(args.rows), tables.SYNTHETIC_CATS, args)
    if "keel" in chosen:
        keel(args)


if __name__ == "__main__":
    main()
