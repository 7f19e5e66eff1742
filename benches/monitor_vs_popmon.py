#!/usr/bin/env python3
"""`rarity monitor` beside popmon (issue 56): input drift (PSI and KS per column) of a current
table against a reference one, time and peak memory side by side.

Usage (from the repository root; needs numpy, pandas and popmon 1.4):

    pip install numpy pandas 'popmon>=1.4,<2'
    cargo build --release
    nice python3 benches/monitor_vs_popmon.py [--rows 10000000] [--exe target/release/rarity]
        [--peers popmon] [--threads 2]

Tables (cached in $TMPDIR/rarity-bench/monitor/): `rarity generate fraud --n ROWS --seed 1`
as the reference and `--seed 2 --drift 1` as the current table (Time, V1..V28, Amount, class:
30 numeric columns), CSV; a model `gbdt+platt` fitted on a 200,000-row reference (`--seed 3`).

Sides, each in its own process, wall clock and peak resident memory (ru_maxrss of the child):
  rarity: `rarity monitor MODEL --reference REF --current CUR --format json --threads T`:
          both tables read once, in bounded memory; per column PSI over 10 quantile bins and KS,
          the model's scores, the alert rate and the EM prior with 200 bootstrap replicates
          (more work than the peer does).
  popmon: pandas.read_csv of both tables, popmon's histograms of the reference
          (make_histograms, time_axis=a constant batch column), then
          popmon.df_stability_metrics(current, reference_type="external", reference=those
          histograms): its histograms of every column of the current table and its comparisons
          (PSI, KS, Jensen-Shannon, chi2, ...) with the reference; no report page. popmon's PSI
          is over its own fine histogram bins, not 10 quantile bins, so its figures differ.
The ratio is the peer's seconds over rarity's (above 1: rarity is faster), and the peer's peak
memory over rarity's.
"""
import argparse, json, os, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(tempfile.gettempdir(), "rarity-bench", "monitor")

POPMON = r"""
import logging, sys, pandas as pd, popmon
from popmon import Settings
from popmon.hist.filling import make_histograms
logging.disable(logging.INFO)
ref = pd.read_csv(sys.argv[1]); cur = pd.read_csv(sys.argv[2])
ref["batch"] = 0; cur["batch"] = 1
# popmon 1.4 takes an external reference as its histograms (a frame is refused).
hists = make_histograms(ref, time_axis="batch")
s = Settings(time_axis="batch", reference_type="external")
out = popmon.df_stability_metrics(cur, settings=s, reference=hists)
c = out["comparisons"]
top = max(c, key=lambda k: float(c[k]["ref_psi"].iloc[-1]))
print(f"{len(c)} columns compared; top PSI {top} {float(c[top]['ref_psi'].iloc[-1]):.3f} "
      "over its own histogram bins")
"""


def table(exe, name, rows, seed, extra=()):
    path = os.path.join(WORK, f"{name}-{rows}.csv")
    if not os.path.exists(path):
        os.makedirs(WORK, exist_ok=True)
        subprocess.run([exe, "-q", "generate", "fraud", "--n", str(rows), "--seed", str(seed),
                        *extra, "-o", path], check=True)
    return path


WRAP = (
    "import resource, subprocess, sys\n"
    "r = subprocess.run(sys.argv[1:])\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(r.returncode)\n"
)


def timed(cmd):
    """Runs cmd in a fresh wrapper process: (seconds, its peak resident MB, stdout)."""
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", WRAP, *cmd], check=True, capture_output=True,
                       text=True)
    seconds = time.perf_counter() - t
    peak_kb = int(r.stderr.strip().splitlines()[-1])
    return seconds, peak_kb / 1024.0, r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--exe", default=os.path.join(ROOT, "target", "release", "rarity"))
    ap.add_argument("--peers", default="popmon")
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    ref = table(a.exe, "reference", a.rows, 1)
    cur = table(a.exe, "current", a.rows, 2, ("--drift", "1"))
    train = table(a.exe, "train", 200_000, 3)
    model = os.path.join(WORK, "model.rarity")
    if not os.path.exists(model):
        subprocess.run([a.exe, "-q", "fit", train, "-m", "gbdt+platt", "-o", model], check=True)
    print(f"{a.rows} rows x 30 columns, reference and current; load {os.getloadavg()[0]:.1f}")
    s, mb, out = timed([a.exe, "-q", "--threads", str(a.threads), "--format", "json", "monitor",
                        model, "--reference", ref, "--current", cur])
    drift = json.loads(out)
    top = drift["columns"][0]
    print(f"  rarity monitor : {s:8.1f} s, peak {mb:8.0f} MB "
          f"(top column {top['column']} PSI {top['psi']:.3f}, EM prior "
          f"{drift['priors']['estimated']['1'] if drift['priors']['estimated'] else None})")
    if "popmon" in a.peers:
        env_python = sys.executable
        ps, pmb, pout = timed([env_python, "-c", POPMON, ref, cur])
        print(f"  popmon         : {ps:8.1f} s, peak {pmb:8.0f} MB ({pout.strip()})")
        print(f"  ratio: time {ps / s:.1f}x, memory {pmb / mb:.1f}x")


if __name__ == "__main__":
    main()
