//! The metrics of `rarity score` on more than two classes from a summary
//! that many machines can build apart and merge, in bounded memory (what
//! `rarity monitor --label` counts for a multiclass model, issue 56): the
//! multiclass report of [`score_report`](super::score_report) is made of
//! binary problems, and each is one [`BinarySummary`] (whose merging does
//! not depend on how the rows were split):
//!
//! - **one vs rest**, per class `c`: the rows' probability of `c`, class `c`
//!   positive. Its ranking metrics are the macro averages' terms (ROC AUC,
//!   average precision, the trapezoidal PR AUC); its Murphy terms add up to
//!   the multiclass Brier decomposition ([`super::probability::murphy_multiclass`]);
//!   its squared errors add up to the multiclass Brier score, and its
//!   positive rows' log-loss terms to the log loss;
//! - **one against one**, per ordered pair `(a, b)`: the rows of classes `a`
//!   and `b`, their probability of `a`, class `a` positive. Its ROC AUC is
//!   Hand and Till's `A(a|b)`, and the mean over pairs of `(A(a|b) +
//!   A(b|a)) / 2` is their M ([`super::ranking::roc_auc_hand_till`]);
//! - **the confusion matrix** of the decided classes, from which every
//!   thresholded metric is read as the catalogue reads it (macro rates,
//!   accuracy, G-mean, macro F1).
//!
//! Each of the `k^2` summaries holds at most `DEFAULT_MAX_GROUPS / k`
//! groups, so the whole stays within `k` binary summaries' room. While
//! every summary is at level 0 the report equals the one-table report (the
//! sums agree to the last few bits, the counts exactly), and
//! `ranking_exact` is 1; beyond, the ranking metrics treat a group as ties
//! and `roc_auc_bin_error` is the mean of the one-vs-rest bounds (the bound
//! on the macro ROC AUC's error).

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::catalogue::{reported, Definition, Tunable};
use super::confusion::Average;
use super::ranking::ranking_of;
use super::summary::{BinarySummary, DEFAULT_MAX_GROUPS, MIN_MAX_GROUPS};
use super::{check_len, check_unit, Confusion};
use crate::{Error, Result};

/// A mergeable summary of labelled rows of `k > 2` classes (module doc).
///
/// ```
/// use rarity::data::Proba;
/// use rarity::metrics::multiclass_summary::MulticlassSummary;
/// use rarity::metrics::{report_with_labels, Confusion};
/// let p = Proba::new(vec![0.6, 0.3, 0.1, 0.2, 0.5, 0.3, 0.1, 0.6, 0.3, 0.3, 0.3, 0.4], 3);
/// let (truth, decided) = ([0, 1, 2, 2], [0, 1, 1, 2]);
/// let mut s = MulticlassSummary::new(3).unwrap();
/// s.add(&truth, p.values(), &decided).unwrap();
/// let (got, want) = (s.report().unwrap(), report_with_labels(&truth, &p, &decided, &[]).unwrap());
/// for (k, v) in &want {
///     let g = got.iter().find(|(n, _)| n == k).unwrap().1;
///     assert!((g - v).abs() < 1e-12 || (g.is_nan() && v.is_nan()), "{k}");
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MulticlassSummary {
    k: usize,
    /// Per class, one against the rest.
    ovr: Vec<BinarySummary>,
    /// Per ordered pair `(a, b)`, `a != b`, in row-major order without the
    /// diagonal: class `a` against class `b` on `a`'s probability.
    pairs: Vec<BinarySummary>,
    /// The confusion counts, true class by row, decided class by column.
    confusion: Vec<u64>,
    /// Per class, the sum of its probabilities in units of 2^-60: exact in
    /// any order, so the mean probability (and calibration in the large,
    /// whose z divides a small gap) is the same however the rows were split.
    p_sums: Vec<i128>,
}

/// The unit of [`MulticlassSummary`]'s probability sums.
const P_UNIT: f64 = (1u64 << 60) as f64;

impl MulticlassSummary {
    /// An empty summary of `k` classes (more than two).
    pub fn new(k: usize) -> Result<Self> {
        if k < 3 {
            return Err(Error::invalid(format!(
                "a multiclass summary needs at least 3 classes, got {k}"
            )));
        }
        let cap = (DEFAULT_MAX_GROUPS / k).max(MIN_MAX_GROUPS);
        let one = || BinarySummary::with_max_groups(0.5, cap);
        Ok(MulticlassSummary {
            k,
            ovr: (0..k).map(|_| one()).collect::<Result<_>>()?,
            pairs: (0..k * (k - 1)).map(|_| one()).collect::<Result<_>>()?,
            confusion: vec![0; k * k],
            p_sums: vec![0; k],
        })
    }

    /// The index in `pairs` of the ordered pair `(a, b)`.
    fn pair(&self, a: usize, b: usize) -> usize {
        a * (self.k - 1) + if b > a { b - 1 } else { b }
    }

    /// Adds rows: their true classes, their probability vectors (`k` values
    /// each, row after row, each in `[0, 1]`) and their decided classes.
    pub fn add(&mut self, truth: &[u32], proba: &[f64], decided: &[u32]) -> Result<()> {
        let k = self.k;
        check_len(truth.len() * k, proba.len(), "probabilities")?;
        check_len(truth.len(), decided.len(), "decided classes")?;
        check_unit(proba)?;
        if let Some(i) =
            (truth.iter().zip(decided)).position(|(&t, &d)| t as usize >= k || d as usize >= k)
        {
            return Err(Error::data(format!(
                "row {}: class {} is not one of the {k} classes 0..{}",
                i + 1,
                truth[i].max(decided[i]),
                k - 1
            )));
        }
        // Each summary on its own thread: its rows, in row order, are the
        // same at any thread count.
        self.ovr.par_iter_mut().enumerate().try_for_each(|(c, s)| {
            let t: Vec<u32> = truth.iter().map(|&t| u32::from(t as usize == c)).collect();
            let p: Vec<f64> = proba.iter().skip(c).step_by(k).copied().collect();
            s.add(&t, &p)
        })?;
        self.pairs
            .par_iter_mut()
            .enumerate()
            .try_for_each(|(at, s)| {
                let (a, b) = (at / (k - 1), at % (k - 1));
                let b = if b >= a { b + 1 } else { b };
                let (mut t, mut p) = (Vec::new(), Vec::new());
                for (i, &y) in truth.iter().enumerate() {
                    if y as usize == a || y as usize == b {
                        t.push(u32::from(y as usize == a));
                        p.push(proba[i * k + a]);
                    }
                }
                s.add(&t, &p)
            })?;
        for (&t, &d) in truth.iter().zip(decided) {
            self.confusion[t as usize * k + d as usize] += 1;
        }
        for row in proba.chunks(k) {
            for (sum, &p) in self.p_sums.iter_mut().zip(row) {
                *sum += (p * P_UNIT).round() as i128;
            }
        }
        Ok(())
    }

    /// Adds the rows of `other` (the same classes).
    pub fn merge(&mut self, other: &MulticlassSummary) -> Result<()> {
        if other.k != self.k {
            return Err(Error::invalid(format!(
                "summaries of {} and {} classes cannot be merged",
                self.k, other.k
            )));
        }
        for (a, b) in self.ovr.iter_mut().zip(&other.ovr) {
            a.merge(b)?;
        }
        for (a, b) in self.pairs.iter_mut().zip(&other.pairs) {
            a.merge(b)?;
        }
        (self.confusion.iter_mut().zip(&other.confusion)).for_each(|(a, b)| *a += b);
        (self.p_sums.iter_mut().zip(&other.p_sums)).for_each(|(a, b)| *a += b);
        Ok(())
    }

    /// Class `c`'s mean probability over the rows (to 2^-60 a row, the
    /// same for any split of them); NaN without rows.
    pub fn mean_probability(&self, c: usize) -> f64 {
        let sum = self.p_sums.get(c).map_or(f64::NAN, |&s| s as f64 / P_UNIT);
        sum / self.rows() as f64
    }

    /// Rows summarised.
    pub fn rows(&self) -> u64 {
        self.confusion.iter().sum()
    }

    /// Class `c`'s one-vs-rest summary (its reliability table, its rows).
    pub fn class(&self, c: usize) -> Option<&BinarySummary> {
        self.ovr.get(c)
    }

    /// The report of [`score_report`](super::score_report) on more than two
    /// classes (the same keys in the same order, the thresholded metrics
    /// of the decided classes), then `ranking_exact` and
    /// `roc_auc_bin_error` (module doc).
    pub fn report(&self) -> Result<Vec<(String, f64)>> {
        let n = self.rows() as f64;
        if n == 0.0 {
            return Err(Error::data("nothing to score: there are no rows"));
        }
        let ranking: Vec<_> = self.ovr.iter().map(ranking_of).collect();
        let mean = |f: &dyn Fn(usize) -> f64| (0..self.k).map(f).sum::<f64>() / self.k as f64;
        let (mut brier, mut log_loss) = (0.0, 0.0);
        let mut murphy = [0.0; 5];
        for s in &self.ovr {
            let (b, l) = s.sums();
            brier += b;
            log_loss += l;
            let terms = s.report()?;
            for (slot, key) in murphy.iter_mut().zip(MURPHY_KEYS) {
                *slot += terms
                    .iter()
                    .find(|(k, _)| k == key)
                    .map_or(f64::NAN, |t| t.1);
            }
        }
        let mut pairs = Vec::new();
        for a in 0..self.k {
            for b in a + 1..self.k {
                let ab = ranking_of(&self.pairs[self.pair(a, b)]).roc_auc;
                let ba = ranking_of(&self.pairs[self.pair(b, a)]).roc_auc;
                pairs.push((ab + ba) / 2.0);
            }
        }
        let hand_till = pairs.iter().sum::<f64>() / pairs.len() as f64;
        let confusion = Confusion::from_matrix(self.k, self.confusion.clone())?;
        let mut out = Vec::new();
        for m in reported().filter(|m| m.defined_for(self.k)) {
            let v = match (m.key, m.definition) {
                ("roc_auc", _) => mean(&|c| ranking[c].roc_auc),
                ("average_precision", _) => mean(&|c| ranking[c].average_precision),
                ("pr_auc_trapezoid", _) => mean(&|c| ranking[c].pr_auc_trapezoid),
                ("brier", _) => brier / n,
                ("log_loss", _) => log_loss / n,
                ("roc_auc_hand_till", _) => hand_till,
                (key, _) if MURPHY_KEYS.contains(&key) => {
                    murphy[MURPHY_KEYS.iter().position(|k| *k == key).unwrap_or(0)]
                }
                (_, Definition::Rate(f)) => confusion.average(f, Average::Macro),
                (_, Definition::Confusion(f)) => f(&confusion),
                (_, Definition::Split { .. }) => match m.tunable {
                    Some(Tunable::Counts {
                        multiclass: Some(f),
                        ..
                    }) => f(&confusion),
                    _ => continue,
                },
                _ => continue,
            };
            out.push((m.key.to_string(), v));
        }
        let exact = (self.ovr.iter().chain(&self.pairs)).all(|s| s.level() == 0);
        let bound = mean(&|c| {
            (self.ovr[c].ranking_bounds().iter())
                .find(|(k, _)| k == "roc_auc_bin_error")
                .map_or(f64::NAN, |b| b.1)
        });
        out.push(("ranking_exact".to_string(), f64::from(u8::from(exact))));
        out.push(("roc_auc_bin_error".to_string(), bound));
        Ok(out)
    }
}

/// The keys of the Brier decomposition's terms, summed over the classes.
const MURPHY_KEYS: [&str; 5] = [
    "brier_reliability",
    "brier_resolution",
    "brier_uncertainty",
    "brier_within_bin_variance",
    "brier_within_bin_covariance",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Proba;
    use crate::metrics::report_with_labels;
    use rand::RngExt;

    /// `n` rows of `k` classes: probability vectors on a grid (ties), the
    /// truth drawn near them, the decided class the argmax or, one row in
    /// five, another (a cost rule's).
    fn rows(n: usize, k: usize, seed: u64) -> (Vec<u32>, Vec<f64>, Vec<u32>) {
        let mut r = crate::rng::stream(seed, 0);
        let (mut truth, mut proba, mut decided) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..n {
            let w: Vec<f64> = (0..k)
                .map(|_| f64::from(r.random_range(1..=20u32)))
                .collect();
            let total: f64 = w.iter().sum();
            let p: Vec<f64> = w.iter().map(|x| x / total).collect();
            let u: f64 = r.random();
            let (mut acc, mut t) = (0.0, k - 1);
            for (c, q) in p.iter().enumerate() {
                acc += q;
                if u < acc {
                    t = c;
                    break;
                }
            }
            let arg = (0..k).fold(0, |b, c| if p[c] > p[b] { c } else { b });
            truth.push(t as u32);
            decided.push(if i % 5 == 0 {
                ((arg + 1) % k) as u32
            } else {
                arg as u32
            });
            proba.extend(p);
        }
        (truth, proba, decided)
    }

    fn close(got: &[(String, f64)], want: &[(String, f64)]) {
        let keys: Vec<&str> = got.iter().map(|g| g.0.as_str()).collect();
        let mut wanted: Vec<&str> = want.iter().map(|w| w.0.as_str()).collect();
        wanted.extend(["ranking_exact", "roc_auc_bin_error"]);
        assert_eq!(keys, wanted);
        for (k, v) in want {
            let g = got.iter().find(|(n, _)| n == k).unwrap().1;
            assert!(
                (g - v).abs() <= 1e-12 * v.abs().max(1.0) || (g.is_nan() && v.is_nan()),
                "{k}: {g} against {v}"
            );
        }
    }

    #[test]
    fn merged_parts_give_the_one_table_report() {
        for (k, seed) in [(3, 1), (4, 2), (6, 3)] {
            let (truth, proba, decided) = rows(3000, k, seed);
            let p = Proba::new(proba.clone(), k);
            let want = report_with_labels(&truth, &p, &decided, &[]).unwrap();
            for parts in [1, 3, 7] {
                let size = truth.len().div_ceil(parts);
                let mut whole = MulticlassSummary::new(k).unwrap();
                for c in (0..parts).rev() {
                    let (lo, hi) = (c * size, ((c + 1) * size).min(truth.len()));
                    let mut s = MulticlassSummary::new(k).unwrap();
                    s.add(&truth[lo..hi], &proba[lo * k..hi * k], &decided[lo..hi])
                        .unwrap();
                    whole.merge(&s).unwrap();
                }
                let got = whole.report().unwrap();
                close(&got, &want);
                assert_eq!(got[got.len() - 2].1, 1.0, "exact at level 0");
            }
        }
    }

    #[test]
    fn a_class_without_rows_makes_the_ranking_averages_nan() {
        let (truth, proba, decided) = rows(500, 3, 4);
        // Class 2 relabelled 1: no row of class 2 is left.
        let truth: Vec<u32> = truth.iter().map(|&t| t.min(1)).collect();
        let p = Proba::new(proba.clone(), 3);
        let want = report_with_labels(&truth, &p, &decided, &[]).unwrap();
        let mut s = MulticlassSummary::new(3).unwrap();
        s.add(&truth, &proba, &decided).unwrap();
        let got = s.report().unwrap();
        close(&got, &want);
        assert!(got[0].1.is_nan());
    }

    #[test]
    fn past_its_cap_it_says_the_ranking_is_not_exact() {
        // 200,000 distinct probability vectors: more than 65,536 / 3 groups.
        let k = 3;
        let n = 200_000;
        let mut r = crate::rng::stream(5, 0);
        let (mut truth, mut proba) = (Vec::new(), Vec::new());
        for _ in 0..n {
            let (a, b): (f64, f64) = (r.random(), r.random());
            let (lo, hi) = (a.min(b), a.max(b));
            proba.extend([lo, hi - lo, 1.0 - hi]);
            truth.push(r.random_range(0..3u32));
        }
        let decided: Vec<u32> = (0..n).map(|i| (i % 3) as u32).collect();
        let p = Proba::new(proba.clone(), k);
        let want = report_with_labels(&truth, &p, &decided, &[]).unwrap();
        let mut s = MulticlassSummary::new(k).unwrap();
        s.add(&truth, &proba, &decided).unwrap();
        let got = s.report().unwrap();
        let get = |v: &[(String, f64)], key: &str| v.iter().find(|(n, _)| n == key).unwrap().1;
        assert_eq!(get(&got, "ranking_exact"), 0.0);
        let bound = get(&got, "roc_auc_bin_error");
        assert!(bound > 0.0 && bound < 1e-3, "{bound}");
        assert!((get(&got, "roc_auc") - get(&want, "roc_auc")).abs() <= bound);
        // What the groups keep exactly at any level.
        for key in [
            "accuracy",
            "macro_f1",
            "g_mean",
            "brier",
            "log_loss",
            "brier_reliability",
        ] {
            assert!((get(&got, key) - get(&want, key)).abs() < 1e-12, "{key}");
        }
    }

    #[test]
    fn bad_rows_are_refused() {
        assert!(MulticlassSummary::new(2).is_err());
        let mut s = MulticlassSummary::new(3).unwrap();
        assert!(s
            .add(&[0, 3], &[0.2, 0.3, 0.5, 0.2, 0.3, 0.5], &[0, 0])
            .is_err());
        assert!(s.add(&[0], &[0.2, 0.3], &[0]).is_err());
        assert!(s.add(&[0], &[0.2, 1.3, 0.5], &[0]).is_err());
        assert!(s.report().is_err(), "no rows");
        assert!(s.merge(&MulticlassSummary::new(4).unwrap()).is_err());
    }
}
