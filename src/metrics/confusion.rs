//! The confusion matrix and the rates read from it.
//!
//! Layout and definitions follow scikit-learn (`confusion_matrix`,
//! `precision_recall_fscore_support`, `balanced_accuracy_score`): rows are
//! true classes, columns predicted classes. For class `c` against the rest,
//! TP, FP, FN, TN give
//! TPR (recall, sensitivity) = TP/(TP+FN), TNR (specificity) = TN/(TN+FP),
//! PPV (precision) = TP/(TP+FP), NPV = TN/(TN+FN), FPR = FP/(FP+TN),
//! FDR = FP/(FP+TP), F-beta = (1+b^2) TP / ((1+b^2) TP + b^2 FN + FP), and
//! G-mean = sqrt(TPR x TNR) (Dal Pozzolo et al. 2015, Section V; Kubat and
//! Matwin 1997). A zero denominator gives 0, scikit-learn's default
//! (`zero_division="warn"`).
//!
//! Over several classes: *macro* is the plain mean of the per-class values
//! over all `k` classes (scikit-learn with `labels=range(k)`), *micro*
//! computes the rate from the summed counts, *weighted* weights each class by
//! its number of true rows. Macro accuracy is scikit-learn's balanced accuracy:
//! the mean recall over the classes present in the truth (Collell et al. 2018,
//! Section 2.1, `(TPR + TNR) / 2` for two classes); the multiclass G-mean is
//! the geometric mean of the per-class recalls over all `k` classes
//! (imbalanced-learn's `geometric_mean_score`, `average="multiclass"`).

use super::check_len;
use crate::{Error, Result};

/// Counts of one class against the rest.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BinaryCounts {
    /// True positives.
    pub tp: u64,
    /// False positives.
    pub fp: u64,
    /// False negatives.
    pub fn_: u64,
    /// True negatives.
    pub tn: u64,
}

fn ratio(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

impl BinaryCounts {
    /// True positive rate (recall, sensitivity): TP / (TP + FN).
    pub fn tpr(&self) -> f64 {
        ratio(self.tp, self.tp + self.fn_)
    }

    /// True negative rate (specificity): TN / (TN + FP).
    pub fn tnr(&self) -> f64 {
        ratio(self.tn, self.tn + self.fp)
    }

    /// Positive predictive value (precision): TP / (TP + FP).
    pub fn ppv(&self) -> f64 {
        ratio(self.tp, self.tp + self.fp)
    }

    /// Negative predictive value: TN / (TN + FN).
    pub fn npv(&self) -> f64 {
        ratio(self.tn, self.tn + self.fn_)
    }

    /// False positive rate: FP / (FP + TN).
    pub fn fpr(&self) -> f64 {
        ratio(self.fp, self.fp + self.tn)
    }

    /// False discovery rate: FP / (FP + TP).
    pub fn fdr(&self) -> f64 {
        ratio(self.fp, self.fp + self.tp)
    }

    /// Accuracy: (TP + TN) / all.
    pub fn accuracy(&self) -> f64 {
        ratio(self.tp + self.tn, self.tp + self.fp + self.fn_ + self.tn)
    }

    /// F-beta: (1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP), computed as
    /// scikit-learn does; 0 when nothing is positive in truth or prediction.
    pub fn fbeta(&self, beta: f64) -> f64 {
        let b2 = beta * beta;
        let den = b2 * (self.tp + self.fn_) as f64 + (self.tp + self.fp) as f64;
        if den == 0.0 {
            0.0
        } else {
            (1.0 + b2) * self.tp as f64 / den
        }
    }

    /// F1: 2 TP / (2 TP + FP + FN).
    pub fn f1(&self) -> f64 {
        self.fbeta(1.0)
    }

    /// G-mean: sqrt(TPR x TNR).
    pub fn g_mean(&self) -> f64 {
        (self.tpr() * self.tnr()).sqrt()
    }

    /// Number of true rows of the class (TP + FN).
    pub fn support(&self) -> u64 {
        self.tp + self.fn_
    }
}

/// How per-class rates are combined into one number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Average {
    /// Plain mean over all classes.
    Macro,
    /// The rate of the counts summed over classes.
    Micro,
    /// Mean weighted by each class's number of true rows.
    Weighted,
}

/// A `k x k` confusion matrix: `count(t, p)` rows of true class `t` were
/// predicted as `p`.
///
/// ```
/// use rarity::metrics::Confusion;
/// let c = Confusion::from_threshold(&[0, 0, 1, 1, 1], &[0.2, 0.6, 0.7, 0.5, 0.1], 0.5).unwrap();
/// let pos = c.one_vs_rest(1);
/// assert_eq!((pos.tp, pos.fp, pos.fn_, pos.tn), (2, 1, 1, 1));
/// assert_eq!(pos.tpr(), 2.0 / 3.0);
/// assert_eq!(c.macro_accuracy(), (2.0 / 3.0 + 0.5) / 2.0);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confusion {
    k: usize,
    counts: Vec<u64>,
}

impl Confusion {
    /// The binary confusion matrix of positive-class counts `c` (class 1
    /// positive): what a merged summary of many tables counts.
    ///
    /// ```
    /// use rarity::metrics::{BinaryCounts, Confusion};
    /// let c = Confusion::from_binary(BinaryCounts { tp: 2, fp: 1, fn_: 1, tn: 1 });
    /// assert_eq!(c.one_vs_rest(1).tpr(), 2.0 / 3.0);
    /// assert_eq!(c.count(0, 1), 1);
    /// ```
    pub fn from_binary(c: BinaryCounts) -> Self {
        Confusion {
            k: 2,
            counts: vec![c.tn, c.fp, c.fn_, c.tp],
        }
    }

    /// The `k x k` matrix of `counts` (row-major, true class by row), as
    /// a merged summary counts it; an error unless there are `k * k`.
    pub fn from_matrix(k: usize, counts: Vec<u64>) -> Result<Self> {
        if k.checked_mul(k) != Some(counts.len()) {
            return Err(Error::invalid(format!(
                "a confusion matrix of {k} classes needs {} counts, got {}",
                k.saturating_mul(k),
                counts.len()
            )));
        }
        Ok(Confusion { k, counts })
    }

    /// The confusion matrix of predicted against true labels over `k` classes.
    pub fn from_labels(truth: &[u32], predicted: &[u32], k: usize) -> Result<Self> {
        check_len(truth.len(), predicted.len(), "predicted labels")?;
        let mut counts = vec![0u64; k * k];
        for (i, (&t, &p)) in truth.iter().zip(predicted).enumerate() {
            let (t, p) = (t as usize, p as usize);
            if t >= k || p >= k {
                return Err(Error::data(format!(
                    "row {}: label {} is not one of the {k} classes 0..{}",
                    i + 1,
                    t.max(p),
                    k.saturating_sub(1)
                )));
            }
            counts[t * k + p] += 1;
        }
        Ok(Confusion { k, counts })
    }

    /// The confusion matrix of rows weighted by `weights` (one finite,
    /// non-negative weight per row, not all 0): the importance-weighted
    /// counts of Sugiyama, Krauledat & Müller (2007, eq. 8), from which every
    /// rate of [`BinaryCounts`] reads the weighted rate. Each row counts
    /// `round(2^32 w_i / max_j w_j)` times, so the weights are kept to 32 bits
    /// relative to the largest (the counts cannot overflow below 2^32 rows).
    ///
    /// ```
    /// use rarity::metrics::Confusion;
    /// let c = Confusion::from_weighted_labels(&[0, 0, 1], &[0, 1, 1], 2, &[2.0, 1.0, 1.0]).unwrap();
    /// assert_eq!(c.accuracy(), 0.75);
    /// assert_eq!(c.one_vs_rest(0).tpr(), 2.0 / 3.0);
    /// ```
    pub fn from_weighted_labels(
        truth: &[u32],
        predicted: &[u32],
        k: usize,
        weights: &[f64],
    ) -> Result<Self> {
        check_len(truth.len(), weights.len(), "weights")?;
        if let Some(i) = weights.iter().position(|w| !(w.is_finite() && *w >= 0.0)) {
            return Err(Error::data(format!(
                "row {}: weight {} is not a finite number >= 0",
                i + 1,
                weights[i]
            )));
        }
        let max = weights.iter().copied().fold(0.0, f64::max);
        if max == 0.0 {
            return Err(Error::data("every weight is 0: nothing to score"));
        }
        let mut c = Confusion::from_labels(truth, predicted, k)?;
        c.counts.iter_mut().for_each(|v| *v = 0);
        for ((&t, &p), &w) in truth.iter().zip(predicted).zip(weights) {
            c.counts[t as usize * k + p as usize] += (w / max * 4_294_967_296.0).round() as u64;
        }
        Ok(c)
    }

    /// The binary confusion matrix of the decision "positive (class 1) iff
    /// `p >= threshold`" on positive-class probabilities `p`.
    ///
    /// `>=` is the Bayes rule of Dal Pozzolo et al. (2015, Section IV: decide
    /// positive when the risk of doing so is not larger) and scikit-learn's
    /// `FixedThresholdClassifier`.
    pub fn from_threshold(truth: &[u32], p: &[f64], threshold: f64) -> Result<Self> {
        check_len(truth.len(), p.len(), "probabilities")?;
        if threshold.is_nan() {
            return Err(Error::invalid("the threshold must be a number"));
        }
        let predicted: Vec<u32> = p.iter().map(|&q| u32::from(q >= threshold)).collect();
        Confusion::from_labels(truth, &predicted, 2)
    }

    /// Number of classes.
    pub fn n_classes(&self) -> usize {
        self.k
    }

    /// Rows of true class `t` predicted as `p`.
    pub fn count(&self, t: usize, p: usize) -> u64 {
        self.counts[t * self.k + p]
    }

    /// Number of rows.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Counts of class `c` against all the others.
    pub fn one_vs_rest(&self, c: usize) -> BinaryCounts {
        let tp = self.count(c, c);
        let support: u64 = (0..self.k).map(|p| self.count(c, p)).sum();
        let predicted: u64 = (0..self.k).map(|t| self.count(t, c)).sum();
        let fn_ = support - tp;
        let fp = predicted - tp;
        BinaryCounts {
            tp,
            fp,
            fn_,
            tn: self.total() - tp - fn_ - fp,
        }
    }

    /// Fraction of rows predicted correctly.
    pub fn accuracy(&self) -> f64 {
        ratio((0..self.k).map(|c| self.count(c, c)).sum(), self.total())
    }

    /// A per-class rate combined over classes, e.g.
    /// `c.average(BinaryCounts::ppv, Average::Macro)`.
    pub fn average(&self, rate: impl Fn(&BinaryCounts) -> f64, how: Average) -> f64 {
        let per: Vec<BinaryCounts> = (0..self.k).map(|c| self.one_vs_rest(c)).collect();
        match how {
            Average::Macro => per.iter().map(&rate).sum::<f64>() / self.k as f64,
            Average::Micro => {
                let sum = per
                    .iter()
                    .fold(BinaryCounts::default(), |a, b| BinaryCounts {
                        tp: a.tp + b.tp,
                        fp: a.fp + b.fp,
                        fn_: a.fn_ + b.fn_,
                        tn: a.tn + b.tn,
                    });
                rate(&sum)
            }
            Average::Weighted => {
                let total: u64 = per.iter().map(BinaryCounts::support).sum();
                if total == 0 {
                    return 0.0;
                }
                per.iter()
                    .map(|b| rate(b) * b.support() as f64)
                    .sum::<f64>()
                    / total as f64
            }
        }
    }

    /// Macro accuracy (balanced accuracy): mean recall over the classes that
    /// occur in the truth; `NaN` with no rows.
    pub fn macro_accuracy(&self) -> f64 {
        let recalls: Vec<f64> = (0..self.k)
            .map(|c| self.one_vs_rest(c))
            .filter(|b| b.support() > 0)
            .map(|b| b.tpr())
            .collect();
        recalls.iter().sum::<f64>() / recalls.len() as f64
    }

    /// Macro F1: the per-class F1 averaged over all classes.
    pub fn macro_f1(&self) -> f64 {
        self.average(BinaryCounts::f1, Average::Macro)
    }

    /// G-mean: sqrt(TPR x TNR) for two classes, the geometric mean of the
    /// per-class recalls for more (0 as soon as one class is never recalled).
    pub fn g_mean(&self) -> f64 {
        if self.k == 2 {
            return self.one_vs_rest(1).g_mean();
        }
        let product: f64 = (0..self.k).map(|c| self.one_vs_rest(c).tpr()).product();
        product.powf(1.0 / self.k as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_denominators_give_zero() {
        // Nothing predicted positive and no positives at all.
        let c = Confusion::from_labels(&[0, 0], &[0, 0], 2).unwrap();
        let b = c.one_vs_rest(1);
        assert_eq!(
            (b.tpr(), b.ppv(), b.f1(), b.fdr(), b.g_mean()),
            (0.0, 0.0, 0.0, 0.0, 0.0)
        );
        assert_eq!(b.tnr(), 1.0);
        // Balanced accuracy ignores the absent class.
        assert_eq!(c.macro_accuracy(), 1.0);
    }

    #[test]
    fn micro_average_of_precision_is_accuracy() {
        let c = Confusion::from_labels(&[0, 1, 2, 2, 1], &[0, 2, 2, 1, 1], 3).unwrap();
        assert_eq!(c.average(BinaryCounts::ppv, Average::Micro), c.accuracy());
        assert_eq!(c.accuracy(), 0.6);
    }

    #[test]
    fn threshold_is_inclusive_and_labels_are_checked() {
        let c = Confusion::from_threshold(&[1], &[0.5], 0.5).unwrap();
        assert_eq!(c.one_vs_rest(1).tp, 1);
        assert!(Confusion::from_labels(&[0, 3], &[0, 1], 3).is_err());
        assert!(Confusion::from_threshold(&[0], &[0.5], f64::NAN).is_err());
    }

    #[test]
    fn weighted_counts_give_weighted_rates() {
        // Whole weights are the same as repeating rows.
        let (t, p, w) = ([0, 1, 1, 2], [0, 1, 0, 2], [2.0, 1.0, 1.0, 4.0]);
        let c = Confusion::from_weighted_labels(&t, &p, 3, &w).unwrap();
        let rep = Confusion::from_labels(&[0, 0, 1, 1, 2, 2, 2, 2], &[0, 0, 1, 0, 2, 2, 2, 2], 3)
            .unwrap();
        assert_eq!(c.accuracy(), 7.0 / 8.0);
        assert_eq!(c.macro_accuracy(), rep.macro_accuracy());
        assert_eq!(c.g_mean(), rep.g_mean());
        assert_eq!(c.macro_f1(), rep.macro_f1());
        assert!(Confusion::from_weighted_labels(&t, &p, 3, &[0.0; 4]).is_err());
        assert!(Confusion::from_weighted_labels(&t, &p, 3, &[1.0, -1.0, 1.0, 1.0]).is_err());
        assert!(Confusion::from_weighted_labels(&t, &p, 3, &[1.0]).is_err());
    }

    #[test]
    fn fbeta_weights_recall() {
        let b = BinaryCounts {
            tp: 2,
            fp: 2,
            fn_: 0,
            tn: 0,
        };
        // precision 0.5, recall 1: F2 = 5 * 0.5 / (4 * 0.5 + 1) = 5/6.
        assert!((b.fbeta(2.0) - 5.0 / 6.0).abs() < 1e-15);
        assert!((b.f1() - 2.0 / 3.0).abs() < 1e-15);
    }
}
