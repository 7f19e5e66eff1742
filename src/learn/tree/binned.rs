//! Quantile binning of the features, once per dataset, for the histogram
//! splitter ([`super::hist`]).
//!
//! Each feature's distinct values are grouped into at most [`MAX_BINS`] runs
//! of consecutive values holding about equal numbers of rows (quantile bins,
//! as in LightGBM, Ke et al. 2017, and scikit-learn's
//! `HistGradientBoostingClassifier`). A feature with at most [`MAX_BINS`]
//! distinct values gets one bin per value, so the histogram splitter sees the
//! same candidate splits as the exact one. Each row's bin code is one byte,
//! stored feature-major ([`Column::Narrow`]). Each bin keeps the smallest and largest value of the
//! dataset that fall in it, so that a split between two bins maps back to a
//! threshold on the real values (the midpoint of the gap between them).
//!
//! A numeric feature with missing values (NaN) in the dataset bins its
//! observed values as above and gets one bin more, the last, for its
//! missing values ([`Binned::missing_bin`]; LightGBM's NaN bin): a split
//! sends that bin the way it learned (`default_left`), and a feature
//! without a NaN is binned exactly as before.
//!
//! A categorical feature (level codes, [`crate::data::ColumnEncoding::Categorical`])
//! is binned by level instead ([`super::categorical::bin_levels`]): one bin
//! per level present, in code order, then one bin grouping the rarest levels
//! when more than [`MAX_BINS`]` - 1` are present, and one bin for a missing
//! value (NaN). Such a wide column keeps the levels that cover 99% of its
//! rows, as LightGBM does, so its codes may need two bytes
//! ([`Column::Wide`], up to 2^16 bins); every other feature
//! keeps one-byte codes. Only the single-level bins, the first
//! [`Binned::levels`] of the feature, may go left at a set split.

use rayon::prelude::*;

use super::categorical::{bin_levels, BinSet, BinnedFeature, CatSet, Codes};
use super::presort::key;
use crate::data::Dataset;
use crate::error::{Error, Result};

/// The largest number of bins of observed values per numeric feature
/// (codes fit in a `u8`, with one more for the missing values).
pub const MAX_BINS: usize = 255;

/// One feature's bin codes, indexed by row.
#[derive(Debug, Clone, Copy)]
pub enum Column<'a> {
    /// One byte a row: numeric features, and categorical ones with at most
    /// [`MAX_BINS`] bins.
    Narrow(&'a [u8]),
    /// Two bytes a row: a categorical feature keeping more levels.
    Wide(&'a [u16]),
}

impl Column<'_> {
    /// Row `i`'s bin.
    #[inline(always)]
    pub fn get(&self, i: usize) -> usize {
        match self {
            Column::Narrow(c) => c[i] as usize,
            Column::Wide(c) => c[i] as usize,
        }
    }
}

/// Where a feature's codes are stored: the `k`-th one-byte column or the
/// `k`-th two-byte column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    Narrow(usize),
    Wide(usize),
}

/// Bin codes of every row and feature of one dataset, with each bin's value
/// range.
///
/// ```
/// use rarity::data::Dataset;
/// use rarity::learn::tree::Binned;
/// let ds = Dataset::from_rows(vec![vec![3.0], vec![1.0], vec![3.0]], vec![0, 1, 0],
///                             vec!["n".into(), "p".into()]).unwrap();
/// let b = Binned::new(&ds).unwrap();
/// assert_eq!(b.n_bins(0), 2);
/// assert_eq!((0..3).map(|i| b.column(0).get(i)).collect::<Vec<_>>(), vec![1, 0, 1]);
/// assert_eq!(b.bin_range(0, 1), (3.0, 3.0));
/// ```
#[derive(Debug)]
pub struct Binned {
    n: usize,
    d: usize,
    /// The one-byte columns, column-major: `codes[k*n + i]` is row `i`'s
    /// bin in column `k`.
    codes: Vec<u8>,
    /// The two-byte columns, alike.
    wide: Vec<u16>,
    /// Per feature, its column.
    slots: Vec<Slot>,
    /// `offsets[f]..offsets[f+1]` index feature `f`'s bins in `lo` / `hi`.
    offsets: Vec<usize>,
    /// Smallest value of the dataset in each bin.
    lo: Vec<f64>,
    /// Largest value of the dataset in each bin.
    hi: Vec<f64>,
    /// The bin budget per feature it was built with.
    max_bins: usize,
    /// Per feature: for a categorical one, its number of single-level bins.
    levels: Vec<Option<usize>>,
    /// Per feature: whether it is numeric with a last bin of missing values.
    missing: Vec<bool>,
    /// Address of the dataset's feature buffer: identifies the dataset.
    ident: usize,
}

/// The value whose [`key`] is `k` (`-0.0` comes back as `0.0`).
fn value_of(k: u64) -> f64 {
    f64::from_bits(if k >> 63 == 1 { k & !(1 << 63) } else { !k })
}

/// Bins one feature: each row's code, and each bin's smallest and largest
/// value. `values` must be numbers (no NaN). Only the keys are sorted (not the rows
/// with them: half the bytes to move); each row's code is then found among
/// the bins' largest keys.
fn bin_feature(values: &[f64], max_bins: usize) -> BinnedFeature {
    let n = values.len();
    let keys: Vec<u64> = values.iter().map(|&v| key(v)).collect();
    let mut sorted = keys.clone();
    sorted.sort_unstable();
    let distinct = 1 + sorted.windows(2).filter(|w| w[0] != w[1]).count();
    let (mut lo, mut hi, mut last) = (Vec::new(), Vec::new(), Vec::new());
    let mut bin = 0usize;
    let mut j = 0;
    while j < n {
        // One run of equal values: sorted[j..e].
        let mut e = j + 1;
        while e < n && sorted[e] == sorted[j] {
            e += 1;
        }
        let v = value_of(sorted[j]);
        if lo.len() == bin {
            lo.push(v);
            hi.push(v);
            last.push(sorted[j]);
        }
        hi[bin] = v;
        last[bin] = sorted[j];
        // Close the bin once it reaches its share of the rows: one value per
        // bin when they fit, else bin b ends at the first run whose cumulative
        // count reaches (b + 1) n / max_bins. As the cumulative count before
        // the last run is below n, at most max_bins bins are made.
        if e < n && (distinct <= max_bins || e * max_bins >= n * (bin + 1)) {
            bin += 1;
        }
        j = e;
    }
    // A row's bin is the first whose largest key is not below its key.
    let codes = keys
        .iter()
        .map(|&k| last.partition_point(|&l| l < k) as u8)
        .collect();
    (Codes::Narrow(codes), lo, hi, None)
}

/// Bins one numeric feature: its observed values as [`bin_feature`] does,
/// and, when some are missing (NaN), one more bin for those, the last (its
/// range NaN).
fn bin_numeric(values: &[f64], max_bins: usize) -> BinnedFeature {
    if !values.iter().any(|v| v.is_nan()) {
        return bin_feature(values, max_bins);
    }
    let observed: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    let (codes, mut lo, mut hi, _) = bin_feature(&observed, max_bins);
    let Codes::Narrow(observed) = codes else {
        unreachable!("numeric codes are one byte")
    };
    let missing = lo.len() as u8;
    let mut next = observed.into_iter();
    let codes = values
        .iter()
        .map(|v| match v.is_nan() {
            true => missing,
            false => next.next().unwrap_or(missing),
        })
        .collect();
    lo.push(f64::NAN);
    hi.push(f64::NAN);
    (Codes::Narrow(codes), lo, hi, None)
}

impl Binned {
    /// Bins every feature of `data` into at most [`MAX_BINS`] bins (in
    /// parallel over features).
    pub fn new(data: &Dataset) -> Result<Self> {
        Self::with_max_bins(data, MAX_BINS)
    }

    /// Bins every feature into at most `max_bins` bins (2 to [`MAX_BINS`]).
    pub fn with_max_bins(data: &Dataset, max_bins: usize) -> Result<Self> {
        if !(2..=MAX_BINS).contains(&max_bins) {
            return Err(Error::invalid(format!(
                "max_bins {max_bins}: must be between 2 and {MAX_BINS}"
            )));
        }
        let (n, d) = (data.n_rows(), data.n_features());
        if n >= u32::MAX as usize {
            return Err(Error::data(format!(
                "{n} rows: trees support fewer than {} rows",
                u32::MAX
            )));
        }
        let categorical = data.schema().categorical_levels();
        let per_feature: Vec<BinnedFeature> = (0..d)
            .into_par_iter()
            .map(|f| {
                let values: Vec<f64> = (0..n).map(|i| data.value(i, f)).collect();
                match categorical.get(f).copied().flatten() {
                    Some(levels) => bin_levels(&values, levels, MAX_BINS),
                    None => bin_numeric(&values, max_bins),
                }
            })
            .collect();
        let mut codes = Vec::with_capacity(n * d);
        let (mut wide, mut slots) = (Vec::new(), Vec::with_capacity(d));
        let mut offsets = vec![0];
        let (mut lo, mut hi) = (Vec::new(), Vec::new());
        let mut levels = Vec::with_capacity(d);
        let mut missing = Vec::with_capacity(d);
        for (c, l, h, lv) in per_feature {
            missing.push(lv.is_none() && l.last().is_some_and(|v| v.is_nan()));
            levels.push(lv);
            match c {
                Codes::Narrow(c) => {
                    slots.push(Slot::Narrow(codes.len() / n.max(1)));
                    codes.extend_from_slice(&c);
                }
                Codes::Wide(c) => {
                    slots.push(Slot::Wide(wide.len() / n.max(1)));
                    wide.extend_from_slice(&c);
                }
            }
            lo.extend_from_slice(&l);
            hi.extend_from_slice(&h);
            offsets.push(lo.len());
        }
        Ok(Binned {
            n,
            d,
            codes,
            wide,
            slots,
            offsets,
            lo,
            hi,
            max_bins,
            levels,
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

    /// The bin budget per feature this table was built with.
    pub fn max_bins(&self) -> usize {
        self.max_bins
    }

    /// The threshold on feature `f`'s values of a split that sends bins up to
    /// `left_bin` left and bins from `right_bin` on right (`left_bin <
    /// right_bin`): the midpoint of the gap between the largest value of
    /// `left_bin` and the smallest of `right_bin`, or the left value when the
    /// midpoint rounds onto the right one. Rows with `x <= threshold` go left.
    /// A split of the observed values from the missing ones (`right_bin` the
    /// [missing bin](Binned::missing_bin)) sends every number left:
    /// `f64::MAX` (finite, so that every model format stores it).
    pub fn threshold(&self, f: usize, left_bin: usize, right_bin: usize) -> f64 {
        if self.missing_bin(f) == Some(right_bin) {
            return f64::MAX;
        }
        let (_, a) = self.bin_range(f, left_bin);
        let (b, _) = self.bin_range(f, right_bin);
        let t = a / 2.0 + b / 2.0;
        if t >= b || !t.is_finite() {
            a
        } else {
            t
        }
    }

    /// For a categorical feature, its number of single-level bins (the
    /// first bins of the feature, in code order; bin `b`'s level code is
    /// `bin_range(f, b).0`); `None` for a numeric feature.
    pub fn levels(&self, f: usize) -> Option<usize> {
        self.levels[f]
    }

    /// For a numeric feature with missing values (NaN) in the dataset, the
    /// bin that holds them: the last. `None` for a feature without, and
    /// for a categorical one (its missing level has a bin of its own that
    /// no set holds).
    pub fn missing_bin(&self, f: usize) -> Option<usize> {
        self.missing[f].then(|| self.n_bins(f) - 1)
    }

    /// Per feature, whether it has a [missing bin](Binned::missing_bin).
    pub(crate) fn all_missing(&self) -> &[bool] {
        &self.missing
    }

    /// The level codes of the single-level bins `bins` of categorical
    /// feature `f`.
    pub(crate) fn level_set(&self, f: usize, bins: &BinSet) -> CatSet {
        CatSet::from_codes(bins.bins().map(|b| self.bin_range(f, b).0 as usize))
    }

    /// Per feature, [`Binned::levels`].
    pub(crate) fn all_levels(&self) -> &[Option<usize>] {
        &self.levels
    }

    /// Number of bins of feature `f`.
    pub fn n_bins(&self, f: usize) -> usize {
        self.offsets[f + 1] - self.offsets[f]
    }

    /// Bin codes of feature `f`, indexed by row.
    pub fn column(&self, f: usize) -> Column<'_> {
        let n = self.n;
        match self.slots[f] {
            Slot::Narrow(k) => Column::Narrow(&self.codes[k * n..(k + 1) * n]),
            Slot::Wide(k) => Column::Wide(&self.wide[k * n..(k + 1) * n]),
        }
    }

    /// Rows of the dataset.
    pub(crate) fn n_rows(&self) -> usize {
        self.n
    }

    /// Per feature, where its codes are stored.
    pub(crate) fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// The one-byte columns, column-major (`[k * n + i]`), and the
    /// two-byte ones.
    pub(crate) fn codes_all(&self) -> (&[u8], &[u16]) {
        (&self.codes, &self.wide)
    }

    /// Smallest and largest value of the dataset in bin `b` of feature `f`.
    pub fn bin_range(&self, f: usize, b: usize) -> (f64, f64) {
        let i = self.offsets[f] + b;
        (self.lo[i], self.hi[i])
    }

    /// Index of feature `f`'s first bin among all features' bins.
    pub(crate) fn offset(&self, f: usize) -> usize {
        self.offsets[f]
    }

    /// Total number of bins over all features.
    pub(crate) fn total_bins(&self) -> usize {
        self.lo.len()
    }
}
