#!/usr/bin/env python3
"""Missing values learned from (issue 52): rarity's gbdt beside LightGBM and scikit-learn's
HistGradientBoostingClassifier, and rarity's trees' two ways with missing values
(missing_split=direction, missing_split=mia) beside scikit-learn's forest, on tables with holes punched in
them. AP, ROC AUC and fit time under 5-fold CV.

Usage (from the repository root; needs numpy, threadpoolctl, scikit-learn >= 1.4 and lightgbm 4.x):

    pip install numpy threadpoolctl scikit-learn 'lightgbm>=4,<5'
    nice python3 benches/missing_vs_lightgbm.py [--part gbdt,trees] [--data dense,fraud,bundled,shared]
        [--rates 0.05,0.2,0.5] [--holes mcar,positive] [--rows 200000] [--threads 2]
        [--shared ../shared/data] [--exe BIN] [--trees-n 100] [--draws 1]

Tables (the big ones cached in $TMPDIR/rarity-bench/, as benches/gbdt_vs_lightgbm.py makes them):
  dense: the first --rows rows of gbdt_vs_lightgbm.py's 1,000,000 x 28 table (about 4%
         positives, 10 informative features, 18 noise).
  fraud: `rarity generate fraud --n 284807` (284,807 x 30, 0.18% positives).
  bundled: every binary, all-numeric table bundled in data/ (rarity's own datasets).
  shared: the 70 binary tables of the shared data folder (DATA/binary/*.csv).
Holes, punched into the features (never the class) with numpy default_rng(52 + rate x 1000):
  mcar: each value missing with probability r (missing completely at random).
  positive: each value of a positive row missing with probability r, of a negative row with
            probability r / 5 (missing where the label is positive: the hole carries the label).
with r in --rates. Every side gets the same holes and the same stratified folds (scikit-learn
StratifiedKFold(5, shuffle=True, random_state=0)). --draws D punches D independent sets of holes
into each table (draw 0 is the single draw of earlier runs): on the small tables one draw's mean
AP moves by about 0.01 from draw to draw, as much as the differences measured, so the means are
over tables and draws, and each draw's mean difference to the first side is printed too.

Part gbdt: rarity `gbdt` (its defaults: 100 rounds, learning rate 0.1, 31 leaves, 20 rows a
leaf, 255 bins) through benches/gbdt.rs (`gbdt cv`, the NaN handed to the learner as they are);
LightGBM lgb.train with the same rounds, leaves, bins, learning rate, minimum rows and hessian
per leaf (its default use_missing=true: NaN bins, both directions scored); scikit-learn
HistGradientBoostingClassifier(max_iter=100, learning_rate=0.1, max_leaf_nodes=31,
min_samples_leaf=20, max_bins=255, l2_regularization=0, early_stopping=False). --threads
threads each (the small tables: one; the peers' OpenMP pools limited with threadpoolctl,
waiting passively). Fit time = the five folds' fits and predictions, wall
clock and CPU seconds of all threads; the ratio is the peer's seconds over rarity's (above 1:
rarity is faster).

Part trees: rarity `forest(n=--trees-n)` and `tree` with missing_split=direction and missing_split=mia,
and scikit-learn RandomForestClassifier(n_estimators=--trees-n, max_features='sqrt') (which
takes NaN from 1.4 on, scoring both directions and the missing-versus-observed split), on the
bundled and shared tables (and dense with --data dense: slow for scikit-learn).

Printed: one line per table, hole kind, rate and learner, then per hole kind and rate the
means over the tables (AP, AUC, and the summed fit seconds).
"""
import argparse, json, os, subprocess, sys, tempfile, time, warnings

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from gbdt_vs_lightgbm import bench_binary, dense, fraud, load  # noqa: E402

ROOT = os.path.dirname(here)
WORK = os.path.join(tempfile.gettempdir(), "rarity-bench", "missing")


def folds_of(y):
    from sklearn.model_selection import StratifiedKFold
    f = np.zeros(len(y), dtype=np.uint8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, (_, te) in enumerate(StratifiedKFold(5, shuffle=True, random_state=0).split(np.zeros(len(y)), y)):
            f[te] = i
    return f


def holes(X, y, kind, rate, draw=0):
    """X with values missing: mcar at `rate`; positive at `rate` in positive rows, rate / 5 elsewhere.
    Draw 0 is seeded 52 + rate x 1000, draw d > 0 that plus 7919 d."""
    rng = np.random.default_rng(52 + int(round(rate * 1000)) + 7919 * draw)
    u = rng.random(X.shape)
    p = np.full(X.shape, rate) if kind == "mcar" else np.where((y == 1)[:, None], rate, rate / 5)
    out = X.copy()
    out[u < p] = np.nan
    return out


def read_csv(path):
    """A numeric CSV whose last column is the class: (X, y with 1 for the positive class), or None
    when a column is not numeric or there are not two classes."""
    with open(path) as f:
        header = f.readline().strip().split(",")
        rows = [line.strip().split(",") for line in f if line.strip()]
    try:
        X = np.array([[float(v) if v not in ("", "?", "NA") else np.nan for v in r[:-1]] for r in rows])
    except ValueError:
        return None
    labels = [r[-1] for r in rows]
    classes = sorted(set(labels))
    if len(classes) != 2 or len(header) < 2 or np.isnan(X).any():
        return None
    pos = "1" if "1" in classes else ("positive" if "positive" in classes else min(classes, key=labels.count))
    return X, np.array([1 if v == pos else 0 for v in labels], dtype=np.uint8)


def tables(names, a):
    """(name, X, y, threads) of every table asked for."""
    out = []
    for name in names:
        if name == "dense":
            base, d = dense()
            X, y = load(base, d)
            out.append(("dense", np.ascontiguousarray(X[: a.rows]), y[: a.rows], a.threads))
        elif name == "fraud":
            base, d = fraud()
            X, y = load(base, d)
            out.append(("fraud", X, y, a.threads))
        elif name == "bundled":
            for f in sorted(os.listdir(os.path.join(ROOT, "data"))):
                t = f.endswith(".csv") and read_csv(os.path.join(ROOT, "data", f))
                if t:
                    out.append((f[:-4], t[0], t[1], 1))
        elif name == "shared":
            folder = os.path.join(a.shared, "binary")
            for f in sorted(os.listdir(folder)):
                t = f.endswith(".csv") and read_csv(os.path.join(folder, f))
                if t:
                    out.append((f[:-4], t[0], t[1], 1))
    return out


def quality(y, folds, p):
    from sklearn.metrics import average_precision_score, roc_auc_score
    auc, ap = [], []
    for f in range(folds.max() + 1):
        yf, pf = y[folds == f], p[folds == f]
        if 0 < yf.sum() < len(yf):
            auc.append(roc_auc_score(yf, pf))
            ap.append(average_precision_score(yf, pf))
    return float(np.mean(auc)), float(np.mean(ap))


def rarity_cv(exe, X, y, folds, spec, threads):
    os.makedirs(WORK, exist_ok=True)
    base = os.path.join(WORK, f"t{os.getpid()}")
    np.ascontiguousarray(X, dtype="<f8").tofile(base + ".x")
    y.astype(np.uint8).tofile(base + ".y")
    folds.tofile(base + ".folds")
    r = json.loads(subprocess.run([exe, "cv", base + ".x", base + ".y", base + ".folds", str(X.shape[1]),
                                   str(threads), spec, base + ".out"], check=True, capture_output=True,
                                  text=True).stdout)
    p = np.fromfile(base + ".out", dtype="<f8").reshape(len(y), 2)[:, 1]
    return p, sum(r["fit_seconds"]) + sum(r["predict_seconds"]), sum(r["fit_cpu_seconds"]) + sum(r["predict_cpu_seconds"])


def peer_cv(make, X, y, folds, threads):
    """Out-of-fold probabilities of `make()`'s model (fit / predict_proba) on `threads` OpenMP
    threads, wall and CPU seconds."""
    from threadpoolctl import threadpool_limits
    p = np.zeros(len(y))
    wall = cpu = 0.0
    with threadpool_limits(threads):
        for f in range(folds.max() + 1):
            p_f, w, c = peer_fold(make, X, y, folds, f)
            p[folds == f] = p_f
            wall += w
            cpu += c
    return p, wall, cpu


def peer_fold(make, X, y, folds, f):
    """Fold `f`'s test probabilities, wall and CPU seconds."""
    tr, te = folds != f, folds == f
    Xtr, Xte = np.ascontiguousarray(X[tr]), np.ascontiguousarray(X[te])
    start, c0 = time.perf_counter(), time.process_time()
    m = make()
    m.fit(Xtr, y[tr])
    p = m.predict_proba(Xte)[:, 1]
    return p, time.perf_counter() - start, time.process_time() - c0


class Lgb:
    """lgb.train with gbdt_vs_lightgbm.py's parameters, as an estimator."""

    def __init__(self, threads):
        self.params = dict(objective="binary", learning_rate=0.1, num_leaves=31, max_bin=255,
                           min_data_in_leaf=20, min_sum_hessian_in_leaf=1e-3, lambda_l2=0.0,
                           num_threads=threads, verbose=-1, seed=0, deterministic=True)

    def fit(self, X, y):
        import lightgbm as lgb
        self.model = lgb.train(self.params, lgb.Dataset(X, label=y), num_boost_round=100)
        return self

    def predict_proba(self, X):
        p = self.model.predict(X)
        return np.column_stack([1 - p, p])


def gbdt_sides(a, exe, threads):
    from sklearn.ensemble import HistGradientBoostingClassifier as HGB
    return [
        ("rarity gbdt", lambda X, y, f: rarity_cv(exe, X, y, f, "gbdt", threads)),
        ("LightGBM", lambda X, y, f: peer_cv(lambda: Lgb(threads), X, y, f, threads)),
        ("sklearn HGB", lambda X, y, f: peer_cv(lambda: HGB(
            max_iter=100, learning_rate=0.1, max_leaf_nodes=31, min_samples_leaf=20, max_bins=255,
            l2_regularization=0.0, early_stopping=False, random_state=0), X, y, f, threads)),
    ]


def tree_sides(a, exe, threads):
    from sklearn.ensemble import RandomForestClassifier as RF
    n = a.trees_n
    sides = []
    for m in ("direction", "mia"):
        sides.append((f"forest {m}", lambda X, y, f, m=m: rarity_cv(exe, X, y, f, f"forest(n={n},missing_split={m})", threads)))
        sides.append((f"tree {m}", lambda X, y, f, m=m: rarity_cv(exe, X, y, f, f"tree(missing_split={m})", threads)))
    sides.append(("sklearn forest", lambda X, y, f: peer_cv(lambda: RF(
        n_estimators=n, max_features="sqrt", n_jobs=threads, random_state=0), X, y, f, threads)))
    return sides


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", default="gbdt,trees")
    ap.add_argument("--data", default="dense,fraud,bundled,shared")
    ap.add_argument("--rates", default="0.05,0.2,0.5")
    ap.add_argument("--holes", default="mcar,positive")
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--trees-n", type=int, default=100)
    ap.add_argument("--draws", type=int, default=1)
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(ROOT), "shared", "data"))
    ap.add_argument("--exe", help="a built gbdt bench executable (default: build this tree's)")
    a = ap.parse_args()
    # OpenMP threads that wait on a busy machine sleep instead of spinning.
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    exe = a.exe or bench_binary()
    import lightgbm, sklearn
    print(f"LightGBM {lightgbm.__version__}, scikit-learn {sklearn.__version__}; load {os.getloadavg()[0]:.1f}",
          flush=True)
    for part in a.part.split(","):
        data = a.data.split(",")
        if part == "trees":
            data = [d for d in data if d not in ("dense", "fraud")] or data
        summary = {}
        for name, X, y, threads in tables(data, a):
            folds = folds_of(y)
            sides = (gbdt_sides if part == "gbdt" else tree_sides)(a, exe, threads)
            for kind in a.holes.split(","):
                for rate, draw in [(float(r), d) for r in a.rates.split(",") for d in range(a.draws)]:
                    Xh = holes(X, y, kind, rate, draw)
                    big = len(y) > 50_000
                    for label, run in sides:
                        load0 = os.getloadavg()[0]
                        p, wall, cpu = run(Xh, y, folds)
                        auc, avp = quality(y, folds, p)
                        group = name if big else "small"
                        summary.setdefault((kind, rate, group), {}).setdefault(label, []).append(
                            (avp, auc, wall, cpu, draw))
                        if big or len(X) > 20_000:
                            print(f"{part} {name} {X.shape[0]}x{X.shape[1]} {kind} {rate:.2f} draw {draw} {label:15s}: "
                                  f"AP {avp:.4f} AUC {auc:.4f} | {wall:7.2f} s wall, {cpu:7.2f} s CPU | load {load0:.1f}",
                                  flush=True)
        for (kind, rate, group), by in sorted(summary.items()):
            n = len(next(iter(by.values()))) // a.draws
            ref = by[next(iter(by))]
            what = group if group != "small" else f"means over {n} small tables"
            if a.draws > 1:
                what += f" x {a.draws} draws of holes"
            print(f"== {part} {kind} {rate:.2f} ({what})", flush=True)
            for label, rows in by.items():
                r = np.array(rows)
                wall, cpu = r[:, 2].sum(), r[:, 3].sum()
                ratio = f"{wall / np.array(ref)[:, 2].sum():5.2f}x wall, {cpu / np.array(ref)[:, 3].sum():5.2f}x CPU"
                print(f"   {label:15s} AP {r[:, 0].mean():.4f} AUC {r[:, 1].mean():.4f} | {wall:8.2f} s wall, "
                      f"{cpu:8.2f} s CPU ({ratio} of {next(iter(by))}'s)", flush=True)
                if a.draws > 1 and label != next(iter(by)):
                    r0 = np.array(ref)
                    diffs = [r0[r0[:, 4] == d, 0].mean() - r[r[:, 4] == d, 0].mean() for d in range(a.draws)]
                    print(f"   {'':15s} {next(iter(by))} AP minus {label}'s, per draw: "
                          + " ".join(f"{x:+.4f}" for x in diffs), flush=True)


if __name__ == "__main__":
    main()
