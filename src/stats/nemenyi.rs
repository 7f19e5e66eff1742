//! The Nemenyi post-hoc test (Demsar 2006, Section 3.2.2).
//!
//! Two methods differ when their mean ranks differ by at least the critical
//! difference `CD = q_alpha sqrt(k (k + 1) / (6 N))`, where `q_alpha` is the
//! studentized range quantile for `k` means and infinite degrees of freedom,
//! divided by `sqrt 2` (Demsar's Table 5a: 1.960, 2.343, 2.569, ... at
//! `alpha = 0.05`). Instead of embedding that table, `q_alpha` is computed
//! for any `k` from the distribution of the range of `k` standard normals,
//!
//! `P(range <= w) = k Int phi(z) (Phi(z) - Phi(z - w))^(k - 1) dz`,
//!
//! integrated by Simpson's rule (step 1/256 over `[-9.5, 9.5]`, error below
//! 1e-10) and inverted by bisection; SciPy's
//! `studentized_range(k, inf)` is the reference. The pairwise p-value is
//! `P(range >= sqrt 2 |R_i - R_j| / sqrt(k (k + 1) / (6 N)))`.

use crate::{Error, Result};
use statrs::function::erf::erfc;

fn phi(z: f64) -> f64 {
    (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt()
}

fn big_phi(z: f64) -> f64 {
    0.5 * erfc(-z / std::f64::consts::SQRT_2)
}

/// CDF of the range of `k` independent standard normal variables
/// (the studentized range with infinite degrees of freedom) at `w`.
///
/// ```
/// use rarity::stats::studentized_range_cdf;
/// // The range of two normals is |X - Y|, i.e. sqrt(2) |Z|.
/// let w = 1.959963984540054 * 2f64.sqrt();
/// assert!((studentized_range_cdf(w, 2) - 0.95).abs() < 1e-9);
/// ```
pub fn studentized_range_cdf(w: f64, k: usize) -> f64 {
    if w <= 0.0 || k < 2 {
        return if k < 2 { 1.0 } else { 0.0 };
    }
    let (a, b, steps) = (-9.5_f64, 9.5_f64, 19 * 256);
    let h = (b - a) / steps as f64;
    let f = |z: f64| phi(z) * (big_phi(z) - big_phi(z - w)).max(0.0).powi(k as i32 - 1);
    let mut sum = f(a) + f(b);
    for i in 1..steps {
        let z = a + i as f64 * h;
        sum += if i % 2 == 1 { 4.0 } else { 2.0 } * f(z);
    }
    (k as f64 * sum * h / 3.0).min(1.0)
}

/// Demsar's `q_alpha` for `k` methods: the `1 - alpha` quantile of the
/// studentized range (infinite degrees of freedom) divided by `sqrt 2`.
///
/// ```
/// use rarity::stats::nemenyi_q;
/// assert!((nemenyi_q(3, 0.05).unwrap() - 2.343).abs() < 1e-3);
/// assert!((nemenyi_q(10, 0.10).unwrap() - 2.920).abs() < 1e-3);
/// ```
pub fn nemenyi_q(k: usize, alpha: f64) -> Result<f64> {
    if k < 2 {
        return Err(Error::invalid(
            "the Nemenyi test needs at least two methods",
        ));
    }
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(Error::invalid(format!(
            "the significance level must lie strictly between 0 and 1, got {alpha}"
        )));
    }
    let (mut lo, mut hi) = (0.0, 20.0);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if studentized_range_cdf(mid, k) < 1.0 - alpha {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-13 {
            break;
        }
    }
    Ok(0.5 * (lo + hi) / std::f64::consts::SQRT_2)
}

/// Nemenyi critical difference of mean ranks for `k` methods over `n`
/// datasets at level `alpha` (e.g. 0.05 or 0.10).
///
/// ```
/// use rarity::stats::critical_difference;
/// // Demsar's example: k = 4 methods, N = 14 datasets, CD = 1.25 at 0.05.
/// let cd = critical_difference(4, 14, 0.05).unwrap();
/// assert!((cd - 1.2535).abs() < 1e-3);
/// ```
pub fn critical_difference(k: usize, n: usize, alpha: f64) -> Result<f64> {
    if n == 0 {
        return Err(Error::invalid(
            "the Nemenyi test needs at least one dataset",
        ));
    }
    let kf = k as f64;
    Ok(nemenyi_q(k, alpha)? * (kf * (kf + 1.0) / (6.0 * n as f64)).sqrt())
}

/// Nemenyi p-value for two of `k` methods whose mean ranks over `n`
/// datasets differ by `rank_difference`.
pub fn nemenyi_p_value(rank_difference: f64, k: usize, n: usize) -> Result<f64> {
    if k < 2 || n == 0 {
        return Err(Error::invalid(
            "the Nemenyi test needs at least two methods and one dataset",
        ));
    }
    let kf = k as f64;
    let se = (kf * (kf + 1.0) / (6.0 * n as f64)).sqrt();
    let w = rank_difference.abs() / se * std::f64::consts::SQRT_2;
    Ok((1.0 - studentized_range_cdf(w, k)).max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_demsars_table_5a() {
        let a05 = [
            1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164,
        ];
        let a10 = [
            1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920,
        ];
        // The table is printed to three decimals (truncated, e.g. 2.3437 as 2.343).
        for (i, (&q05, &q10)) in a05.iter().zip(&a10).enumerate() {
            let k = i + 2;
            assert!((nemenyi_q(k, 0.05).unwrap() - q05).abs() < 1e-3, "k={k}");
            assert!((nemenyi_q(k, 0.10).unwrap() - q10).abs() < 1e-3, "k={k}");
        }
    }

    #[test]
    fn p_value_at_the_critical_difference_is_alpha() {
        let cd = critical_difference(5, 20, 0.05).unwrap();
        assert!((nemenyi_p_value(cd, 5, 20).unwrap() - 0.05).abs() < 1e-9);
        assert!(nemenyi_q(1, 0.05).is_err());
        assert!(nemenyi_q(3, 1.5).is_err());
    }
}
