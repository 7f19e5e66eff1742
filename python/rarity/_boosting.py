""":class:`GradientBoosting`: rarity's ``gbdt`` learner under scikit-learn's
``HistGradientBoostingClassifier`` parameter names.

Where a scikit-learn parameter means what a ``gbdt`` parameter means, it
takes scikit-learn's name (``max_iter`` is ``rounds``, ``max_leaf_nodes``
is ``max_leaves``, ...); the defaults are the registry's, so the class and
``Classifier("gbdt")`` fit the same model. The keyword arguments become a
``gbdt(...)`` spec that the library checks, as ``rarity fit`` does.
"""

from __future__ import annotations

import itertools
import numbers
import re

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
    "monotone_method": "monotone_method",
    "monotone_penalty": "monotone_penalty",
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
    monotonic_cst : array-like of int of shape (n_features,), dict or None, default=None
        Monotone constraints, as scikit-learn means them: per feature 1
        (the probability of the positive class may not fall as the feature
        rises), -1 (may not rise) or 0 (none); or a dict ``{column name:
        direction}`` (unnamed columns are ``x0``, ``x1``, ...). gbdt's
        ``monotone=[name:direction, ...]``; two classes only, numeric
        columns only. The guarantee holds through ``correct``, isotonic
        calibration and the decision; a Platt fit that would reverse the
        order is refused.
    interaction_cst : {"pairwise", "no_interactions"}, sequence of lists of int or str, or None, default=None
        Interaction constraints, as scikit-learn means them: groups of
        features (indices or column names); a branch only splits on the
        features of one group, and the features no group names form one
        more group. ``"pairwise"``: every pair; ``"no_interactions"``: each
        feature alone. gbdt's ``interaction=[[a,b],[c,d,e]]``.
    monotone_method : {"basic", "intermediate", "advanced"}, default="basic"
        How the monotone bounds are set (LightGBM's
        ``monotone_constraints_method``): at a split's mean output, from
        every leaf ordered with the new ones, or per candidate threshold.
    monotone_penalty : float, default=0.0
        Discourages monotone splits near the root: P forbids them in the
        first floor(P) levels (LightGBM's ``monotone_penalty``).
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
        monotonic_cst=None,
        interaction_cst=None,
        monotone_method="basic",
        monotone_penalty=0.0,
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
        self.monotonic_cst = monotonic_cst
        self.interaction_cst = interaction_cst
        self.monotone_method = monotone_method
        self.monotone_penalty = monotone_penalty
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

    def _fit_spec(self, lab, columns=None):
        values = {g: getattr(self, s) for s, g in SKLEARN_NAMES.items()}
        if values["max_depth"] is None:
            values["max_depth"] = 0
        values["early_stopping"] = self._rounds_no_change(len(lab.codes))
        values["class_weight"] = _class_weight(self.class_weight, lab)
        columns = list(columns or [])
        monotone = _monotone(self.monotonic_cst, columns)
        if monotone:
            values["monotone"] = _Text("[" + ",".join(f"{_name(n)}:{d}" for n, d in monotone) + "]")
        groups = _interactions(self.interaction_cst, columns)
        if groups:
            values["interaction"] = _Text("[" + ",".join("[" + ",".join(map(_name, g)) + "]" for g in groups) + "]")
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
            elif key == "monotone":
                kw["monotonic_cst"] = {n: int(d) for n, d in _pairs(text)}
            elif key == "interaction":
                kw["interaction_cst"] = [list(g) for g in _groups(text)]
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


class _Text:
    """Spec text built here from checked parts (a list of pairs or of
    groups), written into the spec as it is."""

    def __init__(self, spec):
        self.spec = spec


def _name(column):
    """A column name as the spec grammar reads it: a word, or quoted."""
    column = str(column)
    if "'" in column:
        raise ValueError(f"column {column!r}: a name with a quote (') cannot be constrained")
    return column if re.fullmatch(r"[^\W\d_][\w-]*", column) else f"'{column}'"


def _direction(v, what):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral) or int(v) not in (-1, 0, 1):
        raise ValueError(f"monotonic_cst: {what} has direction {v!r}; expected 1 (increasing), -1 (decreasing) or 0")
    return int(v)


def _monotone(cst, columns):
    """``[(column, direction)]`` (non-zero directions) of scikit-learn's
    ``monotonic_cst``: one direction per feature, or ``{name: direction}``."""
    if cst is None:
        return []
    if isinstance(cst, dict):
        unknown = [k for k in cst if k not in columns]
        if unknown:
            raise ValueError(f"monotonic_cst names columns X does not have: {unknown!r}; its columns are {columns!r}")
        pairs = [(k, _direction(v, f"column {k!r}")) for k, v in cst.items()]
    else:
        if isinstance(cst, str):
            raise ValueError(f"monotonic_cst={cst!r} is invalid; expected one direction per feature or a dict")
        values = list(np.asarray(cst).ravel()) if not isinstance(cst, (list, tuple)) else list(cst)
        if len(values) != len(columns):
            raise ValueError(f"monotonic_cst has {len(values)} values; X has {len(columns)} features")
        pairs = [(c, _direction(v, f"feature {i} ({c!r})")) for i, (c, v) in enumerate(zip(columns, values))]
    return [(c, d) for c, d in pairs if d != 0]


def _interactions(cst, columns):
    """Groups of column names of scikit-learn's ``interaction_cst``."""
    if cst is None:
        return []
    d = len(columns)
    if isinstance(cst, str):
        if cst == "pairwise":
            return [[columns[i], columns[j]] for i, j in itertools.combinations(range(d), 2)]
        if cst == "no_interactions":
            return [[c] for c in columns]
        raise ValueError(f"interaction_cst={cst!r} is invalid; expected 'pairwise', 'no_interactions' or groups")
    groups = []
    for g in cst:
        if isinstance(g, (str, bytes)) or not hasattr(g, "__iter__"):
            raise ValueError(f"interaction_cst: {g!r} is not a group; expected lists of feature indices or names")
        members = sorted(g, key=lambda v: (isinstance(v, str), v)) if isinstance(g, (set, frozenset)) else list(g)
        group = []
        for v in members:
            if isinstance(v, str):
                if v not in columns:
                    raise ValueError(f"interaction_cst names a column X does not have: {v!r}; its columns are {columns!r}")
                group.append(v)
            elif isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) and 0 <= int(v) < d:
                group.append(columns[int(v)])
            else:
                raise ValueError(f"interaction_cst: {v!r} is not a feature index in [0, {d}) nor a column name")
        groups.append(group)
    return groups


_TOKEN = re.compile(r"'([^']*)'|([^,\[\]:\s]+)|([\[\]:,])")


def _scan(text):
    """The words (quoted or not) and punctuation of a spec list."""
    out = []
    for m in _TOKEN.finditer(text):
        if m.group(3):
            out.append((m.group(3), False))
        else:
            out.append((m.group(1) if m.group(1) is not None else m.group(2), True))
    return out


def _pairs(text):
    """``[(name, direction)]`` of gbdt's ``monotone=`` spec text: pairs
    written ``name:direction`` or, as the spec's stages give them back,
    ``[name,direction]``."""
    toks = _scan(text)
    if not any(tok == ":" and not word for tok, word in toks):
        groups = _groups(text)
        if any(len(g) != 2 for g in groups):
            raise ValueError(f"not a monotone list: {text!r}")
        return [(name, int(float(d))) for name, d in groups]
    toks = [t for t in toks if t[0] not in ("[", "]", ",") or t[1]]
    pairs = []
    for i in range(0, len(toks) - 2, 3):
        (name, _), (colon, _), (d, _) = toks[i : i + 3]
        if colon != ":":
            raise ValueError(f"not a monotone list: {text!r}")
        pairs.append((name, int(float(d))))
    return pairs


def _groups(text):
    """The groups of names of gbdt's ``interaction=`` spec text."""
    groups, group, depth = [], None, 0
    for tok, word in _scan(text):
        if word:
            group.append(tok)
        elif tok == "[":
            depth += 1
            if depth == 2:
                group = []
        elif tok == "]":
            if depth == 2:
                groups.append(group)
            depth -= 1
    return groups
