"""rarity in scikit-learn and imbalanced-learn workflows: a pipeline
(StandardScaler, rarity sampler, rarity classifier) in GridSearchCV on a
pandas DataFrame with a string target; cross_val_predict; clone; pickle."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import rarity
from rarity.sampling import SMOTE, RandomUnderSampler

pd = pytest.importorskip("pandas")
sklearn = pytest.importorskip("sklearn")
imblearn = pytest.importorskip("imblearn")

from imblearn.pipeline import Pipeline  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_predict  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402


@pytest.fixture
def frame():
    X, y = rarity.datasets.load("ecoli4", as_frame=True)
    return X, y.map({1: "sick", 0: "healthy"})


def test_grid_search_over_a_pipeline(frame):
    X, y = frame
    pipe = Pipeline(
        [
            ("scale", StandardScaler().set_output(transform="pandas")),
            ("sample", RandomUnderSampler(random_state=0)),
            ("model", rarity.PTBagging(n=10, seed=0)),
        ]
    )
    grid = GridSearchCV(
        pipe,
        {"sample": [RandomUnderSampler(random_state=0), SMOTE(random_state=0)], "model__max_depth": [None, 3]},
        scoring="roc_auc",
        cv=StratifiedKFold(3, shuffle=True, random_state=0),
    )
    grid.fit(X, y)
    assert grid.best_score_ > 0.5
    p = grid.predict_proba(X)
    assert p.shape == (len(X), 2)
    assert set(grid.predict(X)) <= {"sick", "healthy"}
    assert list(grid.classes_) == ["healthy", "sick"]


def test_cross_val_predict_clone_and_pickle(frame):
    X, y = frame
    clf = rarity.EBBagging(n_estimators=10, seed=1)
    p = cross_val_predict(clf, X, y, cv=3, method="predict_proba")
    assert p.shape == (len(X), 2) and np.all((p >= 0) & (p <= 1))
    c = clone(clf)
    assert c.get_params() == clf.get_params() and not hasattr(c, "model_")
    assert c._spec() == "eb-bagging(n=10)"
    fitted = clf.fit(X, y)
    back = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(back.predict_proba(X), fitted.predict_proba(X))
    assert list(back.feature_names_in_) == list(X.columns)


def test_named_classes_follow_the_registry():
    names = {e["name"] for e in rarity.registry("ensembles")}
    from rarity._classifier import ENSEMBLE_CLASSES

    assert set(ENSEMBLE_CLASSES) == names
    for name, cls in ENSEMBLE_CLASSES.items():
        est = cls()
        params = est.get_params()
        entry = next(e for e in rarity.registry("ensembles") if e["name"] == name)
        for p in entry["params"]:
            assert p["name"] in params, (name, p["name"])
        assert est._spec() == name  # the defaults give the bare name
    assert rarity.PTBagging(n=50, decision="threshold(f1)")._spec() == "pt-bagging(n=50)+threshold(f1)"
    assert rarity.EBBagging(correct="average")._spec() == "eb-bagging+correct(mode=average)"
    assert rarity.UnderBagging(beta=0.1, correct=True)._spec() == "under-bagging(beta=0.1)+correct"
    # n_estimators is n spelled as scikit-learn does: the one given last wins.
    assert rarity.EBBagging(n=5, n_estimators=7)._spec() == "eb-bagging(n=7)"
    with pytest.raises(ValueError, match="max_depth"):
        rarity.PTBagging(max_depth=0).fit([[0.0], [1.0], [2.0]], [0, 1, 0])
    with pytest.raises(ValueError, match="did you mean"):
        rarity.Classifier("pt-bagging+treshold(f1)").fit([[0.0], [1.0]], [0, 1])
