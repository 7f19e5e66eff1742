//! Gradient histograms over the binned features (LightGBM, Ke et al. 2017,
//! Algorithm 1): per feature and bin, the sums of the gradients, hessians
//! and row copies of a leaf's rows. A leaf's rows are gathered once into an
//! ordered buffer ([`Ordered`]), so each feature's pass reads the gradients
//! contiguously and only the bin codes by row position (one byte, two for a
//! categorical feature of many levels, whose histogram has a bin per level;
//! prefetched
//! ahead, as LightGBM does); the larger child of a split gets its histograms
//! by subtracting the smaller child's from the parent's.
//!
//! Features are processed in parallel, each by one task that builds (or
//! subtracts) its histogram over the rows in their order and scans it for
//! the feature's best split while it is in cache; the features' best splits
//! are then compared in feature order. Every sum is taken in the same order
//! whatever the thread count.

use std::borrow::Cow;

use rayon::prelude::*;

use super::split::{best_of, Grad, Rules, Split, Sums};
use crate::learn::tree::{Binned, Column, Slot};
use crate::mem::prefetch;

/// Rows x features below which a leaf's histograms are built on one thread.
const PARALLEL_WORK: usize = 1 << 15;

/// Rows ahead whose bin code is prefetched.
const PREFETCH: usize = 32;

/// A leaf's rows with their ordered gradients.
pub(super) struct Ordered<'a> {
    /// The rows' positions, or `None` when they are positions `0..len` in
    /// order (the root without row subsampling: codes are read sequentially).
    pub positions: Option<&'a [u32]>,
    /// Gradient and hessian of each row, in the same order.
    pub rows: &'a [Grad],
    /// Copies of each row, in the same order (`None`: one each).
    pub copies: Option<&'a [u32]>,
}

impl Ordered<'_> {
    /// The sums of all the rows.
    pub fn total(&self) -> Sums {
        let mut t = Sums::default();
        match self.copies {
            Some(c) => self
                .rows
                .iter()
                .zip(c)
                .for_each(|(r, &n)| t.add_row(*r, n as f64)),
            None => self.rows.iter().for_each(|r| t.add_row(*r, 1.0)),
        }
        t
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
    /// The codes of dataset rows `rows` (`None`: all rows in order).
    pub fn new(bins: &'a Binned, rows: Option<&[u32]>) -> Codes<'a> {
        let (narrow, wide) = bins.codes_all();
        let n = bins.n_rows();
        let slots = bins.slots();
        match rows {
            None => Codes {
                narrow: Cow::Borrowed(narrow),
                wide: Cow::Borrowed(wide),
                slots,
                stride: n,
            },
            Some(rows) => Codes {
                narrow: Cow::Owned(gather(narrow, n, rows)),
                wide: Cow::Owned(gather(wide, n, rows)),
                slots,
                stride: rows.len(),
            },
        }
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

/// Where each feature's bins lie in a histogram of all features.
pub(super) struct Layout {
    offsets: Vec<usize>,
}

impl Layout {
    /// The layout of `bins`' features.
    pub fn new(bins: &Binned, d: usize) -> Layout {
        Layout {
            offsets: (0..=d).map(|f| bins.offset(f)).collect(),
        }
    }

    /// Bins of all features.
    pub fn len(&self) -> usize {
        *self.offsets.last().unwrap_or(&0)
    }

    /// Mutable slices of the bins of `features` (ascending) in `hist`.
    fn split<'h>(
        &self,
        mut hist: &'h mut [Sums],
        features: &[usize],
    ) -> Vec<(usize, &'h mut [Sums])> {
        let mut out = Vec::with_capacity(features.len());
        let mut at = 0;
        for &f in features {
            let rest = std::mem::take(&mut hist);
            let (_, tail) = rest.split_at_mut(self.offsets[f] - at);
            let (mine, tail) = tail.split_at_mut(self.offsets[f + 1] - self.offsets[f]);
            out.push((f, mine));
            hist = tail;
            at = self.offsets[f + 1];
        }
        out
    }

    /// Runs `task` on the features of `features` (ascending) in groups of
    /// at most [`GROUP`] (in parallel when `work` is large), each with its
    /// bins, and returns the best of the splits they return (compared in
    /// feature order).
    fn each_group<F>(
        &self,
        hist: &mut [Sums],
        features: &[usize],
        work: usize,
        task: F,
    ) -> Option<Split>
    where
        F: Fn(&mut [(usize, &mut [Sums])]) -> Option<Split> + Sync,
    {
        let mut slices = self.split(hist, features);
        if work >= PARALLEL_WORK {
            best_of(slices.par_chunks_mut(GROUP).map(&task).collect::<Vec<_>>())
        } else {
            best_of(slices.chunks_mut(GROUP).map(task))
        }
    }

    /// Runs `task(feature, its bins, their offset)` for every feature of
    /// `features` (in parallel when `work` is large) and returns the best of
    /// the splits they return.
    fn each<F>(&self, hist: &mut [Sums], features: &[usize], work: usize, task: F) -> Option<Split>
    where
        F: Fn(usize, &mut [Sums], usize) -> Option<Split> + Sync,
    {
        let slices = self.split(hist, features);
        let one = |(f, hf): (usize, &mut [Sums])| task(f, hf, self.offsets[f]);
        if work >= PARALLEL_WORK {
            best_of(slices.into_par_iter().map(one).collect::<Vec<_>>())
        } else {
            best_of(slices.into_iter().map(one))
        }
    }
}

/// Fills the histograms of `features` (ascending) in `hist` from the rows;
/// with a scan, returns the leaf's best split.
pub(super) fn build(
    hist: &mut [Sums],
    layout: &Layout,
    features: &[usize],
    codes: &Codes,
    rows: &Ordered,
    scan: Scan,
) -> Option<Split> {
    let work = rows.rows.len() * features.len();
    layout.each_group(hist, features, work, |group| {
        // Pairs of one-byte columns share a pass; a two-byte column is
        // filled alone.
        if let [(fa, ha), (fb, hb)] = group {
            if let (Column::Narrow(ca), Column::Narrow(cb)) = (codes.col(*fa), codes.col(*fb)) {
                let at = |pos: &[u32], i: usize| {
                    if i + PREFETCH < pos.len() {
                        let q = pos[i + PREFETCH] as usize;
                        prefetch(ca, q);
                        prefetch(cb, q);
                    }
                    let p = pos[i] as usize;
                    (ca[p], cb[p])
                };
                match (rows.positions, rows.copies) {
                    (Some(pos), None) => fill2(ha, hb, rows.rows, |_| 1.0, |i| at(pos, i)),
                    (Some(pos), Some(c)) => {
                        fill2(ha, hb, rows.rows, |i| c[i] as f64, |i| at(pos, i))
                    }
                    (None, None) => fill2(ha, hb, rows.rows, |_| 1.0, |i| (ca[i], cb[i])),
                    (None, Some(c)) => {
                        fill2(ha, hb, rows.rows, |i| c[i] as f64, |i| (ca[i], cb[i]))
                    }
                }
                return best_of(
                    group
                        .iter()
                        .map(|(f, hf)| scan.and_then(|(rules, tot)| rules.best_on(*f, hf, tot))),
                );
            }
        }
        best_of(group.iter_mut().map(|(f, hf)| {
            match codes.col(*f) {
                Column::Narrow(col) => fill_column(hf, col, rows),
                Column::Wide(col) => fill_column(hf, col, rows),
            }
            scan.and_then(|(rules, tot)| rules.best_on(*f, hf, tot))
        }))
    })
}

/// Sets `hf` to the histogram of `rows` on the feature whose codes are
/// `col`.
#[inline(always)]
fn fill_column<C: Copy + Into<usize>>(hf: &mut [Sums], col: &[C], rows: &Ordered) {
    let at = |pos: &[u32], i: usize| {
        if i + PREFETCH < pos.len() {
            prefetch(col, pos[i + PREFETCH] as usize);
        }
        col[pos[i] as usize].into()
    };
    match (rows.positions, rows.copies) {
        (Some(pos), None) => fill(hf, rows.rows, |_| 1.0, |i| at(pos, i)),
        (Some(pos), Some(c)) => fill(hf, rows.rows, |i| c[i] as f64, |i| at(pos, i)),
        (None, None) => fill(hf, rows.rows, |_| 1.0, |i| col[i].into()),
        (None, Some(c)) => fill(hf, rows.rows, |i| c[i] as f64, |i| col[i].into()),
    }
}

/// Features whose histograms one pass over a leaf's rows fills together:
/// each row's gradients are read once for all of them.
const GROUP: usize = 2;

/// Sets `ha` and `hb` to the histograms of `rows` of two features, row
/// `i` falling into bins `codes(i)` with `copies(i)` copies. Even and odd
/// rows are summed apart and then added, so that rows falling into one bin
/// in a row do not wait on each other's sums.
#[inline(always)]
fn fill2(
    ha: &mut [Sums],
    hb: &mut [Sums],
    rows: &[Grad],
    copies: impl Fn(usize) -> f64,
    codes: impl Fn(usize) -> (u8, u8),
) {
    ha.iter_mut().for_each(|b| *b = Sums::default());
    hb.iter_mut().for_each(|b| *b = Sums::default());
    let mut la = [Sums::default(); LANE_BINS];
    let mut lb = [Sums::default(); LANE_BINS];
    let whole = rows.len() / 2 * 2;
    for i in (0..whole).step_by(2) {
        let (n0, n1) = (copies(i), copies(i + 1));
        let ((a0, b0), (a1, b1)) = (codes(i), codes(i + 1));
        ha[a0 as usize].add_row(rows[i], n0);
        hb[b0 as usize].add_row(rows[i], n0);
        la[a1 as usize].add_row(rows[i + 1], n1);
        lb[b1 as usize].add_row(rows[i + 1], n1);
    }
    if whole < rows.len() {
        let (a, b) = codes(whole);
        let n = copies(whole);
        ha[a as usize].add_row(rows[whole], n);
        hb[b as usize].add_row(rows[whole], n);
    }
    for (h, l) in [(ha, &la), (hb, &lb)] {
        for (b, l) in h.iter_mut().zip(l) {
            b.add(l);
        }
    }
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

/// Sets `hf` to the histogram of `rows`, row `i` falling into bin
/// `code(i)` with `copies(i)` copies.
#[inline(always)]
fn fill(
    hf: &mut [Sums],
    rows: &[Grad],
    copies: impl Fn(usize) -> f64,
    code: impl Fn(usize) -> usize,
) {
    hf.iter_mut().for_each(|b| *b = Sums::default());
    if rows.len() < LANED_ROWS || hf.len() > LANE_BINS {
        for (i, r) in rows.iter().enumerate() {
            hf[code(i)].add_row(*r, copies(i));
        }
        return;
    }
    let mut lanes = [[Sums::default(); LANE_BINS]; LANES - 1];
    let whole = rows.len() / LANES * LANES;
    for i in (0..whole).step_by(LANES) {
        hf[code(i)].add_row(rows[i], copies(i));
        for (l, lane) in lanes.iter_mut().enumerate() {
            let j = i + 1 + l;
            lane[code(j)].add_row(rows[j], copies(j));
        }
    }
    for (i, r) in rows.iter().enumerate().skip(whole) {
        hf[code(i)].add_row(*r, copies(i));
    }
    for lane in &lanes {
        for (b, l) in hf.iter_mut().zip(lane) {
            b.add(l);
        }
    }
}

/// Turns a parent's histograms of `features` into its larger child's by
/// subtracting the smaller child's (`child`, laid out alike); with a scan,
/// returns the larger child's best split.
pub(super) fn subtract(
    parent: &mut [Sums],
    child: &[Sums],
    layout: &Layout,
    features: &[usize],
    scan: Scan,
) -> Option<Split> {
    let work = layout.len() * 8;
    layout.each(parent, features, work, |f, hf, at| {
        for (p, c) in hf.iter_mut().zip(&child[at..]) {
            p.g -= c.g;
            p.h -= c.h;
            p.n -= c.n;
        }
        scan.and_then(|(rules, tot)| rules.best_on(f, hf, tot))
    })
}
