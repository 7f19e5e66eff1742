//! `rarity experiment pt-bagging` and `rarity experiment calibration` on the
//! bundled datasets, at a small scale: the papers' tables come out, with the
//! properties the papers report where a small run can show them.

mod common;
use common::run;
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
