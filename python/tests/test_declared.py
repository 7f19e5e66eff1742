"""Each declared job's Python function against the library's declaration
(issue 53): its keywords, defaults and docstring entries are the
declaration's, plus its own (``python_only``), and a job the library
declares has its function here; a keyword added or dropped by hand fails."""

import pytest

import rarity
from rarity import _declared, _rarity

FUNCTIONS = {
    "monitor": rarity.monitor,
    "explain": rarity.explain,
    "resample": rarity.resample,
    "select": rarity.select.select,
}


def test_every_declared_job_has_its_function():
    assert sorted(_rarity.declared_jobs()) == sorted(FUNCTIONS)


@pytest.mark.parametrize("job", sorted(FUNCTIONS))
def test_the_function_is_its_declaration(job):
    d = _declared.Job(job)
    func = FUNCTIONS[job]
    assert d.check_signature(func) == []
    if job == "select":
        assert d.check_signature(rarity.select.reverse_testing) == []
        assert d.defaults["method"] == rarity.select.DEFAULT_METHOD
    doc = " ".join(func.__doc__.split())
    for p in d.table:
        assert f"{p['python']} : " in func.__doc__, p
        assert (p["python"] in d.required) == p["required"], p
        assert p["doc"].rstrip(".") in doc, p


def test_python_keywords_and_errors_are_spelled_as_python_spells_them():
    d = _declared.Job("explain")
    assert d.defaults == {"metric": "average_precision", "n_repeats": 5}
    assert d.texts({"metric": "roc_auc", "n_repeats": 3}) == [("metric", "roc_auc"), ("repeats", "3")]
    X, y = rarity.datasets.load("glass6")
    m = rarity.GradientBoosting(max_iter=5).fit(X, y)
    with pytest.raises(ValueError, match=r"explain: n_repeats=0: expected a whole number >= 1"):
        rarity.explain(m, X, y, n_repeats=0)
    with pytest.raises(ValueError, match=r"explain: n_repeats=2.5: expected a whole number"):
        rarity.explain(m, X, y, n_repeats=2.5)
    import numpy as np

    e = rarity.explain(m, X, y, metric="recall_at_precision(p=0.5)", n_repeats=np.int64(2))
    assert e.metric == "recall_at_precision(p=0.5)"


def test_a_required_parameter_has_no_default_and_is_refused_when_missing():
    d = _declared.Job("resample")
    assert d.required == ["method"] and "method" not in d.defaults
    assert d.defaults["standardise"] is False and d.defaults["k"] is None

    def no_method(data, target=None, *, beta=None, ratio=None, k=None, amount=None, a=None,
                  standardise=False, pos_label=None, seed=42, random_state=None, n_jobs=None,
                  categorical="error", categorical_cols=None, missing="auto", delimiter=",",
                  decimal=".", header=True, drop=None, drop_constant=False):
        pass

    assert d.check_signature(no_method) == ["method"]
    X, y = rarity.datasets.load("ecoli4")
    with pytest.raises(ValueError, match=r"resample: k=0\.5: expected a whole number"):
        rarity.resample((X, y), "smote", k=0.5)
    r = rarity.resample((X, y), "smote", k=3, standardise=True)
    assert r.to_dict()["method"].startswith("smote(")
