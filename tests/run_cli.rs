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
