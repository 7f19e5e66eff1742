//! Every metric of a set of predicted probabilities at once: the numbers
//! behind `rarity score`.
//!
//! Binary (two columns, class 1 positive): ranking metrics use column 1;
//! thresholded metrics decide positive iff `p >= threshold`
//! ([`Confusion::from_threshold`]). Multiclass: ranking metrics are
//! one-vs-rest macro averages (plus Hand & Till's M), thresholded metrics use
//! the argmax (lowest class id on ties), and `tpr`, `tnr`, `ppv`, `npv`,
//! `fpr`, `fdr`, `f1` are macro averages of the per-class values over all
//! classes; `brier` is the multiclass sum over classes.

use super::catalogue::{reported, undefined, Metric, Scored};
use super::check_proba;
use crate::data::Proba;
use crate::{Error, Result};

/// All metrics of `proba` against `truth`, as `(name, value)` in a fixed
/// order.
///
/// Keys, binary: `roc_auc`, `average_precision`, `pr_auc_trapezoid`,
/// `brier`, `log_loss`, `accuracy`, `tpr`, `tnr`, `ppv`, `npv`, `fpr`, `fdr`,
/// `f1`, `g_mean`, `macro_accuracy`, `macro_f1`, `brier_positive`,
/// `brier_negative`, `ece` (10 uniform bins), `brier_reliability`,
/// `brier_resolution`, `brier_uncertainty`, `brier_within_bin_variance`,
/// `brier_within_bin_covariance`, `tp`, `fp`, `tn`, `fn` (the order of
/// [`METRICS`](super::catalogue::METRICS)), then the `extra` metrics asked
/// for (parameterised ones such as `precision_at_k(k=100)`). Multiclass: the same up to
/// `macro_f1` (with the meanings in the module doc), the five terms of the
/// Brier decomposition (summed over classes, one vs rest), then
/// `roc_auc_hand_till`. An undefined metric is `NaN` (e.g. ROC AUC when
/// the truth holds one class).
///
/// `threshold` (used for two classes only) must lie in `[0, 1]`. Errors on
/// empty input, mismatched lengths, probabilities outside `[0, 1]`, rows not
/// summing to 1 and labels without a column.
///
/// ```
/// use rarity::data::Proba;
/// use rarity::metrics::score_report;
/// let r = score_report(&[0, 0, 1, 1], &Proba::from_positive(&[0.1, 0.4, 0.35, 0.8]), 0.5, &[]).unwrap();
/// assert_eq!(r[0], ("roc_auc".to_string(), 0.75));
/// let tpr = r.iter().find(|(k, _)| k == "tpr").unwrap().1;
/// assert_eq!(tpr, 0.5);
/// ```
pub fn score_report(
    truth: &[u32],
    proba: &Proba,
    threshold: f64,
    extra: &[&Metric],
) -> Result<Vec<(String, f64)>> {
    check_proba(truth, proba)?;
    let labels: Vec<u32> = if proba.n_classes() == 2 {
        if !(0.0..=1.0).contains(&threshold) {
            return Err(Error::invalid(format!(
                "the threshold must lie in [0, 1], got {threshold}"
            )));
        }
        (0..proba.n_rows())
            .map(|i| u32::from(proba.row(i)[1] >= threshold))
            .collect()
    } else {
        proba.argmax().into_iter().map(|c| c as u32).collect()
    };
    report_with_labels(truth, proba, &labels, extra)
}

/// The same report with the thresholded metrics computed from labels decided
/// by any rule (a tuned threshold, per-class lambdas, a loss matrix, ...);
/// an `extra` metric the task does not define is an error.
pub fn report_with_labels(
    truth: &[u32],
    proba: &Proba,
    labels: &[u32],
    extra: &[&Metric],
) -> Result<Vec<(String, f64)>> {
    check_proba(truth, proba)?;
    let scored = Scored::new(truth, proba, labels)?;
    let mut out: Vec<(String, f64)> = reported()
        .filter_map(|m| {
            m.compute(&scored)
                .map(|v| v.map(|v| (m.key.to_string(), v)))
        })
        .collect::<Result<_>>()?;
    for m in extra {
        if out.iter().any(|(k, _)| k == m.key) {
            continue;
        }
        let v = m
            .compute(&scored)
            .unwrap_or_else(|| Err(undefined(m, proba.n_classes())))?;
        out.push((m.key.to_string(), v));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_report_is_finite_in_catalogue_order() {
        let p = Proba::from_positive(&[0.1, 0.9, 0.5, 0.3]);
        let r = score_report(&[0, 1, 1, 0], &p, 0.5, &[]).unwrap();
        assert_eq!(r[0].0, "roc_auc");
        assert_eq!(r.len(), 28);
        assert!(r.iter().all(|(_, v)| v.is_finite()));
    }

    #[test]
    fn multiclass_report_uses_macro_rates() {
        let p = Proba::new(vec![0.6, 0.3, 0.1, 0.2, 0.5, 0.3, 0.1, 0.6, 0.3], 3);
        let r = score_report(&[0, 1, 2], &p, 0.5, &[]).unwrap();
        let get = |k: &str| r.iter().find(|(n, _)| n == k).unwrap().1;
        // Class 2 is never predicted: recalls 1, 1, 0.
        assert!((get("tpr") - 2.0 / 3.0).abs() < 1e-15);
        assert_eq!(get("g_mean"), 0.0);
        assert!(r.iter().all(|(k, _)| k != "brier_positive"));
    }

    #[test]
    fn invalid_input_is_rejected_with_a_reason() {
        let p = Proba::from_positive(&[0.1, 0.9]);
        assert!(score_report(&[0, 1], &p, 1.5, &[]).is_err());
        assert!(score_report(&[0, 2], &p, 0.5, &[]).is_err());
        assert!(score_report(&[0], &p, 0.5, &[]).is_err());
        let empty = Proba::new(vec![], 2);
        let e = score_report(&[], &empty, 0.5, &[]).unwrap_err();
        assert!(e.to_string().contains("no rows"), "{e}");
        let bad = Proba::new(vec![0.5, 0.6, 0.5, 0.5], 2);
        let e = score_report(&[0, 1], &bad, 0.5, &[]).unwrap_err();
        assert!(e.to_string().contains("row 1"), "{e}");
    }
}
