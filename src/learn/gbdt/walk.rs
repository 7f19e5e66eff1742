//! The scoring layout of a boosted model and its walk.
//!
//! Every tree's nodes sit in one flat array, 16 bytes each: a tree's split
//! nodes first (root first), then its leaves, each leaf a node whose two
//! children are itself and whose threshold holds its value. Children are
//! small integers local to the tree. Rows walk a tree in groups of
//! [`LANES`], all lanes stepping together without a branch on the way
//! (`x <= threshold` picks a child; a lane at its leaf stays there) until
//! every lane stands on a leaf: the lanes' chains of dependent loads
//! overlap, and no branch mispredicts when one row reaches its leaf
//! before the others.
//!
//! Blocks of at least [`batch::MIN_ROWS`] rows go through the batch layout
//! of the same trees instead ([`batch`]: rows turned into one-byte codes
//! against the model's thresholds, each split deciding 64 rows at once),
//! when the trees fit it; one row and small blocks keep the walk above.
//!
//! A categorical (set) split keeps its level set beside the nodes: its
//! node's feature carries [`SET`] and its threshold's bits the set's index,
//! and the step asks the set whether the row's level is in it (a model
//! without sets walks without that test). A model with sets has no batch
//! layout, and its rows walk one at a time: its leaf-wise trees are deep
//! and uneven, and lanes stepping together until the deepest lane is done
//! measured slower than one row leaving at its leaf (200,000 rows of the
//! `generate fraud --categorical` table, 100 trees of 31 leaves).
//!
//! A missing value (NaN) goes where its split learned to send it
//! ([`numeric_left`], the rule of [`GbdtTree::goes_left`]): a split whose
//! `default_left` is set sends it left, the others right (as `NaN <=
//! threshold` is false). The walks test for it only in blocks that hold a
//! NaN, found by one pass over the block's values; other blocks walk as
//! models without missing values do.
//!
//! Either way each row adds its trees' values in tree order to its initial
//! scores, so the scores are bit-identical to a walk of the model's
//! [`GbdtTree`]s one row at a time.

use super::tree::GbdtTree;
use crate::learn::tree::{numeric_left, CatSet};

mod batch;

use batch::Batch;

/// Rows walked together through one tree.
const LANES: usize = 8;

/// Rows scored together through all trees (their features stay in the
/// first-level cache: 64 rows of 30 features are 15 KB).
const BLOCK: usize = batch::ROWS;

/// The flag of a set split's feature: the node sends the rows whose level
/// is in set `threshold.to_bits()` left.
const SET: u32 = 1 << 31;

/// One node: a split sends `x[feature] <= threshold` to `left` and the rest
/// (NaN included) to `right` (a set split, its feature flagged [`SET`]: the
/// rows whose level is in its set); a leaf has both children equal to
/// itself and its value in `threshold`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Flat {
    threshold: f64,
    feature: u32,
    left: u16,
    right: u16,
}

/// The flat nodes of all trees of a model.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct Walk {
    n_features: usize,
    nodes: Vec<Flat>,
    /// Per tree: its first node and its number of split nodes (the local
    /// index of its first leaf).
    trees: Vec<(usize, usize)>,
    /// The level sets of the set splits.
    sets: Vec<CatSet>,
    /// Per node, whether it sends missing values left; empty when none
    /// does.
    default_left: Vec<bool>,
    /// The batch layout of the same trees, when they fit it.
    batch: Option<Batch>,
}

impl Walk {
    /// The layout of `trees` over `n_features` features, or `None` when a
    /// tree is malformed (a leaf count that is not its split count plus
    /// one, a child that does not lie after its parent inside the tree, a
    /// feature outside the row) or too large for 16-bit children. Every
    /// index the walk follows is checked here, which is what lets it index
    /// without checks; the walk ends because children lie after their
    /// parents.
    pub(super) fn new(trees: &[GbdtTree], n_features: usize) -> Option<Walk> {
        let mut nodes = Vec::new();
        let mut sets = Vec::new();
        let mut default_left = Vec::new();
        let mut starts = Vec::with_capacity(trees.len());
        for tree in trees {
            let (splits, leaves) = (tree.nodes.len(), tree.values.len());
            if leaves != splits + 1 || splits + leaves > usize::from(u16::MAX) {
                return None;
            }
            starts.push((nodes.len(), splits));
            for (i, n) in tree.nodes.iter().enumerate() {
                let child = |c: i32| Some(local_child(c, i, splits, leaves)? as u16);
                if n.feature as usize >= n_features || n.feature & SET != 0 {
                    return None;
                }
                let (feature, threshold) = match tree.set(i) {
                    Some(set) => {
                        sets.push(set.clone());
                        (n.feature | SET, f64::from_bits(sets.len() as u64 - 1))
                    }
                    None => (n.feature, n.threshold),
                };
                nodes.push(Flat {
                    threshold,
                    feature,
                    left: child(n.left)?,
                    right: child(n.right)?,
                });
                default_left.push(n.default_left);
            }
            default_left.resize(nodes.len() + tree.values.len(), false);
            for (j, &v) in tree.values.iter().enumerate() {
                let me = (splits + j) as u16;
                nodes.push(Flat {
                    threshold: v,
                    feature: 0,
                    left: me,
                    right: me,
                });
            }
        }
        let batch = match sets.is_empty() {
            true => Batch::new(trees, n_features),
            false => None,
        };
        if !default_left.contains(&true) {
            default_left.clear();
        }
        Some(Walk {
            n_features,
            nodes,
            trees: starts,
            sets,
            default_left,
            batch,
        })
    }

    /// Whether the walk has its batch layout.
    #[cfg(test)]
    pub(super) fn batched(&self) -> bool {
        self.batch.is_some()
    }

    /// Adds every tree's leaf value to the scores of each row of the
    /// row-major block `x` (`d >= n_features` values per row): tree `t`
    /// adds to output `t % o` of the row's `o` scores in `f`
    /// (`f.len() == rows * o`), trees in order. Returns false, adding
    /// nothing, when the shapes do not fit (no output, no feature, or
    /// fewer than `rows * d` values).
    pub(super) fn add(&self, x: &[f64], d: usize, o: usize, f: &mut [f64]) -> bool {
        if o == 0 || d == 0 || d < self.n_features || x.len() < f.len() / o * d {
            return false;
        }
        let rows = f.len() / o;
        let mut scratch = None;
        for first in (0..rows).step_by(BLOCK) {
            let end = (first + BLOCK).min(rows);
            let block = &x[first * d..end * d];
            // Whether a NaN may go left here: some split sends missing
            // values left and the block holds one.
            let nan = !self.default_left.is_empty() && block.iter().any(|v| v.is_nan());
            if let Some(batch) = self
                .batch
                .as_ref()
                .filter(|_| end - first >= batch::MIN_ROWS)
            {
                let s = scratch.get_or_insert_with(|| batch.scratch());
                batch.add(block, d, o, &mut f[first * o..end * o], s, nan);
                continue;
            }
            let rows = first..end;
            match (self.sets.is_empty(), nan) {
                (true, false) => self.add_block::<false, false>(x, d, o, rows, f),
                (true, true) => self.add_block::<false, true>(x, d, o, rows, f),
                (false, false) => self.add_block::<true, false>(x, d, o, rows, f),
                (false, true) => self.add_block::<true, true>(x, d, o, rows, f),
            }
        }
        true
    }

    /// Adds every tree's leaf value to the scores of rows `rows` of `x`,
    /// [`LANES`] rows at a time (`SETS`: the trees have set splits, and
    /// rows walk one at a time; `NAN`: a missing value may go left).
    fn add_block<const SETS: bool, const NAN: bool>(
        &self,
        x: &[f64],
        d: usize,
        o: usize,
        rows: std::ops::Range<usize>,
        f: &mut [f64],
    ) {
        for (t, &(start, splits)) in self.trees.iter().enumerate() {
            let tree = Tree {
                nodes: &self.nodes[start..start + 2 * splits + 1],
                splits,
                sets: &self.sets,
                default_left: match NAN {
                    true => &self.default_left[start..start + 2 * splits + 1],
                    false => &[],
                },
            };
            let j = t % o;
            let mut r = rows.start;
            while !SETS && r + LANES <= rows.end {
                let v = lanes::<LANES, SETS, NAN>(&tree, x, d, std::array::from_fn(|l| r + l));
                for (l, v) in v.into_iter().enumerate() {
                    f[(r + l) * o + j] += v;
                }
                r += LANES;
            }
            for r in r..rows.end {
                f[r * o + j] += lanes::<1, SETS, NAN>(&tree, x, d, [r])[0];
            }
        }
    }
}

/// One tree of a layout: its nodes (splits, then leaves from `splits`),
/// the layout's level sets, and its nodes' `default_left` (when walked
/// with missing values).
struct Tree<'a> {
    nodes: &'a [Flat],
    splits: usize,
    sets: &'a [CatSet],
    default_left: &'a [bool],
}

/// The leaf values of rows `rows` of `x` in `tree` (`SETS`: a node may be
/// a set split; `NAN`: a missing value goes where its node's
/// `default_left` says).
#[inline(always)]
fn lanes<const L: usize, const SETS: bool, const NAN: bool>(
    tree: &Tree<'_>,
    x: &[f64],
    d: usize,
    rows: [usize; L],
) -> [f64; L] {
    let (nodes, splits) = (tree.nodes, tree.splits);
    let base: [usize; L] = std::array::from_fn(|l| rows[l] * d);
    let mut at = [0usize; L];
    // SAFETY: `nodes` is one tree of a layout `Walk::new` checked, so
    // every child lies inside it; a split's feature is below
    // `n_features <= d` and a row's offset plus `d` is inside `x`
    // (`add` checked `x.len() >= rows * d` and `d >= n_features`). A lane at a leaf reads
    // feature 0 of its row, inside it as `d > 0`. A set split's feature
    // is below `n_features` once its flag is cleared; its set is looked up
    // with a check.
    let node = |i: usize| unsafe { *nodes.get_unchecked(i) };
    // SAFETY: a row's offset plus a feature below `d` is inside `x`, as above.
    let value = |b: usize, f: u32| unsafe { *x.get_unchecked(b + f as usize) };
    while at.iter().any(|&i| i < splits) {
        for l in 0..L {
            let n = node(at[l]);
            let left = if SETS && n.feature & SET != 0 {
                let v = value(base[l], n.feature & !SET);
                let set = tree.sets.get(n.threshold.to_bits() as usize);
                set.is_some_and(|s| s.contains(v))
            } else if NAN {
                let dl = tree.default_left.get(at[l]).copied().unwrap_or(false);
                numeric_left(value(base[l], n.feature), n.threshold, dl)
            } else {
                value(base[l], n.feature) <= n.threshold
            };
            at[l] = if left {
                n.left as usize
            } else {
                n.right as usize
            };
        }
    }
    std::array::from_fn(|l| node(at[l]).threshold)
}

/// Node `i`'s child `c` (a split's index, or `!leaf` for a leaf) as an
/// index into a tree's nodes laid out splits first, then leaves; `None`
/// for a child that is not below `i` or not in the tree.
fn local_child(c: i32, i: usize, splits: usize, leaves: usize) -> Option<usize> {
    if c >= 0 {
        let c = c as usize;
        (c > i && c < splits).then_some(c)
    } else {
        let leaf = !c as usize;
        (leaf < leaves).then_some(splits + leaf)
    }
}
