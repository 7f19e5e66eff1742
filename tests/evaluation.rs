//! Cross-validated evaluation: pooled out-of-fold metrics (leave-one-out)
//! and common random numbers between strategies (issue 17, items 5 and 6);
//! the same evaluation streamed from a file (issue 18, item 2).

mod common;

use common::{file, run, scratch};
use rarity::data::Dataset;
use rarity::evaluate::{cross_validate, Extras};
use rarity::experiment::compare::compare;
use rarity::spec::build_strategy;
use rarity::split::Splitter;

/// A binary task on a small integer grid: many duplicated rows, with both
/// labels, so that trees have impure leaves and forests' probabilities take
/// many values.
fn duplicated_rows() -> Dataset {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut rows = Vec::new();
    let mut y = Vec::new();
    for _ in 0..600 {
        let x: Vec<f64> = (0..3).map(|_| (next() % 4) as f64).collect();
        let score = x[0] + 0.5 * x[1] - 0.3 * x[2];
        let p = 1.0 / (1.0 + (-(score - 3.0)).exp());
        let u = (next() % 10_000) as f64 / 10_000.0;
        y.push(u32::from(u < p));
        rows.push(x);
    }
    Dataset::from_rows(rows, y, vec!["n".into(), "p".into()]).unwrap()
}

/// Per-fold ROC AUC of `spec` with 2x5 cross-validation.
fn fold_aucs(spec: &str, data: &Dataset) -> Vec<f64> {
    let s = build_strategy(spec).unwrap();
    let e = cross_validate(&s, data, &"2x5".parse().unwrap(), 42, &Extras::default()).unwrap();
    e.values("roc_auc")
}

#[test]
fn the_prior_correction_leaves_the_auc_identical() {
    // Item 6: eq. 9 is monotone, and the sample and the fitted model depend
    // only on the seed, the fold and the sampler + learner.
    let data = duplicated_rows();
    for (plain, corrected) in [
        (
            "under(ratio=1)+forest(n=20)",
            "under(ratio=1)+forest(n=20)+correct",
        ),
        (
            "under(beta=0.5)+forest(n=20)",
            "under(beta=0.5)+forest(n=20)+correct(mode=average)",
        ),
        // Per-member correction of a bagging ensemble: a bootstrap keeps the
        // priors, so nothing is "corrected" per member.
        ("bagging(n=20)", "bagging(n=20)+correct"),
    ] {
        let a = fold_aucs(plain, &data);
        let b = fold_aucs(corrected, &data);
        assert_eq!(a, b, "{plain} vs {corrected}");
    }
}

#[test]
fn strategies_share_fits_whatever_their_position() {
    // Item 6: common random numbers across the strategies of a run.
    let data = duplicated_rows();
    let specs = [
        "under(ratio=1)+forest(n=10)+threshold(0.5)",
        "tree(max_depth=3)",
        "under(ratio=1)+forest(n=10)+correct+threshold(priors)",
    ];
    let build = |order: &[usize]| -> Vec<_> {
        order
            .iter()
            .map(|&i| build_strategy(specs[i]).unwrap())
            .collect()
    };
    let splitter: Splitter = "1x4".parse().unwrap();
    let run = |order: &[usize]| {
        let c = compare(&build(order), &data, &splitter, 3, &Extras::default()).unwrap();
        let mut by_spec: Vec<(String, Vec<f64>)> = c
            .evaluations
            .iter()
            .map(|e| (e.spec.clone(), e.values("roc_auc")))
            .collect();
        by_spec.sort_by(|a, b| a.0.cmp(&b.0));
        by_spec
    };
    let forward = run(&[0, 1, 2]);
    assert_eq!(forward, run(&[2, 1, 0]));
    let mut apart = run(&[1, 2]);
    apart.extend(run(&[0]));
    apart.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(forward, apart);
    // The two forests are one sample and one fit: equal AUC on every fold.
    let forests: Vec<&Vec<f64>> = forward
        .iter()
        .filter(|(s, _)| s.contains("forest"))
        .map(|(_, v)| v)
        .collect();
    assert_eq!(forests[0], forests[1]);
}

/// `rarity evaluate --format json` of `args` (asserting success).
fn evaluate_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["evaluate", "--format", "json"];
    all.extend_from_slice(args);
    let (code, text, err) = run(&all);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&text).unwrap()
}

/// The mean of metric `key` in an evaluation's JSON (`NaN` when null).
fn mean(v: &serde_json::Value, key: &str) -> f64 {
    v["metrics"][key]["mean"].as_f64().unwrap_or(f64::NAN)
}

#[test]
fn leave_one_out_pools_the_out_of_fold_predictions() {
    // Item 5: one-row folds are pooled and every metric computed once.
    let glass_logistic = ["--dataset", "glass6", "--model", "logistic"];
    let mut loo = glass_logistic.to_vec();
    loo.extend(["--cv", "loo"]);
    let v = evaluate_json(&loo);
    assert_eq!(v["pooled"], true);
    assert_eq!(v["folds"], 214);
    assert!(mean(&v, "roc_auc") > 0.85, "{v}");
    assert!(mean(&v, "tpr") > 0.6 && mean(&v, "tnr") > 0.9, "{v}");
    assert!(mean(&v, "average_precision") < 1.0, "{v}");
    // --pooled on 10 folds: the same kind of numbers, close to LOO's.
    let mut ten = glass_logistic.to_vec();
    ten.extend(["--cv", "10", "--pooled"]);
    let p = evaluate_json(&ten);
    assert_eq!(
        (p["pooled"].clone(), p["folds"].clone()),
        (true.into(), 10.into())
    );
    assert!(
        (mean(&p, "roc_auc") - mean(&v, "roc_auc")).abs() < 0.05,
        "{p}"
    );
    assert!((mean(&p, "tpr") - mean(&v, "tpr")).abs() < 0.15, "{p}");
}

#[test]
fn evaluate_says_how_murphys_decomposition_grouped_the_forecasts() {
    // Item 9: binned forecasts, and the output says so.
    let args = ["--dataset", "pima", "--model", "logistic", "--cv", "5"];
    let mut text_args = vec!["evaluate"];
    text_args.extend_from_slice(&args);
    let (code, text, err) = run(&text_args);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("10 equal-width probability bins"), "{text}");
    let v = evaluate_json(&args);
    assert_eq!(v["murphy_bins"], 10);
    // Distinct-value grouping gave reliability = Brier and resolution =
    // uncertainty on logistic regression's continuous scores.
    assert!(
        mean(&v, "brier_reliability") < 0.2 * mean(&v, "brier"),
        "{v}"
    );
    assert!(
        mean(&v, "brier_resolution") < 0.8 * mean(&v, "brier_uncertainty"),
        "{v}"
    );
}

#[test]
fn pooled_metrics_are_those_of_the_concatenated_predictions() {
    // Item 5: the pooled value is the metric of every row's out-of-fold
    // prediction, checked against `rarity score` on the written predictions.
    let d = scratch("pooled-score");
    let data = duplicated_rows();
    let s = build_strategy("tree(max_depth=3)").unwrap();
    let splitter: Splitter = "5".parse().unwrap();
    let folds = splitter.split_dataset(&data, 42).unwrap();
    let mut csv = String::from("y,p\n");
    for f in &folds {
        let fitted = s
            .fit(&data.take(&f.train), rarity::evaluate::fold_seed(42, f))
            .unwrap();
        let test = data.take(&f.test);
        let p = fitted.predict_proba(&test).unwrap();
        for (i, &t) in test.labels().iter().enumerate() {
            csv.push_str(&format!("{t},{}\n", p.row(i)[1]));
        }
    }
    let path = file(&d, "oof.csv", csv.as_bytes());
    let (code, text, err) = run(&[
        "score", &path, "--truth", "y", "--proba", "p", "--format", "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let scored: serde_json::Value = serde_json::from_str(&text).unwrap();
    let pooled =
        rarity::evaluate::cross_validate_pooled(&s, &data, &splitter, 42, &Extras::default())
            .unwrap();
    let got = pooled.values("roc_auc")[0];
    let want = scored["roc_auc"].as_f64().expect("score reports roc_auc");
    assert!((got - want).abs() < 1e-12, "{got} vs {want}");
}

#[test]
fn decisions_after_a_prior_shift_follow_it_inside_a_shared_model() {
    // Items 2 and 8 together: strategies that differ only in their decision
    // share one model; after `+em` each plug-in threshold is resolved from
    // the fold's estimated priors, after `+priors(...)` from the target
    // priors, exactly as when each strategy is evaluated alone.
    let data = duplicated_rows();
    let specs = [
        "logistic+em+threshold(priors)",
        "logistic+em",
        "logistic+priors(0.5,0.5)+threshold(priors)",
        "logistic+priors(0.5,0.5)",
    ];
    let strategies: Vec<_> = specs.iter().map(|s| build_strategy(s).unwrap()).collect();
    let splitter: Splitter = "1x4".parse().unwrap();
    let c = compare(&strategies, &data, &splitter, 5, &Extras::default()).unwrap();
    assert_eq!(c.models.len(), 2);
    for (s, e) in strategies.iter().zip(&c.evaluations) {
        let alone = cross_validate(s, &data, &splitter, 5, &Extras::default()).unwrap();
        for key in ["roc_auc", "brier", "f1", "tpr"] {
            assert_eq!(e.values(key), alone.values(key), "{} {key}", s.spec);
        }
    }
    // The plug-in threshold moves the labels: the decisions differ.
    assert_ne!(
        c.evaluations[0].values("tpr"),
        c.evaluations[1].values("tpr")
    );
}

/// `rarity::stream::evaluate_file`: cross-validation read from a file in
/// three passes gives the in-memory evaluation, value for value; what it
/// cannot stream is left to memory, and bad folds are the same clear errors.
mod streamed {
    use std::path::{Path, PathBuf};

    use rand::RngExt;

    use rarity::data::read::{read_path, ReadOptions};
    use rarity::evaluate::{cross_validate, cross_validate_pooled, Extras, FoldResult};
    use rarity::rng;
    use rarity::split::Splitter;
    use rarity::stream::evaluate_file;

    /// A CSV file of three features and `n` rows of the classes `weights`
    /// give (class `c` drawn with weight `weights[c]`), seeded.
    fn file(name: &str, n: usize, weights: &[f64], seed: u64) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("rarity-stream-eval-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut rng = rng::stream(seed, 0);
        let total: f64 = weights.iter().sum();
        let mut text = String::from("a,b,c,class\n");
        for _ in 0..n {
            let mut u = rng.random::<f64>() * total;
            let c = weights
                .iter()
                .position(|&w| {
                    u -= w;
                    u < 0.0
                })
                .unwrap_or(weights.len() - 1);
            let x: Vec<f64> = (0..3)
                .map(|j| rng.random::<f64>() + (c * (j + 1)) as f64 * 0.3)
                .collect();
            text.push_str(&format!("{:?},{:?},{:?},k{c}\n", x[0], x[1], x[2]));
        }
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Every fold's metrics, as bits (NaN equals NaN), with their positions.
    fn bits(folds: &[FoldResult]) -> Vec<(usize, usize, String, u64)> {
        folds
            .iter()
            .flat_map(|f| {
                f.metrics
                    .iter()
                    .chain(&f.full_potential)
                    .map(move |(m, v)| (f.repeat, f.fold, m.clone(), v.to_bits()))
            })
            .collect()
    }

    /// The streamed evaluation of `spec` on `path` is the in-memory one.
    fn same_as_in_memory(path: &Path, spec: &str, cv: &str, pool: bool) {
        let opts = ReadOptions::default();
        let s = rarity::spec::build_strategy(spec).unwrap();
        let splitter: Splitter = cv.parse().unwrap();
        let (ds, _) = read_path(path, &opts).unwrap();
        // A parameterised metric, on binary tasks (it is binary).
        let metrics = match ds.n_classes() {
            2 => vec![rarity::metrics::catalogue::metric("precision_at_k(k=20)").unwrap()],
            _ => Vec::new(),
        };
        let extras = Extras {
            metrics,
            ..Extras::default()
        };
        let (streamed, report) = evaluate_file(&s, &splitter, path, &opts, 9, &extras, pool)
            .unwrap()
            .unwrap_or_else(|| panic!("{spec} {cv} was not streamed"));
        assert_eq!(report.rows_read, ds.n_rows());
        let want = if pool {
            cross_validate_pooled(&s, &ds, &splitter, 9, &extras).unwrap()
        } else {
            cross_validate(&s, &ds, &splitter, 9, &extras).unwrap()
        };
        assert_eq!(streamed.pooled, want.pooled);
        assert_eq!(streamed.folds.len(), want.folds.len());
        assert_eq!(bits(&streamed.folds), bits(&want.folds), "{spec} {cv}");
    }

    #[test]
    fn the_metrics_are_those_of_the_whole_table() {
        let binary = file("binary.csv", 3000, &[0.93, 0.07], 1);
        let three = file("three.csv", 2500, &[0.8, 0.15, 0.05], 2);
        let spec = "under(beta=0.3)+forest(n=4)+correct+threshold(priors)";
        same_as_in_memory(&binary, spec, "5", false);
        same_as_in_memory(&binary, spec, "2x3", true);
        same_as_in_memory(&binary, "under(ratio=1)+logistic", "5x2", false);
        same_as_in_memory(&three, "under(ratio=1)+tree+threshold(priors)", "4", false);
        same_as_in_memory(&three, "under(ratio=0.5)+tree", "3", true);
    }

    #[test]
    fn what_cannot_stream_is_left_to_memory_and_bad_folds_are_clear_errors() {
        let path = file("left.csv", 400, &[0.9, 0.1], 3);
        let opts = ReadOptions::default();
        let run = |spec: &str, cv: &str, extras: &Extras| {
            let s = rarity::spec::build_strategy(spec).unwrap();
            evaluate_file(&s, &cv.parse().unwrap(), &path, &opts, 1, extras, false)
        };
        let plain = Extras::default();
        let oof = Extras {
            oof: true,
            ..Extras::default()
        };
        for (spec, cv, extras) in [
            ("forest(n=3)", "5", &plain),
            ("smote+tree", "5", &plain),
            ("balanced-bootstrap+tree", "5", &plain),
            ("under(beta=0.5)+tree+platt", "5", &plain),
            ("under(beta=0.5)+tree+em", "5", &plain),
            ("under(beta=0.5)+tree", "loo", &plain),
            ("under(beta=0.5)+tree", "5", &oof),
        ] {
            assert!(run(spec, cv, extras).unwrap().is_none(), "{spec} {cv}");
        }
        let few = file("few.csv", 200, &[0.99, 0.01], 4);
        let s = rarity::spec::build_strategy("under(beta=0.5)+tree").unwrap();
        let (ds, _) = read_path(&few, &opts).unwrap();
        let splitter = Splitter::k_fold(50);
        let streamed = evaluate_file(&s, &splitter, &few, &opts, 1, &plain, false).unwrap_err();
        let in_memory = cross_validate(&s, &ds, &splitter, 1, &plain).unwrap_err();
        assert_eq!(streamed.to_string(), in_memory.to_string());
        assert!(streamed.to_string().contains("fewer than the 50 folds"));
    }
}
