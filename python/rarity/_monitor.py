""":func:`monitor`: a model in production watched on a current table
against a reference one, the job of ``rarity monitor`` (the same library
request and run, ``rarity::job::monitor``), so ``to_dict()`` equals the
command's ``--format json`` output on the same model and tables.
"""

from __future__ import annotations

import copy
import os

from . import _html, _rarity, _rendered
from . import _validation as V
from ._classifier import _RarityClassifier
from ._declared import Job
from ._docs import sections
from ._run import _frame

#: ``monitor``'s declared parameters (``rarity::job::monitor::MonitorParams``).
DECLARED = Job("monitor")
_D = DECLARED.defaults

__all__ = ["monitor", "MonitorResult"]


class MonitorResult:
    """What :func:`monitor` found: the ``rarity monitor --format json`` object.

    Attributes
    ----------
    columns : pandas.DataFrame, polars.DataFrame or list of dict
        Per source column of the model, most drifted first: ``column``,
        ``kind`` (numeric or categorical), ``psi``, ``ks`` (numeric columns)
        and ``status`` (``stable`` < 0.1 <= ``shifting`` <= 0.25 <
        ``drifted``).
    score : dict
        The PSI of the model's probability of each class, by class name.
    alert_rate : dict
        The share of scored rows the model's decision flags: ``reference``
        and ``current``.
    priors : dict
        ``training``, ``estimated`` (Saerens' EM on the current rows, without
        labels), ``low`` and ``high`` (its bootstrap interval), each by class
        name, ``outside_classes`` (the classes whose training prior left its
        interval), ``em`` (``on``: ``histogram`` for two classes, ``sample``
        of the probability vectors for more) and what the model's threshold
        moves to.
    labelled : dict or None
        With ``label``: the labelled rows' count, the metrics of ``rarity
        score`` and calibration in the large (more than two classes: the
        multiclass metrics, and ``calibration`` and ``reliability`` by class
        name); else None.
    failed : list of str
        The ``fail_on`` conditions met (empty: none).

    Examples
    --------
    >>> import rarity
    >>> X, y = rarity.datasets.load("ecoli4", as_frame=True)
    >>> m = rarity.Classifier("logistic").fit(X, y)
    >>> r = rarity.monitor(m, X, X.assign(x0=X["x0"] * 2), bootstrap=0, fail_on="psi=0.25")
    >>> r.failed
    ['psi=0.25: x0 has PSI 12.3159']
    """

    def __init__(self, native):
        self._native = native
        raw = self.to_dict()
        self.columns = _frame([
            {"column": c["column"], "kind": c["kind"], "psi": c["psi"], "ks": c.get("ks"),
             "status": c["status"]}
            for c in raw["columns"]
        ])
        for key in ("score", "alert_rate", "priors", "failed"):
            setattr(self, key, raw[key])
        self.labelled = raw.get("labelled")

    def __getstate__(self):
        return _rendered.state(self, None)

    def to_dict(self):
        """The outcome as ``rarity monitor --format json`` prints it.

        Returns
        -------
        dict
        """
        return copy.deepcopy(self._native.to_json())

    def to_text(self):
        """The outcome as ``rarity monitor`` prints it.

        Returns
        -------
        str
        """
        return self._native.to_text()

    def report(self, directory):
        """Writes the HTML report of ``rarity monitor --report DIR`` (drift
        bars and table, each class's probability bins reference vs current,
        the EM prior with its interval, the labelled rows' metrics) and its
        tables as CSV and JSON to ``directory``, whole or not at all.

        Parameters
        ----------
        directory : str or path-like
        """
        self._native.report(os.fspath(directory))

    def report_html(self):
        """The report's HTML page.

        Returns
        -------
        str
        """
        return self._native.report_html()

    def _repr_html_(self):
        return _html.page("monitor: input drift, most drifted first", self.report_html())

    def __repr__(self):
        d = self.to_dict()
        top = d["columns"][0] if d["columns"] else None
        most = f", top={top['column']!r} psi={top['psi']:.4f}" if top else ""
        rows = d["current"]["rows"]
        return f"MonitorResult(current_rows={rows}{most}, failed={len(d['failed'])})"


def _model(model):
    """The native model of a fitted estimator or of a model file's path."""
    if isinstance(model, _RarityClassifier):
        from ._base import check_fitted

        check_fitted(model)
        return model.model_
    if isinstance(model, (str, os.PathLike)):
        return _rarity.Model.load(os.fspath(model))
    if isinstance(model, _rarity.Model):
        return model
    raise ValueError(
        "monitor takes a fitted rarity estimator (Classifier, GradientBoosting or a named ensemble) "
        f"or a model file's path, got {type(model).__name__}"
    )


def _table(t, name):
    """A path, or a table as Arrow (anything with ``__arrow_c_stream__``;
    a pandas frame through pyarrow when pandas does not offer it)."""
    if isinstance(t, (str, os.PathLike)) or hasattr(t, "__arrow_c_stream__"):
        return t
    if V._is_pandas_frame(t):
        import pyarrow as pa

        return pa.Table.from_pandas(t, preserve_index=False)
    raise ValueError(
        f"monitor: {name} must be a data file's path or a table with named columns (pandas, polars, "
        f"pyarrow), got {type(t).__name__}; a matrix has no column names to match the model's"
    )


@sections(declared=DECLARED.docs())
def monitor(
    model, reference=None, current=None, *, label=_D["label"], bins=_D["bins"], bootstrap=_D["bootstrap"],
    fail_on=_D["fail_on"], seed=42, random_state=None, n_jobs=None, delimiter=",", decimal=".",
):
    """Watches a model on a current table against a reference one, as
    ``rarity monitor`` does: input drift, score drift, the alert rate, the
    current priors without labels and, with labels, the metrics.

    Each table is read once in bounded memory; a data file is read as the
    command line reads it, an Arrow table (pandas, polars, pyarrow) as a
    Parquet file is.

    Parameters
    ----------
    model : fitted rarity estimator, or str / path-like
        :class:`rarity.Classifier`, :class:`rarity.GradientBoosting`, a
        named ensemble, or the path of a model file ``rarity fit`` wrote.
    reference : str, path-like, table or None, default=None
        The rows the model was known good on (the training data, a past
        period): a data file (CSV, .gz/.zst, Parquet, Arrow IPC) or a table
        holding the model's columns. Its rows carrying the model's target
        column get the labelled metrics too. None: the training summary the
        model file holds (``rarity fit --summary``).
    current : str, path-like or table
        The rows to watch, with the model's columns (required).
    %(declared)s
    seed : int, default=42
        Seed of the bootstrap.
    random_state : int, default=None
        scikit-learn's name for ``seed``, an alias: when given, it is the seed.
    n_jobs : int, default=None
        Threads: ``None`` or ``-1`` every core (the result is the same).
    delimiter : str, default=","
        CSV field delimiter of data files.
    decimal : str, default="."
        Decimal separator of CSV numbers (``.`` or ``,``).

    Returns
    -------
    MonitorResult
        ``to_dict()`` is ``rarity monitor --format json``'s object.

    Examples
    --------
    >>> import rarity
    >>> X, y = rarity.datasets.load("yeast4", as_frame=True)
    >>> m = rarity.GradientBoosting(max_iter=20).fit(X, y)
    >>> r = rarity.monitor(m, X, X.assign(x1=X["x1"] + 0.2), bootstrap=20)
    >>> r.to_dict()["columns"][0]["column"], r.to_dict()["columns"][0]["status"]
    ('x1', 'drifted')
    """
    if current is None:
        raise ValueError("monitor: current= is required (the rows to watch)")
    native = _model(model)
    seed = V.seed_of(seed, random_state)
    params = DECLARED.texts(dict(label=label, bins=bins, bootstrap=bootstrap, fail_on=fail_on))
    raw = _rarity.monitor(
        native, None if reference is None else _table(reference, "reference"),
        _table(current, "current"), params, seed,
        str(delimiter), str(decimal), V.n_jobs_of(n_jobs),
    )
    return MonitorResult(raw)
