#!/usr/bin/env python3
"""The cost of handing a NumPy array to rarity, against the fit it feeds.

Usage (from the repository root, with the package installed: pip install ./python):

    nice python3 benches/python_input_overhead.py [--n 1000000] [--d 30]
        [--threads 2] [--spec "eb-bagging(n=10)"] [--rounds 3]

A C-contiguous float64 array (n x d, 1% positives) is read in place: the
input path is the wrapping of the buffer (no copy) plus the library's
checks (every value finite, one pass, parallel) and the label encoding.
This script times that path alone (`Features.from_numpy` + `Data`), the same
for a float32 array (converted once) and a Fortran-ordered one (copied by
NumPy), and the whole `Classifier(spec).fit(X, y)`; prints the input share
of the fit.
"""

import argparse
import statistics
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--d", type=int, default=30)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--spec", default="eb-bagging(n=10)")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    import rarity
    from rarity import _rarity
    from rarity import _validation as V

    rng = np.random.default_rng(0)
    y = (rng.random(a.n) < 0.01).astype(np.int64)
    X = rng.normal(size=(a.n, a.d)) + y[:, None]

    def input_path(Xi):
        t0 = time.perf_counter()
        f, _ = V.features(Xi, a.threads)
        lab = V.labels(y)
        _rarity.Data(f, lab.codes, lab.class_names, "y", None, a.threads)
        return time.perf_counter() - t0

    print(f"{a.n:,} x {a.d} float64 ({X.nbytes / 1e6:.0f} MB), {a.threads} threads, fit of {a.spec}")
    t_in = statistics.median(input_path(X) for _ in range(a.rounds))
    t_f32 = statistics.median(input_path(X.astype(np.float32)) for _ in range(a.rounds))
    Xf = np.asfortranarray(X)
    t_fortran = statistics.median(input_path(Xf) for _ in range(a.rounds))
    del Xf
    fits = []
    for _ in range(a.rounds):
        t0 = time.perf_counter()
        rarity.Classifier(a.spec, n_jobs=a.threads).fit(X, y)
        fits.append(time.perf_counter() - t0)
    t_fit = statistics.median(fits)
    print(f"input, float64 C-contiguous (read in place): {t_in * 1e3:8.1f} ms")
    print(f"input, float32 (converted once):             {t_f32 * 1e3:8.1f} ms")
    print(f"input, float64 Fortran order (copied):       {t_fortran * 1e3:8.1f} ms")
    print(f"fit, whole:                                  {t_fit * 1e3:8.1f} ms")
    print(f"input share of the fit (copy-free path): {100 * t_in / t_fit:.2f}%")


if __name__ == "__main__":
    main()
