"""Times imbalanced-learn on the data written by `cargo bench --bench sampling`
and prints the ratios to rarity's timings (two threads each side).

    cargo bench --bench sampling
    pip install imbalanced-learn threadpoolctl
    python3 benches/imblearn_compare.py            # or name parts: smote tomek enn
"""
import json
import os
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


def main():
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
