#!/usr/bin/env python3
"""Reference values for rarity's base learners (tests/learner_fixtures.rs).

Writes tests/fixtures/learners.json from scikit-learn on bundled datasets
(data/*.csv; the class is the last column). Everything is deterministic
(no randomness is involved, or a fixed random_state is given). The Rust
tests read the committed file and need no Python.

Regenerate (from the repository root):

    pip install scikit-learn==1.9.1 scipy numpy==2.4.6
    python3 tools/gen_learner_fixtures.py                          # every block
    python3 tools/gen_learner_fixtures.py --only gbdt,tree_importances

Notes on each block:

- logistic: LogisticRegression(C, lbfgs, tol=1e-12, max_iter=100000). Its
  L-BFGS-B stops on a relative objective change of 64 eps, which on raw
  (unscaled) features can leave the coefficients short of the optimum, so
  the script also polishes sklearn's solution with Newton steps on the
  same objective (C * sum_i s_i loss_i + 0.5 ||beta||^2) and stores that
  optimum ("coef"/"intercept"/"proba") together with how far sklearn's own
  answer is from it ("sklearn_gap"). Multinomial intercepts are centred
  (they are only defined up to a shift).
- gnb, lda (solver='svd'), qda: predict_proba on the listed rows.
- knn: brute-force KNeighborsClassifier; rows whose k-th and (k+1)-th
  nearest distances tie (within 1e-9) are left out, since the order of
  tied neighbours is implementation-defined.
- svm: SVC(tol=1e-6) decision_function (ovo for multiclass, positive = the
  first class of each pair; binary: positive = class 1).
- gbdt: HistGradientBoostingClassifier (no early stopping) on sets whose
  features have at most 255 distinct values, training-row probabilities,
  with the rarity spec that must match them (max_delta_step=0).
- tree_importances: DecisionTreeClassifier(max_depth).feature_importances_.
- boosting: 5 folds (row i in fold i % 5); total out-of-fold accuracy of
  AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n) (SAMME) and,
  for LogitBoost, which scikit-learn lacks, of
  GradientBoostingClassifier(log_loss, max_depth=1, learning_rate=1.0, n).
"""

import json
import sys
from pathlib import Path

import numpy as np
import sklearn
from sklearn.discriminant_analysis import (
    LinearDiscriminantAnalysis,
    QuadraticDiscriminantAnalysis,
)
from sklearn.ensemble import (
    AdaBoostClassifier,
    GradientBoostingClassifier,
    HistGradientBoostingClassifier,
)
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier

ROOT = Path(__file__).resolve().parent.parent


def load(name):
    a = np.loadtxt(ROOT / "data" / f"{name}.csv", delimiter=",", skiprows=1)
    return a[:, :-1], a[:, -1].astype(int)


def some_rows(n, m=40):
    """m evenly spread row indices."""
    return sorted(set(np.linspace(0, n - 1, m).round().astype(int).tolist()))


def lists(a):
    return np.asarray(a, dtype=float).tolist()


# ------------------------------------------------------------- logistic
def logistic_objective_newton(X, y, sw, C, coef, intercept, steps=50):
    """Polishes (coef, intercept) to the optimum of sklearn's objective."""
    classes = np.unique(y)
    n, d = X.shape
    Xb = np.hstack([X, np.ones((n, 1))])
    if len(classes) == 2:
        t = (y == classes[1]).astype(float)
        th = np.append(coef.ravel(), intercept)
        for _ in range(steps):
            z = Xb @ th
            p = 1 / (1 + np.exp(-z))
            g = C * Xb.T @ (sw * (p - t))
            g[:d] += th[:d]
            H = C * (Xb * (sw * p * (1 - p))[:, None]).T @ Xb
            H[np.arange(d), np.arange(d)] += 1
            step = np.linalg.solve(H, g)
            th = th - step
            if np.abs(step).max() < 1e-15:
                break
        p = 1 / (1 + np.exp(-(Xb @ th)))
        g = C * Xb.T @ (sw * (p - t))
        g[:d] += th[:d]
        assert np.abs(g).max() < 1e-8 * max(1.0, C * sw.sum()), np.abs(g).max()
        return th[None, :d], th[d:]
    K = len(classes)
    T = (y[:, None] == classes[None, :]).astype(float)
    W = np.hstack([coef, intercept[:, None]])  # K x (d+1)
    for _ in range(steps):
        Z = Xb @ W.T
        Z -= Z.max(axis=1, keepdims=True)
        P = np.exp(Z)
        P /= P.sum(axis=1, keepdims=True)
        G = C * ((P - T) * sw[:, None]).T @ Xb  # K x (d+1)
        G[:, :d] += W[:, :d]
        # Full Hessian in the (K*(d+1)) parameters.
        m = d + 1
        H = np.zeros((K * m, K * m))
        for a in range(K):
            for b in range(K):
                r = sw * P[:, a] * ((a == b) - P[:, b])
                H[a * m:(a + 1) * m, b * m:(b + 1) * m] = C * (Xb * r[:, None]).T @ Xb
        for a in range(K):
            for j in range(d):
                H[a * m + j, a * m + j] += 1
        # Intercepts are defined up to a shift: least-squares step.
        step = np.linalg.lstsq(H, G.ravel(), rcond=None)[0].reshape(K, m)
        W = W - step
        if np.abs(step).max() < 1e-15:
            break
    Z = Xb @ W.T
    Z -= Z.max(axis=1, keepdims=True)
    P = np.exp(Z)
    P /= P.sum(axis=1, keepdims=True)
    G = C * ((P - T) * sw[:, None]).T @ Xb
    G[:, :d] += W[:, :d]
    assert np.abs(G).max() < 1e-8 * max(1.0, C * sw.sum()), np.abs(G).max()
    b = W[:, d] - W[:, d].mean()
    return W[:, :d], b


def logistic_cases():
    out = []
    for name, C, cw in [
        ("pima", 1.0, None),
        ("ecoli4", 0.1, "balanced"),
        ("newthyroid", 1.0, None),
        ("glass", 10.0, None),
        ("pima", 0.01, "balanced"),
    ]:
        X, y = load(name)
        m = LogisticRegression(C=C, class_weight=cw, tol=1e-12, max_iter=100000).fit(X, y)
        sw = np.ones(len(y))
        if cw == "balanced":
            counts = np.bincount(y)
            sw = (len(y) / (len(counts) * counts))[y]
        coef, b = logistic_objective_newton(X, y, sw, C, m.coef_.copy(), m.intercept_.copy())
        sk_b = m.intercept_ - (m.intercept_.mean() if len(m.classes_) > 2 else 0)
        rows = some_rows(len(y))
        if len(m.classes_) == 2:
            z = X[rows] @ coef[0] + b[0]
            p1 = 1 / (1 + np.exp(-z))
            proba = np.stack([1 - p1, p1], axis=1)
        else:
            Z = X[rows] @ coef.T + b
            Z -= Z.max(axis=1, keepdims=True)
            proba = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
        gap = max(np.abs(m.coef_ - coef).max(), np.abs(sk_b - b).max())
        out.append(dict(
            data=name, c=C, class_weight=cw or "none", rows=rows,
            coef=lists(coef.ravel()), intercept=lists(b), proba=lists(proba.ravel()),
            sklearn_proba=lists(m.predict_proba(X[rows]).ravel()),
            sklearn_gap=float(gap),
        ))
        print(f"logistic {name} C={C} {cw}: sklearn's distance to the optimum {gap:.2e}")
    return out


# ------------------------------------------------------------------ gnb
def gnb_cases():
    out = []
    rng = np.random.default_rng(7)
    for name, weighted, vs in [("pima", False, 1e-9), ("newthyroid", False, 1e-9),
                               ("ecoli4", True, 1e-9), ("glass", False, 1e-3)]:
        X, y = load(name)
        sw = rng.uniform(0.1, 3.0, len(y)).round(3) if weighted else None
        m = GaussianNB(var_smoothing=vs).fit(X, y, sample_weight=sw)
        rows = some_rows(len(y))
        out.append(dict(data=name, var_smoothing=vs,
                        weights=None if sw is None else lists(sw), rows=rows,
                        proba=lists(m.predict_proba(X[rows]).ravel())))
    return out


# -------------------------------------------------------------- lda/qda
def lda_cases():
    out = []
    for name, priors in [("pima", None), ("pima", [0.5, 0.5]), ("newthyroid", None),
                         ("newthyroid", [0.2, 0.3, 0.5]), ("ecoli4", [0.3, 0.7])]:
        X, y = load(name)
        m = LinearDiscriminantAnalysis(solver="svd", priors=priors).fit(X, y)
        rows = some_rows(len(y))
        out.append(dict(data=name, priors=priors, rows=rows,
                        proba=lists(m.predict_proba(X[rows]).ravel())))
    return out


def qda_cases():
    out = []
    for name, priors, reg in [("pima", None, 0.0), ("pima", [0.5, 0.5], 0.1),
                              ("newthyroid", None, 0.0), ("newthyroid", [0.6, 0.2, 0.2], 0.3)]:
        X, y = load(name)
        m = QuadraticDiscriminantAnalysis(priors=priors, reg_param=reg).fit(X, y)
        rows = some_rows(len(y))
        out.append(dict(data=name, priors=priors, reg=reg, rows=rows,
                        proba=lists(m.predict_proba(X[rows]).ravel())))
    return out


# ------------------------------------------------------------------ knn
def knn_cases():
    out = []
    for name, k, weights in [("pima", 5, "uniform"), ("pima", 5, "distance"),
                             ("newthyroid", 7, "distance"), ("ecoli4", 3, "uniform")]:
        X, y = load(name)
        n = len(y)
        train = [i for i in range(n) if i % 4 != 0]
        test = [i for i in range(n) if i % 4 == 0]
        m = KNeighborsClassifier(n_neighbors=k, weights=weights, algorithm="brute").fit(X[train], y[train])
        keep = []
        for i in test:
            dist = np.sqrt(((X[train] - X[i]) ** 2).sum(axis=1))
            s = np.sort(dist)
            if s[k] - s[k - 1] > 1e-9:
                keep.append(i)
        out.append(dict(data=name, k=k, weights=weights, train=train, rows=keep,
                        proba=lists(m.predict_proba(X[keep]).ravel())))
        print(f"knn {name} k={k}: {len(keep)} of {len(test)} test rows without ties")
    return out


# ------------------------------------------------------------------ svm
def svm_cases():
    out = []
    for name, kernel, C, gamma, cw in [
        ("pima", "rbf", 1.0, "scale", None),
        ("ecoli4", "linear", 1.0, "scale", None),
        ("ecoli4", "rbf", 10.0, 2.0, "balanced"),
        ("newthyroid", "rbf", 1.0, "scale", None),
        ("glass6", "linear", 0.5, "scale", "balanced"),
    ]:
        X, y = load(name)
        m = SVC(kernel=kernel, C=C, gamma=gamma, class_weight=cw, tol=1e-6,
                decision_function_shape="ovo").fit(X, y)
        rows = some_rows(len(y))
        dec = m.decision_function(X[rows])
        if dec.ndim == 1:
            assert ((dec > 0) == (m.predict(X[rows]) == 1)).all()
        out.append(dict(data=name, kernel=kernel, c=C, gamma=gamma,
                        class_weight=cw or "none", rows=rows,
                        decision=lists(np.asarray(dec).ravel()),
                        n_support=int(m.support_.size)))
    return out


# ------------------------------------------------------------- boosting
def boosting_cases():
    out = []
    for name, n in [("pima", 50), ("ecoli4", 50), ("wisconsin", 50), ("newthyroid", 50)]:
        X, y = load(name)
        fold = np.arange(len(y)) % 5
        acc = {}
        for label, make in [
            ("adaboost", lambda: AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=n)),
            ("gbm", lambda: GradientBoostingClassifier(loss="log_loss", max_depth=1, learning_rate=1.0,
                                                       n_estimators=2 * n, random_state=0)),
        ]:
            hit = 0
            for f in range(5):
                tr, te = fold != f, fold == f
                hit += (make().fit(X[tr], y[tr]).predict(X[te]) == y[te]).sum()
            acc[label] = hit / len(y)
        out.append(dict(data=name, n=n, adaboost_accuracy=acc["adaboost"],
                        logitboost_rounds=2 * n, gbm_accuracy=acc["gbm"]))
        print(f"boosting {name}: {acc}")
    return out


def gbdt_cases():
    """HistGradientBoostingClassifier on sets whose features have at most 255
    distinct values (then its bins and rarity's are one per value), no early
    stopping: training-row probabilities. rarity's gbdt with
    max_delta_step=0 (unbounded steps, as scikit-learn) must match."""
    out = []
    cases = [
        ("yeast4", dict(max_iter=20, learning_rate=0.1, max_leaf_nodes=31, min_samples_leaf=20), None),
        ("yeast4", dict(max_iter=15, learning_rate=0.2, max_leaf_nodes=8, min_samples_leaf=5,
                        l2_regularization=1.0, class_weight="balanced"), None),
        ("wisconsin", dict(max_iter=10, learning_rate=0.3, max_leaf_nodes=31, max_depth=3,
                           min_samples_leaf=10), None),
        ("contraceptive", dict(max_iter=10, learning_rate=0.1, max_leaf_nodes=15, min_samples_leaf=20), None),
        ("newthyroid", dict(max_iter=10, learning_rate=0.2, max_leaf_nodes=6, min_samples_leaf=5,
                            l2_regularization=0.5), None),
    ]
    for name, params, _ in cases:
        X, y = load(name)
        m = HistGradientBoostingClassifier(early_stopping=False, max_bins=255, random_state=0, **params)
        m.fit(X, y)
        spec = (f"gbdt(rounds={params['max_iter']},learning_rate={params['learning_rate']},"
                f"max_leaves={params['max_leaf_nodes']},min_samples_leaf={params['min_samples_leaf']},"
                f"l2={params.get('l2_regularization', 0.0)},max_depth={params.get('max_depth') or 0},"
                f"max_delta_step=0,leaf_rows=rows" + (",class_weight=balanced" if params.get("class_weight") else "") + ")")
        out.append(dict(data=name, spec=spec, proba=lists(m.predict_proba(X).ravel())))
        print(f"gbdt {name}: {spec}")
    return out


def tree_importance_cases():
    """DecisionTreeClassifier(max_depth).feature_importances_ (mean decrease
    in Gini impurity) at depths where the tree has no tied splits (its
    importances are the same for random_state 0..29)."""
    out = []
    for name, depth in [("pima", 3), ("abalone9_18", 4), ("yeast4", 3)]:
        X, y = load(name)
        m = DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y)
        out.append(dict(data=name, max_depth=depth, importances=lists(m.feature_importances_)))
        print(f"tree importances {name}: {np.round(m.feature_importances_, 3)}")
    return out


BLOCKS = dict(
    logistic=logistic_cases,
    gnb=gnb_cases,
    lda=lda_cases,
    qda=qda_cases,
    knn=knn_cases,
    svm=svm_cases,
    boosting=boosting_cases,
    gbdt=gbdt_cases,
    tree_importances=tree_importance_cases,
)


def main():
    """All blocks, or with `--only a,b` those blocks, the others kept from
    the existing file (solver-based blocks move in their last digits from
    one machine's BLAS to another's)."""
    path = ROOT / "tests" / "fixtures" / "learners.json"
    only = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else list(BLOCKS)
    fixture = json.loads(path.read_text()) if path.exists() and len(only) < len(BLOCKS) else {}
    fixture["sklearn_version"] = sklearn.__version__
    for name in only:
        fixture[name] = BLOCKS[name]()
    fixture = {k: fixture[k] for k in ["sklearn_version", *BLOCKS] if k in fixture}
    path.write_text(json.dumps(fixture, separators=(",", ":")) + "\n")
    print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
