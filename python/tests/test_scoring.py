"""Scoring a few rows (issue 37): a few rows are scored on the calling
thread, with the same probabilities, labels and errors as a batch, from any
thread and after fork."""

from __future__ import annotations

import multiprocessing as mp
import sys
import threading

import numpy as np
import pytest

import rarity
from conftest import imbalanced

SPECS = [
    "logistic",
    "gbdt(rounds=20)",
    "forest(n=20)",
    "under(beta=0.3)+forest(n=20)+correct+threshold(priors)",
    "pt-bagging(n=10)",
]


@pytest.mark.parametrize("spec", SPECS)
def test_one_row_equals_its_row_of_a_batch(spec):
    X, y = imbalanced(n=500, d=5, seed=4)
    m = rarity.Classifier(spec, seed=3, n_jobs=2).fit(X, y)
    batch, labels = m.predict_proba(X), m.predict(X)
    for i in (0, 7, 499):
        np.testing.assert_array_equal(m.predict_proba(X[i : i + 1]), batch[i : i + 1])
        np.testing.assert_array_equal(m.predict(X[i : i + 1]), labels[i : i + 1])
    # A few rows, a strided view and a list of rows take the same path.
    np.testing.assert_array_equal(m.predict_proba(X[:40]), batch[:40])
    np.testing.assert_array_equal(m.predict_proba(X[::-1][:3]), batch[::-1][:3])
    np.testing.assert_array_equal(m.predict_proba(X[:2].tolist()), batch[:2])


def test_one_row_errors_are_the_batch_errors():
    X, y = imbalanced(n=200, d=4, seed=1)
    m = rarity.Classifier("logistic", n_jobs=1).fit(X, y)
    for bad in (X[:1, :3], X[:50, :3]):
        with pytest.raises(ValueError, match="features"):
            m.predict_proba(bad)
    nan = X[:1].copy()
    nan[0, 2] = np.nan
    with pytest.raises(ValueError, match=r"row 0 \(counting from 0\), feature 'x2' is missing"):
        m.predict_proba(nan)
    with pytest.raises(ValueError, match="dimension"):
        m.predict_proba(X[0])
    with pytest.raises(ValueError, match="n_jobs=0"):
        rarity.Classifier("logistic", n_jobs=0).fit(X, y)
    m.n_jobs = 0
    with pytest.raises(ValueError, match="n_jobs=0"):
        m.predict_proba(X[:1])


def test_one_row_from_other_threads():
    X, y = imbalanced(n=300, d=4, seed=2)
    m = rarity.Classifier("forest(n=10)", seed=1).fit(X, y)
    want = m.predict_proba(X)
    got = {}

    def score(t):
        got[t] = np.vstack([m.predict_proba(X[i : i + 1]) for i in range(0, 300, 3)])

    threads = [threading.Thread(target=score, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for t in range(4):
        np.testing.assert_array_equal(got[t], want[::3])


def _score_in_child(q):
    X, y = imbalanced(n=300, seed=1)
    m = rarity.Classifier("forest(n=10)", seed=2, n_jobs=2).fit(X, y)
    q.put([m.predict_proba(X[:1]).tolist(), m.predict_proba(X).tolist()])


@pytest.mark.skipif(sys.platform == "win32", reason="fork is POSIX")
def test_one_row_scoring_after_fork():
    # The parent scores single rows on its own thread before forking.
    X, y = imbalanced(n=300, seed=1)
    m = rarity.Classifier("forest(n=10)", seed=2, n_jobs=2).fit(X, y)
    want = m.predict_proba(X)
    np.testing.assert_array_equal(m.predict_proba(X[:1]), want[:1])
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_score_in_child, args=(q,))
    p.start()
    one, full = q.get(timeout=120)
    p.join(timeout=60)
    assert p.exitcode == 0
    np.testing.assert_array_equal(np.asarray(one), want[:1])
    np.testing.assert_array_equal(np.asarray(full), want)
