//! An exact k-d tree search for low dimensions (Bentley 1975; Friedman,
//! Bentley & Finkel 1977), over the references' [`Partition`] with leaves of
//! at most [`LEAF`] points. A query descends nearer child first and skips a
//! node whose bounding box lies farther than its current k-th neighbour.
//!
//! The results are exactly the brute force's (see the parent module): the
//! distance of a pair is the same `fma` loop, a list keeps `(distance,
//! index)` order, and a box is skipped only when a lower bound of the
//! distance to any point inside, shrunk by its rounding error, is strictly
//! greater than the k-th distance (a point at an equal distance may still
//! win by a lower index).

use crate::progress::Progress;
use rayon::prelude::*;

use super::partition::{beyond, Partition};
use super::{Exclude, Lists, Points};

/// Points per leaf at most.
const LEAF: usize = 16;
/// Queries per parallel task.
const CHUNK: usize = 64;

/// Whether the tree beats the brute-force kernel for `nq` queries among
/// `nr` references in `d` dimensions (`k` nearest). Measured on Gaussian and
/// on grid (tie-heavy) points, one thread: the kernel compares a pair in a
/// few cycles, so the tree only pays in very low dimension (up to 4 from
/// about a thousand references; 5 and 6 from about 16,000), with enough
/// queries to repay its construction.
pub(super) fn suits(nq: usize, nr: usize, d: usize, k: usize) -> bool {
    let max_d = match nr {
        0..1024 => 0,
        1024..16384 => 4,
        _ => 6,
    };
    d <= max_d && nq >= 16 && k * 8 <= nr
}

/// Offers to list `at` of `lists` every point of `node` of `tree` that may
/// rank among the best `k` of query `q` (skipping the original index
/// `skip`): nearer child first, a child skipped when its box lies strictly
/// farther than the current k-th neighbour.
fn visit(tree: &Partition, node: usize, q: &[f64], skip: usize, lists: &mut Lists, at: usize) {
    let nd = &tree.nodes[node];
    if nd.is_leaf() {
        let d = tree.d;
        for t in nd.start..nd.end {
            let i = tree.orig[t];
            if i == skip {
                continue;
            }
            let worst = lists.worst(at);
            let r = &tree.pts[t * d..(t + 1) * d];
            // Partial sums never decrease: stop once strictly worse.
            let mut acc = 0.0;
            let mut out = false;
            for (&a, &b) in q.iter().zip(r) {
                acc = (a - b).mul_add(a - b, acc);
                if acc > worst {
                    out = true;
                    break;
                }
            }
            if !out {
                lists.offer(at, acc, i);
            }
        }
        return;
    }
    let (a, b) = (nd.left, nd.left + 1);
    let (da, db) = (tree.point_bound(a, q), tree.point_bound(b, q));
    let (near, dn, far, df) = if db < da {
        (b, db, a, da)
    } else {
        (a, da, b, db)
    };
    for (child, low) in [(near, dn), (far, df)] {
        if !beyond(tree.d, low, lists.worst(at)) {
            visit(tree, child, q, skip, lists, at);
        }
    }
}

/// The lists of the exact search of `queries` among `refs` through a tree
/// over the references (`k >= 1` and no larger than the references
/// available); queries run in parallel, each on its own.
pub(super) fn search(
    queries: Points<'_>,
    refs: Points<'_>,
    k: usize,
    exclude: Exclude<'_>,
) -> Lists {
    let tree = Partition::new(refs, LEAF);
    let nq = queries.n;
    let progress = Progress::start("neighbour search: queries", nq as u64);
    let parts: Vec<Lists> = (0..nq.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let q0 = c * CHUNK;
            let q1 = (q0 + CHUNK).min(nq);
            let mut lists = Lists::new(q1 - q0, k);
            if crate::cancel::requested() {
                return lists;
            }
            for q in q0..q1 {
                visit(
                    &tree,
                    0,
                    queries.row(q),
                    exclude.skip(q),
                    &mut lists,
                    q - q0,
                );
            }
            progress.add((q1 - q0) as u64);
            lists
        })
        .collect();
    Lists::concat(parts, nq, k)
}

#[cfg(test)]
mod tests {
    use super::super::tests::random;
    use super::super::{brute, scan, Exclude, Points, Query};
    use super::*;

    /// The tree and the direct scan give the brute force's lists, keys
    /// included, bit for bit:
    /// grid points (many equal distances), exact duplicates, a constant
    /// feature, every exclusion, queries inside and outside the references.
    #[test]
    fn tree_equals_brute_force_with_ties_and_duplicates() {
        for &(n, d, k) in &[
            (700, 1, 3),
            (900, 2, 5),
            (600, 3, 1),
            (1000, 6, 7),
            (530, 12, 4),
        ] {
            for grid in [true, false] {
                let mut r = random(n, d, 5, grid);
                for i in (0..n).step_by(7) {
                    let src = (i * 13) % n;
                    let row: Vec<f64> = r[src * d..(src + 1) * d].to_vec();
                    r[i * d..(i + 1) * d].copy_from_slice(&row);
                }
                if d > 2 {
                    (0..n).for_each(|i| r[i * d + 1] = 2.0);
                }
                let q: Vec<f64> = random(90, d, 6, grid)
                    .iter()
                    .map(|v| v * 1.5 - 0.5)
                    .collect();
                let p = Points::new(&r, n, d).unwrap();
                let qp = Points::new(&q, 90, d).unwrap();
                let skip: Vec<usize> = (0..n).map(|i| (i * 5) % n).collect();
                let cases = [
                    (p, Exclude::SameIndex, true),
                    (qp, Exclude::Nothing, false),
                    (p, Exclude::Given(&skip), false),
                ];
                for (queries, ex, same) in cases {
                    let tree = search(queries, p, k, ex);
                    let q = Query {
                        queries,
                        refs: p,
                        k,
                        exclude: ex,
                        farthest: false,
                    };
                    let want = brute::search(q, same);
                    assert_eq!(tree.idx, want.idx, "n={n} d={d} k={k} grid={grid}");
                    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&tree.key), bits(&want.key));
                    let direct = scan(q);
                    assert_eq!(direct.idx, want.idx);
                    assert_eq!(bits(&direct.key), bits(&want.key));
                }
            }
        }
    }
}
