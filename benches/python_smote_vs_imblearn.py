#!/usr/bin/env python3
"""SMOTE from Python, rarity against imbalanced-learn, in one process.

Usage (from the repository root, with the package installed: pip install
./python; needs imbalanced-learn):

    nice python3 benches/python_smote_vs_imblearn.py [--n 1000000] [--d 30]
        [--minority 10000] [--rounds 3] [--threads 2]

Data: n rows x d features, `minority` rows of class 1 shifted by 1 in every
feature (seeded NumPy). Both sides balance the classes with 5 neighbours and
return the resampled table (X_res, y_res), as `fit_resample` does:

  rarity.sampling.SMOTE(k_neighbors=5, n_jobs=THREADS).fit_resample(X, y)
  imblearn.over_sampling.SMOTE(k_neighbors=5).fit_resample(X, y)

imbalanced-learn's neighbour search runs in scikit-learn with THREADS
threads (threadpoolctl limits BLAS and OpenMP; its NearestNeighbors takes
n_jobs=THREADS). Each round times both sides; prints per round and the
median ratio (imbalanced-learn time / rarity time).
"""

import argparse
import os
import statistics
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--d", type=int, default=30)
    ap.add_argument("--minority", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", str(a.threads))
    from imblearn.over_sampling import SMOTE as ImbSMOTE
    from sklearn.neighbors import NearestNeighbors
    from threadpoolctl import threadpool_limits

    import rarity

    rng = np.random.default_rng(0)
    y = np.zeros(a.n, dtype=np.int64)
    y[rng.choice(a.n, a.minority, replace=False)] = 1
    X = rng.normal(size=(a.n, a.d)) + y[:, None]
    print(f"SMOTE, {a.n:,} x {a.d}, {a.minority:,} minority rows, {a.threads} threads each side")
    ratios = []
    for r in range(a.rounds):
        t0 = time.perf_counter()
        Xr, yr = rarity.sampling.SMOTE(k_neighbors=5, random_state=r, n_jobs=a.threads).fit_resample(X, y)
        t_rarity = time.perf_counter() - t0
        assert Xr.shape == (2 * (a.n - a.minority), a.d)
        del Xr, yr
        with threadpool_limits(a.threads):
            imb = ImbSMOTE(k_neighbors=NearestNeighbors(n_neighbors=6, n_jobs=a.threads), random_state=r)
            t0 = time.perf_counter()
            Xi, yi = imb.fit_resample(X, y)
            t_imb = time.perf_counter() - t0
        assert Xi.shape == (2 * (a.n - a.minority), a.d)
        del Xi, yi
        ratios.append(t_imb / t_rarity)
        print(f"round {r + 1}: rarity {t_rarity:.3f} s, imbalanced-learn {t_imb:.3f} s, ratio {ratios[-1]:.1f}x")
    print(f"median ratio {statistics.median(ratios):.1f}x (min {min(ratios):.1f}x, max {max(ratios):.1f}x)")


if __name__ == "__main__":
    main()
