"""rarity: learning from imbalanced data, with scikit-learn's and
imbalanced-learn's contracts.

A thin layer over the rarity library (Rust): every learner, sampler,
decision rule and metric, with its parameters, defaults and messages, comes
from the library's registries, so Python and the ``rarity`` command line
give the same results for the same seed.

- Estimators: :class:`Classifier` (any strategy spec), the papers' methods
  (:class:`PTBagging`, :class:`EBBagging`, :class:`RBBagging`,
  :class:`SMOTEBagging`, :class:`UnderOverBagging`, :class:`UnderBagging`,
  :class:`BalancedForest`, :class:`EasyEnsemble`, :class:`RUSBoost`,
  :class:`RandomForest`, :class:`Bagging`, :class:`RandomDecisionTrees`) and
  :class:`CorrectedClassifier` (any classifier trained on a sample, with
  probabilities corrected for the sample's keep rates: Dal Pozzolo et al.
  2015, eq. 9 and 12), and :class:`GradientBoosting` (``gbdt`` under
  scikit-learn's ``HistGradientBoostingClassifier`` names).
- :func:`load`: a model file ``rarity fit`` wrote, as its estimator class.
- :func:`explain` (permutation and split-gain importances) and :func:`show`
  (a fitted model's summary): ``rarity explain`` and ``rarity show``.
- :func:`monitor`: a model watched on a current table against a reference
  one (input and score drift, the alert rate, the current priors without
  labels, labelled metrics): ``rarity monitor``.
- :mod:`rarity.sampling`: every sampler with ``fit_resample``;
  :func:`resample`: one draw with its class counts (``rarity resample``).
- :mod:`rarity.experiments`: the papers' experiments over datasets
  (``rarity experiment calibration``, ``pt-bagging``, ``reverse-testing``).
- :mod:`rarity.calibration`, :mod:`rarity.metrics`, :mod:`rarity.stats`,
  :mod:`rarity.select`, :mod:`rarity.datasets`, and :func:`run`.
- :mod:`rarity.model_selection`: time and group folds as scikit-learn
  ``cv=`` splitters.

Threads follow ``n_jobs`` (``None``: every core); the GIL is released while
rarity works, ``KeyboardInterrupt`` stops long work, and models pickle as
rarity's versioned model files.
"""

from __future__ import annotations

from . import _rarity
from ._classifier import ENSEMBLE_CLASSES as _ENSEMBLES
from ._boosting import GradientBoosting
from ._classifier import Classifier, CorrectedClassifier
from ._evaluate import EvaluateResult, evaluate
from ._explain import Explanation, ModelSummary, explain, show
from ._load import load
from ._monitor import MonitorResult, monitor
from ._resample import ResampleResult, resample
from ._run import RunResult, run
from ._validation import NotANumberError
from . import calibration, datasets, experiments, metrics, model_selection, sampling, select, stats

__version__ = _rarity.__version__

globals().update({c.__name__: c for c in _ENSEMBLES.values()})

__all__ = [
    "Classifier",
    "CorrectedClassifier",
    "EvaluateResult",
    "Explanation",
    "GradientBoosting",
    "ModelSummary",
    "MonitorResult",
    "NotANumberError",
    "ResampleResult",
    "RunResult",
    "calibration",
    "datasets",
    "evaluate",
    "experiments",
    "explain",
    "export_onnx",
    "load",
    "metrics",
    "model_selection",
    "monitor",
    "registry",
    "resample",
    "run",
    "sampling",
    "select",
    "show",
    "stats",
    *sorted(c.__name__ for c in _ENSEMBLES.values()),
]


def export_onnx(model, path=None):
    """Writes a fitted rarity estimator as an ONNX model: ``model.to_onnx(path)``.

    Examples
    --------
    >>> import rarity
    >>> X, y = rarity.datasets.load("glass6")
    >>> m = rarity.Classifier(spec="tree(max_depth=3)").fit(X, y)
    >>> rarity.export_onnx(m)[:2]
    b'\\x08\\n'
    """
    if not hasattr(model, "to_onnx"):
        raise ValueError(
            f"{type(model).__name__} is not a rarity estimator with an ONNX export; "
            "export the estimators of rarity (Classifier and the named ensembles)"
        )
    return model.to_onnx(path)


def registry(family):
    """The library's registry of ``family``: ``"learners"``, ``"ensembles"``,
    ``"samplers"``, ``"stages"`` or ``"metrics"``.

    Returns
    -------
    list of dict
        Per entry its ``name``, ``summary`` and ``params`` (each with
        ``name``, ``expected``, ``default`` and ``doc``); ensembles add their
        default ``decision``; metrics their ``key``, ``label``, ``direction``,
        ``needs`` and the tasks they are defined for.

    Examples
    --------
    >>> import rarity
    >>> [p["name"] for p in rarity.registry("samplers")[2]["params"]][:2]
    ['beta', 'ratio']
    """
    return _rarity.registry(family)

