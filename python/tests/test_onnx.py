"""ONNX export (``rarity export``, ``to_onnx``): every covered strategy,
fitted by ``rarity fit`` on the even rows of three bundled datasets (two
binary, one with six classes), exported, checked by
``onnx.checker.check_model(full_check=True)`` and scored by ONNX Runtime on
the odd rows against ``rarity predict``: probabilities within 1e-12, labels
identical, the same bytes from the same model. Strategies the export does
not cover get their error."""

from __future__ import annotations

import csv
import json
import pathlib
import subprocess

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import rarity

REPO = pathlib.Path(__file__).resolve().parents[2]

BINARY = [
    "tree(max_depth=6)",
    "forest(n=30)",
    "under(beta=0.3)+forest(n=30)+correct+threshold(priors)",
    "under(beta=0.3)+forest(n=20)+correct(mode=member)",
    "balanced-forest(n=20)+correct",
    "rdt(n=20)",
    "bagging(n=10)",
    "pt-bagging(n=10)",
    "eb-bagging(n=10)+correct",
    "rb-bagging(n=10)+correct(mode=member)",
    "smote-bagging(n=10)",
    "underover-bagging(n=10)",
    "easy-ensemble(n=4)",
    "gbdt(rounds=40)",
    "gbdt(rounds=30,scale_pos_weight=5)+correct",
    "adaboost(n=20)",
    "adac2(n=20)",
    "logitboost(n=20)",
    "rus-boost(n=10)",
    "logistic",
    "logistic+platt",
    "under(beta=0.2)+logistic+correct+cost(fp=1,fn=10)",
    "lda",
    "qda",
    "gnb",
    "forest(n=20)+isotonic",
    "forest(n=20)+priors(0.9,0.1)+threshold(priors)",
    "gbdt(rounds=20)+threshold(f1)",
    "forest(n=20)+tune(metric=f1)",
    "logistic+roc-closest",
    "forest(n=20)+lambda(1,3)",
    "logistic+benefit(amount=x1,overhead=60)",
    "under(beta=0.5)+tree(max_depth=4)+correct+threshold(0.3)",
    "smote+forest(n=10)+correct",
    "under-bagging(n=10)+correct+cost(matrix='0,1;8,0')",
]

MULTICLASS = [
    "tree(max_depth=6)",
    "forest(n=20)",
    "gbdt(rounds=20)",
    "logistic",
    "lda",
    "gnb",
    "adaboost(n=10)",
    "logitboost(n=10)",
    "forest(n=20)+isotonic",
    "logistic+platt",
    "forest(n=20)+lambda(1,1,2,2,2,1)",
    "forest(n=20)+priors(1,1,1,1,1,1)",
    "bagging(n=10)+correct",
    "gbdt(rounds=20)+cost(matrix='0,1,1,1,1,1;5,0,1,1,1,1;5,1,0,1,1,1;5,1,1,0,1,1;5,1,1,1,0,1;5,1,1,1,1,0')",
    "logistic+priors(2,1,1,1,1,1)+cost(matrix='0,1,1,1,1,1;5,0,1,1,1,1;5,1,0,1,1,1;5,1,1,0,1,1;5,1,1,1,0,1;5,1,1,1,1,0')",
]

CASES = [(d, s) for d in ("pima", "yeast4") for s in BINARY] + [("glass", s) for s in MULTICLASS]


def _split(name, out):
    """The even rows (training) and the odd rows (held out) of a bundled
    dataset, as CSV files."""
    with open(REPO / "data" / f"{name}.csv", newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    paths = []
    for part, sel in (("train", body[0::2]), ("test", body[1::2])):
        p = out / f"{name}-{part}.csv"
        with open(p, "w", newline="") as f:
            csv.writer(f).writerows([header, *sel])
        paths.append(p)
    return paths


@pytest.fixture(scope="module")
def splits(tmp_path_factory):
    out = tmp_path_factory.mktemp("onnx-data")
    return {name: _split(name, out) for name in ("pima", "yeast4", "glass")}


def _run(cli, *args):
    return subprocess.run([cli, *map(str, args)], capture_output=True, text=True)


def _ok(cli, *args):
    r = _run(cli, *args)
    assert r.returncode == 0, r.stderr
    return r


def _predictions(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    classes = [k[2:] for k in rows[0] if k.startswith("p_")]
    proba = np.array([[float(r[f"p_{c}"]) for c in classes] for r in rows])
    return proba, [r["label"] for r in rows]


def _features(path, names):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return np.array([[float(r[n]) for n in names] for r in rows], dtype=np.float64)


WORST = {"proba": 0.0, "near": 0, "on": 0, "rows": 0, "cases": 0}


@pytest.mark.parametrize("dataset,spec", CASES, ids=[f"{d}:{s}" for d, s in CASES])
def test_onnx_runtime_scores_as_rarity_predict(cli, splits, tmp_path, dataset, spec):
    train, test = splits[dataset]
    model, pred, graph = tmp_path / "m.rarity", tmp_path / "p.csv", tmp_path / "m.onnx"
    _ok(cli, "fit", train, "-m", spec, "-o", model, "--seed", 3)
    _ok(cli, "predict", model, test, "-o", pred)
    _ok(cli, "export", model, "-o", graph)
    m = onnx.load(graph)
    onnx.checker.check_model(m, full_check=True)
    meta = {p.key: p.value for p in m.metadata_props}
    assert meta["strategy"].replace(" ", "") == spec.replace(" ", "")
    names = json.loads(meta["features"])
    x = _features(test, names)
    sess = ort.InferenceSession(str(graph), providers=["CPUExecutionProvider"])
    proba, label = sess.run(["probabilities", "label"], {"X": x})
    want_p, want_label = _predictions(pred)
    assert proba.dtype == np.float64 and proba.shape == want_p.shape
    # rarity predict writes shortest round-trip decimals, so its CSV holds
    # the exact doubles.
    diff = float(np.max(np.abs(proba - want_p)))
    WORST["proba"] = max(WORST["proba"], diff)
    assert diff <= 1e-12, f"largest probability difference {diff:.3e}"
    assert list(label) == want_label
    shown = json.loads(_ok(cli, "show", model, "--format", "json").stdout)
    if shown.get("threshold") is not None and proba.shape[1] == 2:
        # Rows whose probability is within 1e-12 of the cut-off could be
        # decided either way by a last-bit difference: count them.
        # Those exactly on it (a tie of votes, 5 of 10) are decided by >= in
        # both.
        p1, t = proba[:, 1], shown["threshold"]
        WORST["near"] += int(np.sum((np.abs(p1 - t) <= 1e-12) & (p1 != t)))
        WORST["on"] += int(np.sum(p1 == t))
    WORST["rows"] += len(want_label)
    WORST["cases"] += 1
    again = tmp_path / "again.onnx"
    _ok(cli, "export", model, "-o", again)
    assert again.read_bytes() == graph.read_bytes(), "the same model gave other ONNX bytes"


def test_largest_difference_is_reported(capsys):
    with capsys.disabled():
        print(
            f"\nONNX Runtime vs rarity predict on {WORST['cases']} models, {WORST['rows']} "
            f"held-out rows: largest |dp| = {WORST['proba']:.3e}; rows within 1e-12 of a "
            f"binary threshold without being on it: {WORST['near']}; exactly on it: {WORST['on']}"
        )


@pytest.mark.parametrize(
    "spec,says",
    [
        ("forest(n=5)+em", "+em"),
        ("svm", "Svm models"),
        ("knn", "Knn models"),
    ],
)
def test_what_cannot_be_exported_says_why(cli, splits, tmp_path, spec, says):
    train, _ = splits["pima"]
    model, graph = tmp_path / "m.rarity", tmp_path / "m.onnx"
    _ok(cli, "fit", train, "-m", spec, "-o", model)
    r = _run(cli, "export", model, "-o", graph)
    assert r.returncode != 0
    assert "cannot be exported to ONNX" in r.stderr and says in r.stderr, r.stderr
    assert "the export covers" in r.stderr
    assert not graph.exists()


def test_text_columns_are_string_inputs_encoded_in_the_graph(cli, tmp_path):
    rng = np.random.default_rng(0)
    channels = ["web", "shop", "phone"]
    lines = ["amount,channel,class"]
    for i in range(600):
        c = channels[i % 3]
        y = int(rng.random() < (0.3 if c == "phone" else 0.05))
        lines.append(f"{rng.normal() + 2 * y:.4f},{c},{y}")
    (tmp_path / "train.csv").write_text("\n".join(lines[:401]) + "\n")
    # Held-out rows, one with a level the model never saw.
    test = [lines[0], *lines[401:], "0.5,kiosk,0"]
    (tmp_path / "test.csv").write_text("\n".join(test) + "\n")
    model, graph, pred = tmp_path / "m.rarity", tmp_path / "m.onnx", tmp_path / "p.csv"
    spec = "under(beta=0.3)+forest(n=10)+correct+threshold(priors)"
    _ok(cli, "fit", tmp_path / "train.csv", "--categorical", "one-hot", "-m", spec, "-o", model)
    _ok(cli, "export", model, "-o", graph)
    _ok(cli, "predict", model, tmp_path / "test.csv", "--unknown", "ignore", "-o", pred)
    m = onnx.load(graph)
    onnx.checker.check_model(m, full_check=True)
    inputs = json.loads({p.key: p.value for p in m.metadata_props}["inputs"])
    assert [i["name"] for i in inputs] == ["X", "channel"]
    _scores_as_predict(graph, tmp_path / "test.csv", pred, "channel")


def _scores_as_predict(graph, test, pred, text):
    """ONNX Runtime on ``test`` (an ``amount`` column in ``X``, the string
    column ``text``) gives ``rarity predict``'s probabilities and labels."""
    rows = list(csv.DictReader(open(test)))
    feeds = {
        "X": np.array([[float(r["amount"])] for r in rows]),
        text: np.array([[r[text]] for r in rows], dtype=object),
    }
    sess = ort.InferenceSession(str(graph), providers=["CPUExecutionProvider"])
    proba, label = sess.run(["probabilities", "label"], feeds)
    want_p, want_label = _predictions(pred)
    assert np.max(np.abs(proba - want_p)) <= 1e-12
    assert list(label) == want_label


@pytest.mark.parametrize(
    "spec", ["under(beta=0.3)+logistic+correct", "gbdt(rounds=20)+platt(ensemble=true)"]
)
def test_target_statistics_are_label_encoders_in_the_graph(cli, tmp_path, spec):
    """``--categorical target``: each member's level table is a
    ``LabelEncoder`` on the string input (default the prior), scored by ONNX
    Runtime as ``rarity predict`` scores it, unseen levels included."""
    rng = np.random.default_rng(1)
    lines = ["amount,merchant,class"]
    for i in range(1500):
        m = int(rng.integers(0, 60))
        y = int(rng.random() < (0.5 if m < 6 else 0.05))
        lines.append(f"{rng.normal() + y:.4f},m{m},{y}")
    (tmp_path / "train.csv").write_text("\n".join(lines[:1001]) + "\n")
    test = [lines[0], *lines[1001:], "0.5,unseen,0"]
    (tmp_path / "test.csv").write_text("\n".join(test) + "\n")
    model, graph, pred = tmp_path / "m.rarity", tmp_path / "m.onnx", tmp_path / "p.csv"
    _ok(cli, "fit", tmp_path / "train.csv", "--categorical", "target", "-m", spec, "-o", model)
    _ok(cli, "export", model, "-o", graph)
    _ok(cli, "predict", model, tmp_path / "test.csv", "--unknown", "ignore", "-o", pred)
    m = onnx.load(graph)
    onnx.checker.check_model(m, full_check=True)
    _scores_as_predict(graph, tmp_path / "test.csv", pred, "merchant")


@pytest.mark.parametrize(
    "mode,spec",
    [("one-hot", "forest(n=10)"), ("native", "tree"), ("target", "gbdt(rounds=20)")],
)
def test_padded_levels_are_read_by_the_graph_as_by_rarity(cli, tmp_path, mode, spec):
    """A level with surrounding spaces or tabs (``'web '``) is the level
    ``web`` for rarity's readers, which trim ASCII whitespace; the graph
    maps it the same, for one-hot, native categorical and target-encoded
    columns, inner spaces kept (``'new york'``)."""
    rng = np.random.default_rng(2)
    levels = ["web", "shop", "new york", "phone"]
    pads = ["{}", " {}", "{} ", "\t{}  ", "  {}\t"]
    lines = ["amount,channel,class"]
    for i in range(900):
        c = levels[i % 4]
        y = int(rng.random() < (0.4 if c in ("phone", "new york") else 0.05))
        lines.append(f"{rng.normal() + 2 * y:.4f},{pads[i % 5].format(c)},{y}")
    (tmp_path / "train.csv").write_text("\n".join(lines[:601]) + "\n")
    test = [lines[0], *lines[601:]]
    if mode == "one-hot":
        test.append("0.5, kiosk ,0")
    (tmp_path / "test.csv").write_text("\n".join(test) + "\n")
    model, graph, pred = tmp_path / "m.rarity", tmp_path / "m.onnx", tmp_path / "p.csv"
    _ok(cli, "fit", tmp_path / "train.csv", "--categorical", mode, "-m", spec, "-o", model)
    _ok(cli, "export", model, "-o", graph)
    unknown = ["--unknown", "ignore"] if mode == "one-hot" else []
    _ok(cli, "predict", model, tmp_path / "test.csv", *unknown, "-o", pred)
    onnx.checker.check_model(onnx.load(graph), full_check=True)
    _scores_as_predict(graph, tmp_path / "test.csv", pred, "channel")


def test_the_deepest_tree_rarity_reads_loads_in_onnx_runtime(cli, tmp_path):
    """A tree 512 levels deep (the most rarity grows, reads and exports) is
    a graph ONNX Runtime loads and scores as ``rarity predict`` does; one
    level deeper is refused when read (a 100,000-deep chain crashed ONNX
    Runtime as it loaded the graph)."""
    train = tmp_path / "d.csv"
    train.write_text("x0,x1,class\n" + "".join(f"{i},{i % 3},{i % 2}\n" for i in range(40)))
    model = tmp_path / "m.json"
    _ok(cli, "fit", train, "-m", "tree", "-o", model, "--json-model")

    def chain(depth):
        doc = json.loads(model.read_text())
        doc["format_version"] = 1
        del doc["checksum"]
        nodes, counts = [], []
        for j in range(depth):
            i = len(nodes)
            nodes.append({"feature": 0, "threshold": j + 0.5, "left": i + 1, "right": i + 2})
            nodes.append({"feature": 2**32 - 1, "threshold": 0.0, "left": j, "right": 0})
            counts += [1.0, 0.0] if j % 2 else [0.0, 1.0]
        nodes.append({"feature": 2**32 - 1, "threshold": 0.0, "left": depth, "right": 0})
        counts += [1.0, 0.0]
        tree = {"n_features": 2, "n_classes": 2, "nodes": nodes, "leaf_counts": counts,
                "leaf_proba": counts, "sets": []}
        doc["model"]["members"][0]["model"] = {"Tree": tree}
        path = tmp_path / f"chain{depth}.json"
        path.write_text(json.dumps(doc))
        return path

    graph, pred, test = tmp_path / "m.onnx", tmp_path / "p.csv", tmp_path / "t.csv"
    test.write_text("x0,x1\n" + "".join(f"{v},0\n" for v in (0, 3, 100, 511, 600)))
    _ok(cli, "export", chain(512), "-o", graph)
    _ok(cli, "predict", chain(512), test, "-o", pred)
    sess = ort.InferenceSession(str(graph), providers=["CPUExecutionProvider"])
    x = np.array([[0.0, 0.0], [3.0, 0.0], [100.0, 0.0], [511.0, 0.0], [600.0, 0.0]])
    proba, _ = sess.run(["probabilities", "label"], {"X": x})
    want, _ = _predictions(pred)
    assert np.array_equal(proba, want)
    r = _run(cli, "export", chain(513), "-o", tmp_path / "deeper.onnx")
    assert r.returncode != 0 and "deeper than 512 levels" in r.stderr, r.stderr


def test_python_estimators_export_what_they_predict(binary_data, tmp_path):
    X, y = binary_data
    m = rarity.Classifier(spec="under(beta=0.3)+gbdt(rounds=20)+correct+threshold(priors)").fit(X, y)
    path = tmp_path / "m.onnx"
    assert m.to_onnx(path) is None
    assert rarity.export_onnx(m) == path.read_bytes()
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    proba, label = sess.run(None, {"X": np.asarray(X, dtype=np.float64)})
    assert np.max(np.abs(proba - m.predict_proba(X))) <= 1e-12
    assert [str(v) for v in m.predict(X)] == list(label)
    with pytest.raises(ValueError, match="cannot be exported"):
        rarity.Classifier(spec="forest(n=3)+em").fit(X, y).to_onnx()
    with pytest.raises(ValueError, match="not a rarity estimator"):
        rarity.export_onnx(object())
