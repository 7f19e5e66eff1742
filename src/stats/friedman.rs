//! The Friedman test and its Iman-Davenport F form (Demsar 2006, Section
//! 3.2.2).
//!
//! With `N` datasets, `k` methods and `R_j` the rank sum of method `j`
//! (ranks within each dataset, ties averaged), the statistic is SciPy's
//! tie-corrected form (`scipy.stats.friedmanchisquare`):
//!
//! `chi2 = (12 / (N k (k + 1)) sum_j R_j^2 - 3 N (k + 1)) / C`,
//! `C = 1 - sum (t^3 - t) / (N k (k^2 - 1))` over tie groups `t`,
//!
//! which equals Demsar's eq. for data without ties, with `k - 1` degrees of
//! freedom. Iman and Davenport's `F = (N - 1) chi2 / (N (k - 1) - chi2)` has
//! an F distribution with `k - 1` and `(k - 1)(N - 1)` degrees of freedom.

use super::check_table;
use super::ranks::rankdata;
use crate::{Error, Result};
use statrs::distribution::{ChiSquared, ContinuousCDF, FisherSnedecor};

/// Result of the Friedman test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Friedman {
    /// Number of datasets (rows).
    pub n: usize,
    /// Number of methods (columns).
    pub k: usize,
    /// Friedman's chi-square statistic (tie-corrected).
    pub chi2: f64,
    /// Its p-value, chi-square with `k - 1` degrees of freedom.
    pub chi2_p_value: f64,
    /// Iman-Davenport F statistic (`inf` when every dataset ranks the
    /// methods identically).
    pub f: f64,
    /// Its p-value, F with `k - 1` and `(k - 1)(n - 1)` degrees of freedom
    /// (`NaN` with a single dataset).
    pub f_p_value: f64,
}

/// Friedman test of the methods (columns) over the datasets (rows); needs
/// at least three methods, as SciPy.
///
/// ```
/// use rarity::stats::friedman;
/// let t = vec![vec![0.9, 0.8, 0.7], vec![0.85, 0.8, 0.6], vec![0.7, 0.75, 0.6], vec![0.95, 0.9, 0.8]];
/// let f = friedman(&t).unwrap();
/// assert!((f.chi2 - 6.5).abs() < 1e-12);
/// assert!(f.chi2_p_value < 0.05);
/// ```
pub fn friedman(table: &[Vec<f64>]) -> Result<Friedman> {
    let k = check_table(table, 3)?;
    let n = table.len();
    let (nf, kf) = (n as f64, k as f64);
    let mut rank_sums = vec![0.0; k];
    let mut ties = 0.0;
    for row in table {
        let r = rankdata(row);
        for (s, v) in rank_sums.iter_mut().zip(&r) {
            *s += v;
        }
        let mut sorted = row.clone();
        sorted.sort_by(f64::total_cmp);
        for g in sorted.chunk_by(|a, b| a == b) {
            let t = g.len() as f64;
            ties += t * (t * t - 1.0);
        }
    }
    let c = 1.0 - ties / (kf * (kf * kf - 1.0) * nf);
    if c == 0.0 {
        return Err(Error::data(
            "every method has the same result on every dataset; the Friedman test is undefined",
        ));
    }
    let ssbn: f64 = rank_sums.iter().map(|r| r * r).sum();
    let chi2 = (12.0 / (kf * nf * (kf + 1.0)) * ssbn - 3.0 * nf * (kf + 1.0)) / c;
    let chi_dist = ChiSquared::new(kf - 1.0).map_err(|e| Error::data(e.to_string()))?;
    let den = nf * (kf - 1.0) - chi2;
    let f = if den > 0.0 {
        (nf - 1.0) * chi2 / den
    } else {
        f64::INFINITY
    };
    let f_p_value = if n < 2 {
        f64::NAN
    } else if f.is_infinite() {
        0.0
    } else {
        FisherSnedecor::new(kf - 1.0, (kf - 1.0) * (nf - 1.0))
            .map_err(|e| Error::data(e.to_string()))?
            .sf(f)
    };
    Ok(Friedman {
        n,
        k,
        chi2,
        chi2_p_value: chi_dist.sf(chi2),
        f,
        f_p_value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_methods_or_all_ties_are_errors() {
        assert!(friedman(&[vec![1.0, 2.0]]).is_err());
        assert!(friedman(&[vec![1.0, 1.0, 1.0], vec![2.0, 2.0, 2.0]]).is_err());
    }

    #[test]
    fn identical_rankings_give_an_infinite_f() {
        let t = vec![vec![3.0, 2.0, 1.0]; 5];
        let f = friedman(&t).unwrap();
        assert!((f.chi2 - 10.0).abs() < 1e-12);
        assert!(f.f.is_infinite());
        assert_eq!(f.f_p_value, 0.0);
    }
}
