"""Classifiers with scikit-learn's contract.

- :class:`Classifier` fits any rarity strategy spec
  (``[sampler +] learner [+ correct] [+ platt|isotonic] [+ decision]``):
  the same call as ``rarity fit``, so the same seed gives bit-identical
  probabilities from Python and from the command line.
- The named classes (:class:`PTBagging`, :class:`EBBagging`, ...) are
  generated at import from the library's ensemble registry: one class per
  entry, its parameters as keyword arguments with the registry's defaults,
  plus ``correct``, ``calibration`` and ``decision`` stages.
- :class:`CorrectedClassifier` trains any scikit-learn classifier on a
  rarity sample and corrects its probabilities for the sample's keep rates,
  ``p_k ∝ p_s,k / r_k`` (Dal Pozzolo et al. 2015, eq. 9, generalised to any
  sampler and any number of classes), with the consistent threshold of
  eq. 12.

``predict`` applies the strategy's decision rule (PT-bagging's default is
``threshold(priors)``, PT_MA of Collell et al. 2018), which is not always the
argmax of ``predict_proba``.
"""

from __future__ import annotations

import os
import re
import warnings

import numpy as np

from . import _html, _rarity, _spec
from . import _validation as V
from ._base import BaseEstimator, ClassifierMixin, check_fitted, clone


def _input_tags(tags, allow_nan=False):
    tags.input_tags.allow_nan = allow_nan
    tags.input_tags.sparse = False
    return tags


class _RarityClassifier(ClassifierMixin, BaseEstimator):
    """Fit / predict over a native model; subclasses say which spec."""

    def _spec(self):  # pragma: no cover - overridden
        raise NotImplementedError

    def _fit_spec(self, lab, columns=None):
        """The spec to fit on labels ``lab`` (the classes' order is known)
        and the source columns ``columns`` (their names)."""
        return self._spec()

    def fit(self, X, y, sample_weight=None):
        """Fits the strategy on ``X`` and ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or table
            Training features: a NumPy array (float64 C-contiguous arrays are
            read in place), a list of rows, or a pandas / polars / pyarrow
            table (text and categorical columns are one-hot encoded, unless
            ``categorical_features`` reads them as categories).
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Row weights (non-negative); the learners honour them.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        n_jobs = V.n_jobs_of(self.n_jobs)
        feats, names = V.features(X, n_jobs, self.categorical_features)
        lab = V.labels(y, self.pos_label, type(self).__name__, allow_missing=True)
        spec = self._fit_spec(lab, list(feats.column_names))
        w = V.sample_weight(sample_weight, feats.n_rows_)
        policy = _missing_policy(self, "strategies", [spec])
        data = _estimator_data(self, feats, lab, _target_name(y), w, n_jobs, policy)
        model = _rarity.fit(spec, data, V.seed_of(self.seed, getattr(self, "random_state", None)), n_jobs)
        self._set_model(model, lab, feats, names)
        return self

    def _set_model(self, model, lab, feats, names):
        self.model_ = model
        self.classes_ = lab.classes_
        self.spec_ = model.spec
        self.n_features_in_ = len(feats.column_names)
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self._from_rarity = lab.from_rarity
        self._to_rarity = lab.to_rarity
        self.priors_ = np.asarray(model.priors)[lab.to_rarity]
        self.keep_rates_ = np.asarray(model.keep_rates)[lab.to_rarity]
        mk = model.member_keep_rates
        self.member_keep_rates_ = None if mk is None else np.asarray(mk)[:, lab.to_rarity]
        self.decision_rule_ = model.rule
        self.threshold_ = model.threshold
        self.pos_label_ = lab.positive
        cats = model.categories
        self.is_categorical_ = np.array([c in cats for c in model.source_columns]) if cats else None

    def _features(self, X):
        check_fitted(self)
        V.check_n_features(self, X)
        feats, _ = V.features(X, V.n_jobs_of(self.n_jobs))
        return feats

    def _unknown(self):
        u = getattr(self, "unknown", "error")
        if u not in ("error", "ignore"):
            raise ValueError(f"unknown={u!r} is invalid; expected 'error' or 'ignore'")
        return u

    def predict_proba(self, X):
        """Class probabilities, columns in the order of ``classes_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or table
            Rows to predict (a table is matched to the training columns by name).

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        feats = self._features(X)
        p = self.model_.predict_proba(feats, V.n_jobs_of(self.n_jobs), self._unknown())
        return p[:, self._to_rarity]

    def predict(self, X):
        """Labels decided by the strategy's rule (see ``decision_rule_``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or table
            Rows to predict.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
        """
        feats = self._features(X)
        _, ids = self.model_.predict(feats, V.n_jobs_of(self.n_jobs), self._unknown())
        return self.classes_[self._from_rarity[ids]]

    def predict_contributions(self, X):
        """Exact contributions of each source column to each row's output.

        LightGBM's ``pred_contrib`` layout over the source columns (a one-hot or
        target-encoded column is one column): ``(n, d + 1)`` for two classes
        (towards ``classes_[1]``), ``(n, K (d + 1))`` beyond (one block per
        class of ``classes_``); each block's last value is the base value, and
        each block sums to the output it explains. That output is the log-odds
        of additive models (``gbdt``, boosting, ``logistic``, ``lda``; softmax
        margins beyond two classes) or the probability of averaged trees
        (trees, forests, bagging of trees), with ``+correct`` moving the base
        value only; :meth:`contributions_info` says which, and which stages'
        probabilities stand beside rather than being explained (README,
        "Contributions"). Path-dependent TreeSHAP for trees, linear SHAP for
        linear models; other models raise ``ValueError`` naming those that
        have exact contributions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or table

        Returns
        -------
        contributions : ndarray of shape (n_samples, d + 1) or (n_samples, K * (d + 1))
        """
        feats = self._features(X)
        values, classes, info = self.model_.contributions(feats, V.n_jobs_of(self.n_jobs), self._unknown())
        values = np.asarray(values)
        n, c1 = values.shape[0], len(info["columns"]) + 1
        if values.shape[1] == c1:
            if self._to_rarity[1] == classes[1]:
                return values
            out = -values
            out[:, -1] = 1.0 - values[:, -1] if info["space"] == "probability" else -values[:, -1]
            return out
        blocks = values.reshape(n, len(classes), c1)
        order = [list(classes).index(int(r)) for r in self._to_rarity]
        return blocks[:, order, :].reshape(n, len(order) * c1)

    def contributions_info(self):
        """What :meth:`predict_contributions` explains: ``space``
        (``log-odds``, ``margins`` or ``probability``), the stages ``taken``
        into the explained output, those whose probabilities stand
        ``beside`` it, a ``note`` and the source ``columns``.

        Returns
        -------
        info : dict
        """
        check_fitted(self)
        return self.model_.contributions_info()

    def reason_codes(self, X, k=3):
        """Each row's ``k`` strongest reasons towards its decided class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or table
        k : int, default=3
            Reasons per row, from 1 to the number of source columns.

        Returns
        -------
        table : pandas.DataFrame (a dict of columns without pandas)
            ``label`` (the decided class), ``reason_1..k`` (the source columns,
            strongest first, ties in column order), ``value_1..k`` (the row's
            values as text, the level for a category) and
            ``contribution_1..k`` (towards the decided class), as ``rarity
            predict --reasons K`` writes them.
        """
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
            raise ValueError(f"k={k!r} is invalid; expected a whole number of reasons")
        feats = self._features(X)
        labels, names, values, contrib = self.model_.reason_codes(feats, int(k), V.n_jobs_of(self.n_jobs), self._unknown())
        cols = {"label": self.classes_[self._from_rarity[np.asarray(labels)]]}
        for i in range(k):
            cols[f"reason_{i + 1}"] = [r[i] for r in names]
        for i in range(k):
            cols[f"value_{i + 1}"] = [r[i] for r in values]
        contrib = np.asarray(contrib)
        for i in range(k):
            cols[f"contribution_{i + 1}"] = contrib[:, i]
        try:
            import pandas
        except ImportError:
            return cols
        return pandas.DataFrame(cols)

    def dump_trees(self):
        """Every tree of the fitted model as arrays (``rarity show --trees
        --format json``): per model, its ``space``, how its trees ``combine``,
        its ``bias`` and its ``trees`` (``children_left``, ``children_right``,
        ``children_default``, ``features``, ``thresholds``, ``levels``,
        ``values``, ``node_sample_weight``), ready for ``shap.TreeExplainer``'s
        custom-model dictionary (README, "Tree dumps").

        Returns
        -------
        dump : dict
        """
        import json

        check_fitted(self)
        return json.loads(self.model_.dump_trees())

    @property
    def feature_importances_(self):
        """Split-gain importances per feature (``n_features_in_`` values summing
        to 1; a one-hot column's levels summed), the mean over an ensemble's
        members as scikit-learn's forests give them. Tree-based models only:
        others raise ``AttributeError``."""
        check_fitted(self)
        v = _rarity.split_gain(self.model_)
        if v is None:
            raise AttributeError(
                f"{self.spec_!r} has no split-gain importances (trees, forests, bagging and gbdt "
                "have them); rarity.explain gives permutation importances of any model"
            )
        return np.asarray(v)

    def _repr_html_(self):
        """scikit-learn's diagram, with the fitted model's summary (``rarity
        show``) and its split-gain importances once fitted."""
        parts = [_sklearn_html(self)]
        if hasattr(self, "model_"):
            parts.append(_html.model_summary(_rarity.show(self.model_)))
            v = _rarity.split_gain(self.model_)
            if v is not None:
                names = self.model_.source_columns
                rows = sorted(zip(names, v), key=lambda r: -r[1])[:10]
                parts.append(_html.table(["feature", "share of the gain"], rows, "feature_importances_ (top 10)"))
        return "".join(parts)

    def _repr_mimebundle_(self, **kwargs):
        return {"text/plain": repr(self), "text/html": self._repr_html_()}

    def to_bytes(self):
        """The fitted model in rarity's versioned model format (the bytes of a
        ``rarity fit -o FILE`` model file; ``rarity predict FILE`` reads it)."""
        check_fitted(self)
        return self.model_.to_bytes()

    def save(self, path):
        """Writes the fitted model as a rarity model file at ``path``, whole
        or not at all, as ``rarity fit -o`` writes one (a temporary file
        renamed into place; nothing that is not a regular file replaced)."""
        _rarity.write_file(os.fspath(path), self.to_bytes())

    @classmethod
    def load(cls, path):
        """The fitted estimator in the rarity model file at ``path`` (what
        ``rarity fit -o`` and :meth:`save` write, binary or JSON), read as
        ``rarity predict`` reads it (header first, size, checksum and
        indices checked).

        The estimator is of this class with the parameters that write the
        model's spec: ``Classifier.load`` takes any model, a named class only
        a model of its own (``PTBagging.load`` a ``pt-bagging`` one);
        :func:`rarity.load` picks the class. ``classes_`` are the model's
        class names, as integers when every name is one (``"0"``, ``"1"``);
        ``feature_names_in_`` its source columns unless they are the
        ``x0``, ``x1``, ... a NumPy array is given. Then :meth:`save` writes
        the same bytes again.

        Raises
        ------
        ValueError
            When the file is not a rarity model (or is damaged), or the
            model's spec is not one this class writes.
        """
        model = _rarity.Model.load(os.fspath(path))
        est = cls._loaded(model)
        if est is None:
            raise ValueError(
                f"{os.fspath(path)}: the model's spec {model.spec!r} is not one {cls.__name__} fits; "
                "rarity.load(path) or Classifier.load(path) opens any model"
            )
        return est

    @classmethod
    def _params_of(cls, spec, stages, lab):
        """The keyword arguments that write ``spec`` (its ``stages`` as
        ``_rarity.spec_stages`` parses them) for the labels ``lab``, or
        ``None`` when this class writes no such spec."""
        return None

    @classmethod
    def _loaded(cls, model):
        """An estimator of this class fitted as ``model``, or ``None`` when
        no parameters of the class give the model's spec (checked by
        writing the spec again)."""
        lab = _ModelLabels(model.class_names)
        try:
            kw = cls._params_of(model.spec, _rarity.spec_stages(model.spec), lab)
            est = None if kw is None else cls(**kw)
            if est is None or est._fit_spec(lab, list(model.source_columns)) != model.spec:
                return None
        except (TypeError, ValueError):
            return None
        names = model.source_columns
        unnamed = names == [f"x{i}" for i in range(len(names))]
        est._set_model(model, lab, _ModelColumns(names), None if unnamed else np.asarray(names, dtype=object))
        return est

    def to_onnx(self, path=None):
        """The fitted strategy as an ONNX model (what ``rarity export`` writes).

        The graph's input ``X`` is a ``double`` matrix of shape ``(N, d)`` with
        the training features in their order; its outputs are
        ``probabilities`` (``(N, K)``, ``double``, the columns of
        :meth:`predict_proba`) and ``label`` (the decided class as a string,
        as ``rarity predict`` writes it). The sampler, the prior correction,
        the calibration, the prior shift and the decision are all inside.

        Parameters
        ----------
        path : str or path-like, optional
            Where to write the model (replaced whole or not at all). Without
            it, the bytes are returned.

        Raises
        ------
        ValueError
            When the strategy has a part the export does not cover (``+em``,
            or a learner without a graph); the message lists what is covered.
        """
        check_fitted(self)
        if path is None:
            return self.model_.to_onnx()
        self.model_.write_onnx(os.fspath(path))
        return None

    def __sklearn_tags__(self):
        # Missing values are learned from or imputed when the strategy takes
        # them; otherwise their rows are dropped (missing='auto') or refused.
        try:
            takes = _rarity.missing_policy("keep", "strategies", [self._spec()]) == "keep"
        except (ValueError, NotImplementedError, AttributeError):
            takes = False
        return _input_tags(super().__sklearn_tags__(), allow_nan=takes)


class _ModelColumns:
    """The columns of a loaded model, where a fit has its features."""

    def __init__(self, names):
        self.column_names = names


class _ModelLabels:
    """The :class:`~rarity._validation.Labels` of a loaded model: its class
    names in scikit-learn's sorted order (integers when every name is the
    text of one), mapped to rarity's class ids."""

    def __init__(self, class_names):
        ints = all(re.fullmatch(r"-?(0|[1-9][0-9]*)", n) and n != "-0" for n in class_names)
        values = [int(n) for n in class_names] if ints else list(class_names)
        order = sorted(range(len(values)), key=lambda k: values[k])
        self.classes_ = np.asarray([values[k] for k in order], dtype=np.int64 if ints else object)
        if not ints:
            self.classes_ = self.classes_.astype(str)
        self.class_names = list(class_names)
        self.to_rarity = np.asarray(order, dtype=np.int64)
        self.from_rarity = np.argsort(self.to_rarity)
        self.codes = np.empty(0, dtype=np.uint32)

    @property
    def positive(self):
        """The label of rarity's positive class (class 1) of a binary task."""
        return self.classes_[self.from_rarity[1]] if len(self.classes_) == 2 else None


def _sklearn_html(est):
    """scikit-learn's HTML diagram of ``est`` (its parameters), or its repr."""
    try:
        from sklearn.utils import estimator_html_repr

        return estimator_html_repr(est)
    except ImportError:
        return _html.paragraph(repr(est))


def _missing_policy(est, kind, specs):
    """The missing-value policy ``est`` reads its table with, settled from
    its ``missing`` parameter and what it fits (``rarity fit --missing``'s
    rule: ``'auto'`` keeps missing values for a strategy that takes them and
    drops the incomplete rows otherwise)."""
    missing = getattr(est, "missing", "auto")
    if not isinstance(missing, str):
        raise ValueError(f"missing={missing!r} is invalid; expected 'auto', 'keep', 'drop' or 'error'")
    return _rarity.missing_policy(missing, kind, specs)


def _estimator_data(est, feats, lab, target_name, weights, n_jobs, missing="keep"):
    """The labelled data ``est`` fits on, read with the settled missing-value
    policy ``missing`` (a warning says how many rows were dropped, as the
    command line notes it); a column with too many levels to one-hot encode
    is an error that names ``categorical_features``."""
    try:
        data = _rarity.Data(
            feats, lab.codes, lab.class_names, target_name, weights, n_jobs, missing=missing
        )
    except ValueError as e:
        if "too many to one-hot encode" not in str(e):
            raise
        raise ValueError(
            f"{e}; if it is a category with many levels (a merchant, a country), read it as one "
            f"feature of level codes with {type(est).__name__}(categorical_features=[...]) or "
            "'from_dtype'"
        ) from None
    _warn_dropped(type(est).__name__, data, feats.n_rows_, stacklevel=5)
    return data


def _warn_dropped(who, data, n, stacklevel=4):
    """Warns of the rows ``data`` left out for missing values, as the
    command line notes them (dropping is never silent)."""
    by_label = data.rows_dropped_label_
    by_value = data.rows_dropped_ - by_label
    if by_value:
        warnings.warn(
            f"{who}: dropped {by_value} of {n} rows with a missing value (None, NaN, null, empty, "
            "'?' or 'NA'), as the command line does; missing='keep' keeps them for a strategy "
            "that takes them (a learner that learns where they go, or an impute(...) stage)",
            UserWarning,
            stacklevel=stacklevel,
        )
    if by_label:
        warnings.warn(
            f"{who}: dropped {by_label} of {n} rows whose label is missing (None or NaN), as the "
            "command line does; missing='error' refuses them",
            UserWarning,
            stacklevel=stacklevel,
        )


def _target_name(y):
    name = getattr(y, "name", None)
    return str(name) if isinstance(name, str) and name else "y"


class Classifier(_RarityClassifier):
    """Any rarity strategy as a scikit-learn classifier.

    Parameters
    ----------
    spec : str, default="pt-bagging(n=100)"
        The strategy: ``[sampler +] learner [+ correct] [+ platt|isotonic]
        [+ decision]``, e.g. ``"under(beta=0.1)+forest(n=100)+correct+threshold(priors)"``
        (see ``rarity fit --help`` or :func:`rarity.registry`).
    seed : int, default=42
        The seed of every random draw (same seed, same model, at any ``n_jobs``).
    n_jobs : int, default=None
        Threads: ``None`` or ``-1`` every core, ``n`` that many.
    pos_label : label, default=None
        The positive class of a binary task (class 1); by default the minority.
    categorical_features : None, "from_dtype", list of str or int, or bool mask, default=None
        Columns read as categorical features, as scikit-learn's
        ``HistGradientBoostingClassifier`` spells it: ``"from_dtype"`` (pandas
        ``category``, polars ``Categorical`` / ``Enum``, Arrow dictionary
        columns), column names, column indices, or a boolean mask over the
        columns. Each is one feature of level codes, no limit on the levels
        (numeric-looking columns too: their values are the levels); the
        learner splits them as sets (tree, forest, gbdt, ensembles of trees;
        other learners raise ``ValueError``). Levels are sorted by text, as
        ``rarity fit --categorical native`` orders a file's (an ordered
        pandas category or a polars ``Enum`` keeps its declared order).
        Predicting, values are matched to the fitted levels by text; a
        missing value follows ``missing``, a level unseen in training
        ``unknown``. ``None``: text and category columns are
        one-hot encoded (at most 50 levels).
    missing : {"auto", "keep", "drop", "error"}, default="auto"
        Missing values of ``X`` (NaN, ``None``, nulls, empty, ``'?'``,
        ``'NA'``), as ``rarity fit --missing``: ``"keep"`` hands them to the
        strategy (a learner that learns where they go, or an ``impute(...)``
        stage; any other strategy is a ``ValueError`` naming the stage to
        add), ``"drop"`` drops the incomplete rows (a warning counts them),
        ``"error"`` refuses them; ``"auto"`` keeps them when the strategy
        takes them and drops otherwise. A row whose label is missing is
        dropped (and counted) unless ``"error"``. Predicting, a strategy
        that takes missing values scores every row; one that does not
        refuses a row missing a value.
    unknown : {"error", "ignore"}, default="error"
        A level of a categorical or one-hot column not seen in training, at
        prediction: an error listing the levels (``rarity predict
        --unknown error``), or ``"ignore"``: all zeros in a one-hot column,
        a level no split holds (the prior of a target encoding) in a
        categorical one.
    random_state : int, default=None
        scikit-learn's name of ``seed``: when given, it is the seed.

    Attributes
    ----------
    classes_ : ndarray
        The class labels, sorted.
    n_features_in_ : int
        Number of columns seen in ``fit``.
    feature_names_in_ : ndarray of str
        Column names seen in ``fit``, when ``X`` was a table with string names.
    spec_ : str
        The fitted spec.
    priors_ : ndarray
        Training class priors (in ``classes_`` order).
    keep_rates_ : ndarray
        Keep rates of the sampler stage (1 without one).
    member_keep_rates_ : ndarray or None
        Per ensemble member, its sample's keep rates.
    threshold_ : float or None
        The threshold on the positive class's probability equivalent to the
        decision rule (binary tasks), e.g. the prior ``pi+`` for PT_MA.
    pos_label_ : label or None
        The positive class of a binary task.
    decision_rule_ : dict
        The resolved decision rule.
    is_categorical_ : ndarray of bool or None
        Per column seen in ``fit``, whether it is a categorical feature
        (``None`` when none is); ``model_.categories`` gives each one's
        levels in code order.
    model_ : rarity._rarity.Model
        The fitted native model.

    Examples
    --------
    >>> import rarity
    >>> X, y = rarity.datasets.load("ecoli4")
    >>> clf = rarity.Classifier("pt-bagging(n=20)", seed=1).fit(X, y)
    >>> clf.predict_proba(X[:3]).shape
    (3, 2)
    >>> bool(clf.threshold_ == clf.priors_[list(clf.classes_).index(clf.pos_label_)])  # PT_MA
    True
    """

    def __init__(
        self,
        spec="pt-bagging(n=100)",
        seed=42,
        n_jobs=None,
        pos_label=None,
        categorical_features=None,
        missing="auto",
        unknown="error",
        random_state=None,
    ):
        self.spec = spec
        self.seed = seed
        self.n_jobs = n_jobs
        self.pos_label = pos_label
        self.categorical_features = categorical_features
        self.missing = missing
        self.unknown = unknown
        self.random_state = random_state

    def _spec(self):
        if not isinstance(self.spec, str):
            raise ValueError(f"spec={self.spec!r} is invalid; expected a strategy spec string")
        return self.spec

    @classmethod
    def _params_of(cls, spec, stages, lab):
        return {"spec": spec}


# ---- named classes, generated from the ensemble registry

#: Stage keywords every named class takes, with their defaults.
_STAGE_PARAMS = (("correct", None), ("calibration", None), ("decision", None))
_COMMON = (
    ("seed", 42),
    ("n_jobs", None),
    ("pos_label", None),
    ("categorical_features", None),
    ("missing", "auto"),
    ("unknown", "error"),
    ("random_state", None),
)


def _stage_spec(self):
    """The stages after the learner that ``correct``, ``calibration`` and
    ``decision`` give: each one stage (a call), never text spliced into the
    spec (``'threshold(0.1)+platt'`` is an error)."""
    stages = []

    def stage(key, v):
        if not isinstance(v, str) or _rarity.value_kind(v) != "call":
            raise ValueError(f"{key}={v!r} is invalid; expected one stage such as 'threshold(f1)'")
        return v

    if self.correct not in (None, False):
        mode = None if self.correct is True else self.correct
        if mode is not None and mode not in ("member", "average"):
            raise ValueError(f"correct={self.correct!r} is invalid; expected None, True, 'member' or 'average'")
        stages.append("correct" if mode is None else f"correct(mode={mode})")
    if self.calibration is not None:
        stages.append(stage("calibration", self.calibration))
    if self.decision is not None:
        stages.append(stage("decision", self.decision))
    return stages


#: The stages a named class's ``calibration`` writes; any other stage after
#: ``correct`` is its ``decision``.
_CALIBRATIONS = ("platt", "isotonic")


def _stage_params_of(stages):
    """``correct``, ``calibration`` and ``decision`` that write the stages
    after the learner (``(name, text, args)`` each), or ``None``."""
    kw = {}
    if stages and stages[0][0] == "correct":
        args = stages[0][2]
        if not args:
            kw["correct"] = True
        elif len(args) == 1 and args[0][0] == "mode":
            kw["correct"] = args[0][1]
        else:
            return None
        stages = stages[1:]
    if stages and stages[0][0] in _CALIBRATIONS:
        kw["calibration"] = stages[0][1]
        stages = stages[1:]
    if stages:
        kw["decision"] = stages[0][1]
        stages = stages[1:]
    return None if stages else kw


def _named_class(entry):
    name = entry["name"]
    params = entry["params"]
    defaults = {p["name"]: _spec.default_value(p["default"], p["expected"]) for p in params}
    own = [(_spec.python_name(p["name"]), defaults[p["name"]]) for p in params]
    alias = "n" in defaults
    aliases = _ALIASES if alias else {}
    sig_params = own + list(_STAGE_PARAMS) + list(_COMMON)
    keys = [k for k, _ in sig_params] + list(aliases)
    assert len(set(keys)) == len(keys), f"{name}: parameter names collide: {keys}"
    spec_keys = {_spec.python_name(p["name"]): p["name"] for p in params}

    def _spec_of(self):
        values = {spec_keys[k]: getattr(self, k) for k in spec_keys}
        return "+".join([_spec.call(name, values, defaults)] + _stage_spec(self))

    @classmethod
    def _params_of(cls, spec, stages, lab):
        head, *rest = stages
        if head[0] != name or any(k is None or k not in spec_keys.values() for k, _ in head[2]):
            return None
        expected = {p["name"]: p["expected"] for p in params}
        kw = {_spec.python_name(k): _spec.default_value(v, expected[k]) for k, v in head[2]}
        stage_kw = _stage_params_of(rest)
        return None if stage_kw is None else {**kw, **stage_kw}

    __init__ = _spec.keyword_init(sig_params, aliases)
    cls_name = _spec.class_name(entry)
    doc = _named_doc(cls_name, entry, params, alias)
    body = {
        "__init__": __init__,
        "_spec": _spec_of,
        "_params_of": _params_of,
        "__doc__": doc,
        "__module__": "rarity",
        "registry_name": name,
        "_aliases": aliases,
    }
    if alias:
        body["n_estimators"] = property(_get_n, _set_n, doc="scikit-learn's name for ``n`` (the same parameter).")
        body["set_params"] = _set_params_unaliased
    cls = type(cls_name, (_RarityClassifier,), body)
    __init__.__qualname__ = f"{cls_name}.__init__"
    return cls


#: scikit-learn's spellings of spec parameters: one parameter each, so the
#: spelling set last wins and ``get_params`` reports the spec's name.
_ALIASES = {"n_estimators": "n"}


def _get_n(self):
    return self.n


def _set_n(self, value):
    self.n = value


def _set_params_unaliased(self, **params):
    """Sets the parameters (``n_estimators`` sets ``n``: the later of the two wins).

    Returns
    -------
    self : object
    """
    return _RarityClassifier.set_params(self, **_spec.unalias(params, self._aliases))


def _named_doc(cls_name, entry, params, alias):
    lines = [
        f"{entry['summary'][0].upper()}{entry['summary'][1:]}.",
        "",
        f"The rarity ensemble ``{entry['name']}`` (its spec parameters are the keyword",
        f"arguments); without a ``decision`` it decides by ``{entry['decision']}``.",
        "",
        "Parameters",
        "----------",
    ]
    lines += [_spec.param_doc(p) for p in params]
    if alias:
        lines.append(
            "n_estimators : int\n    scikit-learn's name for ``n``: the same parameter (``set_params``,\n"
            "    ``GridSearchCV`` and attribute access take either; the one set last wins;\n"
            "    ``get_params`` reports ``n``)."
        )
    lines += [
        "correct : {None, True, 'member', 'average'}, default=None\n"
        "    Undo the prior shift of the members' samples (Dal Pozzolo et al. 2015,\n"
        "    eq. 9): per member (``True``, ``'member'``) or on the average.",
        "calibration : str, default=None\n    ``'platt'`` or ``'isotonic'`` (with options, e.g. ``'isotonic(folds=5)'``).",
        "decision : str, default=None\n    A decision stage such as ``'threshold(f1)'``, ``'cost(fn=10,fp=1)'``\n"
        "    or ``'tune(metric=g_mean)'``; ``None`` keeps the method's default.",
        "seed : int, default=42\n    The seed of every random draw.",
        "n_jobs : int, default=None\n    Threads: ``None`` or ``-1`` every core.",
        "pos_label : label, default=None\n    The positive class of a binary task (default: the minority).",
        "categorical_features : None, 'from_dtype', list or bool mask, default=None\n"
        "    Columns read as categorical features (level codes split as sets), as\n"
        "    :class:`rarity.Classifier` reads them.",
        "missing : {'auto', 'keep', 'drop', 'error'}, default='auto'\n"
        "    Missing values, as :class:`rarity.Classifier` takes them.",
        "unknown : {'error', 'ignore'}, default='error'\n"
        "    Levels unseen in training, at prediction, as :class:`rarity.Classifier`.",
        "random_state : int, default=None\n    scikit-learn's name of ``seed``: when given, it is the seed.",
        "",
        "Attributes",
        "----------",
        "classes_, n_features_in_, feature_names_in_, spec_, priors_, keep_rates_,",
        "member_keep_rates_, threshold_, pos_label_, decision_rule_, is_categorical_, model_",
        "    As :class:`rarity.Classifier`.",
        "",
        "Examples",
        "--------",
        ">>> import rarity",
        '>>> X, y = rarity.datasets.load("ecoli4")',
        f">>> clf = rarity.{cls_name}({'n=5, ' if alias else ''}seed=0).fit(X, y)",
        ">>> clf.predict_proba(X[:2]).shape",
        "(2, 2)",
    ]
    return "\n".join(lines)


ENSEMBLE_CLASSES = {e["name"]: _named_class(e) for e in _spec.registry("ensembles")}


# ---- CorrectedClassifier


class CorrectedClassifier(ClassifierMixin, BaseEstimator):
    """Any classifier trained on a rarity sample, with probabilities corrected
    for the sample's keep rates.

    The sampler draws a training sample and records, per class, the rate
    ``r_k`` at which the class was kept; the wrapped estimator is fitted on
    the sample, and its probabilities are mapped back to the population's
    priors: ``p_k ∝ p_s,k / r_k`` (Dal Pozzolo et al. 2015, eq. 9 for
    undersampling the negatives at rate beta; the same algebra holds for any
    sampler and any number of classes). ``predict`` decides as the estimator
    would have on the sample at 0.5: on the corrected probability with the
    threshold of eq. 12 (``threshold_``) for two classes, by
    ``argmax_k p_k r_k`` beyond.

    Parameters
    ----------
    estimator : classifier, default=None
        Any scikit-learn classifier with ``predict_proba`` (LightGBM's,
        XGBoost's, ...); cloned before fitting. ``None``: a rarity random
        forest, ``Classifier("forest(n=100)")``.
    sampler : str or rarity sampler, default="under"
        The sampler spec (``"under(beta=0.1)"``, ``"smote(k=5)"``, ...) or a
        :mod:`rarity.sampling` sampler.
    seed : int, default=42
        Seed of the sample (the stream a strategy's sampler stage uses, so
        ``"under(beta=0.1)"`` here draws the rows ``"under(beta=0.1)+tree"``
        would).
    n_jobs : int, default=None
        Threads of the sampler.
    pos_label : label, default=None
        The positive class of a binary task (default: the minority).
    categorical_features : None, "from_dtype", list or bool mask, default=None
        Columns the sampler reads as categorical features (level codes, no
        limit on the levels, as :class:`rarity.Classifier` reads them);
        ``X``'s rows go to the estimator as they are, so give the estimator
        the same ``categorical_features`` (the default estimator gets them).
        A sampler that makes synthetic rows (SMOTE and its kin) is SMOTE-NC on
        them: a synthetic row's level is the most frequent among its seed row
        and the seed's neighbours, in ``X``'s dtype (Chawla et al. 2002,
        section 6.1).
    random_state : int, default=None
        scikit-learn's name of ``seed``: when given, it is the seed.

    Attributes
    ----------
    estimator_ : classifier
        The estimator fitted on the sample.
    classes_ : ndarray
        The class labels, sorted.
    keep_rates_ : ndarray
        Per class (``classes_`` order), rows in the sample over rows in ``X``.
    threshold_ : float or None
        Eq. 12: the threshold on the corrected probability of ``pos_label_``
        equivalent to 0.5 on the estimator's (binary tasks).
    lambdas_ : ndarray or None
        The per-class thresholds of ``predict`` beyond two classes (``classes_``
        order): predict ``argmax_k p_k / lambda_k``.
    pos_label_ : label or None
        The positive class of a binary task.
    sample_indices_ : ndarray
        The rows of ``X`` in the sample (repeats allowed; synthetic rows follow).
    n_features_in_ : int
        Number of columns seen in ``fit``.

    Examples
    --------
    >>> import rarity
    >>> X, y = rarity.datasets.load("yeast4")
    >>> clf = rarity.CorrectedClassifier(rarity.Classifier("forest(n=20)"), sampler="under(beta=0.1,exact)")
    >>> p = clf.fit(X, y).predict_proba(X)
    >>> round(float(clf.keep_rates_.min()), 2)
    0.1
    """

    def __init__(
        self, estimator=None, sampler="under", seed=42, n_jobs=None, pos_label=None, categorical_features=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.sampler = sampler
        self.seed = seed
        self.n_jobs = n_jobs
        self.pos_label = pos_label
        self.categorical_features = categorical_features
        self.random_state = random_state

    def _sampler_spec(self, lab):
        from .sampling import _Base

        s = self.sampler
        if isinstance(s, str):
            return s
        if isinstance(s, _Base):
            return s._spec(lab)
        raise ValueError(f"sampler={s!r} is invalid; expected a sampler spec or a rarity.sampling sampler")

    def fit(self, X, y, sample_weight=None):
        """Draws the sample, fits the estimator on it, keeps the keep rates.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or table
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Passed to the estimator for the sampled rows (1 for synthetic rows).

        Returns
        -------
        self : object
        """
        from .sampling import _resample_outputs

        n_jobs = V.n_jobs_of(self.n_jobs)
        feats, names = V.features(X, n_jobs, self.categorical_features)
        lab = V.labels(y, self.pos_label, type(self).__name__)
        w = V.sample_weight(sample_weight, feats.n_rows_)
        data = _estimator_data(self, feats, lab, _target_name(y), None, n_jobs)
        drawn = _rarity.resample(self._sampler_spec(lab), data, V.seed_of(self.seed, self.random_state), n_jobs)
        rates = np.asarray(drawn.keep_rates)
        if np.any(rates <= 0):
            k = int(np.flatnonzero(rates <= 0)[0])
            raise ValueError(f"the sampler kept no rows of class '{lab.class_names[k]}'")
        X_s, ids = _resample_outputs(X, drawn, np.asarray(drawn.rows, dtype=np.int64), lab, data, n_jobs)
        y_s = lab.classes_[ids]
        est = self.estimator
        if est is None:
            est = Classifier(
                "forest(n=100)", seed=self.seed, n_jobs=self.n_jobs, categorical_features=self.categorical_features
            )
        est = clone(est)
        fit_params = {}
        if w is not None:
            n_syn = drawn.n_synthetic
            fit_params["sample_weight"] = np.concatenate([w[drawn.rows], np.ones(n_syn)])
        est.fit(X_s, y_s, **fit_params)
        got = np.asarray(getattr(est, "classes_", lab.classes_))
        if len(got) != len(lab.classes_) or np.any(got != lab.classes_):
            raise ValueError(
                f"the estimator learned classes {list(got)} but y has {list(lab.classes_)}; "
                "the sample must keep every class"
            )
        self.estimator_ = est
        self.classes_ = lab.classes_
        self.n_features_in_ = len(feats.column_names)
        if names is not None:
            self.feature_names_in_ = names
        self._lab_to = lab.to_rarity
        self._lab_from = lab.from_rarity
        self._rates = rates
        self._class_names = list(lab.class_names)
        self.keep_rates_ = rates[lab.to_rarity]
        self.sample_indices_ = np.asarray(drawn.rows)
        t, lambdas = _rarity.consistent_rule(rates.tolist())
        self._rule = (t, lambdas)
        self.threshold_ = t
        self.lambdas_ = None if lambdas is None else np.asarray(lambdas)[lab.to_rarity]
        self.pos_label_ = lab.positive
        return self

    def _corrected(self, X):
        check_fitted(self, "estimator_")
        V.check_n_features(self, X)
        p = np.asarray(self.estimator_.predict_proba(X), dtype=np.float64)
        if p.ndim != 2 or p.shape[1] != len(self.classes_):
            raise ValueError(f"the estimator's predict_proba gave shape {p.shape}")
        return _rarity.correct(np.ascontiguousarray(p[:, self._lab_from]), self._rates.tolist())

    def predict_proba(self, X):
        """Corrected class probabilities, columns in the order of ``classes_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or table

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        return self._corrected(X)[:, self._lab_to]

    def predict(self, X):
        """Labels: the consistent rule (eq. 12) on the corrected probabilities.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or table

        Returns
        -------
        labels : ndarray of shape (n_samples,)
        """
        p = self._corrected(X)
        t, lambdas = self._rule
        ids = _rarity.decide(p, t, lambdas)
        return self.classes_[self._lab_from[ids]]

    def to_onnx(self, path=None):
        """The corrected model as an ONNX graph (what ``rarity export`` writes
        for the same strategy): the estimator's graph, the correction of
        eq. 9 for the sample's keep rates and the consistent rule of eq. 12,
        so that the graph's ``probabilities`` and ``label`` are those of
        :meth:`predict_proba` and :meth:`predict`.

        The estimator must be a rarity estimator without a sampler,
        correction, calibration or prior shift of its own; any other (a
        scikit-learn or LightGBM model) is a ``ValueError`` saying so:
        export it with its own converter and apply :func:`rarity.calibration.correct`.

        Parameters
        ----------
        path : str or path-like, optional
            Where to write the model (replaced whole or not at all). Without
            it, the bytes are returned.
        """
        check_fitted(self, "estimator_")
        est = self.estimator_
        if not isinstance(est, _RarityClassifier):
            raise ValueError(
                f"to_onnx: the estimator is a {type(est).__name__}, not a rarity estimator; export it with "
                "its own converter (skl2onnx, onnxmltools) and correct its probabilities with "
                "rarity.calibration.correct(p, keep_rates)"
            )
        lab_names = [str(c) for c in self._class_names]
        corrected = est.model_.corrected_by(lab_names, self._rates.tolist())
        if path is None:
            return corrected.to_onnx()
        corrected.write_onnx(os.fspath(path))
        return None

    def _repr_html_(self):
        """scikit-learn's diagram, then once fitted the keep-rate table of the
        sample and the estimator's own summary (a rarity estimator's model
        and importances)."""
        parts = [_sklearn_html(self)]
        if hasattr(self, "estimator_"):
            rows = [[c, r] for c, r in zip(self.classes_.tolist(), self.keep_rates_.tolist())]
            parts.append(_html.table(["class", "keep rate"], rows, "the sample's keep rates (eq. 9 divides by them)"))
            rule = f"threshold {self.threshold_:.4g} (eq. 12)" if self.threshold_ is not None else (
                f"lambdas {self.lambdas_.tolist()}"
            )
            parts.append(_html.paragraph(f"decision: {rule}"))
            inner = getattr(self.estimator_, "_repr_html_", None)
            if inner is not None and isinstance(self.estimator_, _RarityClassifier):
                parts.append(inner())
        return "".join(parts)

    def _repr_mimebundle_(self, **kwargs):
        return {"text/plain": repr(self), "text/html": self._repr_html_()}

    def __sklearn_tags__(self):
        # Missing values reach the estimator when the sampler draws rows
        # without measuring distances and the estimator takes them.
        from sklearn.utils import get_tags

        from .sampling import _Base

        est = self.estimator if self.estimator is not None else Classifier("forest(n=100)")
        try:
            takes = get_tags(est).input_tags.allow_nan
            s = self.sampler
            if isinstance(s, _Base):
                takes = takes and s._draws_only(None)
            else:
                takes = takes and _rarity.missing_policy("keep", "sampler", [s]) == "keep"
        except (ValueError, TypeError, AttributeError):
            takes = False
        return _input_tags(super().__sklearn_tags__(), allow_nan=takes)
