"""Each job's parameters declared once, in the library (``rarity::job::declared``):
the defaults of a Python job function and the numpydoc entries of its
docstring are read from the declaration at import, and the values a caller
gives go back to the library as text, read and checked there as the command
line's flags are (the same words for the same mistake).
"""

from __future__ import annotations

import inspect
import textwrap

from . import _rarity
from ._spec import default_value, spec_text


def _value(p):
    """The Python default of a declared parameter (its default's spec text,
    read as the registries' defaults are; a quoted text unquoted)."""
    text = p["default"]
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1]
    return default_value(text, p["expected"])


def _text(v):
    """The text of a Python value for the library's reader: a text as it is
    (the reader takes it whole), anything else as spec text."""
    return v if isinstance(v, str) else spec_text(v)


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
        self.defaults = {p["python"]: _value(p) for p in self.table if not p["required"]}

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
