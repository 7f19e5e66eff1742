//! Gradient histograms over the binned features (LightGBM, Ke et al. 2017,
//! Algorithm 1): per feature and bin, the sums of the gradients, hessians
//! and row copies of a leaf's rows. A leaf's rows are gathered once into an
//! ordered buffer ([`Ordered`]), so each feature's pass reads the gradients
//! contiguously and only the one-byte bin codes by row position; the larger
//! child of a split gets its histograms by subtracting the smaller child's
//! from the parent's.
//!
//! Features are built in parallel, each by one task over the rows in their
//! order, so every sum is taken in the same order whatever the thread count.

use std::borrow::Cow;

use rayon::prelude::*;

use crate::learn::tree::Binned;

/// Rows x features below which a histogram is built on one thread.
const PARALLEL_WORK: usize = 1 << 16;

/// One bin: sums of gradients, hessians and row copies.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Bin {
    pub g: f64,
    pub h: f64,
    pub n: u64,
}

/// One row of a leaf in the ordered buffer: its gradient, hessian and copies.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct OrdRow {
    pub g: f32,
    pub h: f32,
    pub n: u32,
}

/// A leaf's rows with their ordered gradients.
pub(super) struct Ordered<'a> {
    /// The rows' positions, or `None` when they are positions `0..len` in
    /// order (the root without row subsampling: codes are read sequentially).
    pub positions: Option<&'a [u32]>,
    /// Gradient, hessian and copies of each row, in the same order.
    pub rows: &'a [OrdRow],
}

/// Bin codes of the rows a fit uses, feature-major (`codes[f * stride + i]`
/// for row position `i`): borrowed from the dataset's [`Binned`] table when
/// the fit uses every row in order, else gathered.
pub(super) struct Codes<'a> {
    data: Cow<'a, [u8]>,
    stride: usize,
}

impl<'a> Codes<'a> {
    /// The codes of dataset rows `rows` (`None`: all rows in order).
    pub fn new(bins: &'a Binned, d: usize, rows: Option<&[u32]>) -> Codes<'a> {
        match rows {
            None => Codes {
                stride: bins.codes(0).len(),
                data: Cow::Borrowed(bins.codes_all()),
            },
            Some(rows) => {
                let m = rows.len();
                let mut data = vec![0u8; m * d];
                data.par_chunks_mut(m.max(1))
                    .enumerate()
                    .for_each(|(f, col)| {
                        let src = bins.codes(f);
                        for (c, &r) in col.iter_mut().zip(rows) {
                            *c = src[r as usize];
                        }
                    });
                Codes {
                    data: Cow::Owned(data),
                    stride: m,
                }
            }
        }
    }

    /// The codes of feature `f`, by row position.
    #[inline]
    pub fn col(&self, f: usize) -> &[u8] {
        &self.data[f * self.stride..(f + 1) * self.stride]
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

    /// Feature `f`'s bins in `hist`.
    #[inline]
    pub fn feature<'h>(&self, hist: &'h [Bin], f: usize) -> &'h [Bin] {
        &hist[self.offsets[f]..self.offsets[f + 1]]
    }

    /// Mutable slices of the bins of `features` (ascending) in `hist`.
    fn split<'h>(
        &self,
        mut hist: &'h mut [Bin],
        features: &[usize],
    ) -> Vec<(usize, &'h mut [Bin])> {
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
}

/// Fills the histograms of `features` (ascending) in `hist` from the rows.
pub(super) fn build(
    hist: &mut [Bin],
    layout: &Layout,
    features: &[usize],
    codes: &Codes,
    rows: &Ordered,
) {
    let one = |(f, hf): (usize, &mut [Bin])| {
        hf.iter_mut().for_each(|b| *b = Bin::default());
        let col = codes.col(f);
        match rows.positions {
            Some(pos) => {
                for (&p, r) in pos.iter().zip(rows.rows) {
                    add(&mut hf[col[p as usize] as usize], r);
                }
            }
            None => {
                for (&c, r) in col.iter().zip(rows.rows) {
                    add(&mut hf[c as usize], r);
                }
            }
        }
    };
    let slices = layout.split(hist, features);
    if rows.rows.len() * features.len() >= PARALLEL_WORK {
        slices.into_par_iter().for_each(one);
    } else {
        slices.into_iter().for_each(one);
    }
}

#[inline(always)]
fn add(b: &mut Bin, r: &OrdRow) {
    b.g += r.g as f64;
    b.h += r.h as f64;
    b.n += r.n as u64;
}

/// Turns a parent's histograms of `features` into its larger child's by
/// subtracting the smaller child's.
pub(super) fn subtract(parent: &mut [Bin], child: &[Bin], layout: &Layout, features: &[usize]) {
    for &f in features {
        let (a, b) = (layout.offsets[f], layout.offsets[f + 1]);
        for (p, c) in parent[a..b].iter_mut().zip(&child[a..b]) {
            p.g -= c.g;
            p.h -= c.h;
            p.n -= c.n;
        }
    }
}
