//! Paired comparisons of two methods over datasets: the paired t-test
//! (SciPy's `ttest_rel`, two-sided), win/tie/loss counts (Collell et al.
//! 2018, Table 4), and the mean and sample standard deviation (`ddof = 1`,
//! NumPy's `std(ddof=1)`).

use crate::{Error, Result};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Arithmetic mean (`NaN` when empty).
pub fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

/// Sample standard deviation with `n - 1` in the denominator (`NaN` with
/// fewer than two values).
///
/// ```
/// use rarity::stats::std_dev;
/// assert_eq!(std_dev(&[1.0, 2.0, 3.0, 4.0]), (5.0f64 / 3.0).sqrt());
/// ```
pub fn std_dev(x: &[f64]) -> f64 {
    if x.len() < 2 {
        return f64::NAN;
    }
    let m = mean(x);
    let ss: f64 = x.iter().map(|v| (v - m) * (v - m)).sum();
    (ss / (x.len() - 1) as f64).sqrt()
}

/// Result of a paired t-test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedT {
    /// `mean(d) / (sd(d) / sqrt n)` with `d = x - y` (`+-inf` when the
    /// differences are constant and non-zero, `NaN` when all are zero).
    pub t: f64,
    /// Degrees of freedom, `n - 1`.
    pub df: f64,
    /// Two-sided p-value (`NaN` when `t` is).
    pub p_value: f64,
}

/// Two-sided paired t-test of `x` against `y`.
///
/// ```
/// use rarity::stats::paired_t_test;
/// let r = paired_t_test(&[2.0, 4.0, 6.0], &[1.0, 2.0, 3.0]).unwrap();
/// assert!((r.t - 2.0 * 3f64.sqrt()).abs() < 1e-12);
/// assert_eq!(r.df, 2.0);
/// ```
pub fn paired_t_test(x: &[f64], y: &[f64]) -> Result<PairedT> {
    super::check_paired(x, y)?;
    if x.len() < 2 {
        return Err(Error::data("the paired t-test needs at least two pairs"));
    }
    super::check_finite(x.iter().chain(y))?;
    let d: Vec<f64> = x.iter().zip(y).map(|(a, b)| a - b).collect();
    let n = d.len() as f64;
    let df = n - 1.0;
    let t = mean(&d) / (std_dev(&d) / n.sqrt());
    let p_value = if t.is_nan() {
        f64::NAN
    } else if t.is_infinite() {
        0.0
    } else {
        let dist = StudentsT::new(0.0, 1.0, df).map_err(|e| Error::data(e.to_string()))?;
        (2.0 * dist.sf(t.abs())).min(1.0)
    };
    Ok(PairedT { t, df, p_value })
}

/// Wins, ties and losses of one method against another over datasets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WinTieLoss {
    /// Datasets where the first method is better.
    pub wins: usize,
    /// Datasets with equal results.
    pub ties: usize,
    /// Datasets where the second method is better.
    pub losses: usize,
}

/// Counts datasets where `x` beats, equals or loses to `y` (exact
/// comparison); `higher_is_better` says which way is better.
///
/// ```
/// use rarity::stats::win_tie_loss;
/// let w = win_tie_loss(&[0.9, 0.8, 0.7], &[0.85, 0.8, 0.75], true).unwrap();
/// assert_eq!((w.wins, w.ties, w.losses), (1, 1, 1));
/// ```
pub fn win_tie_loss(x: &[f64], y: &[f64], higher_is_better: bool) -> Result<WinTieLoss> {
    super::check_paired(x, y)?;
    let mut w = WinTieLoss {
        wins: 0,
        ties: 0,
        losses: 0,
    };
    for (&a, &b) in x.iter().zip(y) {
        if a.is_nan() || b.is_nan() {
            return Err(Error::data("win/tie/loss counts need numbers, found NaN"));
        }
        let (a, b) = if higher_is_better { (a, b) } else { (b, a) };
        if a > b {
            w.wins += 1;
        } else if a < b {
            w.losses += 1;
        } else {
            w.ties += 1;
        }
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_differences() {
        let zero = paired_t_test(&[1.0, 2.0], &[1.0, 2.0]).unwrap();
        assert!(zero.t.is_nan() && zero.p_value.is_nan());
        let shift = paired_t_test(&[2.0, 3.0], &[1.0, 2.0]).unwrap();
        assert!(shift.t.is_infinite());
        assert_eq!(shift.p_value, 0.0);
        assert!(paired_t_test(&[1.0], &[2.0]).is_err());
    }

    #[test]
    fn lower_is_better_swaps_wins_and_losses() {
        let w = win_tie_loss(&[0.1, 0.3], &[0.2, 0.2], false).unwrap();
        assert_eq!((w.wins, w.ties, w.losses), (1, 0, 1));
        assert!(std_dev(&[1.0]).is_nan());
    }

    #[test]
    fn paired_tests_reject_unequal_lengths_and_non_finite_results() {
        let msg = |r: Result<()>| r.unwrap_err().to_string();
        let (x, y, inf) = ([1.0, 2.0, 3.0], [1.0, 2.0], [1.0, f64::INFINITY]);
        for e in [
            msg(paired_t_test(&x, &y).map(drop)),
            msg(super::super::wilcoxon(&x, &y).map(drop)),
            msg(win_tie_loss(&x, &y, true).map(drop)),
        ] {
            assert!(
                e.contains("paired results differ in length: 3 and 2"),
                "{e}"
            );
        }
        for e in [
            msg(paired_t_test(&y, &inf).map(drop)),
            msg(super::super::wilcoxon(&y, &inf).map(drop)),
        ] {
            assert!(e.contains("result inf is not a finite number"), "{e}");
        }
    }
}
