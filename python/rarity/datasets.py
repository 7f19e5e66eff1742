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
        The class labels as written in the data (e.g. ``"positive"``).

    Examples
    --------
    >>> import rarity
    >>> X, y = rarity.datasets.load("ecoli4")
    >>> X.shape, sorted(set(y))
    ((336, 7), ['0', '1'])
    """
    data = _rarity.load_bundled(name)
    X, codes = _rarity.dataset_arrays(data)
    y = np.asarray(data.class_names, dtype=object)[codes]
    if as_frame:
        import pandas as pd

        return pd.DataFrame(X, columns=data.feature_names), pd.Series(y, name="class")
    return X, y
