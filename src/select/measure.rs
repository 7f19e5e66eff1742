//! How ReverseTesting, its comparators and the true order score a model's
//! probabilities on labelled data: a metric by name, or the total
//! example-dependent benefit of Fan & Davidson (2006, Sec. 6). Every value
//! is oriented so that higher is better (the metric's direction from the
//! catalogue, [`crate::metrics::catalogue`]). With row weights, a metric is
//! the importance-weighted estimate of Sugiyama, Krauledat & Müller (2007,
//! eq. 8), [`weighted_value`]; the benefit, the weighted sum of the rows'
//! benefits.

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
            let amounts = b.amounts(data)?;
            if p.n_classes() != 2 {
                return Err(Error::invalid("the benefit measure needs a binary task"));
            }
            let decisions = b.decide(&p.column(1), &amounts)?;
            match weights {
                None => b.total(truth, &decisions, &amounts),
                // Each row's benefit weighted: the total on a population
                // drawn like the weights' target, of as many rows.
                Some(w) => (0..truth.len())
                    .map(|i| {
                        let one = i..i + 1;
                        Ok(w[i]
                            * b.total(&truth[one.clone()], &decisions[one.clone()], &amounts[one])?)
                    })
                    .sum(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::cost::Benefit;

    #[test]
    fn the_weighted_benefit_sums_the_rows_benefits_times_their_weights() {
        // Amounts 10, 20, 30, 40; positives rows 1 and 3; act when p * amount > 5.
        let rows = vec![vec![10.0], vec![20.0], vec![30.0], vec![40.0]];
        let data =
            Dataset::from_rows(rows, vec![0, 1, 0, 1], vec!["n".into(), "p".into()]).unwrap();
        let p = Proba::from_positive(&[0.9, 0.9, 0.1, 0.1]);
        let b = Measure::Benefit(Benefit {
            amount: "x0".into(),
            overhead: 5.0,
        });
        let m = |w: Option<&[f64]>| measure_value(&b, &data, &p, Labelling::Argmax, &[0.5, 0.5], w);
        let plain = m(None).unwrap();
        assert_eq!(m(Some(&[1.0; 4])).unwrap(), plain);
        // Rows acted on: 0 (a negative: -5) and 1 (a positive: 20 - 5 = 15).
        assert_eq!(plain, -5.0 + 15.0);
        assert_eq!(m(Some(&[2.0, 0.0, 1.0, 1.0])).unwrap(), -10.0);
        assert_eq!(m(Some(&[0.5, 1.5, 1.0, 1.0])).unwrap(), -2.5 + 22.5);
    }
}
