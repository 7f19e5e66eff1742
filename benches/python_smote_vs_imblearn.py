#!/usr/bin/env python3
"""SMOTE from Python, rarity against imbalanced-learn, in one process.

Usage (from the repository root, with the package installed: pip install
./python; needs imbalanced-learn):

    nice python3 benches/python_smote_vs_imblearn.py [--n 1000000] [--d 30]
        [--minority 10000] [--rounds 3] [--threads 2] [--categorical]

Data: n rows x d features, `minority` rows of class 1 shifted by 1 in every
feature (seeded NumPy). Both sides balance the classes with 5 neighbours and
return the resampled table (X_res, y_res), as `fit_resample` does:

  rarity.sampling.SMOTE(k_neighbors=5, n_jobs=THREADS).fit_resample(X, y)
  imblearn.over_sampling.SMOTE(k_neighbors=5).fit_resample(X, y)

imbalanced-learn's neighbour search runs in scikit-learn with THREADS
threads (threadpoolctl limits BLAS and OpenMP; its NearestNeighbors takes
n_jobs=THREADS). Each round times both sides; prints per round and the
median ratio (imbalanced-learn time / rarity time).

With --categorical, SMOTE-NC (Chawla et al. 2002, section 6.1): X is a
pandas frame of the d numeric features plus two category columns, `shop`
(1,000 levels; the minority at 20 of them) and `country` (50 levels), and

  rarity.sampling.SMOTE(k_neighbors=5, categorical_features="from_dtype")
  imblearn.over_sampling.SMOTENC(categorical_features=[d, d + 1], k_neighbors=5)

both return the frame with the category columns as categories (rarity
compares levels directly; imbalanced-learn one-hot encodes them at Med/sqrt(2)).
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
    ap.add_argument("--categorical", action="store_true")
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
    if a.categorical:
        return smotenc(a, X, y, rng)
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


def smotenc(a, X, y, rng):
    """SMOTE-NC on a frame with two category columns, both sides."""
    import pandas as pd
    from imblearn.over_sampling import SMOTENC
    from sklearn.neighbors import NearestNeighbors
    from threadpoolctl import threadpool_limits

    import rarity

    shop = np.where(y == 1, rng.integers(0, 20, a.n), rng.integers(0, 1000, a.n))
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(a.d)])
    frame["shop"] = pd.Categorical([f"m{s:04d}" for s in shop])
    frame["country"] = pd.Categorical([f"c{c:02d}" for c in rng.integers(0, 50, a.n)])
    print(f"SMOTE-NC, {a.n:,} x {a.d} + 2 categorical, {a.minority:,} minority rows, {a.threads} threads each side")
    ratios = []
    for r in range(a.rounds):
        t0 = time.perf_counter()
        ours = rarity.sampling.SMOTE(
            k_neighbors=5, random_state=r, n_jobs=a.threads, categorical_features="from_dtype"
        ).fit_resample(frame, y)
        t_rarity = time.perf_counter() - t0
        assert ours[0].shape == (2 * (a.n - a.minority), a.d + 2)
        del ours
        with threadpool_limits(a.threads):
            imb = SMOTENC(
                categorical_features=[a.d, a.d + 1],
                k_neighbors=NearestNeighbors(n_neighbors=6, n_jobs=a.threads),
                random_state=r,
            )
            t0 = time.perf_counter()
            theirs = imb.fit_resample(frame, y)
            t_imb = time.perf_counter() - t0
        assert theirs[0].shape == (2 * (a.n - a.minority), a.d + 2)
        del theirs
        ratios.append(t_imb / t_rarity)
        print(f"round {r + 1}: rarity {t_rarity:.3f} s, imbalanced-learn {t_imb:.3f} s, ratio {ratios[-1]:.1f}x")
    print(f"median ratio {statistics.median(ratios):.1f}x (min {min(ratios):.1f}x, max {max(ratios):.1f}x)")


if __name__ == "__main__":
    main()
