"""What a job's outcome renders, kept so that its result pickles.

The native outcomes of ``rarity.run``, ``rarity.evaluate`` and the
experiments hold the library's Rust data, which does not pickle. A result
being pickled keeps instead what the library rendered from it: the JSON of
``--format json``, the text, the HTML report's page and files, and any
table its methods give. :class:`Rendered` answers the same calls as the
native outcome, so the unpickled result behaves as the original did.
"""

from __future__ import annotations

import copy
import os

from . import _rarity


class Rendered:
    """A native outcome's renderings for one ``source`` (``None``: the
    outcome takes no source), answering the native outcome's calls."""

    def __init__(self, native, source=None, tables=()):
        args = () if source is None else (source,)
        self._json = native.to_json(*args)
        self._text = native.to_text(*args)
        self._html = native.report_html(*args) if hasattr(native, "report_html") else None
        self._files = native.report_files(*args) if hasattr(native, "report_files") else None
        self._tables = {name: getattr(native, name)() for name in tables}
        self._pairs = native.pairs_csv() if hasattr(native, "pairs_csv") else None

    def to_json(self, *_source):
        return copy.deepcopy(self._json)

    def to_text(self, *_source):
        return self._text

    def report_html(self, *_source):
        return self._html

    def report(self, directory, *_source):
        _rarity.write_report_files(os.fspath(directory), self._files)

    def write_pairs(self, path):
        if self._pairs is None:
            raise ValueError("pairs: only the reverse-testing experiment counts pairs")
        _rarity.write_file(os.fspath(path), self._pairs.encode())

    def __getattr__(self, name):
        tables = self.__dict__.get("_tables", {})
        if name in tables:
            return lambda: copy.deepcopy(tables[name])
        raise AttributeError(name)


def state(result, source=None, tables=()):
    """``result.__dict__`` for pickling: its native outcome replaced by its
    :class:`Rendered` form (once)."""
    d = dict(result.__dict__)
    if not isinstance(d["_native"], Rendered):
        d["_native"] = Rendered(d["_native"], source, tables)
    return d
