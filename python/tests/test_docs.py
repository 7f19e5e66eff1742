"""Documentation that runs: every docstring example (numpydoc ``Examples``
sections) as a doctest, the README's Python example as written, and the
committed type stubs equal to the ones the live package generates."""

from __future__ import annotations

import doctest
import importlib
import re

import pytest

from conftest import REPO

MODULES = [
    "rarity",
    "rarity._classifier",
    "rarity._run",
    "rarity.calibration",
    "rarity.datasets",
    "rarity.metrics",
    "rarity.model_selection",
    "rarity.sampling",
    "rarity.select",
    "rarity.stats",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert res.failed == 0, f"{res.failed} of {res.attempted} examples failed in {name}"


def test_every_public_item_has_a_numpydoc_docstring_with_an_example():
    import rarity
    from rarity import sampling

    items = [getattr(rarity, n) for n in rarity.__all__ if n[0].isupper() and n not in ("NotANumberError", "RunResult")]
    items += [getattr(sampling, n) for n in sampling.__all__]
    for mod in (rarity.calibration, rarity.metrics, rarity.stats, rarity.select, rarity.datasets,
                rarity.model_selection):
        items += [getattr(mod, n) for n in mod.__all__]
    items.append(rarity.run)
    for obj in items:
        doc = obj.__doc__ or ""
        assert ">>>" in doc, f"{obj.__name__}: no example"
        if callable(obj) and not isinstance(obj, type):
            assert "Returns" in doc or "Parameters" in doc, f"{obj.__name__}: no numpydoc sections"


def readme_python_example():
    text = (REPO / "README.md").read_text()
    m = re.search(r"## Python\b.*?```python\n(.*?)```", text, re.S)
    assert m, "the README has a Python section with a ```python example"
    return m.group(1)


def test_readme_example_runs_as_written(capsys):
    code = readme_python_example()
    assert len([l for l in code.splitlines() if l.strip()]) <= 10
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out.strip()


def test_type_stubs_are_current():
    from rarity import _stubs

    for name, text in _stubs.stubs().items():
        path = REPO / "python" / "rarity" / name
        assert path.exists(), f"missing stub {name}: run python -m rarity._stubs python/rarity"
        assert path.read_text() == text, f"stale stub {name}: run python -m rarity._stubs python/rarity"
