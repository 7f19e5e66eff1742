//! One boosted tree: split nodes and leaf values. A child index `c` is a
//! node when `c >= 0` and leaf `!c` otherwise (LightGBM's layout). A split
//! on a categorical feature sends the rows whose level is in its set left
//! (missing values and unseen levels right); a threshold split sends a
//! missing value (NaN) the way it learned, `default_left`
//! ([`GbdtTree::goes_left`], the one routing rule every walk follows).

use serde::{Deserialize, Serialize};

use crate::check;
use crate::learn::tree::{numeric_left, CatSet};
use crate::limits::MAX_TREE_DEPTH;

/// One split node: rows with `x[feature] <= threshold` go `left`, and so
/// do missing values (NaN) when `default_left`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GbdtNode {
    /// Split feature.
    pub feature: u32,
    /// Split threshold on the feature's values.
    pub threshold: f64,
    /// Left child: a node index (`>= 0`) or `!leaf`.
    pub left: i32,
    /// Right child: a node index (`>= 0`) or `!leaf`.
    pub right: i32,
    /// The split's gain (loss reduction), for importances.
    pub gain: f64,
    /// Whether a missing value (NaN) goes left at a threshold split
    /// (always false at a set split). False in files written before
    /// missing values were learned, where NaN went right (`NaN <= t` is
    /// false): so those files predict as they did.
    #[serde(default)]
    pub default_left: bool,
}

/// One boosted tree: split nodes and leaf values (`nodes.len() + 1` leaves;
/// no node means a single leaf).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GbdtTree {
    /// Split nodes, the root first.
    pub nodes: Vec<GbdtNode>,
    /// Leaf values, shrunk by the learning rate.
    pub values: Vec<f64>,
    /// Per node, the level set of a categorical split (its threshold is
    /// then unused); empty when no node splits a categorical feature (and
    /// in files written before categorical splits).
    #[serde(default)]
    pub sets: Vec<Option<CatSet>>,
    /// Per leaf, the rows (copies counted) of its round's sample that
    /// reached it, as LightGBM's `leaf_count`: the covers its contributions
    /// weigh paths by (`crate::learn::shap`); empty in files written before
    /// rarity kept them.
    #[serde(default)]
    pub covers: Vec<f64>,
}

impl GbdtTree {
    /// The leaf that row `x` falls into.
    #[inline]
    pub fn leaf(&self, x: &[f64]) -> usize {
        if self.nodes.is_empty() {
            return 0;
        }
        let mut i = 0usize;
        loop {
            let n = &self.nodes[i];
            let next = if self.goes_left(i, x[n.feature as usize]) {
                n.left
            } else {
                n.right
            };
            if next < 0 {
                return !next as usize;
            }
            i = next as usize;
        }
    }

    /// Whether node `i` sends a row whose value of its feature is `v` left:
    /// a level in its set, or a number `<=` its threshold, or a missing
    /// value (NaN) at a threshold split whose `default_left` is set.
    #[inline]
    pub fn goes_left(&self, i: usize, v: f64) -> bool {
        let n = &self.nodes[i];
        match self.set(i) {
            Some(s) => s.contains(v),
            None => numeric_left(v, n.threshold, n.default_left),
        }
    }

    /// The level set of node `i` when it splits a categorical feature.
    #[inline]
    pub fn set(&self, i: usize) -> Option<&CatSet> {
        self.sets.get(i).and_then(Option::as_ref)
    }

    /// Whether some node splits a categorical feature.
    pub fn has_sets(&self) -> bool {
        self.sets.iter().any(Option::is_some)
    }

    /// Checks the shapes; the structure (every node but the root the child
    /// of exactly one split, after it, and every leaf the child of exactly
    /// one, so the nodes form one tree); the depth (at most
    /// [`MAX_TREE_DEPTH`]); each split ([`GbdtTree::check_split`]); and the
    /// leaf values (finite).
    pub(super) fn validate(&self, d: usize) -> Result<(), String> {
        let leaves = self.values.len();
        if leaves != self.nodes.len() + 1 {
            return Err(format!(
                "{} leaf values for {} nodes",
                leaves,
                self.nodes.len()
            ));
        }
        if !self.sets.is_empty() && self.sets.len() != self.nodes.len() {
            return Err(format!(
                "{} level sets for {} nodes",
                self.sets.len(),
                self.nodes.len()
            ));
        }
        check::finite("leaf value", &self.values)?;
        if !self.covers.is_empty()
            && (self.covers.len() != leaves
                || self.covers.iter().any(|c| !(c.is_finite() && *c >= 0.0)))
        {
            return Err(format!(
                "{} leaf covers for {leaves} leaves, or a cover that is not a finite count >= 0",
                self.covers.len()
            ));
        }
        let mut depth = vec![0usize; self.nodes.len()];
        let mut reached = vec![false; self.nodes.len()];
        let mut leaf_held = vec![false; leaves];
        for (i, n) in self.nodes.iter().enumerate() {
            // Parents come first, so whether node i is reached is known.
            if i > 0 && !reached[i] {
                return Err(format!("node {i} is unreachable: no split leads to it"));
            }
            self.check_split(i, d)?;
            if depth[i] + 1 > MAX_TREE_DEPTH {
                return Err(format!(
                    "the tree is deeper than {MAX_TREE_DEPTH} levels (node {i}), the most \
                     rarity grows, reads or exports"
                ));
            }
            for c in [n.left, n.right] {
                let held = if c < 0 {
                    &mut leaf_held[!c as usize]
                } else {
                    depth[c as usize] = depth[i] + 1;
                    &mut reached[c as usize]
                };
                if std::mem::replace(held, true) {
                    return Err(format!(
                        "node {i} leads to a node or leaf another split leads to"
                    ));
                }
            }
        }
        if !self.nodes.is_empty() {
            if let Some(l) = leaf_held.iter().position(|&h| !h) {
                return Err(format!("leaf {l} belongs to no split"));
            }
        }
        Ok(())
    }

    /// Checks split node `i` of a tree over `d` features: its feature
    /// inside the row, its threshold a number (not NaN) and its gain
    /// finite, its children (a later node or a leaf) inside the tree.
    fn check_split(&self, i: usize, d: usize) -> Result<(), String> {
        let n = &self.nodes[i];
        let child_ok = |c: i32| {
            if c < 0 {
                (!c as usize) < self.values.len()
            } else {
                c as usize > i && (c as usize) < self.nodes.len()
            }
        };
        if n.feature as usize >= d || !child_ok(n.left) || !child_ok(n.right) {
            return Err(format!("node {i} has an invalid feature or child"));
        }
        if n.threshold.is_nan() || !n.gain.is_finite() {
            return Err(format!(
                "node {i} has a NaN threshold or a gain that is not finite"
            ));
        }
        if n.default_left && self.set(i).is_some() {
            return Err(format!(
                "node {i} sends missing values left at a categorical split \
                 (a missing level goes right, with the levels outside the set)"
            ));
        }
        Ok(())
    }
}
