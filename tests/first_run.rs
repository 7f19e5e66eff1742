//! What a new user still met (issue 58): the first command's winner and its
//! data, the path from `predict` to `score`, and the messages of careless
//! inputs. Each test runs the command of the issue on bundled or generated
//! data.

mod common;

use common::{run, scratch};
use serde_json::Value;

fn json(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn fails(args: &[&str], needles: &[&str]) -> String {
    let (code, _out, err) = run(args);
    assert_ne!(code, 0, "{args:?} should fail; stderr: {err}");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: expected {n:?} in: {err}");
    }
    err
}

/// Items 1: `logistic` and `logistic+platt` tie on every ranking metric
/// (Platt's map is monotone); the tie is broken by the Brier score and
/// said, and the calibrated model deciding at 0.5 gets a prior-threshold
/// copy.
#[test]
fn ties_on_the_ranking_metric_are_broken_by_the_brier_score_and_said() {
    let dir = scratch("ties");
    let model = dir.join("w.rarity");
    let args = [
        "run",
        "--dataset",
        "pima",
        "-m",
        "logistic+platt+threshold(0.5)",
        "-m",
        "logistic+tune(metric=f1)",
        "-m",
        "tree(max_depth=3)",
        "--cv",
        "2x3",
        "-q",
        "-o",
        model.to_str().unwrap(),
    ];
    let mut with_json = args.to_vec();
    with_json.extend(["--format", "json"]);
    let (code, out, err) = run(&with_json);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let ap = |m: &str| {
        let models = v["models"].as_array().unwrap();
        let m = models.iter().find(|x| x["model"] == m).unwrap();
        m["metrics"]["average_precision"]["mean"].as_f64().unwrap()
    };
    let brier = |m: &str| {
        let models = v["models"].as_array().unwrap();
        let m = models.iter().find(|x| x["model"] == m).unwrap();
        m["metrics"]["brier"]["mean"].as_f64().unwrap()
    };
    assert_eq!(ap("logistic"), ap("logistic+platt"), "{out}");
    let better = if brier("logistic") < brier("logistic+platt") {
        "logistic"
    } else {
        "logistic+platt"
    };
    assert_eq!(v["models"][0]["model"], better, "{out}");
    let ties = v["ties"].as_array().unwrap();
    assert_eq!(ties.len(), 1, "{out}");
    assert_eq!(ties[0]["by"], "brier", "{out}");
    assert_eq!(ties[0]["items"][0], better, "{out}");
    // The calibrated model deciding at 0.5 also decides by its priors.
    let specs: Vec<&str> = v["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| d["decisions"].as_array().unwrap())
        .map(|d| d["strategy"].as_str().unwrap())
        .collect();
    assert!(specs.contains(&"logistic+platt+threshold(priors)"), "{out}");
    let (code, text, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("tie on average_precision") && text.contains("ordered by Brier"));
}

/// Item 2: without data `run` runs on yeast4 (imbalance ratio 28) and says
/// why; item 3: its `next:` line names a command that works.
#[test]
fn the_default_run_is_on_a_rare_class_and_says_why() {
    let dir = scratch("default-run");
    let model = dir.join("w.rarity");
    let (code, out, err) = run(&[
        "run",
        "-m",
        "tree(max_depth=3)",
        "--cv",
        "2x3",
        "-q",
        "-o",
        model.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("no data given: the bundled yeast4"),
        "{out}"
    );
    assert!(out.contains("<dataset yeast4>: 1484 rows"), "{out}");
    let next = out.lines().find(|l| l.starts_with("next: ")).unwrap();
    let program = next
        .trim_start_matches("next: ")
        .split(" predict ")
        .next()
        .unwrap();
    // The test binary is not on the PATH: the line names it, and how to
    // install it.
    assert!(program.ends_with("rarity"), "{next}");
    assert!(out.contains("cargo install --path ."), "{out}");
}

/// Item 4: the default g_mean decisions on a rare class come with what
/// they flag and the metrics that fit an alert budget.
#[test]
fn g_mean_decisions_on_a_rare_class_say_what_they_flag() {
    let dir = scratch("alerts");
    let model = dir.join("w.rarity");
    let (code, out, err) = run(&[
        "run",
        "--dataset",
        "yeast4",
        "-m",
        "under(ratio=1)+forest(n=20)+correct+threshold(priors)",
        "--cv",
        "2x3",
        "-q",
        "-o",
        model.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("chosen by g_mean (the default)"), "{out}");
    assert!(
        out.contains("--metric cost") && out.contains("recall_at_alert_rate"),
        "{out}"
    );
}

/// Items 5 and 6: predict keeps the target column, score finds it and
/// scores the decided labels; clashing `--id` columns are refused.
#[test]
fn predict_keeps_the_target_and_score_scores_the_decided_labels() {
    let dir = scratch("predict-score");
    let model = dir.join("m.rarity");
    let preds = dir.join("p.csv");
    let m = model.to_str().unwrap();
    let p = preds.to_str().unwrap();
    let (code, _, err) = run(&[
        "fit",
        "--dataset",
        "yeast4",
        "-m",
        "logistic+threshold(priors)",
        "-q",
        "-o",
        m,
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(&["predict", m, "--dataset", "yeast4", "-q", "-o", p]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&preds).unwrap();
    assert!(text.starts_with("class,p_0,p_1,label\n"), "{text}");
    let flagged = text.lines().skip(1).filter(|l| l.ends_with(",1")).count();
    let (code, out, err) = run(&["score", p, "--proba", "p_1", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let (tp, fp) = (v["tp"].as_f64().unwrap(), v["fp"].as_f64().unwrap());
    // The model's own rule (threshold at the prior) decided these labels.
    assert_eq!((tp + fp) as usize, flagged, "{out}");
    // --threshold decides anew, and --decided with it is a conflict.
    let (code, out, _) = run(&[
        "score",
        p,
        "--proba",
        "p_1",
        "--threshold",
        "0.5",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0);
    assert!(
        json(&out)["tp"].as_f64().unwrap() + json(&out)["fp"].as_f64().unwrap() < flagged as f64
    );
    fails(
        &[
            "score",
            p,
            "--proba",
            "p_1",
            "--threshold",
            "0.5",
            "--decided",
            "label",
        ],
        &["both decide"],
    );
    fails(
        &[
            "predict",
            m,
            "--dataset",
            "yeast4",
            "--id",
            "label",
            "-o",
            p,
        ],
        &["--id label", "of their own"],
    );
    fails(
        &[
            "predict",
            m,
            "--dataset",
            "yeast4",
            "--id",
            "x0",
            "--id",
            "x0",
            "-o",
            p,
        ],
        &["given twice"],
    );
}

/// Items 14-20: messages of careless inputs.
#[test]
fn careless_inputs_get_messages_that_say_what_to_do() {
    let dir = scratch("careless");
    // A continuous column taken as the target.
    let cont = dir.join("cont.csv");
    let mut t = String::from("a,b\n");
    for i in 0..200 {
        t.push_str(&format!("{},{}\n", i % 7, (i * 37) % 61));
    }
    std::fs::write(&cont, t).unwrap();
    fails(
        &["evaluate", cont.to_str().unwrap(), "-m", "tree"],
        &["looks continuous", "--target"],
    );
    // A text column suggests native and target first.
    let text = dir.join("text.csv");
    std::fs::write(&text, "shop,a,y\nx,1,0\ny,2,1\nz,3,0\n").unwrap();
    fails(
        &[
            "fit",
            text.to_str().unwrap(),
            "-m",
            "tree",
            "-o",
            dir.join("m").to_str().unwrap(),
        ],
        &["--categorical native", "target"],
    );
    // Two samplers.
    fails(
        &[
            "evaluate",
            "--dataset",
            "yeast4",
            "-m",
            "under(beta=0.99)+under(beta=0.99)+tree",
        ],
        &["two samplers"],
    );
    // The cv schemes listed in full.
    fails(
        &[
            "evaluate",
            "--dataset",
            "yeast4",
            "-m",
            "tree",
            "--cv",
            "5-fold",
        ],
        &["time(col=COL", "group(col=COL"],
    );
    // Unreasonable loss matrices.
    fails(
        &[
            "evaluate",
            "--dataset",
            "yeast4",
            "-m",
            "logistic+cost(fn=-1,fp=1)",
        ],
        &["not reasonable", "fn = -1"],
    );
    fails(
        &[
            "evaluate",
            "--dataset",
            "yeast4",
            "-m",
            "logistic+cost(fn=0,fp=0)",
        ],
        &["not reasonable"],
    );
    // A mean the posterior cannot square.
    fails(
        &[
            "generate",
            "gaussian",
            "--mu",
            "1e308",
            "-o",
            dir.join("g.csv").to_str().unwrap(),
        ],
        &["must be at most 1e100"],
    );
}

/// Item 16: an error that names its strategy is not named twice; item 19:
/// with folds that agree perfectly, Iman-Davenport is said undefined.
#[test]
fn a_strategy_is_named_once_and_a_degenerate_iman_davenport_is_said() {
    let dir = scratch("named-once");
    let shops = dir.join("shops.csv");
    let (code, _, err) = run(&[
        "generate",
        "fraud",
        "--n",
        "3000",
        "--positive-rate",
        "0.05",
        "--categorical",
        "-q",
        "-o",
        shops.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let err = fails(
        &[
            "evaluate",
            shops.to_str().unwrap(),
            "--categorical",
            "native",
            "--model",
            "logistic",
            "--target",
            "class",
            "--cv",
            "3",
        ],
        &["does not split categorical features"],
    );
    assert!(!err.contains("logistic: logistic:"), "{err}");
    // Inspect shows levels, not the codes' mean.
    let (code, out, err) = run(&[
        "inspect",
        shops.to_str().unwrap(),
        "--categorical",
        "native",
        "--target",
        "class",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("most frequent (rows)") && out.contains("merchant"),
        "{out}"
    );
    assert!(
        !out.lines()
            .any(|l| l.starts_with("merchant ") && l.contains('.')),
        "{out}"
    );
}
