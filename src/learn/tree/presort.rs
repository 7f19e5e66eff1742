//! The per-dataset representation shared by every tree fitted on views of one
//! dataset: each feature's rows presorted by value once, and each row's dense
//! value rank per feature. A bag is then a vector of per-row counts over this
//! shared table; nothing is copied per member but the member's own row lists.

use rayon::prelude::*;

use crate::data::{Dataset, View};
use crate::error::{Error, Result};

/// Rows presorted per feature, and dense value ranks, for one dataset.
#[derive(Debug)]
pub struct Presorted {
    n: usize,
    d: usize,
    /// Feature-major: `order[f*n..(f+1)*n]` are the rows sorted by
    /// (value of feature `f`, row index).
    order: Vec<u32>,
    /// Feature-major: `ranks[f*n + i]` is the dense rank of row `i`'s value of
    /// feature `f` among that feature's distinct values (missing values,
    /// NaN, share the last rank).
    ranks: Vec<u32>,
    /// Per feature, the rank of its missing values (`u32::MAX`: none).
    missing: Vec<u32>,
    /// Address of the dataset's feature buffer: identifies the dataset.
    ident: usize,
}

/// A sort key for an `f64` whose integer order is the numeric order
/// (`-0.0` and `0.0` share a key); every NaN (a missing value) sorts after
/// every number, whatever its sign bit.
#[inline]
pub(super) fn key(v: f64) -> u64 {
    if v.is_nan() {
        return u64::MAX;
    }
    let b = (v + 0.0).to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

impl Presorted {
    /// Sorts every feature of `data` (in parallel over features).
    pub fn new(data: &Dataset) -> Result<Self> {
        let n = data.n_rows();
        let d = data.n_features();
        if n >= u32::MAX as usize {
            return Err(Error::data(format!(
                "{n} rows: trees support fewer than {} rows",
                u32::MAX
            )));
        }
        let mut order = vec![0u32; n * d];
        let mut ranks = vec![0u32; n * d];
        let mut missing = vec![u32::MAX; d];
        if n > 0 {
            order
                .par_chunks_mut(n)
                .zip(ranks.par_chunks_mut(n))
                .zip(missing.par_iter_mut())
                .enumerate()
                .for_each(|(f, ((ord, rk), miss))| {
                    let mut keyed: Vec<(u64, u32)> =
                        (0..n).map(|i| (key(data.value(i, f)), i as u32)).collect();
                    keyed.sort_unstable();
                    let mut rank = 0u32;
                    for (j, &(kj, row)) in keyed.iter().enumerate() {
                        if j > 0 && kj != keyed[j - 1].0 {
                            rank += 1;
                        }
                        ord[j] = row;
                        rk[row as usize] = rank;
                    }
                    // Missing values sort last, under one key.
                    if keyed.last().is_some_and(|&(k, _)| k == key(f64::NAN)) {
                        *miss = rank;
                    }
                });
        }
        Ok(Presorted {
            n,
            d,
            order,
            ranks,
            missing,
            ident: data.features().as_ptr() as usize,
        })
    }

    /// True when this table was built from `data` (same feature buffer).
    pub fn matches(&self, data: &Dataset) -> bool {
        self.ident == data.features().as_ptr() as usize
            && self.n == data.n_rows()
            && self.d == data.n_features()
    }

    /// Rows sorted by feature `f`.
    pub(crate) fn order(&self, f: usize) -> &[u32] {
        &self.order[f * self.n..(f + 1) * self.n]
    }

    /// Dense value ranks of feature `f`, indexed by row.
    pub(crate) fn ranks(&self, f: usize) -> &[u32] {
        &self.ranks[f * self.n..(f + 1) * self.n]
    }

    /// The rank of feature `f`'s missing values (NaN, sorted after every
    /// number), `None` when the dataset has none.
    pub(crate) fn missing_rank(&self, f: usize) -> Option<u32> {
        (self.missing[f] != u32::MAX).then_some(self.missing[f])
    }
}

/// What a tree needs to know about one row of the dataset for one fit.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RowInfo {
    /// Total weight: copies in the view times the row's weight.
    pub w: f64,
    /// Copies of the row in the view (0 when absent or of weight 0).
    pub cnt: u32,
    /// Class id.
    pub class: u32,
}

/// Per-row copies and weights of a view over its dataset, and the weighted
/// class totals. Rows of weight 0 are left out (they carry no information).
///
/// Fails when the view holds no row of positive weight.
pub(crate) fn row_info(view: &View<'_>) -> Result<(Vec<RowInfo>, Vec<f64>)> {
    let data = view.data();
    let mut info = vec![RowInfo::default(); data.n_rows()];
    for &i in view.indices() {
        info[i].cnt += 1;
    }
    let mut totals = vec![0.0; data.n_classes()];
    for (i, r) in info.iter_mut().enumerate() {
        if r.cnt == 0 {
            continue;
        }
        let w = data.weight(i);
        if w > 0.0 {
            r.class = data.label(i) as u32;
            r.w = w * r.cnt as f64;
            totals[r.class as usize] += r.w;
        } else {
            r.cnt = 0;
        }
    }
    if !totals.iter().any(|&t| t > 0.0) {
        return Err(Error::data(
            "cannot fit a tree: no training row has a positive weight",
        ));
    }
    Ok((info, totals))
}
