//! Prior-corrected cross-validation: choosing a learner when the training
//! set `D` under-represents a class (class bias, Fan & Davidson 2006, Sec.
//! 2: `P(s = 1 | x, y) = P(s = 1 | y)`), so that `p(x | y)` is the same in
//! `D` and in the target population `T` and only the priors differ.
//!
//! The target priors are estimated from `T` without labels by the EM
//! procedure of Saerens, Latinne & Decaestecker (2002, eq. 2.9-2.10;
//! [`crate::calibrate::saerens_em`]) run on each learner's cross-validation
//! fold models' mean posterior on `T`. Every validation row `i` of `D` is
//! then weighted by `pi_T(y_i) / pi_D(y_i)`: under class bias the weighted
//! mean loss on `D` is an unbiased estimate of the loss on `T` (the
//! importance weight `p_T(x, y) / p_D(x, y)` of Sugiyama, Krauledat &
//! Müller 2007 reduces to the prior ratio). The weights have mean 1 on `D`
//! by construction (`sum_i pi_T(y_i) / pi_D(y_i) = n sum_k pi_T(k)`).
//!
//! Which estimate weights the rows ([`PriorSource`]): `mean`, the mean of
//! the learners' estimates, one weighting for every learner; `own`, each
//! learner's own estimate for its own rows.
//!
//! **Test for a prior shift** ([`PriorShift`]): Saerens et al.'s
//! likelihood-ratio test ("Testing for different a priori probabilities"):
//! `2 sum_{x in T} ln sum_k (pi_T(k) / pi_D(k)) p(k | x)` against a
//! chi-square with `k - 1` degrees of freedom, on the learners' mean
//! posterior (EM run on it).

use serde::Serialize;
use statrs::distribution::{ChiSquared, ContinuousCDF};

use crate::calibrate::{saerens_em, CalibrationMethod, OneVsRest};
use crate::data::{Dataset, Proba};
use crate::error::{Error, Result};
use crate::params::{choice, params, Bounds};

use super::comparator::OutOfFold;

choice! {
    /// Whose prior estimate weights a learner's validation rows.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
    pub enum PriorSource {
        /// The mean of every learner's estimate.
        Mean = "mean",
        /// The per-class median of the learners' estimates, renormalised.
        Median = "median",
        /// EM on the mean of the learners' posteriors.
        Committee = "committee",
        /// The learner's own estimate.
        Own = "own",
    }
}

choice! {
    /// How a learner's posteriors on the target are calibrated before EM.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
    pub enum PriorCalibration {
        /// As the learner gives them.
        None = "none",
        /// Platt scaling (one-vs-rest) fitted on its out-of-fold predictions on the training set.
        Platt = "platt",
        /// Isotonic regression (one-vs-rest) fitted on its out-of-fold predictions on the training set.
        Isotonic = "isotonic",
    }
}

choice! {
    /// How each learner estimates the target priors.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
    pub enum PriorEstimator {
        /// Saerens et al.'s EM on the learner's posteriors on the target.
        Em = "em",
        /// Black-box shift estimation (Lipton, Wang & Smola 2018): the
        /// confusion matrix of the out-of-fold labels on the training set,
        /// inverted against the label shares predicted on the target.
        Bbse = "bbse",
    }
}

params! {
    /// Prior-corrected cross-validation.
    #[derive(Debug, Clone, PartialEq)]
    pub struct PriorCv {
        /// Cross-validation folds (at most the smallest class's rows).
        pub folds: usize = 10 => Bounds::at_least(2.0),
        /// Repeats of the cross-validation (the measures are averaged).
        pub repeats: usize = 1 => Bounds::at_least(1.0),
        /// Whose estimate of the target priors weights the rows.
        pub priors: PriorSource = PriorSource::Mean,
        /// How each learner's posteriors are calibrated before EM.
        pub calibrate: PriorCalibration = PriorCalibration::None,
        /// How each learner estimates the target priors.
        pub estimator: PriorEstimator = PriorEstimator::Em,
    }
}

/// EM's tolerance and iteration cap.
const EM_TOL: f64 = 1e-8;
const EM_MAX_ITER: usize = 10_000;

/// The estimated target priors and the test for a prior shift.
#[derive(Debug, Clone, Serialize)]
pub struct PriorShift {
    /// The class priors of `D`.
    pub train: Vec<f64>,
    /// Each learner's EM estimate of the priors of `T`.
    pub per_learner: Vec<Vec<f64>>,
    /// The mean of the learners' estimates.
    pub mean: Vec<f64>,
    /// The per-class median of the learners' estimates, renormalised.
    pub median: Vec<f64>,
    /// EM on the learners' mean posterior.
    pub committee: Vec<f64>,
    /// The likelihood-ratio statistic on the learners' mean posterior.
    pub statistic: f64,
    /// Its p-value (chi-square, `k - 1` degrees of freedom).
    pub p_value: f64,
    /// `p_value < 0.01`.
    pub detected: bool,
}

/// Training priors with absent classes raised to `1e-12` (EM divides by
/// them; such a class has no row to weight and its posteriors are 0).
fn positive_priors(train: &Dataset) -> Vec<f64> {
    train.priors().iter().map(|p| p.max(1e-12)).collect()
}

/// EM's estimate of the priors of the rows whose posteriors (under the
/// training priors) are `p`.
fn em(p: &Proba, train_priors: &[f64]) -> Result<Vec<f64>> {
    Ok(saerens_em(p, train_priors, EM_TOL, EM_MAX_ITER)?.priors)
}

/// Estimates the target priors from the fold models' posteriors on `T`
/// (`oof.on_target`), calibrated as `calibration` says on the out-of-fold
/// predictions on `D`, and tests for a prior shift.
pub fn estimate_priors(
    oof: &OutOfFold,
    train: &Dataset,
    calibration: PriorCalibration,
    estimator: PriorEstimator,
) -> Result<PriorShift> {
    if oof.on_target.is_empty() {
        return Err(Error::invalid(
            "prior-corrected cross-validation needs the learners' predictions on the target population",
        ));
    }
    let method = match calibration {
        PriorCalibration::None => None,
        PriorCalibration::Platt => Some(CalibrationMethod::Platt),
        PriorCalibration::Isotonic => Some(CalibrationMethod::Isotonic),
    };
    let posteriors: Vec<Proba> = match method {
        None => oof.on_target.clone(),
        Some(m) => oof
            .on_target
            .iter()
            .zip(&oof.on_train)
            .map(|(t, d)| Ok(OneVsRest::fit(&d[0], train.labels(), m)?.transform(t)))
            .collect::<Result<_>>()?,
    };
    let first = &posteriors[0];
    let pi_d = positive_priors(train);
    let k = pi_d.len();
    let per_learner = match estimator {
        PriorEstimator::Em => posteriors
            .iter()
            .map(|p| em(p, &pi_d))
            .collect::<Result<Vec<_>>>()?,
        PriorEstimator::Bbse => posteriors
            .iter()
            .zip(&oof.on_train)
            .map(|(t, d)| bbse(&d[0], train.labels(), t, &pi_d))
            .collect(),
    };
    let l = per_learner.len() as f64;
    let mean: Vec<f64> = (0..k)
        .map(|c| per_learner.iter().map(|e| e[c]).sum::<f64>() / l)
        .collect();
    // The test, on the learners' mean posterior.
    let mut committee = Proba::zeros(first.n_rows(), k);
    for p in &posteriors {
        committee
            .values_mut()
            .iter_mut()
            .zip(p.values())
            .for_each(|(a, v)| *a += v / l);
    }
    let pi_t = em(&committee, &pi_d)?;
    let statistic = 2.0
        * (0..committee.n_rows())
            .map(|i| {
                let s: f64 = committee
                    .row(i)
                    .iter()
                    .zip(pi_t.iter().zip(&pi_d))
                    .map(|(p, (t, d))| t / d * p)
                    .sum();
                s.max(f64::MIN_POSITIVE).ln()
            })
            .sum::<f64>();
    let chi = ChiSquared::new((k - 1) as f64).map_err(|e| Error::data(e.to_string()))?;
    let p_value = 1.0 - chi.cdf(statistic.max(0.0));
    let mut median: Vec<f64> = (0..k)
        .map(|c| {
            let mut v: Vec<f64> = per_learner.iter().map(|e| e[c]).collect();
            v.sort_by(f64::total_cmp);
            let m = v.len();
            if m % 2 == 1 {
                v[m / 2]
            } else {
                0.5 * (v[m / 2 - 1] + v[m / 2])
            }
        })
        .collect();
    let total: f64 = median.iter().sum();
    median.iter_mut().for_each(|v| *v /= total);
    Ok(PriorShift {
        train: train.priors(),
        per_learner,
        mean,
        median,
        committee: pi_t.clone(),
        statistic,
        p_value,
        detected: p_value < 0.01,
    })
}

/// Black-box shift estimation (Lipton, Wang & Smola 2018, eq. 3-4): with
/// `C[i][j]` the share of training rows of class `j` labelled `i` out of
/// fold (argmax of `on_d`) and `mu[i]` the share of target rows labelled
/// `i` (argmax of `on_t`), solve `C w = mu`; `pi_T = w pi_D`, negative
/// entries set to 0, renormalised. A singular `C` gives the training
/// priors (no estimate).
fn bbse(on_d: &Proba, truth: &[u32], on_t: &Proba, pi_d: &[f64]) -> Vec<f64> {
    let k = pi_d.len();
    let n = truth.len() as f64;
    let mut c = vec![0.0; k * k];
    for (i, (&y, l)) in truth.iter().zip(on_d.argmax()).enumerate() {
        let _ = i;
        c[l * k + y as usize] += 1.0 / n;
    }
    let m = on_t.n_rows() as f64;
    let mut mu = vec![0.0; k];
    for l in on_t.argmax() {
        mu[l] += 1.0 / m;
    }
    match solve(&mut c, &mut mu, k) {
        Some(w) => {
            let mut p: Vec<f64> = w.iter().zip(pi_d).map(|(w, d)| (w * d).max(0.0)).collect();
            let total: f64 = p.iter().sum();
            if total > 0.0 {
                p.iter_mut().for_each(|v| *v /= total);
                p
            } else {
                pi_d.to_vec()
            }
        }
        None => pi_d.to_vec(),
    }
}

/// Solves `a x = b` (`a` row-major `k x k`) by Gaussian elimination with
/// partial pivoting; `None` when a pivot is below `1e-12`.
fn solve(a: &mut [f64], b: &mut [f64], k: usize) -> Option<Vec<f64>> {
    for col in 0..k {
        let pivot =
            (col..k).max_by(|&i, &j| a[i * k + col].abs().total_cmp(&a[j * k + col].abs()))?;
        if a[pivot * k + col].abs() < 1e-12 {
            return None;
        }
        for j in 0..k {
            a.swap(col * k + j, pivot * k + j);
        }
        b.swap(col, pivot);
        for row in col + 1..k {
            let f = a[row * k + col] / a[col * k + col];
            for j in col..k {
                a[row * k + j] -= f * a[col * k + j];
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = vec![0.0; k];
    for row in (0..k).rev() {
        let s: f64 = (row + 1..k).map(|j| a[row * k + j] * x[j]).sum();
        x[row] = (b[row] - s) / a[row * k + row];
    }
    Some(x)
}

/// The weight `pi_T(y_i) / pi_D(y_i)` of every training row.
pub fn prior_weights(train: &Dataset, target_priors: &[f64]) -> Vec<f64> {
    let pi_d = positive_priors(train);
    (0..train.n_rows())
        .map(|i| {
            let y = train.label(i);
            target_priors[y] / pi_d[y]
        })
        .collect()
}

impl PriorCv {
    /// The row weights of learner `x` under this method's [`PriorSource`].
    pub fn weights_for(&self, shift: &PriorShift, train: &Dataset, x: usize) -> Vec<f64> {
        match self.priors {
            PriorSource::Mean => prior_weights(train, &shift.mean),
            PriorSource::Median => prior_weights(train, &shift.median),
            PriorSource::Committee => prior_weights(train, &shift.committee),
            PriorSource::Own => prior_weights(train, &shift.per_learner[x]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::comparator::{out_of_fold, OutOfFold};
    use crate::select::test_learners::shifted;
    use crate::split::Splitter;

    /// The fold models' posteriors on `T` as given.
    fn oof_with(target: Vec<Proba>) -> OutOfFold {
        OutOfFold {
            on_train: Vec::new(),
            on_target: target,
            models_built: 0,
        }
    }

    #[test]
    fn weights_are_prior_ratios_with_mean_one() {
        let train = shifted(100, 0.0, 1);
        let pi_d = train.priors();
        let w = prior_weights(&train, &[0.8, 0.2]);
        for (i, wi) in w.iter().enumerate() {
            let y = train.label(i);
            assert!((wi - [0.8, 0.2][y] / pi_d[y]).abs() < 1e-12);
        }
        let mean = w.iter().sum::<f64>() / w.len() as f64;
        assert!((mean - 1.0).abs() < 1e-12);
    }

    #[test]
    fn em_finds_a_shifted_prior_and_the_test_detects_it() {
        // Perfectly calibrated posteriors of a task with 50/50 training
        // priors, on a target with 80% negatives: rows whose positive
        // posterior is 0.9 (positives) or 0.1 (negatives), in proportion.
        let train = shifted(200, 0.0, 1);
        let pi_d = train.priors();
        let odds = |q: f64| {
            // Posterior under pi_d of a row with likelihood ratio 9 or 1/9.
            let r = q * pi_d[1] / (q * pi_d[1] + (1.0 - q) * pi_d[0]);
            Proba::from_positive(&[r])
        };
        let mut p = Vec::new();
        // In T: 20% positives; each class's rows split 90/10 between the two
        // likelihood ratios.
        for i in 0..1000 {
            let positive = i < 200;
            let strong = (i % 10) != 0;
            let q = match (positive, strong) {
                (true, true) | (false, false) => 0.9,
                _ => 0.1,
            };
            p.extend_from_slice(odds(q).values());
        }
        let posterior = Proba::new(p, 2);
        let est = estimate_priors(
            &oof_with(vec![posterior.clone(), posterior]),
            &train,
            PriorCalibration::None,
            PriorEstimator::Em,
        )
        .unwrap();
        assert!((est.mean[1] - 0.2).abs() < 0.02, "{est:?}");
        assert!(est.detected && est.p_value < 1e-6, "{est:?}");
        // T drawn like D: no shift.
        let pd: Vec<f64> = (0..1000)
            .map(|i| {
                let positive = (i as f64) < 1000.0 * pi_d[1];
                let strong = (i % 10) != 0;
                let q = if positive == strong { 0.9 } else { 0.1 };
                odds(q).row(0)[1]
            })
            .collect();
        let same = estimate_priors(
            &oof_with(vec![Proba::from_positive(&pd)]),
            &train,
            PriorCalibration::None,
            PriorEstimator::Em,
        )
        .unwrap();
        assert!(!same.detected, "{same:?}");
        assert!((same.mean[1] - pi_d[1]).abs() < 0.02, "{same:?}");
    }

    #[test]
    fn the_fold_models_predict_the_target() {
        let (train, target) = (shifted(120, 0.0, 1), shifted(80, 0.3, 2));
        let learners = crate::select::test_learners::noisy_tree_and_tree();
        let oof = out_of_fold(&learners, &train, Splitter::k_fold(4), Some(&target), 3).unwrap();
        assert_eq!(oof.on_target.len(), 2);
        assert_eq!(oof.on_target[0].n_rows(), 80);
        assert_eq!(oof.models_built, 8);
        let est =
            estimate_priors(&oof, &train, PriorCalibration::Platt, PriorEstimator::Em).unwrap();
        assert_eq!(est.per_learner.len(), 2);
        let own = PriorCv {
            priors: PriorSource::Own,
            ..PriorCv::default()
        };
        let w = own.weights_for(&est, &train, 1);
        assert_eq!(w, prior_weights(&train, &est.per_learner[1]));
        assert!(estimate_priors(
            &oof_with(Vec::new()),
            &train,
            PriorCalibration::None,
            PriorEstimator::Em
        )
        .is_err());
    }
}
