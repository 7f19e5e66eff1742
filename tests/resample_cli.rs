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
        (vec!["--method", "under", "--beta", "0"], "in (0, 1]"),
        (
            vec!["--method", "smot"],
            "unknown sampler 'smot' (did you mean 'smote'?)",
        ),
        (vec!["--method", "smote", "--beta", "0.5"], "beta"),
        (
            vec!["--method", "smote(k=3)", "--k", "4"],
            "--k and k in --method",
        ),
        (
            vec!["--method", "smote(standardise)", "--standardise"],
            "--standardise and standardise",
        ),
        (
            vec!["--method", "enn(rule=any)"],
            "enn: rule=any is invalid; expected one of mode, all",
        ),
        (vec!["--method", "under+smote"], "one sampler is expected"),
    ] {
        let mut a = vec!["resample", "--dataset", "ecoli4", "-o", &o];
        a.extend(args);
        let (code, _, err) = run(&a);
        assert_ne!(code, 0);
        assert!(err.contains(needle) && !err.contains("panicked"), "{err}");
        assert!(!out.exists());
    }
}

/// Runs `resample --format json` on ecoli4 (316 + 20 rows) with `extra`
/// arguments and returns the report.
fn resample_json(extra: &[&str]) -> serde_json::Value {
    // One directory per call: tests run in parallel.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = scratch(&format!("resample-spec-{call}")).join("s.csv");
    let out = out.to_string_lossy();
    let base = [
        "resample",
        "--dataset",
        "ecoli4",
        "--format",
        "json",
        "-o",
        &out,
    ];
    let (code, text, err) = run(&[&base[..], extra].concat());
    assert!(code == 0, "{extra:?}: {err}");
    serde_json::from_str(&text).expect("a JSON report")
}

#[test]
fn method_takes_a_full_spec_and_every_parameter() {
    let v = resample_json(&["--method", "under(rates=[0.5,1],exact)"]);
    assert_eq!(v["method"], "under(rates=0.5:1,exact)");
    assert_eq!(v["after"], serde_json::json!([158, 20]));
    let v = resample_json(&["--method", "enn(k=5,rule=all)"]);
    assert_eq!(v["method"], "enn(k=5,rule=all)");
    let v = resample_json(&["--method", "smote(counts=[316,100])", "--k", "3"]);
    assert_eq!(v["method"], "smote(k=3,counts=316:100)");
    assert_eq!(v["after"], serde_json::json!([316, 100]));
    let v = resample_json(&["--method", "nearmiss3(k3=2)", "--standardise"]);
    assert_eq!(v["method"], "nearmiss3(k=3,k3=2,standardise)");
    let v = resample_json(&["--method", "smote-enn(enn_k=4,rule=all)", "--amount", "100"]);
    assert_eq!(v["method"], "smote-enn(k=5,amount=100,enn_k=4,rule=all)");
    // The old flags still set the parameter of their name.
    let v = resample_json(&["--method", "under", "--beta", "0.5"]);
    assert_eq!(v["method"], "under(beta=0.5)");
    let v = resample_json(&["--method", "underover", "--a", "25"]);
    assert_eq!(v["method"], "underover(a=25)");
}

#[test]
fn beta_below_the_class_ratio_is_a_note_not_an_error() {
    // ecoli4: 20 positives, 316 negatives (N+/N- = 0.063); beta = 0.01
    // keeps 3 negatives, fewer than the positives.
    let v = resample_json(&["--method", "under(beta=0.01,exact)"]);
    assert_eq!(v["after"], serde_json::json!([3, 20]));
    let notes = v["notes"].to_string();
    assert!(notes.contains("is now the minority"), "{notes}");
}

#[test]
fn help_lists_every_sampler_with_parameters_defaults_and_ranges() {
    let (code, text, err) = run(&["resample", "--help"]);
    assert_eq!(code, 0, "{err}");
    for name in [
        "bootstrap",
        "under",
        "over",
        "smote",
        "borderline-smote",
        "adasyn",
        "hybrid",
        "tomek",
        "enn",
        "cnn",
        "oss",
        "ncl",
        "nearmiss1",
        "nearmiss2",
        "nearmiss3",
        "smote-tomek",
        "smote-enn",
        "eb",
        "rb",
        "underover",
        "balanced-bootstrap",
    ] {
        assert!(text.contains(&format!("  {name}: ")), "{name}:\n{text}");
    }
    assert!(
        text.contains("beta=none (a number in (0, 1] or none)"),
        "{text}"
    );
    assert!(text.contains("m=10 (a whole number >= 1)"), "{text}");
    assert!(text.contains("rule=mode (one of mode, all)"), "{text}");
}
