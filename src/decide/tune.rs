//! Thresholds chosen from data: tuning on out-of-fold predictions, the ROC
//! point closest to (0, 1) (the lecture's alternate cut-off), and the "full
//! potential" diagnostic of Collell et al. (2018, Table 5).
//!
//! A binary threshold `t` labels a row positive iff `p >= t`. Candidates are
//! every distinct score plus the grid 0, 0.01, ..., 1 (the paper's grid); each
//! is evaluated in `O(log n)` from the scores sorted once. Among candidates
//! that tie for the best value the middle one (in threshold order) is chosen,
//! which keeps a tuned threshold away from the edge of a flat optimum.
//!
//! For multiclass tasks [`tune_lambdas`] does coordinate ascent on per-class
//! thresholds `lambda_k` (predict `argmax p_k / lambda_k`), starting from the
//! training priors (PT_MA).

use serde::{Deserialize, Serialize};

use crate::metrics::catalogue::{self, Metric, Tunable};

use super::Rule;
use crate::data::Proba;
use crate::error::{Error, Result};
use crate::metrics::confusion::{BinaryCounts, Confusion};
use crate::metrics::cost::LossMatrix;

/// What a threshold is chosen to optimise: a tunable metric of the
/// catalogue ([`crate::metrics::catalogue`]), or the mean cost under a loss
/// matrix (minimised).
#[derive(Debug, Clone)]
pub enum Objective {
    /// A tunable metric (maximised).
    Metric(&'static Metric),
    /// Mean cost under a loss matrix (minimised).
    Cost(LossMatrix),
}

impl PartialEq for Objective {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Objective::Metric(a), Objective::Metric(b)) => a.key == b.key,
            (Objective::Cost(a), Objective::Cost(b)) => a == b,
            _ => false,
        }
    }
}

impl Objective {
    /// The tunable metric `key`; an error naming the tunable ones otherwise.
    ///
    /// ```
    /// use rarity::decide::tune::Objective;
    /// assert!(Objective::metric("g_mean").is_ok());
    /// assert!(Objective::metric("roc_auc").unwrap_err().to_string().contains("f1"));
    /// ```
    pub fn metric(key: &str) -> Result<Objective> {
        Objective::of(catalogue::metric(key)?)
    }

    /// The tunable metric `m`; an error naming the tunable ones otherwise.
    /// `precision_at_k` and `recall_at_k` are not: they rank a fixed number
    /// of rows, which no threshold carries over to batches of other sizes
    /// (`recall_at_alert_rate(rate=R)` tunes the threshold of a budget
    /// relative to the rows).
    pub fn of(m: &'static Metric) -> Result<Objective> {
        if m.tunable.is_none() {
            let hint = if m.params.is_some() {
                " (it counts a fixed number of rows; recall_at_alert_rate(rate=R) \
                 tunes a budget relative to the rows)"
            } else {
                ""
            };
            return Err(Error::invalid(format!(
                "a threshold cannot be tuned for {}{hint}; tunable metrics: {}, cost",
                m.key,
                catalogue::tunable_keys().join(", ")
            )));
        }
        Ok(Objective::Metric(m))
    }

    /// The value to maximise for binary counts (cost is negated; `-inf`
    /// where a target is missed).
    fn binary_value(&self, c: &BinaryCounts) -> f64 {
        match self {
            Objective::Metric(m) => match m.tunable {
                Some(Tunable::Counts { binary, .. }) => binary(c),
                Some(Tunable::Target(f)) => f(c, m.param),
                None => f64::NAN,
            },
            Objective::Cost(m) => {
                let n = (c.tp + c.fp + c.fn_ + c.tn).max(1) as f64;
                -(c.tp as f64 * m.loss(1, 1)
                    + c.fp as f64 * m.loss(1, 0)
                    + c.fn_ as f64 * m.loss(0, 1)
                    + c.tn as f64 * m.loss(0, 0))
                    / n
            }
        }
    }

    /// The value to maximise for a multiclass confusion matrix.
    fn multiclass_value(&self, c: &Confusion) -> Result<f64> {
        Ok(match self {
            Objective::Metric(m) => match m.tunable {
                Some(Tunable::Counts {
                    multiclass: Some(f),
                    ..
                }) => f(c),
                _ => {
                    return Err(Error::invalid(format!(
                        "{} of one positive class is binary; use macro_f1 for multiclass",
                        m.key
                    )))
                }
            },
            Objective::Cost(m) => {
                let k = c.n_classes();
                let mut total = 0.0;
                for t in 0..k {
                    for p in 0..k {
                        total += c.count(t, p) as f64 * m.loss(p, t);
                    }
                }
                -total / c.total().max(1) as f64
            }
        })
    }

    /// Whether larger reported values are better (false for cost).
    pub fn higher_is_better(&self) -> bool {
        !matches!(self, Objective::Cost(_))
    }
}

/// Scores sorted once, with prefix counts, to count a threshold's confusion
/// matrix in `O(log n)`.
struct Sweep {
    sorted: Vec<f64>,
    /// `pos_below[i]` = positives among the `i` smallest scores.
    pos_below: Vec<u64>,
}

impl Sweep {
    fn new(truth: &[u32], p: &[f64]) -> Result<Sweep> {
        if truth.len() != p.len() || truth.is_empty() {
            return Err(Error::invalid(
                "threshold search needs one score per label and at least one row",
            ));
        }
        if p.iter().any(|v| !v.is_finite()) {
            return Err(Error::invalid("threshold search needs finite scores"));
        }
        let mut idx: Vec<usize> = (0..p.len()).collect();
        idx.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
        let mut pos_below = Vec::with_capacity(p.len() + 1);
        pos_below.push(0);
        for &i in &idx {
            pos_below.push(pos_below.last().unwrap() + u64::from(truth[i] == 1));
        }
        Ok(Sweep {
            sorted: idx.iter().map(|&i| p[i]).collect(),
            pos_below,
        })
    }

    fn counts(&self, t: f64) -> BinaryCounts {
        let n = self.sorted.len();
        let lo = self.sorted.partition_point(|&s| s < t);
        let pos = *self.pos_below.last().unwrap();
        let fn_ = self.pos_below[lo];
        let tn = lo as u64 - fn_;
        let tp = pos - fn_;
        let fp = (n - lo) as u64 - tp;
        BinaryCounts { tp, fp, fn_, tn }
    }

    /// Candidate thresholds: distinct scores and the 0.01 grid, ascending.
    fn candidates(&self) -> Vec<f64> {
        let mut c: Vec<f64> = (0..=100).map(|i| f64::from(i) / 100.0).collect();
        c.extend_from_slice(&self.sorted);
        c.sort_by(f64::total_cmp);
        c.dedup();
        c
    }
}

/// The best threshold for `objective` and its value (cost as a positive
/// mean cost). Binary only: `p` is the positive-class probability.
///
/// ```
/// use rarity::decide::tune::{best_threshold, Objective};
/// let truth = [0, 0, 0, 1, 1];
/// let p = [0.1, 0.2, 0.3, 0.35, 0.9];
/// let (t, f1) = best_threshold(&truth, &p, &Objective::metric("f1").unwrap()).unwrap();
/// assert_eq!(f1, 1.0);
/// assert!(t > 0.3 && t <= 0.35);
/// ```
pub fn best_threshold(truth: &[u32], p: &[f64], objective: &Objective) -> Result<(f64, f64)> {
    let sweep = Sweep::new(truth, p)?;
    let cands = sweep.candidates();
    let values: Vec<f64> = cands
        .iter()
        .map(|&t| objective.binary_value(&sweep.counts(t)))
        .collect();
    let best = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if best == f64::NEG_INFINITY {
        return Err(Error::invalid(match objective {
            Objective::Metric(m) => format!(
                "no threshold reaches the target of {} on these {} rows",
                m.key,
                p.len()
            ),
            Objective::Cost(_) => "no threshold has a finite cost".to_string(),
        }));
    }
    let ties: Vec<usize> = (0..cands.len()).filter(|&i| values[i] == best).collect();
    let pick = ties[ties.len() / 2];
    let value = if objective.higher_is_better() {
        best
    } else {
        -best
    };
    Ok((cands[pick], value))
}

/// The threshold whose ROC point `(FPR, TPR)` is closest to `(0, 1)`.
///
/// ```
/// use rarity::decide::tune::roc_closest;
/// // Any threshold in (0.3, 0.35] separates the classes perfectly.
/// let t = roc_closest(&[0, 0, 1, 1], &[0.1, 0.3, 0.35, 0.8]).unwrap();
/// assert!(t > 0.3 && t <= 0.35);
/// ```
pub fn roc_closest(truth: &[u32], p: &[f64]) -> Result<f64> {
    let sweep = Sweep::new(truth, p)?;
    let cands = sweep.candidates();
    let dist: Vec<f64> = cands
        .iter()
        .map(|&t| {
            let c = sweep.counts(t);
            (1.0 - c.tpr()).powi(2) + c.fpr().powi(2)
        })
        .collect();
    let best = dist.iter().copied().fold(f64::INFINITY, f64::min);
    let ties: Vec<usize> = (0..cands.len()).filter(|&i| dist[i] == best).collect();
    Ok(cands[ties[ties.len() / 2]])
}

/// A thresholded metric as achieved and at its best threshold.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FullPotential {
    /// The value with the rule actually used.
    pub achieved: f64,
    /// The best value over all thresholds (the paper's "full potential").
    pub best: f64,
    /// The threshold attaining `best`.
    pub threshold: f64,
}

/// The full potential of a binary thresholded metric: the best value over
/// the grid 0, 0.01, ..., 1 and all distinct scores (for evaluation only;
/// never use it to choose a model's threshold on test data).
pub fn full_potential(
    truth: &[u32],
    p: &[f64],
    objective: &Objective,
    achieved: f64,
) -> Result<FullPotential> {
    let (threshold, best) = best_threshold(truth, p, objective)?;
    Ok(FullPotential {
        achieved,
        best,
        threshold,
    })
}

/// Per-class thresholds maximising `objective` on (out-of-fold) predictions,
/// by coordinate ascent from the `priors` (PT_MA). Returns the lambdas.
///
/// Each round tries, for every class in turn, its current lambda scaled by
/// 2^(j/4) for j = -12..=12, keeping the best (ties keep the current value).
/// Three rounds.
pub fn tune_lambdas(
    truth: &[u32],
    proba: &Proba,
    priors: &[f64],
    objective: &Objective,
) -> Result<Vec<f64>> {
    let k = proba.n_classes();
    if priors.len() != k || truth.len() != proba.n_rows() {
        return Err(Error::invalid(
            "tune_lambdas: shapes of truth, probabilities and priors disagree",
        ));
    }
    Rule::priors(priors)?; // validates: every class present
    let mut lambdas = priors.to_vec();
    let score = |l: &[f64]| -> Result<f64> {
        let labels = Rule::Lambda(l.to_vec()).decide(proba, None)?;
        objective.multiclass_value(&Confusion::from_labels(truth, &labels, k)?)
    };
    let mut best = score(&lambdas)?;
    for _round in 0..3 {
        for c in 0..k {
            let base = lambdas[c];
            for j in -12..=12 {
                if j == 0 {
                    continue;
                }
                let mut trial = lambdas.clone();
                trial[c] = base * 2f64.powf(f64::from(j) / 4.0);
                let v = score(&trial)?;
                if v > best {
                    best = v;
                    lambdas = trial;
                }
            }
        }
    }
    Ok(lambdas)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: evaluate a threshold by labelling every row.
    fn direct(truth: &[u32], p: &[f64], t: f64) -> BinaryCounts {
        let pred: Vec<u32> = p.iter().map(|&v| u32::from(v >= t)).collect();
        Confusion::from_labels(truth, &pred, 2)
            .unwrap()
            .one_vs_rest(1)
    }

    #[test]
    fn sweep_counts_match_direct_labelling() {
        use rand::RngExt;
        let mut rng = crate::rng::stream(4, 0);
        let truth: Vec<u32> = (0..500)
            .map(|_| u32::from(rng.random::<f64>() < 0.1))
            .collect();
        let p: Vec<f64> = (0..500)
            .map(|_| (rng.random::<f64>() * 20.0).round() / 20.0)
            .collect();
        let s = Sweep::new(&truth, &p).unwrap();
        for t in s.candidates() {
            assert_eq!(s.counts(t), direct(&truth, &p, t), "t = {t}");
        }
    }

    #[test]
    fn targets_tune_the_constrained_optimum_or_say_none_is_reached() {
        let truth = [0, 1, 0, 1, 1, 0, 0, 0, 1, 0];
        let p = [0.1, 0.7, 0.4, 0.45, 0.9, 0.5, 0.2, 0.05, 0.3, 0.6];
        let obj = Objective::metric("recall_at_precision(p=0.6)").unwrap();
        let (t, v) = best_threshold(&truth, &p, &obj).unwrap();
        let c = direct(&truth, &p, t);
        assert!(c.ppv() >= 0.6 && c.tpr() == v);
        // Brute force over every threshold of precision >= 0.6.
        let best = p
            .iter()
            .map(|&t| direct(&truth, &p, t))
            .filter(|c| c.ppv() >= 0.6)
            .map(|c| c.tpr())
            .fold(0.0, f64::max);
        assert_eq!(v, best);
        let obj = Objective::metric("recall_at_alert_rate(rate=0.2)").unwrap();
        let (t, _) = best_threshold(&truth, &p, &obj).unwrap();
        assert!(direct(&truth, &p, t).tp + direct(&truth, &p, t).fp <= 2);
        let obj = Objective::metric("precision_at_recall(r=1)").unwrap();
        let (t, v) = best_threshold(&truth, &p, &obj).unwrap();
        assert_eq!((direct(&truth, &p, t).tpr(), v), (1.0, 4.0 / 7.0));
        let never = Objective::metric("recall_at_precision(p=1)").unwrap();
        let e = best_threshold(&[1, 0], &[0.2, 0.8], &never).unwrap_err();
        assert!(e.to_string().contains("no threshold reaches"), "{e}");
        let e = Objective::metric("recall_at_k(k=5)")
            .unwrap_err()
            .to_string();
        assert!(e.contains("recall_at_alert_rate"), "{e}");
    }

    #[test]
    fn best_threshold_beats_every_candidate() {
        let truth = [0, 1, 0, 1, 1, 0, 0, 0, 1, 0];
        let p = [0.1, 0.7, 0.4, 0.45, 0.9, 0.5, 0.2, 0.05, 0.3, 0.6];
        for key in ["f1", "g_mean", "macro_accuracy", "macro_f1"] {
            let obj = Objective::metric(key).unwrap();
            let (t, v) = best_threshold(&truth, &p, &obj).unwrap();
            assert_eq!(obj.binary_value(&direct(&truth, &p, t)), v);
            for i in 0..=100 {
                let c = direct(&truth, &p, f64::from(i) / 100.0);
                assert!(obj.binary_value(&c) <= v);
            }
        }
        let cost = Objective::Cost(LossMatrix::binary(0.0, 1.0, 10.0, 0.0).unwrap());
        let (_, mean_cost) = best_threshold(&truth, &p, &cost).unwrap();
        // Labelling everything positive costs 6 false alarms / 10 rows.
        assert!(mean_cost <= 0.6);
    }

    #[test]
    fn lambda_tuning_never_loses_to_priors() {
        let truth = [0, 0, 0, 0, 1, 1, 2, 2, 2, 0];
        let p = Proba::new(
            vec![
                0.6, 0.3, 0.1, 0.5, 0.4, 0.1, 0.7, 0.1, 0.2, 0.4, 0.3, 0.3, 0.5, 0.45, 0.05, 0.3,
                0.5, 0.2, 0.2, 0.2, 0.6, 0.5, 0.1, 0.4, 0.45, 0.1, 0.45, 0.8, 0.1, 0.1,
            ],
            3,
        );
        let priors = [0.5, 0.2, 0.3];
        let obj = Objective::metric("macro_accuracy").unwrap();
        let l = tune_lambdas(&truth, &p, &priors, &obj).unwrap();
        let value = |l: &[f64]| {
            let labels = Rule::Lambda(l.to_vec()).decide(&p, None).unwrap();
            Confusion::from_labels(&truth, &labels, 3)
                .unwrap()
                .macro_accuracy()
        };
        assert!(value(&l) >= value(&priors));
    }
}
