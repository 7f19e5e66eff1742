"""Specs from Python values, and Python values from the registries' defaults.

The registries (``rarity._rarity.registry``) give every parameter as spec
text: its default (``100``, ``0.5``, ``none``, ``gini``, ``[0.2,1]``), what
it accepts and a one-line doc. Named estimator and sampler classes turn the
defaults into Python values for their ``__init__`` signatures, and the
keyword arguments back into a spec for the library, which checks every value.
"""

from __future__ import annotations

import inspect
import keyword
import numbers
import re

import numpy as np

from . import _rarity

_NUMBER = re.compile(r"^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


def default_value(text, expected=""):
    """The Python value of a registry default (spec text); a number a
    parameter accepts as a real number (``expected`` says ``a number``) is a
    float."""
    if expected.startswith("a number") and _NUMBER.match(text):
        return float(text)
    if text in ("none", "-"):
        return None
    if text == "true":
        return True
    if text == "false":
        return False
    if _NUMBER.match(text):
        f = float(text)
        return int(f) if re.match(r"^-?\d+$", text) else f
    if text.startswith("[") and text.endswith("]"):
        return tuple(default_value(t) for t in text[1:-1].split(",") if t)
    return text


def spec_text(v):
    """A Python value as spec text (``None`` is ``none``; lists ``[a,b]``)."""
    if v is None:
        return "none"
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        return repr(float(v))
    if isinstance(v, str):
        return one_value(v)
    if isinstance(v, (list, tuple, np.ndarray)):
        return "[" + ",".join(spec_text(x) for x in v) + "]"
    spec = getattr(v, "spec", None)
    if isinstance(spec, str):
        return spec
    raise ValueError(f"{v!r} cannot be written in a spec; expected a number, a word, a list or None")


def one_value(text):
    """``text`` when the spec grammar reads it as one word or call (``gini``,
    ``tree(max_depth=3)``); a ``ValueError`` otherwise. A parameter is a
    typed value, never text spliced into a spec: ``'3)+threshold(0.001'``
    or ``'2,min_samples_leaf=50'`` would add stages or arguments, and a
    number or a list is passed as one, not as its text."""
    kind = _rarity.value_kind(text)
    if kind in ("number", "list"):
        raise ValueError(f"{text!r} is a string; pass the {kind} itself, not its text")
    return text


def call(name, params, defaults):
    """``name(k=v, ...)`` with the parameters that differ from their defaults;
    a value that is not one spec value is a ``ValueError`` naming it."""
    args = []
    for k, v in params.items():
        if _same(v, defaults.get(k, object())):
            continue
        try:
            args.append(f"{k}={spec_text(v)}")
        except ValueError as e:
            raise ValueError(f"{k}={v!r} is invalid: {e}") from None
    return f"{name}({','.join(args)})" if args else name


def _same(a, b):
    if isinstance(a, (list, tuple, np.ndarray)) or isinstance(b, (list, tuple, np.ndarray)):
        try:
            return list(a) == list(b)
        except TypeError:
            return False
    if type(a) is bool or type(b) is bool:
        return a is b
    return a == b


def registry(family):
    """The registry ``family`` as a list of dicts (cached)."""
    if family not in _CACHE:
        _CACHE[family] = _rarity.registry(family)
    return _CACHE[family]


_CACHE: dict = {}

_ACRONYMS = {"pt", "eb", "rb", "smote", "rus", "knn", "svm", "lda", "qda", "gnb", "svdd", "nb", "enn", "cnn", "oss", "ncl"}


def class_name(entry):
    """The Python class name of a registry entry: the one it gives
    (``forest`` -> ``RandomForest``), else its name's parts capitalised
    (``eb-bagging`` -> ``EBBagging``)."""
    if entry.get("python"):
        return entry["python"]
    parts = re.split(r"[-_]", entry["name"])
    return "".join(p.upper() if p in _ACRONYMS else p.capitalize() for p in parts)


def python_name(param):
    """A parameter name usable as a keyword (``fn`` stays ``fn``; keywords get ``_``)."""
    return param + "_" if keyword.iskeyword(param) else param


def signature(params):
    """An ``inspect.Signature`` of keyword parameters ``(name, default)``."""
    return inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [
            inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=d)
            for n, d in params
        ]
    )


def keyword_init(params, aliases=None):
    """An ``__init__`` taking the keyword parameters ``(name, default)`` and
    storing each as an attribute of that name, with their :func:`signature`
    (scikit-learn's ``get_params`` reads the parameters from it).

    ``aliases`` maps other spellings to a parameter (``{"n_estimators":
    "n"}``): one parameter, so the spelling given last wins and only the
    parameter is in the signature (and in ``get_params``)."""
    keys = [k for k, _ in params]
    aliases = dict(aliases or {})

    def __init__(self, **kwargs):
        unknown = set(kwargs) - set(keys) - set(aliases)
        if unknown:
            raise TypeError(
                f"{type(self).__name__}() got unexpected keyword argument(s) "
                f"{', '.join(sorted(unknown))}; accepted: {', '.join(keys + list(aliases))}"
            )
        given = unalias(kwargs, aliases)
        for k, d in params:
            setattr(self, k, given.get(k, d))

    __init__.__signature__ = signature(params)
    return __init__


def unalias(kwargs, aliases):
    """``kwargs`` with every alias replaced by its parameter; when both
    spellings are given, the one given last wins (keyword order)."""
    out = {}
    for k, v in kwargs.items():
        k = aliases.get(k, k)
        out.pop(k, None)
        out[k] = v
    return out


def param_doc(p):
    """The numpydoc lines of one registry parameter."""
    default = default_value(p["default"], p["expected"])
    return f"{p['name']} : {p['expected']}, default={default!r}\n    {p['doc']}"
