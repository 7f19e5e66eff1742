//! Alert-budget metrics: what an investigation team that can review only
//! some alerts sees. Binary; the score is the positive class's probability.
//!
//! - **precision_at_k(k=K)**, **recall_at_k(k=K)**: precision and recall
//!   among the `K` highest scores (Manning, Raghavan & Schütze 2008,
//!   Sec. 8.4, "precision at k").
//! - **recall_at_alert_rate(rate=R)**: recall among the top
//!   `K = ceil(R n)` scores of `n` rows (a budget relative to the volume;
//!   `R n` within 1e-9 of a whole number counts as that number).
//! - **recall_at_precision(p=P)**: the largest recall over thresholds whose
//!   precision is at least `P`; **precision_at_recall(r=R)**: the largest
//!   precision over thresholds whose recall is at least `R`. The thresholds
//!   are the points of scikit-learn's `precision_recall_curve` (each
//!   distinct score, a row alerted iff its score is at least the
//!   threshold), without its final `(precision 1, recall 0)` point, which no
//!   threshold attains.
//!
//! Ties at the `K`-th score: the top `K` holds every row scored above it
//! and, of the `t` rows tied with it, the `K - above` still to fill, each
//! tied row counted `(K - above) / t` of a row: the expected counts under a
//! random order of the tied rows, which depend on neither the row order nor
//! a tie-breaking rule (so precision at `K` may be fractional).
//!
//! Undefined values are `NaN`, as the other metrics' ([`super`]): `K`
//! larger than the rows, recall without a positive row, a precision target
//! no threshold reaches.

use super::check_len;
use crate::{Error, Result};

/// The precision-recall curve as cumulative counts, highest score first.
#[derive(Debug, Clone)]
pub struct Curve {
    /// `(tp, alerts)` after each distinct score, descending.
    points: Vec<(u64, u64)>,
    /// Positive rows.
    positives: u64,
}

impl Curve {
    /// The curve of `scores` against `truth` (class 1 positive); an error on
    /// empty or mismatched input and non-finite scores.
    pub fn new(truth: &[u32], scores: &[f64]) -> Result<Curve> {
        check_len(truth.len(), scores.len(), "scores")?;
        if let Some(i) = scores.iter().position(|s| !s.is_finite()) {
            return Err(Error::data(format!(
                "score of row {} is {}; scores must be finite numbers",
                i + 1,
                scores[i]
            )));
        }
        let mut order: Vec<usize> = (0..scores.len()).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        let mut points: Vec<(u64, u64)> = Vec::new();
        let (mut tp, mut alerts) = (0u64, 0u64);
        for (j, &i) in order.iter().enumerate() {
            tp += u64::from(truth[i] == 1);
            alerts += 1;
            let last_of_tie = order
                .get(j + 1)
                .is_none_or(|&next| scores[next] != scores[i]);
            if last_of_tie {
                points.push((tp, alerts));
            }
        }
        Ok(Curve {
            points,
            positives: tp,
        })
    }

    fn rows(&self) -> u64 {
        self.points.last().map_or(0, |p| p.1)
    }

    /// Expected positives among the `k` highest scores (ties shared, see the
    /// module doc); `None` when `k` is 0 or above the rows.
    fn positives_at(&self, k: u64) -> Option<f64> {
        if k == 0 || k > self.rows() {
            return None;
        }
        let g = self.points.partition_point(|p| p.1 < k);
        let (tp_above, above) = if g == 0 { (0, 0) } else { self.points[g - 1] };
        let (tp_end, end) = self.points[g];
        let tied = (end - above) as f64;
        Some(tp_above as f64 + (tp_end - tp_above) as f64 * (k - above) as f64 / tied)
    }

    /// Precision among the `k` highest scores.
    pub fn precision_at_k(&self, k: u64) -> f64 {
        self.positives_at(k).map_or(f64::NAN, |tp| tp / k as f64)
    }

    /// Recall among the `k` highest scores (`NaN` without positives).
    pub fn recall_at_k(&self, k: u64) -> f64 {
        match self.positives_at(k) {
            Some(tp) if self.positives > 0 => tp / self.positives as f64,
            _ => f64::NAN,
        }
    }

    /// Recall among the top `ceil(rate n)` scores.
    pub fn recall_at_alert_rate(&self, rate: f64) -> f64 {
        self.recall_at_k(alert_budget(rate, self.rows()))
    }

    /// The largest recall over thresholds with precision at least `p`.
    pub fn recall_at_precision(&self, p: f64) -> f64 {
        self.best(|tp, alerts| {
            (self.positives > 0 && tp as f64 / alerts as f64 >= p)
                .then(|| tp as f64 / self.positives as f64)
        })
    }

    /// The largest precision over thresholds with recall at least `r`.
    pub fn precision_at_recall(&self, r: f64) -> f64 {
        self.best(|tp, alerts| {
            (self.positives > 0 && tp as f64 / self.positives as f64 >= r)
                .then(|| tp as f64 / alerts as f64)
        })
    }

    /// The largest value of `f` over the curve's points, `NaN` if `f` is
    /// defined at none.
    fn best(&self, f: impl Fn(u64, u64) -> Option<f64>) -> f64 {
        self.points
            .iter()
            .filter_map(|&(tp, alerts)| f(tp, alerts))
            .fold(f64::NAN, f64::max)
    }
}

/// The alerts `ceil(rate n)` a rate allows among `n` rows (`rate n` within
/// 1e-9 of a whole number is that number: `0.01 x 300` is 3 alerts, not 4).
///
/// ```
/// use rarity::metrics::budget::alert_budget;
/// assert_eq!(alert_budget(0.01, 300), 3);
/// assert_eq!(alert_budget(0.01, 250), 3);
/// ```
pub fn alert_budget(rate: f64, n: u64) -> u64 {
    let x = rate * n as f64;
    let whole = x.round();
    (if (x - whole).abs() < 1e-9 {
        whole
    } else {
        x.ceil()
    }) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_k_shares_ties_and_is_nan_past_the_rows() {
        // Scores 0.9 (pos), 0.5 (pos), 0.5 (neg), 0.5 (neg), 0.1 (pos).
        let c = Curve::new(&[1, 1, 0, 0, 1], &[0.9, 0.5, 0.5, 0.5, 0.1]).unwrap();
        assert_eq!(c.precision_at_k(1), 1.0);
        // Top 2: the 0.9 row and 1/3 of the tied rows' one positive.
        assert!((c.precision_at_k(2) - (1.0 + 1.0 / 3.0) / 2.0).abs() < 1e-15);
        assert_eq!(c.precision_at_k(4), 0.5);
        assert_eq!(c.recall_at_k(5), 1.0);
        assert!(c.precision_at_k(6).is_nan());
        assert!(c.precision_at_k(0).is_nan());
    }

    #[test]
    fn targets_no_threshold_reaches_are_nan() {
        let c = Curve::new(&[0, 1, 0, 1], &[0.9, 0.8, 0.7, 0.1]).unwrap();
        assert!(c.recall_at_precision(0.6).is_nan());
        assert_eq!(c.recall_at_precision(0.5), 1.0);
        assert_eq!(c.precision_at_recall(1.0), 0.5);
        let none = Curve::new(&[0, 0], &[0.2, 0.1]).unwrap();
        assert!(none.recall_at_k(1).is_nan() && none.precision_at_recall(0.1).is_nan());
    }
}
