"""What a new user trips over in Python (issue 39, items 7-13): integer
labels from the bundled datasets, ``n`` / ``n_estimators`` as one parameter,
SMOTE's ``k`` above the minority an error, scikit-learn's column-count and
empty-data messages, a Spark executor without the virtual environment's
modules, and messages that quote the value given, 0-based."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import rarity
from rarity import sampling


def test_bundled_labels_are_integers_so_sklearn_scorers_work():
    X, y = rarity.datasets.load("ecoli4")
    assert y.dtype == np.int64 and sorted(set(y.tolist())) == [0, 1]
    Xf, yf = rarity.datasets.load("glass", as_frame=True)
    assert yf.dtype == np.int64 and len(set(yf.tolist())) == 6
    sk = pytest.importorskip("sklearn.model_selection")
    scores = sk.cross_val_score(
        rarity.PTBagging(n=5, seed=0), X, y, cv=3, scoring="average_precision", error_score="raise"
    )
    assert np.all(np.isfinite(scores)) and scores.min() > 0


def test_n_and_n_estimators_are_one_parameter():
    clf = rarity.PTBagging(n=50)
    assert "n_estimators" not in clf.get_params() and clf.get_params()["n"] == 50
    assert clf.n_estimators == 50
    # The spelling given last wins, in the constructor and in set_params.
    assert rarity.PTBagging(n=5, n_estimators=7).n == 7
    assert rarity.PTBagging(n_estimators=7, n=5).n == 5
    assert clf.set_params(n=3, n_estimators=4).get_params()["n"] == 4
    clf.n_estimators = 6
    assert clf.n == 6 and clf._spec() == "pt-bagging(n=6)"
    X, y = rarity.datasets.load("ecoli4")
    base = pytest.importorskip("sklearn.base")
    c = base.clone(rarity.PTBagging(n=50, seed=0)).set_params(n_estimators=10)
    assert c.fit(X, y).spec_ == "pt-bagging(n=10)"
    sk = pytest.importorskip("sklearn.model_selection")
    grid = sk.GridSearchCV(
        rarity.PTBagging(n=50, seed=0), {"n_estimators": [5, 20]}, cv=3,
        scoring="average_precision", error_score="raise",
    ).fit(X, y)
    assert np.all(np.isfinite(grid.cv_results_["mean_test_score"]))
    assert grid.best_params_["n_estimators"] in (5, 20)
    assert grid.best_estimator_.spec_ == f"pt-bagging(n={grid.best_params_['n_estimators']})"


def _minority(n_min, n_maj=100, seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(n_maj, 3)), rng.normal(size=(n_min, 3)) + 2])
    y = np.array([0] * n_maj + [1] * n_min)
    return X, y


@pytest.mark.parametrize(
    "sampler",
    [
        sampling.SMOTE(k_neighbors=50),
        sampling.BorderlineSMOTE(k_neighbors=50),
        sampling.ADASYN(n_neighbors=50),
        sampling.Sampler("smote-tomek(k=50)"),
        sampling.Sampler("hybrid(k=50)"),
    ],
    ids=["smote", "borderline", "adasyn", "smote-tomek", "hybrid"],
)
def test_k_above_the_minority_raises_as_imbalanced_learn(sampler):
    X, y = _minority(27)
    with pytest.raises(ValueError, match=r"k=50 needs more than 50 rows of class '1'.*has 27; give k=26 or less"):
        sampler.fit_resample(X, y)


def test_k_that_fits_gives_no_note():
    X, y = _minority(27)
    s = sampling.SMOTE(k_neighbors=26)
    s.fit_resample(X, y)
    assert not any("k reduced" in n for n in s.notes_)


def test_sklearn_messages_for_column_count_and_empty_data():
    X, y = _minority(20)
    for est in (rarity.Classifier("forest(n=5)"), rarity.CorrectedClassifier(rarity.Classifier("tree"))):
        est.fit(X, y)
        name = type(est).__name__
        with pytest.raises(ValueError, match=f"X has 2 features, but {name} is expecting 3 features as input"):
            est.predict_proba(X[:, :2])
        with pytest.raises(ValueError, match=r"0 feature\(s\) \(shape=\(12, 0\)\) while a minimum of 1 is required"):
            type(est)().fit(np.empty((12, 0)), np.array([0, 1] * 6))


def test_no_rows_is_said_as_such():
    with pytest.raises(ValueError, match="no rows") as e:
        rarity.RandomForest().fit(np.empty((0, 3)), np.empty(0))
    assert "()" not in str(e.value)


def test_metric_messages_quote_the_value_given_counted_from_zero():
    with pytest.raises(ValueError, match=r"y_score\[1\] = 2\.5 is not a probability in \[0, 1\]"):
        rarity.metrics.roc_auc([0, 1, 0], [0.2, 2.5, 0.1])
    with pytest.raises(ValueError, match=r"y_score\[2, 0\] = -0\.1 is not a probability"):
        rarity.metrics.score([0, 1, 0], [[0.5, 0.5], [0.3, 0.7], [-0.1, 1.1]])
    with pytest.raises(ValueError, match=r"y_score\[1\] sums to 0\.75, not 1"):
        rarity.metrics.brier([0, 1], [[0.5, 0.5], [0.25, 0.5]])


SPARK_JOB = textwrap.dedent(
    """
    from pyspark.sql import SparkSession
    from rarity import spark as rs

    spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
             .config("spark.driver.memory", "512m").getOrCreate())
    df = spark.range(200).selectExpr("id", "CAST(id % 10 = 0 AS INT) AS y", "CAST(id AS DOUBLE) AS x")
    try:
        rs.undersample(df, "y", beta=0.5)
    except RuntimeError as e:
        print("ERROR " + str(e))
    spark.stop()
    """
)


def test_spark_from_a_venv_not_activated_names_the_python_to_set(tmp_path):
    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install ./python[spark])")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Java is not installed: Spark needs a Java 17 runtime")
    # The executors start `python3` from PATH: here a bare environment (no
    # pyarrow, no rarity), first on PATH, as a system Python would be.
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    job = tmp_path / "job.py"
    job.write_text(SPARK_JOB)
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "SPARK_HOME")}
    env["PATH"] = f"{bare / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    out = subprocess.run(
        [sys.executable, str(job)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    lines = [l for l in out.stdout.splitlines() if l.startswith("ERROR ")]
    assert lines, f"no error reported:\n{out.stdout[-2000:]}\n{out.stderr[-4000:]}"
    msg = lines[-1]
    assert "No module named" in msg, msg
    assert str(bare / "bin" / "python3") in msg, msg
    assert f"PYSPARK_PYTHON={sys.executable}" in msg and "spark.pyspark.python" in msg, msg
