//! `rarity resample` end to end: the JSON contract, the written file and the
//! error paths.

mod common;

use common::{run, scratch};

#[test]
fn resample_json_reports_counts_and_keep_rates() {
    let d = scratch("resample");
    let out = d.join("s.csv").to_string_lossy().into_owned();
    let (code, text, err) = run(&[
        "resample",
        "--dataset",
        "ecoli4",
        "--method",
        "smote",
        "--format",
        "json",
        "-o",
        &out,
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["before"], serde_json::json!([316, 20]));
    assert_eq!(v["after"], serde_json::json!([316, 316]));
    assert_eq!(v["keep_rates"], serde_json::json!([1.0, 15.8]));
    // The file reads back with the same counts.
    let (code, text, err) = run(&["inspect", &out, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let back: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(back["class_counts"], serde_json::json!([316, 316]));
}

#[test]
fn resample_errors_leave_no_file() {
    let d = scratch("resample-bad");
    let out = d.join("s.csv");
    let o = out.to_string_lossy().into_owned();
    for (args, needle) in [
        (vec!["--method", "under", "--beta", "0.01"], "valid range"),
        (
            vec!["--method", "smoot"],
            "unknown resampling method 'smoot'",
        ),
        (vec!["--method", "smote", "--beta", "0.5"], "beta"),
    ] {
        let mut a = vec!["resample", "--dataset", "ecoli4", "-o", &o];
        a.extend(args);
        let (code, _, err) = run(&a);
        assert_ne!(code, 0);
        assert!(err.contains(needle) && !err.contains("panicked"), "{err}");
        assert!(!out.exists());
    }
}
