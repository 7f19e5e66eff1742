#!/usr/bin/env python3
"""rarity's gbdt against LightGBM, side by side: fit time, ROC AUC and AP under 5-fold CV.

Usage (from the repository root; needs numpy, pandas, scikit-learn and lightgbm 4.x):

    pip install 'lightgbm>=4,<5'
    nice python3 benches/gbdt_vs_lightgbm.py [--data fraud,dense,dense4] [--lr 0.1,0.02] [--rounds 100]
                                             [--leaves 31] [--bins 255] [--min-leaf 20] [--repeat 1]
                                             [--rarity-extra ',max_delta_step=0'] [--lgb-extra is_unbalance=true]
                                             [--small ../shared/data | --small none]

Data (cached in $TMPDIR/rarity-bench/):
  fraud: `rarity generate fraud --n 284807` (284,807 x 30, 512 frauds, 0.18%).
  dense: 1,000,000 x 28 standard normal features (numpy default_rng(2020)); the class is
         Bernoulli(sigmoid(s - 5.7)) with s = 1.2 x0 - 0.9 x1 + 0.8 x2 x3 + 0.7 sin(2 x4)
         + 0.6 |x5| + 0.5 x6^2 - 0.5 x7 x8 + 0.4 x9 (about 4% positives; the other 18
         features are noise).
  dense4: the dense table's features with 4 classes: s plus standard logistic noise
         (numpy default_rng(2021)), cut at its 60%, 85% and 96% quantiles (classes of
         60%, 25%, 11% and 4% of the rows; class 3 is the rare one). Both sides fit one tree
         per class and round (LightGBM's objective=multiclass); AUC and AP are the macro
         averages of the one-versus-rest ones.

Both sides get the same stratified folds (scikit-learn StratifiedKFold(5, shuffle=True,
random_state=0)), two threads, the same rounds, leaves, bins, learning rate and minimum rows
per leaf, no early stopping, no row or column sampling. A fold is timed from the training
table in memory to the test rows' probabilities: binning, boosting and predicting
(LightGBM: lgb.train on a fresh lgb.Dataset, then predict; rarity: Learner::fit, then
predict_proba, see benches/gbdt.rs). ROC AUC and AP are the means over
the folds' test rows. Ratio = LightGBM seconds / rarity seconds (above 1: rarity is faster),
in wall-clock seconds and in CPU seconds of all threads (less sensitive to other work on a
shared machine; LightGBM's OpenMP threads spin while they wait, which counts). With
--repeat N, each setting runs N times, the two sides alternating, and the medians of the N
ratios are printed after the N lines (the quality is the same in every run).

Then, unless --small none, the quality on the 70 shared binary sets (one thread, learning
rate 0.1, the summary of benches/gbdt_small_vs_lightgbm.py --quiet, which says how): mean
AP, AUC and Brier of both sides and rarity's wins, so that one run prints every figure of
issue 40.
"""
import argparse, json, os, subprocess, sys, tempfile, time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(tempfile.gettempdir(), "rarity-bench")


def bench_binary():
    out = subprocess.run(
        ["cargo", "bench", "--bench", "gbdt", "--no-run", "--message-format=json"],
        cwd=ROOT, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") and msg["target"]["name"] == "gbdt":
            return msg["executable"]
    sys.exit("could not find the gbdt bench executable")


def fraud():
    base = os.path.join(WORK, "gbdt-fraud")
    if not os.path.exists(base + ".y"):
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
        csv = base + ".csv"
        subprocess.run([os.path.join(ROOT, "target", "release", "rarity"), "generate", "fraud",
                        "--n", "284807", "-o", csv, "--quiet"], check=True)
        a = np.loadtxt(csv, delimiter=",", skiprows=1)
        X = np.ascontiguousarray(a[:, :-1], dtype="<f8")
        y = a[:, -1].astype(np.uint8)
        X.tofile(base + ".x")
        y.tofile(base + ".y")
        os.remove(csv)
    return base, 30


def dense_score(X):
    return (1.2 * X[:, 0] - 0.9 * X[:, 1] + 0.8 * X[:, 2] * X[:, 3] + 0.7 * np.sin(2 * X[:, 4])
            + 0.6 * np.abs(X[:, 5]) + 0.5 * X[:, 6] ** 2 - 0.5 * X[:, 7] * X[:, 8] + 0.4 * X[:, 9])


def dense():
    base = os.path.join(WORK, "gbdt-dense")
    if not os.path.exists(base + ".y"):
        rng = np.random.default_rng(2020)
        n, d = 1_000_000, 28
        X = rng.standard_normal((n, d))
        s = dense_score(X)
        p = 1 / (1 + np.exp(-(s - 5.7)))
        y = (rng.random(n) < p).astype(np.uint8)
        X.astype("<f8").tofile(base + ".x")
        y.tofile(base + ".y")
    return base, 28


def dense4():
    base = os.path.join(WORK, "gbdt-dense4")
    if not os.path.exists(base + ".y"):
        dbase, d = dense()
        X, _ = load(dbase, d)
        t = dense_score(X) + np.random.default_rng(2021).logistic(size=len(X))
        y = np.searchsorted(np.quantile(t, [0.6, 0.85, 0.96]), t).astype(np.uint8)
        os.symlink(dbase + ".x", base + ".x")
        y.tofile(base + ".y")
    return base, 28


def load(base, d):
    y = np.fromfile(base + ".y", dtype=np.uint8)
    X = np.fromfile(base + ".x", dtype="<f8").reshape(len(y), d)
    return X, y


def folds_of(y, path):
    from sklearn.model_selection import StratifiedKFold
    f = np.zeros(len(y), dtype=np.uint8)
    for i, (_, te) in enumerate(StratifiedKFold(5, shuffle=True, random_state=0).split(np.zeros(len(y)), y)):
        f[te] = i
    f.tofile(path)
    return f


def extra(text):
    """'a=1,b=true' -> {'a': 1.0, 'b': True}"""
    out = {}
    for kv in filter(None, text.split(",")):
        k, v = kv.split("=")
        out[k] = {"true": True, "false": False}.get(v.lower(), v)
        try:
            out[k] = float(v)
        except ValueError:
            pass
    return out


def lightgbm_cv(X, y, folds, a, lr):
    import lightgbm as lgb
    k = int(y.max()) + 1
    task = dict(objective="binary") if k == 2 else dict(objective="multiclass", num_class=k)
    params = dict(**task, learning_rate=lr, num_leaves=a.leaves, max_bin=a.bins,
                  min_data_in_leaf=a.min_leaf, min_sum_hessian_in_leaf=1e-3, lambda_l2=0.0,
                  num_threads=2, verbose=-1, seed=0)
    params.update(extra(a.lgb_extra))
    proba = np.zeros((len(y), k)) if k > 2 else np.zeros(len(y))
    secs, cpu = [], []
    for f in range(folds.max() + 1):
        tr, te = folds != f, folds == f
        Xtr, ytr = np.ascontiguousarray(X[tr]), y[tr]
        Xte = np.ascontiguousarray(X[te])
        start, cpu0 = time.perf_counter(), time.process_time()
        model = lgb.train(params, lgb.Dataset(Xtr, label=ytr), num_boost_round=a.rounds)
        proba[te] = model.predict(Xte)
        secs.append(time.perf_counter() - start)
        cpu.append(time.process_time() - cpu0)
    return proba, secs, cpu


def quality(y, folds, p):
    """Mean over the folds of ROC AUC and AP (p: class-1 probabilities), or of their macro
    one-versus-rest averages (p: one column per class)."""
    from sklearn.metrics import average_precision_score, roc_auc_score
    auc, ap = [], []
    for f in range(folds.max() + 1):
        yf, pf = y[folds == f], p[folds == f]
        if p.ndim == 2:
            auc.append(roc_auc_score(yf, pf, multi_class="ovr", average="macro"))
            ap.append(average_precision_score(np.eye(p.shape[1])[yf], pf, average="macro"))
        else:
            auc.append(roc_auc_score(yf, pf))
            ap.append(average_precision_score(yf, pf))
    return float(np.mean(auc)), float(np.mean(ap))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="fraud,dense,dense4")
    ap.add_argument("--lr", default="0.1,0.02")
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--leaves", type=int, default=31)
    ap.add_argument("--bins", type=int, default=255)
    ap.add_argument("--min-leaf", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=1, help="runs per setting; the median ratios follow")
    ap.add_argument("--exe", help="a built gbdt bench executable to run instead of building this tree's "
                                  "(e.g. a copy of an earlier build, to compare before and after)")
    ap.add_argument("--rarity-extra", default="", help="appended to rarity's spec arguments, e.g. ',max_delta_step=0'")
    ap.add_argument("--lgb-extra", default="", help="LightGBM parameters, e.g. is_unbalance=true")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--small", default=os.path.join(os.path.dirname(os.path.dirname(here)), "shared", "data"),
                    help="the shared data folder for the 70-set quality run, or 'none' to skip it")
    a = ap.parse_args()
    os.makedirs(WORK, exist_ok=True)
    exe = a.exe or bench_binary()
    import lightgbm
    print(f"LightGBM {lightgbm.__version__}; load {os.getloadavg()[0]:.1f}", flush=True)
    for name in a.data.split(","):
        base, d = {"fraud": fraud, "dense": dense, "dense4": dense4}[name]()
        X, y = load(base, d)
        k = int(y.max()) + 1
        folds = folds_of(y, base + ".folds")
        for lr in [float(v) for v in a.lr.split(",")]:
            spec = (f"gbdt(rounds={a.rounds},learning_rate={lr},max_leaves={a.leaves},bins={a.bins},"
                    f"min_samples_leaf={a.min_leaf}{a.rarity_extra})")
            out = os.path.join(WORK, f"gbdt-{name}-r.bin")
            ratios = []
            for _ in range(a.repeat):
                load0 = os.getloadavg()[0]
                r = json.loads(subprocess.run([exe, "cv", base + ".x", base + ".y", base + ".folds", str(d), "2",
                                               spec, out], check=True, capture_output=True, text=True).stdout)
                pr = np.fromfile(out, dtype="<f8").reshape(len(y), k)
                pr = pr if k > 2 else pr[:, 1]
                pl, sl, cl = lightgbm_cv(X, y, folds, a, lr)
                tr, tl = sum(r["fit_seconds"]) + sum(r["predict_seconds"]), sum(sl)
                cr, cl = sum(r["fit_cpu_seconds"]) + sum(r["predict_cpu_seconds"]), sum(cl)
                ratios.append((tl / tr, cl / cr))
                (ar, pr_ap), (al, pl_ap) = quality(y, folds, pr), quality(y, folds, pl)
                print(f"{name} {X.shape[0]}x{d} k={k} lr={lr}: fit+predict rarity {tr:6.2f} s, LightGBM {tl:6.2f} s, "
                      f"ratio {tl / tr:4.2f}x (CPU seconds {cr:.1f} vs {cl:.1f}: {cl / cr:4.2f}x) | AUC {ar:.4f} vs {al:.4f} ({ar - al:+.4f}) | "
                      f"AP {pr_ap:.4f} vs {pl_ap:.4f} ({pr_ap - pl_ap:+.4f}) | load {load0:.1f}-{os.getloadavg()[0]:.1f} | {spec}",
                      flush=True)
            if a.repeat > 1:
                wall, cpu = np.median([w for w, _ in ratios]), np.median([c for _, c in ratios])
                print(f"{name} lr={lr}: median of {a.repeat} ratios {wall:4.2f}x (CPU seconds {cpu:4.2f}x)", flush=True)
    if a.small != "none":
        print(f"70 shared binary sets ({a.small}):", flush=True)
        subprocess.run([sys.executable, os.path.join(here, "gbdt_small_vs_lightgbm.py"), "--data", a.small,
                        "--exe", exe, "--quiet"], check=True)


if __name__ == "__main__":
    main()
