"""Samplers on tables with categorical columns (issue 41): SMOTE-NC's
semantics (Chawla et al. 2002, section 6.1) from the sampler classes,
``CorrectedClassifier`` and ``rarity.resample``: synthetic rows' categorical
values are real levels in the input's dtype, the same at one and two
threads; imbalanced-learn's ``SMOTENC`` agrees where the two definitions do."""

from __future__ import annotations

import numpy as np
import pytest

import rarity
from rarity import sampling

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")


def shops(n=400, seed=0):
    """``amount`` (numeric), ``shop`` (text: positives at a few shops) and
    ``mcc`` (numeric-looking codes)."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.1).astype(int)
    shop = np.where(y == 1, rng.choice(["s03", "s09", "s11"], n), rng.choice([f"s{i:02d}" for i in range(20)], n))
    mcc = rng.choice([5411, 5812, 7995], n)
    amount = rng.normal(size=n) + y
    return pd.DataFrame({"amount": amount, "shop": shop, "mcc": mcc}), y


def kinds(X):
    """The frame as pandas ``category``, polars ``Categorical`` and an Arrow
    dictionary column."""
    Xc = X.assign(shop=X["shop"].astype("category"))
    yield "pandas", Xc
    yield "polars", pl.from_pandas(X).with_columns(pl.col("shop").cast(pl.Categorical))
    yield "arrow", pa.Table.from_pandas(Xc, preserve_index=False)


def column(X, name):
    if hasattr(X, "to_pandas") and not isinstance(X, pd.DataFrame):
        return X.to_pandas()[name]
    return X[name]


@pytest.mark.parametrize("cls", [sampling.SMOTE, sampling.BorderlineSMOTE, sampling.ADASYN, sampling.SMOTEENN])
def test_synthetic_rows_take_real_levels_in_the_inputs_dtype(cls):
    X, y = shops()
    for kind, Xk in kinds(X):
        s = cls(random_state=0, categorical_features=["shop", "mcc"])
        Xr, yr = s.fit_resample(Xk, y)
        assert type(Xr) is type(Xk), kind
        shop, mcc = column(Xr, "shop"), column(Xr, "mcc")
        assert set(mcc) <= {5411, 5812, 7995}, kind
        assert set(shop[np.asarray(yr) == 1]) <= {"s03", "s09", "s11"}, kind
        if kind == "pandas":
            assert isinstance(Xr["shop"].dtype, pd.CategoricalDtype)
        if kind == "polars":
            assert Xr.schema["shop"] == Xk.schema["shop"]
        if kind == "arrow":
            assert Xr.schema.field("shop").type == Xk.schema.field("shop").type
        assert len(Xr) == len(yr)
    # A NumPy array with declared columns keeps its codes as numbers.
    A = np.column_stack([X["amount"], X["mcc"]])
    Ar, _ = cls(random_state=0, categorical_features=[1]).fit_resample(A, y)
    assert set(Ar[:, 1]) <= {5411, 5812, 7995}


def test_declared_codes_are_never_interpolated_and_undeclared_ones_are():
    X, y = shops()
    # Neighbours by amount (spread wide), codes 0-2 independent of it.
    A = np.column_stack([100 * X["amount"], np.arange(len(y)) % 3])
    plain, _ = sampling.SMOTE(random_state=0).fit_resample(A, y)
    assert np.any(plain[len(y):, 1] % 1 != 0)
    nc, _ = sampling.SMOTE(random_state=0, categorical_features=[1]).fit_resample(A, y)
    assert set(nc[len(y):, 1]) <= {0, 1, 2}
    np.testing.assert_array_equal(nc[:len(y)], A)


def test_same_rows_at_one_and_two_threads():
    X, y = shops(600)
    Xc = X.assign(shop=X["shop"].astype("category"))
    for spec in ["smote(k=5)", "adasyn", "enn", "tomek", "nearmiss1"]:
        runs = [
            sampling.Sampler(spec, seed=3, n_jobs=t, categorical_features="from_dtype").fit_resample(Xc, y)
            for t in (1, 2)
        ]
        pd.testing.assert_frame_equal(runs[0][0], runs[1][0])
        np.testing.assert_array_equal(runs[0][1], runs[1][1])


def test_corrected_classifier_with_smote_on_categories():
    X, y = shops()
    Xc = X.assign(shop=X["shop"].astype("category"))
    cc = rarity.CorrectedClassifier(sampler="smote(k=3)", categorical_features="from_dtype", seed=1).fit(Xc, y)
    assert cc.estimator_.model_.feature_names == ["amount", "shop", "mcc"]
    assert cc.keep_rates_[1] > 1
    p = cc.predict_proba(Xc)
    assert p.shape == (len(y), 2) and np.all(np.isfinite(p))
    again = rarity.CorrectedClassifier(sampler=sampling.SMOTE(k_neighbors=3, categorical_features="from_dtype"),
                                       categorical_features="from_dtype", seed=1).fit(Xc, y)
    assert again.predict_proba(Xc).shape == p.shape


def test_resample_returns_a_table_with_the_inputs_levels():
    X, y = shops()
    table = X.assign(y=y)
    r = rarity.resample(table, "smote", target="y", categorical="native", categorical_cols=["mcc"])
    assert isinstance(r.X, pd.DataFrame) and list(r.X.columns) == ["amount", "shop", "mcc"]
    assert set(r.X["mcc"]) <= {5411, 5812, 7995}
    assert set(r.X["shop"][np.asarray(r.y) == 1]) <= {"s03", "s09", "s11"}
    assert r.synthetic_rows > 0 and len(r.X) == sum(r.after)
    # Keeping every row gives the input back.
    keep = rarity.resample(table, "under", target="y", beta=1, categorical="native", categorical_cols=["mcc"])
    pd.testing.assert_frame_equal(keep.X, X)


def test_the_vote_and_distance_agree_with_imblearn_smotenc_where_they_coincide():
    """imbalanced-learn's SMOTENC one-hot encodes each categorical column at
    ``Med / sqrt(2)``, so a differing level adds ``Med^2`` to the squared
    distance, as here; its vote is over the ``k`` neighbours without the
    seed, ties at random. On a table where every minority row's neighbours
    share one level, both give that level to every synthetic row."""
    SMOTENC = pytest.importorskip("imblearn.over_sampling").SMOTENC
    rng = np.random.default_rng(1)
    n = 300
    y = (np.arange(n) % 10 == 0).astype(int)
    amount = rng.normal(size=n) + 3 * y
    shop = np.where(y == 1, "risky", rng.choice(["a", "b", "c"], n))
    shop[np.flatnonzero(y == 1)[:2]] = "a"  # two positives outvoted
    X = pd.DataFrame({"amount": amount, "shop": pd.Categorical(shop)})
    ours, yo = sampling.SMOTE(k_neighbors=5, random_state=0, categorical_features=["shop"]).fit_resample(X, y)
    theirs, yt = SMOTENC(categorical_features=[1], k_neighbors=5, random_state=0).fit_resample(X, y)
    assert set(ours["shop"][len(y):]) == set(theirs["shop"][len(y):]) == {"risky"}
    assert np.bincount(yo).tolist() == np.bincount(yt).tolist()
