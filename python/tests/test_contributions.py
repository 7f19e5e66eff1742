"""Exact per-row contributions (issue 54): LightGBM's ``pred_contrib``
layout, local accuracy, reason codes equal to the command line's, and
``shap.TreeExplainer`` computing the same values from ``dump_trees()``."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

import rarity
from conftest import imbalanced
from test_cli_parity import write_csv


def logit(p):
    return np.log(p / (1 - p))


@pytest.mark.parametrize(
    "spec,space",
    [
        ("gbdt(rounds=20,min_samples_leaf=5)", "log-odds"),
        ("under(ratio=1)+gbdt(rounds=20,min_samples_leaf=5)+correct", "log-odds"),
        ("forest(n=10)", "probability"),
        ("logistic", "log-odds"),
        ("rus-boost(n=10,depth=2)", "log-odds"),
    ],
)
def test_binary_contributions_add_up_to_the_output(spec, space):
    X, y = imbalanced(n=500, d=5)
    clf = rarity.Classifier(spec, seed=0).fit(X, y)
    c = clf.predict_contributions(X)
    assert c.shape == (500, 6)
    info = clf.contributions_info()
    assert info["space"] == space and info["beside"] == [] and info["columns"] == [f"x{j}" for j in range(5)]
    p = clf.predict_proba(X)[:, 1]
    want = logit(p) if space == "log-odds" else p
    np.testing.assert_allclose(c.sum(axis=1), want, rtol=0, atol=1e-9)


def test_the_positive_class_follows_classes_order():
    X, y = imbalanced(n=300, d=3)
    labels = np.where(y == 1, "a", "b")
    clf = rarity.Classifier("gbdt(rounds=10,min_samples_leaf=5)", seed=0).fit(X, labels)
    assert list(clf.classes_) == ["a", "b"]
    c = clf.predict_contributions(X)
    p = clf.predict_proba(X)[:, 1]
    np.testing.assert_allclose(c.sum(axis=1), logit(p), atol=1e-9)


def test_multiclass_blocks_per_class_in_classes_order():
    X, y = imbalanced(n=450, d=4, classes=3, rate=0.15, seed=1)
    clf = rarity.Classifier("gbdt(rounds=10,min_samples_leaf=5)", seed=0).fit(X, y)
    c = clf.predict_contributions(X)
    assert c.shape == (450, 3 * 5)
    margins = c.reshape(450, 3, 5).sum(axis=2)
    p = clf.predict_proba(X)
    soft = np.exp(margins - margins.max(axis=1, keepdims=True))
    np.testing.assert_allclose(soft / soft.sum(axis=1, keepdims=True), p, atol=1e-9)


def test_reason_codes_match_the_command_line(cli, tmp_path):
    X, y = imbalanced(n=300, d=4)
    csv = tmp_path / "d.csv"
    write_csv(csv, X, y)
    model, out = tmp_path / "m.rarity", tmp_path / "r.csv"
    spec = "gbdt(rounds=10,min_samples_leaf=5)"
    subprocess.run([cli, "--quiet", "--seed", "0", "fit", str(csv), "--target", "y", "-m", spec, "-o", str(model)], check=True)
    subprocess.run([cli, "--quiet", "predict", str(model), str(csv), "--reasons", "2", "-o", str(out)], check=True)
    lines = out.read_text().splitlines()
    header = lines[0].split(",")
    assert header[-6:] == ["reason_1", "reason_2", "value_1", "value_2", "contribution_1", "contribution_2"]
    clf = rarity.Classifier(spec, seed=0).fit(X, y)
    table = clf.reason_codes(X, k=2)
    for i, line in enumerate(lines[1:]):
        cells = line.split(",")
        assert cells[-6:-4] == [table["reason_1"][i], table["reason_2"][i]]
        assert float(cells[-2]) == pytest.approx(table["contribution_1"][i], abs=1e-12)
        assert float(cells[-4]) == float(table["value_1"][i])
    c = np.abs(np.asarray(table["contribution_1"])) >= 0
    assert c.all()
    with pytest.raises(ValueError, match="reasons asked for"):
        clf.reason_codes(X, k=5)
    with pytest.raises(ValueError, match="whole number"):
        clf.reason_codes(X, k=1.5)


def test_models_without_exact_contributions_say_which_have():
    X, y = imbalanced(n=200, d=3)
    clf = rarity.Classifier("knn", seed=0).fit(X, y)
    with pytest.raises(ValueError, match="contributions are exact for"):
        clf.predict_contributions(X)
    with pytest.raises(ValueError, match="no trees or coefficients"):
        clf.dump_trees()


def shap_model(dump):
    """shap's custom-model dictionary from one model of a tree dump."""
    m = dump["models"][0]
    trees = [
        {
            "children_left": np.array(t["children_left"]),
            "children_right": np.array(t["children_right"]),
            "children_default": np.array(t["children_default"]),
            "features": np.array(t["features"]),
            "thresholds": np.array(t["thresholds"], dtype=np.float64),
            "values": np.array(t["values"], dtype=np.float64),
            "node_sample_weight": np.array(t["node_sample_weight"], dtype=np.float64),
        }
        for t in m["trees"]
    ]
    return {"trees": trees, "base_offset": m["bias"][0], "input_dtype": np.float64, "internal_dtype": np.float64}


@pytest.mark.parametrize("spec", ["gbdt(rounds=30,min_samples_leaf=5)", "forest(n=10)", "rus-boost(n=10,depth=3)"])
def test_shap_computes_the_same_contributions_from_the_dump(spec):
    shap = pytest.importorskip("shap")
    X, y = imbalanced(n=400, d=5)
    clf = rarity.Classifier(spec, seed=0).fit(X, y)
    dump = clf.dump_trees()
    assert dump["format"] == "rarity-trees/1" and dump["features"] == [f"x{j}" for j in range(5)]
    explainer = shap.TreeExplainer(shap_model(dump))
    sv = np.asarray(explainer.shap_values(X))
    ours = clf.predict_contributions(X)
    np.testing.assert_allclose(ours[:, :-1], sv.reshape(ours[:, :-1].shape), rtol=0, atol=1e-9)
    base = np.ravel(explainer.expected_value)[0]
    np.testing.assert_allclose(ours[:, -1], base, rtol=0, atol=1e-9)
