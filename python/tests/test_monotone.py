"""Monotone and interaction constraints from Python (issue 57):
``GradientBoosting(monotonic_cst=..., interaction_cst=...)`` with
scikit-learn's ``HistGradientBoostingClassifier`` meanings, ``monotone=`` in
``rarity.Classifier`` specs, and the guarantee through the strategy's stages
and the exported ONNX graph: for 2,000 rows and a sweep of 50 values of each
constrained feature holding the others fixed, the probability of the
positive class never moves against the constraint."""

from __future__ import annotations

import numpy as np
import pytest

import rarity


def _table(n=2000, seed=57):
    """x0 raises the rate then lowers it (a wave), x1 raises it, x2 is noise."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, 3))
    s = 1.5 * np.sin(3 * np.pi * X[:, 0]) + 2.0 * X[:, 1] - 3.2
    y = (rng.random(n) < 1 / (1 + np.exp(-s))).astype(int)
    return X, y


def _sweeps(X, j, rows=40, values=50):
    """For each of the first ``rows`` rows, ``values`` copies with feature
    ``j`` swept over [0, 1]."""
    grid = np.repeat(X[:rows], values, axis=0)
    grid[:, j] = np.tile(np.linspace(0.0, 1.0, values), rows)
    return grid, values


def _worst_step(p, values, direction):
    """The largest step against ``direction`` along any sweep, and the
    largest move along it over a whole sweep."""
    p = np.asarray(p, dtype=np.float64).reshape(-1, values)
    steps = np.diff(p, axis=1) * direction
    return float(max(0.0, -steps.min())), float(((p[:, -1] - p[:, 0]) * direction).max())


def test_monotonic_cst_as_a_list_keeps_each_direction_and_writes_the_spec():
    X, y = _table()
    free = rarity.GradientBoosting(max_iter=60).fit(X, y)
    grid, v = _sweeps(X, 0)
    assert _worst_step(free.predict_proba(grid)[:, 1], v, 1)[0] > 0.01
    clf = rarity.GradientBoosting(max_iter=60, monotonic_cst=[1, 1, 0]).fit(X, y)
    assert clf.spec_ == "gbdt(rounds=60,monotone=[x0:1,x1:1])"
    for j in (0, 1):
        grid, v = _sweeps(X, j)
        against, _ = _worst_step(clf.predict_proba(grid)[:, 1], v, 1)
        assert against == 0.0, f"x{j}"
    grid, v = _sweeps(X, 1)
    assert _worst_step(clf.predict_proba(grid)[:, 1], v, 1)[1] > 0.02
    down = rarity.GradientBoosting(max_iter=60, monotonic_cst=np.array([-1, 0, 0])).fit(X, y)
    grid, v = _sweeps(X, 0)
    assert _worst_step(down.predict_proba(grid)[:, 1], v, -1)[0] == 0.0


@pytest.mark.parametrize("method", ["basic", "intermediate", "advanced"])
def test_a_dict_by_column_name_and_every_method(method):
    pd = pytest.importorskip("pandas")
    X, y = _table()
    df = pd.DataFrame(X, columns=["debt ratio", "utilisation", "noise"])
    clf = rarity.GradientBoosting(
        max_iter=40, monotonic_cst={"debt ratio": 1, "utilisation": 1}, monotone_method=method
    ).fit(df, y)
    assert "monotone=['debt ratio':1,utilisation:1]" in clf.spec_
    for j in (0, 1):
        grid, v = _sweeps(X, j)
        p = clf.predict_proba(pd.DataFrame(grid, columns=df.columns))[:, 1]
        assert _worst_step(p, v, 1)[0] == 0.0, (method, j)


def test_interaction_cst_as_scikit_learn_spells_it():
    X, y = _table()
    spec = lambda cst: rarity.GradientBoosting(max_iter=5, interaction_cst=cst).fit(X, y).spec_  # noqa: E731
    assert spec([[0, 1], [2]]) == "gbdt(rounds=5,interaction=[[x0,x1],[x2]])"
    assert spec([{1, 0}]) == "gbdt(rounds=5,interaction=[[x0,x1]])"
    assert spec(["x0 x1".split()]) == "gbdt(rounds=5,interaction=[[x0,x1]])"
    assert spec("no_interactions") == "gbdt(rounds=5,interaction=[[x0],[x1],[x2]])"
    assert spec("pairwise") == "gbdt(rounds=5,interaction=[[x0,x1],[x0,x2],[x1,x2]])"
    # No interactions: every tree is additive, so the effect of x0 is the
    # same at every x1 (the same step along every sweep of x0).
    clf = rarity.GradientBoosting(max_iter=30, interaction_cst="no_interactions").fit(X, y)
    grid, v = _sweeps(X, 0)
    raw = clf.decision_function(grid) if hasattr(clf, "decision_function") else None
    if raw is None:
        p = clf.predict_proba(grid)[:, 1]
        raw = np.log(p / (1 - p))
    steps = np.diff(np.asarray(raw).reshape(-1, v), axis=1)
    assert np.max(np.abs(steps - steps[0])) < 1e-9


@pytest.mark.parametrize(
    "kw,says",
    [
        ({"monotonic_cst": [1, 0]}, "monotonic_cst has 2 values; X has 3 features"),
        ({"monotonic_cst": [2, 0, 0]}, "direction 2"),
        ({"monotonic_cst": [True, 0, 0]}, "direction True"),
        ({"monotonic_cst": {"debt": 1}}, "columns X does not have: ['debt']"),
        ({"monotonic_cst": "x0"}, "monotonic_cst='x0' is invalid"),
        ({"interaction_cst": "all"}, "interaction_cst='all' is invalid"),
        ({"interaction_cst": [[0, 7]]}, "7 is not a feature index in [0, 3)"),
        ({"interaction_cst": [["x0", "x0"]]}, "named twice"),
        ({"interaction_cst": [0, 1]}, "is not a group"),
        ({"monotone_method": "strict", "monotonic_cst": [1, 0, 0]}, "strict"),
    ],
)
def test_bad_constraints_are_value_errors(kw, says):
    X, y = _table(200)
    with pytest.raises(ValueError) as e:
        rarity.GradientBoosting(max_iter=3, **kw).fit(X, y)
    assert says in str(e.value)


def test_more_than_two_classes_cannot_be_monotone():
    X, _ = _table(300)
    y = np.arange(300) % 3
    with pytest.raises(ValueError, match="no single meaning for 3 classes"):
        rarity.GradientBoosting(max_iter=3, monotonic_cst=[1, 0, 0]).fit(X, y)


@pytest.mark.parametrize(
    "spec",
    [
        "under(beta=0.3)+gbdt(rounds=40,monotone=[x0:1,x1:1])+correct+isotonic",
        "gbdt(rounds=40,monotone=[x0:1,x1:1],monotone_method=advanced)+platt+threshold(priors)",
        "under(beta=0.3)+forest(n=15,monotone=[x0:1,x1:1])+correct",
        "logistic(signs=[x0:1,x1:1])+isotonic+priors(0.8,0.2)",
    ],
)
def test_classifier_specs_keep_the_direction_through_their_stages(spec):
    X, y = _table()
    clf = rarity.Classifier(spec).fit(X, y)
    for j in (0, 1):
        grid, v = _sweeps(X, j)
        assert _worst_step(clf.predict_proba(grid)[:, 1], v, 1)[0] == 0.0, j
        labels = clf.predict(grid).reshape(-1, v)
        assert np.all(np.diff(labels, axis=1) >= 0), j


def test_a_loaded_model_is_the_gradient_boosting_it_was(tmp_path):
    pd = pytest.importorskip("pandas")
    X, y = _table(500)
    df = pd.DataFrame(X, columns=["debt ratio", "b", "c"])
    clf = rarity.GradientBoosting(
        max_iter=5, monotonic_cst=[1, -1, 0], interaction_cst=[["debt ratio", "b"]]
    ).fit(df, y)
    path = tmp_path / "m.rarity"
    clf.save(path)
    back = rarity.load(path)
    assert type(back) is rarity.GradientBoosting
    assert back.monotonic_cst == {"debt ratio": 1, "b": -1}
    assert back.interaction_cst == [["debt ratio", "b"]]
    assert np.array_equal(back.predict_proba(df), clf.predict_proba(df))


@pytest.mark.parametrize(
    "spec",
    [
        "gbdt(rounds=40,monotone=[x0:1,x1:1])",
        "under(beta=0.3)+gbdt(rounds=40,monotone=[x0:1,x1:1],monotone_method=intermediate)+correct+isotonic",
        "forest(n=10,monotone=[x0:1,x1:1])+platt",
        "logistic(signs=[x0:1,x1:1])+correct",
    ],
)
def test_the_exported_onnx_graph_keeps_the_direction(spec):
    """ONNX Runtime sums a graph's trees in its own order: a reordered sum
    of the same leaf values can differ from rarity's in its last bit, so a
    step against the constraint of at most 1e-15 (a few units in the last
    place of a probability) is rounding; anything more would be the
    model's."""
    ort = pytest.importorskip("onnxruntime")
    X, y = _table()
    clf = rarity.Classifier(spec).fit(X, y)
    sess = ort.InferenceSession(clf.to_onnx(), providers=["CPUExecutionProvider"])
    for j in (0, 1):
        grid, v = _sweeps(X, j)
        proba, label = sess.run(["probabilities", "label"], {"X": grid})
        against, moved = _worst_step(proba[:, 1], v, 1)
        assert against <= 1e-15, (j, against)
        # the sweep is not flat (a linear model's steps are the smallest)
        assert moved > 0.005, (j, moved)
        assert np.max(np.abs(proba[:, 1] - clf.predict_proba(grid)[:, 1])) <= 1e-12
