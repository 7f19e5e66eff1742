//! Results that misled a new user (issue 39, items 1-6 and 17-20): each
//! test reproduces the command of the issue on bundled or generated data.

mod common;

use common::{run, scratch};
use serde_json::Value;

fn json(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// Item 1: `run --cv loo` pools the one-row folds (as `evaluate` does) and
/// ranks on the pooled metrics; `--pooled` pools any scheme.
#[test]
fn run_loo_pools_and_ranks_on_pooled_metrics() {
    let dir = scratch("loo");
    let model = dir.join("w.rarity");
    let (code, out, err) = run(&[
        "run",
        "--dataset",
        "glass6",
        "-m",
        "tree(max_depth=3)",
        "-m",
        "gnb",
        "-m",
        "logistic",
        "--cv",
        "loo",
        "--metric",
        "roc_auc",
        "--format",
        "json",
        "-q",
        "-o",
        model.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["pooled"], true);
    let auc = |m: &str| {
        v["models"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["model"] == m)
            .unwrap()["metrics"]["roc_auc"]["mean"]
            .as_f64()
            .unwrap_or(f64::NAN)
    };
    let (tree, logistic) = (auc("tree(max_depth=3)"), auc("logistic"));
    assert!(tree.is_finite() && logistic.is_finite(), "{out}");
    // The pooled AUC the issue quotes (evaluate --cv loo): 0.905 and 0.782.
    assert!(
        (logistic - 0.905).abs() < 5e-4 && (tree - 0.782).abs() < 5e-4,
        "{out}"
    );
    // Ranked on the pooled AUC: the best pooled model wins, not the first listed.
    let best = ["tree(max_depth=3)", "gnb", "logistic"]
        .into_iter()
        .max_by(|a, b| auc(a).total_cmp(&auc(b)))
        .unwrap();
    assert_eq!(v["winner"], best, "{out}");
    assert_ne!(v["winner"], "tree(max_depth=3)", "{out}");
    let verdict = v["verdict"]["summary"].as_str().unwrap();
    assert!(!verdict.contains("same roc_auc on every fold"), "{verdict}");

    // Text: one pooled value, no "±".
    let (code, text, err) = run(&[
        "run",
        "--dataset",
        "glass6",
        "-m",
        "tree(max_depth=3)",
        "-m",
        "gnb",
        "-m",
        "logistic",
        "--cv",
        "loo",
        "--metric",
        "roc_auc",
        "-q",
        "-o",
        model.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("pooled out-of-fold"), "{text}");
    assert!(!text.contains("-±-"), "{text}");
}

#[test]
fn run_pooled_flag_pools_any_scheme_and_help_lists_loo() {
    let dir = scratch("pooled");
    let model = dir.join("w.rarity");
    let (code, out, err) = run(&[
        "run",
        "--dataset",
        "glass6",
        "-m",
        "tree(max_depth=3)",
        "-m",
        "logistic",
        "--cv",
        "2x5",
        "--pooled",
        "--metric",
        "roc_auc",
        "--format",
        "json",
        "-q",
        "-o",
        model.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert_eq!(v["pooled"], true);
    let (_, help, _) = run(&["run", "--help"]);
    assert!(help.contains("`loo`"), "{help}");
}

const MURPHY_KEYS: [&str; 5] = [
    "brier_reliability",
    "brier_resolution",
    "brier_uncertainty",
    "brier_within_bin_variance",
    "brier_within_bin_covariance",
];

/// `reliability - resolution + uncertainty + wbv - wbc` of a report.
fn murphy_sum(report: &[(String, f64)]) -> f64 {
    let get = |k: &str| {
        report
            .iter()
            .find(|(n, _)| n == k)
            .unwrap_or_else(|| panic!("no {k} in the report"))
            .1
    };
    get("brier_reliability") - get("brier_resolution")
        + get("brier_uncertainty")
        + get("brier_within_bin_variance")
        - get("brier_within_bin_covariance")
}

/// Item 2: every report gives the two within-bin terms of Stephenson,
/// Coelho & Jolliffe (2008), so the decomposition adds up to the Brier score
/// (binary and multiclass), against NumPy's figures
/// (tools/gen_murphy_fixtures.py).
#[test]
fn brier_decomposition_adds_up_and_matches_numpy() {
    use common::{check, labels, load, num, nums};
    use rarity::data::Proba;
    use rarity::metrics::score_report;
    use rarity::metrics::summary::BinarySummary;
    let fx = load("murphy.json");
    let mut failures = Vec::new();
    let mut check_report = |name: &str, report: &[(String, f64)], want: &Value| {
        for key in MURPHY_KEYS.iter().chain(&["brier"]) {
            let got = report
                .iter()
                .find(|(n, _)| n == key)
                .map_or(f64::NAN, |x| x.1);
            check(name, key, got, num(&want[*key]), 1e-12, &mut failures);
        }
        let brier = report.iter().find(|(n, _)| n == "brier").unwrap().1;
        let sum = murphy_sum(report);
        if (sum - brier).abs() > 1e-12 {
            failures.push(format!(
                "{name}: the terms add up to {sum}, the Brier score is {brier}"
            ));
        }
    };
    for case in fx["binary"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let (truth, p) = (labels(&case["truth"]), nums(&case["p"]));
        let report = score_report(&truth, &Proba::from_positive(&p), 0.5, &[]).unwrap();
        check_report(name, &report, &case["expected"]);
        // The mergeable summary of `rarity score` on large files too.
        let mut s = BinarySummary::new(0.5).unwrap();
        s.add(&truth, &p).unwrap();
        check_report(
            &format!("{name} (summary)"),
            &s.report().unwrap(),
            &case["expected"],
        );
    }
    for case in fx["multiclass"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let k = case["k"].as_u64().unwrap() as usize;
        let proba = Proba::new(nums(&case["proba"]), k);
        let report = score_report(&labels(&case["truth"]), &proba, 0.5, &[]).unwrap();
        check_report(name, &report, &case["expected"]);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Item 2 end to end: pima, logistic, 5 folds (the issue's 0.15685 vs
/// 0.15644): the reported terms add up to the reported Brier score.
#[test]
fn evaluate_reports_within_bin_terms_that_add_up() {
    let (code, out, err) = run(&[
        "evaluate",
        "--dataset",
        "pima",
        "-m",
        "logistic",
        "--cv",
        "5",
        "--format",
        "json",
        "-q",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let metrics = &v["metrics"];
    let mean = |k: &str| {
        let m = &metrics[k]["mean"];
        m.as_f64().unwrap_or_else(|| panic!("no {k}: {out}"))
    };
    let sum = mean("brier_reliability") - mean("brier_resolution")
        + mean("brier_uncertainty")
        + mean("brier_within_bin_variance")
        - mean("brier_within_bin_covariance");
    assert!(
        (sum - mean("brier")).abs() < 1e-12,
        "{sum} vs {}",
        mean("brier")
    );
}

/// The mean of column `col` over the frauds of a `generate fraud` CSV.
fn fraud_mean(path: &std::path::Path, col: &str) -> f64 {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let j = header.iter().position(|h| *h == col).unwrap();
    let (mut sum, mut n) = (0.0, 0);
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        if *f.last().unwrap() == "1" {
            sum += f[j].parse::<f64>().unwrap();
            n += 1;
        }
    }
    assert!(n > 100, "{n} frauds");
    sum / n as f64
}

/// Item 3: `--seed` draws rows from one fixed population (the frauds'
/// pattern does not change with the seed); `--drift` changes it on request.
#[test]
fn generate_fraud_population_does_not_depend_on_the_seed() {
    let dir = scratch("fraud-seed");
    let gen = |seed: &str, extra: &[&str], name: &str| {
        let path = dir.join(name);
        let mut args = vec![
            "generate",
            "fraud",
            "--n",
            "40000",
            "--positive-rate",
            "0.02",
            "--seed",
            seed,
            "-q",
            "-o",
            path.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let (code, _, err) = run(&args);
        assert_eq!(code, 0, "{err}");
        path
    };
    let a = gen("42", &[], "a.csv");
    let b = gen("9", &[], "b.csv");
    let drifted = gen("9", &["--drift", "1"], "c.csv");
    // Every V column's fraud mean agrees between two seeds (sampling noise
    // on ~800 frauds: a few hundredths), and the whole pattern moves with
    // --drift 1.
    let (mut same, mut moved) = (0.0_f64, 0.0_f64);
    for j in 1..=28 {
        let col = format!("V{j}");
        let (x, y, z) = (
            fraud_mean(&a, &col),
            fraud_mean(&b, &col),
            fraud_mean(&drifted, &col),
        );
        same = same.max((x - y).abs());
        moved += (x - z).abs();
    }
    assert!(
        same < 0.3,
        "the fraud pattern changed with the seed: {same}"
    );
    assert!(moved > 5.0, "--drift 1 left the pattern: {moved}");
    let (code, _, err) = run(&[
        "generate", "fraud", "--n", "10", "--drift", "1.5", "-o", "-",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("drift"), "{err}");
}

/// Item 17: after saving the winner, `run` prints the command that applies
/// it to new rows.
#[test]
fn run_prints_the_next_command() {
    let dir = scratch("next");
    let model = dir.join("w.rarity");
    let (code, out, err) = run(&[
        "run",
        "--dataset",
        "glass6",
        "-m",
        "logistic",
        "-m",
        "tree",
        "--cv",
        "1x3",
        "-q",
        "-o",
        model.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let want = format!("rarity predict {} FILE -o predictions.csv", model.display());
    assert!(out.contains(&want), "{out}");
}

/// Item 18: `fit --quiet` prints nothing; `predict --format json` shows
/// the rule as a spec, not the internal type; a p-value below the
/// distributions' resolution is "< 1e-16", not 0.
#[test]
fn fit_quiet_predict_json_rule_and_tiny_p_values() {
    let dir = scratch("fit-quiet");
    let model = dir.join("m.rarity");
    let data = dir.join("d.csv");
    let (code, _, err) = run(&[
        "generate",
        "gaussian",
        "--n",
        "400",
        "-q",
        "-o",
        data.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(&[
        "fit",
        data.to_str().unwrap(),
        "--drop",
        "p_true",
        "-m",
        "logistic+threshold(priors)",
        "-q",
        "-o",
        model.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "", "fit --quiet printed");
    assert_eq!(err, "");
    let preds = dir.join("p.csv");
    let (code, out, err) = run(&[
        "predict",
        model.to_str().unwrap(),
        data.to_str().unwrap(),
        "--format",
        "json",
        "-q",
        "-o",
        preds.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let rule = v["rule"]
        .as_str()
        .unwrap_or_else(|| panic!("rule is not a spec: {out}"));
    assert!(rule.starts_with("threshold("), "{rule}");
    assert_eq!(rarity::report::format::p_value_text(0.0), "< 1e-16");
    assert_eq!(rarity::report::format::p_equals_text(0.0), "p < 1e-16");
}

/// Item 20: `--target Class` on a table whose column is `class` says which
/// column it chose.
#[test]
fn target_matched_ignoring_case_is_noted() {
    let dir = scratch("target-case");
    let data = common::file(
        &dir,
        "d.csv",
        b"a,b,class\n1,2,0\n2,3,1\n3,1,0\n4,4,1\n5,2,0\n6,1,1\n",
    );
    let (code, _, err) = run(&["inspect", &data, "--target", "Class"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("--target 'Class' is the column 'class'"),
        "{err}"
    );
    let (code, _, err) = run(&["inspect", &data, "--target", "class"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("ignoring case"), "{err}");
}

/// Item 4: a corrected model deciding by default (0.5) on a rare class is
/// flagged where its result is shown, with the decisions that fit.
#[test]
fn corrected_model_with_the_default_decision_on_a_rare_class_is_noted() {
    let dir = scratch("argmax-note");
    let model = dir.join("w.rarity");
    let report = dir.join("report");
    let spec = "under(beta=0.05)+forest(n=10)+correct";
    let (code, out, err) = run(&[
        "run",
        "--dataset",
        "yeast4",
        "-m",
        spec,
        "-m",
        "under(beta=0.05)+forest(n=10)+correct+threshold(priors)",
        "--cv",
        "1x3",
        "-q",
        "-o",
        model.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let line = out
        .lines()
        .find(|l| l.starts_with("note: ") && l.contains(spec))
        .unwrap_or_else(|| panic!("no note: {out}"));
    assert!(
        line.contains("threshold(priors)") && line.contains("cost("),
        "{line}"
    );
    // Only the strategy deciding by default (the other note is g_mean's
    // alert note, issue 58).
    assert_eq!(out.matches("decides by default").count(), 1, "{out}");
    let html = std::fs::read_to_string(report.join("index.html")).unwrap();
    assert!(html.contains("seldom reach 0.5"), "no note in the report");

    let (code, out, err) = run(&[
        "run",
        "--dataset",
        "yeast4",
        "-m",
        spec,
        "--cv",
        "1x3",
        "-q",
        "--format",
        "json",
        "-o",
        model.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    assert!(
        v["notes"][0]
            .as_str()
            .unwrap()
            .contains("threshold(priors)"),
        "{out}"
    );

    let (code, out, err) = run(&[
        "evaluate",
        "--dataset",
        "yeast4",
        "-m",
        spec,
        "--cv",
        "3",
        "-q",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("note: ") && out.contains("threshold(priors)"),
        "{out}"
    );
}

/// Item 19: the run report has a log false-positive-rate ROC panel, and its
/// curves are thinned to at most 2,000 points (the report of a 200,000-row
/// table was 4 MB).
#[test]
fn run_report_has_a_log_fpr_panel_and_thin_curves() {
    let dir = scratch("report-thin");
    let data = dir.join("g.csv");
    let (code, _, err) = run(&[
        "generate",
        "gaussian",
        "--n",
        "12000",
        "--positive-rate",
        "0.02",
        "-q",
        "-o",
        data.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let report = dir.join("r");
    let model = dir.join("w.rarity");
    let (code, _, err) = run(&[
        "run",
        data.to_str().unwrap(),
        "--drop",
        "p_true",
        "-m",
        "logistic",
        "-m",
        "gnb",
        "--cv",
        "1x2",
        "-q",
        "--report",
        report.to_str().unwrap(),
        "-o",
        model.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(report.join("index.html")).unwrap();
    assert!(html.contains("log false-positive axis"), "no log-FPR panel");
    let longest = html
        .split("<polyline points=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap().split(' ').count())
        .max()
        .unwrap();
    assert!(longest <= 2000, "a curve of {longest} points");
    // Thinning keeps the shape: still a curve, not a few segments.
    assert!(longest > 20, "{longest}");
}

/// Item 5: `adac2(n=50,cost_pos=balanced)` labelled every pima row positive
/// (the inverse class ratio compounded over 50 rounds, a defect of the
/// option's definition): it now labels both classes.
#[test]
fn adac2_balanced_labels_both_classes_on_pima() {
    let (code, out, err) = run(&[
        "evaluate",
        "--dataset",
        "pima",
        "-m",
        "adac2(n=50,cost_pos=balanced)",
        "--cv",
        "5",
        "--format",
        "json",
        "-q",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = json(&out);
    let mean = |k: &str| v["metrics"][k]["mean"].as_f64().unwrap();
    assert!(mean("tpr") < 0.95 && mean("tnr") > 0.3, "{out}");
    assert!(mean("g_mean") > 0.6 && mean("brier") < 0.3, "{out}");
}

/// A `generate gaussian` table of 3 features without its `p_true` column.
fn gaussian_without_truth(dir: &std::path::Path, name: &str, seed: &str) -> String {
    let raw = dir.join(format!("raw-{name}"));
    let (code, _, err) = run(&[
        "generate",
        "gaussian",
        "--n",
        "3000",
        "--d",
        "3",
        "--positive-rate",
        "0.3",
        "--seed",
        seed,
        "-q",
        "-o",
        raw.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text: String = std::fs::read_to_string(&raw)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            format!("{},{},{},{}\n", f[0], f[1], f[2], f[4])
        })
        .collect();
    common::file(dir, name, text.as_bytes())
}

/// Item 6: when `select --truth` disagrees with the ranking, the output
/// says so (here the training-set accuracy of an unpruned tree, which
/// memorises its rows, against logistic regression on a fresh population).
#[test]
fn select_says_when_the_truth_disagrees() {
    let dir = scratch("select-truth");
    let all = gaussian_without_truth(&dir, "g.csv", "42");
    let population = gaussian_without_truth(&dir, "pop.csv", "7");
    let biased = dir.join("b.csv");
    let (code, _, err) = run(&[
        "generate",
        "bias",
        &all,
        "--feature",
        "x0",
        "--drop",
        "0.3",
        "-q",
        "-o",
        biased.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let args = [
        "select",
        "--train",
        biased.to_str().unwrap(),
        "--population",
        &population,
        "--label",
        "class",
        "--learners",
        "tree,logistic",
        "--truth",
        "class",
        "--method",
        "train",
        "-q",
    ];
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("note: the truth disagrees with the ranking"),
        "{out}"
    );
    assert!(out.contains("logistic is best"), "{out}");
    let mut json_args = args.to_vec();
    json_args.extend(["--format", "json"]);
    let (code, out, err) = run(&json_args);
    assert_eq!(code, 0, "{err}");
    assert!(json(&out)["truth_note"].as_str().is_some(), "{out}");
}
