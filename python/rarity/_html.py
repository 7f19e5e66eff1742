"""Small HTML tables for notebooks (``_repr_html_``): offline, no scripts,
every value escaped."""

from __future__ import annotations

import html
import numbers
import re

STYLE = "border-collapse:collapse;font-family:monospace;font-size:90%"
CELL = "border:1px solid #ccc;padding:2px 6px;text-align:left"


def cell(v):
    """A value as table text: numbers to 4 significant digits."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        return f"{float(v):.4g}"
    if isinstance(v, (list, tuple)):
        return ", ".join(cell(x) for x in v)
    return str(v)


def table(header, rows, caption=None):
    """``<table>`` of ``rows`` (sequences of values) under ``header``."""
    out = [f'<table style="{STYLE}">']
    if caption:
        out.append(f"<caption style=\"text-align:left\"><b>{html.escape(caption)}</b></caption>")
    out.append("<tr>" + "".join(f'<th style="{CELL}">{html.escape(str(h))}</th>' for h in header) + "</tr>")
    for r in rows:
        out.append("<tr>" + "".join(f'<td style="{CELL}">{html.escape(cell(v))}</td>' for v in r) + "</tr>")
    out.append("</table>")
    return "".join(out)


def records(rows, caption=None):
    """A table of dicts (or a pandas / polars frame): one column per key."""
    if hasattr(rows, "to_dicts"):
        rows = rows.to_dicts()
    elif hasattr(rows, "to_dict"):
        rows = rows.to_dict("records")
    rows = list(rows)
    header = list(rows[0]) if rows else []
    return table(header, [[r.get(k) for k in header] for r in rows], caption)


def fields(pairs, caption=None):
    """A two-column ``key | value`` table."""
    return table(["", ""], list(pairs), caption)


def paragraph(text):
    return f"<p>{html.escape(text)}</p>"


#: The line under each report table naming its CSV and JSON files: a
#: report embedded in a notebook has no such files.
_FILES = re.compile(r'<p class="files">[^<]*</p>\n?')


def page(summary, document):
    """A whole HTML document (a report with its own style and inline SVG)
    shown folded under ``summary``, in a frame of its own so that its style
    does not reach the notebook (``srcdoc``: nothing is fetched); the lines
    naming a written report's table files are left out (nothing was
    written)."""
    document = _FILES.sub("", document)
    return (
        f"<details><summary>{html.escape(summary)}</summary>"
        f'<iframe srcdoc="{html.escape(document, quote=True)}" '
        'style="width:100%;height:720px;border:1px solid #ccc" sandbox></iframe></details>'
    )


def model_summary(s):
    """A model summary (``rarity show``'s fields) as HTML tables."""
    skip = ("columns", "members", "features")
    parts = [fields([(k, v) for k, v in s.items() if k not in skip], "model")]
    members = [
        {"kind": m["kind"], "size": m["size"], "keep_rates": m["keep_rates"], "calibration": m["calibration"]}
        for m in s.get("members", [])
    ]
    if members:
        parts.append(records(members, "members"))
    return "".join(parts)

