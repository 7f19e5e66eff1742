"""``rarity.run``: the main job of ``rarity run`` from Python.

Compares strategies on one dataset with repeated stratified
cross-validation on shared folds, ranks them by a metric, tests the
differences (Friedman / Nemenyi over the folds, Demšar 2006) and fits the
winner on all rows: ``rarity::experiment::run``, the call the command line
makes.
"""

from __future__ import annotations

import os

import numpy as np

from . import _html, _rarity, _rendered
from . import _validation as V
from ._docs import REPORT_HTML, sections

__all__ = ["run", "RunResult"]


#: The ``categorical`` and ``categorical_cols`` parameters of the jobs that
#: read data files (:func:`run`, :func:`rarity.evaluate`), in numpydoc.
CATEGORICAL_PARAMS = """\
categorical : {"error", "one-hot", "native", "target"}, default="error"
    How a data file's text columns are read, as ``--categorical``: an
    error, one-hot encoded (at most 50 levels), ``"native"``: one
    feature of level codes each, split as sets of levels by tree, forest,
    the bagging ensembles' trees and gbdt, or ``"target"``: level codes
    that every strategy
    without an ``encode(...)`` stage encodes by ``encode(target)``
    (cross-fitted target statistics, any learner). A table (pandas,
    polars, pyarrow) is read the same way: with ``"native"`` or
    ``"target"`` its category-dtype columns (pandas ``category``, polars
    ``Categorical`` / ``Enum``, Arrow dictionaries) and text columns are
    level codes, levels sorted by text as a file's (an ordered category
    keeps its order); otherwise its text and category columns are one-hot
    encoded.
categorical_cols : list of str, default=None
    Columns read as categorical whatever their values (numeric-looking
    codes included), as ``--categorical-cols``; ``"COL=MODE"`` sets one
    column's mode (``native``, ``one-hot``, ``target``, or for a file
    ``error``): ``["merchant=target", "channel=native"]`` encodes
    ``merchant`` by target statistics and keeps ``channel`` as level codes.
    A missing categorical value follows ``missing``."""

#: The reader options of the jobs that read a data file, in numpydoc: the
#: command line's ``--delimiter``, ``--decimal``, ``--no-header``,
#: ``--drop`` and ``--drop-constant``, parsed by the same reading request.
READ_PARAMS = """\
delimiter : str, default=","
    A data file's CSV field delimiter: one ASCII character, or ``"tab"``.
decimal : {".", ","}, default="."
    The decimal separator of a CSV's numbers (with ``","`` the delimiter
    must be another character, e.g. ``";"``).
header : bool, default=True
    Whether a CSV's first row names the columns (``False``: they are
    ``x0``, ``x1``, ..., as ``--no-header``).
drop : list of str, default=None
    Columns of a data file left out (a table: drop them from it).
drop_constant : bool, default=False
    Leave out a data file's feature columns that take a single value."""

#: The reader options' defaults (what a table, read by Python, must keep).
READ_DEFAULTS = {"delimiter": ",", "decimal": ".", "header": True, "drop": None, "drop_constant": False}

#: The ``missing`` parameter of the jobs that read a table or a file, in
#: numpydoc.
MISSING_PARAMS = """missing : {"auto", "keep", "drop", "error"}, default="auto"
    Missing values (NaN, ``None``, nulls; in a file empty fields, ``?``,
    ``NA``), as ``--missing``: ``"keep"`` hands them to the strategies
    (learners that learn where they go, or an ``impute(...)`` stage; any
    other strategy is a ``ValueError`` naming the stage to add), ``"drop"``
    drops the incomplete rows, ``"error"`` refuses them; ``"auto"`` keeps
    them when every strategy takes them and drops otherwise. A row whose
    label is missing is dropped unless ``"error"``. Dropped rows are
    counted in ``rows_dropped`` and a warning."""


class RunResult:
    """What :func:`run` found.

    Attributes
    ----------
    ranking : pandas.DataFrame, polars.DataFrame or list of dict
        One row per strategy, best first (by the metric when it ranks
        strategies; by their model's rank, then by the decision metric, when
        it ranks models): ``rank``, ``strategy``, per metric
        its mean and ``<metric>_std`` over folds (and ``<metric>_full_potential``
        for thresholded metrics of binary tasks), ``fit_seconds`` and
        ``predict_seconds``. A pandas DataFrame when pandas is installed,
        else a polars one, else a list of dicts.
    verdict : dict
        Friedman / Nemenyi over the folds between models (a model is
        everything but the decision): ``friedman_p``, ``iman_davenport_p``,
        ``critical_difference``, ``mean_ranks`` and ``tied_with_best`` (model
        specs), ``testable`` (false with fewer than three models or all tied:
        then no difference can be tested) and ``summary``.
    winner : rarity.Classifier
        The best strategy fitted on all rows.
    metric : str
        The ranking metric.
    level : str
        What it ranked: ``"models"`` (a ranking or probability metric) or
        ``"strategies"`` (a thresholded one).
    decision_metric : str
        The thresholded metric that compared the decisions of each model.
    decisions : list of dict
        Per model, best first: ``model``, its ``strategies`` best first on the
        decision metric and ``p_vs_best`` (Wilcoxon signed-rank over folds
        against the model's best decision).
    """

    def __init__(self, native, winner, source):
        self._native = native
        self._source = source
        self.metric = native.metric
        self.level = native.level
        self.decision_metric = native.decision_metric
        self.decisions = native.decisions()
        self.winner = winner
        rows = []
        for rank, r in enumerate(native.ranking(), start=1):
            row = {"rank": rank, "strategy": r["strategy"]}
            for key, s in r["metrics"].items():
                row[key] = s["mean"] if s["mean"] is not None else float("nan")
                row[f"{key}_std"] = s["std"] if s["std"] is not None else float("nan")
                if "full_potential" in s:
                    fp = s["full_potential"]
                    row[f"{key}_full_potential"] = float("nan") if fp is None else fp
            row["fit_seconds"] = r["fit_seconds"]
            row["predict_seconds"] = r["predict_seconds"]
            rows.append(row)
        self.ranking = _frame(rows)
        v = dict(native.verdict)
        specs = v["models"]
        v["mean_ranks"] = {specs[i]: r for i, r in enumerate(v["mean_ranks"])}
        v["tied_with_best"] = [specs[i] for i in v["tied_with_best"]]
        self.verdict = v

    def __getstate__(self):
        return _rendered.state(self, self._source, tables=("folds",))

    def folds(self):
        """Every (strategy, fold) result: spec, repeat, fold and metric values.

        Returns
        -------
        list of dict
        """
        out = []
        for e in self._native.folds()["evaluations"]:
            for f in e["folds"]:
                row = {"strategy": e["spec"], "repeat": f["repeat"], "fold": f["fold"]}
                row.update({k: (float("nan") if v is None else v) for k, v in f["metrics"]})
                out.append(row)
        return out

    def to_dict(self):
        """The whole outcome as ``rarity run --format json`` prints it (the
        same library rendering): ``ranking``, ``models``, ``decisions``,
        ``verdict``, ``winner``, ... (``saved`` and ``report`` are None:
        nothing was written).

        Returns
        -------
        dict
        """
        return self._native.to_json(self._source)

    def to_text(self):
        """The outcome as ``rarity run`` prints it: the ranked table, each
        model's decisions, notes, the verdict and the winner.

        Returns
        -------
        str
        """
        return self._native.to_text(self._source)

    def report(self, directory):
        """Writes the HTML report of ``rarity run --report DIR`` (ranked table,
        verdict and critical-difference diagram, ROC / precision-recall /
        reliability curves, box plots, per-class recall; every table as CSV
        and JSON) to ``directory``.

        Returns
        -------
        str
            The path of ``index.html``.
        """
        self._native.report(os.fspath(directory), self._source)
        return os.path.join(os.fspath(directory), "index.html")

    @sections(body=REPORT_HTML)
    def report_html(self):
        """
        %(body)s
        """
        return self._native.report_html(self._source)

    def _shown_ranking(self):
        """The ranking's columns as ``rarity run`` prints them: rank,
        strategy, then the ranking metric and the models' metrics (ROC AUC,
        AP, Brier, log loss) or, ranking strategies, the decision metrics,
        each as mean ± std; every column is in :attr:`ranking`."""
        keys = [self.metric] + [
            k for k in ("roc_auc", "average_precision", "brier", "log_loss") if k != self.metric
        ]
        rows = self.ranking.to_dict("records") if hasattr(self.ranking, "to_dict") else (
            self.ranking.to_dicts() if hasattr(self.ranking, "to_dicts") else list(self.ranking)
        )
        out = []
        for r in rows:
            row = {"rank": r["rank"], "strategy": r["strategy"]}
            for k in keys:
                if k in r:
                    row[k] = f"{r[k]:.4g} ± {r.get(k + '_std', float('nan')):.2g}"
            out.append(row)
        return out

    def _repr_html_(self):
        v = self.verdict
        return "".join([
            _html.records(self._shown_ranking(), f"ranking by {self.metric} (every metric: .ranking)"),
            _html.paragraph(str(v.get("summary", ""))),
            _html.fields([("winner", self.winner.spec), ("tied with the best", v.get("tied_with_best"))], "verdict"),
            _html.page("the report: curves, box plots, critical differences", self.report_html()),
        ])

    def __repr__(self):
        best = self.verdict.get("tied_with_best")
        return f"RunResult(metric={self.metric!r}, winner={self.winner.spec!r}, tied_with_best={best!r})"


def _frame(rows):
    try:
        import pandas as pd

        return pd.DataFrame(rows)
    except ImportError:
        pass
    try:
        import polars as pl

        return pl.DataFrame(rows)
    except ImportError:
        return rows


def _split_target(table, target):
    """``(features table, target values, target name)`` of a pandas, polars
    or pyarrow table (the target's own dtype is kept)."""
    # A pyarrow table's `columns` are its arrays; its names are `column_names`.
    cols = [str(c) for c in (table.column_names if hasattr(table, "column_names") else table.columns)]
    if isinstance(target, (bool, np.bool_)) or not (target is None or isinstance(target, (int, np.integer, str))):
        raise ValueError(f"target={target!r} is invalid; expected a column name or a 0-based index")
    if isinstance(target, (int, np.integer)) and not -len(cols) <= target < len(cols):
        raise ValueError(f"target column {target} not found; the table has {len(cols)} columns")
    # The readers' rule (`--target`): a name matched exactly, else ignoring
    # case when one column matches; an index; the last column by default.
    if isinstance(target, (int, np.integer)):
        j = int(target) % len(cols)
    else:
        j = _rarity.target_index(cols, target)
    name = cols[j]
    if isinstance(target, str) and name != target:
        import warnings

        warnings.warn(f"target '{target}' is the column '{name}' (names match ignoring case)", UserWarning, stacklevel=3)
    if V._is_pandas_frame(table):
        col = table.columns[j]
        return table.drop(columns=[col]), table[col].to_numpy(), name
    if V._is_polars_frame(table):
        return table.drop(name), table[name].to_numpy(), name
    if hasattr(table, "remove_column"):  # pyarrow
        return table.remove_column(j), table.column(j).to_numpy(zero_copy_only=False), name
    raise ValueError(f"data is a {type(table).__name__}; expected a pandas, polars or pyarrow table, a path or (X, y)")


def _missing(missing, kind, specs):
    """The missing-value policy a job reads its data with, settled from
    ``missing`` and what it fits (``rarity`` settles ``--missing`` so)."""
    if not isinstance(missing, str):
        raise ValueError(f"missing={missing!r} is invalid; expected 'auto', 'keep', 'drop' or 'error'")
    return _rarity.missing_policy(missing, kind, specs)


def _data(data, target, pos_label, n_jobs, cv=None, categorical="error", categorical_cols=None, missing="drop",
          who="rarity", reader=None):
    """``(native data, source name, labels or None)``; the column of a
    ``time(...)`` / ``group(...)`` ``cv`` is read as the command line reads it,
    a file's text columns as ``--categorical`` / ``--categorical-cols`` read
    them, its dialect and columns as ``reader`` (:data:`READ_PARAMS`) says,
    and missing values by the settled policy ``missing`` (a warning counts
    the rows dropped, as the command line's note does)."""
    from ._classifier import _warn_dropped

    reader = {**READ_DEFAULTS, **(reader or {})}
    if isinstance(data, (str, os.PathLike)):
        path = os.fspath(data)
        tgt = None if target is None else str(target)
        cols = None if categorical_cols is None else [str(c) for c in categorical_cols]
        drop = reader["drop"]
        if isinstance(drop, str):
            drop = [drop]
        native = _rarity.read_file(
            path, tgt, pos_label, categorical=str(categorical), missing=missing, n_jobs=n_jobs, cv=cv,
            categorical_cols=cols, delimiter=_text("delimiter", reader["delimiter"]),
            decimal=_text("decimal", reader["decimal"]), header=_flag("header", reader["header"]),
            drop=[str(c) for c in drop or []], drop_constant=_flag("drop_constant", reader["drop_constant"]),
        )
        _warn_dropped(who, native, native.n_rows + native.rows_dropped_, stacklevel=4)
        return native, path, None
    given = [k for k, v in reader.items() if k != "drop" and v != READ_DEFAULTS[k]]
    if given:
        raise ValueError(f"{given[0]}={reader[given[0]]!r} applies to a data file; data is a {type(data).__name__}")
    if reader["drop"]:
        raise ValueError("drop applies to a data file; drop the columns from the table instead")
    if categorical not in ("error", "one-hot", "native", "target"):
        raise ValueError(f"categorical={categorical!r} is invalid; expected error, one-hot, native or target")
    if isinstance(data, tuple) and len(data) == 2:
        X, y = data
        name = "y"
    else:
        X, y, name = _split_target(data, target)
    feats, _ = V.features(X, n_jobs)
    plain, modes = _column_modes(categorical_cols)
    if "error" in modes.values():
        col = next(c for c, m in modes.items() if m == "error")
        raise ValueError(f"categorical_cols {col}=error applies to data files; a table's numeric column is numbers already")
    coded = plain + [c for c, m in modes.items() if m in ("native", "target")]
    cols = _table_categories(X, feats, categorical, coded)
    names = feats.column_names
    cols = [j for j in cols if modes.get(names[j]) != "one-hot"]
    if cols:
        feats = feats.categorical(cols, [V._declared_levels(X, j) for j in cols])
    lab = V.labels(y, pos_label, allow_missing=True)
    native = _rarity.Data(feats, lab.codes, lab.class_names, name, None, n_jobs, cv, missing=missing)
    _warn_dropped(who, native, feats.n_rows_, stacklevel=4)
    # The columns strategies encode by target statistics, as the readers'
    # `--categorical target` / `COL=target` mark them.
    if categorical == "target":
        marked = [names[j] for j in cols if modes.get(names[j]) != "native"]
    else:
        marked = [names[j] for j in cols if modes.get(names[j]) == "target"]
    if marked:
        native = native.with_target_columns(marked)
    return native, "<data>", lab


def _text(name, v):
    if not isinstance(v, str):
        raise ValueError(f"{name}={v!r} is invalid; expected a string")
    return v


def _flag(name, v):
    if not isinstance(v, (bool, np.bool_)):
        raise ValueError(f"{name}={v!r} is invalid; expected True or False")
    return bool(v)


def _column_modes(categorical_cols):
    """``(plain names, {name: mode})`` of the ``categorical_cols`` entries
    ``COL`` and ``COL=MODE``, parsed by the library as ``--categorical-cols``."""
    plain, modes = _rarity.column_modes([str(e) for e in categorical_cols or []])
    return plain, dict(modes)


def _table_categories(X, feats, categorical, categorical_cols):
    """The positions of a table's columns read as level codes: with
    ``"native"`` / ``"target"`` its category-dtype and text columns (as the
    file readers read text), and the columns ``categorical_cols`` names."""
    cols = set()
    if categorical in ("native", "target"):
        cols.update(V.categorical_columns(X, feats.column_names, True, "from_dtype"))
        cols.update(feats.text_columns)
    if categorical_cols:
        cols.update(V.categorical_columns(X, feats.column_names, True, [str(c) for c in categorical_cols]))
    return sorted(cols)


@sections(categorical=CATEGORICAL_PARAMS, missing=MISSING_PARAMS, read=READ_PARAMS)
def run(
    data, target=None, *, models=None, metric=_rarity.DEFAULT_METRIC, cv=_rarity.DEFAULT_CV, cost=None,
    benefit=None, pos_label=None, seed=42, random_state=None, n_jobs=None, decision_metric=None, pooled=False,
    categorical="error", categorical_cols=None, missing="auto",
    delimiter=",", decimal=".", header=True, drop=None, drop_constant=False,
):
    """Compares imbalance strategies on one dataset and fits the winner.

    Parameters
    ----------
    data : table, path or (X, y)
        A pandas / polars / pyarrow table holding the target column, a data
        file (CSV, KEEL ``.dat``, ARFF; read as the command line reads it),
        or a pair ``(X, y)``.
    target : str or int, default=None
        The target column (name or 0-based index); default: the last.
    models : list of str, default=None
        Strategy specs to compare; default: ``rarity run``'s set for the task
        (PT-bagging with both plug-in thresholds, undersampling with and
        without the correction, EB-, RB-, SMOTE-bagging, balanced forest,
        tuned forest, logistic regression).
    metric : str, default="average_precision"
        The ranking metric: any key of :func:`rarity.metrics.score` with a
        direction, or ``"cost"`` / ``"benefit"`` with ``cost`` / ``benefit``.
        A ranking or probability metric (average_precision, roc_auc, brier,
        log_loss) ranks models (strategies that differ only in their decision
        are one model); a thresholded one (g_mean, f1, ..., cost, benefit)
        ranks strategies.
    cv : str or int, default="2x5"
        Repeated stratified cross-validation ``RxK``, or, for data that drift
        or come in groups, ``"time(col=COL, folds=5)"`` (expanding window in
        the order of ``COL``: numbers, datetimes or ISO 8601 text) or
        ``"group(col=COL, folds=5)"`` (no value of ``COL``, numbers or text
        ids, on both sides); ``COL`` is a column of ``data`` that the models
        do not see unless ``keep=true``.
        ``"loo"`` (leave-one-out) is always pooled (see ``pooled``).
    cost : str or dict, default=None
        Misclassification costs, ``"fn=10,fp=1"`` or ``{"fn": 10, "fp": 1}``
        (or ``"matrix='0,1;5,0'"``): adds the metric ``cost`` and, for every
        model whose probabilities are calibrated (platt, isotonic, correct,
        logistic, svm) or that decides by ``threshold(priors)``, a copy
        deciding by the Bayes minimum-risk rule.
    benefit : str, default=None
        Example-dependent benefit ``"amount=COL,overhead=V"``.
    pos_label : label, default=None
        The positive class (binary; default: the minority).
    seed : int, default=42
    random_state : int, default=None
        scikit-learn's name for ``seed``, an alias: when given, it is the seed.
    n_jobs : int, default=None
    decision_metric : str, default=None
        The thresholded metric that compares the decisions of each model when
        ``metric`` ranks models; default: ``cost`` with ``cost``, ``benefit``
        with ``benefit``, else ``g_mean``.
    pooled : bool, default=False
        Compute every metric once on each repeat's pooled out-of-fold
        predictions (and rank on those) instead of averaging per-fold values;
        always on with ``cv="loo"``, whose one-row folds have no AUC.
    %(categorical)s
    %(missing)s
    %(read)s

    Returns
    -------
    RunResult
        The ranking, the verdict between models and the winner fitted on
        all rows.

    Examples
    --------
    >>> import rarity
    >>> X, y = rarity.datasets.load("ecoli4")
    >>> res = rarity.run((X, y), models=["pt-bagging(n=10)", "forest(n=10)", "tree"], cv="1x3")
    >>> len(res.ranking), res.metric
    (3, 'average_precision')
    """
    n_jobs = V.n_jobs_of(n_jobs)
    cv = V.cv_of(cv)
    seed = V.seed_of(seed, random_state)
    policy = _missing(missing, "strategies", list(models) if models else None)
    native_data, source, lab = _data(
        data, target, pos_label, n_jobs, cv, categorical, categorical_cols, policy, "rarity.run",
        dict(delimiter=delimiter, decimal=decimal, header=header, drop=drop, drop_constant=drop_constant),
    )
    if isinstance(cost, dict):
        cost = ",".join(f"{k}={v}" for k, v in cost.items())
    native = _rarity.run_job(
        native_data, list(models or []), metric, cv, cost, benefit, seed, n_jobs, decision_metric,
        bool(pooled),
    )
    from ._classifier import Classifier

    winner = Classifier(spec=native.winner.spec, seed=seed, n_jobs=n_jobs, pos_label=pos_label)
    model = native.winner
    if lab is None:
        names = np.asarray(model.class_names, dtype=object)
        lab = V.labels(names[_rarity.dataset_arrays(native_data)[1]], pos_label)
    features = _FeatureNames(model.source_columns)
    winner._set_model(model, lab, features, None)
    return RunResult(native, winner, source)


class _FeatureNames:
    """The ``column_names`` of the fitted data (what ``_set_model`` reads)."""

    def __init__(self, names):
        self.column_names = list(names)
