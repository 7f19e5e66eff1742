"""The classes that carry imbalanced-learn's names are drop-ins: with
imbalanced-learn's defaults, the deterministic samplers keep the rows
imbalanced-learn 0.14.2 keeps on its own test fixtures (arrays copied as
data in tests/fixtures/imblearn_samplers.json, with their sources noted)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import REPO
from rarity import sampling

FIXTURES = json.loads((REPO / "tests" / "fixtures" / "imblearn_samplers.json").read_text())

CLASSES = {
    "EditedNearestNeighbours()": sampling.EditedNearestNeighbours(),
    "EditedNearestNeighbours(kind_sel='mode')": sampling.EditedNearestNeighbours(kind_sel="mode"),
    "TomekLinks()": sampling.TomekLinks(),
    "NeighbourhoodCleaningRule()": sampling.NeighbourhoodCleaningRule(),
    "NeighbourhoodCleaningRule(n_neighbors=10)": sampling.NeighbourhoodCleaningRule(n_neighbors=10),
    "NearMiss(version=1)": sampling.NearMiss(version=1),
    "NearMiss(version=2)": sampling.NearMiss(version=2),
    "NearMiss(version=3)": sampling.NearMiss(version=3),
}


@pytest.mark.parametrize("case", FIXTURES["cases"], ids=lambda c: f"{c['imblearn']}-{c['input']}")
def test_same_rows_as_imbalanced_learn(case):
    data = FIXTURES["inputs"][case["input"]]
    X, y = np.asarray(data["X"]), np.asarray(data["y"])
    s = CLASSES[case["imblearn"]]
    X_res, y_res = s.fit_resample(X, y)
    assert sorted(s.sample_indices_.tolist()) == case["kept"]
    np.testing.assert_array_equal(X_res, X[s.sample_indices_])
    np.testing.assert_array_equal(y_res, y[s.sample_indices_])


def test_against_imbalanced_learn_itself_when_installed():
    imblearn = pytest.importorskip("imblearn")
    from imblearn import under_sampling as U

    data = FIXTURES["inputs"]["ncl"]
    X, y = np.asarray(data["X"]), np.asarray(data["y"])
    pairs = [
        (U.TomekLinks(), sampling.TomekLinks()),
        (U.EditedNearestNeighbours(), sampling.EditedNearestNeighbours()),
        (U.NeighbourhoodCleaningRule(), sampling.NeighbourhoodCleaningRule()),
        (U.NearMiss(version=2), sampling.NearMiss(version=2)),
    ]
    for theirs, ours in pairs:
        theirs.fit_resample(X, y)
        ours.fit_resample(X, y)
        assert sorted(theirs.sample_indices_) == sorted(ours.sample_indices_), type(ours).__name__
    assert imblearn.__version__


def test_cnn_follows_hart_and_says_so():
    assert "Hart's condition more faithfully" in " ".join(sampling.CondensedNearestNeighbour.__doc__.split())
