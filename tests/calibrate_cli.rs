//! `rarity calibrate` against NumPy (tests/fixtures/calibrate.json, written
//! by tools/gen_calibrate_fixtures.py): eq. 9, eq. 12, eq. 14 and Saerens'
//! EM; and the strategy stages `+priors(...)` / `+em` against the command.

mod common;

use common::{load, num, nums, run, scratch};
use serde_json::Value;

/// Reads a predictions CSV (`p_<class>` columns, then `label`): the
/// probability columns and the labels.
fn read_predictions(path: &std::path::Path) -> (Vec<Vec<f64>>, Vec<String>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    // The probability columns and the label, by name: predict also keeps
    // the table's target column.
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let p: Vec<usize> = (0..header.len())
        .filter(|&j| header[j].starts_with("p_"))
        .collect();
    let label = header.iter().position(|&h| h == "label").unwrap();
    let mut cols = vec![Vec::new(); p.len()];
    let mut labels = Vec::new();
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        for (c, &j) in cols.iter_mut().zip(&p) {
            c.push(f[j].parse().unwrap());
        }
        labels.push(f[label].to_string());
    }
    (cols, labels)
}

/// Writes the score columns of a case as `id,s0,s1,...` and returns the
/// path and the column names.
fn write_scores(dir: &std::path::Path, case: &Value) -> (String, Vec<String>) {
    let cols: Vec<Vec<f64>> = case["scores"]
        .as_array()
        .unwrap()
        .iter()
        .map(nums)
        .collect();
    let names: Vec<String> = (0..cols.len()).map(|c| format!("s{c}")).collect();
    let mut text = format!("id,{}\n", names.join(","));
    for i in 0..cols[0].len() {
        let row: Vec<String> = cols.iter().map(|c| c[i].to_string()).collect();
        text.push_str(&format!("r{i},{}\n", row.join(",")));
    }
    let path = dir.join(format!("{}.csv", case["name"].as_str().unwrap()));
    std::fs::write(&path, text).unwrap();
    (path.to_string_lossy().into_owned(), names)
}

#[test]
fn calibrate_matches_numpy() {
    let fixtures = load("calibrate.json");
    let dir = scratch("calibrate");
    for case in fixtures["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let (scores, cols) = write_scores(&dir, case);
        let out = dir.join(format!("{name}-out.csv"));
        let o = out.to_string_lossy().into_owned();
        let mut args = vec!["calibrate", &scores, "-o", &o, "--format", "json"];
        for c in &cols {
            args.extend(["--proba", c.as_str()]);
        }
        let extra: Vec<&str> = case["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        args.extend(&extra);
        let (code, text, err) = run(&args);
        assert_eq!(code, 0, "{name}: {err}");
        let v: Value = serde_json::from_str(&text).unwrap();
        let tol = if name == "em" { 1e-9 } else { 1e-12 };
        let close = |a: f64, b: f64| (a - b).abs() <= tol * b.abs().max(1.0);
        let (got, labels) = read_predictions(&out);
        let want: Vec<Vec<f64>> = case["proba"].as_array().unwrap().iter().map(nums).collect();
        assert_eq!(got.len(), want.len(), "{name}");
        for (g, w) in got.iter().zip(&want) {
            for (a, b) in g.iter().zip(w) {
                assert!(close(*a, *b), "{name}: {a} vs {b}");
            }
        }
        if let Some(t) = case.get("threshold") {
            let tau = num(&v["threshold"]);
            assert!(close(tau, num(t)), "{name}: threshold {tau} vs {t}");
            // Eq. 12: the labels at tau' on the output are those at tau_s on
            // the input.
            let tau_s = v["input_threshold"].as_f64().unwrap();
            let input = nums(&case["scores"][0]);
            for (p, l) in input.iter().zip(&labels) {
                assert_eq!(*l == "1", *p >= tau_s, "{name}: {p}");
            }
        }
        if let Some(p) = case.get("priors") {
            for (a, b) in nums(&v["target_priors"]).iter().zip(nums(p)) {
                assert!(close(*a, b), "{name}: priors {a} vs {b}");
            }
        }
        if let Some(it) = case.get("iterations") {
            assert_eq!(v["em_iterations"], *it, "{name}");
            assert_eq!(v["em_converged"], true);
        }
    }
}

#[test]
fn calibrate_errors_say_what_is_missing() {
    let dir = scratch("calibrate-bad");
    let scores = common::file(&dir, "s.csv", b"id,p\na,0.5\nb,1.5\n");
    let good = common::file(&dir, "g.csv", b"id,p\na,0.5\nb,0.25\n");
    let out = dir.join("o.csv");
    let o = out.to_string_lossy().into_owned();
    for (file, args, needle) in [
        (&good, vec![], "nothing to do"),
        (&good, vec!["--em"], "give --train-priors"),
        (
            &good,
            vec!["--beta", "0"],
            "not an undersampling rate in (0, 1]",
        ),
        (
            &good,
            vec!["--beta", "0.1", "--keep-rates", "0.1,1"],
            "cannot be used with",
        ),
        (
            &good,
            vec!["--em", "--to-priors", "0.5,0.5"],
            "cannot be used with",
        ),
        (
            &good,
            vec!["--keep-rates", "0.1"],
            "1 keep rates for 2 classes",
        ),
        (
            &good,
            vec!["--to-priors", "0.5,x", "--train-priors", "0.5,0.5"],
            "'x' is not a number",
        ),
        (
            &scores,
            vec!["--beta", "0.1"],
            "row 2, column 'p': probability 1.5 is outside [0, 1]",
        ),
    ] {
        let mut a = vec!["calibrate", file.as_str(), "--proba", "p", "-o", &o];
        a.extend(args);
        let (code, _, err) = run(&a);
        assert_ne!(code, 0, "{a:?}");
        assert!(err.contains(needle) && !err.contains("panicked"), "{err}");
        assert!(!out.exists());
    }
}

/// Fits `spec` on ecoli4 and returns its predictions on ecoli4 (the
/// probability columns and labels) and the text of `fit`.
fn fit_predict(
    dir: &std::path::Path,
    tag: &str,
    spec: &str,
) -> ((Vec<Vec<f64>>, Vec<String>), String) {
    let model = dir
        .join(format!("{tag}.rarity"))
        .to_string_lossy()
        .into_owned();
    let preds = dir.join(format!("{tag}.csv"));
    let (code, fit, err) = run(&["fit", "--dataset", "ecoli4", "-m", spec, "-o", &model]);
    assert_eq!(code, 0, "{spec}: {err}");
    let (code, _, err) = run(&[
        "predict",
        &model,
        "--dataset",
        "ecoli4",
        "-o",
        &preds.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{spec}: {err}");
    (read_predictions(&preds), fit)
}

#[test]
fn prior_shift_stages_match_the_calibrate_command() {
    // ecoli4: 316 negatives, 20 positives.
    let dir = scratch("shift-stages");
    let priors = format!("{},{}", 316.0 / 336.0, 20.0 / 336.0);
    let base_spec = "under(ratio=1)+logistic+correct";
    let ((base, _), _) = fit_predict(&dir, "base", base_spec);
    let base_file = dir.join("base.csv").to_string_lossy().into_owned();
    for (tag, stage, shift_args) in [
        ("to", "priors(0.9,0.1)", vec!["--to-priors", "0.9,0.1"]),
        ("em", "em", vec!["--em"]),
    ] {
        let ((got, labels), fit) =
            fit_predict(&dir, tag, &format!("{base_spec}+{stage}+threshold(priors)"));
        let out = dir.join(format!("{tag}-cal.csv"));
        let mut a = vec![
            "calibrate",
            &base_file,
            "--proba",
            "p_1",
            "--train-priors",
            &priors,
            "-o",
        ];
        let o = out.to_string_lossy().into_owned();
        a.push(&o);
        a.extend(&shift_args);
        let (code, _, err) = run(&a);
        assert_eq!(code, 0, "{err}");
        let (want, _) = read_predictions(&out);
        for (g, w) in got[1].iter().zip(&want[1]) {
            assert!((g - w).abs() < 1e-12, "{stage}: {g} vs {w}");
        }
        // threshold(priors) after a shift decides at the target priors, so
        // the labels are those of threshold(priors) without it (PT_MA is
        // invariant to the priors).
        let without: Vec<bool> = base[1].iter().map(|p| *p >= 20.0 / 336.0).collect();
        let with: Vec<bool> = labels.iter().map(|l| l == "1").collect();
        assert_eq!(with, without, "{stage}");
        if tag == "to" {
            assert!(
                fit.contains("decision threshold(priors) = threshold(0.1)"),
                "{fit}"
            );
        }
    }
    // A known-priors shift without a correction starts from the sample's
    // priors: under(ratio=1) balanced the classes, so the shift to the data's
    // priors is the correction itself.
    let ((shifted, _), _) = fit_predict(
        &dir,
        "sample",
        &format!("under(ratio=1)+logistic+priors({priors})"),
    );
    for (a, b) in shifted[1].iter().zip(&base[1]) {
        assert!((a - b).abs() < 1e-12, "{a} vs {b}");
    }
}

#[test]
fn prior_shift_specs_are_checked() {
    for (spec, needle) in [
        ("tree+priors(0.5)", "one positive prior per class"),
        ("tree+priors(0.5,-1)", "one positive prior per class"),
        ("tree+em+tune(metric=f1)", "does not carry over"),
        ("tree+em+priors(0.5,0.5)", "two prior shifts"),
        ("tree+em(tol=0)", "tol"),
    ] {
        let (code, _, err) = run(&["evaluate", "--dataset", "ecoli4", "-m", spec, "--cv", "3"]);
        assert_ne!(code, 0, "{spec}");
        assert!(
            err.contains(needle) && !err.contains("panicked"),
            "{spec}: {err}"
        );
    }
    let (code, _, err) = run(&[
        "evaluate",
        "--dataset",
        "glass",
        "-m",
        "tree+priors(0.5,0.5)",
        "--cv",
        "3",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("2 target priors for 6 classes"), "{err}");
    let (code, out, err) = run(&[
        "evaluate",
        "--dataset",
        "ecoli4",
        "-m",
        "forest(n=5)+em+cost(fn=5,fp=1)",
        "--cv",
        "3",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("roc_auc"), "{out}");
}
