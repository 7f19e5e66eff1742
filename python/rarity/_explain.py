""":func:`explain` and :func:`show`: what drives a fitted model and what it
is, the jobs of ``rarity explain`` and ``rarity show``.

Both call the library as the command line does (``rarity::explain``) and
keep its serialised result, so ``to_dict()`` equals the command's
``--format json`` output on the same model and rows.
"""

from __future__ import annotations

import copy

import numpy as np

from . import _html, _rarity
from . import _validation as V
from ._base import check_fitted
from ._classifier import _RarityClassifier
from ._declared import Job
from ._docs import sections
from ._run import _frame

DECLARED = Job("explain")
_D = DECLARED.defaults

__all__ = ["explain", "show", "Explanation", "ModelSummary"]


def _native(model, job):
    if not isinstance(model, _RarityClassifier):
        raise ValueError(
            f"{job} takes a fitted rarity estimator (Classifier, GradientBoosting or a named "
            f"ensemble), got {type(model).__name__}"
        )
    check_fitted(model)
    return model.model_


class Explanation:
    """What :func:`explain` found: the ``rarity explain --format json`` object.

    Attributes
    ----------
    spec : str
        The model's strategy.
    metric : str
        The metric whose drop measures importance.
    higher_is_better : bool
        Whether larger values of the metric are better.
    baseline : float
        The metric on the rows as given.
    repeats : int
        Shuffles per column.
    rows : int
        Rows scored.
    permutation : pandas.DataFrame, polars.DataFrame or list of dict
        Per source column, most important first: ``feature``,
        ``importance`` (mean drop of the metric) and ``std`` over the repeats.
    split_gain : pandas.DataFrame, polars.DataFrame, list of dict or None
        Per encoded feature, most important first: ``feature``, its
        ``importance`` (share of the split gain) and ``std`` over the
        ensemble's members; ``None`` for models without splits.
    """

    def __init__(self, raw):
        self._raw = raw
        for key in ("spec", "metric", "higher_is_better", "baseline", "repeats", "rows"):
            setattr(self, key, raw[key])
        self.permutation = _frame(
            [{"feature": f["feature"], "importance": f["importance"], "std": f["std"]} for f in raw["permutation"]]
        )
        g = raw["split_gain"]
        self.split_gain = None if g is None else _frame(
            [{"feature": f, "importance": v, "std": s} for f, v, s in g["features"]]
        )

    def to_dict(self):
        """The result as ``rarity explain --format json`` prints it.

        Returns
        -------
        dict
        """
        return copy.deepcopy(self._raw)

    def _repr_html_(self):
        r = self._raw
        moves = "drop" if r["higher_is_better"] else "rise"
        parts = [
            _html.paragraph(
                f"{r['metric']} on {r['rows']} held-out rows: {r['baseline']:.4f}; permutation importance "
                f"({r['repeats']} shuffles per column, mean {moves} of the metric)"
            ),
            _html.table(
                ["feature", "importance", "std"],
                [[f["feature"], f["importance"], f["std"]] for f in r["permutation"]],
                "permutation importance",
            ),
        ]
        g = r["split_gain"]
        if g is not None and g["members"] > 1:
            parts.append(_html.table(
                ["feature", "share of the gain", "std"], g["features"],
                f"split-gain importance (std over {g['members']} members)",
            ))
        elif g is not None:
            # One model: no spread over members to show.
            parts.append(_html.table(
                ["feature", "share of the gain"], [f[:2] for f in g["features"]], "split-gain importance",
            ))
        return "".join(parts)

    def __repr__(self):
        top = self._raw["permutation"][0]["feature"] if self._raw["permutation"] else None
        return f"Explanation(metric={self.metric!r}, baseline={self.baseline:.4g}, top={top!r})"


class ModelSummary(dict):
    """A fitted model's summary: the ``rarity show --format json`` object, as
    a dict (``spec``, ``target``, ``columns``, ``features``, ``classes``,
    ``priors``, ``keep_rates``, ``correct``, ``shift``, ``decision``,
    ``threshold``, ``members``, ``training_rows``, ``fit_seconds``, and what
    the model file of ``save`` says about itself: ``format_version``,
    ``rarity_version``, ``encoding``, ``bytes`` and ``checksum``)."""

    def to_dict(self):
        """The summary as a plain dict.

        Returns
        -------
        dict
        """
        return copy.deepcopy(dict(self))

    def _repr_html_(self):
        return _html.model_summary(self)


@sections(declared=DECLARED.docs())
def explain(model, X, y, metric=_D["metric"], n_repeats=_D["n_repeats"], seed=42, n_jobs=None, random_state=None):
    """Permutation importance of every source column of a fitted model on
    held-out rows, with its split-gain importances (trees, forests, bagging,
    gbdt): ``rarity explain``.

    Each column is shuffled ``n_repeats`` times; its importance is the mean
    drop of the metric (of the model's own predictions and decisions).

    Parameters
    ----------
    model : fitted rarity estimator
        :class:`rarity.Classifier`, :class:`rarity.GradientBoosting` or a
        named ensemble.
    X : array-like of shape (n_samples, n_features) or table
        Held-out rows (a table is matched to the training columns by name).
    y : array-like of shape (n_samples,)
        Their labels (classes the model was fitted on).
    %(declared)s
    seed : int, default=42
        Seed of the shuffles (``rarity explain --seed``).
    n_jobs : int, default=None
        Threads: ``None`` or ``-1`` every core.
    random_state : int, default=None
        scikit-learn's name for ``seed``, an alias: when given, it is the seed.

    Returns
    -------
    Explanation
        The importance of every source column (and the split gains of
        tree-based models).

    Examples
    --------
    >>> import rarity
    >>> X, y = rarity.datasets.load("glass6")
    >>> m = rarity.GradientBoosting(max_iter=20).fit(X, y)
    >>> e = rarity.explain(m, X, y, metric="roc_auc", n_repeats=2)
    >>> e.metric, len(e.to_dict()["permutation"]) == X.shape[1]
    ('roc_auc', True)
    """
    native = _native(model, "explain")
    if not isinstance(metric, str):
        raise ValueError(f"metric={metric!r} is invalid; expected a metric name such as 'roc_auc'")
    params = DECLARED.texts(dict(metric=metric, n_repeats=n_repeats))
    feats = model._features(X)
    codes = _codes(model, y, feats.n_rows_)
    raw = _rarity.explain(native, feats, codes, params, V.seed_of(seed, random_state), V.n_jobs_of(n_jobs))
    return Explanation(raw)


def _codes(model, y, n_rows):
    """rarity's class ids of the labels ``y`` (the model's class order)."""
    y = V.target(y, "explain")
    if y.shape[0] != n_rows:
        raise ValueError(f"X has {n_rows} rows but y has {y.shape[0]} labels")
    classes = model.classes_
    try:
        pos = np.searchsorted(classes, y)
    except TypeError:
        raise ValueError(f"y's labels cannot be compared with the model's classes {classes.tolist()!r}") from None
    pos = np.minimum(pos, len(classes) - 1)
    unknown = classes[pos] != y
    if np.any(unknown):
        bad = y[np.flatnonzero(unknown)[0]]
        raise ValueError(f"y has the label {bad!r}, not a class of the model {classes.tolist()!r}")
    return model._to_rarity[pos].astype(np.uint32)


def show(model):
    """The summary of a fitted model: ``rarity show``.

    Parameters
    ----------
    model : fitted rarity estimator

    Returns
    -------
    ModelSummary
        A dict equal to ``rarity show --format json`` of the model file
        ``model.save(path)`` writes.

    Examples
    --------
    >>> import rarity
    >>> X, y = rarity.datasets.load("ecoli4")
    >>> s = rarity.show(rarity.Classifier("forest(n=5)").fit(X, y))
    >>> s["spec"], s["members"][0]["size"]
    ('forest(n=5)', 5)
    """
    return ModelSummary(_rarity.show(_native(model, "show")))
