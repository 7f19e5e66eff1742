//! The class priors a fitted strategy's probabilities are estimates under,
//! and whether they are calibrated estimates at all: what Saerens' EM needs
//! to estimate a new population's priors from the probabilities alone
//! (Dal Pozzolo et al. 2015, sec. on prior shift; `rarity monitor`).
//!
//! The probabilities before any prior shift
//! ([`FittedStrategy::model_proba`]) are posteriors under the training
//! priors once a correction (`+correct`, eq. 9) or a calibrator
//! (`+isotonic`, `+platt`, fitted on out-of-fold probabilities of the
//! training rows) maps them there; a learner that is calibrated as it
//! comes out ([`Learner::calibrated`](crate::learn::Learner::calibrated))
//! without either gives posteriors under the priors of the sample it saw:
//! the training priors times each class's keep rate, normalised. Any other
//! model's scores are not posteriors, and EM on them means nothing.

use super::{sample_rates, FittedStrategy};

impl FittedStrategy {
    /// The priors [`FittedStrategy::model_proba`] gives posteriors under,
    /// or why its probabilities are not calibrated, with the stage that
    /// would make them so. `learner_calibrated`: whether the strategy's
    /// learner is calibrated as it comes out (its spec's
    /// [`Learner::calibrated`](crate::learn::Learner::calibrated), which the
    /// caller builds: the spec layer sits above this one).
    pub fn probability_priors(
        &self,
        learner_calibrated: bool,
    ) -> std::result::Result<Vec<f64>, String> {
        let member = &self.members[0];
        if self.correct.is_some() || member.calibrator.is_some() {
            return Ok(self.priors.clone());
        }
        if !learner_calibrated {
            return Err(format!(
                "{}: the learner's probabilities are scores, not calibrated posteriors \
                 (EM needs calibrated ones); add +isotonic or +platt (after +correct \
                 when the strategy samples)",
                self.spec
            ));
        }
        let rates = sample_rates(&member.model, &member.keep_rates);
        let w: Vec<f64> = self.priors.iter().zip(&rates).map(|(p, r)| p * r).collect();
        let total: f64 = w.iter().sum();
        Ok(w.iter().map(|v| v / total).collect())
    }
}
