//! The variant grammar of ReverseTesting (Fan & Davidson 2006, Sec. 4 and
//! 6): the settings of one run ([`ReverseTestingVariant`]), the presets
//! `paper` (the literal algorithm) and `default` (the variant that measured
//! best, `docs/reverse-testing.md`), their text form (`parse`) and its
//! canonical spelling (`Display`).
//!
//! Labelling `T` by argmax (the paper) often gives the whole copy the
//! majority class under imbalance, so a variant sets four things: the
//! labelling ([`Labelling::Priors`]: the PT_MA rule, argmax of
//! `p_k / pi_k`; [`Labelling::Sample`]: a label drawn from the posterior),
//! the measure on `D` (any metric, e.g. macro accuracy, G-mean, Brier, or
//! the example-dependent benefit of the paper's Section 6), the
//! [`PairRule`] (all judges agree, as the paper, or the sign of the summed
//! differences) and the [`Judges`] (`L_a`, `L_b`, or every learner), plus
//! cross-fitting ([`ReverseTestingVariant::folds`]): the paper measures on
//! `D` models derived from `D` itself, which rewards learners that memorise
//! `D`; and importance weights ([`ReverseTestingVariant::weights`]): the
//! judges' measure on `D` with every row weighted by the density ratio
//! `p_T(x) / p_D(x)` ([`super::density_ratio`]), so that `D` is measured as
//! if drawn like `T` (Sugiyama, Krauledat & Müller 2007, eq. 8).

use serde::Serialize;

use crate::metrics::cost::Benefit;

use crate::error::{Error, Result};

use super::density_ratio::{RatioEstimator, Ulsif};

/// How a model's probabilities label the target set `T`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Labelling {
    /// The most probable class (the paper).
    Argmax,
    /// `argmax p_k / pi_k` with `pi` the class priors of `D` (PT_MA).
    Priors,
    /// A label drawn from the predicted posterior of each row (seeded).
    Sample,
}

/// What "accuracy on D" means.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Measure {
    /// Any metric of [`report_with_labels`](crate::metrics::report_with_labels)
    /// by name (e.g. `accuracy`, `macro_accuracy`, `g_mean`, `roc_auc`);
    /// higher is better except for `brier`, `log_loss` and the rates where
    /// lower is better (`fpr`, `fdr`), which are negated.
    Metric(String),
    /// Total example-dependent benefit (Fan & Davidson Sec. 6): act on a row
    /// iff `p(positive) * amount > overhead`; a caught positive earns
    /// `amount - overhead`, a false alarm `-overhead`.
    Benefit(Benefit),
}

/// How a pair is decided from the judges' measures on `D`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum PairRule {
    /// Every judge strictly prefers the same copy; otherwise undecided (the
    /// paper's Conditions 4.1-4.3 when the judges are the pair).
    Strict,
    /// The sign of the summed differences `sum_x (M_x^b - M_x^a)`; undecided
    /// only when the sum is exactly zero (a departure from the paper, which
    /// leaves mixed conditions undecided).
    Sum,
}

/// Which learners are trained on `T_a` and `T_b` to judge a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Judges {
    /// `L_a` and `L_b` (the paper).
    Pair,
    /// Every learner being ranked (no extra models: the ranking fits every
    /// learner on every copy anyway).
    All,
}

/// Which density-ratio estimator (with its default settings) weights the
/// rows of `D` when the judges are measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Weighting {
    /// The cross-fitted logistic classifier of training vs target rows.
    Classifier,
    /// uLSIF.
    Ulsif,
}

impl Weighting {
    /// The estimator, with its default settings.
    pub fn estimator(self) -> RatioEstimator {
        match self {
            Weighting::Classifier => RatioEstimator::default(),
            Weighting::Ulsif => RatioEstimator::Ulsif(Ulsif::default()),
        }
    }
}

/// A ReverseTesting configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReverseTestingVariant {
    /// How `T` is labelled.
    pub labelling: Labelling,
    /// How models are measured on `D`.
    pub measure: Measure,
    /// How a pair is decided from the measures.
    pub decision: PairRule,
    /// Which learners judge a pair.
    pub judges: Judges,
    /// `0`: the models of `D` and the judges are measured on all of `D`
    /// (the paper). `k >= 2`: cross-fitted, so no model is measured on rows
    /// it was trained from: for each of `k` stratified folds of `D`, the
    /// learners are fitted on the other folds, label `T`, the judges are
    /// trained on those copies and predict the held-out fold; the pooled
    /// out-of-fold predictions are measured. Costs `k` times the models.
    /// At most as many folds as the smallest class of `D` has rows; a class
    /// with a single row is an error.
    pub folds: usize,
    /// `None`: every row of `D` counts the same when the judges are
    /// measured (the paper); otherwise each row is weighted by its density
    /// ratio `p_T(x) / p_D(x)`.
    pub weights: Option<Weighting>,
}

impl ReverseTestingVariant {
    /// The literal algorithm of the paper: argmax labels, 0-1 accuracy,
    /// Conditions 4.1-4.3 on `L_a` and `L_b`.
    pub fn paper() -> ReverseTestingVariant {
        ReverseTestingVariant {
            labelling: Labelling::Argmax,
            measure: Measure::Metric("accuracy".into()),
            decision: PairRule::Strict,
            judges: Judges::Pair,
            folds: 0,
            weights: None,
        }
    }

    /// The default: the variant that measured best in the bias experiment
    /// (`docs/reverse-testing.md`) for the target `metric`, always deciding
    /// by the summed differences. For `accuracy`, the judges are measured by
    /// the Brier score (a smooth proper score, so 0-1 ties disappear) and
    /// cross-fitted on 5 folds, judged by `L_a` and `L_b`. For any other
    /// metric (e.g. `g_mean`, `macro_accuracy`), the judges are measured by
    /// that metric, on all of `D`, and every learner judges.
    pub fn recommended(metric: &str) -> ReverseTestingVariant {
        if metric == "accuracy" {
            ReverseTestingVariant {
                labelling: Labelling::Argmax,
                measure: Measure::Metric("brier".into()),
                decision: PairRule::Sum,
                judges: Judges::Pair,
                folds: 5,
                weights: None,
            }
        } else {
            ReverseTestingVariant {
                labelling: Labelling::Argmax,
                measure: Measure::Metric(metric.into()),
                decision: PairRule::Sum,
                judges: Judges::All,
                folds: 0,
                weights: None,
            }
        }
    }

    /// Parses a variant: a preset (`paper`, `default`, `priors`, `sample`)
    /// and/or `key=value` settings separated by commas, later ones winning:
    /// `labels=argmax|priors|sample`, `measure=METRIC`,
    /// `decide=strict|sum`, `judges=pair|all`, `folds=0|K`,
    /// `weights=none|classifier|ulsif`. The measure is `metric` unless set.
    /// Example: `paper,decide=sum`.
    pub fn parse(spec: &str, metric: &str) -> Result<ReverseTestingVariant> {
        let mut v = ReverseTestingVariant {
            measure: Measure::Metric(metric.into()),
            ..ReverseTestingVariant::paper()
        };
        let bad = |what: &str| {
            Error::invalid(format!(
                "variant '{spec}': {what}; expected a preset (paper, default, priors, sample) \
                 or labels=argmax|priors|sample, measure=METRIC, decide=strict|sum, judges=pair|all, folds=0|K, \
                 weights=none|classifier|ulsif"
            ))
        };
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part.split_once('=') {
                None => match part {
                    "paper" => {
                        v = ReverseTestingVariant {
                            measure: v.measure,
                            ..ReverseTestingVariant::paper()
                        }
                    }
                    "default" => v = ReverseTestingVariant::recommended(metric),
                    "priors" => v.labelling = Labelling::Priors,
                    "sample" => v.labelling = Labelling::Sample,
                    _ => return Err(bad(&format!("unknown preset '{part}'"))),
                },
                Some((key, value)) => match (key.trim(), value.trim()) {
                    ("labels", "argmax") => v.labelling = Labelling::Argmax,
                    ("labels", "priors") => v.labelling = Labelling::Priors,
                    ("labels", "sample") => v.labelling = Labelling::Sample,
                    ("measure", m) if !m.is_empty() => v.measure = Measure::Metric(m.into()),
                    ("decide", "strict") => v.decision = PairRule::Strict,
                    ("decide", "sum") => v.decision = PairRule::Sum,
                    ("judges", "pair") => v.judges = Judges::Pair,
                    ("judges", "all") => v.judges = Judges::All,
                    ("weights", "none") => v.weights = None,
                    ("weights", "classifier") => v.weights = Some(Weighting::Classifier),
                    ("weights", "ulsif") => v.weights = Some(Weighting::Ulsif),
                    ("folds", k) => match k.parse::<usize>() {
                        Ok(k) if k != 1 => v.folds = k,
                        _ => return Err(bad(&format!("bad setting '{part}' (folds: 0 or >= 2)"))),
                    },
                    _ => return Err(bad(&format!("bad setting '{part}'"))),
                },
            }
        }
        Ok(v)
    }
}

impl std::fmt::Display for ReverseTestingVariant {
    /// The canonical spec, e.g.
    /// `labels=argmax,measure=accuracy,decide=strict,judges=pair,folds=0`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let labels = match self.labelling {
            Labelling::Argmax => "argmax",
            Labelling::Priors => "priors",
            Labelling::Sample => "sample",
        };
        let measure = match &self.measure {
            Measure::Metric(m) => m.clone(),
            Measure::Benefit(b) => {
                format!("benefit(amount={};overhead={})", b.amount, b.overhead)
            }
        };
        let decide = match self.decision {
            PairRule::Strict => "strict",
            PairRule::Sum => "sum",
        };
        let judges = match self.judges {
            Judges::Pair => "pair",
            Judges::All => "all",
        };
        write!(
            f,
            "labels={labels},measure={measure},decide={decide},judges={judges},folds={}",
            self.folds
        )?;
        match self.weights {
            None => Ok(()),
            Some(Weighting::Classifier) => write!(f, ",weights=classifier"),
            Some(Weighting::Ulsif) => write!(f, ",weights=ulsif"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_parse_and_print() {
        assert_eq!(
            ReverseTestingVariant::parse("paper", "accuracy").unwrap(),
            ReverseTestingVariant::paper()
        );
        let v = ReverseTestingVariant::parse(
            "priors,measure=brier,decide=sum,judges=all,folds=4,weights=ulsif",
            "x",
        )
        .unwrap();
        assert_eq!(v.weights, Some(Weighting::Ulsif));
        assert_eq!(v.labelling, Labelling::Priors);
        assert_eq!(v.measure, Measure::Metric("brier".into()));
        assert_eq!(
            (v.decision, v.judges, v.folds),
            (PairRule::Sum, Judges::All, 4)
        );
        assert_eq!(
            ReverseTestingVariant::parse(&v.to_string(), "y").unwrap(),
            v
        );
        let d = ReverseTestingVariant::parse("default", "g_mean").unwrap();
        assert_eq!(d, ReverseTestingVariant::recommended("g_mean"));
        for bad in [
            "nope",
            "labels=max",
            "folds=1",
            "folds=x",
            "decide=",
            "weights=kliep",
        ] {
            let e = ReverseTestingVariant::parse(bad, "accuracy")
                .unwrap_err()
                .to_string();
            assert!(e.contains(&format!("variant '{bad}'")), "{e}");
        }
    }
}
