#!/usr/bin/env python3
"""rarity's gbdt with native categorical splits against LightGBM's native categorical handling,
side by side on a table whose signal lives in its categories: fit + predict time, ROC AUC, AP.

Usage (from the repository root; needs numpy, pandas, scikit-learn and lightgbm 4.x, and a
rarity built with categorical columns read natively: `rarity fit --categorical native`):

    cargo build --release
    nice python3 benches/gbdt_categorical_vs_lightgbm.py [--rows 1000000] [--rounds 100]
                                                         [--leaves 31] [--lr 0.1] [--repeat 1]

The table (numpy default_rng(41), cached in $TMPDIR/rarity-bench/): `merchant` (20,000 levels,
Zipf-like frequencies; 2% of them high-risk), `country` (200 levels, 10 risky), `mcc` (1,000
levels, 50 risky), `channel` (5 levels), and 6 numeric columns (`amount` and noise). The log-odds
of fraud are -6 plus 3 for a risky merchant, 1.2 for a risky country, 1.5 for a risky mcc, 0.5
for channel `web`, 0.6 log(amount) - 2 and a little of two noise columns (about 1% positives).
The levels are written as text (`m123`), so both sides see categories, not numbers.

Both sides get the same 80/20 stratified split (scikit-learn train_test_split, random_state=0),
two threads, the same rounds, leaves, learning rate, 20 rows per leaf, 255 bins and LightGBM's
categorical defaults (cat_smooth=10, cat_l2=10, max_cat_threshold=32, min_data_per_group=100,
max_cat_to_onehot=4), which are rarity's too. Times are wall-clock seconds: LightGBM from the
pandas table in memory (category dtype) to the test probabilities; rarity from the CSV files
(`rarity fit`, then `rarity predict`), so its figure includes reading the CSVs, which
LightGBM's does not. Ratio = LightGBM seconds / rarity seconds (above 1: rarity is faster).
"""
import argparse, os, subprocess, tempfile, time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(tempfile.gettempdir(), "rarity-bench")
RARITY = os.path.join(ROOT, "target", "release", "rarity")


def table(rows):
    import pandas as pd
    r = np.random.default_rng(41)

    def column(levels, risky_share, prefix):
        weights = 1.0 / np.arange(1, levels + 1) ** 0.8
        codes = r.choice(levels, size=rows, p=weights / weights.sum())
        risky = r.random(levels) < risky_share
        return np.array([f"{prefix}{c}" for c in range(levels)])[codes], risky[codes]

    merchant, m_risk = column(20_000, 0.02, "m")
    country, c_risk = column(200, 0.05, "c")
    mcc, k_risk = column(1_000, 0.05, "k")
    channel = r.choice(["web", "pos", "atm", "moto", "app"], size=rows)
    amount = r.lognormal(3.0, 1.2, size=rows)
    noise = r.standard_normal((rows, 5))
    s = (-6 + 3 * m_risk + 1.2 * c_risk + 1.5 * k_risk + 0.5 * (channel == "web")
         + 0.6 * np.log(amount) - 2 + 0.3 * noise[:, 0] - 0.2 * noise[:, 1])
    y = (r.random(rows) < 1 / (1 + np.exp(-s))).astype(int)
    df = pd.DataFrame({"merchant": merchant, "country": country, "mcc": mcc, "channel": channel,
                       "amount": amount})
    for j in range(5):
        df[f"n{j}"] = noise[:, j]
    df["class"] = y
    return df


def lightgbm_side(train, test, args):
    import lightgbm as lgb
    cats = ["merchant", "country", "mcc", "channel"]
    t0 = time.perf_counter()
    xtr, xte = train.drop(columns="class").copy(), test.drop(columns="class").copy()
    for c in cats:
        xtr[c] = xtr[c].astype("category")
        xte[c] = xte[c].astype("category").cat.set_categories(xtr[c].cat.categories)
    params = dict(objective="binary", learning_rate=args.lr, num_leaves=args.leaves,
                  min_data_in_leaf=20, max_bin=255, num_threads=2, verbose=-1, seed=0)
    booster = lgb.train(params, lgb.Dataset(xtr, train["class"], categorical_feature=cats),
                        num_boost_round=args.rounds)
    p = booster.predict(xte)
    return time.perf_counter() - t0, p


def rarity_side(train_csv, test_csv, args):
    model, pred = train_csv + ".rarity", test_csv + ".pred.csv"
    spec = f"gbdt(rounds={args.rounds},learning_rate={args.lr},max_leaves={args.leaves})"
    t0 = time.perf_counter()
    subprocess.run([RARITY, "fit", train_csv, "--target", "class", "--categorical", "native",
                    "-m", spec, "-o", model, "--threads", "2", "-q"], check=True)
    subprocess.run([RARITY, "predict", model, test_csv, "-o", pred, "--threads", "2", "-q"],
                   check=True)
    seconds = time.perf_counter() - t0
    import pandas as pd
    return seconds, pd.read_csv(pred)["p_1"].to_numpy()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--leaves", type=int, default=31)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    from sklearn.metrics import average_precision_score, roc_auc_score
    from sklearn.model_selection import train_test_split
    os.makedirs(WORK, exist_ok=True)
    df = table(args.rows)
    train, test = train_test_split(df, test_size=0.2, stratify=df["class"], random_state=0)
    base = os.path.join(WORK, f"categorical-{args.rows}")
    train_csv, test_csv = base + "-train.csv", base + "-test.csv"
    train.to_csv(train_csv, index=False)
    test.drop(columns="class").to_csv(test_csv, index=False)
    print(f"{args.rows} rows, {df['class'].mean():.4f} positives; rounds={args.rounds} "
          f"leaves={args.leaves} lr={args.lr}")
    print(f"{'side':10} {'seconds':>8} {'ROC AUC':>8} {'AP':>8}")
    ratios = []
    for _ in range(args.repeat):
        (tl, pl), (tr, pr) = lightgbm_side(train, test, args), rarity_side(train_csv, test_csv, args)
        for name, t, p in [("lightgbm", tl, pl), ("rarity", tr, pr)]:
            auc, ap_ = roc_auc_score(test["class"], p), average_precision_score(test["class"], p)
            print(f"{name:10} {t:8.2f} {auc:8.4f} {ap_:8.4f}")
        ratios.append(tl / tr)
    print(f"speed ratio (LightGBM s / rarity s), median of {len(ratios)}: {np.median(ratios):.2f}")


if __name__ == "__main__":
    main()
