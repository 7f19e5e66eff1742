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

use super::calibration::expected_calibration_error;
use super::check_proba;
use super::confusion::{Average, BinaryCounts, Confusion};
use super::probability::{brier, log_loss, murphy_decomposition, stratified_brier};
use super::ranking::{binary_ranking, ranking_ovr_macro, roc_auc_hand_till};
use crate::data::Proba;
use crate::{Error, Result};

/// Number of uniform bins of the reported expected calibration error.
pub const ECE_BINS: usize = 10;

/// All metrics of `proba` against `truth`, as `(name, value)` in a fixed
/// order.
///
/// Keys, binary: `roc_auc`, `average_precision`, `pr_auc_trapezoid`,
/// `brier`, `log_loss`, `accuracy`, `tpr`, `tnr`, `ppv`, `npv`, `fpr`, `fdr`,
/// `f1`, `g_mean`, `macro_accuracy`, `macro_f1`, `brier_positive`,
/// `brier_negative`, `ece` (10 uniform bins), `brier_reliability`,
/// `brier_resolution`, `brier_uncertainty`. Multiclass: the same up to
/// `macro_f1` (with the meanings in the module doc), then
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
/// let r = score_report(&[0, 0, 1, 1], &Proba::from_positive(&[0.1, 0.4, 0.35, 0.8]), 0.5).unwrap();
/// assert_eq!(r[0], ("roc_auc".to_string(), 0.75));
/// let tpr = r.iter().find(|(k, _)| k == "tpr").unwrap().1;
/// assert_eq!(tpr, 0.5);
/// ```
pub fn score_report(truth: &[u32], proba: &Proba, threshold: f64) -> Result<Vec<(String, f64)>> {
    check_proba(truth, proba)?;
    let k = proba.n_classes();
    let mut out: Vec<(&str, f64)> = Vec::with_capacity(24);
    if k == 2 {
        if !(0.0..=1.0).contains(&threshold) {
            return Err(Error::invalid(format!(
                "the threshold must lie in [0, 1], got {threshold}"
            )));
        }
        let p = proba.column(1);
        let r = binary_ranking(truth, &p, 1)?;
        let c = Confusion::from_threshold(truth, &p, threshold)?;
        let b = c.one_vs_rest(1);
        let strat = stratified_brier(truth, proba)?;
        let m = murphy_decomposition(truth, &p, 1)?;
        out.extend([
            ("roc_auc", r.roc_auc),
            ("average_precision", r.average_precision),
            ("pr_auc_trapezoid", r.pr_auc_trapezoid),
            ("brier", brier(truth, proba)?),
            ("log_loss", log_loss(truth, proba)?),
            ("accuracy", c.accuracy()),
            ("tpr", b.tpr()),
            ("tnr", b.tnr()),
            ("ppv", b.ppv()),
            ("npv", b.npv()),
            ("fpr", b.fpr()),
            ("fdr", b.fdr()),
            ("f1", b.f1()),
            ("g_mean", b.g_mean()),
            ("macro_accuracy", c.macro_accuracy()),
            ("macro_f1", c.macro_f1()),
            ("brier_positive", strat[1]),
            ("brier_negative", strat[0]),
            ("ece", expected_calibration_error(truth, &p, 1, ECE_BINS)?),
            ("brier_reliability", m.reliability),
            ("brier_resolution", m.resolution),
            ("brier_uncertainty", m.uncertainty),
        ]);
    } else {
        let r = ranking_ovr_macro(truth, proba)?;
        let predicted: Vec<u32> = proba.argmax().into_iter().map(|c| c as u32).collect();
        let c = Confusion::from_labels(truth, &predicted, k)?;
        let avg = |f: fn(&BinaryCounts) -> f64| c.average(f, Average::Macro);
        out.extend([
            ("roc_auc", r.roc_auc),
            ("average_precision", r.average_precision),
            ("pr_auc_trapezoid", r.pr_auc_trapezoid),
            ("brier", brier(truth, proba)?),
            ("log_loss", log_loss(truth, proba)?),
            ("accuracy", c.accuracy()),
            ("tpr", avg(BinaryCounts::tpr)),
            ("tnr", avg(BinaryCounts::tnr)),
            ("ppv", avg(BinaryCounts::ppv)),
            ("npv", avg(BinaryCounts::npv)),
            ("fpr", avg(BinaryCounts::fpr)),
            ("fdr", avg(BinaryCounts::fdr)),
            ("f1", avg(BinaryCounts::f1)),
            ("g_mean", c.g_mean()),
            ("macro_accuracy", c.macro_accuracy()),
            ("macro_f1", c.macro_f1()),
            ("roc_auc_hand_till", roc_auc_hand_till(truth, proba)?),
        ]);
    }
    Ok(out.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const BINARY_KEYS: [&str; 18] = [
        "roc_auc",
        "average_precision",
        "pr_auc_trapezoid",
        "brier",
        "log_loss",
        "accuracy",
        "tpr",
        "tnr",
        "ppv",
        "npv",
        "fpr",
        "fdr",
        "f1",
        "g_mean",
        "macro_accuracy",
        "macro_f1",
        "brier_positive",
        "brier_negative",
    ];

    #[test]
    fn binary_report_has_the_required_keys_first() {
        let p = Proba::from_positive(&[0.1, 0.9, 0.5, 0.3]);
        let r = score_report(&[0, 1, 1, 0], &p, 0.5).unwrap();
        let keys: Vec<&str> = r.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(&keys[..18], &BINARY_KEYS);
        assert!(r.iter().all(|(_, v)| v.is_finite()));
    }

    #[test]
    fn multiclass_report_uses_macro_rates() {
        let p = Proba::new(vec![0.6, 0.3, 0.1, 0.2, 0.5, 0.3, 0.1, 0.6, 0.3], 3);
        let r = score_report(&[0, 1, 2], &p, 0.5).unwrap();
        let get = |k: &str| r.iter().find(|(n, _)| n == k).unwrap().1;
        // Class 2 is never predicted: recalls 1, 1, 0.
        assert!((get("tpr") - 2.0 / 3.0).abs() < 1e-15);
        assert_eq!(get("g_mean"), 0.0);
        assert!(r.iter().all(|(k, _)| k != "brier_positive"));
    }

    #[test]
    fn invalid_input_is_rejected_with_a_reason() {
        let p = Proba::from_positive(&[0.1, 0.9]);
        assert!(score_report(&[0, 1], &p, 1.5).is_err());
        assert!(score_report(&[0, 2], &p, 0.5).is_err());
        assert!(score_report(&[0], &p, 0.5).is_err());
        let empty = Proba::new(vec![], 2);
        let e = score_report(&[], &empty, 0.5).unwrap_err();
        assert!(e.to_string().contains("no rows"), "{e}");
        let bad = Proba::new(vec![0.5, 0.6, 0.5, 0.5], 2);
        let e = score_report(&[0, 1], &bad, 0.5).unwrap_err();
        assert!(e.to_string().contains("row 1"), "{e}");
    }
}
