//! Target statistics of a categorical feature (issue 41 item 3): each
//! level's shrunk estimate of p(class | level), one value per class beyond
//! the first, the encoding scikit-learn's `TargetEncoder` and CatBoost use
//! for categories with many levels.
//!
//! Two things make the statistic honest:
//! - **Cross-fitting.** The value a training row gets comes from a table
//!   fitted on the other folds only ([`cross_fit`]): a row's own label never
//!   enters its encoding, so a level seen once does not hand the learner its
//!   label (an in-sample encoding of a noise column with many levels looks
//!   like a strong feature; out of fold it is worth nothing, as it should).
//!   New rows use the table fitted on every training row.
//! - **Correction for sampling.** Each row is weighted by 1 / (its class's
//!   keep rate) when the strategy samples (`class_weight`), so on an
//!   undersampled table the statistic estimates the population's rate, not
//!   the sample's (which is inflated by about 1/beta, as the model's
//!   probabilities are).
//! - **Row weights.** A row that carries a weight (Python's
//!   `sample_weight=`) counts as that many rows: its weight in the
//!   statistic is its own weight times its class's `class_weight`, and it
//!   adds its weight to its level's row count in the shrinkage, so a weight
//!   of `k` gives the table that `k` copies of the row give.
//!
//! Shrinkage: a level's rate is pulled toward the (weighted) prior, with
//! weight `n / (n + m)` for `n` rows of the level: [`Smooth::Count`] fixes
//! `m`; [`Smooth::Auto`] is the empirical-Bayes `m` of scikit-learn's
//! `TargetEncoder` (`smooth="auto"`): the level's variance over the
//! variance of the target. A level not in the table (unseen, missing: NaN)
//! gets the prior.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::rng;

/// How much a level's rate is shrunk toward the prior.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Smooth {
    /// Empirical Bayes: `m` = the level's variance / the target's variance.
    Auto,
    /// A fixed count `m` of prior rows added to each level.
    Count(f64),
}

/// A fitted level table: per level, `k - 1` values (one per class beyond
/// the first), and the prior for levels not in it. Model files store it
/// (the `encode(target)` stage's fitted tables).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelTable {
    /// Classes beyond the first: values per level.
    pub width: usize,
    /// Level-major, `levels * width` values.
    pub values: Vec<f64>,
    /// The weighted class rates of the rows fitted on (classes beyond the
    /// first), for an unseen or missing level.
    pub prior: Vec<f64>,
}

impl LevelTable {
    /// The values of a level code (NaN or a code outside the table: the
    /// prior).
    pub fn value(&self, code: f64) -> &[f64] {
        let levels = self.values.len() / self.width.max(1);
        if code.is_finite() && code >= 0.0 && (code as usize) < levels {
            let l = code as usize;
            &self.values[l * self.width..(l + 1) * self.width]
        } else {
            &self.prior
        }
    }
}

/// The rows of one categorical feature: codes, class ids, the weight of
/// each class (1 / keep rate; all 1 when nothing was sampled) and the rows'
/// own weights, if any.
#[derive(Debug, Clone, Copy)]
pub struct Column<'a> {
    /// Level codes (NaN: missing or unseen).
    pub codes: &'a [f64],
    /// Class ids, one per row.
    pub labels: &'a [u32],
    /// Number of levels.
    pub levels: usize,
    /// Per class, the weight of its rows.
    pub class_weight: &'a [f64],
    /// Per row, its own weight (`None`: every row weighs 1).
    pub row_weight: Option<&'a [f64]>,
}

/// Fits the level table on `rows` of `col`.
pub fn fit_table(col: &Column<'_>, rows: &[usize], smooth: Smooth) -> LevelTable {
    let k = col.class_weight.len();
    let width = k.saturating_sub(1);
    // Per level: row count (rows' own weights), weight, weight per class
    // beyond the first.
    let mut count = vec![0.0; col.levels];
    let mut weight = vec![0.0; col.levels];
    let mut by_class = vec![0.0; col.levels * width];
    let (mut total, mut total_class) = (0.0, vec![0.0; width]);
    for &i in rows {
        let c = col.labels[i] as usize;
        let r = col.row_weight.map_or(1.0, |rw| rw[i]);
        let w = col.class_weight[c] * r;
        total += w;
        if c > 0 {
            total_class[c - 1] += w;
        }
        let code = col.codes[i];
        if !(code.is_finite() && code >= 0.0 && (code as usize) < col.levels) {
            continue;
        }
        let l = code as usize;
        count[l] += r;
        weight[l] += w;
        if c > 0 {
            by_class[l * width + c - 1] += w;
        }
    }
    let prior: Vec<f64> = total_class
        .iter()
        .map(|&s| if total > 0.0 { s / total } else { 0.0 })
        .collect();
    let mut values = vec![0.0; col.levels * width];
    for l in 0..col.levels {
        for c in 0..width {
            let p = prior[c];
            values[l * width + c] = if weight[l] > 0.0 {
                let rate = by_class[l * width + c] / weight[l];
                let m = match smooth {
                    Smooth::Count(m) => m,
                    // The level's Bernoulli variance over the target's.
                    Smooth::Auto if p * (1.0 - p) > 0.0 => rate * (1.0 - rate) / (p * (1.0 - p)),
                    Smooth::Auto => 0.0,
                };
                let lambda = count[l] / (count[l] + m);
                lambda * rate + (1.0 - lambda) * p
            } else {
                p
            };
        }
    }
    LevelTable {
        width,
        values,
        prior,
    }
}

/// Cross-fitted statistics of `col`: each row's values from a table fitted
/// on the other `folds` folds (stratified by class, drawn from `seed`), row-
/// major (`rows * (k - 1)`), and the table fitted on every row (for new
/// rows).
pub fn cross_fit(
    col: &Column<'_>,
    folds: usize,
    smooth: Smooth,
    seed: u64,
) -> Result<(Vec<f64>, LevelTable)> {
    if folds < 2 {
        return Err(Error::invalid(format!(
            "target statistics need at least 2 folds, got {folds}"
        )));
    }
    if let Smooth::Count(m) = smooth {
        if !(m.is_finite() && m >= 0.0) {
            return Err(Error::invalid(format!(
                "smooth must be auto or a count >= 0, got {m}"
            )));
        }
    }
    let n = col.codes.len();
    let fold = stratified_folds(col.labels, col.class_weight.len(), folds, seed);
    let width = col.class_weight.len().saturating_sub(1);
    let mut out = vec![0.0; n * width];
    for f in 0..folds {
        let train: Vec<usize> = (0..n).filter(|&i| fold[i] != f).collect();
        let table = fit_table(col, &train, smooth);
        for i in (0..n).filter(|&i| fold[i] == f) {
            out[i * width..(i + 1) * width].copy_from_slice(table.value(col.codes[i]));
        }
    }
    let all: Vec<usize> = (0..n).collect();
    Ok((out, fit_table(col, &all, smooth)))
}

/// Each row's fold: the rows of each class shuffled, then dealt in turn.
fn stratified_folds(labels: &[u32], k: usize, folds: usize, seed: u64) -> Vec<usize> {
    let mut r = rng::stream(seed, 0);
    let mut fold = vec![0; labels.len()];
    for c in 0..k {
        let mut rows: Vec<usize> = (0..labels.len())
            .filter(|&i| labels[i] as usize == c)
            .collect();
        rng::shuffle(&mut rows, &mut r);
        for (j, &i) in rows.iter().enumerate() {
            fold[i] = j % folds;
        }
    }
    fold
}
