//! Exact k-nearest-neighbour search, shared by SMOTE and its variants, the
//! informative undersamplers and the k-NN learner. A bottom-level module: it
//! depends only on `data`, `error`, `rng` and `cancel`.
//!
//! Distances are Euclidean (squared distances are compared; the square root
//! is never needed to rank). The distance of a pair is defined as the sum over
//! features in feature order, `acc = fma(q_j - r_j, q_j - r_j, acc)` (one
//! rounding per feature: IEEE fused multiply-add), so results are the same,
//! bit for bit, as that scalar loop, on any CPU and at any thread count.
//! Equal distances are broken by the lower reference index.
//!
//! Three exact methods give the same lists, chosen by size and dimension:
//!
//! - a brute force in two passes (`brute`), as in BLAS-based k-NN: a
//!   register-blocked matrix product on centred coordinates with a bound on
//!   its rounding error (Higham, *Accuracy and Stability of Numerical
//!   Algorithms*, 2002, section 3.1), in single precision where AVX-512 or
//!   AVX2 allows, then the exact distance for the few pairs the bound cannot
//!   rule out. When queries and references are the
//!   same points (Tomek links, ENN, SMOTE within a class) each pair is
//!   visited once and offered to both points' lists, as a dual-tree search
//!   over the leaves of a k-d partition (`partition`; Gray & Moore 2001):
//!   pairs of leaves whose boxes are provably farther apart than every k-th
//!   key in play are skipped. On a `generate fraud` table (a timestamp and
//!   an amount spread far beyond the neighbours' distances) that skips
//!   nearly all of them (284,807 rows in about a second; a full scan took
//!   79 s for 60,000 at one thread, growing as the square);
//!   on wide Gaussian data it skips none and the leaves are simply taken in
//!   order. Between different point sets (the k-NN learner's predictions,
//!   NearMiss) both sets are so partitioned and each leaf of queries walks
//!   the references' tree nearest first, with the same bounds (`cross`): on
//!   a time-ordered fraud table the references in their own order improved
//!   a list at nearly every pair (a 25,000 x 25,000 search took 7 s; now
//!   0.2 s);
//! - a k-d tree (`kdtree`) in very low dimension (up to 4 features from
//!   1,024 references, up to 6 from 16,384), where it visits a small share
//!   of them and beats the kernel;
//! - a direct scan for fewer than `SCAN_QUERIES` (8) queries (one row of a
//!   model's prediction), where packing the references would cost more.
//!
//! Rows with categorical features (level codes) are compared with SMOTE-NC's
//! mixed distance instead (`mixed`, [`Metric`]; Chawla et al. 2002,
//! section 6.1).
//!
//! Features may be standardised first ([`Scaling`]): z-scores with the mean
//! and the population standard deviation of each feature (scikit-learn's
//! `StandardScaler`; a constant feature is only centred).

mod brute;
mod kdtree;
mod mixed;
mod partition;

pub use mixed::Metric;

use crate::data::Dataset;
use crate::error::{Error, Result};

/// A row-major matrix of `n` points with `d` features, borrowed.
#[derive(Debug, Clone, Copy)]
pub struct Points<'a> {
    x: &'a [f64],
    n: usize,
    d: usize,
}

impl<'a> Points<'a> {
    /// Wraps `x` (`n * d` values, row-major). Fails if the length disagrees.
    pub fn new(x: &'a [f64], n: usize, d: usize) -> Result<Self> {
        if x.len() != n * d {
            return Err(Error::invalid(format!(
                "point buffer has {} values, expected {n} x {d}",
                x.len()
            )));
        }
        Ok(Points { x, n, d })
    }

    /// All rows of a dataset.
    pub fn of(data: &'a Dataset) -> Self {
        Points {
            x: data.features(),
            n: data.n_rows(),
            d: data.n_features(),
        }
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.n
    }

    /// True when there are no points.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Number of features.
    pub fn dim(&self) -> usize {
        self.d
    }

    /// Point `i`.
    pub fn row(&self, i: usize) -> &'a [f64] {
        &self.x[i * self.d..(i + 1) * self.d]
    }

    /// The points `rows`, copied in that order into one buffer.
    pub fn gather(&self, rows: &[usize]) -> Vec<f64> {
        gather(self.x, self.d, rows, None)
    }
}

/// Which end of the distance ranking to return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// The k closest references (ties: lower index first).
    Nearest,
    /// The k farthest references (ties: lower index first), as NearMiss-2 needs.
    Farthest,
}

/// Which reference, if any, a query must not return as its own neighbour.
#[derive(Debug, Clone, Copy)]
pub enum Exclude<'a> {
    /// Every reference may be returned.
    Nothing,
    /// Queries and references are the same points: query `i` skips reference `i`.
    SameIndex,
    /// Query `q` skips reference `skip[q]` (queries are a subset of the references).
    Given(&'a [usize]),
}

/// The result of a search: for each query, `k` reference indices and their
/// squared distances, best first.
#[derive(Debug, Clone, PartialEq)]
pub struct Neighbours {
    k: usize,
    index: Vec<usize>,
    dist2: Vec<f64>,
}

impl Neighbours {
    /// Neighbours per query (the requested `k`, capped by the references available).
    pub fn k(&self) -> usize {
        self.k
    }

    /// Number of queries.
    pub fn len(&self) -> usize {
        self.index.len().checked_div(self.k).unwrap_or(0)
    }

    /// True when there are no queries (or `k` is 0).
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Reference indices of query `q`'s neighbours, best first.
    pub fn of(&self, q: usize) -> &[usize] {
        &self.index[q * self.k..(q + 1) * self.k]
    }

    /// No lists (no queries, or `k` = 0).
    fn none(k: usize) -> Self {
        Neighbours {
            k,
            index: Vec::new(),
            dist2: Vec::new(),
        }
    }

    /// Squared distances of query `q`'s neighbours, best first.
    pub fn dist2_of(&self, q: usize) -> &[f64] {
        &self.dist2[q * self.k..(q + 1) * self.k]
    }
}

/// The `k` nearest references of every query (exact, Euclidean).
///
/// With [`Exclude::SameIndex`], queries and references are the same points
/// and query `i` never returns reference `i` (duplicates of `i` at other
/// indices are still returned). `k` is capped by the number of references
/// available.
///
/// ```
/// use rarity::neighbors::{knn, Exclude, Points};
/// let x = [0.0, 1.0, 3.0, 7.0];
/// let p = Points::new(&x, 4, 1).unwrap();
/// let nn = knn(p, p, 2, Exclude::SameIndex);
/// assert_eq!(nn.of(0), &[1, 2]);
/// assert_eq!(nn.of(3), &[2, 1]);
/// assert_eq!(nn.dist2_of(2), &[4.0, 9.0]);
/// ```
pub fn knn(queries: Points<'_>, refs: Points<'_>, k: usize, exclude: Exclude<'_>) -> Neighbours {
    search(queries, refs, k, exclude, Order::Nearest)
}

/// Exact k-nearest (or k-farthest) search; see [`knn`].
///
/// When `queries` and `refs` are the very same buffer and the exclusion is
/// [`Exclude::SameIndex`] (a self-search: Tomek links, ENN, SMOTE within a
/// class), each pair of points is visited once and offered to both lists.
pub fn search(
    queries: Points<'_>,
    refs: Points<'_>,
    k: usize,
    exclude: Exclude<'_>,
    order: Order,
) -> Neighbours {
    let k = capped_k(queries, refs, k, exclude);
    let nq = queries.n;
    if k == 0 || nq == 0 {
        return Neighbours::none(k);
    }
    let same = matches!(exclude, Exclude::SameIndex)
        && std::ptr::eq(queries.x.as_ptr(), refs.x.as_ptr())
        && queries.n == refs.n;
    let farthest = order == Order::Farthest;
    let q = Query {
        queries,
        refs,
        k,
        exclude,
        farthest,
    };
    let mut lists = if nq < SCAN_QUERIES {
        scan(q)
    } else if !farthest && kdtree::suits(nq, refs.n, refs.d, k) {
        kdtree::search(queries, refs, k, exclude)
    } else {
        brute::search(q, same)
    };
    if farthest {
        for v in &mut lists.key {
            *v = -*v;
        }
    }
    if crate::cancel::requested() {
        // A cancelled search stops early (see the searches' loops): its lists
        // are incomplete, and unfilled slots would index past the references.
        // They point at reference 0 instead; the caller's work is discarded at
        // its next cancellation check.
        for i in lists.idx.iter_mut().filter(|i| **i == usize::MAX) {
            *i = 0;
        }
    }
    Neighbours {
        k,
        index: lists.idx,
        dist2: lists.key,
    }
}

/// `k` capped by the references a query may return; panics if the two
/// point sets differ in dimension.
fn capped_k(queries: Points<'_>, refs: Points<'_>, k: usize, exclude: Exclude<'_>) -> usize {
    assert_eq!(
        queries.d, refs.d,
        "queries and references differ in dimension"
    );
    let avail = match exclude {
        Exclude::Nothing => refs.n,
        _ => refs.n.saturating_sub(1),
    };
    k.min(avail)
}

/// Below this many queries, packing the references for the brute-force
/// kernel costs more than it saves: each query scans them directly.
const SCAN_QUERIES: usize = 8;

/// The squared distance of two points, as defined for the whole module
/// (one fused multiply-add per feature, in feature order).
#[inline(always)]
pub fn dist2(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .fold(0.0, |acc, (&x, &y)| (x - y).mul_add(x - y, acc))
}

impl Exclude<'_> {
    /// The reference query `q` skips (`usize::MAX` for none).
    #[inline(always)]
    fn skip(&self, q: usize) -> usize {
        match self {
            Exclude::Nothing => usize::MAX,
            Exclude::SameIndex => q,
            Exclude::Given(s) => s[q],
        }
    }
}

/// One exact search: the `k` nearest (or, with `farthest`, farthest)
/// references among `refs` of every point of `queries`, skipping what
/// `exclude` says.
#[derive(Debug, Clone, Copy)]
struct Query<'a> {
    queries: Points<'a>,
    refs: Points<'a>,
    k: usize,
    exclude: Exclude<'a>,
    farthest: bool,
}

/// The lists of a few queries, each compared with every reference.
fn scan(s: Query<'_>) -> Lists {
    let mut lists = Lists::new(s.queries.n, s.k);
    for q in 0..s.queries.n {
        let skip = s.exclude.skip(q);
        for r in (0..s.refs.n).filter(|&r| r != skip) {
            let e = dist2(s.queries.row(q), s.refs.row(r));
            lists.offer(q, if s.farthest { -e } else { e }, r);
        }
    }
    lists
}

/// The current best `k` of every point of a range, each sorted by key, then
/// index (the key is the squared distance, negated for the farthest), and
/// each list's k-th key apart (padded to whole groups of [`brute::PAD`]
/// with `-inf`, which nothing reaches).
pub(crate) struct Lists {
    k: usize,
    key: Vec<f64>,
    idx: Vec<usize>,
    worst: Vec<f64>,
}

/// `(ka, ia)` ranks before `(kb, ib)`.
#[inline(always)]
fn before(ka: f64, ia: usize, kb: f64, ib: usize) -> bool {
    ka < kb || (ka == kb && ia < ib)
}

impl Lists {
    fn new(n: usize, k: usize) -> Self {
        let mut worst = vec![f64::INFINITY; n];
        worst.resize(n.div_ceil(brute::PAD) * brute::PAD, f64::NEG_INFINITY);
        Lists {
            k,
            key: vec![f64::INFINITY; n * k],
            idx: vec![usize::MAX; n * k],
            worst,
        }
    }

    /// The current k-th key of list `i`.
    #[inline(always)]
    fn worst(&self, i: usize) -> f64 {
        self.worst[i]
    }

    /// Inserts `(key, r)` into list `i` if it ranks among the best `k`; the
    /// order of arrival does not matter.
    #[inline(always)]
    fn offer(&mut self, i: usize, key: f64, r: usize) {
        let k = self.k;
        let keys = &mut self.key[i * k..(i + 1) * k];
        let idx = &mut self.idx[i * k..(i + 1) * k];
        if !before(key, r, keys[k - 1], idx[k - 1]) {
            return;
        }
        let mut p = k - 1;
        while p > 0 && before(key, r, keys[p - 1], idx[p - 1]) {
            keys[p] = keys[p - 1];
            idx[p] = idx[p - 1];
            p -= 1;
        }
        keys[p] = key;
        idx[p] = r;
        self.worst[i] = keys[k - 1];
    }

    /// Merges lists that saw disjoint sets of pairs (the best `k` of the union).
    fn merge(mut self, other: Lists) -> Lists {
        for i in 0..self.key.len() / self.k.max(1) {
            for s in i * self.k..(i + 1) * self.k {
                if other.idx[s] == usize::MAX {
                    break;
                }
                self.offer(i, other.key[s], other.idx[s]);
            }
        }
        self
    }

    /// The lists of points kept in another order (list `p` belongs to the
    /// point numbered `orig[p]`), put in the order of those numbers.
    fn by_original_index(self, orig: &[usize]) -> Lists {
        let k = self.k;
        let mut key = vec![0.0; self.key.len()];
        let mut idx = vec![0; self.idx.len()];
        for (p, &o) in orig.iter().enumerate() {
            key[o * k..(o + 1) * k].copy_from_slice(&self.key[p * k..(p + 1) * k]);
            idx[o * k..(o + 1) * k].copy_from_slice(&self.idx[p * k..(p + 1) * k]);
        }
        Lists {
            k,
            key,
            idx,
            worst: Vec::new(),
        }
    }

    /// The lists of consecutive ranges of points, `n` in all, end to end.
    fn concat(parts: Vec<Lists>, n: usize, k: usize) -> Lists {
        let mut out = Lists {
            k,
            key: Vec::with_capacity(n * k),
            idx: Vec::with_capacity(n * k),
            worst: Vec::new(),
        };
        for p in parts {
            out.key.extend(p.key);
            out.idx.extend(p.idx);
        }
        out
    }
}

/// Per-feature centring and scaling for the neighbour search.
#[derive(Debug, Clone, PartialEq)]
pub struct Scaling {
    mean: Vec<f64>,
    scale: Vec<f64>,
}

impl Scaling {
    /// Mean and population standard deviation of each feature over all rows
    /// of `data` (a zero deviation is replaced by 1).
    pub fn fit(data: &Dataset) -> Self {
        let d = data.n_features();
        let n = data.n_rows().max(1) as f64;
        let mut mean = vec![0.0; d];
        for i in 0..data.n_rows() {
            for (m, &v) in mean.iter_mut().zip(data.row(i)) {
                *m += v;
            }
        }
        for m in &mut mean {
            *m /= n;
        }
        let mut var = vec![0.0; d];
        for i in 0..data.n_rows() {
            for ((s, &v), &m) in var.iter_mut().zip(data.row(i)).zip(&mean) {
                *s += (v - m) * (v - m);
            }
        }
        let scale = var
            .into_iter()
            .map(|s| {
                let sd = (s / n).sqrt();
                if sd > 0.0 {
                    sd
                } else {
                    1.0
                }
            })
            .collect();
        Scaling { mean, scale }
    }

    /// The same scaling with the features flagged in `kept` left as they
    /// are (level codes, compared for equality only).
    pub fn keeping(mut self, kept: &[bool]) -> Self {
        for ((m, s), _) in self
            .mean
            .iter_mut()
            .zip(&mut self.scale)
            .zip(kept)
            .filter(|(_, &k)| k)
        {
            *m = 0.0;
            *s = 1.0;
        }
        self
    }

    /// Appends the scaled copy of `row` to `out`.
    pub fn push_scaled(&self, row: &[f64], out: &mut Vec<f64>) {
        out.extend(
            row.iter()
                .zip(self.mean.iter().zip(&self.scale))
                .map(|(&v, (&m, &s))| (v - m) / s),
        );
    }
}

/// The rows `rows` of a matrix `x` with `d` features, copied (and scaled when
/// `scaling` is given) into a contiguous buffer for searching.
pub fn gather(x: &[f64], d: usize, rows: &[usize], scaling: Option<&Scaling>) -> Vec<f64> {
    let mut out = Vec::with_capacity(rows.len() * d);
    for &i in rows {
        let r = &x[i * d..(i + 1) * d];
        match scaling {
            Some(s) => s.push_scaled(r, &mut out),
            None => out.extend_from_slice(r),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::brute::BLOCK;
    use super::*;
    use rand::RngExt;

    /// Plain reference: every distance, sorted by (distance, index).
    pub(super) fn naive(
        q: &[f64],
        r: &[f64],
        d: usize,
        k: usize,
        ex: bool,
        far: bool,
    ) -> Vec<Vec<usize>> {
        let nq = q.len() / d;
        let nr = r.len() / d;
        (0..nq)
            .map(|i| {
                let mut all: Vec<(f64, usize)> = (0..nr)
                    .filter(|&j| !(ex && i == j))
                    .map(|j| {
                        let mut s = 0.0;
                        for t in 0..d {
                            let df = q[i * d + t] - r[j * d + t];
                            s = df.mul_add(df, s);
                        }
                        (if far { -s } else { s }, j)
                    })
                    .collect();
                all.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap().then(a.1.cmp(&b.1)));
                all.into_iter().take(k).map(|p| p.1).collect()
            })
            .collect()
    }

    pub(super) fn random(n: usize, d: usize, seed: u64, grid: bool) -> Vec<f64> {
        let mut r = crate::rng::stream(seed, 0);
        (0..n * d)
            .map(|_| {
                if grid {
                    r.random_range(0..4) as f64
                } else {
                    r.random::<f64>()
                }
            })
            .collect()
    }

    #[test]
    fn matches_naive_with_ties_and_odd_sizes() {
        for &(nq, nr, d, k) in &[
            (70, 531, 3, 5),
            (9, 9, 1, 8),
            (130, 77, 30, 4),
            (40, 70, 300, 3),
            (5, 3, 2, 1),
        ] {
            for grid in [false, true] {
                let q = random(nq, d, 1, grid);
                let r = random(nr, d, 2, grid);
                let got = knn(
                    Points::new(&q, nq, d).unwrap(),
                    Points::new(&r, nr, d).unwrap(),
                    k,
                    Exclude::Nothing,
                );
                let want = naive(&q, &r, d, k.min(nr), false, false);
                for (i, w) in want.iter().enumerate() {
                    assert_eq!(got.of(i), w.as_slice(), "nq={nq} nr={nr} d={d} grid={grid}");
                }
                let p = Points::new(&r, nr, d).unwrap();
                let me = knn(p, p, k, Exclude::SameIndex);
                let want = naive(&r, &r, d, k.min(nr - 1), true, false);
                for (i, w) in want.iter().enumerate() {
                    assert_eq!(me.of(i), w.as_slice());
                    assert!(!me.of(i).contains(&i));
                }
                let far = search(p, p, k, Exclude::SameIndex, Order::Farthest);
                let want = naive(&r, &r, d, k.min(nr - 1), true, true);
                for (i, w) in want.iter().enumerate() {
                    assert_eq!(far.of(i), w.as_slice());
                }
            }
        }
    }

    /// Many tiles, heavy ties and duplicates, points far from the origin
    /// (where the first pass's bound is loose), at one and two threads: the
    /// self-search and the cross search both give the naive answer.
    #[test]
    fn tiled_searches_match_naive_at_any_thread_count() {
        let (n, d) = (2 * BLOCK + 37, 5);
        // The last set's norms are too large for the first pass (exact only).
        for (shift, scale, grid) in [
            (0.0, 1.0, true),
            (1e9, 1.0, true),
            (-3e5, 1.0, false),
            (0.0, 1e151, true),
        ] {
            let mut r = random(n, d, 3, grid);
            r.iter_mut().for_each(|v| *v = *v * scale + shift);
            // Exact duplicates of earlier rows.
            for i in (0..n).step_by(9) {
                let src = (i * 7) % n;
                let row: Vec<f64> = r[src * d..(src + 1) * d].to_vec();
                r[i * d..(i + 1) * d].copy_from_slice(&row);
            }
            let q: Vec<f64> = r[..(BLOCK + 5) * d]
                .iter()
                .map(|v| v + 0.5 * scale)
                .collect();
            for threads in [1, 2] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                pool.install(|| {
                    let p = Points::new(&r, n, d).unwrap();
                    let qp = Points::new(&q, BLOCK + 5, d).unwrap();
                    for k in [1, 3, 6] {
                        let me = knn(p, p, k, Exclude::SameIndex);
                        let want = naive(&r, &r, d, k, true, false);
                        let far = search(p, p, k, Exclude::SameIndex, Order::Farthest);
                        let want_far = naive(&r, &r, d, k, true, true);
                        for i in 0..n {
                            assert_eq!(me.of(i), want[i].as_slice(), "shift={shift} k={k}");
                            assert_eq!(far.of(i), want_far[i].as_slice());
                        }
                        let cross = knn(qp, p, k, Exclude::Nothing);
                        let want = naive(&q, &r, d, k, false, false);
                        for (i, w) in want.iter().enumerate() {
                            assert_eq!(cross.of(i), w.as_slice());
                        }
                        let skip: Vec<usize> = (0..BLOCK + 5).map(|i| (i * 3) % n).collect();
                        let given = knn(qp, p, k, Exclude::Given(&skip));
                        // Naive with the skipped reference pushed out of reach.
                        let wide = naive(&q, &r, d, k + 1, false, false);
                        for (i, s) in skip.iter().enumerate() {
                            let want: Vec<usize> =
                                wide[i].iter().copied().filter(|j| j != s).take(k).collect();
                            assert_eq!(given.of(i), want.as_slice());
                        }
                    }
                });
            }
        }
    }

    #[test]
    fn k_capped_and_empty() {
        let x = [1.0, 2.0];
        let p = Points::new(&x, 2, 1).unwrap();
        assert_eq!(knn(p, p, 5, Exclude::SameIndex).k(), 1);
        assert!(knn(p, p, 0, Exclude::SameIndex).is_empty());
        assert!(Points::new(&x, 3, 1).is_err());
    }

    #[test]
    fn scaling_standardises() {
        let ds = Dataset::from_rows(
            vec![vec![1.0, 5.0], vec![3.0, 5.0]],
            vec![0, 1],
            vec!["a".into(), "b".into()],
        )
        .unwrap();
        let s = Scaling::fit(&ds);
        let g = gather(ds.features(), 2, &[0, 1], Some(&s));
        assert_eq!(g, vec![-1.0, 0.0, 1.0, 0.0]);
    }
}
