#!/usr/bin/env python3
"""Reference values for rarity's metrics and statistics tests.

Writes tests/fixtures/metrics.json and tests/fixtures/stats.json from
scikit-learn, SciPy and NumPy on random and adversarial cases (fixed seed).
The Rust tests (tests/metrics_fixtures.rs, tests/stats_fixtures.rs) read the
committed files and need no Python.

Regenerate (from the repository root):

    pip install scikit-learn==1.9.1 scipy==1.17.1 numpy==2.4.6
    python3 tools/gen_metric_fixtures.py

JSON has no NaN or infinity: NaN is written as null, +-infinity as the
strings "inf" / "-inf". Where scikit-learn warns that a ranking metric is
undefined (no positive row, or one class only), the expected value is NaN:
rarity returns NaN there (see src/metrics/ranking.rs).
"""

import json
import math
import warnings
from pathlib import Path

import numpy as np
import scipy
import sklearn
from scipy import stats
from sklearn.calibration import calibration_curve
from sklearn.metrics import (
    accuracy_score,
    auc,
    average_precision_score,
    balanced_accuracy_score,
    brier_score_loss,
    confusion_matrix,
    f1_score,
    log_loss,
    multilabel_confusion_matrix,
    precision_recall_curve,
    precision_recall_fscore_support,
    roc_auc_score,
    roc_curve,
)

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
rng = np.random.default_rng(20240607)


def clean(x):
    """Converts NumPy values to JSON-safe Python values."""
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple, np.ndarray)):
        return [clean(v) for v in x]
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        if math.isnan(x):
            return None
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return x
    return x


def div0(a, b):
    return a / b if b != 0 else 0.0


def quiet(f, *args, **kw):
    """f(...) and whether it warned."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        v = f(*args, **kw)
    return v, len(w) > 0


# ---------------------------------------------------------------- binary


def binary_expected(y, p, thr):
    y = np.asarray(y)
    p = np.asarray(p, dtype=float)
    n_pos, n_neg = int((y == 1).sum()), int((y == 0).sum())
    e = {}
    roc, warned = quiet(roc_auc_score, y, p) if n_pos and n_neg else (float("nan"), True)
    e["roc_auc"] = float("nan") if warned else roc
    if n_pos:
        e["average_precision"] = average_precision_score(y, p)
        prec, rec, _ = precision_recall_curve(y, p)
        e["pr_auc_trapezoid"] = auc(rec, prec)
    else:
        e["average_precision"] = float("nan")
        e["pr_auc_trapezoid"] = float("nan")
    e["brier"] = brier_score_loss(y, p, labels=[0, 1])
    e["log_loss"] = log_loss(y, p, labels=[0, 1])
    yhat = (p >= thr).astype(int)
    e["accuracy"] = accuracy_score(y, yhat)
    (tn, fp), (fn, tp) = confusion_matrix(y, yhat, labels=[0, 1])
    pr, rc, f, _ = quiet(precision_recall_fscore_support, y, yhat, labels=[0, 1])[0]
    e["tpr"], e["tnr"], e["ppv"], e["npv"] = rc[1], rc[0], pr[1], pr[0]
    e["fpr"], e["fdr"] = div0(fp, fp + tn), div0(fp, fp + tp)
    e["tp"], e["fp"], e["tn"], e["fn"] = tp, fp, tn, fn
    e["f1"] = f[1]
    e["g_mean"] = math.sqrt(rc[1] * rc[0])
    e["macro_accuracy"] = quiet(balanced_accuracy_score, y, yhat)[0]
    e["macro_f1"] = quiet(f1_score, y, yhat, labels=[0, 1], average="macro")[0]
    pos, neg = y == 1, y == 0
    e["brier_positive"] = brier_score_loss(y[pos], p[pos], labels=[0, 1]) if n_pos else float("nan")
    e["brier_negative"] = brier_score_loss(y[neg], p[neg], labels=[0, 1]) if n_neg else float("nan")
    # Calibration bins as scikit-learn's calibration_curve, with counts.
    cal = {}
    for strategy in ("uniform", "quantile"):
        for n_bins in (5, 10):
            prob_true, prob_pred = calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
            if strategy == "quantile":
                edges = np.percentile(p, np.linspace(0, 1, n_bins + 1) * 100)
            else:
                edges = np.linspace(0.0, 1.0, n_bins + 1)
            ids = np.searchsorted(edges[1:-1], p)
            counts = np.bincount(ids, minlength=n_bins)
            cal[f"{strategy}_{n_bins}"] = {
                "prob_true": prob_true,
                "prob_pred": prob_pred,
                "count": counts[counts > 0],
            }
            if strategy == "uniform" and n_bins == 10:
                nz = counts[counts > 0]
                e["ece"] = float(np.sum(nz / len(p) * np.abs(prob_true - prob_pred)))
    # Murphy decomposition over 10 equal-width bins (the reliability
    # diagram's; a value on an interior edge goes to the lower bin), with
    # Stephenson et al.'s (2008) within-bin terms; 5 bins as well.
    murphy = {}
    for n_bins in (5, 10):
        m = murphy_binned(y, p, n_bins)
        murphy[str(n_bins)] = m
        if n_bins == 10:
            e["brier_reliability"] = m["reliability"]
            e["brier_resolution"] = m["resolution"]
            e["brier_uncertainty"] = m["uncertainty"]
    curves = {}
    fpr_, tpr_, th_ = quiet(roc_curve, y, p)[0]
    curves["roc"] = {"fpr": fpr_, "tpr": tpr_, "thresholds": th_}
    prec, rec, th = quiet(precision_recall_curve, y, p)[0]
    curves["pr"] = {"precision": prec, "recall": rec, "thresholds": th}
    return e, curves, cal, murphy


def top_k_positives(y, p, k):
    """Expected positives among the k highest scores, the rows tied with
    the k-th score each counted (k - above) / tied (a random order of ties)."""
    if k < 1 or k > len(p):
        return float("nan")
    kth = np.sort(p)[::-1][k - 1]
    above, tied = p > kth, p == kth
    return y[above].sum() + y[tied].sum() * (k - above.sum()) / tied.sum()


def alert_budget(rate, n):
    x = rate * n
    return int(round(x)) if abs(x - round(x)) < 1e-9 else int(math.ceil(x))


def budget_expected(y, p):
    """The alert-budget metrics, keyed by the call that asks for them."""
    y = np.asarray(y)
    p = np.asarray(p, dtype=float)
    n, n_pos = len(y), int((y == 1).sum())
    nan = float("nan")
    e = {}
    for k in sorted({1, 5, n // 10 + 1, n, n + 1}):
        tp = top_k_positives(y, p, k)
        e[f"precision_at_k(k={k})"] = tp / k
        e[f"recall_at_k(k={k})"] = tp / n_pos if n_pos else nan
    for rate in (0.01, 0.1, 0.5, 1.0):
        tp = top_k_positives(y, p, alert_budget(rate, n))
        e[f"recall_at_alert_rate(rate={rate})"] = tp / n_pos if n_pos else nan
    # precision_recall_curve's points without its final (1, 0), which no
    # threshold attains.
    prec, rec, _ = quiet(precision_recall_curve, y, p)[0]
    prec, rec = prec[:-1], rec[:-1]
    for target in (0.5, 0.9, 1.0):
        ok = prec >= target
        e[f"recall_at_precision(p={target})"] = rec[ok].max() if n_pos and ok.any() else nan
        ok = rec >= target
        e[f"precision_at_recall(r={target})"] = prec[ok].max() if n_pos and ok.any() else nan
    return e


def murphy_binned(y, p, n_bins):
    """Murphy's decomposition of the Brier score over equal-width bins."""
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    ids = np.searchsorted(edges[1:-1], p, side="left")
    o = (y == 1).astype(float)
    n = np.bincount(ids, minlength=n_bins).astype(float)
    safe = np.maximum(n, 1.0)
    f_k = np.bincount(ids, weights=p, minlength=n_bins) / safe
    o_k = np.bincount(ids, weights=o, minlength=n_bins) / safe
    base = o.mean()
    nz = n > 0
    big_n = len(p)
    return {
        "reliability": float(np.sum(n[nz] * (f_k[nz] - o_k[nz]) ** 2) / big_n),
        "resolution": float(np.sum(n[nz] * (o_k[nz] - base) ** 2) / big_n),
        "uncertainty": float(base * (1 - base)),
        "within_bin_variance": float(np.sum((p - f_k[ids]) ** 2) / big_n),
        "within_bin_covariance": float(2 * np.sum((o - o_k[ids]) * (p - f_k[ids])) / big_n),
    }


def binary_cases():
    cases = []

    def add(name, y, p, thr=0.5):
        y = [int(v) for v in y]
        p = [float(v) for v in p]
        e, curves, cal, murphy = binary_expected(y, p, thr)
        cases.append({"name": name, "truth": y, "p": p, "threshold": thr,
                      "expected": e, "curves": curves, "calibration": cal,
                      "murphy": murphy, "budget": budget_expected(y, p)})

    for i in range(12):
        n = int(rng.integers(20, 200))
        y = rng.random(n) < rng.uniform(0.05, 0.5)
        s = np.clip(rng.normal(0.3 + 0.3 * y, 0.2), 0, 1)
        add(f"random_{i}", y, s, float(rng.choice([0.5, 0.3, 0.1, 0.25])))
    for i in range(6):
        n = int(rng.integers(30, 150))
        y = rng.random(n) < 0.3
        s = np.round(rng.random(n) * 0.5 + 0.4 * y, 1)  # heavy ties
        add(f"ties_{i}", y, s, 0.5)
    for npos in (1, 2, 3):
        n = 120
        y = np.zeros(n, int)
        y[rng.choice(n, npos, replace=False)] = 1
        add(f"imbalance_{npos}_pos", y, rng.random(n), 0.5)
        add(f"imbalance_{npos}_pos_ties", y, np.round(rng.random(n), 1), 0.3)
    add("constant_scores", rng.random(40) < 0.3, np.full(40, 0.3), 0.3)
    add("perfect_separation", [0] * 10 + [1] * 5, list(rng.random(10) * 0.4) + list(0.6 + rng.random(5) * 0.4))
    add("perfectly_wrong", [1] * 6 + [0] * 9, list(rng.random(6) * 0.4) + list(0.6 + rng.random(9) * 0.4))
    add("all_negative", [0] * 12, rng.random(12))
    add("all_positive", [1] * 9, rng.random(9))
    add("one_sample_pos", [1], [0.7])
    add("one_sample_neg", [0], [0.7])
    add("certain_mistakes", [1, 0, 1, 0], [0.0, 1.0, 1.0, 0.0])
    add("threshold_on_a_score", [0, 1, 1, 0, 1], [0.2, 0.5, 0.5, 0.5, 0.9], 0.5)
    add("nothing_predicted_positive", [0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], 0.9)
    add("everything_predicted_positive", [0, 1, 0, 1], [0.6, 0.7, 0.8, 0.9], 0.1)
    add("edges_on_bins", [0, 1, 0, 1, 1, 0], [0.0, 0.1, 0.2, 0.5, 1.0, 0.6], 0.5)
    return cases


# ------------------------------------------------------------ multiclass


def multiclass_expected(y, P):
    y = np.asarray(y)
    P = np.asarray(P)
    k = P.shape[1]
    labels = list(range(k))
    present = len(np.unique(y)) == k
    e = {}
    if present:
        e["roc_auc"] = roc_auc_score(y, P, multi_class="ovr", labels=labels)
        e["roc_auc_hand_till"] = roc_auc_score(y, P, multi_class="ovo", labels=labels)
        e["average_precision"] = average_precision_score(y, P)
        areas = []
        for c in labels:
            prec, rec, _ = precision_recall_curve(y == c, P[:, c])
            areas.append(auc(rec, prec))
        e["pr_auc_trapezoid"] = float(np.mean(areas))
    else:
        for key in ("roc_auc", "roc_auc_hand_till", "average_precision", "pr_auc_trapezoid"):
            e[key] = float("nan")
    e["brier"] = brier_score_loss(y, P, labels=labels)
    e["log_loss"] = log_loss(y, P, labels=labels)
    yhat = np.argmax(P, axis=1)
    e["accuracy"] = accuracy_score(y, yhat)
    pr, rc, f, _ = quiet(precision_recall_fscore_support, y, yhat, labels=labels)[0]
    mcm = multilabel_confusion_matrix(y, yhat, labels=labels)
    tn, fp, fn, tp = mcm[:, 0, 0], mcm[:, 0, 1], mcm[:, 1, 0], mcm[:, 1, 1]
    e["tpr"], e["ppv"], e["f1"] = rc.mean(), pr.mean(), f.mean()
    e["tnr"] = np.mean([div0(a, a + b) for a, b in zip(tn, fp)])
    e["npv"] = np.mean([div0(a, a + b) for a, b in zip(tn, fn)])
    e["fpr"] = np.mean([div0(b, b + a) for a, b in zip(tn, fp)])
    e["fdr"] = np.mean([div0(b, b + a) for a, b in zip(tp, fp)])
    e["g_mean"] = float(np.prod(rc) ** (1.0 / k))
    e["macro_accuracy"] = quiet(balanced_accuracy_score, y, yhat)[0]
    e["macro_f1"] = quiet(f1_score, y, yhat, labels=labels, average="macro")[0]
    averages = {}
    for avg in ("micro", "weighted", "macro"):
        for beta in (1.0, 2.0, 0.5):
            p_, r_, f_, _ = quiet(precision_recall_fscore_support, y, yhat, labels=labels,
                                  average=avg, beta=beta)[0]
            averages[f"{avg}_{beta}"] = {"precision": p_, "recall": r_, "fbeta": f_}
    strat = []
    for c in labels:
        rows = y == c
        strat.append(float(np.mean((1 - P[rows, c]) ** 2)) if rows.any() else float("nan"))
    return e, averages, strat


def multiclass_cases():
    cases = []

    def add(name, y, P):
        P = np.asarray(P, dtype=float)
        e, averages, strat = multiclass_expected(y, P)
        cases.append({"name": name, "truth": [int(v) for v in y], "k": P.shape[1],
                      "proba": P.ravel().tolist(), "expected": e,
                      "averages": averages, "stratified_brier": strat})

    for i in range(8):
        k = int(rng.integers(3, 6))
        n = int(rng.integers(30, 150))
        y = rng.integers(0, k, n)
        y[:k] = np.arange(k)
        logits = rng.normal(size=(n, k)) + 1.5 * np.eye(k)[y] * rng.uniform(0, 1.5)
        P = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        if i % 3 == 0:
            # Two decimals (ties); the last column takes the remainder.
            P[:, :-1] = np.floor(P[:, :-1] * 100) / 100
            P[:, -1] = 1 - P[:, :-1].sum(axis=1)
        add(f"random_{i}", y, P)
    # A class that is never predicted (argmax never picks class 2).
    n = 60
    y = rng.integers(0, 3, n)
    P = rng.dirichlet([3, 3, 0.3], size=n)
    P[:, 2] = np.minimum(P[:, 2], 0.3)
    P /= P.sum(axis=1, keepdims=True)
    add("empty_predicted_class", y, P)
    # A class absent from the truth.
    y = rng.integers(0, 2, 40)
    add("absent_true_class", y, rng.dirichlet([1, 1, 1], size=40))
    # Extreme imbalance: 2 rows of class 2.
    y = np.array([0] * 30 + [1] * 20 + [2] * 2)
    add("two_rows_of_a_class", y, rng.dirichlet([2, 2, 1], size=len(y)))
    # Uniform probabilities: all ties.
    add("uniform_rows", [0, 1, 2, 0, 1, 2, 2], np.full((7, 3), 1 / 3))
    add("one_hot_perfect", [0, 1, 2, 1], np.eye(3)[[0, 1, 2, 1]])
    return cases


# ----------------------------------------------------------------- stats


def stats_cases():
    out = {"rankdata": [], "friedman": [], "wilcoxon": [], "ttest": [], "describe": [],
           "nemenyi_q": [], "studentized_range_sf": []}
    for i in range(6):
        x = np.round(rng.random(int(rng.integers(1, 25))), 1)
        out["rankdata"].append({"x": x, "ranks": stats.rankdata(x)})
    for i in range(10):
        k = int(rng.integers(3, 8))
        n = int(rng.integers(3, 30))
        base = rng.random(n)[:, None]
        table = base + rng.normal(0, 0.05, (n, k)) + np.linspace(0, 0.05, k)
        if i % 2:
            table = np.round(table, 2)  # ties within rows
        chi2, p = stats.friedmanchisquare(*table.T)
        f = (n - 1) * chi2 / (n * (k - 1) - chi2)
        fp = stats.f.sf(f, k - 1, (k - 1) * (n - 1))
        ranks = np.array([stats.rankdata(r) for r in table])
        mean_ranks_high = np.array([stats.rankdata(-r) for r in table]).mean(axis=0)
        out["friedman"].append({"table": table, "chi2": chi2, "p_value": p, "f": f,
                                "f_p_value": fp, "rank_sums": ranks.sum(axis=0),
                                "mean_ranks_higher_better": mean_ranks_high})
    wil = []
    for n in (1, 3, 5, 8, 12, 20, 30, 50, 51, 80):  # exact (no ties) or normal (n > 50)
        x = rng.random(n)
        y = x + rng.normal(0.05, 0.2, n)
        wil.append((f"distinct_{n}", x, y))
    for n in (4, 7, 10, 13, 14, 25, 50, 60):  # ties and zeros
        x = np.round(rng.random(n), 1)
        y = np.round(x + rng.normal(0.05, 0.2, n), 1)
        wil.append((f"ties_zeros_{n}", x, y))
    wil.append(("ties_no_zeros_9", np.array([1, 2, 3, 4, 5, 6, 7, 8, 9.0]),
                np.array([2, 1, 5, 2, 8, 3, 9, 5, 4.0])))
    wil.append(("one_sided_20", np.arange(20.0) + 1, np.zeros(20)))
    for name, x, y in wil:
        r = stats.wilcoxon(x, y)
        out["wilcoxon"].append({"name": name, "x": x, "y": y, "statistic": r.statistic,
                                "p_value": r.pvalue})
    for i in range(6):
        n = int(rng.integers(2, 40))
        x = rng.random(n)
        y = x + rng.normal(0.02, 0.1, n)
        r = stats.ttest_rel(x, y)
        out["ttest"].append({"x": x, "y": y, "t": r.statistic, "p_value": r.pvalue,
                             "df": n - 1})
        out["describe"].append({"x": x, "mean": np.mean(x), "std": np.std(x, ddof=1)})
    for k in range(2, 11):
        for alpha in (0.05, 0.10):
            q = stats.studentized_range.ppf(1 - alpha, k, np.inf) / math.sqrt(2)
            out["nemenyi_q"].append({"k": k, "alpha": alpha, "q": q})
        for w in (0.5, 2.0, 3.5, 5.0):
            out["studentized_range_sf"].append(
                {"k": k, "w": w, "sf": stats.studentized_range.sf(w, k, np.inf)})
    return out


def main():
    versions = {"scikit-learn": sklearn.__version__, "scipy": scipy.__version__,
                "numpy": np.__version__}
    OUT.mkdir(parents=True, exist_ok=True)
    metrics = {"versions": versions, "binary": binary_cases(), "multiclass": multiclass_cases()}
    (OUT / "metrics.json").write_text(json.dumps(clean(metrics), separators=(",", ":")))
    st = {"versions": versions, **stats_cases()}
    (OUT / "stats.json").write_text(json.dumps(clean(st), separators=(",", ":")))
    for f in ("metrics.json", "stats.json"):
        print(f, (OUT / f).stat().st_size, "bytes")


if __name__ == "__main__":
    main()
