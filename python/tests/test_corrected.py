"""CorrectedClassifier: any classifier trained on a rarity sample, with
probabilities corrected for the keep rates (Dal Pozzolo et al. 2015, eq. 9,
generalised) and the consistent threshold (eq. 12). On a Gaussian task with
a known posterior the corrected probabilities are closer to the truth."""

from __future__ import annotations

import numpy as np
import pytest

import rarity


def gaussian(n, pos_rate=0.1, mu=3.0, sigma=3.0, seed=0):
    """Dal Pozzolo's synthetic task: x ~ N(0, sigma) for negatives, N(mu, sigma)
    for positives; the true posterior is known."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < pos_rate).astype(int)
    x = rng.normal(loc=mu * y, scale=sigma)
    lik1 = np.exp(-((x - mu) ** 2) / (2 * sigma**2))
    lik0 = np.exp(-(x**2) / (2 * sigma**2))
    post = pos_rate * lik1 / (pos_rate * lik1 + (1 - pos_rate) * lik0)
    return x[:, None], y, post


def _brier_to_truth(p, post):
    return float(np.mean((p - post) ** 2))


@pytest.mark.parametrize("estimator", ["logistic", "rarity"])
def test_corrected_probabilities_are_closer_to_the_true_posterior(estimator):
    X, y, _ = gaussian(8000, seed=1)
    Xt, yt, post = gaussian(8000, seed=2)
    if estimator == "logistic":
        lm = pytest.importorskip("sklearn.linear_model")
        est = lm.LogisticRegression()
    else:
        est = rarity.Classifier("forest(n=50,min_samples_leaf=20)", seed=1)
    clf = rarity.CorrectedClassifier(est, sampler="under(ratio=1)", seed=3).fit(X, y)
    p_corr = clf.predict_proba(Xt)[:, 1]
    p_s = clf.estimator_.predict_proba(Xt)[:, 1]
    assert _brier_to_truth(p_corr, post) < 0.5 * _brier_to_truth(p_s, post)
    # eq. 12: the corrected threshold gives the sample model's labels at 0.5.
    np.testing.assert_array_equal(clf.predict(Xt), (p_s >= 0.5).astype(int))
    beta = clf.keep_rates_[0] / clf.keep_rates_[1]
    assert clf.threshold_ == pytest.approx(rarity.calibration.corrected_threshold(0.5, beta))
    # eq. 9 exactly, for the binary rates.
    want = beta * p_s / (beta * p_s - p_s + 1)
    np.testing.assert_allclose(p_corr, want, rtol=1e-12, atol=1e-15)


def test_the_sample_is_the_strategys_sample():
    """The same seed draws the rows a strategy's sampler stage draws, so a
    rarity learner wrapped here matches the spec ``sampler+learner+correct``."""
    X, y, _ = gaussian(3000, seed=4)
    spec = "under(beta=0.2)"
    a = rarity.CorrectedClassifier(rarity.Classifier("tree(max_depth=4)", seed=9), sampler=spec, seed=9)
    b = rarity.Classifier(f"{spec}+tree(max_depth=4)+correct", seed=9)
    np.testing.assert_allclose(a.fit(X, y).predict_proba(X), b.fit(X, y).predict_proba(X), rtol=1e-12)


def test_multiclass_and_oversampling():
    rng = np.random.default_rng(0)
    y = rng.choice(3, size=3000, p=[0.8, 0.15, 0.05])
    X = rng.normal(size=(3000, 2)) + y[:, None]
    lm = pytest.importorskip("sklearn.linear_model")
    clf = rarity.CorrectedClassifier(lm.LogisticRegression(), sampler="smote", seed=1).fit(X, y)
    assert clf.keep_rates_[0] == 1.0 and clf.keep_rates_[2] > 10
    p = clf.predict_proba(X)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    # Corrected probabilities average to the training priors (roughly);
    # the sample model's to balanced ones.
    assert abs(p[:, 2].mean() - 0.05) < 0.03
    assert clf.estimator_.predict_proba(X)[:, 2].mean() > 2 * p[:, 2].mean()
    # predict decides as the sample model does (argmax of p_k r_k).
    np.testing.assert_array_equal(clf.predict(X), clf.estimator_.predict(X))
    assert clf.threshold_ is None and clf.lambdas_.shape == (3,)


def test_dataframes_pass_through_to_the_estimator():
    pd = pytest.importorskip("pandas")
    X, y, _ = gaussian(500, seed=5)
    df = pd.DataFrame({"x": X[:, 0]})
    clf = rarity.CorrectedClassifier(sampler="under").fit(df, y)
    assert clf.predict_proba(df).shape == (500, 2)
    assert clf.sample_indices_.shape[0] < 500


def test_a_sampler_object_is_its_spec():
    X, y, _ = gaussian(2000, seed=6)
    a = rarity.CorrectedClassifier(sampler=rarity.sampling.RandomUnderSampler(), seed=2).fit(X, y)
    b = rarity.CorrectedClassifier(sampler="under(ratio=1)", seed=2).fit(X, y)
    np.testing.assert_array_equal(a.keep_rates_, b.keep_rates_)
    with pytest.raises(ValueError, match="sampler=3 is invalid"):
        rarity.CorrectedClassifier(sampler=3).fit(X, y)
