"""Data at scale (issue 18): end-to-end commands on generated tables, with
wall time, CPU time and peak memory (`/usr/bin/time -v`) of each process,
side by side with the Python peers where there is one.

    cargo build --release
    pip install pandas pyarrow polars scikit-learn imbalanced-learn threadpoolctl
    python3 benches/data_at_scale.py fit --rows 100000000      # CSV and Parquet (needs ~40 GB of disk)
    python3 benches/data_at_scale.py predict --rows 10000000
    python3 benches/data_at_scale.py evaluate --rows 10000000   # streamed vs in memory (CSV)
    python3 benches/data_at_scale.py evaluate --rows 100000000 --ext parquet
    python3 benches/data_at_scale.py parquet --rows 10000000    # vs pyarrow and polars
    python3 benches/data_at_scale.py smote --rows 1000000       # vs imbalanced-learn + pandas
    python3 benches/data_at_scale.py categorical --rows 10000000  # streamed fit, 10^6 + 10^5 levels

Files go to `target/scale-bench/` (or `--dir`); `--keep` keeps them. Every
process runs under `nice`; two threads each side. Prints one JSON line per
measurement and a summary; run it when the machine is quiet and report
`uptime` beside the figures (the script prints the load before each run).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
# RARITY_BIN names another rarity binary (e.g. a previous build's, to compare).
RARITY = os.environ.get("RARITY_BIN", os.path.join(ROOT, "target", "release", "rarity"))
MODEL = "under(beta=0.005)+forest(n=100)+correct+threshold(priors)"


def load():
    return open("/proc/loadavg").read().split()[0]


def timed(cmd, label, env=None):
    """Runs `cmd` under /usr/bin/time -v; returns wall s, CPU s, peak RSS MiB."""
    full = ["nice", "/usr/bin/time", "-v"] + cmd
    before = load()
    p = subprocess.run(full, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"{label} failed:\n{p.stdout}\n{p.stderr}")
    err = p.stderr

    def field(name):
        m = re.search(re.escape(name) + r":\s*(.+)", err)
        return m.group(1).strip() if m else "0"

    wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss)")
    parts = [float(x) for x in wall.split(":")]
    secs = sum(v * 60 ** i for i, v in enumerate(reversed(parts)))
    cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
    rss = int(field("Maximum resident set size (kbytes)")) / 1024
    out = {"what": label, "wall_s": round(secs, 2), "cpu_s": round(cpu, 2),
           "peak_rss_mib": round(rss, 1), "load_before": before}
    print(json.dumps(out), flush=True)
    return out


def rarity(*args):
    return [RARITY, "--threads", "2", *args]


def python(code):
    env = dict(os.environ, OMP_NUM_THREADS="2", OPENBLAS_NUM_THREADS="2",
               POLARS_MAX_THREADS="2", RAYON_NUM_THREADS="2")
    return ["python3", "-c", textwrap.dedent(code)], env


def generate(path, rows, extra=()):
    if not os.path.exists(path):
        timed(rarity("--quiet", "generate", "fraud", "--n", str(rows), *extra, "-o", path),
              f"generate {os.path.basename(path)}")
    return path


def cold():
    """Empties the page cache when allowed (root), so each run reads from disk."""
    subprocess.run(["sync"])
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return "cold"
    except OSError:
        return "cache as found"


def bench_fit(a):
    out = {}
    for ext in ("csv", "parquet"):
        f = generate(os.path.join(a.dir, f"fraud{a.rows}.{ext}"), a.rows)
        size = os.path.getsize(f) / 1e9
        # The reader alone: every row parsed, almost nothing kept (the
        # minority, and 1e-9 of the rest). `inspect` would do, but it holds
        # the whole table (24 GB at 10^8 rows), more than this machine has.
        cache = cold()
        read = timed(rarity("--quiet", "resample", f, "--method", "under", "--beta", "1e-9",
                            "-o", os.path.join(a.dir, "read.csv")),
                     f"read (resample beta=1e-9) {ext}, {size:.1f} GB, {cache}")
        cache = cold()
        fit = timed(rarity("--quiet", "fit", f, "--model", MODEL, "-o",
                           os.path.join(a.dir, f"m.{ext}.rarity")), f"fit {ext}, {cache}")
        out[ext] = {"read": read, "fit": fit, "fit_over_read": round(fit["wall_s"] / read["wall_s"], 2)}
        if not a.keep:
            os.remove(f)
    print(json.dumps({"summary": "fit", "rows": a.rows, "model": MODEL, **out}))


def bench_predict(a):
    train = generate(os.path.join(a.dir, "train1m.csv"), 1_000_000)
    model = os.path.join(a.dir, "m.rarity")
    timed(rarity("--quiet", "fit", train, "--model",
                 "under(beta=0.01)+forest(n=100)+correct+threshold(priors)", "-o", model), "fit model")
    f = generate(os.path.join(a.dir, f"predict{a.rows}.csv"), a.rows)
    r = timed(rarity("--quiet", "predict", model, f, "-o", os.path.join(a.dir, "p.csv")), "predict")
    print(json.dumps({"summary": "predict", "rows": a.rows,
                      "rows_per_s": round(a.rows / r["wall_s"]), "peak_rss_mib": r["peak_rss_mib"]}))
    if not a.keep:
        for p in (f, os.path.join(a.dir, "p.csv")):
            os.remove(p)


EVAL_MODEL = "under(beta=0.005)+forest(n=10)+correct+threshold(priors)"


def without_timings(report):
    """An evaluate report without what differs between runs."""
    if isinstance(report, dict):
        return {k: without_timings(v) for k, v in report.items()
                if "seconds" not in k and k != "data"}
    if isinstance(report, list):
        return [without_timings(v) for v in report]
    return report


def bench_evaluate(a):
    """5-fold `evaluate` read from the file (folds' samples kept while
    reading); with CSV up to 2e7 rows, also the whole table read from
    standard input (in memory), and the two reports compared."""
    f = generate(os.path.join(a.dir, f"fraud{a.rows}.{a.ext}"), a.rows)
    size = os.path.getsize(f) / 1e9
    args = ["--quiet", "--format", "json", "evaluate", "--cv", "5", "--model", EVAL_MODEL]
    out_s = os.path.join(a.dir, "eval_stream.json")
    cache = cold()
    streamed = timed(["sh", "-c", " ".join(f"'{x}'" for x in rarity(*args, f)) + f" > {out_s}"],
                     f"evaluate {a.ext} streamed, {size:.1f} GB, {cache}")
    summary = {"summary": "evaluate", "rows": a.rows, "model": EVAL_MODEL, "streamed": streamed}
    if a.ext == "csv" and a.rows <= 20_000_000:
        out_m = os.path.join(a.dir, "eval_memory.json")
        cache = cold()
        memory = timed(["sh", "-c", " ".join(f"'{x}'" for x in rarity(*args, "-"))
                        + f" < {f} > {out_m}"], f"evaluate {a.ext} in memory (stdin), {cache}")
        same = without_timings(json.load(open(out_s))) == without_timings(json.load(open(out_m)))
        summary.update(memory=memory, same_report=same,
                       time_ratio=round(streamed["wall_s"] / memory["wall_s"], 2),
                       memory_ratio=round(memory["peak_rss_mib"] / streamed["peak_rss_mib"], 1))
    summary["roc_auc"] = json.load(open(out_s))["metrics"]["roc_auc"]
    print(json.dumps(summary))
    if not a.keep:
        os.remove(f)


def bench_parquet(a):
    f = generate(os.path.join(a.dir, f"fraud{a.rows}.parquet"), a.rows)
    ours = timed(rarity("--quiet", "inspect", f), "rarity read (inspect)")
    cmd, env = python(f"""
        import pyarrow.parquet as pq
        df = pq.read_table({f!r}).to_pandas()
        print(df.shape)
    """)
    pa = timed(cmd, "pyarrow.parquet.read_table + to_pandas", env)
    cmd, env = python(f"""
        import polars as pl
        df = pl.read_parquet({f!r})
        print(df.shape)
    """)
    pl = timed(cmd, "polars.read_parquet", env)
    print(json.dumps({"summary": "parquet read", "rows": a.rows,
                      "vs_pyarrow": round(pa["wall_s"] / ours["wall_s"], 2),
                      "vs_polars": round(pl["wall_s"] / ours["wall_s"], 2)}))


def bench_smote(a):
    f = generate(os.path.join(a.dir, f"smote{a.rows}.csv"), a.rows, ("--positive-rate", "0.01"))
    ours_out = os.path.join(a.dir, "s_rarity.csv")
    ours = [timed(rarity("--quiet", "resample", f, "--method", "smote", "--ratio", "1", "-o", ours_out),
                  f"rarity resample smote, round {i}") for i in range(a.rounds)]
    theirs_out = os.path.join(a.dir, "s_imblearn.csv")
    cmd, env = python(f"""
        import pandas as pd
        from threadpoolctl import threadpool_limits
        from imblearn.over_sampling import SMOTE
        from sklearn.neighbors import NearestNeighbors
        with threadpool_limits(2):
            df = pd.read_csv({f!r})
            x, y = df.drop(columns=["class"]), df["class"]
            smote = SMOTE(k_neighbors=NearestNeighbors(n_neighbors=6, n_jobs=2), random_state=0)
            xr, yr = smote.fit_resample(x, y)
            xr["class"] = yr
            xr.to_csv({theirs_out!r}, index=False)
    """)
    theirs = [timed(cmd, f"pandas + imbalanced-learn SMOTE, round {i}", env) for i in range(a.rounds)]
    o = sorted(r["wall_s"] for r in ours)[len(ours) // 2]
    t = sorted(r["wall_s"] for r in theirs)[len(theirs) // 2]
    print(json.dumps({"summary": "smote end to end", "rows": a.rows, "rarity_s": o, "peer_s": t,
                      "ratio": round(t / o, 2), "output_mb": round(os.path.getsize(ours_out) / 1e6)}))
    if not a.keep:
        for p in (ours_out, theirs_out):
            os.remove(p)


CAT_MODEL = "under(beta=0.005)+gbdt(rounds=50)+correct"
CAT_LEVELS = {"merchant": 1_000_000, "bin": 100_000}


def write_categorical(path, rows, seed=41):
    """A CSV of `rows` rows: x0..x4 (numbers), `merchant` (10^6 levels) and
    `bin` (10^5 levels), text ids drawn popular first (level floor(L u^2)),
    and `class`: 1 for about 0.2% of the rows, 20x as often at the 2% of
    merchants that are risky. Written in chunks (bounded memory)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    if os.path.exists(path):
        return path
    rng = np.random.default_rng(seed)
    risky = np.random.default_rng(7).random(CAT_LEVELS["merchant"]) < 0.02
    chunk = 1_000_000
    with open(path + ".part", "wb") as f:
        writer = None
        for start in range(0, rows, chunk):
            n = min(chunk, rows - start)
            ids = {c: (L * rng.random(n) ** 2).astype(np.int64) for c, L in CAT_LEVELS.items()}
            p = np.where(risky[ids["merchant"]], 0.03, 0.0015)
            y = (rng.random(n) < p).astype(np.int64)
            cols = {f"x{j}": np.round(rng.normal(size=n) + 0.5 * j * y, 4) for j in range(5)}
            for c, v in ids.items():
                cols[c] = pc.binary_join_element_wise(c[0], pc.cast(pa.array(v), pa.string()), "")
            cols["class"] = y
            t = pa.table(cols)
            if writer is None:
                writer = pcsv.CSVWriter(f, t.schema, write_options=pcsv.WriteOptions(quoting_style="none"))
            writer.write_table(t)
        writer.close()
    os.rename(path + ".part", path)
    return path


def bench_categorical(a):
    """`fit --categorical native` streamed on a table with two categorical
    columns of 10^6 and 10^5 levels, beside the same fit with the two
    columns dropped (the numeric-only streamed fit); with up to 2e7 rows,
    also the whole table read from standard input (in memory)."""
    f = os.path.join(a.dir, f"categorical{a.rows}.csv")
    timed([sys.executable, "-c", f"import sys; sys.path.insert(0, {HERE!r}); import data_at_scale as d; "
           f"d.write_categorical({f!r}, {a.rows})"], f"write {os.path.basename(f)}")
    size = os.path.getsize(f) / 1e9
    fit = ["--quiet", "fit", "--model", CAT_MODEL, "-o", os.path.join(a.dir, "cat.rarity")]
    native = ["--categorical", "native"]
    cache = cold()
    streamed = timed(rarity(*fit, f, *native), f"fit --categorical native, {size:.1f} GB, streamed, {cache}")
    cache = cold()
    numeric = timed(rarity(*fit, f, "--drop", "merchant,bin"),
                    f"fit with merchant and bin dropped, streamed, {cache}")
    summary = {"summary": "categorical fit", "rows": a.rows, "levels": CAT_LEVELS, "model": CAT_MODEL,
               "streamed": streamed, "numeric_only": numeric}
    if a.rows <= 20_000_000:
        cache = cold()
        cmd = " ".join(f"'{x}'" for x in rarity(*fit, "-", *native)) + f" < {f}"
        summary["in_memory"] = timed(["sh", "-c", cmd], f"fit --categorical native from stdin (in memory), {cache}")
    print(json.dumps(summary))
    if not a.keep:
        os.remove(f)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=["fit", "predict", "evaluate", "parquet", "smote", "categorical"])
    p.add_argument("--ext", choices=["csv", "parquet"], default="csv", help="evaluate's file format")
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--dir", default=os.path.join(ROOT, "target", "scale-bench"))
    p.add_argument("--keep", action="store_true")
    a = p.parse_args()
    if not os.path.exists(RARITY):
        sys.exit("build first: cargo build --release")
    os.makedirs(a.dir, exist_ok=True)
    print(json.dumps({"disk_free_gb": round(shutil.disk_usage(a.dir).free / 1e9, 1),
                      "nproc": os.cpu_count(), "load": open("/proc/loadavg").read().strip()}))
    {"fit": bench_fit, "predict": bench_predict, "evaluate": bench_evaluate, "parquet": bench_parquet,
     "smote": bench_smote, "categorical": bench_categorical}[a.what](a)


if __name__ == "__main__":
    main()
