"""Behaving well in Python: the GIL is released while rarity works, threads
follow n_jobs without changing results, the package works after fork,
KeyboardInterrupt stops long work, and models pickle as rarity model files."""

from __future__ import annotations

import io
import json
import multiprocessing as mp
import pickle
import signal
import subprocess
import sys
import threading
import time
import _thread

import numpy as np
import pytest

import rarity
from conftest import imbalanced


def test_same_seed_same_probabilities_whatever_n_jobs():
    X, y = imbalanced(n=600, seed=3)
    specs = ["pt-bagging(n=30)", "smote+forest(n=10)", "under(beta=0.3)+forest(n=10)+correct"]
    for spec in specs:
        ps = [rarity.Classifier(spec, seed=5, n_jobs=j).fit(X, y).predict_proba(X) for j in (1, 2, -1)]
        np.testing.assert_array_equal(ps[0], ps[1])
        np.testing.assert_array_equal(ps[0], ps[2])
    a = rarity.sampling.SMOTE(random_state=1, n_jobs=1).fit_resample(X, y)[0]
    b = rarity.sampling.SMOTE(random_state=1, n_jobs=2).fit_resample(X, y)[0]
    np.testing.assert_array_equal(a, b)


def test_n_jobs_sets_the_thread_count():
    from rarity import _rarity

    assert _rarity.threads_for(1) == 1
    assert _rarity.threads_for(3) == 3
    assert _rarity.threads_for(-1) == _rarity.threads_for(None) >= 1
    with pytest.raises(ValueError, match="n_jobs=0 is invalid"):
        _rarity.threads_for(0)
    with pytest.raises(ValueError, match="n_jobs"):
        rarity.Classifier("tree", n_jobs=1.5).fit([[0.0], [1.0]], [0, 1])
    with pytest.raises(ValueError, match="cap of"):
        _rarity.threads_for(100000)


def test_sizes_that_cannot_fit_are_value_errors():
    X, y = imbalanced(n=100, seed=3)
    with pytest.raises(ValueError, match="too large: at most 4294967295"):
        rarity.Classifier("forest(n=1e18)").fit(X, y)
    with pytest.raises(ValueError, match="would need"):
        rarity.Classifier("forest(n=4294967295)").fit(X, y)


def _count_while(work):
    """Iterations a Python thread makes while ``work()`` runs in this one."""
    n = [0]
    stop = threading.Event()

    def count():
        while not stop.is_set():
            n[0] += 1

    t = threading.Thread(target=count)
    t.start()
    t0 = time.perf_counter()
    work()
    elapsed = time.perf_counter() - t0
    stop.set()
    t.join()
    return n[0] / elapsed


def test_the_gil_is_released_during_fit():
    X, y = imbalanced(n=3000, d=8, seed=4)
    idle = _count_while(lambda: time.sleep(0.5))
    busy = _count_while(lambda: rarity.Classifier("pt-bagging(n=200)", n_jobs=1).fit(X, y))
    # A fit holding the GIL would let the other thread run only at the
    # interpreter's switch interval; released, it counts at a similar rate.
    assert busy > 0.2 * idle, (busy, idle)


def _fit_in_child(q):
    X, y = imbalanced(n=300, seed=1)
    p = rarity.Classifier("pt-bagging(n=10)", seed=2, n_jobs=2).fit(X, y).predict_proba(X)
    q.put(p.tolist())


@pytest.mark.skipif(sys.platform == "win32", reason="fork is POSIX")
def test_works_after_fork():
    # The parent builds its thread pools first.
    X, y = imbalanced(n=300, seed=1)
    want = rarity.Classifier("pt-bagging(n=10)", seed=2, n_jobs=2).fit(X, y).predict_proba(X)
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    procs = [ctx.Process(target=_fit_in_child, args=(q,)) for _ in range(2)]
    for p in procs:
        p.start()
    got = [q.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    for g in got:
        np.testing.assert_array_equal(np.asarray(g), want)


def _joblib_fit(seed):
    X, y = imbalanced(n=300, seed=1)
    return rarity.Classifier("forest(n=5)", seed=seed, n_jobs=1).fit(X, y).predict_proba(X)


def test_joblib_workers():
    joblib = pytest.importorskip("joblib")
    for backend in ("loky", "threading", "multiprocessing"):
        out = joblib.Parallel(n_jobs=2, backend=backend)(joblib.delayed(_joblib_fit)(s) for s in (1, 2))
        np.testing.assert_array_equal(out[0], _joblib_fit(1))


def test_keyboard_interrupt_stops_long_work():
    X, y = imbalanced(n=20000, d=10, seed=2)
    # Python's own SIGINT handler, whatever an earlier test or library
    # installed: interrupt_main does nothing under SIG_IGN or SIG_DFL.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, _thread.interrupt_main)
    t0 = time.perf_counter()
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            # Thousands of unpruned trees: minutes of work if not stopped.
            rarity.Classifier("pt-bagging(n=20000)", n_jobs=2).fit(X, y)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    stopped = time.perf_counter() - t0
    assert stopped < 5.0, stopped
    # The library is free again and the flag is down.
    p = rarity.Classifier("tree").fit(X[:200], y[:200]).predict_proba(X[:5])
    assert p.shape == (5, 2)


def test_pickle_and_joblib_use_rarity_model_bytes(binary_data, tmp_path):
    X, y = binary_data
    clf = rarity.PTBagging(n=10, seed=3).fit(X, y)
    back = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))
    assert back.model_.to_bytes() == clf.model_.to_bytes()
    assert clf.to_bytes()[:8] == b"RARITYM\x01"
    joblib = pytest.importorskip("joblib")
    buf = io.BytesIO()
    joblib.dump(clf, buf)
    buf.seek(0)
    np.testing.assert_array_equal(joblib.load(buf).predict(X), clf.predict(X))
    path = tmp_path / "m.rarity"
    clf.save(path)
    assert path.read_bytes() == clf.to_bytes()
    with pytest.raises(ValueError, match="truncated"):
        rarity._rarity.Model.from_bytes(clf.to_bytes()[:-3])


def test_deep_specs_and_models_are_value_errors_never_crashes(binary_data, cli, tmp_path):
    """Specs nested past what rarity reads and model files nested past it
    raise ValueError; they used to overflow the interpreter's stack."""
    X, y = binary_data
    for spec in [
        "forest(n=" + "[" * 20000 + "]" * 20000 + ")",
        "bagging(learner=" * 3000 + "tree" + ")" * 3000,
        "bagging(n=1,sample=none,learner=" * 120 + "tree" + ")" * 120,
    ]:
        with pytest.raises(ValueError, match="nested deeper than"):
            rarity.Classifier(spec).fit(X, y)
    # The deepest nesting rarity builds pickles and loads back.
    deepest = "bagging(n=1,sample=none,learner=" * 16 + "tree" + ")" * 16
    clf = rarity.Classifier(deepest).fit(X, y)
    back = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))
    # A crafted file of 100 nested ensembles (format version 1, no
    # checksum) is refused as it is read.
    train = tmp_path / "d.csv"
    train.write_text("a,b,y\n" + "".join(f"{i % 7},{i % 5},{int(i % 7 > 4)}\n" for i in range(40)))
    path = tmp_path / "m.json"
    spec = "bagging(n=1,sample=none,learner=tree)"
    subprocess.run([cli, "fit", train, "-m", spec, "-o", path, "--json-model"], check=True)
    doc = json.loads(path.read_text())
    doc["format_version"] = 1
    del doc["checksum"]
    ensemble = doc["model"]["members"][0]["model"]
    inner = ensemble["Bagged"]["members"][0]
    for _ in range(100):
        outer = json.loads(json.dumps(ensemble))
        outer["Bagged"]["members"] = [inner]
        inner = outer
    doc["model"]["members"][0]["model"] = inner
    with pytest.raises(ValueError, match="recursion limit|nested deeper"):
        rarity._rarity.Model.from_bytes(json.dumps(doc).encode())


def test_panics_never_cross_the_boundary():
    # Odd but valid inputs run; invalid ones raise ValueError.
    X = np.zeros((2, 1))
    for spec in ["tree", "knn(k=5)", "smote+tree", "svm", "logistic", "rus-boost(n=3)", "pt-bagging(n=2)+tune"]:
        try:
            rarity.Classifier(spec).fit(X, [0, 1]).predict_proba(X)
        except ValueError:
            pass


_UNDER_LIMIT = """
import resource, sys
import numpy as np
import rarity

def mapped():
    for line in open("/proc/self/status"):
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024

rng = np.random.default_rng(0)
n = int(sys.argv[2])
X = rng.standard_normal((n, 4))
y = (X[:, 0] + rng.standard_normal(n) > 2).astype(int)
# The address space left: what the process maps now and sys.argv[1] more.
resource.setrlimit(resource.RLIMIT_AS, (mapped() + int(float(sys.argv[1])), resource.RLIM_INFINITY))
n_jobs = None if sys.argv[3] == "none" else int(sys.argv[3])
p = rarity.Classifier("forest(n=20)", n_jobs=n_jobs).fit(X, y).predict_proba(X[:3])
print("fitted", p.shape)
"""


def _under_limit(left, rows, n_jobs, **env):
    import os

    return subprocess.run(
        [sys.executable, "-c", _UNDER_LIMIT, str(left), str(rows), str(n_jobs)],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1", **env},
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc are Linux's")
def test_memory_limits_fail_clearly_never_abort():
    """Under an address-space limit (ulimit -v) the default thread count fits
    the stacks the limit holds, an n_jobs whose stacks cannot fit is a
    ValueError, and an allocation that fails elsewhere ends the process
    with a clear message and exit code 2, never Rust's abort (issue 51,
    item 8)."""
    gib = str(1 << 30)
    # Stacks of 1 GiB (RUST_MIN_STACK) with 1.5 GB left: one thread fits
    # (one per core would not, on a machine of two cores or more).
    out = _under_limit(1.5e9, 2000, "none", RUST_MIN_STACK=gib)
    assert out.returncode == 0 and "fitted (3, 2)" in out.stdout, out.stderr
    out = _under_limit(1.5e9, 2000, 4, RUST_MIN_STACK=gib)
    assert out.returncode == 1, out
    assert "ValueError: n_jobs=4 would need 4.3 GB of thread stacks" in out.stderr, out.stderr
    assert "ulimit -v" in out.stderr
    # A million rows fit; a forest grown on them in 60 MB more does not,
    # and its allocations are not a buffer that grows with the input.
    out = _under_limit(60e6, 1_000_000, 2)
    assert out.returncode == 2, out
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("rarity: error: out of memory: "), out.stderr
    assert "could not be allocated" in lines[0] and "n_jobs" in lines[0], out.stderr
    for bad in ["memory allocation of", "panicked", "Traceback"]:
        assert bad not in out.stderr
