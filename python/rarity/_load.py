"""``rarity.load``: a model file as the estimator class that fits it.

A model file holds its strategy spec; the estimator is the first class
whose parameters write that spec again (checked by writing it):
:class:`GradientBoosting` for a ``gbdt`` under scikit-learn's names, a
named ensemble class for its registry entry, :class:`Classifier` for any
other spec.
"""

from __future__ import annotations

import os

from . import _rarity
from ._boosting import GradientBoosting
from ._classifier import ENSEMBLE_CLASSES, Classifier


def load(path):
    """The fitted estimator in the rarity model file at ``path``.

    Reads any model ``rarity fit -o`` or ``save`` writes (binary or JSON) as
    ``rarity predict`` reads it: the header first, the size checked against
    the machine's memory, the checksum and every index validated. The
    estimator is of the class that fits the model's spec, with the
    parameters that write it (``PTBagging(n=10)`` for ``pt-bagging(n=10)``,
    :class:`GradientBoosting` for a ``gbdt`` its names cover, else
    :class:`Classifier` with the spec); see
    :meth:`Classifier.load <rarity.Classifier.load>` for ``classes_`` and
    ``feature_names_in_``. ``save`` then writes the same bytes again.

    Parameters
    ----------
    path : str or path-like
        The model file.

    Returns
    -------
    estimator : Classifier, GradientBoosting or a named ensemble class
        Fitted: ``predict``, ``predict_proba``, ``reason_codes``,
        ``to_onnx`` and ``save`` work at once.

    Raises
    ------
    ValueError
        When the file is not a rarity model or is damaged.

    Examples
    --------
    >>> import os, tempfile, rarity
    >>> X, y = rarity.datasets.load("ecoli4")
    >>> clf = rarity.PTBagging(n=5).fit(X, y)
    >>> path = os.path.join(tempfile.mkdtemp(), "m.rarity")
    >>> clf.save(path)
    >>> back = rarity.load(path)
    >>> type(back).__name__, back.n, back.to_bytes() == clf.to_bytes()
    ('PTBagging', 5, True)
    """
    model = _rarity.Model.load(os.fspath(path))
    for cls in (GradientBoosting, *ENSEMBLE_CLASSES.values(), Classifier):
        est = cls._loaded(model)
        if est is not None:
            return est
    raise ValueError(f"{os.fspath(path)}: no estimator class writes the spec {model.spec!r}")
