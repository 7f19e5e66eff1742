#!/usr/bin/env python3
"""Combinations of selection methods from the per-pair decisions of
`rarity experiment reverse-testing --pairs FILE --format json > OUT.json`.

Usage: tools/rt_pairs.py PAIRS.csv OUT.json

Prints, over the counted pairs: each method's % correct; the noise ceiling
(mean bootstrap agreement of the true order, the expected % correct of a
method that knew the order on the whole population); majority votes of
method sets (ties: undecided); and `auto` (by the bias tests of each
(dataset, split) cell: iwcv when covariate shift is detected, prior-cv when
only a prior shift is, 10-fold CV otherwise).
"""
import csv
import itertools
import json
import sys

pairs_path, out_path = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(pairs_path)))
cells = {(c["dataset"], c["split"]): c for c in json.load(open(out_path))["cells"]}
fixed = ["dataset", "split", "a", "b", "test_rows", "true_a", "true_b", "agreement"]
methods = [k for k in rows[0].keys() if k not in fixed]


def truth(r):
    return "a" if float(r["true_a"]) > float(r["true_b"]) else "b"


def pct(decisions):
    n = len(rows)
    c = sum(d == truth(r) for d, r in zip(decisions, rows))
    w = sum(d not in ("undecided", truth(r)) for d, r in zip(decisions, rows))
    return f"{c:5d} {w:5d} {n - c - w:5d} {100.0 * c / n:5.1f}"


print(f"{len(rows)} pairs; noise ceiling (mean agreement): "
      f"{100 * sum(float(r['agreement']) for r in rows) / len(rows):.1f}%")
for m in methods:
    print(f"{m[:60]:60s} {pct([r[m] for r in rows])}")


def vote(ms):
    out = []
    for r in rows:
        a = sum(r[m] == "a" for m in ms)
        b = sum(r[m] == "b" for m in ms)
        out.append("a" if a > b else "b" if b > a else "undecided")
    return out


def first_decided(ms):
    """The first method's decision, the next one's where it is undecided."""
    out = []
    for r in rows:
        d = next((r[m] for m in ms if r[m] != "undecided"), "undecided")
        out.append(d)
    return out


cands = [m for m in methods if "paper" not in m and "leave" not in m]
print("\nmajority votes of three:")
for ms in itertools.combinations(cands, 3):
    print(f"{' | '.join(ms)[:100]:100s} {pct(vote(ms))}")
print("\nties broken by the next method:")
for ms in itertools.permutations(cands, 2):
    print(f"{' > '.join(ms)[:100]:100s} {pct(first_decided(ms))}")


def auto(r, iw, pc, cv):
    c = cells[(r["dataset"], int(r["split"]))]
    if c["shift_detected"]:
        return r[iw]
    if c["prior_p_value"] is not None and c["prior_p_value"] < 0.01:
        return r[pc]
    return r[cv]


if "iwcv" in methods and "prior-cv" in methods:
    for iw in [m for m in methods if m.startswith("iwcv")]:
        print(f"\nauto ({iw} / prior-cv / 10-fold CV): "
              f"{pct([auto(r, iw, 'prior-cv', '10-fold CV') for r in rows])}")
detected = sum(bool(c["shift_detected"]) for c in cells.values())
prior = sum(c["prior_p_value"] is not None and c["prior_p_value"] < 0.01 for c in cells.values())
print(f"cells: {len(cells)}; covariate shift detected in {detected}, prior shift in {prior}")
