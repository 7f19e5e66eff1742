//! Decisions: turning class probabilities into labels, independently of the
//! model that produced them (what makes PT-bagging a plug-in method).
//!
//! Every rule is "predict the class `k` maximising `p_k / lambda_k`" for some
//! per-class thresholds `lambda` (Collell et al. 2018, Algorithm 1, step 2.4),
//! or the Bayes minimum-risk class under a loss matrix (Dal Pozzolo et al.
//! 2015, Sec. IV-A), or an example-dependent cost rule (Fan & Davidson 2006,
//! Sec. 6). In the binary case a threshold `tau` on the positive class is the
//! lambda rule with `lambda = (1 - tau, tau)`: predict positive iff
//! `p >= tau`: a tie goes to the positive class, as in Dal Pozzolo's Bayes
//! rule ("assign the positive class to samples with r+ <= r-") and
//! scikit-learn's `FixedThresholdClassifier`. Likewise the lambda and cost
//! rules break ties towards the later class id; only plain argmax picks the
//! lowest id, as scikit-learn's `predict` does.
//!
//! Plug-in thresholds:
//! - priors (PT_MA; Dal Pozzolo eq. 10, Collell Theorem 1): `lambda_k = pi_k`,
//!   binary `tau = pi+`;
//! - F1 (PT_F1, Collell Sec. 3.2): `tau = (pi+ + 0.5) / 2`;
//! - after the prior correction (Dal Pozzolo eq. 12):
//!   `tau' = beta tau_s / ((beta - 1) tau_s + 1)`, see [`corrected_threshold`].

mod onnx;
pub mod registry;
pub mod tune;

use serde::{Deserialize, Serialize};

use crate::data::{Dataset, Proba};
use crate::error::{Error, Result};
use crate::metrics::cost::{Benefit, LossMatrix};
use tune::{best_threshold, roc_closest, tune_lambdas, Objective};

/// How labels are decided: a [`Rule`] whose numbers are all given, or one
/// that fitting resolves to a [`Rule`] (from the training priors or the
/// out-of-fold probabilities). A fixed rule is spelt once, in [`Rule`].
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// A rule given in full: argmax, `threshold(T)`, `lambda(...)`,
    /// `cost(...)`, `benefit(...)`.
    Rule(Rule),
    /// Binary: positive iff `p >= 0.5`; argmax for more classes (the
    /// default of the rebalancing ensembles).
    Half,
    /// PT_MA: thresholds equal to the training priors.
    Priors,
    /// PT_F1: `tau = (pi+ + 0.5) / 2` (binary).
    F1,
    /// The ROC point closest to (0, 1) on out-of-fold probabilities.
    RocClosest,
    /// The threshold (binary) or lambdas (multiclass) maximising a metric on
    /// out-of-fold probabilities.
    Tune(Objective),
}

/// What resolving a [`Decision`] into a [`Rule`] may read: the training
/// data, its class priors, and (for tuned thresholds) the out-of-fold
/// probabilities of its rows.
#[derive(Debug, Clone, Copy)]
pub struct Resolving<'a> {
    /// The training data (truth, and the amount column of a benefit rule).
    pub data: &'a Dataset,
    /// Its class priors.
    pub priors: &'a [f64],
    /// The classes and out-of-fold probabilities of its rows that have one
    /// (all of them, or those after the first block of inner time folds),
    /// when [`Decision::needs_oof`].
    pub oof: Option<(&'a [u32], &'a Proba)>,
}

impl Decision {
    /// The rule this decision resolves to on training data (plug-in
    /// thresholds from the priors, tuned ones from the out-of-fold
    /// probabilities), checked against the number of classes.
    pub fn resolve(&self, r: &Resolving<'_>) -> Result<Rule> {
        let k = r.data.n_classes();
        let rule = match self {
            Decision::Rule(Rule::Benefit(b)) => {
                b.amounts(r.data)
                    .map_err(|e| Error::invalid(format!("benefit: {e}")))?;
                Rule::Benefit(b.clone())
            }
            Decision::RocClosest | Decision::Tune(_) => {
                let (truth, p) = r.oof.ok_or_else(|| {
                    Error::invalid("a tuned threshold needs out-of-fold probabilities")
                })?;
                match (self, k) {
                    (Decision::RocClosest, 2) => Rule::Threshold(roc_closest(truth, &p.column(1))?),
                    (Decision::Tune(obj), 2) => {
                        Rule::Threshold(best_threshold(truth, &p.column(1), obj)?.0)
                    }
                    (Decision::Tune(obj), _) => {
                        Rule::Lambda(tune_lambdas(truth, p, r.priors, obj)?)
                    }
                    _ => {
                        return Err(Error::invalid(
                            "roc-closest is a binary cut-off; use tune(metric=...) for multiclass",
                        ))
                    }
                }
            }
            d => return d.from_priors(r.priors),
        };
        rule.validate(k)?;
        Ok(rule)
    }

    /// The rule of a decision that needs no training rows, from the class
    /// `priors` of the probabilities it decides on (every decision but the
    /// tuned ones), checked against their number of classes: what a saved
    /// model decides by when another decision is chosen at prediction time.
    ///
    /// ```
    /// use rarity::decide::{Decision, Rule};
    /// assert_eq!(Decision::Priors.from_priors(&[0.8, 0.2]).unwrap(), Rule::Lambda(vec![0.8, 0.2]));
    /// assert!(Decision::RocClosest.from_priors(&[0.8, 0.2]).is_err());
    /// ```
    pub fn from_priors(&self, priors: &[f64]) -> Result<Rule> {
        let k = priors.len();
        let rule = match self {
            Decision::Rule(rule) => rule.clone(),
            Decision::Half if k == 2 => Rule::Threshold(0.5),
            Decision::Half => Rule::Argmax,
            Decision::Priors => Rule::priors(priors)?,
            Decision::F1 => Rule::f1(priors)?,
            Decision::RocClosest | Decision::Tune(_) => {
                return Err(Error::invalid(
                    "roc-closest and tune(...) are tuned on the training data's out-of-fold \
                     probabilities; choose them when fitting (rarity fit --model '...+tune(...)')",
                ))
            }
        };
        rule.validate(k)?;
        Ok(rule)
    }

    /// Whether resolving it needs out-of-fold probabilities of the
    /// training data (tuned thresholds).
    pub fn needs_oof(&self) -> bool {
        matches!(self, Decision::RocClosest | Decision::Tune(_))
    }

    /// The plug-in rule it is, when it is computed from the priors of the
    /// probabilities it decides on (`threshold(priors)`, `threshold(f1)`).
    pub fn plugin(&self) -> Option<PluginRule> {
        match self {
            Decision::Priors => Some(PluginRule::Priors),
            Decision::F1 => Some(PluginRule::F1),
            _ => None,
        }
    }
}

/// A rule computed from the priors of the probabilities it decides on:
/// PT_MA (`threshold(priors)`) or PT_F1 (`threshold(f1)`). After `+em` those
/// priors are estimated for each batch, so the rule is resolved per batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PluginRule {
    /// PT_MA: thresholds equal to the priors.
    Priors,
    /// PT_F1: `tau = (pi+ + 0.5) / 2`.
    F1,
}

impl PluginRule {
    /// The rule for probabilities under `priors`.
    pub fn resolve(self, priors: &[f64]) -> Result<Rule> {
        match self {
            PluginRule::Priors => Rule::priors(priors),
            PluginRule::F1 => Rule::f1(priors),
        }
    }
}

/// A resolved decision rule: all its numbers are known.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Rule {
    /// The most probable class (lowest id on ties).
    Argmax,
    /// Binary: positive iff `p(positive) >= tau`.
    Threshold(f64),
    /// Predict `argmax_k p_k / lambda_k` (ties to the later class).
    Lambda(Vec<f64>),
    /// Bayes minimum risk: predict `argmin_i sum_j loss(i, j) p_j`, where
    /// `loss(i, j)` is the loss of deciding `i` when the truth is `j` (ties to
    /// the later class).
    Cost(LossMatrix),
    /// Example-dependent benefit: positive iff `p(positive) * amount > overhead`.
    Benefit(Benefit),
}

impl Rule {
    /// The PT_MA rule: thresholds equal to the training priors.
    ///
    /// ```
    /// use rarity::decide::Rule;
    /// use rarity::data::Proba;
    /// let rule = Rule::priors(&[0.8, 0.2]).unwrap();
    /// // The paper's example: 0.7 / 0.8 < 0.3 / 0.2, so class 1.
    /// assert_eq!(rule.decide(&Proba::from_positive(&[0.3]), None).unwrap(), vec![1]);
    /// ```
    pub fn priors(priors: &[f64]) -> Result<Rule> {
        if priors.iter().any(|p| !(*p > 0.0 && p.is_finite())) {
            return Err(Error::data(format!(
                "prior thresholds need every class present in training; priors are {priors:?}"
            )));
        }
        Ok(Rule::Lambda(priors.to_vec()))
    }

    /// The PT_F1 rule for binary tasks: `tau = (pi+ + 0.5) / 2`.
    pub fn f1(priors: &[f64]) -> Result<Rule> {
        if priors.len() != 2 {
            return Err(Error::invalid(format!(
                "threshold(f1) is defined for binary tasks; this one has {} classes",
                priors.len()
            )));
        }
        Ok(Rule::Threshold((priors[1] + 0.5) / 2.0))
    }

    /// The rule on probabilities corrected for a sample's `keep_rates`
    /// (`p_k ∝ p_s,k / r_k`) that decides as the model trained on the sample
    /// does at 0.5 (argmax beyond two classes): binary, Dal Pozzolo eq. 12
    /// with `tau_s = 0.5` and `beta = r_0 / r_1` ([`corrected_threshold`]);
    /// multiclass, its generalisation `argmax_k p_k r_k`, the lambda rule
    /// with `lambda_k ∝ 1 / r_k`.
    ///
    /// ```
    /// use rarity::decide::{corrected_threshold, Rule};
    /// assert_eq!(Rule::consistent(&[0.1, 1.0]).unwrap(), Rule::Threshold(corrected_threshold(0.5, 0.1)));
    /// let Rule::Lambda(l) = Rule::consistent(&[0.5, 1.0, 2.0]).unwrap() else { panic!() };
    /// assert!((l[0] / l[2] - 4.0).abs() < 1e-12);
    /// ```
    pub fn consistent(keep_rates: &[f64]) -> Result<Rule> {
        crate::calibrate::prior::check_rates(keep_rates, keep_rates.len(), "keep rates")?;
        if keep_rates.len() == 2 {
            return Ok(Rule::Threshold(corrected_threshold(
                0.5,
                keep_rates[0] / keep_rates[1],
            )));
        }
        let inv: Vec<f64> = keep_rates.iter().map(|r| 1.0 / r).collect();
        let s: f64 = inv.iter().sum();
        Ok(Rule::Lambda(inv.iter().map(|v| v / s).collect()))
    }

    /// The threshold on the positive class's probability that decides a
    /// binary task as this rule does: the threshold itself, `lambda_1 /
    /// (lambda_0 + lambda_1)` for per-class thresholds (`p_1 / l_1 >= p_0 /
    /// l_0` iff `p_1 >= l_1 / (l_0 + l_1)`; PT_MA's is the prior `pi+`), the
    /// Bayes threshold of a loss matrix; `None` for argmax, example-dependent
    /// rules and more than two classes.
    ///
    /// ```
    /// use rarity::decide::Rule;
    /// assert_eq!(Rule::Threshold(0.3).binary_threshold(), Some(0.3));
    /// assert_eq!(Rule::priors(&[0.75, 0.25]).unwrap().binary_threshold(), Some(0.25));
    /// assert_eq!(Rule::Argmax.binary_threshold(), None);
    /// ```
    pub fn binary_threshold(&self) -> Option<f64> {
        match self {
            Rule::Threshold(t) => Some(*t),
            Rule::Lambda(l) if l.len() == 2 => Some(l[1] / (l[0] + l[1])),
            Rule::Cost(m) if m.n_classes() == 2 => m.bayes_threshold().ok(),
            _ => None,
        }
    }

    /// Checks the rule against the number of classes.
    pub fn validate(&self, n_classes: usize) -> Result<()> {
        match self {
            Rule::Argmax => Ok(()),
            Rule::Threshold(_) | Rule::Benefit(_) if n_classes != 2 => {
                Err(Error::invalid(format!(
                    "a threshold or benefit rule needs a binary task; this one has {n_classes} classes \
                     (use lambda(...) or cost(...) for multiclass)"
                )))
            }
            Rule::Threshold(t) if !(0.0..=1.0).contains(t) => {
                Err(Error::invalid(format!("threshold {t} is not in [0, 1]")))
            }
            Rule::Benefit(b) if !b.overhead.is_finite() => Err(Error::invalid(format!(
                "benefit overhead {} is not a finite number",
                b.overhead
            ))),
            Rule::Threshold(_) | Rule::Benefit(_) => Ok(()),
            Rule::Lambda(l) if l.len() != n_classes => Err(Error::invalid(format!(
                "{} lambdas for {n_classes} classes",
                l.len()
            ))),
            Rule::Lambda(l) if l.iter().any(|v| !(*v > 0.0 && v.is_finite())) => Err(
                Error::invalid(format!("lambdas must be finite and > 0, got {l:?}")),
            ),
            Rule::Lambda(_) => Ok(()),
            Rule::Cost(m) if m.n_classes() != n_classes => Err(Error::invalid(format!(
                "the loss matrix is {0} x {0}, but the task has {n_classes} classes",
                m.n_classes()
            ))),
            Rule::Cost(m) => m.validate().map_err(Error::invalid),
        }
    }

    /// Labels for every row. `amounts` is required by [`Rule::Benefit`].
    pub fn decide(&self, proba: &Proba, amounts: Option<&[f64]>) -> Result<Vec<u32>> {
        let k = proba.n_classes();
        self.validate(k)?;
        let n = proba.n_rows();
        let labels = match self {
            Rule::Argmax => proba.argmax().into_iter().map(|c| c as u32).collect(),
            Rule::Threshold(t) => (0..n).map(|i| u32::from(proba.row(i)[1] >= *t)).collect(),
            Rule::Lambda(l) => (0..n)
                .map(|i| {
                    let r = proba.row(i);
                    let mut best = 0;
                    for c in 1..k {
                        if r[c] / l[c] >= r[best] / l[best] {
                            best = c;
                        }
                    }
                    best as u32
                })
                .collect(),
            Rule::Cost(m) => (0..n)
                .map(|i| {
                    let r = proba.row(i);
                    let mut best = 0;
                    let mut best_risk = m.risk(0, r);
                    for d in 1..k {
                        let rd = m.risk(d, r);
                        if rd <= best_risk {
                            best = d;
                            best_risk = rd;
                        }
                    }
                    best as u32
                })
                .collect(),
            Rule::Benefit(b) => {
                let a = amounts.ok_or_else(|| {
                    Error::invalid(format!(
                        "the benefit rule needs the amount column '{}' in the data",
                        b.amount
                    ))
                })?;
                if a.len() != n {
                    return Err(Error::invalid(format!("{} amounts for {n} rows", a.len())));
                }
                b.decide(&proba.column(1), a)?
            }
        };
        Ok(labels)
    }
}

/// A decision as a spec writes it (`threshold(priors)`, `cost(fn=5,fp=1)`,
/// `tune(metric=f1)`): what `rarity fit` and the reports show.
///
/// ```
/// use rarity::decide::{Decision, Rule};
/// assert_eq!(Decision::Priors.to_string(), "threshold(priors)");
/// assert_eq!(Decision::Rule(Rule::Threshold(0.3)).to_string(), "threshold(0.3)");
/// ```
impl std::fmt::Display for Decision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Decision::Rule(rule) => write_rule(f, rule, |v| v.to_string()),
            Decision::Half => f.write_str("threshold(0.5)"),
            Decision::Priors => f.write_str("threshold(priors)"),
            Decision::F1 => f.write_str("threshold(f1)"),
            Decision::RocClosest => f.write_str("roc-closest"),
            Decision::Tune(tune::Objective::Metric(m)) => write!(f, "tune(metric={})", m.key),
            Decision::Tune(tune::Objective::Cost(m)) => write!(f, "tune(metric=cost,{m})"),
        }
    }
}

/// A resolved rule as a spec writes it, its numbers to six significant
/// digits: a binary lambda rule is the threshold `tau = l_1 / (l_0 + l_1)`
/// it equals (`threshold(priors)` resolves to `threshold(pi+)`).
///
/// ```
/// use rarity::decide::Rule;
/// assert_eq!(Rule::priors(&[0.998256, 0.0017436791]).unwrap().to_string(), "threshold(0.00174368)");
/// assert_eq!(Rule::Lambda(vec![0.5, 0.3, 0.2]).to_string(), "lambda(0.5,0.3,0.2)");
/// ```
impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rule::Lambda(l) if l.len() == 2 => {
                write!(f, "threshold({})", six_digits(l[1] / (l[0] + l[1])))
            }
            rule => write_rule(f, rule, six_digits),
        }
    }
}

/// Writes `rule` as a spec does, each of its own numbers by `number`.
fn write_rule(
    f: &mut std::fmt::Formatter<'_>,
    rule: &Rule,
    number: fn(f64) -> String,
) -> std::fmt::Result {
    match rule {
        Rule::Argmax => f.write_str("argmax"),
        Rule::Threshold(t) => write!(f, "threshold({})", number(*t)),
        Rule::Lambda(l) => {
            let l: Vec<String> = l.iter().map(|v| number(*v)).collect();
            write!(f, "lambda({})", l.join(","))
        }
        Rule::Cost(m) => write!(f, "cost({m})"),
        Rule::Benefit(b) => write!(f, "benefit(amount='{}',overhead={})", b.amount, b.overhead),
    }
}

/// `v` rounded to six significant digits, in the shortest text that reads
/// back to the rounded value.
fn six_digits(v: f64) -> String {
    format!("{v:.5e}").parse::<f64>().unwrap_or(v).to_string()
}

/// Dal Pozzolo eq. 12: the threshold for corrected probabilities `p'` that
/// gives the same labels as `tau_s` on the uncorrected `p_s`.
///
/// It is computed with the same floating-point map as the correction
/// itself, so a probability equal to `tau_s` stays exactly at `tau'` and the
/// labels agree exactly, except for a `p_s` within about one ulp of `tau_s`,
/// which the (contracting) map may round onto `tau'`.
///
/// ```
/// use rarity::decide::corrected_threshold;
/// use rarity::calibrate::correct_binary;
/// let (beta, tau_s) = (0.1, 0.5);
/// let tau = corrected_threshold(tau_s, beta);
/// assert!((tau - 0.1 / 1.1).abs() < 1e-15);
/// // p_s at or above tau_s <=> p' at or above tau'.
/// assert!(correct_binary(0.51, beta) > tau && correct_binary(0.49, beta) < tau);
/// ```
pub fn corrected_threshold(tau_s: f64, beta: f64) -> f64 {
    crate::calibrate::correct_binary(tau_s, beta)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::{correct_binary, correct_keep_rates};

    #[test]
    fn eq12_gives_identical_labels() {
        // Every p_s on a fine grid, ratios of small counts (what trees and
        // bagged trees output) and the threshold itself: labels from
        // (p_s, tau_s) and (p', tau') agree exactly. (Values within an ulp
        // of tau_s can collide: the map contracts below float resolution.)
        for &beta in &[0.02, 0.11, 0.37, 1.0] {
            for &tau_s in &[0.1f64, 0.5, 0.73] {
                let mut ps: Vec<f64> = (0..=10_000).map(|i| i as f64 / 10_000.0).collect();
                ps.push(tau_s);
                for den in 1..=200u32 {
                    ps.extend((0..=den).map(|num| f64::from(num) / f64::from(den)));
                }
                let before = Rule::Threshold(tau_s)
                    .decide(&Proba::from_positive(&ps), None)
                    .unwrap();
                let mut p = Proba::from_positive(&ps);
                correct_keep_rates(&mut p, &[beta, 1.0]).unwrap();
                let after = Rule::Threshold(corrected_threshold(tau_s, beta))
                    .decide(&p, None)
                    .unwrap();
                let diff = before.iter().zip(&after).position(|(a, b)| a != b);
                assert_eq!(
                    diff,
                    None,
                    "beta {beta} tau_s {tau_s}: first differing p_s {:?}",
                    diff.map(|i| ps[i])
                );
            }
        }
    }

    #[test]
    fn consistent_rule_keeps_the_sample_models_labels() {
        let rates = [0.2, 1.0, 3.0];
        let ps = Proba::new(
            vec![
                0.5, 0.3, 0.2, 0.1, 0.1, 0.8, 0.2, 0.45, 0.35, 0.34, 0.33, 0.33,
            ],
            3,
        );
        let before = Rule::Argmax.decide(&ps, None).unwrap();
        let mut p = ps.clone();
        correct_keep_rates(&mut p, &rates).unwrap();
        let rule = Rule::consistent(&rates).unwrap();
        assert_eq!(rule.decide(&p, None).unwrap(), before);
        assert!(Rule::consistent(&[0.0, 1.0]).is_err());
    }

    #[test]
    fn priors_rule_is_the_binary_prior_threshold() {
        let ps: Vec<f64> = (0..=100).map(|i| i as f64 / 100.0).collect();
        let p = Proba::from_positive(&ps);
        let a = Rule::priors(&[0.75, 0.25])
            .unwrap()
            .decide(&p, None)
            .unwrap();
        let b = Rule::Threshold(0.25).decide(&p, None).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn cost_rule_matches_bayes_threshold() {
        let ps: Vec<f64> = (0..=1000).map(|i| i as f64 / 1000.0).collect();
        let p = Proba::from_positive(&ps);
        // A false negative (decide 0, truth 1) costs 5, a false positive 1.
        let m = LossMatrix::binary(0.0, 1.0, 5.0, 0.0).unwrap();
        let tau = m.bayes_threshold().unwrap();
        let a = Rule::Cost(m).decide(&p, None).unwrap();
        let b = Rule::Threshold(tau).decide(&p, None).unwrap();
        let differ = a.iter().zip(&b).filter(|(x, y)| x != y).count();
        assert_eq!(differ, 0, "{differ} rows differ");
        assert!(correct_binary(0.5, 1.0) == 0.5);
    }

    #[test]
    fn benefit_rule_uses_amounts() {
        let p = Proba::from_positive(&[0.1, 0.1, 0.9]);
        let rule = Rule::Benefit(Benefit {
            amount: "Amount".into(),
            overhead: 90.0,
        });
        assert_eq!(
            rule.decide(&p, Some(&[1000.0, 10.0, 50.0])).unwrap(),
            vec![1, 0, 0]
        );
        assert!(rule.decide(&p, None).is_err());
    }

    /// Every rule a spec gives in full, with the priors of a task it fits
    /// and its text in model files (what files written before hold).
    fn given_rules() -> Vec<(Rule, Vec<f64>, &'static str)> {
        let binary = vec![0.8, 0.2];
        vec![
            (Rule::Argmax, binary.clone(), r#""Argmax""#),
            (Rule::Threshold(0.3), binary.clone(), r#"{"Threshold":0.3}"#),
            (
                Rule::Lambda(vec![0.5, 0.25, 0.25]),
                vec![0.6, 0.3, 0.1],
                r#"{"Lambda":[0.5,0.25,0.25]}"#,
            ),
            (
                Rule::Cost(LossMatrix::binary(0.0, 1.0, 5.0, 0.0).unwrap()),
                binary.clone(),
                r#"{"Cost":{"k":2,"loss":[0.0,5.0,1.0,0.0]}}"#,
            ),
            (
                Rule::Benefit(Benefit {
                    amount: "Amount".into(),
                    overhead: 90.0,
                }),
                binary,
                r#"{"Benefit":{"amount":"Amount","overhead":90.0}}"#,
            ),
        ]
    }

    #[test]
    fn a_rule_given_in_full_is_one_decision_its_spec_and_its_model_format() {
        for (rule, priors, stored) in given_rules() {
            let decision = Decision::Rule(rule.clone());
            assert_eq!(decision.from_priors(&priors).unwrap(), rule);
            assert!(!decision.needs_oof() && decision.plugin().is_none());
            // The spec text reads back as the same decision.
            let text = decision.to_string();
            let call = crate::params::syntax::parse(&text).unwrap().remove(0);
            match registry::build_stage(&call).unwrap() {
                registry::Stage::Decide(d) => assert_eq!(d, decision, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
            // Model files store the rule as before.
            assert_eq!(serde_json::to_string(&rule).unwrap(), stored);
            assert_eq!(serde_json::from_str::<Rule>(stored).unwrap(), rule);
        }
    }

    #[test]
    fn invalid_rules_are_explained() {
        let p3 = Proba::new(vec![0.2, 0.3, 0.5], 3);
        assert!(Rule::Threshold(0.5).decide(&p3, None).is_err());
        assert!(Rule::Lambda(vec![0.5, 0.5]).decide(&p3, None).is_err());
        assert!(Rule::priors(&[1.0, 0.0]).is_err());
        assert!(Rule::f1(&[0.2, 0.3, 0.5]).is_err());
        // A matrix that would flag every row or none is refused when made.
        assert!(LossMatrix::binary(0.0, 0.0, 0.0, 0.0).is_err());
        let two = LossMatrix::binary(0.0, 1.0, 5.0, 0.0).unwrap();
        assert!(Rule::Cost(two).decide(&p3, None).is_err());
        assert_eq!(
            Rule::Lambda(vec![0.6, 0.3, 0.1]).decide(&p3, None).unwrap(),
            vec![2]
        );
    }
}
