"""Samplers with imbalanced-learn's contract: ``fit_resample(X, y) -> (X_res, y_res)``.

Every rarity sampler is here, under imbalanced-learn's class name where one
exists (:class:`RandomUnderSampler`, :class:`RandomOverSampler`,
:class:`SMOTE`, :class:`BorderlineSMOTE`, :class:`ADASYN`,
:class:`TomekLinks`, :class:`EditedNearestNeighbours`,
:class:`CondensedNearestNeighbour`, :class:`OneSidedSelection`,
:class:`NeighbourhoodCleaningRule`, :class:`NearMiss`, :class:`SMOTETomek`,
:class:`SMOTEENN`) with imbalanced-learn's parameters and defaults, and under
a rarity name otherwise (:class:`ExactlyBalanced`, :class:`RoughlyBalanced`,
:class:`UnderOver`, :class:`BalancedBootstrap`, :class:`SMOTEUnder`,
:class:`Bootstrap`; their keyword arguments are the spec's parameters, read
from the library's sampler registry). :class:`Sampler` takes any spec.

They work as steps of ``imblearn.pipeline.Pipeline``. Each records, per
class, the rate at which the class was kept (``keep_rates_``: rows of the
class in the sample over rows in ``X``, what a model trained on the sample
needs to undo the prior shift, Dal Pozzolo et al. 2015, eq. 9) and, when it
selects rows, ``sample_indices_``.

A class carrying an imbalanced-learn name is a drop-in for it: with
imbalanced-learn's defaults, the deterministic ones keep the same rows
(checked against imbalanced-learn 0.14.2's test fixtures). Where the two
libraries' conventions differ, rarity's samplers have a parameter for each
and these classes set imbalanced-learn's: ENN's ``kind_sel="all"``
(``enn(rule=all)``) and its tie-breaking toward the smallest label
(``ties=lowest``); NCL's self-vote in the misclassification test
(``self_vote=true``) and its strict size test (``strict=true``). Random
samplers draw from rarity's generators, so their rows differ from
imbalanced-learn's for the same seed (same seed, same rows within rarity).
Rows come back in rarity's order (kept rows by index, then synthetic rows),
where imbalanced-learn orders some samplers' output class by class.
"""

from __future__ import annotations

import numbers

import numpy as np

from . import _imblearn, _rarity, _spec
from . import _validation as V
from ._base import BaseEstimator, check_fitted
from ._docs import sections

__all__ = [
    "Sampler",
    "RandomUnderSampler",
    "RandomOverSampler",
    "SMOTE",
    "BorderlineSMOTE",
    "ADASYN",
    "TomekLinks",
    "EditedNearestNeighbours",
    "CondensedNearestNeighbour",
    "OneSidedSelection",
    "NeighbourhoodCleaningRule",
    "NearMiss",
    "SMOTETomek",
    "SMOTEENN",
    "SMOTENC",
    "SMOTEN",
    "SVMSMOTE",
    "KMeansSMOTE",
    "AllKNN",
    "RepeatedEditedNearestNeighbours",
    "InstanceHardnessThreshold",
    "ClusterCentroids",
]

#: Every registry sampler by name (with whether it makes synthetic rows,
#: which have no ``sample_indices_``, and its Python class name).
_REGISTRY = {e["name"]: e for e in _spec.registry("samplers")}


def _synthesizes(spec):
    """Whether sampler ``spec`` makes synthetic rows (the registry's word;
    a spec that does not parse is judged by its name)."""
    try:
        return _rarity.sampler_synthesizes(spec)
    except ValueError:
        entry = _REGISTRY.get(spec.split("(")[0].strip())
        return bool(entry and entry["synthesizes"])


def _indicator(y):
    """``(labels, one_hot)``: a one-hot 2-d target as labels (imbalanced-learn
    accepts one-vs-all targets), else ``(y, False)``."""
    a = np.asarray(y) if not hasattr(y, "to_numpy") else None
    if a is None or a.ndim != 2 or a.shape[1] < 2:
        return y, False
    if a.dtype.kind in "biu" and np.all((a == 0) | (a == 1)) and np.all(a.sum(axis=1) == 1):
        return a.argmax(axis=1), True
    raise ValueError(
        "Multilabel and multioutput targets are not supported: y has shape "
        f"{a.shape}; give one class label per row"
    )


def _rows_of(X, rows):
    """Rows ``rows`` of ``X`` in ``X``'s own container."""
    fmt = _sparse_format(X)
    if fmt:
        return X[rows] if fmt in ("csr", "csc", "lil") else X.tocsr()[rows].asformat(fmt)
    if V._is_pandas_frame(X):
        return X.iloc[rows].reset_index(drop=True)
    if V._is_polars_frame(X):
        return X[rows]
    if hasattr(X, "take") and hasattr(X, "schema"):  # pyarrow
        return X.take(rows)
    if isinstance(X, (list, tuple)):
        return [list(X[i]) for i in rows]
    return np.asarray(X)[rows]


def _sparse_format(X):
    """``X``'s SciPy sparse format (``"csr"``, ``"csc"``...), or None."""
    if type(X).__module__.startswith("scipy") and hasattr(X, "tocsr"):
        return X.format
    return None


def _n_rows(X):
    """The rows of ``X`` (any container the samplers take)."""
    if hasattr(X, "shape"):
        return int(X.shape[0])
    if hasattr(X, "num_rows"):
        return int(X.num_rows)
    return len(X)


def _feature_names(X):
    """``feature_names_in_`` of a table whose column names are all strings, else None."""
    if V._is_pandas_frame(X) or V._is_polars_frame(X) or hasattr(X, "column_names"):
        names = _column_names(X)
        if all(isinstance(c, str) for c in names):
            return np.asarray(names, dtype=object)
    return None


def _n_columns(X):
    if hasattr(X, "shape") and len(X.shape) == 2:
        return int(X.shape[1])
    if hasattr(X, "column_names"):
        return len(X.column_names)
    return len(X[0]) if len(X) else 0


def _check_shape(X):
    """scikit-learn's checks of the shape of an ``X`` the sampler does not
    read: two dimensions, at least one row and one feature."""
    if X is None:
        raise ValueError("X is None; expected a 2-d array or a table of features")
    shape = getattr(X, "shape", None)
    if shape is None and isinstance(X, (list, tuple)):
        shape = np.shape(np.asarray(X, dtype=object)) if len(X) else (0,)
    if shape is not None:
        if len(shape) != 2:
            raise ValueError(
                f"Expected 2D array, got {len(shape)}D array instead: reshape your data, e.g. with "
                "X.reshape(-1, 1) for one feature or X.reshape(1, -1) for one row"
            )
        if shape[0] == 0:
            raise ValueError(f"Found array with 0 sample(s) (shape={tuple(shape)}) while a minimum of 1 is required.")
        if shape[1] == 0:
            raise ValueError(f"0 feature(s) (shape={tuple(shape)}) while a minimum of 1 is required.")


def _bools_as_numbers(X, cats):
    """A pandas ``X`` with its boolean columns not declared categorical
    read as numbers (0 and 1, as imbalanced-learn reads them), and its
    ``category`` columns of booleans as categories of their texts; the
    output keeps the dtypes (its values are copied from ``X``)."""
    if not V._is_pandas_frame(X):
        return X
    declared = set(cats) if isinstance(cats, (list, tuple)) else set()
    cast = {}
    for j, (c, dt) in enumerate(zip(X.columns, X.dtypes)):
        if getattr(dt, "kind", "O") == "b" and j not in declared:
            cast[c] = "float64"
        elif str(dt) == "category" and X[c].cat.categories.dtype.kind == "b":
            cast[c] = "str"
    out = X.astype(cast) if cast else X
    for c, t in cast.items():
        if t == "str":
            out[c] = out[c].astype("category")
    return out


def _check_finite(X, who):
    """Fails when ``X`` (the features a distance-based sampler reads) holds
    NaN or infinite numbers: imbalanced-learn refuses them for these
    samplers, and a distance to a missing value is undefined."""
    if V._is_pandas_frame(X):
        num = X.select_dtypes(include="number")
        bad = num.isna().to_numpy().any() or np.isinf(num.to_numpy(dtype=np.float64, na_value=np.nan)).any()
    elif isinstance(X, np.ndarray) and X.dtype.kind in "fc":
        bad = not np.isfinite(X).all()
    else:
        return
    if bad:
        raise ValueError(
            f"Input X contains NaN or infinity: {who} measures distances between rows, which a "
            "missing value leaves undefined; impute the missing values first (imbalanced-learn "
            "refuses them too)"
        )


def _table_like(X, values):
    """A new table of ``X``'s kind and columns holding ``values`` (numbers)."""
    cols = [str(c) for c in X.columns] if hasattr(X, "columns") else list(X.column_names)
    if V._is_pandas_frame(X):
        import pandas as pd

        out = pd.DataFrame(values, columns=X.columns)
        for c, dt in zip(X.columns, X.dtypes):
            if getattr(dt, "kind", "O") in "iuf":
                out[c] = out[c].astype(dt)
            elif getattr(dt, "kind", "O") == "b":
                out[c] = out[c] >= 0.5
        return out
    if V._is_polars_frame(X):
        import polars as pl

        out = pl.DataFrame(values, schema=cols, orient="row")
        return out.cast(dict(zip(X.columns, X.dtypes)))
    import pyarrow as pa

    return pa.table({c: values[:, j] for j, c in enumerate(cols)}).cast(X.schema)


def _resample_outputs(X, drawn, rows, lab, data, n_jobs):
    """``(X_res, ids)``: the features in the container and dtype of ``X``
    (the kept rows ``rows``, then the synthetic ones), and the resampled
    rows' class indices into ``lab.classes_``. A synthetic row's categorical
    values are real levels (SMOTE-NC's vote), copied from a row of ``X``
    that holds them, so they keep ``X``'s dtype (text, pandas ``category``,
    polars ``Categorical``, Arrow dictionary)."""
    kept_ids = lab.from_rarity[lab.codes[rows]] if len(rows) else np.zeros(0, dtype=np.int64)
    ids = np.concatenate([kept_ids, lab.from_rarity[drawn.labels()[len(rows):]]]).astype(np.int64)
    if drawn.n_synthetic == 0:
        return _rows_of(X, rows), ids
    values = drawn.features(n_jobs)
    cats, donors = drawn.level_rows() if data.has_categorical else ([], None)
    if cats:
        donors = np.asarray(donors).reshape(drawn.n_synthetic, len(cats))
    if isinstance(X, (np.ndarray, list, tuple)):
        X_res = _array_with_levels(X, values, rows, cats, donors)
    else:
        if list(data.feature_names) != [str(c) for c in _column_names(X)]:
            raise ValueError(
                "this sampler makes synthetic rows from numbers: a table with text columns not "
                "declared categorical cannot take them; declare them with categorical_features= "
                "or encode them first"
            )
        if cats:
            kept = _rows_of(X, rows)
            X_res = _concat(kept, _synthetic_table(X, values[len(rows):], dict(zip(cats, donors.T))))
        else:
            X_res = _table_like(X, values)
    return X_res, ids


def _array_with_levels(X, values, rows, cats, donors):
    """The resampled rows of an array or list ``X``: ``values``, with each
    categorical column copied from ``X`` (kept rows, then each synthetic
    row's level row), as ``X`` codes its levels."""
    if isinstance(X, np.ndarray) and not cats:
        return values.astype(X.dtype, copy=False) if X.dtype != np.float64 else values
    if not cats:
        return values.tolist()
    A = np.asarray(X, dtype=object) if isinstance(X, (list, tuple)) else X
    out = values.astype(A.dtype if A.dtype.kind in "biufO" else object)
    for k, j in enumerate(cats):
        out[:, j] = A[np.concatenate([rows, donors[:, k]]), j]
    return out.tolist() if isinstance(X, (list, tuple)) else out


def _column_names(X):
    """A table's column labels (a pyarrow table's ``columns`` are its arrays)."""
    return list(X.column_names) if hasattr(X, "column_names") else list(X.columns)


def _synthetic_table(X, values, donors):
    """The synthetic rows as a table of ``X``'s kind and columns: numbers
    from ``values``, and each categorical column ``j`` the values of ``X``'s
    column at the rows ``donors[j]``."""
    cols = _column_names(X)
    if V._is_pandas_frame(X):
        import pandas as pd

        out = {}
        for j, (c, dt) in enumerate(zip(cols, X.dtypes)):
            if j in donors:
                out[c] = X.iloc[:, j].iloc[donors[j]].reset_index(drop=True)
            else:
                v = pd.Series(values[:, j])
                kind = getattr(dt, "kind", "O")
                out[c] = v.astype(dt) if kind in "iuf" else (v >= 0.5) if kind == "b" else v
        return pd.DataFrame(out, columns=X.columns)
    if V._is_polars_frame(X):
        import polars as pl

        return pl.DataFrame([
            X[c].gather(donors[j]) if j in donors else pl.Series(c, values[:, j]).cast(X.schema[c])
            for j, c in enumerate(cols)
        ])
    import pyarrow as pa

    return pa.Table.from_arrays([
        X.column(j).take(donors[j]) if j in donors else pa.array(values[:, j]).cast(X.schema.field(j).type)
        for j in range(len(cols))
    ], schema=X.schema)


def _concat(a, b):
    """Table ``b`` below table ``a`` (same kind and columns)."""
    if V._is_pandas_frame(a):
        import pandas as pd

        return pd.concat([a, b], ignore_index=True)
    if V._is_polars_frame(a):
        import polars as pl

        return pl.concat([a, b])
    import pyarrow as pa

    return pa.concat_tables([a, b])


def _y_like(y, labels, one_hot):
    """``labels`` in the container and dtype of ``y``."""
    if one_hot:
        n = np.asarray(y).shape[1]
        out = np.zeros((len(labels), n), dtype=np.asarray(y).dtype)
        out[np.arange(len(labels)), labels.astype(int)] = 1
        return out
    if V._is_series(y):
        if type(y).__module__.startswith("pandas"):
            import pandas as pd

            return pd.Series(labels, name=y.name).astype(y.dtype)
        import polars as pl

        return pl.Series(y.name, labels).cast(y.dtype)
    if hasattr(y, "columns") and type(y).__module__.startswith("pandas"):
        import pandas as pd

        return pd.DataFrame(labels, columns=y.columns).astype(dict(zip(y.columns, y.dtypes)))
    if isinstance(y, (list, tuple)):
        return labels.tolist()
    a = np.asarray(y)
    if a.ndim == 2:
        return labels.astype(a.dtype, copy=False).reshape(-1, 1)
    return labels.astype(a.dtype, copy=False)


def _declared(names, example=None, cleans=False, **params):
    """A class decorator: the registry samplers ``names`` the class writes
    specs for (``registry_names``; the registry's first says whether it only
    selects rows) and an ``__init__`` taking the keyword parameters
    ``params``, with these defaults, as attributes (scikit-learn's
    ``get_params`` reads them from its signature).

    ``cleans``: the sampler cleans classes (its ``sampling_strategy`` names
    the classes cleaned, as imbalanced-learn's cleaning samplers read it).
    A ``%(strategy)s`` line of the
    docstring becomes the ``sampling_strategy`` (and ``random_state``)
    parameters. ``example``, ``(arguments, expression, value)``: the
    docstring ends with ``n_jobs`` and an example on ``ecoli4``: the class
    built with ``arguments`` resamples, then ``expression`` gives ``value``."""
    unknown = [n for n in names if n not in _REGISTRY]
    assert not unknown, f"not in the sampler registry: {unknown}"

    def declare(cls):
        cls.registry_names = tuple(names)
        extra = [] if "categorical_features" in params else [("categorical_features", None)]
        cls.__init__ = _spec.keyword_init([*params.items(), *extra])
        cls.__init__.__qualname__ = f"{cls.__name__}.__init__"
        _document(cls, example, cleans, "random_state" in params)
        return cls

    return declare


#: The ``categorical_features`` parameter, the same in every class.
_CATEGORICAL_DOC = (
    'categorical_features : None, "from_dtype", list or bool mask, default=None\n'
    "    Columns read as categorical (as :class:`rarity.Classifier` reads them): SMOTE-NC\n"
    "    (Chawla et al. 2002, section 6.1): neighbours are searched with a differing\n"
    "    level adding the median of the minority's numeric standard deviations, and a\n"
    "    synthetic row takes the level most frequent among its seed row and the seed's\n"
    "    neighbours, in ``X``'s dtype."
)

#: The ``sampling_strategy`` of the samplers that clean, and of the others.
_STRATEGY_DOC = {
    True: 'sampling_strategy : str, list or callable, default="auto"\n'
    "    The classes cleaned, as imbalanced-learn reads them: ``\"auto\"`` and\n"
    "    ``\"not minority\"`` every class but the minority, ``\"majority\"``,\n"
    "    ``\"not majority\"``, ``\"all\"``, a list of classes, or a callable of ``y``\n"
    "    returning a dict whose keys are the classes.",
    False: 'sampling_strategy : float, str, dict or callable, default="auto"\n'
    "    imbalanced-learn's: a word (``\"auto\"``, ``\"minority\"``, ``\"not minority\"``,\n"
    "    ``\"not majority\"``, ``\"all\"``; ``\"majority\"`` only when reducing), a float\n"
    "    (two classes: the minority/majority ratio wanted), a dict of each class's rows\n"
    "    wanted, or a callable of ``y`` returning that dict.",
}


def _document(cls, example, cleans, seeded):
    """Fills in the shared parts of an imbalanced-learn class's docstring
    (see :func:`_declared`)."""
    if "%(strategy)s" in (cls.__doc__ or ""):
        strategy = _STRATEGY_DOC[cleans] + "\n" + _CATEGORICAL_DOC
        if seeded:
            strategy += "\nrandom_state : int or None, default=None\n    The seed (``None``: 42)."
        sections(strategy=strategy)(cls)
    if example is None:
        return
    arguments, expression, value = example
    tail = [
        "n_jobs : int, default=None",
        "    Threads.",
        "",
        "Examples",
        "--------",
        ">>> import rarity",
        ">>> from rarity import sampling",
        '>>> X, y = rarity.datasets.load("ecoli4")',
        f">>> s = sampling.{cls.__name__}({arguments})",
        ">>> Xr, yr = s.fit_resample(X, y)",
        f">>> {expression}",
        value,
    ]
    cls.__doc__ = cls.__doc__.rstrip() + "\n" + "".join(f"    {t}\n" if t else "\n" for t in tail) + "    "


class _Base(BaseEstimator):
    """fit / fit_resample over a native sampler; subclasses give the spec."""

    #: The registry samplers a class writes specs for (its first says
    #: whether it only selects rows).
    registry_names = ()

    @property
    def _selects(self):
        """Whether the sampler only selects rows (``sample_indices_`` is set)."""
        return not _REGISTRY[self.registry_names[0]]["synthesizes"]

    def _spec(self, lab):  # pragma: no cover - overridden
        raise NotImplementedError

    def _seed(self):
        return V.seed_of(getattr(self, "seed", None), getattr(self, "random_state", None))

    def fit(self, X, y):
        """Resamples ``X`` and ``y`` once to set the fitted attributes; returns self."""
        self.fit_resample(X, y)
        return self

    def fit_resample(self, X, y):
        """Resamples ``X`` and ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or table
            A NumPy array, a list of rows, or a pandas / polars / pyarrow table.
        y : array-like of shape (n_samples,)
            Class labels (a one-hot 2-d target is read as labels and returned
            one-hot).

        Returns
        -------
        X_res : same kind as ``X``
            The kept rows, then the synthetic rows.
        y_res : same kind as ``y``
            Their labels.
        """
        n_jobs = V.n_jobs_of(getattr(self, "n_jobs", None))
        y_labels, one_hot = _indicator(y)
        lab = V.labels(y_labels, None, type(self).__name__)
        if len(lab.classes_) < 2:
            raise ValueError(
                f"The target 'y' needs to have more than 1 class. Got {len(lab.classes_)} class instead"
            )
        n = _n_rows(X) if X is not None else 0
        if X is not None and n != len(lab.codes):
            raise ValueError(f"Found input variables with inconsistent numbers of samples: [{n}, {len(lab.codes)}]")
        fmt = _sparse_format(X)
        Xf = X
        self._strategy = None
        if self._draws_only(X):
            # The rows are drawn from the class counts alone: X is never
            # read, so any column (NaN, text, datetimes, sparse) comes back untouched.
            _check_shape(X)
            feats, names = V.features(np.zeros((n, 1)), n_jobs)[0], _feature_names(X)
        else:
            if fmt:
                Xf = X.toarray()
            _check_finite(Xf, type(self).__name__)
            cats = self._categorical(Xf)
            # An object array may hold text columns (SMOTE-NC's levels).
            feats, names = V.features(_bools_as_numbers(Xf, cats), n_jobs, cats, text=True)
        data = _rarity.Data(feats, lab.codes, lab.class_names, "y", None, n_jobs)
        self.spec_ = self._spec(lab)
        drawn = self._draw(data, lab, Xf, n_jobs)
        rows = np.asarray(drawn.rows, dtype=np.int64)
        if self._groups and drawn.n_synthetic == 0:
            rows = _imblearn.grouped(rows, lab)
        X_res, ids = _resample_outputs(X if self._draws_only(X) else Xf, drawn, rows, lab, data, n_jobs)
        if fmt and not self._draws_only(X):
            import scipy.sparse as sp

            X_res = sp.csr_matrix(X_res).asformat(fmt)
        self.classes_ = lab.classes_
        self.keep_rates_ = np.asarray(drawn.keep_rates)[lab.to_rarity]
        self.notes_ = list(drawn.notes)
        self.n_features_in_ = _n_columns(X)
        if names is not None:
            self.feature_names_in_ = names
        if self._selects:
            self.sample_indices_ = rows
        if self._strategy is not None:
            self.sampling_strategy_ = self._strategy
        else:
            before = np.bincount(lab.codes, minlength=len(lab.classes_))[lab.to_rarity]
            after = np.bincount(ids, minlength=len(lab.classes_))
            self.sampling_strategy_ = {
                c.item() if hasattr(c, "item") else c: int(a)
                for c, b, a in zip(lab.classes_, before, after)
                if a != b
            }
        self._fitted(X, lab, drawn, rows)
        y_out = _y_like(y, ids if one_hot else lab.classes_[ids], one_hot)
        return X_res, y_out

    def _draw(self, data, lab, X, n_jobs):
        """The library's draw of ``spec_`` on ``data``."""
        return _rarity.resample(self.spec_, data, self._seed(), n_jobs)

    #: Whether rows come back class by class, in ``classes_`` order
    #: (imbalanced-learn's order for the samplers that select rows).
    _groups = False

    def _draws_only(self, X):
        """Whether the draw needs the class counts alone, so ``X`` is not
        read (random under- and oversampling)."""
        return False

    def _categorical(self, X):
        """The ``categorical_features`` the features are read with."""
        return self.categorical_features

    def _fitted(self, X, lab, drawn, rows):
        """Sets a class's own fitted attributes (imbalanced-learn's) after a draw."""

    def get_feature_names_out(self, input_features=None):
        """The names of the resampled columns: those of ``X`` (samplers keep columns).

        Parameters
        ----------
        input_features : array-like of str, default=None
            Column names; by default ``feature_names_in_``, else ``x0, x1, ...``.

        Returns
        -------
        names : ndarray of str (object dtype)
        """
        check_fitted(self, "n_features_in_")
        if input_features is None:
            names = getattr(self, "feature_names_in_", None)
            if names is None:
                names = [f"x{j}" for j in range(self.n_features_in_)]
            return np.asarray(names, dtype=object)
        if len(input_features) != self.n_features_in_:
            raise ValueError(
                f"input_features should have length equal to number of features "
                f"({self.n_features_in_}), got {len(input_features)}"
            )
        if hasattr(self, "feature_names_in_") and list(input_features) != list(self.feature_names_in_):
            raise ValueError("input_features is not equal to feature_names_in_")
        return np.asarray(input_features, dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:  # imbalanced-learn's tags say what a sampler is and takes
            from sklearn.utils import TargetTags
            from imblearn.utils._tags import InputTags, SamplerTags, Tags
        except ImportError:
            tags.input_tags.allow_nan = self._draws_only(None)
            tags.input_tags.sparse = True
            return tags
        tags = Tags(
            estimator_type="sampler",
            target_tags=TargetTags(required=True),
            transformer_tags=None,
            regressor_tags=None,
            classifier_tags=None,
            sampler_tags=SamplerTags(sample_indices=self._selects),
        )
        draws = self._draws_only(None)
        tags.input_tags = InputTags(two_d_array=True, sparse=True, dataframe=True, allow_nan=draws, string=draws)
        return tags


# ---- sampling_strategy, imbalanced-learn's vocabulary (rarity._imblearn)


def _over_counts(cls, lab):
    """The ``counts=`` of an oversampler's spec (rarity class order), its
    ``sampling_strategy_`` kept on the sampler."""
    cls._strategy = _imblearn.strategy(cls.sampling_strategy, lab, "over-sampling")
    return _spec.spec_text(_imblearn.sizes(cls._strategy, lab, "over-sampling"))


def _under_counts(cls, lab):
    """The rows kept of each class (rarity class order) for an
    undersampler's ``sampling_strategy`` (kept as ``sampling_strategy_``)."""
    cls._strategy = _imblearn.strategy(cls.sampling_strategy, lab, "under-sampling")
    return _imblearn.sizes(cls._strategy, lab, "under-sampling")


def _cleaned(cls, lab):
    """The ``classes=`` of a cleaning sampler's spec: the rarity ids of the
    classes its ``sampling_strategy`` cleans (kept as ``sampling_strategy_``);
    empty when it cleans none."""
    cls._strategy = _imblearn.strategy(cls.sampling_strategy, lab, "clean-sampling")
    ids = _imblearn.class_ids(cls._strategy, lab)
    return f"classes={_spec.spec_text(ids)}" if ids else ""


def _per_round(cls, lab):
    """The ``classes=`` of a repeated editing: none for ``"auto"`` and
    ``"not minority"``, whose classes imbalanced-learn (and the library)
    take anew each round from the rows left; else as :func:`_cleaned`."""
    cleaned = _cleaned(cls, lab)
    return "" if cls.sampling_strategy in ("auto", "not minority") else cleaned


def _k(cls, name, itself=1, default=None):
    """The ``k`` of parameter ``name`` (an int or a neighbours object)."""
    return _imblearn.neighbours(getattr(cls, name), name, itself, default)


def _nn(cls, name, itself=1, classifier=False, default=None):
    """imbalanced-learn's fitted neighbours attribute of parameter ``name``."""
    value = getattr(cls, name)
    return _imblearn.neighbours_object(value, _k(cls, name, itself, default), itself, classifier)


def _kind_sel(kind_sel):
    if kind_sel not in ("all", "mode"):
        raise ValueError(f"kind_sel={kind_sel!r} is invalid; expected 'all' or 'mode'")
    return kind_sel


def _no_categorical(spec):
    """A spec for a sampler that rarity runs on numbers only."""
    return spec


def _random_state_of(cls):
    """The ``random_state`` an estimator attribute is given: the sampler's seed."""
    return cls._seed()


# ---- imbalanced-learn's classes


@_declared(("under",), sampling_strategy="auto", random_state=None, replacement=False, n_jobs=None)
class RandomUnderSampler(_Base):
    """Random undersampling (rarity's ``under`` with exact counts; with
    ``replacement=True``, drawn with replacement, ``under(replacement=true)``).

    The rows are drawn from the class counts alone, so ``X`` is never read:
    NaN, infinite values, text, datetime and timedelta columns and sparse
    matrices come back untouched, in ``X``'s container. Rows come back class
    by class, as imbalanced-learn orders them.

    Parameters
    ----------
    %(strategy)s
    replacement : bool, default=False
        Draw each reduced class's rows with replacement.
    n_jobs : int, default=None
        Threads.

    Attributes
    ----------
    sample_indices_, keep_rates_, classes_, sampling_strategy_, spec_

    Examples
    --------
    >>> import numpy as np
    >>> from rarity.sampling import RandomUnderSampler
    >>> X = np.arange(20.0).reshape(10, 2); y = np.array([0] * 8 + [1] * 2)
    >>> Xr, yr = RandomUnderSampler(random_state=0).fit_resample(X, y)
    >>> np.bincount(yr).tolist()
    [2, 2]
    """

    _groups = True

    def _draws_only(self, X):
        return True

    def _spec(self, lab):
        counts = np.asarray(_imblearn.rarity_order(list(_imblearn._counts(lab)), lab), dtype=float)
        rates = [w / c for w, c in zip(_under_counts(self, lab), counts)]
        mode = "replacement=true" if self.replacement else "exact"
        return f"under(rates={_spec.spec_text(rates)},{mode})"


@_declared(("over",), sampling_strategy="auto", random_state=None, shrinkage=None, n_jobs=None)
class RandomOverSampler(_Base):
    """Random oversampling with replacement (rarity's ``over``); with
    ``shrinkage``, the smoothed bootstrap (``over(shrinkage=...)``).

    Without ``shrinkage`` the rows are drawn from the class counts alone, so
    ``X`` is never read: NaN, text, datetime and sparse columns come back
    untouched. The smoothed bootstrap perturbs numbers and needs numeric
    ``X`` (dense or sparse, returned in ``X``'s format).

    Parameters
    ----------
    %(strategy)s
    shrinkage : float, dict or None, default=None
        The smoothed bootstrap's noise, as a multiple of each class's kernel
        bandwidth ``(4 / ((d + 2) n))^(1 / (d + 4))`` times each feature's
        standard deviation: one value for every class oversampled, or a dict
        with one per class oversampled (0: plain copies). ``None``: plain copies.
    n_jobs : int, default=None
        Threads.

    Attributes
    ----------
    sample_indices_ (without shrinkage), shrinkage_, keep_rates_, classes_, sampling_strategy_, spec_

    Examples
    --------
    >>> import numpy as np
    >>> from rarity.sampling import RandomOverSampler
    >>> X = np.arange(20.0).reshape(10, 2); y = np.array([0] * 8 + [1] * 2)
    >>> np.bincount(RandomOverSampler().fit_resample(X, y)[1]).tolist()
    [8, 8]
    """

    def _smooths(self):
        s = self.shrinkage
        if s is None:
            return False
        if isinstance(s, dict):
            return any(v != 0 for v in s.values())
        return s != 0

    @property
    def _selects(self):
        return not self._smooths()

    def _draws_only(self, X):
        if X is not None and self._smooths():
            if getattr(X, "dtype", None) is not None and X.dtype.kind in "OUS":
                raise ValueError(
                    "When shrinkage is not None, X needs to contain only numerical data to later "
                    "generate a smoothed bootstrap sample."
                )
        return not self._smooths()

    def _spec(self, lab):
        counts = _over_counts(self, lab)
        self.shrinkage_ = None
        if self.shrinkage is None:
            return f"over(counts={counts})"
        targeted = list(self._strategy)
        if isinstance(self.shrinkage, dict):
            missing = [c for c in targeted if c not in self.shrinkage]
            if missing:
                raise ValueError(
                    "`shrinkage` should contain a shrinkage factor for each class that will be "
                    f"resampled. The missing classes are: {missing!r}"
                )
            shrink = {c: self.shrinkage[c] for c in targeted}
        elif isinstance(self.shrinkage, numbers.Real) and not isinstance(self.shrinkage, bool):
            shrink = {c: self.shrinkage for c in targeted}
        else:
            raise ValueError(f"shrinkage={self.shrinkage!r} is invalid; expected a float, a dict or None")
        if any(v < 0 for v in shrink.values()):
            raise ValueError(f"The shrinkage factor needs to be >= 0. Got {shrink!r}")
        self.shrinkage_ = shrink
        classes = [_imblearn._item(c) for c in lab.classes_]
        per_class = [float(shrink.get(c, 0)) for c in classes]
        return f"over(counts={counts},shrinkage={_spec.spec_text(_imblearn.rarity_order(per_class, lab))})"


@_declared(("smote",), sampling_strategy="auto", random_state=None, k_neighbors=5, n_jobs=None)
class SMOTE(_Base):
    """SMOTE (Chawla et al. 2002): synthetic minority rows on segments to
    ``k_neighbors`` nearest same-class rows (rarity's ``smote``).

    Parameters
    ----------
    %(strategy)s
    k_neighbors : int or estimator, default=5
        Neighbours of each minority row, or a nearest-neighbours object whose
        ``n_neighbors`` counts the row itself (``NearestNeighbors(6)`` is 5).
        Every class to enlarge needs more than ``k_neighbors`` rows: with
        fewer, ``fit_resample`` raises ``ValueError`` naming the ``k`` that
        fits (as imbalanced-learn does).
    n_jobs : int, default=None
        Threads.

    Attributes
    ----------
    nn_k_ : estimator
        The neighbours search's parameters as imbalanced-learn exposes them
        (a scikit-learn ``NearestNeighbors`` of ``k + 1`` neighbours, or a
        clone of the object given; not fitted: rarity searches itself).

    Examples
    --------
    >>> import numpy as np
    >>> import rarity
    >>> from rarity.sampling import SMOTE
    >>> X, y = rarity.datasets.load("ecoli4")
    >>> Xr, yr = SMOTE(random_state=0).fit_resample(X, y)
    >>> np.unique(yr, return_counts=True)[1].tolist()  # balanced
    [316, 316]
    """

    def _spec(self, lab):
        self.nn_k_ = _nn(self, "k_neighbors")
        return f"smote(k={_k(self, 'k_neighbors')},counts={_over_counts(self, lab)})"


def _categorical_arg(sampler, X):
    """SMOTE-NC's ``categorical_features`` as imbalanced-learn takes it
    (indices, a mask, names, or ``"auto"``: the pandas ``category`` columns),
    checked as imbalanced-learn checks it, as rarity's reader takes it."""
    cf = sampler.categorical_features
    n = _n_columns(X)
    if isinstance(cf, str) and cf == "auto":
        if not V._is_pandas_frame(X):
            raise ValueError(
                "When `categorical_features='auto'`, the input data should be a pandas.DataFrame. "
                f"Got {type(X).__name__} instead."
            )
        cols = [j for j, dt in enumerate(X.dtypes) if str(dt) == "category"]
    else:
        a = np.asarray(cf)
        if a.dtype == bool:
            if len(a) != n:
                raise ValueError(f"categorical_features has {len(a)} entries; X has {n} features")
            cols = np.flatnonzero(a).tolist()
        elif a.dtype.kind in "OUS":
            names = [str(c) for c in _column_names(X)] if hasattr(X, "columns") or hasattr(X, "column_names") else []
            missing = [c for c in a.tolist() if c not in names]
            if missing:
                raise ValueError(f"categorical_features names columns X does not have: {missing}")
            cols = [names.index(c) for c in a.tolist()]
        else:
            cols = [int(j) for j in a.ravel().tolist()]
            bad = [j for j in cols if not -n <= j < n]
            if bad:
                raise ValueError(f"Some of the categorical indices are out of range. Indices should be between 0 and {n}; all features must be in [0, {n - 1}]")
            cols = [j % n for j in cols]
    if not cols:
        raise ValueError(
            "SMOTE-NC is not designed to work only with numerical features. It requires some "
            "categorical features."
        )
    if len(set(cols)) == n:
        raise ValueError(
            "SMOTE-NC is not designed to work only with categorical features. It requires some "
            "numerical features."
        )
    return sorted(set(cols))


def _encoder(sampler, X, cols, default):
    """imbalanced-learn's fitted ``categorical_encoder_``: a clone of the
    encoder given (else ``default()``), fitted on the categorical columns.
    rarity's distance does not read it (a differing level adds ``Med^2``,
    which is what imbalanced-learn's one-hot columns of value ``Med / 2``
    add); it is there for code that reads the attribute."""
    try:
        from sklearn.base import clone
    except ImportError:
        return None
    enc = clone(sampler.categorical_encoder) if sampler.categorical_encoder is not None else default()
    if getattr(enc, "drop", None) is not None:
        raise ValueError(
            "SMOTENC requires a one-hot encoding with one column per category: the "
            f"categorical_encoder drops columns (drop={enc.drop!r}); use drop=None"
        )
    sub = X.iloc[:, cols] if V._is_pandas_frame(X) else np.asarray(X, dtype=object)[:, cols]
    return enc.fit(sub)


class SMOTENC(_Base):
    """SMOTE-NC (Chawla et al. 2002, section 6.1): SMOTE on tables with
    categorical and numeric features (rarity's ``smote`` with
    ``categorical_features``, the seed's neighbours voting alone on a
    synthetic row's levels, as imbalanced-learn's: ``seed_vote=false``).

    A differing level adds ``Med^2`` to a squared distance, ``Med`` the
    median of the numeric features' standard deviations over the minority
    (rarity computes it once, over the smallest class; ``median_std_`` gives
    it per class oversampled, as imbalanced-learn computes it). A synthetic
    row's level is the most frequent among the seed's ``k_neighbors``
    neighbours (ties to the level that sorts first; imbalanced-learn breaks
    them at random). Rarity's own ``smote(categorical...)`` lets the seed
    vote too (Chawla et al.'s rule).

    Parameters
    ----------
    categorical_features : "auto", array of int, array of str or bool mask
        The categorical columns (``"auto"``: a pandas frame's ``category``
        columns).
    categorical_encoder : estimator or None, default=None
        imbalanced-learn's one-hot encoder of the categorical columns, fitted
        and kept as ``categorical_encoder_`` (rarity's distance does not read
        it); an encoder dropping columns is refused, as imbalanced-learn refuses it.
    sampling_strategy : float, str, dict or callable, default="auto"
    random_state : int or None, default=None
    k_neighbors : int or estimator, default=5
    n_jobs : int, default=None

    Attributes
    ----------
    categorical_features_, continuous_features_, median_std_, categorical_encoder_, nn_k_,
    keep_rates_, classes_, sampling_strategy_, spec_

    Examples
    --------
    >>> import numpy as np
    >>> from rarity.sampling import SMOTENC
    >>> rng = np.random.default_rng(0)
    >>> X = np.empty((30, 3), dtype=object)
    >>> X[:, :2] = rng.normal(size=(30, 2)); X[:, 2] = rng.choice(["a", "b"], size=30)
    >>> y = np.array([0] * 20 + [1] * 10)
    >>> Xr, yr = SMOTENC([2], random_state=0).fit_resample(X, y)
    >>> np.bincount(yr).tolist(), sorted(set(Xr[:, 2]))
    ([20, 20], ['a', 'b'])
    """

    registry_names = ("smote",)

    def __init__(self, categorical_features, *, categorical_encoder=None, sampling_strategy="auto",
                 random_state=None, k_neighbors=5, n_jobs=None):
        self.categorical_features = categorical_features
        self.categorical_encoder = categorical_encoder
        self.sampling_strategy = sampling_strategy
        self.random_state = random_state
        self.k_neighbors = k_neighbors
        self.n_jobs = n_jobs

    def fit_resample(self, X, y):
        _categorical_arg(self, X)  # imbalanced-learn checks the columns before y
        return super().fit_resample(X, y)

    def _categorical(self, X):
        self.categorical_features_ = np.asarray(_categorical_arg(self, X))
        n = _n_columns(X)
        self.continuous_features_ = np.asarray([j for j in range(n) if j not in set(self.categorical_features_)])
        return self.categorical_features_.tolist()

    def _spec(self, lab):
        self.nn_k_ = _nn(self, "k_neighbors")
        return f"smote(k={_k(self, 'k_neighbors')},counts={_over_counts(self, lab)},seed_vote=false)"

    def _fitted(self, X, lab, drawn, rows):
        Xa = X.toarray() if _sparse_format(X) else X
        num = self.continuous_features_
        y = lab.classes_[lab.from_rarity[lab.codes]]
        if V._is_pandas_frame(Xa):
            values = Xa.iloc[:, num].to_numpy(dtype=np.float64)
        else:
            values = np.asarray(Xa, dtype=object)[:, num].astype(np.float64)
        self.median_std_ = {
            c: float(np.median(np.std(values[y == c], axis=0))) for c in self._strategy if self._strategy[c] > 0
        }

        def one_hot():
            from sklearn.preprocessing import OneHotEncoder

            return OneHotEncoder(handle_unknown="ignore")

        self.categorical_encoder_ = _encoder(self, Xa, self.categorical_features_.tolist(), one_hot)


class SMOTEN(_Base):
    """SMOTE-N (Chawla et al. 2002, section 6.2): SMOTE on tables whose
    features are all categorical (rarity's ``smote`` with every column
    categorical, ``seed_vote=false``): a synthetic row takes, at each
    feature, the level most frequent among the seed's ``k_neighbors``
    nearest rows of its class (ties to the level that sorts first).

    Neighbours are ranked by the number of differing levels (rarity's mixed
    distance with no numeric feature); imbalanced-learn ranks them by the
    value difference metric (Stanfill & Waltz 1986), so the neighbours, and
    the levels voted, can differ. Sparse input (one-hot columns, each read as
    a categorical feature) is densified, with imbalanced-learn's warning, and
    returned in its format.

    Parameters
    ----------
    categorical_encoder : estimator or None, default=None
        imbalanced-learn's ordinal encoder (default ``OrdinalEncoder(dtype=np.int32)``),
        fitted and kept as ``categorical_encoder_``; rarity's codes do not read it.
    sampling_strategy : float, str, dict or callable, default="auto"
    random_state : int or None, default=None
    k_neighbors : int or estimator, default=5
    n_jobs : int, default=None

    Examples
    --------
    >>> import numpy as np
    >>> from rarity.sampling import SMOTEN
    >>> X = np.array([["red"]] * 10 + [["blue"]] * 6, dtype=object)
    >>> y = np.array([0] * 10 + [1] * 6)
    >>> Xr, yr = SMOTEN(random_state=0).fit_resample(X, y)
    >>> np.bincount(yr).tolist(), sorted(set(Xr[16:, 0]))
    ([10, 10], ['blue'])
    """

    registry_names = ("smote",)

    def __init__(self, categorical_encoder=None, *, sampling_strategy="auto", random_state=None,
                 k_neighbors=5, n_jobs=None):
        self.categorical_encoder = categorical_encoder
        self.sampling_strategy = sampling_strategy
        self.random_state = random_state
        self.k_neighbors = k_neighbors
        self.n_jobs = n_jobs

    def _categorical(self, X):
        return list(range(_n_columns(X)))

    def fit_resample(self, X, y):
        if _sparse_format(X):
            import warnings

            from sklearn.exceptions import DataConversionWarning

            warnings.warn(
                "Passing a sparse matrix to SMOTEN is not really efficient since it is converted "
                "to a dense array internally.",
                DataConversionWarning,
                stacklevel=2,
            )
        return super().fit_resample(X, y)

    def _spec(self, lab):
        self.nn_k_ = _nn(self, "k_neighbors")
        return f"smote(k={_k(self, 'k_neighbors')},counts={_over_counts(self, lab)},seed_vote=false)"

    def _fitted(self, X, lab, drawn, rows):
        try:
            from sklearn.base import clone
            from sklearn.preprocessing import OrdinalEncoder
        except ImportError:
            return
        enc = clone(self.categorical_encoder) if self.categorical_encoder is not None else OrdinalEncoder(dtype=np.int32)
        Xa = X.toarray() if _sparse_format(X) else X
        self.categorical_encoder_ = enc.fit(Xa)


@_declared(
    ("borderline-smote",), ("random_state=0", "len(Xr) > len(X)", "True"),
    sampling_strategy="auto", random_state=None, k_neighbors=5, n_jobs=None, m_neighbors=10, kind="borderline-1",
)
class BorderlineSMOTE(_Base):
    """Borderline-SMOTE1 and 2 (Han et al. 2005): SMOTE from the minority
    rows in danger among their ``m_neighbors`` neighbours (rarity's
    ``borderline-smote``, ``kind=2`` for Borderline-SMOTE2).

    Parameters
    ----------
    %(strategy)s
    k_neighbors : int or estimator, default=5
        As :class:`SMOTE` (more rows than ``k_neighbors`` per class to enlarge).
    m_neighbors : int or estimator, default=10
        Neighbours over all rows of the danger test (an object counts the row itself).
    kind : {"borderline-1", "borderline-2"}, default="borderline-1"
        Borderline-SMOTE2 makes half of a danger row's new rows towards its
        nearest rows of other classes, at most halfway (imbalanced-learn draws
        the share from a Beta(10, 10)).

    Attributes
    ----------
    in_danger_indices : dict
        Per class oversampled that has rows in danger, their indices into ``X``.
    nn_k_, nn_m_ : estimator
        The two searches' parameters as imbalanced-learn exposes them (not fitted).
    """

    def _spec(self, lab):
        if self.kind not in ("borderline-1", "borderline-2"):
            raise ValueError(f"kind={self.kind!r} is invalid; expected 'borderline-1' or 'borderline-2'")
        self.nn_k_ = _nn(self, "k_neighbors")
        self.nn_m_ = _nn(self, "m_neighbors")
        kind = ",kind=2" if self.kind == "borderline-2" else ""
        return (
            f"borderline-smote(k={_k(self, 'k_neighbors')},m={_k(self, 'm_neighbors')}{kind},"
            f"counts={_over_counts(self, lab)})"
        )

    def _fitted(self, X, lab, drawn, rows):
        danger = np.asarray(drawn.fact("danger") or [], dtype=np.int64)
        y = lab.from_rarity[lab.codes[danger]]
        self.in_danger_indices = {
            _imblearn._item(lab.classes_[j]): danger[y == j] for j in sorted(set(y.tolist()))
        }


@_declared(
    ("svm-smote",), ("random_state=0", "len(Xr) > len(X)", "True"),
    sampling_strategy="auto", random_state=None, k_neighbors=5, n_jobs=None, m_neighbors=10,
    svm_estimator=None, out_step=0.5,
)
class SVMSMOTE(_Base):
    """SVM-SMOTE (Nguyen, Cooper & Kamei 2011): SMOTE from the support
    vectors of an SVM, extrapolating from the safe ones (rarity's
    ``svm-smote``; rarity's own SVM, one class against the rest, RBF kernel,
    ``gamma="scale"``).

    Parameters
    ----------
    %(strategy)s
    k_neighbors : int or estimator, default=5
    m_neighbors : int or estimator, default=10
    svm_estimator : estimator or None, default=None
        A scikit-learn ``SVC`` or ``LinearSVC``: its ``C`` is read (rarity's
        SVM does the work); ``None``: ``C=1``. An estimator without
        support vectors is refused (``RuntimeError``, as imbalanced-learn).
    out_step : float, default=0.5
        The largest extrapolation step from a safe support vector.

    Attributes
    ----------
    nn_k_, nn_m_, svm_estimator_
    """

    def _spec(self, lab):
        est = self.svm_estimator
        if est is not None and not (hasattr(est, "kernel") or type(est).__name__ == "LinearSVC"):
            raise RuntimeError("`svm_estimator` is required to exposed a `support_` fitted attribute.")
        c = float(_imblearn.get(est, "C", 1.0))
        self.nn_k_ = _nn(self, "k_neighbors")
        self.nn_m_ = _nn(self, "m_neighbors")
        try:
            from sklearn.base import clone
            from sklearn.svm import SVC

            self.svm_estimator_ = clone(est) if est is not None else SVC(gamma="scale", random_state=self.random_state)
        except ImportError:
            self.svm_estimator_ = None
        return (
            f"svm-smote(k={_k(self, 'k_neighbors')},m={_k(self, 'm_neighbors')},c={_spec.spec_text(c)},"
            f"out_step={_spec.spec_text(float(self.out_step))},counts={_over_counts(self, lab)})"
        )


@_declared(
    ("kmeans-smote",), ("random_state=0, kmeans_estimator=2, cluster_balance_threshold=0.05", "len(Xr) > len(X)", "True"),
    sampling_strategy="auto", random_state=None, k_neighbors=2, n_jobs=None, kmeans_estimator=None,
    cluster_balance_threshold="auto", density_exponent="auto",
)
class KMeansSMOTE(_Base):
    """k-means SMOTE (Douzas, Bacao & Last 2018): SMOTE within the k-means
    clusters a class dominates, more rows in the sparser ones (rarity's
    ``kmeans-smote``, with its own k-means).

    Each cluster's share of a class's new rows is rounded up, as
    imbalanced-learn does, so a class can get a few rows more than asked
    (``kmeans-smote(round_up=true)``); rarity's own ``kmeans-smote``
    apportions them by largest remainders and reaches the target exactly.

    Parameters
    ----------
    %(strategy)s
    k_neighbors : int or estimator, default=2
    kmeans_estimator : int, estimator or None, default=None
        The clusters: an int, or a k-means object whose ``n_clusters`` is read
        (``None``: 8, scikit-learn's default).
    cluster_balance_threshold : "auto" or float, default="auto"
        The least share of a cluster's rows the class must hold (``"auto"``:
        half the class's share of the rows made).
    density_exponent : "auto" or float, default="auto"
        The exponent of a cluster's mean distance in its sparsity (``"auto"``:
        ``0.16 log_1.6(n)^1.8``).

    Attributes
    ----------
    nn_k_, kmeans_estimator_ : estimator
        As imbalanced-learn exposes them (not fitted: rarity clusters and searches itself).
    """

    def fit_resample(self, X, y):
        try:
            return super().fit_resample(X, y)
        except ValueError as e:
            if "no cluster holds" in str(e):
                raise RuntimeError(
                    f"No clusters found with sufficient samples: {e}. Try lowering the "
                    "cluster_balance_threshold or increasing the number of clusters."
                ) from None
            raise

    def _spec(self, lab):
        est = self.kmeans_estimator
        if est is None:
            clusters = 8
        elif _imblearn._is_int(est):
            clusters = int(est)
        elif hasattr(est, "n_clusters"):
            clusters = int(_imblearn.get(est, "n_clusters", 8))
        else:
            raise ValueError(f"kmeans_estimator={est!r} is invalid; expected an int, a k-means object or None")
        try:
            from sklearn.base import clone
            from sklearn.cluster import MiniBatchKMeans

            if est is None or _imblearn._is_int(est):
                self.kmeans_estimator_ = MiniBatchKMeans(n_clusters=clusters, n_init=1, random_state=self.random_state)
            else:
                self.kmeans_estimator_ = clone(est)
        except ImportError:
            self.kmeans_estimator_ = None
        self.nn_k_ = _nn(self, "k_neighbors")
        parts = [f"k={_k(self, 'k_neighbors')}", f"clusters={clusters}"]
        if self.cluster_balance_threshold != "auto":
            parts.append(f"balance={_spec.spec_text(float(self.cluster_balance_threshold))}")
        if self.density_exponent != "auto":
            parts.append(f"density_exponent={_spec.spec_text(float(self.density_exponent))}")
        parts.append("round_up=true")
        parts.append(f"counts={_over_counts(self, lab)}")
        return f"kmeans-smote({','.join(parts)})"


@_declared(
    ("adasyn",), ("random_state=0", "len(Xr) > len(X)", "True"),
    sampling_strategy="auto", random_state=None, n_neighbors=5, n_jobs=None,
)
class ADASYN(_Base):
    """ADASYN (He et al. 2008): SMOTE weighted by each minority row's
    other-class neighbours (rarity's ``adasyn(round_each=true)``).

    As imbalanced-learn, each row's share of the new rows is rounded on its
    own, so a class can end a few rows off its target; rarity's own
    ``adasyn`` rounds by largest remainders and reaches it exactly.

    Parameters
    ----------
    %(strategy)s
    n_neighbors : int or estimator, default=5
        As :class:`SMOTE`'s ``k_neighbors`` (more rows than it per class to enlarge).

    Attributes
    ----------
    nn_ : estimator
    """

    def _spec(self, lab):
        self.nn_ = _nn(self, "n_neighbors")
        return (
            f"adasyn(k={_k(self, 'n_neighbors')},counts={_over_counts(self, lab)},round_each=true)"
        )


@_declared(("tomek",), ("", "len(yr) <= len(y)", "True"), cleans=True, sampling_strategy="auto", n_jobs=None)
class TomekLinks(_Base):
    """Removes the member of every Tomek link of a class cleaned (Tomek
    1976; rarity's ``tomek``). Rows come back in input order, as
    imbalanced-learn returns them.

    Parameters
    ----------
    %(strategy)s
    """

    def _spec(self, lab):
        return _call("tomek", _cleaned(self, lab))


def _call(name, *parts):
    """A spec ``name(parts)`` (empty parts left out)."""
    parts = [p for p in parts if p]
    return f"{name}({','.join(parts)})" if parts else name


@_declared(
    ("enn",), ("", "s.spec_", "'enn(k=3,rule=all,ties=lowest,classes=[0])'"), cleans=True,
    sampling_strategy="auto", n_neighbors=3, kind_sel="all", n_jobs=None,
)
class EditedNearestNeighbours(_Base):
    """Edited nearest neighbours (Wilson 1972; rarity's ``enn``) with
    imbalanced-learn's conventions: ``kind_sel="all"`` removes a row when any
    of its ``n_neighbors`` neighbours has another class (``enn(rule=all)``);
    ``kind_sel="mode"`` when the most common neighbour class, ties going to
    the smallest label, is not its own (``enn(ties=lowest)``). Rows come back
    class by class (imbalanced-learn's order; rarity's ``enn`` keeps input order).

    Parameters
    ----------
    %(strategy)s
    n_neighbors : int or estimator, default=3
        An object counts the row itself (``NearestNeighbors(4)`` is 3).
    kind_sel : {"all", "mode"}, default="all"

    Attributes
    ----------
    nn_ : estimator
    """

    _groups = True

    def _spec(self, lab):
        self.nn_ = _nn(self, "n_neighbors")
        return _call(
            "enn", f"k={_k(self, 'n_neighbors')}", f"rule={_kind_sel(self.kind_sel)}", "ties=lowest",
            _cleaned(self, lab),
        )


@_declared(
    ("renn",), ("", "s.n_iter_ >= 1", "True"), cleans=True,
    sampling_strategy="auto", n_neighbors=3, max_iter=100, kind_sel="all", n_jobs=None,
)
class RepeatedEditedNearestNeighbours(_Base):
    """Repeated edited nearest neighbours (Tomek 1976; rarity's ``renn``):
    ENN again on what it kept until a round removes nothing, ``max_iter``
    rounds ran, a class falls below the minority's size or a class empties,
    with imbalanced-learn's ENN conventions (``rule=all`` or ``mode``,
    ``ties=lowest``). Rows come back class by class.

    Parameters
    ----------
    %(strategy)s
    n_neighbors : int or estimator, default=3
    max_iter : int, default=100
    kind_sel : {"all", "mode"}, default="all"

    Attributes
    ----------
    n_iter_ : int
        The rounds run.
    nn_, enn_ : estimator
    """

    _groups = True

    def _spec(self, lab):
        if not _imblearn._is_int(self.max_iter) or self.max_iter < 1:
            raise ValueError(f"max_iter={self.max_iter!r} is invalid; expected an int >= 1")
        self.nn_ = _nn(self, "n_neighbors")
        self.enn_ = EditedNearestNeighbours(
            sampling_strategy=self.sampling_strategy, n_neighbors=self.nn_ if self.nn_ is not None else self.n_neighbors,
            kind_sel=self.kind_sel, n_jobs=self.n_jobs,
        )
        return _call(
            "renn", f"k={_k(self, 'n_neighbors')}", f"max_iter={int(self.max_iter)}",
            f"rule={_kind_sel(self.kind_sel)}", "ties=lowest", _per_round(self, lab),
        )

    def _fitted(self, X, lab, drawn, rows):
        self.n_iter_ = int((drawn.fact("n_iter") or [0])[0])


@_declared(
    ("allknn",), ("", "len(yr) <= len(y)", "True"), cleans=True,
    sampling_strategy="auto", n_neighbors=3, kind_sel="all", allow_minority=False, n_jobs=None,
)
class AllKNN(_Base):
    """AllKNN (Tomek 1976; rarity's ``allknn``): ENN with 1, 2, ...,
    ``n_neighbors`` neighbours in turn, with imbalanced-learn's conventions
    and stopping rules (``allow_minority``). Rows come back class by class.

    Parameters
    ----------
    %(strategy)s
    n_neighbors : int or estimator, default=3
    kind_sel : {"all", "mode"}, default="all"
    allow_minority : bool, default=False
        Go on when a class falls below the minority's size.

    Attributes
    ----------
    nn_, enn_ : estimator
    """

    _groups = True

    def _spec(self, lab):
        self.nn_ = _nn(self, "n_neighbors")
        self.enn_ = EditedNearestNeighbours(
            sampling_strategy=self.sampling_strategy, n_neighbors=self.nn_ if self.nn_ is not None else self.n_neighbors,
            kind_sel=self.kind_sel, n_jobs=self.n_jobs,
        )
        allow = "allow_minority=true" if self.allow_minority else ""
        return _call(
            "allknn", f"k={_k(self, 'n_neighbors')}", f"rule={_kind_sel(self.kind_sel)}", "ties=lowest",
            allow, _per_round(self, lab),
        )


def _stores(sampler, X, lab, rows):
    """imbalanced-learn's ``estimators_`` of CNN and OSS: per class cleaned,
    a 1-NN classifier fitted on the minority and the rows kept of that class
    (scikit-learn's, when installed; rarity's search did the work)."""
    try:
        from sklearn.base import clone
        from sklearn.neighbors import KNeighborsClassifier
    except ImportError:
        return []
    n = sampler.n_neighbors
    base = clone(n) if n is not None and not _imblearn._is_int(n) else KNeighborsClassifier(n_neighbors=1)
    Xa = X.toarray() if _sparse_format(X) else np.asarray(X)
    y = lab.classes_[lab.from_rarity[lab.codes]]
    counts = _imblearn._counts(lab)
    minority = lab.classes_[int(np.argmin(counts))]
    out = []
    for c in sampler._strategy:
        if c == minority:
            continue
        keep = rows[(y[rows] == minority) | (y[rows] == c)]
        out.append(clone(base).fit(Xa[keep], y[keep]))
    return out


def _one_nn(sampler):
    k = _imblearn.neighbours(sampler.n_neighbors, "n_neighbors", 0, 1)
    if k != 1 or sampler.n_seeds_S != 1:
        raise ValueError(
            f"{type(sampler).__name__}: rarity's condensing is Hart's 1-NN rule with one seed row: "
            f"n_neighbors=None or 1 (got {sampler.n_neighbors!r}) and n_seeds_S=1 (got {sampler.n_seeds_S!r})"
        )


@_declared(
    ("cnn",), ("random_state=0", "len(Xr) < len(X)", "True"), cleans=True,
    sampling_strategy="auto", random_state=None, n_neighbors=None, n_seeds_S=1, n_jobs=None,
)
class CondensedNearestNeighbour(_Base):
    """Hart's condensed nearest neighbour (1968) as imbalanced-learn runs it
    (rarity's ``cnn(once=true)``): the store starts with the minority and one
    random row of the class being reduced, whose rows are then visited once,
    in input order, each added when the 1-NN rule on the store misclassifies
    it. Rows come back class by class.

    rarity's own ``cnn`` follows Hart's condition more faithfully: rows are
    visited in random order and passes repeat until one adds nothing (a
    consistent subset), so it can keep a few more rows.

    Parameters
    ----------
    %(strategy)s
    n_neighbors : None, 1 or a KNeighborsClassifier of 1 neighbour, default=None
        The 1-NN rule (Hart's).
    n_seeds_S : int, default=1
        One seed row (Hart's).

    Attributes
    ----------
    estimators_ : list
        Per class cleaned, a 1-NN classifier fitted on its store.
    """

    _groups = True

    def _spec(self, lab):
        _one_nn(self)
        return _call("cnn", _cleaned(self, lab), "once=true")

    def _fitted(self, X, lab, drawn, rows):
        self.estimators_ = _stores(self, X, lab, rows)


@_declared(
    ("oss",), ("random_state=0", "len(Xr) < len(X)", "True"), cleans=True,
    sampling_strategy="auto", random_state=None, n_neighbors=None, n_seeds_S=1, n_jobs=None,
)
class OneSidedSelection(_Base):
    """One-sided selection (Kubat & Matwin 1997; rarity's ``oss``). Rows come
    back class by class.

    Parameters
    ----------
    %(strategy)s
    n_neighbors : None, 1 or a KNeighborsClassifier of 1 neighbour, default=None
    n_seeds_S : int, default=1

    Attributes
    ----------
    estimators_ : list
        Per class cleaned, a 1-NN classifier fitted on its store.
    """

    _groups = True

    def _spec(self, lab):
        _one_nn(self)
        return _call("oss", _cleaned(self, lab))

    def _fitted(self, X, lab, drawn, rows):
        self.estimators_ = _stores(self, X, lab, rows)


@_declared(
    ("ncl",), ("", "s.spec_", "'ncl(k=3,enn_k=3,rule=mode,ties=lowest,self_vote=true,threshold=0.5,strict=true,classes=[0])'"), cleans=True,
    sampling_strategy="auto", edited_nearest_neighbours=None, n_neighbors=3, threshold_cleaning=0.5, n_jobs=None,
)
class NeighbourhoodCleaningRule(_Base):
    """The neighbourhood cleaning rule (Laurikkala 2001; rarity's ``ncl``) with
    imbalanced-learn's conventions: ENN (by default ``kind_sel="mode"``, ties
    to the smallest label), a minority row counted among its own voters when
    it is tested for misclassification, and a class cleaned when its size is
    above ``threshold_cleaning`` times the minority's
    (``ncl(ties=lowest,self_vote=true,strict=true)``). Rows come back class
    by class.

    Parameters
    ----------
    %(strategy)s
    edited_nearest_neighbours : EditedNearestNeighbours or None, default=None
        The first phase's editing: its ``n_neighbors``, ``kind_sel`` and
        ``sampling_strategy`` are read (``None``: ENN with ``kind_sel="mode"``).
    n_neighbors : int or estimator, default=3
    threshold_cleaning : float, default=0.5

    Attributes
    ----------
    classes_to_clean_ : list
        The classes whose rows the second phase may remove.
    edited_nearest_neighbours_ : EditedNearestNeighbours
        The first phase's editing.
    nn_ : estimator
        The second phase's ``KNeighborsClassifier`` (its parameters; not fitted).
    """

    _groups = True

    def _spec(self, lab):
        enn = self.edited_nearest_neighbours
        if enn is not None and not isinstance(enn, EditedNearestNeighbours):
            raise ValueError(
                "edited_nearest_neighbours must be an EditedNearestNeighbours (rarity.sampling's, or "
                "imbalanced-learn's) or None"
            )
        try:
            from sklearn.neighbors import NearestNeighbors
        except ImportError:
            NearestNeighbors = type(None)
        # imbalanced-learn's: an int as it is, a NearestNeighbors less the row itself.
        itself = 1 if isinstance(self.n_neighbors, NearestNeighbors) else 0
        k = _k(self, "n_neighbors", itself)
        self.edited_nearest_neighbours_ = enn if enn is not None else EditedNearestNeighbours(
            sampling_strategy=self.sampling_strategy, n_neighbors=self.n_neighbors, kind_sel="mode",
            n_jobs=self.n_jobs,
        )
        enn = self.edited_nearest_neighbours_
        enn_k = _imblearn.neighbours(enn.n_neighbors, "edited_nearest_neighbours.n_neighbors")
        rule = _kind_sel(enn.kind_sel)
        self.nn_ = _imblearn.neighbours_object(None, k, 0, classifier=True)
        classes = _cleaned(self, lab)
        counts = _imblearn._counts(lab)
        n_min = counts.min()
        t = float(self.threshold_cleaning)
        self.classes_to_clean_ = [c for c in self._strategy if counts[list(lab.classes_).index(c)] > t * n_min]
        return _call(
            "ncl", f"k={k}", f"enn_k={enn_k}", f"rule={rule}", "ties=lowest", "self_vote=true",
            f"threshold={_spec.spec_text(t)}", "strict=true", classes,
        )


@_declared(
    ("nearmiss1", "nearmiss2", "nearmiss3"), ("version=3", "sorted(set(yr.tolist()))", "[0, 1]"), cleans=False,
    sampling_strategy="auto", version=1, n_neighbors=3, n_neighbors_ver3=3, n_jobs=None,
)
class NearMiss(_Base):
    """NearMiss-1, 2 and 3 (Mani & Zhang 2003; rarity's ``nearmiss1..3``):
    each class reduced keeps the rows its version scores best. Rows come
    back class by class.

    Parameters
    ----------
    %(strategy)s
    version : {1, 2, 3}, default=1
    n_neighbors : int or estimator, default=3
        The minority rows that score a row (an object's ``n_neighbors`` as is).
    n_neighbors_ver3 : int or estimator, default=3
        NearMiss-3's short list.

    Attributes
    ----------
    nn_, nn_ver3_ : estimator
    """

    _groups = True

    def _spec(self, lab):
        if self.version not in (1, 2, 3):
            raise ValueError(f"version={self.version!r} is invalid; expected 1, 2 or 3")
        k = _k(self, "n_neighbors", 0)
        self.nn_ = _nn(self, "n_neighbors", 0)
        counts = f"counts={_spec.spec_text(_under_counts(self, lab))}"
        counts += f",classes={_spec.spec_text(_imblearn.class_ids(self._strategy, lab))}"
        if self.version == 3:
            self.nn_ver3_ = _nn(self, "n_neighbors_ver3", 0)
            return f"nearmiss3(k={k},k3={_k(self, 'n_neighbors_ver3', 0)},{counts},ranked=true)"
        return f"nearmiss{self.version}(k={k},{counts},ranked=true)"


@_declared(
    ("iht",), ("random_state=0", "len(Xr) < len(X)", "True"),
    estimator=None, sampling_strategy="auto", random_state=None, cv=5, n_jobs=None,
)
class InstanceHardnessThreshold(_Base):
    """Instance hardness threshold (Smith, Martinez & Giraud-Carrier 2014):
    each class reduced keeps its rows a classifier's cross-validated
    probability of their own class finds easiest. Rows come back class by
    class.

    ``estimator`` is imbalanced-learn's: a scikit-learn classifier (or
    pipeline) with ``predict_proba``, cross-validated here with
    scikit-learn's ``cross_val_predict`` on stratified folds; ``None`` is
    imbalanced-learn's default, a ``RandomForestClassifier(n_estimators=100)``.
    With such an estimator the class is imbalanced-learn's: the same folds
    and estimator seeds drawn from ``random_state``, and every row at or
    above the class's percentile kept, so tied probabilities can keep more
    rows than asked. A string is a rarity learner spec (``"gbdt"``,
    ``"tree(max_depth=4)"``): rarity's ``iht`` then fits and cross-validates
    it itself and keeps exactly the rows asked (ties to the lower row).

    Parameters
    ----------
    estimator : estimator, str or None, default=None
    %(strategy)s
    cv : int, default=5
        Stratified folds.

    Attributes
    ----------
    estimator_ : estimator or str
        The classifier cross-validated (a clone of the one given).
    """

    _groups = True

    def _spec(self, lab):
        counts = _spec.spec_text(_under_counts(self, lab))
        if not _imblearn._is_int(self.cv) or self.cv < 2:
            raise ValueError(f"cv={self.cv!r} is invalid; expected an int >= 2")
        if isinstance(self.estimator, str):
            self.estimator_ = self.estimator
            return f"iht(learner={_spec.spec_text(self.estimator) if '(' not in self.estimator else repr(self.estimator)},folds={self.cv},counts={counts})"
        from sklearn.base import clone
        from sklearn.ensemble import RandomForestClassifier

        # imbalanced-learn's random stream: one RandomState for the
        # estimator's seeds and then the folds' shuffle (an int seed is
        # taken modulo 2**32, NumPy's range; None is rarity's 42).
        state = self.random_state
        if not isinstance(state, np.random.RandomState):
            state = self._seed()
        self._state = state if isinstance(state, np.random.RandomState) else np.random.RandomState(state % 2**32)
        if self.estimator is None:
            self.estimator_ = RandomForestClassifier(n_estimators=100, random_state=state, n_jobs=self.n_jobs)
        elif hasattr(self.estimator, "predict_proba") or hasattr(self.estimator, "fit"):
            self.estimator_ = clone(self.estimator)
            # Every random_state of the estimator, nested ones too, in name
            # order, drawn from the sampler's stream (scikit-learn's rule
            # for an ensemble's members, which imbalanced-learn follows).
            params = self.estimator_.get_params(deep=True)
            seeds = {
                key: int(self._state.randint(np.iinfo(np.int32).max))
                for key in sorted(params)
                if key == "random_state" or key.endswith("__random_state")
            }
            if seeds:
                self.estimator_.set_params(**seeds)
        else:
            raise ValueError(f"estimator={self.estimator!r} is invalid; expected a classifier with predict_proba")
        self._want = _under_counts(self, lab)
        return f"iht(folds={self.cv},counts={counts})"

    def _draw(self, data, lab, X, n_jobs):
        if isinstance(self.estimator, str):
            return super()._draw(data, lab, X, n_jobs)
        from sklearn.model_selection import StratifiedKFold, cross_val_predict

        # The class positions in classes_ order (integers, whatever y's dtype).
        y = lab.from_rarity[lab.codes]
        folds = StratifiedKFold(n_splits=self.cv, shuffle=True, random_state=self._state)
        proba = cross_val_predict(self.estimator_, X, y, cv=folds, n_jobs=self.n_jobs, method="predict_proba")
        own = proba[np.arange(len(y)), y]
        rows = []
        for c, want in enumerate(self._want):
            members = np.flatnonzero(lab.codes == c)
            if want < len(members):
                # Every row at or above the percentile that leaves `want`
                # rows (imbalanced-learn's rule: ties are all kept).
                cut = np.percentile(own[members], (1.0 - want / len(members)) * 100.0)
                members = members[own[members] >= cut]
            rows.append(members)
        self.spec_ = (
            f"{type(self.estimator_).__name__} cross-validated, then {self.spec_} "
            "keeping every row at or above the percentile"
        )
        return _Selected(np.concatenate(rows) if rows else np.empty(0, np.int64), lab)


class _Selected:
    """A draw of rows made in Python from the library's selection (the
    instance-hardness rows of a scikit-learn estimator's probabilities),
    with the attributes of the library's draw."""

    n_synthetic = 0

    def __init__(self, rows, lab):
        self.rows = np.asarray(rows, dtype=np.int64)
        k = len(lab.class_names)
        before = np.bincount(lab.codes, minlength=k)
        after = np.bincount(lab.codes[self.rows], minlength=k)
        self.keep_rates = (after / np.maximum(before, 1)).tolist()
        self.notes = []
        self._labels = lab.codes[self.rows]

    def labels(self):
        return self._labels

    def fact(self, name):
        return None


@_declared(
    ("cluster-centroids",), ("random_state=0", "len(Xr) < len(X)", "True"),
    sampling_strategy="auto", random_state=None, estimator=None, voting="auto",
)
class ClusterCentroids(_Base):
    """Cluster centroids (Yen & Lee 2009): each class reduced is replaced by
    the centres of a k-means of its rows into as many clusters as rows asked
    (``voting="soft"``) or by the rows nearest those centres
    (``voting="hard"``; rarity's ``cluster-centroids``, with its own k-means).

    Parameters
    ----------
    %(strategy)s
    estimator : estimator or None, default=None
        A k-means object (scikit-learn's ``KMeans``, ``MiniBatchKMeans``, or a
        clusterer with ``n_clusters``): fitted on the last class reduced as
        imbalanced-learn leaves it (``estimator_``), its ``cluster_centers_``
        checked; rarity's k-means makes the rows.
    voting : {"auto", "soft", "hard"}, default="auto"
        ``"auto"``: hard for sparse ``X``, soft otherwise.

    Attributes
    ----------
    voting_ : str
    estimator_ : estimator
    sample_indices_ : ndarray
        With hard voting only (imbalanced-learn has none).
    """

    @property
    def _selects(self):
        return getattr(self, "voting_", "soft") == "hard"

    def fit_resample(self, X, y):
        if self.voting not in ("auto", "soft", "hard"):
            raise ValueError(f"voting={self.voting!r} is invalid; expected 'auto', 'soft' or 'hard'")
        self.voting_ = ("hard" if _sparse_format(X) else "soft") if self.voting == "auto" else self.voting
        est = self.estimator
        if est is not None and not hasattr(est, "n_clusters"):
            raise ValueError(
                "`estimator` should be a clustering estimator exposing a parameter `n_clusters` and a "
                "fitted parameter `cluster_centers_`."
            )
        return super().fit_resample(X, y)

    def _spec(self, lab):
        counts = _under_counts(self, lab)
        voting = ",voting=hard" if self.voting_ == "hard" else ""
        return f"cluster-centroids(counts={_spec.spec_text(counts)}{voting})"

    def _fitted(self, X, lab, drawn, rows):
        try:
            from sklearn.base import clone
            from sklearn.cluster import KMeans
        except ImportError:
            self.estimator_ = None
            return
        est = clone(self.estimator) if self.estimator is not None else KMeans(n_init=1, random_state=self.random_state)
        reduced = list(self._strategy)
        if self.estimator is None or not reduced:
            if reduced:
                est.set_params(n_clusters=self._strategy[reduced[-1]])
            self.estimator_ = est
            return
        c = reduced[-1]
        Xa = X.toarray() if _sparse_format(X) else np.asarray(X)
        y = lab.classes_[lab.from_rarity[lab.codes]]
        est.set_params(n_clusters=self._strategy[c])
        est.fit(Xa[y == c])
        if not hasattr(est, "cluster_centers_"):
            raise RuntimeError(
                "`estimator` should be a clustering estimator exposing a fitted parameter `cluster_centers_`."
            )
        self.estimator_ = est


def _smote_of(sampler, lab):
    """The SMOTE step of SMOTE + ENN / Tomek: ``(k, counts)`` from the
    ``smote`` object (its ``k_neighbors`` and ``sampling_strategy``), else
    SMOTE with 5 neighbours to the sampler's ``sampling_strategy``."""
    smote = sampler.smote
    if smote is None:
        sampler.smote_ = SMOTE(sampling_strategy=sampler.sampling_strategy, random_state=sampler.random_state)
    elif isinstance(smote, SMOTE) or type(smote).__name__ == "SMOTE":
        sampler.smote_ = smote
    else:
        raise ValueError(f"smote={smote!r} is invalid; expected a SMOTE or None")
    k = _imblearn.neighbours(sampler.smote_.k_neighbors, "smote.k_neighbors")
    sampler.smote_.nn_k_ = _imblearn.neighbours_object(sampler.smote_.k_neighbors, k)
    sampler._strategy = _imblearn.strategy(sampler.smote_.sampling_strategy, lab, "over-sampling")
    return k, _spec.spec_text(_imblearn.sizes(sampler._strategy, lab, "over-sampling"))


@_declared(
    ("smote-tomek",), ("random_state=0", "len(Xr) > len(X)", "True"),
    sampling_strategy="auto", random_state=None, smote=None, tomek=None, n_jobs=None,
)
class SMOTETomek(_Base):
    """SMOTE, then both members of every Tomek link removed (Batista et al.
    2004; rarity's ``smote-tomek``).

    Parameters
    ----------
    %(strategy)s
    smote : SMOTE or None, default=None
        The SMOTE step: its ``k_neighbors`` and ``sampling_strategy`` are read
        (``None``: SMOTE with 5 neighbours and this ``sampling_strategy``).
    tomek : TomekLinks or None, default=None
        The cleaning: links removed in every class (``sampling_strategy="all"``,
        the only one rarity's ``smote-tomek`` takes).

    Attributes
    ----------
    smote_, tomek_ : sampler
    """

    def _spec(self, lab):
        k, counts = _smote_of(self, lab)
        tomek = self.tomek if self.tomek is not None else TomekLinks(sampling_strategy="all", n_jobs=self.n_jobs)
        if getattr(tomek, "sampling_strategy", "all") != "all":
            raise ValueError("tomek: rarity's smote-tomek removes the links of every class: sampling_strategy='all'")
        self.tomek_ = tomek
        return f"smote-tomek(k={k},counts={counts})"


@_declared(
    ("smote-enn",), ("random_state=0", "len(Xr) == len(yr)", "True"),
    sampling_strategy="auto", random_state=None, smote=None, enn=None, n_jobs=None,
)
class SMOTEENN(_Base):
    """SMOTE, then ENN on every class (Batista et al. 2004; rarity's
    ``smote-enn``).

    Parameters
    ----------
    %(strategy)s
    smote : SMOTE or None, default=None
        As :class:`SMOTETomek`'s.
    enn : EditedNearestNeighbours or None, default=None
        The editing: its ``n_neighbors`` and ``kind_sel`` are read (``None``:
        ``EditedNearestNeighbours(sampling_strategy="all")``, 3 neighbours,
        ``kind_sel="all"``); it edits every class.

    Attributes
    ----------
    smote_, enn_ : sampler
    """

    def _spec(self, lab):
        k, counts = _smote_of(self, lab)
        enn = self.enn if self.enn is not None else EditedNearestNeighbours(sampling_strategy="all", n_jobs=self.n_jobs)
        if getattr(enn, "sampling_strategy", "all") != "all":
            raise ValueError("enn: rarity's smote-enn edits every class: sampling_strategy='all'")
        self.enn_ = enn
        enn_k = _imblearn.neighbours(enn.n_neighbors, "enn.n_neighbors")
        return f"smote-enn(k={k},counts={counts},enn_k={enn_k},rule={_kind_sel(enn.kind_sel)})"



# ---- any spec, and rarity's own samplers from the registry


@sections(categorical=_CATEGORICAL_DOC)
class Sampler(_Base):
    """Any rarity sampler spec with imbalanced-learn's contract.

    Parameters
    ----------
    spec : str, default="under"
        A sampler spec, e.g. ``"under(beta=0.1)"``, ``"smote(k=3,ratio=0.5)"``,
        ``"enn(rule=all)"`` (``rarity resample --help`` lists them).
    seed : int, default=42
        The seed (the stream ``rarity resample --seed`` uses: same seed, same rows).
    random_state : int, default=None
        scikit-learn's name for ``seed``, an alias: when given, it is the seed.
    n_jobs : int, default=None
        Threads.
    %(categorical)s

    Examples
    --------
    >>> import rarity
    >>> from rarity.sampling import Sampler
    >>> X, y = rarity.datasets.load("yeast4")
    >>> s = Sampler("under(beta=0.25,exact)")
    >>> Xr, yr = s.fit_resample(X, y)
    >>> [round(float(r), 2) for r in sorted(s.keep_rates_)]
    [0.25, 1.0]
    """

    def __init__(self, spec="under", seed=42, n_jobs=None, categorical_features=None, random_state=None):
        self.spec = spec
        self.seed = seed
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.categorical_features = categorical_features

    @property
    def _selects(self):
        return not _synthesizes(str(self.spec))

    def _spec(self, lab):
        if not isinstance(self.spec, str):
            raise ValueError(f"spec={self.spec!r} is invalid; expected a sampler spec string")
        return self.spec

    def __sklearn_tags__(self):
        return _Base.__sklearn_tags__(self)


#: The imbalanced-learn classes above.
_IMBLEARN_CLASSES = (
    RandomUnderSampler, RandomOverSampler, SMOTE, BorderlineSMOTE, SVMSMOTE, KMeansSMOTE, ADASYN,
    TomekLinks, EditedNearestNeighbours, RepeatedEditedNearestNeighbours, AllKNN,
    CondensedNearestNeighbour, OneSidedSelection, NeighbourhoodCleaningRule, NearMiss,
    InstanceHardnessThreshold, ClusterCentroids, SMOTETomek, SMOTEENN,
)
_IMBLEARN = {n: cls for cls in _IMBLEARN_CLASSES for n in cls.registry_names}


def _rarity_class(entry):
    name = entry["name"]
    params = entry["params"]
    defaults = {p["name"]: _spec.default_value(p["default"], p["expected"]) for p in params}
    sig = [(_spec.python_name(p["name"]), defaults[p["name"]]) for p in params]
    sig += [("seed", 42), ("random_state", None), ("n_jobs", None)]
    spec_keys = {_spec.python_name(p["name"]): p["name"] for p in params}

    def _spec_of(self, lab):
        return _spec.call(name, {spec_keys[k]: getattr(self, k) for k in spec_keys}, defaults)

    cls_name = _spec.class_name(entry)
    doc = "\n".join(
        [
            f"{entry['summary'][0].upper()}{entry['summary'][1:]} (rarity's ``{name}``).",
            "",
            "Parameters",
            "----------",
            *[_spec.param_doc(p) for p in params],
            "seed : int, default=42\n    The seed (same seed, same rows).",
            V.RANDOM_STATE_DOC,
            "n_jobs : int, default=None\n    Threads.",
            _CATEGORICAL_DOC,
            "",
            "Attributes",
            "----------",
            "keep_rates_, classes_, sampling_strategy_, spec_"
            + ("" if entry["synthesizes"] else ", sample_indices_"),
            "",
            "Examples",
            "--------",
            ">>> import rarity",
            f">>> from rarity.sampling import {cls_name}",
            '>>> X, y = rarity.datasets.load("ecoli4")',
            f">>> Xr, yr = {cls_name}().fit_resample(X, y)",
            ">>> len(Xr) == len(yr)",
            "True",
        ]
    )
    body = {"_spec": _spec_of, "__doc__": doc, "__module__": __name__, "registry_name": name}
    return _declared((name,), **dict(sig))(type(cls_name, (_Base,), body))


RARITY_SAMPLERS = {
    e["name"]: _rarity_class(e) for e in _REGISTRY.values() if e["name"] not in _IMBLEARN
}
globals().update({c.__name__: c for c in RARITY_SAMPLERS.values()})
__all__ += sorted(c.__name__ for c in RARITY_SAMPLERS.values())

#: The class of every registry sampler, by registry name.
CLASSES = {**_IMBLEARN, **RARITY_SAMPLERS}
