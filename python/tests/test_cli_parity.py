"""The same seed gives bit-identical probabilities from Python and from
``rarity fit`` / ``rarity predict`` on the same CSV, and Python's model bytes
are the bytes of the model file ``rarity fit`` writes, but for the recorded
fit time (the file's last 8 bytes, an f64)."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

import rarity
from conftest import imbalanced


def write_csv(path, X, y, header=None, text=None):
    """Values written as shortest round-trip decimals (repr), so the command
    line parses exactly the doubles Python holds."""
    d = X.shape[1]
    header = header or [f"x{j}" for j in range(d)]
    cols = list(header) + (list(text) if text else []) + ["y"]
    with open(path, "w") as f:
        f.write(",".join(cols) + "\n")
        for i in range(len(y)):
            cells = [repr(float(v)) for v in X[i]]
            if text:
                cells += [str(text[c][i]) for c in text]
            f.write(",".join(cells + [str(y[i])]) + "\n")


def cli_fit_predict(cli, tmp_path, csv, spec, seed, extra=()):
    model = tmp_path / "m.rarity"
    preds = tmp_path / "p.csv"
    subprocess.run(
        [cli, "--quiet", "--seed", str(seed), "fit", str(csv), "--target", "y", "--model", spec, "-o", str(model), *extra],
        check=True,
        capture_output=True,
    )
    subprocess.run([cli, "--quiet", "predict", str(model), str(csv), "-o", str(preds)], check=True, capture_output=True)
    lines = preds.read_text().splitlines()
    names = [h[2:] for h in lines[0].split(",")[:-1]]
    values = np.array([[float(v) for v in line.split(",")[:-1]] for line in lines[1:]])
    labels = [line.split(",")[-1] for line in lines[1:]]
    return names, values, labels, model.read_bytes()


def same_model_bytes(a, b):
    """Equal model files but for the fit time and the checksum that covers
    it: a binary file ends with the fit record [rows, seconds], the seconds
    an f64 (0xcb + 8 bytes); the checksum is the 8 bytes after the header's
    body length."""
    # A `true` (0xc3) after the record: the learner takes missing values.
    end = len(a) - 1 if a[-1:] == b"\xc3" and a[-10] == 0xCB else len(a)
    if len(a) != len(b) or not a[end - 9] == b[end - 9] == 0xCB:
        return False
    s = 11 + a[10] + 8
    return a[:s] == b[:s] and a[s + 8:end - 8] == b[s + 8:end - 8] and a[end:] == b[end:]


SPECS = [
    "pt-bagging(n=25)",
    "under(beta=0.3)+forest(n=10)+correct+threshold(priors)",
    "smote(k=3)+tree",
    "eb-bagging(n=10)+correct(mode=average)+threshold(priors)",
    "logistic+platt",
    "rb-bagging(n=10)+tune(metric=g_mean)",
]


@pytest.mark.parametrize("spec", SPECS)
def test_bit_identical_to_the_command_line(cli, tmp_path, spec):
    X, y = imbalanced(n=500, d=4, seed=11)
    csv = tmp_path / "d.csv"
    write_csv(csv, X, y)
    names, values, labels, model_bytes = cli_fit_predict(cli, tmp_path, csv, spec, seed=7)
    clf = rarity.Classifier(spec, seed=7).fit(X, y)
    p = clf.predict_proba(X)
    for j, c in enumerate(clf.classes_):
        np.testing.assert_array_equal(p[:, j], values[:, names.index(str(c))])
    assert [str(v) for v in clf.predict(X)] == labels
    assert same_model_bytes(clf.to_bytes(), model_bytes)


def test_multiclass_and_dataframes_match_too(cli, tmp_path):
    pd = pytest.importorskip("pandas")
    X, y = imbalanced(n=450, d=3, classes=3, rate=0.15, seed=2)
    csv = tmp_path / "d.csv"
    write_csv(csv, X, y)
    names, values, _, model_bytes = cli_fit_predict(cli, tmp_path, csv, "underover-bagging(n=10)", seed=3)
    df = pd.read_csv(csv)
    clf = rarity.UnderOverBagging(n=10, seed=3).fit(df.drop(columns="y"), df["y"])
    p = clf.predict_proba(df.drop(columns="y"))
    for j, c in enumerate(clf.classes_):
        np.testing.assert_array_equal(p[:, j], values[:, names.index(str(c))])
    assert same_model_bytes(clf.to_bytes(), model_bytes)


def test_text_columns_match_the_one_hot_reader(cli, tmp_path):
    pd = pytest.importorskip("pandas")
    X, y = imbalanced(n=300, d=2, seed=5)
    rng = np.random.default_rng(0)
    colour = rng.choice(["red", "green", "blue"], size=len(y))
    csv = tmp_path / "d.csv"
    write_csv(csv, X, y, text={"colour": colour})
    names, values, _, model_bytes = cli_fit_predict(
        cli, tmp_path, csv, "forest(n=10)", seed=1, extra=("--categorical", "one-hot")
    )
    df = pd.read_csv(csv)
    clf = rarity.RandomForest(n=10, seed=1).fit(df.drop(columns="y"), df["y"])
    p = clf.predict_proba(df.drop(columns="y"))
    np.testing.assert_array_equal(p[:, 1], values[:, names.index("1")])
    assert same_model_bytes(clf.to_bytes(), model_bytes)


def test_resample_and_score_match(cli, tmp_path):
    X, y = imbalanced(n=300, d=3, seed=6)
    csv = tmp_path / "d.csv"
    write_csv(csv, X, y)
    out = tmp_path / "r.csv"
    subprocess.run(
        [cli, "--quiet", "--seed", "4", "resample", str(csv), "--target", "y", "--method", "smote(k=3)", "-o", str(out)],
        check=True,
        capture_output=True,
    )
    rows = np.loadtxt(out, delimiter=",", skiprows=1)
    Xr, yr = rarity.sampling.Sampler("smote(k=3)", seed=4).fit_resample(X, y)
    np.testing.assert_array_equal(Xr, rows[:, :-1])
    np.testing.assert_array_equal(yr, rows[:, -1].astype(int))
    # rarity score: every key, the same values.
    p = rarity.Classifier("forest(n=5)").fit(X, y).predict_proba(X)[:, 1]
    sc = tmp_path / "s.csv"
    with open(sc, "w") as f:
        f.write("truth,p\n" + "".join(f"{t},{repr(float(v))}\n" for t, v in zip(y, p)))
    r = subprocess.run(
        [cli, "--format", "json", "score", str(sc), "--truth", "truth", "--proba", "p", "--threshold", "0.3"],
        check=True,
        capture_output=True,
        text=True,
    )
    want = json.loads(r.stdout)
    got = rarity.metrics.score(y, p, threshold=0.3)
    assert set(got) == set(want)  # the command line prints JSON keys sorted
    for k in want:
        assert (np.isnan(got[k]) and want[k] is None) or got[k] == want[k], k
