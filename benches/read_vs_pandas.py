#!/usr/bin/env python3
"""Reading a 1,000,000 x 30 CSV: rarity against pandas.read_csv, side by side.

Setup (not part of the build):  pip install pandas
Run from the repository root:   python3 benches/read_vs_pandas.py [--rows N] [--repeat R]

Generates the file once with `rarity generate fraud` (30 numeric features +
class), then times each reader in a fresh process R times (best of R) and
reports wall seconds, peak resident memory and the ratios: rarity with one
thread (pandas' C parser is single-threaded) and with all cores (rarity parses
blocks of the file in parallel; its default).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PANDAS_SNIPPET = r"""
import resource, sys, time
import pandas as pd
t = time.perf_counter()
df = pd.read_csv(sys.argv[1])
x = df.iloc[:, :-1].to_numpy(dtype="float64")
y = df.iloc[:, -1].to_numpy()
secs = time.perf_counter() - t
print('{"seconds": %.4f, "peak_rss": %d, "rows": %d}' % (
    secs, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, len(df)))
"""

BASELINE_SNIPPET = r"""
import resource
import pandas
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def run_json(cmd, env=None):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    subprocess.run(["cargo", "bench", "--bench", "read", "--no-run", "--quiet"], cwd=ROOT, check=True)
    exe = subprocess.run(
        ["cargo", "bench", "--bench", "read", "--no-run", "--message-format", "json", "--quiet"],
        cwd=ROOT, check=True, capture_output=True, text=True).stdout
    bench_bin = [json.loads(l)["executable"] for l in exe.splitlines()
                 if '"executable":"' in l and "read-" in l][-1]

    tmp = tempfile.mkdtemp(prefix="rarity-read-")
    path = os.path.join(tmp, "fraud.csv")
    subprocess.run([os.path.join(ROOT, "target/release/rarity"), "generate", "fraud",
                    "--n", str(args.rows), "-o", path, "--quiet"], check=True)
    size = os.path.getsize(path)

    env = dict(os.environ, RAYON_NUM_THREADS="1", OMP_NUM_THREADS="1")
    rar = min((run_json([bench_bin, path], env) for _ in range(args.repeat)), key=lambda r: r["seconds"])
    rar_all = min((run_json([bench_bin, path]) for _ in range(args.repeat)), key=lambda r: r["seconds"])
    pdr = min((run_json([sys.executable, "-c", PANDAS_SNIPPET, path], env) for _ in range(args.repeat)),
              key=lambda r: r["seconds"])
    base = int(subprocess.run([sys.executable, "-c", BASELINE_SNIPPET], check=True,
                              capture_output=True, text=True).stdout)
    matrix = rar["matrix_bytes"]
    print(f"file: {args.rows} rows x 30 features, {size / 1e6:.0f} MB")
    print(f"rarity: {rar['seconds']:.3f} s, peak RSS {rar['peak_rss'] / 1e6:.0f} MB "
          f"({rar['peak_rss'] / matrix:.2f}x the f64 matrix of {matrix / 1e6:.0f} MB)")
    print(f"pandas: {pdr['seconds']:.3f} s, peak RSS {pdr['peak_rss'] / 1e6:.0f} MB "
          f"(interpreter + pandas alone: {base / 1e6:.0f} MB)")
    print(f"rarity, all {os.cpu_count()} cores: {rar_all['seconds']:.3f} s, peak RSS {rar_all['peak_rss'] / 1e6:.0f} MB")
    print(f"speed ratio (pandas time / rarity time): {pdr['seconds'] / rar['seconds']:.2f}x with one thread, "
          f"{pdr['seconds'] / rar_all['seconds']:.2f}x with all cores")
    os.remove(path)
    os.rmdir(tmp)


if __name__ == "__main__":
    main()
