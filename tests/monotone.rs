//! Monotone constraints through the ensembles a spec names (issue 57): a
//! forest or a balanced forest of constrained trees keeps the direction,
//! swept over 50 values of the constrained column for 40 rows; without the
//! constraint the same forest does not.

use rand::{RngExt, SeedableRng};
use rarity::data::Dataset;
use rarity::learn::Model;

/// 2,000 rows whose class-1 rate rises and falls with x0.
fn wavy() -> Dataset {
    let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let (mut rows, mut y) = (Vec::new(), Vec::new());
    for _ in 0..2000 {
        let x: Vec<f64> = (0..3).map(|_| r.random::<f64>()).collect();
        let p = 0.5 + 0.3 * (3.0 * std::f64::consts::PI * x[0]).sin() + 0.15 * (x[1] - 0.5);
        y.push(u32::from(r.random::<f64>() < p));
        rows.push(x);
    }
    Dataset::from_rows(rows, y, vec!["n".into(), "p".into()]).unwrap()
}

fn fit(spec: &str, ds: &Dataset) -> Model {
    let l = rarity::spec::build_learner(spec).unwrap();
    let rows: Vec<usize> = (0..ds.n_rows()).collect();
    l.fit(&ds.view(&rows), &mut rarity::rng::stream(11, 0))
        .unwrap()
}

/// The largest step against `dir` of the class-1 probability as x0 sweeps
/// [0, 1] in 50 values, the others held at those of the first 40 rows.
fn worst_step(m: &Model, ds: &Dataset, dir: f64) -> f64 {
    let mut worst = 0.0f64;
    for b in 0..40 {
        let rows: Vec<Vec<f64>> = (0..50)
            .map(|s| {
                let mut x = ds.row(b).to_vec();
                x[0] = s as f64 / 49.0;
                x
            })
            .collect();
        let grid = Dataset::from_rows(rows, vec![0; 50], vec!["n".into(), "p".into()]).unwrap();
        let p = m.predict_proba(&grid).unwrap();
        for s in 1..50 {
            worst = worst.max((p.row(s - 1)[1] - p.row(s)[1]) * dir);
        }
    }
    worst
}

#[test]
fn forests_of_constrained_trees_keep_the_direction() {
    let ds = wavy();
    // The mean of monotone trees' probabilities, summed in a fixed order:
    // rounding is monotone, so the mean keeps the direction exactly.
    for spec in [
        "forest(n=20, monotone=[x0:1])",
        "balanced-forest(n=10, monotone=[x0:1], splitter=exact)",
    ] {
        assert_eq!(worst_step(&fit(spec, &ds), &ds, 1.0), 0.0, "{spec}");
    }
    assert_eq!(
        worst_step(&fit("forest(n=20, monotone=[x0:-1])", &ds), &ds, -1.0),
        0.0
    );
    assert!(worst_step(&fit("forest(n=20)", &ds), &ds, 1.0) > 0.01);
}

#[test]
fn boosted_trees_keep_the_direction_by_every_method() {
    let ds = wavy();
    assert!(worst_step(&fit("gbdt", &ds), &ds, 1.0) > 0.01);
    for method in ["basic", "intermediate", "advanced"] {
        let spec = format!("gbdt(monotone=[x0:1], monotone_method={method})");
        assert_eq!(worst_step(&fit(&spec, &ds), &ds, 1.0), 0.0, "{spec}");
    }
}
