"""Missing values from Python (issue 52): one policy with the command line
(``missing='auto'|'keep'|'drop'|'error'``; a frame and its CSV give the same
model bytes), rows counted from 0 in messages, the ``impute(...)`` stage
scored by ONNX Runtime as ``rarity predict`` scores it, and unseen levels
of ``categorical_features='from_dtype'`` following ``unknown`` (issue 51
item 13)."""

from __future__ import annotations

import json
import subprocess
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pandas as pd
import pytest

import rarity
from test_cli_parity import same_model_bytes


def frame(n=300, seed=0):
    """Two numeric columns with holes (``b`` missing where the label is 1
    half the time) and a text column with holes, with its labels."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.2).astype(int)
    a = rng.normal(size=n) + y
    b = rng.normal(size=n) - y
    a[rng.random(n) < 0.15] = np.nan
    b[(y == 1) & (rng.random(n) < 0.5)] = np.nan
    c = np.array(["x", "y", "z"], dtype=object)[rng.integers(0, 3, n)]
    c[rng.random(n) < 0.1] = None
    return pd.DataFrame({"a": a, "b": b, "c": c}), pd.Series(y, name="label")


def to_csv(X, y, path):
    X.assign(label=y).to_csv(path, index=False, float_format="%.17g")


def cli_fit(cli, csv, spec, model, *extra):
    r = subprocess.run(
        [cli, "--quiet", "fit", str(csv), "--categorical", "one-hot", "-m", spec, "-o", str(model), *extra],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    return model.read_bytes()


@pytest.mark.parametrize(
    "spec", ["impute(median,indicator=true)+logistic", "impute(mean)+smote(k=3)+logistic", "logistic"]
)
def test_a_frame_and_its_csv_give_the_same_model_bytes(cli, tmp_path, spec):
    X, y = frame()
    to_csv(X, y, tmp_path / "d.csv")
    want = cli_fit(cli, tmp_path / "d.csv", spec, tmp_path / "m.rarity")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = rarity.Classifier(spec).fit(X, y)
    assert same_model_bytes(clf.to_bytes(), want)
    dropped = [str(w.message) for w in caught if "dropped" in str(w.message)]
    # Without an imputation the incomplete rows are dropped, and said so.
    assert bool(dropped) == (not spec.startswith("impute")), dropped


def test_keep_refuses_a_strategy_that_cannot_take_missing_values():
    X, y = frame()
    with pytest.raises(ValueError, match=r"missing='keep'.*impute\(median\)\+logistic"):
        rarity.Classifier("logistic", missing="keep").fit(X, y)
    with pytest.raises(ValueError, match=r"row \d+, column 'a': missing value"):
        rarity.Classifier("impute(median)+logistic", missing="error").fit(X, y)


def test_messages_count_rows_from_0():
    X = np.array([[1.0, 2.0], [3.0, np.nan], [5.0, 6.0], [7.0, 8.0]])
    y = np.array([0, 1, 0, 1])
    clf = rarity.Classifier("logistic", missing="drop")
    with pytest.warns(UserWarning, match="dropped 1 of 4 rows"):
        clf.fit(X, y)
    with pytest.raises(ValueError, match=r"row 1 \(counting from 0\), feature 'x1' is missing"):
        clf.predict_proba(X)
    with pytest.raises(ValueError, match=r"row 1, column 'x1': missing value"):
        rarity.Classifier("tree", missing="error").fit(X, y)
    # inf is never a missing value.
    X[0, 0] = np.inf
    with pytest.raises(ValueError, match=r"row 0 \(counting from 0\), feature 'x0' is inf"):
        rarity.Classifier("impute(median)+tree").fit(X, y)


def test_a_missing_label_drops_its_row_and_says_so():
    X, y = frame(100)
    y = y.astype(object)
    y.iloc[5] = None
    with pytest.warns(UserWarning, match="dropped 1 of 100 rows whose label is missing"):
        clf = rarity.Classifier("impute(median)+logistic").fit(X, y)
    assert list(clf.classes_) == [0, 1]
    with pytest.raises(ValueError, match="row 5: the label is missing"):
        rarity.Classifier("impute(median)+logistic", missing="error").fit(X[["a"]].fillna(0.0), y)


def test_every_row_is_scored_and_matches_the_command_line(cli, tmp_path):
    X, y = frame()
    to_csv(X, y, tmp_path / "d.csv")
    spec = "impute(most_frequent,indicator=true)+under(ratio=1)+logistic"
    clf = rarity.Classifier(spec).fit(X, y)
    p = clf.predict_proba(X)
    assert p.shape == (len(X), 2) and np.all(np.isfinite(p))
    (tmp_path / "m.rarity").write_bytes(clf.to_bytes())
    subprocess.run([cli, "--quiet", "predict", str(tmp_path / "m.rarity"), str(tmp_path / "d.csv"), "-o",
                    str(tmp_path / "p.csv")], check=True)
    got = pd.read_csv(tmp_path / "p.csv")
    np.testing.assert_array_equal(got["p_1"].to_numpy(), p[:, 1])


def test_impute_is_onnx_nodes_scored_as_rarity_predict(cli, tmp_path):
    X, y = frame(600, seed=3)
    to_csv(X[:400], y[:400], tmp_path / "train.csv")
    to_csv(X[400:], y[400:], tmp_path / "test.csv")
    model, graph, pred = tmp_path / "m.rarity", tmp_path / "m.onnx", tmp_path / "p.csv"
    cli_fit(cli, tmp_path / "train.csv", "impute(mean,indicator=true)+logistic+platt", model)
    for args in (["export", str(model), "-o", str(graph)], ["predict", str(model), str(tmp_path / "test.csv"), "-o", str(pred)]):
        r = subprocess.run([cli, "--quiet", *args], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    m = onnx.load(graph)
    onnx.checker.check_model(m, full_check=True)
    test = X[400:]
    c = test["c"].astype(object).where(test["c"].notna(), "").to_numpy().reshape(-1, 1)
    feeds = {"X": test[["a", "b"]].to_numpy(dtype=np.float64), "c": c}
    sess = ort.InferenceSession(str(graph), providers=["CPUExecutionProvider"])
    proba, label = sess.run(["probabilities", "label"], feeds)
    want = pd.read_csv(pred)
    assert np.isnan(feeds["X"]).any() and (c == "").any()
    assert np.max(np.abs(proba - want[["p_0", "p_1"]].to_numpy())) <= 1e-12
    assert list(label) == [str(v) for v in want["label"]]


def test_unseen_levels_follow_unknown():
    X = pd.DataFrame({"c": pd.Categorical(["u", "v", "w"] * 30), "x": np.arange(90.0) % 7})
    y = (np.arange(90) % 3 == 0).astype(int)
    clf = rarity.Classifier("tree", categorical_features="from_dtype").fit(X, y)
    new = pd.DataFrame({"c": pd.Categorical(["u", "zz"]), "x": [1.0, 2.0]})
    with pytest.raises(ValueError, match=r"'zz' \(1 row\).*unknown='ignore'"):
        clf.predict_proba(new)
    p = rarity.Classifier("tree", categorical_features="from_dtype", unknown="ignore").fit(X, y).predict_proba(new)
    assert p.shape == (2, 2)


def test_functions_follow_the_policy(tmp_path):
    X, y = frame()
    res = rarity.evaluate((X, y), model="impute(median)+logistic", cv="3")
    assert res.to_dict()["rows_dropped"]["count"] == 0
    with pytest.warns(UserWarning, match="dropped"):
        res = rarity.evaluate((X, y), model="logistic", cv="3")
    assert res.to_dict()["rows_dropped"]["count"] > 0
    with pytest.raises(ValueError, match="missing='keep'"):
        rarity.evaluate((X, y), model="logistic", cv="3", missing="keep")
    out = rarity.resample((X[["a", "b"]], y), "under", beta=0.5)
    assert np.isnan(np.asarray(out.X, dtype=float)).any()
    run = rarity.run((X, y), models=["impute(median)+logistic", "impute(mean)+tree"], cv="1x3")
    assert json.dumps(run.to_dict())
