#!/usr/bin/env python3
"""Times rarity's trees against scikit-learn's, side by side, and checks quality.

Usage (from the repository root; needs numpy and scikit-learn):

    python3 benches/trees_vs_sklearn.py cv  [--data-dir ../shared/data/binary] [--only NAME,...]
                                            [--tree SPEC] [--sklearn-cache FILE]
    python3 benches/trees_vs_sklearn.py big [--trees 100] [--models tree,bagging,forest] [--tree SPEC]

--tree is rarity's tree spec (default `tree`, i.e. the histogram splitter;
`tree(splitter=exact)` for the exact one). --sklearn-cache stores
scikit-learn's per-dataset results in FILE the first time and reuses them
after (for quality comparisons of several rarity variants; time ratios
should come from both sides run back to back, i.e. without the cache).

cv:  100-tree bagging of unpruned trees, fit + predict_proba, 5x2 stratified CV
     over every CSV in the directory, one thread each side; same folds both
     sides; prints total time ratio and mean ROC AUC / average precision.
big: a generated 284,807 x 30 fraud-like set (0.172% positives; 70/30
     stratified split), single unpruned tree (one thread), bagging and random
     forest (two threads each side); prints time ratios, peak memory (max RSS
     of each side's own process) and AUC / AP.
"""
import argparse, glob, json, os, resource, subprocess, sys, tempfile, time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(tempfile.gettempdir(), "rarity-bench")


def csv_files(data_dir, only=None):
    """The CSV files of data_dir, sorted; with only ('a,b'), those named so (without .csv)."""
    files = sorted(glob.glob(os.path.join(data_dir, "*.csv")))
    if only:
        keep = set(only.split(","))
        files = [f for f in files if os.path.basename(f)[:-4] in keep]
    return files


def rarity_binary():
    out = subprocess.run(
        ["cargo", "bench", "--bench", "trees", "--no-run", "--message-format=json"],
        cwd=ROOT, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") and msg["target"]["name"] == "trees":
            return msg["executable"]
    sys.exit("could not find the trees bench executable")


def run_child(cmd):
    """Runs cmd; returns (stdout, peak RSS in MB) of that process alone."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True,
                         env=dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1"))
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit(f"{cmd} failed with status {status}")
    return out, usage.ru_maxrss / 1024.0


def metrics(y, p):
    from sklearn.metrics import roc_auc_score, average_precision_score
    return roc_auc_score(y, p), average_precision_score(y, p)


# ---------------------------------------------------------------- cv ----
def cv(args):
    from sklearn.ensemble import BaggingClassifier
    from sklearn.model_selection import StratifiedKFold
    from sklearn.tree import DecisionTreeClassifier
    files = csv_files(args.data_dir, args.only)
    os.makedirs(WORK, exist_ok=True)
    plan, data = [], {}
    for f in files:
        arr = np.loadtxt(f, delimiter=",", skiprows=1, ndmin=2)
        X, y = arr[:, :-1], arr[:, -1].astype(int)
        folds = []
        for r in range(5):
            skf = StratifiedKFold(n_splits=2, shuffle=True, random_state=r)
            for tr, te in skf.split(X, y):
                folds.append({"train": tr.tolist(), "test": te.tolist()})
        name = os.path.basename(f)[:-4]
        plan.append({"name": name, "path": f, "folds": folds})
        data[name] = (X, y, folds)
    plan_path = os.path.join(WORK, "folds.json")
    out_path = os.path.join(WORK, "cv-rarity.json")
    with open(plan_path, "w") as fh:
        json.dump(plan, fh)
    spec = f"bagging(n={args.trees},learner={args.tree},sample=bootstrap)"
    run_child([rarity_binary(), "cv", plan_path, out_path, "1", spec])
    cache = {}
    if args.sklearn_cache and os.path.exists(args.sklearn_cache):
        with open(args.sklearn_cache) as fh:
            cache = json.load(fh)
    with open(out_path) as fh:
        ours = {d["name"]: d for d in json.load(fh)}
    rows, t_r, t_s = [], 0.0, 0.0
    print(f"{'dataset':40s} {'rarity s':>9s} {'sklearn s':>9s} {'ratio':>6s} "
          f"{'AUC r':>6s} {'AUC s':>6s} {'AP r':>6s} {'AP s':>6s}")
    for name, (X, y, folds) in data.items():
        key = f"{name}/{args.trees}"
        if key not in cache:
            secs, auc_s, ap_s = 0.0, [], []
            for i, fold in enumerate(folds):
                tr, te = np.array(fold["train"]), np.array(fold["test"])
                start = time.perf_counter()
                m = BaggingClassifier(DecisionTreeClassifier(), n_estimators=args.trees,
                                      n_jobs=1, random_state=i).fit(X[tr], y[tr])
                p = m.predict_proba(X[te])[:, 1]
                secs += time.perf_counter() - start
                a, b = metrics(y[te], p)
                auc_s.append(a); ap_s.append(b)
            cache[key] = {"seconds": secs, "auc": auc_s, "ap": ap_s}
            if args.sklearn_cache:
                with open(args.sklearn_cache, "w") as fh:
                    json.dump(cache, fh)
        secs, auc_s, ap_s = cache[key]["seconds"], cache[key]["auc"], cache[key]["ap"]
        auc_r, ap_r = [], []
        for i, fold in enumerate(folds):
            te = np.array(fold["test"])
            a, b = metrics(y[te], np.array(ours[name]["proba"][i]))
            auc_r.append(a); ap_r.append(b)
        r = ours[name]["seconds"]
        t_r += r; t_s += secs
        row = (np.mean(auc_r), np.mean(auc_s), np.mean(ap_r), np.mean(ap_s))
        rows.append(row)
        print(f"{name:40s} {r:9.3f} {secs:9.3f} {secs / r:6.1f} " + " ".join(f"{v:6.3f}" for v in row),
              flush=True)
    m = np.mean(rows, axis=0)
    print(f"\n{len(rows)} datasets, 5x2 CV, {args.trees}-tree bagging, one thread each side")
    print(f"total seconds: rarity {t_r:.2f}, scikit-learn {t_s:.2f}; speed-up {t_s / t_r:.2f}x")
    print(f"mean ROC AUC: rarity {m[0]:.4f}, scikit-learn {m[1]:.4f} (diff {m[0] - m[1]:+.4f})")
    print(f"mean AP:      rarity {m[2]:.4f}, scikit-learn {m[3]:.4f} (diff {m[2] - m[3]:+.4f})")


# --------------------------------------------------------------- big ----
N, D, N_POS = 284_807, 30, 492


def generate_fraud(path):
    """A deterministic fraud-like table: 28 Gaussian 'PCA' features, a time and
    an amount column; positives shifted on a few features, one in twenty of them
    hidden among the negatives."""
    rng = np.random.default_rng(2015)
    y = np.zeros(N, dtype=np.uint8)
    y[rng.choice(N, N_POS, replace=False)] = 1
    X = np.empty((N, D))
    X[:, 0] = np.sort(rng.uniform(0, 172_792, N))
    X[:, 1:29] = rng.standard_normal((N, 28)) * rng.uniform(0.5, 2.0, 28)
    X[:, 29] = np.round(rng.lognormal(3.0, 1.5, N), 2)
    pos = np.flatnonzero(y)
    shown = pos[: int(0.95 * len(pos))]
    shift = np.zeros(28)
    shift[rng.choice(28, 10, replace=False)] = rng.choice([-1, 1], 10) * rng.uniform(2, 4, 10)
    X[np.ix_(shown, np.arange(1, 29))] = X[np.ix_(shown, np.arange(1, 29))] * 1.5 + shift
    X[pos, 29] = np.round(rng.lognormal(4.0, 1.8, len(pos)), 2)
    mask = np.zeros(N, dtype=np.uint8)
    for c in (0, 1):
        idx = np.flatnonzero(y == c)
        mask[rng.permutation(idx)[: int(round(0.7 * len(idx)))]] = 1
    X.astype("<f8").tofile(path + ".x")
    y.tofile(path + ".y")
    mask.tofile(path + ".mask")


def load_big(path):
    X = np.fromfile(path + ".x", dtype="<f8").reshape(N, D)
    y = np.fromfile(path + ".y", dtype=np.uint8).astype(int)
    mask = np.fromfile(path + ".mask", dtype=np.uint8).astype(bool)
    return X, y, mask


def sklearn_big(path, model, trees, out):
    """Child process: fit/predict one scikit-learn model on the big set."""
    from sklearn.ensemble import BaggingClassifier, RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier
    X, y, mask = load_big(path)
    Xtr, ytr, Xte = X[mask], y[mask], X[~mask]
    del X
    est = {"tree": lambda: DecisionTreeClassifier(random_state=0),
           "bagging": lambda: BaggingClassifier(DecisionTreeClassifier(), n_estimators=trees,
                                                n_jobs=2, random_state=0),
           "forest": lambda: RandomForestClassifier(n_estimators=trees, n_jobs=2, random_state=0)}[model]()
    start = time.perf_counter()
    est.fit(Xtr, ytr)
    fit = time.perf_counter() - start
    start = time.perf_counter()
    p = est.predict_proba(Xte)[:, 1]
    pred = time.perf_counter() - start
    p.astype("<f8").tofile(out)
    print(json.dumps({"fit_seconds": fit, "predict_seconds": pred}))


def forest_args(tree):
    """The keyword arguments of a tree spec, for forest(...)."""
    return "," + tree[tree.index("(") + 1:-1] if "(" in tree else ""


def big(args):
    os.makedirs(WORK, exist_ok=True)
    path = os.path.join(WORK, "fraud")
    if not os.path.exists(path + ".mask"):
        generate_fraud(path)
    _, y, mask = load_big(path)
    yte = y[~mask]
    exe = rarity_binary()
    for model in args.models.split(","):
        threads = 1 if model == "tree" else 2
        spec = {"tree": args.tree,
                "bagging": f"bagging(n={args.trees},learner={args.tree},sample=bootstrap)",
                "forest": f"forest(n={args.trees}{forest_args(args.tree)})"}[model]
        out_r, out_s = os.path.join(WORK, f"{model}-r.bin"), os.path.join(WORK, f"{model}-s.bin")
        so, mem_s = run_child([sys.executable, __file__, "_sk", path, model, str(args.trees), out_s])
        ro, mem_r = run_child([exe, "big", path + ".x", path + ".y", path + ".mask", str(D),
                               str(threads), spec, out_r])
        s, r = json.loads(so), json.loads(ro)
        ts, tr = s["fit_seconds"] + s["predict_seconds"], r["fit_seconds"] + r["predict_seconds"]
        qs = metrics(yte, np.fromfile(out_s, dtype="<f8"))
        qr = metrics(yte, np.fromfile(out_r, dtype="<f8"))
        label = model if model == "tree" else f"{model} ({args.trees} trees)"
        print(f"{label:22s} threads {threads}: fit+predict rarity {tr:7.2f} s, scikit-learn {ts:7.2f} s, "
              f"speed-up {ts / tr:5.2f}x | peak MB rarity {mem_r:6.0f}, scikit-learn {mem_s:6.0f} | "
              f"AUC {qr[0]:.4f} vs {qs[0]:.4f}, AP {qr[1]:.4f} vs {qs[1]:.4f}", flush=True)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "_sk":
        sklearn_big(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("cv")
    c.add_argument("--data-dir", default=os.path.join(ROOT, "..", "shared", "data", "binary"))
    c.add_argument("--only", default="")
    c.add_argument("--trees", type=int, default=100)
    c.add_argument("--tree", default="tree")
    c.add_argument("--sklearn-cache", default="")
    b = sub.add_parser("big")
    b.add_argument("--trees", type=int, default=100)
    b.add_argument("--models", default="tree,bagging,forest")
    b.add_argument("--tree", default="tree")
    a = ap.parse_args()
    cv(a) if a.cmd == "cv" else big(a)


if __name__ == "__main__":
    main()
