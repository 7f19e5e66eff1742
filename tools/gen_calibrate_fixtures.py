#!/usr/bin/env python3
"""Reference values for `rarity calibrate` and the prior-shift stages.

Writes tests/fixtures/calibrate.json with NumPy: scores, and the probabilities
and thresholds after

- the correction for undersampling at beta (Dal Pozzolo et al. 2015, eq. 9:
  p' = beta p / (beta p - p + 1)) and the matching threshold (eq. 12:
  tau' = beta tau / ((beta - 1) tau + 1));
- per-class keep rates (p_k proportional to p_s,k / r_k);
- the adjustment to new priors (Saerens et al. 2002; the paper's appendix,
  eq. 14: p_t,k proportional to (pi_t,k / pi_s,k) p_s,k);
- Saerens' EM estimate of unknown priors: start at the training priors,
  adjust every row to the current estimate, take the mean adjusted posterior
  as the next estimate (each prior kept >= 1e-12), stop when no prior moves
  by 1e-8 or more (rarity's default em(tol=1e-8)); the rows are then
  adjusted to the last estimate.

The Rust test (tests/calibrate_cli.rs) reads the committed file and needs no
Python. Regenerate (from the repository root):

    pip install numpy==2.4.6
    python3 tools/gen_calibrate_fixtures.py
"""

import json
from pathlib import Path

import numpy as np


def reweight(p, w):
    """Rows of p times per-class weights w, renormalised."""
    q = p * np.asarray(w)[None, :]
    return q / q.sum(axis=1, keepdims=True)


def em(p, train, tol=1e-8, max_iter=1000):
    train = np.asarray(train, dtype=float)
    priors = train.copy()
    for it in range(1, max_iter + 1):
        adjusted = reweight(p, priors / train)
        nxt = np.maximum(adjusted.mean(axis=0), 1e-12)
        change = np.abs(nxt - priors).max()
        priors = nxt
        if change < tol:
            return priors, reweight(p, priors / train), it
    raise RuntimeError("EM did not converge")


def binary(p1):
    return np.column_stack([1.0 - p1, p1])


def main():
    rng = np.random.default_rng(17)
    cases = []

    # A model trained on a sample whose negatives were kept at beta = 0.1.
    p1 = rng.beta(0.6, 1.4, size=300)
    beta = 0.1
    eq9 = beta * p1 / (beta * p1 - p1 + 1.0)
    cases.append({
        "name": "beta",
        "scores": [p1.tolist()],
        "args": ["--beta", "0.1"],
        "proba": [(1 - eq9).tolist(), eq9.tolist()],
        "threshold": beta * 0.5 / ((beta - 1.0) * 0.5 + 1.0),
    })

    # The same, then to a population with 0.2% positives (trained at 2%).
    train, target = np.array([0.98, 0.02]), np.array([0.998, 0.002])
    shifted = reweight(binary(eq9), target / train)
    tau = beta * 0.3 / ((beta - 1.0) * 0.3 + 1.0)
    tau_t = reweight(binary(np.array([tau])), target / train)[0, 1]
    cases.append({
        "name": "beta_to_priors",
        "scores": [p1.tolist()],
        "args": ["--beta", "0.1", "--train-priors", "0.98,0.02",
                 "--to-priors", "0.998,0.002", "--threshold", "0.3"],
        "proba": shifted.T.tolist(),
        "threshold": tau_t,
        "priors": target.tolist(),
    })

    # Posteriors of the Gaussian task (mu = 3, sigma = 3) under a 50/50
    # training prior, on a population with 10% positives: EM should find
    # about 0.1.
    n = 2000
    y = rng.random(n) < 0.1
    x = np.where(y, 3.0, 0.0) + 3.0 * rng.standard_normal(n)
    llr = (2 * 3.0 * x - 9.0) / 18.0
    post = 1.0 / (1.0 + np.exp(-llr))
    priors, adjusted, iterations = em(binary(post), [0.5, 0.5])
    tau_em = reweight(binary(np.array([0.5])), priors / np.array([0.5, 0.5]))[0, 1]
    cases.append({
        "name": "em",
        "scores": [post.tolist()],
        "args": ["--em", "--train-priors", "0.5,0.5"],
        "proba": adjusted.T.tolist(),
        "threshold": tau_em,
        "priors": priors.tolist(),
        "iterations": iterations,
    })

    # Three classes: class 1 undersampled to half, class 2 oversampled 2x.
    p3 = rng.dirichlet([1.0, 2.0, 0.5], size=200)
    rates = np.array([1.0, 0.5, 2.0])
    corrected = reweight(p3, 1.0 / rates)
    train3, target3 = np.array([0.5, 0.3, 0.2]), np.array([0.8, 0.15, 0.05])
    cases.append({
        "name": "multiclass",
        "scores": p3.T.tolist(),
        "args": ["--keep-rates", "1,0.5,2", "--train-priors", "0.5,0.3,0.2",
                 "--to-priors", "0.8,0.15,0.05"],
        "proba": reweight(corrected, target3 / train3).T.tolist(),
        "priors": target3.tolist(),
    })

    out = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "calibrate.json"
    out.write_text(json.dumps({"numpy": np.__version__, "cases": cases}, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
