//! The Wilcoxon signed-rank test for paired results, two-sided, matching
//! SciPy 1.17's `scipy.stats.wilcoxon(x, y)` defaults (`zero_method="wilcox"`,
//! `correction=False`, `method="auto"`).
//!
//! With `d = x - y`, zero differences are dropped (Wilcoxon's method) and the
//! others ranked by `|d|` with ties averaged; `W+` and `W-` are the rank sums
//! of the positive and negative differences, and the reported statistic is
//! `min(W+, W-)`. The p-value is, as SciPy's `method="auto"` decides on the
//! number of pairs `n` (zeros included):
//!
//! - **exact** (`n <= 50`, no ties, no zeros): from the exact null
//!   distribution of `W+`, `p = 2 min(P(W+ >= floor w), P(W+ <= ceil w))`;
//! - **permutation** (`n <= 13` with ties or zeros): all `2^n` sign flips of
//!   the differences, `p = 2 min(#(W+* <= w), #(W+* >= w)) / 2^n`;
//! - **normal** otherwise: `z = (W+ - m (m + 1) / 4) / s` with `m` the
//!   non-zero pairs and `s^2 = (m (m + 1)(2m + 1) - sum (t^3 - t) / 2) / 24`
//!   (tie correction over groups of equal `|d|`), no continuity correction,
//!   `p = 2 Phi(-|z|)`.
//!
//! Every p-value is capped at 1.

use crate::{Error, Result};
use statrs::function::erf::erfc;

/// Which null distribution gave the p-value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WilcoxonMethod {
    /// Exact distribution of the signed-rank statistic.
    Exact,
    /// Complete enumeration of sign flips (ties or zeros, few pairs).
    Permutation,
    /// Normal approximation with tie correction.
    Normal,
}

/// Result of the Wilcoxon signed-rank test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Wilcoxon {
    /// `min(W+, W-)`, SciPy's two-sided statistic.
    pub statistic: f64,
    /// Rank sum of the positive differences.
    pub w_plus: f64,
    /// Rank sum of the negative differences.
    pub w_minus: f64,
    /// Two-sided p-value.
    pub p_value: f64,
    /// How the p-value was computed.
    pub method: WilcoxonMethod,
}

/// Two-sided Wilcoxon signed-rank test of paired results `x` and `y`.
///
/// ```
/// use rarity::stats::{wilcoxon, WilcoxonMethod};
/// let x = [10.0, 12.0, 15.0, 9.0, 14.0, 20.0, 11.0, 13.0];
/// let y = [8.0, 13.0, 11.0, 6.0, 9.0, 14.0, 4.0, 5.0];
/// let w = wilcoxon(&x, &y).unwrap();
/// assert_eq!(w.method, WilcoxonMethod::Exact);
/// assert_eq!((w.w_plus, w.w_minus), (35.0, 1.0));
/// assert!((w.p_value - 4.0 / 256.0).abs() < 1e-15);
/// ```
pub fn wilcoxon(x: &[f64], y: &[f64]) -> Result<Wilcoxon> {
    super::check_paired(x, y)?;
    if x.is_empty() {
        return Err(Error::data("the Wilcoxon test needs at least one pair"));
    }
    super::check_finite(x.iter().chain(y))?;
    let d: Vec<f64> = x.iter().zip(y).map(|(a, b)| a - b).collect();
    let n = d.len();
    let nonzero: Vec<f64> = d.iter().copied().filter(|&v| v != 0.0).collect();
    let m = nonzero.len();
    let has_zeros = m < n;
    // Doubled ranks of |d| among the non-zero differences: integers.
    let abs: Vec<f64> = nonzero.iter().map(|v| v.abs()).collect();
    let ranks2: Vec<u64> = super::rankdata(&abs)
        .iter()
        .map(|r| (2.0 * r) as u64)
        .collect();
    let mut sorted = abs.clone();
    sorted.sort_by(f64::total_cmp);
    let tie_groups: Vec<usize> = sorted.chunk_by(|a, b| a == b).map(<[f64]>::len).collect();
    let has_ties = tie_groups.iter().any(|&t| t > 1);
    let w_plus2: u64 = nonzero
        .iter()
        .zip(&ranks2)
        .filter(|(v, _)| **v > 0.0)
        .map(|(_, r)| r)
        .sum();
    let total2 = (m * (m + 1)) as u64;
    let w_plus = w_plus2 as f64 / 2.0;
    let w_minus = (total2 - w_plus2) as f64 / 2.0;

    let method = if n > 50 {
        WilcoxonMethod::Normal
    } else if !(has_ties || has_zeros) {
        WilcoxonMethod::Exact
    } else if n <= 13 {
        WilcoxonMethod::Permutation
    } else {
        WilcoxonMethod::Normal
    };
    let p = match method {
        WilcoxonMethod::Exact => exact_p(m, w_plus),
        WilcoxonMethod::Permutation => permutation_p(&ranks2, w_plus2),
        WilcoxonMethod::Normal => {
            let mf = m as f64;
            let mean = mf * (mf + 1.0) * 0.25;
            let ties: f64 = tie_groups
                .iter()
                .map(|&t| {
                    let t = t as f64;
                    t * t * t - t
                })
                .sum();
            let se = ((mf * (mf + 1.0) * (2.0 * mf + 1.0) - ties / 2.0) / 24.0).sqrt();
            let z = (w_plus - mean) / se;
            erfc(z.abs() / std::f64::consts::SQRT_2)
        }
    };
    Ok(Wilcoxon {
        statistic: w_plus.min(w_minus),
        w_plus,
        w_minus,
        p_value: p.min(1.0),
        method,
    })
}

/// Two-sided exact p-value for `W+ = w` with `m` untied non-zero pairs.
fn exact_p(m: usize, w: f64) -> f64 {
    let max = m * (m + 1) / 2;
    // counts[s]: number of subsets of {1..m} with sum s.
    let mut counts = vec![0u64; max + 1];
    counts[0] = 1;
    for r in 1..=m {
        for s in (r..=max).rev() {
            counts[s] += counts[s - r];
        }
    }
    let total = 2f64.powi(m as i32);
    let (lo, hi) = (w.ceil() as usize, w.floor() as usize);
    let cdf: u64 = counts[..=lo.min(max)].iter().sum();
    let sf: u64 = counts[hi.min(max + 1)..].iter().sum();
    2.0 * (cdf.min(sf) as f64) / total
}

/// Two-sided p-value from all sign flips of the non-zero differences
/// (doubled ranks `ranks2`, observed doubled `W+`). SciPy also flips the
/// zero differences, which multiplies every count by the same power of two
/// and leaves the proportions unchanged.
fn permutation_p(ranks2: &[u64], observed2: u64) -> f64 {
    let m = ranks2.len();
    let (mut le, mut ge) = (0u64, 0u64);
    for mask in 0u64..(1 << m) {
        let s: u64 = (0..m)
            .filter(|&i| mask >> i & 1 == 1)
            .map(|i| ranks2[i])
            .sum();
        le += u64::from(s <= observed2);
        ge += u64::from(s >= observed2);
    }
    2.0 * le.min(ge) as f64 / 2f64.powi(m as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_zero_differences_are_not_significant() {
        let w = wilcoxon(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(w.method, WilcoxonMethod::Permutation);
        assert_eq!(w.p_value, 1.0);
    }

    #[test]
    fn large_samples_use_the_normal_approximation() {
        let x: Vec<f64> = (0..60).map(|i| i as f64).collect();
        let y: Vec<f64> = (0..60)
            .map(|i| i as f64 + if i % 3 == 0 { 0.5 } else { -0.25 })
            .collect();
        let w = wilcoxon(&x, &y).unwrap();
        assert_eq!(w.method, WilcoxonMethod::Normal);
        assert!(w.p_value > 0.0 && w.p_value < 1.0);
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(wilcoxon(&[], &[]).is_err());
        assert!(wilcoxon(&[1.0], &[1.0, 2.0]).is_err());
        assert!(wilcoxon(&[f64::NAN], &[1.0]).is_err());
    }
}
