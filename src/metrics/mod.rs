//! Metrics: confusion-matrix rates, ranking (ROC AUC, average precision),
//! probability quality (Brier, log loss, calibration), costs and benefits, and
//! the report behind `rarity score`.
//!
//! Every metric scikit-learn has is computed by scikit-learn's definition
//! (version 1.9) and checked against it on committed fixtures
//! (`tests/fixtures/metrics.json`, made by `tools/gen_metric_fixtures.py`).
//! Where rarity defines something scikit-learn lacks (stratified Brier,
//! Murphy decomposition, expected calibration error, costs), the item's doc
//! says so and cites its source.
//!
//! Conventions shared by the modules:
//! - class ids are `u32` in `0..k`; a binary problem has classes 0 and 1 and
//!   the positive (rare) class is 1;
//! - a rate whose denominator is zero is 0, as scikit-learn's default
//!   `zero_division="warn"`;
//! - a metric that is undefined on the data (ROC AUC with one class present,
//!   ...) is `NaN`; input that cannot be scored (empty, mismatched lengths,
//!   probabilities outside `[0, 1]`, ...) is an [`Error`](crate::Error).

pub mod budget;
pub mod calibration;
pub mod catalogue;
pub mod confusion;
pub mod cost;
pub mod drift;
pub mod multiclass_summary;
pub mod probability;
pub mod profile;
pub mod ranges;
pub mod ranking;
pub mod report;
mod sort;
pub mod summary;
pub mod vectors;

pub use confusion::{Average, BinaryCounts, Confusion};
pub use report::{report_with_labels, score_report};

use crate::data::Proba;
use crate::{Error, Result};

/// Largest gap from 1 allowed for the sum of a row of probabilities.
pub const ROW_SUM_TOLERANCE: f64 = 1e-6;

/// Checks that a second input has as many rows as the truth, and that there
/// are rows at all.
pub(crate) fn check_len(n_truth: usize, n_other: usize, what: &str) -> Result<()> {
    if n_truth == 0 {
        return Err(Error::data("nothing to score: there are no rows"));
    }
    if n_truth != n_other {
        return Err(Error::data(format!(
            "{n_truth} true labels but {n_other} {what}; give one per row"
        )));
    }
    Ok(())
}

/// Checks that every probability is a number in `[0, 1]`.
pub(crate) fn check_unit(p: &[f64]) -> Result<()> {
    match p.iter().position(|v| !(0.0..=1.0).contains(v)) {
        Some(i) => Err(Error::data(format!(
            "row {}: probability {} is outside [0, 1]",
            i + 1,
            p[i]
        ))),
        None => Ok(()),
    }
}

/// Checks a probability matrix against the truth: same number of rows, every
/// value in `[0, 1]`, every row summing to 1 within [`ROW_SUM_TOLERANCE`],
/// every label below the number of columns.
pub(crate) fn check_proba(truth: &[u32], proba: &Proba) -> Result<()> {
    check_len(truth.len(), proba.n_rows(), "probability rows")?;
    let k = proba.n_classes();
    if k < 2 {
        return Err(Error::data(
            "probabilities need at least two classes (columns)",
        ));
    }
    check_labels(truth, k)?;
    for i in 0..proba.n_rows() {
        let row = proba.row(i);
        if let Some(v) = row.iter().find(|v| !(0.0..=1.0).contains(*v)) {
            return Err(Error::data(format!(
                "row {}: probability {v} is outside [0, 1]",
                i + 1
            )));
        }
        let s: f64 = row.iter().sum();
        if (s - 1.0).abs() > ROW_SUM_TOLERANCE {
            return Err(Error::data(format!(
                "row {}: probabilities sum to {s}, not 1 (tolerance {ROW_SUM_TOLERANCE})",
                i + 1
            )));
        }
    }
    Ok(())
}

/// Checks that every label is a class id below `k`.
pub(crate) fn check_labels(truth: &[u32], k: usize) -> Result<()> {
    match truth.iter().position(|&t| t as usize >= k) {
        Some(i) => Err(Error::data(format!(
            "row {}: label {} is not a class of the {k} probability columns (0..{})",
            i + 1,
            truth[i],
            k - 1
        ))),
        None => Ok(()),
    }
}
