"""Data in: from what Python users hold to rarity's native tables.

- NumPy: a C-contiguous float64 array is read in place (no copy; do not
  write to it while a fit runs); float32 is converted once, in parallel;
  other numeric dtypes and layouts are converted by NumPy first.
- pandas, polars, pyarrow (anything with ``__arrow_c_stream__``) come
  through the Arrow C stream interface: one conversion in Rust, no Python
  loop over rows. Numeric columns stay numbers; string, categorical and
  boolean columns are one-hot encoded as ``rarity --categorical one-hot``
  encodes a CSV (levels sorted, features named ``column=level``). Without
  pyarrow, a pandas frame is handed over column by column.
- ``categorical_features=`` (scikit-learn's spelling) reads columns as
  categorical features instead, as ``--categorical native`` and
  ``--categorical-cols`` read a file's: one feature of level codes per
  column, no limit on the levels. Levels are ordered by text (numbers as
  rarity writes them), as the readers order them, so a frame and a file of
  the same data give the same model; an ordered pandas category, a polars
  ``Enum`` or an ordered Arrow dictionary keeps its declared order. The
  schema keeps the level texts: predicting, values are mapped by text (the
  frame's own codes and category order do not matter), and a missing value
  or a level not seen in training is NaN, which every categorical split
  sends right (a split's left set holds levels seen in training only).
- Lists of rows are checked for ragged rows by the library.

Labels are ordered into classes by the library's rule (numeric labels
numerically, others as text; for two classes the positive class is the
minority unless ``pos_label`` names one), so the same data give the same
classes and probabilities from Python and from the command line. Every bad
input raises ``ValueError`` with the library's message.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from . import _rarity
from ._base import DataConversionWarning


class NotANumberError(ValueError, TypeError):
    """A value of ``X`` is not a number (a ``ValueError``, and a ``TypeError`` as
    NumPy raises for such elements)."""


def _is_pandas_frame(X):
    return type(X).__module__.startswith("pandas") and hasattr(X, "iloc") and hasattr(X, "columns")


def _is_polars_frame(X):
    return type(X).__module__.startswith("polars") and hasattr(X, "columns") and hasattr(X, "schema")


def _is_series(y):
    mod = type(y).__module__
    return (mod.startswith("pandas") or mod.startswith("polars")) and not hasattr(y, "columns")


def _check_sparse(X):
    if hasattr(X, "tocsr") or hasattr(X, "sparse") and type(X).__module__.startswith("scipy"):
        raise ValueError(
            "sparse input is not supported: rarity reads dense data; convert X with "
            "X.toarray() (and mind the memory)"
        )


def _pandas_features(X, n_jobs):
    try:
        import pyarrow as pa
    except ImportError:
        pa = None
    if pa is not None:
        try:
            table = pa.Table.from_pandas(X, preserve_index=False)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as e:
            raise ValueError(f"X cannot be read as a table: {e}") from None
        return _rarity.Features.from_arrow(table)
    # Column by column: numbers as float64, anything else as text.
    cols = []
    for name in X.columns:
        s = X[name]
        kind = getattr(s.dtype, "kind", "O")
        if str(s.dtype).startswith("category"):
            # A category of numbers reads as its numbers (as through Arrow).
            kind = "f" if s.cat.categories.dtype.kind in "iuf" else "O"
        if kind in "iuf":
            cols.append((str(name), np.ascontiguousarray(s.to_numpy(dtype=np.float64, na_value=np.nan))))
        else:
            vals = s.astype(object).where(s.notna(), None).tolist()
            cols.append((str(name), [None if v is None else str(v) for v in vals]))
    return _rarity.Features.from_columns(cols)


def _array_features(X, n_jobs, text=False):
    if X.ndim == 2 and X.shape[1] == 0:
        # scikit-learn's wording (its estimator checks match it).
        raise ValueError(f"0 feature(s) (shape={X.shape}) while a minimum of 1 is required.")
    if X.dtype.kind == "c":
        raise ValueError(f"Complex data not supported: X has dtype {X.dtype}; rarity reads real numbers")
    if X.dtype.kind in "OUS":
        try:
            X = X.astype(np.float64)
        except (TypeError, ValueError) as e:
            if text and X.ndim == 2:
                return _object_columns(X)
            raise NotANumberError(f"X holds values that are not numbers: {e}") from None
    if X.dtype not in (np.float64, np.float32):
        X = X.astype(np.float64)
    if not X.flags.c_contiguous:
        X = np.ascontiguousarray(X)
    return _rarity.Features.from_numpy(X, None, n_jobs)


def _object_columns(X):
    """The columns of a 2-d object (or text) array holding text: each a
    column of numbers when all its values are numbers, else of text (None
    for a missing value), named as an array's columns are named."""
    cols = []
    for j in range(X.shape[1]):
        col = X[:, j]
        try:
            cols.append((f"x{j}", np.ascontiguousarray(col.astype(np.float64))))
            continue
        except (TypeError, ValueError):
            pass
        values = col.tolist()
        odd = next((v for v in values if not isinstance(v, (str, bytes, numbers.Real)) and v is not None), None)
        if odd is not None:
            raise NotANumberError(
                f"X holds values that are neither numbers nor text (column {j}: {type(odd).__name__}); "
                "argument must be a string or a number"
            )
        cols.append((f"x{j}", [None if v is None or v != v else str(v) for v in values]))
    return _rarity.Features.from_columns(cols)


def features(X, n_jobs=None, categorical_features=None, text=False):
    """The native features of ``X`` and the names for ``feature_names_in_``.

    Returns ``(features, names)`` where ``names`` is an array of the column
    names when ``X`` is a table whose column names are all strings, else
    ``None``. ``categorical_features`` (as scikit-learn's
    ``HistGradientBoostingClassifier`` spells it: ``None``, ``"from_dtype"``,
    column names, indices or a boolean mask) names the columns read as
    categorical features, one feature of level codes each (see
    :func:`categorical_columns`). With ``text``, a 2-d object array may hold
    text columns, read as a table's are (the samplers' SMOTE-NC input);
    without, its values must be numbers.
    """
    feats, names = _features(X, n_jobs, text)
    if categorical_features is None:
        return feats, names
    cols = categorical_columns(X, feats.column_names, names is not None or _is_table(X), categorical_features)
    if cols:
        feats = feats.categorical(cols, [_declared_levels(X, j) for j in cols])
    return feats, names


def _is_table(X):
    return _is_pandas_frame(X) or _is_polars_frame(X) or hasattr(X, "__arrow_c_stream__")


def categorical_columns(X, columns, named, spec):
    """The positions of the columns ``spec`` declares categorical.

    ``spec`` is ``"from_dtype"`` (pandas ``category``, polars
    ``Categorical`` / ``Enum`` and Arrow dictionary columns), a list of
    column names (``X`` a table), of indices, or a boolean mask over the
    columns; ``columns`` are ``X``'s column names.
    """
    n = len(columns)
    if isinstance(spec, str):
        if spec != "from_dtype":
            raise ValueError(
                f"categorical_features={spec!r} is invalid; expected None, 'from_dtype', a list "
                "of column names or indices, or a boolean mask"
            )
        return [j for j, c in enumerate(_categorical_dtypes(X, n)) if c]
    arr = np.asarray(spec)
    if arr.ndim != 1:
        raise ValueError(f"categorical_features must be 1-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        return []
    if arr.dtype.kind == "b":
        if arr.size != n:
            raise ValueError(
                f"categorical_features is a mask of {arr.size} values, but X has {n} columns"
            )
        return np.flatnonzero(arr).tolist()
    if arr.dtype.kind in "iu":
        bad = [int(j) for j in arr if not 0 <= j < n]
        if bad:
            raise ValueError(
                f"categorical_features has indices {bad} out of range: X has {n} columns (0 to {n - 1})"
            )
        return sorted(set(int(j) for j in arr))
    if arr.dtype.kind in "UO" and all(isinstance(c, str) for c in spec):
        if not named:
            raise ValueError(
                "categorical_features names columns, but X has no column names; give "
                "column indices or a boolean mask"
            )
        unknown = [c for c in spec if c not in columns]
        if unknown:
            raise ValueError(
                f"categorical_features names columns not in X: {unknown}; X has {list(columns)}"
            )
        return sorted(columns.index(c) for c in set(spec))
    raise ValueError(
        f"categorical_features={spec!r} is invalid; expected None, 'from_dtype', a list of "
        "column names or indices, or a boolean mask"
    )


def _categorical_dtypes(X, n):
    """Per column of ``X``, whether its dtype is categorical."""
    if _is_pandas_frame(X):
        import pandas as pd

        return [isinstance(dt, pd.CategoricalDtype) for dt in X.dtypes]
    if _is_polars_frame(X):
        import polars as pl

        return [dt.base_type() in (pl.Categorical, pl.Enum) for dt in X.schema.values()]
    schema = getattr(X, "schema", None)
    if schema is not None and type(X).__module__.startswith("pyarrow"):
        import pyarrow as pa

        return [pa.types.is_dictionary(f.type) for f in schema]
    return [False] * n


def _declared_levels(X, j):
    """The declared order of categorical column ``j``'s levels (an ordered
    pandas category, a polars ``Enum``, an ordered Arrow dictionary), or
    ``None``: the levels are then sorted by text, as the readers sort a
    file's."""
    if _is_pandas_frame(X):
        dt = X.dtypes.iloc[j]
        if getattr(dt, "ordered", False):
            return _level_values(dt.categories.tolist())
        return None
    if _is_polars_frame(X):
        import polars as pl

        dt = list(X.schema.values())[j]
        return dt.categories.to_list() if isinstance(dt, pl.Enum) else None
    schema = getattr(X, "schema", None)
    if schema is not None and type(X).__module__.startswith("pyarrow"):
        t = schema.field(j).type
        if getattr(t, "ordered", False):
            col = X.unify_dictionaries().column(j) if hasattr(X, "unify_dictionaries") else X.column(j)
            chunks = getattr(col, "chunks", [col])
            return _level_values(chunks[0].dictionary.to_pylist()) if chunks else None
    return None


def _level_values(cats):
    """Declared categories as the native layer takes them: numbers as
    numbers (written as rarity writes them), anything else as text."""
    if cats and all(isinstance(c, numbers.Real) and not isinstance(c, bool) for c in cats):
        return [float(c) for c in cats]
    return [str(c) for c in cats]


def _features(X, n_jobs, text=False):
    if (
        type(X) is np.ndarray
        and X.ndim == 2
        and X.shape[1] > 0
        and X.dtype == np.float64
        and X.flags.c_contiguous
    ):
        # The common case first (a one-row prediction pays every check
        # below): read in place, as the general path reads it.
        return _rarity.Features.from_numpy(X, None, n_jobs), None
    if X is None:
        raise ValueError("X is None; expected a 2-d array or a table of features")
    _check_sparse(X)
    names = None
    if _is_pandas_frame(X):
        if any(hasattr(dt, "sparse") or str(dt).startswith("Sparse") for dt in X.dtypes):
            raise ValueError("sparse input is not supported: convert X with X.sparse.to_dense()")
        cols = list(X.columns)
        if cols and all(isinstance(c, str) for c in cols):
            names = np.asarray(cols, dtype=object)
        return _pandas_features(X, n_jobs), names
    if hasattr(X, "__arrow_c_stream__"):
        f = _rarity.Features.from_arrow(X)
        return f, np.asarray(f.column_names, dtype=object)
    if isinstance(X, np.ndarray):
        return _array_features(X, n_jobs, text), None
    if isinstance(X, (list, tuple)):
        try:
            arr = np.asarray(X)
        except ValueError:
            arr = None  # ragged: the library says which row
        if arr is not None and arr.ndim == 2 and arr.dtype.kind in "biuf":
            return _array_features(arr, n_jobs), None
        if arr is not None and arr.ndim != 2 and arr.dtype != object:
            return _array_features(arr, n_jobs), None
        try:
            return _rarity.Features.from_rows([list(r) for r in X]), None
        except TypeError as e:
            raise NotANumberError(f"X holds values that are not numbers: {e}") from None
    if hasattr(X, "__array__"):
        return _array_features(np.asarray(X), n_jobs), None
    raise ValueError(
        f"X is a {type(X).__name__}; expected a NumPy array, a list of rows, or a "
        "pandas / polars / pyarrow table"
    )


def check_n_features(est, X):
    """Raises scikit-learn's ``ValueError`` when ``X``, an array or a list of
    rows (a table is matched by column names instead), has another number of
    columns than ``est`` was fitted on; warns as scikit-learn does when ``X``
    has no column names and ``est`` was fitted on a table with them, or the
    other way round (the columns are then matched by position, or by name)."""
    named = X is not None and (_is_pandas_frame(X) or _is_polars_frame(X) or hasattr(X, "__arrow_c_stream__"))
    fitted_named = hasattr(est, "feature_names_in_")
    if X is not None and named != fitted_named:

        what = (
            f"X does not have valid feature names, but {type(est).__name__} was fitted with feature names"
            if fitted_named
            else f"X has feature names, but {type(est).__name__} was fitted without feature names"
        )
        warnings.warn(what, UserWarning, stacklevel=4)
    if X is None or named:
        return
    shape = getattr(X, "shape", None)
    if shape is None and isinstance(X, (list, tuple)) and X and isinstance(X[0], (list, tuple, np.ndarray)):
        shape = (len(X), len(X[0]))
    if shape is None or len(shape) != 2:
        return
    if shape[1] != est.n_features_in_:
        raise ValueError(
            f"X has {shape[1]} features, but {type(est).__name__} is expecting "
            f"{est.n_features_in_} features as input."
        )


def n_columns(X):
    """Number of source columns of ``X`` (for ``n_features_in_``)."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) == 2:
        return int(shape[1])
    if hasattr(X, "column_names"):
        return len(X.column_names)
    return len(X[0]) if len(X) else 0


class Labels:
    """Labels of ``y`` ordered into classes.

    Attributes
    ----------
    classes_ : ndarray
        The distinct labels, sorted (scikit-learn's order).
    codes : ndarray of uint32
        rarity's class id of every row.
    class_names : list of str
        rarity's class names (class ``k`` is ``class_names[k]``).
    to_rarity : ndarray of int
        rarity's class id of each entry of ``classes_``.
    from_rarity : ndarray of int
        The position in ``classes_`` of each rarity class id.
    """

    def __init__(self, classes, inverse, positive=None):
        names = [_label_text(c) for c in classes.tolist()]
        counts = np.bincount(inverse, minlength=len(classes)).tolist()
        pos = None if positive is None else _label_text(positive)
        class_names, to_rarity = _rarity.assign_labels(names, counts, pos)
        self.classes_ = classes
        self.class_names = class_names
        self.to_rarity = np.asarray(to_rarity, dtype=np.int64)
        self.from_rarity = np.argsort(self.to_rarity)
        self.codes = self.to_rarity[inverse].astype(np.uint32)

    @property
    def positive(self):
        """The label of rarity's positive class (class 1) of a binary task."""
        return self.classes_[self.from_rarity[1]] if len(self.classes_) == 2 else None


def _label_text(v):
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, numbers.Integral):
        return str(int(v))
    return str(v)


def target(y, estimator_name="This estimator"):
    """``y`` as a 1-d NumPy array of labels, with scikit-learn's checks."""
    if y is None:
        raise ValueError(
            f"{estimator_name} requires y to be passed, but the target y is None"
        )
    if _is_series(y):
        y = y.to_numpy()
    elif hasattr(y, "to_numpy") and hasattr(y, "columns"):
        y = y.to_numpy()
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected. Please change "
            "the shape of y to (n_samples, ), for example using ravel().",
            DataConversionWarning,
            stacklevel=3,
        )
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(
            f"y should be a 1d array, got an array of shape {y.shape} instead; "
            "multilabel and multioutput targets are not supported"
        )
    if y.dtype.kind == "f":
        if np.isnan(y).any() or np.isinf(y).any():
            raise ValueError("y holds NaN or infinite values; every row needs a class label")
        if np.any(y != np.round(y)):
            raise ValueError(
                "Unknown label type: continuous. rarity classifies: y must hold class "
                "labels (integers or text), not real numbers"
            )
    if y.dtype.kind == "c":
        raise ValueError("Complex data not supported: y must hold class labels")
    return y


#: The class code of a row whose label is missing (the native layer drops or
#: refuses such rows under the missing-value policy).
NO_LABEL = np.uint32(2**32 - 1)


def labels(y, positive=None, estimator_name="This estimator", allow_missing=False):
    """The :class:`Labels` of ``y``. With ``allow_missing``, a missing label
    (``None``, NaN, pandas' ``NA``) is not an error: its row's code is
    :data:`NO_LABEL`, which the native data drops and counts (or refuses
    with ``missing='error'``), as the readers drop a row missing its label."""
    missing = _missing_labels(y) if allow_missing else None
    if missing is not None and missing.any():
        if missing.all():
            raise ValueError("every label of y is missing; every row to fit on needs a class label")
        y = _label_array(y)
        present = labels(y[~missing], positive, estimator_name)
        codes = np.full(len(y), NO_LABEL, dtype=np.uint32)
        codes[~missing] = present.codes
        present.codes = codes
        return present
    y = target(y, estimator_name)
    try:
        classes, inverse = _unique_inverse(y)
    except TypeError as e:
        raise ValueError(f"y mixes labels that cannot be ordered: {e}") from None
    return Labels(classes, inverse.ravel(), positive)


def _label_array(y):
    """``y`` (a list, array or pandas / polars series) as a NumPy array."""
    if _is_series(y) or (hasattr(y, "to_numpy") and hasattr(y, "columns")):
        y = y.to_numpy()
    return np.asarray(y)


def _missing_labels(y):
    """Per row, whether ``y``'s label is missing (``None``, NaN, ``pd.NA``),
    or ``None`` when ``y`` cannot hold one."""
    a = _label_array(y)
    if a.ndim != 1:
        return None
    if a.dtype.kind == "f":
        return np.isnan(a)
    if a.dtype.kind == "O":
        return np.array([v is None or (isinstance(v, float) and v != v) or str(v) == "<NA>" for v in a])
    return None


def _unique_inverse(y):
    """``np.unique(y, return_inverse=True)``; for integers spanning no more
    values than there are labels, in one counting pass instead of a sort."""
    if y.dtype.kind in "iu" and y.ndim == 1 and y.size:
        lo, hi = int(y.min()), int(y.max())
        span = hi - lo + 1
        if span <= max(y.size, 1024):
            # Offsets from the smallest label, in a type that holds them.
            if y.dtype.kind == "i":
                shifted = (y.astype(np.int64, copy=False) - lo).astype(np.intp, copy=False)
            else:
                shifted = (y - y.dtype.type(lo)).astype(np.intp, copy=False)
            present = np.flatnonzero(np.bincount(shifted, minlength=span))
            table = np.zeros(span, dtype=np.intp)
            table[present] = np.arange(present.size)
            if y.dtype.kind == "i":
                classes = (present.astype(np.int64) + lo).astype(y.dtype)
            else:
                classes = present.astype(y.dtype) + y.dtype.type(lo)
            return classes, table[shifted]
    return np.unique(y, return_inverse=True)


def sample_weight(w, n):
    """Row weights as a float64 array of ``n`` values (``None`` stays ``None``)."""
    if w is None:
        return None
    if isinstance(w, numbers.Number):
        return np.full(n, float(w))
    w = np.asarray(w, dtype=np.float64)
    if w.ndim != 1:
        raise ValueError(f"sample_weight must be 1-dimensional, got shape {w.shape}")
    if w.shape[0] != n:
        raise ValueError(f"{w.shape[0]} weights given for {n} rows")
    return np.ascontiguousarray(w)


#: The doc of ``random_state`` where a function or class takes ``seed``.
RANDOM_STATE_DOC = (
    "random_state : int, default=None\n"
    "    scikit-learn's name for ``seed``, an alias: when given, it is the seed."
)


def seed_of(seed, random_state=None):
    """The seed of a job or fit: ``random_state`` (scikit-learn's name, an
    alias) when given, else ``seed``; ``None`` is 42 (rarity is
    deterministic by default), a ``numpy.random.RandomState`` gives a draw
    of it (as scikit-learn takes one); otherwise a non-negative integer
    below 2**64, else a ``ValueError`` naming the parameter."""
    name = "seed"
    if random_state is not None:
        seed, name = random_state, "random_state"
    if seed is None:
        return 42
    if isinstance(seed, np.random.RandomState):
        return int(seed.randint(0, 2**31 - 1))
    bad = ValueError(f"{name}={seed!r} is invalid; expected a non-negative integer below 2**64")
    if isinstance(seed, (bool, np.bool_)):
        raise bad
    try:
        s = int(seed)
    except (TypeError, ValueError, OverflowError):
        raise bad from None
    if s < 0 or s != seed or s >= 2**64:
        raise bad
    return s


def cv_of(cv):
    """``cv`` as the native layer takes it (the command line's ``--cv``
    text): a string as it is, a whole number of folds (scikit-learn's
    ``cv=5``) as its digits; anything else is a ``ValueError``."""
    if isinstance(cv, str):
        return cv
    if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        return str(int(cv))
    raise ValueError(
        f"cv={cv!r} is invalid; expected a number of folds (5) or the command line's --cv text "
        "('10', '2x5', 'loo', 'holdout:0.3', 'time(col=COL, folds=5)', 'group(col=COL, folds=5)')"
    )


def n_jobs_of(n_jobs):
    """``n_jobs`` as the native layer takes it (``None`` or an int); the
    native layer refuses a count it cannot give (0, more than the cap, or
    below ``-cores``)."""
    if n_jobs is None:
        return None
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral):
        raise ValueError(f"n_jobs={n_jobs!r} is invalid; expected an integer or None")
    _rarity.threads_for(int(n_jobs))
    return int(n_jobs)
