//! The cross search: queries and references are different points (the k-NN
//! learner's predictions, NearMiss, a minority row's neighbours among all
//! rows).
//!
//! Both sets are reordered along k-d trees ([`Partition`]) whose leaves are
//! the kernel's tiles. Each leaf of queries then walks the references'
//! tree, nearer child first (Gray & Moore 2001's dual-tree search, as the
//! self-search in `pairs` does), and skips a node when the lower bound of
//! the key of any pair between the two boxes ([`Partition::pair_bound_with`],
//! allowed for rounding) is strictly above the largest k-th key in the
//! leaf: no pair there can enter a list, not even by a tie. So the result is
//! the direct scan's, whatever the order of the visits.
//!
//! The order matters for speed. Taking the references in their own order,
//! as this search once did, a list only improves when a nearer reference
//! comes; on data sorted along a coordinate that dominates the distances
//! (rows in time order, a timestamp feature) each reference before a query
//! is nearer than the last, so about half of all pairs improved a list and
//! took the exact re-check: 7.0 s for the 25,000 x 25,000 search of a
//! `generate fraud` fold. Visited nearest first, the lists reach their final
//! k-th keys within a few tiles and nearly every other leaf is skipped.
//!
//! With references too few for more than a few leaves (NearMiss's minority
//! rows) there is nothing to skip and ordering the queries would cost more
//! than it saves: blocks of queries in their own order take every leaf.
//!
//! After its first tile, a leaf of queries keeps the single-precision first
//! pass only when its rounding allowance is small against the k-th keys
//! found (the rule of the self-search: large centred norms, as a timestamp
//! gives, make it loose); else it takes the double-precision one.

use rayon::prelude::*;

use super::super::partition::Partition;
use super::super::{Exclude, Lists, Points, Query};
use super::{nearer_first, ref_block, Kernel, Operands, Task, Walk, BLOCK, LANES_F32};
use crate::progress::Progress;

/// The lists of every query of `queries` among `refs` (`k >= 1`, at most
/// the references available), by query index, recording reference indices.
pub(super) fn cross_search(kernel: Kernel, single: bool, q: Query<'_>) -> Lists {
    let Query {
        queries,
        refs,
        k,
        exclude,
        farthest,
    } = q;
    // Leaves of references: about an L1 cache of the first pass's values.
    let rtree = Partition::new(refs, ref_block(refs.d, LANES_F32, 4));
    // Whole panels of the kernel per leaf of queries.
    let qt = kernel.tile();
    let qleaf = BLOCK / qt * qt;
    // (A tree of L leaves has 2L - 1 nodes.)
    if rtree.nodes.len().div_ceil(2) < FEW_LEAVES {
        return in_order(kernel, single, queries, &rtree, k, exclude, farthest, qleaf);
    }
    let qtree = Partition::new(queries, qleaf);
    let skip = skipped(exclude, qtree.orig.iter().copied(), &rtree.orig);
    let exclude = skip.as_deref().map_or(Exclude::Nothing, Exclude::Given);
    let (qp, rp) = (qtree.points(), rtree.points());
    let ops = Operands::new(kernel, single, qp, rp, farthest);
    let task = Task::new(kernel, &ops, (qp, rp), exclude, farthest, Some(&rtree.orig));
    let leaves = leaves_of(&qtree);
    let mut walk = Walker {
        task: &task,
        qtree: &qtree,
        rtree: &rtree,
        ref_leaves: leaves_of(&rtree),
        k,
        refs_norm: ops.rpack.norm.iter().copied().fold(0.0, f64::max),
        prune: true,
    };
    let progress = Progress::start("neighbour search: query blocks", leaves.len() as u64);
    let run = |walk: &Walker<'_>, leaf: usize| {
        let done = walk.leaf(leaf);
        progress.add(1);
        done
    };
    // A few leaves at even steps first, with the bounds. When they skip
    // less than an eighth of the references' leaves (wide, high-dimensional
    // data), the others take every reference leaf in tree order without
    // computing a bound. The choice depends only on those leaves' walks, so
    // not on the thread count; either way the lists are exact.
    let step = leaves.len().div_ceil(PROBES).max(1);
    let probes: Vec<(Lists, usize)> = leaves
        .par_iter()
        .step_by(step)
        .map(|&leaf| run(&walk, leaf))
        .collect();
    let tiled: usize = probes.iter().map(|p| p.1).sum();
    let all = probes.len() * walk.ref_leaves.len();
    walk.prune = (all - tiled) * 8 >= all;
    let rest: Vec<Option<Lists>> = leaves
        .par_iter()
        .enumerate()
        .map(|(i, &leaf)| (i % step != 0).then(|| run(&walk, leaf).0))
        .collect();
    let mut probes = probes.into_iter().map(|p| p.0);
    let parts = rest
        .into_iter()
        .map(|part| part.unwrap_or_else(|| probes.next().expect("a probe per step")))
        .collect();
    Lists::concat(parts, queries.n, k).by_original_index(&qtree.orig)
}

/// Leaves whose walks decide whether the others use the bounds.
const PROBES: usize = 16;

/// Below this many leaves of references there is little to skip, and
/// ordering the queries (a serial pass over them) would cost more than it
/// saves: NearMiss's few minority references, for one.
const FEW_LEAVES: usize = 4;

/// The cross search when the references' tree has fewer than
/// [`FEW_LEAVES`] leaves: blocks of `block` queries in their own order, in
/// parallel, each against every leaf.
#[allow(clippy::too_many_arguments)]
fn in_order(
    kernel: Kernel,
    single: bool,
    queries: Points<'_>,
    rtree: &Partition,
    k: usize,
    exclude: Exclude<'_>,
    farthest: bool,
    block: usize,
) -> Lists {
    let skip = skipped(exclude, 0..queries.n, &rtree.orig);
    let exclude = skip.as_deref().map_or(Exclude::Nothing, Exclude::Given);
    let rp = rtree.points();
    let ops = Operands::new(kernel, single, queries, rp, farthest);
    let task = Task::new(
        kernel,
        &ops,
        (queries, rp),
        exclude,
        farthest,
        Some(&rtree.orig),
    );
    let ref_leaves = leaves_of(rtree);
    let blocks = queries.n.div_ceil(block);
    let progress = Progress::start("neighbour search: query blocks", blocks as u64);
    let parts = (0..blocks)
        .into_par_iter()
        .map(|b| {
            let span = b * block..((b + 1) * block).min(queries.n);
            let mut lists = Lists::new(span.len(), k);
            for &leaf in &ref_leaves {
                let nd = &rtree.nodes[leaf];
                task.tile((span.clone(), nd.start..nd.end), None, &mut lists, true);
            }
            progress.add(1);
            lists
        })
        .collect();
    Lists::concat(parts, queries.n, k)
}

/// The leaf nodes of `tree`, in the order of their points.
fn leaves_of(tree: &Partition) -> Vec<usize> {
    let mut leaves: Vec<usize> = (0..tree.nodes.len())
        .filter(|&i| tree.nodes[i].is_leaf())
        .collect();
    leaves.sort_by_key(|&i| tree.nodes[i].start);
    leaves
}

/// The exclusion in tree positions: for the query at position `p` (of
/// original index `qorig[p]`), the position of the reference it skips (`usize::MAX` for none); `None` when
/// nothing is excluded.
fn skipped(
    exclude: Exclude<'_>,
    qorig: impl Iterator<Item = usize>,
    rorig: &[usize],
) -> Option<Vec<usize>> {
    if matches!(exclude, Exclude::Nothing) {
        return None;
    }
    let mut at = vec![usize::MAX; rorig.len()];
    for (p, &o) in rorig.iter().enumerate() {
        at[o] = p;
    }
    Some(
        qorig
            .map(|q| at.get(exclude.skip(q)).copied().unwrap_or(usize::MAX))
            .collect(),
    )
}

/// One cross search, shared by the leaves' walks.
struct Walker<'a> {
    task: &'a Task<'a>,
    qtree: &'a Partition,
    rtree: &'a Partition,
    /// The references' leaf nodes, in the order of their points.
    ref_leaves: Vec<usize>,
    k: usize,
    /// The largest centred squared norm of the references.
    refs_norm: f64,
    /// Whether walks use the bounds (see [`cross_search`]).
    prune: bool,
}

impl Walker<'_> {
    /// The lists of the queries of leaf node `leaf`, indexed from its first
    /// position, and the number of reference leaves it took.
    fn leaf(&self, leaf: usize) -> (Lists, usize) {
        let nd = &self.qtree.nodes[leaf];
        let span = nd.start..nd.end;
        let mut lists = Lists::new(span.len(), self.k);
        let mut w = Walk {
            leaf,
            span,
            largest: f64::INFINITY,
            tiles: 0,
            // The first tile checks every pair exactly whichever pass runs
            // (the lists are empty): the faster one.
            f32: self.task.single.is_some(),
        };
        if self.prune {
            let low = self.bound(leaf, 0);
            self.visit(&mut w, 0, low, &mut lists);
        } else {
            for &node in &self.ref_leaves {
                self.visit(&mut w, node, f64::NEG_INFINITY, &mut lists);
            }
        }
        (lists, w.tiles)
    }

    /// The bound of the keys of the pairs of query leaf `leaf` and
    /// reference node `node`.
    fn bound(&self, leaf: usize, node: usize) -> f64 {
        self.qtree
            .pair_bound_with(leaf, self.rtree, node, self.task.farthest)
    }

    /// Reference node `node` for the leaf of `w`, `low` the bound of its
    /// pairs. (An infinite bound may be an overflow: it rules nothing out.)
    fn visit(&self, w: &mut Walk, node: usize, low: f64, lists: &mut Lists) {
        if crate::cancel::requested() || (low < f64::INFINITY && low > w.largest) {
            return;
        }
        let nd = &self.rtree.nodes[node];
        if nd.is_leaf() {
            self.task
                .tile((w.span.clone(), nd.start..nd.end), None, lists, w.f32);
            w.tiles += 1;
            w.largest = (0..w.span.len())
                .map(|i| lists.worst(i))
                .fold(f64::NEG_INFINITY, f64::max);
            if w.tiles == 1 {
                w.f32 = self.single_suits(w, lists);
            }
            return;
        }
        let (a, b) = (nd.left, nd.left + 1);
        let (la, lb) = (self.bound(w.leaf, a), self.bound(w.leaf, b));
        for (child, low) in nearer_first((a, la), (b, lb)) {
            self.visit(w, child, low, lists);
        }
    }

    /// Whether the single-precision first pass suits the leaf of `w`: its
    /// rounding allowance (see `tile_f32_body`), for the largest centred
    /// norm of its queries and of all references, is below 1/32 of the k-th
    /// keys of all but an eighth of its queries at most (the self-search's
    /// rule).
    fn single_suits(&self, w: &Walk, lists: &Lists) -> bool {
        let Some(one) = self.task.single else {
            return false;
        };
        let norms = &self.task.qpack.norm[w.span.clone()];
        let q_norm = norms.iter().copied().fold(0.0, f64::max);
        let allowance = f64::from(one.c_rel) * (q_norm + self.refs_norm) + f64::from(one.c_abs);
        let small = (0..w.span.len())
            .filter(|&i| lists.worst(i) < 32.0 * allowance)
            .count();
        small * 8 <= w.span.len()
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::{scan, Exclude, Points, Query};
    use super::super::search_with;
    use super::super::tests::{assert_every_kernel, hard_sets};

    /// The tree-ordered cross search gives the direct scan's lists, keys bit
    /// for bit, on thousands of queries and references spread over many
    /// leaves, with every kernel, with and without the single-precision
    /// pass, nearest and farthest, with and without an excluded reference
    /// per query, at one and two threads, on the hard sets (a `generate
    /// fraud` table in time order, where nearly every pair of leaves is
    /// pruned and the in-order scan was quadratic; the same with ties and
    /// duplicates; wide points where nothing is pruned), each split into
    /// alternate rows and with references too few to order the queries.
    #[test]
    fn cross_search_equals_the_scan_on_large_sets() {
        // Queries every third row, references the others; and references
        // every 17th row, too few leaves to order the queries (`in_order`).
        let splits: [fn(usize) -> bool; 2] = [|i| i % 3 == 0, |i| i % 17 != 0];
        for (x, d) in hard_sets(5000, 8, 2500) {
            for query in splits {
                let (mut q, mut r) = (Vec::new(), Vec::new());
                for (i, row) in x.chunks_exact(d).enumerate() {
                    if query(i) { &mut q } else { &mut r }.extend_from_slice(row);
                }
                let (nq, nr) = (q.len() / d, r.len() / d);
                let (qp, rp) = (
                    Points::new(&q, nq, d).unwrap(),
                    Points::new(&r, nr, d).unwrap(),
                );
                let skip: Vec<usize> = (0..nq).map(|i| (i * 7) % nr).collect();
                for (k, far) in [(1, false), (4, false), (2, true)] {
                    for ex in [Exclude::Nothing, Exclude::Given(&skip)] {
                        let q = Query {
                            queries: qp,
                            refs: rp,
                            k,
                            exclude: ex,
                            farthest: far,
                        };
                        let want = scan(q);
                        let what = format!("nq={nq} nr={nr} k={k} far={far}");
                        assert_every_kernel(&want, &what, |kernel, single| {
                            search_with(kernel, single, q, false)
                        });
                    }
                }
            }
        }
    }
}
