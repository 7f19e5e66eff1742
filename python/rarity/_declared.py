"""Each job's parameters declared once, in the library (``rarity::job::declared``):
the defaults of a Python job function and the numpydoc entries of its
docstring are read from the declaration at import, and the values a caller
gives go back to the library as text, read and checked there as the command
line's flags are (the same words for the same mistake).
"""

from __future__ import annotations

import inspect
import numbers
import textwrap

import numpy as np

from . import _rarity


def _value(text):
    """A Python default of a declared default's spec text."""
    if text == "none":
        return None
    if text in ("true", "false"):
        return text == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text.strip("'")


def _text(v):
    """The spec text of a Python value (a whole number as one, a float
    with every digit, True as ``true``); a text as it is."""
    if isinstance(v, str):
        return v
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        return repr(float(v))
    return repr(v)


def _type(expected):
    """The numpydoc type of what a parameter accepts."""
    optional = expected.endswith(" or none")
    base = expected[: -len(" or none")] if optional else expected
    name = ("int" if base.startswith("a whole number") else "float" if base.startswith("a number")
            else "bool" if base.startswith("true or false") else "str")
    return name


class Job:
    """The declaration of one job: ``table`` (name, Python keyword, expected,
    default, doc, required per parameter), ``defaults`` (Python values by
    keyword, of those with one), ``required`` (the keywords without) and
    ``python_only``."""

    def __init__(self, name):
        self.name = name
        self.table, self.python_only = _rarity.job_params(name)
        self.required = [p["python"] for p in self.table if p["required"]]
        self.defaults = {p["python"]: _value(p["default"]) for p in self.table if not p["required"]}

    def docs(self):
        """The numpydoc entries of the declared parameters."""
        out = []
        for p in self.table:
            key = p["python"]
            if p["required"]:
                out.append(f"{key} : {_type(p['expected'])}")
            else:
                out.append(f"{key} : {_type(p['expected'])}, default={self.defaults[key]!r}")
            text = f"{p['doc'].rstrip('.')} ({p['expected']})."
            out.extend(textwrap.wrap(text, 72, initial_indent="    ", subsequent_indent="    "))
        return "\n".join(out)

    def texts(self, values):
        """``(name, text)`` of each declared parameter given by keyword in
        ``values`` (None: its default), for the library to read."""
        out = []
        for p in self.table:
            v = values[p["python"]]
            if v is None:
                continue
            out.append((p["name"], _text(v)))
        return out

    def check_signature(self, func, own=None):
        """Names of ``func``'s parameters the declaration does not have, and
        of declared ones it lacks or whose default differs (empty: in step);
        ``own``: the function's own keywords (default ``python_only``)."""
        own = self.python_only if own is None else own
        params = inspect.signature(func).parameters
        wrong = [n for n in params if n not in self.defaults and n not in self.required and n not in own]
        wrong += [n for n, d in self.defaults.items() if n not in params or params[n].default != d]
        wrong += [n for n in self.required if n not in params or params[n].default is not inspect.Parameter.empty]
        wrong += [n for n in own if n not in params]
        return wrong
