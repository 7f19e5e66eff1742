"""Categorical features from Python tables: pandas ``category``, polars
``Categorical`` / ``Enum`` and Arrow dictionary columns, or any column named
by ``categorical_features=``, become one feature of level codes each, as
``rarity fit --categorical native`` reads a file's; predictions map values to
the fitted levels by text (an unseen level is NaN)."""

from __future__ import annotations

import csv
import json
import pickle
import subprocess

import numpy as np
import pytest

import rarity

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")

SPEC = "gbdt(rounds=20)"


def shops(n=600, levels=40, seed=0):
    """Rows whose positive rate depends on the shop (a few risky shops among
    many clean ones) and a little on ``amount``."""
    rng = np.random.default_rng(seed)
    names = [f"s{i:02d}" for i in range(levels)]
    risk = np.where(rng.random(levels) < 0.2, 0.6, 0.03)
    shop = rng.integers(0, levels, size=n)
    y = (rng.random(n) < risk[shop]).astype(int)
    amount = rng.normal(size=n) + 0.3 * y
    return pd.DataFrame({"amount": amount, "shop": [names[s] for s in shop]}), y


def frame(X, cats=None, ordered=False):
    """``X`` with ``shop`` as a pandas category (categories ``cats`` if given)."""
    X = X.copy()
    X["shop"] = pd.Categorical(X["shop"], categories=cats, ordered=ordered)
    return X


def fitted(X, y, cf="from_dtype", spec=SPEC, **kw):
    return rarity.Classifier(spec, seed=3, categorical_features=cf, **kw).fit(X, y)


def test_a_pandas_category_is_one_feature_of_level_codes():
    X, y = shops()
    m = fitted(frame(X), y)
    assert m.model_.feature_names == ["amount", "shop"]
    assert m.n_features_in_ == 2
    assert list(m.feature_names_in_) == ["amount", "shop"]
    assert "shop" in json.dumps(rarity.show(m), default=str)
    # 40 levels: one-hot (the default) would have one feature per level.
    one_hot = rarity.Classifier(SPEC, seed=3).fit(frame(X), y)
    assert len(one_hot.model_.feature_names) == 41


def test_polars_and_arrow_tables_give_the_pandas_model():
    X, y = shops()
    want = fitted(frame(X), y).predict_proba(frame(X))
    tables = [
        pl.from_pandas(X).with_columns(pl.col("shop").cast(pl.Categorical)),
        pa.table({"amount": X["amount"], "shop": pa.array(X["shop"]).dictionary_encode()}),
        pa.record_batch({"amount": X["amount"], "shop": pa.array(X["shop"]).dictionary_encode()}),
    ]
    for t in tables:
        m = fitted(t, y)
        assert m.model_.feature_names == ["amount", "shop"], type(t)
        np.testing.assert_array_equal(m.predict_proba(t), want)
        np.testing.assert_array_equal(m.predict_proba(X), want)


def test_declared_orders_are_kept_and_mapped_by_text():
    X, y = shops()
    levels = sorted(set(X["shop"]))
    backwards = levels[::-1]
    enum = pl.from_pandas(X).with_columns(pl.col("shop").cast(pl.Enum(backwards)))
    m_enum = fitted(enum, y)
    m_ordered = fitted(frame(X, backwards, ordered=True), y)
    m_sorted = fitted(frame(X), y)
    assert _levels(m_enum) == _levels(m_ordered) == backwards
    assert _levels(m_sorted) == levels
    np.testing.assert_array_equal(m_enum.predict_proba(X), m_ordered.predict_proba(X))
    # Each model maps any frame by level text.
    for m in (m_enum, m_ordered):
        np.testing.assert_array_equal(m.predict_proba(X), m.predict_proba(frame(X)))


def _levels(model, name="shop"):
    """The fitted levels of categorical column ``name``, in code order."""
    return model.model_.categories[name]


def test_predicting_maps_levels_by_text_whatever_the_frames_codes():
    X, y = shops()
    m = fitted(frame(X), y)
    want = m.predict_proba(X)
    levels = sorted(set(X["shop"]))
    other = levels[::-1] + ["new1", "new2"]
    for Xp in (
        frame(X, other),
        frame(X, other, ordered=True),
        pl.from_pandas(X).with_columns(pl.col("shop").cast(pl.Enum(other))),
        pa.table({"amount": X["amount"], "shop": _dictionary(X["shop"], other)}),
    ):
        np.testing.assert_array_equal(m.predict_proba(Xp), want)
    # The rows in another order (so the frame's own codes differ too).
    perm = np.random.default_rng(1).permutation(len(X))
    Xr = frame(X.iloc[perm].reset_index(drop=True), other)
    np.testing.assert_array_equal(m.predict_proba(Xr), want[perm])


def _dictionary(values, dictionary):
    """An Arrow dictionary array of ``values`` over ``dictionary``, in its order."""
    codes = pa.array([dictionary.index(v) for v in values], pa.int32())
    return pa.DictionaryArray.from_arrays(codes, pa.array(dictionary))


def test_an_unseen_level_follows_unknown_and_a_missing_one_the_model():
    X, y = shops()
    m = fitted(frame(X), y)
    Xp = X.head(5).copy()
    unseen = Xp.assign(shop=["never seen"] * 5)
    # As rarity predict --unknown error (issue 51 item 13).
    with pytest.raises(ValueError, match=r"'never seen' \(5 rows\).*unknown='ignore'"):
        m.predict_proba(unseen)
    m.unknown = "ignore"
    p_unseen = m.predict_proba(unseen)
    # Not the probability of a real level: a NaN goes right at every split.
    assert not np.array_equal(p_unseen, m.predict_proba(Xp))
    m.predict(unseen)  # no error
    # A missing level: a native split sends it with the levels outside
    # its set, as the command line scores it (issue 52).
    missing = Xp.assign(shop=pd.Categorical([None] * 5, categories=["s00"]))
    assert np.isfinite(m.predict_proba(missing)).all()


def test_categorical_features_by_names_indices_mask_and_dtype_agree():
    X, y = shops()
    Xc = frame(X)
    want = fitted(Xc, y).predict_proba(Xc)
    for cf in (["shop"], [1], np.array([1]), [False, True], np.array([False, True])):
        np.testing.assert_array_equal(fitted(X, y, cf).predict_proba(X), want, err_msg=str(cf))
    # The column as plain text, declared by name, is the same model too.
    np.testing.assert_array_equal(fitted(X, y, ["shop"]).predict_proba(Xc), want)
    # No categorical dtype: "from_dtype" declares nothing (shop is one-hot).
    assert len(fitted(X, y).model_.feature_names) == 41


@pytest.mark.parametrize(
    "cf, match",
    [
        ("auto", "categorical_features='auto' is invalid"),
        (["nope"], "columns not in X"),
        ([5], "out of range"),
        ([True], "mask of 1 values, but X has 2 columns"),
        ([[0, 1]], "1-dimensional"),
    ],
)
def test_bad_categorical_features_are_value_errors(cf, match):
    X, y = shops(n=60)
    with pytest.raises(ValueError, match=match):
        fitted(X, y, cf)


def test_a_numeric_column_declared_categorical():
    rng = np.random.default_rng(4)
    code = rng.integers(0, 30, size=500)
    y = ((code % 7 == 3) ^ (rng.random(500) < 0.05)).astype(int)
    X = pd.DataFrame({"a": rng.normal(size=500), "code": code})
    m = fitted(X, y, ["code"])
    assert m.model_.feature_names == ["a", "code"]
    # Levels are the numbers' texts, sorted as text (as the readers sort a
    # column read with --categorical-cols): the same model as the texts.
    texts = X.assign(code=X["code"].astype(str))
    np.testing.assert_array_equal(fitted(texts, y, ["code"]).predict_proba(X), m.predict_proba(X))
    assert _levels(m, "code")[:3] == ["0", "1", "10"]
    # A NumPy matrix by index: values are levels too; an unseen value is NaN.
    A = X.to_numpy(dtype=float)
    mn = fitted(A, y, [1])
    np.testing.assert_array_equal(mn.predict_proba(A), m.predict_proba(X))
    unseen = A[:3].copy()
    unseen[:, 1] = 99.0
    with pytest.raises(ValueError, match=r"'99' \(3 rows\)"):
        mn.predict_proba(unseen)
    mn.unknown = "ignore"
    assert mn.predict_proba(unseen).shape == (3, 2)
    # A pandas category of numbers, from its dtype.
    cat = X.assign(code=X["code"].astype("category"))
    np.testing.assert_array_equal(fitted(cat, y).predict_proba(X), m.predict_proba(X))


def test_a_learner_without_native_splits_is_a_value_error():
    X, y = shops(n=100)
    with pytest.raises(ValueError, match=r"learner logistic.* does not split categorical features.*'shop'.*categorical_features=None"):
        fitted(frame(X), y, spec="logistic")
    with pytest.raises(ValueError, match="does not split categorical features"):
        fitted(X, y, ["shop"], spec="under+knn")


def test_too_many_levels_to_one_hot_encode_names_categorical_features():
    X, y = shops()
    with pytest.raises(ValueError, match=r"column 'shop' has more than 50 .*Classifier\(categorical_features"):
        rarity.Classifier(SPEC).fit(X.assign(shop=[f"{s}-{i % 2}" for i, s in enumerate(X["shop"])]), y)


def test_a_row_missing_its_level_in_training_is_dropped_with_a_warning():
    X, y = shops(n=50)
    X.loc[3, "shop"] = None
    # missing='drop': the learner would take it (missing='auto' keeps it).
    with pytest.warns(UserWarning, match="dropped 1 of 50 rows with a missing value"):
        m = fitted(frame(X), y, missing="drop")
    kept = fitted(frame(X.drop(index=3)), np.delete(y, 3))
    rest = X.drop(index=3)
    np.testing.assert_array_equal(m.predict_proba(rest), kept.predict_proba(rest))


@pytest.mark.parametrize("spec", ["gbdt(rounds=15)", "under(beta=0.3)+forest(n=8)+correct", "tree"])
def test_same_seed_same_model_at_one_and_two_threads(spec):
    X, y = shops()
    p1 = fitted(frame(X), y, spec=spec, n_jobs=1).predict_proba(X)
    p2 = fitted(frame(X), y, spec=spec, n_jobs=2).predict_proba(X)
    p2b = fitted(frame(X), y, spec=spec, n_jobs=2).predict_proba(X)
    np.testing.assert_array_equal(p1, p2)
    np.testing.assert_array_equal(p2, p2b)


def test_named_classes_gradient_boosting_and_corrected_classifier():
    X, y = shops()
    Xc = frame(X)
    gb = rarity.GradientBoosting(max_iter=20, seed=3, categorical_features="from_dtype").fit(Xc, y)
    np.testing.assert_array_equal(gb.predict_proba(X), fitted(Xc, y).predict_proba(X))
    assert gb.get_params()["categorical_features"] == "from_dtype"
    assert gb.is_categorical_.tolist() == [False, True] and gb.feature_importances_.shape == (2,)
    assert fitted(X, y, None).is_categorical_ is None
    from sklearn.model_selection import cross_val_score

    # scikit-learn's cross-validation slices the frame; each fold refits the levels.
    auc = cross_val_score(gb, Xc, y, cv=3, scoring="roc_auc")
    assert auc.shape == (3,) and np.all(auc > 0.5)
    bag = rarity.RBBagging(n=5, categorical_features=["shop"]).fit(X, y)
    assert bag.model_.feature_names == ["amount", "shop"]
    cc = rarity.CorrectedClassifier(
        rarity.Classifier("forest(n=5)", categorical_features="from_dtype"),
        sampler="under(beta=0.3)",
        categorical_features="from_dtype",
    ).fit(Xc, y)
    assert cc.estimator_.model_.feature_names == ["amount", "shop"]
    assert cc.predict_proba(X).shape == (len(X), 2)
    default = rarity.CorrectedClassifier(sampler="under(beta=0.3)", categorical_features=["shop"]).fit(X, y)
    assert default.estimator_.model_.feature_names == ["amount", "shop"]


def test_pickle_clone_and_onnx(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    from sklearn.base import clone

    X, y = shops()
    Xc = frame(X)
    m = fitted(Xc, y, spec="under(beta=0.3)+gbdt(rounds=15)+correct+threshold(priors)")
    p = m.predict_proba(X)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(m)).predict_proba(X), p)
    c = clone(m)
    assert c.categorical_features == "from_dtype" and not hasattr(c, "model_")
    np.testing.assert_array_equal(c.fit(Xc, y).predict_proba(X), p)
    path = tmp_path / "m.onnx"
    m.to_onnx(path)
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    assert [i.name for i in sess.get_inputs()] == ["X", "shop"]
    shop = list(X["shop"][:-1]) + ["never seen"]
    feeds = {"X": X[["amount"]].to_numpy(dtype=np.float64), "shop": np.array([[s] for s in shop], dtype=object)}
    proba, label = sess.run(["probabilities", "label"], feeds)
    Xu = X.assign(shop=shop)
    m.unknown = "ignore"  # the graph reads an unseen level as no split's
    assert np.max(np.abs(proba - m.predict_proba(Xu))) <= 1e-12
    assert [str(v) for v in m.predict(Xu)] == list(label)


def test_a_model_saved_from_python_predicts_the_same_in_the_cli(cli, tmp_path):
    X, y = shops()
    Xt = X.head(400).assign(y=y[:400])
    held = X.iloc[400:].reset_index(drop=True)
    held.loc[0, "shop"] = "never seen"
    train_csv, test_csv = tmp_path / "train.csv", tmp_path / "test.csv"
    Xt.to_csv(train_csv, index=False, float_format="%.17g")
    held.to_csv(test_csv, index=False, float_format="%.17g")
    train = pd.read_csv(train_csv)
    m = rarity.Classifier(SPEC, seed=5, categorical_features="from_dtype").fit(
        frame(train.drop(columns="y")), train["y"]
    )
    model = tmp_path / "py.rarity"
    m.save(model)
    out = tmp_path / "p.csv"
    subprocess.run(
        [cli, "--quiet", "predict", str(model), str(test_csv), "-o", str(out), "--unknown", "ignore"],
        check=True,
        capture_output=True,
    )
    rows = list(csv.reader(open(out)))
    got = np.array([[float(v) for v in r[:2]] for r in rows[1:]])
    m.unknown = "ignore"
    want = m.predict_proba(pd.read_csv(test_csv))
    np.testing.assert_array_equal(got, want)
    # And the command line's own fit of the file is the same model.
    cli_model = tmp_path / "cli.rarity"
    subprocess.run(
        [cli, "--quiet", "--seed", "5", "fit", str(train_csv), "--target", "y", "--categorical", "native",
         "--model", SPEC, "-o", str(cli_model)],
        check=True,
        capture_output=True,
    )
    assert rarity._rarity.Model.from_bytes(cli_model.read_bytes()).categories == m.model_.categories
    out2 = tmp_path / "p2.csv"
    subprocess.run(
        [cli, "--quiet", "predict", str(cli_model), str(test_csv), "-o", str(out2), "--unknown", "ignore"],
        check=True,
        capture_output=True,
    )
    assert out2.read_text() == out.read_text()


def _auc(y, s):
    order = np.argsort(s, kind="stable")
    ranks = np.empty(len(s))
    ranks[order] = np.arange(1, len(s) + 1)
    pos = y == 1
    return (ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / (pos.sum() * (~pos).sum())


def test_gbdt_uses_the_signal_a_category_carries():
    X, y = shops(n=4000, levels=300, seed=7)
    train, test = slice(0, 3000), slice(3000, None)
    Xc = frame(X)
    with_shop = rarity.GradientBoosting(max_iter=50, categorical_features="from_dtype").fit(Xc[train], y[train])
    without = rarity.GradientBoosting(max_iter=50).fit(X[["amount"]][train], y[train])
    auc_with = _auc(y[test], with_shop.predict_proba(Xc[test])[:, 1])
    auc_without = _auc(y[test], without.predict_proba(X[["amount"]][test])[:, 1])
    assert auc_with > auc_without + 0.1, (auc_with, auc_without)


def test_a_learner_without_native_splits_takes_categories_through_target_statistics():
    X, y = shops(n=4000, levels=300, seed=7)
    train, test = slice(0, 3000), slice(3000, None)
    Xc = frame(X)
    encoded = fitted(Xc[train], y[train], spec="encode(target)+logistic")
    without = rarity.Classifier("logistic", seed=3).fit(X[["amount"]][train], y[train])
    auc_with = _auc(y[test], encoded.predict_proba(Xc[test])[:, 1])
    auc_without = _auc(y[test], without.predict_proba(X[["amount"]][test])[:, 1])
    assert auc_with > auc_without + 0.1, (auc_with, auc_without)
    again = pickle.loads(pickle.dumps(encoded))
    np.testing.assert_array_equal(again.predict_proba(Xc[test]), encoded.predict_proba(Xc[test]))
