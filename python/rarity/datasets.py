"""The small real datasets bundled with rarity (KEEL and UCI; sources in the
repository's ``data/README.md``), read as ``rarity --dataset NAME`` reads them.
"""

from __future__ import annotations

import numpy as np

from . import _rarity

__all__ = ["names", "describe", "load"]


def names():
    """Names of the bundled datasets, binary first.

    Returns
    -------
    list of str

    Examples
    --------
    >>> import rarity
    >>> "pima" in rarity.datasets.names()
    True
    """
    return [n for n, _, _ in _rarity.bundled()]


def describe():
    """Every bundled dataset.

    Returns
    -------
    list of tuple
        ``(name, kind, source)``, kind ``binary`` or ``multiclass``.

    Examples
    --------
    >>> import rarity
    >>> rarity.datasets.describe()[0]
    ('pima', 'binary', 'KEEL (UCI Pima Indians Diabetes)')
    """
    return list(_rarity.bundled())


def load(name, as_frame=False):
    """A bundled dataset as ``(X, y)``.

    Parameters
    ----------
    name : str
        One of :func:`names`.
    as_frame : bool, default=False
        Return ``X`` as a pandas DataFrame (named columns) and ``y`` as a
        Series (needs pandas).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features) or DataFrame
    y : ndarray of shape (n_samples,) or Series
        The class labels: integers (``int64``) when every label of the data is
        an integer, as scikit-learn's loaders return them (so its scorers'
        ``pos_label=1`` applies); else the labels as written (e.g.
        ``"positive"``).

    Examples
    --------
    >>> import rarity
    >>> X, y = rarity.datasets.load("ecoli4")
    >>> X.shape, y.dtype, sorted(set(y.tolist()))
    ((336, 7), dtype('int64'), [0, 1])
    """
    data = _rarity.load_bundled(name)
    X, codes = _rarity.dataset_arrays(data)
    y = _label_values(data.class_names)[codes]
    if as_frame:
        import pandas as pd

        return pd.DataFrame(X, columns=data.feature_names), pd.Series(y, name="class")
    return X, y


def _label_values(names):
    """The class names as an ``int64`` array when each is an integer written
    plainly (``"0"``, ``"-1"``, not ``"01"``), else as text."""
    try:
        values = [int(n) for n in names]
    except ValueError:
        return np.asarray(names, dtype=object)
    if [str(v) for v in values] != list(names):
        return np.asarray(names, dtype=object)
    return np.asarray(values, dtype=np.int64)
