#!/usr/bin/env python3
"""The Spark pipeline of rarity.spark on local[2], beside `rarity fit` on one
machine for the same file.

Setup (not part of the build):  pip install ./python[spark]   (and a Java 17 runtime)
Run from the repository root:   nice -n 15 python3 benches/spark_pipeline.py [--rows N] [--dir DIR]

1. `rarity generate fraud --n N -o DIR/fraud-N.parquet` (once; 10^8 rows take
   about 25 GB of disk, 10^7 about 2.5 GB).
2. Spark (local[2], shuffle partitions 4): read the Parquet file, undersample
   at beta = 0.005 (`rarity.spark.undersample`: one pass, the counts in the
   same job), fit `forest(n=100)+correct` on the driver (`rarity.spark.fit`),
   score every row (`rarity.spark.predict`, written to Parquet so that every
   row is scored), each stage timed; peak resident memory of the driver
   process (the Python driver and its JVM, read from /proc).
3. `rarity fit FILE --target class --model "under(beta=0.005)+forest(n=100)+correct"`
   (the streaming path: two passes over the file, the sample kept while
   reading) and `rarity predict` on the same file, timed, with their peak
   memory.

Prints one JSON object with the seconds per stage, the peak memories and the
ratios (one machine / Spark), plus the machine's load (`uptime`).
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEC = "forest(n=100)+correct"
BETA = 0.005


def rarity_bin():
    for sub in ("release", "debug"):
        p = os.path.join(ROOT, "target", sub, "rarity")
        if os.path.exists(p):
            return p
    return shutil.which("rarity") or sys.exit("build rarity first: cargo build --release")


def rss_of_tree(pid):
    """Resident bytes of a process and its descendants (from /proc)."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            with open(f"/proc/{p}/task/{p}/children") as f:
                todo.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    return total


class PeakMemory:
    """Samples the resident memory of this process and its children (the
    JVM and the driver's Python workers) every 0.2 s."""

    def __init__(self):
        self.peak, self._stop = 0, threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, rss_of_tree(os.getpid()))
            time.sleep(0.2)

    def __enter__(self):
        self._t.start()
        return self

    def __exit__(self, *a):
        self._stop.set()
        self._t.join()


def timed_cli(args):
    t = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return time.perf_counter() - t, max(before, after) * 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10**8)
    ap.add_argument("--dir", default=os.path.join(ROOT, "target", "spark-bench"))
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    rarity = rarity_bin()
    data = os.path.join(a.dir, f"fraud-{a.rows}.parquet")
    if not os.path.exists(data):
        t = time.perf_counter()
        subprocess.run([rarity, "--quiet", "generate", "fraud", "--n", str(a.rows), "-o", data], check=True)
        print(f"generated {data} in {time.perf_counter() - t:.1f} s", file=sys.stderr)

    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    from rarity import spark as rs

    out = {"rows": a.rows, "spec": SPEC, "beta": BETA, "load_before": os.getloadavg()}
    with PeakMemory() as mem:
        t0 = time.perf_counter()
        spark = (
            SparkSession.builder.master("local[2]")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.memory", "2g")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
        df = spark.read.parquet(data)
        out["spark_start_s"] = time.perf_counter() - t0

        t = time.perf_counter()
        s = rs.undersample(df, "class", beta=BETA, seed=42, positive=1)
        out["undersample_s"] = time.perf_counter() - t
        out["counts_before"], out["counts_after"] = s.counts_before, s.counts_after

        t = time.perf_counter()
        model = rs.fit(s, SPEC, seed=42)
        out["fit_s"] = time.perf_counter() - t
        out["keep_rates"] = model.keep_rates

        t = time.perf_counter()
        preds = os.path.join(a.dir, "spark-preds")
        rs.predict(df, model).select("p_1", "label").write.mode("overwrite").parquet(preds)
        out["predict_s"] = time.perf_counter() - t
        spark.stop()
    out["spark_total_s"] = out["undersample_s"] + out["fit_s"] + out["predict_s"]
    out["spark_driver_peak_bytes"] = mem.peak

    model_path = os.path.join(a.dir, "one-machine.rarity")
    out["cli_fit_s"], out["cli_fit_peak_bytes"] = timed_cli(
        [rarity, "--quiet", "fit", data, "--target", "class", "--model",
         f"under(beta={BETA})+{SPEC}", "-o", model_path]
    )
    out["cli_predict_s"], out["cli_predict_peak_bytes"] = timed_cli(
        [rarity, "--quiet", "predict", model_path, data, "-o", os.path.join(a.dir, "cli-preds.parquet")]
    )
    out["ratio_fit_cli_over_spark"] = out["cli_fit_s"] / (out["undersample_s"] + out["fit_s"])
    out["ratio_predict_cli_over_spark"] = out["cli_predict_s"] / out["predict_s"]
    out["load_after"] = os.getloadavg()
    print(json.dumps(out, indent=1))
    if not a.keep:
        shutil.rmtree(os.path.join(a.dir, "spark-preds"), ignore_errors=True)
        for f in ("cli-preds.parquet",):
            p = os.path.join(a.dir, f)
            if os.path.exists(p):
                os.remove(p)


if __name__ == "__main__":
    main()
