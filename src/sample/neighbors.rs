//! Exact k-nearest-neighbour search, shared by SMOTE and its variants and by
//! the informative undersamplers.
//!
//! Distances are Euclidean (squared distances are compared; the square root
//! is never needed to rank). The search is a blocked brute force: the
//! reference points are packed eight at a time in a dimension-major layout so
//! that one query meets eight references per vector operation, references are
//! visited in cache-sized tiles, and blocks of queries run in parallel with
//! rayon. For each pair the squared distance is the sum over features in
//! feature order, `acc = fma(q_j - r_j, q_j - r_j, acc)` (one rounding per
//! feature: IEEE fused multiply-add), so results are the same, bit for bit,
//! as that scalar loop, on any CPU and at any thread count. Equal distances
//! are broken by the lower reference index.
//!
//! Brute force is the method for every size and dimension here: in the
//! dimensions of the benchmark sets (30) a kd-tree prunes almost nothing,
//! and in low dimension the packed kernel is already far from the bottleneck.
//! When the CPU has AVX2 and FMA the same kernel is compiled for them and
//! chosen at run time; elsewhere the portable build computes the same values.
//! Four queries share each pass over a reference group (register blocking).
//!
//! Features may be standardised first ([`Scaling`]): z-scores with the mean
//! and the population standard deviation of each feature (scikit-learn's
//! `StandardScaler`; a constant feature is only centred).

use rayon::prelude::*;

use crate::data::Dataset;
use crate::error::{Error, Result};

/// References packed per group (one vector lane each).
const LANES: usize = 8;
/// Queries handled by one parallel task.
const QUERY_BLOCK: usize = 64;
/// Reference groups visited per tile (512 references), sized for L2.
const TILE_GROUPS: usize = 64;

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
    let packed = pack(refs);
    let mut index = vec![usize::MAX; nq * k];
    let mut key = vec![f64::INFINITY; nq * k];
    let task = Task {
        queries,
        packed: &packed,
        n_refs: refs.n,
        k,
        exclude,
        farthest: order == Order::Farthest,
    };
    index
        .par_chunks_mut(QUERY_BLOCK * k)
        .zip(key.par_chunks_mut(QUERY_BLOCK * k))
        .enumerate()
        .for_each(|(b, (idx, ky))| task.run_block(b * QUERY_BLOCK, idx, ky));
    if order == Order::Farthest {
        for v in &mut key {
            *v = -*v;
        }
    }
    Neighbours {
        k,
        index,
        dist2: key,
    }
}

/// References in groups of [`LANES`], each group dimension-major
/// (`group[j * LANES + lane]`); missing lanes of the last group are zero and
/// never reported.
fn pack(refs: Points<'_>) -> Vec<f64> {
    let d = refs.d;
    let groups = refs.n.div_ceil(LANES);
    let mut out = vec![0.0; groups * d * LANES];
    for (i, chunk) in out.chunks_mut(d * LANES).enumerate().take(groups) {
        for l in 0..LANES {
            let r = i * LANES + l;
            if r < refs.n {
                for (j, &v) in refs.row(r).iter().enumerate() {
                    chunk[j * LANES + l] = v;
                }
            }
        }
    }
    out
}

/// One search, shared by the parallel query blocks.
struct Task<'a> {
    queries: Points<'a>,
    packed: &'a [f64],
    n_refs: usize,
    k: usize,
    exclude: Exclude<'a>,
    farthest: bool,
}

/// Queries that share one pass over a reference group (register blocking).
const QUERY_TILE: usize = 4;

impl Task<'_> {
    /// Searches queries `q0..` (as many as `idx` holds) against all references.
    fn run_block(&self, q0: usize, idx: &mut [usize], key: &mut [f64]) {
        let groups = self.n_refs.div_ceil(LANES);
        let k = self.k;
        let nq = idx.len() / k;
        let mut g0 = 0;
        while g0 < groups {
            let g1 = (g0 + TILE_GROUPS).min(groups);
            let mut qi = 0;
            while qi < nq {
                let m = QUERY_TILE.min(nq - qi);
                let span = qi * k..(qi + m) * k;
                let tops = Tops {
                    idx: &mut idx[span.clone()],
                    key: &mut key[span],
                    k,
                };
                self.scan(q0 + qi, m, g0, g1, tops);
                qi += m;
            }
            g0 = g1;
        }
    }

    fn scan(&self, q: usize, m: usize, g0: usize, g1: usize, tops: Tops<'_>) {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                // SAFETY: the CPU supports AVX2 and FMA, checked just above.
                unsafe { scan_avx2(self, q, m, g0, g1, tops) };
                return;
            }
        }
        scan_generic(self, q, m, g0, g1, tops);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn scan_avx2(t: &Task<'_>, q: usize, m: usize, g0: usize, g1: usize, tops: Tops<'_>) {
    scan_generic(t, q, m, g0, g1, tops)
}

/// Adds `(q_j - r_j)^2` for features `j in js` to the accumulators of up to
/// [`QUERY_TILE`] queries against one group of [`LANES`] references.
#[inline(always)]
fn accumulate(
    acc: &mut [[f64; LANES]; QUERY_TILE],
    qrows: &[&[f64]; QUERY_TILE],
    block: &[f64],
    js: std::ops::Range<usize>,
) {
    // Iterators instead of indexing: no bounds checks (and no panic paths)
    // inside the loop, so the accumulators stay in registers.
    let refs = block[js.start * LANES..js.end * LANES].chunks_exact(LANES);
    let [q0, q1, q2, q3] = qrows.map(|q| &q[js.clone()]);
    let mut a = *acc;
    for ((((r, &x0), &x1), &x2), &x3) in refs.zip(q0).zip(q1).zip(q2).zip(q3) {
        for (t, qj) in [x0, x1, x2, x3].into_iter().enumerate() {
            for l in 0..LANES {
                let diff = qj - r[l];
                a[t][l] = diff.mul_add(diff, a[t][l]);
            }
        }
    }
    *acc = a;
}

/// The kernel: queries `q..q + m` (`m <= QUERY_TILE`) against reference
/// groups `g0..g1`.
#[inline(always)]
fn scan_generic(t: &Task<'_>, q: usize, m: usize, g0: usize, g1: usize, mut tops: Tops<'_>) {
    let d = t.queries.d;
    // Missing queries of a short tile repeat the last one; their results are dropped.
    let qrows: [&[f64]; QUERY_TILE] = std::array::from_fn(|a| t.queries.row(q + a.min(m - 1)));
    let skip: [usize; QUERY_TILE] = std::array::from_fn(|a| match t.exclude {
        Exclude::Nothing => usize::MAX,
        Exclude::SameIndex => q + a,
        Exclude::Given(s) => s[q + a.min(m - 1)],
    });
    // Feature ranges; the partial sums are checked after the first.
    let stages = [0, d / 2, d];
    'groups: for g in g0..g1 {
        let block = &t.packed[g * d * LANES..(g + 1) * d * LANES];
        let mut acc = [[0.0f64; LANES]; QUERY_TILE];
        for s in 0..2 {
            accumulate(&mut acc, &qrows, block, stages[s]..stages[s + 1]);
            // Partial sums never exceed the full sums, so once every
            // query's partial sums reach its current k-th distance, no
            // reference of this group can enter a list.
            if !t.farthest && s == 0 {
                let alive = (0..m).any(|a| {
                    let lo = acc[a].iter().fold(f64::INFINITY, |x, &v| x.min(v));
                    lo < tops.worst(a)
                });
                if !alive {
                    continue 'groups;
                }
            }
        }
        for (a, row) in acc.iter().enumerate().take(m) {
            for (l, &v) in row.iter().enumerate() {
                let r = g * LANES + l;
                if r >= t.n_refs || r == skip[a] {
                    continue;
                }
                tops.offer(a, if t.farthest { -v } else { v }, r);
            }
        }
    }
}

/// The current best `k` of a tile of queries, each sorted by key (then
/// index), held in the output slices.
struct Tops<'a> {
    idx: &'a mut [usize],
    key: &'a mut [f64],
    k: usize,
}

impl Tops<'_> {
    fn worst(&self, a: usize) -> f64 {
        self.key[(a + 1) * self.k - 1]
    }

    /// References arrive in increasing index order, so an equal key never
    /// displaces an earlier (lower-index) entry.
    #[inline(always)]
    fn offer(&mut self, a: usize, key: f64, r: usize) {
        let base = a * self.k;
        let keys = &mut self.key[base..base + self.k];
        let k = keys.len();
        if key >= keys[k - 1] {
            return;
        }
        let idx = &mut self.idx[base..base + k];
        let mut p = k - 1;
        while p > 0 && keys[p - 1] > key {
            keys[p] = keys[p - 1];
            idx[p] = idx[p - 1];
            p -= 1;
        }
        keys[p] = key;
        idx[p] = r;
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
