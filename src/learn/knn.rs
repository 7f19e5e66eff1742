//! k nearest neighbours (Fix & Hodges 1951; Cover & Hart 1967), as
//! scikit-learn's `KNeighborsClassifier(algorithm='brute')` with the
//! Euclidean metric.
//!
//! The probability of class `c` is the share of the `k` nearest training
//! rows' votes that go to `c`: each neighbour votes with its row weight
//! (1 without weights; a row repeated in a bag is that many neighbours),
//! times `1 / distance` with `weights=distance`. When some neighbours are at
//! distance 0, only they vote (scikit-learn's rule). With fewer than `k`
//! training rows, all of them are the neighbours.
//!
//! The search is exact: a k-d tree up to 15 features, else a blocked
//! brute-force scan (`nearest`); both order neighbours by
//! `(squared distance, training row index)`, so ties are broken by index:
//! deterministic, but scikit-learn's order among neighbours at exactly the
//! same distance from a query can differ (and only then can the results).

use serde::{Deserialize, Serialize};

use rayon::prelude::*;

use super::linalg::sq_dist;
use super::rows::Rows;
use crate::data::{Dataset, Proba, View};
use crate::error::{Error, Result};
use crate::learn::{Learner, Model};
use crate::rng::Rng;

/// How neighbours' votes are weighted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Weighting {
    /// Every neighbour counts the same.
    Uniform,
    /// Votes weighted by the inverse distance.
    Distance,
}

/// The kNN learner (hyper-parameters).
///
/// ```
/// use rarity::data::Dataset;
/// use rarity::learn::{Learner, knn::Knn};
/// let ds = Dataset::from_rows((0..10).map(|i| vec![i as f64]).collect(),
///     vec![0, 0, 0, 0, 0, 1, 1, 1, 1, 1], vec!["n".into(), "p".into()]).unwrap();
/// let rows: Vec<usize> = (0..10).collect();
/// let m = Knn::default().fit(&ds.view(&rows), &mut rarity::rng::stream(0, 0)).unwrap();
/// // The 5 nearest rows to x = 4 are 2..=6: three negatives, two positives.
/// assert_eq!(m.predict_proba(&ds).unwrap().row(4), &[0.6, 0.4]);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Knn {
    /// Number of neighbours (>= 1).
    pub k: usize,
    /// Vote weighting.
    pub weights: Weighting,
}

impl Default for Knn {
    fn default() -> Self {
        Knn {
            k: 5,
            weights: Weighting::Uniform,
        }
    }
}

/// A fitted kNN: the training rows themselves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KnnModel {
    n_classes: usize,
    d: usize,
    k: usize,
    weights: Weighting,
    x: Vec<f64>,
    y: Vec<u32>,
    w: Vec<f64>,
}

/// The `k` nearest so far of one query, kept sorted by `(squared
/// distance, row)`.
struct Best {
    k: usize,
    items: Vec<(f64, usize)>,
}

impl Best {
    fn new(k: usize) -> Self {
        Best {
            k,
            items: Vec::with_capacity(k + 1),
        }
    }

    fn full(&self) -> bool {
        self.items.len() == self.k
    }

    fn worst(&self) -> f64 {
        self.items.last().map_or(f64::INFINITY, |w| w.0)
    }

    #[inline]
    fn offer(&mut self, d2: f64, i: usize) {
        let before = |a: &(f64, usize)| a.0 < d2 || (a.0 == d2 && a.1 < i);
        if self.items.len() == self.k {
            if before(&self.items[self.k - 1]) {
                return;
            }
            self.items.pop();
        }
        let at = self.items.partition_point(before);
        self.items.insert(at, (d2, i));
    }
}

/// A k-d tree over training rows (Bentley 1975): each node splits its
/// rows at the median of the coordinate with the largest spread; leaves
/// hold at most [`LEAF`] rows. Used for low-dimensional data, where it
/// visits far fewer rows than a scan.
pub(crate) struct KdTree<'a> {
    x: &'a [f64],
    d: usize,
    /// Row indices, permuted so that every node owns a contiguous range.
    idx: Vec<usize>,
    nodes: Vec<KdNode>,
}

struct KdNode {
    start: usize,
    end: usize,
    /// Split coordinate and value, and children (`usize::MAX` for a leaf).
    dim: usize,
    value: f64,
    left: usize,
    right: usize,
}

const LEAF: usize = 16;

impl<'a> KdTree<'a> {
    pub fn new(x: &'a [f64], d: usize) -> Self {
        let n = x.len() / d;
        let mut t = KdTree {
            x,
            d,
            idx: (0..n).collect(),
            nodes: Vec::new(),
        };
        t.build(0, n);
        t
    }

    fn build(&mut self, start: usize, end: usize) -> usize {
        let id = self.nodes.len();
        self.nodes.push(KdNode {
            start,
            end,
            dim: 0,
            value: 0.0,
            left: usize::MAX,
            right: usize::MAX,
        });
        if end - start <= LEAF {
            return id;
        }
        let d = self.d;
        let (mut best, mut spread) = (0, -1.0);
        for j in 0..d {
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for &i in &self.idx[start..end] {
                let v = self.x[i * d + j];
                lo = lo.min(v);
                hi = hi.max(v);
            }
            if hi - lo > spread {
                spread = hi - lo;
                best = j;
            }
        }
        if spread <= 0.0 {
            return id;
        }
        let mid = (start + end) / 2;
        let x = self.x;
        self.idx[start..end].select_nth_unstable_by(mid - start, |&a, &b| {
            x[a * d + best].total_cmp(&x[b * d + best])
        });
        let value = x[self.idx[mid] * d + best];
        let left = self.build(start, mid);
        let right = self.build(mid, end);
        let node = &mut self.nodes[id];
        node.dim = best;
        node.value = value;
        node.left = left;
        node.right = right;
        id
    }

    /// Offers every row that may beat the current `k`-th best to `best`.
    fn search(&self, node: usize, q: &[f64], best: &mut Best) {
        let nd = &self.nodes[node];
        if nd.left == usize::MAX {
            for &i in &self.idx[nd.start..nd.end] {
                best.offer(sq_dist(&self.x[i * self.d..(i + 1) * self.d], q), i);
            }
            return;
        }
        // Left rows have x[dim] <= value, right rows x[dim] >= value.
        let diff = q[nd.dim] - nd.value;
        let (near, far) = if diff <= 0.0 {
            (nd.left, nd.right)
        } else {
            (nd.right, nd.left)
        };
        self.search(near, q, best);
        // Rows at a plane distance equal to the k-th distance may still win
        // a tie by index: prune only when strictly farther.
        if !best.full() || diff * diff <= best.worst() {
            self.search(far, q, best);
        }
    }

    /// The `k` nearest rows of `q` (as [`nearest`]).
    pub fn nearest(&self, q: &[f64], k: usize) -> Vec<(f64, usize)> {
        let mut best = Best::new(k.min(self.idx.len()));
        if !self.nodes.is_empty() {
            self.search(0, q, &mut best);
        }
        best.items
    }
}

/// Up to this many features the model searches with a k-d tree
/// (scikit-learn's `algorithm='auto'` uses a tree up to 15 as well).
const TREE_MAX_DIM: usize = 15;

/// Training rows per block of the scan (about 128 KiB of features, so a
/// block stays in cache while a group of queries is compared with it).
fn block_rows(d: usize) -> usize {
    (16384 / d.max(1)).max(8)
}

/// `||r - q_t||^2` for four queries, summed exactly like [`sq_dist`].
#[inline]
fn sq_dist4(r: &[f64], q: [&[f64]; 4]) -> [f64; 4] {
    let d = r.len();
    let mut acc = [[0.0f64; 4]; 4];
    let whole = d - d % 4;
    for c in (0..whole).step_by(4) {
        let rc = &r[c..c + 4];
        for t in 0..4 {
            let qc = &q[t][c..c + 4];
            for l in 0..4 {
                let v = rc[l] - qc[l];
                acc[t][l] += v * v;
            }
        }
    }
    let mut out = [0.0; 4];
    for t in 0..4 {
        let a = &acc[t];
        let mut s = (a[0] + a[2]) + (a[1] + a[3]);
        for c in whole..d {
            s += (r[c] - q[t][c]) * (r[c] - q[t][c]);
        }
        out[t] = s;
    }
    out
}

/// For each query of `qs` (row-major, `d` columns), its `k` nearest rows of
/// `x` as `(squared distance, row)` in increasing `(distance, row)` order:
/// an exact brute-force scan, blocked over training rows for cache reuse.
/// The search the model uses; swappable for a shared one.
pub(crate) fn nearest(x: &[f64], d: usize, qs: &[f64], k: usize) -> Vec<Vec<(f64, usize)>> {
    let n = x.len() / d.max(1);
    let mut best: Vec<Best> = (0..qs.len() / d.max(1))
        .map(|_| Best::new(k.min(n)))
        .collect();
    let b = block_rows(d);
    let m = best.len();
    for start in (0..n).step_by(b) {
        let end = (start + b).min(n);
        // Four queries at a time share each loaded training row.
        let mut g = 0;
        while g + 4 <= m {
            let q = [0, 1, 2, 3].map(|t| &qs[(g + t) * d..(g + t + 1) * d]);
            for i in start..end {
                let dist = sq_dist4(&x[i * d..(i + 1) * d], q);
                for t in 0..4 {
                    best[g + t].offer(dist[t], i);
                }
            }
            g += 4;
        }
        for (q, bq) in qs.chunks_exact(d).zip(best.iter_mut()).skip(g) {
            for i in start..end {
                bq.offer(sq_dist(&x[i * d..(i + 1) * d], q), i);
            }
        }
    }
    best.into_iter().map(|b| b.items).collect()
}

impl KnnModel {
    /// Number of classes of the training dataset.
    pub fn n_classes(&self) -> usize {
        self.n_classes
    }

    /// Number of features.
    pub fn n_features(&self) -> usize {
        self.d
    }

    /// Class probabilities of one row.
    pub fn predict_row(&self, x: &[f64], out: &mut [f64]) {
        let nb = nearest(&self.x, self.d, x, self.k);
        self.vote(&nb[0], out);
    }

    /// Class probabilities for every row of `data`, in parallel over
    /// groups of rows (each group scans the training rows once, blockwise).
    pub fn predict_proba(&self, data: &Dataset) -> Result<Proba> {
        if data.n_features() != self.d {
            return Err(Error::data(format!(
                "the model was trained on {} features but the data has {}",
                self.d,
                data.n_features()
            )));
        }
        let kc = self.n_classes;
        let mut p = Proba::zeros(data.n_rows(), kc);
        let tree = (self.d <= TREE_MAX_DIM).then(|| KdTree::new(&self.x, self.d));
        let group = 32;
        p.values_mut()
            .par_chunks_mut(kc * group)
            .zip(data.features().par_chunks(self.d.max(1) * group))
            .for_each(|(out, qs)| {
                let nb = match &tree {
                    Some(t) => qs
                        .chunks_exact(self.d)
                        .map(|q| t.nearest(q, self.k))
                        .collect(),
                    None => nearest(&self.x, self.d, qs, self.k),
                };
                for (o, n) in out.chunks_mut(kc).zip(&nb) {
                    self.vote(n, o);
                }
            });
        Ok(p)
    }

    fn vote(&self, nb: &[(f64, usize)], out: &mut [f64]) {
        out.iter_mut().for_each(|o| *o = 0.0);
        let exact = self.weights == Weighting::Distance && nb.iter().any(|n| n.0 == 0.0);
        for &(d2, i) in nb {
            let v = match self.weights {
                Weighting::Uniform => self.w[i],
                Weighting::Distance if exact => {
                    if d2 == 0.0 {
                        self.w[i]
                    } else {
                        0.0
                    }
                }
                Weighting::Distance => self.w[i] / d2.sqrt(),
            };
            out[self.y[i] as usize] += v;
        }
        let s: f64 = out.iter().sum();
        out.iter_mut().for_each(|o| *o /= s);
    }

    /// Checks shapes.
    pub fn validate(&self) -> std::result::Result<(), String> {
        let n = self.y.len();
        if n == 0
            || self.k == 0
            || self.x.len() != n * self.d
            || self.w.len() != n
            || self.w.iter().any(|&w| !(w > 0.0 && w.is_finite()))
            || self.y.iter().any(|&c| c as usize >= self.n_classes)
        {
            return Err("kNN model: inconsistent shapes, labels or weights".into());
        }
        Ok(())
    }
}

impl Learner for Knn {
    fn fit(&self, data: &View<'_>, _rng: &mut Rng) -> Result<Model> {
        if self.k == 0 {
            return Err(Error::invalid("knn: k must be at least 1"));
        }
        let rows = Rows::expanded(data, "kNN")?;
        Ok(Model::Knn(KnnModel {
            n_classes: rows.k,
            d: rows.d,
            k: self.k,
            weights: self.weights,
            y: rows.y.iter().map(|&c| c as u32).collect(),
            x: rows.x,
            w: rows.w,
        }))
    }

    fn name(&self) -> String {
        let w = match self.weights {
            Weighting::Uniform => "uniform",
            Weighting::Distance => "distance",
        };
        format!("knn(k={},weights={w})", self.k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn tree_and_scan_find_the_same_neighbours_ties_included() {
        let mut rng = crate::rng::stream(4, 0);
        for d in [1, 2, 5] {
            // Coarse grid values: many exact distance ties.
            let x: Vec<f64> = (0..300 * d)
                .map(|_| rng.random_range(0..6) as f64)
                .collect();
            let q: Vec<f64> = (0..40 * d)
                .map(|_| {
                    rng.random_range(0..6) as f64 + 0.5 * (rng.random::<f64>() < 0.5) as u8 as f64
                })
                .collect();
            let tree = KdTree::new(&x, d);
            let scan = nearest(&x, d, &q, 7);
            for (qi, want) in q.chunks_exact(d).zip(&scan) {
                assert_eq!(&tree.nearest(qi, 7), want);
            }
        }
    }
}
