"""Statistical comparison of methods over datasets (Demšar 2006): Friedman's
test with Iman-Davenport's F, Nemenyi's critical difference and p-values,
Wilcoxon's signed-rank test (rarity's ``stats``, matching SciPy 1.17).

Tables have one row per dataset (or fold) and one column per method.
"""

from __future__ import annotations

import numpy as np

from . import _rarity
from ._docs import sections

__all__ = ["friedman", "nemenyi", "wilcoxon", "mean_ranks", "critical_difference"]

#: The parameters of the tests over a table, ``table`` and
#: ``higher_is_better`` (numpydoc, the section's head included).
_TABLE_PARAMS = """\
Parameters
----------
table : array-like of shape (n_datasets, n_methods)
    One row per dataset (or fold), one column per method.
higher_is_better : bool, default=True
    Whether larger values are better (scores); ``False`` for losses."""


def _table(t):
    a = np.asarray(t, dtype=np.float64)
    if a.ndim != 2:
        raise ValueError(f"the table must be 2-d (datasets x methods); got shape {a.shape}")
    return a.tolist()


def friedman(table, higher_is_better=True):
    """Friedman's test that all methods perform alike.

    %(table)s

    Returns
    -------
    dict
        ``n``, ``k``, ``chi2``, ``chi2_p_value``, ``f`` (Iman-Davenport) and
        ``f_p_value``.

    Examples
    --------
    >>> from rarity.stats import friedman
    >>> r = friedman([[0.9, 0.8, 0.7], [0.85, 0.8, 0.6], [0.95, 0.7, 0.72], [0.8, 0.79, 0.5]])
    >>> r["k"], r["chi2_p_value"] < 0.05
    (3, True)
    """
    t = np.asarray(_table(table))
    return _rarity.friedman((t if higher_is_better else -t).tolist())


def mean_ranks(table, higher_is_better=True):
    """Mean rank of each method over the rows (1 = best; ties share ranks).

    %(table)s

    Returns
    -------
    ndarray of shape (n_methods,)

    Examples
    --------
    >>> from rarity.stats import mean_ranks
    >>> mean_ranks([[0.9, 0.8], [0.7, 0.8]]).tolist()
    [1.5, 1.5]
    """
    return np.asarray(_rarity.mean_ranks(_table(table), bool(higher_is_better)))


def critical_difference(k, n, alpha=0.05):
    """Nemenyi's critical difference of mean ranks for ``k`` methods over ``n`` datasets.

    Parameters
    ----------
    k : int
        Number of methods.
    n : int
        Number of datasets.
    alpha : float, default=0.05

    Returns
    -------
    float
        The smallest difference of two mean ranks that is significant at
        level ``alpha``.

    Examples
    --------
    >>> from rarity.stats import critical_difference
    >>> round(critical_difference(3, 10), 3)
    1.048
    """
    return _rarity.critical_difference(int(k), int(n), float(alpha))


def nemenyi(table, higher_is_better=True, alpha=0.05):
    """Nemenyi's post-hoc test: mean ranks, the critical difference and the
    p-value of every pair.

    %(table)s
    alpha : float, default=0.05

    Returns
    -------
    dict
        ``mean_ranks`` (ndarray), ``critical_difference`` (float) and
        ``p_values`` (ndarray of shape (n_methods, n_methods)).

    Examples
    --------
    >>> from rarity.stats import nemenyi
    >>> r = nemenyi([[0.9, 0.8, 0.7]] * 10)
    >>> r["mean_ranks"].tolist(), bool(r["p_values"][0, 2] < 0.05)
    ([1.0, 2.0, 3.0], True)
    """
    t = _table(table)
    ranks = mean_ranks(t, higher_is_better)
    n, k = len(t), len(ranks)
    p = np.ones((k, k))
    for a in range(k):
        for b in range(k):
            if a != b:
                p[a, b] = _rarity.nemenyi_p_value(float(ranks[a] - ranks[b]), k, n)
    return {"mean_ranks": ranks, "critical_difference": critical_difference(k, n, alpha), "p_values": p}


def wilcoxon(x, y):
    """Wilcoxon's signed-rank test of paired results (two-sided, SciPy's).

    Parameters
    ----------
    x, y : array-like of shape (n,)
        Paired results of two methods.

    Returns
    -------
    dict
        ``statistic`` (``min(W+, W-)``), ``w_plus``, ``w_minus``, ``p_value``
        and ``method`` (``exact``, ``permutation`` or ``normal``).

    Examples
    --------
    >>> from rarity.stats import wilcoxon
    >>> r = wilcoxon([0.9, 0.8, 0.85, 0.7, 0.95, 0.6], [0.8, 0.7, 0.8, 0.72, 0.9, 0.5])
    >>> r["method"], r["statistic"]
    ('permutation', 1.0)
    """
    return _rarity.wilcoxon(list(map(float, x)), list(map(float, y)))


for _test in (friedman, mean_ranks, nemenyi):
    sections(table=_TABLE_PARAMS)(_test)
del _test
