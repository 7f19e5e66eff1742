"""Documentation that runs: every docstring example (numpydoc ``Examples``
sections) as a doctest, the README's Python example as written, and the
committed type stubs equal to the ones the live package generates."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re

import pytest

import rarity
from conftest import REPO

#: Every module of the package, found, not listed; ``rarity.spark``'s
#: examples need a Spark session and run in ``test_spark.py``.
MODULES = ["rarity"] + sorted(
    f"rarity.{m.name}" for m in pkgutil.iter_modules(rarity.__path__) if m.name != "spark"
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert res.failed == 0, f"{res.failed} of {res.attempted} examples failed in {name}"


def test_every_public_item_has_a_numpydoc_docstring_with_an_example():
    import rarity
    from rarity import sampling

    items = [getattr(rarity, n) for n in rarity.__all__ if n[0].isupper() and n not in ("NotANumberError", "RunResult", "EvaluateResult", "Explanation", "ModelSummary")]
    items += [getattr(sampling, n) for n in sampling.__all__]
    for mod in (rarity.calibration, rarity.metrics, rarity.stats, rarity.select, rarity.datasets,
                rarity.model_selection, rarity.experiments):
        items += [getattr(mod, n) for n in mod.__all__]
    items += [rarity.run, rarity.evaluate, rarity.explain, rarity.show]
    for obj in items:
        doc = obj.__doc__ or ""
        assert ">>>" in doc, f"{obj.__name__}: no example"
        if callable(obj) and not isinstance(obj, type):
            assert "Returns" in doc or "Parameters" in doc, f"{obj.__name__}: no numpydoc sections"


def readme_python_examples():
    text = (REPO / "README.md").read_text()
    m = re.search(r"## Python\b(.*?)\n## ", text, re.S)
    assert m, "the README has a Python section"
    blocks = re.findall(r"```python\n(.*?)```", m.group(1), re.S)
    assert blocks, "the README's Python section has ```python examples"
    return blocks


@pytest.mark.parametrize("index", range(6))
def test_readme_examples_run_as_written(capsys, index):
    code = readme_python_examples()[index]
    assert len([l for l in code.splitlines() if l.strip()]) <= 10
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out.strip()


def test_readme_shows_every_job():
    code = "".join(readme_python_examples())
    for job in ("rarity.run(", "rarity.explain(", "rarity.show(", "rarity.GradientBoosting(", "feature_importances_",
                "rarity.evaluate(", "oof=True", "rarity.select.select(", "rarity.calibration.em_priors(",
                "rarity.calibration.adjust_to_priors(", "rarity.resample(", "rarity.metrics.score(", "metrics=[",
                "predict_proba(", "rarity.calibration.recalibrate(", "rarity.experiments.calibration(",
                "rarity.experiments.pt_bagging(", "rarity.experiments.reverse_testing("):
        assert job in code, f"the README's Python examples do not show {job}"


def test_type_stubs_are_current():
    from rarity import _stubs

    for name, text in _stubs.stubs().items():
        path = REPO / "python" / "rarity" / name
        assert path.exists(), f"missing stub {name}: run python -m rarity._stubs python/rarity"
        assert path.read_text() == text, f"stale stub {name}: run python -m rarity._stubs python/rarity"
