"""rarity.calibration, rarity.metrics, rarity.stats, rarity.select and
rarity.run: thin calls of the library, checked against known values."""

from __future__ import annotations

import math

import numpy as np
import pytest

import rarity
from conftest import imbalanced


def test_calibration_functions():
    from rarity import calibration as C

    ps = np.linspace(0, 1, 11)
    for beta in (0.05, 0.3, 1.0):
        np.testing.assert_allclose(C.correct(ps, [beta, 1.0]), beta * ps / (beta * ps - ps + 1), atol=1e-15)
        tau = C.corrected_threshold(0.5, beta)
        assert tau == pytest.approx(beta / (beta + 1))
    p3 = np.array([[0.2, 0.2, 0.6]])
    np.testing.assert_allclose(C.correct(p3, [1, 1, 4]), [[0.2 / 0.55, 0.2 / 0.55, 0.15 / 0.55]])
    np.testing.assert_allclose(C.adjust_to_priors([0.5], [0.5, 0.5], [0.9, 0.1]), [0.1])
    priors, adj, it, ok = C.em_priors([0.9] * 20 + [0.02] * 80, [0.5, 0.5], tol=1e-10)
    assert ok and priors[1] < 0.2 and adj.shape == (100,)
    with pytest.raises(ValueError, match="keep rates must be finite and > 0"):
        C.correct(ps, [0.0, 1.0])
    f = np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9])
    y = np.array([0, 0, 1, 0, 1, 0, 1, 1])
    assert C.Platt().fit(f, y).a_ < 0
    iso = C.Isotonic().fit([1.0, 2.0, 3.0, 4.0], [0, 1, 0, 1])
    assert iso.predict([1.0, 2.5, 9.0]).tolist() == [0.0, 0.5, 1.0]


def test_metrics_every_key_and_function():
    y = np.array([0, 0, 1, 1, 0, 1, 0, 0])
    p = np.array([0.1, 0.4, 0.35, 0.8, 0.2, 0.7, 0.6, 0.05])
    r = rarity.metrics.score(y, p)
    assert list(r) == rarity.metrics.keys()[: len(r)]
    assert r["roc_auc"] == pytest.approx(0.8666666666666667)
    for k, v in r.items():
        f = getattr(rarity.metrics, k)
        assert (math.isnan(v) and math.isnan(f(y, p))) or f(y, p) == v, k
    sk = pytest.importorskip("sklearn.metrics")
    assert r["average_precision"] == pytest.approx(sk.average_precision_score(y, p), abs=1e-15)
    assert r["brier"] == pytest.approx(sk.brier_score_loss(y, p), abs=1e-15)
    # labels as text, positive named or by rule; two columns = sorted classes.
    yt = np.where(y == 1, "fraud", "ok")
    assert rarity.metrics.score(yt, p, pos_label="fraud")["roc_auc"] == r["roc_auc"]
    # Two columns: the sorted labels ("fraud", "ok"); "ok" is the positive class.
    assert rarity.metrics.roc_auc(yt, np.column_stack([p, 1 - p])) == r["roc_auc"]
    # multiclass
    y3 = np.array([0, 1, 2, 2, 1, 0])
    p3 = np.eye(3)[[0, 1, 2, 1, 1, 0]] * 0.7 + 0.1
    m = rarity.metrics.score(y3, p3)
    assert "roc_auc_hand_till" in m and "brier_positive" not in m
    with pytest.raises(ValueError, match="is not a probability in \\[0, 1\\]"):
        rarity.metrics.score(y, p + 1)


def test_metrics_of_a_batch_with_one_label():
    # A day without a fraud: every row is a negative (scikit-learn's
    # pos_label=1 for labels in {0, 1}), not a positive.
    p = np.array([0.1, 0.2, 0.3, 0.4])
    r = rarity.metrics.score(np.zeros(4, dtype=int), p)
    assert r["brier"] == pytest.approx(0.075, abs=1e-15)
    assert (r["tn"], r["fp"]) == (4.0, 0.0) and math.isnan(r["roc_auc"])
    sk = pytest.importorskip("sklearn.metrics")
    assert r["brier"] == pytest.approx(sk.brier_score_loss(np.zeros(4, dtype=int), p), abs=1e-15)
    assert rarity.metrics.brier(np.array(["ok"] * 4), p, pos_label="fraud") == r["brier"]
    with pytest.raises(ValueError, match="pos_label"):
        rarity.metrics.brier(np.array(["ok"] * 4), p)


def test_stats_match_scipy():
    scipy = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(0)
    t = rng.random((12, 4)) + np.array([0.0, 0.1, 0.2, 0.3])
    fr = rarity.stats.friedman(t)
    assert fr["chi2_p_value"] == pytest.approx(scipy.friedmanchisquare(*t.T).pvalue, rel=1e-10)
    w = rarity.stats.wilcoxon(t[:, 0], t[:, 3])
    assert w["p_value"] == pytest.approx(scipy.wilcoxon(t[:, 0], t[:, 3]).pvalue, rel=1e-10)
    n = rarity.stats.nemenyi(t)
    assert n["mean_ranks"][3] < n["mean_ranks"][0] and n["p_values"].shape == (4, 4)
    assert rarity.stats.critical_difference(4, 12) == pytest.approx(1.354, abs=1e-3)


def test_reverse_testing_and_comparators():
    X, y = rarity.datasets.load("pima")
    learners = ["tree(max_depth=2)", "gnb", "forest(n=10)"]
    r = rarity.select.reverse_testing(learners, X[:500], y[:500], X[500:], seed=1)
    assert sorted(r["order"]) == [0, 1, 2] and len(r["pairs"]) == 3
    assert r["learners"] == learners and "variant" in r
    cv = rarity.select.reverse_testing(learners, X[:500], y[:500], X[500:], method="cv")
    assert cv["models_built"] > 0
    with pytest.raises(ValueError, match="unknown selection method 'holdout'"):
        rarity.select.reverse_testing(learners, X[:500], y[:500], X[500:], method="holdout")


def test_run_ranks_fits_the_winner_and_writes_the_report(tmp_path):
    pd = pytest.importorskip("pandas")
    X, y = imbalanced(n=400, d=3, seed=9)
    df = pd.DataFrame(X, columns=["a", "b", "c"]).assign(label=np.where(y == 1, "rare", "common"))
    res = rarity.run(
        df,
        target="label",
        models=["pt-bagging(n=10)+threshold(priors)", "forest(n=10)", "logistic+platt"],
        metric="g_mean",
        cv="1x3",
        cost="fn=5,fp=1",
    )
    assert isinstance(res.ranking, pd.DataFrame)
    # with the cost copies of the model deciding by the priors and of the calibrated one
    # (with the priors copies of the calibrated models deciding at 0.5)
    assert list(res.ranking["rank"]) == list(range(1, len(res.ranking) + 1))
    assert {"pt-bagging(n=10)+cost(fn=5,fp=1)", "logistic+platt+cost(fn=5,fp=1)"} <= set(res.ranking["strategy"])
    assert res.level == "strategies" and res.decision_metric == "g_mean"
    assert any(len(d["strategies"]) == 2 for d in res.decisions)
    assert {"roc_auc", "g_mean_std", "cost"} <= set(res.ranking.columns)
    assert res.verdict["testable"] and res.verdict["critical_difference"] > 0
    assert set(res.verdict["tied_with_best"]) <= set(res.verdict["models"]) and res.verdict["tied_with_best"]
    w = res.winner
    assert w.spec_ == res.ranking["strategy"][0]
    assert w.predict_proba(df.drop(columns="label")).shape == (400, 2)
    assert set(w.predict(df.drop(columns="label"))) <= {"rare", "common"}
    index = res.report(tmp_path / "rep")
    assert "<svg" in open(index).read()
    assert (tmp_path / "rep" / "tables" / "ranking.csv").exists()
    assert len(res.folds()) == len(res.ranking) * 3
    # paths are read as the command line reads them
    csv = tmp_path / "d.csv"
    df.to_csv(csv, index=False)
    res2 = rarity.run(str(csv), target="label", models=["tree", "gnb"], cv="1x3")
    assert not res2.verdict["testable"] and len(res2.ranking) == 2
    assert res2.level == "models" and res2.decision_metric == "g_mean"


def test_run_pools_leave_one_out():
    # issue 39: one-row folds have no AUC; leave-one-out is pooled, and
    # pooled=True pools any scheme.
    pytest.importorskip("pandas")
    X, y = imbalanced(n=120, d=3, seed=4)
    res = rarity.run((X, y), models=["logistic", "gnb"], metric="roc_auc", cv="loo")
    assert np.isfinite(res.ranking["roc_auc"]).all()
    res = rarity.run((X, y), models=["logistic", "gnb"], metric="roc_auc", cv="2x3", pooled=True)
    assert np.isfinite(res.ranking["roc_auc"]).all()


def test_registry_and_datasets():
    fams = {f: rarity.registry(f) for f in ("learners", "ensembles", "samplers", "stages", "metrics")}
    assert any(e["name"] == "pt-bagging" and e["decision"] == "threshold(priors)" for e in fams["ensembles"])
    smote = next(e for e in fams["samplers"] if e["name"] == "smote")
    assert {"name": "k", "expected": "a whole number >= 1", "default": "5"}.items() <= smote["params"][0].items()
    with pytest.raises(ValueError, match="unknown family"):
        rarity.registry("nope")
    X, y = rarity.datasets.load("glass", as_frame=True)
    assert X.shape[0] == len(y) and len(rarity.datasets.names()) >= 10
