#!/usr/bin/env python3
"""rarity's gbdt against LightGBM on the small binary tables: AP, ROC AUC and Brier under 5-fold CV.

Usage (from the repository root; needs numpy, pandas, scikit-learn and lightgbm 4.x):

    nice python3 benches/gbdt_small_vs_lightgbm.py [--data /path/to/shared/data] [--sets a,b]
        [--rounds 100] [--lr 0.1] [--leaves 31] [--min-leaf 20] [--bins 255]
        [--rarity-extra ',max_delta_step=0;,l2=1'] [--lgb-extra min_data_in_bin=1] [--exe BIN] [--quiet]

For every set of DATA/MANIFEST.json of kind "binary" (DATA/binary/NAME.csv: numeric features,
the last column the class, 1 positive), both sides get the same stratified folds
(scikit-learn StratifiedKFold(5, shuffle=True, random_state=0)), one thread, the same rounds,
learning rate, leaves, minimum rows per leaf (20) and bins, a minimum hessian per leaf of 1e-3,
no L2, no early stopping, no row or column sampling. rarity runs through `benches/gbdt.rs`
(`gbdt cv`, built with `cargo bench --no-run`), LightGBM through lgb.train on each fold's
training rows. A set's AP, ROC AUC and Brier score are the means over its five test folds; a
metric a fold cannot give (a test fold without a positive) is left out of that set's mean.

Printed: one line per set (rarity, LightGBM), then the means over the sets both sides scored
and the win counts (higher AP and AUC, lower Brier win; equal values are ties). A set where
LightGBM (or rarity) raises is reported by name with its error, not hidden, and left out of
the means. `--rarity-extra` takes several variants separated by ';' (each appended to the spec
arguments): every variant is scored against the same LightGBM run, for experiments one factor
at a time. LightGBM's out-of-fold probabilities are cached in $TMPDIR/rarity-bench/small/,
keyed by its parameters.
"""
import argparse, hashlib, json, os, subprocess, sys, tempfile, warnings

import numpy as np

from gbdt_vs_lightgbm import bench_binary  # the bench executable, built once

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(tempfile.gettempdir(), "rarity-bench", "small")
DEFAULT_DATA = os.path.join(os.path.dirname(ROOT), "shared", "data")


def extra(text):
    """'a=1,b=0.5,c=true' -> {'a': 1, 'b': 0.5, 'c': True} (LightGBM refuses 1.0 for an integer)"""
    out = {}
    for kv in filter(None, text.split(",")):
        k, v = kv.split("=")
        out[k] = {"true": True, "false": False}.get(v.lower(), v)
        for kind in (float, int):
            try:
                out[k] = kind(v)
            except ValueError:
                pass
    return out


def folds_of(y):
    from sklearn.model_selection import StratifiedKFold
    f = np.zeros(len(y), dtype=np.uint8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # fewer than 5 of a class: sklearn warns, and still splits
        for i, (_, te) in enumerate(StratifiedKFold(5, shuffle=True, random_state=0).split(np.zeros(len(y)), y)):
            f[te] = i
    return f


def lgb_params(a):
    p = dict(objective="binary", learning_rate=a.lr, num_leaves=a.leaves, max_bin=a.bins,
             min_data_in_leaf=a.min_leaf, min_sum_hessian_in_leaf=1e-3, lambda_l2=0.0,
             num_threads=1, verbose=-1, seed=0, deterministic=True)
    p.update(extra(a.lgb_extra))
    return p


def lightgbm_cv(X, y, folds, params, rounds):
    import lightgbm as lgb
    proba = np.zeros(len(y))
    for f in range(folds.max() + 1):
        tr, te = folds != f, folds == f
        model = lgb.train(params, lgb.Dataset(np.ascontiguousarray(X[tr]), label=y[tr]), num_boost_round=rounds)
        proba[te] = model.predict(X[te])
    return proba


def cached_lightgbm(name, X, y, folds, params, rounds):
    key = hashlib.sha1(json.dumps([name, params, rounds], sort_keys=True).encode()).hexdigest()[:16]
    path = os.path.join(WORK, f"{name}-lgb-{key}.npy")
    if os.path.exists(path):
        return np.load(path)
    p = lightgbm_cv(X, y, folds, params, rounds)
    np.save(path, p)
    return p


def rarity_cv(exe, base, d, spec):
    out = base + ".r.bin"
    r = subprocess.run([exe, "cv", base + ".x", base + ".y", base + ".folds", str(d), "1", spec, out],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip() or f"exit {r.returncode}")
    # The bench writes every class's probability (two a row here): keep class 1's.
    return np.fromfile(out, dtype="<f8").reshape(-1, 2)[:, 1]


def scores(y, folds, p):
    """Mean over the folds of (AP, ROC AUC, Brier); a fold without both classes gives no AP/AUC."""
    from sklearn.metrics import average_precision_score, roc_auc_score
    ap, auc, brier = [], [], []
    for f in range(folds.max() + 1):
        t, s = y[folds == f], p[folds == f]
        brier.append(float(np.mean((s - t) ** 2)))
        if 0 < t.sum() < len(t):
            ap.append(average_precision_score(t, s))
            auc.append(roc_auc_score(t, s))
    nan = float("nan")
    return (float(np.mean(ap)) if ap else nan, float(np.mean(auc)) if auc else nan, float(np.mean(brier)))


def summary(label, rows):
    """rows: [(name, (ap, auc, brier) rarity, (ap, auc, brier) lightgbm)] -> printed means and wins."""
    ok = [r for r in rows if not any(np.isnan(v) for v in r[1] + r[2])]
    if not ok:
        print(f"{label}: no set scored on both sides")
        return
    R, L = np.array([r[1] for r in ok]), np.array([r[2] for r in ok])
    better = [R[:, 0] > L[:, 0], R[:, 1] > L[:, 1], R[:, 2] < L[:, 2]]
    ties = [R[:, j] == L[:, j] for j in range(3)]
    n = len(ok)
    print(f"{label}: {n} sets | mean AP {R[:, 0].mean():.4f} vs {L[:, 0].mean():.4f} ({R[:, 0].mean() - L[:, 0].mean():+.4f}) | "
          f"mean AUC {R[:, 1].mean():.4f} vs {L[:, 1].mean():.4f} ({R[:, 1].mean() - L[:, 1].mean():+.4f}) | "
          f"mean Brier {R[:, 2].mean():.4f} vs {L[:, 2].mean():.4f} | rarity wins (ties) AP {better[0].sum()} ({ties[0].sum()}), "
          f"AUC {better[1].sum()} ({ties[1].sum()}), Brier {better[2].sum()} ({ties[2].sum()}) of {n}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=DEFAULT_DATA, help="the folder holding MANIFEST.json and binary/")
    ap.add_argument("--sets", default="", help="only these sets (comma-separated names)")
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--leaves", type=int, default=31)
    ap.add_argument("--min-leaf", type=int, default=20)
    ap.add_argument("--bins", type=int, default=255)
    ap.add_argument("--rarity-extra", default="", help="';'-separated variants appended to rarity's spec arguments")
    ap.add_argument("--lgb-extra", default="", help="LightGBM parameters, e.g. min_data_in_bin=1")
    ap.add_argument("--exe", default="", help="a built gbdt bench binary to run (default: build this tree's)")
    ap.add_argument("--quiet", action="store_true", help="print only the summaries")
    a = ap.parse_args()
    os.makedirs(WORK, exist_ok=True)
    import lightgbm, pandas as pd
    exe = a.exe or bench_binary()
    manifest = json.load(open(os.path.join(a.data, "MANIFEST.json")))
    names = [m["name"] for m in manifest if m["kind"] == "binary"]
    if a.sets:
        names = [n for n in names if n in set(a.sets.split(","))]
    variants = a.rarity_extra.split(";")
    params = lgb_params(a)
    print(f"LightGBM {lightgbm.__version__}; {len(names)} sets; rounds={a.rounds} lr={a.lr} leaves={a.leaves} "
          f"min_leaf={a.min_leaf} bins={a.bins}; LightGBM {params}", flush=True)
    rows = [[] for _ in variants]
    failed = []
    for name in sorted(names, key=str.lower):
        df = pd.read_csv(os.path.join(a.data, "binary", name + ".csv"))
        X = np.ascontiguousarray(df.iloc[:, :-1].to_numpy(dtype="<f8"))
        y = (df.iloc[:, -1].astype(str) == "1").to_numpy().astype(np.uint8)
        folds = folds_of(y)
        base = os.path.join(WORK, name)
        X.tofile(base + ".x")
        y.tofile(base + ".y")
        folds.tofile(base + ".folds")
        try:
            sl = scores(y, folds, cached_lightgbm(name, X, y, folds, params, a.rounds))
        except Exception as e:  # reported, not hidden
            failed.append((name, "LightGBM", str(e).splitlines()[0] if str(e) else type(e).__name__))
            print(f"{name}: LightGBM failed: {failed[-1][2]}", flush=True)
            continue
        for v, ex in enumerate(variants):
            spec = (f"gbdt(rounds={a.rounds},learning_rate={a.lr},max_leaves={a.leaves},bins={a.bins},"
                    f"min_samples_leaf={a.min_leaf}{ex})")
            try:
                sr = scores(y, folds, rarity_cv(exe, base, X.shape[1], spec))
            except Exception as e:
                failed.append((name, f"rarity {spec}", str(e)))
                print(f"{name}: rarity {spec} failed: {e}", flush=True)
                continue
            rows[v].append((name, sr, sl))
            if not a.quiet:
                tag = f" [{ex}]" if len(variants) > 1 else ""
                print(f"{name:40s} {X.shape[0]:6d}x{X.shape[1]:<3d} pos {int(y.sum()):5d}{tag} | "
                      f"AP {sr[0]:.4f} vs {sl[0]:.4f} | AUC {sr[1]:.4f} vs {sl[1]:.4f} | "
                      f"Brier {sr[2]:.4f} vs {sl[2]:.4f}", flush=True)
    print("rarity vs LightGBM (higher AP/AUC and lower Brier win):")
    for ex, r in zip(variants, rows):
        summary(f"gbdt(...{ex})" if ex else "gbdt", r)
    if failed:
        print(f"{len(failed)} runs failed (not in the means):")
        for name, side, err in failed:
            print(f"  {name}: {side}: {err}")


if __name__ == "__main__":
    main()
