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
    assert!(
        text.contains("under(ratio=1)+forest(n=100)+correct+threshold(priors)"),
        "{text}"
    );
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
