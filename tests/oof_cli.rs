//! `--oof FILE` of `evaluate` and `run`: every test row of every fold of
//! every repeat once, with the probabilities the metrics were computed from.

mod common;

use common::{run, scratch};
use rarity::metrics::ranking::binary_ranking;

/// The rows of an OOF CSV as (row, repeat, fold, strategy, truth, p_1, label).
fn read_oof(path: &str) -> Vec<(usize, usize, usize, String, u32, f64, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "row,repeat,fold,strategy,truth,p_0,p_1,label"
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let p0: f64 = f[5].parse().unwrap();
            let p1: f64 = f[6].parse().unwrap();
            assert!((p0 + p1 - 1.0).abs() < 1e-9, "{l}");
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
                f[3].to_string(),
                f[4].parse().unwrap(),
                p1,
                f[7].to_string(),
            )
        })
        .collect()
}

/// `rarity evaluate --dataset glass6 -m logistic --cv 5 --oof OOF`, then `rest`.
fn evaluate_glass6(oof: &str, rest: &[&str]) -> (i32, String, String) {
    let mut args = vec![
        "evaluate",
        "--dataset",
        "glass6",
        "-m",
        "logistic",
        "--cv",
        "5",
        "--oof",
        oof,
    ];
    args.extend_from_slice(rest);
    run(&args)
}

#[test]
fn evaluate_writes_every_row_once_per_repeat_with_the_scored_probabilities() {
    let d = scratch("oof-evaluate");
    let oof = d.join("oof.csv").to_string_lossy().to_string();
    let (code, out, err) = evaluate_glass6(&oof, &["--pooled", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let rows = read_oof(&oof);
    let n = 214;
    assert_eq!(rows.len(), n);
    let mut seen: Vec<usize> = rows.iter().map(|r| r.0).collect();
    seen.sort_unstable();
    assert_eq!(seen, (0..n).collect::<Vec<_>>());
    assert!(rows
        .iter()
        .all(|r| r.1 == 0 && r.2 < 5 && r.3 == "logistic"));
    // The pooled AUC is the AUC of the written probabilities.
    let truth: Vec<u32> = rows.iter().map(|r| r.4).collect();
    let p: Vec<f64> = rows.iter().map(|r| r.5).collect();
    let auc = binary_ranking(&truth, &p, 1).unwrap().roc_auc;
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["metrics"]["roc_auc"]["mean"].as_f64().unwrap(), auc);
    // Per-fold evaluation writes the same predictions.
    let per_fold = d.join("oof2.csv").to_string_lossy().to_string();
    let (code, _, err) = evaluate_glass6(&per_fold, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        std::fs::read(&oof).unwrap(),
        std::fs::read(&per_fold).unwrap()
    );
}

#[test]
fn run_writes_each_strategy_and_repeat_and_refuses_a_directory_before_work() {
    let d = scratch("oof-run");
    let oof = d.join("oof.csv").to_string_lossy().to_string();
    let model = d.join("w.rarity").to_string_lossy().to_string();
    let (code, _, err) = run(&[
        "run",
        "--dataset",
        "glass6",
        "-m",
        "logistic",
        "-m",
        "gnb+threshold(0.3)",
        "--cv",
        "2x3",
        "--oof",
        &oof,
        "-o",
        &model,
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    let rows = read_oof(&oof);
    // logistic, calibrated and deciding at 0.5, also runs with
    // threshold(priors) (issue 58).
    assert_eq!(rows.len(), 3 * 2 * 214);
    for s in [
        "logistic",
        "logistic+threshold(priors)",
        "gnb+threshold(0.3)",
    ] {
        for repeat in 0..2 {
            let mut seen: Vec<usize> = rows
                .iter()
                .filter(|r| r.3 == s && r.1 == repeat)
                .map(|r| r.0)
                .collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..214).collect::<Vec<_>>(), "{s} repeat {repeat}");
        }
    }
    // The decided labels follow each strategy's own rule.
    assert!(rows
        .iter()
        .filter(|r| r.3 == "gnb+threshold(0.3)")
        .all(|r| (r.5 >= 0.3) == (r.6 == "1")));
    let dir = d.to_string_lossy().to_string();
    let (code, _, err) = run(&["run", "--dataset", "glass6", "--oof", &dir, "-o", &model]);
    assert_ne!(code, 0);
    assert!(
        err.contains("is a directory") && !err.contains("panicked"),
        "{err}"
    );
}
