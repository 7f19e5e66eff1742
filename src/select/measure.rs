//! How ReverseTesting, its comparators and the true order score a model's
//! probabilities on labelled data: a metric by name, or the total
//! example-dependent benefit of Fan & Davidson (2006, Sec. 6). Every value
//! is oriented so that higher is better.

use crate::data::{Dataset, Proba};
use crate::decide::Rule;
use crate::error::{Error, Result};
use crate::metrics::cost::BenefitMatrix;
use crate::metrics::report_with_labels;

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
            metric_higher_is_better(name, truth, p, &labels)
        }
        Measure::Benefit { amount, overhead } => {
            let j = data
                .feature_names()
                .iter()
                .position(|f| f == amount)
                .ok_or_else(|| {
                    Error::invalid(format!(
                        "amount column '{amount}' is not a feature; features are: {}",
                        data.feature_names().join(", ")
                    ))
                })?;
            if p.n_classes() != 2 {
                return Err(Error::invalid("the benefit measure needs a binary task"));
            }
            let amounts: Vec<f64> = (0..data.n_rows()).map(|i| data.value(i, j)).collect();
            let rule = Rule::Benefit {
                amount: amount.clone(),
                overhead: *overhead,
            };
            let decisions = rule.decide(p, Some(&amounts))?;
            BenefitMatrix::overhead(*overhead).total_benefit(truth, &decisions, &amounts)
        }
    }
}

/// The metric `name` of [`report_with_labels`], negated where lower is
/// better (`brier`, `log_loss`, `fpr`, `fdr`); an unknown name is an error
/// listing the accepted ones. A stand-in for a metric catalogue: the lookup
/// and the lower-is-better list live here only.
fn metric_higher_is_better(name: &str, truth: &[u32], p: &Proba, labels: &[u32]) -> Result<f64> {
    let report = report_with_labels(truth, p, labels)?;
    let v = report
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            Error::invalid(format!(
                "unknown metric '{name}'; accepted: {}",
                report
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
    Ok(if matches!(name, "brier" | "log_loss" | "fpr" | "fdr") {
        -v
    } else {
        v
    })
}
