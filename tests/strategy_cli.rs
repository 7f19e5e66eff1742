//! `rarity fit`, `predict` and `evaluate` end to end.

mod common;

use common::{file, run, scratch};

#[test]
fn fit_then_predict_round_trip() {
    let d = scratch("fit");
    let model = d.join("m.rarity").to_string_lossy().into_owned();
    let preds = d.join("p.csv").to_string_lossy().into_owned();
    let (code, _, err) = run(&[
        "fit",
        "--dataset",
        "glass6",
        "--model",
        "under(beta=0.5)+bagging(n=10)+correct+threshold(priors)",
        "-o",
        &model,
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(&["predict", &model, "--dataset", "glass6", "-o", &preds]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("predicted 214 rows"), "{out}");
    let text = std::fs::read_to_string(&preds).unwrap();
    let mut lines = text.lines();
    // The table's target column is kept, for rarity score.
    assert_eq!(lines.next().unwrap(), "class,p_0,p_1,label");
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        let (p0, p1): (f64, f64) = (f[1].parse().unwrap(), f[2].parse().unwrap());
        assert!((p0 + p1 - 1.0).abs() < 1e-12);
        assert!(f[3] == "0" || f[3] == "1");
    }
}

#[test]
fn fit_shows_the_decision_as_a_spec_writes_it() {
    let d = scratch("fit-decision");
    let model = d.join("m.rarity").to_string_lossy().into_owned();
    for (spec, want) in [
        (
            "pt-bagging(n=5)",
            "decision threshold(priors) = threshold(0.0595238);",
        ),
        (
            "tree+threshold(f1)",
            "decision threshold(f1) = threshold(0.279762);",
        ),
        ("tree+cost(fn=5,fp=1)", "decision cost(fn=5,fp=1);"),
        ("tree", "decision argmax;"),
    ] {
        // ecoli4: 20 of 336 rows positive, pi+ = 0.0595238.
        let (code, out, err) = run(&["fit", "--dataset", "ecoli4", "-m", spec, "-o", &model]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains(want), "{spec}: {out}");
        assert!(
            !out.contains("Lambda") && !out.contains("Threshold"),
            "{out}"
        );
    }
}

#[test]
fn predict_refuses_mismatched_columns_and_foreign_files() {
    let d = scratch("predict-bad");
    let model = d.join("m.rarity").to_string_lossy().into_owned();
    let (code, _, err) = run(&[
        "fit",
        "--dataset",
        "pima",
        "--model",
        "tree(max_depth=3)",
        "-o",
        &model,
    ]);
    assert_eq!(code, 0, "{err}");
    let other = file(&d, "x.csv", b"a,b\n1,2\n");
    let (code, _, err) = run(&[
        "predict",
        &model,
        &other,
        "-o",
        &d.join("p.csv").to_string_lossy(),
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("that the data does not have: 'x0'"), "{err}");
    assert!(!d.join("p.csv").exists());
    let junk = file(&d, "junk.rarity", b"hello");
    let (code, _, err) = run(&[
        "predict",
        &junk,
        "--dataset",
        "pima",
        "-o",
        &d.join("q.csv").to_string_lossy(),
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("not a rarity model file"), "{err}");
}

#[test]
fn evaluate_json_has_metrics_potential_and_times() {
    let (code, out, err) = run(&[
        "evaluate",
        "--dataset",
        "ecoli4",
        "--model",
        "bagging(n=10)+threshold(priors)",
        "--cv",
        "5x2",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["folds"], 10);
    for m in [
        "roc_auc",
        "average_precision",
        "brier",
        "g_mean",
        "macro_accuracy",
        "f1",
    ] {
        assert!(v["metrics"][m]["mean"].is_number(), "{m}");
        assert!(v["metrics"][m]["std"].is_number(), "{m}");
    }
    let f1 = &v["metrics"]["f1"];
    assert!(f1["full_potential"].as_f64().unwrap() >= f1["mean"].as_f64().unwrap());
    assert!(v["fit_seconds"].is_number() && v["predict_seconds"].is_number());
}

#[test]
fn every_spec_example_of_the_issue_runs() {
    let d = scratch("specs");
    let amounts = {
        let mut s = String::from("Amount,x,class\n");
        for i in 0..60 {
            s.push_str(&format!(
                "{},{},{}\n",
                10 * (i % 7) + 1,
                i % 13,
                u8::from(i % 5 == 0)
            ));
        }
        file(&d, "amounts.csv", s.as_bytes())
    };
    let specs = [
        "bagging(n=10)+threshold(priors)",
        "bagging(n=10)+threshold(f1)",
        "bagging(n=10,sample=eb)+threshold(0.5)",
        "bagging(n=10,sample=rb)+correct+threshold(priors)",
        "under(beta=0.1)+forest(n=10)+correct+threshold(priors)",
        "forest(n=10)+platt+cost(fn=10,fp=1)",
        "forest(n=10)+isotonic+roc-closest",
        "forest(n=10)+platt(ensemble=true)+threshold(0.5)",
        "forest(n=10)+isotonic(folds=5,ensemble=true)+tune(metric=f1)",
        "forest(n=10)+tune(metric=g_mean)",
    ];
    for spec in specs {
        let (code, _, err) = run(&[
            "evaluate",
            "--dataset",
            "ecoli4",
            "--model",
            spec,
            "--cv",
            "3",
        ]);
        assert_eq!(code, 0, "{spec}: {err}");
    }
    let (code, _, err) = run(&[
        "evaluate",
        &amounts,
        "--model",
        "bagging(n=10)+benefit(amount=Amount,overhead=90)",
        "--cv",
        "3",
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(&[
        "evaluate",
        "--dataset",
        "newthyroid",
        "--model",
        "forest(n=10)+tune(metric=macro_accuracy)",
        "--cv",
        "3",
    ]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn any_beta_undersamples_in_every_fold() {
    // beta = N+/N- of the whole file: the training folds' ratios differ
    // slightly (some above it); and a beta well below it.
    let (code, out, err) = run(&["inspect", "--dataset", "pima", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let c = &v["class_counts"];
    let ratio = c[1].as_f64().unwrap() / c[0].as_f64().unwrap();
    for beta in [ratio, 0.5 * ratio] {
        let spec = format!("under(beta={beta})+tree(max_depth=3)+correct+threshold(priors)");
        let (code, _, err) = run(&[
            "evaluate",
            "--dataset",
            "pima",
            "--model",
            &spec,
            "--cv",
            "2x5",
        ]);
        assert_eq!(code, 0, "{spec}: {err}");
    }
}

#[test]
fn bad_specs_name_the_token_and_list_choices() {
    let cases = [
        ("forest(n=10)+treshold(0.5)", "unknown stage 'treshold'"),
        ("forrest(n=10)", "unknown learner 'forrest'"),
        ("tree(depth=3)", "unknown argument 'depth'"),
        ("under(beta=0)+tree", "in (0, 1]"),
        ("forest(n=10)+threshold(2)", "threshold(T) with T in [0, 1]"),
        (
            "forest(n=10)+threshold(f1)+correct",
            "the decision must be the last stage",
        ),
    ];
    for (spec, needle) in cases {
        let (code, _, err) = run(&[
            "evaluate",
            "--dataset",
            "ecoli4",
            "--model",
            spec,
            "--cv",
            "3",
        ]);
        assert_ne!(code, 0, "{spec}");
        assert!(
            err.contains(needle) && !err.contains("panicked"),
            "{spec}: {err}"
        );
    }
}
