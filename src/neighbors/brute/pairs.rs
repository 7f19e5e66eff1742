//! The self-search: queries and references are the same points, each point
//! skips itself (Tomek links, ENN, SMOTE within a class). Each pair of
//! points is visited once and offered to both lists.
//!
//! The points are first reordered along a k-d tree ([`Partition`], leaves of
//! [`leaf_size`] points) whose leaves are the tiles of the kernel: nearby
//! points share a tile. Then, as a dual-tree search (Gray & Moore 2001,
//! "N-body problems in statistical learning"; Curtin et al. 2013,
//! "Tree-independent dual-tree algorithms"), over pairs of a leaf and a node:
//!
//! 1. every leaf is searched against itself, which gives every point a
//!    finite k-th key, usually close to its final one;
//! 2. every leaf `i` then walks the tree for the leaves after it, nearer
//!    child first, and skips a node when the lower bound of the key of any
//!    pair between the two boxes ([`Partition::pair_bound`], allowed for
//!    rounding) is strictly above both the largest k-th key in leaf `i` and
//!    the largest in the node ([`NodeBounds`]): no pair there can enter a
//!    list, not even by a tie.
//!
//! On data whose points spread far beyond their neighbours' distances (a
//! timestamp, an amount) nearly every pair of leaves is skipped; on
//! high-dimensional Gaussian data almost none are, and the tree order only
//! makes lists reach their final k-th keys sooner (fewer exact re-checks).
//! So after step 1 the bounds are tried on a few leaves
//! ([`Search::prunes_enough`]): when they rule out less than an eighth of
//! the pairs of leaves, each leaf takes every leaf after it in order, with
//! no bound computed (the walks would cost a few per cent for nothing).
//! A pair of leaves gets the single-precision first pass only when its
//! rounding allowance is small against the k-th keys in play (large
//! centred norms, as a timestamp gives, make it loose); otherwise the
//! double-precision one.
//!
//! The leaves are dealt to a few runs per thread (leaf `i` to run
//! `i mod runs`, so that the long walks of the first leaves are spread);
//! each run keeps lists for all points, prunes with the lowest k-th keys
//! any run has reached ([`Shared`]), and the runs' lists are merged at the
//! end: the best `k` of a union do not depend on how it was split, and a
//! skipped pair could not have entered, so the result is the same at any
//! thread count.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::super::partition::Partition;
use super::super::Lists;
use super::{nearer_first, ref_block, Shared, Task, Walk, LANES_F32};
use crate::progress::Progress;

/// Points per leaf in `d` dimensions: whole groups of the single-precision
/// kernel, about an L1 cache of double-precision values (128 at 30
/// features), at most the kernel's tile.
pub(super) fn leaf_size(d: usize) -> usize {
    ref_block(d, LANES_F32, 8)
}

/// The lists of the self-search of the points of `tree` (in tree order:
/// lists indexed by position, recording the original indices of
/// `task.ids`), `k >= 1`.
pub(super) fn self_search(task: &Task<'_>, tree: &Partition, k: usize) -> Lists {
    let n = tree.orig.len();
    let leaves = Leaves::of(tree, task);
    let runs = (4 * rayon::current_num_threads())
        .min(leaves.node.len())
        .max(1);
    let shared = Shared::new(n);
    let mut search = Search {
        task,
        tree,
        leaves: &leaves,
        shared: &shared,
        bounds: NodeBounds::new(tree.nodes.len()),
        prune: true,
    };
    let mine = |r: usize| (r..leaves.node.len()).step_by(runs);
    // One unit per leaf in each phase.
    let progress = Progress::start("neighbour search: leaves", 2 * leaves.node.len() as u64);
    // Phase 1, each leaf against itself.
    let lists: Vec<Lists> = (0..runs)
        .into_par_iter()
        .map(|r| {
            let mut lists = Lists::new(n, k);
            for i in mine(r) {
                let span = leaves.span(tree, i);
                let f32 = search.single_suits_alone(i);
                task.tile((span.clone(), span), Some(&shared), &mut lists, f32);
                progress.add(1);
            }
            lists
        })
        .collect();
    search.bounds.fill(tree, &shared);
    search.prune = search.prunes_enough();
    // Phase 2, each leaf against the nodes after it.
    lists
        .into_par_iter()
        .enumerate()
        .map(|(r, mut lists)| {
            for i in mine(r) {
                search.walk(i, &mut lists);
                progress.add(1);
            }
            lists
        })
        .reduce_with(Lists::merge)
        .unwrap_or_else(|| Lists::new(n, k))
}

/// The leaves of a tree in position order, and each node's parent.
struct Leaves {
    /// Node of leaf `i`.
    node: Vec<usize>,
    /// Parent of each node (`usize::MAX` for the root).
    parent: Vec<usize>,
    /// Per leaf, the largest centred squared norm of its points, and the
    /// largest of all (for the single-precision allowance).
    norm: Vec<f64>,
    norm_max: f64,
}

impl Leaves {
    /// The leaves of `tree`, with the norms of `task`'s packed points.
    fn of(tree: &Partition, task: &Task<'_>) -> Self {
        let mut parent = vec![usize::MAX; tree.nodes.len()];
        for (i, nd) in tree.nodes.iter().enumerate() {
            if !nd.is_leaf() {
                parent[nd.left] = i;
                parent[nd.left + 1] = i;
            }
        }
        let mut node: Vec<usize> = (0..tree.nodes.len())
            .filter(|&i| tree.nodes[i].is_leaf())
            .collect();
        node.sort_by_key(|&i| tree.nodes[i].start);
        let norm: Vec<f64> = node
            .iter()
            .map(|&i| {
                let nd = &tree.nodes[i];
                let norms = &task.rpack.norm[nd.start..nd.end];
                norms.iter().copied().fold(0.0, f64::max)
            })
            .collect();
        let norm_max = norm.iter().copied().fold(0.0, f64::max);
        Leaves {
            node,
            parent,
            norm,
            norm_max,
        }
    }

    /// The positions of leaf `i`.
    fn span(&self, tree: &Partition, i: usize) -> Range<usize> {
        let nd = &tree.nodes[self.node[i]];
        nd.start..nd.end
    }
}

/// Per node, a bound of the k-th keys of its points: a leaf's is the
/// largest of some run's k-th keys of its points (each at least the final
/// one), refreshed after each of its tiles and carried up to the root.
/// Updates race, but every value stored is the largest of values that are
/// each at least the final k-th key of every point below, and so is it.
struct NodeBounds(Vec<AtomicU64>);

impl NodeBounds {
    fn new(nodes: usize) -> Self {
        NodeBounds(
            (0..nodes)
                .map(|_| AtomicU64::new(f64::INFINITY.to_bits()))
                .collect(),
        )
    }

    fn get(&self, node: usize) -> f64 {
        f64::from_bits(self.0[node].load(Ordering::Relaxed))
    }

    fn set(&self, node: usize, v: f64) {
        self.0[node].store(v.to_bits(), Ordering::Relaxed);
    }

    /// Every node's bound from the shared k-th keys (children follow their
    /// parents, so a reverse sweep sees the children first).
    fn fill(&self, tree: &Partition, shared: &Shared) {
        for (i, nd) in tree.nodes.iter().enumerate().rev() {
            let v = if nd.is_leaf() {
                (nd.start..nd.end)
                    .map(|p| shared.get(p))
                    .fold(f64::NEG_INFINITY, f64::max)
            } else {
                self.get(nd.left).max(self.get(nd.left + 1))
            };
            self.set(i, v);
        }
    }
}

/// One self-search, shared by the runs.
struct Search<'a> {
    task: &'a Task<'a>,
    tree: &'a Partition,
    leaves: &'a Leaves,
    shared: &'a Shared,
    bounds: NodeBounds,
    /// Whether phase 2 walks the tree with bounds, or takes every leaf
    /// after the walking one, in order (see [`Search::prunes_enough`]).
    prune: bool,
}

impl Search<'_> {
    /// The k-th key of point `p` as far as this run knows.
    fn limit(&self, lists: &Lists, p: usize) -> f64 {
        lists.worst(p).min(self.shared.get(p))
    }

    /// The largest k-th key of the points `span`.
    fn largest(&self, lists: &Lists, span: Range<usize>) -> f64 {
        span.map(|p| self.limit(lists, p))
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// Leaf `i` against the nodes after it (phase 2).
    fn walk(&self, i: usize, lists: &mut Lists) {
        if crate::cancel::requested() {
            return;
        }
        let span = self.leaves.span(self.tree, i);
        let mut state = Walk {
            leaf: self.leaves.node[i],
            span: span.clone(),
            largest: self.largest(lists, span),
            tiles: 0,
            f32: self.single_suits(i, lists),
        };
        if self.prune {
            self.visit(&mut state, 0, f64::NEG_INFINITY, lists);
        } else {
            for &other in &self.leaves.node[i + 1..] {
                self.pair(&mut state, other, lists);
            }
        }
    }

    /// Whether the bounds rule out enough pairs of leaves (an eighth) to pay
    /// for computing them: judged on [`PROBES`] leaves at even steps, each
    /// against every leaf after it, with the k-th keys known after phase 1.
    /// Deciding depends only on phase 1, which does not depend on the
    /// thread count; and either way the result is exact. (On wide Gaussian
    /// data almost no pair is ruled out, and the walks cost a few per cent
    /// for nothing.)
    fn prunes_enough(&self) -> bool {
        let nodes = &self.leaves.node;
        let (mut out, mut all) = (0usize, 0usize);
        for i in (0..nodes.len()).step_by(nodes.len().div_ceil(PROBES).max(1)) {
            let (a, largest) = (nodes[i], self.bounds.get(nodes[i]));
            for &b in &nodes[i + 1..] {
                let low = self.tree.pair_bound(a, b, self.task.farthest);
                out += usize::from(self.rules_out(low, largest, b));
                all += 1;
            }
        }
        out * 8 >= all
    }

    /// The bound `low` of the pairs of a leaf whose largest k-th key is
    /// `largest` and node `node` proves that none of them enters a list.
    /// (An infinite bound may be an overflow: it rules nothing out.)
    fn rules_out(&self, low: f64, largest: f64, node: usize) -> bool {
        low < f64::INFINITY && low > largest && low > self.bounds.get(node)
    }

    /// Node `node` for the leaf of `w`, `low` the bound of its pairs.
    fn visit(&self, w: &mut Walk, node: usize, low: f64, lists: &mut Lists) {
        let nd = &self.tree.nodes[node];
        if nd.end <= w.span.end || self.rules_out(low, w.largest, node) {
            return;
        }
        if nd.is_leaf() {
            self.pair(w, node, lists);
            return;
        }
        let farthest = self.task.farthest;
        let (a, b) = (nd.left, nd.left + 1);
        let la = self.tree.pair_bound(w.leaf, a, farthest);
        let lb = self.tree.pair_bound(w.leaf, b, farthest);
        for (child, low) in nearer_first((a, la), (b, lb)) {
            self.visit(w, child, low, lists);
        }
    }

    /// The tile of the leaf of `w` and leaf node `other`; then the bound of
    /// the walking leaf is refreshed after each of its first
    /// [`REFRESH_EVERY`] tiles (the nearest, which lower it most) and after
    /// every [`REFRESH_EVERY`]-th later one (a refresh reads every point's
    /// k-th key: on data where nothing is pruned, doing it after every
    /// tile costs a few per cent).
    fn pair(&self, w: &mut Walk, other: usize, lists: &mut Lists) {
        let nd = &self.tree.nodes[other];
        self.task.tile(
            (w.span.clone(), nd.start..nd.end),
            Some(self.shared),
            lists,
            w.f32,
        );
        w.tiles += 1;
        if self.prune && (w.tiles <= REFRESH_EVERY || w.tiles.is_multiple_of(REFRESH_EVERY)) {
            w.largest = self.largest(lists, w.span.clone());
            self.lower(w.leaf, w.largest);
        }
    }

    /// The single-precision rounding allowance (see `tile_f32_body`) of the
    /// tiles of leaf `i` with any leaf, if that pass is available.
    fn allowance(&self, i: usize) -> Option<f64> {
        let one = self.task.single?;
        let norms = self.leaves.norm[i] + self.leaves.norm_max;
        Some(f64::from(one.c_rel) * norms + f64::from(one.c_abs))
    }

    /// Whether the single-precision first pass suits leaf `i` against
    /// itself, before any k-th key is known: its allowance is below
    /// 1/3200 of the squared diagonal of the leaf's box (k-th keys of
    /// points spread as widely as the leaf's are seldom below 1/100 of it;
    /// see [`Self::single_suits`] for the factor 32).
    fn single_suits_alone(&self, i: usize) -> bool {
        self.allowance(i)
            .is_some_and(|a| a * 3200.0 <= self.tree.spread(self.leaves.node[i]))
    }

    /// Whether the single-precision first pass suits the tiles of leaf `i`
    /// (its walk): its rounding allowance (see `tile_f32_body`), for the largest
    /// centred norm in the leaf and the largest of all, is below 1/32 of
    /// the k-th keys of all but an eighth of its points at most. (A larger
    /// allowance lets through pairs whose keys exceed a k-th key by up to
    /// twice it, each an exact re-check.)
    fn single_suits(&self, i: usize, lists: &Lists) -> bool {
        let Some(allowance) = self.allowance(i) else {
            return false;
        };
        let span = self.leaves.span(self.tree, i);
        let n = span.len();
        let small = span
            .filter(|&p| self.limit(lists, p) < 32.0 * allowance)
            .count();
        small * 8 <= n
    }

    /// Stores `v` as the bound of leaf node `leaf`, if lower, and carries
    /// it up.
    fn lower(&self, leaf: usize, v: f64) {
        if v >= self.bounds.get(leaf) {
            return;
        }
        self.bounds.set(leaf, v);
        let mut node = self.leaves.parent[leaf];
        let mut child = leaf;
        while node != usize::MAX {
            let left = self.tree.nodes[node].left;
            let sibling = if child == left { left + 1 } else { left };
            let v = self.bounds.get(child).max(self.bounds.get(sibling));
            self.bounds.set(node, v);
            child = node;
            node = self.leaves.parent[node];
        }
    }
}

/// See [`Search::pair`].
const REFRESH_EVERY: usize = 8;
/// See [`Search::prunes_enough`].
const PROBES: usize = 16;

#[cfg(test)]
mod tests {
    use super::super::super::{scan, Exclude, Points, Query};
    use super::super::search_with;
    use super::super::tests::{assert_every_kernel, hard_sets};

    /// The dual-tree self-search gives the direct scan's lists, keys bit for
    /// bit, on thousands of points spread over many leaves, with every
    /// kernel, with and without the single-precision pass, nearest and
    /// farthest, at one and two threads, on the hard sets (a `generate
    /// fraud` table where most pairs of leaves are pruned, the same with
    /// ties and duplicates, wide points where none is).
    #[test]
    fn self_search_equals_the_scan_on_large_sets() {
        for (x, d) in hard_sets(4000, 7, 1500) {
            let n = x.len() / d;
            let p = Points::new(&x, n, d).unwrap();
            for (k, far) in [(1, false), (3, false), (2, true)] {
                let q = Query {
                    queries: p,
                    refs: p,
                    k,
                    exclude: Exclude::SameIndex,
                    farthest: far,
                };
                assert_every_kernel(
                    &scan(q),
                    &format!("n={n} k={k} far={far}"),
                    |kernel, single| search_with(kernel, single, q, true),
                );
            }
        }
    }
}
