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
] + [cls(**({"n": 5} if "n" in cls().get_params() else {})) for cls in ENSEMBLE_CLASSES.values()] + [
    rarity.GradientBoosting(max_iter=10),
]

#: Parameters a class is checked with where its defaults cannot fit the
#: checks' small classes: k-means SMOTE at the default balance threshold
#: finds no cluster that a class of a few rows dominates (it raises, as
#: imbalanced-learn's does); with one cluster it is SMOTE.
#: Cluster centroids' voting="auto" is hard on sparse input and soft on
#: dense (imbalanced-learn's rule): its sparse-equals-dense check needs one voting.
CHECKED_WITH = {
    "KMeansSMOTE": {"kmeans_estimator": 1, "cluster_balance_threshold": 0.0},
    "ClusterCentroids": {"voting": "soft"},
}

SAMPLERS = [cls(**CHECKED_WITH.get(cls.__name__, {})) for cls in dict.fromkeys(sampling.CLASSES.values())] + [
    sampling.Sampler("smote(k=3)"),
    sampling.Sampler("enn(rule=all)"),
]

#: Bagging draws rows uniformly, whatever their weights.
BOOTSTRAP = {
    "check_sample_weight_equivalence_on_dense_data": (
        "weights scale each row inside the learners, but the bagging engine draws rows "
        "uniformly: a weight of 2 and a duplicated row give different samples"
    ),
}
#: predict applies the strategy's decision rule: where it moves labels of
#: the check's training rows, accuracy falls below the check's bar.
NOT_ARGMAX = {
    "check_classifiers_train": (
        "predict applies the strategy's decision rule (PT_MA of pt-bagging(n=10): thresholds "
        "at the priors; CorrectedClassifier: eq. 12's threshold), which is not "
        "argmax(predict_proba) by design, and on the check's rows it moves enough labels "
        "to fail its accuracy bar"
    ),
}
RDT = {
    "check_classifiers_train": (
        "Fan's random decision trees pick split features and thresholds at random and grow "
        "to half the number of features in depth (one level for the check's two features): "
        "training accuracy falls below the check's 0.83"
    ),
}
#: SMOTE needs more rows of a class than its k (imbalanced-learn raises
#: ValueError too); the checks' tiny classes have fewer.
SMOTE_ONE_FEATURE = {
    "check_fit2d_1feature": (
        "the check's 10 rows leave a class of 3: SMOTE's k needs more rows of the class it "
        "enlarges, so fit raises ValueError saying so (as imbalanced-learn does), which the "
        "check does not accept (only a one-feature message)"
    ),
}
SMOTE_BAGGING = {
    **SMOTE_ONE_FEATURE,
    "check_n_features_in_after_fitting": (
        "the check's classes have 5 rows: SMOTE with k=5 needs more, so fit raises ValueError"
    ),
    "check_estimators_nan_inf": (
        "the check fits 10 rows first, whose classes have 5 rows or fewer: SMOTE with k=5 "
        "needs more, so fit raises ValueError before the NaN / inf rows are tried"
    ),
}
SMOTE_SAMPLERS = ("SMOTE", "BorderlineSMOTE", "ADASYN", "SMOTETomek", "SMOTEENN", "SVMSMOTE", "KMeansSMOTE")
SPARSE = {
    "check_samplers_pandas_sparse": (
        "a pandas frame of sparse columns is refused with ValueError: rarity reads dense "
        "columns (SciPy sparse matrices are taken)"
    ),
}
#: imbalanced-learn's own fitted attribute names that do not end in "_".
PUBLIC_ATTRIBUTE = {
    "check_dont_overwrite_parameters": (
        "in_danger_indices is imbalanced-learn's name for the fitted attribute (no trailing "
        "underscore); the class keeps the name so code written for imbalanced-learn reads it"
    ),
}


def expected_failures(est):
    """The checks ``est`` is expected to fail, with the reasons."""
    if isinstance(est, sampling._Base):
        # The random samplers only draw rows: they carry sparse columns.
        out = {} if type(est).__name__ in ("RandomUnderSampler", "RandomOverSampler") else dict(SPARSE)
        # k-means SMOTE with one cluster checked (CHECKED_WITH) fits the
        # check's one-feature rows.
        smote = type(est).__name__ in SMOTE_SAMPLERS and type(est).__name__ != "KMeansSMOTE"
        if smote or "smote" in str(getattr(est, "spec", "")):
            out.update(SMOTE_ONE_FEATURE)
        if type(est).__name__ == "BorderlineSMOTE":
            out.update(PUBLIC_ATTRIBUTE)
        if type(est).__name__ == "SMOTEUnder":
            out.update(SMOTE_BAGGING)
        return out
    out = {}
    name = getattr(est, "registry_name", None)
    if name == "smote-bagging":
        out.update(SMOTE_BAGGING)
    if name not in ("rdt", "gbdt"):
        out.update(BOOTSTRAP)
    if name == "rdt":
        out.update(RDT)
    # Only where it fails: PTBagging(n=5) and under+forest+correct+threshold
    # (priors) decide the check's rows as argmax would.
    if isinstance(est, rarity.CorrectedClassifier) or (
        isinstance(est, rarity.Classifier) and "pt-bagging" in est.spec
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
