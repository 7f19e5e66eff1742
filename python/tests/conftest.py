"""Shared fixtures: the ``rarity`` binary (for the command-line parity
tests) and small seeded datasets. Tests never read ``/work/shared``."""

from __future__ import annotations

import os
import pathlib
import shutil

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def rarity_binary():
    """The ``rarity`` command line: ``$RARITY_BIN`` (the Rust test sets it),
    else a build under the repository's ``target/``, else ``rarity`` on PATH."""
    env = os.environ.get("RARITY_BIN")
    if env and pathlib.Path(env).exists():
        return env
    for sub in ("release", "debug"):
        p = REPO / "target" / sub / "rarity"
        if p.exists():
            return str(p)
    return shutil.which("rarity")


@pytest.fixture(scope="session")
def cli():
    b = rarity_binary()
    if b is None:
        pytest.skip("the rarity binary is not built (cargo build --release, or set RARITY_BIN)")
    return b


def imbalanced(n=400, d=4, rate=0.1, seed=0, classes=2):
    """Gaussian blobs with a rare class (class 1; more classes share the rest)."""
    rng = np.random.default_rng(seed)
    if classes == 2:
        y = (rng.random(n) < rate).astype(int)
    else:
        y = rng.choice(classes, size=n, p=[1 - rate * (classes - 1)] + [rate] * (classes - 1))
    X = rng.normal(size=(n, d)) + y[:, None] * 1.5
    return X, y


@pytest.fixture
def binary_data():
    return imbalanced()


@pytest.fixture
def multiclass_data():
    return imbalanced(n=450, classes=3, rate=0.15, seed=1)


def pytest_pycollect_makemodule(module_path, parent):
    """``test_imblearn_suite.py`` also collects imbalanced-learn's own sampler
    tests, pointed at ``rarity.sampling`` (``imblearn_suite``)."""
    if module_path.name == "test_imblearn_suite.py":
        import imblearn_suite

        return imblearn_suite.Suite.from_parent(parent, path=module_path)
    return None


def pytest_collection_modifyitems(config, items):
    import imblearn_suite

    imblearn_suite.mark_skipped(items)
