//! Every base learner on awkward data: one feature, constant features,
//! duplicated rows, classes of one row, rows of weight 0, classes absent
//! from the fitted rows; inside bagging; saved and loaded.

use std::path::Path;

use rarity::data::Dataset;
use rarity::persist::{from_bytes, to_bytes, Format};
use rarity::Model;

const SPECS: &[&str] = &[
    "logistic",
    "logistic(c=0.1, class_weight=balanced)",
    "gnb",
    "nb-binned",
    "nb-binned(bins=3)",
    "knn",
    "knn(k=3, weights=distance)",
    "svm",
    "svm(kernel=linear, c=2, class_weight=balanced)",
    "lda",
    "lda(priors=balanced)",
    "qda",
    "qda(priors=balanced, reg=0.1)",
    "adaboost(n=20)",
    "adaboost(n=10, depth=2)",
    "adac2(n=20)",
    "adac2(n=20, cost_pos=3, cost_neg=0.5)",
    "rus-boost(n=20)",
    "logitboost(n=20)",
    "svdd(nu=0.1)",
];

fn names(k: usize) -> Vec<String> {
    (0..k).map(|c| format!("c{c}")).collect()
}

/// An easy binary task on one feature: class 1 iff x >= 20 (of 0..40).
fn one_feature() -> Dataset {
    Dataset::from_rows(
        (0..40).map(|i| vec![i as f64]).collect(),
        (0..40).map(|i| u32::from(i >= 20)).collect(),
        names(2),
    )
    .unwrap()
}

/// The same task with a constant column before and after the feature.
fn constant_columns() -> Dataset {
    Dataset::from_rows(
        (0..40).map(|i| vec![3.0, i as f64, -1.0]).collect(),
        (0..40).map(|i| u32::from(i >= 20)).collect(),
        names(2),
    )
    .unwrap()
}

/// Every feature constant.
fn all_constant() -> Dataset {
    Dataset::from_rows(
        (0..12).map(|_| vec![1.0, 2.0]).collect(),
        (0..12).map(|i| u32::from(i % 3 == 0)).collect(),
        names(2),
    )
    .unwrap()
}

/// Each row present three times.
fn duplicated() -> Dataset {
    Dataset::from_rows(
        (0..60)
            .map(|i| vec![(i / 3) as f64, ((i / 3) % 4) as f64])
            .collect(),
        (0..60).map(|i| u32::from(i / 3 >= 10)).collect(),
        names(2),
    )
    .unwrap()
}

/// Three classes, the last with a single row.
fn class_of_one() -> Dataset {
    let mut rows: Vec<Vec<f64>> = (0..30).map(|i| vec![i as f64, (i % 5) as f64]).collect();
    let mut y: Vec<u32> = (0..30).map(|i| u32::from(i >= 15)).collect();
    rows.push(vec![50.0, 7.0]);
    y.push(2);
    Dataset::from_rows(rows, y, names(3)).unwrap()
}

/// Two classes, the positive one a single row.
fn one_positive() -> Dataset {
    Dataset::from_rows(
        (0..25).map(|i| vec![i as f64, (i % 3) as f64]).collect(),
        (0..25).map(|i| u32::from(i == 24)).collect(),
        names(2),
    )
    .unwrap()
}

/// The data for the multiclass checks: AdaC2 is for two classes only.
fn awkward_for(spec: &str) -> Dataset {
    if spec.starts_with("adac2") {
        let mut rows: Vec<Vec<f64>> = (0..30).map(|i| vec![i as f64, (i % 5) as f64]).collect();
        rows.push(vec![50.0, 7.0]);
        let y = (0..31).map(|i| u32::from(i >= 15)).collect();
        Dataset::from_rows(rows, y, names(2)).unwrap()
    } else {
        class_of_one()
    }
}

/// The one-feature task with some weights 0 (and uneven others).
fn zero_weights() -> Dataset {
    let w = (0..40)
        .map(|i| match i % 5 {
            0 => 0.0,
            1 => 2.5,
            _ => 1.0,
        })
        .collect();
    one_feature().with_weights(w).unwrap()
}

fn check_proba(spec: &str, case: &str, m: &Model, ds: &Dataset) {
    let p = m
        .predict_proba(ds)
        .unwrap_or_else(|e| panic!("{spec} on {case}: {e}"));
    assert_eq!(p.n_rows(), ds.n_rows(), "{spec} on {case}");
    assert_eq!(p.n_classes(), ds.n_classes(), "{spec} on {case}");
    for i in 0..p.n_rows() {
        let r = p.row(i);
        let s: f64 = r.iter().sum();
        assert!(
            (s - 1.0).abs() < 1e-9 && r.iter().all(|v| v.is_finite() && (0.0..=1.0).contains(v)),
            "{spec} on {case}, row {i}: {r:?}"
        );
    }
}

fn fit(spec: &str, ds: &Dataset, rows: &[usize]) -> Model {
    let l = rarity::spec::build_learner(spec).unwrap();
    l.fit(&ds.view(rows), &mut rarity::rng::stream(3, 0))
        .unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// Share of rows whose most probable class is their label.
fn accuracy(m: &Model, ds: &Dataset) -> f64 {
    let pred = m.predict_proba(ds).unwrap().argmax();
    (0..ds.n_rows()).filter(|&i| pred[i] == ds.label(i)).count() as f64 / ds.n_rows() as f64
}

#[test]
fn every_learner_handles_awkward_data() {
    let cases: Vec<(&str, Dataset)> = vec![
        ("one feature", one_feature()),
        ("constant columns", constant_columns()),
        ("all features constant", all_constant()),
        ("duplicated rows", duplicated()),
        ("positive class of one row", one_positive()),
        ("zero weights", zero_weights()),
    ];
    for spec in SPECS {
        let extra = ("three classes, one of one row", awkward_for(spec));
        for (case, ds) in cases.iter().chain([&extra]) {
            let rows: Vec<usize> = (0..ds.n_rows()).collect();
            let m = fit(spec, ds, &rows);
            check_proba(spec, case, &m, ds);
            if spec.starts_with("svdd") || spec.starts_with("adac2(n=20, cost") {
                continue;
            }
            // Easy tasks stay easy (ties at the class boundary aside).
            if matches!(
                *case,
                "one feature" | "constant columns" | "duplicated rows"
            ) {
                let acc = accuracy(&m, ds);
                assert!(acc >= 0.85, "{spec} on {case}: accuracy {acc}");
            }
        }
    }
}

#[test]
fn every_learner_handles_repeats_absent_classes_and_a_single_class() {
    for spec in SPECS {
        let ds = awkward_for(spec);
        // A bootstrap-like view: repeats, and the size-1 class left out.
        let rows: Vec<usize> = (0..30).chain(0..10).chain([4, 4, 4]).collect();
        let m = fit(spec, &ds, &rows);
        check_proba(spec, "absent class", &m, &ds);
        if !spec.starts_with("svdd") && ds.n_classes() == 3 {
            let p = m.predict_proba(&ds).unwrap();
            assert!(
                (0..ds.n_rows()).all(|i| p.row(i)[2] == 0.0),
                "{spec}: a class absent from the fit gets probability 0"
            );
        }
        // Only one class in the fitted rows.
        let m = fit(spec, &ds, &(0..15).collect::<Vec<_>>());
        check_proba(spec, "single class", &m, &ds);
    }
}

#[test]
fn every_learner_is_deterministic_savable_and_baggable() {
    for spec in SPECS {
        let ds = awkward_for(spec);
        let rows: Vec<usize> = (0..ds.n_rows()).collect();
        let m = fit(spec, &ds, &rows);
        assert_eq!(m, fit(spec, &ds, &rows), "{spec}: same seed, same model");
        let p = m.predict_proba(&ds).unwrap();
        for format in [Format::Binary, Format::Json] {
            let bytes = to_bytes(&m, format).unwrap();
            let back: rarity::Model =
                from_bytes(&bytes, Path::new("mem")).unwrap_or_else(|e| panic!("{spec}: {e}"));
            assert_eq!(back, m, "{spec}: {format:?} round trip");
            assert_eq!(back.predict_proba(&ds).unwrap(), p, "{spec}");
        }
        let bag = format!("bagging(n=4, learner={spec})");
        let b = fit(&bag, &ds, &rows);
        check_proba(&bag, "bagging", &b, &ds);
    }
}

#[test]
fn specs_reject_bad_parameters_with_a_message() {
    for (bad, says) in [
        ("logistic(c=0)", "c=0"),
        ("logistic(class_weight=heavy)", "balanced"),
        ("gnb(var_smoothing=-1)", "var_smoothing"),
        ("nb-binned(bins=0)", "bins"),
        ("knn(k=0)", "k=0"),
        ("knn(weights=cubic)", "uniform"),
        ("svm(kernel=poly)", "linear"),
        ("svm(gamma=-2)", "gamma"),
        ("lda(priors=given())", "priors"),
        ("qda(reg=2)", "reg"),
        ("adaboost(depth=0)", "depth"),
        ("adac2(cost_neg=0)", "cost_neg"),
        ("logitboost(rounds=3)", "unknown argument"),
        ("svdd(nu=1.5)", "nu"),
    ] {
        let e = match rarity::spec::build_learner(bad) {
            Ok(l) => panic!("{bad} accepted as {}", l.name()),
            Err(e) => e.to_string(),
        };
        assert!(e.contains(says), "{bad}: {e}");
    }
    // AdaC2 is for two classes.
    let ds = class_of_one();
    let l = rarity::spec::build_learner("adac2").unwrap();
    let rows: Vec<usize> = (0..ds.n_rows()).collect();
    let e = l
        .fit(&ds.view(&rows), &mut rarity::rng::stream(0, 0))
        .unwrap_err();
    assert!(e.to_string().contains("two classes"), "{e}");
}

#[test]
fn adac2_defaults_give_a_usable_model_on_every_bundled_binary_set() {
    // Issue 17, item 17: the former defaults (cost_neg = 0.5) labelled every
    // pima row positive with 20 rounds.
    use rarity::data::{bundled, read::ReadOptions};
    use rarity::evaluate::cross_validate;
    let splitter: rarity::split::Splitter = "5".parse().unwrap();
    let mut checked = 0;
    for set in bundled::BUNDLED {
        let (ds, _) = set.load(&ReadOptions::default()).unwrap();
        if ds.n_classes() != 2 {
            continue;
        }
        for spec in ["adac2(n=20)", "adac2(n=50)"] {
            let s = rarity::spec::build_strategy(spec).unwrap();
            let e = cross_validate(&s, &ds, &splitter, 42, &Default::default()).unwrap();
            let mean = |k: &str| {
                let v = e.values(k);
                v.iter().sum::<f64>() / v.len() as f64
            };
            let (tpr, tnr) = (mean("tpr"), mean("tnr"));
            assert!(
                tpr >= 0.5 && tnr >= 0.5,
                "{spec} on {}: TPR {tpr:.3}, TNR {tnr:.3}",
                set.name
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 10);
}
