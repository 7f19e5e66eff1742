"""``rarity.monitor`` is ``rarity monitor``: the same JSON on the same files,
the same figures on the same rows given as pandas, polars or pyarrow tables,
at any ``n_jobs``; and its bad inputs are ``ValueError``s before any work."""

from __future__ import annotations

import json
import math
import pickle
import subprocess

import numpy as np
import pytest

import rarity


@pytest.fixture(scope="module")
def files(cli, tmp_path_factory):
    """A ``gbdt+platt`` model trained on 20,000 generated fraud rows, a
    reference from the same population and a current table at a higher
    fraud rate with new fraud patterns and half of its labels blank."""
    d = tmp_path_factory.mktemp("monitor")

    def generate(name, seed, *extra):
        path = d / f"{name}.csv"
        subprocess.run([cli, "-q", "generate", "fraud", "--n", "20000", "--seed", str(seed), *extra, "-o", str(path)],
                       check=True, capture_output=True)
        return path

    train = generate("train", 1)
    reference = generate("reference", 2)
    drawn = generate("drawn", 3, "--positive-rate", "0.01", "--drift", "0.5")
    lines = drawn.read_text().splitlines()
    header = lines[0] + ",matured"
    body = [f"{line},{line.rsplit(',', 1)[1] if i % 2 == 0 else ''}" for i, line in enumerate(lines[1:])]
    current = d / "current.csv"
    current.write_text("\n".join([header, *body]) + "\n")
    model = d / "m.rarity"
    subprocess.run([cli, "-q", "fit", str(train), "-m", "gbdt(rounds=30)+platt", "-o", str(model)],
                   check=True, capture_output=True)
    return model, reference, current


def cli_json(cli, model, reference, current, *extra):
    r = subprocess.run(
        [cli, "-q", "--format", "json", "monitor", str(model), "--reference", str(reference), "--current",
         str(current), *extra],
        capture_output=True, text=True,
    )
    assert r.returncode in (0, 3), r.stderr
    return json.loads(r.stdout), r.returncode


def without_sources(d):
    d = json.loads(json.dumps(d))
    for side in ("reference", "current"):
        d[side].pop("source")
    return d


def close(a, b, path="", tol=1e-12):
    """Equal JSON values, floats within ``tol`` relative."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), path
        for k in a:
            close(a[k], b[k], f"{path}.{k}", tol)
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            close(x, y, f"{path}[{i}]", tol)
    elif isinstance(a, float) and isinstance(b, float):
        assert a == b or abs(a - b) <= tol * max(1.0, abs(a)) or (math.isnan(a) and math.isnan(b)), (path, a, b)
    else:
        assert a == b, (path, a, b)


def test_monitor_equals_the_command_line_on_the_same_files(cli, files):
    model, reference, current = files
    want, code = cli_json(cli, model, reference, current, "--label", "matured", "--fail-on", "psi=0.05,prior=1.5x")
    got = rarity.monitor(str(model), str(reference), str(current), label="matured", fail_on="psi=0.05,prior=1.5x")
    assert got.to_dict() == want
    assert got.failed == want["failed"] and (code == 3) == bool(got.failed)
    # The new patterns and the higher rate show: the EM prior above the
    # training one, labelled metrics on the matured half.
    assert want["priors"]["estimated"]["1"] > 2 * want["priors"]["training"]["1"]
    assert want["labelled"]["rows"] == 10000
    assert len(got.columns) == len(want["columns"]) == 30


def test_tables_in_memory_give_the_figures_of_their_files(cli, files):
    pd = pytest.importorskip("pandas")
    pa = pytest.importorskip("pyarrow")
    pl = pytest.importorskip("polars")
    model, reference, current = files
    want, _ = cli_json(cli, model, reference, current, "--label", "matured")
    est = rarity.load(model)
    # Every double as the command line parses it (pandas 3's default;
    # before it, the round-trip parser).
    exact = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}
    read = lambda p: pd.read_csv(p, dtype={"matured": "string"}, **exact)
    ref, cur = read(reference), read(current)
    for r, c in [(ref, cur), (pa.Table.from_pandas(ref), pa.Table.from_pandas(cur)), (pl.from_pandas(ref), pl.from_pandas(cur))]:
        got = rarity.monitor(est, r, c, label="matured").to_dict()
        assert got["reference"]["source"] == "<reference>" and got["current"]["source"] == "<current>"
        close(without_sources(got), without_sources(want))


def test_the_result_does_not_depend_on_threads_and_pickles(files, tmp_path):
    model, reference, current = files
    one = rarity.monitor(model, reference, current, n_jobs=1)
    two = rarity.monitor(model, reference, current, n_jobs=2)
    assert one.to_dict() == two.to_dict() and one.to_text() == two.to_text()
    back = pickle.loads(pickle.dumps(one))
    assert back.to_dict() == one.to_dict() and back.to_text() == one.to_text()
    back.report(tmp_path / "report")
    html = (tmp_path / "report" / "index.html").read_text()
    assert "V1" in html and html == one.report_html()
    assert "MonitorResult(current_rows=20000" in repr(one)


def test_bad_input_is_a_value_error_before_any_work(files, tmp_path):
    pd = pytest.importorskip("pandas")
    model, reference, current = files
    with pytest.raises(ValueError, match="named columns"):
        rarity.monitor(model, np.zeros((3, 30)), current)
    with pytest.raises(ValueError, match=r"monitor: bins=1: expected a whole number >= 2"):
        rarity.monitor(model, reference, current, bins=1)
    with pytest.raises(ValueError, match=r"bins=-1: expected a whole number >= 2"):
        rarity.monitor(model, reference, current, bins=-1)
    with pytest.raises(ValueError, match=r"bootstrap=many: expected a whole number"):
        rarity.monitor(model, reference, current, bootstrap="many")
    with pytest.raises(ValueError, match="no '='"):
        rarity.monitor(model, reference, current, fail_on="psi")
    with pytest.raises(ValueError, match="no label column 'nope'"):
        rarity.monitor(model, reference, current, label="nope")
    short = pd.read_csv(current).drop(columns=["V7"])
    with pytest.raises(ValueError, match="V7"):
        rarity.monitor(model, reference, short)
    with pytest.raises(ValueError, match="not a rarity model|model file"):
        rarity.monitor(str(reference), reference, current)
    with pytest.raises(ValueError, match="fitted rarity estimator"):
        rarity.monitor(object(), reference, current)
    wrong = tmp_path / "wrong.csv"
    wrong.write_text(current.read_text().replace(",1,1\n", ",1,fraud\n", 1))
    with pytest.raises(ValueError, match="'fraud' is not a class of the model"):
        rarity.monitor(model, reference, wrong, label="matured")
    with pytest.raises(ValueError, match="delimiter"):
        rarity.monitor(model, reference, current, delimiter="ab")


def test_an_uncalibrated_model_says_which_stage_would_calibrate_it(binary_data):
    pd = pytest.importorskip("pandas")
    X, y = binary_data
    X = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    m = rarity.GradientBoosting(max_iter=10).fit(X, y)
    r = rarity.monitor(m, X, X, bootstrap=0)
    assert r.priors["estimated"] is None and "+platt" in r.priors["reason"]
    assert all(c["psi"] == 0.0 for c in r.to_dict()["columns"])


def test_the_signatures_are_the_declaration():
    """``rarity.monitor`` and ``rarity.spark.monitor`` take the declared
    parameters with the declared defaults, and no other but their own; the
    docstring documents each from the declaration."""
    from rarity import _monitor, spark

    d = _monitor.DECLARED
    assert {p["name"] for p in d.table} == {"label", "bins", "bootstrap", "fail_on"}
    assert d.check_signature(rarity.monitor) == []
    assert d.check_signature(spark.monitor, own=("model", "reference", "current", "seed")) == []
    for p in d.table:
        assert f"{p['name']} : " in rarity.monitor.__doc__ and p["doc"].rstrip(".") in " ".join(rarity.monitor.__doc__.split())
    assert d.defaults["bins"] == 10 and d.defaults["bootstrap"] == 200 and d.defaults["label"] is None

    def added(model, reference, current, *, label=None, bins=10, bootstrap=200, fail_on=None, seed=42,
              random_state=None, n_jobs=None, delimiter=",", decimal=".", window=7):
        pass

    assert d.check_signature(added) == ["window"]


def test_a_model_file_s_training_summary_is_the_reference_when_none_is_given(cli, files, tmp_path):
    """``rarity fit --summary`` keeps the training table's profile; without a
    reference, ``rarity.monitor`` compares with it as the command does, and
    a model without one is a ValueError saying what to give."""
    model, reference, current = files
    train = reference.parent / "train.csv"
    kept = tmp_path / "kept.rarity"
    subprocess.run([cli, "-q", "fit", str(train), "-m", "gbdt(rounds=30)+platt", "--summary", "-o", str(kept)],
                   check=True, capture_output=True)
    r = subprocess.run([cli, "-q", "--format", "json", "monitor", str(kept), "--current", str(current)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    want = json.loads(r.stdout)
    got = rarity.monitor(str(kept), current=str(current))
    assert got.to_dict() == want
    assert want["reference"]["source"] == "the model's training summary"
    assert rarity.monitor(rarity.load(kept), None, current).to_dict() == want
    with pytest.raises(ValueError, match="holds no training summary.*reference="):
        rarity.monitor(str(model), current=str(current))
    with pytest.raises(ValueError, match="current= is required"):
        rarity.monitor(str(kept))
