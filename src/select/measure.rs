//! How ReverseTesting, its comparators and the true order score a model's
//! probabilities on labelled data: a metric by name, or the total
//! example-dependent benefit of Fan & Davidson (2006, Sec. 6). Every value
//! is oriented so that higher is better (the metric's direction from the
//! catalogue, [`crate::metrics::catalogue`]). With row weights, a metric is
//! the importance-weighted estimate of Sugiyama, Krauledat & Müller (2007,
//! eq. 8), [`weighted_value`].

use crate::data::{Dataset, Proba};
use crate::decide::Rule;
use crate::error::{Error, Result};
use crate::metrics::catalogue::{metric, value, weighted_value};

use super::variant::{Labelling, Measure};

/// A measure's value on labelled `data` with probabilities `p` (higher is
/// better), each row weighted by `weights` when given. Thresholded metrics
/// use the labels of `labelling`: PT_MA (`priors`, the training priors) for
/// [`Labelling::Priors`], argmax otherwise.
pub(crate) fn measure_value(
    measure: &Measure,
    data: &Dataset,
    p: &Proba,
    labelling: Labelling,
    priors: &[f64],
    weights: Option<&[f64]>,
) -> Result<f64> {
    let truth = data.labels();
    match measure {
        Measure::Metric(name) => {
            let labels = match labelling {
                Labelling::Priors => Rule::priors(priors)?.decide(p, None)?,
                _ => Rule::Argmax.decide(p, None)?,
            };
            let m = metric(name)?;
            let v = match weights {
                Some(w) => weighted_value(m, truth, p, &labels, w)?,
                None => value(m, truth, p, &labels)?,
            };
            m.oriented(v)
        }
        Measure::Benefit(b) => {
            if weights.is_some() {
                return Err(Error::invalid(
                    "the benefit measure has no importance-weighted form; use --metric",
                ));
            }
            let amounts = b.amounts(data)?;
            if p.n_classes() != 2 {
                return Err(Error::invalid("the benefit measure needs a binary task"));
            }
            let decisions = b.decide(&p.column(1), &amounts)?;
            b.total(truth, &decisions, &amounts)
        }
    }
}
