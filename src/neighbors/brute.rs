//! The exact brute-force search (see the parent module for the definition of
//! distances and ties): a matrix-product first pass with a rounding-error
//! bound, as in BLAS-based k-NN, then the exact distance for the few pairs
//! the bound cannot rule out.
//!
//! On coordinates centred on the references' mean, `|q|^2 + |r|^2 - 2 q.r`
//! is computed for a panel of queries x eight references at a time (a
//! register-blocked micro-kernel chosen at run time: AVX-512, eight queries,
//! one 512-bit accumulator each; AVX2 + FMA, six queries, two 256-bit
//! accumulators each; a portable build elsewhere, six queries) over tiles of
//! up to [`BLOCK`] x [`BLOCK`] points (fewer references in high dimension, so
//! that they stay in L1). Its rounding error is bounded (Higham, *Accuracy
//! and Stability of Numerical Algorithms*, 2002, section 3.1: a sum of `d`
//! products is within `gamma_d` of the sum of their absolute values), so the
//! kernel turns the 48 or 64 values straight into a bit mask of the pairs
//! whose lower bound still reaches a list's current k-th entry; only those
//! get the exact distance. Those pairs are collected over a whole panel row
//! of the tile and then computed in full batches of independent `fma` chains
//! (rather than one short batch per block, whose latency the kernel waited
//! on).
//!
//! With AVX-512 or AVX2, nearest-neighbour searches whose centred norms stay
//! below `1e30` run the first pass in single precision instead
//! ([`tile_f32_body`]: twice the lanes per vector; blocks of eight queries x
//! sixteen references with AVX-512, six x sixteen with AVX2), with the same
//! bound redone for `f32` rounding (about `1e-7 d` relative
//! instead of `1e-16 d`: a few more pairs reach the exact check, which still
//! decides). The result is the same, bit for bit, as the exact scalar loop's,
//! whichever first pass ran: the first pass only rules pairs out.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use super::partition::Partition;
use super::{Exclude, Lists, Points, Query};

mod cross;
mod pairs;

/// The state of one leaf's walk over a tree of references, in the
/// tree-ordered searches (`pairs`, `cross`).
struct Walk {
    /// The leaf node.
    leaf: usize,
    /// Its points, in tree order.
    span: Range<usize>,
    /// The largest k-th key of its points at the last refresh (at least the
    /// current one, so that pruning with it stays exact).
    largest: f64,
    /// Tiles done.
    tiles: usize,
    /// Whether its tiles take the single-precision first pass.
    f32: bool,
}

/// Two child nodes with the bounds of their keys, the lower bound first
/// (the order of a walk: the nearer child's pairs tighten the lists that
/// may rule out the other).
fn nearer_first(a: (usize, f64), b: (usize, f64)) -> [(usize, f64); 2] {
    if b.1 < a.1 {
        [b, a]
    } else {
        [a, b]
    }
}

/// References packed per group (one vector lane each).
pub(super) const LANES: usize = 8;
/// References per group of the single-precision first pass (one 512-bit
/// vector of `f32`, or two 256-bit ones).
const LANES_F32: usize = 16;
/// Per-point arrays read a whole group at a time (the lists' k-th keys,
/// [`Shared`]) are padded to a multiple of this, the widest group.
pub(super) const PAD: usize = LANES_F32;
/// Widest dimension for the single-precision first pass (its error bound,
/// about `d` roundings of `2^-24`, stays far below one).
const MAX_DIM_F32: usize = 4096;
/// Queries that share one pass over a reference group with AVX2 and the
/// portable kernel (register blocking: `2 * 6` accumulators of four doubles,
/// two reference vectors and one broadcast query fill 15 of the 16 vector
/// registers).
const QUERY_TILE: usize = 6;
/// Queries per panel with AVX-512: eight accumulators of eight doubles (the
/// two FMA units, four cycles of latency each, need eight independent
/// chains), one reference vector and one broadcast; a block of 8 x 8 pairs
/// is one 64-bit mask.
const QUERY_TILE_512: usize = 8;
/// Exact distances computed together (independent `fma` chains).
const EXACT_BATCH: usize = 4;
/// Queries per tile (whole panels of [`QUERY_TILE`] in the cross search), and
/// references at most, a multiple of [`LANES`].
pub(super) const BLOCK: usize = 128;
/// Bytes of packed references per tile: within a 48 KiB L1 data cache with
/// room for a panel of queries.
const L1_BYTES: usize = 32 * 1024;

/// References per tile in `d` dimensions, packed in groups of `lanes` values
/// of `bytes` each: a multiple of `lanes`, at most [`BLOCK`], about
/// [`L1_BYTES`] of them (double precision, 30 features: 128; 216: 16).
fn ref_block(d: usize, lanes: usize, bytes: usize) -> usize {
    (L1_BYTES / (bytes * d.max(1)) / lanes * lanes).clamp(lanes, BLOCK)
}

/// One feature of a group of [`LANES`] points, aligned to a cache line so
/// that vector loads never straddle two lines.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Lane([f64; LANES]);

/// Centred points in groups of [`LANES`], each group dimension-major
/// (`x[group * d + j].0[lane]`; missing lanes of the last group are zero and
/// never reported), with their squared norms.
struct Packed {
    d: usize,
    x: Vec<Lane>,
    norm: Vec<f64>,
}

impl Packed {
    fn new(p: Points<'_>, centre: &[f64]) -> Self {
        let d = p.d;
        let groups = p.n.div_ceil(LANES);
        let mut x = vec![Lane([0.0; LANES]); groups * d];
        let mut norm = vec![0.0; groups * LANES];
        for (r, nr) in norm.iter_mut().enumerate().take(p.n) {
            let group = &mut x[(r / LANES) * d..(r / LANES + 1) * d];
            let mut s = 0.0;
            for ((lane, &v), &m) in group.iter_mut().zip(p.row(r)).zip(centre) {
                let c = v - m;
                lane.0[r % LANES] = c;
                s += c * c;
            }
            *nr = s;
        }
        Packed { d, x, norm }
    }

    fn group(&self, g: usize) -> &[Lane] {
        &self.x[g * self.d..(g + 1) * self.d]
    }

    fn norms(&self, g: usize) -> &[f64; LANES] {
        self.norm[g * LANES..(g + 1) * LANES]
            .try_into()
            .expect("a whole group")
    }

    /// All squared norms below `1e300`: the first pass cannot overflow (its
    /// dot products are at most `sqrt(|q|^2 |r|^2)`).
    fn moderate(&self) -> bool {
        self.norm.iter().all(|&v| v < 1e300)
    }
}

/// Centred queries in panels of `tile` (the kernel's panel height), each
/// panel dimension-major and dense (`x[(panel * d + j) * tile + a]`; missing
/// queries of the last panel are zero and never reported), with their squared
/// norms: the queries of one kernel call are one contiguous run, small enough
/// to stay in L1 next to the references' tile.
struct Panels {
    d: usize,
    tile: usize,
    x: Vec<f64>,
    norm: Vec<f64>,
}

impl Panels {
    fn new(p: Points<'_>, centre: &[f64], tile: usize) -> Self {
        let d = p.d;
        let panels = p.n.div_ceil(tile);
        let mut x = vec![0.0; panels * d * tile];
        let mut norm = vec![0.0; panels * tile];
        for (q, nq) in norm.iter_mut().enumerate().take(p.n) {
            let (panel, a) = (q / tile, q % tile);
            let run = &mut x[panel * d * tile..(panel + 1) * d * tile];
            let mut s = 0.0;
            for ((slot, &v), &m) in run.chunks_exact_mut(tile).zip(p.row(q)).zip(centre) {
                let c = v - m;
                slot[a] = c;
                s += c * c;
            }
            *nq = s;
        }
        Panels { d, tile, x, norm }
    }

    fn panel(&self, i: usize) -> &[f64] {
        &self.x[i * self.d * self.tile..(i + 1) * self.d * self.tile]
    }

    /// As [`Packed::moderate`].
    fn moderate(&self) -> bool {
        self.norm.iter().all(|&v| v < 1e300)
    }
}

/// One feature of a group of [`LANES_F32`] points in single precision, a
/// cache line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Lane32([f32; LANES_F32]);

/// The single-precision copy of the first pass's operands (AVX-512 and AVX2,
/// see [`tile_f32_body`]): the centred queries in the same panels, the
/// centred references in groups of [`LANES_F32`], their squared norms (all
/// rounded to nearest from the double-precision packs), and the constants
/// of the bound.
struct Single {
    d: usize,
    q: Vec<f32>,
    qn: Vec<f32>,
    r: Vec<Lane32>,
    rn: Vec<f32>,
    c_rel: f32,
    c_abs: f32,
}

impl Single {
    /// The copy of `qpack` (in its panels) and `rpack`, or
    /// `None` when single precision cannot serve: no features or too many,
    /// or a centred squared norm of `1e30` or more (products and sums must
    /// not overflow `f32`; `NaN` fails this too).
    fn new(qpack: &Panels, rpack: &Packed) -> Option<Self> {
        let d = rpack.d;
        let moderate = |v: &[f64]| v.iter().all(|&x| x < 1e30);
        if d == 0 || d > MAX_DIM_F32 || !moderate(&qpack.norm) || !moderate(&rpack.norm) {
            return None;
        }
        let groups = rpack.norm.len().div_ceil(LANES_F32);
        let mut r = vec![Lane32([0.0; LANES_F32]); groups * d];
        for (g8, group) in rpack.x.chunks_exact(d).enumerate() {
            let (g, half) = (g8 / 2, (g8 % 2) * LANES);
            for (out, lane) in r[g * d..(g + 1) * d].iter_mut().zip(group) {
                for (o, &v) in out.0[half..half + LANES].iter_mut().zip(&lane.0) {
                    *o = v as f32;
                }
            }
        }
        let mut rn: Vec<f32> = rpack.norm.iter().map(|&v| v as f32).collect();
        rn.resize(groups * LANES_F32, 0.0);
        Some(Single {
            d,
            q: qpack.x.iter().map(|&v| v as f32).collect(),
            qn: qpack.norm.iter().map(|&v| v as f32).collect(),
            r,
            rn,
            c_rel: (d + 16) as f32 * f32::EPSILON,
            c_abs: (4 * d + 32) as f32 * f32::MIN_POSITIVE,
        })
    }
}

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

/// The first-pass micro-kernel, chosen at run time from the CPU's features.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kernel {
    /// AVX-512F: 8 x 8 blocks, or 8 x 16 in single precision (see
    /// [`tile_f32_body`]).
    Avx512,
    /// AVX2 + FMA: 6 x 8 blocks, or 6 x 16 in single precision.
    Avx2,
    /// Plain Rust (auto-vectorised as the target allows), 6 x 8 blocks.
    Portable,
}

impl Kernel {
    /// The fastest kernel this CPU supports.
    pub(super) fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx512f") && has!("avx2") && has!("fma") {
                return Kernel::Avx512;
            }
            if has!("avx2") && has!("fma") {
                return Kernel::Avx2;
            }
        }
        Kernel::Portable
    }

    /// Every kernel this CPU supports (for tests comparing them).
    #[cfg(test)]
    pub(super) fn available() -> Vec<Self> {
        let all = [Kernel::Avx512, Kernel::Avx2, Kernel::Portable];
        let best = all.iter().position(|&k| k == Kernel::detect()).unwrap_or(2);
        all[best..].to_vec()
    }

    /// Queries per panel.
    fn tile(self) -> usize {
        match self {
            Kernel::Avx512 => QUERY_TILE_512,
            Kernel::Avx2 | Kernel::Portable => QUERY_TILE,
        }
    }
}

/// The lists of the exact search of `queries` among `refs` (`k >= 1` and no
/// larger than the references available): every query against every
/// reference, or, when `same` (queries and references are the very same
/// points, excluded by index), each pair once, offered to both lists.
pub(super) fn search(q: Query<'_>, same: bool) -> Lists {
    search_with(Kernel::detect(), true, q, same)
}

/// [`search`] with a given first-pass kernel, which the CPU must support
/// (see [`Kernel::detect`]), and with the single-precision pass (AVX-512
/// and AVX2) allowed (`single`) or not.
pub(super) fn search_with(kernel: Kernel, single: bool, q: Query<'_>, same: bool) -> Lists {
    if same {
        // Tiles of nearby points, in the tree order (see `pairs`).
        let tree = Partition::new(q.refs, pairs::leaf_size(q.refs.d));
        let pts = tree.points();
        let ops = Operands::new(kernel, single, pts, pts, q.farthest);
        let task = Task::new(
            kernel,
            &ops,
            (pts, pts),
            q.exclude,
            q.farthest,
            Some(&tree.orig),
        );
        pairs::self_search(&task, &tree, q.k).by_original_index(&tree.orig)
    } else {
        cross::cross_search(kernel, single, q)
    }
}

/// The packed operands of the first pass: the queries in panels, the
/// references in groups, and their single-precision copy when that pass
/// is used.
struct Operands {
    qpack: Panels,
    rpack: Packed,
    single: Option<Single>,
    /// Norms so large that the first pass could overflow: every pair is
    /// computed exactly.
    exact_only: bool,
}

impl Operands {
    fn new(
        kernel: Kernel,
        single: bool,
        queries: Points<'_>,
        refs: Points<'_>,
        farthest: bool,
    ) -> Self {
        let centre = centre_of(refs);
        let rpack = Packed::new(refs, &centre);
        let qpack = Panels::new(queries, &centre, kernel.tile());
        let exact_only = !(qpack.moderate() && rpack.moderate());
        let vector = matches!(kernel, Kernel::Avx512 | Kernel::Avx2);
        let single = if single && vector && !farthest && !exact_only {
            Single::new(&qpack, &rpack)
        } else {
            None
        };
        Operands {
            qpack,
            rpack,
            single,
            exact_only,
        }
    }
}

/// The constants of the first pass's lower bound (see [`tile_body`]).
#[derive(Clone, Copy)]
struct Bound {
    c_rel: f64,
    c_abs: f64,
    /// 1 to rank by distance, -1 by negated distance (the farthest first).
    sign: f64,
}

impl Bound {
    /// The lower bound of the key of a pair with centred squared norms
    /// summing to `s` and centred dot product `dot`.
    #[inline(always)]
    fn low(&self, s: f64, dot: f64) -> f64 {
        self.sign * (s - 2.0 * dot) - (self.c_rel * s + self.c_abs)
    }
}

/// One search, shared by the parallel tasks.
pub(super) struct Task<'a> {
    kernel: Kernel,
    /// The single-precision operands, when that first pass is used.
    single: Option<&'a Single>,
    queries: Points<'a>,
    refs: Points<'a>,
    qpack: &'a Panels,
    rpack: &'a Packed,
    exclude: Exclude<'a>,
    bound: Bound,
    farthest: bool,
    exact_only: bool,
    /// The original index of each reference when the points were reordered
    /// along a tree (both searches): what the lists record, and rank ties by.
    ids: Option<&'a [usize]>,
}

impl<'a> Task<'a> {
    fn new(
        kernel: Kernel,
        ops: &'a Operands,
        (queries, refs): (Points<'a>, Points<'a>),
        exclude: Exclude<'a>,
        farthest: bool,
        ids: Option<&'a [usize]>,
    ) -> Self {
        Task {
            kernel,
            single: ops.single.as_ref(),
            queries,
            refs,
            qpack: &ops.qpack,
            rpack: &ops.rpack,
            exclude,
            bound: Bound {
                c_rel: (2 * queries.d + 16) as f64 * f64::EPSILON,
                c_abs: (4 * queries.d + 32) as f64 * f64::MIN_POSITIVE,
                sign: if farthest { -1.0 } else { 1.0 },
            },
            farthest,
            exact_only: ops.exact_only,
            ids,
        }
    }

    /// Queries `qs` against references `rs` (both clipped to the points;
    /// `rs` starts at a multiple of the packed groups' width), with the
    /// single-precision first pass when it is available and `f32` asks for
    /// it. Lists are indexed from `qs.start` (cross search) or by point
    /// (`shared` given: self-search, pairs with `r > q` only, offered to
    /// both).
    fn tile(
        &self,
        (qs, rs): (Range<usize>, Range<usize>),
        shared: Option<&Shared>,
        lists: &mut Lists,
        f32: bool,
    ) {
        if crate::cancel::requested() {
            return;
        }
        match self.kernel {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Kernel::Avx512` is only chosen (by `Kernel::detect`,
            // or by tests from `Kernel::available`) when the CPU supports
            // AVX-512F, AVX2 and FMA.
            Kernel::Avx512 => unsafe {
                match self.single.filter(|_| f32) {
                    Some(one) => tile_f32(self, one, qs, rs, shared, lists),
                    None => tile_avx512(self, qs, rs, shared, lists),
                }
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above, `Kernel::Avx2` means AVX2 and FMA were detected.
            Kernel::Avx2 => unsafe {
                match self.single.filter(|_| f32) {
                    Some(one) => tile_f32_avx2(self, one, qs, rs, shared, lists),
                    None => tile_avx2(self, qs, rs, shared, lists),
                }
            },
            _ => tile_body::<PORTABLE, QUERY_TILE>(self, qs, rs, shared, lists),
        }
    }

    /// The index point `p` is known by in the lists.
    #[inline(always)]
    fn id(&self, p: usize) -> usize {
        self.ids.map_or(p, |ids| ids[p])
    }

    /// Computes the exact key of each pair `(query, reference)` of `pending`
    /// and offers it to the query's list (numbered from `base`) and, in a
    /// self-search, the reference's.
    #[inline(always)]
    fn offer_exact(
        &self,
        pending: &[(usize, usize)],
        base: usize,
        shared: Option<&Shared>,
        lists: &mut Lists,
    ) {
        for batch in pending.chunks(EXACT_BATCH) {
            let exact = self.exact_batch(batch);
            for (&(qi, r), &e) in batch.iter().zip(&exact) {
                let key = if self.farthest { -e } else { e };
                lists.offer(qi - base, key, self.id(r));
                if let Some(s) = shared {
                    lists.offer(r, key, self.id(qi));
                    s.lower(qi, lists.worst(qi));
                    s.lower(r, lists.worst(r));
                }
            }
        }
    }

    /// The exact squared distances of up to [`EXACT_BATCH`] pairs `(query,
    /// reference)`, each the scalar `fma` loop's value; the independent
    /// sums are interleaved so that they overlap in the pipeline.
    #[inline(always)]
    fn exact_batch(&self, pairs: &[(usize, usize)]) -> [f64; EXACT_BATCH] {
        let last = pairs[pairs.len() - 1];
        let rows: [(&[f64], &[f64]); EXACT_BATCH] = std::array::from_fn(|i| {
            let (q, r) = pairs.get(i).copied().unwrap_or(last);
            (self.queries.row(q), self.refs.row(r))
        });
        let mut acc = [0.0f64; EXACT_BATCH];
        for j in 0..self.queries.d {
            for (s, (a, b)) in acc.iter_mut().zip(&rows) {
                let v = a[j] - b[j];
                *s = v.mul_add(v, *s);
            }
        }
        acc
    }
}

/// Values of `tile_body`'s `KERNEL` parameter.
const PORTABLE: u8 = 0;
const AVX2: u8 = 1;
const AVX512: u8 = 2;

/// # Safety
/// The CPU must support AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn tile_avx2(
    t: &Task<'_>,
    qs: Range<usize>,
    rs: Range<usize>,
    shared: Option<&Shared>,
    lists: &mut Lists,
) {
    tile_body::<AVX2, QUERY_TILE>(t, qs, rs, shared, lists)
}

/// # Safety
/// The CPU must support AVX-512F, AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn tile_avx512(
    t: &Task<'_>,
    qs: Range<usize>,
    rs: Range<usize>,
    shared: Option<&Shared>,
    lists: &mut Lists,
) {
    tile_body::<AVX512, QUERY_TILE_512>(t, qs, rs, shared, lists)
}

/// The k-th keys of a self-search's runs, shared: each run prunes with
/// the lowest k-th key any run has reached for a point (relaxed, racy
/// updates: whatever value is read is some run's k-th key of that point,
/// an upper bound of the final one, so the result does not depend on it).
pub(super) struct Shared(Vec<AtomicU64>);

impl Shared {
    /// For `n` points, padded to whole groups with `-inf` (never reached).
    fn new(n: usize) -> Self {
        let groups = n.div_ceil(PAD) * PAD;
        Shared(
            (0..groups)
                .map(|i| {
                    let v = if i < n {
                        f64::INFINITY
                    } else {
                        f64::NEG_INFINITY
                    };
                    AtomicU64::new(v.to_bits())
                })
                .collect(),
        )
    }

    #[inline(always)]
    fn get(&self, i: usize) -> f64 {
        f64::from_bits(self.0[i].load(Ordering::Relaxed))
    }

    /// Records `v`, a run's k-th key of point `i`, if lower.
    #[inline(always)]
    fn lower(&self, i: usize, v: f64) {
        if v < self.get(i) {
            self.0[i].store(v.to_bits(), Ordering::Relaxed);
        }
    }
}

/// The thresholds a block of `QT` queries x [`LANES`] references is tested
/// against: the queries' centred squared norms and current k-th keys, and
/// (self-search) the references' k-th keys; `-inf` never passes.
struct Limits<'a, const QT: usize> {
    qn: [f64; QT],
    wq: [f64; QT],
    rn: &'a [f64; LANES],
    wr: Option<&'a [f64; LANES]>,
}

/// Bit `a * LANES + l` is set when the lower bound of the key of query `a`
/// of a panel and reference `l` of a packed group reaches the query's or
/// (self-search) the reference's k-th key.
#[inline(always)]
fn candidates<const KERNEL: u8, const QT: usize>(
    qpanel: &[f64],
    rgroup: &[Lane],
    lim: &Limits<'_, QT>,
    b: Bound,
) -> u64 {
    assert!(qpanel.len() == rgroup.len() * QT && QT * LANES <= 64);
    #[cfg(target_arch = "x86_64")]
    if KERNEL == AVX512 {
        // SAFETY: `KERNEL` is `AVX512` only inside `tile_avx512`, which runs
        // after the CPU was found to support AVX-512F, AVX2 and FMA; the
        // lengths were checked above.
        return unsafe { candidates_avx512(qpanel, rgroup, lim, b) };
    }
    #[cfg(target_arch = "x86_64")]
    if KERNEL == AVX2 {
        // SAFETY: `KERNEL` is `AVX2` only inside `tile_avx2`, which runs after
        // the CPU was found to support AVX2 and FMA; the lengths were checked
        // above.
        return unsafe { candidates_avx2(qpanel, rgroup, lim, b) };
    }
    let mut dot = [[0.0f64; LANES]; QT];
    for (qj, rj) in qpanel.chunks_exact(QT).zip(rgroup) {
        for (acc, &x) in dot.iter_mut().zip(qj) {
            for (s, &y) in acc.iter_mut().zip(&rj.0) {
                *s += x * y;
            }
        }
    }
    let mut mask = 0;
    for (a, dq) in dot.iter().enumerate() {
        for (l, &p) in dq.iter().enumerate() {
            let low = b.low(lim.qn[a] + lim.rn[l], p);
            let pass = low <= lim.wq[a] || lim.wr.is_some_and(|w| low <= w[l]);
            mask |= u64::from(pass) << (a * LANES + l);
        }
    }
    mask
}

/// [`candidates`] with AVX2 vectors: per feature, two loads of eight
/// references, `QT` (six) broadcast queries, `2 * QT` fused multiply-adds
/// (each accumulator sums the features in order, as the portable loop
/// does); then the bound and both comparisons on the accumulators.
///
/// # Safety
/// The CPU must support AVX2 and FMA; `qpanel` must hold `QT` values per
/// feature of `rgroup`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn candidates_avx2<const QT: usize>(
    qpanel: &[f64],
    rgroup: &[Lane],
    lim: &Limits<'_, QT>,
    b: Bound,
) -> u64 {
    use std::arch::x86_64::*;
    let d = rgroup.len();
    let qp = qpanel.as_ptr();
    let rp = rgroup.as_ptr().cast::<f64>();
    let mut acc = [[_mm256_setzero_pd(); 2]; QT];
    for j in 0..d {
        let r0 = _mm256_load_pd(rp.add(j * LANES));
        let r1 = _mm256_load_pd(rp.add(j * LANES + 4));
        for (a, acc) in acc.iter_mut().enumerate() {
            let x = _mm256_broadcast_sd(&*qp.add(j * QT + a));
            acc[0] = _mm256_fmadd_pd(x, r0, acc[0]);
            acc[1] = _mm256_fmadd_pd(x, r1, acc[1]);
        }
    }
    let rn = [
        _mm256_loadu_pd(lim.rn.as_ptr()),
        _mm256_loadu_pd(lim.rn.as_ptr().add(4)),
    ];
    let wr = lim.wr.map(|w| {
        [
            _mm256_loadu_pd(w.as_ptr()),
            _mm256_loadu_pd(w.as_ptr().add(4)),
        ]
    });
    let (rel, abs, sign) = (
        _mm256_set1_pd(b.c_rel),
        _mm256_set1_pd(b.c_abs),
        _mm256_set1_pd(b.sign),
    );
    let minus_two = _mm256_set1_pd(-2.0);
    let mut mask = 0u64;
    for (a, acc) in acc.iter().enumerate() {
        let (qn, wq) = (_mm256_set1_pd(lim.qn[a]), _mm256_set1_pd(lim.wq[a]));
        for h in 0..2 {
            // `Bound::low`, with fused operations (fewer roundings).
            let s = _mm256_add_pd(qn, rn[h]);
            let approx = _mm256_fmadd_pd(minus_two, acc[h], s);
            let low = _mm256_fmsub_pd(sign, approx, _mm256_fmadd_pd(rel, s, abs));
            let mut pass = _mm256_cmp_pd::<_CMP_LE_OQ>(low, wq);
            if let Some(w) = wr {
                pass = _mm256_or_pd(pass, _mm256_cmp_pd::<_CMP_LE_OQ>(low, w[h]));
            }
            mask |= (_mm256_movemask_pd(pass) as u64) << (a * LANES + 4 * h);
        }
    }
    mask
}

/// [`candidates`] with AVX-512 vectors: per feature, one load of the eight
/// references, `QT` (eight) broadcast queries and as many fused
/// multiply-adds (each accumulator sums the features in order, as the
/// portable loop does); then the bound and both comparisons, straight into
/// mask registers.
///
/// # Safety
/// The CPU must support AVX-512F; `qpanel` must hold `QT` values per feature
/// of `rgroup`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn candidates_avx512<const QT: usize>(
    qpanel: &[f64],
    rgroup: &[Lane],
    lim: &Limits<'_, QT>,
    b: Bound,
) -> u64 {
    use std::arch::x86_64::*;
    let d = rgroup.len();
    let qp = qpanel.as_ptr();
    let rp = rgroup.as_ptr().cast::<f64>();
    let mut acc = [_mm512_setzero_pd(); QT];
    for j in 0..d {
        // Groups are cache-line aligned: an aligned load.
        let r = _mm512_load_pd(rp.add(j * LANES));
        for (a, acc) in acc.iter_mut().enumerate() {
            let x = _mm512_set1_pd(*qp.add(j * QT + a));
            *acc = _mm512_fmadd_pd(x, r, *acc);
        }
    }
    let rn = _mm512_loadu_pd(lim.rn.as_ptr());
    let wr = lim.wr.map(|w| _mm512_loadu_pd(w.as_ptr()));
    let (rel, abs, sign) = (
        _mm512_set1_pd(b.c_rel),
        _mm512_set1_pd(b.c_abs),
        _mm512_set1_pd(b.sign),
    );
    let minus_two = _mm512_set1_pd(-2.0);
    let mut mask = 0u64;
    for (a, &acc) in acc.iter().enumerate() {
        // `Bound::low`, with fused operations, as in `candidates_avx2`.
        let s = _mm512_add_pd(_mm512_set1_pd(lim.qn[a]), rn);
        let approx = _mm512_fmadd_pd(minus_two, acc, s);
        let low = _mm512_fmsub_pd(sign, approx, _mm512_fmadd_pd(rel, s, abs));
        let mut pass = _mm512_cmp_pd_mask::<_CMP_LE_OQ>(low, _mm512_set1_pd(lim.wq[a]));
        if let Some(w) = wr {
            pass |= _mm512_cmp_pd_mask::<_CMP_LE_OQ>(low, w);
        }
        mask |= u64::from(pass) << (a * LANES);
    }
    mask
}

/// Appends to `pending` the pairs a first-pass bit mask lets through (bit
/// `b`: query `q + b / lanes`, reference `g * lanes + b % lanes` for the
/// panel row `q` and reference group `g`) that lie in the tile `qs x rs`,
/// are not in a self-search's lower triangle (`sym`) and are not their
/// query's excluded reference.
fn push_hits(
    mut hits: u128,
    lanes: usize,
    (q, g): (usize, usize),
    (qs, rs): (Range<usize>, Range<usize>),
    sym: bool,
    exclude: &Exclude<'_>,
    pending: &mut Vec<(usize, usize)>,
) {
    while hits != 0 {
        let bit = hits.trailing_zeros() as usize;
        hits &= hits - 1;
        let (qi, r) = (q + bit / lanes, g * lanes + bit % lanes);
        if qs.contains(&qi) && rs.contains(&r) && !(sym && r <= qi) && exclude.skip(qi) != r {
            pending.push((qi, r));
        }
    }
}

/// The tile kernel. First pass: `|q|^2 + |r|^2 - 2 q.r` on centred points, a
/// matrix product. With `s = |q|^2 + |r|^2` (centred), this value, the exact
/// `fma` loop's value and the true distance are all within
/// `c_rel * s + c_abs` of each other (the dot product and the norms carry
/// about `d` roundings each relative to `s`, the centring four, the `fma`
/// loop `d` relative to the distance `<= 2 s`; `c_rel = (2d + 16) eps` covers
/// their sum and the few roundings of the bound itself, `c_abs` underflow).
/// A pair whose lower bound already ranks after a list's current k-th entry
/// cannot enter it; the others get the exact distance (all pairs do when a
/// centred squared norm reaches `1e300`).
#[inline(always)]
fn tile_body<const KERNEL: u8, const QT: usize>(
    t: &Task<'_>,
    qs: Range<usize>,
    rs: Range<usize>,
    shared: Option<&Shared>,
    lists: &mut Lists,
) {
    let sym = shared.is_some();
    let (q0, q1) = (qs.start, qs.end.min(t.queries.n));
    let (r0, r1) = (rs.start, rs.end.min(t.refs.n));
    let base = if sym { 0 } else { q0 };
    // The threshold of list `i`: its own k-th key, or another run's if lower.
    let limit = |lists: &Lists, i: usize| match shared {
        Some(s) => lists.worst(i).min(s.get(i)),
        None => lists.worst(i),
    };
    let worst_of = |lists: &Lists, q: usize| -> [f64; QT] {
        std::array::from_fn(|a| {
            if (q0..q1).contains(&(q + a)) {
                limit(lists, q + a - base)
            } else {
                f64::NEG_INFINITY
            }
        })
    };
    // Whole panels: queries outside `qs` have `-inf` limits and are skipped
    // if a reference's limit lets them through.
    let mut q = q0 / QT * QT;
    // The pairs of one panel row that the first pass could not rule out.
    let mut pending: Vec<(usize, usize)> = Vec::new();
    while q < q1 {
        let qpanel = t.qpack.panel(q / QT);
        let qn: [f64; QT] = std::array::from_fn(|a| t.qpack.norm[q + a]);
        // The limits stay those of the row's start until its pairs are
        // offered: larger than the lists' current ones, so still safe.
        let wq = worst_of(lists, q);
        let mut g = r0 / LANES;
        if sym {
            // Groups wholly below the queries hold no pair with r > q.
            g = g.max(q / LANES);
        }
        while g * LANES < r1 {
            let hits = if t.exact_only {
                u64::MAX >> (64 - QT * LANES)
            } else {
                let wr: Option<[f64; LANES]> =
                    sym.then(|| std::array::from_fn(|l| limit(lists, g * LANES + l)));
                let lim = Limits {
                    qn,
                    wq,
                    rn: t.rpack.norms(g),
                    wr: wr.as_ref(),
                };
                candidates::<KERNEL, QT>(qpanel, t.rpack.group(g), &lim, t.bound)
            };
            let tile = (q0..q1, r0..r1);
            push_hits(
                hits.into(),
                LANES,
                (q, g),
                tile,
                sym,
                &t.exclude,
                &mut pending,
            );
            g += 1;
        }
        t.offer_exact(&pending, base, shared, lists);
        pending.clear();
        q += QT;
    }
}

/// The tile kernel with the single-precision first pass (AVX-512 or AVX2,
/// nearest neighbours only: keys are then non-negative). As [`tile_body`],
/// with `f32` operands: twice the lanes per instruction, and blocks of `QT`
/// queries x sixteen references. The bound is that of [`tile_body`] redone
/// for `f32` (`u = 2^-24`): rounding the centred coordinates and norms to
/// `f32` costs `u` each, the dot product `gamma_d` of `sum |q_j r_j| <= s / 2`,
/// the few operations of the bound itself a few `u s`: in all less than
/// `(d + 9) u s`, which `c_rel = (d + 16) eps_f32 = (2d + 32) u` covers with
/// room for the double-precision terms of the exact value; `c_abs` covers
/// underflow. Both kernels compute each lane with the same operations
/// (fused multiply-adds in feature order, then the bound), so the bound
/// holds for either. The limits, `f64` keys, are rounded to `f32` and
/// raised by a factor `1 + 2^-22` (at least `w` again, for `w >= 0`), so a
/// pair that could enter a list always passes.
///
/// In a self-search the references' limits, so rounded, are taken once per
/// tile (the lower of this run's and [`Shared`]'s) into a small array the
/// kernel loads as one vector, and lowered after each panel row for the
/// points whose lists changed. Limits that lag behind other runs' progress
/// are only larger, so still safe.
///
/// # Safety
/// The CPU must support the instructions of `KERNEL` ([`AVX512`]: AVX-512F,
/// AVX2 and FMA; [`AVX2`]: AVX2 and FMA), and `QT` must be its panel height
/// (that of `one`'s query panels).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn tile_f32_body<const KERNEL: u8, const QT: usize>(
    t: &Task<'_>,
    one: &Single,
    qs: Range<usize>,
    rs: Range<usize>,
    shared: Option<&Shared>,
    lists: &mut Lists,
) {
    // An `f64` limit `w >= 0` rounded to nearest `f32`, then raised by
    // `1 + 2^-22` (rounded): at least `w`. Infinities stay as they are.
    let up = |w: f64| w as f32 * (1.0 + 2.0 * f32::EPSILON);
    let d = one.d;
    let sym = shared.is_some();
    let (q0, q1) = (qs.start, qs.end.min(t.queries.n));
    let (r0, r1) = (rs.start, rs.end.min(t.refs.n));
    let base = if sym { 0 } else { q0 };
    let limit = |lists: &Lists, i: usize| match shared {
        Some(s) => lists.worst(i).min(s.get(i)),
        None => lists.worst(i),
    };
    // The references' limits (self-search), from `r0`; `-inf` past `r1`.
    let mut wr_tile = [f32::NEG_INFINITY; BLOCK];
    if sym {
        for (r, w) in (r0..r1).zip(wr_tile.iter_mut()) {
            *w = up(limit(lists, r));
        }
    }
    let mut q = q0 / QT * QT;
    let mut pending: Vec<(usize, usize)> = Vec::new();
    while q < q1 {
        let qpanel = &one.q[q * d..(q + QT) * d];
        let qn: [f32; QT] = std::array::from_fn(|a| one.qn[q + a]);
        let wq: [f32; QT] = std::array::from_fn(|a| {
            if (q0..q1).contains(&(q + a)) {
                up(limit(lists, q + a - base))
            } else {
                f32::NEG_INFINITY
            }
        });
        let mut g = r0 / LANES_F32;
        if sym {
            g = g.max(q / LANES_F32);
        }
        while g * LANES_F32 < r1 {
            let at = g * LANES_F32 - r0;
            let wr: Option<&[f32; LANES_F32]> = sym.then(|| {
                wr_tile[at..at + LANES_F32]
                    .try_into()
                    .expect("a whole group")
            });
            let rn: &[f32; LANES_F32] = one.rn[g * LANES_F32..(g + 1) * LANES_F32]
                .try_into()
                .expect("a whole group");
            let lim = Limits32 {
                qn: &qn,
                wq: &wq,
                rn,
                wr,
                c: (one.c_rel, one.c_abs),
            };
            let group = &one.r[g * d..(g + 1) * d];
            // SAFETY: the CPU supports `KERNEL`'s instructions (this
            // function's contract); the panel holds `QT` values per feature
            // of the group.
            let hits = unsafe {
                match KERNEL {
                    AVX512 => candidates_f32_avx512(qpanel, group, &lim),
                    _ => candidates_f32_avx2(qpanel, group, &lim),
                }
            };
            let tile = (q0..q1, r0..r1);
            push_hits(hits, LANES_F32, (q, g), tile, sym, &t.exclude, &mut pending);
            g += 1;
        }
        t.offer_exact(&pending, base, shared, lists);
        if sym {
            for &(qi, r) in &pending {
                for p in [qi, r] {
                    if let Some(w) = wr_tile.get_mut(p.wrapping_sub(r0)) {
                        *w = w.min(up(lists.worst(p)));
                    }
                }
            }
        }
        pending.clear();
        q += QT;
    }
}

/// The single-precision kernel with AVX-512 (see [`tile_f32_body`]).
///
/// # Safety
/// The CPU must support AVX-512F, AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn tile_f32(
    t: &Task<'_>,
    one: &Single,
    qs: Range<usize>,
    rs: Range<usize>,
    shared: Option<&Shared>,
    lists: &mut Lists,
) {
    tile_f32_body::<AVX512, QUERY_TILE_512>(t, one, qs, rs, shared, lists)
}

/// The single-precision kernel with AVX2 (see [`tile_f32_body`]).
///
/// # Safety
/// The CPU must support AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn tile_f32_avx2(
    t: &Task<'_>,
    one: &Single,
    qs: Range<usize>,
    rs: Range<usize>,
    shared: Option<&Shared>,
    lists: &mut Lists,
) {
    tile_f32_body::<AVX2, QUERY_TILE>(t, one, qs, rs, shared, lists)
}

/// What a single-precision block of `QT` queries x [`LANES_F32`] references
/// is tested against: the queries' centred squared norms and limits, the
/// references' norms and (self-search) limits, all already rounded up to
/// `f32`, and the bound's `c_rel` and `c_abs`.
struct Limits32<'a, const QT: usize> {
    qn: &'a [f32; QT],
    wq: &'a [f32; QT],
    rn: &'a [f32; LANES_F32],
    wr: Option<&'a [f32; LANES_F32]>,
    c: (f32, f32),
}

/// The first pass in single precision with AVX-512: bit `a * 16 + l` is set
/// when the lower bound of the key of query `a` of the panel and reference
/// `l` of the group reaches the query's limit `wq[a]` or (given) the
/// reference's `wr[l]`.
///
/// # Safety
/// The CPU must support AVX-512F; `qpanel` must hold `QT` values per
/// feature of `rgroup`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn candidates_f32_avx512<const QT: usize>(
    qpanel: &[f32],
    rgroup: &[Lane32],
    lim: &Limits32<'_, QT>,
) -> u128 {
    use std::arch::x86_64::*;
    assert!(qpanel.len() == rgroup.len() * QT && QT * LANES_F32 <= 128);
    let d = rgroup.len();
    let qp = qpanel.as_ptr();
    let rp = rgroup.as_ptr().cast::<f32>();
    let mut acc = [_mm512_setzero_ps(); QT];
    for j in 0..d {
        // Groups are cache-line aligned: an aligned load.
        let r = _mm512_load_ps(rp.add(j * LANES_F32));
        for (a, acc) in acc.iter_mut().enumerate() {
            let x = _mm512_set1_ps(*qp.add(j * QT + a));
            *acc = _mm512_fmadd_ps(x, r, *acc);
        }
    }
    let rn = _mm512_loadu_ps(lim.rn.as_ptr());
    let wr = lim.wr.map(|w| _mm512_loadu_ps(w.as_ptr()));
    let (rel, abs) = (_mm512_set1_ps(lim.c.0), _mm512_set1_ps(lim.c.1));
    let minus_two = _mm512_set1_ps(-2.0);
    let mut mask = 0u128;
    for (a, &acc) in acc.iter().enumerate() {
        let s = _mm512_add_ps(_mm512_set1_ps(lim.qn[a]), rn);
        let approx = _mm512_fmadd_ps(minus_two, acc, s);
        let low = _mm512_sub_ps(approx, _mm512_fmadd_ps(rel, s, abs));
        let mut pass = _mm512_cmp_ps_mask::<_CMP_LE_OQ>(low, _mm512_set1_ps(lim.wq[a]));
        if let Some(w) = wr {
            pass |= _mm512_cmp_ps_mask::<_CMP_LE_OQ>(low, w);
        }
        mask |= u128::from(pass) << (a * LANES_F32);
    }
    mask
}

/// [`candidates_f32_avx512`] with AVX2 vectors: per feature, two loads of
/// eight references, `QT` (six) broadcast queries and `2 * QT` fused
/// multiply-adds into twelve accumulators (the register blocking of the
/// double-precision [`candidates_avx2`]); then the same bound on each lane.
///
/// # Safety
/// The CPU must support AVX2 and FMA; `qpanel` must hold `QT` values per
/// feature of `rgroup`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn candidates_f32_avx2<const QT: usize>(
    qpanel: &[f32],
    rgroup: &[Lane32],
    lim: &Limits32<'_, QT>,
) -> u128 {
    use std::arch::x86_64::*;
    assert!(qpanel.len() == rgroup.len() * QT && QT * LANES_F32 <= 128);
    let d = rgroup.len();
    let qp = qpanel.as_ptr();
    let rp = rgroup.as_ptr().cast::<f32>();
    let mut acc = [[_mm256_setzero_ps(); 2]; QT];
    for j in 0..d {
        // Groups are cache-line aligned: aligned loads.
        let r0 = _mm256_load_ps(rp.add(j * LANES_F32));
        let r1 = _mm256_load_ps(rp.add(j * LANES_F32 + 8));
        for (a, acc) in acc.iter_mut().enumerate() {
            let x = _mm256_broadcast_ss(&*qp.add(j * QT + a));
            acc[0] = _mm256_fmadd_ps(x, r0, acc[0]);
            acc[1] = _mm256_fmadd_ps(x, r1, acc[1]);
        }
    }
    let rn = [
        _mm256_loadu_ps(lim.rn.as_ptr()),
        _mm256_loadu_ps(lim.rn.as_ptr().add(8)),
    ];
    let wr = lim.wr.map(|w| {
        [
            _mm256_loadu_ps(w.as_ptr()),
            _mm256_loadu_ps(w.as_ptr().add(8)),
        ]
    });
    let (rel, abs) = (_mm256_set1_ps(lim.c.0), _mm256_set1_ps(lim.c.1));
    let minus_two = _mm256_set1_ps(-2.0);
    let mut mask = 0u128;
    for (a, acc) in acc.iter().enumerate() {
        let (qn, wq) = (_mm256_set1_ps(lim.qn[a]), _mm256_set1_ps(lim.wq[a]));
        for h in 0..2 {
            let s = _mm256_add_ps(qn, rn[h]);
            let approx = _mm256_fmadd_ps(minus_two, acc[h], s);
            let low = _mm256_sub_ps(approx, _mm256_fmadd_ps(rel, s, abs));
            let mut pass = _mm256_cmp_ps::<_CMP_LE_OQ>(low, wq);
            if let Some(w) = wr {
                pass = _mm256_or_ps(pass, _mm256_cmp_ps::<_CMP_LE_OQ>(low, w[h]));
            }
            let bits = _mm256_movemask_ps(pass) as u32 as u128;
            mask |= bits << (a * LANES_F32 + 8 * h);
        }
    }
    mask
}

#[cfg(test)]
mod tests {
    use super::super::scan;
    use super::super::tests::random;
    use super::*;

    /// Every kernel the CPU offers, with and without the single-precision
    /// pass, gives the direct scan's lists, keys bit for bit:
    /// ties (grid points and duplicates), near-ties that single precision
    /// cannot separate, points far from the origin, norms too large for the
    /// first pass, several tiles, self and cross searches, nearest and
    /// farthest, at one and two threads.
    /// Hard point sets for the tree-ordered searches, row-major, with their
    /// dimension: a `generate fraud` table of `n` rows (a timestamp and an
    /// amount far wider than the neighbours' distances: most pairs of leaves
    /// can be skipped), the same rounded to halves with every 11th row a
    /// copy of another (ties within and across leaves), and `wide`
    /// Gaussian-like points in 30 dimensions (nothing can be skipped).
    pub(super) fn hard_sets(n: usize, seed: u64, wide: usize) -> [(Vec<f64>, usize); 3] {
        let fraud = crate::data::synth::FraudTask {
            n,
            ..Default::default()
        }
        .generate(seed)
        .unwrap();
        let d = fraud.n_features();
        let raw = fraud.features().to_vec();
        let mut coarse: Vec<f64> = raw.iter().map(|v| (v * 2.0).round() / 2.0).collect();
        for i in (0..n).step_by(11) {
            let src = (i * 7919) % n;
            let row: Vec<f64> = coarse[src * d..(src + 1) * d].to_vec();
            coarse[i * d..(i + 1) * d].copy_from_slice(&row);
        }
        [
            (raw, d),
            (coarse, d),
            (random(wide, 30, seed + 14, false), 30),
        ]
    }

    /// Asserts that `search(kernel, single)` gives the lists `want`, keys
    /// bit for bit, with every kernel the CPU offers, with and without the
    /// single-precision pass, at one and two threads (`what` names the
    /// case in a failure).
    pub(super) fn assert_every_kernel(
        want: &Lists,
        what: &str,
        search: impl Fn(Kernel, bool) -> Lists + Send + Sync,
    ) {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            for (kernel, single) in Kernel::available()
                .into_iter()
                .flat_map(|k| [(k, true), (k, false)])
            {
                let got = pool.install(|| search(kernel, single));
                assert_eq!(
                    got.idx, want.idx,
                    "{what}: {kernel:?} single={single} threads={threads}"
                );
                assert_eq!(bits(&got.key), bits(&want.key), "{what}");
            }
        }
    }

    #[test]
    fn every_kernel_equals_the_scan() {
        let cases: [(usize, usize, f64, f64, bool); 6] = [
            (2 * BLOCK + 37, 5, 0.0, 1.0, true),
            (BLOCK + 19, 30, 1e9, 1.0, true),
            (3 * BLOCK + 5, 30, 0.0, 1.0, false),
            (BLOCK + 3, 3, -3e5, 1.0, false),
            (90, 7, 0.0, 1e151, true),
            // Near-ties: grid points moved by about 1e-9, so that many
            // distances differ in double precision but not in single.
            (2 * BLOCK + 9, 30, 0.0, -1.0, true),
        ];
        for (n, d, shift, scale, grid) in cases {
            let mut r = random(n, d, 11, grid);
            if scale < 0.0 {
                let jitter = random(n, d, 12, false);
                r.iter_mut().zip(jitter).for_each(|(v, e)| *v += 1e-9 * e);
            }
            let scale = scale.abs();
            r.iter_mut().for_each(|v| *v = *v * scale + shift);
            for i in (0..n).step_by(7) {
                let src = (i * 5) % n;
                let row: Vec<f64> = r[src * d..(src + 1) * d].to_vec();
                r[i * d..(i + 1) * d].copy_from_slice(&row);
            }
            let nq = n.min(BLOCK + 11);
            let q: Vec<f64> = r[..nq * d].iter().map(|v| v + 0.5 * scale).collect();
            let p = Points::new(&r, n, d).unwrap();
            let qp = Points::new(&q, nq, d).unwrap();
            for (k, far) in [(1, false), (4, false), (3, true)] {
                let cases = [(p, Exclude::SameIndex, true), (qp, Exclude::Nothing, false)];
                for (queries, exclude, same) in cases {
                    let q = Query {
                        queries,
                        refs: p,
                        k,
                        exclude,
                        farthest: far,
                    };
                    let want = scan(q);
                    assert_every_kernel(
                        &want,
                        &format!("n={n} d={d} k={k} far={far}"),
                        |kl, single| search_with(kl, single, q, same),
                    );
                }
            }
        }
    }
}
