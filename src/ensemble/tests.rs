use super::*;
use crate::data::{Between, Dataset};
use crate::sample::Sample;
use rand::RngExt;

fn data(n: usize, k: u32, seed: u64) -> Dataset {
    let mut r = rng::stream(seed, 0);
    let rows: Vec<Vec<f64>> = (0..n)
        .map(|_| (0..4).map(|_| r.random_range(0..30) as f64).collect())
        .collect();
    let y = rows
        .iter()
        .map(|x| {
            if x[0] + x[1] > 40.0 {
                1 + (x[2] > 20.0 && k > 2) as u32
            } else {
                0
            }
        })
        .collect();
    Dataset::from_rows(rows, y, (0..k).map(|c| format!("c{c}")).collect()).unwrap()
}

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

#[test]
fn bit_identical_for_one_and_two_threads() {
    let ds = data(300, 3, 1);
    for bag in [
        Bagging::forest(12),
        Bagging::rdt(6),
        Bagging::new(8, Arc::new(Tree::default()), Arc::new(Bootstrap::default())),
    ] {
        let a = in_pool(1, || bag.fit_with_oob(&ds, 3).unwrap());
        let b = in_pool(2, || bag.fit_with_oob(&ds, 3).unwrap());
        assert_eq!(a, b, "{}", bag.name());
        let pa = in_pool(1, || a.0.predict_proba(&ds).unwrap());
        let pb = in_pool(2, || b.0.predict_proba(&ds).unwrap());
        assert_eq!(pa, pb);
        // Another seed gives another ensemble.
        assert_ne!(bag.fit_dataset(&ds, 4).unwrap(), a.0);
    }
}

#[test]
fn absent_class_in_bags_keeps_k_columns() {
    // Class 2 has two rows: many bootstrap bags miss it.
    let mut ds = data(100, 2, 2);
    ds = ds
        .append(&[1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0], &[1, 1])
        .unwrap();
    let y: Vec<u32> = (0..ds.n_rows())
        .map(|i| if i >= 100 { 2 } else { ds.label(i) as u32 })
        .collect();
    let x = ds.features().to_vec();
    let ds = Dataset::from_rows(
        x.chunks(4).map(<[f64]>::to_vec).collect(),
        y,
        vec!["a".into(), "b".into(), "c".into()],
    )
    .unwrap();
    let m = Bagging::forest(20).fit_dataset(&ds, 1).unwrap();
    // Member i draws its bootstrap first from stream (1, i).
    assert!(
        (0..20).any(|i| Bootstrap::default()
            .resample(&ds, &mut rng::stream(1, i))
            .unwrap()
            .keep_rates[2]
            == 0.0),
        "some bag should miss class 2"
    );
    let p = m.predict_proba(&ds).unwrap();
    assert_eq!((p.n_rows(), p.n_classes()), (102, 3));
    for i in 0..p.n_rows() {
        assert!((p.row(i).iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }
    for i in 0..m.members().len() {
        assert_eq!(m.member_proba(i, &ds).unwrap().n_classes(), 3);
    }
}

#[test]
fn keep_rates_are_the_members_samples() {
    let ds = data(200, 2, 3);
    let under = crate::sample::RandomUnder::beta(0.5);
    let bag = Bagging::new(5, Arc::new(Tree::default()), Arc::new(under.clone()));
    let m = bag.fit_dataset(&ds, 11).unwrap();
    for (i, r) in m.keep_rates().iter().enumerate() {
        let s = under.resample(&ds, &mut rng::stream(11, i as u64)).unwrap();
        assert_eq!(r, &s.keep_rates);
    }
    // A bootstrap keeps the priors: no shift to undo, whatever its counts.
    let m = Bagging::forest(5).fit_dataset(&ds, 11).unwrap();
    assert!(m.keep_rates().iter().all(|r| r == &vec![1.0, 1.0]));
    let s = Bootstrap::default()
        .resample(&ds, &mut rng::stream(11, 0))
        .unwrap();
    assert_ne!(s.keep_rates, vec![1.0, 1.0]);
}

#[test]
fn soft_vote_is_the_renormalised_member_average() {
    let ds = data(150, 2, 4);
    let m = Bagging::forest(7).fit_dataset(&ds, 2).unwrap();
    let p = m.predict_proba(&ds).unwrap();
    let members: Vec<Proba> = (0..7).map(|i| m.member_proba(i, &ds).unwrap()).collect();
    for i in 0..ds.n_rows() {
        for c in 0..2 {
            let avg: f64 = members.iter().map(|q| q.row(i)[c]).sum::<f64>() / 7.0;
            assert!((p.row(i)[c] - avg).abs() < 1e-12);
        }
    }
    // The hook sees every member with its keep rates.
    let q = m.predict_proba_with(&ds, |_, _, _| {}).unwrap();
    assert_eq!(p, q);
    let only_first = m
        .predict_proba_with(&ds, |i, r, p| {
            assert_eq!(r.len(), 2);
            if i > 0 {
                p.iter_mut().for_each(|v| *v = 0.0);
            }
        })
        .unwrap();
    let first = m.member_proba(0, &ds).unwrap();
    for i in 0..ds.n_rows() {
        assert!((only_first.row(i)[1] - first.row(i)[1]).abs() < 1e-12);
    }
}

#[test]
fn hard_vote_counts_members() {
    let ds = data(150, 2, 5);
    let mut bag = Bagging::forest(8);
    bag.vote = Vote::Hard;
    let p = bag.fit_dataset(&ds, 1).unwrap().predict_proba(&ds).unwrap();
    for v in p.values() {
        assert_eq!((v * 8.0).round(), v * 8.0);
    }
}

#[test]
fn out_of_bag_uses_only_members_that_did_not_see_the_row() {
    let ds = data(200, 2, 6);
    let (m, oob) = Bagging::forest(30).fit_with_oob(&ds, 5).unwrap();
    let mean = oob.n_members.iter().map(|&v| v as f64).sum::<f64>() / 200.0;
    assert!(
        (mean - 30.0 * 0.366).abs() < 3.0,
        "mean out-of-bag members {mean}"
    );
    let correct = (0..200)
        .filter(|&i| oob.proba.argmax()[i] == ds.label(i))
        .count();
    assert!(correct > 150, "{correct} of 200");
    // Out-of-bag estimates are worse than the (over-fitted) training fit.
    let train = m.predict_proba(&ds).unwrap();
    let train_correct = (0..200)
        .filter(|&i| train.argmax()[i] == ds.label(i))
        .count();
    assert!(train_correct >= correct);
}

/// A sampler that adds, for each minority row, a row a tenth of the way at
/// most towards the next minority row.
#[derive(Debug)]
struct Jitter;

impl Sampler for Jitter {
    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        let mut s = Sample::of_rows(data, (0..data.n_rows()).collect());
        let minority = data.rows_of_class(1);
        for (k, &from) in minority.iter().enumerate() {
            s.synthetic.push(Between {
                from,
                to: minority[(k + 1) % minority.len()],
                gap: rng.random::<f64>() * 0.1,
            });
            s.synthetic_labels.push(1);
        }
        s.keep_rates = s.compute_keep_rates(data);
        Ok(s)
    }
    fn name(&self) -> String {
        "jitter".into()
    }
}

#[test]
fn synthetic_samples_are_materialised() {
    let ds = data(120, 2, 7);
    let bag = Bagging::new(4, Arc::new(Tree::default()), Arc::new(Jitter));
    let m = bag.fit_dataset(&ds, 1).unwrap();
    assert_eq!(m.keep_rates()[0], vec![1.0, 2.0]);
    let p = m.predict_proba(&ds).unwrap();
    assert_eq!(p.n_rows(), 120);
}

#[test]
fn errors_and_learner_use() {
    let ds = data(60, 2, 8);
    assert!(Bagging::forest(0).fit_dataset(&ds, 1).is_err());
    let one =
        Dataset::from_rows(vec![vec![1.0]; 3], vec![0; 3], vec!["a".into(), "b".into()]).unwrap();
    assert!(Bagging::forest(2).fit_dataset(&one, 1).is_err());
    // As a learner on a view (a cross-validation fold).
    let rows: Vec<usize> = (0..60).step_by(2).collect();
    let m = Bagging::forest(3)
        .fit(&ds.view(&rows), &mut rng::stream(1, 1))
        .unwrap();
    assert_eq!(m.predict_proba(&ds).unwrap().n_rows(), 60);
    assert_eq!(
        Bagging::rdt(10).name(),
        "bagging(n=10,learner=random_tree,sample=none)"
    );
    let wrong =
        Dataset::from_rows(vec![vec![1.0, 2.0]], vec![0], vec!["a".into(), "b".into()]).unwrap();
    assert!(m.predict_proba(&wrong).is_err());
}

#[test]
fn learner_class_weights_join_the_members_keep_rates() {
    use crate::learn::gbdt::Gbdt;
    let d = data(300, 2, 4);
    let g = Gbdt {
        rounds: 3,
        scale_pos_weight: Some(3.0),
        ..Gbdt::default()
    };
    let bag = Bagging::new(2, Arc::new(g), Arc::new(NoResampling));
    let m = bag.fit_dataset(&d, 1).unwrap();
    assert_eq!(m.keep_rates(), &[vec![1.0, 3.0], vec![1.0, 3.0]]);
}

#[test]
fn forest_importances_average_the_trees() {
    let d = data(400, 2, 5);
    let m = Bagging::forest(8).fit_dataset(&d, 2).unwrap();
    let each: Vec<_> = m
        .members()
        .iter()
        .map(|t| t.importances().unwrap())
        .collect();
    let imp = m.importances().unwrap();
    assert_eq!(imp, crate::learn::Importances::over_members(&each));
    assert!((imp.values.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    assert!(
        imp.values[0] > 0.2 && imp.std.iter().any(|&s| s > 0.0),
        "{imp:?}"
    );
    assert_eq!(imp.members, 8);
}

#[test]
fn a_member_count_that_cannot_fit_is_refused_before_training() {
    let ds = data(40, 2, 1);
    let bag = Bagging::new(
        1 << 40,
        Arc::new(Tree::default()),
        Arc::new(Bootstrap::default()),
    );
    let e = bag.fit_dataset(&ds, 1).unwrap_err().to_string();
    assert!(
        e.contains("n=1099511627776 is invalid") && e.contains("would need"),
        "{e}"
    );
}

#[test]
fn a_few_rows_hooked_row_by_row_equal_the_leaf_tables() {
    // Fewer rows than leaves: each tree's leaf probabilities go through the
    // hook row by row instead of a table per tree; the values are the
    // same bits as those of the tables a large batch builds.
    let ds = data(400, 3, 6);
    let m = Bagging::forest(10).fit_dataset(&ds, 5).unwrap();
    let hook = |i: usize, _: &[f64], p: &mut [f64]| {
        p.iter_mut()
            .enumerate()
            .for_each(|(c, v)| *v = (*v + 0.01 * (i + c) as f64) / 1.07);
    };
    let all = m.predict_proba_with(&ds, hook).unwrap();
    for rows in [vec![0], vec![5, 17, 399], (0..9).collect()] {
        let few = m.predict_proba_with(&ds.take(&rows), hook).unwrap();
        for (j, &r) in rows.iter().enumerate() {
            let (a, b) = (few.row(j), all.row(r));
            assert!(
                a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()),
                "row {r}: {a:?} vs {b:?}"
            );
        }
    }
}

#[test]
fn every_ensemble_with_member_keep_rates_passes_members_through_the_hook() {
    // `+correct(mode=member)` reaches each member through
    // `predict_proba_members`: an ensemble that reports its members' keep
    // rates but combines without the hook would silently skip the
    // correction. A hook that makes every member vote for class 0 must
    // make the whole ensemble say class 0.
    let ds = data(200, 2, 9);
    let rows: Vec<usize> = (0..ds.n_rows()).collect();
    let mut with_members = Vec::new();
    for e in registry::ENSEMBLES {
        let has_n = (e.entry.params)().iter().any(|p| p.name == "n");
        let spec = if has_n {
            format!("{}(n=3)", e.entry.name)
        } else {
            e.entry.name.to_string()
        };
        let call = &crate::params::syntax::parse(&spec).unwrap()[0];
        let learner = (e.entry.build)(call).unwrap();
        let model = learner
            .fit(&ds.view(&rows), &mut rng::stream(4, 0))
            .unwrap();
        let Some(rates) = model.member_keep_rates() else {
            continue;
        };
        assert!(!rates.is_empty(), "{spec}: no members");
        let hooked = model
            .predict_proba_members(&ds, &|_, _, p| {
                p.iter_mut()
                    .enumerate()
                    .for_each(|(c, v)| *v = (c == 0) as u8 as f64)
            })
            .unwrap();
        for j in 0..ds.n_rows() {
            assert_eq!(
                hooked.row(j),
                &[1.0, 0.0],
                "{spec}: row {j} missed the hook"
            );
        }
        with_members.push(e.entry.name);
    }
    for name in [
        "forest",
        "bagging",
        "eb-bagging",
        "pt-bagging",
        "under-bagging",
    ] {
        assert!(
            with_members.contains(&name),
            "{name} reports no member keep rates"
        );
    }
}

#[test]
fn default_decisions_live_in_the_ensemble_entries() {
    use crate::decide::{Decision, Rule};
    for e in registry::ENSEMBLES {
        assert_eq!(
            registry::default_decision(e.entry.name),
            e.decision,
            "{}",
            e.entry.name
        );
    }
    assert_eq!(registry::default_decision("pt-bagging"), Decision::Priors);
    assert_eq!(registry::default_decision("easy-ensemble"), Decision::Half);
    assert_eq!(
        registry::default_decision("forest"),
        Decision::Rule(Rule::Argmax)
    );
    assert_eq!(
        registry::default_decision("logistic"),
        Decision::Rule(Rule::Argmax)
    );
}
