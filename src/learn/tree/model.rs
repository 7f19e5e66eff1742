//! The fitted tree: nodes in depth-first order, leaves with their weighted
//! class totals and the probabilities derived from them.
//!
//! Scoring walks a compact copy of the nodes (16 bytes each: threshold,
//! feature, right child; the left child is the next node, as depth-first
//! order places it), built when the tree is made or read from a file and
//! checked then, so that the walks index without checks.
//! [`TreeModel::each_leaf`] walks a block of rows sixteen at a time, each row
//! that reaches its leaf handing its place to the next, so that the memory
//! latency of one row's next node overlaps the others'.
//!
//! A threshold split sends a missing value (NaN) left when its
//! `default_left` is set, right otherwise ([`TreeModel::goes_left`],
//! [`numeric_left`]); the walks test for it only in rows and blocks that
//! hold a NaN (one pass over their values), so rows without one walk as
//! before.

use crate::check;
use crate::learn::shap::{Additive, Output, Space, Term};
use crate::learn::{Classifier, Importances, Kind, LeafMap};
use crate::limits::MAX_TREE_DEPTH;
use crate::onnx::{tree_sum, Graph, Value};
use serde::{Deserialize, Serialize};

use super::categorical::CatSet;
use super::monotone::{clip_leaf, Range};
use super::LeafEstimate;

/// Marks a leaf in [`Node::feature`].
const LEAF: u32 = u32::MAX;

/// Whether a threshold split sends value `v` left: a number when `v <=
/// threshold`, a missing value (NaN) when the split's `default_left` is
/// set. The one routing rule of the threshold splits of every tree kind
/// (these trees' [`TreeModel::goes_left`], gbdt's
/// [`GbdtTree::goes_left`](crate::learn::gbdt::GbdtTree::goes_left)),
/// which every walk follows; with `default_left` false it is today's and
/// older files' `v <= threshold` (false for NaN).
#[inline(always)]
pub fn numeric_left(v: f64, threshold: f64, default_left: bool) -> bool {
    (v <= threshold) | (default_left & v.is_nan())
}

/// One node of a fitted tree. Internal nodes send a row left when
/// `x[feature] <= threshold`, and a missing value (NaN) left when
/// `default_left`; a leaf has `feature == u32::MAX` and its leaf number in
/// `left`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// Split feature, or `u32::MAX` for a leaf.
    pub feature: u32,
    /// Split threshold (rows with `x <= threshold` go left).
    pub threshold: f64,
    /// Left child index, or the leaf number for a leaf.
    pub left: u32,
    /// Right child index (unused in a leaf).
    pub right: u32,
    /// Whether a missing value (NaN) goes left at a threshold split (false
    /// at a set split and a leaf). False in files written before missing
    /// values were learned, where NaN went right (`NaN <= t` is false): so
    /// those files predict as they did.
    #[serde(default)]
    pub default_left: bool,
}

impl Node {
    /// True for a leaf.
    pub fn is_leaf(&self) -> bool {
        self.feature == LEAF
    }
}

/// A node of the scoring layout: a split sends `x[feature] <= threshold`
/// to the next node and the rest to `right`; a leaf has `feature == LEAF`
/// and its leaf number in `right`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Flat {
    threshold: f64,
    feature: u32,
    right: u32,
}

/// The scoring layout of `nodes`, or nothing when they do not form a
/// depth-first tree over `n_features` features (a split's left child
/// directly after it, its right child after that and inside the tree, its
/// feature inside the row); then the nodes themselves are walked, every
/// index checked, and a model file that gets so far is refused by its
/// validation. A layout is what lets [`TreeModel::each_leaf`] index without
/// checks.
fn flatten(nodes: &[Node], n_features: usize, sets: &[Option<CatSet>]) -> Vec<Flat> {
    // Set splits walk the nodes themselves.
    let ok = sets.iter().all(Option::is_none)
        && nodes.iter().enumerate().all(|(i, n)| {
            n.is_leaf()
                || (n.left as usize == i + 1
                    && n.right as usize > i
                    && (n.right as usize) < nodes.len()
                    && (n.feature as usize) < n_features)
        });
    if !ok {
        return Vec::new();
    }
    nodes
        .iter()
        .map(|n| Flat {
            threshold: n.threshold,
            feature: n.feature,
            right: if n.is_leaf() { n.left } else { n.right },
        })
        .collect()
}

/// The fields a model file holds (the scoring layout is rebuilt).
#[derive(Deserialize)]
struct TreeFile {
    n_features: usize,
    n_classes: usize,
    nodes: Vec<Node>,
    leaf_counts: Vec<f64>,
    leaf_proba: Vec<f64>,
    #[serde(default)]
    sets: Vec<Option<CatSet>>,
}

impl From<TreeFile> for TreeModel {
    fn from(f: TreeFile) -> Self {
        TreeModel {
            flat: flatten(&f.nodes, f.n_features, &f.sets),
            sets: f.sets,
            n_features: f.n_features,
            n_classes: f.n_classes,
            nodes: f.nodes,
            leaf_counts: f.leaf_counts,
            leaf_proba: f.leaf_proba,
        }
    }
}

/// A fitted probability tree.
///
/// Each leaf keeps the weighted class totals of the training rows that
/// reached it ([`TreeModel::leaf_counts`]); its probabilities are those totals
/// turned into an estimate by the tree's [`LeafEstimate`] (raw frequency by
/// default) and are stored, so prediction is a walk and a slice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "TreeFile")]
pub struct TreeModel {
    n_features: usize,
    n_classes: usize,
    nodes: Vec<Node>,
    leaf_counts: Vec<f64>,
    leaf_proba: Vec<f64>,
    /// Per node, the level set of a split on a categorical feature (rows
    /// whose level is in it go left; missing values and unseen levels
    /// right); empty when no node has one.
    sets: Vec<Option<CatSet>>,
    #[serde(skip)]
    flat: Vec<Flat>,
}

impl TreeModel {
    /// All nodes, root first, in depth-first order (a left child directly
    /// follows its parent).
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Number of leaves.
    pub fn n_leaves(&self) -> usize {
        self.leaf_counts.len() / self.n_classes
    }

    /// Depth of the deepest leaf (0 for a tree that is a single leaf).
    pub fn depth(&self) -> usize {
        let mut depth = vec![0usize; self.nodes.len()];
        let mut max = 0;
        for (i, n) in self.nodes.iter().enumerate() {
            max = max.max(depth[i]);
            if !n.is_leaf() {
                depth[n.left as usize] = depth[i] + 1;
                depth[n.right as usize] = depth[i] + 1;
            }
        }
        max
    }

    /// The leaf number that row `x` falls into.
    #[inline]
    pub fn leaf_index(&self, x: &[f64]) -> usize {
        if !self.flat.is_empty() && !x.iter().any(|v| v.is_nan()) {
            let mut i = 0usize;
            loop {
                let n = &self.flat[i];
                if n.feature == LEAF {
                    return n.right as usize;
                }
                i = if x[n.feature as usize] <= n.threshold {
                    i + 1
                } else {
                    n.right as usize
                };
            }
        }
        let mut i = 0usize;
        loop {
            let n = &self.nodes[i];
            if n.feature == LEAF {
                return n.left as usize;
            }
            let left = self.goes_left(i, x[n.feature as usize]);
            i = if left { n.left } else { n.right } as usize;
        }
    }

    /// Whether split node `i` sends a row whose value of its feature is
    /// `v` left: a level in its set, or a number `<=` its threshold, or a
    /// missing value (NaN) at a threshold split whose `default_left` is
    /// set ([`numeric_left`]). The one routing rule of these trees: the
    /// walks of the scoring layout follow it (they take the layout's
    /// `x <= threshold` where a row holds no NaN, and this rule's
    /// `default_left` where it does).
    #[inline]
    pub fn goes_left(&self, i: usize, v: f64) -> bool {
        let n = &self.nodes[i];
        match self.sets.get(i).and_then(Option::as_ref) {
            Some(s) => s.contains(v),
            None => numeric_left(v, n.threshold, n.default_left),
        }
    }

    /// The level set of node `i` when it splits a categorical feature.
    pub fn set(&self, i: usize) -> Option<&CatSet> {
        self.sets.get(i).and_then(Option::as_ref)
    }

    /// Calls `found(row, leaf)` once for each of the first `rows` rows of
    /// the row-major block `x` (`d` features per row), in no particular
    /// order, with the leaf [`TreeModel::leaf_index`] finds for it. The
    /// rows walk sixteen at a time: a row that reaches its leaf hands its
    /// place to the next row.
    pub fn each_leaf(&self, x: &[f64], d: usize, rows: usize, mut found: impl FnMut(usize, u32)) {
        if self.flat.is_empty() || d < self.n_features || x.len() < rows * d || rows < 16 {
            for i in 0..rows {
                found(i, self.leaf_index(&x[i * d..(i + 1) * d]) as u32);
            }
            return;
        }
        match x[..rows * d].iter().any(|v| v.is_nan()) {
            true => self.each_leaf_with::<true>(x, d, rows, found),
            false => self.each_leaf_with::<false>(x, d, rows, found),
        }
    }

    /// [`TreeModel::each_leaf`] on the scoring layout, of at least 16 rows
    /// (`NAN`: a missing value goes where its node's `default_left` says).
    // long: the sixteen lanes' steps, written out, are the function.
    fn each_leaf_with<const NAN: bool>(
        &self,
        x: &[f64],
        d: usize,
        rows: usize,
        mut found: impl FnMut(usize, u32),
    ) {
        // The lanes are written out below, one per index: 0 to 15.
        const LANES: usize = 16;
        let flat = &self.flat[..];
        // SAFETY: a lane's node is one of the layout (walks
        // start at the root of a non-empty layout and `flatten` checked
        // that a split's children lie inside it); a split's feature is below
        // `n_features <= d`, a lane's row below `rows` and its offset
        // `row * d`, and `x` holds `rows * d` values.
        let node = |at: usize| unsafe { *flat.get_unchecked(at) };
        // SAFETY: a lane's row offset plus a feature below `d` is inside
        // `x`, as above.
        let value = |start: usize, f: u32| unsafe { *x.get_unchecked(start + f as usize) };
        // Where split `at` sends value `v` (the nodes are the layout's,
        // index for index).
        let goes = |at: usize, v: f64, t: f64| match NAN {
            true => numeric_left(v, t, self.nodes[at].default_left),
            false => v <= t,
        };
        let mut row: [usize; LANES] = std::array::from_fn(|l| l);
        let mut base: [usize; LANES] = std::array::from_fn(|l| l * d);
        let mut at = [0usize; LANES];
        let mut live = [true; LANES];
        let mut next = LANES;
        // One step of lane `l` (written out for each lane: constant
        // indices keep the lanes' state out of index arithmetic).
        macro_rules! step {
            ($($l:literal)*) => {$(
                let n = node(at[$l]);
                if n.feature == LEAF {
                    found(row[$l], n.right);
                    if next < rows {
                        row[$l] = next;
                        base[$l] = next * d;
                        next += 1;
                        at[$l] = 0;
                    } else {
                        live[$l] = false;
                    }
                } else {
                    at[$l] = if goes(at[$l], value(base[$l], n.feature), n.threshold) {
                        at[$l] + 1
                    } else {
                        n.right as usize
                    };
                }
            )*};
        }
        // Every lane walks while rows remain: one that reaches its leaf
        // takes the next row.
        while next < rows {
            step!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
        }
        // The last rows finish.
        let mut left = live.iter().filter(|&&b| b).count();
        while left > 0 {
            for l in 0..LANES {
                if !live[l] {
                    continue;
                }
                let n = node(at[l]);
                if n.feature == LEAF {
                    found(row[l], n.right);
                    live[l] = false;
                    left -= 1;
                    continue;
                }
                at[l] = if goes(at[l], value(base[l], n.feature), n.threshold) {
                    at[l] + 1
                } else {
                    n.right as usize
                };
            }
        }
    }

    /// The leaf [`TreeModel::leaf_index`] finds for row `x` in each of
    /// `trees` (`leaves.len() == trees.len()`). One row walks eight trees
    /// at a time, so that the memory latency of one tree's next node
    /// overlaps the others' (the few rows of a one-row prediction have no
    /// other rows to walk beside).
    pub fn leaves_of_row(trees: &[&TreeModel], x: &[f64], leaves: &mut [u32]) {
        const LANES: usize = 8;
        // A row with a missing value walks the nodes, by `goes_left`.
        let nan = x.iter().any(|v| v.is_nan());
        for (group, out) in trees.chunks(LANES).zip(leaves.chunks_mut(LANES)) {
            if nan
                || group
                    .iter()
                    .any(|t| t.flat.is_empty() || x.len() < t.n_features)
            {
                for (t, o) in group.iter().zip(out.iter_mut()) {
                    *o = t.leaf_index(x) as u32;
                }
                continue;
            }
            let mut at = [0usize; LANES];
            let mut done = [false; LANES];
            done[group.len()..].iter_mut().for_each(|d| *d = true);
            let mut left = group.len();
            while left > 0 {
                for (l, t) in group.iter().enumerate() {
                    if done[l] {
                        continue;
                    }
                    // SAFETY: the walk starts at the root of a non-empty
                    // layout and `flatten` checked that a split's children
                    // lie inside it and its feature below `n_features <=
                    // x.len()`.
                    let n = unsafe { *t.flat.get_unchecked(at[l]) };
                    if n.feature == LEAF {
                        out[l] = n.right;
                        done[l] = true;
                        left -= 1;
                    } else {
                        // SAFETY: a split's feature is below `n_features
                        // <= x.len()`, checked by `flatten` (above).
                        let v = unsafe { *x.get_unchecked(n.feature as usize) };
                        at[l] = if v <= n.threshold {
                            at[l] + 1
                        } else {
                            n.right as usize
                        };
                    }
                }
            }
        }
    }

    /// The class probabilities of leaf `leaf`.
    #[inline]
    pub fn proba_of_leaf(&self, leaf: usize) -> &[f64] {
        &self.leaf_proba[leaf * self.n_classes..(leaf + 1) * self.n_classes]
    }

    /// The class probabilities for row `x`.
    #[inline]
    pub fn leaf_proba(&self, x: &[f64]) -> &[f64] {
        let l = self.leaf_index(x);
        &self.leaf_proba[l * self.n_classes..(l + 1) * self.n_classes]
    }

    /// The weighted class totals of the training rows in leaf `leaf`.
    pub fn leaf_counts(&self, leaf: usize) -> &[f64] {
        &self.leaf_counts[leaf * self.n_classes..(leaf + 1) * self.n_classes]
    }

    /// Per feature, the total weighted decrease in Gini impurity of the
    /// splits on it: `W_t G(t) - W_l G(l) - W_r G(r)` summed over the nodes
    /// `t` that split on the feature, with `W` a node's weighted row total
    /// and `G = 1 - sum_k p_k^2` (Breiman et al. 1984; scikit-learn's
    /// `feature_importances_` of a Gini tree, before normalisation). A
    /// node's class totals are the sums of its leaves' totals.
    pub fn gini_decrease(&self) -> Vec<f64> {
        let k = self.n_classes;
        // Children follow their parents, so a reverse pass sees both
        // children of a node before the node.
        let mut totals = vec![0.0; self.nodes.len() * k];
        let mut out = vec![0.0; self.n_features];
        let weighted_gini = |t: &[f64]| {
            let w: f64 = t.iter().sum();
            if w > 0.0 {
                w - t.iter().map(|c| c * c).sum::<f64>() / w
            } else {
                0.0
            }
        };
        for i in (0..self.nodes.len()).rev() {
            let n = self.nodes[i];
            let (own, below) = totals.split_at_mut((i + 1) * k);
            let own = &mut own[i * k..];
            if n.is_leaf() {
                own.copy_from_slice(self.leaf_counts(n.left as usize));
                continue;
            }
            let at = |j: u32| &below[(j as usize - i - 1) * k..(j as usize - i) * k];
            let (l, r) = (at(n.left), at(n.right));
            for c in 0..k {
                own[c] = l[c] + r[c];
            }
            out[n.feature as usize] += weighted_gini(own) - weighted_gini(l) - weighted_gini(r);
        }
        out
    }
}

impl Kind for TreeModel {
    const KIND: &'static str = "Tree";
}

impl Classifier for TreeModel {
    /// Number of classes.
    fn n_classes(&self) -> usize {
        self.n_classes
    }

    /// Number of features expected.
    fn n_features(&self) -> usize {
        self.n_features
    }

    fn predict_row(&self, x: &[f64], out: &mut [f64]) {
        out.copy_from_slice(self.leaf_proba(x));
    }

    /// Normalised Gini decrease per feature ([`TreeModel::gini_decrease`]).
    fn importances(&self) -> Option<Importances> {
        Some(Importances::single(self.gini_decrease()))
    }

    fn to_onnx(&self, g: &mut Graph, x: &Value) -> Result<Value, String> {
        let table = self.onnx_table(self.leaf_table());
        tree_sum(g, x, &[table], self.n_classes)
    }

    /// The tree's probabilities (of the second class, with two): one tree
    /// in probability space.
    fn additive(&self, leaf: Option<LeafMap<'_>>) -> Result<Additive, String> {
        let k = self.n_classes;
        if k < 2 {
            return Err("a tree of one class".into());
        }
        let tree = self.shap_tree(leaf, TreeModel::explained(k))?;
        let (outputs, output) = if k == 2 {
            (1, Output::One(0))
        } else {
            (k, Output::All)
        };
        let term = Term { output, tree };
        Ok(Additive::of_trees(
            Space::Probability,
            (0..k).collect(),
            vec![0.0; outputs],
            vec![term],
        ))
    }

    fn predict_rows(&self, x: &[f64], out: &mut [f64]) {
        let k = self.n_classes;
        self.each_leaf(x, self.n_features, out.len() / k, |r, l| {
            out[r * k..(r + 1) * k].copy_from_slice(self.proba_of_leaf(l as usize));
        });
    }

    /// Checks the shapes; the structure (every node but the root the child
    /// of exactly one split, after it, so that every node is reached and
    /// the nodes form one tree; each leaf's row of the leaf tables held by
    /// one leaf), the depth (at most [`MAX_TREE_DEPTH`]); each split
    /// ([`TreeModel::check_split`]); and the leaves' numbers (weighted
    /// totals finite and `>= 0`, probabilities in `[0, 1]` summing to 1).
    /// Says what is wrong.
    fn validate(&self) -> Result<(), String> {
        let k = self.n_classes;
        if k == 0 || self.nodes.is_empty() {
            return Err("tree has no classes or no nodes".into());
        }
        if !self.leaf_counts.len().is_multiple_of(k)
            || self.leaf_proba.len() != self.leaf_counts.len()
        {
            return Err("tree leaf tables have inconsistent shapes".into());
        }
        if !self.sets.is_empty() && self.sets.len() != self.nodes.len() {
            return Err("tree level sets do not match its nodes".into());
        }
        check::non_negative("tree leaf total", &self.leaf_counts)?;
        check::probability_rows("tree leaf probability", &self.leaf_proba, k)?;
        let n_leaves = self.n_leaves();
        let mut depth = vec![0usize; self.nodes.len()];
        let mut reached = vec![false; self.nodes.len()];
        let mut leaf_held = vec![false; n_leaves];
        for (i, n) in self.nodes.iter().enumerate() {
            // Parents come first, so whether node i is reached is known.
            if i > 0 && !reached[i] {
                return Err(format!(
                    "tree node {i} is unreachable: no split leads to it"
                ));
            }
            if n.is_leaf() {
                let l = n.left as usize;
                if self.set(i).is_some() || n.default_left {
                    return Err(format!(
                        "tree node {i} is a leaf with a level set or a missing-value direction"
                    ));
                }
                if l >= n_leaves || std::mem::replace(&mut leaf_held[l], true) {
                    return Err(format!(
                        "tree node {i} points to a missing leaf or to another node's"
                    ));
                }
                continue;
            }
            self.check_split(i)?;
            if depth[i] + 1 > MAX_TREE_DEPTH {
                return Err(format!(
                    "tree is deeper than {MAX_TREE_DEPTH} levels (node {i}), the most rarity \
                     grows, reads or exports"
                ));
            }
            for c in [n.left as usize, n.right as usize] {
                if std::mem::replace(&mut reached[c], true) {
                    return Err(format!("tree node {c} has two parents"));
                }
                depth[c] = depth[i] + 1;
            }
        }
        if let Some(l) = leaf_held.iter().position(|&h| !h) {
            return Err(format!("tree leaf {l} belongs to no node"));
        }
        Ok(())
    }
}

impl TreeModel {
    /// Checks split node `i`: its feature inside the row, its threshold a
    /// number (not NaN), its children after it and inside the tree, a level
    /// set only on a split.
    fn check_split(&self, i: usize) -> Result<(), String> {
        let n = &self.nodes[i];
        let inside = |c: u32| (c as usize) > i && (c as usize) < self.nodes.len();
        if n.feature as usize >= self.n_features || !inside(n.left) || !inside(n.right) {
            return Err(format!("tree node {i} has an invalid feature or child"));
        }
        if n.threshold.is_nan() {
            return Err(format!("tree node {i} splits at a NaN threshold"));
        }
        if n.default_left && self.set(i).is_some() {
            return Err(format!(
                "tree node {i} sends missing values left but is not a threshold split"
            ));
        }
        Ok(())
    }
}

/// A tree being grown: nodes are appended in depth-first order and children
/// patched in when they are created.
#[derive(Debug)]
pub(crate) struct Growing {
    n_features: usize,
    n_classes: usize,
    nodes: Vec<Node>,
    leaf_counts: Vec<f64>,
    /// Per leaf, the bounds of its positive class's probability
    /// ([`super::monotone`]).
    leaf_ranges: Vec<Range>,
    sets: Vec<Option<CatSet>>,
}

impl Growing {
    pub(crate) fn new(n_features: usize, n_classes: usize) -> Self {
        Growing {
            n_features,
            n_classes,
            nodes: Vec::new(),
            leaf_counts: Vec::new(),
            leaf_ranges: Vec::new(),
            sets: Vec::new(),
        }
    }

    /// Appends a node and links it to its parent (`None` for the root);
    /// returns its index.
    fn push(&mut self, node: Node, parent: Option<(usize, bool)>) -> usize {
        let idx = self.nodes.len();
        self.nodes.push(node);
        self.sets.push(None);
        if let Some((p, is_left)) = parent {
            if is_left {
                self.nodes[p].left = idx as u32;
            } else {
                self.nodes[p].right = idx as u32;
            }
        }
        idx
    }

    /// Appends a leaf holding the weighted class totals `counts`.
    pub(crate) fn leaf(&mut self, counts: &[f64], parent: Option<(usize, bool)>) {
        self.leaf_in(counts, parent, Range::ALL);
    }

    /// Appends a leaf holding the weighted class totals `counts`, whose
    /// positive class's probability is clipped to `range` (a monotone
    /// tree's, [`super::monotone`]).
    pub(crate) fn leaf_in(&mut self, counts: &[f64], parent: Option<(usize, bool)>, range: Range) {
        let leaf = (self.leaf_counts.len() / self.n_classes) as u32;
        self.leaf_counts.extend_from_slice(counts);
        self.leaf_ranges.push(range);
        self.push(
            Node {
                feature: LEAF,
                threshold: 0.0,
                left: leaf,
                right: 0,
                default_left: false,
            },
            parent,
        );
    }

    /// Appends a split node (a missing value going left when
    /// `default_left`); its children are linked when they are pushed.
    pub(crate) fn split(
        &mut self,
        feature: usize,
        threshold: f64,
        default_left: bool,
        parent: Option<(usize, bool)>,
    ) -> usize {
        self.push(
            Node {
                feature: feature as u32,
                threshold,
                left: 0,
                right: 0,
                default_left,
            },
            parent,
        )
    }

    /// Appends a split node sending the levels of `set` left.
    pub(crate) fn split_set(
        &mut self,
        feature: usize,
        set: CatSet,
        parent: Option<(usize, bool)>,
    ) -> usize {
        let idx = self.split(feature, 0.0, false, parent);
        self.sets[idx] = Some(set);
        idx
    }

    /// The finished tree, leaf probabilities estimated from the totals
    /// (and clipped to their leaves' bounds, [`clip_leaf`]).
    pub(crate) fn finish(self, estimate: LeafEstimate, priors: &[f64]) -> TreeModel {
        let k = self.n_classes;
        let mut leaf_proba = vec![0.0; self.leaf_counts.len()];
        let leaves = self.leaf_counts.chunks(k).zip(&self.leaf_ranges);
        for ((c, &range), p) in leaves.zip(leaf_proba.chunks_mut(k)) {
            estimate.apply(c, priors, p);
            clip_leaf(p, range);
        }
        let mut sets = self.sets;
        if sets.iter().all(Option::is_none) {
            sets.clear();
        }
        TreeModel {
            flat: flatten(&self.nodes, self.n_features, &sets),
            sets,
            n_features: self.n_features,
            n_classes: k,
            nodes: self.nodes,
            leaf_counts: self.leaf_counts,
            leaf_proba,
        }
    }
}
