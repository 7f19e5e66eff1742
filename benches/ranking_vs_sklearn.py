#!/usr/bin/env python3
"""ROC AUC and average precision on 10^7 scores: rarity against scikit-learn.

Draws the data once with NumPy (seed 42: 10% positives, scores uniform on
[0, 0.7] plus 0.3 for positives), writes it to a temporary directory, runs
`cargo bench --bench ranking` on it (one thread), times scikit-learn's
`roc_auc_score` and `average_precision_score` on the same arrays (one thread,
best of 3), checks that both sides agree, and prints the timings and ratios.

    pip install scikit-learn numpy
    python3 benches/ranking_vs_sklearn.py
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ[var] = "1"

import numpy as np  # noqa: E402
import sklearn  # noqa: E402
from sklearn.metrics import average_precision_score, roc_auc_score  # noqa: E402

N = 10_000_000
ROOT = Path(__file__).resolve().parent.parent


def best_of(reps, f):
    best, value = float("inf"), None
    for _ in range(reps):
        t = time.perf_counter()
        value = f()
        best = min(best, time.perf_counter() - t)
    return best, value


def main():
    rng = np.random.default_rng(42)
    labels = (rng.random(N) < 0.1).astype(np.uint8)
    scores = rng.random(N) * 0.7 + 0.3 * labels
    with tempfile.TemporaryDirectory() as tmp:
        scores.astype("<f8").tofile(os.path.join(tmp, "scores.f64"))
        labels.tofile(os.path.join(tmp, "labels.u8"))
        env = dict(os.environ, RARITY_BENCH_DATA=tmp)
        out = subprocess.run(
            ["cargo", "bench", "--bench", "ranking"],
            cwd=ROOT, env=env, check=True, capture_output=True, text=True,
        ).stdout
    rust = json.loads(out.strip().splitlines()[-1])
    sk_auc_s, sk_auc = best_of(3, lambda: roc_auc_score(labels, scores))
    sk_ap_s, sk_ap = best_of(3, lambda: average_precision_score(labels, scores))
    result = {
        "n": N,
        "scikit-learn": sklearn.__version__,
        "rarity_roc_auc_seconds": rust["roc_auc_seconds"],
        "sklearn_roc_auc_seconds": sk_auc_s,
        "roc_auc_speedup": sk_auc_s / rust["roc_auc_seconds"],
        "rarity_average_precision_seconds": rust["average_precision_seconds"],
        "sklearn_average_precision_seconds": sk_ap_s,
        "average_precision_speedup": sk_ap_s / rust["average_precision_seconds"],
        "roc_auc_rarity": rust["roc_auc"],
        "roc_auc_sklearn": sk_auc,
        "average_precision_rarity": rust["average_precision"],
        "average_precision_sklearn": sk_ap,
    }
    print(json.dumps(result, indent=2))
    if abs(rust["roc_auc"] - sk_auc) > 1e-9 or abs(rust["average_precision"] - sk_ap) > 1e-9:
        print("rarity and scikit-learn disagree", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
