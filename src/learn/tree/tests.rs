use super::*;
use crate::data::Dataset;
use crate::learn::Classifier;
use crate::params::Params;
use crate::rng;
use rand::RngExt;

fn names(k: usize) -> Vec<String> {
    (0..k).map(|c| format!("c{c}")).collect()
}

fn fit(t: &dyn Learner, ds: &Dataset) -> TreeModel {
    let rows: Vec<usize> = (0..ds.n_rows()).collect();
    let m = t.fit(&ds.view(&rows), &mut rng::stream(5, 0)).unwrap();
    m.downcast_ref::<TreeModel>().expect("a tree").clone()
}

fn random_data(n: usize, d: usize, k: u32, levels: u32, seed: u64) -> Dataset {
    let mut r = rng::stream(seed, 0);
    let rows = (0..n)
        .map(|_| (0..d).map(|_| r.random_range(0..levels) as f64).collect())
        .collect();
    let y = (0..n).map(|_| r.random_range(0..k)).collect();
    Dataset::from_rows(rows, y, names(k as usize)).unwrap()
}

#[test]
fn pure_node_is_one_leaf() {
    let ds = Dataset::from_rows(
        vec![vec![1.0], vec![2.0], vec![3.0]],
        vec![1, 1, 1],
        names(2),
    )
    .unwrap();
    let m = fit(&Tree::default(), &ds);
    assert_eq!(m.nodes().len(), 1);
    assert_eq!(m.leaf_counts(0), &[0.0, 3.0]);
    assert_eq!(m.leaf_proba(&[9.0]), &[0.0, 1.0]);
}

#[test]
fn all_equal_features_give_class_frequencies() {
    let ds = Dataset::from_rows(vec![vec![4.0, 4.0]; 4], vec![0, 1, 1, 1], names(2)).unwrap();
    for t in [Tree::default(), Tree::c45()] {
        let m = fit(&t, &ds);
        assert_eq!(m.n_leaves(), 1);
        assert_eq!(m.leaf_proba(&[0.0, 0.0]), &[0.25, 0.75]);
    }
}

#[test]
fn single_row() {
    let ds = Dataset::from_rows(vec![vec![1.0, 2.0]], vec![0], names(3)).unwrap();
    let m = fit(&Tree::default(), &ds);
    assert_eq!(m.leaf_proba(&[5.0, 5.0]), &[1.0, 0.0, 0.0]);
    let r = fit(&RandomTree::default(), &ds);
    assert_eq!(r.leaf_proba(&[5.0, 5.0]), &[1.0, 0.0, 0.0]);
}

#[test]
fn zero_weights_are_ignored_and_all_zero_is_an_error() {
    let base = Dataset::from_rows(
        vec![vec![0.0], vec![1.0], vec![1.0], vec![2.0]],
        vec![0, 0, 1, 1],
        names(2),
    )
    .unwrap();
    let ds = base.clone().with_weights(vec![1.0, 0.0, 2.0, 1.0]).unwrap();
    let m = fit(&Tree::default(), &ds);
    // Without row 1, x <= 0.5 is class 0, the rest class 1 with weight 3.
    assert_eq!(m.n_leaves(), 2);
    assert_eq!(m.leaf_proba(&[1.0]), &[0.0, 1.0]);
    let total: f64 = (0..m.n_leaves())
        .map(|l| m.leaf_counts(l).iter().sum::<f64>())
        .sum();
    assert_eq!(total, 4.0);
    // A table whose every weight is zero is refused; rows of weight zero
    // only (a view, e.g. a bootstrap sample) cannot fit a tree.
    let e = base.clone().with_weights(vec![0.0; 4]).unwrap_err();
    assert!(e.to_string().contains("every weight is zero"), "{e}");
    let zero = base.with_weights(vec![0.0, 0.0, 0.0, 1.0]).unwrap();
    let rows = [0, 1, 2];
    let e = Tree::default()
        .fit(&zero.view(&rows), &mut rng::stream(0, 0))
        .unwrap_err();
    assert!(e.to_string().contains("positive weight"), "{e}");
}

#[test]
fn max_features_edge_values() {
    let ds = random_data(60, 4, 2, 5, 1);
    let zero = Tree {
        max_features: MaxFeatures::Count(0),
        ..Tree::default()
    };
    let rows: Vec<usize> = (0..60).collect();
    assert!(zero.fit(&ds.view(&rows), &mut rng::stream(0, 0)).is_err());
    let frac = Tree {
        max_features: MaxFeatures::Fraction(1.5),
        ..Tree::default()
    };
    assert!(frac.fit(&ds.view(&rows), &mut rng::stream(0, 0)).is_err());
    // More than d is clamped to d: the same tree as all features.
    let many = Tree {
        max_features: MaxFeatures::Count(99),
        ..Tree::default()
    };
    assert_eq!(fit(&many, &ds), fit(&Tree::default(), &ds));
    assert_eq!(MaxFeatures::Log2.resolve(1).unwrap(), 1);
    assert_eq!(MaxFeatures::Fraction(0.01).resolve(10).unwrap(), 1);
    // One random feature per split still grows a tree that fits the data.
    let one = Tree {
        max_features: MaxFeatures::Count(1),
        ..Tree::default()
    };
    let m = fit(&one, &ds);
    assert!(m.n_leaves() > 1);
}

#[test]
fn hand_made_tree_has_exact_leaves_and_first_tie_wins() {
    // x = 0,0,1,1,2,2 with labels 0,0,0,1,1,1: the root splits at 0.5 and 1.5
    // score the same Gini; the first threshold met (0.5) must win.
    let ds = Dataset::from_rows(
        [0.0, 0.0, 1.0, 1.0, 2.0, 2.0]
            .iter()
            .map(|&x| vec![x])
            .collect(),
        vec![0, 0, 0, 1, 1, 1],
        names(2),
    )
    .unwrap();
    let stump = fit(
        &Tree {
            max_depth: Some(1),
            ..Tree::default()
        },
        &ds,
    );
    assert_eq!(stump.nodes()[0].threshold, 0.5);
    assert_eq!(stump.leaf_counts(0), &[2.0, 0.0]);
    assert_eq!(stump.leaf_counts(1), &[1.0, 3.0]);
    let full = fit(&Tree::default(), &ds);
    assert_eq!(full.n_leaves(), 3);
    assert_eq!(full.depth(), 2);
    assert_eq!(full.leaf_proba(&[1.0]), &[0.5, 0.5]);
    assert_eq!(full.leaf_proba(&[2.0]), &[0.0, 1.0]);
    assert_eq!(full.nodes()[2].threshold, 1.5);
}

#[test]
fn unpruned_training_probabilities_are_group_frequencies() {
    // An unpruned tree splits every impure node whose rows differ, so a
    // training row's leaf is pure or holds only copies of its feature vector:
    // either way its probability is the class frequency among the rows
    // sharing its feature vector.
    let ds = random_data(300, 2, 3, 4, 2);
    for t in [
        Tree::default(),
        Tree {
            criterion: Criterion::Entropy,
            ..Tree::default()
        },
        Tree::c45(),
    ] {
        let m = fit(&t, &ds);
        for i in 0..ds.n_rows() {
            let mut freq = [0.0; 3];
            let mut n = 0.0;
            for j in 0..ds.n_rows() {
                if ds.row(j) == ds.row(i) {
                    freq[ds.label(j)] += 1.0;
                    n += 1.0;
                }
            }
            let p = m.leaf_proba(ds.row(i));
            for c in 0..3 {
                assert!(
                    (p[c] - freq[c] / n).abs() < 1e-12,
                    "row {i}: {p:?} vs {freq:?}"
                );
            }
        }
    }
}

/// Brute-force best Gini split of the whole data: (feature, threshold).
fn brute_force_root(ds: &Dataset) -> (usize, f64) {
    let k = ds.n_classes();
    let mut best = (f64::NEG_INFINITY, 0, 0.0);
    for f in 0..ds.n_features() {
        let mut vals: Vec<f64> = (0..ds.n_rows()).map(|i| ds.value(i, f)).collect();
        vals.sort_by(f64::total_cmp);
        vals.dedup();
        for w in vals.windows(2) {
            let t = w[0] / 2.0 + w[1] / 2.0;
            let (mut l, mut r) = (vec![0.0; k], vec![0.0; k]);
            for i in 0..ds.n_rows() {
                if ds.value(i, f) <= t {
                    l[ds.label(i)] += 1.0
                } else {
                    r[ds.label(i)] += 1.0
                }
            }
            let (nl, nr): (f64, f64) = (l.iter().sum(), r.iter().sum());
            let gini = |c: &[f64], n: f64| 1.0 - c.iter().map(|v| (v / n).powi(2)).sum::<f64>();
            let score = -(nl * gini(&l, nl) + nr * gini(&r, nr));
            if score > best.0 + 1e-9 {
                best = (score, f, t);
            }
        }
    }
    (best.1, best.2)
}

#[test]
fn root_split_matches_brute_force() {
    for seed in 0..5 {
        let ds = random_data(200, 3, 2, 50, 10 + seed);
        let m = fit(
            &Tree {
                max_depth: Some(1),
                ..Tree::default()
            },
            &ds,
        );
        let root = m.nodes()[0];
        assert_eq!(
            (root.feature as usize, root.threshold),
            brute_force_root(&ds),
            "seed {seed}"
        );
    }
}

#[test]
fn repeats_in_a_view_act_as_weights() {
    let ds = random_data(80, 3, 2, 6, 3);
    let mut r = rng::stream(9, 9);
    let bag: Vec<usize> = (0..80).map(|_| r.random_range(0..80)).collect();
    let mut counts = vec![0.0; 80];
    bag.iter().for_each(|&i| counts[i] += 1.0);
    let weighted = ds.clone().with_weights(counts).unwrap();
    let a = Tree::default()
        .fit(&ds.view(&bag), &mut rng::stream(0, 0))
        .unwrap();
    let all: Vec<usize> = (0..80).collect();
    let b = Tree::default()
        .fit(&weighted.view(&all), &mut rng::stream(0, 0))
        .unwrap();
    assert_eq!(a, b);
}

#[test]
fn prepared_and_fresh_fits_agree() {
    let ds = random_data(120, 4, 2, 8, 4);
    let t = Tree {
        max_features: MaxFeatures::Sqrt,
        ..Tree::default()
    };
    let prep = t.prepare(&ds).unwrap();
    let rows: Vec<usize> = (0..120).step_by(2).collect();
    let a = t
        .fit_prepared(&prep, &ds.view(&rows), &mut rng::stream(1, 1))
        .unwrap();
    let b = t.fit(&ds.view(&rows), &mut rng::stream(1, 1)).unwrap();
    assert_eq!(a, b);
    // A Prepared from another dataset is not used by mistake.
    let other = random_data(120, 4, 2, 8, 5);
    let c = t
        .fit_prepared(&prep, &other.view(&rows), &mut rng::stream(1, 1))
        .unwrap();
    assert_eq!(
        c,
        t.fit(&other.view(&rows), &mut rng::stream(1, 1)).unwrap()
    );
}

#[test]
fn absent_class_keeps_k_columns() {
    let ds = random_data(90, 2, 3, 5, 6);
    let rows: Vec<usize> = (0..90).filter(|&i| ds.label(i) != 1).collect();
    for l in [&Tree::default() as &dyn Learner, &RandomTree::default()] {
        let m = l.fit(&ds.view(&rows), &mut rng::stream(0, 0)).unwrap();
        let p = m.predict_proba(&ds).unwrap();
        assert_eq!((p.n_rows(), p.n_classes()), (90, 3));
        assert!(p.column(1).iter().all(|&v| v == 0.0));
        for i in 0..90 {
            assert!((p.row(i).iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
    }
}

#[test]
fn stopping_rules_are_respected() {
    let ds = random_data(400, 3, 2, 20, 7);
    let m = fit(
        &Tree {
            max_depth: Some(3),
            ..Tree::default()
        },
        &ds,
    );
    assert!(m.depth() <= 3 && m.depth() > 0);
    let m = fit(
        &Tree {
            min_samples_leaf: 10,
            ..Tree::default()
        },
        &ds,
    );
    for l in 0..m.n_leaves() {
        assert!(m.leaf_counts(l).iter().sum::<f64>() >= 10.0);
    }
    let big = fit(
        &Tree {
            min_samples_split: 50,
            ..Tree::default()
        },
        &ds,
    );
    assert!(big.n_leaves() < fit(&Tree::default(), &ds).n_leaves());
}

#[test]
fn smoothing_options() {
    let ds = Dataset::from_rows(
        vec![vec![0.0], vec![1.0], vec![1.0], vec![1.0]],
        vec![0, 1, 1, 1],
        names(2),
    )
    .unwrap();
    let lap = fit(
        &Tree {
            leaf: LeafEstimate::Laplace,
            ..Tree::default()
        },
        &ds,
    );
    assert_eq!(lap.leaf_proba(&[1.0]), &[0.2, 0.8]);
    let m = fit(
        &Tree {
            leaf: LeafEstimate::MEstimate(4.0),
            ..Tree::default()
        },
        &ds,
    );
    // priors 1/4, 3/4: leaf {0, 3}: (0 + 4/4) / 7, (3 + 3) / 7
    let p = m.leaf_proba(&[1.0]);
    assert!((p[0] - 1.0 / 7.0).abs() < 1e-15 && (p[1] - 6.0 / 7.0).abs() < 1e-15);
}

#[test]
fn random_tree_respects_depth_and_counts_rows() {
    let ds = random_data(500, 6, 2, 100, 8);
    let m = fit(&RandomTree::default(), &ds);
    assert!(
        m.depth() <= 3,
        "default depth is d/2 = 3, got {}",
        m.depth()
    );
    let total: f64 = (0..m.n_leaves())
        .map(|l| m.leaf_counts(l).iter().sum::<f64>())
        .sum();
    assert_eq!(total, 500.0);
    let deep = fit(
        &RandomTree {
            max_depth: Some(40),
            ..RandomTree::default()
        },
        &ds,
    );
    assert!(deep.depth() > 3);
    // Another stream gives another structure.
    let rows: Vec<usize> = (0..500).collect();
    let other = RandomTree::default()
        .fit(&ds.view(&rows), &mut rng::stream(6, 0))
        .unwrap();
    assert_ne!(Model::new(m), other);
}

#[test]
fn names_and_validation() {
    assert_eq!(Tree::default().name(), "tree(criterion=gini)");
    assert_eq!(
        Tree {
            splitter: SplitSearch::Exact,
            ..Tree::default()
        }
        .name(),
        "tree(criterion=gini,splitter=exact)"
    );
    assert_eq!(
        Tree {
            max_depth: Some(0),
            ..Tree::default()
        }
        .check()
        .unwrap_err()
        .to_string(),
        "max_depth=0 is invalid; expected a whole number in [1, 512] or none"
    );
    let m = fit(&Tree::default(), &random_data(50, 2, 2, 5, 9));
    assert!(m.validate().is_ok());
}

fn fit_view(t: &Tree, ds: &Dataset, rows: &[usize], seed: u64) -> TreeModel {
    t.grow(&ds.view(rows), &mut rng::stream(seed, 0)).unwrap()
}

#[test]
fn hist_equals_exact_when_every_value_has_its_own_bin() {
    // 30 levels per feature: one bin per distinct value, so the histogram
    // splitter sees the exact splitter's candidates, thresholds and ties.
    let ds = random_data(400, 5, 3, 30, 21);
    let mut r = rng::stream(4, 4);
    let bag: Vec<usize> = (0..400).map(|_| r.random_range(0..400)).collect();
    let configs = [
        Tree::default(),
        Tree {
            criterion: Criterion::Entropy,
            max_features: MaxFeatures::Sqrt,
            ..Tree::default()
        },
        Tree {
            min_samples_leaf: 3,
            max_depth: Some(6),
            ..Tree::c45()
        },
        Tree {
            max_features: MaxFeatures::Count(2),
            min_samples_split: 5,
            ..Tree::default()
        },
    ];
    for (i, t) in configs.into_iter().enumerate() {
        let exact = Tree {
            splitter: SplitSearch::Exact,
            ..t.clone()
        };
        let hist = Tree {
            splitter: SplitSearch::Hist,
            ..t
        };
        let a = fit_view(&exact, &ds, &bag, i as u64);
        let b = fit_view(&hist, &ds, &bag, i as u64);
        assert!(a.n_leaves() > 5, "config {i}");
        assert_eq!(a, b, "config {i}");
    }
}

#[test]
fn hist_leaves_hold_the_rows_their_thresholds_route() {
    // Continuous features (more distinct values than bins): the thresholds
    // mapped back from bins must route every training row to the leaf whose
    // totals counted it.
    let mut r = rng::stream(8, 1);
    let n = 3000;
    let rows: Vec<Vec<f64>> = (0..n)
        .map(|_| (0..3).map(|_| r.random::<f64>() * 100.0 - 50.0).collect())
        .collect();
    let y: Vec<u32> = rows
        .iter()
        .map(|x| (x[0] + x[1] * 0.5 + r.random::<f64>() * 40.0 > 30.0) as u32)
        .collect();
    let ds = Dataset::from_rows(rows, y, names(2)).unwrap();
    let bins = Binned::new(&ds).unwrap();
    assert_eq!(bins.n_bins(0), MAX_BINS);
    let all: Vec<usize> = (0..n).collect();
    for t in [
        Tree::default(),
        Tree {
            max_features: MaxFeatures::Sqrt,
            min_samples_leaf: 2,
            ..Tree::default()
        },
    ] {
        let m = fit_view(&t, &ds, &all, 3);
        let mut counts = vec![0.0; m.n_leaves() * 2];
        for i in 0..n {
            counts[m.leaf_index(ds.row(i)) * 2 + ds.label(i)] += 1.0;
        }
        for l in 0..m.n_leaves() {
            assert_eq!(&counts[l * 2..l * 2 + 2], m.leaf_counts(l), "leaf {l}");
        }
        for node in m.nodes().iter().filter(|n| !n.is_leaf()) {
            assert!(node.threshold.is_finite());
        }
    }
}

#[test]
fn binning_edge_cases() {
    let n = 1000;
    let rows: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            vec![
                7.5,                                       // constant
                (i as f64).sqrt(),                         // all distinct
                if i % 10 == 0 { i as f64 } else { 0.0 },  // one heavy value
                if i % 2 == 0 { -0.0 } else { 0.0 },       // signed zeros
                if i == 0 { -f64::MAX } else { f64::MAX }, // extremes
            ]
        })
        .collect();
    let y: Vec<u32> = (0..n).map(|i| (i == 0 || i % 7 == 0) as u32).collect();
    let ds = Dataset::from_rows(rows, y, names(2)).unwrap();
    let b = Binned::new(&ds).unwrap();
    // Constant and signed zeros: a single bin.
    for f in [0, 3] {
        assert_eq!(b.n_bins(f), 1, "feature {f}");
        assert!((0..n).all(|i| b.column(f).get(i) == 0));
    }
    assert_eq!(b.bin_range(0, 0), (7.5, 7.5));
    // All distinct: MAX_BINS bins of 3 or 4 rows (1000 / 255 = 3.9).
    assert_eq!(b.n_bins(1), MAX_BINS);
    let mut sizes = vec![0; MAX_BINS];
    (0..n).for_each(|i| sizes[b.column(1).get(i)] += 1);
    assert!(sizes.iter().all(|&s| (3..=5).contains(&s)), "{sizes:?}");
    // Every feature: codes follow the values and bin ranges do not overlap.
    for f in 0..5 {
        for i in 0..n {
            let (lo, hi) = b.bin_range(f, b.column(f).get(i));
            assert!(lo <= ds.value(i, f) && ds.value(i, f) <= hi);
        }
        for bin in 1..b.n_bins(f) {
            assert!(b.bin_range(f, bin - 1).1 < b.bin_range(f, bin).0);
        }
    }
    // The heavy value keeps one bin; the 99 others get their own.
    assert_eq!(b.n_bins(2), 100);
    // Extremes: a finite threshold between them.
    let rows01: Vec<usize> = (0..n).collect();
    let stump = fit_view(
        &Tree {
            max_depth: Some(1),
            ..Tree::default()
        },
        &ds,
        &rows01,
        0,
    );
    assert!(stump.nodes().iter().all(|n| n.threshold.is_finite()));
    // A dataset holds NaN (a missing value), never an infinity.
    assert!(Dataset::from_rows(vec![vec![f64::NAN]], vec![0], names(1)).is_ok());
    assert!(Dataset::from_rows(vec![vec![f64::INFINITY]], vec![0], names(1)).is_err());
    assert!(Binned::with_max_bins(&ds, 1).is_err());
    assert!(Binned::with_max_bins(&ds, 256).is_err());
    let coarse = Binned::with_max_bins(&ds, 4).unwrap();
    assert_eq!(coarse.n_bins(1), 4);
}

#[test]
fn block_walk_finds_each_rows_own_leaf() {
    // Random labels grow a deep, ragged tree: rows reach leaves at very
    // different depths, so lanes hand over rows at different times.
    let ds = random_data(900, 4, 2, 50, 3);
    let m = fit(&Tree::default(), &ds);
    assert!(m.depth() > 10, "depth {}", m.depth());
    let d = 4;
    let mut r = rng::stream(9, 0);
    let mut x: Vec<f64> = (0..700 * d)
        .map(|_| r.random_range(0..52) as f64 - 1.0)
        .collect();
    x[5] = f64::NAN; // a missing value goes its split's way, in both walks
    x[d * 37 + 2] = f64::NAN;
    for rows in [0, 1, 15, 16, 17, 33, 255, 700] {
        let mut out = vec![u32::MAX; rows];
        m.each_leaf(&x[..rows * d], d, rows, |r, l| {
            assert_eq!(out[r], u32::MAX, "row {r} found twice");
            out[r] = l;
        });
        for (i, &l) in out.iter().enumerate() {
            assert_eq!(
                l as usize,
                m.leaf_index(&x[i * d..(i + 1) * d]),
                "{rows} rows, row {i}"
            );
        }
    }
}

#[test]
fn trees_written_before_level_sets_read_back_unchanged() {
    let ds = random_data(400, 3, 2, 5, 9);
    let t = fit(&Tree::default(), &ds);
    assert!(t.nodes().len() > 1);
    // The fields files held before categorical splits, in their order.
    let counts: Vec<f64> = (0..t.n_leaves())
        .flat_map(|l| t.leaf_counts(l).to_vec())
        .collect();
    let old = (
        t.n_features(),
        t.n_classes(),
        t.nodes().to_vec(),
        counts,
        t.leaf_table(),
    );
    let bin: TreeModel = rmp_serde::from_slice(&rmp_serde::to_vec(&old).unwrap()).unwrap();
    assert_eq!(bin, t);
    let mut json = serde_json::to_value(&t).unwrap();
    json.as_object_mut().unwrap().remove("sets");
    let back: TreeModel = serde_json::from_value(json).unwrap();
    assert_eq!(back, t);
    assert_eq!(
        back.predict_proba(&ds).unwrap(),
        t.predict_proba(&ds).unwrap()
    );
}

/// The leaf of row `x`, walking `m`'s nodes by hand: a number left when
/// `<=` the threshold, a missing value by `default_left`.
fn walk_by_hand(m: &TreeModel, x: &[f64]) -> usize {
    let mut i = 0;
    loop {
        let n = m.nodes()[i];
        if n.is_leaf() {
            return n.left as usize;
        }
        let v = x[n.feature as usize];
        let left = if v.is_nan() {
            n.default_left
        } else {
            v <= n.threshold
        };
        i = if left { n.left } else { n.right } as usize;
    }
}

/// A two-class table whose first feature is low for the positives and
/// missing for about half of them (3% of the negatives): the hole carries
/// the label. The other `d - 1` features are noise, a fifth of their
/// values missing at random.
fn missing_where_positive(n: usize, d: usize, seed: u64) -> Dataset {
    let mut r = rng::stream(seed, 0);
    let (mut rows, mut y) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let pos = r.random::<f64>() < 0.2;
        let x0 = match pos {
            true => r.random::<f64>() * 0.4,
            false => 0.3 + r.random::<f64>() * 0.7,
        };
        let hole = r.random::<f64>() < if pos { 0.5 } else { 0.03 };
        let mut row = vec![if hole { f64::NAN } else { x0 }];
        for _ in 1..d {
            let v = (r.random::<f64>() * 20.0).floor();
            row.push(if r.random::<f64>() < 0.2 { f64::NAN } else { v });
        }
        rows.push(row);
        y.push(u32::from(pos));
    }
    Dataset::from_rows(rows, y, names(2)).unwrap()
}

#[test]
fn every_splitter_sends_missing_values_the_better_way() {
    let ds = missing_where_positive(2000, 2, 1);
    for splitter in [SplitSearch::Hist, SplitSearch::Exact] {
        for missing in [MissingSplits::Mia, MissingSplits::Direction] {
            let stump = Tree {
                max_depth: Some(1),
                splitter,
                missing_split: missing,
                ..Tree::default()
            };
            let m = fit(&stump, &ds);
            let root = m.nodes()[0];
            assert_eq!(root.feature, 0, "{splitter:?} {missing:?}");
            assert!(root.default_left && root.threshold < 0.4, "{root:?}");
        }
    }
    // Both splitters see the same candidates when every value has a bin.
    let small = missing_where_positive(300, 3, 2);
    let (hist, exact) = (
        fit(&Tree::default(), &small),
        fit(
            &Tree {
                splitter: SplitSearch::Exact,
                ..Tree::default()
            },
            &small,
        ),
    );
    assert_eq!(hist.nodes().len(), exact.nodes().len());
    for i in 0..small.n_rows() {
        assert_eq!(
            hist.leaf_proba(small.row(i)),
            exact.leaf_proba(small.row(i))
        );
    }
}

#[test]
fn mia_splits_the_observed_values_from_the_missing_ones() {
    // Only the hole carries the label: the observed values are noise.
    let mut r = rng::stream(4, 0);
    let (mut rows, mut y) = (Vec::new(), Vec::new());
    for _ in 0..1000 {
        let pos = r.random::<f64>() < 0.3;
        let hole = r.random::<f64>() < if pos { 0.9 } else { 0.05 };
        rows.push(vec![if hole { f64::NAN } else { r.random::<f64>() }]);
        y.push(u32::from(pos));
    }
    let ds = Dataset::from_rows(rows, y, names(2)).unwrap();
    for splitter in [SplitSearch::Hist, SplitSearch::Exact] {
        let stump = |missing| Tree {
            max_depth: Some(1),
            splitter,
            missing_split: missing,
            ..Tree::default()
        };
        let mia = fit(&stump(MissingSplits::Mia), &ds);
        let root = mia.nodes()[0];
        assert_eq!((root.threshold, root.default_left), (f64::MAX, false));
        // Every number left, every hole right.
        let holes = (0..1000).filter(|&i| ds.value(i, 0).is_nan()).count();
        let right = &mia.nodes()[root.right as usize];
        assert_eq!(
            mia.leaf_counts(right.left as usize).iter().sum::<f64>(),
            holes as f64
        );
        let direction = fit(&stump(MissingSplits::Direction), &ds);
        assert!(direction.nodes()[0].threshold < 1.0);
    }
}

#[test]
fn nan_rows_route_alike_in_every_walk() {
    // The node walk, the scoring layout's lanes (blocks of 16 and more)
    // and one row through eight trees at a time, against a walk by hand.
    let ds = missing_where_positive(1500, 4, 3);
    let mut r = rng::stream(8, 0);
    let d = 4;
    let x: Vec<f64> = (0..400 * d)
        .map(|_| match r.random_range(0..4) {
            0 => f64::NAN,
            _ => (r.random::<f64>() * 20.0).floor() / if r.random::<bool>() { 1.0 } else { 19.0 },
        })
        .collect();
    let trees: Vec<TreeModel> = (0..10)
        .map(|s| {
            let t = Tree {
                max_features: MaxFeatures::Count(2),
                splitter: if s % 2 == 0 {
                    SplitSearch::Hist
                } else {
                    SplitSearch::Exact
                },
                ..Tree::default()
            };
            let rows: Vec<usize> = (0..ds.n_rows()).collect();
            let m = t.fit(&ds.view(&rows), &mut rng::stream(s, 0)).unwrap();
            m.downcast_ref::<TreeModel>().unwrap().clone()
        })
        .chain((0..4).map(|s| {
            let rows: Vec<usize> = (0..ds.n_rows()).collect();
            let m = RandomTree::default()
                .fit(&ds.view(&rows), &mut rng::stream(s, 1))
                .unwrap();
            m.downcast_ref::<TreeModel>().unwrap().clone()
        }))
        .collect();
    let nodes = || trees.iter().flat_map(|t| t.nodes());
    assert!(nodes().any(|n| n.default_left));
    assert!(nodes().any(|n| !n.is_leaf() && !n.default_left));
    for t in &trees {
        for rows in [1, 15, 16, 17, 64, 400] {
            let mut out = vec![u32::MAX; rows];
            t.each_leaf(&x[..rows * d], d, rows, |r, l| out[r] = l);
            for (i, &l) in out.iter().enumerate() {
                let row = &x[i * d..(i + 1) * d];
                let want = walk_by_hand(t, row);
                assert_eq!((l as usize, t.leaf_index(row)), (want, want), "row {i}");
            }
        }
    }
    let refs: Vec<&TreeModel> = trees.iter().collect();
    let mut leaves = vec![0u32; refs.len()];
    for row in x.chunks(d) {
        TreeModel::leaves_of_row(&refs, row, &mut leaves);
        for (t, &l) in refs.iter().zip(&leaves) {
            assert_eq!(l as usize, walk_by_hand(t, row));
        }
    }
}

#[test]
fn without_missing_values_in_training_a_split_sends_them_to_the_heavier_child() {
    // scikit-learn's rule: the child of more rows (weight); a NaN met
    // when scoring follows it.
    let ds = random_data(500, 3, 2, 30, 6);
    for splitter in [SplitSearch::Hist, SplitSearch::Exact] {
        let m = fit(
            &Tree {
                splitter,
                ..Tree::default()
            },
            &ds,
        );
        let mut weight = vec![0.0; m.nodes().len()];
        for i in 0..ds.n_rows() {
            let mut at = 0;
            loop {
                weight[at] += 1.0;
                let n = m.nodes()[at];
                if n.is_leaf() {
                    break;
                }
                at = if ds.value(i, n.feature as usize) <= n.threshold {
                    n.left
                } else {
                    n.right
                } as usize;
            }
        }
        for n in m.nodes().iter().filter(|n| !n.is_leaf()) {
            let (l, r) = (weight[n.left as usize], weight[n.right as usize]);
            assert_eq!(n.default_left, l > r, "{n:?}: {l} vs {r}");
        }
    }
}

#[test]
fn fits_with_missing_values_are_identical_at_any_thread_count() {
    let ds = missing_where_positive(3000, 5, 7);
    let fit_on = |threads: usize, t: &dyn Learner| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| fit(t, &ds))
    };
    let exact = Tree {
        splitter: SplitSearch::Exact,
        ..Tree::default()
    };
    for t in [
        &Tree::default() as &dyn Learner,
        &exact,
        &RandomTree::default(),
    ] {
        assert_eq!(fit_on(1, t), fit_on(2, t));
    }
}

#[test]
fn trees_written_before_default_directions_route_nan_right_as_they_did() {
    let ds = missing_where_positive(600, 3, 9);
    let t = fit(&Tree::default(), &ds);
    assert!(t.nodes().iter().any(|n| n.default_left));
    // The nodes as files held them, without `default_left`.
    let nodes: Vec<(u32, f64, u32, u32)> = t
        .nodes()
        .iter()
        .map(|n| (n.feature, n.threshold, n.left, n.right))
        .collect();
    let counts: Vec<f64> = (0..t.n_leaves())
        .flat_map(|l| t.leaf_counts(l).to_vec())
        .collect();
    let old = (t.n_features(), t.n_classes(), nodes, counts, t.leaf_table());
    let back: TreeModel = rmp_serde::from_slice(&rmp_serde::to_vec(&old).unwrap()).unwrap();
    assert!(back.validate().is_ok());
    assert!(back.nodes().iter().all(|n| !n.default_left));
    let nan = [f64::NAN; 3];
    let mut at = 0;
    while !back.nodes()[at].is_leaf() {
        at = back.nodes()[at].right as usize;
    }
    assert_eq!(back.leaf_index(&nan), back.nodes()[at].left as usize);
    // A leaf that claims a direction is refused.
    let mut bad = serde_json::to_value(&t).unwrap();
    let leaf = t.nodes().iter().position(Node::is_leaf).unwrap();
    bad["nodes"][leaf]["default_left"] = serde_json::json!(true);
    let bad: TreeModel = serde_json::from_value(bad).unwrap();
    assert!(bad.validate().is_err());
}
