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
//! n = 10,000, beta = N+/N-): see the tests of `crate::calibrate` for the
//! mean absolute error of `p'` and `p_s` to the true posterior.

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

fn check_rates(rates: &[f64], k: usize, what: &str) -> Result<()> {
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

/// Multiplies each class column by its weight and renormalises each row, in
/// place. Binary rows use the odds form with `ratio = w_1 / w_0` given
/// directly (so that `ratio` is exactly beta for undersampling).
fn reweight(proba: &mut Proba, weights: &[f64], ratio: f64) {
    let k = proba.n_classes();
    if k == 2 {
        for i in 0..proba.n_rows() {
            let row = proba.row_mut(i);
            let (p0, p1) = (row[0], row[1]);
            let q = if p1 <= 0.0 {
                0.0
            } else if p0 <= 0.0 {
                1.0
            } else {
                1.0 / (1.0 + p0 / (p1 * ratio))
            };
            row[0] = 1.0 - q;
            row[1] = q;
        }
        return;
    }
    for i in 0..proba.n_rows() {
        let row = proba.row_mut(i);
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
