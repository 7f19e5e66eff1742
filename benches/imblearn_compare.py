"""Times imbalanced-learn on the data written by `cargo bench --bench sampling`
and prints the ratios to rarity's timings (two threads each side).

    cargo bench --bench sampling
    pip install imbalanced-learn threadpoolctl pandas
    python3 benches/imblearn_compare.py            # or name parts: smote tomek enn

The `fraud` part is separate: it writes the 284,807-row `rarity generate fraud`
table (or `--n N` rows) as CSV, then times, two threads each side, the
`rarity resample` command on that file (reading it, the search, writing the
kept rows) against imbalanced-learn's `fit_resample` on the same values
(already in memory), for Tomek links and ENN (3 neighbours, imbalanced-learn's
default rule `all`), and checks that both remove the very same rows.

    cargo build --release
    python3 benches/imblearn_compare.py fraud [--n 284807] [--rounds 3]
"""
import json
import os
import subprocess
import sys
import time

import numpy as np
from threadpoolctl import threadpool_limits
from imblearn.over_sampling import SMOTE
from imblearn.under_sampling import EditedNearestNeighbours, TomekLinks
from sklearn.neighbors import NearestNeighbors

HERE = os.path.dirname(os.path.abspath(__file__))
DIR = os.path.join(HERE, "..", "target", "sampling-bench")


def load(name):
    meta = json.load(open(os.path.join(DIR, name + ".json")))
    x = np.fromfile(os.path.join(DIR, name + ".x.f64"), dtype="<f8").reshape(meta["n"], meta["d"])
    y = np.fromfile(os.path.join(DIR, name + ".y.u32"), dtype="<u4").astype(np.int64)
    return x, y


def best(reps, f):
    out, t_best = None, float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        out = f()
        t_best = min(t_best, time.perf_counter() - t)
    return t_best, out


def load_avg():
    return "%.1f" % os.getloadavg()[0]


def fraud(n, rounds):
    """Tomek links and ENN on a `generate fraud` table, rarity's command line
    against imbalanced-learn, with the rows each removes compared."""
    import pandas as pd

    exe = os.path.join(HERE, "..", "target", "release", "rarity")
    if not os.path.exists(exe):
        sys.exit("run `cargo build --release` first")
    os.makedirs(DIR, exist_ok=True)
    csv = os.path.join(DIR, f"fraud-{n}.csv")
    if not os.path.exists(csv):
        subprocess.run([exe, "generate", "fraud", "--n", str(n), "--seed", "42", "-o", csv, "-q"],
                       check=True)
    table = pd.read_csv(csv)
    x = table.drop(columns="class").to_numpy(dtype=np.float64)
    y = table["class"].to_numpy()
    # Rows are told apart by their values (`Time` alone is distinct).
    where = {row.tobytes(): i for i, row in enumerate(x)}
    assert len(where) == n, "duplicate rows: cannot match kept rows by value"
    methods = [
        ("tomek", "tomek", lambda: TomekLinks(n_jobs=2)),
        ("enn(k=3,rule=all)", "enn all",
         lambda: EditedNearestNeighbours(n_neighbors=3, kind_sel="all", n_jobs=2)),
    ]
    out = os.path.join(DIR, "fraud-kept.csv")
    print(f"fraud table {n} x {x.shape[1]}, {int(y.sum())} positives; load before {load_avg()}")
    print(f"{'method':<20}{'rarity s':>10}{'imblearn s':>12}{'speed-up':>10}"
          f"{'removed':>9}  same rows  load")
    for spec, label, make in methods:
        cmd = [exe, "--threads", "2", "resample", csv, "--method", spec, "-o", out, "-q"]
        ours = float("inf")
        for _ in range(rounds):
            t = time.perf_counter()
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            ours = min(ours, time.perf_counter() - t)
        kept = pd.read_csv(out).drop(columns="class").to_numpy(dtype=np.float64)
        ours_kept = sorted(where[row.tobytes()] for row in kept)
        load_ours = load_avg()
        with threadpool_limits(2):
            # One round: imbalanced-learn takes minutes here.
            t = time.perf_counter()
            sampler = make()
            sampler.fit_resample(x, y)
            theirs = time.perf_counter() - t
        their_kept = sorted(sampler.sample_indices_.tolist())
        same = "yes" if ours_kept == their_kept else \
            f"NO ({len(set(ours_kept) ^ set(their_kept))} differ)"
        print(f"{label:<20}{ours:>10.2f}{theirs:>12.2f}{theirs / ours:>9.1f}x"
              f"{n - len(ours_kept):>9}  {same:<9}  {load_ours}/{load_avg()}", flush=True)


def main():
    if "fraud" in sys.argv[1:]:
        args = sys.argv[1:]
        opt = lambda name, default: int(args[args.index(name) + 1]) if name in args else default
        return fraud(opt("--n", 284807), opt("--rounds", 3))
    if not os.path.exists(os.path.join(DIR, "rarity.json")):
        sys.exit("run `cargo bench --bench sampling` first")
    ours = json.load(open(os.path.join(DIR, "rarity.json")))
    parts = [a for a in sys.argv[1:] if a in ("smote", "tomek", "enn")] or ["smote", "tomek", "enn"]
    theirs = {}
    with threadpool_limits(2):
        if "smote" in parts:
            x, y = load("smote")
            smote = SMOTE(k_neighbors=NearestNeighbors(n_neighbors=6, n_jobs=2), random_state=0)
            theirs["smote"], (xr, _) = best(3, lambda: smote.fit_resample(x, y))
            print(f"imblearn SMOTE: {theirs['smote']:.3f} s -> {xr.shape}")
        if "tomek" in parts or "enn" in parts:
            x, y = load("clean")
        if "tomek" in parts:
            theirs["tomek"], (xr, _) = best(1, lambda: TomekLinks(n_jobs=2).fit_resample(x, y))
            print(f"imblearn TomekLinks: {theirs['tomek']:.3f} s (kept {len(xr)} rows)")
        if "enn" in parts:
            enn = EditedNearestNeighbours(n_neighbors=3, kind_sel="all", n_jobs=2)
            theirs["enn"], (xr, _) = best(1, lambda: enn.fit_resample(x, y))
            print(f"imblearn ENN(kind_sel=all): {theirs['enn']:.3f} s (kept {len(xr)} rows)")
    print()
    print(f"{'method':<22}{'rarity s':>10}{'imblearn s':>12}{'speed-up':>10}")
    rows = [("smote", "smote"), ("smote_materialised", "smote"), ("tomek", "tomek"), ("enn", "enn")]
    for ours_key, their_key in rows:
        if ours_key in ours and their_key in theirs:
            r, t = ours[ours_key], theirs[their_key]
            print(f"{ours_key:<22}{r:>10.3f}{t:>12.3f}{t / r:>9.1f}x")


if __name__ == "__main__":
    main()
