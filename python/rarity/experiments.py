"""The papers' experiments over datasets: ``rarity experiment calibration``,
``pt-bagging`` and ``reverse-testing`` from Python.

Each function fills the library's request of the command (the same
parameters, spelled the Python way, with the same defaults), loads the
datasets as ``--data-dir`` does (or bundled ones by name) and runs the
library's protocol, so ``to_dict()`` equals the command's
``--format json`` output for the same datasets and seed (but for
``seconds``, the measured time). The outcome shows its tables and the
report's SVG figures in a notebook, and writes the report of
``--report DIR`` with :meth:`ExperimentResult.report`.

- :func:`calibration`: undersampling with and without the prior correction
  (Dal Pozzolo et al. 2015, Sec. VI, Table V, Fig. 3-4).
- :func:`pt_bagging`: PT-bagging against EB-, RB-, SMOTE-bagging, Platt and
  UnderOver (Collell et al. 2018, Sec. 4-5).
- :func:`reverse_testing`: the ReverseTesting bias experiment (Fan &
  Davidson 2006, Sec. 5).
"""

from __future__ import annotations

import numbers
import os

from . import _html, _rarity, _rendered
from . import _validation as V
from ._docs import REPORT_HTML, sections

__all__ = [
    "ExperimentResult",
    "CalibrationResult",
    "PtBaggingResult",
    "ReverseTestingResult",
    "calibration",
    "pt_bagging",
    "reverse_testing",
]


class ExperimentResult:
    """What an experiment found: the ``rarity experiment ... --format json``
    object, its text and its HTML report.

    Attributes
    ----------
    skipped : list of str
        Everything left out, with the reason: datasets above ``max_rows``,
        then what the protocol left out.

    Examples
    --------
    >>> import rarity
    >>> r = rarity.experiments.reverse_testing(["glass6"], learners="tree,gnb", splits=1)
    >>> isinstance(r, rarity.experiments.ExperimentResult), r.skipped
    (True, [])
    """

    #: The keys of the JSON object kept as attributes.
    _KEYS = ("skipped",)

    def __init__(self, native):
        self._native = native
        raw = native.to_json()
        for key in self._KEYS:
            setattr(self, key, raw[key])

    def __getstate__(self):
        return _rendered.state(self)

    def to_dict(self):
        """The outcome as ``rarity experiment ... --format json`` prints it.

        Returns
        -------
        dict
        """
        return self._native.to_json()

    def to_text(self):
        """The outcome as ``rarity experiment ...`` prints it.

        Returns
        -------
        str
        """
        return self._native.to_text()

    def report(self, directory):
        """Writes the HTML report of ``--report DIR`` (figures, tables, and
        every table as CSV and JSON) to ``directory``; an existing file there
        is an error.

        Returns
        -------
        str
            The path of ``index.html``.
        """
        self._native.report(os.fspath(directory))
        return os.path.join(os.fspath(directory), "index.html")

    @sections(body=REPORT_HTML)
    def report_html(self):
        """
        %(body)s
        """
        return self._native.report_html()

    def _tables(self):
        return []

    def _repr_html_(self):
        skipped = [_html.paragraph(f"skipped: {s}") for s in self.skipped]
        page = _html.page("the report: figures and every table", self.report_html())
        return "".join([*self._tables(), *skipped, page])


class CalibrationResult(ExperimentResult):
    """What :func:`calibration` found (``rarity experiment calibration``).

    Attributes
    ----------
    cv : str
        The repeated stratified cross-validation, ``RxK``.
    levels : list of float
        The undersampling levels t (beta = (N+/N-)^t).
    table_v : list of dict
        Table V: per measure and learner the rank sums over (dataset, beta)
        cells of the probabilities p, p_s and p' (``rank_sums``) and paired
        t-test p-values (``p_vs_p_s``, ``p_vs_p_corrected``).
    brier_corrected_below_undersampled : list
        Per learner the share of cells where the corrected probabilities
        have a lower Brier score than the undersampled ones.
    gaussian : list of dict
        The synthetic Gaussian task's curves (Fig. 3-4).
    cells : list of dict
        Every (dataset, learner, beta) cell's measures.
    seconds : float
        Seconds the experiment took (loading excluded).

    Examples
    --------
    >>> import rarity
    >>> r = rarity.experiments.calibration(["glass6"], learners="tree", levels=[1, 0.5], cv="1x2")
    >>> r.levels, sorted({row["measure"] for row in r.table_v})
    ([1.0, 0.5], ['auc', 'brier', 'g_mean'])
    """

    _KEYS = ("cv", "levels", "table_v", "brier_corrected_below_undersampled", "gaussian", "cells",
             "skipped", "seconds")

    def _tables(self):
        rows = [[r["measure"], r["learner"], *r["rank_sums"], r["p_vs_p_s"], r["p_vs_p_corrected"], r["cells"]]
                for r in self.table_v]
        wins = [[learner, 100.0 * share] for learner, share in self.brier_corrected_below_undersampled]
        return [
            _html.table(["measure", "learner", "R(p)", "R(p_s)", "R(p')", "p vs p_s", "p vs p'", "cells"], rows,
                        f"Table V: rank sums over datasets x beta ({self.cv} CV)"),
            _html.table(["learner", "% of cells"], wins, "Brier(p') < Brier(p_s)"),
        ]

    def __repr__(self):
        return f"CalibrationResult(cv={self.cv!r}, levels={self.levels!r}, cells={len(self.cells)})"


class PtBaggingResult(ExperimentResult):
    """What :func:`pt_bagging` found (``rarity experiment pt-bagging``).

    Attributes
    ----------
    cv : str
        The repeated stratified cross-validation, ``RxK``.
    sizes : list of int
        The ensemble sizes.
    measures : list of str
        The measures of each (method, size), in the order of the tables.
    binary_methods, multiclass_methods : list of str
        The methods compared on binary and on multiclass datasets.
    binary : dict or None
        The binary datasets' summary: trends over sizes (Fig. 1), the
        measures at the largest size (Table 5), win/tie/loss (Table 4),
        Friedman / Nemenyi rank tests and recall per class (Fig. 2).
    multiclass : dict or None
        The multiclass comparison (Sec. 5.2).
    datasets : list of dict
        Per dataset its measures.
    seconds : float
        Seconds the experiment took (loading excluded).

    Examples
    --------
    >>> import rarity
    >>> r = rarity.experiments.pt_bagging(["glass6", "ecoli4"], sizes=[3, 5], cv="1x2")
    >>> r.sizes, r.binary["n_datasets"], r.multiclass
    ([3, 5], 2, None)
    """

    _KEYS = ("cv", "sizes", "measures", "binary_methods", "multiclass_methods", "binary", "multiclass", "datasets",
             "skipped", "seconds")

    def _tables(self):
        out = []
        if self.binary is not None:
            b = self.binary
            out.append(_html.table(["method", *self.measures], [[m, *v] for m, v in zip(self.binary_methods,
                                                                                        b["at_largest"])],
                                   f"binary: {b['n_datasets']} datasets, n={b['sizes'][-1]} ({self.cv} CV)"))
            out.append(_html.table(["measure", "Friedman p", "CD", *self.binary_methods],
                                   [[r["measure"], r["friedman_p"], r["critical_difference"], *r["mean_ranks"]]
                                    for r in b["rank_tests"]], "mean ranks (1 = best)"))
        if self.multiclass is not None:
            m = self.multiclass
            rows = zip(self.multiclass_methods, m["macro_accuracy"], m["macro_f1"], m["wins"])
            out.append(_html.table(["method", "macro acc", "macro F1", "wins"], [list(r) for r in rows],
                                   f"multiclass: {m['n_datasets']} datasets"))
        return out

    def __repr__(self):
        b = 0 if self.binary is None else self.binary["n_datasets"]
        m = 0 if self.multiclass is None else self.multiclass["n_datasets"]
        return f"PtBaggingResult(cv={self.cv!r}, sizes={self.sizes!r}, binary={b}, multiclass={m})"


class ReverseTestingResult(ExperimentResult):
    """What :func:`reverse_testing` found (``rarity experiment
    reverse-testing``).

    Attributes
    ----------
    datasets : int
        How many datasets it ran on.
    splits : int
        Random train/test splits per dataset.
    metric : str
        The measure defining the true order.
    seed : int
        The seed of splits and fits.
    methods : list of dict
        Per selection method its ``method``, ``variant`` (ReverseTesting
        variants), ``tally`` (pairs ordered ``correct``, ``wrong``,
        ``undecided``, ...) and ``percent_correct``.
    per_dataset : list of dict
        The tallies per dataset.
    cells : list of dict
        Every (dataset, split, learner) cell.

    Examples
    --------
    >>> import rarity
    >>> r = rarity.experiments.reverse_testing(["glass6"], learners="tree,gnb", splits=1)
    >>> [m["method"] for m in r.methods]
    ['ReverseTesting paper', 'ReverseTesting default', '10-fold CV', 'leave-one-out']
    """

    _KEYS = ("datasets", "splits", "metric", "seed", "methods", "per_dataset", "cells", "skipped")

    def write_pairs(self, path):
        """Writes every counted pair (dataset, split, learners, test rows,
        true measures, each method's decision) as CSV to ``path``: ``--pairs
        FILE``.

        Returns
        -------
        str
            ``path``.
        """
        self._native.write_pairs(os.fspath(path))
        return os.fspath(path)

    def _tables(self):
        rows = [[m["method"], m["tally"]["correct"], m["tally"]["wrong"], m["tally"]["undecided"],
                 m["percent_correct"]] for m in self.methods]
        caption = f"{self.datasets} datasets x {self.splits} splits, measure {self.metric}"
        return [_html.table(["method", "correct", "wrong", "undecided", "% correct"], rows, caption)]

    def __repr__(self):
        best = max(self.methods, key=lambda m: m["percent_correct"] or 0.0)["method"] if self.methods else None
        return f"ReverseTestingResult(datasets={self.datasets}, splits={self.splits}, best={best!r})"


def _joined(value, name, item=str):
    """A comma-separated list as the command line takes it: a string as
    given, or a sequence of ``item`` joined."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, item) and not isinstance(v, bool)
                                                         for v in value):
        return ",".join(str(v) for v in value)
    kind = "strings" if item is str else "numbers"
    raise ValueError(f"{name}={value!r} is invalid; expected a string or a non-empty list of {kind}")


def _strings(value, name):
    """A repeatable flag's values: one string or a list of strings."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ValueError(f"{name}={value!r} is invalid; expected a string or a list of strings")


def _text(value, name):
    if not isinstance(value, str):
        raise ValueError(f"{name}={value!r} is invalid; expected a string")
    return value


def _count(value, name, least):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
        raise ValueError(f"{name}={value!r} is invalid; expected an integer >= {least}")
    return int(value)


def _data(datasets, data_dirs, max_rows):
    """``(bundled names, directories, max_rows)`` as the library takes them."""
    names = [] if datasets is None else _strings(datasets, "datasets")
    if data_dirs is None:
        dirs = []
    elif isinstance(data_dirs, (str, os.PathLike)):
        dirs = [os.fspath(data_dirs)]
    elif isinstance(data_dirs, (list, tuple)) and all(isinstance(d, (str, os.PathLike)) for d in data_dirs):
        dirs = [os.fspath(d) for d in data_dirs]
    else:
        raise ValueError(f"data_dirs={data_dirs!r} is invalid; expected a directory or a list of directories")
    return names, dirs, _count(max_rows, "max_rows", 0)


#: The parameters every experiment takes, documented once.
_COMMON = {
    "{datasets}": """datasets : str or list of str, default=None
        Bundled datasets by name (``rarity.datasets.names()``).
    data_dirs : path or list of paths, default=None
        Directories of CSV datasets (``--data-dir``): every ``.csv`` file,
        label in the last column. Neither given: every bundled dataset.""",
    "{seed}": """seed : int, default=42
        The seed of the folds, splits and fits (``--seed``).
    n_jobs : int, default=None
        Threads: ``None`` or ``-1`` every core.""",
}


def _documented(fn):
    """``fn`` with the common parameters written into its docstring."""
    for key, text in _COMMON.items():
        fn.__doc__ = fn.__doc__.replace(key, text)
    return fn


@_documented
def calibration(datasets=None, data_dirs=None, learners="forest(n=100),logitboost,svm", levels="1,0.75,0.5,0.25",
                cv="10x10", max_rows=100_000, seed=42, n_jobs=None):
    """Undersampling with and without the prior correction over datasets
    (Dal Pozzolo et al. 2015, Sec. VI): ``rarity experiment calibration``.

    Per binary dataset, learner and level t, the learner is fitted on a
    sample undersampled to beta = (N+/N-)^t; its probabilities p_s and the
    corrected ones p' (eq. 9) are compared with those p of the learner fitted
    on all rows by AUC, G-mean and Brier score (Table V), with the synthetic
    Gaussian task's curves (Fig. 3-4). Multiclass datasets are skipped.

    Parameters
    ----------
    {datasets}
    learners : str or list of str, default="forest(n=100),logitboost,svm"
        Learner specs.
    levels : str or list of float, default="1,0.75,0.5,0.25"
        Undersampling levels t in (0, 1] (1 = balanced).
    cv : str or int, default="10x10"
        Repeated stratified cross-validation, ``RxK``.
    max_rows : int, default=100000
        Skip datasets with more rows.
    {seed}

    Returns
    -------
    CalibrationResult

    Examples
    --------
    >>> import rarity
    >>> r = rarity.experiments.calibration(["glass6"], learners="tree", levels="1,0.5", cv="1x2")
    >>> r.to_dict()["levels"], [c["dataset"] for c in r.cells]
    ([1.0, 0.5], ['glass6'])
    """
    data = _data(datasets, data_dirs, max_rows)
    native = _rarity.calibration_experiment(data, _joined(learners, "learners"),
                                            _joined(levels, "levels", numbers.Real), V.cv_of(cv),
                                            V.seed_of(seed), V.n_jobs_of(n_jobs))
    return CalibrationResult(native)


@_documented
def pt_bagging(datasets=None, data_dirs=None, sizes="5,10,25,50,100", cv="5x2", max_rows=100_000, seed=42,
               n_jobs=None):
    """PT-bagging against EB-, RB-, SMOTE-bagging, Platt and UnderOver over
    datasets (Collell et al. 2018, Sec. 4-5): ``rarity experiment
    pt-bagging``.

    Parameters
    ----------
    {datasets}
    sizes : str or list of int, default="5,10,25,50,100"
        Ensemble sizes, ascending.
    cv : str or int, default="5x2"
        Repeated stratified cross-validation, ``RxK``.
    max_rows : int, default=100000
        Skip datasets with more rows.
    {seed}

    Returns
    -------
    PtBaggingResult

    Examples
    --------
    >>> import rarity
    >>> r = rarity.experiments.pt_bagging("glass6", sizes="3,5", cv="1x2")
    >>> r.binary_methods[0], len(r.binary["trend"])
    ('PT_MA', 3)
    """
    data = _data(datasets, data_dirs, max_rows)
    native = _rarity.pt_bagging_experiment(data, _joined(sizes, "sizes", numbers.Integral), V.cv_of(cv),
                                           V.seed_of(seed),
                                           V.n_jobs_of(n_jobs))
    return PtBaggingResult(native)


@_documented
def reverse_testing(datasets=None, data_dirs=None, learners="tree,gnb,logistic,svm", splits=5, metric="accuracy",
                    variants=("paper", "default"), methods=(), bias="feature", max_rows=1000, seed=42, n_jobs=None):
    """The ReverseTesting bias experiment over datasets (Fan & Davidson 2006,
    Sec. 5): ``rarity experiment reverse-testing``.

    Per dataset and split, the training set is biased and each selection
    method orders every pair of learners; the tally counts how often the
    order is the target set's true one. 10-fold CV and leave-one-out are
    always evaluated.

    Parameters
    ----------
    {datasets}
    learners : str or list of str, default="tree,gnb,logistic,svm"
        Learner specs.
    splits : int, default=5
        Random train/test splits per dataset.
    metric : str, default="accuracy"
        The measure defining the true order.
    variants : str or list of str, default=("paper", "default")
        ReverseTesting variants (``--variant``): a preset and/or
        ``labels=``, ``measure=``, ``decide=``, ``judges=`` settings.
    methods : str or list of str, default=()
        Further selection methods (``--method``), as for
        :func:`rarity.select.select`: ``iwcv``, ``prior-cv``, ...
    bias : {"feature", "class", "none"}, default="feature"
        The training-set bias: the lowest 25% of the first attribute dropped
        (the paper), half of the majority class kept, or none.
    max_rows : int, default=1000
        Skip datasets with more rows (leave-one-out fits a model per row).
    {seed}

    Returns
    -------
    ReverseTestingResult

    Examples
    --------
    >>> import rarity
    >>> r = rarity.experiments.reverse_testing(["glass6"], learners="tree,gnb", splits=1, methods="iwcv")
    >>> r.methods[2]["method"], r.splits
    ('iwcv', 1)
    """
    data = _data(datasets, data_dirs, max_rows)
    native = _rarity.reverse_testing_experiment(
        data, _joined(learners, "learners"), _count(splits, "splits", 1), _text(metric, "metric"),
        _strings(variants, "variants"), _strings(methods, "methods"), _text(bias, "bias"), V.seed_of(seed),
        V.n_jobs_of(n_jobs))
    return ReverseTestingResult(native)
