#!/usr/bin/env python3
"""Times rarity's base learners against scikit-learn's, side by side.

Usage (from the repository root; needs numpy and scikit-learn):

    python3 benches/learners_vs_sklearn.py [--data-dir ../shared/data/binary]
                                           [--only LEARNER,...] [--datasets NAME,...] [--detail]
                                           [--sklearn-timeout SECONDS]

For every CSV in the directory: one stratified 50/50 split (seed 0, the same
rows both sides); each learner is fitted on one half and predicts class
probabilities for the other, on one thread each side (rarity: a one-thread
rayon pool; scikit-learn: OMP/OpenBLAS/MKL limited to one thread). Reported
per learner: total fit + predict seconds over all datasets each side, the
ratio sklearn / rarity (> 1: rarity is faster), the smallest per-dataset
ratio among datasets where scikit-learn needs at least 5 ms (below that the
timings are noise), how many datasets rarity is slower on (any size), and
the mean test ROC AUC each side over the datasets scikit-learn completed
(a sanity check that both did the same job). rarity's time is measured
inside its process (no start-up or CSV parsing), scikit-learn's around
fit + predict_proba. With --sklearn-timeout S a scikit-learn fit still
running after S seconds is stopped and counted as S (a lower bound; the
linear SVC on unscaled features can run for many minutes).

Counterparts (rarity spec -> scikit-learn):
  logistic            LogisticRegression(C=1.0)   (lbfgs, tol 1e-4; rarity
                      converges to a max-norm gradient of 1e-6 on the
                      standardised scale, i.e. does more work)
  gnb                 GaussianNB()
  nb-binned           KBinsDiscretizer(10, uniform, ordinal) + CategoricalNB(alpha=1)
                      (the same model)
  knn                 KNeighborsClassifier(5) (algorithm='auto')
  svm                 SVC(probability=True)  (RBF, gamma=scale, 5-fold Platt)
  svm(kernel=linear)  SVC(kernel='linear', probability=True)
  lda                 LinearDiscriminantAnalysis()
  qda(reg=0.1)        QuadraticDiscriminantAnalysis(reg_param=0.1); scikit-learn
                      refuses classes with fewer rows than features (counted as
                      failures, left out of its totals and of the ratio)
  adaboost(n=50)      AdaBoostClassifier(stump, 50)
  adac2(n=50)         (no scikit-learn AdaC2) AdaBoostClassifier(stump, 50) with
                      class-balanced sample weights
  logitboost(n=100)   (no scikit-learn LogitBoost) GradientBoostingClassifier(
                      max_depth=1, learning_rate=1.0, n_estimators=100)
  svdd(nu=0.05)       OneClassSVM(nu=0.05, gamma='scale') on the negative rows
                      (the same problem for the RBF kernel); score -decision
"""
import os

for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[v] = "1"

import argparse, glob, json, subprocess, sys, tempfile, time, warnings

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rarity_binary():
    out = subprocess.run(
        ["cargo", "bench", "--bench", "learners", "--no-run", "--message-format=json"],
        cwd=ROOT, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if (msg.get("reason") == "compiler-artifact" and msg.get("executable")
                and msg["target"]["name"] == "learners"):
            return msg["executable"]
    sys.exit("could not find the learners bench executable")


def sklearn_model(name, y_train):
    from sklearn.discriminant_analysis import (LinearDiscriminantAnalysis,
                                               QuadraticDiscriminantAnalysis)
    from sklearn.ensemble import AdaBoostClassifier, GradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import CategoricalNB, GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import KBinsDiscretizer
    from sklearn.svm import SVC, OneClassSVM
    from sklearn.tree import DecisionTreeClassifier
    stump = lambda: DecisionTreeClassifier(max_depth=1)
    return {
        "logistic": lambda: LogisticRegression(C=1.0),
        "gnb": lambda: GaussianNB(),
        "nb-binned": lambda: make_pipeline(
            KBinsDiscretizer(n_bins=10, strategy="uniform", encode="ordinal",
                             subsample=None),
            CategoricalNB(alpha=1.0, min_categories=10)),
        "knn": lambda: KNeighborsClassifier(5),
        "svm": lambda: SVC(probability=True, random_state=0),
        "svm(kernel=linear)": lambda: SVC(kernel="linear", probability=True, random_state=0),
        "lda": lambda: LinearDiscriminantAnalysis(),
        "qda(reg=0.1)": lambda: QuadraticDiscriminantAnalysis(reg_param=0.1),
        "adaboost(n=50)": lambda: AdaBoostClassifier(stump(), n_estimators=50),
        "adac2(n=50)": lambda: AdaBoostClassifier(stump(), n_estimators=50),
        "logitboost(n=100)": lambda: GradientBoostingClassifier(
            max_depth=1, learning_rate=1.0, n_estimators=100, random_state=0),
        "svdd(nu=0.05)": lambda: OneClassSVM(nu=0.05, gamma="scale"),
    }[name]()


LEARNERS = ["logistic", "gnb", "nb-binned", "knn", "svm", "svm(kernel=linear)", "lda",
            "qda(reg=0.1)", "adaboost(n=50)", "adac2(n=50)", "logitboost(n=100)",
            "svdd(nu=0.05)"]


def sklearn_run_limited(name, X, y, train, test, limit):
    """sklearn_run in a forked child killed after `limit` seconds:
    ("timeout", None) then, else what sklearn_run returns."""
    import multiprocessing as mp
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)

    def work():
        child.send(sklearn_run(name, X, y, train, test))

    proc = ctx.Process(target=work)
    proc.start()
    if parent.poll(limit):
        out = parent.recv()
        proc.join()
        return out
    proc.kill()
    proc.join()
    return "timeout", None


def sklearn_run(name, X, y, train, test):
    """(seconds, positive-class scores) or (None, message)."""
    m = sklearn_model(name, y[train])
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if name.startswith("svdd"):
                m.fit(X[train][y[train] == 0])
                score = -m.decision_function(X[test])
            elif name.startswith("adac2"):
                counts = np.bincount(y[train], minlength=2)
                sw = (len(train) / (2 * counts))[y[train]]
                m.fit(X[train], y[train], sample_weight=sw)
                score = m.predict_proba(X[test])[:, 1]
            else:
                m.fit(X[train], y[train])
                score = m.predict_proba(X[test])[:, 1]
    except Exception as e:  # noqa: BLE001 (scikit-learn refuses some data)
        return None, f"{type(e).__name__}: {str(e)[:80]}"
    return time.perf_counter() - start, score


def auc(y, s):
    from sklearn.metrics import roc_auc_score
    return roc_auc_score(y, s) if 0 < y.sum() < len(y) else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default=os.path.join(ROOT, "..", "shared", "data", "binary"))
    ap.add_argument("--only", help="comma-separated learner specs")
    ap.add_argument("--datasets", help="comma-separated dataset names")
    ap.add_argument("--detail", action="store_true", help="print per-dataset seconds")
    ap.add_argument("--sklearn-timeout", type=float, metavar="S",
                    help="stop a scikit-learn fit after S seconds and count S (a lower "
                         "bound) in its total")
    args = ap.parse_args()
    from sklearn.model_selection import StratifiedKFold
    files = sorted(glob.glob(os.path.join(args.data_dir, "*.csv")))
    if args.datasets:
        keep = set(args.datasets.split(","))
        files = [f for f in files if os.path.basename(f)[:-4] in keep]
    learners = args.only.split(",") if args.only else LEARNERS
    data, plan = {}, []
    for f in files:
        a = np.loadtxt(f, delimiter=",", skiprows=1, ndmin=2)
        X, y = a[:, :-1], a[:, -1].astype(int)
        train, test = next(StratifiedKFold(2, shuffle=True, random_state=0).split(X, y))
        name = os.path.basename(f)[:-4]
        data[name] = (X, y, train, test)
        plan.append(dict(name=name, path=os.path.abspath(f), train=train.tolist(), test=test.tolist()))
    exe = rarity_binary()
    work = tempfile.mkdtemp(prefix="rarity-learners-")
    plan_path = os.path.join(work, "plan.json")
    with open(plan_path, "w") as fh:
        json.dump(plan, fh)
    print(f"{len(files)} datasets, one thread each side\n")
    print("| learner | sklearn s | rarity s | ratio | min ratio, sklearn >= 5 ms (dataset) | datasets slower | AUC sklearn | AUC rarity | sklearn failures |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in learners:
        out = os.path.join(work, "out.json")
        subprocess.run([exe, plan_path, out, name], check=True)
        with open(out) as fh:
            ours = {r["name"]: r for r in json.load(fh)}
        sk_total = ra_total = 0.0
        worst = (float("inf"), "")
        aucs_sk, aucs_ra, failures, slower, timeouts = [], [], 0, 0, []
        for ds, (X, y, train, test) in data.items():
            if args.sklearn_timeout:
                secs, score = sklearn_run_limited(name, X, y, train, test, args.sklearn_timeout)
            else:
                secs, score = sklearn_run(name, X, y, train, test)
            r = ours[ds]
            if secs is None:
                failures += 1
                continue
            if secs == "timeout":
                timeouts.append(ds)
                secs = args.sklearn_timeout
            else:
                aucs_sk.append(auc(y[test], score))
                aucs_ra.append(auc(y[test], np.asarray(r["proba"])))
            sk_total += secs
            ra_total += r["seconds"]
            ratio = secs / max(r["seconds"], 1e-9)
            if args.detail:
                print(f"    {ds}: sklearn {secs:.4f} s, rarity {r['seconds']:.4f} s, ratio {ratio:.2f}")
            if secs >= 0.005 and ratio < worst[0]:
                worst = (ratio, ds)
            slower += ratio < 1.0
        print(f"| {name} | {sk_total:.3f} | {ra_total:.3f} | {sk_total / max(ra_total, 1e-9):.1f} "
              f"| {worst[0]:.2f} ({worst[1]}) | {slower} | {np.nanmean(aucs_sk):.4f} | {np.nanmean(aucs_ra):.4f} "
              f"| {failures} |", flush=True)
        if timeouts:
            print(f"    scikit-learn stopped after {args.sklearn_timeout:g} s (counted as that, "
                  f"a lower bound; AUC left out) on: {', '.join(timeouts)}", flush=True)


if __name__ == "__main__":
    main()
