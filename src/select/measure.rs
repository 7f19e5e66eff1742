//! How ReverseTesting, its comparators and the true order score a model's
//! probabilities on labelled data: a metric by name, or the total
//! example-dependent benefit of Fan & Davidson (2006, Sec. 6). Every value
//! is oriented so that higher is better (the metric's direction from the
//! catalogue, [`crate::metrics::catalogue`]).

use crate::data::{Dataset, Proba};
use crate::decide::Rule;
use crate::error::{Error, Result};
use crate::metrics::catalogue::{metric, value};

use super::variant::{Labelling, Measure};

/// A measure's value on labelled `data` with probabilities `p` (higher is
/// better). Thresholded metrics use the labels of `labelling`: PT_MA
/// (`priors`, the training priors) for [`Labelling::Priors`], argmax
/// otherwise.
pub(crate) fn measure_value(
    measure: &Measure,
    data: &Dataset,
    p: &Proba,
    labelling: Labelling,
    priors: &[f64],
) -> Result<f64> {
    let truth = data.labels();
    match measure {
        Measure::Metric(name) => {
            let labels = match labelling {
                Labelling::Priors => Rule::priors(priors)?.decide(p, None)?,
                _ => Rule::Argmax.decide(p, None)?,
            };
            let m = metric(name)?;
            m.oriented(value(m, truth, p, &labels)?)
        }
        Measure::Benefit(b) => {
            let amounts = b.amounts(data)?;
            if p.n_classes() != 2 {
                return Err(Error::invalid("the benefit measure needs a binary task"));
            }
            let decisions = b.decide(&p.column(1), &amounts)?;
            b.total(truth, &decisions, &amounts)
        }
    }
}
