"""Every Python name list is the registries' (issue 38, item 2): a class per
registry sampler and ensemble, their Python names and whether a sampler
makes synthetic rows read from the registry entries, and the default
decision of a named ensemble as the library gives it."""

from __future__ import annotations

import numpy as np
import pytest

import rarity
from rarity import _classifier, _spec, sampling
from conftest import imbalanced


def test_every_registry_sampler_has_one_class_and_every_class_a_registry_sampler():
    names = {e["name"] for e in _spec.registry("samplers")}
    assert set(sampling.CLASSES) == names
    for name, cls in sampling.CLASSES.items():
        assert name in cls.registry_names, (name, cls)
        assert cls.__name__ in sampling.__all__


def test_python_class_names_are_the_registry_entries_names():
    for e in _spec.registry("samplers"):
        cls = sampling.CLASSES[e["name"]]
        if e["python"]:
            assert cls.__name__ == e["python"]
    for e in _spec.registry("ensembles"):
        cls = _classifier.ENSEMBLE_CLASSES[e["name"]]
        assert cls.__name__ == _spec.class_name(e)
        assert getattr(rarity, cls.__name__) is cls
    assert _classifier.ENSEMBLE_CLASSES["forest"].__name__ == "RandomForest"
    assert sampling.CLASSES["eb"].__name__ == "ExactlyBalanced"
    assert sampling.CLASSES["hybrid"].__name__ == "SMOTEUnder"


@pytest.mark.parametrize("name", sorted(e["name"] for e in _spec.registry("samplers")))
def test_sample_indices_exactly_when_the_registry_says_the_sampler_only_selects(name):
    entry = next(e for e in _spec.registry("samplers") if e["name"] == name)
    X, y = imbalanced(n=120, seed=2)
    s = sampling.Sampler(name, seed=1).fit(X, y)
    assert hasattr(s, "sample_indices_") == (not entry["synthesizes"])
    cls = sampling.CLASSES[name]
    assert cls()._selects == (not entry["synthesizes"])
    if not entry["synthesizes"]:
        Xr, _ = s.fit_resample(X, y)
        np.testing.assert_array_equal(Xr, np.asarray(X)[s.sample_indices_])


def test_synthesizing_samplers_are_the_smote_family():
    synth = {e["name"] for e in _spec.registry("samplers") if e["synthesizes"]}
    assert synth == {
        "smote", "borderline-smote", "adasyn", "hybrid", "smote-tomek", "smote-enn", "svm-smote",
        "kmeans-smote", "cluster-centroids",
    }


def test_a_named_ensembles_default_decision_is_the_registrys():
    X, y = imbalanced(n=200, seed=4)
    decisions = {e["name"]: e["decision"] for e in _spec.registry("ensembles")}
    assert decisions["pt-bagging"] == "threshold(priors)"
    assert decisions["eb-bagging"] == "threshold(0.5)"
    assert decisions["forest"] == "argmax"
    for name, text in [("pt-bagging", "threshold(priors)"), ("eb-bagging", "threshold(0.5)")]:
        m = _classifier.ENSEMBLE_CLASSES[name](n=3, seed=1).fit(X, y)
        t = m.model_.threshold
        if text == "threshold(0.5)":
            assert t == 0.5
        else:  # PT_MA: the training prior of the positive class
            assert t == pytest.approx(np.mean(np.asarray(y) == 1))
