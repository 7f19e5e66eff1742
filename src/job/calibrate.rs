//! The `calibrate` job (`rarity calibrate`,
//! `rarity.calibration.recalibrate`): a [`CalibrateRequest`] (undo a
//! sample's keep rates, Dal Pozzolo et al. 2015 eq. 9; move to given priors,
//! eq. 14, or to the priors Saerens' EM estimates from the rows) run on
//! probabilities into a [`CalibrateJob`]: the new probabilities, the
//! threshold that gives the same labels (eq. 12), and their JSON and text.

use std::path::Path;

use serde_json::{json, Value};

use super::Front;
use crate::calibrate::{PriorShift, Recalibration, Shifted};
use crate::data::Proba;
use crate::decide::registry::EmParams;
use crate::error::{Error, Result};

/// How to recalibrate: the parameters of `rarity calibrate` and
/// `rarity.calibration.recalibrate`.
#[derive(Debug, Clone)]
pub struct CalibrateRequest {
    /// Binary undersampling rate of the negatives (keep rates `beta, 1`).
    pub beta: Option<f64>,
    /// Per class, the rate at which the training sample kept it.
    pub keep_rates: Option<Vec<f64>>,
    /// Move the (corrected) probabilities to these priors.
    pub to_priors: Option<Vec<f64>>,
    /// Move them to the priors Saerens' EM estimates from the rows.
    pub em: bool,
    /// The priors the (corrected) probabilities are under.
    pub train_priors: Option<Vec<f64>>,
    /// Binary: the threshold on the input whose equivalent on the output
    /// decides the labels.
    pub threshold: f64,
    /// Which front end wrote the request (for its error messages).
    pub front: Front,
}

impl CalibrateRequest {
    /// Checks what needs no probabilities (the threshold).
    pub fn check(&self) -> Result<()> {
        if !(0.0..=1.0).contains(&self.threshold) {
            return Err(Error::invalid(format!(
                "{} {} is not in [0, 1]",
                self.front.param("threshold"),
                self.threshold
            )));
        }
        Ok(())
    }

    /// The recalibration the request describes, for `k` classes.
    fn recalibration(&self, k: usize) -> Result<Recalibration> {
        let p = |name: &str| self.front.param(name);
        let keep_rates = match (self.beta, &self.keep_rates) {
            (Some(_), _) if k != 2 => {
                return Err(Error::invalid(format!(
                    "{} undoes binary undersampling; these scores have {k} classes \
                     (give {}, one per class)",
                    p("beta"),
                    p("keep_rates")
                )))
            }
            (Some(b), _) if !(b > 0.0 && b <= 1.0) => {
                return Err(Error::invalid(format!(
                    "{} {b} is not an undersampling rate in (0, 1]",
                    p("beta")
                )))
            }
            (Some(b), _) => Some(vec![b, 1.0]),
            (None, rates) => rates.clone(),
        };
        let shift = match (&self.to_priors, self.em) {
            (Some(priors), _) => Some(PriorShift::To(priors.clone())),
            (None, true) => {
                let em = EmParams::default();
                Some(PriorShift::Em {
                    tol: em.tol,
                    max_iter: em.max_iter,
                })
            }
            (None, false) => None,
        };
        let shift = match (shift, &self.train_priors) {
            (Some(s), Some(priors)) => Some((s, priors.clone())),
            (Some(_), None) => {
                return Err(Error::invalid(format!(
                    "{} and {} move probabilities from the priors they are under: \
                     give {}, the training data's class priors before any sampling \
                     (e.g. {} 0.998,0.002)",
                    p("to_priors"),
                    p("em"),
                    p("train_priors"),
                    p("train_priors")
                )))
            }
            (None, _) => None,
        };
        if keep_rates.is_none() && shift.is_none() {
            return Err(Error::invalid(format!(
                "nothing to do: give {} or {} (undo sampling), and/or \
                 {} or {} with {} (move to other priors)",
                p("beta"),
                p("keep_rates"),
                p("to_priors"),
                p("em"),
                p("train_priors")
            )));
        }
        Ok(Recalibration { keep_rates, shift })
    }

    /// Recalibrates `proba` and labels the rows: at the threshold
    /// equivalent to the request's (binary), else by the argmax.
    pub fn run(&self, proba: &Proba) -> Result<CalibrateJob> {
        self.check()?;
        let k = proba.n_classes();
        let recal = self.recalibration(k)?;
        let out = recal.apply(proba)?;
        let threshold = if k == 2 {
            Some(recal.threshold(self.threshold, out.shifted.as_ref())?)
        } else {
            None
        };
        let labels: Vec<u32> = match threshold {
            Some(t) => out
                .proba
                .column(1)
                .iter()
                .map(|p| u32::from(*p >= t))
                .collect(),
            None => out.proba.argmax().iter().map(|&c| c as u32).collect(),
        };
        Ok(CalibrateJob {
            proba: out.proba,
            labels,
            keep_rates: recal.keep_rates,
            shifted: out.shifted,
            input_threshold: (k == 2).then_some(self.threshold),
            threshold,
        })
    }
}

/// What a recalibration gave, rendering itself.
#[derive(Debug, Clone)]
pub struct CalibrateJob {
    /// The new probabilities.
    pub proba: Proba,
    /// The labels they decide.
    pub labels: Vec<u32>,
    /// The keep rates undone, if any.
    pub keep_rates: Option<Vec<f64>>,
    /// The priors moved to (and EM's iterations), if any.
    pub shifted: Option<Shifted>,
    /// Binary: the threshold on the input.
    pub input_threshold: Option<f64>,
    /// Binary: the equivalent threshold on the output (eq. 12).
    pub threshold: Option<f64>,
}

impl CalibrateJob {
    /// The outcome as `rarity calibrate --format json` prints it (`output`:
    /// where the probabilities were written, if they were).
    pub fn to_json(&self, output: Option<&Path>, classes: &[String]) -> Value {
        let em = self.shifted.as_ref().and_then(|s| s.em);
        json!({
            "output": output.map(|p| p.display().to_string()),
            "rows": self.labels.len(),
            "classes": classes,
            "keep_rates": self.keep_rates,
            "target_priors": self.shifted.as_ref().map(|s| &s.priors),
            "em_iterations": em.map(|e| e.0),
            "em_converged": em.map(|e| e.1),
            "input_threshold": self.input_threshold,
            "threshold": self.threshold,
        })
    }

    /// The outcome as `rarity calibrate` prints it, the probabilities
    /// written to `output`.
    pub fn to_text(&self, output: &Path) -> String {
        let k = self.proba.n_classes();
        let mut text = format!(
            "{} rows, {} classes -> {}\n",
            self.labels.len(),
            k,
            output.display()
        );
        let em = self.shifted.as_ref().and_then(|s| s.em);
        if let Some(s) = &self.shifted {
            let list: Vec<String> = s
                .priors
                .iter()
                .map(|v| {
                    if v.is_nan() {
                        "-".to_string()
                    } else {
                        format!("{v:.6}")
                    }
                })
                .collect();
            text.push_str(&format!(
                "{} priors: {}{}\n",
                if em.is_some() {
                    "estimated (EM)"
                } else {
                    "target"
                },
                list.join(", "),
                match em {
                    Some((it, true)) => format!(" ({it} iterations)"),
                    Some((it, false)) => format!(" (not converged after {it} iterations)"),
                    None => String::new(),
                }
            ));
        }
        if let (Some(input), Some(t)) = (self.input_threshold, self.threshold) {
            text.push_str(&format!(
                "threshold {input} on the input = {t} on the output (same labels; Dal Pozzolo et al. eq. 12)\n"
            ));
        }
        text
    }
}
