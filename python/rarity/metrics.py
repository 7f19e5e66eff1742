"""Every metric of ``rarity score``, with the same values (rarity's metric
catalogue, checked against scikit-learn 1.9 where it has the metric).

:func:`score` returns them all; each key is also a function here
(:func:`roc_auc`, :func:`average_precision`, :func:`brier`, :func:`g_mean`,
...), generated from the catalogue. Binary scores are the probability of the
positive class (1-d), which is ``pos_label`` if given, else ``1`` if
present, else the last label in sorted order (``rarity score``'s rule; when
``y_true`` holds one label, the positive class may be absent: ``pos_label``,
else ``1`` when that label is ``0`` or ``-1``, as scikit-learn does, else a
``ValueError``); two
columns are the probabilities of the sorted labels (scikit-learn's
``classes_`` order). Thresholded metrics decide positive iff ``p >=
threshold`` (or use ``y_pred``); beyond two classes, the argmax.
"""

from __future__ import annotations

import numpy as np

from . import _rarity, _spec
from ._validation import _label_text

__all__ = ["score", "keys"]


#: How far from 1 a row of probabilities may sum (the library's tolerance).
_ROW_SUM_TOLERANCE = 1e-6


def _check_probabilities(p):
    """Raises ``ValueError`` quoting the first value of ``y_score`` that is not
    a probability (its index counted from 0, as Python counts), or the first
    row of 2-d scores that does not sum to 1."""
    bad = np.argwhere(~((p >= 0.0) & (p <= 1.0)))
    if bad.size:
        at = tuple(int(i) for i in bad[0])
        where = ", ".join(map(str, at))
        raise ValueError(f"y_score[{where}] = {float(p[at])!r} is not a probability in [0, 1]")
    if p.ndim == 2:
        sums = p.sum(axis=1)
        off = np.flatnonzero(np.abs(sums - 1.0) > _ROW_SUM_TOLERANCE)
        if off.size:
            i = int(off[0])
            raise ValueError(
                f"y_score[{i}] sums to {float(sums[i])!r}, not 1 (tolerance {_ROW_SUM_TOLERANCE}); "
                "each row holds every class's probability"
            )


def _inputs(y_true, y_score, pos_label=None, labels=None, y_pred=None):
    y = np.asarray(y_true)
    if y.ndim != 1:
        raise ValueError(f"y_true must be 1-d; got shape {y.shape}")
    p = np.asarray(y_score, dtype=np.float64)
    if p.ndim in (1, 2):
        _check_probabilities(p)
    if p.ndim == 1:
        names = sorted({_label_text(v) for v in y.tolist()})
        if len(names) > 2:
            raise ValueError(
                f"one probability column but {len(names)} labels ({', '.join(names)}); "
                "give one column per class"
            )
        pos = _rarity.positive_label(names, None if pos_label is None else _label_text(pos_label))
        text = np.asarray([_label_text(v) for v in y.tolist()], dtype=object)
        truth = (text == pos).astype(np.uint32)
        proba = np.ascontiguousarray(np.column_stack([1.0 - p, p]))
        pred = None if y_pred is None else (
            np.asarray([_label_text(v) for v in np.asarray(y_pred).tolist()], dtype=object) == pos
        ).astype(np.uint32)
        return truth, proba, pred
    if p.ndim != 2:
        raise ValueError(f"y_score must be 1-d or 2-d; got shape {p.shape}")
    classes = np.unique(y) if labels is None else np.asarray(labels)
    if len(classes) != p.shape[1]:
        raise ValueError(f"{p.shape[1]} probability columns for {len(classes)} classes; give `labels`")
    order = np.argsort(classes, kind="stable")
    pos = np.searchsorted(classes[order], y)
    if np.any(pos >= len(classes)) or np.any(classes[order][np.minimum(pos, len(classes) - 1)] != y):
        raise ValueError("y_true holds a label without a probability column")
    truth = order[pos].astype(np.uint32)
    pred = None
    if y_pred is not None:
        yp = np.asarray(y_pred)
        pp = np.searchsorted(classes[order], yp)
        pred = order[np.minimum(pp, len(classes) - 1)].astype(np.uint32)
    return truth, np.ascontiguousarray(p), pred


def score(y_true, y_score, threshold=0.5, pos_label=None, y_pred=None, labels=None, metrics=()):
    """Every metric of ``rarity score``, as a dict in report order (the same
    library request and call as ``rarity score``).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_score : array-like of shape (n_samples,) or (n_samples, n_classes)
        The positive class's probability (binary) or every class's.
    threshold : float, default=0.5
        Binary labels: positive iff ``p >= threshold``.
    pos_label : label, default=None
        The positive class of 1-d scores.
    y_pred : array-like of shape (n_samples,), default=None
        Decided labels for the thresholded metrics (instead of the threshold).
    labels : array-like, default=None
        The classes of the columns of 2-d scores (default: the sorted labels).
    metrics : list of str, default=()
        Metrics added to the report (``rarity score --metric``): the alert
        budgets ``precision_at_k(k=K)``, ``recall_at_k(k=K)``,
        ``recall_at_alert_rate(rate=0.01)``, ``recall_at_precision(p=0.9)``,
        ``precision_at_recall(r=0.8)``.

    Returns
    -------
    dict
        ``{key: value}``; an undefined metric is NaN.

    Examples
    --------
    >>> import rarity
    >>> r = rarity.metrics.score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> r["roc_auc"], r["tpr"]
    (0.75, 0.5)
    """
    if isinstance(metrics, str) or not all(isinstance(m, str) for m in metrics):
        raise ValueError(f"metrics={metrics!r} is invalid; expected a list of metric names")
    truth, proba, pred = _inputs(y_true, y_score, pos_label, labels, y_pred)
    return dict(_rarity.score_report(truth, proba, float(threshold), pred, list(metrics)))


def keys():
    """The metric keys of ``rarity score`` (binary report order).

    Returns
    -------
    list of str
        The keys of :func:`score`'s result, in its order.

    Examples
    --------
    >>> import rarity
    >>> rarity.metrics.keys()[:3]
    ['roc_auc', 'average_precision', 'pr_auc_trapezoid']
    """
    return [m["key"] for m in _spec.registry("metrics") if m["needs"] != "settings"]


def _metric_function(m):
    key = m["key"]

    def f(y_true, y_score, threshold=0.5, pos_label=None, y_pred=None, labels=None):
        truth, proba, pred = _inputs(y_true, y_score, pos_label, labels, y_pred)
        return _rarity.metric_value(key, truth, proba, float(threshold), pred)

    tasks = " and ".join(t for t in ("binary", "multiclass") if m[t]) + " tasks"
    better = {"higher": "higher is better", "lower": "lower is better", "neither": "a property of the data"}[m["direction"]]
    f.__name__ = f.__qualname__ = key
    f.__module__ = __name__
    example = (
        "[0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.7]"
        if m["binary"]
        else "[0, 1, 2, 2, 1, 0], [[0.7, 0.2, 0.1], [0.2, 0.6, 0.2], [0.1, 0.2, 0.7], "
        "[0.3, 0.3, 0.4], [0.5, 0.4, 0.1], [0.6, 0.3, 0.1]]"
    )
    f.__doc__ = (
        f"{m['label']} ({better}; from the {m['needs']}; {tasks}).\n\n"
        "Parameters and conventions as :func:`score`.\n\n"
        "Returns\n-------\nfloat\n\n"
        "Examples\n--------\n>>> import rarity\n"
        f">>> v = rarity.metrics.{key}({example})\n"
        ">>> isinstance(v, float)\nTrue\n"
    )
    return f


for _m in _spec.registry("metrics"):
    if _m["needs"] != "settings":
        globals()[_m["key"]] = _metric_function(_m)
        __all__.append(_m["key"])
del _m
