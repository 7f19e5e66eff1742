//! Monotone constraints through the ensembles a spec names and the whole
//! strategy (issue 57): a forest or a balanced forest of constrained trees
//! keeps the direction, swept over 50 values of the constrained column for
//! 40 rows; without the constraint the same forest does not. Every stage
//! after a constrained learner (the prior correction in each mode,
//! isotonic and Platt calibration, a prior shift, EM, a decision) keeps
//! the probability of the positive class, and the labels, moving with each
//! constrained column: tolerance 0 (each stage is a non-decreasing map,
//! computed in a fixed order, and correctly rounded operations are
//! monotone).

mod common;

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

/// 2,000 rows, 10% of class 1 (a rare class for the correction and the
/// prior shifts to undo), whose rate rises and falls with x0 and rises
/// with x1.
fn rare_wavy() -> Dataset {
    let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(57);
    let (mut rows, mut y) = (Vec::new(), Vec::new());
    for _ in 0..2000 {
        let x: Vec<f64> = (0..3).map(|_| r.random::<f64>()).collect();
        let s = 1.5 * (3.0 * std::f64::consts::PI * x[0]).sin() + 2.0 * x[1] - 3.2;
        y.push(u32::from(r.random::<f64>() < 1.0 / (1.0 + (-s).exp())));
        rows.push(x);
    }
    Dataset::from_rows(rows, y, vec!["n".into(), "p".into()]).unwrap()
}

/// The largest step against `dir` of a fitted strategy's class-1
/// probability, and of its labels, as feature `j` sweeps its range in 50
/// values, the others held at those of the first 40 rows; and the largest
/// move along `dir` over a whole sweep (a constant model keeps every
/// direction and moves by 0).
fn strategy_sweep(
    s: &rarity::strategy::FittedStrategy,
    ds: &Dataset,
    j: usize,
    dir: f64,
) -> ((f64, f64), f64) {
    let (mut worst_p, mut worst_label, mut moved) = (0.0f64, 0.0f64, 0.0f64);
    for b in 0..40 {
        let rows: Vec<Vec<f64>> = (0..50)
            .map(|v| {
                let mut x = ds.row(b).to_vec();
                x[j] = v as f64 / 49.0;
                x
            })
            .collect();
        let grid = Dataset::from_rows(rows, vec![0; 50], vec!["n".into(), "p".into()]).unwrap();
        let (p, labels) = s.predict(&grid).unwrap();
        for v in 1..50 {
            worst_p = worst_p.max((p.row(v - 1)[1] - p.row(v)[1]) * dir);
            worst_label = worst_label.max((labels[v - 1] as f64 - labels[v] as f64) * dir);
        }
        moved = moved.max((p.row(49)[1] - p.row(0)[1]) * dir);
    }
    ((worst_p, worst_label), moved)
}

/// [`strategy_sweep`]'s steps against `dir`.
fn strategy_worst_step(
    s: &rarity::strategy::FittedStrategy,
    ds: &Dataset,
    j: usize,
    dir: f64,
) -> (f64, f64) {
    strategy_sweep(s, ds, j, dir).0
}

#[test]
fn every_stage_after_a_constrained_learner_keeps_the_direction() {
    let ds = rare_wavy();
    let gbdt = "gbdt(rounds=60, monotone=[x0:1, x1:1]";
    let specs = [
        format!("under(beta=0.3)+{gbdt})+correct"),
        format!("under(beta=0.3)+{gbdt}, monotone_method=intermediate)+correct+threshold(priors)"),
        format!("{gbdt}, monotone_method=advanced)+isotonic"),
        format!("{gbdt})+isotonic(ensemble=true)+cost(fp=1, fn=10)"),
        format!("{gbdt})+platt"),
        format!("{gbdt})+platt(ensemble=true)+tune(metric=f1)"),
        format!("smote+{gbdt})+correct+priors(0.95, 0.05)"),
        format!("{gbdt})+em"),
        "under(beta=0.3)+forest(n=15, monotone=[x0:1, x1:1])+correct(mode=member)".into(),
        "under(beta=0.3)+forest(n=15, monotone=[x0:1, x1:1])+correct(mode=average)+isotonic".into(),
        "balanced-forest(n=10, monotone=[x0:1, x1:1])+correct+platt".into(),
        "under(beta=0.3)+logistic(signs=[x0:1, x1:1])+correct+platt".into(),
        "logistic(signs=[x0:1, x1:1])+isotonic+priors(0.8, 0.2)".into(),
    ];
    for spec in &specs {
        let s = rarity::spec::build_strategy(spec).unwrap();
        let fitted = s.fit(&ds, 5).unwrap();
        for j in [0, 1] {
            assert_eq!(
                strategy_worst_step(&fitted, &ds, j, 1.0),
                (0.0, 0.0),
                "{spec}, x{j}"
            );
        }
    }
    // The sweep sees a reversal where there is one: x0's effect rises and
    // falls without the constraint.
    let free = rarity::spec::build_strategy("under(beta=0.3)+gbdt(rounds=60)+correct+isotonic")
        .unwrap()
        .fit(&ds, 5)
        .unwrap();
    assert!(strategy_worst_step(&free, &ds, 0, 1.0).0 > 0.01);
    // Decreasing constraints hold the same way.
    let down = rarity::spec::build_strategy(
        "under(beta=0.3)+gbdt(rounds=60, monotone=[x0:-1])+correct+isotonic",
    )
    .unwrap()
    .fit(&ds, 5)
    .unwrap();
    assert_eq!(strategy_worst_step(&down, &ds, 0, -1.0), (0.0, 0.0));
}

#[test]
fn constraints_that_do_not_fit_the_table_stop_the_strategy_before_fitting() {
    let ds = rare_wavy();
    let err = |spec: &str| {
        rarity::spec::build_strategy(spec)
            .unwrap()
            .fit(&ds, 5)
            .unwrap_err()
            .to_string()
    };
    let e = err("under(beta=0.3)+gbdt(monotone=[debt:1])+correct");
    assert!(
        e.contains("no column named debt") && e.contains("x0"),
        "{e}"
    );
    let e = err("forest(n=3, monotone=[class:1])");
    assert!(e.contains("class"), "{e}");
    let e = err("logistic(signs=[x9:-1])+platt");
    assert!(e.contains("x9"), "{e}");
}

/// The table's header is enough: `fit` and `evaluate` name the bad column
/// before reading a row (the table's second row would fail to parse, and
/// that error never comes), and a Parquet file's declared string column is
/// known categorical from its schema.
#[test]
fn constraints_are_checked_on_the_header_before_any_row_is_read() {
    let dir = common::scratch("monotone-header");
    let csv = common::file(
        &dir,
        "t.csv",
        b"debt ratio,tenure,kind,class\n0.1,3,a,0\nnot a number,4,b,1\n",
    );
    let cases: &[(&str, &[&str])] = &[
        (
            "gbdt(monotone=[debt:1])",
            &["no column named debt", "debt ratio, tenure"],
        ),
        (
            "gbdt(monotone=['debt ratio':1, class:-1])",
            &["class is the target"],
        ),
        (
            "gbdt(interaction=[['debt ratio', age]])",
            &["interaction", "no column named age"],
        ),
        (
            "forest(monotone=[kind:1])",
            &["kind is a categorical column"],
        ),
        ("logistic(signs=[tenur:-1])", &["did you mean tenure?"]),
    ];
    for (spec, needles) in cases {
        for job in ["fit", "evaluate"] {
            let out = dir.join("m.rarity");
            let o = out.to_str().unwrap();
            let mut args = vec![job, &csv, "-m", spec, "--categorical-cols", "kind"];
            if job == "fit" {
                args.extend(["-o", o]);
            }
            let (code, _, err) = common::run(&args);
            assert_eq!(code, 2, "{job} {spec}: {err}");
            for n in *needles {
                assert!(err.contains(n), "{job} {spec}: {n} not in {err}");
            }
            assert!(
                !err.contains("not a number"),
                "{job} {spec}: read rows: {err}"
            );
            assert!(!out.exists());
        }
    }
}
