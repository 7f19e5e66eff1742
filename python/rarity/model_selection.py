"""Cross-validation splitters on rarity's validation schemes, usable as
``cv=`` in scikit-learn (``cross_val_score``, ``cross_validate``,
``GridSearchCV``): the folds of the command line's ``--cv time(...)`` and
``--cv group(...)``, cut by the library itself.

- :class:`TimeSeriesFolds`: an expanding window in time. The rows, ordered
  by their time, are cut into ``n_splits + 1`` blocks of about equal size,
  never between rows of the same time; fold ``i`` tests block ``i + 1`` and
  trains on every block before it, never after (scikit-learn's
  ``TimeSeriesSplit`` when every time is distinct; Tashman 2000).
- :class:`GroupFolds`: no group on both sides; groups are dealt, largest
  first (ties in a seeded order), to the fold with the fewest rows
  (scikit-learn's ``GroupKFold``, with seeded ties).

The time or group of each row comes from ``groups`` (what scikit-learn
passes on: ``cross_val_score(..., groups=g)``, ``GridSearchCV.fit(X, y,
groups=g)``), else from the column ``col`` of ``X`` (a name for pandas,
polars and pyarrow tables, an index for arrays); :class:`TimeSeriesFolds`
without either takes the rows in their order. Unlike the command line,
which drops the column from the features unless ``keep=true``, the
estimator sees ``X`` as given.
"""

from __future__ import annotations

import numpy as np

from . import _rarity

__all__ = ["GroupFolds", "TimeSeriesFolds"]


def _column(X, col):
    """Column ``col`` of ``X`` as a NumPy array."""
    if hasattr(X, "column_names") and hasattr(X, "column"):  # pyarrow
        return np.asarray(X.column(col))
    if hasattr(X, "columns") and not isinstance(X, np.ndarray):  # pandas, polars
        return np.asarray(X[col])
    return np.asarray(X)[:, col]


def _numbers(values, what):
    """Times as float64: numbers as they are, datetimes as their integer ticks."""
    v = np.asarray(values)
    if np.issubdtype(v.dtype, np.datetime64) or np.issubdtype(v.dtype, np.timedelta64):
        return v.astype(np.int64).astype(np.float64)
    try:
        return np.ascontiguousarray(v, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be numbers or datetimes; got values of type {v.dtype}") from None


class _Folds:
    _scheme = ""

    def __init__(self, n_splits=5, *, col=None, seed=42):
        self.n_splits = n_splits
        self.col = col
        self.seed = seed

    def get_n_splits(self, X=None, y=None, groups=None):
        """The number of folds, ``n_splits``."""
        return self.n_splits

    def _values(self, X, groups):
        raise NotImplementedError

    def split(self, X, y=None, groups=None):
        """Yields ``(train, test)`` row indices per fold.

        Parameters
        ----------
        X : array-like or table
        y : array-like, default=None
            Labels; with them, a time fold whose training part lacks a class
            is an error.
        groups : array-like, default=None
            The time or group of each row (else the column ``col`` of ``X``).
        """
        n = len(X) if not hasattr(X, "num_rows") else X.num_rows
        values = self._values(X, groups)
        if len(values) != n:
            raise ValueError(f"{len(values)} {self._scheme} values for {n} rows")
        if y is None:
            labels, names = np.zeros(n, dtype=np.uint32), ["all"]
        else:
            classes, labels = np.unique(np.asarray(y), return_inverse=True)
            labels, names = labels.astype(np.uint32).ravel(), [str(c) for c in classes]
        if not isinstance(self.n_splits, (int, np.integer)) or isinstance(self.n_splits, bool):
            raise ValueError(f"n_splits must be an integer of at least 2, got {self.n_splits!r}")
        column = "groups" if groups is not None else ("row order" if self.col is None else str(self.col))
        folds = _rarity.column_folds(
            self._scheme, column, values, labels, names, int(self.n_splits), int(self.seed)
        )
        for train, test in folds:
            yield train.astype(np.intp), test.astype(np.intp)

    def get_params(self, deep=True):
        return {"n_splits": self.n_splits, "col": self.col, "seed": self.seed}

    def __repr__(self):
        return f"{type(self).__name__}(n_splits={self.n_splits!r}, col={self.col!r}, seed={self.seed!r})"


class TimeSeriesFolds(_Folds):
    """Expanding-window folds in time: each fold trains on every row before
    its test block, never after (``--cv time(col=COL, folds=N)``).

    Parameters
    ----------
    n_splits : int, default=5
        Test blocks (the first of ``n_splits + 1`` blocks only trains).
    col : str or int, default=None
        The time column of ``X`` when ``split`` gets no ``groups``; without
        either, the rows' order is their time.
    seed : int, default=42
        Unused (the folds follow the times); kept for a common signature.

    Examples
    --------
    >>> import numpy as np
    >>> from rarity.model_selection import TimeSeriesFolds
    >>> X = np.arange(24.0).reshape(12, 2)
    >>> [(len(tr), te.tolist()) for tr, te in TimeSeriesFolds(n_splits=3).split(X)]
    [(3, [3, 4, 5]), (6, [6, 7, 8]), (9, [9, 10, 11])]
    """

    _scheme = "time"

    def _values(self, X, groups):
        if groups is not None:
            return _numbers(groups, "times")
        if self.col is not None:
            return _numbers(_column(X, self.col), f"time column {self.col!r}")
        n = len(X) if not hasattr(X, "num_rows") else X.num_rows
        return np.arange(n, dtype=np.float64)


class GroupFolds(_Folds):
    """Folds that keep every group on one side (``--cv group(col=COL,
    folds=N)``).

    Parameters
    ----------
    n_splits : int, default=5
    col : str or int, default=None
        The group column of ``X`` when ``split`` gets no ``groups``.
    seed : int, default=42
        Orders groups of equal size before they are dealt.

    Examples
    --------
    >>> import numpy as np
    >>> from rarity.model_selection import GroupFolds
    >>> X, groups = np.zeros((8, 1)), ["a", "a", "b", "b", "b", "c", "d", "d"]
    >>> sorted(sorted({groups[i] for i in te}) for _, te in GroupFolds(n_splits=2).split(X, groups=groups))
    [['a', 'd'], ['b', 'c']]
    """

    _scheme = "group"

    def _values(self, X, groups):
        if groups is None and self.col is None:
            raise ValueError(
                "GroupFolds needs the groups: pass groups= (cross_val_score(..., groups=g)) "
                "or name the column with col="
            )
        values = np.asarray(groups if groups is not None else _column(X, self.col))
        _, codes = np.unique(values, return_inverse=True)
        return np.ascontiguousarray(codes.ravel(), dtype=np.float64)
