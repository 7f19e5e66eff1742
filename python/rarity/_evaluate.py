"""``rarity.evaluate``: the cross-validated metrics of one strategy, as
``rarity evaluate`` computes and prints them (the same library request and
call, ``rarity::job::evaluate``), with the out-of-fold predictions on request.
"""

from __future__ import annotations

import numpy as np

from . import _html, _rarity, _rendered
from . import _validation as V
from ._docs import sections
from ._run import CATEGORICAL_PARAMS, MISSING_PARAMS, READ_PARAMS, _data, _frame, _missing

__all__ = ["evaluate", "EvaluateResult"]


class EvaluateResult:
    """What :func:`evaluate` found.

    Attributes
    ----------
    metrics : dict
        Per metric its ``mean`` and ``std`` over folds (or over repeats of
        pooled predictions), and ``full_potential`` for thresholded metrics of
        binary tasks; None where the rows leave a metric undefined.
    oof : pandas.DataFrame, polars.DataFrame, dict or None
        With ``oof=True``, the out-of-fold predictions as ``rarity evaluate
        --oof FILE`` writes them: ``row``, ``repeat``, ``fold``, ``strategy``,
        ``truth``, ``p_<class>`` and ``label`` (class names); else None.
    """

    def __init__(self, native, source, class_names):
        self._native = native
        self._source = source
        self.metrics = self.to_dict()["metrics"]
        self.oof = None
        parts = native.oof()
        if parts is not None:
            row, repeat, fold, truth, proba, label = parts
            names = np.asarray(class_names, dtype=object)
            cols = {"row": row, "repeat": repeat, "fold": fold,
                    "strategy": np.full(len(row), self.to_dict()["model"], dtype=object),
                    "truth": names[truth]}
            cols.update({f"p_{c}": proba[:, k] for k, c in enumerate(class_names)})
            cols["label"] = names[label]
            self.oof = _frame(cols)

    def __getstate__(self):
        return _rendered.state(self, self._source)

    def to_dict(self):
        """The outcome as ``rarity evaluate --format json`` prints it.

        Returns
        -------
        dict
        """
        return self._native.to_json(self._source)

    def to_text(self):
        """The outcome as ``rarity evaluate`` prints it.

        Returns
        -------
        str
        """
        return self._native.to_text(self._source)

    def _repr_html_(self):
        d = self.to_dict()
        order = d.get("metric_order") or list(d["metrics"])
        rows = []
        for k in order:
            v = d["metrics"][k]
            row = {"metric": k, "mean": v.get("mean"), "std": v.get("std")}
            if v.get("full_potential") is not None:
                row["full_potential"] = v["full_potential"]
            rows.append(row)
        if any("full_potential" in r for r in rows):
            for r in rows:
                r.setdefault("full_potential", None)
        return _html.records(rows, f"{d['model']}, cv {d['cv']}")

    def __repr__(self):
        d = self.to_dict()
        return f"EvaluateResult(model={d['model']!r}, cv={d['cv']!r}, folds={d['folds']})"


@sections(categorical=CATEGORICAL_PARAMS, missing=MISSING_PARAMS, read=READ_PARAMS)
def evaluate(
    data, target=None, *, model, cv="10", pooled=False, metrics=None, oof=False, pos_label=None,
    seed=42, random_state=None, n_jobs=None, categorical="error", categorical_cols=None, missing="auto",
    delimiter=",", decimal=".", header=True, drop=None, drop_constant=False,
):
    """Cross-validates one strategy, as ``rarity evaluate`` does.

    Parameters
    ----------
    data : table, path or (X, y)
        A pandas / polars / pyarrow table holding the target column, a data
        file (read as the command line reads it), or a pair ``(X, y)``.
    target : str or int, default=None
        The target column (name or 0-based index); default: the last.
    model : str
        The strategy, e.g. ``"bagging(n=100)+threshold(priors)"``.
    cv : str or int, default="10"
        K folds, ``RxK`` repeated, ``loo``, ``time(col=COL, folds=5)`` or
        ``group(col=COL, folds=5)``.
    pooled : bool, default=False
        Compute every metric once on each repeat's pooled out-of-fold
        predictions instead of averaging per-fold values (always with ``loo``).
    metrics : list of str, default=None
        Metrics to add (``"precision_at_k(k=100)"``, ...).
    oof : bool, default=False
        Keep the out-of-fold predictions (``EvaluateResult.oof``), as
        ``rarity evaluate --oof FILE`` writes them.
    pos_label : label, default=None
    seed : int, default=42
    random_state : int, default=None
        scikit-learn's name for ``seed``, an alias: when given, it is the seed.
    n_jobs : int, default=None
    %(categorical)s
    %(missing)s
    %(read)s

    Returns
    -------
    EvaluateResult
        The metrics over folds and, with ``oof=True``, the out-of-fold
        predictions.

    Examples
    --------
    >>> import rarity
    >>> X, y = rarity.datasets.load("ecoli4")
    >>> r = rarity.evaluate((X, y), model="under+forest(n=10)+correct", cv="3", oof=True)
    >>> r.to_dict()["folds"], len(r.oof) == len(y)
    (3, True)
    """
    n_jobs = V.n_jobs_of(n_jobs)
    cv = V.cv_of(cv)
    seed = V.seed_of(seed, random_state)
    policy = _missing(missing, "strategies", [str(model)])
    native_data, source, _ = _data(
        data, target, pos_label, n_jobs, cv, categorical, categorical_cols, policy, "rarity.evaluate",
        dict(delimiter=delimiter, decimal=decimal, header=header, drop=drop, drop_constant=drop_constant),
    )
    native = _rarity.evaluate_job(
        native_data, str(model), cv, bool(pooled), list(metrics or []), bool(oof), seed, n_jobs,
    )
    return EvaluateResult(native, source, list(native_data.class_names))
