"""scikit-learn's estimator checks over every estimator class (classifiers
and samplers), and imbalanced-learn's sampler checks over every sampler.
Each expected failure is listed with its reason."""

from __future__ import annotations

import pytest

import rarity
from rarity import sampling
from rarity._classifier import ENSEMBLE_CLASSES

pytest.importorskip("sklearn")
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

# Small ensembles keep the checks fast.
CLASSIFIERS = [
    rarity.Classifier("pt-bagging(n=10)"),
    rarity.Classifier("under(ratio=1)+forest(n=5)+correct+threshold(priors)"),
    rarity.CorrectedClassifier(rarity.Classifier("forest(n=5)"), sampler="under"),
] + [cls(**({"n": 5} if "n" in cls().get_params() else {})) for cls in ENSEMBLE_CLASSES.values()]

SAMPLERS = [cls() for cls in dict.fromkeys(sampling.CLASSES.values())] + [
    sampling.Sampler("smote(k=3)"),
    sampling.Sampler("enn(rule=all)"),
]

#: rarity's messages are the library's (the command line's), not
#: scikit-learn's exact wording.
MESSAGES = {
    "check_n_features_in_after_fitting": (
        "a wrong column count raises the library's message ('the data's columns do not "
        "match the model's: 4 features expected, 3 given; ...'), not scikit-learn's "
        "'X has 3 features, but ... is expecting 4 features as input'"
    ),
    "check_estimators_empty_data_messages": (
        "data without columns raises the library's message, not scikit-learn's "
        "'0 feature(s) (shape=(n, 0)) while a minimum of 1 is required'"
    ),
}
#: Bagging draws rows uniformly, whatever their weights.
BOOTSTRAP = {
    "check_sample_weight_equivalence_on_dense_data": (
        "weights scale each row inside the learners, but the bagging engine draws rows "
        "uniformly: a weight of 2 and a duplicated row give different samples"
    ),
}
#: predict applies the strategy's decision rule.
NOT_ARGMAX = {
    "check_classifiers_train": (
        "predict applies the strategy's decision rule (PT_MA: thresholds at the priors; "
        "CorrectedClassifier: eq. 12), which is not argmax(predict_proba) by design"
    ),
}
RDT = {
    "check_classifiers_train": (
        "Fan's random decision trees pick split features and thresholds at random and grow "
        "to half the number of features in depth (one level for the check's two features): "
        "training accuracy falls below the check's 0.83"
    ),
}
SPARSE = {
    "check_samplers_pandas_sparse": (
        "sparse input is refused with ValueError: rarity reads dense data"
    ),
}


def expected_failures(est):
    """The checks ``est`` is expected to fail, with the reasons."""
    if isinstance(est, sampling._Base):
        return {**SPARSE, "check_estimators_empty_data_messages": MESSAGES["check_estimators_empty_data_messages"]}
    out = dict(MESSAGES)
    name = getattr(est, "registry_name", None)
    if name != "rdt":
        out.update(BOOTSTRAP)
    if name == "rdt":
        out.update(RDT)
    if name == "pt-bagging" or isinstance(est, rarity.CorrectedClassifier) or (
        isinstance(est, rarity.Classifier) and ("pt-bagging" in est.spec or "threshold(priors)" in est.spec)
    ):
        out.update(NOT_ARGMAX)
    return out


@parametrize_with_checks(CLASSIFIERS + SAMPLERS, expected_failed_checks=expected_failures)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


imblearn_checks = pytest.importorskip("imblearn.utils.estimator_checks")


@imblearn_checks.parametrize_with_checks(SAMPLERS, expected_failed_checks=expected_failures)
def test_imblearn_sampler_checks(estimator, check):
    check(estimator)
