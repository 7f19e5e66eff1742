"""rarity on Apache Spark: undersample where the data live, train on one
node, score everywhere (``pip install ./python[spark]``; docs/SPARK.md).

Undersampling records the exact rate at which each class was kept, and the
prior correction of Dal Pozzolo et al. (2015, eq. 9), ``p_k ∝ p_s,k / r_k``,
makes the probabilities of a model trained on the sample right again. On a
cluster:

1. :func:`undersample` keeps every row of the rare class and a Bernoulli
   fraction of the others in one pass over the data, and counts the rows of
   each class seen and kept in the same job. Each row's draw is a hash of the
   seed and the row's key (``key=`` an identifier column, else a hash of
   all the row's values; ``rarity::sample::keyed``), so the sample is the
   same for any partitioning, and the realised keep rates (kept / seen, per
   class) are exact.
2. :func:`fit` collects the (small) sample to the driver as Arrow batches and
   trains any rarity strategy there (multithreaded); the model stores the
   realised keep rates, so ``+correct`` undoes the sampling that happened.
   Categorical columns (``categorical="native"``, ``categorical_cols=``) are
   coded on the cluster first: a level table per partition, merged on the
   driver (codes in sorted order of the level texts, as the file readers
   give them, whatever the partitioning), then the codes in each partition.
3. :func:`predict` scores every partition with ``mapInArrow``: the model is
   broadcast once as bytes and loaded once per Python worker; the output adds
   ``p_<class>`` columns and the decided ``label``, row for row what
   ``rarity predict`` writes.
4. :func:`evaluate` computes the metrics of ``rarity score`` on the cluster:
   each partition builds a histogram of at most ``max_groups`` groups of
   probabilities with their class counts and sums, the driver merges them
   (nothing else is shuffled) and the library computes every metric from the
   merged histogram (``rarity::metrics::summary``: exact while the
   probabilities fit, then exact but for the ranking metrics, whose bound it
   reports); ``exact=True`` sorts (score key, class) pairs on the cluster for
   the exact ranking metrics (``rarity::metrics::ranges``).
5. :func:`monitor` watches a model on a current DataFrame against a
   reference one, as ``rarity monitor`` does: each partition reads its Arrow
   batches into the mergeable counts of one pass
   (``rarity::stream::monitor``: per column a sketch of its values or its
   levels, per class the probabilities, the decisions, the probabilities EM
   runs on, the labelled rows' summary), the driver merges them and the
   library compares the two (``rarity::job::monitor``), so the figures are
   the single machine's on the same rows.

Every step is a thin call into the rarity library through the native
module; nothing here computes a number of its own.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Dict, Optional

from . import _rarity
from ._monitor import DECLARED as _MONITOR

__all__ = ["Sample", "undersample", "fit", "predict", "evaluate", "monitor", "load_model"]

# Columns of the one-pass undersampling job's count rows.
_TAG, _SEEN, _KEPT = "__rarity_class", "__rarity_seen", "__rarity_kept"


def _spark():
    try:
        import pyspark  # noqa: F401
        from pyspark.sql import functions as F
        from pyspark.sql import types as T
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "rarity.spark needs pyspark: pip install 'rarity[spark]' (or ./python[spark])"
        ) from None
    return F, T


@dataclass(frozen=True)
class Sample:
    """What :func:`undersample` drew.

    Attributes
    ----------
    df : pyspark.sql.DataFrame
        The kept rows (persisted; ``df.unpersist()`` frees them).
    label : str
        The label column.
    counts_before, counts_after : dict
        Rows per class (label as text, as rarity names classes) in the data
        and in the sample, counted in the sampling job itself.
    keep_rates : dict
        Per class, ``counts_after / counts_before``: the exact realised rate
        that ``+correct`` undoes.
    positive : str or None
        The positive class, if named.

    See :func:`undersample` for an example.
    """

    df: object
    label: str
    counts_before: Dict[str, int]
    counts_after: Dict[str, int]
    keep_rates: Dict[str, float] = field(default_factory=dict)
    positive: Optional[str] = None


def _job_error(what, e):
    """A failed Spark job as one clear error: the first library or Python
    error line of the executor's traceback, then Spark's message; when the
    executors' Python lacks a module, which Python they run and what to set."""
    text = str(e)
    lines = [m.strip() for m in re.findall(r"^\s*\w*(?:Error|Exception): .*$", text, flags=re.M)]
    lines = [m for m in lines if "Traceback" not in m]
    reason = lines[-1] if lines else text.strip().splitlines()[0] if text.strip() else type(e).__name__
    missing = re.search(r"No module named '([^']+)'", reason)
    hint = _executor_python_hint(missing.group(1)) if missing else ""
    return RuntimeError(f"rarity.spark.{what}: the Spark job failed: {reason}{hint}")


def _executor_python_hint(module):
    """Why the executors cannot import ``module`` when they run another
    Python than the driver: Spark starts ``spark.pyspark.python``, else
    ``$PYSPARK_PYTHON``, else ``python3`` from ``PATH``, which is not a
    virtual environment's interpreter unless the environment is activated."""
    import os
    import shutil
    import sys

    try:
        from pyspark import SparkContext

        sc = SparkContext._active_spark_context
        exe = getattr(sc, "pythonExec", None) or os.environ.get("PYSPARK_PYTHON") or "python3"
    except ImportError:  # pragma: no cover - a job ran, so pyspark is there
        return ""
    found = shutil.which(exe) or exe
    if os.path.abspath(found) == os.path.abspath(sys.executable):
        return f" (install {module} in {sys.executable}, the Python the executors run)"
    return (
        f"; the executors run the Python '{exe}' ({found}), which cannot import {module}, not this "
        f"driver's {sys.executable}: Spark starts spark.pyspark.python, else $PYSPARK_PYTHON, else "
        f"python3 from PATH. Set PYSPARK_PYTHON={sys.executable} before the SparkSession starts, or "
        f'.config("spark.pyspark.python", "{sys.executable}") on its builder (on a cluster, a Python '
        "with rarity and pyarrow on every node: docs/SPARK.md)"
    )


def _run(what, action):
    """Runs a Spark action, turning a failed job into :func:`_job_error`."""
    try:
        return action()
    except (ValueError, TypeError, ImportError):
        raise
    except Exception as e:  # Py4JJavaError, PythonException, SparkException
        raise _job_error(what, e) from e


def _counts(df, label):
    """Rows per label (as text), in one aggregation: per-partition counts
    from the native reader, summed by a shuffle of the counts alone."""
    F, _ = _spark()

    def count_batches(batches):
        import pyarrow as pa

        from rarity import _rarity as native

        for b in batches:
            c = native.label_counts(b, label)
            yield pa.RecordBatch.from_arrays(
                [pa.array([l for l, _ in c], pa.string()), pa.array([n for _, n in c], pa.int64())],
                names=["label", "n"],
            )

    rows = _run(
        "undersample",
        lambda: df.select(label)
        .mapInArrow(count_batches, "label string, n long")
        .groupBy("label")
        .agg(F.sum("n").alias("n"))
        .collect(),
    )
    return {r["label"]: int(r["n"]) for r in rows}


def _check_rate(name, r):
    if not isinstance(r, (int, float)) or not 0.0 < float(r) <= 1.0:
        raise ValueError(f"{name} must be a number in (0, 1], got {r!r}")
    return float(r)


def _is_seed(seed):
    """Whether ``seed`` is a seed the library takes: a non-negative integer
    below 2**64 (``rarity._validation.seed_of``'s rule; this module needs
    no NumPy on the executors)."""
    return isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < 2**64


def undersample(
    df,
    label,
    beta=None,
    ratio=None,
    rates=None,
    seed=42,
    key=None,
    positive=None,
    storage_level=None,
):
    """Random undersampling in one distributed pass, with exact keep rates.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
    label : str
        The label column (numbers or text; classes are named by its values
        as text, ``1.0`` as ``1``).
    beta : float in (0, 1], optional
        Keep every row of the minority class and each other row with
        probability ``beta`` (``under(beta=..)``). The minority is found by
        one aggregation first, unless ``positive`` names it.
    ratio : float in (0, 1], optional
        Keep rates that bring each class to minority/class = ``ratio``
        (``under(ratio=..)``, by its rates); needs the class counts (one
        aggregation first).
    rates : dict, optional
        A keep rate per label (labels not given keep every row).
    seed : int
        The seed of the per-row draws.
    key : str, optional
        An identifier column: a row's draw is a hash of ``(seed, key)``.
        Without one, the key is a hash of all the row's values (identical
        rows are kept or dropped together).
    positive : optional
        The rare (positive) class's label.
    storage_level : pyspark.StorageLevel, optional
        How the sample is persisted (default ``MEMORY_AND_DISK``).

    Returns
    -------
    Sample
        The kept rows as a DataFrame with the counts per class before and
        after and the realised keep rates, all from the same job.

    Examples
    --------
    >>> from rarity import spark as rs
    >>> df = spark.range(20000).selectExpr(
    ...     "id", "CAST(id % 100 = 0 AS INT) AS y", "CAST(id % 100 = 0 AS INT) + CAST(id % 7 AS DOUBLE) / 7 AS x")
    >>> s = rs.undersample(df, "y", beta=0.1, positive=1, key="id")
    >>> s.keep_rates["1"], round(s.keep_rates["0"], 1)
    (1.0, 0.1)
    >>> s.df.count() == sum(s.counts_after.values())
    True
    >>> s.keep_rates["0"] == s.counts_after["0"] / 19800
    True
    """
    F, T = _spark()
    from pyspark import StorageLevel

    given = [x is not None for x in (beta, ratio, rates)]
    if sum(given) > 1:
        raise ValueError("undersample: give only one of beta, ratio and rates")
    if label not in df.columns:
        raise ValueError(f"undersample: no column '{label}'; columns are: {', '.join(df.columns)}")
    if key is not None and key not in df.columns:
        raise ValueError(f"undersample: no key column '{key}'; columns are: {', '.join(df.columns)}")
    if not _is_seed(seed):
        raise ValueError(f"undersample: seed must be a non-negative integer below 2**64, got {seed!r}")
    positive = None if positive is None else str(positive)
    if rates is not None:
        if not isinstance(rates, dict):
            raise ValueError("undersample: rates must be a dict {label: rate}")
        per_label = {str(k): _check_rate(f"rates[{k!r}]", v) for k, v in rates.items()}
        default = 1.0
    elif beta is not None and positive is not None:
        per_label, default = {positive: 1.0}, _check_rate("beta", beta)
    else:
        if beta is not None:
            _check_rate("beta", beta)
        elif ratio is not None:
            _check_rate("ratio", ratio)
        counted = _counts(df, label)
        per_label = _rarity.under_rates(
            sorted(counted.items()), beta=beta, ratio=1.0 if beta is None and ratio is None else ratio,
            positive=positive,
        )
        default = 1.0

    fields = [T.StructField(f.name, f.dataType, True) for f in df.schema.fields]
    tagged_schema = T.StructType(
        fields
        + [
            T.StructField(_TAG, T.StringType(), True),
            T.StructField(_SEEN, T.LongType(), True),
            T.StructField(_KEPT, T.LongType(), True),
        ]
    )

    def keep_batches(batches):
        import pyarrow as pa

        from rarity import _rarity as native

        for b in batches:
            kept, counts = native.keep_batch(b, label, per_label, default, seed, key)
            schema = pa.schema(
                [f.with_nullable(True) for f in kept.schema]
                + [pa.field(_TAG, pa.string()), pa.field(_SEEN, pa.int64()), pa.field(_KEPT, pa.int64())]
            )
            n = kept.num_rows
            yield pa.RecordBatch.from_arrays(
                list(kept.columns) + [pa.nulls(n, pa.string()), pa.nulls(n, pa.int64()), pa.nulls(n, pa.int64())],
                schema=schema,
            )
            m = len(counts)
            yield pa.RecordBatch.from_arrays(
                [pa.nulls(m, f.type) for f in kept.schema]
                + [
                    pa.array([c[0] for c in counts], pa.string()),
                    pa.array([c[1] for c in counts], pa.int64()),
                    pa.array([c[2] for c in counts], pa.int64()),
                ],
                schema=schema,
            )

    tagged = df.mapInArrow(keep_batches, tagged_schema).persist(
        storage_level or StorageLevel.MEMORY_AND_DISK
    )
    # One job: it reads the data once, persists the kept rows and returns the
    # counts; the sample below is read from the persisted rows.
    try:
        rows = _run(
            "undersample",
            lambda: tagged.where(F.col(_TAG).isNotNull())
            .groupBy(_TAG)
            .agg(F.sum(_SEEN).alias("seen"), F.sum(_KEPT).alias("kept"))
            .collect(),
        )
    except BaseException:
        tagged.unpersist()
        raise
    before = {r[_TAG]: int(r["seen"]) for r in rows}
    after = {r[_TAG]: int(r["kept"]) for r in rows}
    sample = tagged.where(F.col(_TAG).isNull()).drop(_TAG, _SEEN, _KEPT)
    return Sample(
        df=sample,
        label=label,
        counts_before=before,
        counts_after=after,
        keep_rates={c: after[c] / before[c] for c in before},
        positive=positive,
    )


def _collect_arrow(df):
    """The rows of ``df`` on the driver as one pyarrow Table."""
    import pyarrow as pa

    if hasattr(df, "toArrow"):  # Spark >= 4.0
        return df.toArrow()
    return pa.Table.from_batches(df._collect_as_arrow(), schema=None)  # Spark 3.5


def _categorical_columns(df, cols, categorical, categorical_cols):
    """The feature columns ``cols`` of ``df`` read as level codes: with
    ``categorical="native"`` every string column, and those
    ``categorical_cols`` names (any type; numbers by their text)."""
    _, T = _spark()
    if categorical not in ("one-hot", "native"):
        raise ValueError(f"fit: categorical must be 'one-hot' or 'native', got {categorical!r}")
    if isinstance(categorical_cols, str):
        raise ValueError(f"fit: categorical_cols is a list of column names, got the string {categorical_cols!r}")
    declared = [] if categorical_cols is None else [str(c) for c in categorical_cols]
    unknown = [c for c in declared if c not in cols]
    if unknown:
        raise ValueError(
            f"fit: categorical_cols names {', '.join(map(repr, unknown))}, not among the feature columns: "
            f"{', '.join(cols)}"
        )
    types = {f.name: f.dataType for f in df.schema.fields}
    text = categorical == "native"
    return [c for c in cols if c in declared or (text and isinstance(types[c], T.StringType))]


def _incomplete(df, cols):
    """A Spark condition: the row misses a value of one of ``cols`` (null,
    NaN, or a text the readers read as missing: empty, ``?``, ``NA``)."""
    F, T = _spark()
    types = {f.name: f.dataType for f in df.schema.fields}
    cond = None
    for c in cols:
        col = F.col(c)
        if isinstance(types[c], (T.DoubleType, T.FloatType)):
            miss = col.isNull() | F.isnan(col)
        elif isinstance(types[c], T.StringType):
            miss = col.isNull() | F.trim(col).isin("", "?", "NA")
        else:
            miss = col.isNull()
        cond = miss if cond is None else cond | miss
    return cond


def _missing_rows(rows, cols, label, policy):
    """``rows`` under the settled missing-value ``policy``: ``keep`` drops
    the rows whose label is missing, ``drop`` every incomplete row,
    ``error`` refuses the first (checked on the cluster)."""
    if policy == "error":
        bad = _run("fit", lambda: rows.where(_incomplete(rows, [*cols, label])).limit(1).collect())
        if bad:
            row = bad[0].asDict()
            col = next(c for c in [*cols, label] if _is_missing(row[c]))
            raise ValueError(f"fit: column '{col}' has a missing value (missing='error'); a row: {row}")
        return rows
    gone = _incomplete(rows, [label] if policy == "keep" else [*cols, label])
    return rows.where(~gone)


def _is_missing(v):
    """Whether a collected value is missing, as the readers read one."""
    return v is None or (isinstance(v, float) and v != v) or (isinstance(v, str) and v.strip() in ("", "?", "NA"))


def _level_table(df, columns):
    """The levels of ``columns`` in ``df``'s rows: a table per partition
    (one Arrow batch at a time), merged on the driver. The merge is a union
    and codes follow the sorted level texts, so the table is the same for
    any partitioning."""

    def tables(batches):
        import pyarrow as pa

        from rarity import _rarity as native

        t = native.LevelTable(columns)
        for b in batches:
            t.add_batch(b)
        yield pa.RecordBatch.from_arrays([pa.array([t.to_bytes()], pa.binary())], names=["table"])

    rows = _run("fit", lambda: df.select(*columns).mapInArrow(tables, "table binary").collect())
    merged = _rarity.LevelTable(columns)
    for r in rows:
        merged.merge(_rarity.LevelTable.from_bytes(bytes(r["table"])))
    return merged


def _worker_levels(bc, token):
    """The broadcast level table of ``token``, loaded once in this Python
    worker (its sorted levels are then built once, not per batch)."""
    t = _LOADED.get(token)
    if t is None:
        if len(_LOADED) > 8:
            _LOADED.clear()
        t = _rarity.LevelTable.from_bytes(bc.value)
        _LOADED[token] = t
    return t


def _coded(df, table, columns):
    """``df`` with ``columns`` replaced by their level codes in ``table``
    (doubles), computed in each partition."""
    import uuid

    _, T = _spark()
    bc = df.sparkSession.sparkContext.broadcast(table.to_bytes())
    token = uuid.uuid4().hex
    schema = T.StructType(
        [
            T.StructField(f.name, T.DoubleType() if f.name in columns else f.dataType, True)
            for f in df.schema.fields
        ]
    )

    def code(batches):
        t = _worker_levels(bc, token)
        for b in batches:
            yield t.code_batch(b)

    return df.mapInArrow(code, schema)


def fit(
    sample,
    spec,
    label=None,
    features=None,
    seed=42,
    positive=None,
    n_jobs=None,
    path=None,
    categorical="one-hot",
    categorical_cols=None,
    missing="auto",
):
    """Trains strategy ``spec`` on the driver from a distributed sample.

    Parameters
    ----------
    sample : Sample or pyspark.sql.DataFrame
        What :func:`undersample` returned (its realised keep rates are stored
        in the model), or a DataFrame used whole (every keep rate 1).
    spec : str
        A rarity strategy without a sampler stage (the distributed sample is
        the sampler), e.g. ``"forest(n=100)+correct"``.
    label : str
        The label column (default: the sample's).
    features : list of str, optional
        Feature columns (default: every column but the label).
    seed : int
        The learner's seed.
    n_jobs : int, optional
        Threads on the driver (``None``: every core).
    path : str, optional
        Also save the model there (atomically: a failed fit writes nothing).
    categorical : {"one-hot", "native"}, default="one-hot"
        How string columns are read, as ``rarity fit --categorical``:
        one-hot encoded (at most 50 levels), or ``"native"``: one feature of
        level codes each, for learners with categorical splits (``tree``,
        ``forest``, ``gbdt``), with no limit on the levels.
    categorical_cols : list of str, optional
        Feature columns read as level codes whatever their type (numeric
        codes by their text), as ``--categorical-cols``.
    missing : {"auto", "keep", "drop", "error"}, default="auto"
        Missing values (nulls, NaN, empty, ``"?"``, ``"NA"``), as ``rarity
        fit --missing`` settles them: kept (NaN) for a strategy that takes
        them (a learner that learns where they go, or an ``impute(...)``
        stage, whose statistics are then the sample's, each row weighted by
        1 / its keep rate), the incomplete rows dropped on the cluster, or
        an error; ``"auto"`` keeps them when the strategy takes them and
        drops otherwise. A row whose label is missing is dropped unless
        ``"error"``.

    Level codes: each partition collects its columns' levels, the driver
    merges them (their union, codes in sorted order of the level texts, as
    the file readers give them) and each partition replaces its levels by
    their codes before the sample is collected. The levels are those of the
    rows fitted on; a level absent from them (only in rows the sampling
    dropped, or new) is predicted as an unseen level, NaN. The collected
    rows are ordered by their values, so the model is the same for any
    partitioning.

    Returns
    -------
    rarity._rarity.Model
        With ``keep_rates``, ``priors`` (the population's), ``to_bytes()``;
        ``rarity predict`` reads the saved file.

    Examples
    --------
    >>> from rarity import spark as rs
    >>> df = spark.range(20000).selectExpr(
    ...     "id", "CAST(id % 100 = 0 AS INT) AS y", "CAST(id % 100 = 0 AS INT) + CAST(id % 7 AS DOUBLE) / 7 AS x")
    >>> s = rs.undersample(df, "y", rates={"0": 0.2}, key="id")  # a rate per label
    >>> model = rs.fit(s, "tree(max_depth=3)+correct", features=["x"])
    >>> model.class_names, model.keep_rates == [s.keep_rates["0"], 1.0]
    (['0', '1'], True)
    >>> model.priors
    [0.99, 0.01]
    """
    if not _is_seed(seed):
        raise ValueError(f"fit: seed must be a non-negative integer below 2**64, got {seed!r}")
    if isinstance(sample, Sample):
        df, label = sample.df, label or sample.label
        population = sample.counts_before
        positive = sample.positive if positive is None else str(positive)
    else:
        if label is None:
            raise ValueError("fit: give label= for a DataFrame")
        df, population = sample, None
    if label not in df.columns:
        raise ValueError(f"fit: no column '{label}'; columns are: {', '.join(df.columns)}")
    cols = list(features) if features is not None else [c for c in df.columns if c != label]
    absent = [c for c in cols if c not in df.columns]
    if absent:
        raise ValueError(f"fit: no column {', '.join(map(repr, absent))}; columns are: {', '.join(df.columns)}")
    coded = _categorical_columns(df, cols, categorical, categorical_cols)
    policy = _rarity.missing_policy(str(missing), "strategies", [spec])
    rows = _missing_rows(df.select(*cols, label), cols, label, policy)
    levels = None
    if coded:
        levels = _level_table(rows, coded)
        # A missing level (null, empty, "?", "NA") is a NaN code: kept, as
        # the file readers keep it under the same policy.
        rows = _coded(rows, levels, coded)
    if population is None:
        population = _counts(rows, label)
    # Ordered by value: the rows (and so the model) whatever the partitioning.
    table = _run("fit", lambda: _collect_arrow(rows.orderBy(*cols, label)))
    model = _rarity.fit_drawn(
        spec,
        table,
        label,
        sorted(population.items()),
        seed,
        positive=None if positive is None else str(positive),
        n_jobs=n_jobs,
        levels=levels,
    )
    if path is not None:
        _rarity.save_model(model, str(path))
    return model


def load_model(model):
    """A model from a ``rarity fit`` file path, its bytes, a fitted
    :class:`rarity.Classifier` or a native model.

    Parameters
    ----------
    model : str, path, bytes, rarity.Classifier or rarity._rarity.Model
        What to read (a native model is returned as it is).

    Returns
    -------
    rarity._rarity.Model

    Examples
    --------
    >>> import os, tempfile
    >>> from rarity import spark as rs
    >>> df = spark.range(20000).selectExpr(
    ...     "id", "CAST(id % 100 = 0 AS INT) AS y", "CAST(id % 100 = 0 AS INT) + CAST(id % 7 AS DOUBLE) / 7 AS x")
    >>> path = os.path.join(tempfile.mkdtemp(), "m.rarity")
    >>> model = rs.fit(df, "tree(max_depth=2)", label="y", features=["x"], path=path)
    >>> rs.load_model(path).class_names
    ['0', '1']
    >>> rs.load_model(model.to_bytes()).feature_names
    ['x']
    """
    if isinstance(model, _rarity.Model):
        return model
    if hasattr(model, "model_"):
        return model.model_
    if isinstance(model, (bytes, bytearray)):
        return _rarity.Model.from_bytes(bytes(model))
    return _rarity.Model.load(os.fspath(model))


# Models loaded in this Python worker, by a token made on the driver for
# each broadcast: each worker loads a model once, not once per batch or task.
_LOADED: Dict[str, object] = {}

# The accumulator of the last broadcast's loads (see :func:`_model_loads`).
_LAST_LOADS = None


class _ListParam:
    """An accumulator of lists (Spark's ``AccumulatorParam`` protocol)."""

    def zero(self, value):
        return []

    def addInPlace(self, a, b):
        a.extend(b)
        return a


def _worker_model(bc, token, loads):
    """The broadcast model of ``token``, loaded once in this Python worker;
    each load adds this process's id to the accumulator ``loads``."""
    m = _LOADED.get(token)
    if m is None:
        import os

        if len(_LOADED) > 8:
            _LOADED.clear()
        m = _rarity.for_partitions(_rarity.Model.from_bytes(bc.value), None)
        _LOADED[token] = m
        loads.add([os.getpid()])
    return m


def _model_loads():
    """Process ids of the Python workers that loaded the model of the last
    :func:`predict` / :func:`evaluate`, one per load (read on the driver
    after the job ran)."""
    return list(_LAST_LOADS.value) if _LAST_LOADS is not None else []


def _broadcast(df, model, decision):
    """The model ready for partitions (checked on the driver), its broadcast
    bytes, the token workers cache it under and the accumulator of its
    loads."""
    import uuid

    global _LAST_LOADS
    ready = _rarity.for_partitions(load_model(model), decision)
    sc = df.sparkSession.sparkContext
    bc = sc.broadcast(ready.to_bytes())
    _LAST_LOADS = sc.accumulator([], _ListParam())
    return ready, bc, uuid.uuid4().hex, _LAST_LOADS


def predict(df, model, decision=None, unknown="error", reasons=None):
    """Scores every row of ``df`` on the executors.

    The model is broadcast once as bytes; each Python worker loads it once
    (not once per batch or task) and scores its Arrow batches
    (``mapInArrow``).

    Parameters
    ----------
    df : pyspark.sql.DataFrame
        Holds the model's feature columns (others are carried along).
    model : Model, path, bytes or fitted rarity.Classifier
        What :func:`load_model` reads.
    decision : str, optional
        Decide by this rule instead of the saved one (``rarity predict
        --decision``), e.g. ``"threshold(0.3)"`` or ``"cost(fn=10,fp=1)"``.
    unknown : {"error", "ignore"}, default="error"
        A categorical level the model was not trained on: an error (the
        task fails, naming the levels), or read as ``rarity predict
        --unknown ignore`` reads it. A missing value is scored where the
        model takes missing values and an error elsewhere.
    reasons : int, optional
        Also append each row's ``reasons`` strongest reasons (``rarity predict
        --reasons K``): ``reason_1..K`` (source columns), ``value_1..K`` (the
        row's values as text) and ``contribution_1..K`` (doubles, towards the
        decided class), from the model's exact contributions; checked on the
        driver before any work.

    Returns
    -------
    pyspark.sql.DataFrame
        ``df`` with ``p_<class>`` columns (doubles) and the decided ``label``
        (the class name) appended: each row's values bit for bit those
        ``rarity predict`` writes for it. Lazy: nothing runs until an action.

    Examples
    --------
    >>> from rarity import spark as rs
    >>> df = spark.range(20000).selectExpr(
    ...     "id", "CAST(id % 100 = 0 AS INT) AS y", "CAST(id % 100 = 0 AS INT) + CAST(id % 7 AS DOUBLE) / 7 AS x")
    >>> model = rs.fit(df, "tree(max_depth=2)", label="y", features=["x"])
    >>> scored = rs.predict(df, model)
    >>> scored.columns
    ['id', 'y', 'x', 'p_0', 'p_1', 'label']
    >>> scored.where("label = '1'").count()
    200
    """
    _, T = _spark()
    if unknown not in ("error", "ignore"):
        raise ValueError(f"predict: unknown={unknown!r} is invalid; expected 'error' or 'ignore'")
    if reasons is not None and (isinstance(reasons, bool) or not isinstance(reasons, int)):
        raise ValueError(f"predict: reasons={reasons!r} is invalid; expected a whole number of reasons")
    ready, bc, token, loads = _broadcast(df, model, decision)
    added = [T.StructField(f"p_{c}", T.DoubleType(), False) for c in ready.class_names]
    added.append(T.StructField("label", T.StringType(), False))
    if reasons is not None:
        _rarity.check_reasons(ready, reasons)
        for name in ("reason", "value"):
            added += [T.StructField(f"{name}_{j + 1}", T.StringType(), False) for j in range(reasons)]
        added += [T.StructField(f"contribution_{j + 1}", T.DoubleType(), False) for j in range(reasons)]
    out = T.StructType(list(df.schema.fields) + added)
    taken = [f.name for f in out.fields[len(df.schema.fields):] if f.name in df.columns]
    if taken:
        raise ValueError(f"predict: the data already have a column '{taken[0]}', which predict adds; rename or drop it")

    def score(batches):
        from rarity import _rarity as native
        from rarity.spark import _worker_model

        m = _worker_model(bc, token, loads)
        for b in batches:
            if b.num_rows:
                yield native.predict_batch(m, b, unknown, reasons)

    return df.mapInArrow(score, out)


def _binary_only(ready):
    """A clear error for a model that ``evaluate`` cannot score."""
    k = len(ready.class_names)
    if k != 2:
        raise ValueError(
            f"evaluate: the model has {k} classes ({', '.join(ready.class_names)}); rarity.spark.evaluate "
            "computes rarity score's metrics for binary models only (multiclass: score the output of "
            "predict with rarity score on one machine)"
        )


def evaluate(df, model, label, threshold=0.5, exact=False, max_groups=65536, partitions=None):
    """The metrics of ``rarity score`` for ``model`` on ``df`` (binary
    models), computed on the cluster with bounded memory on the driver.

    Each partition scores its rows into a histogram of at most
    ``max_groups`` groups of positive-class probabilities
    (``rarity::metrics::summary``), the driver merges them and the library
    computes every metric. While the whole data have at most ``max_groups``
    distinct probabilities (a forest has a few thousand) every metric is the
    single-machine value. Past that, neighbouring probabilities share a
    group: the confusion metrics, Brier, log loss, stratified Brier, ECE and
    Murphy's decomposition stay exact (each group keeps their sums, inside
    one calibration bin and one side of the threshold), while ROC AUC,
    average precision and the PR AUC treat a group as ties:
    ``ranking_exact`` is then 0 and ``roc_auc_bin_error`` bounds the ROC
    AUC's error. ``exact=True`` computes the ranking metrics exactly by a
    distributed sort of (score key, class) pairs.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
        The model's feature columns and the label column.
    model : Model, path, bytes or fitted rarity.Classifier
        A binary model (what :func:`load_model` reads).
    label : str
        The label column (its values are the model's class names).
    threshold : float
        The thresholded metrics decide positive iff ``p_1 >= threshold``
        (``rarity score --threshold``).
    exact : bool
        Also sort the scores on the cluster (``repartitionByRange`` on the
        score key, two passes over the sorted pairs, which are persisted) so
        that the ranking metrics are exact whatever ``max_groups``.
    max_groups : int
        The cap on the histogram's groups (at least 64), per partition and
        on the driver: its memory is about 100 bytes a group.
    partitions : int, optional
        Range partitions of the sort (default ``spark.sql.shuffle.partitions``).

    Returns
    -------
    dict
        Metric key to value, in ``rarity score``'s order, then
        ``ranking_exact`` (1.0 when ROC AUC, AP and PR AUC are exact) and
        ``roc_auc_bin_error`` (0.0 when they are).

    Examples
    --------
    >>> from rarity import spark as rs
    >>> df = spark.range(20000).selectExpr(
    ...     "id", "CAST(id % 100 = 0 AS INT) AS y", "CAST(id % 100 = 0 AS INT) + CAST(id % 7 AS DOUBLE) / 7 AS x")
    >>> model = rs.fit(df, "logistic", label="y", features=["x"])
    >>> m = rs.evaluate(df, model, "y")
    >>> m["roc_auc"], m["tn"] + m["fp"], m["ranking_exact"]
    (1.0, 19800.0, 1.0)
    >>> e = rs.evaluate(df, model, "y", exact=True)
    >>> e["roc_auc"] == m["roc_auc"] and abs(e["brier"] - m["brier"]) < 1e-12
    True
    """
    ready, bc, token, loads = _broadcast(df, model, None)
    _binary_only(ready)
    if label not in df.columns:
        raise ValueError(f"evaluate: no column '{label}'; columns are: {', '.join(df.columns)}")
    if partitions is not None and (not isinstance(partitions, int) or partitions < 1):
        raise ValueError(f"evaluate: partitions must be a positive integer, got {partitions!r}")
    _rarity.Summary(threshold, max_groups)  # checks the arguments on the driver
    cols = [c for c in ready.source_columns if c != label] + [label]
    data = df.select(*cols)
    if exact:
        return _evaluate_exact(data, bc, token, loads, label, threshold, max_groups, partitions)

    def summarise(batches):
        import pyarrow as pa

        from rarity import _rarity as native
        from rarity.spark import _worker_model

        m = _worker_model(bc, token, loads)
        s = native.Summary(threshold, max_groups)
        for b in batches:
            if b.num_rows:
                s.add_batch(m, b, label)
        yield pa.RecordBatch.from_arrays([pa.array([s.to_bytes()], pa.binary())], names=["summary"])

    parts = _run("evaluate", lambda: data.mapInArrow(summarise, "summary binary").collect())
    return dict(_merged(parts, threshold, max_groups).report())


def _merged(parts, threshold, max_groups):
    """The summaries of collected rows (column ``summary``) merged."""
    total = _rarity.Summary(threshold, max_groups)
    for p in parts:
        total.merge(_rarity.Summary.from_bytes(bytes(p["summary"])))
    return total


def _evaluate_exact(data, bc, token, loads, label, threshold, max_groups, partitions):
    """:func:`evaluate` with the ranking metrics from a distributed sort.

    The rows are scored once into (k = the probability's order-preserving
    key, y = the class) pairs, persisted; ``repartitionByRange`` on k puts
    every row of one score in one range, each range is sorted and persisted.
    Pass 1 returns each range's lowest key and its histogram (the class
    counts among its sums); the driver merges the histograms and counts the
    rows above each range (``rarity::metrics::ranges``); pass 2 walks each
    range's sorted pairs from that start and returns its exact ROC AUC / AP /
    PR AUC sums, which the driver adds.
    """
    from pyspark import StorageLevel

    def keys(batches):
        from rarity import _rarity as native
        from rarity.spark import _worker_model

        m = _worker_model(bc, token, loads)
        for b in batches:
            if b.num_rows:
                yield native.score_keys(m, b, label)

    def first_pass(batches):
        import pyarrow as pa

        from rarity import _rarity as native

        s, low = native.Summary(threshold, max_groups), None
        for b in batches:
            if b.num_rows:
                low = b.column("k")[0].as_py() if low is None else low
                s.add_keys(b)
        if low is not None:
            yield pa.RecordBatch.from_arrays(
                [pa.array([low], pa.int64()), pa.array([s.to_bytes()], pa.binary())], names=["low", "summary"]
            )

    pairs = data.mapInArrow(keys, "k long, y byte").persist(StorageLevel.MEMORY_AND_DISK)
    ranged = None
    try:
        ranged = pairs.repartitionByRange(*([partitions] if partitions else []), "k").sortWithinPartitions("k")
        ranged = ranged.persist(StorageLevel.MEMORY_AND_DISK)
        parts = _run("evaluate", lambda: ranged.mapInArrow(first_pass, "low long, summary binary").collect())
        pairs.unpersist()
        total = _merged(parts, threshold, max_groups)
        ranges = []
        for p in parts:
            neg, pos = _rarity.Summary.from_bytes(bytes(p["summary"])).class_rows
            ranges.append((p["low"], neg, pos))
        above = _rarity.counts_above(ranges)
        starts = {r[0]: (a, [r[1], r[2]]) for r, a in zip(ranges, above)}
        n_pos = total.class_rows[1]
        bstarts = data.sparkSession.sparkContext.broadcast(starts)

        def second_pass(batches):
            import pyarrow as pa

            from rarity import _rarity as native

            walk = None
            for b in batches:
                if b.num_rows:
                    if walk is None:
                        above_, totals = bstarts.value[b.column("k")[0].as_py()]
                        walk = native.RangeWalk(above_, totals, n_pos)
                    walk.add(b)
            if walk is not None:
                yield pa.RecordBatch.from_arrays([pa.array([walk.finish().to_bytes()], pa.binary())], names=["sums"])

        sums = _run("evaluate", lambda: ranged.mapInArrow(second_pass, "sums binary").collect())
        bstarts.unpersist()
    finally:
        pairs.unpersist()
        if ranged is not None:
            ranged.unpersist()
    ranking = _rarity.RankSums()
    for s in sums:
        ranking.merge(_rarity.RankSums.from_bytes(bytes(s["sums"])))
    return dict(total.report(ranking))


def _profile(df, ready, bc, token, loads, label):
    """The merged pass of every partition of ``df`` over the model's columns
    (and ``label``, counted where given)."""
    cols = [c for c in ready.source_columns if c != label] + ([label] if label else [])

    def profile(batches):
        import pyarrow as pa

        from rarity import _rarity as native
        from rarity.spark import _worker_model

        m = _worker_model(bc, token, loads)
        p = native.MonitorProfile(m, label)
        for b in batches:
            p.add_batch(m, b)
        yield pa.RecordBatch.from_arrays([pa.array([p.to_bytes()], pa.binary())], names=["profile"])

    parts = _run("monitor", lambda: df.select(*cols).mapInArrow(profile, "profile binary").collect())
    total = _rarity.MonitorProfile(ready, label)
    for p in parts:
        total.merge(_rarity.MonitorProfile.from_bytes(bytes(p["profile"])))
    return total


def monitor(model, reference=None, current=None, *, label=_MONITOR.defaults["label"], bins=_MONITOR.defaults["bins"],
            bootstrap=_MONITOR.defaults["bootstrap"], fail_on=_MONITOR.defaults["fail_on"], seed=42):
    """Watches ``model`` on the ``current`` DataFrame against ``reference``,
    on the cluster: the figures of ``rarity monitor`` (:func:`rarity.monitor`)
    for the same rows.

    Each partition counts its rows into a profile of bounded size (per
    column a sketch of its values, exact up to 65,536 distinct values and
    settling at a level that does not depend on the partitioning, or its
    levels; per class the model's probabilities; the decisions; the
    positive-class probabilities in at most 16,384 groups; with labels, the
    summary of ``rarity score``); the driver merges them and computes the
    drift, the alert rate, Saerens' EM on the merged histogram of
    probabilities (``priors["em"]["on"]`` says so) and its bootstrap
    interval. Nothing but the profiles leaves the executors.

    Parameters
    ----------
    model : Model, path, bytes or fitted rarity.Classifier
        What :func:`load_model` reads.
    reference : pyspark.sql.DataFrame or None, default=None
        The rows the model was known good on, with its columns (its rows
        carrying the model's target column get the labelled metrics too).
        None: the training summary the model file holds (``rarity fit
        --summary``).
    current : pyspark.sql.DataFrame
        The rows to watch (required).
    label : str, optional
        ``current``'s label column (null: an unlabelled row).
    bins, bootstrap, fail_on, seed
        As :func:`rarity.monitor`.

    Returns
    -------
    rarity.MonitorResult
        ``to_dict()`` is ``rarity monitor --format json``'s object.

    Examples
    --------
    >>> from rarity import spark as rs
    >>> df = spark.range(20000).selectExpr(
    ...     "id", "CAST(id % 100 = 0 AS INT) AS y", "CAST(id % 100 = 0 AS INT) + CAST(id % 7 AS DOUBLE) / 7 AS x")
    >>> model = rs.fit(df, "logistic", label="y", features=["x"])
    >>> r = rs.monitor(model, df, df.selectExpr("x + 0.5 AS x"), bootstrap=0)
    >>> r.to_dict()["columns"][0]["status"], r.to_dict()["current"]["rows"]
    ('drifted', 20000)
    """
    from ._monitor import MonitorResult

    if current is None:
        raise ValueError("monitor: current= is required (the rows to watch)")
    for name, df in (("reference", reference), ("current", current)):
        if df is not None and not hasattr(df, "mapInArrow"):
            raise ValueError(f"monitor: {name} must be a Spark DataFrame, got {type(df).__name__}")
    params = _MONITOR.texts(dict(label=label, bins=bins, bootstrap=bootstrap, fail_on=fail_on))
    ready, bc, token, loads = _broadcast(current, model, None)
    if reference is None:
        rn, rc, r_profile = _rarity.monitor_training(ready, params, seed)
    else:
        rn, rc = "<reference DataFrame>", list(reference.columns)
    cn, cc = "<current DataFrame>", list(current.columns)
    r_label, c_label = _rarity.monitor_labels(ready, (rn, rc), (cn, cc), params, seed)
    if reference is not None:
        r_profile = _profile(reference, ready, bc, token, loads, r_label)
    c_profile = _profile(current, ready, bc, token, loads, c_label)
    native = _rarity.monitor_profiles(ready, (rn, rc, r_profile), (cn, cc, c_profile), params, seed)
    return MonitorResult(native)
