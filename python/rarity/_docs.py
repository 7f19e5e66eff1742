"""Numpydoc sections that several functions share, written once.

A docstring names a shared section with a line ``%(name)s``;
:func:`sections` puts the section's text there, indented as that line, so
the text reads the same wherever it stands (and in ``help()``).
"""

from __future__ import annotations

import re


def sections(**texts):
    """A decorator: the function's docstring with every ``%(name)s`` line
    replaced by ``texts[name]`` (each line indented as the placeholder)."""

    def fill(func):
        doc = func.__doc__
        for name, text in texts.items():
            line = re.search(rf"^( *)%\({name}\)s$", doc, re.M)
            if line is None:
                raise ValueError(f"{func.__name__}'s docstring has no %({name})s line")
            indent = line.group(1)
            doc = doc.replace(line.group(0), "\n".join(indent + t if t else t for t in text.splitlines()))
        func.__doc__ = doc
        return func

    return fill


#: The docstring body of ``report_html`` on every result with a report.
REPORT_HTML = """\
The HTML report of :meth:`report` as one page (tables and SVG
figures inline, nothing fetched).

Returns
-------
str"""
