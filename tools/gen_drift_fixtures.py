#!/usr/bin/env python3
"""Reference values for rarity's drift statistics (src/metrics/drift.rs).

Writes tests/fixtures/drift.json: for pairs of samples (reference, current),
the Kolmogorov-Smirnov statistic from SciPy's ks_2samp, and the population
stability index over the reference's quantile bins as the module doc defines
it, computed here with NumPy alone: edge i of B bins is the ceil(i n / B)-th
smallest of the reference's n non-missing values (NumPy's 'inverted_cdf'
quantile, checked against it below), repeated edges kept once; a value falls
in the bin of the number of edges below it; missing values (NaN) are one bin
more when either side has one; a share below 1e-4 counts as 1e-4;
PSI = sum (c - r) ln(c / r). tests/drift_fixtures.rs reads the committed file.

Regenerate (from the repository root):

    pip install scipy==1.17.1 numpy==2.4.6
    python3 tools/gen_drift_fixtures.py

JSON has no NaN or infinity: a missing value is written as null, +-infinity
as the strings "inf" / "-inf" (as tools/gen_metric_fixtures.py does).
"""

import json
from pathlib import Path

import numpy as np
import scipy
from scipy import stats

FLOOR = 1e-4


def edges_of(ref, bins):
    x = np.sort(ref[~np.isnan(ref)])
    n = len(x)
    out = []
    for i in range(1, bins):
        rank = -(-i * n // bins)  # ceil(i n / B) in integers
        e = x[rank - 1]
        # The same edge as NumPy's type-1 quantile wherever i / B is exact in
        # binary (the float product i / B * n is exact there).
        if (i * 1024) % bins == 0:
            assert e == np.quantile(x, i / bins, method="inverted_cdf")
        if not out or out[-1] != e:
            out.append(e)
    return np.array(out)


def psi(ref, cur, bins):
    edges = edges_of(ref, bins)
    missing = np.isnan(ref).any() or np.isnan(cur).any()

    def shares(x):
        v = x[~np.isnan(x)]
        counts = np.bincount(np.searchsorted(edges, v, side="left"), minlength=len(edges) + 1)
        if missing:
            counts = np.append(counts, np.isnan(x).sum())
        return counts / len(x)

    r, c = np.maximum(shares(ref), FLOOR), np.maximum(shares(cur), FLOOR)
    return float(np.sum((c - r) * np.log(c / r))), edges


def encode(v):
    if np.isnan(v):
        return None
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return float(v)


def case(name, ref, cur, bins=10):
    p, edges = psi(ref, cur, bins)
    a, b = ref[~np.isnan(ref)], cur[~np.isnan(cur)]
    ks = float(stats.ks_2samp(a, b).statistic) if len(a) and len(b) else None
    as_list = lambda x: [encode(v) for v in x]
    return {
        "name": name,
        "bins": bins,
        "reference": as_list(ref),
        "current": as_list(cur),
        "psi": p,
        "ks": ks,
        "edges": as_list(edges),
    }


def main():
    rng = np.random.default_rng(56)
    cases = []
    ref = rng.standard_normal(5000)
    cases.append(case("same_distribution", ref, rng.standard_normal(4000)))
    cases.append(case("mean_shift", ref, rng.standard_normal(3000) + 0.3))
    cases.append(case("scale_shift", ref, rng.standard_normal(3000) * 1.5, bins=20))
    # Amounts: skewed, heavy ties (rounded to cents, many zeros).
    amounts = np.round(np.where(rng.random(6000) < 0.3, 0.0, rng.lognormal(3, 1, 6000)), 2)
    later = np.round(np.where(rng.random(5000) < 0.2, 0.0, rng.lognormal(3.2, 1.1, 5000)), 2)
    cases.append(case("ties_and_zeros", amounts, later))
    # A few distinct values: repeated quantiles collapse to fewer bins.
    cases.append(case("few_levels", rng.integers(0, 4, 2000).astype(float),
                      rng.integers(0, 5, 2500).astype(float)))
    # Missing values on both sides, more of them currently.
    r = rng.standard_normal(3000)
    r[rng.random(3000) < 0.05] = np.nan
    c = rng.standard_normal(2000) + 0.1
    c[rng.random(2000) < 0.2] = np.nan
    cases.append(case("missing_values", r, c, bins=5))
    # A bin the current sample leaves empty (the floor).
    cases.append(case("emptied_bin", rng.random(1000), rng.random(800) * 0.5 + 0.5))
    # Negative zeros and infinities.
    cases.append(case("signed_and_infinite", np.array([-0.0, 0.0, 1.0, -np.inf, np.inf, 2.0] * 50),
                      np.array([0.0, 1.0, 1.0, np.inf, 3.0] * 40), bins=4))

    out = {"versions": {"numpy": np.__version__, "scipy": scipy.__version__}, "floor": FLOOR,
           "cases": cases}
    path = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "drift.json"
    path.write_text(json.dumps(out, separators=(",", ":")) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
