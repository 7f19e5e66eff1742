"""imbalanced-learn's parameter forms, read into rarity's sampler specs.

imbalanced-learn (0.14) lets a parameter be an int or an estimator object
(``k_neighbors=NearestNeighbors(n_neighbors=6)``), and ``sampling_strategy``
a word, a float, a dict, a list or a callable. The classes of
:mod:`rarity.sampling` that carry its names read every form here: a
neighbours object gives its ``n_neighbors`` (less the row itself, where
imbalanced-learn counts it), a ``sampling_strategy`` the classes and sizes
it asks for, as imbalanced-learn's ``check_sampling_strategy`` reads them.
The fitted estimator attributes imbalanced-learn exposes (``nn_k_``,
``nn_m_``, ``nn_``...) are built here too, from scikit-learn when it is
installed: they hold the parameters, rarity's own search does the work.
"""

from __future__ import annotations

import numbers

import numpy as np

#: ``sampling_strategy`` words and the classes each targets.
WORDS = ("auto", "majority", "minority", "not minority", "not majority", "all")


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))


def neighbours(value, name, itself=1, allow_none=None):
    """The ``k`` an imbalanced-learn neighbours parameter asks for: an int,
    or an object with ``n_neighbors`` (``kneighbors``: a scikit-learn
    ``NearestNeighbors`` or ``KNeighborsClassifier``, or a duck type), whose
    ``n_neighbors`` counts the row itself when ``itself`` is 1 (as
    imbalanced-learn builds ``NearestNeighbors(n_neighbors=k + 1)``)."""
    if value is None and allow_none is not None:
        return allow_none
    if _is_int(value):
        if value < 1:
            raise ValueError(f"{name}={value!r} is invalid; expected an int >= 1 or a nearest-neighbours object")
        return int(value)
    k = getattr(value, "n_neighbors", None)
    if hasattr(value, "kneighbors") and _is_int(k):
        if k - itself < 1:
            raise ValueError(f"{name}: the estimator's n_neighbors={k} leaves no neighbour once the row itself is counted")
        return int(k) - itself
    raise ValueError(
        f"{name}={value!r} is invalid; expected an int or an estimator with kneighbors and "
        "n_neighbors (e.g. sklearn.neighbors.NearestNeighbors)"
    )


def neighbours_object(value, k, itself=1, classifier=False):
    """imbalanced-learn's fitted neighbours attribute for parameter
    ``value``: a clone of the object given, else a scikit-learn
    ``NearestNeighbors`` (``KNeighborsClassifier`` for ``classifier``) of
    ``k + itself`` neighbours; ``None`` without scikit-learn. It is not
    fitted: rarity searches the neighbours itself."""
    try:
        from sklearn.base import clone
        from sklearn.neighbors import KNeighborsClassifier, NearestNeighbors
    except ImportError:
        return None
    if not _is_int(value) and value is not None:
        return clone(value)
    cls = KNeighborsClassifier if classifier else NearestNeighbors
    return cls(n_neighbors=k + itself)


def _counts(lab):
    return np.bincount(lab.codes, minlength=len(lab.classes_))[lab.to_rarity]


def _item(c):
    return c.item() if hasattr(c, "item") else c


def _words(strategy, counts, kind):
    """The classes (a mask in ``classes_`` order) a word targets."""
    if strategy not in WORDS:
        raise ValueError(
            f"sampling_strategy={strategy!r} is invalid; expected one of {', '.join(map(repr, WORDS))}, "
            "a float, a dict, a list or a callable"
        )
    if strategy == "majority" and kind == "over-sampling":
        raise ValueError("'sampling_strategy'='majority' cannot be used with over-sampler.")
    if strategy == "minority" and kind in ("under-sampling", "clean-sampling"):
        raise ValueError(f"'sampling_strategy'='minority' cannot be used with {kind.split('-')[0]}-sampler.")
    if strategy == "auto":
        strategy = "not majority" if kind == "over-sampling" else "not minority"
    # imbalanced-learn's minority and majority: the first class (in label
    # order) with the fewest or most rows.
    lo, hi = int(np.argmin(counts)), int(np.argmax(counts))
    k = len(counts)
    return {
        "majority": np.arange(k) == hi,
        "minority": np.arange(k) == lo,
        "not minority": np.arange(k) != lo,
        "not majority": np.arange(k) != hi,
        "all": np.ones(k, dtype=bool),
    }[strategy]


def strategy(sampling_strategy, lab, kind, y=None):
    """imbalanced-learn's ``sampling_strategy_``: a dict ``{class: n}``, in
    ``classes_`` order, of the classes the strategy targets, ``n`` being
    the rows to make (``over-sampling``), the rows to keep
    (``under-sampling``) or the minority's size (``clean-sampling``, whose
    classes are cleaned)."""
    counts = _counts(lab)
    classes = [_item(c) for c in lab.classes_]
    n_min, n_max = int(counts.min()), int(counts.max())
    s = sampling_strategy
    if callable(s):
        s = s(lab.classes_[lab.from_rarity[lab.codes]] if y is None else y)
        if not isinstance(s, dict):
            raise ValueError("a callable sampling_strategy must return a dict of {class: rows}")
    if isinstance(s, str):
        mask = _words(s, counts, kind)
        goal = {"over-sampling": lambda n: n_max - n, "under-sampling": lambda n: n_min}
        f = goal.get(kind, lambda n: n_min)
        return {c: int(f(n)) for c, n, m in zip(classes, counts, mask) if m}
    if isinstance(s, dict):
        if kind == "clean-sampling":
            raise ValueError(
                "'clean-sampling' methods do let the user specify the sampling ratio: give the classes "
                "to clean as a list, or a word"
            )
        out = {}
        for c, n in s.items():
            if c not in classes:
                raise ValueError(f"The {c!r} target class is/are not present in the data.")
            j = classes.index(c)
            if not _is_int(n) or n < 0:
                raise ValueError(f"sampling_strategy asks {n!r} rows of class {c!r}; expected an int >= 0")
            if kind == "over-sampling":
                if n < counts[j]:
                    raise ValueError(
                        f"With over-sampling methods, the number of samples in a class should be greater or "
                        f"equal to the original number of samples. Originally, there is {counts[j]} samples "
                        f"and {n} samples are asked."
                    )
                out[c] = int(n - counts[j])
            else:
                if n > counts[j]:
                    raise ValueError(
                        f"With under-sampling methods, the number of samples in a class should be less or "
                        f"equal to the original number of samples. Originally, there is {counts[j]} samples "
                        f"and {n} samples are asked."
                    )
                out[c] = int(n)
        return out
    if isinstance(s, (list, tuple)):
        if kind != "clean-sampling":
            raise ValueError("'sampling_strategy' cannot be a list for samplers which are not cleaning methods.")
        for c in s:
            if c not in classes:
                raise ValueError(f"The {c!r} target class is/are not present in the data.")
        return {c: n_min for c in classes if c in s}
    if isinstance(s, numbers.Real) and not isinstance(s, bool):
        if kind == "clean-sampling":
            raise ValueError("'clean-sampling' methods do not support a float sampling_strategy: give a list or a word")
        if len(classes) != 2:
            raise ValueError('"sampling_strategy" can be a float only when the type of target is binary.')
        r = float(s)
        if not 0 < r <= 1:
            raise ValueError(f"sampling_strategy={r} is invalid; expected a ratio in (0, 1]")
        lo, hi = int(np.argmin(counts)), int(np.argmax(counts))
        if kind == "over-sampling":
            new = int(np.round(n_max * r)) - int(counts[lo])
            if new < 0:
                raise ValueError(
                    "The specified ratio required to remove samples from the minority class while trying "
                    "to generate new samples. Please increase the ratio."
                )
            return {classes[lo]: new}
        keep = int(np.round(n_min / r))
        if keep > counts[hi]:
            raise ValueError(
                "The specified ratio required to generate new sample in the majority class while trying "
                "to remove samples. Please increase the ratio."
            )
        return {classes[hi]: keep}
    raise ValueError(f"sampling_strategy={sampling_strategy!r} is invalid")


def rarity_order(values, lab):
    """Per-class values given in ``classes_`` order, in rarity's class order."""
    return [values[lab.from_rarity[r]] for r in range(len(values))]


def sizes(strat, lab, kind):
    """Per class (rarity order), the rows wanted after resampling for the
    ``sampling_strategy_`` dict ``strat``."""
    counts = _counts(lab)
    classes = [_item(c) for c in lab.classes_]
    want = counts.copy()
    for c, n in strat.items():
        j = classes.index(c)
        want[j] = counts[j] + n if kind == "over-sampling" else n
    return [int(v) for v in rarity_order(want, lab)]


def class_ids(strat, lab):
    """The rarity class ids of the classes of ``strat``, sorted."""
    classes = [_item(c) for c in lab.classes_]
    return sorted(int(lab.to_rarity[classes.index(c)]) for c in strat)


def grouped(rows, lab):
    """``rows`` (indices of kept rows, in rarity's input order) ordered
    class by class in ``classes_`` order, input order within a class: the
    order imbalanced-learn's samplers return their rows in."""
    rows = np.asarray(rows, dtype=np.int64)
    pos = lab.from_rarity[lab.codes[rows]]
    return rows[np.argsort(pos, kind="stable")]


def get(obj, name, default):
    """Parameter ``name`` of an estimator object (``get_params`` when it has
    one), or ``default``."""
    if obj is None:
        return default
    params = obj.get_params(deep=False) if hasattr(obj, "get_params") else vars(obj)
    return params.get(name, default)
