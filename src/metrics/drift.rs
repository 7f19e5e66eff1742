//! Drift of one column between a reference sample and a current one, from
//! summaries that many machines can build apart and merge in bounded memory
//! (`rarity monitor`, issue 56): the population stability index (PSI) and,
//! for numeric columns, the two-sample Kolmogorov-Smirnov statistic.
//!
//! **PSI.** Over bins `i` with shares `r_i` of the reference's rows and
//! `c_i` of the current's, `PSI = sum_i (c_i - r_i) ln(c_i / r_i)` (a
//! symmetrised Kullback-Leibler divergence; Siddiqi, *Credit Risk
//! Scorecards*, 2006, with its usual reading: below 0.1 stable, 0.1 to 0.25
//! shifting, above 0.25 drifted). A share below [`PSI_FLOOR`] is taken as
//! the floor, so a bin empty on one side adds a large but finite term.
//! Numeric bins are the reference's quantiles: for `B` bins, edge `i` (`1 <=
//! i < B`) is the `ceil(i n / B)`-th smallest of the reference's `n`
//! non-missing values (Hyndman and Fan's type 1, NumPy's `inverted_cdf`),
//! repeated edges kept once; a value `x` falls in the bin of the number of
//! edges below it (`x <= e_1` the first bin, `x > e_last` the last). Missing
//! values (NaN) are one bin more, present when either side has one.
//! Categorical bins are the model's levels, one bin for levels the model
//! does not know and one for missing values.
//!
//! **KS.** `sup_x |F_r(x) - F_c(x)|` over the two empirical distribution
//! functions of the non-missing values (SciPy's `ks_2samp` statistic).
//!
//! **Bounded, exact while small.** A [`Sketch`] counts values by their
//! order-preserving key (`metrics::sort::key`) while it has at most
//! `max_groups` distinct keys (default 2^16): the edges, the bin counts and
//! the KS statistic are then exact. Beyond, it drops low bits of every key
//! (level `s` groups keys by `key >> s`), as [`super::summary`] does, and
//! the level it is read at ([`Sketch::settled`]: the smallest at which the
//! rows' groups fit the cap) depends only on the rows, not on how they were
//! split or merged. A sketch holds up to twice the cap before it settles,
//! so that the climb is paid once per cap's worth of new groups, not once
//! per row; it only ever moves to the smallest level its own rows fit at,
//! which is at most the whole table's (a part has no more groups than the
//! whole at any level), and its counts at that level determine every
//! coarser level's exactly, so settling the merged sketch reaches the whole
//! table's level with the same groups for any partitioning and merge order.
//! A group then stands for the values of its key range: an edge is
//! the range's largest value, the KS statistic is taken at range ends
//! (below the exact one by at most the share of one range), and
//! [`NumericDrift::exact`] says so.

use serde::{Deserialize, Serialize};

use super::sort::{key, unkey};
use crate::{Error, Result};

/// Bins of a numeric column unless asked otherwise (`--bins`).
pub const DEFAULT_BINS: usize = 10;

/// The smallest share a bin takes in the PSI.
pub const PSI_FLOOR: f64 = 1e-4;

/// Below this PSI a column is stable.
pub const SHIFTING: f64 = 0.1;

/// Above this PSI a column has drifted.
pub const DRIFTED: f64 = 0.25;

/// The default cap on a sketch's distinct keys.
pub const DEFAULT_MAX_GROUPS: usize = 1 << 16;

/// How many of the bins that moved most a drift names.
pub const MOVERS: usize = 3;

/// The usual reading of a PSI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Below [`SHIFTING`].
    Stable,
    /// From [`SHIFTING`] to [`DRIFTED`].
    Shifting,
    /// Above [`DRIFTED`].
    Drifted,
}

impl Status {
    /// The reading of `psi` (NaN: stable, nothing to compare).
    pub fn of(psi: f64) -> Status {
        if psi > DRIFTED {
            Status::Drifted
        } else if psi >= SHIFTING {
            Status::Shifting
        } else {
            Status::Stable
        }
    }

    /// The reading as a word.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Stable => "stable",
            Status::Shifting => "shifting",
            Status::Drifted => "drifted",
        }
    }
}

/// A mergeable count of a numeric column's values (see the module doc).
///
/// ```
/// use rarity::metrics::drift::{numeric_drift, Sketch};
/// let (mut r, mut c) = (Sketch::new(), Sketch::new());
/// r.add_all(&[1.0, 2.0, 3.0, 4.0]);
/// c.add_all(&[3.0, 4.0, 5.0, f64::NAN]);
/// let d = numeric_drift(&r, &c, 2).unwrap();
/// assert_eq!((d.ks, d.edges.as_slice()), (0.5, &[2.0][..])); // at 2: F_r 1/2, F_c 0
/// assert!(d.psi > 0.25 && d.exact);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sketch {
    max_groups: usize,
    /// Low bits dropped from the keys (0..=64).
    level: u32,
    /// `(key >> level, values)`, sorted by group.
    counts: Vec<(u64, u64)>,
    /// Keys of values not yet folded into `counts` (at most the cap).
    pending: Vec<u64>,
    /// Missing values (NaN).
    missing: u64,
}

impl Default for Sketch {
    fn default() -> Self {
        Sketch::new()
    }
}

/// The group of key `k` at `level`.
fn group(k: u64, level: u32) -> u64 {
    k.checked_shr(level).unwrap_or(0)
}

/// The groups of sorted `counts` at `by` levels more, counted.
fn groups_at(counts: &[(u64, u64)], by: u32) -> usize {
    let mut n = 0;
    let mut last = None;
    for &(g, _) in counts {
        let h = group(g, by);
        if last != Some(h) {
            n += 1;
            last = Some(h);
        }
    }
    n
}

/// Merges two sorted group lists, adding the counts of equal groups.
fn merge_sorted(a: &[(u64, u64)], b: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let next = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                i += 1;
                j += 1;
                (x.0, x.1 + y.1)
            }
            (Some(x), Some(y)) if x.0 < y.0 => {
                i += 1;
                *x
            }
            (Some(x), None) => {
                i += 1;
                *x
            }
            (_, Some(y)) => {
                j += 1;
                *y
            }
            (None, None) => break,
        };
        out.push(next);
    }
    out
}

impl Sketch {
    /// An empty sketch of at most [`DEFAULT_MAX_GROUPS`] distinct keys.
    pub fn new() -> Sketch {
        Sketch {
            max_groups: DEFAULT_MAX_GROUPS,
            level: 0,
            counts: Vec::new(),
            pending: Vec::new(),
            missing: 0,
        }
    }

    /// An empty sketch of at most `max_groups` distinct keys (at least 1).
    pub fn with_max_groups(max_groups: usize) -> Result<Sketch> {
        if max_groups == 0 {
            return Err(Error::invalid("a sketch needs room for one group"));
        }
        Ok(Sketch {
            max_groups,
            ..Sketch::new()
        })
    }

    /// Counts `x` (NaN: a missing value).
    pub fn add(&mut self, x: f64) {
        if x.is_nan() {
            self.missing += 1;
            return;
        }
        self.pending.push(key(x));
        if self.pending.len() >= self.max_groups.max(1024) {
            self.fold();
        }
    }

    /// Counts every value of `xs`.
    pub fn add_all(&mut self, xs: &[f64]) {
        for &x in xs {
            self.add(x);
        }
    }

    /// Adds the values `other` counted (the same cap).
    pub fn merge(&mut self, other: &Sketch) -> Result<()> {
        if other.max_groups != self.max_groups {
            return Err(Error::invalid(format!(
                "sketches of different caps ({} and {}) cannot be merged",
                self.max_groups, other.max_groups
            )));
        }
        let other = other.settled();
        self.fold();
        self.raise(other.level);
        let by = self.level - other.level;
        let theirs: Vec<(u64, u64)> = match by {
            0 => other.counts,
            _ => regroup(&other.counts, by),
        };
        self.counts = merge_sorted(&self.counts, &theirs);
        self.missing += other.missing;
        self.settle();
        Ok(())
    }

    /// Rows counted, missing values included.
    pub fn rows(&self) -> u64 {
        self.missing + self.pending.len() as u64 + self.counts.iter().map(|c| c.1).sum::<u64>()
    }

    /// Missing values counted.
    pub fn missing(&self) -> u64 {
        self.missing
    }

    /// Values counted, missing ones included, or `None` when the counts
    /// of a sketch read from a file overflow.
    pub fn counted(&self) -> Option<u64> {
        (self.counts.iter().map(|c| c.1))
            .try_fold(self.missing, |a, b| a.checked_add(b))?
            .checked_add(self.pending.len() as u64)
    }

    /// The sketch as one of at most `max_groups` groups would hold the same
    /// values: settled, then moved to the smallest level at which its
    /// groups fit the smaller cap (a cap above its own changes nothing).
    pub fn coarsened(&self, max_groups: usize) -> Sketch {
        let mut s = self.settled();
        if max_groups >= 1 && max_groups < s.max_groups {
            s.max_groups = max_groups;
            s.settle();
        }
        s
    }

    /// Checks a sketch read from a file: a cap from 1 to `max_groups`, a
    /// level of at most 64, no pending values, groups in increasing order,
    /// each within its level's range and counting at least one value, no
    /// more groups than the cap.
    pub fn check(&self, max_groups: usize) -> Result<()> {
        let bad = |m: &str| Err(Error::invalid(format!("a malformed sketch: {m}")));
        if self.max_groups == 0 || self.max_groups > max_groups {
            return bad(&format!(
                "a cap of {} groups, not 1 to {max_groups}",
                self.max_groups
            ));
        }
        if self.level > 64 || !self.pending.is_empty() || self.counts.len() > self.max_groups {
            return bad("its level, pending values or group count are out of range");
        }
        let top = u64::MAX.checked_shr(self.level).unwrap_or(0);
        let ordered = self.counts.windows(2).all(|w| w[0].0 < w[1].0);
        if !ordered || self.counts.iter().any(|&(g, n)| g > top || n == 0) {
            return bad("groups out of order, out of range or empty");
        }
        Ok(())
    }

    /// Whether every distinct value has a group of its own.
    pub fn exact(&self) -> bool {
        self.settled().level == 0
    }

    /// The sketch with every value folded in, at the smallest level, from
    /// its own, whose groups fit the cap: the level of the rows, however
    /// they were split (module doc).
    pub fn settled(&self) -> Sketch {
        let mut s = self.clone();
        s.fold();
        s
    }

    /// Folds the pending keys into the counts, then settles.
    fn fold(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let mut keys = std::mem::take(&mut self.pending);
        for k in keys.iter_mut() {
            *k = group(*k, self.level);
        }
        super::sort::radix_sort(&mut keys);
        let mut runs: Vec<(u64, u64)> = Vec::new();
        for k in keys {
            match runs.last_mut() {
                Some(last) if last.0 == k => last.1 += 1,
                _ => runs.push((k, 1)),
            }
        }
        self.counts = merge_sorted(&self.counts, &runs);
        self.settle();
    }

    /// Moves to the smallest level at or above its own whose groups fit
    /// the cap (the group count falls as the level rises: a binary search,
    /// each step one scan of the sorted groups).
    fn settle(&mut self) {
        if self.counts.len() <= self.max_groups {
            return;
        }
        let (mut lo, mut hi) = (1u32, 64 - self.level);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if groups_at(&self.counts, mid) <= self.max_groups {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        self.raise(self.level + lo);
    }

    /// Regroups at `level` when it is above the sketch's.
    fn raise(&mut self, level: u32) {
        if level <= self.level {
            return;
        }
        self.counts = regroup(&self.counts, level - self.level);
        self.level = level;
    }

    /// The groups of the [settled](Sketch::settled) sketch, lowest first,
    /// each as a value standing for it (at level 0 the value itself, above
    /// the middle of its key range) and its count; missing values left out.
    pub fn groups(&self) -> Vec<(f64, u64)> {
        let s = self.settled();
        (s.counts.iter())
            .map(|&(g, n)| {
                let mid = match s.level {
                    0 => unkey(g),
                    64.. => 0.5,
                    l => unkey((g << l) | (1u64 << (l - 1))),
                };
                (mid, n)
            })
            .collect()
    }

    /// The largest value of group `g` (the value itself at level 0).
    fn top(&self, g: u64) -> f64 {
        let last = match self.level {
            0 => g,
            64.. => u64::MAX,
            s => (g << s) | ((1u64 << s) - 1),
        };
        let x = unkey(last);
        if x.is_nan() {
            // Past infinity in the key order: the range ends at infinity.
            if last >> 63 == 1 {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            }
        } else {
            x
        }
    }
}

/// Sorted groups `by` levels up (still sorted: the shift keeps the order).
fn regroup(counts: &[(u64, u64)], by: u32) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(counts.len());
    for &(g, n) in counts {
        let h = group(g, by);
        match out.last_mut() {
            Some(last) if last.0 == h => last.1 += n,
            _ => out.push((h, n)),
        }
    }
    out
}

/// One bin's shares and its term of the PSI.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BinShift {
    /// The bin: `(-inf, 0.25]`, `(0.25, 0.5]`, a level, `(unseen)` or
    /// `(missing)`.
    pub bin: String,
    /// Its share of the reference's rows.
    pub reference: f64,
    /// Its share of the current rows.
    pub current: f64,
    /// `(c - r) ln(c / r)` with the floored shares.
    pub psi: f64,
}

/// The drift of a numeric column.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NumericDrift {
    /// The population stability index over the reference's quantile bins.
    pub psi: f64,
    /// The Kolmogorov-Smirnov statistic of the non-missing values (NaN when
    /// a side has none).
    pub ks: f64,
    /// The bin edges (the reference's quantiles, repeated ones kept once).
    pub edges: Vec<f64>,
    /// Every bin, in order, the missing bin last when there is one.
    pub bins: Vec<BinShift>,
    /// Whether the edges, counts and KS statistic are exact (both sketches
    /// below their cap).
    pub exact: bool,
}

/// The PSI of bins counted `r` in the reference and `c` currently, and each
/// bin's shares and term (labels from `label`).
fn psi_of(r: &[u64], c: &[u64], label: impl Fn(usize) -> String) -> (f64, Vec<BinShift>) {
    let (nr, nc) = (r.iter().sum::<u64>(), c.iter().sum::<u64>());
    let share = |n: u64, of: u64| if of == 0 { 0.0 } else { n as f64 / of as f64 };
    let mut total = 0.0;
    let bins = (0..r.len())
        .map(|i| {
            let (a, b) = (share(r[i], nr), share(c[i], nc));
            let (fa, fb) = (a.max(PSI_FLOOR), b.max(PSI_FLOOR));
            let term = (fb - fa) * (fb / fa).ln();
            total += term;
            BinShift {
                bin: label(i),
                reference: a,
                current: b,
                psi: term,
            }
        })
        .collect();
    (total, bins)
}

/// A bin edge for reading: six significant digits (the edges themselves
/// are [`NumericDrift::edges`]).
fn readable(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    let rounded: f64 = format!("{x:.5e}").parse().unwrap_or(x);
    format!("{}", rounded + 0.0)
}

/// The numeric drift from `reference` to `current` over `bins` quantile
/// bins (at least 2).
pub fn numeric_drift(reference: &Sketch, current: &Sketch, bins: usize) -> Result<NumericDrift> {
    if bins < 2 {
        return Err(Error::invalid(format!(
            "bins = {bins}: a drift needs at least 2 bins"
        )));
    }
    let (mut r, mut c) = (reference.settled(), current.settled());
    let level = r.level.max(c.level);
    r.raise(level);
    c.raise(level);
    let n = r.counts.iter().map(|c| c.1).sum::<u64>();
    // Edge i: the group holding the ceil(i n / B)-th smallest value.
    let mut edges: Vec<u64> = Vec::with_capacity(bins - 1);
    if n > 0 {
        let (mut cum, mut it) = (0u64, r.counts.iter().peekable());
        for i in 1..bins as u64 {
            let rank = (i as u128 * n as u128).div_ceil(bins as u128) as u64;
            while let Some(&&(g, m)) = it.peek() {
                if cum + m >= rank {
                    if edges.last() != Some(&g) {
                        edges.push(g);
                    }
                    break;
                }
                cum += m;
                it.next();
            }
        }
    }
    let count_in = |s: &Sketch| {
        let mut out = vec![0u64; edges.len() + 1];
        for &(g, m) in &s.counts {
            out[edges.partition_point(|&e| e < g)] += m;
        }
        out
    };
    let (mut rc, mut cc) = (count_in(&r), count_in(&c));
    let tops: Vec<f64> = edges.iter().map(|&g| r.top(g)).collect();
    let with_missing = r.missing + c.missing > 0;
    if with_missing {
        rc.push(r.missing);
        cc.push(c.missing);
    }
    let label = |i: usize| match i {
        _ if with_missing && i == rc.len() - 1 => "(missing)".to_string(),
        _ => {
            let lo = if i == 0 {
                f64::NEG_INFINITY
            } else {
                tops[i - 1]
            };
            let hi = tops.get(i).copied().unwrap_or(f64::INFINITY);
            let close = if hi.is_infinite() { ")" } else { "]" };
            format!("({}, {}{close}", readable(lo), readable(hi))
        }
    };
    let (psi, bins) = psi_of(&rc, &cc, label);
    Ok(NumericDrift {
        psi,
        ks: ks_of(&r, &c),
        edges: tops,
        bins,
        exact: level == 0,
    })
}

/// `sup |F_r - F_c|` over the groups of two sketches at one level.
fn ks_of(r: &Sketch, c: &Sketch) -> f64 {
    let (nr, nc) = (r.rows() - r.missing, c.rows() - c.missing);
    if nr == 0 || nc == 0 {
        return f64::NAN;
    }
    let (mut a, mut b) = (r.counts.iter().peekable(), c.counts.iter().peekable());
    let (mut ca, mut cb, mut d) = (0u64, 0u64, 0.0f64);
    loop {
        let g = match (a.peek(), b.peek()) {
            (Some(&&(x, _)), Some(&&(y, _))) => x.min(y),
            (Some(&&(x, _)), None) => x,
            (None, Some(&&(y, _))) => y,
            (None, None) => return d,
        };
        if let Some(&(_, m)) = a.next_if(|&&(x, _)| x == g) {
            ca += m;
        }
        if let Some(&(_, m)) = b.next_if(|&&(y, _)| y == g) {
            cb += m;
        }
        // Exact in integers before the one division each side.
        d = d.max((ca as f64 / nr as f64 - cb as f64 / nc as f64).abs());
    }
}

/// Mergeable counts of a categorical column by the model's level codes,
/// with the rows of levels it does not know and the missing ones.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct LevelCounts {
    /// Rows per level code.
    pub levels: Vec<u64>,
    /// Rows of a level the model does not know.
    pub unseen: u64,
    /// Rows without a value.
    pub missing: u64,
}

impl LevelCounts {
    /// No rows, `k` levels.
    pub fn new(k: usize) -> LevelCounts {
        LevelCounts {
            levels: vec![0; k],
            ..LevelCounts::default()
        }
    }

    /// Adds the counts of `other` (the same levels).
    pub fn merge(&mut self, other: &LevelCounts) -> Result<()> {
        if other.levels.len() != self.levels.len() {
            return Err(Error::invalid(format!(
                "level counts of {} and {} levels cannot be merged",
                self.levels.len(),
                other.levels.len()
            )));
        }
        for (a, b) in self.levels.iter_mut().zip(&other.levels) {
            *a += b;
        }
        self.unseen += other.unseen;
        self.missing += other.missing;
        Ok(())
    }

    fn bins(&self, unseen: bool, missing: bool) -> Vec<u64> {
        let mut out = self.levels.clone();
        out.extend(unseen.then_some(self.unseen));
        out.extend(missing.then_some(self.missing));
        out
    }
}

/// The PSI of a categorical column over its levels (`names`, one per code),
/// the unseen bin and the missing bin (each present when either side has
/// rows in it).
pub fn level_drift(
    reference: &LevelCounts,
    current: &LevelCounts,
    names: &[String],
) -> Result<(f64, Vec<BinShift>)> {
    let k = names.len();
    if reference.levels.len() != k || current.levels.len() != k {
        return Err(Error::invalid(format!(
            "level counts of {} and {} levels for {k} level names",
            reference.levels.len(),
            current.levels.len()
        )));
    }
    let unseen = reference.unseen + current.unseen > 0;
    let missing = reference.missing + current.missing > 0;
    let (r, c) = (
        reference.bins(unseen, missing),
        current.bins(unseen, missing),
    );
    Ok(psi_of(&r, &c, |i| match i {
        _ if i < k => names[i].clone(),
        _ if i == k && unseen => "(unseen)".into(),
        _ => "(missing)".into(),
    }))
}

/// The [`MOVERS`] bins of largest PSI term, largest first (ties by bin
/// order).
pub fn movers(bins: &[BinShift]) -> Vec<BinShift> {
    let mut order: Vec<usize> = (0..bins.len()).collect();
    order.sort_by(|&a, &b| bins[b].psi.total_cmp(&bins[a].psi).then(a.cmp(&b)));
    order
        .into_iter()
        .take(MOVERS)
        .filter(|&i| bins[i].psi > 0.0)
        .map(|i| bins[i].clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sketch(xs: &[f64], cap: usize) -> Sketch {
        let mut s = Sketch::with_max_groups(cap).unwrap();
        s.add_all(xs);
        s
    }

    #[test]
    fn identical_samples_do_not_drift_and_a_shift_does() {
        let xs: Vec<f64> = (0..1000).map(|i| f64::from(i) / 10.0).collect();
        let same = numeric_drift(&sketch(&xs, 1 << 16), &sketch(&xs, 1 << 16), 10).unwrap();
        assert_eq!((same.psi, same.ks, same.edges.len()), (0.0, 0.0, 9));
        assert_eq!(same.edges[0], 9.9); // the 100th smallest value
        let moved: Vec<f64> = xs.iter().map(|x| x + 30.0).collect();
        let d = numeric_drift(&sketch(&xs, 1 << 16), &sketch(&moved, 1 << 16), 10).unwrap();
        assert!((d.ks - 0.3).abs() < 1e-12, "{}", d.ks);
        assert_eq!(Status::of(d.psi), Status::Drifted);
        assert_eq!(movers(&d.bins)[0].bin, "(-inf, 9.9]"); // emptied: 0.1 -> 0
    }

    #[test]
    fn the_level_does_not_depend_on_the_split_or_the_merge_order() {
        let xs: Vec<f64> = (0..5000)
            .map(|i| (f64::from(i) * 0.7548).sin() * 1e3)
            .collect();
        let whole = sketch(&xs, 100);
        assert!(!whole.exact());
        for parts in [2, 3, 7] {
            let mut pieces: Vec<Sketch> = xs
                .chunks(xs.len().div_ceil(parts))
                .map(|c| sketch(c, 100))
                .collect();
            pieces.reverse();
            let mut m = Sketch::with_max_groups(100).unwrap();
            for p in &pieces {
                m.merge(p).unwrap();
            }
            assert_eq!(m.settled(), whole.settled(), "{parts} parts");
        }
        // A coarse sketch still bins and tests; its KS is near the exact one.
        let other: Vec<f64> = xs.iter().map(|x| x * 1.1).collect();
        let exact = numeric_drift(&sketch(&xs, 1 << 16), &sketch(&other, 1 << 16), 10).unwrap();
        let coarse = numeric_drift(&whole, &sketch(&other, 100), 10).unwrap();
        assert!(exact.exact && !coarse.exact);
        assert!(
            (exact.ks - coarse.ks).abs() < 0.05,
            "{} {}",
            exact.ks,
            coarse.ks
        );
    }

    #[test]
    fn levels_unseen_and_missing_are_bins_of_their_own() {
        let names = vec!["a".to_string(), "b".into()];
        let r = LevelCounts {
            levels: vec![50, 50],
            unseen: 0,
            missing: 0,
        };
        let c = LevelCounts {
            levels: vec![50, 30],
            unseen: 10,
            missing: 10,
        };
        let (psi, bins) = level_drift(&r, &c, &names).unwrap();
        let labels: Vec<&str> = bins.iter().map(|b| b.bin.as_str()).collect();
        assert_eq!(labels, ["a", "b", "(unseen)", "(missing)"]);
        let term = |r: f64, c: f64| (c - r) * (c / r).ln();
        let want = term(0.5, 0.5) + term(0.5, 0.3) + 2.0 * term(PSI_FLOOR, 0.1);
        assert!((psi - want).abs() < 1e-15, "{psi} {want}");
        assert!(level_drift(&r, &LevelCounts::new(3), &names).is_err());
        assert!(numeric_drift(&Sketch::new(), &Sketch::new(), 1).is_err());
    }
}
