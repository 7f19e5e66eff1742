#!/usr/bin/env python3
"""Compares two output trees written by tools/golden_outputs.sh.

Every file must be byte-identical, except that measured times are removed
first: in JSON, the keys `fit_seconds`, `predict_seconds` and `seconds`; in
text, the `fit X s, predict Y s` line of `rarity evaluate` and the `; N s`
of the experiments' headers. Exit status 1 lists the files that differ.

    python3 tools/golden_diff.py OLD_DIR NEW_DIR
"""
import json
import os
import re
import sys

TIME_KEYS = {"fit_seconds", "predict_seconds", "seconds"}


def strip_times(value):
    if isinstance(value, dict):
        return {k: strip_times(v) for k, v in value.items() if k not in TIME_KEYS}
    if isinstance(value, list):
        return [strip_times(v) for v in value]
    return value


def normalised(path):
    data = open(path, "rb").read()
    try:
        text = data.decode()
    except UnicodeDecodeError:
        return data
    stripped = text.strip()
    if stripped.startswith("{") or stripped.startswith("["):
        try:
            return json.dumps(strip_times(json.loads(text)), sort_keys=True).encode()
        except json.JSONDecodeError:
            pass
    text = re.sub(r"fit [0-9.]+ s, predict [0-9.]+ s", "fit T s, predict T s", text)
    text = re.sub(r"; [0-9.]+ s\b", "; T s", text)
    return text.encode()


def files(root):
    out = set()
    for d, _, names in os.walk(root):
        for n in names:
            out.add(os.path.relpath(os.path.join(d, n), root))
    return out


def main():
    old, new = sys.argv[1], sys.argv[2]
    a, b = files(old), files(new)
    bad = sorted(a ^ b)
    for f in sorted(a & b):
        if normalised(os.path.join(old, f)) != normalised(os.path.join(new, f)):
            bad.append(f)
    for f in bad:
        print("differs:", f)
    print(f"{len(a & b)} files compared, {len(bad)} differ")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
