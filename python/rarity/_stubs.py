"""Type stubs of the package, written from the live classes and functions
(the named estimators and samplers are generated from the registries, so
their stubs are too). ``python -m rarity._stubs DIR`` writes them;
``python/tests/test_docs.py`` checks the committed ones are current."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

HEADER = '''# Type stubs of rarity{mod}, written by `python -m rarity._stubs`; do not edit.
from typing import Any, Optional, Sequence, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray
'''

#: Annotations by parameter name (anything else: from its default).
PARAM_TYPES = {
    "X": "Any",
    "X_train": "Any",
    "X_target": "Any",
    "y": "Any",
    "y_train": "Any",
    "y_true": "ArrayLike",
    "y_score": "ArrayLike",
    "y_pred": "Optional[ArrayLike]",
    "proba": "ArrayLike",
    "scores": "ArrayLike",
    "table": "ArrayLike",
    "x": "ArrayLike",
    "keep_rates": "Sequence[float]",
    "train_priors": "Sequence[float]",
    "target_priors": "Sequence[float]",
    "sample_weight": "Optional[ArrayLike]",
    "labels": "Optional[ArrayLike]",
    "input_features": "Optional[Sequence[str]]",
    "learners": "Union[str, Sequence[str]]",
    "models": "Optional[Sequence[str]]",
    "decision_metric": "Optional[str]",
    "data": "Any",
    "directory": "Any",
    "path": "Any",
    "estimator": "Any",
    "model": "Any",
    "sampler": "Any",
    "sampling_strategy": "Union[str, float, dict[Any, int]]",
    "random_state": "Optional[int]",
    "pos_label": "Any",
    "categorical_features": "Optional[Union[str, Sequence[Any]]]",
    "missing": "str",
    "unknown": "str",
    "target": "Optional[Union[str, int]]",
    "cost": "Optional[Union[str, dict[str, float]]]",
    "correct": "Optional[Union[bool, str]]",
    "n_jobs": "Optional[int]",
    "family": "str",
    "spec": "str",
    "seed": "int",
    "calibration": "Optional[str]",
    "decision": "Optional[str]",
    "n_estimators": "int",
    "metrics": "Optional[Sequence[str]]",
}

#: Annotations of :func:`rarity.resample`'s sampler parameters.
RESAMPLE_TYPES = {
    "method": "str",
    "beta": "Optional[float]",
    "ratio": "Optional[float]",
    "k": "Optional[int]",
    "amount": "Optional[float]",
    "a": "Optional[float]",
}

RETURNS = {
    "fit": "Any",
    "fit_resample": "tuple[Any, Any]",
    "predict": "NDArray[Any]",
    "predict_proba": "NDArray[np.float64]",
    "score": "Any",
    "get_params": "dict[str, Any]",
    "set_params": "Any",
    "get_feature_names_out": "NDArray[np.object_]",
    "to_bytes": "bytes",
    "save": "None",
    "report": "str",
    "folds": "list[dict[str, Any]]",
    "registry": "list[dict[str, Any]]",
    "run": "RunResult",
    "evaluate": "EvaluateResult",
    "select": "Selection",
    "resample": "ResampleResult",
    "to_text": "str",
    "explain": "Explanation",
    "monitor": "MonitorResult",
    "report_html": "str",
    "show": "ModelSummary",
    "to_dict": "dict[str, Any]",
    "export_onnx": "bytes | None",
    "to_onnx": "bytes | None",
    "correct": "NDArray[np.float64]",
    "corrected_threshold": "float",
    "adjust_to_priors": "NDArray[np.float64]",
    "em_priors": "tuple[NDArray[np.float64], NDArray[np.float64], int, bool]",
    "names": "list[str]",
    "describe": "list[tuple[str, str, str]]",
    "load": "tuple[Any, Any]",
    "keys": "list[str]",
    "friedman": "dict[str, float]",
    "nemenyi": "dict[str, Any]",
    "wilcoxon": "dict[str, Any]",
    "mean_ranks": "NDArray[np.float64]",
    "critical_difference": "float",
    "reverse_testing": "Selection",
    "report_html": "str",
    "write_pairs": "str",
}

FITTED = {
    "classifier": [
        ("classes_", "NDArray[Any]"),
        ("n_features_in_", "int"),
        ("feature_names_in_", "NDArray[np.object_]"),
        ("spec_", "str"),
        ("priors_", "NDArray[np.float64]"),
        ("keep_rates_", "NDArray[np.float64]"),
        ("member_keep_rates_", "Optional[NDArray[np.float64]]"),
        ("threshold_", "Optional[float]"),
        ("pos_label_", "Any"),
        ("decision_rule_", "dict[str, Any]"),
        ("is_categorical_", "Optional[NDArray[np.bool_]]"),
        ("model_", "Any"),
        ("feature_importances_", "NDArray[np.float64]"),
    ],
    "corrected": [
        ("estimator_", "Any"),
        ("classes_", "NDArray[Any]"),
        ("n_features_in_", "int"),
        ("keep_rates_", "NDArray[np.float64]"),
        ("threshold_", "Optional[float]"),
        ("lambdas_", "Optional[NDArray[np.float64]]"),
        ("pos_label_", "Any"),
        ("sample_indices_", "NDArray[np.int64]"),
    ],
    "sampler": [
        ("classes_", "NDArray[Any]"),
        ("n_features_in_", "int"),
        ("feature_names_in_", "NDArray[np.object_]"),
        ("keep_rates_", "NDArray[np.float64]"),
        ("sample_indices_", "NDArray[np.int64]"),
        ("sampling_strategy_", "dict[Any, int]"),
        ("notes_", "list[str]"),
        ("spec_", "str"),
    ],
    "run": [
        ("ranking", "Any"),
        ("verdict", "dict[str, Any]"),
        ("winner", "Classifier"),
        ("metric", "str"),
        ("level", "str"),
        ("decision_metric", "str"),
        ("decisions", "list[dict[str, Any]]"),
    ],
    "evaluate": [("metrics", "dict[str, Any]"), ("oof", "Any")],
    "resample": [
        ("X", "NDArray[np.float64]"),
        ("y", "NDArray[Any]"),
        ("method", "str"),
        ("classes", "list[str]"),
        ("before", "list[int]"),
        ("after", "list[int]"),
        ("keep_rates", "list[float]"),
        ("synthetic_rows", "int"),
        ("notes", "list[str]"),
    ],
    "gbdt": [("n_iter_", "int")],
    "explanation": [
        ("spec", "str"),
        ("metric", "str"),
        ("higher_is_better", "bool"),
        ("baseline", "float"),
        ("repeats", "int"),
        ("rows", "int"),
        ("permutation", "Any"),
        ("split_gain", "Any"),
    ],
    "monitor": [
        ("columns", "Any"),
        ("score", "dict[str, Any]"),
        ("alert_rate", "dict[str, Any]"),
        ("priors", "dict[str, Any]"),
        ("labelled", "Optional[dict[str, Any]]"),
        ("failed", "list[str]"),
    ],
}


#: Annotations of rarity.spark's parameters (pyspark is optional: its types
#: are named in comments of the docstrings, ``Any`` here).
SPARK_TYPES = {
    "df": "Any",
    "sample": "Any",
    "model": "Any",
    "label": "str",
    "features": "Optional[Sequence[str]]",
    "beta": "Optional[float]",
    "ratio": "Optional[float]",
    "rates": "Optional[dict[Any, float]]",
    "key": "Optional[str]",
    "positive": "Optional[Any]",
    "storage_level": "Optional[Any]",
    "path": "Optional[Any]",
    "partitions": "Optional[int]",
    "reference": "Any",
    "current": "Any",
    "fail_on": "Optional[str]",
}

#: Annotations of rarity.experiments' parameters.
EXPERIMENT_TYPES = {
    "datasets": "Union[str, Sequence[str]]",
    "data_dirs": "Union[Any, Sequence[Any]]",
    "levels": "Union[str, Sequence[float]]",
    "sizes": "Union[str, Sequence[int]]",
    "variants": "Union[str, Sequence[str]]",
    "methods": "Union[str, Sequence[str]]",
    "cv": "Union[str, int]",
}

#: Annotations of rarity.monitor's parameters that their defaults do not tell.
MONITOR_TYPES = {"model": "Any", "reference": "Any", "current": "Any", "label": "Optional[str]",
                 "fail_on": "Optional[str]"}

#: Annotations of the jobs' parameters that their defaults do not tell.
JOB_TYPES = {"cv": "Union[str, int]"}

#: Annotations of the experiments' outcome attributes (anything else: Any).
EXPERIMENT_ATTRS = {
    "skipped": "list[str]",
    "seconds": "float",
    "cv": "str",
    "levels": "list[float]",
    "sizes": "list[int]",
    "measures": "list[str]",
    "binary_methods": "list[str]",
    "multiclass_methods": "list[str]",
    "binary": "Optional[dict[str, Any]]",
    "multiclass": "Optional[dict[str, Any]]",
    "table_v": "list[dict[str, Any]]",
    "brier_corrected_below_undersampled": "list[list[Any]]",
    "gaussian": "list[dict[str, Any]]",
    "cells": "list[dict[str, Any]]",
    "splits": "int",
    "metric": "str",
    "seed": "int",
    "methods": "list[dict[str, Any]]",
    "per_dataset": "list[dict[str, Any]]",
}

SPARK_RETURNS = {
    "undersample": "Sample",
    "fit": "Any",
    "predict": "Any",
    "evaluate": "dict[str, float]",
    "monitor": "Any",
    "load_model": "Any",
}


def _type_of(name, default, types=None):
    if types and name in types:
        return types[name]
    if name in PARAM_TYPES:
        return PARAM_TYPES[name]
    if default is inspect.Parameter.empty:
        return "Any"
    if default is None:
        return "Optional[Any]"
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, int):
        return "int"
    if isinstance(default, float):
        return "float"
    if isinstance(default, str):
        return "str"
    if isinstance(default, tuple):
        return "Sequence[float]"
    return "Any"


def _sig(fn, name, ret=None, types=None):
    sig = inspect.signature(fn)
    parts, star = [], False
    for p in sig.parameters.values():
        if p.kind == p.VAR_KEYWORD:
            parts.append(f"**{p.name}: Any")
            continue
        if p.name == "self":
            parts.append("self")
            continue
        if p.kind == p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        t = _type_of(p.name, p.default, types)
        if types and p.default is None and not t.startswith("Optional") and t != "Any":
            t = f"Optional[{t}]"
        parts.append(f"{p.name}: {t}" + ("" if p.default is inspect.Parameter.empty else " = ..."))
    return f"def {name}({', '.join(parts)}) -> {ret or RETURNS.get(name, 'Any')}: ..."


def _class(cls, base, kind, methods, init=True):
    lines = [f"class {cls.__name__}({base}):" if base else f"class {cls.__name__}:"]
    for attr, t in FITTED.get(kind, []):
        lines.append(f"    {attr}: {t}")
    aliases = getattr(cls, "_aliases", {})
    for a in aliases:
        lines.append(f"    {a}: {PARAM_TYPES[a]}")
    if init:
        sig = _sig(cls.__init__, "__init__", "None")
        # Other spellings of a parameter are keywords too (not in the
        # signature, which scikit-learn reads the parameters from).
        extra = "".join(f", {a}: {PARAM_TYPES[a]} = ..." for a in aliases)
        lines.append("    " + sig.replace(") -> None: ...", extra + ") -> None: ..."))
    for m in methods:
        lines.append("    " + _sig(getattr(cls, m), m))
    return "\n".join(lines)


def stubs():
    """``{file name: text}`` of every stub."""
    import rarity
    from rarity import _classifier, _run, calibration, datasets, metrics, model_selection, sampling, select, stats

    est_methods = ["fit", "predict_proba", "predict", "score", "get_params", "set_params"]
    out = {}
    init = [HEADER.format(mod=""), "from . import calibration as calibration, datasets as datasets, metrics as metrics",
            "from . import experiments as experiments",
            "from . import model_selection as model_selection, sampling as sampling, select as select, stats as stats", "",
            "__version__: str", "",
            "class NotANumberError(ValueError, TypeError): ...", "",
            _sig(rarity.registry, "registry"), _sig(rarity.export_onnx, "export_onnx"),
            _sig(rarity.load, "load", "Any"), ""]
    init.append(_class(_classifier._RarityClassifier, "", "classifier", est_methods + ["to_bytes", "save", "to_onnx"],
                       init=False))
    # A classmethod: its signature has no `cls`; the stub says what it returns.
    load = _sig(_classifier._RarityClassifier.load, "load", "Any").replace("def load(", "def load(cls, ")
    init.append(f"    @classmethod\n    {load}")
    init.append("")
    init.append(_class(rarity.Classifier, "_RarityClassifier", "", []))
    for cls in _classifier.ENSEMBLE_CLASSES.values():
        init += ["", _class(cls, "_RarityClassifier", "", [])]
    init += ["", _class(rarity.GradientBoosting, "_RarityClassifier", "gbdt", [])]
    init += ["", _class(rarity.CorrectedClassifier, "", "corrected", est_methods)]
    init += ["", _class(_run.RunResult, "", "run", ["folds", "to_dict", "to_text", "report"])]
    init += ["", _sig(_run.run, "run", types=JOB_TYPES)]
    init += ["", _class(rarity.EvaluateResult, "", "evaluate", ["to_dict", "to_text"], init=False)]
    init += ["", _sig(rarity.evaluate, "evaluate", types=JOB_TYPES)]
    init += ["", _class(rarity.Explanation, "", "explanation", ["to_dict"], init=False)]
    init += ["", _class(rarity.ModelSummary, "dict[str, Any]", "", ["to_dict"], init=False)]
    init += ["", _sig(rarity.explain, "explain"), _sig(rarity.show, "show")]
    init += ["", _class(rarity.MonitorResult, "", "monitor", ["to_dict", "to_text", "report", "report_html"],
                        init=False)]
    init += ["", _sig(rarity.monitor, "monitor", types=MONITOR_TYPES)]
    init += ["", _class(rarity.ResampleResult, "", "resample", ["to_dict"], init=False)]
    init += ["", _sig(rarity.resample, "resample", types=RESAMPLE_TYPES), ""]
    out["__init__.pyi"] = "\n".join(init)

    smp = [HEADER.format(mod=".sampling"), "__all__: list[str]", ""]
    smp.append(_class(sampling._Base, "", "sampler", ["fit", "fit_resample", "get_feature_names_out", "get_params", "set_params"], init=False))
    for cls in dict.fromkeys([sampling.Sampler, *sampling.CLASSES.values()]):
        smp += ["", _class(cls, "_Base", "", [])]
    smp.append("")
    out["sampling.pyi"] = "\n".join(smp)

    sel = [HEADER.format(mod=".model_selection"), "__all__: list[str]", ""]
    for name in model_selection.__all__:
        cls = getattr(model_selection, name)
        sel += [f"class {name}:", "    " + _sig(cls.__init__, "__init__", "None"),
                "    " + _sig(cls.get_n_splits, "get_n_splits", "int"),
                "    " + _sig(cls.split, "split", "Any"), ""]
    out["model_selection.pyi"] = "\n".join(sel)

    for mod, fname in [(calibration, "calibration.pyi"), (metrics, "metrics.pyi"), (stats, "stats.pyi"),
                       (select, "select.pyi"), (datasets, "datasets.pyi")]:
        lines = [HEADER.format(mod="." + mod.__name__.split(".")[-1]), "__all__: list[str]", ""]
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.isclass(obj):
                methods = [m for m in ("fit", "predict") if hasattr(obj, m)]
                if not methods:
                    base = "dict[str, Any]" if issubclass(obj, dict) else ""
                    lines.append(f"class {name}({base}): ..." if base else f"class {name}: ...")
                    continue
                body = [f"class {name}:"] + ["    " + _sig(getattr(obj, m), m, "Any" if m == "fit" else "NDArray[np.float64]") for m in methods]
                lines.append("\n".join(body))
            else:
                lines.append(_sig(obj, name, "float" if mod is metrics and name not in ("score", "keys") else None))
        if mod is metrics:
            lines = [l.replace("def score(", "def score(").replace("-> Any", "-> dict[str, float]") if l.startswith("def score(") else l for l in lines]
        lines.append("")
        out[fname] = "\n".join(lines)
    out["spark.pyi"] = _spark_stubs()
    out["experiments.pyi"] = _experiment_stubs()
    return out


def _spark_stubs():
    """The stubs of rarity.spark (importable without pyspark)."""
    from rarity import spark

    lines = [HEADER.format(mod=".spark"), "__all__: list[str]", "", "class Sample:"]
    for name, t in spark.Sample.__annotations__.items():
        lines.append(f"    {name}: {t.replace('Dict', 'dict').replace('object', 'Any')}")
    lines.append("")
    for name in spark.__all__:
        if name != "Sample":
            fn = getattr(spark, name)
            lines.append(_sig(fn, name, SPARK_RETURNS[name], SPARK_TYPES))
    lines.append("")
    return "\n".join(lines)


def _experiment_stubs():
    """The stubs of rarity.experiments: the outcome classes with their
    attributes (the keys of the command's JSON they keep), and the
    functions."""
    from rarity import experiments as ex

    lines = [HEADER.format(mod=".experiments"), "__all__: list[str]", ""]
    base = ex.ExperimentResult
    for name in ex.__all__:
        obj = getattr(ex, name)
        if not inspect.isclass(obj):
            continue
        own = [k for k in obj._KEYS if obj is base or k not in base._KEYS]
        methods = ["to_dict", "to_text", "report", "report_html"] if obj is base else [
            m for m in vars(obj) if not m.startswith("_")]
        lines.append(f"class {name}:" if obj is base else f"class {name}({base.__name__}):")
        lines += [f"    {k}: {EXPERIMENT_ATTRS.get(k, 'Any')}" for k in own] + ["    " + _sig(getattr(obj, m), m) for m in methods]
        lines.append("")
    for name in ex.__all__:
        obj = getattr(ex, name)
        if not inspect.isclass(obj):
            result = "".join(w.capitalize() for w in name.split("_")) + "Result"
            lines.append(_sig(obj, name, result, EXPERIMENT_TYPES))
    lines.append("")
    return "\n".join(lines)


def write(directory):
    for name, text in stubs().items():
        Path(directory, name).write_text(text)


if __name__ == "__main__":
    write(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent)
