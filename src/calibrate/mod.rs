//! Calibrated probabilities.
//!
//! - [`prior`]: undoing the prior shift of any sampler from its keep rates
//!   (Dal Pozzolo et al. 2015, eq. 9 in the binary case), and adjusting to
//!   new known test priors (Saerens et al. 2002; the paper's appendix, eq. 14).
//! - [`em`]: Saerens' EM procedure, estimating unknown test priors from
//!   unlabeled rows.
//! - [`shift`]: the prior shift of a strategy (`+priors(...)`, `+em`) and
//!   the recalibration of any model's scores (`rarity calibrate`).
//! - [`platt`]: Platt scaling (a sigmoid on the score, with Platt's target
//!   smoothing).
//! - [`isotonic`]: isotonic regression by pool adjacent violators.
//!
//! Platt and isotonic calibrators are binary; [`OneVsRest`] applies one per
//! class and renormalises for multiclass problems.

pub mod em;
pub mod isotonic;
pub mod onnx;
pub mod platt;
pub mod prior;
pub mod shift;

use serde::{Deserialize, Serialize};

use crate::data::Proba;
use crate::error::{Error, Result};
use crate::params::choice;

pub use em::{saerens_em, EmEstimate};
pub use isotonic::Isotonic;
pub use platt::Platt;
pub use prior::{adjust_to_priors, correct_binary, correct_keep_rates};
pub use shift::{PriorShift, Recalibrated, Recalibration, Shifted};

/// A fitted binary calibrator: maps a score to a probability.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Calibrator {
    /// Platt's sigmoid.
    Platt(Platt),
    /// Isotonic step function.
    Isotonic(Isotonic),
}

impl Calibrator {
    /// The calibrated probability of one score.
    pub fn apply(&self, score: f64) -> f64 {
        match self {
            Calibrator::Platt(p) => p.apply(score),
            Calibrator::Isotonic(i) => i.apply(score),
        }
    }
}

/// Which calibration to fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CalibrationMethod {
    /// Platt scaling.
    Platt,
    /// Isotonic regression.
    Isotonic,
}

/// A calibration stage of a strategy (`+platt`, `+isotonic`): calibrators
/// fitted on stratified out-of-fold probabilities of the training data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Calibration {
    /// Platt or isotonic.
    pub method: CalibrationMethod,
    /// Stratified folds for the out-of-fold probabilities.
    pub folds: usize,
    /// Keep one calibrated model per fold and average them (scikit-learn's
    /// `CalibratedClassifierCV(ensemble=True)`).
    pub ensemble: bool,
}

choice! {
    /// Where the prior correction of a strategy (`+correct`) is applied in
    /// an ensemble.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    pub enum Correction {
        /// Each member with its own keep rates, before averaging.
        Member = "member",
        /// The average, with the members' mean keep rates.
        Average = "average",
    }
}

/// One calibrator per class (one-vs-rest), outputs renormalised to sum to 1.
/// For two classes a single calibrator on the positive class is used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OneVsRest {
    calibrators: Vec<Calibrator>,
    n_classes: usize,
}

impl OneVsRest {
    /// Fits on (usually out-of-fold) probabilities and true class ids.
    ///
    /// ```
    /// use rarity::calibrate::{CalibrationMethod, OneVsRest};
    /// use rarity::data::Proba;
    /// let p = Proba::from_positive(&[0.1, 0.2, 0.3, 0.8, 0.9, 0.7]);
    /// let c = OneVsRest::fit(&p, &[0, 0, 1, 1, 1, 0], CalibrationMethod::Isotonic).unwrap();
    /// let q = c.transform(&p);
    /// assert!((q.row(0)[0] + q.row(0)[1] - 1.0).abs() < 1e-12);
    /// ```
    pub fn fit(proba: &Proba, truth: &[u32], method: CalibrationMethod) -> Result<Self> {
        if proba.n_rows() != truth.len() {
            return Err(Error::invalid(format!(
                "{} probability rows for {} labels",
                proba.n_rows(),
                truth.len()
            )));
        }
        let k = proba.n_classes();
        let classes: Vec<usize> = if k == 2 { vec![1] } else { (0..k).collect() };
        let mut calibrators = Vec::with_capacity(classes.len());
        for c in classes {
            let scores = proba.column(c);
            let hits: Vec<bool> = truth.iter().map(|&t| t as usize == c).collect();
            calibrators.push(match method {
                CalibrationMethod::Platt => Calibrator::Platt(Platt::fit(&scores, &hits)?),
                CalibrationMethod::Isotonic => {
                    Calibrator::Isotonic(Isotonic::fit(&scores, &hits, None)?)
                }
            });
        }
        Ok(OneVsRest {
            calibrators,
            n_classes: k,
        })
    }

    /// Whether calibrators read from a file fit a model of `k` classes:
    /// one calibrator for two classes, else one per class, each usable.
    pub fn validate(&self, k: usize) -> std::result::Result<(), String> {
        let want = if k == 2 { 1 } else { k };
        if self.n_classes != k || self.calibrators.len() != want {
            return Err(format!(
                "the calibrator is for {} classes with {} calibrators; the model has {k} classes",
                self.n_classes,
                self.calibrators.len()
            ));
        }
        self.calibrators.iter().try_for_each(|c| match c {
            Calibrator::Platt(p) => crate::check::finite("Platt parameter", &[p.a, p.b]),
            Calibrator::Isotonic(i) => i.validate(),
        })
    }

    /// The method its calibrators were fitted with.
    pub fn method(&self) -> CalibrationMethod {
        match self.calibrators.first() {
            Some(Calibrator::Isotonic(_)) => CalibrationMethod::Isotonic,
            _ => CalibrationMethod::Platt,
        }
    }

    /// The slope `a` of the first Platt sigmoid `1 / (1 + exp(a f + b))`
    /// that decreases in its score (`a > 0`), if any: such a calibrator
    /// reverses the order of the probabilities it maps. An isotonic map and
    /// a sigmoid with `a <= 0` are non-decreasing.
    pub fn reversing_slope(&self) -> Option<f64> {
        self.calibrators.iter().find_map(|c| match c {
            Calibrator::Platt(p) if p.a > 0.0 => Some(p.a),
            _ => None,
        })
    }

    /// Calibrated probabilities.
    pub fn transform(&self, proba: &Proba) -> Proba {
        let k = self.n_classes;
        let mut out = Proba::zeros(proba.n_rows(), k);
        for i in 0..proba.n_rows() {
            let row = proba.row(i);
            let o = out.row_mut(i);
            if k == 2 {
                let p = self.calibrators[0].apply(row[1]).clamp(0.0, 1.0);
                o[0] = 1.0 - p;
                o[1] = p;
            } else {
                for c in 0..k {
                    o[c] = self.calibrators[c].apply(row[c]).max(0.0);
                }
            }
        }
        if k > 2 {
            out.normalise_rows();
        }
        out
    }
}
