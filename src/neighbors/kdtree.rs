//! An exact k-d tree search for low dimensions (Bentley 1975; Friedman,
//! Bentley & Finkel 1977): each node splits its points at the median of the
//! coordinate with the widest bounding box; leaves hold at most [`LEAF`]
//! points. A query descends nearer child first and skips a node whose
//! bounding box lies farther than its current k-th neighbour.
//!
//! The results are exactly the brute force's (see the parent module): the
//! distance of a pair is the same `fma` loop, a list keeps `(distance,
//! index)` order, and a box is skipped only when a lower bound of the
//! distance to any point inside, shrunk by its rounding error, is strictly
//! greater than the k-th distance (a point at an equal distance may still
//! win by a lower index).

use crate::progress::Progress;
use rayon::prelude::*;

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

/// A node: its points (a range of the tree order) and bounding box; the
/// children of an inner node are `left` and `left + 1`.
struct Node {
    start: usize,
    end: usize,
    /// `usize::MAX` for a leaf.
    left: usize,
}

/// A k-d tree over a set of points.
struct Tree {
    d: usize,
    /// The points in tree order, row-major.
    pts: Vec<f64>,
    /// The original index of each point in tree order.
    orig: Vec<usize>,
    nodes: Vec<Node>,
    /// Per node, the lower then the upper corner of its bounding box.
    boxes: Vec<f64>,
}

impl Tree {
    fn new(p: Points<'_>) -> Self {
        let mut order: Vec<usize> = (0..p.n).collect();
        let mut nodes = vec![Node {
            start: 0,
            end: p.n,
            left: usize::MAX,
        }];
        let mut boxes = Vec::new();
        let mut next = 0;
        // Breadth-first: the children of node `i` are appended together.
        while next < nodes.len() {
            let (start, end) = (nodes[next].start, nodes[next].end);
            let (lo, hi) = bounding_box(p, &order[start..end]);
            let widest =
                (0..p.d)
                    .map(|j| (hi[j] - lo[j], j))
                    .fold((0.0, 0), |b, c| if c.0 > b.0 { c } else { b });
            boxes.extend_from_slice(&lo);
            boxes.extend_from_slice(&hi);
            if end - start > LEAF && widest.0 > 0.0 {
                let j = widest.1;
                let mid = (start + end) / 2;
                order[start..end].select_nth_unstable_by(mid - start, |&a, &b| {
                    p.row(a)[j].total_cmp(&p.row(b)[j])
                });
                nodes[next].left = nodes.len();
                nodes.push(Node {
                    start,
                    end: mid,
                    left: usize::MAX,
                });
                nodes.push(Node {
                    start: mid,
                    end,
                    left: usize::MAX,
                });
            }
            next += 1;
        }
        let pts = order.iter().flat_map(|&i| p.row(i)).copied().collect();
        Tree {
            d: p.d,
            pts,
            orig: order,
            nodes,
            boxes,
        }
    }

    /// A lower bound of the squared distance from `q` to the box of `node`.
    #[inline]
    fn box_dist(&self, node: usize, q: &[f64]) -> f64 {
        let b = &self.boxes[2 * node * self.d..2 * (node + 1) * self.d];
        let (lo, hi) = b.split_at(self.d);
        q.iter()
            .zip(lo.iter().zip(hi))
            .map(|(&v, (&l, &h))| {
                let g = (l - v).max(v - h).max(0.0);
                g * g
            })
            .sum()
    }

    /// Offers to list `at` of `lists` every point of `node` that may rank
    /// among the best `k` of query `q` (skipping the original index `skip`).
    fn visit(&self, node: usize, q: &[f64], skip: usize, lists: &mut Lists, at: usize) {
        let nd = &self.nodes[node];
        if nd.left == usize::MAX {
            let d = self.d;
            for t in nd.start..nd.end {
                let i = self.orig[t];
                if i == skip {
                    continue;
                }
                let worst = lists.worst(at);
                let r = &self.pts[t * d..(t + 1) * d];
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
        let (da, db) = (self.box_dist(a, q), self.box_dist(b, q));
        let (near, dn, far, df) = if db < da {
            (b, db, a, da)
        } else {
            (a, da, b, db)
        };
        if !self.beyond(dn, lists.worst(at)) {
            self.visit(near, q, skip, lists, at);
        }
        if !self.beyond(df, lists.worst(at)) {
            self.visit(far, q, skip, lists, at);
        }
    }

    /// The box bound `low` (rounded) proves every point inside strictly
    /// farther than `worst`: both sums add non-negative terms, so each is
    /// within `(d + 2) eps` of its exact value relative to itself; the
    /// margin doubles that, plus an absolute term for underflow.
    #[inline]
    fn beyond(&self, low: f64, worst: f64) -> bool {
        let rel = 4.0 * (self.d + 2) as f64 * f64::EPSILON;
        low * (1.0 - rel) - 4.0 * (self.d + 2) as f64 * f64::MIN_POSITIVE > worst
    }
}

/// The lower and upper corners of the box around the points `rows` of `p`.
fn bounding_box(p: Points<'_>, rows: &[usize]) -> (Vec<f64>, Vec<f64>) {
    let mut lo = vec![f64::INFINITY; p.d];
    let mut hi = vec![f64::NEG_INFINITY; p.d];
    for &i in rows {
        for ((l, h), &v) in lo.iter_mut().zip(hi.iter_mut()).zip(p.row(i)) {
            *l = l.min(v);
            *h = h.max(v);
        }
    }
    (lo, hi)
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
    let tree = Tree::new(refs);
    let nq = queries.n;
    let progress = Progress::start("neighbour search: queries", nq as u64);
    let parts: Vec<Lists> = (0..nq.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let q0 = c * CHUNK;
            let q1 = (q0 + CHUNK).min(nq);
            let mut lists = Lists::new(q1 - q0, k);
            for q in q0..q1 {
                tree.visit(0, queries.row(q), exclude.skip(q), &mut lists, q - q0);
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
    use super::super::{brute, scan, Exclude, Points};
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
                    let want = brute::search(queries, p, k, ex, false, same);
                    assert_eq!(tree.idx, want.idx, "n={n} d={d} k={k} grid={grid}");
                    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&tree.key), bits(&want.key));
                    let direct = scan(queries, p, k, ex, false);
                    assert_eq!(direct.idx, want.idx);
                    assert_eq!(bits(&direct.key), bits(&want.key));
                }
            }
        }
    }
}
