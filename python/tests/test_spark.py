"""rarity.spark on a local Spark (``local[2]``, one session for the module).

Skipped, with the reason, when pyspark or a Java runtime is missing; the
test setup of ``cargo test`` installs ``./python[test,spark]`` so CI runs
them. The data are generated in the test from each row's id (no file of
``/work/shared``): 10^6 rows, 0.5% positives, five features.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys

import pytest

pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed (pip install ./python[spark])")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip(
        "Java is not installed: Spark needs a Java 17 runtime (Debian: openjdk-17-jre-headless)",
        allow_module_level=True,
    )

import pyarrow.parquet as pq  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402

from rarity import spark as rs  # noqa: E402

N = 1_000_000
FEATURES = ["x0", "x1", "x2", "x3", "x4"]


@pytest.fixture(scope="module")
def spark():
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    s = (
        SparkSession.builder.master("local[2]")
        .appName("rarity-tests")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "1g")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "65536")
        .getOrCreate()
    )
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()


def _unit(col, salt):
    """A uniform number in [0, 1) from a row's id (the same on any partitioning)."""
    return (F.abs(F.xxhash64(col, F.lit(salt))) % 1_000_003) / F.lit(1_000_003.0)


@pytest.fixture(scope="module")
def data(spark):
    """10^6 rows: id, x0..x4 and the label y (1 for 0.5% of the rows,
    whose features are shifted)."""
    df = spark.range(N).withColumn("y", (_unit("id", 99) < 0.005).cast("long"))
    for j, name in enumerate(FEATURES):
        noise = _unit("id", j) + _unit("id", j + 10) + _unit("id", j + 20) - 1.5
        df = df.withColumn(name, noise + F.col("y") * (0.3 + 0.1 * j))
    return df.repartition(4).cache()


@pytest.fixture(scope="module")
def sample(data):
    return rs.undersample(data, "y", beta=0.02, seed=7)


def _saved_fit(sample, spec, tmp_path_factory):
    """``spec`` fitted on the sample and saved; the model file's path."""
    path = tmp_path_factory.mktemp("model") / "model.rarity"
    rs.fit(sample, spec, features=FEATURES, seed=3, path=path)
    return path


@pytest.fixture(scope="module")
def model_path(sample, tmp_path_factory):
    return _saved_fit(sample, "forest(n=20)+correct", tmp_path_factory)


@pytest.fixture(scope="module")
def parquet(data, tmp_path_factory):
    """The data as one Parquet file, for the command line."""
    d = tmp_path_factory.mktemp("parquet")
    data.coalesce(1).write.parquet(str(d / "t"))
    (f,) = [p for p in (d / "t").iterdir() if p.suffix == ".parquet"]
    return f


def test_realised_keep_rates_are_the_sample_counts(data, sample):
    actual = {str(r["y"]): r["count"] for r in sample.df.groupBy("y").count().collect()}
    assert sample.counts_after == actual
    population = {str(r["y"]): r["count"] for r in data.groupBy("y").count().collect()}
    assert sample.counts_before == population
    assert sum(population.values()) == N
    for c in population:
        assert sample.keep_rates[c] == actual[c] / population[c]
    # The minority is kept whole, the majority at about beta.
    assert sample.keep_rates["1"] == 1.0
    assert abs(sample.keep_rates["0"] - 0.02) < 0.002


def _kept_ids(df, seed=11, **kw):
    s = rs.undersample(df, "y", seed=seed, **kw)
    ids = sorted(r["id"] for r in s.df.select("id").collect())
    s.df.unpersist()
    return ids, s.counts_after


def test_the_sample_does_not_depend_on_partitioning(data):
    # Keyed by the hash of each row's values, and by an identifier column.
    for kw in ({"beta": 0.01}, {"rates": {"0": 0.01}, "key": "id"}):
        first = _kept_ids(data.repartition(1), **kw)
        for parts in (4, 16):
            assert _kept_ids(data.repartition(parts), **kw) == first, (kw, parts)
    # Another seed draws another sample.
    assert _kept_ids(data, beta=0.01)[0] != _kept_ids(data, seed=12, beta=0.01)[0]


def test_ratio_and_positive_give_the_librarys_rates(data):
    s = rs.undersample(data, "y", ratio=0.5, seed=1)
    n0, n1 = s.counts_before["0"], s.counts_before["1"]
    # under(ratio=0.5) keeps N+/(0.5 N-) of the negatives, every positive.
    assert s.counts_after["1"] == n1
    assert abs(s.keep_rates["0"] - n1 / (0.5 * n0)) < 0.1 * n1 / (0.5 * n0)
    # With the positive class named, beta needs no counting pass and keeps
    # the same rows as with the counts.
    a = rs.undersample(data, "y", beta=0.01, seed=5, positive=1)
    b = rs.undersample(data, "y", beta=0.01, seed=5)
    assert a.counts_after == b.counts_after and a.keep_rates == b.keep_rates


def test_fit_stores_the_realised_keep_rates(sample, model_path):
    m = rs.load_model(str(model_path))
    assert m.class_names == ["0", "1"]
    assert m.keep_rates == [sample.keep_rates["0"], sample.keep_rates["1"]]
    n = sum(sample.counts_before.values())
    assert m.priors == [sample.counts_before["0"] / n, sample.counts_before["1"] / n]
    assert m.correct is not None
    assert m.feature_names == FEATURES


def test_predict_equals_the_command_line_bit_for_bit(spark, data, model_path, parquet, cli, tmp_path):
    out = tmp_path / "cli.parquet"
    subprocess.run(
        [cli, "--quiet", "predict", str(model_path), str(parquet), "--id", "id", "-o", str(out)],
        check=True,
    )
    want = pq.read_table(out).to_pydict()
    got = rs.predict(data, str(model_path)).select("id", "p_0", "p_1", "label").toArrow().to_pydict()
    assert len(got["id"]) == N
    by_id = {int(i): k for k, i in enumerate(want["id"])}
    for k, i in enumerate(got["id"]):
        j = by_id[i]
        for c in ("p_0", "p_1"):
            a, b = got[c][k], want[c][j]
            assert a == b and math.copysign(1, a) == math.copysign(1, b), (i, c, a, b)
        assert got["label"][k] == want["label"][j]
    # Another decision, as rarity predict --decision.
    labels = rs.predict(data, str(model_path), decision="threshold(0.9)").groupBy("label").count().collect()
    assert {r["label"] for r in labels} <= {"0", "1"}


def _rarity_score(model_path, parquet, cli, tmp):
    """``rarity score``'s JSON for the model on all the rows."""
    preds = tmp / "preds.csv"
    subprocess.run(
        [cli, "--quiet", "predict", str(model_path), str(parquet), "--id", "y", "-o", str(preds)],
        check=True,
    )
    out = subprocess.run(
        [cli, "--format", "json", "score", str(preds), "--truth", "y", "--proba", "p_1"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)


@pytest.fixture(scope="module")
def scored(model_path, parquet, cli, tmp_path_factory):
    return _rarity_score(model_path, parquet, cli, tmp_path_factory.mktemp("score"))


@pytest.fixture(scope="module")
def logistic_path(sample, tmp_path_factory):
    """A model with continuous probabilities: about one distinct value a row."""
    return _saved_fit(sample, "logistic+correct", tmp_path_factory)


@pytest.fixture(scope="module")
def logistic_scored(logistic_path, parquet, cli, tmp_path_factory):
    return _rarity_score(logistic_path, parquet, cli, tmp_path_factory.mktemp("score"))


RANKING = ("roc_auc", "average_precision", "pr_auc_trapezoid")
BOUNDS = ["ranking_exact", "roc_auc_bin_error"]


def _check_keys(got, want, skip=()):
    # The JSON's keys are sorted; evaluate keeps rarity score's order and
    # adds the two keys of the ranking metrics' exactness.
    assert sorted(got) == sorted(list(want) + BOUNDS)
    assert list(got)[-2:] == BOUNDS
    for k, v in want.items():
        if k in skip:
            continue
        if v is None:
            assert math.isnan(got[k]), k
        else:
            assert abs(got[k] - v) <= 1e-12, (k, got[k], v)


def test_evaluate_equals_rarity_score(data, model_path, scored):
    got = rs.evaluate(data, str(model_path), "y")
    _check_keys(got, scored)
    assert got["ranking_exact"] == 1.0 and got["roc_auc_bin_error"] == 0.0


def test_a_capped_histogram_stays_exact_but_for_the_bounded_ranking_metrics(data, logistic_path, logistic_scored):
    got = rs.evaluate(data, str(logistic_path), "y", max_groups=4096)
    # The logistic model's ~10^6 distinct probabilities do not fit in 4096
    # groups: the histogram coarsened, the ranking metrics are ties within
    # groups, every other key is still rarity score's.
    assert got["ranking_exact"] == 0.0
    _check_keys(got, logistic_scored, skip=RANKING)
    bound = got["roc_auc_bin_error"]
    assert 0.0 < bound < 0.01
    assert abs(got["roc_auc"] - logistic_scored["roc_auc"]) <= bound
    for k in RANKING[1:]:
        assert abs(got[k] - logistic_scored[k]) < 0.01, k
    # The same summary whatever the partitioning.
    again = rs.evaluate(data.repartition(7), str(logistic_path), "y", max_groups=4096)
    for k in got:
        assert abs(again[k] - got[k]) <= 1e-12 or (math.isnan(got[k]) and math.isnan(again[k])), k


def test_the_exact_mode_sorts_on_the_cluster_and_equals_rarity_score(data, logistic_path, logistic_scored):
    # With a cap that makes the histogram coarsen: the sort gives the exact
    # ranking metrics anyway.
    got = rs.evaluate(data, str(logistic_path), "y", exact=True, max_groups=4096, partitions=5)
    _check_keys(got, logistic_scored)
    assert got["roc_auc"] == logistic_scored["roc_auc"]  # one integer count, one division
    assert got["ranking_exact"] == 1.0 and got["roc_auc_bin_error"] == 0.0


def _one_row_per_batch(batches):
    import pyarrow as pa

    for b in batches:
        if b.num_rows:
            yield pa.RecordBatch.from_arrays([pa.array([b.num_rows], pa.int64())], names=["n"])


def test_each_python_worker_loads_the_model_once(spark, data, model_path):
    key = "spark.sql.execution.arrow.maxRecordsPerBatch"
    old = spark.conf.get(key)
    spark.conf.set(key, "500")
    try:
        df = data.where("id < 60000").repartition(12)
        batches = df.mapInArrow(_one_row_per_batch, "n long").count()
        n = rs.predict(df, str(model_path)).where("label = '1'").count()
        assert n > 0
    finally:
        spark.conf.set(key, old)
    loads = rs._model_loads()
    # 60000 rows in batches of <= 500 rows over 12 tasks: >= 120 batches,
    # scored by the (reused) Python workers of local[2].
    assert batches >= 120
    assert loads, "no Python worker reported loading the model"
    assert len(loads) == len(set(loads)), f"a Python worker loaded the model twice: {loads}"
    assert len(loads) <= 12 < batches


def _halves(data):
    """The reference (even ids) and a current table (odd ids) whose x0 moved
    and whose label ``matured`` is known for half of its rows."""
    ref = data.where("id % 2 = 0")
    cur = (data.where("id % 2 = 1").withColumn("x0", F.col("x0") + 0.4)
           .withColumn("matured", F.when(F.col("id") % 4 == 1, F.col("y").cast("string"))))
    return ref, cur


def test_monitor_equals_rarity_monitor_on_the_same_rows(data, logistic_path):
    import rarity

    ref, cur = _halves(data)
    kw = dict(label="matured", bootstrap=40, fail_on="psi=0.1")
    got = rs.monitor(str(logistic_path), ref, cur, **kw).to_dict()
    one = rarity.monitor(str(logistic_path), rs._collect_arrow(ref), rs._collect_arrow(cur), **kw).to_dict()
    assert got["priors"]["em"]["on"] == "histogram" and got["current"]["rows"] == N // 2
    assert got["columns"][0]["column"] == "x0" and got["failed"]
    for side in ("reference", "current"):
        assert got[side].pop("source") == f"<{side} DataFrame>"
        assert one[side].pop("source") == f"<{side}>"
    _close(got, one)
    # The same figures on another partitioning.
    again = rs.monitor(str(logistic_path), ref.repartition(7), cur.repartition(3), **kw).to_dict()
    for side in ("reference", "current"):
        again[side].pop("source")
    _close(again, got)


def test_monitor_of_a_multiclass_model_samples_the_same_vectors_on_any_partitioning(data, tmp_path):
    """Three classes: EM on the merged sample of probability vectors (500,000
    current rows, more distinct vectors than the sample keeps) equals the
    single machine's, on two partitionings."""
    import rarity

    three = data.withColumn(
        "k", F.when(F.col("x1") > 0.4, "b").when(F.col("x2") > 0.3, "c").otherwise("a"))
    path = tmp_path / "three.rarity"
    rs.fit(three.where("id % 10 = 0"), "logistic", label="k", features=FEATURES, seed=3, path=path)
    ref, cur = _halves(three)
    # A quarter of the current rows labelled: the multiclass metrics merged.
    cur = cur.withColumn("known", F.when(F.col("id") % 4 == 1, F.col("k")))
    kw = dict(bootstrap=20, label="known")
    got = rs.monitor(str(path), ref, cur, **kw).to_dict()
    one = rarity.monitor(str(path), rs._collect_arrow(ref), rs._collect_arrow(cur), **kw).to_dict()
    em = got["priors"]["em"]
    assert em["on"] == "sample" and not em["exact"] and em["groups"] == 1 << 15, em
    assert abs(sum(got["priors"]["estimated"].values()) - 1) < 1e-9
    assert got["labelled"]["rows"] == N // 4 and set(got["labelled"]["calibration"]) == {"a", "b", "c"}
    assert got["labelled"]["reference"]["rows"] == N // 2 and "roc_auc_hand_till" in got["labelled"]
    again = rs.monitor(str(path), ref.repartition(5), cur.repartition(2), **kw).to_dict()
    for r in (got, one, again):
        for side in ("reference", "current"):
            r[side].pop("source")
    _close(got, one)
    _close(again, got)


def test_monitor_without_a_reference_compares_with_the_model_s_training_summary(data, parquet, cli, tmp_path):
    """A model fitted with ``rarity fit --summary``: ``reference=None`` on the
    cluster gives the single machine's figures for the same current rows."""
    import rarity

    path = tmp_path / "kept.rarity"
    subprocess.run([cli, "-q", "fit", str(parquet), "--target", "y", "--drop", "id", "-m", "logistic+correct",
                    "--summary", "-o", str(path)], check=True, capture_output=True)
    _, cur = _halves(data)
    got = rs.monitor(str(path), current=cur, bootstrap=20).to_dict()
    one = rarity.monitor(str(path), current=rs._collect_arrow(cur), bootstrap=20).to_dict()
    assert got["reference"]["source"] == one["reference"]["source"] == "the model's training summary"
    assert got["reference"]["rows"] == N and got["columns"][0]["column"] == "x0"
    got["current"].pop("source"), one["current"].pop("source")
    _close(got, one)


def _close(a, b, path=""):
    """Equal JSON values, floats within 1e-12 relative."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), path
        for k in a:
            _close(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert a == b or abs(a - b) <= 1e-12 * max(1.0, abs(a)), (path, a, b)
    else:
        assert a == b, (path, a, b)


def test_monitor_checks_its_inputs_on_the_driver(spark, data, logistic_path):
    ref, cur = _halves(data)
    with pytest.raises(ValueError, match="Spark DataFrame"):
        rs.monitor(str(logistic_path), ref, "current.csv")
    with pytest.raises(ValueError, match="x3"):
        rs.monitor(str(logistic_path), ref, cur.drop("x3"))
    with pytest.raises(ValueError, match="no label column 'nope'"):
        rs.monitor(str(logistic_path), ref, cur, label="nope")
    with pytest.raises(ValueError, match="bins=1: expected a whole number >= 2"):
        rs.monitor(str(logistic_path), ref, cur, bins=1)


def test_evaluate_names_what_it_supports(spark):
    df = spark.range(300).selectExpr("CAST(id % 3 AS INT) AS y", "(id % 3) + (id % 5) / 10.0 AS x")
    m = rs.fit(df, "tree(max_depth=2)", label="y", features=["x"])
    with pytest.raises(ValueError, match="binary models only"):
        rs.evaluate(df, m, "y")
    binary = rs.fit(df.where("y < 2"), "tree(max_depth=2)", label="y", features=["x"])
    with pytest.raises(ValueError, match="max_groups must be at least 64"):
        rs.evaluate(df, binary, "y", max_groups=8)


def test_the_docstring_examples_run(spark):
    import doctest

    res = doctest.testmod(rs, extraglobs={"spark": spark}, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted > 10 and res.failed == 0, res


def test_bad_input_is_a_clear_error(spark, data, sample, model_path):
    with pytest.raises(ValueError, match=r"beta must be a number in \(0, 1\]"):
        rs.undersample(data, "y", beta=1.5)
    with pytest.raises(ValueError, match="only one of beta, ratio and rates"):
        rs.undersample(data, "y", beta=0.1, ratio=0.5)
    with pytest.raises(ValueError, match="no column 'label'"):
        rs.undersample(data, "label", beta=0.1)
    with pytest.raises(ValueError, match="without one, e.g. forest"):
        rs.fit(sample, "under(beta=0.1)+tree", features=FEATURES)
    with pytest.raises(ValueError, match="is not a decision rule"):
        rs.predict(data, str(model_path), decision="correct")
    with pytest.raises(ValueError, match="unknown stage 'tree'"):
        rs.predict(data, str(model_path), decision="tree")
    em = rs.fit(sample, "tree(max_depth=3)+correct+em", features=FEATURES)
    with pytest.raises(ValueError, match="em estimates the priors"):
        rs.predict(data, em)


def _kill_on(i):
    def f(batches):
        for b in batches:
            if i in b.column("id").to_pylist():
                os._exit(1)  # the Python worker dies half way through the job
            yield b

    return f


def test_a_failed_job_raises_on_the_driver_and_writes_no_model(spark, data, tmp_path):
    dying = data.mapInArrow(_kill_on(123_456), data.schema)
    path = tmp_path / "m.rarity"
    with pytest.raises(RuntimeError, match="the Spark job failed"):
        rs.fit(rs.undersample(dying, "y", beta=0.1, positive=1), "tree", features=FEATURES, path=path)
    assert not path.exists()
    # A corrupt file.
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "part-0.parquet").write_bytes(b"PAR1 this is not a parquet file PAR1")
    with pytest.raises(RuntimeError, match="the Spark job failed"):
        df = spark.read.schema(data.schema).parquet(str(bad))
        rs.fit(rs.undersample(df, "y", beta=0.1, positive=1), "tree", features=FEATURES, path=path)
    assert not path.exists()


# ---- categorical columns (issue 41): level tables per partition, merged.


@pytest.fixture(scope="module")
def shops(spark):
    """30,000 rows: ``shop`` (text, 400 levels; the label's rate depends on
    it), ``mcc`` (a numeric code of the shop, declared categorical), ``x``
    (noise) and ``y`` (1 for about 5% of the rows)."""
    s = F.abs(F.xxhash64("id", F.lit(5))) % 400
    rate = F.when(s % 13 == 0, 0.4).otherwise(0.02)
    return (
        spark.range(30_000)
        .withColumn("shop", F.concat(F.lit("s"), s.cast("string")))
        .withColumn("mcc", (s % 9) * 11 + 5000)
        .withColumn("x", _unit("id", 6))
        .withColumn("y", (_unit("id", 4) < rate).cast("long"))
        .cache()
    )


def _without_fit_time(b):
    """A binary model file without its fit time and checksum (which covers
    it): what two fits with the same seed agree on (tests/common)."""
    n, at = len(b), 11 + b[10] + 8
    # A `true` (0xc3) after the fit record: the learner takes missing values.
    end = n - 1 if b[-1:] == b"\xc3" and b[n - 10] == 0xCB else n
    assert b[end - 9] == 0xCB, "a binary model file ends with its fit time"
    return b[:at] + b[at + 8 : end - 8] + b[end:]


def _categorical_fit(df, parts, path):
    """The model fitted on an undersample of ``df`` in ``parts`` partitions,
    saved at ``path``; the sample's shops."""
    s = rs.undersample(df.repartition(parts), "y", beta=0.3, positive=1, key="id", seed=5)
    rs.fit(
        s,
        "forest(n=8)+correct",
        features=["shop", "mcc", "x"],
        categorical="native",
        categorical_cols=["mcc"],
        seed=3,
        path=path,
    )
    shops = {r["shop"] for r in s.df.select("shop").distinct().collect()}
    s.df.unpersist()
    return shops


def _show(cli, path):
    out = subprocess.run([cli, "--format", "json", "show", str(path)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def test_categorical_columns_give_one_model_for_any_partitioning(shops, cli, tmp_path):
    models = [tmp_path / f"m{p}.rarity" for p in (1, 3)]
    seen = [_categorical_fit(shops, p, m) for p, m in zip((1, 3), models)]
    assert seen[0] == seen[1]
    a, b = (_without_fit_time(m.read_bytes()) for m in models)
    assert a == b, "the model depends on the partitioning"
    cols = {c["name"]: c for c in _show(cli, models[0])["columns"]}
    assert {n: c["encoding"] for n, c in cols.items()} == {"shop": "categorical", "mcc": "categorical", "x": "numeric"}
    # The levels are the sample's, in sorted text order (the codes).
    assert cols["shop"]["levels"] == sorted(seen[0])
    assert cols["mcc"]["levels"] == sorted({str(5000 + 11 * (int(s[1:]) % 9)) for s in seen[0]})
    # And the category carries the signal: risky shops score higher.
    p = rs.predict(shops, rs.load_model(str(models[0]))).withColumn("risky", F.substring("shop", 2, 5).cast("int") % 13 == 0)
    mean = {r["risky"]: r["p"] for r in p.groupBy("risky").agg(F.avg("p_1").alias("p")).collect()}
    assert mean[True] > 5 * mean[False]


def test_unseen_levels_are_predicted_as_on_the_command_line(spark, shops, cli, tmp_path):
    model = tmp_path / "m.rarity"
    seen = _categorical_fit(shops, 2, model)
    assert "s999" not in seen
    rows = [(1, "s0", 5000, 0.5), (2, "s999", 5011, 0.5), (3, "s13", 99999, 0.25), (4, " s13 ", 5044, 0.75)]
    new = spark.createDataFrame(rows, "id long, shop string, mcc long, x double").repartition(2)
    # Unseen levels (s999, mcc 99999) read as no split's, as --unknown ignore.
    got = {r["id"]: (r["p_0"], r["p_1"], r["label"]) for r in rs.predict(new, str(model), unknown="ignore").collect()}
    csv = tmp_path / "new.csv"
    csv.write_text("id,shop,mcc,x\n" + "".join(f"{i},{s},{m},{x}\n" for i, s, m, x in rows))
    out = tmp_path / "p.csv"
    subprocess.run([cli, "--quiet", "predict", str(model), str(csv), "--id", "id", "-o", str(out), "--unknown", "ignore"],
                   check=True)
    lines = out.read_text().splitlines()
    assert lines[0] == "id,p_0,p_1,label"
    for line in lines[1:]:
        i, p0, p1, label = line.split(",")
        assert got[int(i)] == (float(p0), float(p1), label), (line, got[int(i)])


def test_categorical_options_are_checked(spark, shops):
    s = shops.limit(100)
    with pytest.raises(ValueError, match="categorical must be 'one-hot' or 'native'"):
        rs.fit(s, "tree", label="y", features=["shop", "x"], categorical="target")
    with pytest.raises(ValueError, match="not among the feature columns"):
        rs.fit(s, "tree", label="y", features=["x"], categorical_cols=["shop"])
    with pytest.raises(ValueError, match="a list of column names"):
        rs.fit(s, "tree", label="y", features=["mcc", "x"], categorical_cols="mcc")
    with pytest.raises(ValueError, match="does not split categorical features"):
        rs.fit(s, "logistic", label="y", features=["shop", "x"], categorical="native")


def test_rows_missing_a_level_are_dropped_as_the_file_readers_drop_them(spark, shops, tmp_path):
    """With ``missing="drop"``, a null, empty, ``?`` or ``NA`` shop drops its
    row (as ``rarity fit --missing drop`` drops it from a file): the model is
    the one fitted without those rows."""
    base = shops.limit(3000).select("id", "shop", "x", "y")
    hole = F.abs(F.xxhash64("id", F.lit(9))) % 10
    holed = base.withColumn(
        "shop",
        F.when(hole == 0, F.lit(None).cast("string"))
        .when(hole == 1, F.lit(""))
        .when(hole == 2, F.lit("NA"))
        .when(hole == 3, F.lit("?"))
        .otherwise(F.col("shop")),
    )
    kept = base.filter(hole > 3)
    paths = [tmp_path / "holed.rarity", tmp_path / "kept.rarity"]
    for df, path in zip((holed, kept), paths):
        rs.fit(df.repartition(2), "gbdt(rounds=5)", label="y", features=["shop", "x"],
               categorical="native", seed=3, path=path, missing="drop")
    a, b = (_without_fit_time(p.read_bytes()) for p in paths)
    assert a == b


def test_reasons_equal_the_command_line(spark, data, model_path, parquet, cli, tmp_path):
    out = tmp_path / "reasons.parquet"
    subprocess.run(
        [cli, "--quiet", "predict", str(model_path), str(parquet), "--id", "id", "--reasons", "2", "-o", str(out)],
        check=True,
    )
    want = pq.read_table(out).to_pydict()
    cols = ["id", "reason_1", "reason_2", "value_1", "value_2", "contribution_1", "contribution_2"]
    got = rs.predict(data.limit(2000), str(model_path), reasons=2).select(*cols).toArrow().to_pydict()
    by_id = {int(i): k for k, i in enumerate(want["id"])}
    for k, i in enumerate(got["id"]):
        j = by_id[i]
        for c in cols[1:]:
            assert got[c][k] == want[c][j], (i, c, got[c][k], want[c][j])
    with pytest.raises(ValueError, match="give 1 to 5"):
        rs.predict(data, str(model_path), reasons=6)
