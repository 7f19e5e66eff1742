"""Python has the command line's jobs (issue 38, items 3 and 4):
``GradientBoosting`` under scikit-learn's names, ``feature_importances_``,
``rarity.explain`` and ``rarity.show`` equal to ``rarity explain`` /
``rarity show --format json``, ``rarity.run``, ``rarity.select``, ``rarity.evaluate`` and
``rarity.calibration.recalibrate`` equal to ``rarity run`` / ``select`` / ``evaluate`` /
``calibrate`` (one library request under both), ``rarity.experiments`` equal to
``rarity experiment calibration`` / ``pt-bagging`` / ``reverse-testing``, and HTML
for notebooks."""

from __future__ import annotations

import json
import pathlib
import subprocess

import numpy as np
import pytest

import rarity
from rarity import _html  # the notebook's page: without the files lines
from conftest import REPO, imbalanced
from test_cli_parity import write_csv


# ---- GradientBoosting


def test_gradient_boosting_takes_scikit_learns_names_and_fits_the_gbdt_spec():
    X, y = imbalanced(n=300, seed=3)
    gb = rarity.GradientBoosting(
        max_iter=15, learning_rate=0.2, max_leaf_nodes=7, max_depth=3, min_samples_leaf=5,
        l2_regularization=1.0, max_bins=63, early_stopping=True, validation_fraction=0.2,
        n_iter_no_change=4, max_delta_step=0.0, seed=5,
    ).fit(X, y)
    spec = ("gbdt(rounds=15,learning_rate=0.2,max_leaves=7,max_depth=3,min_samples_leaf=5,l2=1.0,"
            "bins=63,validation_fraction=0.2,max_delta_step=0.0,early_stopping=4)")
    assert gb.spec_ == spec
    assert 1 <= gb.n_iter_ <= 15
    assert rarity.GradientBoosting(max_iter=7).fit(X, y).n_iter_ == 7
    same = rarity.Classifier(spec, seed=5).fit(X, y)
    np.testing.assert_array_equal(gb.predict_proba(X), same.predict_proba(X))


def test_gradient_boosting_defaults_are_gbdts():
    X, y = imbalanced(n=200, seed=4)
    assert rarity.GradientBoosting().fit(X, y).spec_ == "gbdt"
    assert rarity.GradientBoosting(early_stopping=False, n_iter_no_change=3).fit(X, y).spec_ == "gbdt"


def test_gradient_boosting_class_weight_and_stages():
    X, y = imbalanced(n=300, seed=5)
    y = np.where(y == 1, "fraud", "ok")
    gb = rarity.GradientBoosting(max_iter=5, class_weight={"ok": 1, "fraud": 4}, correct=True,
                                 decision="threshold(f1)").fit(X, y)
    # rarity's class 1 is the minority ("fraud"): weights in rarity's order.
    assert gb.spec_ == "gbdt(rounds=5,class_weight='1.0,4.0')+correct+threshold(f1)"
    bal = rarity.GradientBoosting(max_iter=5, scale_pos_weight=9.0).fit(X, y)
    assert bal.spec_ == "gbdt(rounds=5,scale_pos_weight=9.0)"


@pytest.mark.parametrize(
    "params, message",
    [
        ({"class_weight": {"ok": 1}}, "no weight for the classes"),
        ({"class_weight": {"ok": 1, "fraud": 2, "x": 3}}, "not in y"),
        ({"class_weight": "heavy"}, "class_weight='heavy' is invalid"),
        ({"early_stopping": "sometimes"}, "early_stopping='sometimes' is invalid"),
        ({"early_stopping": True, "n_iter_no_change": 0}, "n_iter_no_change=0 is invalid"),
        ({"max_iter": 0}, "rounds"),
        ({"class_weight": "balanced", "scale_pos_weight": 2.0}, "not both"),
    ],
)
def test_gradient_boosting_bad_parameters_are_value_errors(params, message):
    X, y = imbalanced(n=100, seed=6)
    y = np.where(y == 1, "fraud", "ok")
    with pytest.raises(ValueError, match=message):
        rarity.GradientBoosting(**params).fit(X, y)


def test_gradient_boosting_clones_and_grid_searches():
    sklearn = pytest.importorskip("sklearn")
    from sklearn.model_selection import GridSearchCV

    X, y = imbalanced(n=300, seed=7)
    gs = GridSearchCV(rarity.GradientBoosting(max_iter=5), {"max_leaf_nodes": [3, 7]}, cv=2,
                      scoring="roc_auc").fit(X, y)
    assert gs.best_estimator_.spec_.startswith("gbdt(rounds=5,max_leaves=")
    assert sklearn.base.clone(rarity.GradientBoosting(l2_regularization=2.0)).l2_regularization == 2.0


# ---- feature_importances_


@pytest.mark.parametrize(
    "est",
    [rarity.GradientBoosting(max_iter=10), rarity.RandomForest(n=10), rarity.Classifier("tree(max_depth=3)")],
    ids=["gbdt", "forest", "tree"],
)
def test_feature_importances_are_split_gain_shares_summing_to_one(est):
    X, y = imbalanced(n=300, d=4, seed=8)
    X[:, 3] = 0.0  # a constant column never splits
    est.fit(X, y)
    imp = est.feature_importances_
    assert imp.shape == (4,)
    assert imp.sum() == pytest.approx(1.0)
    assert imp[3] == 0.0 and np.all(imp >= 0)


def test_feature_importances_sum_a_one_hot_columns_levels():
    pd = pytest.importorskip("pandas")
    X, y = imbalanced(n=300, d=2, seed=9)
    df = pd.DataFrame({"a": X[:, 0], "colour": np.where(y == 1, "red", np.where(X[:, 1] > 0, "blue", "green")),
                       "b": X[:, 1]})
    m = rarity.GradientBoosting(max_iter=10).fit(df, y)
    imp = m.feature_importances_
    assert imp.shape == (3,) and imp.sum() == pytest.approx(1.0)
    e = rarity.explain(m, df, y, n_repeats=1).to_dict()
    gain = {f: v for f, v, _ in e["split_gain"]["features"]}
    assert imp[1] == pytest.approx(sum(v for f, v in gain.items() if f.startswith("colour=")))


def test_models_without_splits_have_no_feature_importances():
    X, y = imbalanced(n=200, seed=10)
    m = rarity.Classifier("logistic").fit(X, y)
    with pytest.raises(AttributeError, match="no split-gain importances"):
        m.feature_importances_
    assert not hasattr(m, "feature_importances_")


# ---- explain and show: the command line's JSON


def _cli_json(cli, *args):
    out = subprocess.run([cli, "--quiet", "--format", "json", *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize(
    "est, metric, repeats",
    [
        (rarity.GradientBoosting(max_iter=10, seed=3), "roc_auc", 3),
        (rarity.Classifier("under(ratio=1)+forest(n=10)+correct+threshold(priors)", seed=3), "average_precision", 2),
        (rarity.Classifier("logistic", seed=3), "g_mean", 2),
    ],
    ids=["gbdt", "forest", "logistic"],
)
def test_explain_equals_the_command_lines_json(cli, tmp_path, est, metric, repeats):
    X, y = imbalanced(n=300, d=3, seed=12)
    X_test, y_test = imbalanced(n=200, d=3, seed=13)
    csv = tmp_path / "test.csv"
    write_csv(csv, X_test, y_test)
    est.fit(X, y)
    est.save(tmp_path / "m.rarity")
    want = _cli_json(cli, "--seed", "9", "explain", str(tmp_path / "m.rarity"), str(csv), "--metric", metric,
                     "--repeats", str(repeats))
    got = rarity.explain(est, X_test, y_test, metric=metric, n_repeats=repeats, seed=9)
    assert got.to_dict() == want
    assert got.metric == metric and got.rows == 200
    assert (got.split_gain is None) == (want["split_gain"] is None)


def test_show_equals_the_command_lines_json(cli, tmp_path):
    X, y = imbalanced(n=300, d=3, seed=14)
    for est in (rarity.GradientBoosting(max_iter=5, class_weight="balanced", correct=True),
                rarity.EBBagging(n=5, calibration="platt", decision="threshold(f1)")):
        est.fit(X, y)
        est.save(tmp_path / "m.rarity")
        want = _cli_json(cli, "show", str(tmp_path / "m.rarity"))
        got = rarity.show(est)
        assert got == want and got.to_dict() == want
        assert got["spec"] == est.spec_


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda m, X, y: rarity.explain(m, X, y, metric="nope"), "metric"),
        (lambda m, X, y: rarity.explain(m, X, y, n_repeats=0), "explain: n_repeats=0: expected a whole number >= 1"),
        (lambda m, X, y: rarity.explain(m, X, np.where(y == 1, 7, 0)), "not a class of the model"),
        (lambda m, X, y: rarity.explain(m, X, y[:-1]), "rows but y has"),
        (lambda m, X, y: rarity.explain(m, X[:, :2], y), "features"),
        (lambda m, X, y: rarity.explain(rarity.CorrectedClassifier(), X, y), "fitted rarity estimator"),
        (lambda m, X, y: rarity.show("model.rarity"), "fitted rarity estimator"),
    ],
)
def test_explain_and_show_refuse_bad_input_with_value_errors(call, message):
    X, y = imbalanced(n=100, d=3, seed=15)
    m = rarity.Classifier("tree").fit(X, y)
    with pytest.raises(ValueError, match=message):
        call(m, X, y)


def test_explain_and_show_need_a_fitted_model():
    from rarity._base import NotFittedError

    X, y = imbalanced(n=50, seed=16)
    with pytest.raises(NotFittedError):
        rarity.show(rarity.GradientBoosting())
    with pytest.raises(NotFittedError):
        rarity.explain(rarity.GradientBoosting(), X, y)


# ---- run and select: one library request under both front ends


def _cli_text(cli, *args):
    return subprocess.run([cli, "--quiet", *args], check=True, capture_output=True, text=True).stdout


@pytest.mark.parametrize(
    "extra, kwargs",
    [
        ([], {}),
        (["--cost", "fn=5,fp=1", "--metric", "cost"], {"cost": "fn=5,fp=1", "metric": "cost"}),
        (["--decision-metric", "f1", "--pooled"], {"decision_metric": "f1", "pooled": True}),
    ],
    ids=["default", "cost", "pooled"],
)
def test_run_equals_the_command_lines_json_and_text(cli, tmp_path, extra, kwargs):
    X, y = imbalanced(n=300, d=3, seed=18)
    csv = tmp_path / "d.csv"
    write_csv(csv, X, y)
    models = ["logistic+platt", "tree(max_depth=3)", "gnb+threshold(priors)"]
    flags = [w for m in models for w in ("-m", m)]
    out = tmp_path / "w.rarity"
    args = ["--seed", "4", "run", str(csv), *flags, "--cv", "2x3", *extra, "-o", str(out)]
    want = _cli_json(cli, *args)
    res = rarity.run(str(csv), models=models, cv="2x3", seed=4, **kwargs)
    got = res.to_dict()
    assert want.pop("saved") == str(out) and got.pop("saved") is None
    assert got == want
    text = [line for line in _cli_text(cli, *args).splitlines(keepends=True)
            if not line.startswith(("saved, trained", "next: ", "(rarity is not on your PATH"))]
    assert res.to_text() == "".join(text)


def test_run_names_pythons_parameters_in_its_errors():
    X, y = imbalanced(n=100, d=3, seed=19)
    with pytest.raises(ValueError, match="^cost 'fn=x': "):
        rarity.run((X, y), models=["tree"], cost="fn=x")
    with pytest.raises(ValueError, match="^benefit 'amount=x0,overhead=lots': "):
        rarity.select.select(["tree", "gnb"], X, y, X, benefit="amount=x0,overhead=lots")


def test_cv_takes_a_number_of_folds_as_scikit_learn_does():
    """``cv=3`` is ``cv="3"`` (it was a TypeError from the native layer);
    what is neither a string nor a whole number is a ValueError."""
    X, y = imbalanced(n=150, d=3, seed=19)
    a = rarity.run((X, y), models=["tree", "gnb"], cv=3).to_dict()
    b = rarity.run((X, y), models=["tree", "gnb"], cv="3").to_dict()
    assert a["ranking"] == b["ranking"] and a["cv"] == b["cv"]
    e = rarity.evaluate((X, y), model="tree", cv=np.int64(4)).to_dict()
    assert e["folds"] == 4
    for bad in [True, 2.5, None, ["3"]]:
        with pytest.raises(ValueError, match="^cv=.* is invalid; expected a number of folds"):
            rarity.run((X, y), models=["tree"], cv=bad)
        with pytest.raises(ValueError, match="^cv=.* is invalid; expected a number of folds"):
            rarity.evaluate((X, y), model="tree", cv=bad)
    with pytest.raises(ValueError, match="cv=True is invalid"):
        rarity.experiments.pt_bagging("glass6", sizes="3", cv=True)


@pytest.mark.parametrize(
    "method",
    [None, "reverse-testing", "iwcv", "iwcv(ratio=ulsif)", "prior-cv", "cv(folds=3)"],
    ids=["default", "rt", "iwcv", "ulsif", "prior-cv", "cv"],
)
def test_select_takes_every_method_of_the_command_line_and_equals_its_json(cli, tmp_path, method):
    X, y = imbalanced(n=400, d=3, seed=20)
    # A biased sample: the training set sees fewer rows with a large first feature.
    biased = X[:, 0] < 0.8
    X_train, y_train = X[:250][biased[:250]], y[:250][biased[:250]]
    X_target, y_target = X[250:], y[250:]
    write_csv(tmp_path / "train.csv", X_train, y_train)
    write_csv(tmp_path / "target.csv", X_target, y_target)
    learners = "tree(max_depth=3),gnb,logistic"
    flags = [] if method is None else ["--method", method]
    want = _cli_json(cli, "--seed", "6", "select", "--train", str(tmp_path / "train.csv"), "--population",
                     str(tmp_path / "target.csv"), "--learners", learners, "--truth", "y", *flags)
    kwargs = {} if method is None else {"method": method}
    got = rarity.select.select(learners, X_train, y_train, X_target, y_target=y_target, seed=6, **kwargs)
    assert got == want
    assert got["true_ranking"] is not None
    if method is None:
        assert got["method"] == rarity.select.DEFAULT_METHOD
    old = rarity.select.reverse_testing(learners, X_train, y_train, X_target, y_target=y_target, seed=6, **kwargs)
    assert old["order"] == want["ranking"]["order"] and old["spec"] == want["spec"]


def shops_csv(path, seed, rows, levels, risky_every, code=False):
    """A CSV whose positive rate lives in its text column ``shop`` (every
    ``risky_every``-th of ``levels`` shops is risky), with a numeric
    ``amount`` and, with ``code``, a numeric-looking column ``code``."""
    rng = np.random.default_rng(seed)
    shops = rng.integers(0, levels, size=rows)
    y = (rng.random(rows) < np.where(shops % risky_every == 0, 0.5, 0.03)).astype(int)
    head = "shop,amount,code,y" if code else "shop,amount,y"
    lines = [
        f"s{s:03d},{rng.random():.3f}" + (f",{s % 7}" if code else "") + f",{'p' if c else 'n'}"
        for s, c in zip(shops, y)
    ]
    path.write_text("\n".join([head, *lines]) + "\n")
    return path


def test_evaluate_and_run_read_a_files_categories_natively_as_the_command_line(cli, tmp_path):
    csv = shops_csv(tmp_path / "shops.csv", seed=5, rows=600, levels=80, risky_every=4, code=True)
    spec = "gbdt(rounds=5)"
    want = _cli_json(cli, "--seed", "7", "evaluate", str(csv), "-m", spec, "--cv", "3",
                     "--categorical", "native", "--categorical-cols", "code")
    got = rarity.evaluate(str(csv), model=spec, cv="3", seed=7, categorical="native",
                          categorical_cols=["code"]).to_dict()
    for k in ("fit_seconds", "predict_seconds"):
        want.pop(k), got.pop(k)
    assert got == want
    res = rarity.run(str(csv), models=[spec, "forest(n=5)"], cv="1x3", categorical="native")
    assert len(res.ranking) == 2
    # Eighty shops are too many to one-hot encode; the default stays an error.
    with pytest.raises(ValueError, match="--categorical native"):
        rarity.evaluate(str(csv), model=spec, cv="3", categorical="one-hot")
    with pytest.raises(ValueError, match="expected error, one-hot, native or target"):
        rarity.evaluate(str(csv), model=spec, categorical="target-ish")
    with pytest.raises(ValueError, match="expected error, one-hot, native or target"):
        rarity.evaluate((np.zeros((4, 1)), np.array([0, 1, 0, 1])), model=spec, categorical="nativ")


@pytest.mark.parametrize("mode, spec", [("native", "gbdt(rounds=5)"), ("target", "logistic")])
def test_evaluate_on_a_table_with_categories_matches_the_command_line_on_its_csv(cli, tmp_path, mode, spec):
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    pa = pytest.importorskip("pyarrow")
    csv = shops_csv(tmp_path / "shops.csv", seed=5, rows=600, levels=80, risky_every=4, code=True)
    want = _cli_json(cli, "--seed", "7", "evaluate", str(csv), "-m", spec, "--cv", "3",
                     "--categorical", mode, "--categorical-cols", "code")
    want.pop("fit_seconds"), want.pop("predict_seconds")
    text = pd.read_csv(csv)
    # Levels in the frame's own order (not sorted): the codes follow the texts' order.
    category = text.assign(shop=pd.Categorical(text["shop"], categories=sorted(set(text["shop"]), reverse=True)))
    tables = {
        "pandas text": text,
        "pandas category": category,
        "polars categorical": pl.from_pandas(text).with_columns(pl.col("shop").cast(pl.Categorical)),
        "pyarrow dictionary": pa.Table.from_pandas(category, preserve_index=False),
    }
    for name, table in tables.items():
        got = rarity.evaluate(table, target="y", model=spec, cv="3", seed=7, categorical=mode,
                              categorical_cols=["code"]).to_dict()
        got.pop("fit_seconds"), got.pop("predict_seconds")
        assert got.pop("data") == "<data>"
        assert got == {k: v for k, v in want.items() if k != "data"}, name
    res = rarity.run(category, target="y", models=[spec, "forest(n=5)"], cv="1x3", categorical=mode)
    # (and a priors copy of a calibrated model deciding at 0.5)
    assert {spec, "forest(n=5)"} <= set(res.ranking["strategy"])
    with pytest.raises(ValueError, match="cod"):
        rarity.evaluate(text, target="y", model=spec, categorical=mode, categorical_cols=["cod"])


@pytest.mark.parametrize(
    "extra, kwargs",
    [
        (["--cv", "2x3"], {"cv": "2x3"}),
        (["--cv", "3", "--pooled", "--metric", "precision_at_k(k=10)"],
         {"cv": "3", "pooled": True, "metrics": ["precision_at_k(k=10)"]}),
    ],
    ids=["folds", "pooled"],
)
def test_evaluate_equals_the_command_lines_json_text_and_oof(cli, tmp_path, extra, kwargs):
    pytest.importorskip("pandas")
    X, y = imbalanced(n=300, d=3, seed=21)
    csv = tmp_path / "d.csv"
    write_csv(csv, X, y)
    spec = "under+forest(n=5)+correct"
    oof = tmp_path / "oof.csv"
    args = ["--seed", "7", "evaluate", str(csv), "-m", spec, *extra, "--oof", str(oof)]
    want = _cli_json(cli, *args)
    got = rarity.evaluate(str(csv), model=spec, seed=7, oof=True, **kwargs)
    d = got.to_dict()
    for k in ("fit_seconds", "predict_seconds"):
        want.pop(k), d.pop(k)
    assert d == want and got.metrics == want["metrics"]
    assert "<table" in got._repr_html_() and "average_precision" in got._repr_html_()
    text = _cli_text(cli, *args).splitlines()
    mine = got.to_text().splitlines()
    assert [line for line in mine if not line.startswith("fit ")] == [line for line in text if not line.startswith("fit ")]
    assert mine[1].startswith("fit ")
    lines = oof.read_text().splitlines()
    assert list(got.oof.columns) == lines[0].split(",") and len(got.oof) == len(lines) - 1
    for (_, row), line in zip(got.oof.iterrows(), lines[1:]):
        cells = line.split(",")
        assert [int(c) for c in cells[:3]] == [row["row"], row["repeat"], row["fold"]]
        assert cells[3:5] == [row["strategy"], row["truth"]] and cells[-1] == row["label"]
        assert [float(c) for c in cells[5:-1]] == pytest.approx([row["p_0"], row["p_1"]], abs=1e-12)
    assert rarity.evaluate(str(csv), model=spec, cv="3").oof is None


@pytest.mark.parametrize(
    "flags, kwargs",
    [
        (["--beta", "0.2"], {"beta": 0.2}),
        (["--em", "--train-priors", "0.9,0.1"], {"em": True, "train_priors": [0.9, 0.1]}),
        (["--keep-rates", "0.25,1", "--to-priors", "0.99,0.01", "--train-priors", "0.9,0.1", "--threshold", "0.3"],
         {"keep_rates": [0.25, 1], "to_priors": [0.99, 0.01], "train_priors": [0.9, 0.1], "threshold": 0.3}),
    ],
    ids=["beta", "em", "keep-rates-to-priors"],
)
def test_recalibrate_equals_the_command_lines_json_and_file(cli, tmp_path, flags, kwargs):
    rng = np.random.default_rng(22)
    p = rng.beta(0.6, 2.0, size=200)
    scores = tmp_path / "scores.csv"
    scores.write_text("id,p_1\n" + "".join(f"r{i},{float(v)!r}\n" for i, v in enumerate(p)))
    out = tmp_path / "out.csv"
    want = _cli_json(cli, "calibrate", str(scores), "--proba", "p_1", *flags, "-o", str(out))
    got = rarity.calibration.recalibrate(p, **kwargs)
    proba, labels = got.pop("proba"), got.pop("labels")
    assert want.pop("output") == str(out) and got.pop("output") is None
    assert got == want
    lines = out.read_text().splitlines()
    assert lines[0].split(",") == ["p_0", "p_1", "label"]
    written = np.array([[float(c) for c in line.split(",")[:2]] for line in lines[1:]])
    np.testing.assert_allclose(written[:, 1], proba, rtol=0, atol=1e-12)
    assert [line.split(",")[2] for line in lines[1:]] == [str(v) for v in labels]


def test_recalibrate_names_pythons_parameters_in_its_errors():
    with pytest.raises(ValueError, match="^nothing to do: give beta or keep_rates"):
        rarity.calibration.recalibrate([0.2, 0.7])
    with pytest.raises(ValueError, match="give train_priors"):
        rarity.calibration.recalibrate([0.2, 0.7], em=True)
    with pytest.raises(ValueError, match="^threshold 2 is not in"):
        rarity.calibration.recalibrate([0.2, 0.7], beta=0.5, threshold=2.0)


# ---- HTML for notebooks


def test_results_and_fitted_estimators_render_as_html():
    X, y = imbalanced(n=200, d=3, seed=17)
    m = rarity.GradientBoosting(max_iter=5, class_weight="balanced").fit(X, y)
    e = rarity.explain(m, X, y, metric="roc_auc", n_repeats=1)
    h = e._repr_html_()
    assert h.count("<table") == 2 and "permutation importance" in h and "split-gain" in h
    assert "roc_auc on 200 held-out rows" in h
    for f in e.to_dict()["permutation"]:
        assert f"<td style=\"border:1px solid #ccc;padding:2px 6px;text-align:left\">{f['feature']}</td>" in h
    s = rarity.show(m)._repr_html_()
    assert "<table" in s and "gbdt(rounds=5,class_weight=balanced)" in s and "<script" not in s
    fitted = m._repr_html_()
    assert "feature_importances_" in fitted and "gbdt(rounds=5,class_weight=balanced)" in fitted
    assert "feature_importances_" in m._repr_mimebundle_()["text/html"]
    assert "feature_importances_" not in rarity.GradientBoosting()._repr_html_()
    r = rarity.run((X, y), models=["tree", "forest(n=5)", "pt-bagging(n=5)"], cv="1x2")
    h = r._repr_html_()
    assert "ranking by" in h and "verdict" in h and r.winner.spec in h


def test_a_run_shows_the_reports_figures_inline_in_a_notebook(tmp_path):
    import html
    import pathlib

    X, y = imbalanced(n=200, d=3, seed=18)
    r = rarity.run((X, y), models=["tree", "forest(n=5)", "pt-bagging(n=5)"], cv="1x3")
    page = r.report_html()
    # The same page `rarity run --report DIR` writes as index.html.
    assert pathlib.Path(r.report(tmp_path / "rep")).read_text() == page
    assert page.count("<svg") >= 3 and "<script" not in page and "<link" not in page
    assert ' src="http' not in page and "url(http" not in page
    h = r._repr_html_()
    # Inline and offline: the whole page in the frame's srcdoc, escaped.
    assert f'srcdoc="{html.escape(_html._FILES.sub("", page), quote=True)}"' in h
    assert "&lt;svg" in h and "<svg" not in h and " src=" not in h


def test_html_escapes_what_it_shows():
    from rarity import _html

    h = _html.table(["a<b"], [["<script>x</script>"]])
    assert "<script>" not in h and "&lt;script&gt;" in h


# ---- score and resample: the command line's JSON


@pytest.mark.parametrize(
    "flags, kwargs",
    [
        ([], {}),
        (["--threshold", "0.3", "--metric", "precision_at_k(k=10)", "--metric", "recall_at_precision(p=0.5)"],
         {"threshold": 0.3, "metrics": ["precision_at_k(k=10)", "recall_at_precision(p=0.5)"]}),
    ],
    ids=["defaults", "threshold-and-metrics"],
)
def test_score_equals_the_command_lines_json(cli, tmp_path, flags, kwargs):
    rng = np.random.default_rng(23)
    y = (rng.random(200) < 0.2).astype(int)
    p = np.clip(rng.beta(0.8, 2.0, size=200) + 0.3 * y, 0.0, 1.0)
    scores = tmp_path / "scores.csv"
    scores.write_text("label,p_1\n" + "".join(f"{t},{float(v)!r}\n" for t, v in zip(y, p)))
    want = _cli_json(cli, "score", str(scores), "--truth", "label", "--proba", "p_1", *flags)
    got = rarity.metrics.score(y, p, **kwargs)
    assert {k: (None if np.isnan(v) else v) for k, v in got.items()} == want
    for m in kwargs.get("metrics", []):
        assert m in got


def test_score_names_pythons_parameters_in_its_errors():
    with pytest.raises(ValueError, match="^metric: "):
        rarity.metrics.score([0, 1], [0.2, 0.7], metrics=["nope"])
    with pytest.raises(ValueError, match="metrics='roc_auc' is invalid"):
        rarity.metrics.score([0, 1], [0.2, 0.7], metrics="roc_auc")


@pytest.mark.parametrize(
    "flags, kwargs",
    [
        (["--method", "under", "--beta", "0.3"], {"method": "under", "beta": 0.3}),
        (["--method", "smote", "--k", "3", "--amount", "200", "--standardise"],
         {"method": "smote", "k": 3, "amount": 200.0, "standardise": True}),
        (["--method", "enn(k=3)"], {"method": "enn(k=3)"}),
    ],
    ids=["under", "smote", "enn"],
)
def test_resample_equals_the_command_lines_json_and_file(cli, tmp_path, flags, kwargs):
    X, y = imbalanced(n=300, d=3, seed=24)
    csv = tmp_path / "train.csv"
    write_csv(csv, X, y)
    out = tmp_path / "out.csv"
    want = _cli_json(cli, "--seed", "4", "resample", str(csv), *flags, "-o", str(out))
    got = rarity.resample(str(csv), seed=4, **kwargs)
    d = got.to_dict()
    assert want.pop("output") == str(out) and d.pop("output") is None
    assert d == want
    assert got.after == want["after"] and len(got.y) == sum(want["after"]) == got.X.shape[0]
    lines = out.read_text().splitlines()
    written = sorted(tuple(float(c) for c in line.split(",")[:-1]) + (line.split(",")[-1],) for line in lines[1:])
    drawn = sorted(tuple(float(v) for v in row) + (str(label),) for row, label in zip(got.X, got.y))
    assert written == drawn
    same = rarity.resample((X, y), seed=4, **kwargs)
    assert same.to_dict() == got.to_dict() and sorted(same.y.tolist()) == sorted(int(v) for v in got.y)
    h = got._repr_html_()
    assert "keep rate" in h and got.method in h and "<script" not in h


def test_resample_names_pythons_parameters_in_its_errors():
    X, y = imbalanced(n=100, seed=25)
    with pytest.raises(ValueError, match=r"^beta and beta in method 'under\(beta=0.2\)' both given"):
        rarity.resample((X, y), "under(beta=0.2)", beta=0.3)
    with pytest.raises(ValueError, match="^method 'under\\+smote': one sampler is expected"):
        rarity.resample((X, y), "under+smote")
    with pytest.raises(ValueError, match="method=3 is invalid"):
        rarity.resample((X, y), 3)


def test_select_shows_its_ranking_and_verdict_as_html():
    X, y = imbalanced(n=300, d=3, seed=26)
    learners = ["tree(max_depth=2)", "gnb"]
    r = rarity.select.select(learners, X[:200], y[:200], X[200:], method="iwcv(ratio=ulsif)")
    assert isinstance(r, dict)
    h = r._repr_html_()
    best = r["ranking"]["learners"][r["ranking"]["order"][0]]
    assert f"selected: {best} (iwcv(ratio=ulsif)" in h and "ranking, best first" in h
    assert "estimated score" in h and "what it did: " in h and "bias detected: " in h
    assert h.count("<tr>") == 1 + len(learners) and "<script" not in h
    rt = rarity.select.reverse_testing(learners, X[:200], y[:200], X[200:], method="reverse-testing")
    assert "wins - losses" in rt._repr_html_() and "estimated score" not in rt._repr_html_()


# ---- the papers' experiments: the command line's JSON, text, report and pairs


def _two_datasets(tmp_path):
    """A directory of two bundled datasets' CSV files, as ``--data-dir`` takes it."""
    d = tmp_path / "data"
    d.mkdir()
    for name in ("glass6", "ecoli4"):
        (d / f"{name}.csv").write_bytes((REPO / "data" / f"{name}.csv").read_bytes())
    return d


def _without_seconds(d):
    d = dict(d)
    assert isinstance(d.pop("seconds"), float)
    return d


def test_calibration_experiment_equals_the_command_lines_json(cli, tmp_path):
    d = _two_datasets(tmp_path)
    want = _cli_json(cli, "--seed", "5", "experiment", "calibration", "--data-dir", str(d), "--learners",
                     "tree(max_depth=3),gnb", "--levels", "1,0.5", "--cv", "1x2")
    got = rarity.experiments.calibration(data_dirs=d, learners=["tree(max_depth=3)", "gnb"], levels=[1, 0.5],
                                         cv="1x2", seed=5)
    assert _without_seconds(got.to_dict()) == _without_seconds(want)
    assert got.levels == [1.0, 0.5] and got.table_v == want["table_v"] and got.cv == "1x2"
    # The bundled datasets by name are the same rows as their files.
    named = rarity.experiments.calibration(["ecoli4", "glass6"], learners="tree(max_depth=3),gnb", levels="1,0.5",
                                           cv="1x2", seed=5)
    assert _without_seconds(named.to_dict()) == _without_seconds(want)
    assert repr(got).startswith("CalibrationResult(cv='1x2', levels=[1.0, 0.5], cells=")


def test_pt_bagging_experiment_equals_the_command_lines_json(cli, tmp_path):
    d = _two_datasets(tmp_path)
    want = _cli_json(cli, "--seed", "3", "experiment", "pt-bagging", "--data-dir", str(d), "--sizes", "3,5",
                     "--cv", "1x2", "--max-rows", "300")
    got = rarity.experiments.pt_bagging(data_dirs=[str(d)], sizes=[3, 5], cv="1x2", max_rows=300, seed=3)
    assert _without_seconds(got.to_dict()) == _without_seconds(want)
    assert want["skipped"] == ["ecoli4: 336 rows > --max-rows 300"] == got.skipped
    assert [r["name"] for r in got.datasets] == ["glass6"] and got.sizes == [3, 5]
    text = _cli_text(cli, "--seed", "3", "experiment", "pt-bagging", "--data-dir", str(d), "--sizes", "3,5",
                     "--cv", "1x2", "--max-rows", "300").splitlines()
    assert got.to_text().splitlines()[1:] == text[1:]


def test_reverse_testing_experiment_equals_the_command_lines_json_text_report_and_pairs(cli, tmp_path):
    d = _two_datasets(tmp_path)
    args = ["--seed", "8", "experiment", "reverse-testing", "--data-dir", str(d), "--learners", "tree,gnb",
            "--splits", "2", "--variant", "paper", "--variant", "default,decide=sum", "--method", "iwcv",
            "--bias", "class", "--pairs", str(tmp_path / "pairs.csv")]
    want = _cli_json(cli, *args, "--report", str(tmp_path / "cli-report"))
    got = rarity.experiments.reverse_testing(data_dirs=d, learners="tree,gnb", splits=2,
                                             variants=["paper", "default,decide=sum"], methods="iwcv",
                                             bias="class", seed=8)
    assert got.to_dict() == want
    assert got.methods == want["methods"] and got.splits == 2 and got.datasets == 2
    assert len(got.methods) == 5 and got.methods[2]["method"] == "iwcv" and got.methods[1]["variant"] is not None
    assert got.to_text() == _cli_text(cli, *args[:-2])
    assert got.report_html() == (tmp_path / "cli-report" / "index.html").read_text()
    index = got.report(tmp_path / "py-report")
    assert pathlib.Path(index).read_text() == got.report_html()
    assert sorted(p.name for p in (tmp_path / "py-report" / "tables").iterdir()) == sorted(
        p.name for p in (tmp_path / "cli-report" / "tables").iterdir())
    got.write_pairs(tmp_path / "py-pairs.csv")
    assert (tmp_path / "py-pairs.csv").read_text() == (tmp_path / "pairs.csv").read_text()
    with pytest.raises(ValueError):
        got.report(tmp_path / "py-report" / "index.html")


def test_experiments_take_the_command_lines_defaults(cli):
    import inspect
    import re

    for name, fn in [("calibration", rarity.experiments.calibration), ("pt-bagging", rarity.experiments.pt_bagging),
                     ("reverse-testing", rarity.experiments.reverse_testing)]:
        helptext = _cli_text(cli, "experiment", name, "--help")
        # Each option's block: its flag, then its lines up to the next option.
        blocks = re.split(r"\n\s+(?=--[a-z])", helptext)
        defaults = {}
        for b in blocks:
            m = re.match(r"--([a-z-]+)", b)
            d = re.search(r"\[default: ([^\]]*)\]", b)
            if m:
                defaults[m.group(1)] = d.group(1) if d else None
        params = inspect.signature(fn).parameters
        for py, p in params.items():
            if py in ("datasets", "n_jobs"):
                continue
            flag = {"variants": "variant", "methods": "method", "data_dirs": "data-dir"}.get(py, py.replace("_", "-"))
            assert flag in defaults, (name, flag)
            mine = p.default
            mine = " ".join(mine) or None if isinstance(mine, tuple) else mine if mine is None else str(mine)
            assert mine == defaults[flag], (name, flag, mine, defaults[flag])


def test_experiments_show_their_tables_and_the_reports_figures_as_html():
    import html

    r = rarity.experiments.pt_bagging(["glass6", "ecoli4"], sizes="3,5", cv="1x2")
    h = r._repr_html_()
    page = r.report_html()
    assert page.count("<svg") >= 2
    assert f'srcdoc="{html.escape(_html._FILES.sub("", page), quote=True)}"' in h and "<svg" not in h and "<script" not in h
    assert h.count("<table") == 2 and all(m in h for m in r.binary_methods)
    c = rarity.experiments.calibration("glass6", learners="tree", levels="1,0.5", cv="1x2")
    h = c._repr_html_()
    assert "Table V" in h and "Brier(p&#x27;) &lt; Brier(p_s)" in h and "&lt;svg" in h
    assert h.count("<tr>") == 1 + len(c.table_v) + 1 + len(c.brier_corrected_below_undersampled)
    t = rarity.experiments.reverse_testing("glass6", learners="tree,gnb", splits=1)
    h = t._repr_html_()
    assert all(f">{m['method']}</td>" in h for m in t.methods) and "% correct" in h


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: rarity.experiments.calibration("glass6", levels="1,x"), "^levels: 'x' is not a number"),
        (lambda: rarity.experiments.calibration("glass6", levels=[1, "x"]), "^levels=.* is invalid"),
        (lambda: rarity.experiments.calibration("glass6", learners="nope"), "nope"),
        (lambda: rarity.experiments.calibration("glass6", cv=5.5), "^cv=5.5 is invalid"),
        (lambda: rarity.experiments.pt_bagging("glass6", sizes="5,x"), "^sizes: 'x' is not a whole number"),
        (lambda: rarity.experiments.pt_bagging(["nope"]), "^datasets: no bundled dataset 'nope'"),
        (lambda: rarity.experiments.pt_bagging(["glass6", "glass6"]), "^datasets: 'glass6' is given twice"),
        (lambda: rarity.experiments.pt_bagging(data_dirs=3), "^data_dirs=3 is invalid"),
        (lambda: rarity.experiments.pt_bagging("glass6", max_rows=-1), "^max_rows=-1 is invalid"),
        (lambda: rarity.experiments.reverse_testing("glass6", bias="age"), "^bias 'age' is not a bias"),
        (lambda: rarity.experiments.reverse_testing("glass6", splits=0), "^splits=0 is invalid"),
        (lambda: rarity.experiments.reverse_testing("glass6", variants=[3]), "^variants=\\[3\\] is invalid"),
        (lambda: rarity.experiments.reverse_testing("glass6", methods="nope"), "nope"),
        (lambda: rarity.experiments.reverse_testing("glass6", metric="nope"), "^metric: unknown metric 'nope'"),
    ],
)
def test_experiments_refuse_bad_arguments_with_value_errors_naming_them(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_only_the_reverse_testing_experiment_writes_pairs(tmp_path):
    r = rarity.experiments.calibration("glass6", learners="tree", levels="1", cv="1x2")
    with pytest.raises(ValueError, match="^pairs: only the reverse-testing experiment"):
        r._native.write_pairs(str(tmp_path / "p.csv"))
    assert not (tmp_path / "p.csv").exists()


def test_experiments_give_the_same_result_at_one_and_two_threads():
    one = rarity.experiments.reverse_testing(["glass6", "ecoli4"], learners="tree,gnb", splits=2, n_jobs=1)
    two = rarity.experiments.reverse_testing(["glass6", "ecoli4"], learners="tree,gnb", splits=2, n_jobs=2)
    assert one.to_dict() == two.to_dict()
    one = rarity.experiments.pt_bagging(["glass6", "ecoli4"], sizes=[3, 5], cv="1x2", n_jobs=1)
    two = rarity.experiments.pt_bagging(["glass6", "ecoli4"], sizes=[3, 5], cv="1x2", n_jobs=2)
    assert _without_seconds(one.to_dict()) == _without_seconds(two.to_dict())
