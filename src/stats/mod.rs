//! Statistics for comparing methods over datasets: ranks, rank sums,
//! Friedman and Iman-Davenport tests, Nemenyi critical differences and
//! p-values, the Wilcoxon signed-rank test, the paired t-test, win/tie/loss
//! counts, mean and standard deviation.
//!
//! The protocols are Demsar (2006, "Statistical comparisons of classifiers
//! over multiple data sets"), Dal Pozzolo et al. (2015, Table V: rank sums
//! and paired t-tests on ranks) and Collell et al. (2018: Friedman, Nemenyi,
//! Wilcoxon, win/tie/loss). Every test matches SciPy 1.17
//! (`scipy.stats.friedmanchisquare`, `wilcoxon`, `ttest_rel`,
//! `studentized_range`) and is checked against it on committed fixtures.
//! The chi-square, F, t and normal distributions come from `statrs`.
//!
//! Tables are given as rows of equal length: one row per dataset (or cell),
//! one column per method.

pub mod bootstrap;
mod describe;
mod friedman;
mod nemenyi;
mod ranks;
mod wilcoxon;

pub use describe::{mean, paired_t_test, std_dev, win_tie_loss, PairedT, WinTieLoss};
pub use friedman::{friedman, Friedman};
pub use nemenyi::{critical_difference, nemenyi_p_value, nemenyi_q, studentized_range_cdf};
pub use ranks::{mean_ranks, rank_sums, rankdata};
pub use wilcoxon::{wilcoxon, Wilcoxon, WilcoxonMethod};

use crate::{Error, Result};

/// Checks a table of results: at least one row, rows of equal length with at
/// least `min_methods` columns, finite values.
pub(crate) fn check_table(table: &[Vec<f64>], min_methods: usize) -> Result<usize> {
    let k = table.first().map_or(0, Vec::len);
    if table.is_empty() || k < min_methods {
        return Err(Error::data(format!(
            "the comparison needs at least one dataset and {min_methods} methods; got {} rows of {k}",
            table.len()
        )));
    }
    for (i, row) in table.iter().enumerate() {
        if row.len() != k {
            return Err(Error::data(format!(
                "row {} has {} results but row 1 has {k}; give one result per method in every row",
                i + 1,
                row.len()
            )));
        }
        if let Some(v) = row.iter().find(|v| !v.is_finite()) {
            return Err(Error::data(format!(
                "row {}: result {v} is not a finite number",
                i + 1
            )));
        }
    }
    Ok(k)
}

/// Checks paired results: `x` and `y` of equal length.
fn check_paired(x: &[f64], y: &[f64]) -> Result<()> {
    if x.len() != y.len() {
        return Err(Error::data(format!(
            "paired results differ in length: {} and {}",
            x.len(),
            y.len()
        )));
    }
    Ok(())
}

/// Checks that every result is a finite number.
fn check_finite<'a>(mut results: impl Iterator<Item = &'a f64>) -> Result<()> {
    match results.find(|v| !v.is_finite()) {
        Some(v) => Err(Error::data(format!("result {v} is not a finite number"))),
        None => Ok(()),
    }
}
