//! Gradient histograms over the binned features (LightGBM, Ke et al. 2017,
//! Algorithm 1): per feature and bin, the sums of the gradients and
//! hessians of a leaf's rows (16 bytes a bin, added as one pair), and, only
//! when leaves count their rows as row copies (`leaf_rows=rows`), the row
//! copies in a parallel array. Under the default hessian count no bin needs
//! a count: a child's rows are estimated from its hessian, and a bin whose
//! hessian is not positive holds no row as that estimate counts.
//!
//! A leaf's rows are gathered once into an ordered buffer ([`Ordered`]; the
//! root of a tree grown on every row reads the gradients in place), so each
//! feature's pass reads the gradients contiguously and only the bin codes
//! by row position (one byte, two for a categorical feature of many levels,
//! whose histogram has a bin per level; prefetched ahead, as LightGBM does).
//! Only the smaller child of a split is built from its rows; the larger
//! child's histograms are the parent's minus the smaller child's.
//!
//! Features are processed in groups of two, in parallel: one task fills
//! its group's histograms over the rows in their order (both features in
//! one pass), subtracts them from the parent's for the larger child, and
//! scans both children for the features' best splits while the bins are
//! in cache: one parallel section per split. The features' best splits are
//! then compared in feature order. Every sum is taken in the same order
//! whatever the thread count.
//!
//! With quantized gradients ([`super::quantize`]) a row's gradient and
//! hessian are one packed integer word, and a bin sums words with one
//! integer addition (8 bytes a bin); the bins are scaled back to `f64` as
//! they are written out. Integer sums do not depend on their order, so a
//! leaf holding few of the fit's rows is summed row-wise instead
//! ([`row_sums`], LightGBM's row-wise histograms): one pass over its rows,
//! each row's codes of every feature read from one row-major copy of the
//! codes (one cache line, where the columns take one each), in parallel
//! blocks of rows whose sums are added.

use std::borrow::Cow;

use rayon::prelude::*;

use super::quantize::{add, Scale};
use super::split::{best_of, Bin, Grad, Rules, Split, Sums};
use crate::learn::tree::{Binned, Column, Slot};
use crate::mem::prefetch;

/// Rows x features below which a leaf's histograms are built on one thread.
const PARALLEL_WORK: usize = 1 << 15;

/// Rows ahead whose bin code is prefetched.
const PREFETCH: usize = 32;

/// Rows' gradients and hessians as the histograms sum them: exact, or
/// quantized and packed ([`super::quantize`]) with their scales.
#[derive(Clone, Copy)]
pub(super) enum Rows<'a> {
    Exact(&'a [Grad]),
    Packed(&'a [u64], Scale),
}

impl Rows<'_> {
    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            Rows::Exact(r) => r.len(),
            Rows::Packed(r, _) => r.len(),
        }
    }
}

/// A leaf's rows with their ordered gradients.
pub(super) struct Ordered<'a> {
    /// The rows' positions, or `None` when they are positions `0..len` in
    /// order (the root without row subsampling: codes are read sequentially).
    pub positions: Option<&'a [u32]>,
    /// Gradient and hessian of each row, in the same order.
    pub rows: Rows<'a>,
    /// Copies of each row, in the same order (`None`: one each).
    pub copies: Option<&'a [u32]>,
}

impl Ordered<'_> {
    /// The sums of all the rows.
    pub fn total(&self) -> Sums {
        let t = match self.rows {
            Rows::Exact(rows) => {
                let mut t = Bin::default();
                rows.iter().for_each(|r| t.add_row(*r));
                t
            }
            Rows::Packed(rows, scale) => scale.unpack(rows.iter().fold(0, |s, &r| add(s, r))),
        };
        let n = match self.copies {
            Some(c) => c.iter().map(|&k| k as f64).sum(),
            None => self.rows.len() as f64,
        };
        Sums { g: t.g, h: t.h, n }
    }
}

/// What a histogram pass also does: find the leaf's best split under these
/// rules, for a leaf with these sums.
pub(super) type Scan<'a> = Option<(&'a Rules<'a>, Sums)>;

/// Bin codes of the rows a fit uses, column-major as in [`Binned`]
/// (`narrow[k * stride + i]` for row position `i`): borrowed from the
/// dataset's table when the fit uses every row in order, else gathered.
pub(super) struct Codes<'a> {
    narrow: Cow<'a, [u8]>,
    wide: Cow<'a, [u16]>,
    slots: &'a [Slot],
    stride: usize,
    /// The same one-byte codes row-major (`[i * d + f]`, feature `f`'s
    /// code of row position `i`), when kept for row-wise histograms.
    by_row: Option<Vec<u8>>,
}

/// The codes of rows `rows` of the columns of `n` rows each in `src`.
fn gather<C: Copy + Default + Send + Sync>(src: &[C], n: usize, rows: &[u32]) -> Vec<C> {
    let m = rows.len();
    let mut data = vec![C::default(); src.len() / n.max(1) * m];
    data.par_chunks_mut(m.max(1))
        .zip(src.par_chunks(n.max(1)))
        .for_each(|(col, src)| {
            for (c, &r) in col.iter_mut().zip(rows) {
                *c = src[r as usize];
            }
        });
    data
}

impl<'a> Codes<'a> {
    /// The codes of dataset rows `rows` (`None`: all rows in order), also
    /// kept row-major when `by_row` and every feature's codes are one byte
    /// (for [`row_sums`]).
    pub fn new(bins: &'a Binned, rows: Option<&[u32]>, by_row: bool) -> Codes<'a> {
        let (narrow, wide) = bins.codes_all();
        let n = bins.n_rows();
        let slots = bins.slots();
        let mut codes = match rows {
            None => Codes {
                narrow: Cow::Borrowed(narrow),
                wide: Cow::Borrowed(wide),
                slots,
                stride: n,
                by_row: None,
            },
            Some(rows) => Codes {
                narrow: Cow::Owned(gather(narrow, n, rows)),
                wide: Cow::Owned(gather(wide, n, rows)),
                slots,
                stride: rows.len(),
                by_row: None,
            },
        };
        if by_row && slots.iter().all(|s| matches!(s, Slot::Narrow(_))) {
            codes.by_row = Some(codes.transposed());
        }
        codes
    }

    /// The one-byte codes row-major (in parallel blocks of rows).
    fn transposed(&self) -> Vec<u8> {
        let (m, d) = (self.stride, self.slots.len());
        let mut out = vec![0u8; m * d];
        let cols: Vec<&[u8]> = (0..d)
            .map(|f| match self.col(f) {
                Column::Narrow(c) => c,
                Column::Wide(_) => unreachable!("only one-byte codes are transposed"),
            })
            .collect();
        out.par_chunks_mut(ROW_BLOCK * d.max(1))
            .enumerate()
            .for_each(|(b, block)| {
                for (j, row) in block.chunks_mut(d.max(1)).enumerate() {
                    let i = b * ROW_BLOCK + j;
                    for (x, c) in row.iter_mut().zip(&cols) {
                        *x = c[i];
                    }
                }
            });
        out
    }

    /// The codes of feature `f`, by row position.
    #[inline]
    pub fn col(&self, f: usize) -> Column<'_> {
        let s = self.stride;
        match self.slots[f] {
            Slot::Narrow(k) => Column::Narrow(&self.narrow[k * s..(k + 1) * s]),
            Slot::Wide(k) => Column::Wide(&self.wide[k * s..(k + 1) * s]),
        }
    }
}

/// Rows per task of the transposition.
const ROW_BLOCK: usize = 1 << 14;

/// Rows per block of the row-wise histogram pass (small, so that a leaf's
/// blocks spread evenly over the threads).
const SUM_BLOCK: usize = 1 << 12;

/// Whether a leaf of `rows` of the fit's `stride` row positions is summed
/// row-wise: when its rows are under an eighth of the fit's, so that a
/// feature's codes of consecutive rows lie in different cache lines, where
/// a row's codes lie in one. Above that, a feature's codes are read in
/// runs and the column-wise pairs are faster (measured on the 1,000,000 x
/// 28 dense table: all leaves row-wise, or from half the rows, is slower;
/// under an eighth or a sixteenth is fastest, `benches/README.md`).
fn by_rows(rows: usize, stride: usize) -> bool {
    rows * 8 < stride
}

/// The packed sums of `rows` (quantized, in the order of `positions`, or
/// positions `0..len`) per feature and code, `[f][code]`, from the
/// row-major codes `by_row` of `d` features: one pass over the rows, a row's
/// codes read together. Blocks of rows are summed in parallel and added:
/// integer sums, the same in any order.
fn row_sums(by_row: &[u8], d: usize, rows: &[u64], positions: Option<&[u32]>) -> Vec<[u64; 256]> {
    let block = |mut sums: Vec<[u64; 256]>, b: usize| {
        let end = ((b + 1) * SUM_BLOCK).min(rows.len());
        for i in b * SUM_BLOCK..end {
            let p = match positions {
                Some(pos) => {
                    if i + PREFETCH < end {
                        prefetch(by_row, pos[i + PREFETCH] as usize * d);
                    }
                    pos[i] as usize
                }
                None => i,
            };
            let r = rows[i];
            for (f, &c) in by_row[p * d..p * d + d].iter().enumerate() {
                sums[f][c as usize] = add(sums[f][c as usize], r);
            }
        }
        sums
    };
    let zero = || vec![[0u64; 256]; d];
    let blocks = rows.len().div_ceil(SUM_BLOCK);
    if rows.len() * d < PARALLEL_WORK {
        return (0..blocks).fold(zero(), block);
    }
    (0..blocks)
        .into_par_iter()
        .fold(zero, block)
        .reduce(zero, |mut a, b| {
            for (x, y) in a.iter_mut().zip(&b) {
                for (x, &y) in x.iter_mut().zip(y) {
                    *x = add(*x, y);
                }
            }
            a
        })
}

/// A leaf's histograms of all features: the bins' gradient sums, and their
/// row copies when the fit counts them (else `counts` is empty).
#[derive(Default)]
pub(super) struct Hist {
    pub bins: Vec<Bin>,
    pub counts: Vec<f64>,
}

/// One feature's part of a [`Hist`]: its bins, and their row copies (an
/// empty slice when not counted).
struct Part<'h> {
    f: usize,
    bins: &'h mut [Bin],
    counts: &'h mut [f64],
}

impl Part<'_> {
    /// The best split of this feature in a leaf, by `scan`.
    fn best(&self, scan: Scan) -> Option<Split> {
        let counts = (!self.counts.is_empty()).then_some(&self.counts[..]);
        scan.and_then(|(rules, tot)| rules.best_on(self.f, self.bins, counts, tot))
    }
}

/// Where each feature's bins lie in a histogram of all features.
pub(super) struct Layout {
    offsets: Vec<usize>,
    /// Whether histograms count row copies (`leaf_rows=rows`).
    counted: bool,
}

impl Layout {
    /// The layout of `bins`' features; `counted`: whether the histograms
    /// count row copies.
    pub fn new(bins: &Binned, d: usize, counted: bool) -> Layout {
        Layout {
            offsets: (0..=d).map(|f| bins.offset(f)).collect(),
            counted,
        }
    }

    /// Bins of all features.
    pub fn len(&self) -> usize {
        *self.offsets.last().unwrap_or(&0)
    }

    /// A histogram of all features (contents undefined).
    pub fn hist(&self) -> Hist {
        Hist {
            bins: vec![Bin::default(); self.len()],
            counts: vec![0.0; if self.counted { self.len() } else { 0 }],
        }
    }

    /// The parts of `features` (ascending) in `hist`.
    fn split<'h>(&self, hist: &'h mut Hist, features: &[usize]) -> Vec<Part<'h>> {
        let mut out = Vec::with_capacity(features.len());
        let (mut bins, mut counts) = (&mut hist.bins[..], &mut hist.counts[..]);
        let mut at = 0;
        for &f in features {
            let (skip, len) = (self.offsets[f] - at, self.offsets[f + 1] - self.offsets[f]);
            let (_, tail) = std::mem::take(&mut bins).split_at_mut(skip);
            let (mine, tail) = tail.split_at_mut(len);
            bins = tail;
            let mine_counts = if self.counted {
                let (_, tail) = std::mem::take(&mut counts).split_at_mut(skip);
                let (mc, tail) = tail.split_at_mut(len);
                counts = tail;
                mc
            } else {
                &mut []
            };
            out.push(Part {
                f,
                bins: mine,
                counts: mine_counts,
            });
            at = self.offsets[f + 1];
        }
        out
    }
}

/// A feature's part of the histograms being built, and of the split leaf's
/// being turned into its larger child's.
type Pair<'h> = (Part<'h>, Option<Part<'h>>);

/// Fills the histograms of `features` (ascending) in `hist` from the rows
/// and, with `larger` (a split leaf's histograms, of which the rows are
/// the smaller child, and the scan of its larger child), turns those into
/// the larger child's by subtracting, feature by feature in the same task
/// while the new bins are in cache. Features are taken in groups of
/// [`GROUP`], in parallel when the work is large. Returns the best splits
/// of the rows' leaf (with `scan`) and of the larger child.
pub(super) fn build(
    hist: &mut Hist,
    layout: &Layout,
    features: &[usize],
    codes: &Codes,
    rows: &Ordered,
    scan: Scan,
    larger: Option<(&mut Hist, Scan)>,
) -> (Option<Split>, Option<Split>) {
    let counted = layout.counted;
    let subtracting = larger.is_some();
    let (parent, large_scan): (Vec<Option<Part>>, Scan) = match larger {
        Some((h, sc)) => (
            layout.split(h, features).into_iter().map(Some).collect(),
            sc,
        ),
        None => (features.iter().map(|_| None).collect(), None),
    };
    let mut pairs: Vec<Pair> = layout
        .split(hist, features)
        .into_iter()
        .zip(parent)
        .collect();
    // Quantized rows of all features, without counts, may be summed
    // row-wise first; each task then writes its features' bins out.
    let summed = match (rows.rows, &codes.by_row) {
        (Rows::Packed(q, scale), Some(by_row))
            if !counted
                && features.len() == codes.slots.len()
                && by_rows(q.len(), codes.stride) =>
        {
            Some((row_sums(by_row, features.len(), q, rows.positions), scale))
        }
        _ => None,
    };
    let task = |group: &mut [Pair]| {
        match &summed {
            Some((sums, scale)) => {
                for (p, _) in group.iter_mut() {
                    for (x, &s) in p.bins.iter_mut().zip(&sums[p.f]) {
                        *x = scale.unpack(s);
                    }
                }
            }
            None => fill_group(group, codes, rows, counted),
        }
        let small = best_of(group.iter().map(|(p, _)| p.best(scan)));
        let large = best_of(group.iter_mut().map(|(p, q)| {
            let q = q.as_mut()?;
            for (x, c) in q.bins.iter_mut().zip(p.bins.iter()) {
                x.sub(c);
            }
            for (x, c) in q.counts.iter_mut().zip(p.counts.iter()) {
                *x -= c;
            }
            q.best(large_scan)
        }));
        (small, large)
    };
    let work = rows.rows.len() * features.len() + if subtracting { layout.len() * 8 } else { 0 };
    let found: Vec<(Option<Split>, Option<Split>)> = if work >= PARALLEL_WORK {
        pairs.par_chunks_mut(GROUP).map(task).collect()
    } else {
        pairs.chunks_mut(GROUP).map(task).collect()
    };
    let (small, large): (Vec<_>, Vec<_>) = found.into_iter().unzip();
    (best_of(small), best_of(large))
}

/// The best split of a leaf by `scan` from its kept histograms `hist` of
/// `features` (a leaf whose monotone bounds moved, [`super::monotone`]).
pub(super) fn rescan(
    hist: &Hist,
    layout: &Layout,
    features: &[usize],
    scan: Scan,
) -> Option<Split> {
    let (rules, tot) = scan?;
    best_of(features.iter().map(|&f| {
        let r = layout.offsets[f]..layout.offsets[f + 1];
        let counts = (!hist.counts.is_empty()).then(|| &hist.counts[r.clone()]);
        rules.best_on(f, &hist.bins[r], counts, tot)
    }))
}

/// Fills the first parts of a group of features from the rows: a pair of
/// one-byte columns in one pass, else each column alone.
fn fill_group(group: &mut [Pair], codes: &Codes, rows: &Ordered, counted: bool) {
    if let [(a, _), (b, _)] = group {
        if let (Column::Narrow(ca), Column::Narrow(cb)) = (codes.col(a.f), codes.col(b.f)) {
            match counted {
                true => fill_pair::<true>(a, b, ca, cb, rows),
                false => fill_pair::<false>(a, b, ca, cb, rows),
            }
            return;
        }
    }
    for (p, _) in group.iter_mut() {
        match (codes.col(p.f), counted) {
            (Column::Narrow(col), true) => fill_column::<true, _>(p, col, rows),
            (Column::Narrow(col), false) => fill_column::<false, _>(p, col, rows),
            (Column::Wide(col), true) => fill_column::<true, _>(p, col, rows),
            (Column::Wide(col), false) => fill_column::<false, _>(p, col, rows),
        }
    }
}

/// Fills the parts `a` and `b` (one-byte columns `ca`, `cb`) from `rows` in
/// one pass ([`fill2`]).
#[inline(always)]
fn fill_pair<const COUNT: bool>(a: &mut Part, b: &mut Part, ca: &[u8], cb: &[u8], rows: &Ordered) {
    let at = |pos: &[u32], i: usize| {
        if i + PREFETCH < pos.len() {
            let q = pos[i + PREFETCH] as usize;
            prefetch(ca, q);
            prefetch(cb, q);
        }
        let p = pos[i] as usize;
        (ca[p], cb[p])
    };
    match (rows.rows, rows.positions, rows.copies) {
        (Rows::Exact(g), Some(pos), None) => fill2::<COUNT>(a, b, g, |_| 1.0, |i| at(pos, i)),
        (Rows::Exact(g), Some(pos), Some(c)) => {
            fill2::<COUNT>(a, b, g, |i| c[i] as f64, |i| at(pos, i))
        }
        (Rows::Exact(g), None, None) => fill2::<COUNT>(a, b, g, |_| 1.0, |i| (ca[i], cb[i])),
        (Rows::Exact(g), None, Some(c)) => {
            fill2::<COUNT>(a, b, g, |i| c[i] as f64, |i| (ca[i], cb[i]))
        }
        (Rows::Packed(q, sc), Some(pos), None) => {
            fill2_packed::<COUNT>(a, b, q, sc, |_| 1.0, |i| at(pos, i))
        }
        (Rows::Packed(q, sc), Some(pos), Some(c)) => {
            fill2_packed::<COUNT>(a, b, q, sc, |i| c[i] as f64, |i| at(pos, i))
        }
        (Rows::Packed(q, sc), None, None) => {
            fill2_packed::<COUNT>(a, b, q, sc, |_| 1.0, |i| (ca[i], cb[i]))
        }
        (Rows::Packed(q, sc), None, Some(c)) => {
            fill2_packed::<COUNT>(a, b, q, sc, |i| c[i] as f64, |i| (ca[i], cb[i]))
        }
    }
}

/// Sets part `p` to the histogram of `rows` on the feature whose codes are
/// `col` ([`fill`]).
#[inline(always)]
fn fill_column<const COUNT: bool, C: Copy + Into<usize>>(p: &mut Part, col: &[C], rows: &Ordered) {
    let at = |pos: &[u32], i: usize| {
        if i + PREFETCH < pos.len() {
            prefetch(col, pos[i + PREFETCH] as usize);
        }
        col[pos[i] as usize].into()
    };
    match (rows.rows, rows.positions, rows.copies) {
        (Rows::Exact(g), Some(pos), None) => fill::<COUNT>(p, g, |_| 1.0, |i| at(pos, i)),
        (Rows::Exact(g), Some(pos), Some(c)) => {
            fill::<COUNT>(p, g, |i| c[i] as f64, |i| at(pos, i))
        }
        (Rows::Exact(g), None, None) => fill::<COUNT>(p, g, |_| 1.0, |i| col[i].into()),
        (Rows::Exact(g), None, Some(c)) => fill::<COUNT>(p, g, |i| c[i] as f64, |i| col[i].into()),
        (Rows::Packed(q, sc), Some(pos), None) => {
            fill_packed::<COUNT>(p, q, sc, |_| 1.0, |i| at(pos, i))
        }
        (Rows::Packed(q, sc), Some(pos), Some(c)) => {
            fill_packed::<COUNT>(p, q, sc, |i| c[i] as f64, |i| at(pos, i))
        }
        (Rows::Packed(q, sc), None, None) => {
            fill_packed::<COUNT>(p, q, sc, |_| 1.0, |i| col[i].into())
        }
        (Rows::Packed(q, sc), None, Some(c)) => {
            fill_packed::<COUNT>(p, q, sc, |i| c[i] as f64, |i| col[i].into())
        }
    }
}

/// Features whose histograms one pass over a leaf's rows fills together:
/// each row's gradients are read once for all of them.
const GROUP: usize = 2;

/// Sets parts `a` and `b` to the histograms of `rows` of two features, row
/// `i` falling into bins `codes(i)` with `copies(i)` copies (counted when
/// `COUNT`). From [`LANED_ROWS`] rows on, even and odd rows are summed
/// apart and then added, so that rows falling into one bin in a row do not
/// wait on each other's sums.
#[inline(always)]
fn fill2<const COUNT: bool>(
    a: &mut Part,
    b: &mut Part,
    rows: &[Grad],
    copies: impl Fn(usize) -> f64,
    codes: impl Fn(usize) -> (u8, u8),
) {
    let (na, nb) = (&mut *a.counts, &mut *b.counts);
    na.fill(0.0);
    nb.fill(0.0);
    if rows.len() < LANED_ROWS {
        // Few rows: summed in place, without lanes to clear and add.
        a.bins.fill(Bin::default());
        b.bins.fill(Bin::default());
        for (i, r) in rows.iter().enumerate() {
            let (x, y) = codes(i);
            let r = Bin::of(*r);
            a.bins[x as usize].add(&r);
            b.bins[y as usize].add(&r);
            if COUNT {
                let n = copies(i);
                na[x as usize] += n;
                nb[y as usize] += n;
            }
        }
        return;
    }
    let (even, odd) = lanes2::<COUNT, Bin>(na, nb, rows, copies, codes);
    for (k, h) in [&mut *a.bins, &mut *b.bins].into_iter().enumerate() {
        for ((x, e), o) in h.iter_mut().zip(&even[k]).zip(&odd[k]) {
            *x = *e;
            x.add(o);
        }
    }
}

/// A bin of the lanes of [`lanes2`]: exact sums of rows' gradients, or
/// sums of packed quantized rows.
trait LaneBin: Copy + Default {
    type Row: Copy;
    fn put(&mut self, r: Self::Row);
}

impl LaneBin for Bin {
    type Row = Grad;
    #[inline(always)]
    fn put(&mut self, r: Grad) {
        self.add(&Bin::of(r));
    }
}

impl LaneBin for u64 {
    type Row = u64;
    #[inline(always)]
    fn put(&mut self, r: u64) {
        *self = add(*self, r);
    }
}

/// Sums `rows` of two features into even and odd lanes per feature, row
/// `i` falling into bins `codes(i)`, and counts its `copies(i)` into `na`,
/// `nb` when `COUNT`: so that rows falling into one bin in a row do not
/// wait on each other's sums. The lanes are indexed by one-byte codes: no
/// bounds to check.
#[inline(always)]
#[allow(clippy::type_complexity)]
fn lanes2<const COUNT: bool, L: LaneBin>(
    na: &mut [f64],
    nb: &mut [f64],
    rows: &[L::Row],
    copies: impl Fn(usize) -> f64,
    codes: impl Fn(usize) -> (u8, u8),
) -> ([[L; LANE_BINS]; 2], [[L; LANE_BINS]; 2]) {
    let mut even = [[L::default(); LANE_BINS]; 2];
    let mut odd = [[L::default(); LANE_BINS]; 2];
    let whole = rows.len() / 2 * 2;
    for i in (0..whole).step_by(2) {
        let ((a0, b0), (a1, b1)) = (codes(i), codes(i + 1));
        let (r0, r1) = (rows[i], rows[i + 1]);
        even[0][a0 as usize].put(r0);
        even[1][b0 as usize].put(r0);
        odd[0][a1 as usize].put(r1);
        odd[1][b1 as usize].put(r1);
        if COUNT {
            let (n0, n1) = (copies(i), copies(i + 1));
            na[a0 as usize] += n0;
            nb[b0 as usize] += n0;
            na[a1 as usize] += n1;
            nb[b1 as usize] += n1;
        }
    }
    if whole < rows.len() {
        let (x, y) = codes(whole);
        even[0][x as usize].put(rows[whole]);
        even[1][y as usize].put(rows[whole]);
        if COUNT {
            let n = copies(whole);
            na[x as usize] += n;
            nb[y as usize] += n;
        }
    }
    (even, odd)
}

/// Rows from which a histogram is summed in [`LANES`] interleaved copies.
const LANED_ROWS: usize = 2048;

/// Interleaved copies of a histogram: row `i` goes to copy `i % LANES`, so
/// that rows falling into one bin in a row (a sorted column, a frequent
/// value) do not wait on each other's sums; the copies are added in order.
const LANES: usize = 4;

/// Bins of the interleaved copies: a one-byte column's (a two-byte
/// column's rows are summed in one copy; its many bins rarely meet in a row).
const LANE_BINS: usize = 256;

/// Sets part `p` to the histogram of `rows`, row `i` falling into bin
/// `code(i)` with `copies(i)` copies (counted when `COUNT`).
#[inline(always)]
fn fill<const COUNT: bool>(
    p: &mut Part,
    rows: &[Grad],
    copies: impl Fn(usize) -> f64,
    code: impl Fn(usize) -> usize,
) {
    let (hf, nf) = (&mut *p.bins, &mut *p.counts);
    hf.fill(Bin::default());
    nf.fill(0.0);
    if COUNT {
        for i in 0..rows.len() {
            nf[code(i)] += copies(i);
        }
    }
    if rows.len() < LANED_ROWS || hf.len() > LANE_BINS {
        for (i, r) in rows.iter().enumerate() {
            hf[code(i)].add(&Bin::of(*r));
        }
        return;
    }
    let mut lanes = [[Bin::default(); LANE_BINS]; LANES - 1];
    let whole = rows.len() / LANES * LANES;
    for i in (0..whole).step_by(LANES) {
        hf[code(i)].add(&Bin::of(rows[i]));
        for (l, lane) in lanes.iter_mut().enumerate() {
            let j = i + 1 + l;
            lane[code(j)].add(&Bin::of(rows[j]));
        }
    }
    for (i, r) in rows.iter().enumerate().skip(whole) {
        hf[code(i)].add(&Bin::of(*r));
    }
    for lane in &lanes {
        for (b, l) in hf.iter_mut().zip(lane) {
            b.add(l);
        }
    }
}

/// [`fill2`] from packed rows with scales `scale` ([`super::quantize`]):
/// each bin sums whole words in even and odd lanes, which are added and
/// scaled as the bins are written out.
#[inline(always)]
fn fill2_packed<const COUNT: bool>(
    a: &mut Part,
    b: &mut Part,
    rows: &[u64],
    scale: Scale,
    copies: impl Fn(usize) -> f64,
    codes: impl Fn(usize) -> (u8, u8),
) {
    let (na, nb) = (&mut *a.counts, &mut *b.counts);
    na.fill(0.0);
    nb.fill(0.0);
    let (even, odd) = lanes2::<COUNT, u64>(na, nb, rows, copies, codes);
    for (k, h) in [&mut *a.bins, &mut *b.bins].into_iter().enumerate() {
        for ((x, &e), &o) in h.iter_mut().zip(&even[k]).zip(&odd[k]) {
            *x = scale.unpack(add(e, o));
        }
    }
}

/// [`fill`] from packed rows with scales `scale`, in one lane of words as
/// long as the feature's bins.
#[inline(always)]
fn fill_packed<const COUNT: bool>(
    p: &mut Part,
    rows: &[u64],
    scale: Scale,
    copies: impl Fn(usize) -> f64,
    code: impl Fn(usize) -> usize,
) {
    let nf = &mut *p.counts;
    nf.fill(0.0);
    let mut sums = vec![0u64; p.bins.len()];
    for (i, &r) in rows.iter().enumerate() {
        let c = code(i);
        sums[c] = add(sums[c], r);
        if COUNT {
            nf[c] += copies(i);
        }
    }
    for (x, &s) in p.bins.iter_mut().zip(&sums) {
        *x = scale.unpack(s);
    }
}
