//! One boosted tree: split nodes and leaf values. A child index `c` is a
//! node when `c >= 0` and leaf `!c` otherwise (LightGBM's layout). A split
//! on a categorical feature sends the rows whose level is in its set left
//! (missing values and unseen levels right); a threshold split sends a
//! missing value (NaN) the way it learned, `default_left`
//! ([`GbdtTree::goes_left`], the one routing rule every walk follows).

use serde::{Deserialize, Serialize};

use crate::learn::tree::{numeric_left, CatSet};

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

    /// Checks child, leaf and feature indices.
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
        for (i, n) in self.nodes.iter().enumerate() {
            let child_ok = |c: i32| {
                if c < 0 {
                    (!c as usize) < leaves
                } else {
                    c as usize > i && (c as usize) < self.nodes.len()
                }
            };
            if n.feature as usize >= d || !child_ok(n.left) || !child_ok(n.right) {
                return Err(format!("node {i} has an invalid feature or child"));
            }
            if n.default_left && self.set(i).is_some() {
                return Err(format!(
                    "node {i} sends missing values left at a categorical split \
                     (a missing level goes right, with the levels outside the set)"
                ));
            }
        }
        Ok(())
    }
}
