"""Choosing a learner for a population whose labelled sample is biased:
every method of ``rarity select`` (the same request and library call):
ReverseTesting (Fan & Davidson 2006, Sec. 4), importance-weighted
cross-validation (``iwcv``, ``iwcv(ratio=ulsif)``), prior-corrected
cross-validation (``prior-cv``), their vote (the default), and, for
comparison, cross-validation, leave-one-out and training accuracy on the
sample alone.
"""

from __future__ import annotations

from . import _html, _rarity
from . import _validation as V
from ._classifier import _warn_dropped
from ._declared import Job
from ._docs import sections
from ._run import _missing

__all__ = ["select", "reverse_testing", "Selection"]

#: The default method of ``rarity select`` and :func:`select`: the majority
#: of the default ReverseTesting variant and two importance-weighted
#: cross-validations (the method that measured best, ``docs/reverse-testing.md``).
DEFAULT_METHOD = _rarity.DEFAULT_METHOD

DECLARED = Job("select")
_D = DECLARED.defaults


class Selection(dict):
    """What :func:`select` found: the ``rarity select --format json`` object,
    as a dict, that shows its ranking and verdict in a notebook.

    Examples
    --------
    >>> import rarity
    >>> X, y = rarity.datasets.load("pima")
    >>> r = rarity.select.select(["tree(max_depth=2)", "gnb"], X[:400], y[:400], X[400:], method="cv")
    >>> isinstance(r, dict), "ranking, best first" in r._repr_html_()
    (True, True)
    """

    def _repr_html_(self):
        ranking, scores = self["ranking"], self.get("scores")
        header = ["rank", "learner", "wins - losses"] + (["estimated score"] if scores else [])
        rows = []
        for pos, i in enumerate(ranking["order"]):
            row = [pos + 1, ranking["learners"][i], ranking["score"][i]]
            rows.append(row + ([scores[i]] if scores else []))
        best = ranking["learners"][ranking["order"][0]] if ranking["order"] else None
        parts = [
            _html.paragraph(f"selected: {best} ({self['method']}, {ranking['models_built']} models built)"),
            _html.table(header, rows, "ranking, best first"),
            _html.paragraph(f"bias detected: {self['diagnosis']['detected']}"),
            _html.paragraph(f"what it did: {self['did']}"),
        ]
        if self.get("truth_note"):
            parts.append(_html.paragraph(f"note: {self['truth_note']}"))
        return "".join(parts)


@sections(declared=DECLARED.docs())
def select(
    learners, X_train, y_train, X_target, *, method=_D["method"], variant=_D["variant"],
    metric=_D["metric"], benefit=_D["benefit"], y_target=None, seed=42, random_state=None, n_jobs=None, pos_label=None,
    missing="auto",
):
    """Ranks learners for the unlabelled target rows ``X_target``, as
    ``rarity select --format json`` does (the same request and call; the
    result equals its JSON).

    Parameters
    ----------
    %(declared)s
    X_train, y_train : array-like or table
        The labelled (possibly biased) training set D.
    X_target : array-like or table
        The unlabelled target population T (same columns as ``X_train``).
    y_target : array-like, default=None
        The target rows' true labels, if known: adds the true order
        (``true_ranking``) and how the ranking disagrees with it
        (``truth_note``), as ``--truth`` does.
    seed : int, default=42
    random_state : int, default=None
        scikit-learn's name for ``seed``, an alias: when given, it is the seed.
    n_jobs : int, default=None
    pos_label : label, default=None
    missing : {"auto", "keep", "drop", "error"}, default="auto"
        Missing values of ``X_train`` (``rarity select --missing``): kept
        when every learner learns where they go, else their rows dropped
        (``"auto"``; a warning counts them), or refused; the target rows
        owe a value everywhere a learner cannot take a missing one.

    Returns
    -------
    Selection
        A dict: ``method`` (as given), ``spec`` (as parsed), ``variant``, ``ranking``
        (``learners``, ``order`` best first, ``score`` wins minus losses,
        ``pairs``, ``models_built``, ``single_class_copies``), ``scores`` and
        ``weights`` (for the methods that score learners one by one),
        ``priors``, ``diagnosis`` (covariate- and prior-shift tests), ``did``
        (what the method did), ``true_ranking`` and ``truth_note``.

    Examples
    --------
    >>> import rarity
    >>> X, y = rarity.datasets.load("pima")
    >>> r = rarity.select.select(["tree(max_depth=2)", "gnb"], X[:400], y[:400], X[400:], method="iwcv(ratio=ulsif)")
    >>> sorted(r["ranking"]["order"]), r["method"], r["spec"][:16]
    ([0, 1], 'iwcv(ratio=ulsif)', 'iwcv(ratio=ulsif')
    """
    if not isinstance(learners, str):
        learners = ",".join(learners)
    n_jobs = V.n_jobs_of(n_jobs)
    seed = V.seed_of(seed, random_state)
    feats, _ = V.features(X_train, n_jobs)
    lab = V.labels(y_train, pos_label, allow_missing=True)
    policy = _missing(missing, "learners", [learners])
    data = _rarity.Data(feats, lab.codes, lab.class_names, "y", None, n_jobs, missing=policy)
    _warn_dropped("rarity.select", data, feats.n_rows_)
    target, _ = V.features(X_target, n_jobs)
    truth = None
    if y_target is not None:
        t = V.labels(y_target, pos_label)
        truth = _rarity.Data(V.features(X_target, n_jobs)[0], t.codes, t.class_names, "y", None, n_jobs)
    params = DECLARED.texts(dict(learners=learners, method=method, variant=variant, metric=metric, benefit=benefit))
    return Selection(_rarity.select(params, data, target, seed, n_jobs, truth))


def reverse_testing(
    learners, X_train, y_train, X_target, *, method=_D["method"], variant=_D["variant"],
    metric=_D["metric"], benefit=_D["benefit"], y_target=None, seed=42, random_state=None, n_jobs=None, pos_label=None,
    missing="auto",
):
    """:func:`select` under its older name, with the ranking's keys also at
    the top level (``learners``, ``order``, ``score``, ``pairs``,
    ``models_built``, ``single_class_copies``) as this function returned
    them before it took every method.

    Parameters
    ----------
    learners, X_train, y_train, X_target, method, variant, metric, benefit, y_target, seed, random_state, n_jobs,
    pos_label, missing
        As for :func:`select`.

    Returns
    -------
    Selection
        :func:`select`'s result with the keys of its ``ranking`` also at the top level.

    Examples
    --------
    >>> import rarity
    >>> X, y = rarity.datasets.load("pima")
    >>> r = rarity.select.reverse_testing(["tree(max_depth=2)", "gnb"], X[:400], y[:400], X[400:])
    >>> sorted(r["order"]), r["method"] == rarity.select.DEFAULT_METHOD
    ([0, 1], True)
    """
    r = select(
        learners, X_train, y_train, X_target, method=method, variant=variant, metric=metric,
        benefit=benefit, y_target=y_target, seed=seed, random_state=random_state, n_jobs=n_jobs, pos_label=pos_label,
        missing=missing,
    )
    return Selection({**r["ranking"], **r})
