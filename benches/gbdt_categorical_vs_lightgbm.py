#!/usr/bin/env python3
"""rarity's gbdt with native categorical splits against LightGBM's native categorical handling,
side by side on tables whose signal lives in their categories: fit + predict time, ROC AUC, AP.

Usage (from the repository root; needs numpy, pandas, scikit-learn and lightgbm 4.x):

    cargo build --release
    nice python3 benches/gbdt_categorical_vs_lightgbm.py [--tables fraud,synthetic,keel]
        [--rows 1000000] [--rounds 100] [--leaves 31] [--lr 0.1] [--repeat 1] [--verbose]
        [--keel-dir ../shared/data/keel-raw]

Tables:
- `fraud`: `rarity generate fraud --categorical --n ROWS --seed 41` (issue 41's table:
  `merchant` 20,000 levels, `country` 200, `mcc` 1,000, written as text or codes, plus the
  30 numeric columns of `generate fraud`). LightGBM reads the CSV with pandas, the three
  fields as category dtype; rarity reads it with `--categorical native --categorical-cols mcc`.
- `synthetic`: a table drawn here (numpy default_rng(41)): `merchant` (20,000 levels,
  Zipf-like frequencies; 2% of them high-risk), `country` (200 levels, 10 risky), `mcc` (1,000
  levels, 50 risky), `channel` (5 levels), and 6 numeric columns (`amount` and noise). The
  log-odds of fraud are -6 plus 3 for a risky merchant, 1.2 for a risky country, 1.5 for a risky
  mcc, 0.5 for channel `web`, 0.6 log(amount) - 2 and a little of two noise columns (about 1%
  positives). The levels are written as text (`m123`).
- `keel`: the KEEL sets with nominal attributes in --keel-dir (`@attribute x {a,b}` in the
  .dat header: abalone9-18, car-good, flare-F), every nominal attribute a category on both
  sides; stratified 5-fold CV (scikit-learn StratifiedKFold, shuffle, random_state=0), the same
  folds both sides; mean ROC AUC and AP per set over the folds, and which side wins each.

Both sides get the same 80/20 stratified split of the large tables (scikit-learn
train_test_split, random_state=0), two threads, the same rounds, leaves, learning rate, 20 rows
per leaf, 255 bins, the leaf step bounded at 5 (rarity's default max_delta_step, given to
LightGBM too) and LightGBM's categorical defaults (cat_smooth=10, cat_l2=10,
max_cat_threshold=32, min_data_per_group=100, max_cat_to_onehot=4), which are rarity's too.
Times are wall-clock seconds: LightGBM from the pandas table in memory (category dtype) to the
test probabilities; rarity from the CSV files (`rarity fit`, then `rarity predict`), so its
figure includes reading the CSVs, which LightGBM's does not. Ratio = LightGBM seconds / rarity
seconds (above 1: rarity is faster). On a shared machine wall seconds include waiting for a
core, so each side's CPU seconds are printed too (LightGBM: this process's CPU time over its
side; rarity: its child processes' user + system time) with their ratio; rarity's fit and
predict are also given apart (wall / CPU). LightGBM runs with OMP_WAIT_POLICY=PASSIVE unless the
environment sets it. RARITY_BIN names another rarity binary (e.g. a previous build's).
"""
import argparse, os, resource, subprocess, tempfile, time

import numpy as np

# LightGBM's OpenMP threads spin while they wait; on a machine shared with other work that slows
# it by orders of magnitude on small sets (15 KEEL fits took 1,206 s under load 15). Passive
# waiting, unless the caller chose otherwise.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(tempfile.gettempdir(), "rarity-bench")
RARITY = os.environ.get("RARITY_BIN", os.path.join(ROOT, "target", "release", "rarity"))


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


def children_cpu():
    """User + system CPU seconds of this process's finished children."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def lightgbm_side(train, test, cats, args):
    import lightgbm as lgb
    t0, c0 = time.perf_counter(), time.process_time()
    xtr, xte = train.drop(columns="class").copy(), test.drop(columns="class").copy()
    for c in cats:
        xtr[c] = xtr[c].astype("category")
        xte[c] = xte[c].astype("category").cat.set_categories(xtr[c].cat.categories)
    params = dict(objective="binary", learning_rate=args.lr, num_leaves=args.leaves,
                  min_data_in_leaf=20, max_bin=255, max_delta_step=5.0, num_threads=2,
                  verbose=-1, seed=0)
    booster = lgb.train(params, lgb.Dataset(xtr, train["class"], categorical_feature=cats),
                        num_boost_round=args.rounds)
    p = booster.predict(xte)
    return time.perf_counter() - t0, time.process_time() - c0, p


def rarity_side(train_csv, test_csv, cats, args):
    model, pred = train_csv + ".rarity", test_csv + ".pred.csv"
    spec = f"gbdt(rounds={args.rounds},learning_rate={args.lr},max_leaves={args.leaves})"
    t0, c0 = time.perf_counter(), children_cpu()
    subprocess.run([RARITY, "fit", train_csv, "--target", "class", "--categorical", "native",
                    "--categorical-cols", ",".join(cats),
                    "-m", spec, "-o", model, "--threads", "2", "-q"], check=True)
    t1, c1 = time.perf_counter(), children_cpu()
    subprocess.run([RARITY, "predict", model, test_csv, "-o", pred, "--threads", "2", "-q"],
                   check=True)
    seconds, cpu = time.perf_counter() - t0, children_cpu() - c0
    if args.verbose:
        print(f"  rarity fit {t1 - t0:.2f} s wall / {c1 - c0:.2f} s CPU, predict "
              f"{seconds - (t1 - t0):.2f} / {cpu - (c1 - c0):.2f}")
    import pandas as pd
    return seconds, cpu, pd.read_csv(pred)["p_1"].to_numpy()


def fraud_table(rows):
    """issue 41's table, written by `rarity generate fraud --categorical`."""
    import pandas as pd
    path = os.path.join(WORK, f"fraud-categorical-{rows}.csv")
    if not os.path.exists(path):
        subprocess.run([RARITY, "generate", "fraud", "--categorical", "--n", str(rows),
                        "--seed", "41", "-o", path, "-q"], check=True)
    return pd.read_csv(path, dtype={c: str for c in FRAUD_CATS})


FRAUD_CATS = ["merchant", "country", "mcc"]
SYNTHETIC_CATS = ["merchant", "country", "mcc", "channel"]


def keel_table(path):
    """A KEEL .dat file as a DataFrame (`class` 1 for `positive`) and its nominal columns."""
    import pandas as pd
    names, nominal, rows = [], [], []
    with open(path) as f:
        for line in f:
            line = line.strip()
            low = line.lower()
            if low.startswith("@attribute"):
                name = line.split()[1]
                names.append(name)
                if "{" in line:
                    nominal.append(name)
            elif line and not line.startswith("@"):
                rows.append([v.strip() for v in line.split(",")])
    df = pd.DataFrame(rows, columns=names)
    label = names[-1]
    nominal.remove(label)
    for c in names[:-1]:
        if c not in nominal:
            df[c] = df[c].astype(float)
    df["class"] = (df.pop(label) == "positive").astype(int)
    return df.rename(columns={c: c.replace("-", "_") for c in df.columns}), \
        [c.replace("-", "_") for c in nominal]


def keel_sets(keel_dir):
    """The .dat files of keel_dir with a nominal attribute besides the class."""
    import glob
    out = []
    for path in sorted(glob.glob(os.path.join(keel_dir, "*.dat"))):
        with open(path) as f:
            heads = [l for l in f if l.lower().startswith("@attribute")]
        if sum("{" in h for h in heads[:-1]) > 0:
            out.append(path)
    return out


def score(y, p):
    from sklearn.metrics import average_precision_score, roc_auc_score
    return roc_auc_score(y, p), average_precision_score(y, p)


def both_sides(train, test, cats, args, base, peer=None, ours=None):
    """The peer's and rarity's (wall seconds, CPU seconds, probabilities) on one split (by
    default LightGBM's and rarity's gbdt)."""
    train_csv, test_csv = base + "-train.csv", base + "-test.csv"
    train.to_csv(train_csv, index=False)
    test.drop(columns="class").to_csv(test_csv, index=False)
    peer, ours = peer or lightgbm_side, ours or rarity_side
    return peer(train, test, cats, args), ours(train_csv, test_csv, cats, args)


def large(name, df, cats, args, settings, peer="lightgbm", sides=both_sides):
    """One 80/20 split of a large table: each side's seconds, ROC AUC and AP, and the ratio."""
    from sklearn.model_selection import train_test_split
    train, test = train_test_split(df, test_size=0.2, stratify=df["class"], random_state=0)
    print(f"\n{name}: {len(df)} rows, {df['class'].mean():.4f} positives; {settings}")
    print(f"{'side':10} {'seconds':>8} {'CPU s':>8} {'ROC AUC':>8} {'AP':>8}")
    ratios, cpu_ratios = [], []
    for _ in range(args.repeat):
        (tl, cl, pl), (tr, cr, pr) = sides(train, test, cats, args,
                                           os.path.join(WORK, f"{name}-{len(df)}"))
        for side, t, c, p in [(peer, tl, cl, pl), ("rarity", tr, cr, pr)]:
            auc, ap_ = score(test["class"], p)
            print(f"{side:10} {t:8.2f} {c:8.2f} {auc:8.4f} {ap_:8.4f}")
        ratios.append(tl / tr)
        cpu_ratios.append(cl / cr)
    print(f"speed ratio ({peer} s / rarity s), median of {len(ratios)}: wall "
          f"{np.median(ratios):.2f}, CPU {np.median(cpu_ratios):.2f}")


def keel(args, settings, peer="lightgbm", sides=both_sides):
    """Stratified 5-fold CV on each KEEL set with nominal attributes: mean AUC and AP per set and
    over the sets, wins, total seconds."""
    from sklearn.model_selection import StratifiedKFold
    print(f"\nKEEL sets with nominal attributes, 5-fold CV; {settings}")
    print(f"{'set':14} {peer[:4] + ' AUC':>9} {'rarity':>8} {peer[:4] + ' AP':>8} {'rarity':>8}")
    means, wins, seconds, cpu = [], [0, 0, 0, 0], [0.0, 0.0], [0.0, 0.0]
    for path in keel_sets(args.keel_dir):
        name = os.path.basename(path)[:-4]
        df, cats = keel_table(path)
        folds = StratifiedKFold(5, shuffle=True, random_state=0).split(df, df["class"])
        per = []
        for k, (a, b) in enumerate(folds):
            train, test = df.iloc[a], df.iloc[b]
            (tl, cl, pl), (tr, cr, pr) = sides(train, test, cats, args,
                                               os.path.join(WORK, f"keel-{name}-{k}"))
            seconds[0] += tl
            seconds[1] += tr
            cpu[0] += cl
            cpu[1] += cr
            per.append(score(test["class"], pl) + score(test["class"], pr))
        m = np.mean(per, axis=0)  # peer auc, peer ap, rarity auc, rarity ap
        means.append(m)
        wins[0] += m[2] > m[0]
        wins[1] += m[0] > m[2]
        wins[2] += m[3] > m[1]
        wins[3] += m[1] > m[3]
        print(f"{name:14} {m[0]:9.4f} {m[2]:8.4f} {m[1]:8.4f} {m[3]:8.4f}")
    m = np.mean(means, axis=0)
    print(f"{'mean':14} {m[0]:9.4f} {m[2]:8.4f} {m[1]:8.4f} {m[3]:8.4f}")
    print(f"wins rarity/{peer}: AUC {wins[0]}/{wins[1]}, AP {wins[2]}/{wins[3]}; seconds "
          f"{peer} {seconds[0]:.2f}, rarity {seconds[1]:.2f} (ratio {seconds[0] / seconds[1]:.2f}); "
          f"CPU s {peer} {cpu[0]:.2f}, rarity {cpu[1]:.2f} (ratio {cpu[0] / cpu[1]:.2f})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", default="fraud,synthetic,keel")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--leaves", type=int, default=31)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--verbose", action="store_true", help="rarity's fit and predict apart")
    ap.add_argument("--keel-dir", default=os.path.join(ROOT, "..", "shared", "data", "keel-raw"))
    args = ap.parse_args()
    os.makedirs(WORK, exist_ok=True)
    tables = args.tables.split(",")
    settings = f"rounds={args.rounds} leaves={args.leaves} lr={args.lr}"
    if "fraud" in tables:
        large("fraud", fraud_table(args.rows), FRAUD_CATS, args, settings)
    if "synthetic" in tables:
        large("synthetic", table(args.rows), SYNTHETIC_CATS, args, settings)
    if "keel" in tables:
        keel(args, settings)


if __name__ == "__main__":
    main()
