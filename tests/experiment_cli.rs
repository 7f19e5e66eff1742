//! `rarity experiment pt-bagging`, `calibration` and `reverse-testing` on the
//! bundled datasets (or a tiny written one), at a small scale: the papers'
//! tables come out, with the properties the papers report where a small run
//! can show them.

mod common;
use std::path::Path;

use common::{run, scratch};
use serde_json::Value;

#[test]
fn pt_bagging_experiment_prints_the_papers_tables() {
    let (code, out, err) = run(&[
        "experiment",
        "pt-bagging",
        "--sizes",
        "2,10",
        "--cv",
        "1x2",
        "-q",
    ]);
    assert_eq!(code, 0, "{err}");
    for needle in [
        "Ensemble size trend (Fig. 1)",
        "Table 5",
        "Table 4",
        "Friedman",
        "Recall per class (Fig. 2)",
        "Multiclass: 5 datasets",
        "UnderOver a=50",
    ] {
        assert!(out.contains(needle), "missing {needle}:\n{out}");
    }
}

#[test]
fn pt_bagging_json_shows_the_size_trend_and_figure_2() {
    let (code, out, err) = run(&[
        "experiment",
        "pt-bagging",
        "--sizes",
        "1,25",
        "--cv",
        "1x2",
        "-q",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let b = &v["binary"];
    assert_eq!(b["n_datasets"], 10);
    // AUCPR of PT-bagging rises from one tree to 25 (Fig. 1).
    let ap = &b["trend"][0];
    assert_eq!(ap[0], "average_precision");
    let pt = ap[1][0].as_array().unwrap();
    assert!(
        pt[1].as_f64().unwrap() > pt[0].as_f64().unwrap() + 0.05,
        "{pt:?}"
    );
    // EB's minority recall exceeds its majority recall (Fig. 2).
    assert!(b["recall"][2]["mean_difference"].as_f64().unwrap() > 0.0);
    assert_eq!(v["multiclass"]["n_datasets"], 5);
}

#[test]
fn calibration_experiment_reproduces_table_v_ordering() {
    let (code, out, err) = run(&[
        "experiment",
        "calibration",
        "--learners",
        "forest(n=20)",
        "--levels",
        "1,0.5",
        "--cv",
        "1x5",
        "-q",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let rows = v["table_v"].as_array().unwrap();
    let get = |m: &str| rows.iter().find(|r| r["measure"] == m).unwrap()["rank_sums"].clone();
    // eq. 9 is monotone and eq. 12 moves the threshold with it: p_s and p'
    // tie on AUC and G-mean.
    for m in ["auc", "g_mean"] {
        let r = get(m);
        assert_eq!(r[1], r[2], "{m}: {r}");
    }
    // Brier: p' is better calibrated (lower rank sum) than p_s.
    let brier = get("brier");
    assert!(brier[2].as_f64() < brier[1].as_f64(), "{brier}");
    assert_eq!(v["gaussian"].as_array().unwrap().len(), 2);
    assert!(
        v["skipped"].as_array().unwrap().len() == 5,
        "multiclass sets are skipped"
    );
}

#[test]
fn experiments_reject_bad_settings() {
    for (args, needle) in [
        (
            vec!["experiment", "pt-bagging", "--sizes", "5,x"],
            "--sizes",
        ),
        (
            vec!["experiment", "pt-bagging", "--sizes", "10,5"],
            "ascending",
        ),
        (vec!["experiment", "calibration", "--levels", "2"], "(0, 1]"),
        (
            vec!["experiment", "calibration", "--learners", "nope"],
            "unknown learner",
        ),
        (
            vec!["experiment", "pt-bagging", "--data-dir", "/no/such/dir"],
            "/no/such/dir",
        ),
    ] {
        let (code, _, err) = run(&args);
        assert_ne!(code, 0, "{args:?}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// Checks a written experiment report: `index.html` with at least
/// `min_svg` plots and no external resources, and each named table as a
/// non-empty CSV and JSON.
fn check_report(dir: &Path, min_svg: usize, tables: &[&str]) {
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    for bad in ["<script", "<link", "src=", "https://", "url("] {
        assert!(!html.contains(bad), "index.html contains {bad}");
    }
    assert!(!html.contains("NaN"), "NaN written into the page");
    let svgs = html.matches("<svg").count();
    assert!(svgs >= min_svg, "{svgs} plots, expected at least {min_svg}");
    for t in tables {
        let csv = std::fs::read_to_string(dir.join(format!("tables/{t}.csv")))
            .unwrap_or_else(|e| panic!("tables/{t}.csv: {e}"));
        assert!(csv.lines().count() >= 2, "{t}.csv is empty");
        let json: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("tables/{t}.json"))).unwrap(),
        )
        .unwrap();
        assert!(!json.as_array().unwrap().is_empty(), "{t}.json is empty");
    }
}

#[test]
fn pt_bagging_report_has_the_figures_and_tables() {
    let d = scratch("exp-report-pt");
    let dir = d.join("report");
    let (code, out, err) = run(&[
        "experiment",
        "pt-bagging",
        "--sizes",
        "2,5",
        "--cv",
        "1x2",
        "-q",
        "--report",
        &dir.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Table 4"), "{out}");
    // 3 trend plots, 3 CD diagrams, recall bars, multiclass bars.
    check_report(
        &dir,
        8,
        &[
            "trend_average_precision",
            "trend_macro_accuracy",
            "trend_macro_f1",
            "table_4",
            "table_5",
            "rank_tests",
            "recall_per_class",
            "multiclass",
        ],
    );
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(html.contains("Critical-difference diagram of macro_f1"));
    let t5 = std::fs::read_to_string(dir.join("tables/table_5.csv")).unwrap();
    assert!(t5.starts_with("method,macro_accuracy,potential_macro_accuracy,"));
    assert_eq!(t5.lines().count(), 7, "one row per binary method");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn calibration_report_has_the_figures_and_tables() {
    let d = scratch("exp-report-cal");
    let dir = d.join("report");
    let (code, _, err) = run(&[
        "experiment",
        "calibration",
        "--learners",
        "forest(n=10)",
        "--levels",
        "1,0.5",
        "--cv",
        "1x3",
        "-q",
        "--format",
        "json",
        "--report",
        &dir.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{err}");
    // AUC and Brier box plots; Fig. 3, Fig. 4 and reliability for mu = 3, 15.
    check_report(&dir, 8, &["table_v", "brier_wins", "cells", "gaussian"]);
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(html.contains("most imbalanced dataset"));
    assert!(html.contains("Fig. 3, mu = 15") && html.contains("Fig. 4, mu = 3"));
    let cells = std::fs::read_to_string(dir.join("tables/cells.csv")).unwrap();
    // 10 binary datasets x 2 levels x 3 probabilities.
    assert_eq!(cells.lines().count(), 1 + 10 * 2 * 3, "{cells}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn reverse_testing_report_has_the_summary_and_bars() {
    let d = scratch("exp-report-rvt");
    let dir = d.join("report");
    let (code, _, err) = run(&[
        "experiment",
        "reverse-testing",
        "--learners",
        "tree,gnb",
        "--splits",
        "1",
        "--max-rows",
        "400",
        "-q",
        "--report",
        &dir.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{err}");
    check_report(&dir, 1, &["summary"]);
    let csv = std::fs::read_to_string(dir.join("tables/summary.csv")).unwrap();
    assert!(csv.starts_with("method,correct,wrong,undecided,percent_correct\n"));
    assert!(csv.contains("leave-one-out"));
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn experiment_reports_reject_a_file_as_directory_up_front() {
    let d = scratch("exp-report-bad");
    let file = d.join("taken");
    std::fs::write(&file, "x").unwrap();
    let f = file.to_string_lossy().into_owned();
    for args in [
        vec!["experiment", "pt-bagging", "--report", &f],
        vec!["experiment", "calibration", "--report", &f],
        vec!["experiment", "reverse-testing", "--report", &f],
    ] {
        let (code, _, err) = run(&args);
        assert_ne!(code, 0, "{args:?}");
        assert!(err.contains("not a directory"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
    std::fs::remove_dir_all(&d).unwrap();
}

/// A directory holding one small binary CSV dataset (120 rows, 25 positives,
/// a few labels flipped so that learners differ).
fn tiny_data_dir(name: &str) -> std::path::PathBuf {
    let dir = scratch(name).join("data");
    std::fs::create_dir_all(&dir).unwrap();
    let mut csv = String::from("x0,x1,class\n");
    for i in 0..120u32 {
        let (x0, x1) = (
            f64::from(i * 37 % 101) / 101.0,
            f64::from(i * 53 % 97) / 97.0,
        );
        let positive = (x0 + 0.3 * x1 > 0.95) != (i % 17 == 0);
        csv.push_str(&format!("{x0},{x1},{}\n", u8::from(positive)));
    }
    std::fs::write(dir.join("tiny.csv"), csv).unwrap();
    dir
}

#[test]
fn experiments_accept_learner_lists_with_brackets() {
    let dir = tiny_data_dir("exp-brackets");
    let d = dir.to_string_lossy();
    let learners = "tree,forest(n=5,max_depth=3)";
    for (args, labelled) in [
        (
            vec!["experiment", "calibration", "--levels", "1", "--cv", "1x3"],
            "cells",
        ),
        (
            vec!["experiment", "reverse-testing", "--splits", "1"],
            "methods",
        ),
    ] {
        let base = [
            "--data-dir",
            &d,
            "--learners",
            learners,
            "-q",
            "--format",
            "json",
        ];
        let (code, out, err) = run(&[&args[..], &base[..]].concat());
        assert_eq!(code, 0, "{args:?}: {err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert!(!v[labelled].as_array().unwrap().is_empty(), "{out}");
        if args[1] == "calibration" {
            assert_eq!(v["cells"][1]["learner"], "forest(n=5,max_depth=3)");
        }
    }
    std::fs::remove_dir_all(dir.parent().unwrap()).unwrap();
}
