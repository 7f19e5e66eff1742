""":class:`GradientBoosting`: rarity's ``gbdt`` learner under scikit-learn's
``HistGradientBoostingClassifier`` parameter names.

Where a scikit-learn parameter means what a ``gbdt`` parameter means, it
takes scikit-learn's name (``max_iter`` is ``rounds``, ``max_leaf_nodes``
is ``max_leaves``, ...); the defaults are the registry's, so the class and
``Classifier("gbdt")`` fit the same model. The keyword arguments become a
``gbdt(...)`` spec that the library checks, as ``rarity fit`` does.
"""

from __future__ import annotations

import numbers

import numpy as np

from . import _spec
from ._classifier import _RarityClassifier, _stage_params_of, _stage_spec

#: Rows above which ``early_stopping="auto"`` stops early, as
#: scikit-learn's ``HistGradientBoostingClassifier`` decides.
AUTO_EARLY_STOPPING_ROWS = 10_000

#: scikit-learn's name of each gbdt parameter that has one.
SKLEARN_NAMES = {
    "max_iter": "rounds",
    "learning_rate": "learning_rate",
    "max_leaf_nodes": "max_leaves",
    "max_depth": "max_depth",
    "min_samples_leaf": "min_samples_leaf",
    "l2_regularization": "l2",
    "max_bins": "bins",
    "validation_fraction": "validation_fraction",
    "scale_pos_weight": "scale_pos_weight",
    "max_delta_step": "max_delta_step",
}


def _gbdt_entry():
    return next(e for e in _spec.registry("learners") if e["name"] == "gbdt")


def _gbdt_defaults():
    return {p["name"]: _spec.default_value(p["default"], p["expected"]) for p in _gbdt_entry()["params"]}


class GradientBoosting(_RarityClassifier):
    """Gradient-boosted trees (rarity's ``gbdt``) with scikit-learn's
    ``HistGradientBoostingClassifier`` parameter names.

    The defaults are LightGBM's, as ``gbdt``'s (100 rounds, learning rate
    0.1, 31 leaves, 20 rows per leaf, 255 bins), with each leaf's step
    bounded by ``max_delta_step``. Unlike scikit-learn's ``'auto'``, early
    stopping is off unless asked for.

    Parameters
    ----------
    max_iter : int, default=100
        Boosting rounds (gbdt's ``rounds``).
    learning_rate : float, default=0.1
        Shrinkage of each tree's leaf values.
    max_leaf_nodes : int, default=31
        Leaves per tree (gbdt's ``max_leaves``).
    max_depth : int or None, default=None
        Depth limit (root at depth 0); ``None`` for none.
    min_samples_leaf : int, default=20
        Rows each leaf keeps at least, counted as LightGBM counts them (a
        leaf's rows times its share of the parent's hessian: gbdt's
        ``leaf_rows=hessian``); scikit-learn counts the rows themselves
        (``rarity.Classifier("gbdt(leaf_rows=rows)")``).
    l2_regularization : float, default=0.0
        L2 penalty on leaf values (gbdt's ``l2``).
    max_bins : int, default=255
        Quantile bins per feature (gbdt's ``bins``, at most 255).
    class_weight : None, 'balanced' or dict, default=None
        Class weights multiplying the rows' weights in the loss: ``{label:
        weight}`` (every class, weights > 0) or ``'balanced'``.
    early_stopping : 'auto' or bool, default=False
        Hold out ``validation_fraction`` of the rows (stratified), stop after
        ``n_iter_no_change`` rounds without a lower validation loss and keep
        the best round. ``'auto'`` (scikit-learn's default) does so from
        10,000 training rows.
    validation_fraction : float, default=0.1
        The fraction held out for early stopping.
    n_iter_no_change : int, default=10
        Rounds without improvement before stopping (with ``early_stopping``).
    scale_pos_weight : float or None, default=None
        Weight of the positive class (two classes), e.g. N-/N+; instead of
        ``class_weight``.
    max_delta_step : float, default=5.0
        Bound on every leaf's step before shrinkage; 0 for none.
    correct : {None, True, 'member', 'average'}, default=None
        Undo the class weights' prior shift (Dal Pozzolo et al. 2015, eq. 9).
    calibration : str, default=None
        ``'platt'`` or ``'isotonic'`` (with options, e.g. ``'isotonic(folds=5)'``).
    decision : str, default=None
        A decision stage such as ``'threshold(f1)'``; ``None`` decides by argmax.
    seed : int, default=42
        The seed of every random draw.
    n_jobs : int, default=None
        Threads: ``None`` or ``-1`` every core.
    pos_label : label, default=None
        The positive class of a binary task (default: the minority).
    categorical_features : None, "from_dtype", list of str or int, or bool mask, default=None
        Columns read as categorical features, as scikit-learn spells it:
        ``"from_dtype"`` (pandas ``category``, polars ``Categorical`` /
        ``Enum``, Arrow dictionary columns), names, indices or a mask. Each is
        one feature of level codes split natively as sets (levels ordered by
        their gradient statistics at each node, as LightGBM does); a level
        unseen in training follows ``unknown`` at prediction (see
        :class:`rarity.Classifier`). ``None``: text and category columns are
        one-hot encoded.
    missing : {"auto", "keep", "drop", "error"}, default="auto"
        Missing values of ``X``, as :class:`rarity.Classifier` takes them.
    unknown : {"error", "ignore"}, default="error"
        Levels unseen in training, at prediction, as :class:`rarity.Classifier`.
    random_state : int, default=None
        scikit-learn's name of ``seed``: when given, it is the seed.

    Attributes
    ----------
    n_iter_ : int
        The boosting rounds kept (with ``early_stopping``, the best round).
    feature_importances_ : ndarray of shape (n_features_in_,)
        Split-gain importances, normalised to sum to 1.
    classes_, n_features_in_, feature_names_in_, spec_, priors_, keep_rates_,
    member_keep_rates_, threshold_, pos_label_, decision_rule_, is_categorical_, model_
        As :class:`rarity.Classifier`.

    Examples
    --------
    >>> import rarity
    >>> X, y = rarity.datasets.load("ecoli4")
    >>> clf = rarity.GradientBoosting(max_iter=20, class_weight="balanced", correct=True).fit(X, y)
    >>> clf.spec_
    'gbdt(rounds=20,class_weight=balanced)+correct'
    >>> clf.predict_proba(X[:2]).shape
    (2, 2)
    """

    registry_name = "gbdt"

    def __init__(
        self,
        *,
        max_iter=100,
        learning_rate=0.1,
        max_leaf_nodes=31,
        max_depth=None,
        min_samples_leaf=20,
        l2_regularization=0.0,
        max_bins=255,
        class_weight=None,
        early_stopping=False,
        validation_fraction=0.1,
        n_iter_no_change=10,
        scale_pos_weight=None,
        max_delta_step=5.0,
        correct=None,
        calibration=None,
        decision=None,
        seed=42,
        n_jobs=None,
        pos_label=None,
        categorical_features=None,
        missing="auto",
        unknown="error",
        random_state=None,
    ):
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.max_leaf_nodes = max_leaf_nodes
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.max_bins = max_bins
        self.class_weight = class_weight
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.scale_pos_weight = scale_pos_weight
        self.max_delta_step = max_delta_step
        self.correct = correct
        self.calibration = calibration
        self.decision = decision
        self.seed = seed
        self.n_jobs = n_jobs
        self.pos_label = pos_label
        self.categorical_features = categorical_features
        self.missing = missing
        self.unknown = unknown
        self.random_state = random_state

    def _spec(self):
        # The learner, for the input tags (fitting builds the whole spec).
        return "gbdt"

    def _set_model(self, model, lab, feats, names):
        super()._set_model(model, lab, feats, names)
        self.n_iter_ = model.boosting_rounds

    def _fit_spec(self, lab):
        values = {g: getattr(self, s) for s, g in SKLEARN_NAMES.items()}
        if values["max_depth"] is None:
            values["max_depth"] = 0
        values["early_stopping"] = self._rounds_no_change(len(lab.codes))
        values["class_weight"] = _class_weight(self.class_weight, lab)
        gbdt = _spec.call("gbdt", values, _gbdt_defaults())
        return "+".join([gbdt] + _stage_spec(self))

    @classmethod
    def _params_of(cls, spec, stages, lab):
        head, *rest = stages
        if head[0] != "gbdt":
            return None
        sklearn = {g: s for s, g in SKLEARN_NAMES.items()}
        expected = {p["name"]: p["expected"] for p in _gbdt_entry()["params"]}
        kw = {}
        for key, text in head[2]:
            if key in sklearn:
                kw[sklearn[key]] = _spec.default_value(text, expected[key])
            elif key == "early_stopping":
                kw["early_stopping"] = True
                kw["n_iter_no_change"] = _spec.default_value(text)
            elif key != "class_weight":
                return None  # a gbdt parameter without a scikit-learn name
        if kw.get("max_depth") == 0:
            kw["max_depth"] = None
        stage_kw = _stage_params_of(rest)
        return None if stage_kw is None else {**kw, **stage_kw, "class_weight": _class_weight_of(head[2], lab)}

    def _rounds_no_change(self, n_rows):
        es = self.early_stopping
        if isinstance(es, str) and es == "auto":
            # HistGradientBoostingClassifier's rule: on from 10,000 rows.
            es = n_rows > AUTO_EARLY_STOPPING_ROWS
        if not isinstance(es, (bool, np.bool_)):
            raise ValueError(f"early_stopping={es!r} is invalid; expected 'auto', True or False")
        if not es:
            return 0
        n = self.n_iter_no_change
        if not isinstance(n, numbers.Integral) or isinstance(n, bool) or n < 1:
            raise ValueError(f"n_iter_no_change={n!r} is invalid; expected an integer >= 1")
        return int(n)


def _class_weight(cw, lab):
    """gbdt's ``class_weight``: ``None``, ``balanced``, or the weights in
    rarity's class order (``'w0,w1,...'``)."""
    if cw is None or (isinstance(cw, str) and cw == "balanced"):
        return cw
    if not isinstance(cw, dict):
        raise ValueError(f"class_weight={cw!r} is invalid; expected None, 'balanced' or a dict {{label: weight}}")
    by_class = dict(zip(lab.classes_.tolist(), range(len(lab.classes_))))
    unknown = [k for k in cw if k not in by_class]
    if unknown:
        raise ValueError(f"class_weight has labels not in y: {unknown!r}; y has {lab.classes_.tolist()!r}")
    missing = [c for c in lab.classes_.tolist() if c not in cw]
    if missing:
        raise ValueError(f"class_weight gives no weight for the classes {missing!r}; give one per class")
    classes = lab.classes_.tolist()
    weights = [float(cw[classes[i]]) for i in lab.from_rarity]
    return "'" + ",".join(repr(w) for w in weights) + "'"


def _class_weight_of(args, lab):
    """``class_weight`` from a gbdt spec's arguments: ``None``,
    ``'balanced'`` or ``{label: weight}`` from the weights in rarity's class
    order (the inverse of :func:`_class_weight`)."""
    text = dict(args).get("class_weight")
    if text in (None, "none", "balanced"):
        return None if text == "none" else text
    weights = [float(w) for w in text.strip("'").split(",")]
    classes = lab.classes_.tolist()
    return {classes[lab.from_rarity[k]]: w for k, w in enumerate(weights)}
