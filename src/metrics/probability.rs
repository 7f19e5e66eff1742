//! Quality of predicted probabilities: Brier score (overall, multiclass and
//! stratified by class), log loss and the Murphy decomposition of the Brier
//! score (binary, and multiclass as the sum of each class's one-vs-rest
//! decomposition).
//!
//! - Binary Brier score: `mean (y - p)^2` with `y` in {0, 1} and `p` the
//!   positive-class probability (Dal Pozzolo et al. 2015, eq. 13;
//!   scikit-learn's `brier_score_loss`).
//! - Multiclass Brier score: `mean_i sum_c (1[y_i = c] - p_ic)^2`, Brier's
//!   original sum over classes, in `[0, 2]` (scikit-learn's `brier_score_loss`
//!   on three or more columns; on two columns it equals twice the binary one).
//! - Stratified Brier score (Collell et al. 2018, Section 4; Wallace and
//!   Dahabreh 2012): for class `c`, the mean of `(1 - p_c)^2` over the rows of
//!   class `c`, i.e. the squared gap between the predicted probability of the
//!   true class and the ideal 1. For two classes, `brier_positive` is
//!   `mean (1 - p)^2` over positive rows and `brier_negative` is `mean p^2`
//!   over negative rows, `p` being the positive-class column. Not in
//!   scikit-learn.
//! - Log loss: `mean -ln p_{i, y_i}` with each probability clipped to
//!   `[eps, 1 - eps]`, `eps = f64::EPSILON` (scikit-learn 1.9's `log_loss`,
//!   which clips and no longer renormalises rows).
//! - Murphy decomposition (Murphy 1973) of binned forecasts (Stephenson,
//!   Coelho, Doblas-Reyes & Balmaseda 2008, "Forecast assessment of binned
//!   probability forecasts"): the rows are grouped into `B` equal-width bins
//!   of the predicted probability (10 by default, the bins of the
//!   reliability diagram, [`super::calibration`]); bin `k` has `n_k` rows,
//!   mean forecast `f_k` and observed frequency `o_k`, and `o` is the overall
//!   frequency. `reliability = sum n_k (f_k - o_k)^2 / N`,
//!   `resolution = sum n_k (o_k - o)^2 / N`, `uncertainty = o (1 - o)`,
//!   and the two within-bin terms `wbv = sum_j (f_j - f_k(j))^2 / N` and
//!   `wbc = 2 sum_j (o_j - o_k(j)) (f_j - f_k(j)) / N` make it exact:
//!   `brier = reliability - resolution + uncertainty + wbv - wbc`. Grouping
//!   by distinct value instead (Murphy's original, for forecasts on a few
//!   levels) degenerates on continuous scores: every row is its own group,
//!   reliability equals the Brier score and resolution the uncertainty. Not
//!   in scikit-learn.

use super::calibration::uniform_bin_of;
use super::{check_len, check_proba, check_unit};
use crate::data::Proba;
use crate::Result;

/// Binary Brier score of positive-class probabilities `p`.
///
/// ```
/// use rarity::metrics::probability::brier_binary;
/// let b = brier_binary(&[0, 1, 1, 0], &[0.1, 0.9, 0.8, 0.3], 1).unwrap();
/// assert!((b - 0.0375).abs() < 1e-15);
/// ```
pub fn brier_binary(truth: &[u32], p: &[f64], positive: u32) -> Result<f64> {
    check_len(truth.len(), p.len(), "probabilities")?;
    check_unit(p)?;
    let sum: f64 = truth
        .iter()
        .zip(p)
        .map(|(&t, &q)| {
            let y = f64::from(u8::from(t == positive));
            (y - q) * (y - q)
        })
        .sum();
    Ok(sum / p.len() as f64)
}

/// Multiclass Brier score: squared errors summed over the classes, averaged
/// over rows (range `[0, 2]`).
pub fn brier_multiclass(truth: &[u32], proba: &Proba) -> Result<f64> {
    check_proba(truth, proba)?;
    let sum: f64 = truth
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            proba
                .row(i)
                .iter()
                .enumerate()
                .map(|(c, &q)| {
                    let y = f64::from(u8::from(c == t as usize));
                    (y - q) * (y - q)
                })
                .sum::<f64>()
        })
        .sum();
    Ok(sum / truth.len() as f64)
}

/// Brier score as scikit-learn's `brier_score_loss` reports it: the binary
/// score on column 1 for two classes, the multiclass sum for three or more.
pub fn brier(truth: &[u32], proba: &Proba) -> Result<f64> {
    if proba.n_classes() == 2 {
        check_proba(truth, proba)?;
        brier_binary(truth, &proba.column(1), 1)
    } else {
        brier_multiclass(truth, proba)
    }
}

/// The Brier score of [`brier`] as a weighted mean over rows, `sum_i w_i
/// loss_i / sum_i w_i`: the importance-weighted estimate of the score on
/// another population when `w` is the density ratio (Sugiyama, Krauledat &
/// Müller 2007, eq. 8). Equal weights give [`brier`].
///
/// ```
/// use rarity::data::Proba;
/// use rarity::metrics::probability::{brier, brier_weighted};
/// let p = Proba::from_positive(&[0.1, 0.9, 0.6]);
/// let w = brier_weighted(&[0, 1, 0], &p, &[1.0, 1.0, 2.0]).unwrap();
/// assert!((w - (0.01 + 0.01 + 2.0 * 0.36) / 4.0).abs() < 1e-15);
/// assert!((brier_weighted(&[0, 1, 0], &p, &[1.0; 3]).unwrap() - brier(&[0, 1, 0], &p).unwrap()).abs() < 1e-15);
/// ```
pub fn brier_weighted(truth: &[u32], proba: &Proba, weights: &[f64]) -> Result<f64> {
    check_proba(truth, proba)?;
    let binary = proba.n_classes() == 2;
    weighted_mean(truth, weights, |i, t| {
        let row = proba.row(i);
        if binary {
            let y = f64::from(u8::from(t == 1));
            (y - row[1]) * (y - row[1])
        } else {
            row.iter()
                .enumerate()
                .map(|(c, &q)| {
                    let y = f64::from(u8::from(c == t as usize));
                    (y - q) * (y - q)
                })
                .sum()
        }
    })
}

/// The log loss of [`log_loss`] as a weighted mean over rows (as
/// [`brier_weighted`]).
pub fn log_loss_weighted(truth: &[u32], proba: &Proba, weights: &[f64]) -> Result<f64> {
    check_proba(truth, proba)?;
    let eps = f64::EPSILON;
    weighted_mean(truth, weights, |i, t| {
        -proba.row(i)[t as usize].clamp(eps, 1.0 - eps).ln()
    })
}

/// `sum_i w_i loss(i, truth_i) / sum_i w_i`; the weights must be finite,
/// non-negative and not all 0.
fn weighted_mean(truth: &[u32], weights: &[f64], loss: impl Fn(usize, u32) -> f64) -> Result<f64> {
    check_len(truth.len(), weights.len(), "weights")?;
    let (mut sum, mut total) = (0.0, 0.0);
    for (i, (&t, &w)) in truth.iter().zip(weights).enumerate() {
        if !(w.is_finite() && w >= 0.0) {
            return Err(crate::Error::data(format!(
                "row {}: weight {w} is not a finite number >= 0",
                i + 1
            )));
        }
        sum += w * loss(i, t);
        total += w;
    }
    if total == 0.0 {
        return Err(crate::Error::data("every weight is 0: nothing to score"));
    }
    Ok(sum / total)
}

/// Stratified Brier score: for each class, the mean of `(1 - p_true)^2` over
/// the rows of that class (`NaN` for a class without rows). For two classes
/// it is computed on column 1: `[mean p^2 over negatives, mean (1 - p)^2
/// over positives]`.
///
/// ```
/// use rarity::data::Proba;
/// use rarity::metrics::probability::stratified_brier;
/// let s = stratified_brier(&[0, 1, 1], &Proba::from_positive(&[0.2, 0.5, 1.0])).unwrap();
/// assert_eq!(s, vec![0.2 * 0.2, 0.125]);
/// ```
pub fn stratified_brier(truth: &[u32], proba: &Proba) -> Result<Vec<f64>> {
    check_proba(truth, proba)?;
    let k = proba.n_classes();
    let mut sums = vec![0.0; k];
    let mut counts = vec![0usize; k];
    for (i, &t) in truth.iter().enumerate() {
        let t = t as usize;
        let gap = if k == 2 {
            let p = proba.row(i)[1];
            if t == 1 {
                1.0 - p
            } else {
                p
            }
        } else {
            1.0 - proba.row(i)[t]
        };
        sums[t] += gap * gap;
        counts[t] += 1;
    }
    Ok(sums
        .iter()
        .zip(&counts)
        .map(|(&s, &n)| s / n as f64)
        .collect())
}

/// Log loss (cross-entropy) with scikit-learn's clipping to
/// `[f64::EPSILON, 1 - f64::EPSILON]`.
///
/// ```
/// use rarity::data::Proba;
/// use rarity::metrics::probability::log_loss;
/// let p = Proba::new(vec![0.1, 0.9, 0.9, 0.1, 0.8, 0.2, 0.35, 0.65], 2);
/// let l = log_loss(&[1, 0, 0, 1], &p).unwrap();
/// assert!((l - 0.21616187468057912).abs() < 1e-15);
/// ```
pub fn log_loss(truth: &[u32], proba: &Proba) -> Result<f64> {
    check_proba(truth, proba)?;
    let eps = f64::EPSILON;
    let sum: f64 = truth
        .iter()
        .enumerate()
        .map(|(i, &t)| -proba.row(i)[t as usize].clamp(eps, 1.0 - eps).ln())
        .sum();
    Ok(sum / truth.len() as f64)
}

/// Bins of the Murphy decomposition the reports use: the reliability
/// diagram's.
pub const MURPHY_BINS: usize = 10;

/// The Murphy decomposition of the binary Brier score over binned forecasts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Murphy {
    /// Weighted squared gap between each bin's mean forecast and its
    /// observed frequency (lower is better calibrated).
    pub reliability: f64,
    /// Weighted squared gap between each bin's observed frequency and the
    /// base rate (higher is more discriminating).
    pub resolution: f64,
    /// Variance of the outcome, `o (1 - o)`: the Brier score of always
    /// forecasting the base rate.
    pub uncertainty: f64,
    /// Within-bin variance of the forecasts.
    pub within_bin_variance: f64,
    /// Within-bin covariance of forecasts and outcomes, doubled.
    pub within_bin_covariance: f64,
    /// The number of equal-width bins.
    pub bins: usize,
}

/// Murphy decomposition of the binary Brier score of positive-class
/// probabilities `p` over `bins` equal-width bins (a value on an interior
/// edge belongs to the lower bin, as in the reliability diagram), so that
/// `brier = reliability - resolution + uncertainty + within_bin_variance -
/// within_bin_covariance`.
///
/// ```
/// use rarity::metrics::probability::{brier_binary, murphy_decomposition};
/// let (t, p) = ([0, 1, 1, 0, 1, 0], [0.12, 0.18, 0.71, 0.74, 0.77, 0.05]);
/// let m = murphy_decomposition(&t, &p, 1, 10).unwrap();
/// let b = brier_binary(&t, &p, 1).unwrap();
/// let sum = m.reliability - m.resolution + m.uncertainty
///     + m.within_bin_variance - m.within_bin_covariance;
/// assert!((sum - b).abs() < 1e-15);
/// assert!(m.reliability < b && m.resolution < m.uncertainty);
/// ```
pub fn murphy_decomposition(
    truth: &[u32],
    p: &[f64],
    positive: u32,
    bins: usize,
) -> Result<Murphy> {
    check_len(truth.len(), p.len(), "probabilities")?;
    check_unit(p)?;
    let bin = uniform_bin_of(bins)?;
    let n = p.len() as f64;
    let ids: Vec<usize> = p.iter().map(|&q| bin(q)).collect();
    let (mut count, mut sum_f, mut hits) = (vec![0.0_f64; bins], vec![0.0; bins], vec![0.0; bins]);
    for ((&b, &q), &t) in ids.iter().zip(p).zip(truth) {
        count[b] += 1.0;
        sum_f[b] += q;
        hits[b] += f64::from(u8::from(t == positive));
    }
    let base = hits.iter().sum::<f64>() / n;
    let mean_f: Vec<f64> = (0..bins).map(|b| sum_f[b] / count[b].max(1.0)).collect();
    let freq: Vec<f64> = (0..bins).map(|b| hits[b] / count[b].max(1.0)).collect();
    let (mut reliability, mut resolution) = (0.0, 0.0);
    for b in (0..bins).filter(|&b| count[b] > 0.0) {
        reliability += count[b] * (mean_f[b] - freq[b]) * (mean_f[b] - freq[b]);
        resolution += count[b] * (freq[b] - base) * (freq[b] - base);
    }
    let (mut wbv, mut wbc) = (0.0, 0.0);
    for ((&b, &q), &t) in ids.iter().zip(p).zip(truth) {
        let df = q - mean_f[b];
        let o = f64::from(u8::from(t == positive));
        wbv += df * df;
        wbc += 2.0 * (o - freq[b]) * df;
    }
    Ok(Murphy {
        reliability: reliability / n,
        resolution: resolution / n,
        uncertainty: base * (1.0 - base),
        within_bin_variance: wbv / n,
        within_bin_covariance: wbc / n,
        bins,
    })
}

/// The Murphy decomposition of the multiclass Brier score (the sum over
/// classes, [`brier_multiclass`]): the sum over classes of the binary
/// decomposition of each class's column against that class (one vs rest),
/// each over `bins` equal-width bins, so that the terms add up to the
/// multiclass Brier score as the binary ones add up to the binary score
/// (Stephenson et al. 2008, Sec. 5: the Brier score of several categories
/// is the sum of the binary scores of each category).
///
/// ```
/// use rarity::data::Proba;
/// use rarity::metrics::probability::{brier_multiclass, murphy_multiclass};
/// let p = Proba::new(vec![0.7, 0.2, 0.1, 0.1, 0.3, 0.6, 0.25, 0.5, 0.25], 3);
/// let t = [0, 2, 2];
/// let m = murphy_multiclass(&t, &p, 10).unwrap();
/// let sum = m.reliability - m.resolution + m.uncertainty
///     + m.within_bin_variance - m.within_bin_covariance;
/// assert!((sum - brier_multiclass(&t, &p).unwrap()).abs() < 1e-15);
/// ```
pub fn murphy_multiclass(truth: &[u32], proba: &Proba, bins: usize) -> Result<Murphy> {
    check_proba(truth, proba)?;
    let mut total = Murphy {
        reliability: 0.0,
        resolution: 0.0,
        uncertainty: 0.0,
        within_bin_variance: 0.0,
        within_bin_covariance: 0.0,
        bins,
    };
    for c in 0..proba.n_classes() {
        let m = murphy_decomposition(truth, &proba.column(c), c as u32, bins)?;
        total.reliability += m.reliability;
        total.resolution += m.resolution;
        total.uncertainty += m.uncertainty;
        total.within_bin_variance += m.within_bin_variance;
        total.within_bin_covariance += m.within_bin_covariance;
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multiclass_brier_on_two_columns_is_twice_the_binary() {
        let t = [0, 1, 1];
        let p = Proba::new(vec![0.75, 0.25, 0.5, 0.5, 0.0, 1.0], 2);
        let b = brier_binary(&t, &p.column(1), 1).unwrap();
        assert_eq!(brier_multiclass(&t, &p).unwrap(), 2.0 * b);
        assert_eq!(brier(&t, &p).unwrap(), b);
    }

    #[test]
    fn log_loss_clips_certain_mistakes() {
        let p = Proba::new(vec![1.0, 0.0], 2);
        let l = log_loss(&[1], &p).unwrap();
        assert_eq!(l, -f64::EPSILON.ln());
    }

    #[test]
    fn stratified_brier_of_an_absent_class_is_nan() {
        let p = Proba::new(vec![0.5, 0.25, 0.25], 3);
        let s = stratified_brier(&[0], &p).unwrap();
        assert_eq!(s[0], 0.25);
        assert!(s[1].is_nan() && s[2].is_nan());
    }

    #[test]
    fn invalid_probabilities_are_errors() {
        assert!(brier_binary(&[0], &[1.5], 1).is_err());
        assert!(brier_binary(&[0], &[f64::NAN], 1).is_err());
        let unnormalised = Proba::new(vec![0.5, 0.6], 2);
        assert!(log_loss(&[0], &unnormalised).is_err());
        let p = Proba::new(vec![0.5, 0.5], 2);
        assert!(log_loss(&[2], &p).is_err());
    }
}
