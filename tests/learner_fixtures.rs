//! The base learners against scikit-learn (tests/fixtures/learners.json,
//! written by tools/gen_learner_fixtures.py; see there for what each block
//! holds).

mod common;

use common::{check_all, labels, load, nums};
use rarity::data::Dataset;
use rarity::learn::logistic::LogisticModel;
use rarity::learn::svm::SvmModel;
use rarity::learn::Learner;
use rarity::Model;
use serde_json::Value;

/// A bundled CSV (header, numeric features, integer class last).
fn csv(name: &str) -> Dataset {
    let path = format!("{}/data/{name}.csv", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let mut rows = Vec::new();
    let mut y = Vec::new();
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let v: Vec<f64> = line.split(',').map(|c| c.trim().parse().unwrap()).collect();
        y.push(*v.last().unwrap() as u32);
        rows.push(v[..v.len() - 1].to_vec());
    }
    let k = *y.iter().max().unwrap() as usize + 1;
    Dataset::from_rows(rows, y, (0..k).map(|c| c.to_string()).collect()).unwrap()
}

fn rows_of(v: &Value) -> Vec<usize> {
    labels(v).into_iter().map(|r| r as usize).collect()
}

fn fit_all(learner: &dyn Learner, ds: &Dataset) -> Model {
    let rows: Vec<usize> = (0..ds.n_rows()).collect();
    learner
        .fit(&ds.view(&rows), &mut rarity::rng::stream(0, 0))
        .unwrap()
}

fn proba_rows(m: &Model, ds: &Dataset, rows: &[usize]) -> Vec<f64> {
    m.predict_proba(&ds.take(rows)).unwrap().values().to_vec()
}

fn finish(failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

fn spec(s: &str) -> std::sync::Arc<dyn Learner> {
    rarity::spec::build_learner(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

#[test]
fn logistic_matches_sklearn_optimum() {
    let fx = load("learners.json");
    let mut failures = Vec::new();
    for case in fx["logistic"].as_array().unwrap() {
        let data = case["data"].as_str().unwrap();
        let ds = csv(data);
        let s = format!(
            "logistic(c={}, class_weight={}, tol=1e-10, max_iter=1000)",
            case["c"],
            case["class_weight"].as_str().unwrap()
        );
        let m = fit_all(spec(&s).as_ref(), &ds);
        let lm = m.downcast_ref::<LogisticModel>().expect("a logistic model");
        let name = format!("{data} {s}");
        check_all(
            &name,
            "coef",
            lm.coef(),
            &nums(&case["coef"]),
            1e-6,
            &mut failures,
        );
        check_all(
            &name,
            "intercept",
            lm.intercept(),
            &nums(&case["intercept"]),
            1e-6,
            &mut failures,
        );
        let rows = rows_of(&case["rows"]);
        let p = proba_rows(&m, &ds, &rows);
        check_all(
            &name,
            "proba",
            &p,
            &nums(&case["proba"]),
            1e-6,
            &mut failures,
        );
        // scikit-learn's own answer, where its solver got close to the optimum.
        if case["sklearn_gap"].as_f64().unwrap() < 1e-5 {
            check_all(
                &name,
                "sklearn proba",
                &p,
                &nums(&case["sklearn_proba"]),
                1e-5,
                &mut failures,
            );
        }
    }
    finish(failures);
}

#[test]
fn gaussian_nb_matches_sklearn() {
    let fx = load("learners.json");
    let mut failures = Vec::new();
    for case in fx["gnb"].as_array().unwrap() {
        let data = case["data"].as_str().unwrap();
        let mut ds = csv(data);
        if case["weights"].is_array() {
            ds = ds.with_weights(nums(&case["weights"])).unwrap();
        }
        let s = format!("gnb(var_smoothing={})", case["var_smoothing"]);
        let m = fit_all(spec(&s).as_ref(), &ds);
        let rows = rows_of(&case["rows"]);
        let p = proba_rows(&m, &ds, &rows);
        check_all(
            &format!("{data} {s}"),
            "proba",
            &p,
            &nums(&case["proba"]),
            1e-9,
            &mut failures,
        );
    }
    finish(failures);
}

#[test]
fn svm_decision_values_match_sklearn() {
    let fx = load("learners.json");
    let mut failures = Vec::new();
    for case in fx["svm"].as_array().unwrap() {
        let data = case["data"].as_str().unwrap();
        let ds = csv(data);
        let gamma = match &case["gamma"] {
            Value::String(s) => s.clone(),
            v => v.to_string(),
        };
        let s = format!(
            "svm(kernel={}, c={}, gamma={gamma}, class_weight={}, tol=1e-6)",
            case["kernel"].as_str().unwrap(),
            case["c"],
            case["class_weight"].as_str().unwrap()
        );
        let m = fit_all(spec(&s).as_ref(), &ds);
        let sm = m.downcast_ref::<SvmModel>().expect("an SVM");
        let got: Vec<f64> = rows_of(&case["rows"])
            .iter()
            .flat_map(|&r| sm.decision_function(ds.row(r)))
            .collect();
        check_all(
            &format!("{data} {s}"),
            "decision",
            &got,
            &nums(&case["decision"]),
            1e-3,
            &mut failures,
        );
        // Probabilities are well formed.
        let p = m.predict_proba(&ds).unwrap();
        for i in 0..p.n_rows() {
            let sum: f64 = p.row(i).iter().sum();
            assert!((sum - 1.0).abs() < 1e-9 && p.row(i).iter().all(|v| (0.0..=1.0).contains(v)));
        }
    }
    finish(failures);
}

fn priors_spec(v: &Value) -> String {
    match v.as_array() {
        None => "train".into(),
        Some(p) => format!(
            "given({})",
            p.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(",")
        ),
    }
}

#[test]
fn lda_and_qda_match_sklearn() {
    let fx = load("learners.json");
    let mut failures = Vec::new();
    let cases = fx["lda"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (format!("lda(priors={})", priors_spec(&c["priors"])), c))
        .chain(fx["qda"].as_array().unwrap().iter().map(|c| {
            (
                format!(
                    "qda(priors={}, reg={})",
                    priors_spec(&c["priors"]),
                    c["reg"]
                ),
                c,
            )
        }));
    for (s, case) in cases {
        let data = case["data"].as_str().unwrap();
        let ds = csv(data);
        let m = fit_all(spec(&s).as_ref(), &ds);
        let p = proba_rows(&m, &ds, &rows_of(&case["rows"]));
        check_all(
            &format!("{data} {s}"),
            "proba",
            &p,
            &nums(&case["proba"]),
            1e-8,
            &mut failures,
        );
    }
    finish(failures);
}

#[test]
fn knn_matches_sklearn() {
    let fx = load("learners.json");
    let mut failures = Vec::new();
    for case in fx["knn"].as_array().unwrap() {
        let data = case["data"].as_str().unwrap();
        let ds = csv(data);
        let s = format!(
            "knn(k={}, weights={})",
            case["k"],
            case["weights"].as_str().unwrap()
        );
        let train = rows_of(&case["train"]);
        let m = spec(&s)
            .fit(&ds.view(&train), &mut rarity::rng::stream(0, 0))
            .unwrap();
        let p = proba_rows(&m, &ds, &rows_of(&case["rows"]));
        // Uniform votes are exact fractions; inverse distances may differ in
        // the last bits (scikit-learn computes distances through dot products).
        check_all(
            &format!("{data} {s}"),
            "proba",
            &p,
            &nums(&case["proba"]),
            1e-12,
            &mut failures,
        );
    }
    finish(failures);
}

/// Out-of-fold accuracy with row i in fold i % 5 (as the fixture script).
fn cv_accuracy(learner: &dyn Learner, ds: &Dataset) -> f64 {
    let mut hit = 0;
    for f in 0..5 {
        let train: Vec<usize> = (0..ds.n_rows()).filter(|i| i % 5 != f).collect();
        let test: Vec<usize> = (0..ds.n_rows()).filter(|i| i % 5 == f).collect();
        let m = learner
            .fit(&ds.view(&train), &mut rarity::rng::stream(0, f as u64))
            .unwrap();
        let pred = m.predict_proba(&ds.take(&test)).unwrap().argmax();
        hit += test
            .iter()
            .zip(pred)
            .filter(|(&i, p)| ds.label(i) == *p)
            .count();
    }
    hit as f64 / ds.n_rows() as f64
}

/// AdaBoost (stumps, same rounds) within 1% of scikit-learn's SAMME.
#[test]
fn boosting_accuracy_within_one_percent_of_sklearn() {
    let fx = load("learners.json");
    let mut failures = Vec::new();
    for case in fx["boosting"].as_array().unwrap() {
        let data = case["data"].as_str().unwrap();
        let ds = csv(data);
        let ada = cv_accuracy(spec(&format!("adaboost(n={})", case["n"])).as_ref(), &ds);
        let want = case["adaboost_accuracy"].as_f64().unwrap();
        if (ada - want).abs() > 0.01 {
            failures.push(format!(
                "{data}: adaboost accuracy {ada:.4}, sklearn {want:.4}"
            ));
        }
        let lb = cv_accuracy(
            spec(&format!("logitboost(n={})", case["logitboost_rounds"])).as_ref(),
            &ds,
        );
        // scikit-learn has no LogitBoost: its closest relative, gradient
        // boosting of stumps on the log loss with unit learning rate, is a
        // different algorithm, so only "not worse by more than 1%" is asked.
        let want = case["gbm_accuracy"].as_f64().unwrap();
        if lb < want - 0.01 {
            failures.push(format!(
                "{data}: logitboost accuracy {lb:.4}, sklearn GBM {want:.4}"
            ));
        }
        eprintln!(
            "{data}: adaboost {ada:.4} (sklearn {:.4}), logitboost {lb:.4} (GBM {want:.4})",
            case["adaboost_accuracy"]
        );
    }
    finish(failures);
}

/// gbdt with unbounded steps against scikit-learn's
/// HistGradientBoostingClassifier: the same bins (one per distinct value),
/// gains, leaf-wise order, Newton leaf values, float32 gradients and
/// baseline, so the same trees; the probabilities agree to float32
/// rounding of the gradients.
#[test]
fn gbdt_matches_sklearn_hist_gradient_boosting() {
    let fx = load("learners.json");
    let mut failures = Vec::new();
    for case in fx["gbdt"].as_array().unwrap() {
        let data = case["data"].as_str().unwrap();
        let ds = csv(data);
        let s = case["spec"].as_str().unwrap();
        let m = fit_all(spec(s).as_ref(), &ds);
        let all: Vec<usize> = (0..ds.n_rows()).collect();
        let p = proba_rows(&m, &ds, &all);
        check_all(
            &format!("{data} {s}"),
            "proba",
            &p,
            &nums(&case["proba"]),
            1e-6,
            &mut failures,
        );
    }
    finish(failures);
}

/// A Gini tree's importances are scikit-learn's `feature_importances_`.
#[test]
fn tree_importances_match_sklearn() {
    let fx = load("learners.json");
    let mut failures = Vec::new();
    for case in fx["tree_importances"].as_array().unwrap() {
        let data = case["data"].as_str().unwrap();
        let ds = csv(data);
        let s = format!("tree(max_depth={},splitter=exact)", case["max_depth"]);
        let m = fit_all(spec(&s).as_ref(), &ds);
        let imp = m.importances().unwrap();
        check_all(
            &format!("{data} {s}"),
            "importances",
            &imp.values,
            &nums(&case["importances"]),
            1e-12,
            &mut failures,
        );
        check_all(
            &format!("{data} {s}"),
            "std",
            &imp.std,
            &vec![0.0; ds.n_features()],
            0.0,
            &mut failures,
        );
    }
    finish(failures);
}
