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

from . import _rarity, _spec
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
    if V._is_pandas_frame(X):
        return X.iloc[rows].reset_index(drop=True)
    if V._is_polars_frame(X):
        return X[rows]
    if hasattr(X, "take") and hasattr(X, "schema"):  # pyarrow
        return X.take(rows)
    if isinstance(X, (list, tuple)):
        return [list(X[i]) for i in rows]
    return np.asarray(X)[rows]


def _table_like(X, values):
    """A new table of ``X``'s kind and columns holding ``values`` (numbers)."""
    cols = [str(c) for c in X.columns] if hasattr(X, "columns") else list(X.column_names)
    if V._is_pandas_frame(X):
        import pandas as pd

        out = pd.DataFrame(values, columns=X.columns)
        for c, dt in zip(X.columns, X.dtypes):
            if getattr(dt, "kind", "O") in "iuf":
                out[c] = out[c].astype(dt)
        return out
    if V._is_polars_frame(X):
        import polars as pl

        out = pl.DataFrame(values, schema=cols, orient="row")
        return out.cast(dict(zip(X.columns, X.dtypes)))
    import pyarrow as pa

    return pa.table({c: values[:, j] for j, c in enumerate(cols)}).cast(X.schema)


def _resample_outputs(X, y, drawn, lab, data, n_jobs):
    """``(X_res, ids)``: the features in the container and dtype of ``X``,
    and the resampled rows' class indices into ``lab.classes_``. A synthetic
    row's categorical values are real levels (SMOTE-NC's vote), copied from
    a row of ``X`` that holds them, so they keep ``X``'s dtype (text,
    pandas ``category``, polars ``Categorical``, Arrow dictionary)."""
    if drawn.n_synthetic == 0:
        return _rows_of(X, np.asarray(drawn.rows)), lab.from_rarity[drawn.labels()]
    values = drawn.features(n_jobs)
    cats, donors = drawn.level_rows() if data.has_categorical else ([], None)
    if cats:
        donors = np.asarray(donors).reshape(drawn.n_synthetic, len(cats))
    if isinstance(X, (np.ndarray, list, tuple)):
        X_res = _array_with_levels(X, values, np.asarray(drawn.rows), cats, donors)
    else:
        if list(data.feature_names) != [str(c) for c in _column_names(X)]:
            raise ValueError(
                "this sampler makes synthetic rows from numbers: a table with text columns not "
                "declared categorical cannot take them; declare them with categorical_features= "
                "or encode them first"
            )
        if cats:
            kept = _rows_of(X, np.asarray(drawn.rows))
            X_res = _concat(kept, _synthetic_table(X, values[len(drawn.rows):], dict(zip(cats, donors.T))))
        else:
            X_res = _table_like(X, values)
    return X_res, lab.from_rarity[drawn.labels()]


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
                out[c] = v.astype(dt) if getattr(dt, "kind", "O") in "iuf" else v
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

    ``cleans``: the sampler cleans every class but the minority, the only
    ``sampling_strategy`` it takes. A ``%(strategy)s`` line of the
    docstring becomes the ``sampling_strategy`` (and ``random_state``)
    parameters. ``example``, ``(arguments, expression, value)``: the
    docstring ends with ``n_jobs`` and an example on ``ecoli4``: the class
    built with ``arguments`` resamples, then ``expression`` gives ``value``."""
    unknown = [n for n in names if n not in _REGISTRY]
    assert not unknown, f"not in the sampler registry: {unknown}"

    def declare(cls):
        cls.registry_names = tuple(names)
        if cleans:
            cls._spec = _cleaning_only(cls._spec)
        cls.__init__ = _spec.keyword_init([*params.items(), ("categorical_features", None)])
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
    True: 'sampling_strategy : {"auto"}, default="auto"\n    Every class but the minority is cleaned.',
    False: 'sampling_strategy : float, str or dict, default="auto"\n'
    "    imbalanced-learn's (``\"auto\"``: every class but the majority to the\n"
    "    majority's size).",
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


def _one_nn_one_seed(sampler, message):
    """Hart's 1-NN rule and one seed row: the only ``n_neighbors`` and
    ``n_seeds_S`` of CNN and OSS."""
    if sampler.n_neighbors not in (None, 1) or sampler.n_seeds_S != 1:
        raise ValueError(message)


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
        seed = getattr(self, "random_state", getattr(self, "seed", 42))
        if seed is None:
            return 42
        if isinstance(seed, np.random.RandomState):
            return int(seed.randint(0, 2**31 - 1))
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
            raise ValueError(f"random_state={seed!r} is invalid; expected a non-negative integer or None")
        return int(seed)

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
        feats, names = V.features(X, n_jobs, self.categorical_features)
        lab = V.labels(y_labels, None, type(self).__name__)
        data = _rarity.Data(feats, lab.codes, lab.class_names, "y", None, n_jobs)
        self.spec_ = self._spec(lab)
        drawn = _rarity.resample(self.spec_, data, self._seed(), n_jobs)
        X_res, ids = _resample_outputs(X, y, drawn, lab, data, n_jobs)
        self.classes_ = lab.classes_
        self.keep_rates_ = np.asarray(drawn.keep_rates)[lab.to_rarity]
        self.notes_ = list(drawn.notes)
        self.n_features_in_ = len(feats.column_names)
        if names is not None:
            self.feature_names_in_ = names
        if self._selects:
            self.sample_indices_ = np.asarray(drawn.rows)
        before = np.bincount(lab.codes, minlength=len(lab.classes_))[lab.to_rarity]
        after = np.bincount(ids, minlength=len(lab.classes_))
        self.sampling_strategy_ = {
            c.item() if hasattr(c, "item") else c: int(a)
            for c, b, a in zip(lab.classes_, before, after)
            if a != b
        }
        y_out = _y_like(y, ids if one_hot else lab.classes_[ids], one_hot)
        return X_res, y_out

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
            tags.input_tags.allow_nan = False
            tags.input_tags.sparse = False
            return tags
        tags = Tags(
            estimator_type="sampler",
            target_tags=TargetTags(required=True),
            transformer_tags=None,
            regressor_tags=None,
            classifier_tags=None,
            sampler_tags=SamplerTags(sample_indices=self._selects),
        )
        tags.input_tags = InputTags(two_d_array=True, sparse=False, dataframe=True, allow_nan=False)
        return tags


# ---- sampling_strategy, imbalanced-learn's vocabulary


def _counts(lab):
    return np.bincount(lab.codes, minlength=len(lab.classes_))[lab.to_rarity]


def _target_counts(strategy, lab, kind):
    """Per class (``classes_`` order), the rows wanted after resampling, from
    imbalanced-learn's ``sampling_strategy`` (``kind``: ``under`` or ``over``)."""
    counts = _counts(lab)
    n_min, n_max = counts.min(), counts.max()
    k = len(counts)
    classes = list(lab.classes_)
    if isinstance(strategy, str):
        words = {
            "auto": "not minority" if kind == "under" else "not majority",
            "majority": "majority",
            "minority": "minority",
            "not minority": "not minority",
            "not majority": "not majority",
            "all": "all",
        }
        if strategy not in words:
            raise ValueError(
                f"sampling_strategy={strategy!r} is invalid; expected 'auto', 'majority', "
                "'minority', 'not minority', 'not majority', 'all', a float or a dict"
            )
        w = words[strategy]
        pick = {
            "majority": counts == n_max,
            "minority": counts == n_min,
            "not minority": counts != n_min,
            "not majority": counts != n_max,
            "all": np.ones(k, dtype=bool),
        }[w]
        goal = n_min if kind == "under" else n_max
        return np.where(pick, goal, counts)
    if isinstance(strategy, dict):
        out = counts.copy()
        for c, n in strategy.items():
            if c not in classes:
                raise ValueError(f"sampling_strategy names class {c!r}, which y does not have")
            j = classes.index(c)
            if kind == "under" and n > counts[j]:
                raise ValueError(f"sampling_strategy asks {n} rows of class {c!r}, which has {counts[j]}")
            if kind == "over" and n < counts[j]:
                raise ValueError(f"sampling_strategy asks {n} rows of class {c!r}, which has {counts[j]}")
            out[j] = int(n)
        return out
    if isinstance(strategy, numbers.Real) and not isinstance(strategy, bool):
        if k != 2:
            raise ValueError("a float sampling_strategy is defined for two classes; give a dict")
        r = float(strategy)
        if not 0 < r <= 1:
            raise ValueError(f"sampling_strategy={r} is invalid; expected a ratio in (0, 1]")
        out = counts.copy()
        if kind == "under":
            j = int(np.argmax(counts))
            out[j] = int(n_min / r)
        else:
            j = int(np.argmin(counts))
            out[j] = int(n_max * r)
        return out
    raise ValueError(f"sampling_strategy={strategy!r} is invalid")


def _rarity_order(values, lab):
    """Per-class values given in ``classes_`` order, in rarity's class order."""
    return [values[lab.from_rarity[r]] for r in range(len(values))]


def _under_spec(strategy, lab):
    want = _target_counts(strategy, lab, "under")
    counts = _counts(lab)
    rates = [float(w) / float(c) for w, c in zip(want, counts)]
    return f"under(rates={_spec.spec_text(_rarity_order(rates, lab))},exact)"


def _over_counts(strategy, lab):
    want = _target_counts(strategy, lab, "over")
    return _spec.spec_text([int(x) for x in _rarity_order(want, lab)])


def _cleaning_only(spec):
    """``spec`` (a class's ``_spec``) checking first that
    ``sampling_strategy`` asks for what rarity's cleaning does."""

    def checked(self, lab):
        if self.sampling_strategy not in ("auto", "not minority"):
            raise ValueError(
                f"{type(self).__name__}: sampling_strategy={self.sampling_strategy!r} has no rarity "
                "equivalent; rarity cleans every class but the minority ('auto')"
            )
        return spec(self, lab)

    return checked


# ---- imbalanced-learn's classes


@_declared(("under",), sampling_strategy="auto", random_state=None, replacement=False, n_jobs=None)
class RandomUnderSampler(_Base):
    """Random undersampling (rarity's ``under`` with exact counts).

    Parameters
    ----------
    sampling_strategy : float, str or dict, default="auto"
        imbalanced-learn's: ``"auto"`` reduces every class but the minority to
        the minority's size; a float is the minority/majority ratio wanted
        (two classes); a dict gives each class's rows.
    random_state : int or None, default=None
        The seed (``None``: rarity's default seed 42).
    replacement : bool, default=False
        Only ``False`` (rows drawn without replacement).
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

    def _spec(self, lab):
        if self.replacement:
            raise ValueError("replacement=True has no rarity equivalent; use Bootstrap or BalancedBootstrap")
        return _under_spec(self.sampling_strategy, lab)


@_declared(("over",), sampling_strategy="auto", random_state=None, shrinkage=None, n_jobs=None)
class RandomOverSampler(_Base):
    """Random oversampling with replacement (rarity's ``over``).

    Parameters
    ----------
    %(strategy)s
    shrinkage : None, default=None
        Only ``None`` (no smoothed bootstrap).
    n_jobs : int, default=None
        Threads.

    Examples
    --------
    >>> import numpy as np
    >>> from rarity.sampling import RandomOverSampler
    >>> X = np.arange(20.0).reshape(10, 2); y = np.array([0] * 8 + [1] * 2)
    >>> np.bincount(RandomOverSampler().fit_resample(X, y)[1]).tolist()
    [8, 8]
    """

    def _spec(self, lab):
        if self.shrinkage is not None:
            raise ValueError("shrinkage has no rarity equivalent; leave it None")
        return f"over(counts={_over_counts(self.sampling_strategy, lab)})"


@_declared(("smote",), sampling_strategy="auto", random_state=None, k_neighbors=5, n_jobs=None)
class SMOTE(_Base):
    """SMOTE (Chawla et al. 2002): synthetic minority rows on segments to
    ``k_neighbors`` nearest same-class rows (rarity's ``smote``).

    Parameters
    ----------
    %(strategy)s
    k_neighbors : int, default=5
        Neighbours of each minority row. Every class to enlarge needs more
        than ``k_neighbors`` rows: with fewer, ``fit_resample`` raises
        ``ValueError`` naming the ``k`` that fits (as imbalanced-learn does).
    n_jobs : int, default=None
        Threads.

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
        return f"smote(k={_spec.spec_text(self.k_neighbors)},counts={_over_counts(self.sampling_strategy, lab)})"


@_declared(
    ("borderline-smote",), ("random_state=0", "len(Xr) > len(X)", "True"),
    sampling_strategy="auto", random_state=None, k_neighbors=5, n_jobs=None, m_neighbors=10, kind="borderline-1",
)
class BorderlineSMOTE(_Base):
    """Borderline-SMOTE1 (Han et al. 2005): SMOTE from the minority rows in
    danger among their ``m_neighbors`` neighbours (rarity's ``borderline-smote``).

    Parameters
    ----------
    %(strategy)s
    k_neighbors : int, default=5
        As :class:`SMOTE` (more rows than ``k_neighbors`` per class to enlarge).
    m_neighbors : int, default=10
    kind : {"borderline-1"}, default="borderline-1"
        Only Borderline-SMOTE1.
    """

    def _spec(self, lab):
        if self.kind != "borderline-1":
            raise ValueError(f"kind={self.kind!r} has no rarity equivalent; rarity has borderline-1")
        return (
            f"borderline-smote(k={_spec.spec_text(self.k_neighbors)},m={_spec.spec_text(self.m_neighbors)},"
            f"counts={_over_counts(self.sampling_strategy, lab)})"
        )


@_declared(
    ("adasyn",), ("random_state=0", "len(Xr) > len(X)", "True"),
    sampling_strategy="auto", random_state=None, n_neighbors=5, n_jobs=None,
)
class ADASYN(_Base):
    """ADASYN (He et al. 2008): SMOTE weighted by each minority row's
    other-class neighbours (rarity's ``adasyn``).

    Parameters
    ----------
    %(strategy)s
    n_neighbors : int, default=5
        As :class:`SMOTE`'s ``k_neighbors`` (more rows than it per class to enlarge).
    """

    def _spec(self, lab):
        return f"adasyn(k={_spec.spec_text(self.n_neighbors)},counts={_over_counts(self.sampling_strategy, lab)})"


@_declared(("tomek",), ("", "len(yr) <= len(y)", "True"), cleans=True, sampling_strategy="auto", n_jobs=None)
class TomekLinks(_Base):
    """Removes the majority member of every Tomek link (Tomek 1976; rarity's ``tomek``).

    Parameters
    ----------
    %(strategy)s
    """

    def _spec(self, lab):
        return "tomek"


@_declared(
    ("enn",), ("", "s.spec_", "'enn(k=3,rule=all,ties=lowest)'"), cleans=True,
    sampling_strategy="auto", n_neighbors=3, kind_sel="all", n_jobs=None,
)
class EditedNearestNeighbours(_Base):
    """Edited nearest neighbours (Wilson 1972; rarity's ``enn``) with
    imbalanced-learn's conventions: ``kind_sel="all"`` removes a row when any
    of its ``n_neighbors`` neighbours has another class (``enn(rule=all)``);
    ``kind_sel="mode"`` when the most common neighbour class, ties going to
    the smallest label, is not its own (``enn(ties=lowest)``).

    Parameters
    ----------
    %(strategy)s
    n_neighbors : int, default=3
    kind_sel : {"all", "mode"}, default="all"
    """

    def _spec(self, lab):
        if self.kind_sel not in ("all", "mode"):
            raise ValueError(f"kind_sel={self.kind_sel!r} is invalid; expected 'all' or 'mode'")
        return f"enn(k={_spec.spec_text(self.n_neighbors)},rule={self.kind_sel},ties=lowest)"


@_declared(
    ("cnn",), ("random_state=0", "len(Xr) < len(X)", "True"), cleans=True,
    sampling_strategy="auto", random_state=None, n_neighbors=None, n_seeds_S=1, n_jobs=None,
)
class CondensedNearestNeighbour(_Base):
    """Hart's condensed nearest neighbour (1968; rarity's ``cnn``).

    rarity follows Hart's condition more faithfully than imbalanced-learn's
    one-pass version: the store starts with the minority and one random row
    of the class being reduced, that class's rows are visited in random
    order and added whenever the 1-NN rule on the store misclassifies them,
    and passes repeat until one adds nothing (a consistent subset). The
    rows kept therefore differ from imbalanced-learn's.

    Parameters
    ----------
    %(strategy)s
    n_neighbors : None or 1, default=None
        The 1-NN rule (Hart's).
    n_seeds_S : int, default=1
        One seed row (Hart's).
    """

    def _spec(self, lab):
        _one_nn_one_seed(self, "rarity's CNN is Hart's: n_neighbors=None (1) and n_seeds_S=1")
        return "cnn"


@_declared(
    ("oss",), ("random_state=0", "len(Xr) < len(X)", "True"), cleans=True,
    sampling_strategy="auto", random_state=None, n_neighbors=None, n_seeds_S=1, n_jobs=None,
)
class OneSidedSelection(_Base):
    """One-sided selection (Kubat & Matwin 1997; rarity's ``oss``).

    Parameters
    ----------
    %(strategy)s
    n_neighbors : None or 1, default=None
    n_seeds_S : int, default=1
    """

    def _spec(self, lab):
        _one_nn_one_seed(self, "rarity's OSS uses the 1-NN rule and one seed: n_neighbors=None, n_seeds_S=1")
        return "oss"


@_declared(
    ("ncl",), ("", "s.spec_", "'ncl(k=3,ties=lowest,self_vote=true,threshold=0.5,strict=true)'"), cleans=True,
    sampling_strategy="auto", edited_nearest_neighbours=None, n_neighbors=3, threshold_cleaning=0.5, n_jobs=None,
)
class NeighbourhoodCleaningRule(_Base):
    """The neighbourhood cleaning rule (Laurikkala 2001; rarity's ``ncl``) with
    imbalanced-learn's conventions: ENN with ``kind_sel="mode"`` (ties to the
    smallest label), a minority row counted among its own voters when it is
    tested for misclassification, and a class cleaned when its size is above
    ``threshold_cleaning`` times the minority's
    (``ncl(ties=lowest,self_vote=true,strict=true)``).

    Parameters
    ----------
    %(strategy)s
    edited_nearest_neighbours : None, default=None
        Only ``None`` (ENN with ``kind_sel="mode"``).
    n_neighbors : int, default=3
    threshold_cleaning : float, default=0.5
    """

    def _spec(self, lab):
        if self.edited_nearest_neighbours is not None:
            raise ValueError("edited_nearest_neighbours: only None (ENN with kind_sel='mode')")
        return (
            f"ncl(k={_spec.spec_text(self.n_neighbors)},ties=lowest,self_vote=true,"
            f"threshold={_spec.spec_text(float(self.threshold_cleaning))},strict=true)"
        )


@_declared(
    ("nearmiss1", "nearmiss2", "nearmiss3"), ("version=3", "sorted(set(yr.tolist()))", "[0, 1]"), cleans=True,
    sampling_strategy="auto", version=1, n_neighbors=3, n_neighbors_ver3=3, n_jobs=None,
)
class NearMiss(_Base):
    """NearMiss-1, 2 and 3 (Mani & Zhang 2003; rarity's ``nearmiss1..3``):
    every class reduced to the minority's size.

    Parameters
    ----------
    %(strategy)s
    version : {1, 2, 3}, default=1
    n_neighbors : int, default=3
    n_neighbors_ver3 : int, default=3
    """

    def _spec(self, lab):
        if self.version not in (1, 2, 3):
            raise ValueError(f"version={self.version!r} is invalid; expected 1, 2 or 3")
        k = _spec.spec_text(self.n_neighbors)
        if self.version == 3:
            return f"nearmiss3(k={k},k3={_spec.spec_text(self.n_neighbors_ver3)})"
        return f"nearmiss{self.version}(k={k})"


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
    smote : None, default=None
        Only ``None`` (SMOTE with 5 neighbours).
    tomek : None, default=None
        Only ``None``.
    """

    def _spec(self, lab):
        if self.smote is not None or self.tomek is not None:
            raise ValueError("smote and tomek: only None")
        return f"smote-tomek(counts={_over_counts(self.sampling_strategy, lab)})"


@_declared(
    ("smote-enn",), ("random_state=0", "len(Xr) == len(yr)", "True"),
    sampling_strategy="auto", random_state=None, smote=None, enn=None, n_jobs=None,
)
class SMOTEENN(_Base):
    """SMOTE, then ENN (``kind_sel="all"``) on every class (Batista et al.
    2004; rarity's ``smote-enn(rule=all)``).

    Parameters
    ----------
    %(strategy)s
    smote : None, default=None
    enn : None, default=None
    """

    def _spec(self, lab):
        if self.smote is not None or self.enn is not None:
            raise ValueError("smote and enn: only None")
        return f"smote-enn(counts={_over_counts(self.sampling_strategy, lab)},rule=all)"


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

    def __init__(self, spec="under", seed=42, n_jobs=None, categorical_features=None):
        self.spec = spec
        self.seed = seed
        self.n_jobs = n_jobs
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
    RandomUnderSampler, RandomOverSampler, SMOTE, BorderlineSMOTE, ADASYN, TomekLinks,
    EditedNearestNeighbours, CondensedNearestNeighbour, OneSidedSelection,
    NeighbourhoodCleaningRule, NearMiss, SMOTETomek, SMOTEENN,
)
_IMBLEARN = {n: cls for cls in _IMBLEARN_CLASSES for n in cls.registry_names}


def _rarity_class(entry):
    name = entry["name"]
    params = entry["params"]
    defaults = {p["name"]: _spec.default_value(p["default"], p["expected"]) for p in params}
    sig = [(_spec.python_name(p["name"]), defaults[p["name"]]) for p in params]
    sig += [("seed", 42), ("n_jobs", None)]
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
