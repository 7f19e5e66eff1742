use super::*;
use rand::RngExt;

use super::walk::Walk;

fn ds(rows: Vec<Vec<f64>>, y: Vec<u32>, k: usize) -> Dataset {
    Dataset::from_rows(rows, y, (0..k).map(|c| c.to_string()).collect()).unwrap()
}

fn all(d: &Dataset) -> Vec<usize> {
    (0..d.n_rows()).collect()
}

fn fit(g: &Gbdt, d: &Dataset) -> Model {
    g.fit(&d.view(&all(d)), &mut crate::rng::stream(3, 0))
        .unwrap()
}

/// A spec call read as the registry does.
fn parsed(s: &str) -> Result<Gbdt> {
    crate::params::from_call(&crate::params::syntax::parse(s)?[0])
}

fn gbdt_of(m: &Model) -> &GbdtModel {
    m.downcast_ref::<GbdtModel>().unwrap()
}

#[test]
fn one_round_by_hand() {
    // Rows x = 0, 1, 2, 3 with classes 0, 0, 1, 1: the initial score is
    // log(2/2) = 0, p = 1/2, g = p - y = +-1/2, h = 1/4. The one split
    // (x <= 1.5) gives leaves with G = +-1, H = 1/2; with l2 = 1 the steps
    // are -+1 / 1.5, times the learning rate 0.5; the gain is
    // 1 / 1.5 + 1 / 1.5 - 0 / 2.
    let d = ds(
        (0..4).map(|i| vec![i as f64]).collect(),
        vec![0, 0, 1, 1],
        2,
    );
    let g = Gbdt {
        rounds: 1,
        learning_rate: 0.5,
        min_samples_leaf: 1,
        l2: 1.0,
        max_delta_step: 0.0,
        ..Gbdt::default()
    };
    let m = fit(&g, &d);
    let t = &gbdt_of(&m).trees()[0];
    assert_eq!(t.nodes.len(), 1);
    assert_eq!((t.nodes[0].feature, t.nodes[0].threshold), (0, 1.5));
    assert_eq!(t.values, vec![-0.5 / 1.5, 0.5 / 1.5]);
    assert!((t.nodes[0].gain - 2.0 / 1.5).abs() < 1e-15);
    let p = m.predict_proba(&d).unwrap();
    let expect = 1.0 / (1.0 + (0.5f64 / 1.5).exp());
    assert!((p.row(0)[1] - expect).abs() < 1e-15 && (p.row(3)[0] - expect).abs() < 1e-15);
    // With the step bounded at 0.2 the leaves move by 0.5 * 0.2.
    let b = fit(
        &Gbdt {
            max_delta_step: 0.2,
            ..g
        },
        &d,
    );
    assert_eq!(gbdt_of(&b).trees()[0].values, vec![-0.1, 0.1]);
}

/// A noisy two-feature task with a rare class (about 10%).
fn noisy(n: usize, k: usize, seed: u64) -> Dataset {
    let mut r = crate::rng::stream(seed, 0);
    let mut rows = Vec::new();
    let mut y = Vec::new();
    for _ in 0..n {
        let a: f64 = r.random_range(0.0..1.0);
        let b: f64 = r.random_range(0.0..1.0);
        let c: f64 = r.random_range(0.0..1.0);
        let class = if k == 2 {
            u32::from(a + 0.3 * b + 0.2 * c > 1.05)
        } else {
            ((a * k as f64) as u32 + u32::from(c > 0.9)).min(k as u32 - 1)
        };
        rows.push(vec![a, b, (c * 10.0).floor()]);
        y.push(class);
    }
    ds(rows, y, k)
}

#[test]
fn more_rounds_lower_the_training_loss_and_multiclass_rows_sum_to_one() {
    for k in [2, 4] {
        let d = noisy(600, k, 1);
        let loss = |rounds| {
            let m = fit(
                &Gbdt {
                    rounds,
                    ..Gbdt::default()
                },
                &d,
            );
            let p = m.predict_proba(&d).unwrap();
            for i in 0..d.n_rows() {
                let s: f64 = p.row(i).iter().sum();
                assert!((s - 1.0).abs() < 1e-12, "row {i} sums to {s}");
            }
            (0..d.n_rows())
                .map(|i| -p.row(i)[d.label(i)].ln())
                .sum::<f64>()
        };
        let (a, b, c) = (loss(1), loss(10), loss(50));
        assert!(a > b && b > c, "k={k}: {a} {b} {c}");
    }
}

#[test]
fn early_stopping_keeps_the_best_round() {
    let d = noisy(800, 2, 2);
    let g = Gbdt {
        rounds: 400,
        learning_rate: 0.5,
        max_leaves: 63,
        min_samples_leaf: 2,
        early_stopping: 5,
        ..Gbdt::default()
    };
    let m = fit(&g, &d);
    let kept = gbdt_of(&m).rounds();
    assert!((1..200).contains(&kept), "kept {kept} rounds");
    // The same fit without early stopping has every round.
    let full = fit(
        &Gbdt {
            early_stopping: 0,
            ..g.clone()
        },
        &d,
    );
    assert_eq!(gbdt_of(&full).rounds(), 400);
    // Too few rows to hold any out is an error, not a silent fit.
    let tiny = ds(vec![vec![0.0], vec![1.0], vec![2.0]], vec![0, 1, 1], 2);
    let e = g.fit(&tiny.view(&all(&tiny)), &mut crate::rng::stream(0, 0));
    assert!(e.unwrap_err().to_string().contains("validation_fraction"));
}

#[test]
fn class_weights_are_row_weights_and_keep_rates() {
    let d = noisy(500, 2, 3);
    let base = Gbdt {
        rounds: 5,
        min_samples_leaf: 1,
        ..Gbdt::default()
    };
    let spw = fit(
        &Gbdt {
            scale_pos_weight: Some(4.0),
            ..base.clone()
        },
        &d,
    );
    let given = fit(
        &Gbdt {
            class_weight: ClassWeight::Given(vec![1.0, 4.0]),
            ..base.clone()
        },
        &d,
    );
    assert_eq!(spw, given);
    assert_eq!(spw.class_weights(), Some(&[1.0, 4.0][..]));
    assert_eq!(fit(&base, &d).class_weights(), None);
    // Weighting the positives by 4 is fitting on rows whose positives carry
    // weight 4.
    let w: Vec<f64> = (0..d.n_rows())
        .map(|i| if d.label(i) == 1 { 4.0 } else { 1.0 })
        .collect();
    let weighted = d.clone().with_weights(w).unwrap();
    let by_rows = fit(&base, &weighted);
    let (a, b) = (
        spw.predict_proba(&d).unwrap(),
        by_rows.predict_proba(&d).unwrap(),
    );
    for (x, y) in a.values().iter().zip(b.values()) {
        assert!((x - y).abs() < 1e-12, "{x} vs {y}");
    }
    // balanced: W / (K W_k).
    let bal = fit(
        &Gbdt {
            class_weight: ClassWeight::Balanced,
            ..base
        },
        &d,
    );
    let c = d.class_counts();
    let n = d.n_rows() as f64;
    let cw = bal.class_weights().unwrap();
    assert!(
        (cw[0] - n / (2.0 * c[0] as f64)).abs() < 1e-12
            && (cw[1] - n / (2.0 * c[1] as f64)).abs() < 1e-12
    );
}

/// [`fit`] in a pool of `threads` threads.
fn fit_on_threads(threads: usize, g: &Gbdt, d: &Dataset) -> Model {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| fit(g, d))
}

#[test]
fn fits_are_identical_at_any_thread_count() {
    let d = noisy(3000, 3, 5);
    let g = Gbdt {
        rounds: 8,
        subsample: 0.7,
        colsample: 0.67,
        early_stopping: 3,
        ..Gbdt::default()
    };
    let one = fit_on_threads(1, &g, &d);
    assert_eq!(one, fit_on_threads(2, &g, &d));
    assert_eq!(one, fit_on_threads(3, &g, &d));
    // Row and column samples differ between seeds.
    let other = g
        .fit(&d.view(&all(&d)), &mut crate::rng::stream(4, 0))
        .unwrap();
    assert_ne!(one, other);
}

#[test]
fn large_fits_on_every_row_are_identical_at_any_thread_count() {
    // Past the sizes at which partitions, gathers and score updates run in
    // parallel blocks; every row in order (the root reads the gradients in
    // place); three classes (gradients and scores kept output by output);
    // rows counted by the hessian (histograms without counts) and as row
    // copies (histograms with them).
    // Exact and quantized gradients (the rounding's draws by position).
    let d = noisy(70_000, 3, 11);
    for leaf_rows in [super::LeafRows::Hessian, super::LeafRows::Rows] {
        for gradients in [GradientSums::Exact, GradientSums::Quantized] {
            let g = Gbdt {
                rounds: 3,
                leaf_rows,
                gradients,
                ..Gbdt::default()
            };
            let one = fit_on_threads(1, &g, &d);
            assert_eq!(
                one,
                fit_on_threads(2, &g, &d),
                "{leaf_rows:?} {gradients:?}"
            );
        }
    }
}

#[test]
fn quantized_fits_rank_as_exact_ones_and_take_exact_steps() {
    let d = noisy(4000, 2, 21);
    let with = |gradients, rounds, max_leaves| Gbdt {
        rounds,
        max_leaves,
        gradients,
        ..Gbdt::default()
    };
    // Subsampled rows and columns and row copies on the quantized path too.
    let q = Gbdt {
        subsample: 0.8,
        colsample: 0.67,
        ..with(GradientSums::Quantized, 3, 31)
    };
    assert_eq!(fit_on_threads(1, &q, &d), fit_on_threads(3, &q, &d));
    // One stump: whatever split the quantized sums pick, each leaf's value
    // is the bounded Newton step of its rows' exact gradients at the
    // initial score (p0 - y and p0 (1 - p0) for every row).
    let m = fit(&with(GradientSums::Quantized, 1, 2), &d);
    let tree = &gbdt_of(&m).trees()[0];
    let node = &tree.nodes[0];
    let y: Vec<f64> = (0..d.n_rows()).map(|i| d.label(i) as f64).collect();
    let p0 = y.iter().sum::<f64>() / y.len() as f64;
    for (side, leaf) in [(true, !node.left as usize), (false, !node.right as usize)] {
        let rows = (0..d.n_rows())
            .filter(|&i| (d.value(i, node.feature as usize) <= node.threshold) == side);
        let (g, h) = rows.fold((0.0, 0.0), |(g, h), i| {
            (
                g + (p0 - y[i]) as f32 as f64,
                h + (p0 * (1.0 - p0)) as f32 as f64,
            )
        });
        let want = 0.1 * (-g / h).clamp(-5.0, 5.0);
        assert!(
            (tree.values[leaf] - want).abs() < 1e-9,
            "{} vs {want}",
            tree.values[leaf]
        );
    }
    // The ranking matches the exact fit's.
    let auc = |g: &Gbdt| {
        let p = fit(g, &d).predict_proba(&d).unwrap();
        let s: Vec<f64> = (0..d.n_rows()).map(|i| p.row(i)[1]).collect();
        let t: Vec<u32> = y.iter().map(|&v| v as u32).collect();
        crate::metrics::ranking::roc_auc(&t, &s, 1).unwrap()
    };
    let (e, q) = (
        auc(&with(GradientSums::Exact, 30, 31)),
        auc(&with(GradientSums::Quantized, 30, 31)),
    );
    assert!((e - q).abs() < 0.005 && q > 0.9, "exact {e} quantized {q}");
}

#[test]
fn bad_parameters_are_rejected_before_any_work() {
    let err = |s: &str| parsed(s).unwrap_err().to_string();
    assert!(err("gbdt(rounds=0)").contains("rounds"));
    assert!(err("gbdt(learning_rate=0)").contains("learning_rate"));
    assert!(err("gbdt(max_leaves=1)").contains("max_leaves"));
    assert!(err("gbdt(bins=256)").contains("bins"));
    assert!(err("gbdt(subsample=0)").contains("subsample"));
    assert!(err("gbdt(colsample=1.5)").contains("colsample"));
    assert!(err("gbdt(validation_fraction=1)").contains("validation_fraction"));
    assert!(err("gbdt(scale_pos_weight=-2)").contains("scale_pos_weight"));
    assert!(err("gbdt(class_weight=balanced,scale_pos_weight=5)").contains("not both"));
    assert!(err("gbdt(class_weight='1,0')").contains("> 0"));
    assert!(err("gbdt(max_delta_step=-1)").contains("max_delta_step"));
    assert!(err("gbdt(gradients=int8)").contains("gradients"));
    // Checks that need the task's class count come before the binning.
    let three = noisy(50, 3, 6);
    let fit_err = |g: Gbdt| {
        g.fit(&three.view(&all(&three)), &mut crate::rng::stream(0, 0))
            .unwrap_err()
            .to_string()
    };
    assert!(fit_err(Gbdt {
        scale_pos_weight: Some(2.0),
        ..Gbdt::default()
    })
    .contains("two classes"));
    assert!(fit_err(Gbdt {
        class_weight: ClassWeight::Given(vec![1.0, 2.0]),
        ..Gbdt::default()
    })
    .contains("2 weights for 3 classes"));
}

#[test]
fn names_list_the_parameters_that_differ_and_read_back() {
    assert_eq!(Gbdt::default().name(), "gbdt");
    let g = Gbdt {
        rounds: 7,
        class_weight: ClassWeight::Balanced,
        ..Gbdt::default()
    };
    assert_eq!(g.name(), "gbdt(rounds=7,class_weight=balanced)");
    assert_eq!(parsed(&g.name()).unwrap(), g);
}

#[test]
fn importances_share_the_gain_and_a_single_class_is_a_constant() {
    let d = noisy(600, 2, 7);
    let m = fit(&Gbdt::default(), &d);
    let imp = m.importances().unwrap();
    assert!((imp.values.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    // The class is mostly the first feature's.
    assert!(
        imp.values[0] > imp.values[1] && imp.values[1] > 0.0,
        "{imp:?}"
    );
    let one = ds(vec![vec![0.0], vec![1.0]], vec![1, 1], 2);
    let c = fit(&Gbdt::default(), &one);
    assert_eq!(c.predict_proba(&one).unwrap().row(0), &[0.0, 1.0]);
    assert_eq!(c.importances().unwrap().values, vec![0.0]);
}

#[test]
fn a_few_separable_positives_get_a_leaf_of_their_own() {
    // 12 positives at x = 0..11 below 200 negatives at x = 12..211: with 20
    // rows per leaf counted as rows, x = 12..19 share the positives' leaf in
    // every tree and tie with them. Counted by their hessian (LightGBM's
    // count), the positives soon weigh enough to be split off, and every
    // positive ranks above every negative.
    let n = 212;
    let d = ds(
        (0..n).map(|i| vec![i as f64]).collect(),
        (0..n).map(|i| u32::from(i < 12)).collect(),
        2,
    );
    let m = fit(&Gbdt::default(), &d);
    let p = m.predict_proba(&d).unwrap().column(1);
    let lowest_positive = p[..12].iter().cloned().fold(f64::INFINITY, f64::min);
    let highest_negative = p[12..].iter().cloned().fold(0.0, f64::max);
    assert!(
        lowest_positive > highest_negative,
        "{lowest_positive} vs {highest_negative}"
    );
    // Some leaf holds fewer than 20 training rows.
    let leaf_rows = |t: &GbdtTree| {
        let mut c = vec![0; t.values.len()];
        (0..n).for_each(|i| c[t.leaf(&[i as f64])] += 1);
        c
    };
    assert!(gbdt_of(&m)
        .trees
        .iter()
        .any(|t| leaf_rows(t).iter().any(|&c| c < 20)));
}

#[test]
fn row_copies_fit_as_repeated_rows() {
    // Bagging hands gbdt a view in which rows repeat: each row's copies
    // weigh its gradients and count towards `min_samples_leaf`. The same
    // rows written out as often (features on a grid of 0.01, one bin per
    // value either way) must give the same model. Three features: one
    // histogram pass of two features and one of a single feature.
    let base = noisy(900, 2, 4);
    let round = |v: f64| (v * 100.0).round() / 100.0;
    let times = |i: usize| 1 + (i * 7) % 3;
    let mut rows = Vec::new();
    let mut y = Vec::new();
    let mut view_rows = Vec::new();
    for i in 0..base.n_rows() {
        for _ in 0..times(i) {
            rows.push((0..3).map(|f| round(base.value(i, f))).collect::<Vec<_>>());
            y.push(base.label(i) as u32);
            view_rows.push(i);
        }
    }
    let grid = ds(
        (0..base.n_rows())
            .map(|i| (0..3).map(|f| round(base.value(i, f))).collect())
            .collect(),
        (0..base.n_rows()).map(|i| base.label(i) as u32).collect(),
        2,
    );
    let repeated = ds(rows, y, 2);
    let g = Gbdt {
        rounds: 20,
        min_samples_leaf: 10,
        ..Gbdt::default()
    };
    let with_copies = g
        .fit(&grid.view(&view_rows), &mut crate::rng::stream(3, 0))
        .unwrap();
    let written_out = fit(&g, &repeated);
    let (a, b) = (
        with_copies.predict_proba(&grid).unwrap(),
        written_out.predict_proba(&grid).unwrap(),
    );
    // The gradients are kept in single precision, and a row's copies scale
    // its gradient before it is rounded where written-out rows are rounded
    // one by one, so splits of nearly equal gain may part. The first tree's
    // first splits (the large gains) are the same; the models are compared
    // by their probabilities: far closer to each other than to the model
    // of the rows taken once each.
    let first = |m: &Model| -> Vec<(u32, f64)> {
        gbdt_of(m).trees()[0].nodes[..8]
            .iter()
            .map(|n| (n.feature, n.threshold))
            .collect()
    };
    assert_eq!(first(&with_copies), first(&written_out));
    let once = fit(&g, &grid).predict_proba(&grid).unwrap();
    let gap = |p: &crate::data::Proba| {
        (0..grid.n_rows())
            .map(|i| (p.row(i)[1] - a.row(i)[1]).abs())
            .sum::<f64>()
            / grid.n_rows() as f64
    };
    let (same, other) = (gap(&b), gap(&once));
    assert!(
        same < 1e-6 && other > 1e-3,
        "copies vs written out {same}, vs once {other}"
    );
}

/// Rows of `d` features: `n` random ones from `seed`, then copies of the
/// first rows with each feature set to NaN, and rows whose values are the
/// model's split thresholds (ties go left).
fn scoring_rows(m: &GbdtModel, n: usize, d: usize, seed: u64) -> Vec<f64> {
    let mut r = crate::rng::stream(seed, 0);
    let mut x: Vec<f64> = (0..n * d).map(|_| r.random::<f64>() * 4.0 - 2.0).collect();
    for j in 0..d {
        let mut row = x[j * d..(j + 1) * d].to_vec();
        row[j] = f64::NAN;
        x.extend(row);
    }
    for node in m.trees().iter().flat_map(|t| &t.nodes).take(200) {
        let mut row = x[..d].to_vec();
        row[node.feature as usize] = node.threshold;
        x.extend(row);
    }
    x
}

#[test]
fn the_flat_walk_scores_bit_identical_to_the_tree_walk() {
    // Binary and three classes, deep and shallow trees; blocks of every
    // length around the walk's groups of 8 and blocks of 64 rows.
    for (k, leaves) in [(2, 31), (3, 7), (2, 2)] {
        let d = 6;
        let mut r = crate::rng::stream(9, k as u64);
        let rows: Vec<Vec<f64>> = (0..600)
            .map(|_| (0..d).map(|_| r.random::<f64>() * 4.0 - 2.0).collect())
            .collect();
        let y: Vec<u32> = rows
            .iter()
            .map(|x| ((x[0] + x[1] * x[2] > 0.5) as u32 + (x[3] > 1.0) as u32).min(k as u32 - 1))
            .collect();
        let data = ds(rows, y, k);
        let g = Gbdt {
            rounds: 40,
            max_leaves: leaves,
            min_samples_leaf: 2,
            ..Gbdt::default()
        };
        let model = fit(&g, &data);
        let m = gbdt_of(&model);
        assert!(
            m.walk.as_ref().is_some_and(|w| w.batched()),
            "a fitted model has its scoring layouts"
        );
        let x = scoring_rows(m, 300, d, k as u64);
        let n = x.len() / d;
        for rows in [1, 7, 8, 9, 63, 64, 65, 200, n] {
            let block = &x[..rows * d];
            let fast = m.scores(block, rows);
            let slow = m.scores_by_tree(block);
            assert_eq!(fast.len(), slow.len());
            for (i, (a, b)) in fast.iter().zip(&slow).enumerate() {
                assert_eq!(
                    a.to_bits(),
                    b.to_bits(),
                    "k={k} rows={rows} score {i}: {a} vs {b}"
                );
            }
        }
    }
}

#[test]
fn set_splits_walk_in_lanes_bit_identical_to_the_tree_walk() {
    // Two categorical features (40 and 300 levels: one- and two-byte
    // bins) and a numeric one, two and three classes; scoring rows hold
    // levels, NaN, unseen and fractional codes, every block length around
    // the groups of 8.
    use crate::data::{ColumnEncoding, Schema};
    for k in [2, 3] {
        let mut r = crate::rng::stream(11, k as u64);
        let (mut x, mut y) = (Vec::new(), Vec::new());
        for _ in 0..3000 {
            let (a, b) = (r.random_range(0..40u32), r.random_range(0..300u32));
            let z: f64 = r.random();
            x.extend([a as f64, b as f64, z]);
            let s = (a % 3 == 0) as u32 + (b % 7 < 2) as u32 + (z > 0.8) as u32;
            y.push(s.min(k as u32 - 1));
        }
        let names = vec!["a".into(), "b".into(), "z".into()];
        let mut schema = Schema::numeric(names, (0..k).map(|c| c.to_string()).collect());
        for (j, levels) in [(0, 40), (1, 300)] {
            schema.encodings[j] = ColumnEncoding::Categorical {
                name: ["a", "b"][j].into(),
                levels: (0..levels).map(|l| format!("l{l}")).collect(),
            };
        }
        let data = Dataset::new(x.clone(), y, schema).unwrap();
        let g = Gbdt {
            rounds: 30,
            max_leaves: 15,
            min_samples_leaf: 5,
            ..Gbdt::default()
        };
        let model = fit(&g, &data);
        let m = gbdt_of(&model);
        assert!(
            m.trees().iter().any(GbdtTree::has_sets),
            "k={k}: set splits"
        );
        let w = m.walk.as_ref().expect("a set model has its lane walk");
        assert!(!w.batched(), "set models have no batch layout");
        let odd = [f64::NAN, 400.0, -1.0, 2.5, 39.0, 299.0];
        for (i, v) in odd.iter().enumerate() {
            x[i * 3 + i % 2] = *v;
        }
        let n = x.len() / 3;
        for rows in [1, 7, 8, 9, 63, 64, 65, 200, n] {
            let block = &x[..rows * 3];
            let fast = m.scores(block, rows);
            let slow = m.scores_by_tree(block);
            assert_eq!(fast.len(), slow.len());
            for (i, (a, b)) in fast.iter().zip(&slow).enumerate() {
                assert_eq!(a.to_bits(), b.to_bits(), "k={k} rows={rows} score {i}");
            }
        }
    }
}

/// Thresholds and values where `<=` is delicate: signed zeros, infinities,
/// neighbours, the smallest normal.
const EDGES: [f64; 10] = [
    0.0,
    -0.0,
    1.0,
    1.0000000000000002,
    0.9999999999999999,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::MIN_POSITIVE,
    -1.5,
    1e300,
];

/// A random tree over `d` features (children after their parents, as
/// fitted trees lay them out) whose thresholds are drawn from `cuts`;
/// returns the child reference of its root.
fn random_tree(tree: &mut GbdtTree, d: usize, cuts: &[f64], depth: usize, r: &mut Rng) -> i32 {
    if depth == 0 || r.random::<f64>() < 0.25 {
        tree.values.push(r.random::<f64>() - 0.5);
        return !(tree.values.len() as i32 - 1);
    }
    let i = tree.nodes.len();
    tree.nodes.push(GbdtNode {
        feature: r.random_range(0..d as u32),
        threshold: cuts[r.random_range(0..cuts.len())],
        left: 0,
        right: 0,
        gain: 0.0,
        default_left: r.random::<bool>(),
    });
    tree.nodes[i].left = random_tree(tree, d, cuts, depth - 1, r);
    tree.nodes[i].right = random_tree(tree, d, cuts, depth - 1, r);
    i as i32
}

/// `trees` scored by [`Walk`] on `x` (`o` outputs) equal, bit for bit, the
/// trees' own one-row-at-a-time walk; returns whether the walk used its
/// batch layout.
fn walks_as_the_trees(trees: &[GbdtTree], d: usize, o: usize, x: &[f64]) -> bool {
    let walk = Walk::new(trees, d).expect("well-formed trees");
    let rows = x.len() / d;
    let mut fast = vec![0.25; rows * o];
    assert!(walk.add(x, d, o, &mut fast));
    for (i, xr) in x.chunks(d).enumerate() {
        let mut slow = vec![0.25; o];
        for (t, tree) in trees.iter().enumerate() {
            slow[t % o] += tree.values[tree.leaf(xr)];
        }
        for (j, (a, b)) in fast[i * o..(i + 1) * o].iter().zip(&slow).enumerate() {
            assert_eq!(a.to_bits(), b.to_bits(), "row {i} output {j}");
        }
    }
    walk.batched()
}

#[test]
fn the_batch_walk_keeps_ties_zeros_infinities_and_nan_as_the_tree_walk() {
    let d = 3;
    let mut r = crate::rng::stream(5, 0);
    // The edges, and 200 distinct cuts besides (more than 128: codes in
    // groups past the first eight).
    let cuts: Vec<f64> = (0..200)
        .map(|i| i as f64 / 50.0 - 2.0)
        .chain(EDGES)
        .collect();
    let trees: Vec<GbdtTree> = (0..60)
        .map(|t| {
            let mut tree = GbdtTree {
                nodes: Vec::new(),
                values: Vec::new(),
                sets: Vec::new(),
                covers: Vec::new(),
            };
            let cuts = if t % 2 == 0 { &EDGES[..] } else { &cuts };
            random_tree(&mut tree, d, cuts, 7, &mut r);
            tree
        })
        .collect();
    // Every edge value and NaN on every feature, then random mixes; 64-row
    // blocks and a tail of 15 rows (the row walk's) and of 17 (the batch's).
    let mut x: Vec<f64> = Vec::new();
    for v in EDGES.iter().chain(&[f64::NAN, 0.5, 2.0, -3.0]) {
        for f in 0..d {
            let mut row = vec![0.5; d];
            row[f] = *v;
            x.extend(row);
        }
    }
    while x.len() < 3 * 64 * d {
        x.push(match r.random_range(0..3) {
            0 => f64::NAN,
            1 => EDGES[r.random_range(0..EDGES.len())],
            _ => r.random::<f64>() * 4.0 - 2.0,
        });
    }
    for tail in [15, 17] {
        let x = &x[..(2 * 64 + tail) * d];
        for o in [1, 3] {
            assert!(
                walks_as_the_trees(&trees, d, o, x),
                "tail {tail}: the batch layout"
            );
        }
    }
}

#[test]
fn trees_beyond_the_batch_layout_walk_row_by_row_alike() {
    // 300 distinct thresholds on a feature (more than a byte of codes),
    // and a NaN threshold (every row goes right): no batch layout, the
    // same scores.
    let d = 2;
    let mut r = crate::rng::stream(6, 0);
    let many: Vec<f64> = (0..300).map(|i| i as f64 / 100.0 - 1.5).collect();
    // Enough trees to draw well over 255 of them on each feature.
    let mut trees: Vec<GbdtTree> = (0..200)
        .map(|_| {
            let mut t = GbdtTree {
                nodes: Vec::new(),
                values: Vec::new(),
                sets: Vec::new(),
                covers: Vec::new(),
            };
            random_tree(&mut t, d, &many, 6, &mut r);
            t
        })
        .collect();
    let x: Vec<f64> = (0..100 * d)
        .map(|_| r.random::<f64>() * 4.0 - 2.0)
        .collect();
    assert!(!walks_as_the_trees(&trees, d, 1, &x), "over 255 thresholds");
    let nan = GbdtTree {
        nodes: vec![GbdtNode {
            feature: 0,
            threshold: f64::NAN,
            left: -1,
            right: -2,
            gain: 0.0,
            default_left: false,
        }],
        values: vec![1.0, 2.0],
        sets: Vec::new(),
        covers: Vec::new(),
    };
    trees = vec![trees[0].clone(), nan];
    assert!(!walks_as_the_trees(&trees, d, 1, &x), "a NaN threshold");
    // Two splits sharing a child: not a tree, though each row still walks
    // to one leaf.
    let shared = GbdtTree {
        nodes: vec![
            GbdtNode {
                feature: 0,
                threshold: 0.0,
                left: 1,
                right: 1,
                gain: 0.0,
                default_left: false,
            },
            GbdtNode {
                feature: 1,
                threshold: 0.5,
                left: -1,
                right: -2,
                gain: 0.0,
                default_left: false,
            },
        ],
        values: vec![1.0, 2.0, 3.0],
        sets: Vec::new(),
        covers: Vec::new(),
    };
    trees = vec![trees[0].clone(), shared];
    assert!(!walks_as_the_trees(&trees, d, 1, &x), "a shared child");
}

#[test]
fn a_model_read_back_walks_as_fitted_and_a_cycle_is_refused() {
    let data = ds(
        (0..200)
            .map(|i| vec![(i % 20) as f64, (i / 20) as f64])
            .collect(),
        (0..200).map(|i| (i % 7 == 0) as u32).collect(),
        2,
    );
    let model = fit(&Gbdt::default(), &data);
    let m = gbdt_of(&model);
    let back: GbdtModel = serde_json::from_str(&serde_json::to_string(m).unwrap()).unwrap();
    assert_eq!(&back, m);
    assert!(back.walk.is_some());
    // A split whose child points back at it would walk forever: the file
    // gets no layout and its validation refuses it.
    let mut bad = serde_json::to_value(m).unwrap();
    bad["trees"][0]["nodes"][1]["left"] = serde_json::json!(0);
    let bad: GbdtModel = serde_json::from_value(bad).unwrap();
    assert!(bad.walk.is_none());
    assert!(crate::learn::Classifier::validate(&bad).is_err());
}

#[test]
fn trees_written_before_level_sets_read_back_unchanged() {
    // A tree as files held it before categorical splits: no `sets`.
    #[derive(serde::Serialize)]
    struct Before<'a> {
        nodes: &'a [GbdtNode],
        values: &'a [f64],
    }
    let m = fit(
        &Gbdt {
            rounds: 3,
            ..Gbdt::default()
        },
        &noisy(600, 3, 2),
    );
    for t in gbdt_of(&m).trees() {
        assert!(t.sets.is_empty() && !t.nodes.is_empty());
        let old = Before {
            nodes: &t.nodes,
            values: &t.values,
        };
        let bin: GbdtTree = rmp_serde::from_slice(&rmp_serde::to_vec(&old).unwrap()).unwrap();
        let json: GbdtTree = serde_json::from_slice(&serde_json::to_vec(&old).unwrap()).unwrap();
        // Files of then kept no leaf covers either.
        let then = GbdtTree {
            covers: Vec::new(),
            ..t.clone()
        };
        assert_eq!((&bin, &json), (&then, &then));
    }
}

/// A two-class table whose first feature is missing for about half the
/// positives and 3% of the negatives (the positives have low values): the
/// hole carries the label. Its second feature is noise; `holes` more
/// features are noise with 20% of their values missing at random.
fn missing_where_positive(n: usize, holes: usize, seed: u64) -> Dataset {
    let mut r = crate::rng::stream(seed, 0);
    let (mut rows, mut y) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let pos = r.random::<f64>() < 0.2;
        let mut x0 = if pos {
            r.random::<f64>() * 0.4
        } else {
            0.3 + r.random::<f64>() * 0.7
        };
        if r.random::<f64>() < if pos { 0.5 } else { 0.03 } {
            x0 = f64::NAN;
        }
        let mut row = vec![x0, r.random::<f64>()];
        for _ in 0..holes {
            let v = r.random::<f64>();
            row.push(if r.random::<f64>() < 0.2 { f64::NAN } else { v });
        }
        rows.push(row);
        y.push(u32::from(pos));
    }
    ds(rows, y, 2)
}

#[test]
fn a_split_learns_to_send_missing_values_with_the_low_values() {
    // The positives are low and often missing: the one split sends the
    // missing values left with them, and its leaves are as pure as the
    // table allows; scoring a NaN follows it.
    let d = missing_where_positive(2000, 0, 1);
    let g = Gbdt {
        rounds: 1,
        max_leaves: 2,
        ..Gbdt::default()
    };
    let m = fit(&g, &d);
    let node = gbdt_of(&m).trees()[0].nodes[0];
    assert_eq!(node.feature, 0);
    assert!(node.default_left && node.threshold < 0.4, "{node:?}");
    let p = m.predict_proba(&d).unwrap();
    let nan = (0..d.n_rows()).find(|&i| d.value(i, 0).is_nan()).unwrap();
    let low = (0..d.n_rows()).find(|&i| d.value(i, 0) < 0.1).unwrap();
    assert_eq!(p.row(nan), p.row(low));
}

#[test]
fn features_without_missing_values_in_training_read_a_missing_value_as_zero() {
    // LightGBM's missing_type=None: a NaN met when scoring goes where 0
    // goes; the thresholds here are all on values above and below 0.
    let mut r = crate::rng::stream(2, 0);
    let rows: Vec<Vec<f64>> = (0..1000)
        .map(|_| vec![r.random::<f64>() * 4.0 - 2.0, r.random::<f64>()])
        .collect();
    let y = rows.iter().map(|x| u32::from(x[0] + x[1] > 0.7)).collect();
    let m = fit(&Gbdt::default(), &ds(rows, y, 2));
    let nodes: Vec<_> = gbdt_of(&m).trees().iter().flat_map(|t| &t.nodes).collect();
    assert!(nodes.iter().all(|n| n.default_left == (0.0 <= n.threshold)));
    assert!(nodes.iter().any(|n| n.default_left) && nodes.iter().any(|n| !n.default_left));
    let zero = ds(vec![vec![0.0, 0.3]], vec![0], 2);
    let nan = ds(vec![vec![f64::NAN, 0.3]], vec![0], 2);
    assert_eq!(
        m.predict_proba(&zero).unwrap(),
        m.predict_proba(&nan).unwrap()
    );
}

#[test]
fn models_fitted_with_missing_values_walk_bit_identical_to_the_tree_walk() {
    // Rows with missing values through the lanes (small blocks), the batch
    // layout (blocks of 64) and the trees one row at a time; a feature
    // with no missing value in training (the second) meets NaN too.
    for k in [2, 3] {
        let d = missing_where_positive(3000, 3, 7 + k as u64);
        let y: Vec<u32> = (0..d.n_rows())
            .map(|i| (d.label(i) as u32 + u32::from(d.value(i, 1) > 0.8)).min(k as u32 - 1))
            .collect();
        let data = Dataset::new(
            d.features().to_vec(),
            y,
            crate::data::Schema::numeric(
                (0..5).map(|j| format!("x{j}")).collect(),
                (0..k).map(|c| c.to_string()).collect(),
            ),
        )
        .unwrap();
        // Few enough trees for the batch layout (at most 255 thresholds
        // per feature).
        let rounds = if k == 2 { 30 } else { 10 };
        let model = fit(
            &Gbdt {
                rounds,
                ..Gbdt::default()
            },
            &data,
        );
        let m = gbdt_of(&model);
        assert!(m.walk.as_ref().is_some_and(|w| w.batched()));
        let nodes = || m.trees().iter().flat_map(|t| &t.nodes);
        assert!(nodes().any(|n| n.default_left) && nodes().any(|n| !n.default_left));
        let mut x = scoring_rows(m, 300, 5, k as u64);
        let mut r = crate::rng::stream(k as u64, 1);
        for v in x.iter_mut() {
            if r.random::<f64>() < 0.3 {
                *v = f64::NAN;
            }
        }
        let n = x.len() / 5;
        for rows in [1, 7, 8, 9, 16, 63, 64, 65, 200, n] {
            let block = &x[..rows * 5];
            let (fast, slow) = (m.scores(block, rows), m.scores_by_tree(block));
            for (i, (a, b)) in fast.iter().zip(&slow).enumerate() {
                assert_eq!(a.to_bits(), b.to_bits(), "k={k} rows={rows} score {i}");
            }
        }
    }
}

#[test]
fn fits_with_missing_values_are_identical_at_any_thread_count() {
    // Exact and quantized gradients, histograms with and without row
    // counts (row-wise and column-pair sums), row and column samples.
    let d = missing_where_positive(70_000, 4, 3);
    for leaf_rows in [super::LeafRows::Hessian, super::LeafRows::Rows] {
        for gradients in [GradientSums::Exact, GradientSums::Quantized] {
            let g = Gbdt {
                rounds: 4,
                leaf_rows,
                gradients,
                subsample: 0.8,
                colsample: 0.8,
                ..Gbdt::default()
            };
            let one = fit_on_threads(1, &g, &d);
            let nodes = gbdt_of(&one).trees().iter().flat_map(|t| &t.nodes).count();
            assert!(nodes > 20);
            assert_eq!(
                one,
                fit_on_threads(2, &g, &d),
                "{leaf_rows:?} {gradients:?}"
            );
            assert_eq!(
                one,
                fit_on_threads(3, &g, &d),
                "{leaf_rows:?} {gradients:?}"
            );
        }
    }
}

#[test]
fn trees_written_before_default_directions_route_nan_right_as_they_did() {
    // A node as files held it before missing values were learned: no
    // `default_left`. Read back, every node sends NaN right.
    #[derive(serde::Serialize)]
    struct Node {
        feature: u32,
        threshold: f64,
        left: i32,
        right: i32,
        gain: f64,
    }
    #[derive(serde::Serialize)]
    struct Before {
        nodes: Vec<Node>,
        values: Vec<f64>,
    }
    let m = fit(
        &Gbdt {
            rounds: 3,
            ..Gbdt::default()
        },
        &noisy(600, 2, 4),
    );
    for t in gbdt_of(&m).trees() {
        let old = Before {
            nodes: t
                .nodes
                .iter()
                .map(|n| Node {
                    feature: n.feature,
                    threshold: n.threshold,
                    left: n.left,
                    right: n.right,
                    gain: n.gain,
                })
                .collect(),
            values: t.values.clone(),
        };
        let bin: GbdtTree = rmp_serde::from_slice(&rmp_serde::to_vec(&old).unwrap()).unwrap();
        let json: GbdtTree = serde_json::from_slice(&serde_json::to_vec(&old).unwrap()).unwrap();
        assert_eq!(bin, json);
        assert!(bin.nodes.iter().all(|n| !n.default_left));
        // As before: a NaN is not <= any threshold.
        let right_most = |tree: &GbdtTree| {
            let mut i = 0i32;
            while i >= 0 {
                i = tree.nodes[i as usize].right;
            }
            !i as usize
        };
        if !bin.nodes.is_empty() {
            assert_eq!(bin.leaf(&[f64::NAN, f64::NAN, f64::NAN]), right_most(&bin));
        }
        let mut bad = bin.clone();
        if !bad.nodes.is_empty() {
            bad.sets = vec![Some(crate::learn::tree::CatSet::from_codes([0])); bad.nodes.len()];
            bad.nodes[0].default_left = true;
            assert!(bad.validate(3).is_err(), "a set split sending NaN left");
        }
    }
}
