//! Undoing the prior shift of resampling, and moving to new priors.
//!
//! A sampler that keeps class `k` at rate `r_k` (rows of `k` in the sample
//! over rows of `k` in the input) multiplies the class-conditional mass of
//! `k` by `r_k` while leaving `p(x|k)` unchanged (class-dependent selection).
//! Bayes' rule then gives `p_s,k(x) ∝ r_k p_k(x)`, so
//!
//! ```text
//! p_k(x) = (p_s,k(x) / r_k) / sum_j (p_s,j(x) / r_j)
//! ```
//!
//! For binary undersampling of the negatives at rate `beta` (`r_- = beta`,
//! `r_+ = 1`) this is exactly Dal Pozzolo et al. (2015) eq. 9:
//! `p' = beta p_s / (beta p_s - p_s + 1)`. The map is monotone, so ranking
//! metrics (ROC AUC, average precision) are unchanged.
//!
//! The same algebra with priors in place of rates is Saerens et al.'s
//! adjustment to new test priors (the paper's appendix, eq. 14):
//! `p_t,k ∝ (pi_t,k / pi_s,k) p_s,k`.
//!
//! Measured on the paper's Gaussian task (mu = 3, sigma = 3, 10% positives,
//! n = 10,000 train and test, beta = N+/N- = 1/9 by exact count, a 100-tree
//! forest with leaves of at least 20 rows; `tests/calibration_gaussian.rs`):
//! the mean absolute error to the true posterior is 0.322 for `p_s` and
//! 0.041 for `p'` (7.8 times smaller); with `tau_s = 0.5` and eq. 12's
//! `tau' = 0.1` the labels are identical, so G-mean(p_s, tau_s) =
//! G-mean(p', tau') = 0.673, and ROC AUC is unchanged.

use crate::data::Proba;
use crate::error::{Error, Result};

/// Eq. 9 of Dal Pozzolo et al.: the probability of the positive class
/// corrected for undersampling the negatives at rate `beta`.
///
/// Computed in the odds form `1 / (1 + (1 - p_s) / (p_s beta))`, which equals
/// eq. 9 and is monotone in floating point.
///
/// ```
/// use rarity::calibrate::correct_binary;
/// let (ps, beta) = (0.6_f64, 0.2_f64);
/// let eq9 = beta * ps / (beta * ps - ps + 1.0);
/// assert!((correct_binary(ps, beta) - eq9).abs() < 1e-15);
/// assert_eq!(correct_binary(0.0, 0.2), 0.0);
/// assert_eq!(correct_binary(1.0, 0.2), 1.0);
/// ```
pub fn correct_binary(p_s: f64, beta: f64) -> f64 {
    if p_s <= 0.0 {
        return 0.0;
    }
    1.0 / (1.0 + (1.0 - p_s) / (p_s * beta))
}

/// Checks a vector of per-class rates or priors: one per class, finite, > 0.
pub fn check_rates(rates: &[f64], k: usize, what: &str) -> Result<()> {
    if rates.len() != k {
        return Err(Error::invalid(format!(
            "{} {what} for {k} classes",
            rates.len()
        )));
    }
    if let Some(r) = rates.iter().find(|r| !(r.is_finite() && **r > 0.0)) {
        return Err(Error::invalid(format!(
            "{what} must be finite and > 0, got {r}"
        )));
    }
    Ok(())
}

/// Multiplies one row's probabilities by per-class weights and renormalises.
/// Binary rows use the odds form of [`correct_binary`] with
/// `ratio = w_1 / w_0` given directly (so that `ratio` is exactly beta for
/// undersampling), as a function of the positive column alone: a model's two
/// columns need not sum to 1 to the last bit (a forest averages each
/// separately), and reading both would break ties between rows with equal
/// positive probabilities, changing ROC AUC. Read from one column the
/// correction is monotone, so ranking metrics do not move.
pub(super) fn reweight_row(row: &mut [f64], weights: &[f64], ratio: f64) {
    let k = row.len();
    if k == 2 {
        let q = correct_binary(row[1].min(1.0), ratio);
        row[0] = 1.0 - q;
        row[1] = q;
        return;
    }
    let mut s = 0.0;
    for (v, w) in row.iter_mut().zip(weights) {
        *v *= w;
        s += *v;
    }
    if s > 0.0 {
        row.iter_mut().for_each(|v| *v /= s);
    } else {
        row.iter_mut().for_each(|v| *v = 1.0 / k as f64);
    }
}

fn reweight(proba: &mut Proba, weights: &[f64], ratio: f64) {
    for i in 0..proba.n_rows() {
        reweight_row(proba.row_mut(i), weights, ratio);
    }
}

/// Undoes a sampler's prior shift on one row of probabilities (the rates
/// must be valid: finite and > 0, one per class). Used per bagging member.
///
/// ```
/// use rarity::calibrate::{correct_binary, prior::correct_row};
/// let mut row = [0.5, 0.5];
/// correct_row(&mut row, &[0.25, 1.0]);
/// assert_eq!(row[1], correct_binary(0.5, 0.25));
/// ```
pub fn correct_row(row: &mut [f64], keep_rates: &[f64]) {
    if row.len() == 2 {
        reweight_row(row, &[], keep_rates[0] / keep_rates[1]);
    } else {
        let w: Vec<f64> = keep_rates.iter().map(|r| 1.0 / r).collect();
        reweight_row(row, &w, 1.0);
    }
}

/// Undoes a sampler's prior shift: `p_k ∝ p_s,k / r_k`, in place.
///
/// ```
/// use rarity::calibrate::{correct_binary, correct_keep_rates};
/// use rarity::data::Proba;
/// let mut p = Proba::from_positive(&[0.5, 0.9]);
/// correct_keep_rates(&mut p, &[0.25, 1.0]).unwrap();
/// assert!((p.row(0)[1] - correct_binary(0.5, 0.25)).abs() < 1e-15);
/// ```
pub fn correct_keep_rates(proba: &mut Proba, keep_rates: &[f64]) -> Result<()> {
    check_rates(keep_rates, proba.n_classes(), "keep rates")?;
    let w: Vec<f64> = keep_rates.iter().map(|r| 1.0 / r).collect();
    let ratio = if keep_rates.len() == 2 {
        keep_rates[0] / keep_rates[1]
    } else {
        1.0
    };
    reweight(proba, &w, ratio);
    Ok(())
}

/// Moves probabilities estimated under `train_priors` to `target_priors`
/// (Saerens et al.; eq. 14): `p_t,k ∝ (pi_t,k / pi_s,k) p_s,k`, in place.
///
/// ```
/// use rarity::calibrate::adjust_to_priors;
/// use rarity::data::Proba;
/// let mut p = Proba::from_positive(&[0.5]);
/// adjust_to_priors(&mut p, &[0.5, 0.5], &[0.9, 0.1]).unwrap();
/// assert!((p.row(0)[1] - 0.1).abs() < 1e-15);
/// ```
pub fn adjust_to_priors(
    proba: &mut Proba,
    train_priors: &[f64],
    target_priors: &[f64],
) -> Result<()> {
    let k = proba.n_classes();
    check_rates(train_priors, k, "training priors")?;
    check_rates(target_priors, k, "target priors")?;
    let w: Vec<f64> = target_priors
        .iter()
        .zip(train_priors)
        .map(|(t, s)| t / s)
        .collect();
    let ratio = if k == 2 { w[1] / w[0] } else { 1.0 };
    reweight(proba, &w, ratio);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_keep_rates_are_eq9() {
        for &beta in &[0.05, 0.11, 0.5, 1.0] {
            for i in 0..=100 {
                let ps = i as f64 / 100.0;
                let mut p = Proba::from_positive(&[ps]);
                correct_keep_rates(&mut p, &[beta, 1.0]).unwrap();
                let eq9 = beta * ps / (beta * ps - ps + 1.0);
                assert!((p.row(0)[1] - eq9).abs() < 1e-15, "beta {beta} ps {ps}");
                assert!((correct_binary(ps, beta) - eq9).abs() < 1e-15);
            }
        }
    }

    #[test]
    fn correction_is_monotone_in_floating_point() {
        // Tiny values, then values approaching 1 from below.
        let mut xs: Vec<f64> = (0..2200)
            .map(|i| 1e-300 * 1.37f64.powi(i))
            .filter(|x| *x < 0.5)
            .collect();
        xs.extend((1..53).map(|k| 1.0 - 2f64.powi(-k)));
        let mut prev = correct_binary(0.0, 0.01);
        for x in xs {
            let c = correct_binary(x, 0.01);
            assert!(c >= prev, "{x}");
            prev = c;
        }
    }

    #[test]
    fn multiclass_rates_undo_oversampling() {
        // Class 2 oversampled 4x: its probability shrinks accordingly.
        let mut p = Proba::new(vec![0.2, 0.2, 0.6], 3);
        correct_keep_rates(&mut p, &[1.0, 1.0, 4.0]).unwrap();
        let want = [0.2 / 0.55, 0.2 / 0.55, 0.15 / 0.55];
        for (a, b) in p.row(0).iter().zip(want) {
            assert!((a - b).abs() < 1e-15);
        }
    }

    #[test]
    fn rejects_bad_rates() {
        let mut p = Proba::from_positive(&[0.5]);
        assert!(correct_keep_rates(&mut p, &[0.0, 1.0]).is_err());
        assert!(correct_keep_rates(&mut p, &[1.0]).is_err());
        assert!(adjust_to_priors(&mut p, &[0.5, 0.5], &[f64::NAN, 0.5]).is_err());
    }
}
