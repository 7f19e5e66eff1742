//! Sums of decision trees as one `ai.onnx.ml` `TreeEnsemble` node (opset 5):
//! double thresholds, double leaf weights, `x <= threshold` sending a row
//! to the true branch (`BRANCH_LEQ`, as rarity's trees split), and a row
//! with a missing value (NaN) to the true branch where the split learned
//! to send it left (`nodes_missing_value_tracks_true`, written when some
//! split does), to the false branch otherwise, as `NaN <= t` is false.
//!
//! A set split (a categorical feature's levels, as codes) is a
//! `BRANCH_MEMBER` node: its codes are listed in `membership_values`, each
//! node's set ended by a NaN; a row whose code is in the set takes the true
//! branch, and any other value (a missing or unseen level is NaN) the false
//! one, as in rarity's trees.
//!
//! A leaf of `TreeEnsemble` adds one weight to one target, so a tree whose
//! leaves hold a vector (a probability tree's class frequencies) is written
//! once per target it contributes to; targets a tree adds only zeros to are
//! left out, so a boosted tree of one class is written once.

use super::graph::{Graph, Value, ML};
use super::proto::{Attr, Tensor};
use crate::limits::MAX_TREE_DEPTH;

/// Where a split sends a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Child {
    /// Another split, by index.
    Split(usize),
    /// A leaf, by index.
    Leaf(usize),
}

/// One split: rows with `x[feature] <= threshold` go `left`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Split {
    /// The feature column.
    pub feature: usize,
    /// The threshold.
    pub threshold: f64,
    /// Where rows at or below the threshold go.
    pub left: Child,
    /// Where the others go.
    pub right: Child,
    /// Whether a missing value (NaN) goes `left` (else `right`).
    pub default_left: bool,
}

/// A tree with a vector of `n_targets` values per leaf.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeTable {
    /// The splits, the root first (none: the tree is its single leaf 0).
    pub splits: Vec<Split>,
    /// Leaf `l`'s value for target `t` at `l * n_targets + t`.
    pub leaves: Vec<f64>,
    /// Per split, the level codes a set split sends left (its threshold is
    /// then unused); empty when no split is a set split.
    pub members: Vec<Option<Vec<f64>>>,
}

/// `nodes_modes` of a threshold split (`BRANCH_LEQ`) and a set split
/// (`BRANCH_MEMBER`).
const BRANCH_LEQ: u8 = 0;
const BRANCH_MEMBER: u8 = 6;

/// The per-row sums over `trees` of their leaves' values (`[N, n_targets]`,
/// double), for the rows of `x` (`[N, d]`, double). A tree deeper than
/// [`MAX_TREE_DEPTH`] is refused, saying so: ONNX Runtime reads trees by
/// recursion and a deep one overflows its stack (see the constant).
pub fn tree_sum(
    g: &mut Graph,
    x: &Value,
    trees: &[TreeTable],
    n_targets: usize,
) -> Result<Value, String> {
    for (i, tree) in trees.iter().enumerate() {
        tree.check_depth()
            .map_err(|e| format!("tree {i} cannot be exported: {e}"))?;
    }
    let mut e = Ensemble::default();
    for t in 0..n_targets {
        for tree in trees {
            let values: Vec<f64> = tree
                .leaves
                .iter()
                .skip(t)
                .step_by(n_targets)
                .copied()
                .collect();
            if values.iter().any(|&v| v != 0.0) {
                e.push(tree, &values, t);
            }
        }
    }
    if e.roots.is_empty() {
        // Every leaf of every tree is zero: a zero tree keeps the node valid.
        e.push(
            &TreeTable {
                splits: Vec::new(),
                leaves: vec![0.0],
                members: Vec::new(),
            },
            &[0.0],
            0,
        );
    }
    let mut attrs = vec![
        ("aggregate_function", Attr::Int(1)),
        ("n_targets", Attr::Int(n_targets as i64)),
        ("post_transform", Attr::Int(0)),
        ("tree_roots", Attr::Ints(e.roots)),
        ("nodes_featureids", Attr::Ints(e.features)),
        ("nodes_splits", Attr::Tensor(Tensor::doubles(e.splits))),
        (
            "nodes_modes",
            Attr::Tensor(Tensor::Uint8(vec![e.modes.len() as i64], e.modes)),
        ),
        ("nodes_truenodeids", Attr::Ints(e.true_ids)),
        ("nodes_trueleafs", Attr::Ints(e.true_leafs)),
        ("nodes_falsenodeids", Attr::Ints(e.false_ids)),
        ("nodes_falseleafs", Attr::Ints(e.false_leafs)),
        ("leaf_targetids", Attr::Ints(e.targets)),
        ("leaf_weights", Attr::Tensor(Tensor::doubles(e.weights))),
    ];
    if e.missing_left.contains(&1) {
        attrs.push((
            "nodes_missing_value_tracks_true",
            Attr::Ints(e.missing_left),
        ));
    }
    if !e.membership.is_empty() {
        attrs.push((
            "membership_values",
            Attr::Tensor(Tensor::doubles(e.membership)),
        ));
    }
    Ok(g.op_in(ML, "TreeEnsemble", &[x], &attrs))
}

impl TreeTable {
    /// Fails unless the splits form a tree at most [`MAX_TREE_DEPTH`] deep
    /// whose children come after their parents (as every tree of rarity's
    /// lays them out), in one pass over the splits.
    fn check_depth(&self) -> Result<(), String> {
        let mut depth = vec![0usize; self.splits.len()];
        for (i, s) in self.splits.iter().enumerate() {
            if depth[i] >= MAX_TREE_DEPTH {
                return Err(format!(
                    "it is deeper than {MAX_TREE_DEPTH} levels, which ONNX Runtime may not load"
                ));
            }
            for c in [s.left, s.right] {
                if let Child::Split(j) = c {
                    if j <= i || j >= self.splits.len() {
                        return Err(format!("split {i} leads to split {j}, not one after it"));
                    }
                    depth[j] = depth[j].max(depth[i] + 1);
                }
            }
        }
        Ok(())
    }
}

/// The attributes of a `TreeEnsemble` node, accumulated tree by tree.
#[derive(Debug, Default)]
struct Ensemble {
    roots: Vec<i64>,
    features: Vec<i64>,
    splits: Vec<f64>,
    modes: Vec<u8>,
    /// The set splits' codes, each set ended by a NaN.
    membership: Vec<f64>,
    true_ids: Vec<i64>,
    true_leafs: Vec<i64>,
    false_ids: Vec<i64>,
    false_leafs: Vec<i64>,
    /// Per node, 1 when a missing value takes the true branch.
    missing_left: Vec<i64>,
    targets: Vec<i64>,
    weights: Vec<f64>,
}

impl Ensemble {
    /// Adds `tree` with leaf values `values` (one per leaf) for `target`.
    fn push(&mut self, tree: &TreeTable, values: &[f64], target: usize) {
        let (node0, leaf0) = (self.features.len() as i64, self.weights.len() as i64);
        self.roots.push(node0);
        let child = |c: Child| match c {
            Child::Split(i) => (node0 + i as i64, 0),
            Child::Leaf(l) => (leaf0 + l as i64, 1),
        };
        let one_leaf = [Split {
            feature: 0,
            threshold: 0.0,
            left: Child::Leaf(0),
            right: Child::Leaf(0),
            default_left: false,
        }];
        let splits = if tree.splits.is_empty() {
            &one_leaf[..]
        } else {
            &tree.splits[..]
        };
        for (i, s) in splits.iter().enumerate() {
            self.features.push(s.feature as i64);
            self.splits.push(s.threshold);
            match tree.members.get(i).and_then(Option::as_ref) {
                Some(codes) => {
                    self.modes.push(BRANCH_MEMBER);
                    self.membership.extend(codes);
                    self.membership.push(f64::NAN);
                }
                None => self.modes.push(BRANCH_LEQ),
            }
            let (t, tl) = child(s.left);
            let (f, fl) = child(s.right);
            self.true_ids.push(t);
            self.true_leafs.push(tl);
            self.false_ids.push(f);
            self.false_leafs.push(fl);
            self.missing_left.push(i64::from(s.default_left));
        }
        for &v in values {
            self.targets.push(target as i64);
            self.weights.push(v);
        }
    }
}
