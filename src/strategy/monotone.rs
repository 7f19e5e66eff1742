//! Monotone constraints kept by the whole strategy (issue 57), not only by
//! its learner ([`Learner::monotone`](crate::learn::Learner::monotone)).
//!
//! Every later stage of a two-class strategy is a non-decreasing map of the
//! positive class's probability `p`, so the learner's guarantee carries
//! through:
//!
//! - the prior correction, Dal Pozzolo et al. 2015 eq. 9,
//!   `p' = (p / r1) / (p / r1 + (1 - p) / r0)`, per member before averaging
//!   (an average of non-decreasing maps) or on the average;
//! - isotonic regression (a non-decreasing step function by construction);
//! - a prior shift to known priors or to Saerens' EM estimate for the batch
//!   (eq. 9 again, with the ratio of the priors: one map for all the rows of
//!   a batch);
//! - a decision: a threshold on `p`, plug-in, tuned or from a loss matrix.
//!
//! A Platt sigmoid `1 / (1 + exp(a f + b))` keeps the order only when its
//! fitted slope `a` is at most 0: a slope above 0 (the out-of-fold
//! probabilities ranked the classes backwards) is refused when it is fitted,
//! with what to use instead. A sampler changes the sample, not the model, so
//! every sampler keeps the guarantee (SMOTE's interpolated rows too).
//! Constraints are checked against the table before any fitting: columns it
//! lacks, the target, categorical columns (their levels have no order, and
//! `encode(target)` would only hide that behind numbers), more than two
//! classes.

use super::Strategy;
use crate::calibrate::OneVsRest;
use crate::data::{Dataset, Schema};
use crate::error::{Error, Result};
use crate::learn::constraints::{Interactions, Monotone};

impl Strategy {
    /// The learner's monotone constraints, `None` when it has none.
    fn constraints(&self) -> Option<Monotone> {
        let m = Monotone(self.learner.monotone().to_vec());
        (!m.is_empty()).then_some(m)
    }

    /// Fails, before any fitting, when the learner's monotone or
    /// interaction constraints do not fit `data`: a column it lacks (the
    /// error lists the columns), the target, a categorical column, or more
    /// than two classes.
    pub fn check_monotone(&self, data: &Dataset) -> Result<()> {
        self.check_columns(data.schema())?;
        let Some(m) = self.constraints() else {
            return Ok(());
        };
        let what = format!("{}: monotone", self.spec);
        m.directions_for(data.schema(), data.n_classes(), &what)?;
        Ok(())
    }

    /// Fails when the learner's constraints name a column `schema` does
    /// not have as an input, its target, or a monotone column it knows to be
    /// categorical: the check a job makes on a table's header before
    /// reading its rows ([`crate::data::read::header_schema`]).
    pub fn check_columns(&self, schema: &Schema) -> Result<()> {
        if let Some(m) = self.constraints() {
            m.directions(schema, &format!("{}: monotone", self.spec))?;
        }
        let groups = Interactions(self.learner.interaction().to_vec());
        if !groups.is_empty() {
            groups.groups(schema, &format!("{}: interaction", self.spec))?;
        }
        Ok(())
    }

    /// Fails when `calibrator`, fitted for a monotone model, would reverse
    /// the order of its probabilities (a Platt slope above 0).
    pub(super) fn check_order(&self, calibrator: &OneVsRest) -> Result<()> {
        match calibrator.reversing_slope() {
            Some(a) if self.constraints().is_some() => Err(Error::invalid(format!(
                "{}: the Platt sigmoid fitted on the out-of-fold probabilities decreases \
                 (slope a = {a} > 0 in 1 / (1 + exp(a f + b))): it would reverse the order \
                 of the model's probabilities and break its monotone constraints; calibrate \
                 with +isotonic, or without a calibration stage",
                self.spec
            ))),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::calibrate::{CalibrationMethod, OneVsRest};
    use crate::data::Proba;
    use crate::decide::Decision;
    use crate::learn::constraints::Monotone;
    use crate::learn::gbdt::Gbdt;
    use crate::strategy::Strategy;

    /// A Platt sigmoid fitted to scores that rank the classes backwards.
    fn backwards(method: CalibrationMethod) -> OneVsRest {
        let p = Proba::from_positive(&[0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9]);
        OneVsRest::fit(&p, &[1, 1, 1, 0, 1, 0, 0, 0], method).unwrap()
    }

    /// `gbdt(monotone=[x0:d])+platt`.
    fn strategy(d: i8) -> Strategy {
        let learner = Gbdt {
            monotone: Monotone(vec![("x0".into(), d)]),
            ..Gbdt::default()
        };
        Strategy {
            spec: format!("gbdt(monotone=[x0:{d}])+platt"),
            stem: String::new(),
            decision_stage: None,
            impute: None,
            encode: None,
            sampler: None,
            learner: Arc::new(learner),
            correct: None,
            calibration: None,
            shift: None,
            decision: Decision::Half,
        }
    }

    #[test]
    fn a_reversing_platt_slope_is_refused_for_a_monotone_model_only() {
        let platt = backwards(CalibrationMethod::Platt);
        assert!(platt.reversing_slope().is_some_and(|a| a > 0.0));
        let e = strategy(1).check_order(&platt).unwrap_err().to_string();
        assert!(
            e.contains("reverse the order") && e.contains("+isotonic"),
            "{e}"
        );
        assert!(strategy(-1).check_order(&platt).is_err());
        // A zero direction constrains nothing.
        assert!(strategy(0).check_order(&platt).is_ok());
        // Isotonic regression is non-decreasing whatever it is fitted to.
        let isotonic = backwards(CalibrationMethod::Isotonic);
        assert!(isotonic.reversing_slope().is_none());
        assert!(strategy(1).check_order(&isotonic).is_ok());
    }
}
