//! Results that misled a new user (issue 39, items 1-6 and 17-20): each
//! test reproduces the command of the issue on bundled or generated data.

mod common;

use common::{run, scratch};
use serde_json::Value;

fn json(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// Item 1: `run --cv loo` pools the one-row folds (as `evaluate` does) and
/// ranks on the pooled metrics; `--pooled` pools any scheme.
#[test]
fn run_loo_pools_and_ranks_on_pooled_metrics() {
    let dir = scratch("loo");
    let model = dir.join("w.rarity");
    let (code, out, err) = run(&[
        "run",
        "--dataset",
        "glass6",
        "-m",
        "tree(max_depth=3)",
        "-m",
        "gnb",
        "-m",
        "logistic",
        "--cv",
        "loo",
        "--metric",
        "roc_auc",
        "--format",
        "json",
        "-q",
        "-o",
        model.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["pooled"], true);
    let auc = |m: &str| {
        v["models"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["model"] == m)
            .unwrap()["metrics"]["roc_auc"]["mean"]
            .as_f64()
            .unwrap_or(f64::NAN)
    };
    let (tree, logistic) = (auc("tree(max_depth=3)"), auc("logistic"));
    assert!(tree.is_finite() && logistic.is_finite(), "{out}");
    // The pooled AUC the issue quotes (evaluate --cv loo): 0.905 and 0.782.
    assert!(
        (logistic - 0.905).abs() < 5e-4 && (tree - 0.782).abs() < 5e-4,
        "{out}"
    );
    // Ranked on the pooled AUC: the best pooled model wins, not the first listed.
    let best = ["tree(max_depth=3)", "gnb", "logistic"]
        .into_iter()
        .max_by(|a, b| auc(a).total_cmp(&auc(b)))
        .unwrap();
    assert_eq!(v["winner"], best, "{out}");
    assert_ne!(v["winner"], "tree(max_depth=3)", "{out}");
    let verdict = v["verdict"]["summary"].as_str().unwrap();
    assert!(!verdict.contains("same roc_auc on every fold"), "{verdict}");

    // Text: one pooled value, no "±".
    let (code, text, err) = run(&[
        "run",
        "--dataset",
        "glass6",
        "-m",
        "tree(max_depth=3)",
        "-m",
        "gnb",
        "-m",
        "logistic",
        "--cv",
        "loo",
        "--metric",
        "roc_auc",
        "-q",
        "-o",
        model.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("pooled out-of-fold"), "{text}");
    assert!(!text.contains("-±-"), "{text}");
}

#[test]
fn run_pooled_flag_pools_any_scheme_and_help_lists_loo() {
    let dir = scratch("pooled");
    let model = dir.join("w.rarity");
    let (code, out, err) = run(&[
        "run",
        "--dataset",
        "glass6",
        "-m",
        "tree(max_depth=3)",
        "-m",
        "logistic",
        "--cv",
        "2x5",
        "--pooled",
        "--metric",
        "roc_auc",
        "--format",
        "json",
        "-q",
        "-o",
        model.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["pooled"], true);
    let (_, help, _) = run(&["run", "--help"]);
    assert!(help.contains("`loo`"), "{help}");
}
