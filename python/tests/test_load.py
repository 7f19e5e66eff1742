"""``rarity.load`` and ``Classifier.load``: a model file (saved from Python
or written by ``rarity fit``) opens as the estimator class that fits its
spec, with the parameters that write it, and saves back bit for bit."""

from __future__ import annotations

import pickle
import subprocess

import numpy as np
import pandas as pd
import pytest

import rarity
from conftest import imbalanced

#: Estimators whose model files must open as their own class and parameters.
#: Each is made from the positive and the negative label.
ESTIMATORS = [
    lambda pos, neg: rarity.Classifier(spec="under(beta=0.5)+tree(max_depth=3)+correct"),
    lambda pos, neg: rarity.PTBagging(n=5, correct=True, decision="threshold(0.3)"),
    lambda pos, neg: rarity.RandomForest(n=3, calibration="platt"),
    lambda pos, neg: rarity.EasyEnsemble(n=2),
    lambda pos, neg: rarity.GradientBoosting(max_iter=5, early_stopping=True, n_iter_no_change=3),
    lambda pos, neg: rarity.GradientBoosting(max_iter=4, class_weight={pos: 3.0, neg: 1.0}, max_depth=3),
]


@pytest.mark.parametrize("make", ESTIMATORS)
@pytest.mark.parametrize("labels", ["int", "text"])
def test_save_then_load_is_the_same_estimator(make, labels, tmp_path):
    X, y = imbalanced(n=300, d=3)
    pos, neg = ("fraud", "ok") if labels == "text" else (1, 0)
    y = np.where(y == 1, pos, neg)
    X = pd.DataFrame(X, columns=["amount", "age", "score"])
    est = make(pos, neg).fit(X, y)
    path = tmp_path / "m.rarity"
    est.save(path)
    for back in (rarity.load(path), type(est).load(str(path)), rarity.Classifier.load(path)):
        if not isinstance(back, rarity.Classifier) or type(est) is rarity.Classifier:
            assert type(back) is type(est)
            assert back.get_params() == est.get_params()
        assert back.spec_ == est.spec_
        assert back.to_bytes() == est.to_bytes() == path.read_bytes()
        assert back.classes_.tolist() == est.classes_.tolist()
        assert back.feature_names_in_.tolist() == ["amount", "age", "score"]
        np.testing.assert_array_equal(back.predict_proba(X), est.predict_proba(X))
        np.testing.assert_array_equal(back.predict(X), est.predict(X))
        assert back.pos_label_ == est.pos_label_
        assert pickle.loads(pickle.dumps(back)).to_bytes() == back.to_bytes()
    # Saved again, the same bytes.
    rarity.load(path).save(tmp_path / "again.rarity")
    assert (tmp_path / "again.rarity").read_bytes() == path.read_bytes()


def test_a_matrix_model_has_no_feature_names(tmp_path):
    X, y = imbalanced(n=200, d=3)
    est = rarity.Classifier(spec="tree").fit(X, y)
    est.save(tmp_path / "m.rarity")
    back = rarity.load(tmp_path / "m.rarity")
    assert not hasattr(back, "feature_names_in_") and back.n_features_in_ == 3
    assert back.classes_.dtype.kind == "i"
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    with pytest.raises(ValueError, match="X has 2 features"):
        back.predict(X[:, :2])


def test_a_spec_the_class_does_not_write_is_refused(tmp_path):
    X, y = imbalanced(n=200, d=3)
    rarity.PTBagging(n=3).fit(X, y).save(tmp_path / "m.rarity")
    with pytest.raises(ValueError, match="is not one GradientBoosting fits"):
        rarity.GradientBoosting.load(tmp_path / "m.rarity")
    with pytest.raises(ValueError, match="is not one EBBagging fits"):
        rarity.EBBagging.load(tmp_path / "m.rarity")
    # A gbdt parameter without a scikit-learn name: the Classifier takes it.
    rarity.Classifier(spec="gbdt(rounds=3,subsample=0.5)").fit(X, y).save(tmp_path / "g.rarity")
    back = rarity.load(tmp_path / "g.rarity")
    assert type(back) is rarity.Classifier and back.spec == "gbdt(rounds=3,subsample=0.5)"


def test_a_model_rarity_fit_wrote_opens_in_python(cli, tmp_path):
    X, y = imbalanced(n=300, d=2)
    csv = tmp_path / "d.csv"
    pd.DataFrame({"amount": X[:, 0], "age": X[:, 1], "class": np.where(y == 1, "fraud", "ok")}).to_csv(csv, index=False)
    for name, extra in (("m.rarity", []), ("m.json", ["--json-model"])):
        out = tmp_path / name
        subprocess.run(
            [cli, "--quiet", "fit", str(csv), "--model", "pt-bagging(n=4)+correct", "-o", str(out), *extra],
            check=True,
            capture_output=True,
        )
        preds = tmp_path / "p.csv"
        subprocess.run([cli, "--quiet", "predict", str(out), str(csv), "-o", str(preds)], check=True, capture_output=True)
        back = rarity.load(out)
        assert type(back) is rarity.PTBagging and back.n == 4 and back.correct is True
        assert back.classes_.tolist() == ["fraud", "ok"] and back.pos_label_ == "fraud"
        expected = pd.read_csv(preds)
        frame = pd.DataFrame({"amount": X[:, 0], "age": X[:, 1]})
        proba = back.predict_proba(frame)
        np.testing.assert_allclose(proba[:, 0], expected["p_fraud"], rtol=0, atol=1e-15)
        assert back.predict(frame).tolist() == expected.iloc[:, -1].tolist()
        if name == "m.rarity":
            assert back.to_bytes() == out.read_bytes()


@pytest.mark.parametrize(
    "content, message",
    [
        (b"hello", "not a rarity model file"),
        (b"", "not a rarity model file|empty"),
        (b'{"magic":"rarity-model"', "rarity model|JSON|truncated|invalid"),
    ],
)
def test_what_is_not_a_model_is_a_value_error(content, message, tmp_path):
    path = tmp_path / "bad.rarity"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=message):
        rarity.load(path)


def test_a_damaged_or_missing_file_is_a_value_error(tmp_path):
    X, y = imbalanced(n=200, d=3)
    good = rarity.Classifier(spec="tree").fit(X, y).to_bytes()
    (tmp_path / "cut.rarity").write_bytes(good[: len(good) // 2])
    flipped = bytearray(good)
    flipped[-20] ^= 0x40
    (tmp_path / "flip.rarity").write_bytes(bytes(flipped))
    for name in ("cut.rarity", "flip.rarity", "absent.rarity"):
        with pytest.raises((ValueError, OSError)):
            rarity.load(tmp_path / name)
    with pytest.raises(ValueError):
        rarity.load(tmp_path)
