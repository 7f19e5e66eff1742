//! Moving probabilities to other class priors: Saerens, Latinne &
//! Decaestecker (2002), eq. 14 of Dal Pozzolo et al. (2015, appendix),
//! `p_t,k ∝ (pi_t,k / pi_s,k) p_s,k`, to known target priors or to the
//! priors Saerens' EM estimates from the unlabeled rows being predicted
//! ([`super::em`]).
//!
//! [`PriorShift`] is the strategy stage (`+priors(0.01,0.99)`, `+em`);
//! [`Recalibration`] is what `rarity calibrate` does to the scores of any
//! model: undo the sampling it was trained after (eq. 9), then move to other
//! priors, and carry a threshold through the same map (eq. 12).

use serde::{Deserialize, Serialize};

use super::em::saerens_em;
use super::prior::{adjust_to_priors, correct_keep_rates};
use crate::data::Proba;
use crate::error::Result;

/// Where the priors of a prior shift come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum PriorShift {
    /// Known target priors, one per class (`+priors(0.01,0.99)`).
    To(Vec<f64>),
    /// Priors estimated by Saerens' EM on the rows being predicted (`+em`):
    /// it stops when no prior moves by `tol` or more, or after `max_iter`
    /// iterations.
    Em {
        /// Convergence tolerance on the priors.
        tol: f64,
        /// Iteration limit.
        max_iter: usize,
    },
}

/// What a prior shift did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Shifted {
    /// The target priors the probabilities now follow.
    pub priors: Vec<f64>,
    /// EM only: iterations run and whether it converged.
    pub em: Option<(usize, bool)>,
}

impl PriorShift {
    /// Moves `proba`, posteriors under the priors `source`, to the target
    /// priors, in place.
    ///
    /// ```
    /// use rarity::calibrate::PriorShift;
    /// use rarity::data::Proba;
    /// let mut p = Proba::from_positive(&[0.5]);
    /// let s = PriorShift::To(vec![0.9, 0.1]).apply(&mut p, &[0.5, 0.5]).unwrap();
    /// assert!((p.row(0)[1] - 0.1).abs() < 1e-15);
    /// assert_eq!(s.priors, vec![0.9, 0.1]);
    /// ```
    pub fn apply(&self, proba: &mut Proba, source: &[f64]) -> Result<Shifted> {
        match self {
            PriorShift::To(target) => {
                adjust_to_priors(proba, source, target)?;
                Ok(Shifted {
                    priors: target.clone(),
                    em: None,
                })
            }
            PriorShift::Em { tol, max_iter } => {
                let est = saerens_em(proba, source, *tol, *max_iter)?;
                *proba = est.adjusted;
                Ok(Shifted {
                    priors: est.priors,
                    em: Some((est.iterations, est.converged)),
                })
            }
        }
    }
}

/// What `rarity calibrate` applies to the scores of any model, in order:
/// undo the keep rates of the sampling the model was trained after
/// (`p_k ∝ p_s,k / r_k`, eq. 9), then move the corrected probabilities from
/// the training priors to other priors.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Recalibration {
    /// Per class, the rate at which the model's training sample kept the
    /// class (binary undersampling at beta: `[beta, 1]`).
    pub keep_rates: Option<Vec<f64>>,
    /// The shift, with the priors the (corrected) probabilities are under:
    /// the training data's before any sampling.
    pub shift: Option<(PriorShift, Vec<f64>)>,
}

/// Probabilities after a [`Recalibration`].
#[derive(Debug, Clone)]
pub struct Recalibrated {
    /// The corrected (and shifted) probabilities.
    pub proba: Proba,
    /// What the shift did, if there was one.
    pub shifted: Option<Shifted>,
}

impl Recalibration {
    /// Applies the correction and the shift to `proba`.
    ///
    /// ```
    /// use rarity::calibrate::{correct_binary, PriorShift, Recalibration};
    /// use rarity::data::Proba;
    /// let r = Recalibration { keep_rates: Some(vec![0.2, 1.0]), shift: None };
    /// let out = r.apply(&Proba::from_positive(&[0.6])).unwrap();
    /// assert_eq!(out.proba.row(0)[1], correct_binary(0.6, 0.2));
    /// // eq. 12: the threshold carried through the same map.
    /// assert_eq!(r.threshold(0.5, None).unwrap(), correct_binary(0.5, 0.2));
    /// ```
    pub fn apply(&self, proba: &Proba) -> Result<Recalibrated> {
        let mut p = proba.clone();
        if let Some(r) = &self.keep_rates {
            correct_keep_rates(&mut p, r)?;
        }
        let shifted = match &self.shift {
            Some((shift, source)) => Some(shift.apply(&mut p, source)?),
            None => None,
        };
        Ok(Recalibrated { proba: p, shifted })
    }

    /// Binary: the threshold on the output probabilities that labels every
    /// row as `tau_s` does on the input (Dal Pozzolo et al. eq. 12, with the
    /// shift to the priors `shifted` found): `tau_s` put through the same
    /// floating-point map as the probabilities, so the labels agree exactly.
    pub fn threshold(&self, tau_s: f64, shifted: Option<&Shifted>) -> Result<f64> {
        let fixed = Recalibration {
            keep_rates: self.keep_rates.clone(),
            shift: match (&self.shift, shifted) {
                (Some((_, source)), Some(s)) => {
                    Some((PriorShift::To(s.priors.clone()), source.clone()))
                }
                (shift, _) => shift.clone(),
            },
        };
        Ok(fixed.apply(&Proba::from_positive(&[tau_s]))?.proba.row(0)[1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn em_shift_keeps_its_estimate_and_moves_the_rows() {
        let p: Vec<f64> = (0..200).map(|i| if i < 20 { 0.9 } else { 0.05 }).collect();
        let mut proba = Proba::from_positive(&p);
        let s = PriorShift::Em {
            tol: 1e-10,
            max_iter: 10_000,
        }
        .apply(&mut proba, &[0.5, 0.5])
        .unwrap();
        let (_, converged) = s.em.unwrap();
        assert!(converged);
        // At EM's fixed point the estimated prior is the mean posterior.
        let mean = proba.column(1).iter().sum::<f64>() / 200.0;
        assert!((mean - s.priors[1]).abs() < 1e-9, "{mean} {:?}", s.priors);
        assert!(s.priors[1] < 0.5);
    }

    #[test]
    fn threshold_follows_correction_and_shift() {
        let r = Recalibration {
            keep_rates: Some(vec![0.1, 1.0]),
            shift: Some((PriorShift::To(vec![0.99, 0.01]), vec![0.9, 0.1])),
        };
        let ps: Vec<f64> = (0..=1000).map(|i| i as f64 / 1000.0).collect();
        let out = r.apply(&Proba::from_positive(&ps)).unwrap();
        let tau = r.threshold(0.5, out.shifted.as_ref()).unwrap();
        for (a, b) in ps.iter().zip(out.proba.column(1)) {
            assert_eq!(*a >= 0.5, b >= tau, "{a} -> {b}, tau' {tau}");
        }
    }
}
