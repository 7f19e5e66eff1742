#!/usr/bin/env python3
"""Times `rarity explain` (permutation importance) against scikit-learn's
`permutation_importance`, side by side, on a fraud-like table.

Usage (from the repository root; needs numpy and scikit-learn, and a
release build: cargo build --release):

    nice -n 15 python3 benches/explain_vs_sklearn.py [--train 50000] [--held 20000]
                                                     [--repeats 5] [--threads 2]

Both sides fit a 100-tree random forest on `rarity generate fraud --n TRAIN`
(seed 42) and measure the drop of average precision when each of the 30
columns is shuffled, REPEATS times, on a later sample (`--n HELD`, seed 9),
with THREADS threads (parallel over columns on both sides). Only the
importance step is timed (the forests' fits are not); each side is run
three times and the median kept. Printed: the time ratio (scikit-learn /
rarity), the baseline AP of each forest and the rank correlation of the two
importance orders.
"""
import argparse, json, os, subprocess, sys, tempfile, time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "rarity")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", type=int, default=50000)
    ap.add_argument("--held", type=int, default=20000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.inspection import permutation_importance

    work = tempfile.mkdtemp(prefix="rarity-explain-bench-")
    train, held, model = (os.path.join(work, n) for n in ("train.csv", "held.csv", "m.rarity"))
    subprocess.run([BIN, "--quiet", "generate", "fraud", "--n", str(a.train), "-o", train], check=True)
    subprocess.run([BIN, "--quiet", "--seed", "9", "generate", "fraud", "--n", str(a.held), "-o", held], check=True)
    subprocess.run([BIN, "--quiet", "fit", train, "--target", "class", "-m", "forest(n=100)", "-o", model], check=True)

    def rarity_once():
        t0 = time.perf_counter()
        out = subprocess.run(
            [BIN, "--quiet", "--threads", str(a.threads), "explain", model, held, "--repeats", str(a.repeats),
             "--format", "json"], check=True, capture_output=True, text=True).stdout
        return time.perf_counter() - t0, json.loads(out)

    def load(path):
        with open(path) as f:
            names = f.readline().strip().split(",")
        d = np.loadtxt(path, delimiter=",", skiprows=1)
        return names[:-1], d[:, :-1], d[:, -1].astype(int)

    names, Xtr, ytr = load(train)
    _, Xte, yte = load(held)
    clf = RandomForestClassifier(n_estimators=100, n_jobs=a.threads, random_state=0).fit(Xtr, ytr)

    def sklearn_once():
        t0 = time.perf_counter()
        r = permutation_importance(clf, Xte, yte, scoring="average_precision", n_repeats=a.repeats,
                                   n_jobs=a.threads, random_state=0)
        return time.perf_counter() - t0, r

    ours = [rarity_once() for _ in range(3)]
    theirs = [sklearn_once() for _ in range(3)]
    t_ours = float(np.median([t for t, _ in ours]))
    t_theirs = float(np.median([t for t, _ in theirs]))
    e, r = ours[0][1], theirs[0][1]
    ours_imp = {f["feature"]: f["importance"] for f in e["permutation"]}
    a_rank = np.argsort(np.argsort([-ours_imp[n] for n in names]))
    b_rank = np.argsort(np.argsort(-r.importances_mean))
    rho = float(np.corrcoef(a_rank, b_rank)[0, 1])
    from sklearn.metrics import average_precision_score
    base = average_precision_score(yte, clf.predict_proba(Xte)[:, 1])
    print(f"load: {os.getloadavg()[0]:.2f}")
    print(f"rarity explain: {t_ours:.2f} s (runs {[round(t, 2) for t, _ in ours]}), baseline AP {e['baseline']:.4f}")
    print(f"scikit-learn permutation_importance: {t_theirs:.2f} s (runs {[round(t, 2) for t, _ in theirs]}), "
          f"baseline AP {base:.4f}")
    print(f"ratio (scikit-learn / rarity): {t_theirs / t_ours:.1f}x; Spearman rank correlation of importances {rho:.3f}")
    print("top 5 rarity:", [f["feature"] for f in e["permutation"][:5]])
    print("top 5 scikit-learn:", [names[i] for i in np.argsort(-r.importances_mean)[:5]])


if __name__ == "__main__":
    sys.exit(main())
