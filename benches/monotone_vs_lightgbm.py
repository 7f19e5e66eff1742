#!/usr/bin/env python3
"""Monotone and interaction constraints (issue 57): rarity's constrained gbdt beside LightGBM's
with the same constraints, each of the three monotone methods, and what the constraints cost
against the unconstrained model. AP, ROC AUC and fit time under 5-fold CV.

Usage (from the repository root; needs numpy, threadpoolctl, scikit-learn and lightgbm 4.x):

    pip install numpy threadpoolctl scikit-learn 'lightgbm>=4,<5'
    nice python3 benches/monotone_vs_lightgbm.py [--data credit,bundled,shared] [--rows 500000]
        [--threads 2] [--methods basic,intermediate,advanced] [--shared ../shared/data] [--exe BIN]

Tables:
  credit: a generated credit-like table (cached in $TMPDIR/rarity-bench/monotone/), --rows rows
          x 12 columns, numpy default_rng(57): x0 debt ratio and x1 utilisation raise the risk,
          x2 tenure and x3 income lower it (each through a different increasing or decreasing
          curve: logistic, square root, logarithm, a step), x4 age through a U shape, x5 and
          x6 a product, x7..x11 noise; the intercept is set for 1% positives. Constraints: the
          true directions, [x0:1, x1:1, x2:-1, x3:-1]; interaction groups [[x0,x1], [x2,x3],
          [x4..x11]] (every column in a group, so LightGBM's and scikit-learn's rules for
          unlisted columns agree).
  bundled: every binary, all-numeric table bundled in data/.
  shared: the binary tables of the shared data folder (DATA/binary/*.csv).
  On the bundled and shared tables the constraints are a practitioner's: the two columns most
  correlated with the class (Spearman, whole table), each in the direction of its correlation;
  interaction groups: those two columns, and the rest.

Sides, every one with 100 rounds, learning rate 0.1, 31 leaves, 20 rows and 1e-3 hessian a
leaf, 255 bins, no L2 (gbdt_vs_lightgbm.py's parameters), the same stratified folds
(StratifiedKFold(5, shuffle=True, random_state=0)) and --threads threads (the small tables:
one):
  rarity gbdt through benches/gbdt.rs (`gbdt cv`): `gbdt`, then
  `gbdt(monotone=[...],monotone_method=M)` for each method M, then
  `gbdt(monotone=[...],interaction=[[...],...])` (basic);
  LightGBM lgb.train with the same parameters and monotone_constraints,
  monotone_constraints_method=M, interaction_constraints.
Fit time = the five folds' fits and predictions, wall clock (and CPU seconds of all threads).

Printed: one line per big table and side; per table group the means (AP, AUC) and summed
seconds, the ratio LightGBM's seconds over rarity's for the same constraints (above 1: rarity
is faster), rarity's AP minus LightGBM's, and each constrained model's AP minus the
unconstrained one's of the same library (the AP the constraints cost).
"""
import argparse, os, sys, tempfile

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from gbdt_vs_lightgbm import bench_binary  # noqa: E402
from missing_vs_lightgbm import Lgb, folds_of, peer_cv, quality, rarity_cv, read_csv  # noqa: E402

ROOT = os.path.dirname(here)
WORK = os.path.join(tempfile.gettempdir(), "rarity-bench", "monotone")


def credit(rows):
    """The generated credit-like table: (X, y, directions, groups)."""
    base = os.path.join(WORK, f"credit-{rows}")
    d = 12
    if not os.path.exists(base + ".y"):
        os.makedirs(WORK, exist_ok=True)
        rng = np.random.default_rng(57)
        X = rng.standard_normal((rows, d))
        X[:, 1] = rng.random(rows)                     # utilisation in [0, 1)
        X[:, 3] = np.exp(0.5 * X[:, 3] + 3.0)          # income, log-normal
        s = (1.0 / (1.0 + np.exp(-2.0 * X[:, 0])) * 2.0      # debt ratio: increasing, saturating
             + 1.5 * np.sqrt(X[:, 1])                        # utilisation: increasing, concave
             - 0.8 * np.where(X[:, 2] > 0.5, 1.0, 0.0) - 0.4 * X[:, 2]  # tenure: decreasing, a step
             - 0.9 * np.log(X[:, 3])                         # income: decreasing
             + 0.5 * X[:, 4] ** 2                            # age: U shape
             + 0.6 * X[:, 5] * X[:, 6])                      # an interaction
        s = s + rng.logistic(size=rows) * 0.5
        cut = np.quantile(s, 0.99)
        y = (s > cut).astype(np.uint8)
        np.ascontiguousarray(X, dtype="<f8").tofile(base + ".x")
        y.tofile(base + ".y")
    y = np.fromfile(base + ".y", dtype=np.uint8)
    X = np.fromfile(base + ".x", dtype="<f8").reshape(len(y), d)
    return X, y, [1, 1, -1, -1] + [0] * (d - 4), [[0, 1], [2, 3], list(range(4, d))]


def practitioner(X, y):
    """The two columns most correlated with y (Spearman), in its direction, and the groups."""
    from scipy.stats import spearmanr
    r = np.array([0.0 if np.ptp(X[:, j]) == 0 else spearmanr(X[:, j], y)[0] for j in range(X.shape[1])])
    r = np.nan_to_num(r)
    top = list(np.argsort(-np.abs(r))[:2])
    dirs = [0] * X.shape[1]
    for j in top:
        dirs[j] = 1 if r[j] > 0 else -1
    rest = [j for j in range(X.shape[1]) if j not in top]
    return dirs, [sorted(int(j) for j in top)] + ([rest] if rest else [])


def tables(a):
    out = []
    for name in a.data.split(","):
        if name == "credit":
            X, y, dirs, groups = credit(a.rows)
            out.append(("credit", X, y, dirs, groups, a.threads))
        elif name in ("bundled", "shared"):
            folder = os.path.join(ROOT, "data") if name == "bundled" else os.path.join(a.shared, "binary")
            for f in sorted(os.listdir(folder)):
                t = f.endswith(".csv") and read_csv(os.path.join(folder, f))
                if t and t[0].shape[1] >= 2:
                    dirs, groups = practitioner(*t)
                    out.append((f"{name}/{f[:-4]}", t[0], t[1], dirs, groups, 1))
    return out


class LgbConstrained(Lgb):
    def __init__(self, threads, **extra):
        super().__init__(threads)
        self.params.update(extra)


def sides(a, exe, threads, dirs, groups):
    """(label, library, constrained, run) of every side."""
    mono = ",".join(f"x{j}:{s}" for j, s in enumerate(dirs) if s)
    inter = ",".join("[" + ",".join(f"x{j}" for j in g) + "]" for g in groups)

    def rar(spec):
        return lambda X, y, f: rarity_cv(exe, X, y, f, spec, threads)

    def lgb(**extra):
        return lambda X, y, f: peer_cv(lambda: LgbConstrained(threads, **extra), X, y, f, threads)

    out = [("unconstrained", "rarity", rar("gbdt")), ("unconstrained", "LightGBM", lgb())]
    for m in a.methods.split(","):
        out.append((f"monotone {m}", "rarity", rar(f"gbdt(monotone=[{mono}],monotone_method={m})")))
        out.append((f"monotone {m}", "LightGBM", lgb(monotone_constraints=dirs, monotone_constraints_method=m)))
    out.append(("monotone+interaction", "rarity", rar(f"gbdt(monotone=[{mono}],interaction=[{inter}])")))
    out.append(("monotone+interaction", "LightGBM", lgb(monotone_constraints=dirs, interaction_constraints=groups)))
    return out


def report(group, by):
    """The means of one table group: by[(label, lib)] = [(ap, auc, wall, cpu)]."""
    print(f"== {group}", flush=True)
    free = {lib: np.array(by[("unconstrained", lib)])[:, 0].mean() for lib in ("rarity", "LightGBM")}
    for label in dict.fromkeys(k[0] for k in by):
        r, l = np.array(by[(label, "rarity")]), np.array(by[(label, "LightGBM")])
        line = (f"   {label:22s} rarity AP {r[:, 0].mean():.4f} AUC {r[:, 1].mean():.4f} {r[:, 2].sum():8.2f} s | "
                f"LightGBM AP {l[:, 0].mean():.4f} AUC {l[:, 1].mean():.4f} {l[:, 2].sum():8.2f} s | "
                f"AP rarity-LightGBM {r[:, 0].mean() - l[:, 0].mean():+.4f}, speed {l[:, 2].sum() / r[:, 2].sum():.2f}x")
        if label != "unconstrained":
            line += (f" | cost: rarity {r[:, 0].mean() - free['rarity']:+.4f}, "
                     f"LightGBM {l[:, 0].mean() - free['LightGBM']:+.4f}")
        print(line, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="credit,bundled,shared")
    ap.add_argument("--rows", type=int, default=500_000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--methods", default="basic,intermediate,advanced")
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(ROOT), "shared", "data"))
    ap.add_argument("--exe", help="a built gbdt bench executable (default: build this tree's)")
    a = ap.parse_args()
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    exe = a.exe or bench_binary()
    import lightgbm
    print(f"LightGBM {lightgbm.__version__}; load {os.getloadavg()[0]:.1f}", flush=True)
    summary = {}
    for name, X, y, dirs, groups, threads in tables(a):
        folds = folds_of(y)
        group = name if len(y) > 50_000 else name.split("/")[0] + " (means over the tables)"
        for label, lib, run in sides(a, exe, threads, dirs, groups):
            p, wall, cpu = run(X, y, folds)
            auc, avp = quality(y, folds, p)
            summary.setdefault(group, {}).setdefault((label, lib), []).append((avp, auc, wall, cpu))
            if len(y) > 20_000:
                print(f"{name} {X.shape[0]}x{X.shape[1]} {label:22s} {lib:9s}: AP {avp:.4f} AUC {auc:.4f} | "
                      f"{wall:7.2f} s wall, {cpu:7.2f} s CPU | load {os.getloadavg()[0]:.1f}", flush=True)
    for group, by in summary.items():
        report(group, by)


if __name__ == "__main__":
    main()
