//! The metrics of `rarity score` from a summary that many machines can
//! build apart and merge, in bounded memory: for a binary task, a histogram
//! of positive-class probabilities with, per group, the numbers of negative
//! and positive rows and the sums the probability metrics need.
//!
//! **Exact while small.** A group is keyed by the order-preserving key of
//! the probability (`metrics::sort::key`) and by its *segment*: its
//! [`ECE_BINS`] bin, its [`MURPHY_BINS`] bin and its side of the threshold.
//! Each segment is an interval of probabilities, so the segment is a
//! function of the probability and at level 0 there is one group per
//! distinct probability: every metric of [`score_report`](super::score_report)
//! is then a function of the groups. ROC AUC, average precision and the
//! trapezoidal PR AUC walk the groups from the highest down exactly as the
//! one-table computation does ([`ranking`](super::ranking), the same
//! integer counts); the confusion counts at the threshold (positive iff
//! `p >= threshold`, Dal Pozzolo et al. 2015's Bayes rule) give the
//! thresholded metrics through the catalogue's own functions; the Brier
//! score, log loss, stratified Brier, ECE and Murphy's reliability /
//! resolution / uncertainty / within-bin terms are sums kept per group.
//!
//! **Bounded.** When the groups outnumber the cap (`max_groups`, default
//! 2^16), the summary moves to the next *level*: level `s` keys a group by
//! `(key >> s, segment)`, so one more level merges neighbouring keys. A group
//! keeps every sum the non-ranking metrics need (rows per class, the sum of
//! `p`, the Brier terms and the log-loss terms per class) and lies inside one
//! calibration bin and on one side of the threshold, so the confusion
//! counts, Brier, log loss, stratified Brier, ECE and Murphy's decomposition
//! stay exact at any level. The ranking metrics treat a group as tied
//! scores; the Mann-Whitney count of a group's own (negative, positive)
//! pairs is then `1/2` each where the truth is 0, 1/2 or 1, so the ROC AUC is
//! off by at most `sum_g neg_g pos_g / (2 N P)`, which the report gives as
//! `roc_auc_bin_error` (0 at level 0, where ties are real), with
//! `ranking_exact` (1 at level 0, else 0). `metrics::ranges` computes the
//! exact ranking metrics of sorted ranges when they are needed.
//!
//! **The level does not depend on how the rows were split.** Write `G_s(A)`
//! for the number of groups of a multiset `A` of rows at level `s`. Since a
//! level-`s+1` group is a function of the level-`s` group, `G_{s+1}(A) <=
//! G_s(A)`, and a part has no more groups than the whole: `G_s(A) <=
//! G_s(M)` for `A` within `M`. Let `L(M)` be the smallest `s` with
//! `G_s(M) <= cap`. A summary moves from level `s` to `s + 1` only when
//! its own rows have `G_s > cap`, so `G_s(M) > cap` and `L(M) > s`: every
//! summary of rows of `M`, whatever rows it holds, is at a level `<= L(M)`.
//! Merging brings both to the higher level and moves up one level at a time
//! while over the cap, so the merged summary is at the smallest level `>=`
//! both inputs' at which its rows fit. Once every row of `M` is merged in,
//! that level `l` has `G_l(M) <= cap`, so `l >= L(M)`; with `l <= L(M)`,
//! `l = L(M)`: the same level, hence the same groups with the same counts,
//! for any partitioning and any merge order (tested for 1, 3 and 7 parts
//! merged in several orders). At level 64 every key is 0 and the groups
//! are the segments, at most `ECE_BINS + MURPHY_BINS + 1`, below the
//! smallest cap accepted, so the climb always ends.
//!
//! Sums are added in another order than the row order of the one-table
//! report, so those values agree to the last few bits (1e-12 is far more
//! than the gap); the counts, and at level 0 the ranking metrics, are
//! identical.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::calibration::uniform_bin_of;
use super::catalogue::{reported, Definition, Tunable, ECE_BINS};
use super::probability::MURPHY_BINS;
use super::ranking::{ranking_of, RankSums, ScoreGroups};
use super::sort::{key, unkey};
use super::{check_len, check_unit, BinaryCounts, Confusion};
use crate::{Error, Result};

/// The default cap on a summary's groups.
pub const DEFAULT_MAX_GROUPS: usize = 1 << 16;

/// The smallest cap accepted: above the number of segments, so that the
/// coarsest level (every key 0) always fits.
pub const MIN_MAX_GROUPS: usize = 64;
const _: () = assert!(ECE_BINS + MURPHY_BINS + 1 < MIN_MAX_GROUPS);

/// Bits of a group id below the key: the segment.
const SEGMENT_BITS: u32 = 16;
const _: () = assert!(ECE_BINS * MURPHY_BINS * 2 <= 1 << SEGMENT_BITS);

/// The order-preserving key of a probability as a signed 64-bit integer
/// (Spark's `long`): `a < b` iff `score_key(a) < score_key(b)`, and `-0.0`
/// has the key of `0.0`.
pub fn score_key(p: f64) -> i64 {
    (key(p) ^ (1 << 63)) as i64
}

/// The probability of a [`score_key`].
pub fn key_score(k: i64) -> f64 {
    unkey(k as u64 ^ (1 << 63))
}

/// One group's rows and sums.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
struct Group {
    /// Negative and positive rows.
    n: [u64; 2],
    /// The sum of the probabilities of its rows.
    p: f64,
    /// The sum of the probabilities of its positive rows (Murphy's
    /// within-bin covariance; absent from summaries written before it, which
    /// then report it as `NaN`).
    #[serde(default = "unknown")]
    p_pos: f64,
    /// Brier terms: `p^2` summed over the negatives, `(1 - p)^2` over the
    /// positives.
    brier: [f64; 2],
    /// Log-loss terms: `-ln(1 - p)` over the negatives, `-ln p` over the
    /// positives (clamped to `[eps, 1 - eps]` as `rarity score`).
    log_loss: [f64; 2],
}

impl Group {
    fn add(&mut self, other: &Group) {
        for c in 0..2 {
            self.n[c] += other.n[c];
            self.brier[c] += other.brier[c];
            self.log_loss[c] += other.log_loss[c];
        }
        self.p += other.p;
        self.p_pos += other.p_pos;
    }
}

/// The value of a sum a summary did not keep.
fn unknown() -> f64 {
    f64::NAN
}

/// A probability histogram of a binary task with the numbers of negative
/// and positive rows and the probability sums of each group, and the
/// threshold of the thresholded metrics (see the module doc for the
/// levels).
///
/// ```
/// use rarity::data::Proba;
/// use rarity::metrics::{score_report, summary::BinarySummary};
/// let (t, p) = ([0, 1, 1, 0, 1, 0], [0.12, 0.18, 0.71, 0.74, 0.77, 0.05]);
/// let (mut a, mut b) = (BinarySummary::new(0.5).unwrap(), BinarySummary::new(0.5).unwrap());
/// a.add(&t[..3], &p[..3]).unwrap();
/// b.add(&t[3..], &p[3..]).unwrap();
/// a.merge(&b).unwrap();
/// let whole = score_report(&t, &Proba::from_positive(&p), 0.5, &[]).unwrap();
/// let merged = a.report().unwrap();
/// assert_eq!(merged[0], whole[0]); // ROC AUC, from the same counts
/// for ((k, x), (_, y)) in merged.iter().zip(&whole) {
///     assert!((x - y).abs() < 1e-12, "{k}");
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BinarySummary {
    threshold: f64,
    max_groups: usize,
    /// Bits dropped from the keys (0..=64).
    level: u32,
    /// `(key >> level) << SEGMENT_BITS | segment` -> the group.
    groups: BTreeMap<u128, Group>,
}

impl BinarySummary {
    /// An empty summary whose thresholded metrics decide positive iff
    /// `p >= threshold` (`threshold` in `[0, 1]`, as `rarity score
    /// --threshold`), holding at most [`DEFAULT_MAX_GROUPS`] groups.
    pub fn new(threshold: f64) -> Result<Self> {
        Self::with_max_groups(threshold, DEFAULT_MAX_GROUPS)
    }

    /// An empty summary holding at most `max_groups` groups (at least
    /// [`MIN_MAX_GROUPS`]).
    pub fn with_max_groups(threshold: f64, max_groups: usize) -> Result<Self> {
        if !(0.0..=1.0).contains(&threshold) {
            return Err(Error::invalid(format!(
                "the threshold must lie in [0, 1], got {threshold}"
            )));
        }
        if max_groups < MIN_MAX_GROUPS {
            return Err(Error::invalid(format!(
                "max_groups must be at least {MIN_MAX_GROUPS}, got {max_groups}"
            )));
        }
        Ok(BinarySummary {
            threshold,
            max_groups,
            level: 0,
            groups: BTreeMap::new(),
        })
    }

    /// Adds rows: their classes (0 or 1) and positive-class probabilities.
    pub fn add(&mut self, truth: &[u32], p: &[f64]) -> Result<()> {
        if truth.is_empty() && p.is_empty() {
            return Ok(());
        }
        check_len(truth.len(), p.len(), "probabilities")?;
        check_unit(p)?;
        if let Some(i) = truth.iter().position(|&t| t > 1) {
            return Err(Error::data(format!(
                "row {}: label {} is not one of the 2 classes 0..1",
                i + 1,
                truth[i]
            )));
        }
        let ece = uniform_bin_of(ECE_BINS)?;
        let murphy = uniform_bin_of(MURPHY_BINS)?;
        let eps = f64::EPSILON;
        for (&t, &q) in truth.iter().zip(p) {
            let q = q + 0.0;
            let segment = (ece(q) * MURPHY_BINS + murphy(q)) * 2 + usize::from(q >= self.threshold);
            let id = (u128::from(key(q)) >> self.level) << SEGMENT_BITS | segment as u128;
            let g = self.groups.entry(id).or_default();
            let c = t as usize;
            g.n[c] += 1;
            g.p += q;
            if c == 1 {
                g.p_pos += q;
                g.brier[1] += (1.0 - q) * (1.0 - q);
                g.log_loss[1] -= q.clamp(eps, 1.0 - eps).ln();
            } else {
                g.brier[0] += q * q;
                g.log_loss[0] -= (1.0 - q).clamp(eps, 1.0 - eps).ln();
            }
            if self.groups.len() > self.max_groups {
                self.fit_cap();
            }
        }
        Ok(())
    }

    /// Adds rows given by their classes and the [`score_key`]s of their
    /// probabilities.
    pub fn add_keys(&mut self, truth: &[u32], keys: &[i64]) -> Result<()> {
        let p: Vec<f64> = keys.iter().map(|&k| key_score(k)).collect();
        self.add(truth, &p)
    }

    /// Moves up a level while there are more groups than the cap.
    fn fit_cap(&mut self) {
        while self.groups.len() > self.max_groups && self.level < 64 {
            self.coarsen_to(self.level + 1);
        }
    }

    /// Merges the groups into those of level `level` (>= the current one).
    fn coarsen_to(&mut self, level: u32) {
        let d = level - self.level;
        let old = std::mem::take(&mut self.groups);
        for (id, g) in &old {
            self.groups.entry(coarser(*id, d)).or_default().add(g);
        }
        self.level = level;
    }

    /// Adds the rows of `other` (same threshold and cap).
    pub fn merge(&mut self, other: &BinarySummary) -> Result<()> {
        if other.threshold != self.threshold || other.max_groups != self.max_groups {
            return Err(Error::invalid(format!(
                "cannot merge summaries at thresholds {} and {} with at most {} and {} groups",
                self.threshold, other.threshold, self.max_groups, other.max_groups
            )));
        }
        if other.level > self.level {
            self.coarsen_to(other.level);
        }
        let d = self.level - other.level;
        for (id, g) in &other.groups {
            self.groups.entry(coarser(*id, d)).or_default().add(g);
        }
        self.fit_cap();
        Ok(())
    }

    /// Rows summarised.
    pub fn rows(&self) -> u64 {
        self.n_pos() + self.n_neg()
    }

    /// Groups held (the summary's size): at level 0, the distinct
    /// probabilities.
    pub fn distinct(&self) -> usize {
        self.groups.len()
    }

    /// Bits dropped from the probabilities' keys: 0 while every distinct
    /// probability has its own group.
    pub fn level(&self) -> u32 {
        self.level
    }

    /// Whether the ranking metrics are exact (level 0), and the bound on the
    /// ROC AUC's error that treating each group as ties allows, `sum_g
    /// neg_g pos_g / (2 N P)` (0 at level 0): the keys `ranking_exact` (1 or
    /// 0) and `roc_auc_bin_error`.
    pub fn ranking_bounds(&self) -> Vec<(String, f64)> {
        let exact = self.level == 0;
        let tied: u128 = self
            .groups
            .values()
            .map(|g| u128::from(g.n[0]) * u128::from(g.n[1]))
            .sum();
        let bound = if exact {
            0.0
        } else {
            tied as f64 / (2.0 * self.n_pos() as f64 * self.n_neg() as f64)
        };
        vec![
            ("ranking_exact".to_string(), f64::from(u8::from(exact))),
            ("roc_auc_bin_error".to_string(), bound),
        ]
    }

    /// [`BinarySummary::report_ranked`] followed by the keys of
    /// [`BinarySummary::ranking_bounds`] (with `ranking`, the exact sums,
    /// `ranking_exact` is 1 and `roc_auc_bin_error` 0).
    pub fn report_with_bounds(&self, ranking: Option<&RankSums>) -> Result<Vec<(String, f64)>> {
        let mut out = self.report_ranked(ranking)?;
        if ranking.is_some() {
            out.push(("ranking_exact".to_string(), 1.0));
            out.push(("roc_auc_bin_error".to_string(), 0.0));
        } else {
            out.extend(self.ranking_bounds());
        }
        Ok(out)
    }

    /// Sums over the rows summarised of the squared error `(y - p)^2` and
    /// of the positive rows' log-loss terms `-ln p` (clamped as
    /// [`super::probability::log_loss`] clamps): what a one-vs-rest
    /// summary adds to a multiclass score ([`super::multiclass_summary`]).
    pub fn sums(&self) -> (f64, f64) {
        let (mut brier, mut log_loss) = (0.0, 0.0);
        for g in self.groups.values() {
            brier += g.brier[0] + g.brier[1];
            log_loss += g.log_loss[1];
        }
        (brier, log_loss)
    }

    /// Negative and positive rows summarised.
    pub fn class_rows(&self) -> [u64; 2] {
        [self.n_neg(), self.n_pos()]
    }

    /// The confusion counts at the threshold.
    fn confusion(&self) -> BinaryCounts {
        let mut c = BinaryCounts::default();
        for (id, g) in &self.groups {
            if id & 1 == 1 {
                c.fp += g.n[0];
                c.tp += g.n[1];
            } else {
                c.tn += g.n[0];
                c.fn_ += g.n[1];
            }
        }
        c
    }

    /// Per Murphy bin: the sum of squared probabilities and of the
    /// probabilities of the positives (`sum (1 - p)^2 = n+ - 2 sum p +
    /// sum p^2` over the positives gives their squares).
    fn binned_squares(&self) -> Vec<(f64, f64)> {
        let mut out = vec![(0.0, 0.0); MURPHY_BINS];
        for (id, g) in &self.groups {
            let segment = (id & ((1 << SEGMENT_BITS) - 1)) as usize / 2;
            let b = &mut out[segment % MURPHY_BINS];
            b.0 += g.brier[0] + g.brier[1] - g.n[1] as f64 + 2.0 * g.p_pos;
            b.1 += g.p_pos;
        }
        out
    }

    /// Per bin of the calibration metrics (`ECE_BINS` bins if `ece`, else
    /// `MURPHY_BINS`): rows, sum of probabilities, positives.
    fn binned(&self, ece: bool) -> Vec<(f64, f64, f64)> {
        let mut out = vec![(0.0, 0.0, 0.0); if ece { ECE_BINS } else { MURPHY_BINS }];
        for (id, g) in &self.groups {
            let segment = (id & ((1 << SEGMENT_BITS) - 1)) as usize / 2;
            let bin = if ece {
                segment / MURPHY_BINS
            } else {
                segment % MURPHY_BINS
            };
            let b = &mut out[bin];
            b.0 += (g.n[0] + g.n[1]) as f64;
            b.1 += g.p;
            b.2 += g.n[1] as f64;
        }
        out
    }

    /// The reliability table over the [`MURPHY_BINS`] equal-width bins of
    /// Murphy's decomposition: per bin, its rows, their mean probability
    /// and their positive share (NaN for an empty bin).
    pub fn reliability(&self) -> Vec<(u64, f64, f64)> {
        self.binned(false)
            .into_iter()
            .map(|(c, sum, hits)| match c > 0.0 {
                true => (c as u64, sum / c, hits / c),
                false => (0, f64::NAN, f64::NAN),
            })
            .collect()
    }

    /// Expected calibration error over [`ECE_BINS`] uniform bins.
    fn ece(&self, n: f64) -> f64 {
        self.binned(true)
            .iter()
            .filter(|b| b.0 > 0.0)
            .map(|&(c, sum, hits)| c / n * (hits / c - sum / c).abs())
            .sum()
    }

    /// Murphy's reliability, resolution, uncertainty, within-bin variance
    /// and within-bin covariance over [`MURPHY_BINS`] bins.
    fn murphy(&self, n: f64) -> [f64; 5] {
        let bins = self.binned(false);
        let squares = self.binned_squares();
        let base = bins.iter().map(|b| b.2).sum::<f64>() / n;
        let (mut reliability, mut resolution) = (0.0, 0.0);
        let (mut wbv, mut wbc) = (0.0, 0.0);
        for (&(c, sum, hits), &(sq, sum_pos)) in bins.iter().zip(&squares).filter(|b| b.0 .0 > 0.0)
        {
            let (f, o) = (sum / c, hits / c);
            reliability += c * (f - o) * (f - o);
            resolution += c * (o - base) * (o - base);
            // sum (p - f)^2 and 2 sum (y - o)(p - f) over the bin's rows.
            wbv += sq - c * f * f;
            wbc += 2.0 * (sum_pos - o * sum);
        }
        [
            reliability / n,
            resolution / n,
            base * (1.0 - base),
            wbv / n,
            wbc / n,
        ]
    }

    /// Every metric of `rarity score` for these rows, as
    /// [`score_report`](super::score_report) gives them for a binary task
    /// (same keys, same order); past level 0 the ranking metrics treat each
    /// group as ties ([`BinarySummary::ranking_bounds`]).
    pub fn report(&self) -> Result<Vec<(String, f64)>> {
        self.report_ranked(None)
    }

    /// [`BinarySummary::report`] with the ranking metrics from `ranking`
    /// (the exact sums of every group of tied scores, `metrics::ranges`)
    /// when given.
    pub fn report_ranked(&self, ranking: Option<&RankSums>) -> Result<Vec<(String, f64)>> {
        let n = self.rows() as f64;
        if n == 0.0 {
            return Err(Error::data("nothing to score: there are no rows"));
        }
        let ranking = match ranking {
            Some(r) => r.scores(self.n_pos(), self.n_neg()),
            None => ranking_of(self),
        };
        let counts = self.confusion();
        let confusion = Confusion::from_binary(counts);
        let (mut log_loss, mut brier_neg, mut brier_pos) = (0.0, 0.0, 0.0);
        for g in self.groups.values() {
            brier_neg += g.brier[0];
            brier_pos += g.brier[1];
            log_loss += g.log_loss[0] + g.log_loss[1];
        }
        let brier = brier_neg + brier_pos;
        let [reliability, resolution, uncertainty, wbv, wbc] = self.murphy(n);
        let mut out = Vec::new();
        for m in reported() {
            let v = match (m.key, m.definition) {
                ("roc_auc", _) => ranking.roc_auc,
                ("average_precision", _) => ranking.average_precision,
                ("pr_auc_trapezoid", _) => ranking.pr_auc_trapezoid,
                ("brier", _) => brier / n,
                ("log_loss", _) => log_loss / n,
                ("brier_positive", _) => brier_pos / self.n_pos() as f64,
                ("brier_negative", _) => brier_neg / self.n_neg() as f64,
                ("ece", _) => self.ece(n),
                ("brier_reliability", _) => reliability,
                ("brier_resolution", _) => resolution,
                ("brier_uncertainty", _) => uncertainty,
                ("brier_within_bin_variance", _) => wbv,
                ("brier_within_bin_covariance", _) => wbc,
                ("tp", _) => counts.tp as f64,
                ("fp", _) => counts.fp as f64,
                ("tn", _) => counts.tn as f64,
                ("fn", _) => counts.fn_ as f64,
                (_, Definition::Rate(f)) => f(&counts),
                (_, Definition::Confusion(f)) => f(&confusion),
                (_, Definition::Count(f)) => f(&counts) as f64,
                (_, Definition::Split { .. }) => match m.tunable {
                    Some(Tunable::Counts { binary, .. }) => binary(&counts),
                    _ => continue,
                },
                _ => continue,
            };
            out.push((m.key.to_string(), v));
        }
        Ok(out)
    }
}

/// The id of the group `d` levels up that holds group `id`.
fn coarser(id: u128, d: u32) -> u128 {
    (id >> SEGMENT_BITS >> d) << SEGMENT_BITS | (id & ((1 << SEGMENT_BITS) - 1))
}

impl ScoreGroups for BinarySummary {
    fn n_pos(&self) -> u64 {
        self.groups.values().map(|g| g.n[1]).sum()
    }

    fn n_neg(&self) -> u64 {
        self.groups.values().map(|g| g.n[0]).sum()
    }

    fn for_each_group(&self, mut f: impl FnMut(f64, u64, u64)) {
        for g in self.groups.values().rev() {
            let rows = g.n[0] + g.n[1];
            f(g.p / rows as f64, g.n[1], g.n[0]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Proba;
    use crate::metrics::score_report;
    use rand::RngExt;

    /// Rows with many ties (probabilities on a grid, as a forest gives),
    /// the edges 0 and 1, and values on the bins' edges.
    fn rows(n: usize, seed: u64) -> (Vec<u32>, Vec<f64>) {
        let mut r = crate::rng::stream(seed, 0);
        let p: Vec<f64> = (0..n)
            .map(|i| match i % 7 {
                0 => 0.0,
                1 => 1.0,
                2 => 0.1 * f64::from(r.random_range(0..=10u32)),
                _ => f64::from(r.random_range(0..=100u32)) / 100.0,
            })
            .collect();
        (truth_for(&p, seed), p)
    }

    /// Classes drawn with probability about `p` (a calibrated-ish model).
    fn truth_for(p: &[f64], seed: u64) -> Vec<u32> {
        let mut r = crate::rng::stream(seed, 1);
        p.iter()
            .map(|&q| u32::from(r.random::<f64>() < q * 0.8 + 0.05))
            .collect()
    }

    fn report_of_parts(truth: &[u32], p: &[f64], parts: usize, t: f64) -> Vec<(String, f64)> {
        let mut whole = BinarySummary::new(t).unwrap();
        let size = truth.len().div_ceil(parts);
        // Merged in reverse order: the result does not depend on it.
        for (tc, pc) in truth.chunks(size).zip(p.chunks(size)).rev() {
            let mut s = BinarySummary::new(t).unwrap();
            s.add(tc, pc).unwrap();
            whole.merge(&s).unwrap();
        }
        whole.report().unwrap()
    }

    #[test]
    fn merged_parts_give_the_one_table_report() {
        for (seed, t) in [(1, 0.5), (2, 0.3), (3, 0.0), (4, 1.0)] {
            let (truth, p) = rows(5000, seed);
            let want = score_report(&truth, &Proba::from_positive(&p), t, &[]).unwrap();
            for parts in [1, 3, 16] {
                let got = report_of_parts(&truth, &p, parts, t);
                let keys: Vec<&String> = got.iter().map(|(k, _)| k).collect();
                let want_keys: Vec<&String> = want.iter().map(|(k, _)| k).collect();
                assert_eq!(keys, want_keys);
                for ((k, x), (_, y)) in got.iter().zip(&want) {
                    let exact = k.contains("roc")
                        || k.contains("precision")
                        || k.contains("pr_")
                        || matches!(
                            k.as_str(),
                            "accuracy"
                                | "tp"
                                | "fp"
                                | "tn"
                                | "fn"
                                | "tpr"
                                | "tnr"
                                | "ppv"
                                | "npv"
                                | "fpr"
                                | "fdr"
                                | "f1"
                                | "g_mean"
                                | "macro_accuracy"
                                | "macro_f1"
                        );
                    if exact {
                        assert_eq!(x.to_bits(), y.to_bits(), "{k}: {x} vs {y}");
                    } else {
                        assert!((x - y).abs() <= 1e-12, "{k}: {x} vs {y}");
                    }
                }
            }
        }
    }

    /// Rows with continuous probabilities (one distinct value per row, as a
    /// boosted model gives), some ties, and the threshold itself.
    fn continuous(n: usize, seed: u64, t: f64) -> (Vec<u32>, Vec<f64>) {
        let mut r = crate::rng::stream(seed, 0);
        let p: Vec<f64> = (0..n)
            .map(|i| match i % 11 {
                0 => t,
                1 => 0.25,
                _ => r.random::<f64>().powi(3),
            })
            .collect();
        (truth_for(&p, seed), p)
    }

    /// Summaries of `parts` consecutive slices, cap `cap`.
    fn parts_of(truth: &[u32], p: &[f64], parts: usize, t: f64, cap: usize) -> Vec<BinarySummary> {
        let size = truth.len().div_ceil(parts);
        truth
            .chunks(size)
            .zip(p.chunks(size))
            .map(|(tc, pc)| {
                let mut s = BinarySummary::with_max_groups(t, cap).unwrap();
                s.add(tc, pc).unwrap();
                s
            })
            .collect()
    }

    fn get(r: &[(String, f64)], k: &str) -> f64 {
        r.iter().find(|(n, _)| n == k).unwrap().1
    }

    #[test]
    fn a_capped_summary_keeps_every_non_ranking_metric_exact_and_bounds_the_auc() {
        for (seed, t, cap) in [(5, 0.5, 64), (6, 0.3, 300), (7, 0.07, 1000)] {
            let (truth, p) = continuous(20_000, seed, t);
            let want = score_report(&truth, &Proba::from_positive(&p), t, &[]).unwrap();
            let mut s = BinarySummary::with_max_groups(t, cap).unwrap();
            for part in parts_of(&truth, &p, 5, t, cap) {
                s.merge(&part).unwrap();
            }
            assert!(
                s.level() > 0 && s.distinct() <= cap,
                "{} {}",
                s.level(),
                s.distinct()
            );
            let got = s.report().unwrap();
            let bounds = s.ranking_bounds();
            assert_eq!(bounds[0], ("ranking_exact".to_string(), 0.0));
            let bound = bounds[1].1;
            assert!(bound > 0.0 && bound < 0.05, "{bound}");
            for ((k, x), (k2, y)) in got.iter().zip(&want) {
                assert_eq!(k, k2);
                match k.as_str() {
                    "roc_auc" => assert!((x - y).abs() <= bound, "{k}: {x} vs {y}, bound {bound}"),
                    "average_precision" | "pr_auc_trapezoid" => {
                        assert!((x - y).abs() < 0.05, "{k}: {x} vs {y}")
                    }
                    _ => assert!((x - y).abs() <= 1e-12, "{k}: {x} vs {y} (cap {cap})"),
                }
            }
            // The exact ranking sums make every key the one-table value.
            let mut sums = RankSums::default();
            let mut order: Vec<usize> = (0..p.len()).collect();
            order.sort_by(|&a, &b| p[b].total_cmp(&p[a]));
            let neg_pos = |rows: &[usize]| {
                let pos = rows.iter().filter(|&&i| truth[i] == 1).count() as u64;
                [rows.len() as u64 - pos, pos]
            };
            let n_pos = neg_pos(&order)[1];
            let mut above = [0u64; 2];
            for tied in order.chunk_by(|&a, &b| p[a] == p[b]) {
                let c = neg_pos(tied);
                sums.add_group(above, c, n_pos);
                above = [above[0] + c[0], above[1] + c[1]];
            }
            for ((k, x), (_, y)) in s.report_ranked(Some(&sums)).unwrap().iter().zip(&want) {
                assert!((x - y).abs() <= 1e-12, "{k}: {x} vs {y}");
            }
            assert_eq!(
                get(&s.report_ranked(Some(&sums)).unwrap(), "roc_auc"),
                get(&want, "roc_auc")
            );
        }
    }

    #[test]
    fn the_level_and_groups_do_not_depend_on_the_partitioning_or_the_merge_order() {
        let t = 0.4;
        let (truth, p) = continuous(12_000, 9, t);
        let mut whole = BinarySummary::with_max_groups(t, 200).unwrap();
        whole.add(&truth, &p).unwrap();
        let counts = |s: &BinarySummary| -> Vec<(u128, [u64; 2])> {
            s.groups.iter().map(|(id, g)| (*id, g.n)).collect()
        };
        let want = (whole.level(), counts(&whole), whole.report().unwrap());
        assert!(want.0 > 0);
        for parts in [1, 3, 7] {
            let summaries = parts_of(&truth, &p, parts, t, 200);
            let n = summaries.len();
            // In order, reversed, interleaved, and as a tree of pairs.
            let orders: Vec<Vec<usize>> = vec![
                (0..n).collect(),
                (0..n).rev().collect(),
                (0..n).step_by(2).chain((1..n).step_by(2)).collect(),
            ];
            let mut results = Vec::new();
            for order in orders {
                let mut s = BinarySummary::with_max_groups(t, 200).unwrap();
                for i in order {
                    s.merge(&summaries[i]).unwrap();
                }
                results.push(s);
            }
            let mut level: Vec<BinarySummary> = summaries.clone();
            while level.len() > 1 {
                level = level
                    .chunks(2)
                    .map(|c| {
                        let mut a = c[0].clone();
                        if let Some(b) = c.get(1) {
                            a.merge(b).unwrap();
                        }
                        a
                    })
                    .collect();
            }
            results.push(level.pop().unwrap());
            for s in &results {
                assert_eq!(s.level(), want.0, "{parts} parts");
                assert_eq!(counts(s), want.1, "{parts} parts");
                for ((k, x), (_, y)) in s.report().unwrap().iter().zip(&want.2) {
                    assert!((x - y).abs() <= 1e-12, "{k}: {x} vs {y}");
                }
            }
        }
    }

    #[test]
    fn undefined_metrics_stay_nan_and_bad_input_is_an_error() {
        let mut s = BinarySummary::new(0.5).unwrap();
        s.add(&[0, 0], &[0.2, 0.7]).unwrap();
        let r = s.report().unwrap();
        let get = |k: &str| r.iter().find(|(n, _)| n == k).unwrap().1;
        assert!(get("roc_auc").is_nan() && get("brier_positive").is_nan());
        assert!(s
            .add(&[0], &[1.5])
            .unwrap_err()
            .to_string()
            .contains("outside [0, 1]"));
        assert!(s
            .add(&[2], &[0.5])
            .unwrap_err()
            .to_string()
            .contains("label 2"));
        assert!(BinarySummary::new(1.5).is_err());
        let other = BinarySummary::new(0.3).unwrap();
        assert!(s
            .merge(&other)
            .unwrap_err()
            .to_string()
            .contains("thresholds"));
        let capped = BinarySummary::with_max_groups(0.5, 100).unwrap();
        assert!(s.merge(&capped).unwrap_err().to_string().contains("groups"));
        assert!(BinarySummary::with_max_groups(0.5, 10)
            .unwrap_err()
            .to_string()
            .contains("at least 64"));
        // A summary survives its bytes.
        let back: BinarySummary = serde_json::from_slice(&serde_json::to_vec(&s).unwrap()).unwrap();
        assert_eq!(back, s);
        let empty = BinarySummary::new(0.5).unwrap();
        assert!(empty.report().unwrap_err().to_string().contains("no rows"));
    }
}
