use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;

/// A random tree of `depth` levels on `d` features (repeats allowed, so
/// paths meet the same feature again), a node below the second level
/// split with probability `p`, covers drawn at random, some 0.
fn random_tree(rng: &mut ChaCha8Rng, d: usize, depth: usize, width: usize, p: f64) -> ShapTree {
    #[derive(Clone, Copy)]
    struct R(usize);
    let mut splits = Vec::new();
    // Node r: a split while r's depth is below `depth` and a coin says so.
    let mut next = 1usize;
    let mut kinds = vec![(0usize, 0usize)];
    let mut i = 0;
    while i < kinds.len() {
        let (_, dep) = kinds[i];
        if dep < depth && (dep < 2 || rng.random::<f64>() < p) {
            let f = rng.random_range(0..d);
            let t: f64 = rng.random_range(-1.0..1.0);
            let missing_left = rng.random::<bool>();
            splits.push(Some((f, t, missing_left, next, next + 1)));
            kinds.push((next, dep + 1));
            kinds.push((next + 1, dep + 1));
            next += 2;
        } else {
            splits.push(None);
        }
        i += 1;
    }
    let leaves: Vec<(Vec<f64>, f64)> = (0..splits.len())
        .map(|_| {
            let v = (0..width).map(|_| rng.random_range(-2.0..2.0)).collect();
            let c = if rng.random::<f64>() < 0.1 {
                0.0
            } else {
                rng.random_range(0.0..10.0)
            };
            (v, c)
        })
        .collect();
    ShapTree::read(R(0), |R(r)| match splits[r] {
        Some((f, t, missing_left, l, rr)) => Node::Split(
            Split {
                feature: f,
                threshold: t,
                set: None,
                missing_left,
            },
            R(l),
            R(rr),
        ),
        None => Node::Leaf(leaves[r].0.clone(), leaves[r].1),
    })
    .unwrap()
}

/// `v(S)`: the path-dependent expectation of `tree` with the features of
/// `s` (a bit set) fixed at `x`'s values.
fn expectation(tree: &ShapTree, x: &[f64], s: u32, i: usize, out: &mut [f64], scale: f64) {
    match tree.split(i) {
        None => out
            .iter_mut()
            .zip(&tree.values[i])
            .for_each(|(o, v)| *o += scale * v),
        Some(sp) => {
            let (l, r) = (
                tree.children_left[i] as usize,
                tree.children_right[i] as usize,
            );
            if s >> sp.feature & 1 == 1 {
                let c = if sp.goes_left(x[sp.feature]) { l } else { r };
                expectation(tree, x, s, c, out, scale);
            } else {
                let (fl, fr) =
                    split_fractions(tree.node_sample_weight[l], tree.node_sample_weight[r]);
                expectation(tree, x, s, l, out, scale * fl);
                expectation(tree, x, s, r, out, scale * fr);
            }
        }
    }
}

/// The Shapley values of the game [`expectation`], by enumeration.
fn brute_force(tree: &ShapTree, x: &[f64], d: usize) -> Vec<Vec<f64>> {
    let w = tree.width();
    let fact = |n: usize| (1..=n).map(|v| v as f64).product::<f64>();
    let mut phi = vec![vec![0.0; d]; w];
    let v = |s: u32| {
        let mut o = vec![0.0; w];
        expectation(tree, x, s, 0, &mut o, 1.0);
        o
    };
    #[allow(clippy::needless_range_loop)]
    for i in 0..d {
        for s in 0..(1u32 << d) {
            if s >> i & 1 == 1 {
                continue;
            }
            let size = s.count_ones() as usize;
            let weight = fact(size) * fact(d - size - 1) / fact(d);
            let (a, b) = (v(s | 1 << i), v(s));
            for o in 0..w {
                phi[o][i] += weight * (a[o] - b[o]);
            }
        }
    }
    phi
}

#[test]
fn contributions_are_the_shapley_values_of_the_path_dependent_game() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for case in 0..60 {
        let d = 1 + case % 6;
        let width = 1 + case % 3;
        let tree = random_tree(&mut rng, d, 2 + case % 7, width, 0.7);
        let form = Additive::of_trees(
            Space::Probability,
            (0..width.max(2)).collect(),
            vec![0.5; width],
            vec![Term {
                output: Output::All,
                tree: tree.clone(),
            }],
        );
        let e = Explainer::new(&form, d).unwrap();
        for _ in 0..10 {
            let x: Vec<f64> = (0..d)
                .map(|_| match rng.random_range(0..8) {
                    0 => f64::NAN,
                    _ => rng.random_range(-1.2..1.2),
                })
                .collect();
            let mut out = vec![0.0; e.row_len()];
            e.explain(&x, &mut out);
            let want = brute_force(&tree, &x, d);
            let f = form.output(&x);
            for o in 0..width {
                let row = &out[o * (d + 1)..(o + 1) * (d + 1)];
                for i in 0..d {
                    assert!(
                        (row[i] - want[o][i]).abs() < 1e-12,
                        "case {case} output {o} feature {i}: {} vs {}",
                        row[i],
                        want[o][i]
                    );
                }
                let sum: f64 = row.iter().sum();
                assert!(
                    (sum - f[o]).abs() < 1e-12,
                    "local accuracy: {sum} vs {}",
                    f[o]
                );
            }
        }
    }
}

#[test]
fn deep_trees_with_many_features_keep_local_accuracy() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let d = 90;
    let trees: Vec<Term> = (0..5)
        .map(|_| Term {
            output: Output::One(0),
            tree: random_tree(&mut rng, d, 60, 1, 0.55),
        })
        .collect();
    let form = Additive::of_trees(Space::LogOdds, vec![0, 1], vec![-1.0], trees);
    let e = Explainer::new(&form, d).unwrap();
    let rows = 300;
    let x: Vec<f64> = (0..rows * d).map(|_| rng.random_range(-1.0..1.0)).collect();
    let mut out = vec![0.0; rows * e.row_len()];
    e.explain(&x, &mut out);
    for r in 0..rows {
        let sum: f64 = out[r * (d + 1)..(r + 1) * (d + 1)].iter().sum();
        let f = form.output(&x[r * d..(r + 1) * d])[0];
        assert!((sum - f).abs() < 1e-9, "row {r}: {sum} vs {f}");
    }
}

#[test]
fn blocks_and_threads_do_not_change_a_bit() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let d = 5;
    let trees: Vec<Term> = (0..20)
        .map(|_| Term {
            output: Output::One(0),
            tree: random_tree(&mut rng, d, 6, 1, 0.7),
        })
        .collect();
    let form = Additive::of_trees(Space::LogOdds, vec![0, 1], vec![0.0], trees);
    let e = Explainer::new(&form, d).unwrap();
    let rows = 1000;
    let x: Vec<f64> = (0..rows * d).map(|_| rng.random_range(-1.0..1.0)).collect();
    let mut all = vec![0.0; rows * e.row_len()];
    e.explain(&x, &mut all);
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let mut single = vec![0.0; rows * e.row_len()];
    one.install(|| e.explain(&x, &mut single));
    assert_eq!(all, single);
    for r in [0, 63, 64, 999] {
        let mut alone = vec![0.0; e.row_len()];
        e.explain(&x[r * d..(r + 1) * d], &mut alone);
        assert_eq!(&all[r * e.row_len()..(r + 1) * e.row_len()], &alone[..]);
    }
}

#[test]
fn linear_parts_are_linear_shap() {
    let form = Additive {
        space: Space::LogOdds,
        classes: vec![0, 1],
        combine: Combine::Sum,
        bias: vec![0.25],
        trees: Vec::new(),
        linear: Some(Linear {
            coef: vec![2.0, -1.0],
            mean: vec![1.0, 3.0],
        }),
    };
    let e = Explainer::new(&form, 2).unwrap();
    let mut out = vec![0.0; 3];
    e.explain(&[2.0, 1.0], &mut out);
    assert_eq!(out, vec![2.0, 2.0, 0.25 + 2.0 - 3.0]);
    assert_eq!(out.iter().sum::<f64>(), form.output(&[2.0, 1.0])[0]);
}

#[test]
fn trees_that_do_not_fit_the_rows_are_refused() {
    let stump = ShapTree::read(0u8, |r| match r {
        0 => Node::Split(
            Split {
                feature: 3,
                threshold: 0.0,
                set: None,
                missing_left: false,
            },
            1,
            2,
        ),
        _ => Node::Leaf(vec![f64::from(r)], 1.0),
    })
    .unwrap();
    assert_eq!(stump.values[0], vec![1.5]);
    assert_eq!(stump.children_default, vec![2, -1, -1]);
    let form = |tree: ShapTree| {
        Additive::of_trees(
            Space::LogOdds,
            vec![0, 1],
            vec![0.0],
            vec![Term {
                output: Output::One(0),
                tree,
            }],
        )
    };
    assert!(Explainer::new(&form(stump.clone()), 3).is_err());
    assert!(Explainer::new(&form(stump), 4).is_ok());
    let bad = ShapTree::read(0u8, |r| match r {
        0 => Node::Split(
            Split {
                feature: 0,
                threshold: 0.0,
                set: None,
                missing_left: false,
            },
            1,
            2,
        ),
        _ => Node::Leaf(vec![0.0], -1.0),
    });
    assert!(bad.is_err());
}
