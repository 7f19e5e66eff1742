//! Ranking metrics: ROC curve and ROC AUC, precision-recall curve, average
//! precision and the trapezoidal area under the precision-recall curve; their
//! one-vs-rest macro averages and Hand & Till's M for several classes.
//!
//! Definitions are scikit-learn's (`sklearn.metrics`, version 1.9):
//!
//! - **ROC AUC** is the Mann-Whitney estimate `P(s+ > s-) + P(s+ = s-) / 2`:
//!   ties anywhere in the score vector count one half, which is the area under
//!   the ROC curve whose tied points are joined by straight segments
//!   (`roc_auc_score`). It is computed from integer counts, so the only
//!   rounding is the final division.
//! - **Average precision** is the step sum `sum_n (R_n - R_{n-1}) P_n` over the
//!   distinct thresholds (`average_precision_score`), not an interpolated area.
//! - **Trapezoidal PR AUC** is `auc(recall, precision)` on the points of
//!   `precision_recall_curve`, the straight-line area, named separately because
//!   linear interpolation overstates precision between thresholds.
//! - **One-vs-rest macro** averages class `c`'s binary metric on column `c`
//!   over classes (`roc_auc_score(multi_class="ovr")`, multiclass
//!   `average_precision_score`); **Hand & Till's M** (Hand and Till 2001,
//!   `roc_auc_score(multi_class="ovo")`) averages, over all pairs of classes
//!   `(a, b)`, the mean of `AUC(a vs b on p_a)` and `AUC(b vs a on p_b)`
//!   computed on the rows of those two classes only.
//!
//! Edge cases, which scikit-learn handles with a warning, return `NaN` here:
//! ROC AUC when the truth holds one class only (scikit-learn also returns
//! `NaN`); average precision and the trapezoidal PR AUC when there is no
//! positive row (scikit-learn returns 0.0 and 0.5 after warning that recall is
//! undefined); the multiclass averages when some class has no row (scikit-learn
//! raises). With no negative row average precision is 1, as in scikit-learn.
//! Empty input, mismatched lengths and non-finite scores are errors.
//!
//! Speed: the positives' and negatives' scores are sorted once each (radix
//! sort of order-preserving integer keys) and every metric is one merge pass
//! over the two sorted lists.

use serde::{Deserialize, Serialize};

use super::sort::{key, radix_sort, unkey};
use super::{check_len, check_proba};
use crate::data::Proba;
use crate::{Error, Result};

/// Scores split by class and sorted ascending, as order-preserving keys.
struct Sorted {
    pos: Vec<u64>,
    neg: Vec<u64>,
}

impl Sorted {
    fn new(truth: &[u32], scores: &[f64], positive: u32) -> Result<Self> {
        check_len(truth.len(), scores.len(), "scores")?;
        let mut pos = Vec::new();
        let mut neg = Vec::with_capacity(scores.len());
        for (i, (&t, &s)) in truth.iter().zip(scores).enumerate() {
            if !s.is_finite() {
                return Err(Error::data(format!(
                    "score of row {} is {s}; scores must be finite numbers",
                    i + 1
                )));
            }
            if t == positive {
                pos.push(key(s));
            } else {
                neg.push(key(s));
            }
        }
        radix_sort(&mut pos);
        radix_sort(&mut neg);
        Ok(Sorted { pos, neg })
    }

    /// Cumulative counts at each distinct threshold, highest first
    /// (scikit-learn's `confusion_matrix_at_thresholds`).
    fn cumulative(&self) -> (Vec<f64>, Vec<u64>, Vec<u64>) {
        let (mut th, mut tps, mut fps) = (Vec::new(), Vec::new(), Vec::new());
        let (mut t, mut f) = (0, 0);
        self.for_each_group(|s, tp, fp| {
            t += tp;
            f += fp;
            th.push(s);
            tps.push(t);
            fps.push(f);
        });
        (th, tps, fps)
    }
}

/// Distinct scores with the numbers of positive and negative rows scoring
/// each: what every ranking metric reads. Implemented by the sorted scores
/// of one table and by a merged score histogram
/// ([`crate::metrics::summary::BinarySummary`]), so both give the same
/// values from the same counts.
pub(crate) trait ScoreGroups {
    /// Positive rows.
    fn n_pos(&self) -> u64;
    /// Negative rows.
    fn n_neg(&self) -> u64;
    /// Calls `f(threshold, tp, fp)` for each distinct score from the highest
    /// down, with the numbers of positives and negatives scoring exactly it.
    fn for_each_group(&self, f: impl FnMut(f64, u64, u64));

    /// The sums behind ROC AUC, AP and the trapezoidal PR AUC, walking the
    /// groups from the highest score down.
    fn rank_sums(&self) -> RankSums {
        let n_pos = self.n_pos();
        let mut sums = RankSums::default();
        let (mut tp_above, mut fp_above) = (0u64, 0u64);
        self.for_each_group(|_, tp, fp| {
            sums.add_group([fp_above, tp_above], [fp, tp], n_pos);
            tp_above += tp;
            fp_above += fp;
        });
        sums
    }
}

/// What ROC AUC, average precision and the trapezoidal PR AUC add up over
/// the groups of tied scores: each group's terms depend only on its own
/// counts and the counts scoring above it, so groups can be summed in any
/// order and by many machines (`metrics::ranges`), then added.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct RankSums {
    /// Twice the Mann-Whitney count: each negative scores, against the
    /// positives above it, 2 and against the tied ones 1 (integer, exact).
    pub twice_auc: u128,
    /// The step sum of average precision.
    pub ap: f64,
    /// The trapezoidal area under the precision-recall curve.
    pub trapezoid: f64,
}

impl RankSums {
    /// Adds the terms of a group of `tied = [negatives, positives]` at one
    /// score, with `above = [negatives, positives]` scoring higher, of
    /// `n_pos` positives in all.
    pub fn add_group(&mut self, above: [u64; 2], tied: [u64; 2], n_pos: u64) {
        let [fp_above, tp_above] = above;
        let [fp, tp] = tied;
        self.twice_auc += fp as u128 * (2 * tp_above as u128 + tp as u128);
        let pf = n_pos as f64;
        let (tps, fps) = (tp_above + tp, fp_above + fp);
        let prev_recall = tp_above as f64 / pf;
        let prev_precision = if tp_above + fp_above == 0 {
            1.0
        } else {
            tp_above as f64 / (tp_above + fp_above) as f64
        };
        let recall = tps as f64 / pf;
        let precision = tps as f64 / (tps + fps) as f64;
        let dr = recall - prev_recall;
        self.ap += dr * precision;
        self.trapezoid += dr * (precision + prev_precision) / 2.0;
    }

    /// Adds the sums of other groups.
    pub fn merge(&mut self, other: &RankSums) {
        self.twice_auc += other.twice_auc;
        self.ap += other.ap;
        self.trapezoid += other.trapezoid;
    }

    /// The metrics of all the groups summed, of `n_pos` positive and `n_neg`
    /// negative rows: the area's one division is done here.
    pub fn scores(&self, n_pos: u64, n_neg: u64) -> RankingScores {
        let roc_auc = if n_pos == 0 || n_neg == 0 {
            f64::NAN
        } else {
            (self.twice_auc as f64) / (2.0 * n_pos as f64 * n_neg as f64)
        };
        let (average_precision, pr_auc_trapezoid) = if n_pos == 0 {
            (f64::NAN, f64::NAN)
        } else {
            (self.ap.max(0.0), self.trapezoid)
        };
        RankingScores {
            roc_auc,
            average_precision,
            pr_auc_trapezoid,
        }
    }
}

impl ScoreGroups for Sorted {
    fn n_pos(&self) -> u64 {
        self.pos.len() as u64
    }

    fn n_neg(&self) -> u64 {
        self.neg.len() as u64
    }

    fn for_each_group(&self, mut f: impl FnMut(f64, u64, u64)) {
        let (mut i, mut j) = (self.pos.len(), self.neg.len());
        while i > 0 || j > 0 {
            let top = match (i, j) {
                (0, _) => self.neg[j - 1],
                (_, 0) => self.pos[i - 1],
                _ => self.pos[i - 1].max(self.neg[j - 1]),
            };
            let (i0, j0) = (i, j);
            while i > 0 && self.pos[i - 1] == top {
                i -= 1;
            }
            while j > 0 && self.neg[j - 1] == top {
                j -= 1;
            }
            f(unkey(top), (i0 - i) as u64, (j0 - j) as u64);
        }
    }
}

/// ROC AUC, AP and trapezoidal PR AUC of score groups.
pub(crate) fn ranking_of(g: &impl ScoreGroups) -> RankingScores {
    g.rank_sums().scores(g.n_pos(), g.n_neg())
}

/// ROC AUC, AP and trapezoidal PR AUC of one binary problem, from one sort.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankingScores {
    /// Area under the ROC curve (Mann-Whitney, ties count one half).
    pub roc_auc: f64,
    /// Average precision (scikit-learn's step sum).
    pub average_precision: f64,
    /// Trapezoidal area under the precision-recall curve.
    pub pr_auc_trapezoid: f64,
}

/// ROC AUC, average precision and trapezoidal PR AUC of `scores` for the rows
/// whose `truth` is `positive` against all others, sorting the scores once.
///
/// ```
/// use rarity::metrics::ranking::binary_ranking;
/// let r = binary_ranking(&[0, 0, 1, 1], &[0.1, 0.4, 0.35, 0.8], 1).unwrap();
/// assert_eq!(r.roc_auc, 0.75);
/// assert!((r.average_precision - 0.8333333333333333).abs() < 1e-15);
/// ```
pub fn binary_ranking(truth: &[u32], scores: &[f64], positive: u32) -> Result<RankingScores> {
    Ok(ranking_of(&Sorted::new(truth, scores, positive)?))
}

/// Area under the ROC curve of `scores` for class `positive` against the rest
/// (scikit-learn's `roc_auc_score`); `NaN` when one class is absent.
///
/// ```
/// use rarity::metrics::ranking::roc_auc;
/// // One tie between a positive and a negative counts one half.
/// assert_eq!(roc_auc(&[0, 1, 0, 1], &[0.1, 0.5, 0.5, 0.9], 1).unwrap(), 0.875);
/// ```
pub fn roc_auc(truth: &[u32], scores: &[f64], positive: u32) -> Result<f64> {
    Ok(binary_ranking(truth, scores, positive)?.roc_auc)
}

/// Average precision of `scores` for class `positive` (scikit-learn's
/// `average_precision_score`); `NaN` when there is no positive row.
pub fn average_precision(truth: &[u32], scores: &[f64], positive: u32) -> Result<f64> {
    Ok(binary_ranking(truth, scores, positive)?.average_precision)
}

/// Trapezoidal area under the precision-recall curve (scikit-learn's
/// `auc(recall, precision)` on `precision_recall_curve`); `NaN` when there is
/// no positive row.
pub fn pr_auc_trapezoid(truth: &[u32], scores: &[f64], positive: u32) -> Result<f64> {
    Ok(binary_ranking(truth, scores, positive)?.pr_auc_trapezoid)
}

/// Points of a ROC curve, in scikit-learn's order and layout.
#[derive(Debug, Clone, PartialEq)]
pub struct RocCurve {
    /// False positive rate at each threshold (all `NaN` with no negatives).
    pub fpr: Vec<f64>,
    /// True positive rate at each threshold (all `NaN` with no positives).
    pub tpr: Vec<f64>,
    /// Decreasing thresholds, the first being `+inf` (the point (0, 0)).
    pub thresholds: Vec<f64>,
}

/// ROC curve as scikit-learn's `roc_curve` with its default
/// `drop_intermediate=True`: collinear interior points are dropped.
///
/// ```
/// use rarity::metrics::ranking::roc_curve;
/// let c = roc_curve(&[0, 0, 1, 1], &[0.1, 0.4, 0.35, 0.8], 1).unwrap();
/// assert_eq!(c.fpr, vec![0.0, 0.0, 0.5, 0.5, 1.0]);
/// assert_eq!(c.tpr, vec![0.0, 0.5, 0.5, 1.0, 1.0]);
/// ```
pub fn roc_curve(truth: &[u32], scores: &[f64], positive: u32) -> Result<RocCurve> {
    let s = Sorted::new(truth, scores, positive)?;
    let (th, tps, fps) = s.cumulative();
    let m = th.len();
    let keep: Vec<usize> = (0..m)
        .filter(|&i| {
            m <= 2 || i == 0 || i == m - 1 || {
                let d2 = |v: &[u64]| v[i + 1] + v[i - 1] != 2 * v[i];
                d2(&fps) || d2(&tps)
            }
        })
        .collect();
    let rate = |v: &[u64], total: u64| -> Vec<f64> {
        std::iter::once(0.0)
            .chain(keep.iter().map(|&i| v[i] as f64))
            .map(|c| {
                if total == 0 {
                    f64::NAN
                } else {
                    c / total as f64
                }
            })
            .collect()
    };
    Ok(RocCurve {
        fpr: rate(&fps, s.n_neg()),
        tpr: rate(&tps, s.n_pos()),
        thresholds: std::iter::once(f64::INFINITY)
            .chain(keep.iter().map(|&i| th[i]))
            .collect(),
    })
}

/// Points of a precision-recall curve, in scikit-learn's order and layout.
#[derive(Debug, Clone, PartialEq)]
pub struct PrCurve {
    /// Precision at each threshold, increasing thresholds, then a final 1.
    pub precision: Vec<f64>,
    /// Recall at each threshold, then a final 0 (all 1 with no positives,
    /// as in scikit-learn).
    pub recall: Vec<f64>,
    /// Increasing distinct scores.
    pub thresholds: Vec<f64>,
}

/// Precision-recall curve as scikit-learn's `precision_recall_curve` with its
/// default `drop_intermediate=False`: one point per distinct score.
///
/// ```
/// use rarity::metrics::ranking::precision_recall_curve;
/// let c = precision_recall_curve(&[0, 0, 1, 1], &[0.1, 0.4, 0.35, 0.8], 1).unwrap();
/// assert_eq!(c.recall, vec![1.0, 1.0, 0.5, 0.5, 0.0]);
/// assert_eq!(c.thresholds, vec![0.1, 0.35, 0.4, 0.8]);
/// ```
pub fn precision_recall_curve(truth: &[u32], scores: &[f64], positive: u32) -> Result<PrCurve> {
    let s = Sorted::new(truth, scores, positive)?;
    let (mut th, tps, fps) = s.cumulative();
    let p = s.n_pos();
    let mut precision: Vec<f64> = tps
        .iter()
        .zip(&fps)
        .map(|(&t, &f)| t as f64 / (t + f) as f64)
        .collect();
    let mut recall: Vec<f64> = tps
        .iter()
        .map(|&t| if p == 0 { 1.0 } else { t as f64 / p as f64 })
        .collect();
    precision.reverse();
    recall.reverse();
    th.reverse();
    precision.push(1.0);
    recall.push(0.0);
    Ok(PrCurve {
        precision,
        recall,
        thresholds: th,
    })
}

/// The binary ranking metrics of each class against the rest, on its column.
fn one_vs_rest(truth: &[u32], proba: &Proba) -> Result<Vec<RankingScores>> {
    check_proba(truth, proba)?;
    (0..proba.n_classes())
        .map(|c| binary_ranking(truth, &proba.column(c), c as u32))
        .collect()
}

fn macro_mean(values: impl Iterator<Item = f64>) -> f64 {
    let (mut sum, mut n) = (0.0, 0usize);
    for v in values {
        sum += v;
        n += 1;
    }
    sum / n as f64
}

/// One-vs-rest ROC AUC, AP and trapezoidal PR AUC, each averaged over the
/// classes with equal weight (macro). A class without rows makes every
/// average `NaN` (scikit-learn raises).
///
/// ```
/// use rarity::data::Proba;
/// use rarity::metrics::ranking::ranking_ovr_macro;
/// let p = Proba::new(vec![0.8, 0.1, 0.1, 0.2, 0.7, 0.1, 0.3, 0.3, 0.4], 3);
/// assert_eq!(ranking_ovr_macro(&[0, 1, 2], &p).unwrap().roc_auc, 1.0);
/// ```
pub fn ranking_ovr_macro(truth: &[u32], proba: &Proba) -> Result<RankingScores> {
    let per = one_vs_rest(truth, proba)?;
    Ok(RankingScores {
        roc_auc: macro_mean(per.iter().map(|r| r.roc_auc)),
        average_precision: macro_mean(per.iter().map(|r| r.average_precision)),
        pr_auc_trapezoid: macro_mean(per.iter().map(|r| r.pr_auc_trapezoid)),
    })
}

/// Hand & Till's M: the multiclass AUC averaged over pairs of classes
/// (scikit-learn's `roc_auc_score(multi_class="ovo", average="macro")`).
/// `NaN` when some class has no row; with two classes it is the binary AUC.
pub fn roc_auc_hand_till(truth: &[u32], proba: &Proba) -> Result<f64> {
    check_proba(truth, proba)?;
    let k = proba.n_classes();
    let mut pairs = Vec::new();
    for a in 0..k {
        for b in a + 1..k {
            let rows: Vec<usize> = (0..truth.len())
                .filter(|&i| truth[i] as usize == a || truth[i] as usize == b)
                .collect();
            let sub: Vec<u32> = rows.iter().map(|&i| truth[i]).collect();
            let col = |c: usize| -> Vec<f64> { rows.iter().map(|&i| proba.row(i)[c]).collect() };
            let ab = roc_auc(&sub, &col(a), a as u32)?;
            let ba = roc_auc(&sub, &col(b), b as u32)?;
            pairs.push((ab + ba) / 2.0);
        }
    }
    Ok(macro_mean(pairs.into_iter()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auc_counts_ties_over_the_whole_vector() {
        // Positives 0.5, 0.5; negatives 0.5, 0.2: the tie group holds 2 + 1.
        let t = [1, 1, 0, 0];
        let s = [0.5, 0.5, 0.5, 0.2];
        // Pairs: (0.5 vs 0.5) x2 = 1/2 each, (0.5 vs 0.2) x2 = 1 each.
        assert_eq!(roc_auc(&t, &s, 1).unwrap(), 0.75);
        // Constant scores give exactly one half.
        assert_eq!(roc_auc(&t, &[0.3; 4], 1).unwrap(), 0.5);
    }

    #[test]
    fn one_class_and_one_sample_are_nan() {
        assert!(roc_auc(&[1, 1], &[0.2, 0.3], 1).unwrap().is_nan());
        assert!(roc_auc(&[0], &[0.2], 1).unwrap().is_nan());
        assert!(average_precision(&[0, 0], &[0.2, 0.3], 1).unwrap().is_nan());
        assert_eq!(average_precision(&[1, 1], &[0.2, 0.3], 1).unwrap(), 1.0);
        assert_eq!(pr_auc_trapezoid(&[1, 1], &[0.2, 0.3], 1).unwrap(), 1.0);
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(roc_auc(&[], &[], 1).is_err());
        assert!(roc_auc(&[0, 1], &[0.5], 1).is_err());
        let e = roc_auc(&[0, 1], &[0.5, f64::NAN], 1).unwrap_err();
        assert!(e.to_string().contains("row 2"), "{e}");
    }

    #[test]
    fn negative_zero_ties_with_zero() {
        assert_eq!(roc_auc(&[1, 0], &[-0.0, 0.0], 1).unwrap(), 0.5);
    }

    #[test]
    fn hand_till_with_two_classes_is_the_binary_auc() {
        let p = [0.1, 0.7, 0.4, 0.4, 0.9];
        let t = [0, 1, 0, 1, 1];
        let proba = Proba::from_positive(&p);
        assert_eq!(
            roc_auc_hand_till(&t, &proba).unwrap(),
            roc_auc(&t, &p, 1).unwrap()
        );
    }
}
