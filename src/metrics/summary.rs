//! The metrics of `rarity score` from a summary that many machines can
//! build apart and merge: for a binary task, the histogram of distinct
//! positive-class probabilities with their numbers of negative and positive
//! rows.
//!
//! Every binary metric of [`score_report`](super::score_report) is a
//! function of the multiset of (true class, probability) pairs, so a summary
//! holding that multiset as counts gives the same report whichever rows each
//! part saw and in whatever order the parts are merged: ROC AUC, average
//! precision and the trapezoidal PR AUC walk the distinct scores from the
//! highest down exactly as the one-table computation does
//! ([`ranking`](super::ranking), the same integer counts); the confusion
//! counts at the threshold (positive iff `p >= threshold`, Dal Pozzolo et
//! al. 2015's Bayes rule) give the thresholded metrics through the
//! catalogue's own functions; the Brier score, log loss, stratified Brier,
//! ECE and Murphy's reliability / resolution / uncertainty are sums over the
//! groups. Sums are added in another order than the row order of the
//! one-table report, so those values agree to the last few bits (1e-12 is
//! far more than the gap); the ranking and confusion metrics are
//! identical.
//!
//! The summary's size is the number of distinct probabilities: a forest of
//! `n` trees gives at most a few thousand; a continuous model up to one per
//! row (then its memory is that of the scores themselves).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::calibration::uniform_bin_of;
use super::catalogue::{reported, Definition, Tunable, ECE_BINS};
use super::probability::MURPHY_BINS;
use super::ranking::{ranking_of, ScoreGroups};
use super::sort::{key, unkey};
use super::{check_len, check_unit, BinaryCounts, Confusion};
use crate::{Error, Result};

/// Distinct positive-class probabilities of a binary task with the numbers
/// of negative and positive rows scoring each, and the threshold of the
/// thresholded metrics.
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
    /// Order-preserving key of the probability -> [negatives, positives].
    groups: BTreeMap<u64, [u64; 2]>,
}

impl BinarySummary {
    /// An empty summary whose thresholded metrics decide positive iff
    /// `p >= threshold` (`threshold` in `[0, 1]`, as `rarity score
    /// --threshold`).
    pub fn new(threshold: f64) -> Result<Self> {
        if !(0.0..=1.0).contains(&threshold) {
            return Err(Error::invalid(format!(
                "the threshold must lie in [0, 1], got {threshold}"
            )));
        }
        Ok(BinarySummary {
            threshold,
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
        for (&t, &q) in truth.iter().zip(p) {
            self.groups.entry(key(q)).or_default()[t as usize] += 1;
        }
        Ok(())
    }

    /// Adds the rows of `other` (same threshold).
    pub fn merge(&mut self, other: &BinarySummary) -> Result<()> {
        if other.threshold != self.threshold {
            return Err(Error::invalid(format!(
                "cannot merge summaries at thresholds {} and {}",
                self.threshold, other.threshold
            )));
        }
        for (k, c) in &other.groups {
            let g = self.groups.entry(*k).or_default();
            g[0] += c[0];
            g[1] += c[1];
        }
        Ok(())
    }

    /// Rows summarised.
    pub fn rows(&self) -> u64 {
        self.n_pos() + self.n_neg()
    }

    /// Distinct probabilities (the summary's size).
    pub fn distinct(&self) -> usize {
        self.groups.len()
    }

    /// Each distinct probability with its negative and positive rows,
    /// ascending.
    fn groups(&self) -> impl Iterator<Item = (f64, f64, f64)> + '_ {
        self.groups
            .iter()
            .map(|(k, c)| (unkey(*k), c[0] as f64, c[1] as f64))
    }

    /// The confusion counts at the threshold.
    fn confusion(&self) -> BinaryCounts {
        let mut c = BinaryCounts::default();
        for (k, g) in &self.groups {
            if unkey(*k) >= self.threshold {
                c.fp += g[0];
                c.tp += g[1];
            } else {
                c.tn += g[0];
                c.fn_ += g[1];
            }
        }
        c
    }

    /// Per equal-width bin of `bins`: rows, sum of probabilities, positives.
    fn binned(&self, bins: usize) -> Result<Vec<(f64, f64, f64)>> {
        let bin = uniform_bin_of(bins)?;
        let mut out = vec![(0.0, 0.0, 0.0); bins];
        for (p, neg, pos) in self.groups() {
            let b = &mut out[bin(p)];
            b.0 += neg + pos;
            b.1 += (neg + pos) * p;
            b.2 += pos;
        }
        Ok(out)
    }

    /// Expected calibration error over [`ECE_BINS`] uniform bins.
    fn ece(&self, n: f64) -> Result<f64> {
        Ok(self
            .binned(ECE_BINS)?
            .iter()
            .filter(|b| b.0 > 0.0)
            .map(|&(c, sum, hits)| c / n * (hits / c - sum / c).abs())
            .sum())
    }

    /// Murphy's reliability, resolution and uncertainty over
    /// [`MURPHY_BINS`] bins.
    fn murphy(&self, n: f64) -> Result<[f64; 3]> {
        let bins = self.binned(MURPHY_BINS)?;
        let base = bins.iter().map(|b| b.2).sum::<f64>() / n;
        let (mut reliability, mut resolution) = (0.0, 0.0);
        for &(c, sum, hits) in bins.iter().filter(|b| b.0 > 0.0) {
            let (f, o) = (sum / c, hits / c);
            reliability += c * (f - o) * (f - o);
            resolution += c * (o - base) * (o - base);
        }
        Ok([reliability / n, resolution / n, base * (1.0 - base)])
    }

    /// Every metric of `rarity score` for these rows, as
    /// [`score_report`](super::score_report) gives them for a binary task
    /// (same keys, same order).
    pub fn report(&self) -> Result<Vec<(String, f64)>> {
        let n = self.rows() as f64;
        if n == 0.0 {
            return Err(Error::data("nothing to score: there are no rows"));
        }
        let ranking = ranking_of(self);
        let counts = self.confusion();
        let confusion = Confusion::from_binary(counts);
        let eps = f64::EPSILON;
        let (mut log_loss, mut brier_neg, mut brier_pos) = (0.0, 0.0, 0.0);
        for (p, neg, pos) in self.groups() {
            brier_neg += neg * p * p;
            brier_pos += pos * (1.0 - p) * (1.0 - p);
            log_loss -=
                neg * (1.0 - p).clamp(eps, 1.0 - eps).ln() + pos * p.clamp(eps, 1.0 - eps).ln();
        }
        let brier = brier_neg + brier_pos;
        let [reliability, resolution, uncertainty] = self.murphy(n)?;
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
                ("ece", _) => self.ece(n)?,
                ("brier_reliability", _) => reliability,
                ("brier_resolution", _) => resolution,
                ("brier_uncertainty", _) => uncertainty,
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

impl ScoreGroups for BinarySummary {
    fn n_pos(&self) -> u64 {
        self.groups.values().map(|c| c[1]).sum()
    }

    fn n_neg(&self) -> u64 {
        self.groups.values().map(|c| c[0]).sum()
    }

    fn for_each_group(&self, mut f: impl FnMut(f64, u64, u64)) {
        for (k, c) in self.groups.iter().rev() {
            f(unkey(*k), c[1], c[0]);
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
        let truth = p
            .iter()
            .map(|&q| u32::from(r.random::<f64>() < q * 0.8 + 0.05))
            .collect();
        (truth, p)
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
        let empty = BinarySummary::new(0.5).unwrap();
        assert!(empty.report().unwrap_err().to_string().contains("no rows"));
    }
}
