//! Exact k-nearest-neighbour search, shared by SMOTE and its variants and by
//! the informative undersamplers.
//!
//! Distances are Euclidean (squared distances are compared; the square root
//! is never needed to rank). The distance of a pair is defined as the sum over
//! features in feature order, `acc = fma(q_j - r_j, q_j - r_j, acc)` (one
//! rounding per feature: IEEE fused multiply-add), so results are the same,
//! bit for bit, as that scalar loop, on any CPU and at any thread count.
//! Equal distances are broken by the lower reference index.
//!
//! The search is an exact brute force in two passes. The first is a matrix
//! product, as in BLAS-based k-NN: on coordinates centred on the references'
//! mean, `|q|^2 + |r|^2 - 2 q.r` for blocks of queries against blocks of
//! references (a register-blocked micro-kernel, four queries x eight
//! references, AVX2 + FMA chosen at run time, a portable build elsewhere).
//! Its rounding error is bounded (Higham, *Accuracy and Stability of
//! Numerical Algorithms*, 2002, section 3.1: a sum of `d` products is within
//! `gamma_d` of the sum of their absolute values), so a pair whose lower bound
//! already ranks after a query's current k-th neighbour is skipped, and only
//! the few others get the exact distance. When queries and references are the
//! same points (Tomek links, ENN, SMOTE within a class) each pair is visited
//! once and offered to both points' lists.
//!
//! Brute force is the method for every size and dimension here: in the
//! dimensions of the benchmark sets (30) a kd-tree prunes almost nothing.
//!
//! Features may be standardised first ([`Scaling`]): z-scores with the mean
//! and the population standard deviation of each feature (scikit-learn's
//! `StandardScaler`; a constant feature is only centred).

use rayon::prelude::*;

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
/// use rarity::sample::neighbors::{knn, Exclude, Points};
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
    assert_eq!(
        queries.d, refs.d,
        "queries and references differ in dimension"
    );
    let avail = match exclude {
        Exclude::Nothing => refs.n,
        _ => refs.n.saturating_sub(1),
    };
    let k = k.min(avail);
    let nq = queries.n;
    if k == 0 || nq == 0 {
        return Neighbours {
            k,
            index: Vec::new(),
            dist2: Vec::new(),
        };
    }
    let centre = centre_of(refs);
    let rpack = Packed::new(refs, &centre);
    let same = matches!(exclude, Exclude::SameIndex)
        && std::ptr::eq(queries.x.as_ptr(), refs.x.as_ptr())
        && queries.n == refs.n;
    let qpack_own;
    let qpack = if same {
        &rpack
    } else {
        qpack_own = Packed::new(queries, &centre);
        &qpack_own
    };
    let task = Task {
        queries,
        refs,
        qpack,
        rpack: &rpack,
        exclude,
        farthest: order == Order::Farthest,
        c_rel: (2 * queries.d + 16) as f64 * f64::EPSILON,
        c_abs: (4 * queries.d + 32) as f64 * f64::MIN_POSITIVE,
        // Norms so large that the first pass could overflow: every pair is
        // computed exactly.
        exact_only: !(qpack.moderate() && rpack.moderate()),
    };

    let mut lists = if same {
        task.self_search(k)
    } else {
        task.cross_search(k)
    };
    if order == Order::Farthest {
        for v in &mut lists.key {
            *v = -*v;
        }
    }
    Neighbours {
        k,
        index: lists.idx,
        dist2: lists.key,
    }
}

/// References packed per group (one vector lane each).
const LANES: usize = 8;
/// Queries that share one pass over a reference group (register blocking).
const QUERY_TILE: usize = 4;
/// Points per cache block (both sides of a tile), a multiple of [`LANES`].
const BLOCK: usize = 128;

/// Per-feature mean of the references: the origin of the first pass, so that
/// the norms in its error bound stay small.
fn centre_of(refs: Points<'_>) -> Vec<f64> {
    let mut c = vec![0.0; refs.d];
    for i in 0..refs.n {
        for (s, &v) in c.iter_mut().zip(refs.row(i)) {
            *s += v;
        }
    }
    let n = refs.n.max(1) as f64;
    c.iter_mut().for_each(|s| *s /= n);
    c
}

/// Centred points in groups of [`LANES`], each group dimension-major
/// (`group[j * LANES + lane]`; missing lanes of the last group are zero and
/// never reported), with their squared norms.
struct Packed {
    x: Vec<f64>,
    norm: Vec<f64>,
}

impl Packed {
    fn new(p: Points<'_>, centre: &[f64]) -> Self {
        let d = p.d;
        let groups = p.n.div_ceil(LANES);
        let mut x = vec![0.0; groups * d * LANES];
        let mut norm = vec![0.0; groups * LANES];
        for (g, chunk) in x.chunks_mut(d * LANES).enumerate().take(groups) {
            for l in 0..LANES {
                let r = g * LANES + l;
                if r < p.n {
                    let mut s = 0.0;
                    for (j, (&v, &m)) in p.row(r).iter().zip(centre).enumerate() {
                        let c = v - m;
                        chunk[j * LANES + l] = c;
                        s += c * c;
                    }
                    norm[r] = s;
                }
            }
        }
        Packed { x, norm }
    }

    /// All squared norms below `1e300`: the first pass cannot overflow (its
    /// dot products are at most `sqrt(|q|^2 |r|^2)`).
    fn moderate(&self) -> bool {
        self.norm.iter().all(|&v| v < 1e300)
    }
}

/// The current best `k` of every point of a range, each sorted by key, then
/// index (the key is the squared distance, negated for the farthest).
struct Lists {
    k: usize,
    key: Vec<f64>,
    idx: Vec<usize>,
}

/// `(ka, ia)` ranks before `(kb, ib)`.
#[inline(always)]
fn before(ka: f64, ia: usize, kb: f64, ib: usize) -> bool {
    ka < kb || (ka == kb && ia < ib)
}

impl Lists {
    fn new(n: usize, k: usize) -> Self {
        Lists {
            k,
            key: vec![f64::INFINITY; n * k],
            idx: vec![usize::MAX; n * k],
        }
    }

    #[inline(always)]
    fn worst(&self, i: usize) -> f64 {
        self.key[(i + 1) * self.k - 1]
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
}

/// One search, shared by the parallel tasks.
struct Task<'a> {
    queries: Points<'a>,
    refs: Points<'a>,
    qpack: &'a Packed,
    rpack: &'a Packed,
    exclude: Exclude<'a>,
    farthest: bool,
    /// The first pass's distance is within `c_rel (|q|^2 + |r|^2) + c_abs`
    /// of the exact one (see [`Task::tile`]).
    c_rel: f64,
    c_abs: f64,
    exact_only: bool,
}

impl Task<'_> {
    /// Every query against every reference; query blocks run in parallel.
    fn cross_search(&self, k: usize) -> Lists {
        let nq = self.queries.n;
        let mut lists = Lists::new(nq, k);
        let blocks = self.refs.n.div_ceil(BLOCK);
        lists
            .key
            .par_chunks_mut(BLOCK * k)
            .zip(lists.idx.par_chunks_mut(BLOCK * k))
            .enumerate()
            .for_each(|(b, (key, idx))| {
                let q0 = b * BLOCK;
                let mut mine = Lists {
                    k,
                    key: key.to_vec(),
                    idx: idx.to_vec(),
                };
                for rb in 0..blocks {
                    self.tile(q0, rb * BLOCK, false, &mut mine);
                }
                key.copy_from_slice(&mine.key);
                idx.copy_from_slice(&mine.idx);
            });
        lists
    }

    /// The pairs `(a, b)`, `a < b`, of one set, each visited once: tiles of
    /// the upper triangle are shared among the threads, each fold keeps lists
    /// for all points, and the folds are merged (the best `k` of a union does
    /// not depend on how it was split, so neither does the result).
    fn self_search(&self, k: usize) -> Lists {
        let n = self.refs.n;
        let nb = n.div_ceil(BLOCK);
        let pairs: Vec<(usize, usize)> =
            (0..nb).flat_map(|i| (i..nb).map(move |j| (i, j))).collect();
        pairs
            .into_par_iter()
            .with_min_len(16)
            .fold(
                || Lists::new(n, k),
                |mut lists, (i, j)| {
                    self.tile(i * BLOCK, j * BLOCK, true, &mut lists);
                    lists
                },
            )
            .reduce_with(Lists::merge)
            .unwrap_or_else(|| Lists::new(n, k))
    }

    /// Queries `q0..q0 + BLOCK` against references `r0..r0 + BLOCK` (both
    /// clipped). Lists are indexed from `q0` (cross search) or by point
    /// (`sym`: self-search, pairs with `r > q` only, offered to both).
    fn tile(&self, q0: usize, r0: usize, sym: bool, lists: &mut Lists) {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                // SAFETY: the CPU supports AVX2 and FMA, checked just above.
                unsafe { tile_avx2(self, q0, r0, sym, lists) };
                return;
            }
        }
        tile_body::<false>(self, q0, r0, sym, lists);
    }

    /// The exact squared distance, as the scalar loop defines it.
    #[inline(always)]
    fn exact(&self, q: usize, r: usize) -> f64 {
        self.queries
            .row(q)
            .iter()
            .zip(self.refs.row(r))
            .fold(0.0, |acc, (&a, &b)| (a - b).mul_add(a - b, acc))
    }

    #[inline(always)]
    fn skipped(&self, q: usize, r: usize) -> bool {
        match self.exclude {
            Exclude::Nothing => false,
            Exclude::SameIndex => q == r,
            Exclude::Given(s) => s[q] == r,
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn tile_avx2(t: &Task<'_>, q0: usize, r0: usize, sym: bool, lists: &mut Lists) {
    tile_body::<true>(t, q0, r0, sym, lists)
}

/// Dot products of [`QUERY_TILE`] queries (lanes `ql..` of a packed query
/// group) with one packed reference group, over all features.
#[inline(always)]
fn dots<const AVX2: bool>(qgroup: &[f64], ql: usize, rgroup: &[f64]) -> [[f64; LANES]; QUERY_TILE] {
    assert!(qgroup.len() == rgroup.len() && qgroup.len() % LANES == 0 && ql + QUERY_TILE <= LANES);
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: `AVX2` is set only inside `tile_avx2`, which runs after the
        // CPU was found to support AVX2 and FMA; the lengths were checked above.
        return unsafe { dots_avx2(qgroup, ql, rgroup) };
    }
    let mut acc = [[0.0f64; LANES]; QUERY_TILE];
    for (qj, rj) in qgroup.chunks_exact(LANES).zip(rgroup.chunks_exact(LANES)) {
        for (a, &x) in acc.iter_mut().zip(&qj[ql..ql + QUERY_TILE]) {
            for (s, &y) in a.iter_mut().zip(rj) {
                *s += x * y;
            }
        }
    }
    acc
}

/// [`dots`] with AVX2 vectors: per feature, two loads of eight references,
/// four broadcast queries, eight fused multiply-adds.
///
/// # Safety
/// The CPU must support AVX2 and FMA; `qgroup` and `rgroup` must have the
/// same length, a multiple of [`LANES`], and `ql + QUERY_TILE <= LANES`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dots_avx2(qgroup: &[f64], ql: usize, rgroup: &[f64]) -> [[f64; LANES]; QUERY_TILE] {
    use std::arch::x86_64::*;
    let d = rgroup.len() / LANES;
    let qp = qgroup.as_ptr().add(ql);
    let rp = rgroup.as_ptr();
    let mut acc = [_mm256_setzero_pd(); 2 * QUERY_TILE];
    for j in 0..d {
        let r0 = _mm256_loadu_pd(rp.add(j * LANES));
        let r1 = _mm256_loadu_pd(rp.add(j * LANES + 4));
        for a in 0..QUERY_TILE {
            let x = _mm256_broadcast_sd(&*qp.add(j * LANES + a));
            acc[2 * a] = _mm256_fmadd_pd(x, r0, acc[2 * a]);
            acc[2 * a + 1] = _mm256_fmadd_pd(x, r1, acc[2 * a + 1]);
        }
    }
    let mut out = [[0.0f64; LANES]; QUERY_TILE];
    for (a, o) in out.iter_mut().enumerate() {
        _mm256_storeu_pd(o.as_mut_ptr(), acc[2 * a]);
        _mm256_storeu_pd(o.as_mut_ptr().add(4), acc[2 * a + 1]);
    }
    out
}

/// The tile kernel. First pass: `|q|^2 + |r|^2 - 2 q.r` on centred points, a
/// matrix product. With `s = |q|^2 + |r|^2` (centred), this value, the exact
/// `fma` loop's value and the true distance are all within
/// `c_rel * s + c_abs` of each other (the dot product and the norms carry
/// about `d` roundings each relative to `s`, the centring four, the `fma`
/// loop `d` relative to the distance `<= 2 s`; `c_rel = (2d + 16) eps` covers
/// their sum, `c_abs` underflow). A pair whose lower bound already ranks
/// after a list's current k-th entry cannot enter it; the others get the
/// exact distance (all pairs do when a centred squared norm reaches `1e300`).
#[inline(always)]
fn tile_body<const AVX2: bool>(t: &Task<'_>, q0: usize, r0: usize, sym: bool, lists: &mut Lists) {
    let d = t.queries.d;
    let nq = t.queries.n;
    let nr = t.refs.n;
    let q1 = (q0 + BLOCK).min(nq);
    let r1 = (r0 + BLOCK).min(nr);
    let base = if sym { 0 } else { q0 };
    let gw = d * LANES;
    let mut q = q0;
    while q < q1 {
        let (qg, ql) = (q / LANES, q % LANES);
        let qgroup = &t.qpack.x[qg * gw..(qg + 1) * gw];
        let qn: [f64; QUERY_TILE] = std::array::from_fn(|a| t.qpack.norm[q + a]);
        let mut g = r0 / LANES;
        if sym {
            // Groups wholly below the queries hold no pair with r > q.
            g = g.max(q / LANES);
        }
        while g * LANES < r1 {
            let rgroup = &t.rpack.x[g * gw..(g + 1) * gw];
            let dot = dots::<AVX2>(qgroup, ql, rgroup);
            let rn: &[f64; LANES] = t.rpack.norm[g * LANES..(g + 1) * LANES]
                .try_into()
                .expect("group");
            // Lower bounds of the keys of the 32 pairs.
            let mut low = [[0.0f64; LANES]; QUERY_TILE];
            for ((lo, dq), &nq_a) in low.iter_mut().zip(&dot).zip(&qn) {
                for ((v, &p), &nr_l) in lo.iter_mut().zip(dq).zip(rn) {
                    let s = nq_a + nr_l;
                    let approx = s - 2.0 * p;
                    let err = t.c_rel * s + t.c_abs;
                    *v = if t.farthest {
                        -(approx + err)
                    } else {
                        approx - err
                    };
                }
            }
            if t.exact_only {
                low = [[f64::NEG_INFINITY; LANES]; QUERY_TILE];
            }
            // Cheap test first: does any pair reach a query's or (self-search)
            // a reference's current k-th entry?
            let mut any = false;
            for (a, lo) in low.iter().enumerate() {
                if q + a < q1 {
                    let m = lo
                        .iter()
                        .fold(f64::INFINITY, |m, &v| if v < m { v } else { m });
                    any |= m <= lists.worst(q + a - base);
                }
            }
            if sym {
                let mut col = low[0];
                for lo in &low[1..] {
                    for (c, &v) in col.iter_mut().zip(lo) {
                        *c = if v < *c { v } else { *c };
                    }
                }
                for (l, &c) in col.iter().enumerate() {
                    let r = g * LANES + l;
                    any |= r < nr && c <= lists.worst(r);
                }
            }
            if !any {
                g += 1;
                continue;
            }
            let mut hits = 0u32;
            for (a, lo) in low.iter().enumerate() {
                if q + a >= q1 {
                    continue;
                }
                let wq = lists.worst(q + a - base);
                for (l, &v) in lo.iter().enumerate() {
                    let r = g * LANES + l;
                    let pass = v <= wq || (sym && r < nr && v <= lists.worst(r));
                    hits |= u32::from(pass) << (a * LANES + l);
                }
            }
            while hits != 0 {
                let bit = hits.trailing_zeros() as usize;
                hits &= hits - 1;
                let (qi, r) = (q + bit / LANES, g * LANES + bit % LANES);
                if qi >= q1 || r < r0 || r >= r1 || (sym && r <= qi) || t.skipped(qi, r) {
                    continue;
                }
                let exact = t.exact(qi, r);
                let key = if t.farthest { -exact } else { exact };
                lists.offer(qi - base, key, r);
                if sym {
                    lists.offer(r, key, qi);
                }
            }
            g += 1;
        }
        q += QUERY_TILE;
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
    use super::*;
    use rand::RngExt;

    /// Plain reference: every distance, sorted by (distance, index).
    fn naive(q: &[f64], r: &[f64], d: usize, k: usize, ex: bool, far: bool) -> Vec<Vec<usize>> {
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

    fn random(n: usize, d: usize, seed: u64, grid: bool) -> Vec<f64> {
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
