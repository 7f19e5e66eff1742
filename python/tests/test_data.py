"""Data in: NumPy read in place, tables through Arrow, text columns encoded as
the command line encodes them, and every bad input a ValueError with the
library's message."""

from __future__ import annotations

import numpy as np
import pytest

import rarity
from rarity import _rarity

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")


def test_float64_arrays_are_read_in_place():
    X = np.arange(12.0).reshape(4, 3)
    f = _rarity.Features.from_numpy(X)
    assert f.n_rows_ == 4 and f.column_names == ["x0", "x1", "x2"]
    # The array is kept alive by the features, not copied: changes show.
    d = _rarity.Data(f, np.array([0, 0, 1, 1], dtype=np.uint32), ["a", "b"])
    X[0, 0] = 100.0
    Xd, _ = _rarity.dataset_arrays(d)
    assert Xd[0, 0] == 100.0


def test_float32_and_other_dtypes_give_the_same_model(binary_data):
    X, y = binary_data
    ref = rarity.Classifier("tree", seed=1).fit(X.astype(np.float32).astype(np.float64), y)
    for Xi in (X.astype(np.float32), np.asfortranarray(X.astype(np.float32)), X.astype(np.float32).tolist()):
        p = rarity.Classifier("tree", seed=1).fit(Xi, y).predict_proba(X.astype(np.float32))
        np.testing.assert_array_equal(p, ref.predict_proba(X.astype(np.float32).astype(np.float64)))
    Xi = (X * 10).astype(np.int64)
    p1 = rarity.Classifier("tree", seed=1).fit(Xi, y).predict_proba(Xi)
    p2 = rarity.Classifier("tree", seed=1).fit(Xi.astype(np.float64), y).predict_proba(Xi)
    np.testing.assert_array_equal(p1, p2)


def test_tables_give_the_same_probabilities_as_arrays(binary_data):
    X, y = binary_data
    cols = [f"f{j}" for j in range(X.shape[1])]
    ref = rarity.Classifier("forest(n=5)", seed=3).fit(X, y).predict_proba(X)
    frames = [
        pd.DataFrame(X, columns=cols),
        pl.DataFrame(X, schema=cols, orient="row"),
        pa.table({c: X[:, j] for j, c in enumerate(cols)}),
    ]
    for df in frames:
        clf = rarity.Classifier("forest(n=5)", seed=3).fit(df, y)
        assert list(clf.feature_names_in_) == cols
        np.testing.assert_array_equal(clf.predict_proba(df), ref)
        # Columns are matched by name at predict time.
        if isinstance(df, pd.DataFrame):
            np.testing.assert_array_equal(clf.predict_proba(df[cols[::-1]]), ref)


def test_text_columns_are_one_hot_encoded_as_the_cli_does():
    df = pd.DataFrame(
        {
            "size": [1.5, 2.0, -1.0, 3.0, 0.5, 2.5],
            "colour": ["red", "blue", "red", "green", "blue", "red"],
            "ok": [True, False, True, True, False, False],
            "cat": pd.Categorical(["a", "b", "a", "a", "b", "b"]),
        }
    )
    y = np.array([0, 0, 0, 1, 1, 0])
    clf = rarity.Classifier("tree", seed=0).fit(df, y)
    assert clf.model_.feature_names == [
        "size",
        "colour=blue",
        "colour=green",
        "colour=red",
        "ok=False",
        "ok=True",
        "cat=a",
        "cat=b",
    ]
    assert clf.n_features_in_ == 4
    with pytest.raises(ValueError, match="level 'purple' is not a known level"):
        clf.predict(df.assign(colour=["purple"] * 6))
    with pytest.raises(ValueError, match="column 'colour' used by the model is missing"):
        clf.predict(df.drop(columns="colour"))


def test_without_pyarrow_pandas_frames_go_column_by_column(monkeypatch):
    import rarity._validation as V

    df = pd.DataFrame({
        "a": [1.0, 2.0, 3.0, 4.0],
        "t": ["x", "y", "x", "y"],
        "c": pd.Categorical([2.5, 1.0, 10.0, 1.0]),
        "s": pd.Categorical(["q", "p", "q", "r"]),
    })
    y = np.array([0, 1, 0, 1], dtype=np.uint32)
    for cf in (None, "from_dtype"):
        with_arrow, _ = V.features(df, categorical_features=cf)
        with monkeypatch.context() as m:
            m.setitem(__import__("sys").modules, "pyarrow", None)
            without, _ = V.features(df, categorical_features=cf)
        da, db = _rarity.Data(with_arrow, y, ["p", "q"]), _rarity.Data(without, y, ["p", "q"])
        np.testing.assert_array_equal(_rarity.dataset_arrays(da)[0], _rarity.dataset_arrays(db)[0])
        assert da.feature_names == db.feature_names and da.has_categorical == (cf is not None)


@pytest.mark.parametrize(
    "X, y, message",
    [
        (np.array([[1.0, np.inf], [2.0, 3.0], [4.0, 5.0]]), [0, 1, 0], r"row 0 \(counting from 0\), feature 'x1' is inf"),
        (np.array([1.0, 2.0, 3.0]), [0, 1, 0], "Reshape your data"),
        (np.zeros((3, 2)), [0, 0, 0], "only one class"),
        ([[1.0, 2.0], [3.0], [4.0, 5.0]], [0, 1, 0], "row 2 has 1 values, expected 2"),
        (np.array([["a", 1], [2, 3], [4, 5]], dtype=object), [0, 1, 0], "not numbers"),
        (np.zeros((3, 2), dtype=complex), [0, 1, 0], "Complex data not supported"),
        (np.zeros((3, 2)), [0, 1], "X has 3 rows but y has 2 labels"),
        (np.zeros((3, 2)), [0.5, 1.5, 2.5], "Unknown label type"),
        (np.zeros((3, 2)), None, "requires y to be passed"),
        (pd.DataFrame({"t": pd.to_datetime(["2020-01-01"] * 3)}), [0, 1, 0], "rarity reads numbers and text"),
    ],
)
def test_bad_input_raises_value_error_with_the_librarys_message(X, y, message):
    with pytest.raises(ValueError, match=message):
        rarity.Classifier("tree").fit(X, y)


def test_sparse_input_is_refused():
    sp = pytest.importorskip("scipy.sparse")
    with pytest.raises(ValueError, match="sparse"):
        rarity.Classifier("tree").fit(sp.csr_matrix(np.eye(4)), [0, 1, 0, 1])


def test_labels_are_ordered_as_the_readers_order_them():
    X = np.arange(20.0).reshape(10, 2)
    # Numeric labels numerically; the minority is the positive class.
    clf = rarity.Classifier("tree").fit(X, [10, 2, 2, 2, 2, 2, 2, 2, 2, 10])
    assert list(clf.classes_) == [2, 10] and clf.pos_label_ == 10
    assert clf.model_.class_names == ["2", "10"]
    clf = rarity.Classifier("tree").fit(X, np.array(["yes"] * 8 + ["no"] * 2))
    assert clf.pos_label_ == "no" and list(clf.classes_) == ["no", "yes"]
    assert clf.model_.class_names == ["yes", "no"]
    # probabilities are returned in classes_ order whatever rarity's class ids are.
    p = clf.predict_proba(X)
    assert np.all(p[8:, 0] == 1.0)
    clf = rarity.Classifier("tree", pos_label="yes").fit(X, np.array(["yes"] * 8 + ["no"] * 2))
    assert clf.pos_label_ == "yes"


def test_sample_weight_is_honoured(binary_data):
    X, y = binary_data
    w = np.ones(len(y))
    a = rarity.Classifier("logistic").fit(X, y).predict_proba(X)
    b = rarity.Classifier("logistic").fit(X, y, sample_weight=w).predict_proba(X)
    np.testing.assert_array_equal(a, b)
    w[y == 1] = 5.0
    c = rarity.Classifier("logistic").fit(X, y, sample_weight=w).predict_proba(X)
    assert c[:, 1].mean() > a[:, 1].mean()
    with pytest.raises(ValueError, match="weights must be finite and >= 0"):
        rarity.Classifier("logistic").fit(X, y, sample_weight=-w)


@pytest.mark.parametrize(
    "y",
    [
        np.array([3, -2, 3, 7, -2]),
        np.array([127, -128, 0], dtype=np.int8),
        np.array([2**63 - 1, -(2**63), 0]),
        np.array([2**64 - 1, 0, 5], dtype=np.uint64),
        np.array([5], dtype=np.uint8),
        np.random.default_rng(3).integers(0, 2, 10_000),
        np.array(["b", "a", "b"]),
    ],
)
def test_labels_are_encoded_as_numpy_unique_encodes_them(y):
    from rarity import _validation as V

    classes, inverse = V._unique_inverse(y)
    expected, codes = np.unique(y, return_inverse=True)
    assert classes.dtype == expected.dtype
    np.testing.assert_array_equal(classes, expected)
    np.testing.assert_array_equal(inverse, codes)


def test_numeric_categories_and_empty_columns_are_read():
    # A pandas category of numbers (an Arrow dictionary of integers) reads as
    # its numbers, as a CSV column of the same values; an all-None column as
    # missing values (every row dropped under missing='drop').
    X = pd.DataFrame({"code": pd.Categorical([3, 1, 3, 2]), "a": [0.5, 1.0, 1.5, 2.0]})
    y = np.array([0, 1, 0, 1], dtype=np.uint32)
    d = _rarity.Data(rarity._validation.features(X)[0], y, ["n", "p"])
    Xd, _ = _rarity.dataset_arrays(d)
    np.testing.assert_array_equal(Xd[:, 0], [3, 1, 3, 2])
    assert not d.has_categorical
    empty = X.assign(code=[None] * 4)
    with pytest.raises(ValueError, match="every one of the 4 rows misses a value"):
        _rarity.Data(rarity._validation.features(empty)[0], y, ["n", "p"])
    with pytest.raises(ValueError, match="row 0, column 'code': missing value"):
        _rarity.Data(rarity._validation.features(empty)[0], y, ["n", "p"], missing="error")
    coded = rarity._validation.features(X, categorical_features=[0])[0]
    assert _rarity.Data(coded, y, ["n", "p"]).has_categorical
