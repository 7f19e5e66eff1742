//! Estimating unknown test priors from unlabeled rows: the EM procedure of
//! Saerens, Latinne & Decaestecker (2002, "Adjusting the outputs of a
//! classifier to new a priori probabilities").
//!
//! Starting from the training priors, alternate: adjust every row's
//! posterior to the current prior estimate (eq. 14 of Dal Pozzolo et al.'s
//! appendix), then set the prior estimate to the mean adjusted posterior.
//! Stops when no prior moves by more than `tol`.

use serde::Serialize;

use super::prior::adjust_to_priors;
use crate::data::Proba;
use crate::error::{Error, Result};

/// The outcome of [`saerens_em`].
#[derive(Debug, Clone, Serialize)]
pub struct EmEstimate {
    /// Estimated target priors.
    pub priors: Vec<f64>,
    /// Iterations run.
    pub iterations: usize,
    /// Whether the change fell below the tolerance.
    pub converged: bool,
    /// The posteriors adjusted to the estimated priors.
    #[serde(skip)]
    pub adjusted: Proba,
}

/// Runs Saerens' EM on `proba` (posteriors under `train_priors`).
///
/// ```
/// use rarity::calibrate::saerens_em;
/// use rarity::data::Proba;
/// // Posteriors from a model trained at 50/50, on a population where few
/// // rows look positive: the estimated positive prior drops well below 0.5.
/// let p: Vec<f64> = (0..100).map(|i| if i < 20 { 0.9 } else { 0.02 }).collect();
/// let est = saerens_em(&Proba::from_positive(&p), &[0.5, 0.5], 1e-10, 1000).unwrap();
/// assert!(est.converged);
/// assert!(est.priors[1] < 0.2);
/// assert!((est.priors[0] + est.priors[1] - 1.0).abs() < 1e-9);
/// ```
pub fn saerens_em(
    proba: &Proba,
    train_priors: &[f64],
    tol: f64,
    max_iter: usize,
) -> Result<EmEstimate> {
    if proba.n_rows() == 0 {
        return Err(Error::data("EM needs at least one unlabeled row"));
    }
    if tol.is_nan() || tol <= 0.0 {
        return Err(Error::invalid("EM tolerance must be > 0"));
    }
    let k = proba.n_classes();
    let mut priors = train_priors.to_vec();
    let mut adjusted = proba.clone();
    for it in 1..=max_iter {
        adjusted = proba.clone();
        adjust_to_priors(&mut adjusted, train_priors, &priors)?;
        let mut next = vec![0.0; k];
        for i in 0..adjusted.n_rows() {
            for (n, v) in next.iter_mut().zip(adjusted.row(i)) {
                *n += v;
            }
        }
        let n = adjusted.n_rows() as f64;
        // Keep every prior strictly positive so the next adjustment is defined.
        next.iter_mut().for_each(|v| *v = (*v / n).max(1e-12));
        let change = next
            .iter()
            .zip(&priors)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        priors = next;
        if change < tol {
            adjusted = proba.clone();
            adjust_to_priors(&mut adjusted, train_priors, &priors)?;
            return Ok(EmEstimate {
                priors,
                iterations: it,
                converged: true,
                adjusted,
            });
        }
    }
    Ok(EmEstimate {
        priors,
        iterations: max_iter,
        converged: false,
        adjusted,
    })
}

/// Saerens' EM for two classes on grouped rows: `weights[g]` rows whose
/// positive-class posterior under `train_priors` is `p[g]` (a histogram of
/// the probabilities, `rarity monitor`'s bootstrap replicates). The same
/// iteration as [`saerens_em`] with each group standing for its rows: with
/// one group per row and unit weights, the same estimate up to the order
/// of the sums. Returns the priors, the iterations run and whether it
/// converged.
///
/// ```
/// use rarity::calibrate::em::{saerens_em, saerens_em_grouped};
/// use rarity::data::Proba;
/// let p = [0.9, 0.9, 0.02, 0.02, 0.02, 0.3];
/// let rows = saerens_em(&Proba::from_positive(&p), &[0.5, 0.5], 1e-12, 1000).unwrap();
/// let (grouped, _, converged) =
///     saerens_em_grouped(&[0.9, 0.02, 0.3], &[2.0, 3.0, 1.0], &[0.5, 0.5], 1e-12, 1000).unwrap();
/// assert!(converged && (grouped[1] - rows.priors[1]).abs() < 1e-12);
/// ```
pub fn saerens_em_grouped(
    p: &[f64],
    weights: &[f64],
    train_priors: &[f64],
    tol: f64,
    max_iter: usize,
) -> Result<(Vec<f64>, usize, bool)> {
    let total = weighted_input(p.len() == weights.len(), weights, train_priors, 2, tol)?;
    let mut priors = train_priors.to_vec();
    for it in 1..=max_iter {
        let ratio = (priors[1] / train_priors[1]) / (priors[0] / train_priors[0]);
        let mut pos = 0.0;
        for (&x, &w) in p.iter().zip(weights) {
            pos += w * super::correct_binary(x.min(1.0), ratio);
        }
        let next = [((total - pos) / total).max(1e-12), (pos / total).max(1e-12)];
        let change = (next[0] - priors[0]).abs().max((next[1] - priors[1]).abs());
        priors = next.to_vec();
        if change < tol {
            return Ok((priors, it, true));
        }
    }
    Ok((priors, max_iter, false))
}

/// The checks of EM's weighted forms ([`saerens_em_grouped`],
/// [`saerens_em_weighted`]): rows and weights of matching shapes
/// (`shaped`), weights of a positive total (returned), a tolerance above 0
/// and training priors of `k` classes.
fn weighted_input(
    shaped: bool,
    weights: &[f64],
    train_priors: &[f64],
    k: usize,
    tol: f64,
) -> Result<f64> {
    let total: f64 = weights.iter().sum();
    if !shaped || total.is_nan() || total <= 0.0 {
        return Err(Error::data("EM needs at least one unlabeled row"));
    }
    if tol.is_nan() || tol <= 0.0 {
        return Err(Error::invalid("EM tolerance must be > 0"));
    }
    super::prior::check_rates(train_priors, k, "training priors")?;
    Ok(total)
}

/// Saerens' EM for any number of classes on weighted rows: `weights[g]`
/// rows whose posteriors under `train_priors` are row `g` of `rows` (`k`
/// values each; `rarity monitor`'s sample of probability vectors and its
/// bootstrap replicates). The iteration of [`saerens_em`], each row's
/// adjusted posterior counted `weights[g]` times: with unit weights, the
/// same estimate up to the order of the sums. Returns the priors, the
/// iterations run and whether it converged.
///
/// ```
/// use rarity::calibrate::em::{saerens_em, saerens_em_weighted};
/// use rarity::data::Proba;
/// let rows = [0.7, 0.2, 0.1, 0.1, 0.3, 0.6, 0.7, 0.2, 0.1];
/// let one = saerens_em(&Proba::new(rows.to_vec(), 3), &[0.5, 0.3, 0.2], 1e-12, 1000).unwrap();
/// let (w, _, converged) =
///     saerens_em_weighted(&rows[..6], 3, &[2.0, 1.0], &[0.5, 0.3, 0.2], 1e-12, 1000).unwrap();
/// assert!(converged && (w[2] - one.priors[2]).abs() < 1e-12);
/// ```
pub fn saerens_em_weighted(
    rows: &[f64],
    k: usize,
    weights: &[f64],
    train_priors: &[f64],
    tol: f64,
    max_iter: usize,
) -> Result<(Vec<f64>, usize, bool)> {
    let shaped = k > 0 && rows.len() == weights.len() * k;
    let total = weighted_input(shaped, weights, train_priors, k, tol)?;
    let mut priors = train_priors.to_vec();
    let mut row = vec![0.0; k];
    for it in 1..=max_iter {
        let w: Vec<f64> = (priors.iter().zip(train_priors))
            .map(|(t, s)| t / s)
            .collect();
        let ratio = if k == 2 { w[1] / w[0] } else { 1.0 };
        let mut next = vec![0.0; k];
        for (r, &m) in rows.chunks_exact(k).zip(weights) {
            row.copy_from_slice(r);
            super::prior::reweight_row(&mut row, &w, ratio);
            (next.iter_mut().zip(&row)).for_each(|(n, v)| *n += m * v);
        }
        next.iter_mut().for_each(|v| *v = (*v / total).max(1e-12));
        let change = (next.iter().zip(&priors))
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        priors = next;
        if change < tol {
            return Ok((priors, it, true));
        }
    }
    Ok((priors, max_iter, false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::synth::GaussianTask;

    #[test]
    fn recovers_shifted_priors_on_the_gaussian_task() {
        // True posteriors under a 50/50 training prior, applied to a test
        // population with 10% positives: EM should find ~0.1.
        let task = GaussianTask {
            n: 20_000,
            mu: 4.0,
            ..GaussianTask::default()
        };
        let (ds, _) = task.generate(3).unwrap();
        let balanced = GaussianTask {
            positive_rate: 0.5,
            ..task
        };
        let p: Vec<f64> = (0..ds.n_rows())
            .map(|i| balanced.posterior(ds.row(i)))
            .collect();
        let est = saerens_em(&Proba::from_positive(&p), &[0.5, 0.5], 1e-9, 10_000).unwrap();
        assert!(est.converged, "{} iterations", est.iterations);
        assert!((est.priors[1] - 0.1).abs() < 0.01, "{:?}", est.priors);
    }
}
