"""What a new user still met in Python (issue 58, items 7-13 and 20): the
command line's target rule, results that pickle, ``CorrectedClassifier``'s
export, scikit-learn's habits, messages in the user's terms, parameters
that are typed values, and notebook displays."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import rarity
from rarity import sampling


def _frame():
    pd = pytest.importorskip("pandas")
    X, y = rarity.datasets.load("pima", as_frame=True)
    df = X.copy()
    df["outcome"] = y
    return df


def test_a_target_name_matches_ignoring_case_as_on_the_command_line():
    df = _frame()
    with pytest.warns(UserWarning, match="names match ignoring case"):
        res = rarity.run(df, target="Outcome", models=["tree(max_depth=2)", "gnb", "logistic"], cv="1x3")
    assert res.winner.spec_ in ("tree(max_depth=2)", "gnb", "logistic") or res.winner.spec_.startswith(
        ("tree", "gnb", "logistic")
    )
    with pytest.raises(ValueError, match="not found"):
        rarity.run(df, target="nope", models=["gnb"], cv="1x3")


def test_results_of_every_job_pickle(tmp_path):
    X, y = rarity.datasets.load("ecoli4")
    res = rarity.run((X, y), models=["tree(max_depth=2)", "gnb", "logistic"], cv="1x3")
    back = pickle.loads(pickle.dumps(res))
    assert back.to_dict() == res.to_dict() and back.to_text() == res.to_text()
    assert back.folds() == res.folds()
    assert back.report_html() == res.report_html()
    back.report(tmp_path / "r")
    assert (tmp_path / "r" / "index.html").read_text() == res.report_html()
    assert (tmp_path / "r" / "tables").is_dir()
    # Pickled twice, the same.
    again = pickle.loads(pickle.dumps(back))
    assert again.to_dict() == res.to_dict()
    ev = rarity.evaluate((X, y), model="tree(max_depth=2)", cv="3")
    assert pickle.loads(pickle.dumps(ev)).to_dict() == ev.to_dict()
    rt = rarity.experiments.reverse_testing(["glass6"], learners="tree,gnb", splits=1)
    rt_back = pickle.loads(pickle.dumps(rt))
    assert rt_back.to_dict() == rt.to_dict()
    rt.write_pairs(tmp_path / "a.csv")
    rt_back.write_pairs(tmp_path / "b.csv")
    assert (tmp_path / "a.csv").read_text() == (tmp_path / "b.csv").read_text()


def test_corrected_classifier_around_a_rarity_estimator_exports():
    onnx = pytest.importorskip("onnxruntime")
    X, y = rarity.datasets.load("yeast4")
    clf = rarity.CorrectedClassifier(rarity.RandomForest(n=5), sampler="under(beta=0.2)").fit(X, y)
    graph = clf.to_onnx()
    s = onnx.InferenceSession(graph, providers=["CPUExecutionProvider"])
    out = dict(zip([o.name for o in s.get_outputs()], s.run(None, {"X": np.ascontiguousarray(X, dtype=np.float64)})))
    assert np.abs(out["probabilities"] - clf.predict_proba(X)).max() < 1e-12
    assert [str(v) for v in out["label"]] == [str(v) for v in clf.predict(X)]
    lr = pytest.importorskip("sklearn.linear_model")
    other = rarity.CorrectedClassifier(lr.LogisticRegression(), sampler="under").fit(X, y)
    with pytest.raises(ValueError, match="not a rarity estimator"):
        other.to_onnx()


def test_random_state_is_seed_everywhere_and_early_stopping_auto():
    X, y = rarity.datasets.load("ecoli4")
    a = rarity.PTBagging(n=5, random_state=3).fit(X, y).predict_proba(X)
    b = rarity.PTBagging(n=5, seed=3).fit(X, y).predict_proba(X)
    assert np.array_equal(a, b)
    assert "random_state" in rarity.Classifier().get_params()
    c = rarity.CorrectedClassifier(rarity.Classifier("tree"), random_state=1).fit(X, y)
    d = rarity.CorrectedClassifier(rarity.Classifier("tree"), seed=1).fit(X, y)
    assert np.array_equal(c.sample_indices_, d.sample_indices_)
    g = rarity.GradientBoosting(max_iter=30, early_stopping="auto").fit(X, y)
    # 336 rows: 'auto' stops early from 10,000 rows, as scikit-learn's.
    assert g.n_iter_ == 30
    with pytest.raises(ValueError, match="non-negative integer below 2\\*\\*64"):
        rarity.Classifier("tree", seed=2**200).fit(X, y)
    with pytest.raises(ValueError, match="n_jobs=-100 is invalid"):
        rarity.Classifier("tree", n_jobs=-100).fit(X, y)


def test_every_seed_takes_random_state_and_one_rule_for_its_range():
    """The samplers that take ``seed`` and every job take ``random_state``
    as its alias, and every seed is one check: a ``ValueError`` naming the
    parameter for a negative seed or one of 2**64 or more (they were
    ``TypeError`` / ``OverflowError`` from the native layer)."""
    X, y = rarity.datasets.load("ecoli4")
    samplers = [sampling.Bootstrap, sampling.BalancedBootstrap, sampling.ExactlyBalanced,
                sampling.RoughlyBalanced, sampling.SMOTEUnder, sampling.UnderOver, sampling.NoResampling]
    for cls in samplers:
        assert cls().get_params()["random_state"] is None
        a = cls(random_state=3).fit_resample(X, y)[0]
        assert np.array_equal(a, cls(seed=3).fit_resample(X, y)[0]), cls
    a = sampling.Sampler("under(beta=0.3)", random_state=3).fit_resample(X, y)[0]
    assert np.array_equal(a, sampling.Sampler("under(beta=0.3)", seed=3).fit_resample(X, y)[0])
    runs = [rarity.run((X, y), models=["forest(n=5)", "gnb"], cv="3", **kw).to_dict()
            for kw in ({"random_state": 5}, {"seed": 5})]
    assert runs[0]["ranking"] == runs[1]["ranking"]
    for kw in ({"random_state": 5}, {"seed": 5}):
        ev = rarity.evaluate((X, y), model="forest(n=5)", cv="3", oof=True, **kw)
        sel = rarity.select.select(["tree", "gnb"], X[::2], y[::2], X[1::2], **kw)
        drawn = rarity.resample((X, y), "under", **kw)
        got = (np.asarray(ev.oof).tolist(), sel["ranking"], np.asarray(drawn.X).tolist())
        if "seed" in kw:
            assert got == first
        first = got
    calls = [
        lambda s: rarity.run((X, y), models=["tree"], cv="3", **s),
        lambda s: rarity.evaluate((X, y), model="tree", cv="3", **s),
        lambda s: rarity.resample((X, y), "under", **s),
        lambda s: rarity.select.select(["tree", "gnb"], X[::2], y[::2], X[1::2], **s),
        lambda s: sampling.Bootstrap(**s).fit_resample(X, y),
        lambda s: sampling.Sampler("under", **s).fit_resample(X, y),
        lambda s: rarity.Classifier("tree", **s).fit(X, y),
    ]
    for call in calls:
        for name in ("seed", "random_state"):
            for bad in (2**200, 2**64, -1, 1.5, "3"):
                with pytest.raises(ValueError, match=f"^{name}=.* is invalid; expected a non-negative integer below 2\\*\\*64"):
                    call({name: bad})
    for bad in (2**64, -1):
        with pytest.raises(ValueError, match="^seed=.* is invalid; expected a non-negative integer below 2"):
            rarity.experiments.pt_bagging("glass6", sizes="3", cv="1x2", seed=bad)
    sm = sampling.SMOTE(random_state=2**64)
    with pytest.raises(ValueError, match="^random_state=18446744073709551616 is invalid"):
        sm.fit_resample(X, y)


def test_feature_names_warn_as_scikit_learn_warns():
    df = _frame()
    X, y = df.drop(columns=["outcome"]), df["outcome"]
    clf = rarity.Classifier("tree(max_depth=2)").fit(X, y)
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        clf.predict(X.to_numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clf.predict(X)
    arr = rarity.Classifier("tree(max_depth=2)").fit(X.to_numpy(), y)
    with pytest.warns(UserWarning, match="has feature names"):
        arr.predict(X)


def test_sampler_strategy_messages_are_in_the_users_terms():
    X, y = rarity.datasets.load("pima")
    with pytest.raises(ValueError) as e:
        sampling.RandomUnderSampler(sampling_strategy=0.5).fit_resample(X, y)
    msg = str(e.value)
    assert "rates=" not in msg and ("sampling_strategy" in msg or "ratio" in msg), msg


def test_parameters_are_typed_values_never_spliced_into_a_spec():
    X, y = rarity.datasets.load("ecoli4")
    for bad in (
        lambda: rarity.RandomForest(n="3)+threshold(0.001"),
        lambda: rarity.RandomForest(n=3, max_depth="2,min_samples_leaf=50"),
        lambda: rarity.Bagging(n=3, learner="tree)+threshold(0.001"),
        lambda: rarity.RandomForest(n=3, decision="threshold(0.1)+platt"),
        lambda: rarity.RandomForest(n="3"),
    ):
        with pytest.raises(ValueError):
            bad().fit(X, y)
    base = pytest.importorskip("sklearn.base")
    with pytest.raises(ValueError):
        base.clone(rarity.RandomForest(n="3)+threshold(0.001")).fit(X, y)
    # A nested spec given as text is one value.
    assert rarity.Bagging(n=3, learner="tree(max_depth=2)").fit(X, y).spec_.startswith("bagging(")


def test_sample_weights_that_overflow_are_refused():
    X, y = rarity.datasets.load("ecoli4")
    with pytest.raises(ValueError, match="scale the weights down"):
        rarity.Classifier("tree").fit(X, y, sample_weight=np.full(len(y), 1e308))


def test_notebook_displays_show_what_the_command_line_shows():
    X, y = rarity.datasets.load("ecoli4")
    res = rarity.run((X, y), models=["tree(max_depth=2)", "gnb", "logistic"], cv="1x3")
    html = res._repr_html_()
    table = html.split("</table>")[0]
    assert "brier_std" not in table and "average_precision" in table
    assert "tables/ranking.csv" not in html
    ev = rarity.evaluate((X, y), model="tree(max_depth=2)", cv="3")
    first = ev._repr_html_().split("<tr>")[2]
    assert "full_potential" not in ev._repr_html_().split("<tr>")[1].split("</tr>")[0].split("std")[0]
    assert first.count("<td") >= 3
    clf = rarity.CorrectedClassifier(rarity.Classifier("forest(n=5)"), sampler="under").fit(X, y)
    assert "keep rate" in clf._repr_html_()
    g = rarity.GradientBoosting(max_iter=5).fit(X, y)
    assert "std over 1 members" not in rarity.explain(g, X, y)._repr_html_()
