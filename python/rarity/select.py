"""Choosing a learner for a population whose labelled sample is biased:
ReverseTesting (Fan & Davidson 2006, Sec. 4) and, for comparison,
cross-validation, leave-one-out and training accuracy on the sample alone
(rarity's ``select``; the same call as ``rarity select``).
"""

from __future__ import annotations

from . import _rarity
from . import _validation as V

__all__ = ["reverse_testing"]


def reverse_testing(
    learners, X_train, y_train, X_target, *, method="reverse-testing", variant="default",
    metric="accuracy", benefit=None, seed=42, n_jobs=None, pos_label=None,
):
    """Ranks learners for the unlabelled target rows ``X_target``.

    Parameters
    ----------
    learners : str or list of str
        Learner specs, e.g. ``["tree", "forest(n=10)", "gnb"]``.
    X_train, y_train : array-like or table
        The labelled (possibly biased) training set D.
    X_target : array-like or table
        The unlabelled target set T (same columns as ``X_train``).
    method : {"reverse-testing", "cv", "loo", "train"}, default="reverse-testing"
    variant : str, default="default"
        ReverseTesting's variant: ``"default"`` (the one that measured best,
        ``docs/reverse-testing.md``), ``"paper"`` (the literal algorithm),
        ``"priors"``, ``"sample"``, or settings such as ``"paper,decide=sum"``.
    metric : str, default="accuracy"
        The measure on D: any key of :func:`rarity.metrics.score`.
    benefit : str, default=None
        Example-dependent benefit ``"amount=COL,overhead=V"`` instead of a metric.
    seed : int, default=42
    n_jobs : int, default=None
    pos_label : label, default=None

    Returns
    -------
    dict
        ``learners`` (names as given), ``order`` (indices, best first),
        ``score`` (wins minus losses), ``pairs`` (every pair's outcome and,
        for ReverseTesting, its four measures), ``models_built``,
        ``single_class_copies`` and ``variant``.

    Examples
    --------
    >>> import rarity
    >>> X, y = rarity.datasets.load("pima")
    >>> r = rarity.select.reverse_testing(["tree(max_depth=2)", "gnb"], X[:400], y[:400], X[400:])
    >>> sorted(r["order"])
    [0, 1]
    """
    if not isinstance(learners, str):
        learners = ",".join(learners)
    n_jobs = V.n_jobs_of(n_jobs)
    feats, _ = V.features(X_train, n_jobs)
    lab = V.labels(y_train, pos_label)
    data = _rarity.Data(feats, lab.codes, lab.class_names, "y", None, n_jobs)
    target, _ = V.features(X_target, n_jobs)
    return _rarity.select(learners, data, target, method, variant, metric, benefit, int(seed), n_jobs)
