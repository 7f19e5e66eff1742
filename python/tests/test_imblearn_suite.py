"""imbalanced-learn 0.14's own sampler tests run against rarity.sampling
(issue 55): ``conftest.py`` collects the 22 test files of the installed
wheel beside this file's tests, their sampler imports pointed at
``rarity.sampling`` (``imblearn_suite``); the tests that pin
imbalanced-learn's random stream or call its private methods are skipped
with their reason, every other one passes."""

from __future__ import annotations

import pytest

import imblearn_suite


def test_the_suite_is_there_and_every_file_is_read():
    root = imblearn_suite.imblearn_root()
    if root is None:
        pytest.skip("imbalanced-learn is not installed (pip install ./python[test])")
    for rel in imblearn_suite.FILES:
        assert (root / rel).is_file(), rel
    assert len(imblearn_suite.FILES) == 22


def test_every_skip_names_a_test_of_the_suite_and_a_reason():
    root = imblearn_suite.imblearn_root()
    if root is None:
        pytest.skip("imbalanced-learn is not installed")
    names = {}
    for rel in imblearn_suite.FILES:
        path = root / rel
        names[path.stem] = path.read_text()
    for (stem, test), reason in imblearn_suite.SKIPPED.items():
        assert f"def {test}(" in names[stem], (stem, test)
        assert "random stream" in reason or "private method" in reason
