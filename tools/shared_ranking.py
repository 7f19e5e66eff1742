#!/usr/bin/env python3
"""The shared sets' ranking: `rarity run` with its default strategies on every dataset of a
directory, then the models ranked over the datasets with the Friedman test and the Nemenyi
critical difference (Demšar 2006), as docs/ranking.md reports.

Usage (from the repository root; needs numpy and scipy; build first with
`cargo build --release`):

    nice -n 15 python3 tools/shared_ranking.py [--data-dir ../shared/data/binary] [--cv 2x5]
        [--metric average_precision] [--only NAME,...] [--rarity target/release/rarity]
        [--cache DIR] [--threads 2]

Each dataset runs `rarity --quiet --format json run FILE --cv CV --metric METRIC -o /dev/null`
(the defaults of `rarity run`: no --model), and its JSON is kept in the cache directory
(default $TMPDIR/rarity-bench/ranking-CV-METRIC/), so an interrupted run resumes. A model's
score on a dataset is its mean METRIC over the folds (the `models` list of the JSON). The
undersampling rates of the defaults depend on the dataset's imbalance (beta1 = (N+/N-)^(2/3)
and beta2 = (N+/N-)^(1/3), none when N+/N- >= 0.5), so they are named by their rule; the
Friedman / Nemenyi comparison takes every model and the datasets on which every model ran
(with a defined METRIC); on a ranking metric a model and its `+correct` copy, identical by
construction, count once. Ranks: 1 is best; ties share the mean rank.
"""
import argparse, json, os, re, subprocess, sys, tempfile, time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benches"))
from trees_vs_sklearn import csv_files  # noqa: E402
HIGHER_IS_BETTER = {"average_precision": True, "roc_auc": True, "brier": False, "log_loss": False}


def generic(models):
    """Model specs with the dataset's undersampling rates named by their rule."""
    betas = sorted({float(b) for m in models for b in re.findall(r"under\(beta=([0-9.]+)\)", m)})
    names = {b: f"beta{i + 1}" for i, b in enumerate(betas)}
    return [re.sub(r"under\(beta=([0-9.]+)\)", lambda x: f"under(beta={names[float(x.group(1))]})", m)
            for m in models]


CORRECT = r"\+correct(\([^)]*\))?"


def merge_corrected(models, metric):
    """On a ranking metric, a model and its `+correct` copy share the fitted model and rank
    rows alike (common random numbers; the correction is monotone): when their values are
    identical they are one entry, `X[+correct]`, so that the test does not count one model
    twice. Each entry keeps the Brier scores of its members."""
    groups = {}
    for spec, m in models.items():
        groups.setdefault(re.sub(CORRECT, "", spec), []).append((spec, m))
    out = {}
    for members in groups.values():
        members.sort(key=lambda sm: sm[0])  # X before X+correct
        same = metric in ("average_precision", "roc_auc") and len({m[metric] for _, m in members}) == 1
        if same and len(members) == 2:
            spec, m = members[1]
            out[re.sub(CORRECT, lambda x: f"[{x.group(0)}]", spec)] = dict(
                m, briers=[x["brier"] for _, x in members])
        else:
            out.update((spec, dict(m, briers=[m["brier"]])) for spec, m in members)
    return out


def run_one(exe, path, a, cache):
    out = os.path.join(cache, os.path.basename(path)[:-4] + ".json")
    if not os.path.exists(out):
        start = time.perf_counter()
        r = subprocess.run([exe, "--quiet", "--format", "json", "--threads", str(a.threads), "run", path,
                            "--cv", a.cv, "--metric", a.metric, "-o", os.devnull],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"rarity run failed on {path}: {r.stderr}")
        v = json.loads(r.stdout)
        v["seconds"] = time.perf_counter() - start
        with open(out + ".tmp", "w") as fh:
            json.dump(v, fh)
        os.replace(out + ".tmp", out)
    with open(out) as fh:
        return json.load(fh)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", default=os.path.join("..", "shared", "data", "binary"))
    ap.add_argument("--cv", default="2x5")
    ap.add_argument("--metric", default="average_precision", choices=sorted(HIGHER_IS_BETTER))
    ap.add_argument("--only")
    ap.add_argument("--rarity", default=os.path.join(ROOT, "target", "release", "rarity"))
    ap.add_argument("--cache")
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    from scipy.stats import f as f_dist, friedmanchisquare, rankdata, studentized_range
    cache = a.cache or os.path.join(tempfile.gettempdir(), "rarity-bench", f"ranking-{a.cv}-{a.metric}")
    os.makedirs(cache, exist_ok=True)
    files = csv_files(a.data_dir, a.only)
    results, seconds = {}, 0.0
    for i, f in enumerate(files):
        v = run_one(a.rarity, f, a, cache)
        seconds += v["seconds"]
        specs = generic([m["model"] for m in v["models"]])
        results[os.path.basename(f)[:-4]] = merge_corrected(
            {s: {k: m["metrics"][k]["mean"] for k in HIGHER_IS_BETTER} for s, m in zip(specs, v["models"])},
            a.metric)
        print(f"[{i + 1}/{len(files)}] {os.path.basename(f)[:-4]}: {v['seconds']:.0f} s, winner {v['winner']}",
              file=sys.stderr, flush=True)
    models = sorted(set.union(*(set(r) for r in results.values())))
    sets = [n for n, r in results.items() if all(m in r and np.isfinite(r[m][a.metric]) for m in models)]
    table = np.array([[results[n][m][a.metric] for m in models] for n in sets])
    sign = -1.0 if HIGHER_IS_BETTER[a.metric] else 1.0
    ranks = np.array([rankdata(sign * row) for row in table])
    mean_ranks = ranks.mean(axis=0)
    n, k = table.shape
    chi2, p = friedmanchisquare(*table.T)
    ff = (n - 1) * chi2 / (n * (k - 1) - chi2)
    p_ff = f_dist.sf(ff, k - 1, (k - 1) * (n - 1))
    q = studentized_range.ppf(0.95, k, np.inf) / np.sqrt(2)
    cd = q * np.sqrt(k * (k + 1) / (6.0 * n))
    order = np.argsort(mean_ranks, kind="stable")
    best = mean_ranks[order[0]]
    print(f"`rarity run` defaults, {a.cv} CV, seed 42, ranked by {a.metric}: {n} datasets x {k} models "
          f"({len(results)} run; {seconds / 60:.0f} min of `rarity run`).\n")
    print(f"Friedman chi2 = {chi2:.2f} (p = {p:.2g}); Iman-Davenport F = {ff:.2f} (p = {p_ff:.2g}); "
          f"Nemenyi critical difference at 0.05: {cd:.3f} ranks (q = {q:.3f}).\n")
    shown = [a.metric] + [k for k in ("average_precision", "roc_auc", "brier") if k != a.metric]
    print(f"| rank | model | mean rank | {' | '.join('mean ' + k for k in shown)} | within CD of the best |")
    print("|---|---|---|" + "---|" * len(shown) + "---|")
    for r, j in enumerate(order):
        m = models[j]

        def col(key):
            if key == "brier":
                return " / ".join(f"{b:.4f}" for b in np.mean([results[s][m]["briers"] for s in sets], axis=0))
            return f"{np.mean([results[s][m][key] for s in sets]):.4f}"
        tied = "yes" if mean_ranks[j] - best <= cd else "no"
        print(f"| {r + 1} | `{m}` | {mean_ranks[j]:.2f} | {' | '.join(col(k) for k in shown)} | {tied} |")
    print("\nA model `X[+correct]` is `X` and `X+correct`: one fitted model, the same ranking of rows "
          "(identical values on every dataset); its Brier scores are given as X / X+correct.")
    skipped = sorted(set(results) - set(sets))
    if skipped:
        print(f"\nDatasets left out (a model missing, e.g. no undersampling rate below N+/N- >= 0.5, or "
              f"an undefined {a.metric}): {', '.join(skipped)}.")


if __name__ == "__main__":
    main()
