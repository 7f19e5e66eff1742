//! A k-d tree partition of a point set (Bentley 1975; Friedman, Bentley &
//! Finkel 1977): each node splits its points on the coordinate with the
//! widest bounding box, at the median rounded to a whole number of leaves,
//! so that every leaf but the last holds exactly `leaf` points and starts at
//! a multiple of `leaf` in the tree order. Each node keeps its bounding box.
//!
//! The k-d tree search ([`super::kdtree`]) descends it query by query; the
//! brute-force searches (`brute::pairs`, `brute::cross`) take its leaves as
//! tiles.
//! Both skip a node only when a bound of the distance, allowed for its
//! rounding error ([`beyond`]), proves that no point inside can enter a list.

use super::Points;

/// A node: its points (a range of the tree order); the children of an inner
/// node are `left` and `left + 1`.
pub(super) struct Node {
    pub(super) start: usize,
    pub(super) end: usize,
    /// `usize::MAX` for a leaf.
    pub(super) left: usize,
}

impl Node {
    /// True for a leaf.
    pub(super) fn is_leaf(&self) -> bool {
        self.left == usize::MAX
    }
}

/// A k-d tree over a set of points.
pub(super) struct Partition {
    pub(super) d: usize,
    /// The points in tree order, row-major.
    pub(super) pts: Vec<f64>,
    /// The original index of each point in tree order.
    pub(super) orig: Vec<usize>,
    /// Breadth-first: node 0 is the root, children follow their parents.
    pub(super) nodes: Vec<Node>,
    /// Per node, the lower then the upper corner of its bounding box.
    boxes: Vec<f64>,
}

impl Partition {
    /// The tree of `p` with at most `leaf` points per leaf (`leaf >= 1`).
    pub(super) fn new(p: Points<'_>, leaf: usize) -> Self {
        let leaf = leaf.max(1);
        let mut order: Vec<usize> = (0..p.n).collect();
        let mut nodes = vec![Node {
            start: 0,
            end: p.n,
            left: usize::MAX,
        }];
        let mut keyed: Vec<(f64, usize)> = Vec::new();
        let mut next = 0;
        // Breadth-first: the children of node `i` are appended together.
        while next < nodes.len() {
            let (start, end) = (nodes[next].start, nodes[next].end);
            if end - start > leaf {
                let j = widest(p, &order[start..end]);
                let mid = start + (end - start).div_ceil(leaf) / 2 * leaf;
                // The median of the split coordinate, on a compact copy.
                keyed.clear();
                keyed.extend(order[start..end].iter().map(|&i| (p.row(i)[j], i)));
                keyed.select_nth_unstable_by(mid - start, |a, b| a.0.total_cmp(&b.0));
                for (o, &(_, i)) in order[start..end].iter_mut().zip(&keyed) {
                    *o = i;
                }
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
        let pts: Vec<f64> = order.iter().flat_map(|&i| p.row(i)).copied().collect();
        let boxes = bounding_boxes(&nodes, &pts, p.d);
        Partition {
            d: p.d,
            pts,
            orig: order,
            nodes,
            boxes,
        }
    }

    /// The points in tree order.
    pub(super) fn points(&self) -> Points<'_> {
        Points {
            x: &self.pts,
            n: self.orig.len(),
            d: self.d,
        }
    }

    /// The lower and upper corners of the box of `node`.
    fn corners(&self, node: usize) -> (&[f64], &[f64]) {
        self.boxes[2 * node * self.d..2 * (node + 1) * self.d].split_at(self.d)
    }

    /// A lower bound of the squared distance from `q` to any point of `node`
    /// (before rounding).
    #[inline]
    pub(super) fn point_bound(&self, node: usize, q: &[f64]) -> f64 {
        let (lo, hi) = self.corners(node);
        q.iter()
            .zip(lo.iter().zip(hi))
            .map(|(&v, (&l, &h))| {
                let g = (l - v).max(v - h).max(0.0);
                g * g
            })
            .sum()
    }

    /// A lower bound of the key of any pair of a point of `a` and a point
    /// of `b`: the squared distance of the two boxes or, for the farthest
    /// (keys are negated distances), minus the squared distance of their
    /// farthest corners; each allowed for rounding (see [`beyond`]), so that
    /// a pair is ruled out when this bound is strictly above a list's k-th
    /// key.
    pub(super) fn pair_bound(&self, a: usize, b: usize, farthest: bool) -> f64 {
        self.pair_bound_with(a, self, b, farthest)
    }

    /// [`Self::pair_bound`] of node `a` of this tree and node `b` of
    /// `other`, a tree of points of the same dimension.
    pub(super) fn pair_bound_with(
        &self,
        a: usize,
        other: &Partition,
        b: usize,
        farthest: bool,
    ) -> f64 {
        let (la, ha) = self.corners(a);
        let (lb, hb) = other.corners(b);
        let (rel, abs) = margin(self.d);
        if farthest {
            let s = sum_of(la, ha, lb, hb, |la, ha, lb, hb| (hb - la).max(ha - lb));
            -(s * (1.0 + rel) + abs)
        } else {
            let s = sum_of(la, ha, lb, hb, |la, ha, lb, hb| {
                (lb - ha).max(la - hb).max(0.0)
            });
            s * (1.0 - rel) - abs
        }
    }

    /// The squared diagonal of the box of `node`.
    pub(super) fn spread(&self, node: usize) -> f64 {
        let (lo, hi) = self.corners(node);
        lo.iter().zip(hi).map(|(&l, &h)| (h - l) * (h - l)).sum()
    }
}

/// `sum_j gap(la_j, ha_j, lb_j, hb_j)^2` over the coordinates of two boxes,
/// in eight interleaved partial sums, coordinate `j` into sum `j mod 8`
/// (one vector register; a sum of non-negative terms in any order is
/// within `(d - 1) eps` of its exact value, relative to itself).
#[inline(always)]
fn sum_of(
    la: &[f64],
    ha: &[f64],
    lb: &[f64],
    hb: &[f64],
    gap: impl Fn(f64, f64, f64, f64) -> f64,
) -> f64 {
    let d = la.len();
    // (Equal lengths, told to the compiler: no bounds checks below.)
    let (ha, lb, hb) = (&ha[..d], &lb[..d], &hb[..d]);
    let mut acc = [0.0; 8];
    let whole = d / 8 * 8;
    for c in (0..whole).step_by(8) {
        for (s, a) in acc.iter_mut().enumerate() {
            let j = c + s;
            let g = gap(la[j], ha[j], lb[j], hb[j]);
            *a += g * g;
        }
    }
    for (j, a) in (whole..d).zip(acc.iter_mut()) {
        let g = gap(la[j], ha[j], lb[j], hb[j]);
        *a += g * g;
    }
    acc.iter().sum()
}

/// The rounding allowance of a box bound of `d` terms against the `fma`
/// loop's value of a pair's squared distance: both sums add non-negative
/// terms, so each is within `(d + 2) eps` of its exact value relative to
/// itself; the margin doubles that, plus an absolute term for underflow.
fn margin(d: usize) -> (f64, f64) {
    let c = 4.0 * (d + 2) as f64;
    (c * f64::EPSILON, c * f64::MIN_POSITIVE)
}

/// The box bound `low` (a lower bound of a squared distance, before
/// rounding) proves every point of the box strictly farther than `worst`.
#[inline]
pub(super) fn beyond(d: usize, low: f64, worst: f64) -> bool {
    let (rel, abs) = margin(d);
    low * (1.0 - rel) - abs > worst
}

/// The coordinate along which the points `rows` of `p` spread widest,
/// judged on at most [`SPREAD_SAMPLE`] of them taken at even steps (the
/// choice only steers the tree's shape; its boxes are exact).
fn widest(p: Points<'_>, rows: &[usize]) -> usize {
    let step = rows.len().div_ceil(SPREAD_SAMPLE).max(1);
    let mut lo = vec![f64::INFINITY; p.d];
    let mut hi = vec![f64::NEG_INFINITY; p.d];
    for &i in rows.iter().step_by(step) {
        for ((l, h), &v) in lo.iter_mut().zip(hi.iter_mut()).zip(p.row(i)) {
            *l = l.min(v);
            *h = h.max(v);
        }
    }
    (0..p.d)
        .map(|j| (hi[j] - lo[j], j))
        .fold((0.0, 0), |b, c| if c.0 > b.0 { c } else { b })
        .1
}

/// Points of a node whose spread chooses its split coordinate.
const SPREAD_SAMPLE: usize = 256;

/// The bounding box of every node (lower then upper corner, `d` values
/// each), given the points in tree order: a leaf's from its points, an
/// inner node's from its children (which follow it in breadth-first order).
fn bounding_boxes(nodes: &[Node], pts: &[f64], d: usize) -> Vec<f64> {
    let mut boxes = vec![0.0; 2 * d * nodes.len()];
    for (i, nd) in nodes.iter().enumerate().rev() {
        let (before, after) = boxes.split_at_mut(2 * d * (i + 1));
        let (lo, hi) = before[2 * d * i..].split_at_mut(d);
        lo.fill(f64::INFINITY);
        hi.fill(f64::NEG_INFINITY);
        let mut widen = |row: &[f64], top: &[f64]| {
            for (((l, h), &a), &b) in lo.iter_mut().zip(hi.iter_mut()).zip(row).zip(top) {
                *l = l.min(a);
                *h = h.max(b);
            }
        };
        if nd.is_leaf() {
            for row in pts[nd.start * d..nd.end * d].chunks_exact(d.max(1)) {
                widen(row, row);
            }
        } else {
            for c in [nd.left, nd.left + 1] {
                let at = 2 * d * (c - i - 1);
                let (clo, chi) = after[at..at + 2 * d].split_at(d);
                widen(clo, chi);
            }
        }
    }
    boxes
}
