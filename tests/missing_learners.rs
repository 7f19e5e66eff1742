//! Learners that take missing values (NaN) as they are (issue 52): a
//! learned direction against a fixed one where the hole carries the label,
//! every tree learner and ensemble fitting and scoring rows with holes, and
//! model files that keep the directions.

use rand::RngExt;
use rarity::data::{Dataset, Schema};
use rarity::metrics::ranking::average_precision;
use rarity::spec::build_strategy;

/// Rows with two features: the first low for the positives (16% of the
/// rows) and missing for 60% of them and 4% of the negatives, the second
/// noise with 10% of its values missing at random.
fn table(n: usize, seed: u64) -> Dataset {
    let mut r = rarity::rng::stream(seed, 0);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let pos = r.random::<f64>() < 0.16;
        let x0 = match pos {
            true => r.random::<f64>() * 0.5,
            false => 0.3 + r.random::<f64>() * 0.7,
        };
        let hole = r.random::<f64>() < if pos { 0.6 } else { 0.04 };
        x.push(if hole { f64::NAN } else { x0 });
        let x1 = r.random::<f64>();
        x.push(if r.random::<f64>() < 0.1 {
            f64::NAN
        } else {
            x1
        });
        y.push(u32::from(pos));
    }
    let schema = Schema::numeric(vec!["x0".into(), "x1".into()], vec!["n".into(), "p".into()]);
    Dataset::new(x, y, schema).unwrap()
}

/// The table with every missing value replaced by a number above all the
/// others: each split then sends the holes right, with the largest values
/// (a fixed direction, where rarity sent NaN before it learned one).
fn holes_fixed_right(ds: &Dataset) -> Dataset {
    let x = ds
        .features()
        .iter()
        .map(|&v| if v.is_nan() { 1e9 } else { v })
        .collect();
    Dataset::new(x, ds.labels().to_vec(), ds.schema().clone()).unwrap()
}

/// The average precision on `test` of `spec` fitted on `train`.
fn ap(spec: &str, train: &Dataset, test: &Dataset) -> f64 {
    let fitted = build_strategy(spec).unwrap().fit(train, 3).unwrap();
    let p = fitted.predict_proba(test).unwrap();
    average_precision(test.labels(), &p.column(1), 1).unwrap()
}

#[test]
fn a_learned_direction_beats_a_fixed_one_where_the_hole_carries_the_label() {
    let (train, test) = (table(3000, 1), table(3000, 2));
    let (train_fixed, test_fixed) = (holes_fixed_right(&train), holes_fixed_right(&test));
    for spec in [
        "gbdt(rounds=1,max_leaves=2)",
        "tree(max_depth=1)",
        "tree(max_depth=1,splitter=exact)",
        "tree(max_depth=2,missing_split=direction)",
    ] {
        let (learned, fixed) = (ap(spec, &train, &test), ap(spec, &train_fixed, &test_fixed));
        assert!(
            learned > fixed + 0.02,
            "{spec}: learned AP {learned}, fixed {fixed}"
        );
    }
}

#[test]
fn every_tree_learner_and_ensemble_fits_and_scores_rows_with_holes() {
    let (train, test) = (table(1500, 3), table(500, 4));
    for spec in [
        "gbdt",
        "gbdt(gradients=quantized,leaf_rows=rows)",
        "tree",
        "tree(splitter=exact)",
        "random_tree",
        "forest(n=20)",
        "balanced-forest(n=20)",
        "rdt(n=20)",
        "bagging(n=10)",
        "under-bagging(n=10)",
        "adaboost(n=10)",
        "adac2(n=10)",
        "rus-boost(n=10)",
    ] {
        let strategy = build_strategy(spec).unwrap();
        assert!(strategy.learner.handles_missing(), "{spec}");
        let fitted = strategy.fit(&train, 5).unwrap();
        let p = fitted.predict_proba(&test).unwrap();
        assert!(
            p.column(1).iter().all(|v| (0.0..=1.0).contains(v)),
            "{spec}"
        );
        let score = average_precision(test.labels(), &p.column(1), 1).unwrap();
        // Well above the positives' share (0.16), even for unpruned trees.
        assert!(score > 0.35, "{spec}: AP {score}");
        // The directions are in the model file: read back, the same bits.
        for format in [
            rarity::persist::Format::Binary,
            rarity::persist::Format::Json,
        ] {
            let bytes = rarity::persist::to_bytes(&fitted, format).unwrap();
            let back: rarity::strategy::FittedStrategy =
                rarity::persist::from_bytes(&bytes, std::path::Path::new("m")).unwrap();
            assert_eq!(back.predict_proba(&test).unwrap(), p, "{spec}");
        }
    }
}

#[test]
fn datasets_take_missing_values_and_refuse_infinities() {
    let schema = || Schema::numeric(vec!["a".into(), "b".into()], vec!["n".into(), "p".into()]);
    assert!(Dataset::new(vec![1.0, f64::NAN, 2.0, 3.0], vec![0, 1], schema()).is_ok());
    let e = Dataset::new(vec![1.0, 2.0, f64::NEG_INFINITY, 3.0], vec![0, 1], schema())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("row 1 (counting from 0), feature 'a' is -inf"),
        "{e}"
    );
}
