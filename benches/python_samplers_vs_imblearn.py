"""The samplers of issue 55 against imbalanced-learn's, in one Python process:
``rarity.sampling.X().fit_resample`` against ``imblearn.X().fit_resample``
with the same parameters, on the same generated table, two threads each side
(``n_jobs=2`` and ``threadpoolctl`` for the BLAS / OpenMP pools), the best of
``--rounds`` rounds each, with the load average printed beside the ratios.

    pip install ./python imbalanced-learn threadpoolctl
    python3 benches/python_samplers_vs_imblearn.py [--n 50000] [--d 20] [--rounds 3] [names...]

The table is ``make_classification`` (two classes, 5% minority, ``--n`` rows
of ``--d`` features, seed 0). The samplers whose cost grows faster than the
rows (SVM-SMOTE's SVM, the instance hardness's forest, SMOTE-N's categorical
distance) run on ``--n-small`` rows. Each line says the rows each side
returned: the same counts for the samplers whose counts are exact, close ones
where imbalanced-learn's rounding differs (k-means SMOTE rounds each cluster's
share up).
"""

import argparse
import inspect
import os
import time

import numpy as np
from sklearn.datasets import make_classification
from threadpoolctl import threadpool_limits

import imblearn.over_sampling as IO
import imblearn.under_sampling as IU
from rarity import sampling as R


def best(rounds, f):
    t_best, out = float("inf"), None
    for _ in range(rounds):
        t = time.perf_counter()
        out = f()
        t_best = min(t_best, time.perf_counter() - t)
    return t_best, out


def table(n, d, seed=0):
    return make_classification(
        n_samples=n, n_features=d, n_informative=max(2, d // 2), weights=[0.95, 0.05],
        flip_y=0.01, random_state=seed,
    )


def categorical(n, d, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.05).astype(int)
    X = np.empty((n, d), dtype=object)
    for j in range(d):
        levels = np.array([f"l{v}" for v in range(5)], dtype=object)
        shift = (y * (j % 3)).astype(int)
        X[:, j] = levels[(rng.integers(0, 4, n) + shift) % 5]
    return X, y


#: name -> (rarity class, imbalanced-learn class, keyword arguments, small table?)
CASES = {
    "AllKNN": (R.AllKNN, IU.AllKNN, {}, False),
    "RepeatedEditedNearestNeighbours": (R.RepeatedEditedNearestNeighbours, IU.RepeatedEditedNearestNeighbours, {}, False),
    "ClusterCentroids": (R.ClusterCentroids, IU.ClusterCentroids, {"random_state": 0}, False),
    "KMeansSMOTE": (R.KMeansSMOTE, IO.KMeansSMOTE, {"random_state": 0, "cluster_balance_threshold": 0.01}, False),
    "SVMSMOTE": (R.SVMSMOTE, IO.SVMSMOTE, {"random_state": 0}, True),
    "InstanceHardnessThreshold": (R.InstanceHardnessThreshold, IU.InstanceHardnessThreshold, {"random_state": 0}, True),
    "SMOTENC": (R.SMOTENC, IO.SMOTENC, {"random_state": 0, "categorical_features": [0, 1]}, False),
    "SMOTEN": (R.SMOTEN, IO.SMOTEN, {"random_state": 0}, True),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=50_000)
    ap.add_argument("--n-small", type=int, default=5_000)
    ap.add_argument("--d", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    names = a.names or list(CASES)
    big, small = table(a.n, a.d), table(a.n_small, a.d)
    print(f"{'sampler':<34}{'rows':>8}{'rarity s':>10}{'imblearn s':>12}{'speed-up':>10}"
          f"{'rows out (rarity / imblearn)':>32}  load")
    for name in names:
        ours, theirs, kw, is_small = CASES[name]
        if name == "SMOTEN":
            X, y = categorical(a.n_small, 6)
        elif name == "SMOTENC":
            X, y = big
            X = X.copy()
            X[:, 0] = np.floor(np.abs(X[:, 0]) * 3) % 4
            X[:, 1] = np.floor(np.abs(X[:, 1]) * 5) % 7
        else:
            X, y = small if is_small else big
        threads = lambda cls: dict(kw, n_jobs=2) if "n_jobs" in inspect.signature(cls).parameters else dict(kw)
        kw_r, kw_i = threads(ours), threads(theirs)
        with threadpool_limits(2):
            t_r, (xr, _) = best(a.rounds, lambda: ours(**kw_r).fit_resample(X, y))
            t_i, (xi, _) = best(a.rounds, lambda: theirs(**kw_i).fit_resample(X, y))
        print(f"{name:<34}{len(y):>8}{t_r:>10.3f}{t_i:>12.3f}{t_i / t_r:>9.1f}x"
              f"{f'{xr.shape[0]} / {xi.shape[0]}':>32}  {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
