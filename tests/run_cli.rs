//! `rarity run`, the main job, end to end.

mod common;

use common::{run, scratch};

#[test]
fn run_ranks_strategies_and_saves_the_winner() {
    let d = scratch("run");
    let out = d.join("w.rarity").to_string_lossy().into_owned();
    let (code, text, err) = run(&[
        "run",
        "--dataset",
        "glass6",
        "--cv",
        "2x3",
        "-m",
        "tree(max_depth=2)",
        "-m",
        "bagging(n=10)+threshold(priors)",
        "-m",
        "under(ratio=1)+forest(n=10)+correct+threshold(priors)",
        "--metric",
        "g-mean",
        "-o",
        &out,
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let ranking = v["ranking"].as_array().unwrap();
    assert_eq!(ranking.len(), 3);
    let g = |i: usize| ranking[i]["metrics"]["g_mean"]["mean"].as_f64().unwrap();
    assert!(g(0) >= g(1) && g(1) >= g(2));
    assert_eq!(v["winner"], ranking[0]["strategy"]);
    assert!(v["verdict"]["critical_difference"].as_f64().unwrap() > 0.0);
    // The saved winner predicts.
    let preds = d.join("p.csv").to_string_lossy().into_owned();
    let (code, _, err) = run(&["predict", &out, "--dataset", "glass6", "-o", &preds]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn default_run_on_a_bundled_set() {
    let d = scratch("run-default");
    let out = d.join("w.rarity").to_string_lossy().into_owned();
    let (code, text, err) = run(&["run", "--dataset", "ecoli4", "--cv", "2x2", "-o", &out]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("winner for average_precision"), "{text}");
    // The papers' methods and issue 20's gradient-boosting presets.
    for want in [
        "under(ratio=1)+forest(n=100)+correct+threshold(priors)",
        "gbdt+tune(metric=f1)",
        "gbdt(class_weight=balanced)+correct+threshold(priors)",
        "under(ratio=1)+gbdt(min_samples_leaf=5)+correct+threshold(priors)",
    ] {
        assert!(text.contains(want), "{want} missing from {text}");
    }
}

#[test]
fn cost_and_benefit_rank_strategies_and_add_cost_decisions() {
    let d = scratch("run-cost");
    let out = d.join("w.rarity").to_string_lossy().into_owned();
    let (code, text, err) = run(&[
        "run",
        "--dataset",
        "glass6",
        "--cv",
        "1x3",
        "-m",
        "tree(max_depth=2)",
        "-m",
        "forest(n=5)+threshold(priors)",
        "--cost",
        "fn=10,fp=1",
        "--benefit",
        "amount=x1,overhead=12",
        "--metric",
        "cost",
        "-o",
        &out,
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["metric"], "cost");
    let ranking = v["ranking"].as_array().unwrap();
    let specs: Vec<&str> = ranking
        .iter()
        .map(|r| r["strategy"].as_str().unwrap())
        .collect();
    // The cost- and benefit-deciding copies of the prior-threshold strategy compete.
    assert!(specs.contains(&"forest(n=5)+cost(fn=10,fp=1)"), "{specs:?}");
    assert!(
        specs.contains(&"forest(n=5)+benefit(amount='x1',overhead=12)"),
        "{specs:?}"
    );
    assert_eq!(specs.len(), 4);
    let cost = |i: usize| ranking[i]["metrics"]["cost"]["mean"].as_f64().unwrap();
    assert!(
        (0..3).all(|i| cost(i) <= cost(i + 1)),
        "lower cost ranks first"
    );
    assert!(ranking[0]["metrics"]["benefit"]["mean"].is_number());
}

#[test]
fn cost_metric_and_report_dir_errors_are_clear() {
    let d = scratch("run-cost-errors");
    let out = d.join("w.rarity").to_string_lossy().into_owned();
    let base = [
        "run",
        "--dataset",
        "glass6",
        "--cv",
        "1x2",
        "-m",
        "tree",
        "-o",
        &out,
    ];
    let with = |extra: &[&str]| {
        let mut a = base.to_vec();
        a.extend_from_slice(extra);
        run(&a)
    };
    let (code, _, err) = with(&["--metric", "cost"]);
    assert_eq!(code, 2);
    assert!(err.contains("--cost"), "{err}");
    let (code, _, err) = with(&["--metric", "benefit"]);
    assert_eq!(code, 2);
    assert!(err.contains("--benefit"), "{err}");
    let (code, _, err) = with(&["--benefit", "amount=nope,overhead=1"]);
    assert_eq!(code, 2);
    assert!(err.contains("'nope' is not a feature"), "{err}");
    let (code, _, err) = with(&["--cost", "fn=ten"]);
    assert_eq!(code, 2);
    assert!(err.contains("--cost"), "{err}");
    let file = d.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let (code, _, err) = with(&["--report", &file.to_string_lossy()]);
    assert_eq!(code, 2);
    assert!(
        err.contains("not a directory") && !err.contains("panicked"),
        "{err}"
    );
}

/// Runs `rarity run --format json` with `args` and returns the parsed output
/// (asserting success) and the path of the saved winner.
fn run_json(name: &str, args: &[&str]) -> (serde_json::Value, std::path::PathBuf) {
    let d = scratch(name);
    let out = d.join("w.rarity");
    let mut a = vec!["run", "--format", "json", "-o"];
    let out_s = out.to_string_lossy().into_owned();
    a.push(&out_s);
    a.extend_from_slice(args);
    let (code, text, err) = run(&a);
    assert_eq!(code, 0, "{err}");
    (serde_json::from_str(&text).unwrap(), out)
}

fn specs(list: &serde_json::Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|r| r["strategy"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn ties_still_rank_save_the_winner_and_say_no_difference_can_be_tested() {
    // Issue 17, item 1: the command (one model, three decisions).
    let d = scratch("run-ties");
    let out = d.join("w.rarity").to_string_lossy().into_owned();
    let (code, text, err) = run(&[
        "run",
        "--dataset",
        "pima",
        "-m",
        "logistic",
        "-m",
        "logistic+threshold(priors)",
        "-m",
        "logistic+threshold(f1)",
        "-o",
        &out,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("no difference can be tested"), "{text}");
    assert!(
        text.contains("winner for average_precision: logistic"),
        "{text}"
    );
    assert!(std::path::Path::new(&out).is_file());
    // Three models with the same values on every fold: the Friedman test
    // is undefined, and nothing else changes (the automatic cost copies too).
    for extra in [&[][..], &["--cost", "fn=5,fp=1"][..]] {
        let mut args = vec![
            "--dataset",
            "glass6",
            "--cv",
            "1x3",
            "-m",
            "logistic",
            "-m",
            "logistic+correct",
            "-m",
            "logistic+correct(mode=average)",
        ];
        args.extend_from_slice(extra);
        let (v, saved) = run_json("run-ties-3", &args);
        assert_eq!(v["ranking"].as_array().unwrap().len(), 3, "{v}");
        assert_eq!(v["verdict"]["testable"], false, "{v}");
        assert!(v["verdict"]["friedman_p"].is_null());
        assert!(v["verdict"]["summary"]
            .as_str()
            .unwrap()
            .starts_with("no difference can be tested"));
        assert_eq!(v["verdict"]["tied_with_best"].as_array().unwrap().len(), 3);
        assert_eq!(v["winner"], v["ranking"][0]["strategy"]);
        assert!(saved.is_file());
    }
}

#[test]
fn decision_copies_are_one_model_and_the_verdict_compares_models() {
    // Issue 17, item 2: three decisions of one forest are one model.
    let base = [
        "--dataset",
        "glass6",
        "--cv",
        "2x3",
        "-m",
        "forest(n=5)+threshold(priors)",
        "-m",
        "forest(n=5)+threshold(f1)",
        "-m",
        "tree(max_depth=2)",
        "-m",
        "gnb",
        "--cost",
        "fn=10,fp=1",
    ];
    let (v, _) = run_json("run-models", &base);
    assert_eq!(v["level"], "models");
    assert_eq!(v["decision_metric"], "cost");
    let models = v["models"].as_array().unwrap();
    assert_eq!(models.len(), 3, "{v}");
    let forest = models.iter().find(|m| m["model"] == "forest(n=5)").unwrap();
    let forest_specs: Vec<&str> = forest["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(
        forest_specs,
        [
            "forest(n=5)+threshold(priors)",
            "forest(n=5)+threshold(f1)",
            "forest(n=5)+cost(fn=10,fp=1)"
        ]
    );
    // Ranked: the models, one entry each; the verdict between models only.
    assert_eq!(v["ranking"].as_array().unwrap().len(), 3);
    assert_eq!(v["verdict"]["models"].as_array().unwrap().len(), 3);
    assert_eq!(v["verdict"]["mean_ranks"].as_array().unwrap().len(), 3);
    // The decisions of one model share its probabilities: equal AUC, and
    // the decisions are ranked on cost with a p-value against the best.
    let decisions = v["decisions"].as_array().unwrap();
    let forest_d = decisions
        .iter()
        .find(|d| d["model"] == "forest(n=5)")
        .unwrap()["decisions"]
        .as_array()
        .unwrap();
    assert_eq!(forest_d.len(), 3);
    let auc: Vec<f64> = forest_d
        .iter()
        .map(|d| d["metrics"]["roc_auc"]["mean"].as_f64().unwrap())
        .collect();
    assert!(auc.iter().all(|a| *a == auc[0]), "{auc:?}");
    let cost: Vec<f64> = forest_d
        .iter()
        .map(|d| d["metrics"]["cost"]["mean"].as_f64().unwrap())
        .collect();
    assert!(cost.windows(2).all(|w| w[0] <= w[1]), "{cost:?}");
    assert!(forest_d[0]["p_vs_best"].is_null() && forest_d[1]["p_vs_best"].is_number());
    // A thresholded metric ranks strategies; the verdict still compares
    // the three models, each by its best decision.
    let mut by_cost = base.to_vec();
    by_cost.extend(["--metric", "cost"]);
    let (v, _) = run_json("run-models-cost", &by_cost);
    assert_eq!(v["level"], "strategies");
    assert_eq!(specs(&v["ranking"]).len(), 5, "{v}");
    assert_eq!(v["verdict"]["models"].as_array().unwrap().len(), 3);
    assert_eq!(v["winner"], v["ranking"][0]["strategy"]);
}

#[test]
fn every_calibrated_model_gets_the_cost_decision() {
    // Issue 17, item 3: platt, correct and logistic regression are
    // calibrated; a bare forest is not (and does not decide by priors).
    let (v, _) = run_json(
        "run-calibrated",
        &[
            "--dataset",
            "pima",
            "--cv",
            "1x3",
            "-m",
            "logistic+platt",
            "-m",
            "under(ratio=1)+forest(n=5)+correct+threshold(0.5)",
            "-m",
            "logistic+tune(metric=f1)",
            "-m",
            "forest(n=5)",
            "--cost",
            "fn=5,fp=1",
            "--metric",
            "cost",
        ],
    );
    let s = specs(&v["ranking"]);
    for want in [
        "logistic+platt+cost(fn=5,fp=1)",
        "under(ratio=1)+forest(n=5)+correct+cost(fn=5,fp=1)",
        "logistic+cost(fn=5,fp=1)",
    ] {
        assert!(s.iter().any(|x| x == want), "{want} missing from {s:?}");
    }
    assert!(
        !s.iter().any(|x| x == "forest(n=5)+cost(fn=5,fp=1)"),
        "{s:?}"
    );
    assert_eq!(s.len(), 9, "{s:?}");
}
