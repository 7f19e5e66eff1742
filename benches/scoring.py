#!/usr/bin/env python3
"""Scoring speed (issue 37): one-row latency and batch throughput, rarity
beside LightGBM and scikit-learn, in one process, one thread each.

Usage (from the repository root, with a venv that has the package, numpy,
scikit-learn, lightgbm and, for the ONNX column, onnxruntime):

    nice python3 benches/scoring.py [--train 20000] [--batch 100000] [--d 30]
        [--calls 10000] [--repeats 3] [--library]

Data: `--train` rows of `--d` Gaussian features with about 5% positives
(the positive class depends on a few features, non-linearly), the same
generator for the batch rows. Models, fitted once on the training rows:

- `logistic` beside scikit-learn's LogisticRegression;
- `gbdt` (100 rounds, 31 leaves) beside LightGBM (100 rounds, 31 leaves);
- `forest(n=100)` beside scikit-learn's RandomForestClassifier(100);
- `under(beta=0.1)+forest(n=100)+correct+threshold(priors)` (no peer).

One-row latency: the median over `--calls` calls of `predict_proba` on one
row (a 1 x d float64 array), each call timed alone (the peers' slowest,
scikit-learn's forest, gets a tenth of the calls). Batch: rows per second of
`predict_proba` on `--batch` rows in memory, one thread, best of
`--repeats`. Ratios are rarity's speed over the peer's (above 1: rarity is
faster). `--library` also times `FittedStrategy::predict` on a 1-row
`Dataset` (the library entry `rarity predict` uses), through the
`scoring` bench target (built with `cargo bench --bench scoring --no-run`).

The ONNX Runtime column comes from `onnx_columns`: it exports the model
with `model.to_onnx(path)` when the package has it and times
`session.run`; otherwise it prints "n/a".
"""

import argparse
import glob
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

SPECS = [
    ("logistic", "logistic", "sklearn LogisticRegression"),
    ("gbdt", "gbdt(rounds=100,max_leaves=31)", "LightGBM"),
    ("forest", "forest(n=100)", "sklearn RandomForest"),
    ("corrected", "under(beta=0.1)+forest(n=100)+correct+threshold(priors)", None),
]


def data(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    z = 1.5 * X[:, 0] - X[:, 1] + X[:, 2] * X[:, 3] + 0.5 * np.abs(X[:, 4]) - 4.0
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-z))).astype(np.int64)
    return np.ascontiguousarray(X), y


def peer(name):
    if name == "logistic":
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(max_iter=1000)
    if name == "gbdt":
        import lightgbm as lgb

        return lgb.LGBMClassifier(n_estimators=100, num_leaves=31, n_jobs=1, verbose=-1)
    if name == "forest":
        from sklearn.ensemble import RandomForestClassifier

        return RandomForestClassifier(n_estimators=100, n_jobs=1, random_state=0)
    return None


def latency_us(f, rows, calls):
    """Median microseconds of `f(row)` over `calls` calls, each timed alone."""
    times = []
    n = len(rows)
    for i in range(calls):
        r = rows[i % n]
        t0 = time.perf_counter_ns()
        f(r)
        times.append(time.perf_counter_ns() - t0)
    return statistics.median(times) / 1e3


def rows_per_s(f, X, repeats):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        f(X)
        best = min(best, time.perf_counter() - t0)
    return len(X) / best


def onnx_columns(model, one_rows, X, calls, repeats):
    """ONNX Runtime's one-row latency (us) and batch rows/s on the model
    exported by rarity (`model.to_onnx(path)`), one thread; `None` while
    the package has no ONNX export."""
    if not hasattr(model, "to_onnx"):
        return None
    try:
        import onnxruntime as ort
    except ImportError:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.onnx")
        model.to_onnx(path)
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    lat = latency_us(lambda r: sess.run(None, {name: r}), one_rows, calls)
    thr = rows_per_s(lambda A: sess.run(None, {name: A}), X, repeats)
    return lat, thr


def library_latency(model, one_rows, calls):
    """Median microseconds of `FittedStrategy::predict` on a 1-row Dataset,
    from the `scoring` bench target; `None` when it is not built."""
    exe = sorted(
        (p for p in glob.glob("target/release/deps/scoring-*") if os.access(p, os.X_OK) and "." not in os.path.basename(p)),
        key=os.path.getmtime,
    )
    if not exe:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        mpath, xpath = os.path.join(tmp, "m.rarity"), os.path.join(tmp, "x.bin")
        model.save(mpath)
        np.ascontiguousarray(np.vstack(one_rows)).tofile(xpath)
        out = subprocess.run(
            [exe[-1], "latency", mpath, xpath, str(one_rows[0].shape[1]), str(calls)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    return float(out.split()[0])


def fmt(v, unit):
    if v is None:
        return "n/a"
    return f"{v:,.1f} {unit}" if unit == "us" else f"{v:,.0f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", type=int, default=20_000)
    ap.add_argument("--batch", type=int, default=100_000)
    ap.add_argument("--d", type=int, default=30)
    ap.add_argument("--calls", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated names among " + ",".join(s[0] for s in SPECS))
    ap.add_argument("--library", action="store_true")
    a = ap.parse_args()
    import rarity

    try:
        import lightgbm

        lgb_version = lightgbm.__version__
    except ImportError:
        lgb_version = "missing"
    X, y = data(a.train, a.d, 0)
    B, _ = data(a.batch, a.d, 1)
    one = [np.ascontiguousarray(B[i : i + 1]) for i in range(1000)]
    print(
        f"rarity {rarity.__version__}, LightGBM {lgb_version}; {a.train:,} x {a.d} training rows "
        f"({y.mean():.1%} positives), batch {a.batch:,} rows, one thread; load {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    head = (
        f"{'model':<10} | {'1-row rarity':>12} | {'1-row peer':>12} | {'ratio':>6} | {'1-row onnx':>10} | "
        f"{'rows/s rarity':>13} | {'rows/s peer':>12} | {'ratio':>6} | {'rows/s onnx':>11}"
        + (" | 1-row library" if a.library else "")
    )
    print(head)
    print("-" * len(head))
    only = set(filter(None, a.only.split(",")))
    for name, spec, peer_name in SPECS:
        if only and name not in only:
            continue
        m = rarity.Classifier(spec, seed=1, n_jobs=1).fit(X, y)
        r_lat = latency_us(m.predict_proba, one, a.calls)
        r_thr = rows_per_s(m.predict_proba, B, a.repeats)
        p_lat = p_thr = None
        p = peer(name)
        if p is not None:
            p.fit(X, y)
            calls = a.calls // 10 if name == "forest" else a.calls
            p_lat = latency_us(p.predict_proba, one, calls)
            p_thr = rows_per_s(p.predict_proba, B, a.repeats)
        o = onnx_columns(m, one, B, a.calls, a.repeats)
        lib = library_latency(m, one, a.calls) if a.library else None
        ratio = lambda r, q, inv: "" if q is None else f"{(q / r if inv else r / q):.2f}"
        print(
            f"{name:<10} | {fmt(r_lat, 'us'):>12} | {fmt(p_lat, 'us'):>12} | {ratio(r_lat, p_lat, True):>6} | "
            f"{fmt(o and o[0], 'us'):>10} | {fmt(r_thr, ''):>13} | {fmt(p_thr, ''):>12} | "
            f"{ratio(r_thr, p_thr, False):>6} | {fmt(o and o[1], ''):>11}"
            + (f" | {fmt(lib, 'us')}" if a.library else ""),
            flush=True,
        )
    print("peers:", "; ".join(f"{n}: {p}" for n, _, p in SPECS if p), file=sys.stderr)


if __name__ == "__main__":
    main()
