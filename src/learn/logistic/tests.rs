//! The sign constraints of `logistic(signs=[...])`: exact signs, the
//! constrained optimum, inactive constraints, refused inputs.

use super::*;
use crate::data::{ColumnEncoding, Dataset, Schema};
use crate::params::syntax::parse_value;
use rand::RngExt;

/// `n` rows of `d` standard normal features where `x1 = x0 + noise` and
/// the log-odds are `2 x1 - x0 + 0.5 x2 - 1` (plus `0.1 x_j` for the
/// rest), so x0's coefficient is negative given x1.
fn table(n: usize, d: usize, seed: u64) -> Dataset {
    let mut rng = crate::rng::stream(seed, 0);
    let normal = |rng: &mut crate::rng::Rng| {
        let (u, v): (f64, f64) = (rng.random(), rng.random());
        (-2.0 * (1.0 - u).ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    };
    let mut rows = Vec::with_capacity(n);
    let mut y = Vec::with_capacity(n);
    for _ in 0..n {
        let mut x: Vec<f64> = (0..d).map(|_| normal(&mut rng)).collect();
        x[1] = x[0] + 0.5 * x[1];
        let mut z = 2.0 * x[1] - x[0] + 0.5 * x[2] - 1.0;
        z += x[3..].iter().map(|v| 0.1 * v).sum::<f64>();
        let u: f64 = rng.random();
        y.push(u32::from(u < sigmoid(z)));
        rows.push(x);
    }
    Dataset::from_rows(rows, y, vec!["n".into(), "p".into()]).unwrap()
}

fn signs(text: &str) -> Monotone {
    Monotone::from_value(&parse_value(text).unwrap()).unwrap()
}

fn tight(text: &str) -> Logistic {
    Logistic {
        tol: 1e-10,
        max_iter: 1000,
        signs: signs(text),
        ..Logistic::default()
    }
}

fn try_fit(l: &Logistic, ds: &Dataset) -> Result<LogisticModel> {
    let rows: Vec<usize> = (0..ds.n_rows()).collect();
    let m = l.fit(&ds.view(&rows), &mut crate::rng::stream(0, 0))?;
    Ok(m.downcast_ref::<LogisticModel>().unwrap().clone())
}

fn fit(l: &Logistic, ds: &Dataset) -> LogisticModel {
    try_fit(l, ds).unwrap()
}

/// The table without feature `drop`.
fn without(ds: &Dataset, drop: usize) -> Dataset {
    let rows = (0..ds.n_rows())
        .map(|i| {
            let mut r = ds.row(i).to_vec();
            r.remove(drop);
            r
        })
        .collect();
    let y = (0..ds.n_rows()).map(|i| ds.label(i) as u32).collect();
    Dataset::from_rows(rows, y, vec!["n".into(), "p".into()]).unwrap()
}

/// The positive class's probability for rows `0..40` of `ds` with column
/// `j` swept over 50 values across its range: every sweep, in order.
fn sweeps(m: &LogisticModel, ds: &Dataset, j: usize) -> Vec<Vec<f64>> {
    let col: Vec<f64> = (0..ds.n_rows()).map(|i| ds.row(i)[j]).collect();
    let lo = col.iter().cloned().fold(f64::INFINITY, f64::min) - 1.0;
    let hi = col.iter().cloned().fold(f64::NEG_INFINITY, f64::max) + 1.0;
    (0..40)
        .map(|i| {
            let rows: Vec<Vec<f64>> = (0..50)
                .map(|s| {
                    let mut r = ds.row(i).to_vec();
                    r[j] = lo + (hi - lo) * s as f64 / 49.0;
                    r
                })
                .collect();
            let sweep = Dataset::from_rows(rows, vec![0; 50], vec!["n".into(), "p".into()]);
            let p = m.predict_proba(&sweep.unwrap()).unwrap();
            (0..50).map(|s| p.row(s)[1]).collect()
        })
        .collect()
}

/// The gradient of scikit-learn's objective `C sum_i loss_i + ||beta||^2 / 2`
/// with respect to each coefficient at `m`'s fit of `ds`.
fn gradient(m: &LogisticModel, ds: &Dataset, c: f64) -> Vec<f64> {
    let p = m.predict_proba(ds).unwrap();
    let mut g: Vec<f64> = m.coef().to_vec();
    for i in 0..ds.n_rows() {
        let r = c * (p.row(i)[1] - (ds.label(i) == 1) as u8 as f64);
        for (gj, x) in g.iter_mut().zip(ds.row(i)) {
            *gj += r * x;
        }
    }
    g
}

#[test]
fn a_sign_holds_exactly_and_the_probability_never_falls() {
    for d in [3, 60] {
        let ds = table(2000, d, 7);
        let free = fit(&Logistic::default(), &ds);
        assert!(free.coef()[0] < -0.1, "d={d}: {:?}", &free.coef()[..3]);
        assert!(free.coef()[1] > 0.1, "d={d}: {:?}", &free.coef()[..3]);
        let up = fit(
            &Logistic {
                signs: signs("[x0:1]"),
                ..Logistic::default()
            },
            &ds,
        );
        assert!(up.coef()[0] >= 0.0, "d={d}: {}", up.coef()[0]);
        for s in sweeps(&up, &ds, 0) {
            assert!(s.windows(2).all(|w| w[1] >= w[0]), "d={d}: {s:?}");
        }
        let down = fit(
            &Logistic {
                signs: signs("[x1:-1]"),
                ..Logistic::default()
            },
            &ds,
        );
        assert!(down.coef()[1] <= 0.0, "d={d}: {}", down.coef()[1]);
        for s in sweeps(&down, &ds, 1) {
            assert!(s.windows(2).all(|w| w[1] <= w[0]), "d={d}: {s:?}");
        }
    }
}

#[test]
fn an_active_sign_gives_the_fit_without_its_column_and_meets_kkt() {
    // d = 3: projected Newton; d = 60: projected L-BFGS.
    for d in [3, 60] {
        let ds = table(2000, d, 7);
        let m = fit(&tight("[x0:1]"), &ds);
        assert_eq!(m.coef()[0], 0.0, "d={d}");
        assert!(m.coef()[0].is_sign_positive(), "d={d}: -0.0");
        let reference = fit(&tight("[]"), &without(&ds, 0));
        for (a, b) in m.coef()[1..].iter().zip(reference.coef()) {
            assert!((a - b).abs() < 1e-6, "d={d}: {a} vs {b}");
        }
        let (a, b) = (m.intercept()[0], reference.intercept()[0]);
        assert!((a - b).abs() < 1e-6, "d={d}: intercept {a} vs {b}");
        // KKT at the bound beta_0 >= 0: raising beta_0 would raise the
        // objective (gradient > 0); every free coordinate is stationary.
        let g = gradient(&m, &ds, 1.0);
        assert!(g[0] > 1.0, "d={d}: {}", g[0]);
        for (j, gj) in g.iter().enumerate().skip(1) {
            assert!(gj.abs() < 1e-5, "d={d}: gradient {j} is {gj}");
        }
    }
}

#[test]
fn an_inactive_sign_gives_the_unconstrained_fit() {
    for d in [3, 60] {
        let ds = table(2000, d, 11);
        let free = fit(&tight("[]"), &ds);
        let m = fit(&tight("[x1:1, x2:1, x0:0]"), &ds);
        assert!(m.coef()[1] > 0.0 && m.coef()[2] > 0.0);
        for (a, b) in m.coef().iter().zip(free.coef()) {
            assert!((a - b).abs() < 1e-8, "d={d}: {a} vs {b}");
        }
        let (a, b) = (m.intercept()[0], free.intercept()[0]);
        assert!((a - b).abs() < 1e-8, "d={d}: {a} vs {b}");
    }
    // No constraint at all is the unconstrained code path, bit for bit.
    let ds = table(500, 3, 3);
    let zero = fit(
        &Logistic {
            signs: signs("[x0:0]"),
            ..Logistic::default()
        },
        &ds,
    );
    assert_eq!(zero, fit(&Logistic::default(), &ds));
}

#[test]
fn bad_signs_are_refused_clearly() {
    let ds = table(200, 3, 1);
    let e = try_fit(&tight("[zz:1]"), &ds).unwrap_err().to_string();
    assert!(
        e.contains("logistic signs: no column named zz") && e.contains("x0, x1, x2"),
        "{e}"
    );
    // A one-hot column has no order.
    let mut schema = Schema::numeric(
        vec!["a".into(), "c=x".into(), "c=y".into()],
        vec!["n".into(), "p".into()],
    );
    schema.encodings = vec![
        ColumnEncoding::Numeric { name: "a".into() },
        ColumnEncoding::OneHot {
            name: "c".into(),
            levels: vec!["x".into(), "y".into()],
        },
    ];
    let x: Vec<f64> = (0..20)
        .flat_map(|i| [i as f64, (i % 2) as f64, 1.0 - (i % 2) as f64])
        .collect();
    let y: Vec<u32> = (0..20).map(|i| u32::from(i >= 10)).collect();
    let cat = Dataset::new(x, y, schema).unwrap();
    let e = try_fit(&tight("[c:1]"), &cat).unwrap_err().to_string();
    assert!(e.contains("categorical"), "{e}");
    assert!(try_fit(&tight("[a:1]"), &cat).is_ok());
    // Three classes.
    let rows: Vec<Vec<f64>> = (0..30).map(|i| vec![i as f64, (i % 7) as f64]).collect();
    let y: Vec<u32> = (0..30).map(|i| (i / 10) as u32).collect();
    let three = Dataset::from_rows(rows, y, vec!["a".into(), "b".into(), "c".into()]).unwrap();
    let e = try_fit(&tight("[x0:1]"), &three).unwrap_err().to_string();
    assert!(e.contains("3 classes"), "{e}");
    assert!(try_fit(&tight("[x0:0]"), &three).is_ok());
}

#[test]
fn signs_is_a_parameter_and_old_settings_read_without_it() {
    let parsed = |t: &str| {
        crate::params::from_call::<Logistic>(&crate::params::syntax::parse(t).unwrap()[0])
    };
    let l = parsed("logistic(signs=[x0:1, 'x 1':-1])").unwrap();
    assert_eq!(l.name(), "logistic(c=1,signs=[x0:1,'x 1':-1])");
    let e = parsed("logistic(signs=[x0:2])").unwrap_err();
    assert!(e.to_string().contains("direction 2"), "{e}");
    assert_eq!(Logistic::default().name(), "logistic(c=1)");
    let mut v = serde_json::to_value(Logistic::default()).unwrap();
    v.as_object_mut().unwrap().remove("signs");
    let back: Logistic = serde_json::from_value(v).unwrap();
    assert_eq!(back, Logistic::default());
}
