#!/usr/bin/env python3
"""Reference values for the Murphy decomposition of the Brier score as
rarity reports it (issue 39 item 2): binary and multiclass.

Writes tests/fixtures/murphy.json, read by tests/newcomer_results.rs (no
Python needed there). Computed independently of rarity with NumPy:

- binary: rows grouped into 10 equal-width bins of the positive-class
  probability (a value on an interior edge belongs to the lower bin);
  reliability, resolution, uncertainty and the two within-bin terms of
  Stephenson, Coelho & Jolliffe (2008), "Two extra components in the Brier
  score decomposition", Weather and Forecasting 23, 752-757, eqs. 6-8:
  brier = reliability - resolution + uncertainty + wbv - wbc.
- multiclass: the Brier score summed over classes (Brier 1950) is the sum of
  each class's one-vs-rest binary score, so its decomposition is the sum of
  each column's binned decomposition against that class.

Regenerate (from the repository root):

    pip install numpy==2.4.6
    python3 tools/gen_murphy_fixtures.py
"""

import json
from pathlib import Path

import numpy as np

BINS = 10


def binned(o, p, n_bins=BINS):
    """The five terms for outcomes o in {0, 1} and forecasts p."""
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    ids = np.searchsorted(edges[1:-1], p, side="left")
    n = np.bincount(ids, minlength=n_bins).astype(float)
    safe = np.maximum(n, 1.0)
    f_k = np.bincount(ids, weights=p, minlength=n_bins) / safe
    o_k = np.bincount(ids, weights=o, minlength=n_bins) / safe
    base = o.mean()
    nz = n > 0
    big_n = len(p)
    return {
        "brier_reliability": float(np.sum(n[nz] * (f_k[nz] - o_k[nz]) ** 2) / big_n),
        "brier_resolution": float(np.sum(n[nz] * (o_k[nz] - base) ** 2) / big_n),
        "brier_uncertainty": float(base * (1 - base)),
        "brier_within_bin_variance": float(np.sum((p - f_k[ids]) ** 2) / big_n),
        "brier_within_bin_covariance": float(
            2 * np.sum((o - o_k[ids]) * (p - f_k[ids])) / big_n
        ),
    }


def binary_case(name, y, p):
    o = (y == 1).astype(float)
    e = binned(o, p)
    e["brier"] = float(np.mean((o - p) ** 2))
    return {"name": name, "truth": y.tolist(), "p": p.tolist(), "expected": e}


def multiclass_case(name, y, proba):
    k = proba.shape[1]
    e = {key: 0.0 for key in binned(np.zeros(1), np.zeros(1))}
    for c in range(k):
        for key, v in binned((y == c).astype(float), proba[:, c]).items():
            e[key] += v
    onehot = np.eye(k)[y]
    e["brier"] = float(np.mean(np.sum((onehot - proba) ** 2, axis=1)))
    return {"name": name, "k": k, "truth": y.tolist(), "proba": proba.ravel().tolist(), "expected": e}


def main():
    rng = np.random.default_rng(39)
    binary = []
    # Continuous scores of a rare class, as a fraud model gives them.
    y = (rng.random(3000) < 0.05).astype(int)
    p = np.clip(rng.beta(1 + 3 * y, 8 - 4 * y), 0.0, 1.0)
    binary.append(binary_case("rare_continuous", y, p))
    # Scores on the bin edges (0.1, 0.2, ...) and at 0 and 1.
    y = rng.integers(0, 2, 400)
    p = np.round(rng.random(400), 1)
    binary.append(binary_case("on_edges", y, p))
    # Over-confident scores.
    y = rng.integers(0, 2, 1000)
    p = np.where(y == 1, rng.beta(5, 2, 1000), rng.beta(2, 5, 1000)) ** 0.3
    binary.append(binary_case("overconfident", y, p))

    multiclass = []
    for k, n in [(3, 600), (4, 1500)]:
        y = rng.integers(0, k, n)
        alpha = np.ones((n, k)) + 3.0 * np.eye(k)[y]
        proba = np.array([rng.dirichlet(a) for a in alpha])
        multiclass.append(multiclass_case(f"dirichlet_{k}", y, proba))

    out = {"versions": {"numpy": np.__version__}, "bins": BINS, "binary": binary, "multiclass": multiclass}
    path = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "murphy.json"
    path.write_text(json.dumps(out, separators=(",", ":")) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
