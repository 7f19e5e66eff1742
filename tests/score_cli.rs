//! `rarity score` end to end: the JSON contract and the bad-input paths.

mod common;

use common::{file, run, scratch};

const KEYS: [&str; 18] = [
    "roc_auc",
    "average_precision",
    "pr_auc_trapezoid",
    "brier",
    "log_loss",
    "accuracy",
    "tpr",
    "tnr",
    "ppv",
    "npv",
    "fpr",
    "fdr",
    "f1",
    "g_mean",
    "macro_accuracy",
    "macro_f1",
    "brier_positive",
    "brier_negative",
];

#[test]
fn binary_json_has_every_contract_key() {
    let d = scratch("score-bin");
    let f = file(&d, "s.csv", b"y,p\n0,0.1\n1,0.8\n0,0.4\n1,0.35\n0,0.2\n");
    let (code, out, err) = run(&[
        "score", &f, "--truth", "y", "--proba", "p", "--format", "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for k in KEYS {
        assert!(v[k].is_number(), "{k} missing or not a number in {out}");
    }
    // Hand-checked: positives {0.8, 0.35}, negatives {0.1, 0.4, 0.2}:
    // 5 of 6 pairs ordered, AUC 5/6; at 0.5 one TP, one FN, three TN.
    assert!((v["roc_auc"].as_f64().unwrap() - 5.0 / 6.0).abs() < 1e-12);
    assert_eq!(v["tpr"].as_f64().unwrap(), 0.5);
    assert_eq!(v["tnr"].as_f64().unwrap(), 1.0);
    // A lower threshold catches the second positive (p >= T is positive).
    let (_, out, _) = run(&[
        "score",
        &f,
        "--truth",
        "y",
        "--proba",
        "p",
        "--threshold",
        "0.35",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["tpr"].as_f64().unwrap(), 1.0);
    assert!((v["fpr"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-15);
}

#[test]
fn multiclass_uses_one_column_per_class() {
    let d = scratch("score-multi");
    let f = file(
        &d,
        "m.csv",
        b"y,p_0,p_1,p_2\n0,0.7,0.2,0.1\n2,0.1,0.2,0.7\n1,0.3,0.4,0.3\n1,0.5,0.4,0.1\n",
    );
    let (code, out, err) = run(&[
        "score", &f, "--truth", "y", "--proba", "p_0", "--proba", "p_1", "--proba", "p_2",
        "--format", "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["accuracy"].as_f64().unwrap(), 0.75);
    assert!((v["macro_accuracy"].as_f64().unwrap() - (1.0 + 0.5 + 1.0) / 3.0).abs() < 1e-15);
}

#[test]
fn bad_inputs_are_explained() {
    let d = scratch("score-bad");
    let cases: [(&[u8], &[&str], &str); 6] = [
        (b"y,p\n0,1.5\n1,0.8\n", &["--proba", "p"], "outside [0, 1]"),
        (
            b"y,a,b\n0,0.5,0.6\n1,0.5,0.5\n",
            &["--proba", "a", "--proba", "b"],
            "sum to",
        ),
        (
            b"y,a,b\n0,0.5,0.5\n2,0.5,0.5\n",
            &["--proba", "a", "--proba", "b"],
            "label '2'",
        ),
        (b"y,p\n", &["--proba", "p"], "no data rows"),
        (b"y,p\n0,0.5\n1,0.5\n", &["--proba", "q"], "'q' not found"),
        (
            b"y,p\n0,0.5\n1,0.5\n2,0.1\n",
            &["--proba", "p"],
            "one probability column",
        ),
    ];
    for (i, (text, proba, needle)) in cases.iter().enumerate() {
        let f = file(&d, &format!("b{i}.csv"), text);
        let mut args = vec!["score", f.as_str(), "--truth", "y"];
        args.extend_from_slice(proba);
        let (code, _, err) = run(&args);
        assert_ne!(code, 0, "case {i} should fail");
        assert!(
            err.contains(needle) && !err.contains("panicked"),
            "case {i}: {err}"
        );
    }
}

/// `rarity score FILE --truth y --proba p` with each of `metrics` as a
/// `--metric`, then `rest`.
fn score_with(f: &str, metrics: &[&str], rest: &[&str]) -> (i32, String, String) {
    let mut args = vec!["score", f, "--truth", "y", "--proba", "p"];
    for m in metrics {
        args.extend_from_slice(&["--metric", m]);
    }
    args.extend_from_slice(rest);
    run(&args)
}

#[test]
fn alert_budgets_and_confusion_counts_are_reported_when_asked() {
    let d = scratch("score-budget");
    let f = file(&d, "s.csv", b"y,p\n0,0.1\n1,0.8\n0,0.4\n1,0.35\n0,0.2\n");
    let json = ["--format", "json"];
    let asked = [
        "precision_at_k(k=2)",
        "recall_at_alert_rate(rate=0.2)",
        "recall_at_precision(p=0.9)",
        "precision_at_recall(r=1)",
    ];
    let (code, out, err) = score_with(&f, &asked, &json);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let get = |k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{k} in {out}"));
    // At 0.5: one TP (0.8), one FN (0.35), three TN.
    assert_eq!(
        (get("tp"), get("fp"), get("tn"), get("fn")),
        (1.0, 0.0, 3.0, 1.0)
    );
    // Top 2: 0.8 (pos), 0.4 (neg); top 20% = 1 row: 0.8.
    assert_eq!(get("precision_at_k(k=2)"), 0.5);
    assert_eq!(get("recall_at_alert_rate(rate=0.2)"), 0.5);
    assert_eq!(get("recall_at_precision(p=0.9)"), 0.5);
    // Both positives need the threshold 0.35: 2 of 3 alerts.
    assert!((get("precision_at_recall(r=1)") - 2.0 / 3.0).abs() < 1e-15);
    // k beyond the rows is undefined (null).
    let (code, out, _) = score_with(&f, &["recall_at_k(k=6)"], &json);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(
        v["recall_at_k(k=6)"].is_null() && v["roc_auc"].is_number(),
        "{out}"
    );
    for (bad, why) in [
        ("precision_at_k", "give the number of alerts"),
        ("precision_at_k(k=0)", "k=0 is invalid"),
        ("recall_at_precision(p=1.5)", "p=1.5 is invalid"),
        ("roc_auc(k=3)", "takes no parameters"),
        ("precison_at_k(k=3)", "did you mean 'precision_at_k'"),
    ] {
        let (code, _, err) = score_with(&f, &[bad], &[]);
        assert_ne!(code, 0, "{bad}");
        assert!(
            err.contains(why) && !err.contains("panicked"),
            "{bad}: {err}"
        );
    }
}

/// A batch with one label (a day without a fraud): the positive class is
/// absent, not the one label there. Brier as scikit-learn's
/// `brier_score_loss` (`pos_label=1`) gives it.
#[test]
fn a_file_with_one_label_scores_the_absent_class_as_positive() {
    let d = scratch("score-one-label");
    let json = ["--format", "json"];
    let zeros = file(&d, "z.csv", b"y,p\n0,0.1\n0,0.2\n0,0.3\n0,0.4\n");
    // Named in the predictions column (`rarity predict` writes `p_<class>`).
    let named = file(&d, "n.csv", b"y,p_yes\nno,0.1\nno,0.2\nno,0.3\nno,0.4\n");
    let bare = file(&d, "b.csv", b"y,p\nno,0.1\nno,0.2\nno,0.3\nno,0.4\n");
    let runs = [
        run(&[
            "score", &zeros, "--truth", "y", "--proba", "p", json[0], json[1],
        ]),
        run(&[
            "score", &named, "--truth", "y", "--proba", "p_yes", json[0], json[1],
        ]),
        run(&[
            "score",
            &bare,
            "--truth",
            "y",
            "--proba",
            "p",
            "--positive",
            "yes",
            json[0],
            json[1],
        ]),
    ];
    for (code, out, err) in runs {
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        // Every row negative: Brier = mean p^2 = (0.01 + 0.04 + 0.09 + 0.16) / 4.
        assert!(
            (v["brier"].as_f64().unwrap() - 0.075).abs() < 1e-15,
            "{out}"
        );
        assert_eq!(v["fp"].as_f64(), Some(0.0), "{out}");
        assert_eq!(v["tn"].as_f64(), Some(4.0), "{out}");
        assert!(v["roc_auc"].is_null(), "{out}");
    }
    // The text report says which metrics these rows leave undefined.
    let (code, out, _) = run(&["score", &zeros, "--truth", "y", "--proba", "p"]);
    assert_eq!(code, 0);
    let note = out
        .lines()
        .find(|l| l.starts_with("-: undefined"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        note.contains("roc_auc") && !note.contains("brier,"),
        "{note}"
    );
    // One label that could be either class, and no hint: an error.
    let (code, _, err) = run(&["score", &bare, "--truth", "y", "--proba", "p"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("--positive") && !err.contains("panicked"),
        "{err}"
    );
    // A positive label that is not there is still an error with both classes.
    let two = file(&d, "t.csv", b"y,p\nno,0.1\nyes,0.9\n");
    let (code, _, err) = run(&[
        "score",
        &two,
        "--truth",
        "y",
        "--proba",
        "p",
        "--positive",
        "ys",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("'ys' not found"), "{err}");
}
