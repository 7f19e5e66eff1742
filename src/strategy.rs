//! Strategies: an optional sampler, a learner (or ensemble), an optional
//! prior correction, an optional calibration and a decision, fitted and saved
//! as one object. This is what `rarity fit` saves, `rarity predict` applies
//! and `rarity evaluate` / `rarity run` compare.
//!
//! Probabilities flow as in DESIGN.md's "unifying idea":
//!
//! 1. a sampler stage draws the training sample and reports its keep rates;
//! 2. the learner is fitted on it (a bagging ensemble draws its own per-member
//!    samples and keeps their keep rates);
//! 3. `correct` undoes every prior shift (`p_k ∝ p_s,k / r_k`, Dal Pozzolo
//!    eq. 9 in the binary case): the sampler stage's shift on the model's
//!    output (as the paper corrects a random forest trained on an
//!    undersampled set), and an ensemble's per-member shifts on each member
//!    before averaging. Unpruned trees have pure leaves, so their member
//!    probabilities are 0 or 1 and a per-member correction leaves them
//!    unchanged; `correct(mode=average)` instead corrects the averaged
//!    probabilities with the members' mean keep rates, which is exact when
//!    every member has the same rates (EB-bagging, under-bagging with
//!    exact counts) and works with pure leaves;
//! 4. `platt` / `isotonic` fit a calibrator on out-of-fold probabilities
//!    (stratified 3-fold by default, as in the PT-bagging paper) for the
//!    model fitted on all rows; with `ensemble=true` (scikit-learn's
//!    `CalibratedClassifierCV(ensemble=True)`) each fold's model keeps the
//!    calibrator fitted on its held-out part and predictions average the
//!    folds' calibrated probabilities;
//! 5. the decision turns probabilities into labels; plug-in thresholds use
//!    the training priors, tuned ones the out-of-fold probabilities of the
//!    training data (never test data). With calibration, tuned decisions use
//!    the out-of-fold probabilities passed through the final calibrator.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::calibrate::prior::correct_row;
use crate::calibrate::{self, Calibration, Correction, OneVsRest};
use crate::data::{Dataset, Proba, Schema};
use crate::decide::tune::{best_threshold, roc_closest, tune_lambdas};
use crate::decide::{Decision, Rule};
use crate::ensemble::BaggedModel;
use crate::error::{Error, Result};
use crate::learn::Learner;
use crate::learn::Model;
use crate::persist::Persist;
use crate::rng;
use crate::sample::Sampler;
use crate::split::cross_fit_folds;

/// An unfitted strategy.
#[derive(Debug, Clone)]
pub struct Strategy {
    /// The spec it was built from (for reports and the saved model).
    pub spec: String,
    /// The spec without its decision stage and without whitespace: the
    /// stem of decision copies (`rarity run --cost` names
    /// `STEM+cost(...)`).
    pub stem: String,
    /// The decision stage as written (whitespace removed), if the spec has
    /// one; `None` when the learner's default decision applies.
    pub decision_stage: Option<String>,
    /// Optional sampler applied to the training data first.
    pub sampler: Option<Arc<dyn Sampler>>,
    /// The learner or ensemble.
    pub learner: Arc<dyn Learner>,
    /// Undo the prior shift of all sampling, and how.
    pub correct: Option<Correction>,
    /// Optional calibration.
    pub calibration: Option<Calibration>,
    /// The decision.
    pub decision: Decision,
}

/// A fitted strategy: everything needed to predict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FittedStrategy {
    /// The spec.
    pub spec: String,
    /// Feature names, encodings and class names of the training data.
    pub schema: Schema,
    /// Training class priors.
    pub priors: Vec<f64>,
    /// The fitted models whose probabilities are averaged: one, or one per
    /// fold with a cross-validated calibration ensemble.
    pub members: Vec<Member>,
    /// Whether and how the prior correction is applied.
    pub correct: Option<Correction>,
    /// The resolved decision rule.
    pub rule: Rule,
}

/// A fold's model with the rows it was not trained on.
type FoldMember = (Member, Vec<usize>);

/// One fitted model with its sampler stage's keep rates and calibrator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Member {
    /// The fitted learner.
    pub model: Model,
    /// Keep rates of the sampler stage (1 for every class without one).
    pub keep_rates: Vec<f64>,
    /// The fitted calibrator, if any.
    pub calibrator: Option<OneVsRest>,
}

impl Member {
    fn proba(&self, correct: Option<Correction>, data: &Dataset) -> Result<Proba> {
        let p = corrected_proba(&self.model, &self.keep_rates, correct, data)?;
        Ok(match &self.calibrator {
            Some(c) => c.transform(&p),
            None => p,
        })
    }
}

impl Persist for FittedStrategy {
    fn validate(&self) -> std::result::Result<(), String> {
        let k = self.schema.class_names.len();
        if self.members.is_empty() || self.priors.len() != k {
            return Err("no fitted model, or priors of the wrong length".into());
        }
        for m in &self.members {
            m.model.validate()?;
            if m.model.n_classes() != k || m.keep_rates.len() != k {
                return Err(format!(
                    "class counts disagree: schema {k}, model {}, keep rates {}",
                    m.model.n_classes(),
                    m.keep_rates.len()
                ));
            }
            if m.model.n_features() != self.schema.feature_names.len() {
                return Err("the model's feature count differs from the schema's".into());
            }
        }
        self.rule.validate(k).map_err(|e| e.to_string())
    }
}

/// Probabilities of a fitted learner with the optional prior correction
/// (`keep_rates`: the sampler stage's; ensemble members carry their own).
fn corrected_proba(
    model: &Model,
    keep_rates: &[f64],
    correct: Option<Correction>,
    data: &Dataset,
) -> Result<Proba> {
    let Some(mode) = correct else {
        return model.predict_proba(data);
    };
    let mut rates = keep_rates.to_vec();
    let mut p = match (model.downcast_ref::<BaggedModel>(), mode) {
        (Some(b), Correction::Member) => b.predict_proba_with(data, |_, member, p| {
            let r: Vec<f64> = member.iter().map(|m| m.max(f64::MIN_POSITIVE)).collect();
            correct_row(p, &r);
        })?,
        (Some(b), Correction::Average) => {
            let n = b.keep_rates().len().max(1) as f64;
            for (k, r) in rates.iter_mut().enumerate() {
                *r *= b.keep_rates().iter().map(|m| m[k]).sum::<f64>() / n;
            }
            model.predict_proba(data)?
        }
        _ => model.predict_proba(data)?,
    };
    calibrate::correct_keep_rates(&mut p, &rates)?;
    Ok(p)
}

impl Strategy {
    /// The same strategy deciding by `decision`, written `stage` in its
    /// label (`STEM+stage`).
    pub fn with_decision(&self, decision: Decision, stage: &str) -> Strategy {
        Strategy {
            spec: format!("{}+{stage}", self.stem),
            decision_stage: Some(stage.to_string()),
            decision,
            ..self.clone()
        }
    }

    /// The sampler stage and the learner, fitted on `data`.
    fn fit_core(&self, data: &Dataset, stream: u64, seed: u64) -> Result<(Model, Vec<f64>)> {
        let mut r = rng::stream(seed, stream);
        let (train, keep_rates) = match &self.sampler {
            Some(s) => {
                let sample = s.resample(data, &mut r)?;
                (sample.materialise(data)?, sample.keep_rates)
            }
            None => (data.clone(), vec![1.0; data.n_classes()]),
        };
        check_kept(&keep_rates, data.class_names())?;
        let rows: Vec<usize> = (0..train.n_rows()).collect();
        let model = self.learner.fit(&train.view(&rows), &mut r)?;
        Ok((model, keep_rates))
    }

    /// Whether [`Strategy::fit_sampled`] applies: a sampler stage, and no
    /// stage that needs the training data beyond the sample (calibration,
    /// tuned decisions).
    pub fn fits_on_sample(&self) -> bool {
        self.sampler.is_some() && self.calibration.is_none() && !self.decision.needs_oof()
    }

    /// Fits the learner and decision on a sample the sampler stage drew
    /// elsewhere (while a file was read): `train` holds the sampled rows,
    /// `keep_rates` their classes' keep rates, `priors` the class priors
    /// of the whole data, and `rng` is the sampler's stream after its draw
    /// (stream 0 of the seed, as [`Strategy::fit`] uses). For the same rows
    /// the result is the model `fit` gives on the whole data.
    pub fn fit_sampled(
        &self,
        train: &Dataset,
        keep_rates: Vec<f64>,
        priors: Vec<f64>,
        rng: &mut rng::Rng,
    ) -> Result<FittedStrategy> {
        if !self.fits_on_sample() {
            return Err(Error::invalid(format!(
                "{}: calibration and tuned decisions need the whole training data",
                self.spec
            )));
        }
        check_kept(&keep_rates, train.class_names())?;
        let rows: Vec<usize> = (0..train.n_rows()).collect();
        let model = self.learner.fit(&train.view(&rows), rng)?;
        let rule = data_rule(&self.decision, &priors, train)?;
        rule.validate(priors.len())?;
        Ok(FittedStrategy {
            spec: self.spec.clone(),
            schema: train.schema().clone(),
            priors,
            members: vec![Member {
                model,
                keep_rates,
                calibrator: None,
            }],
            correct: self.correct,
            rule,
        })
    }

    /// Out-of-fold probabilities of the sampler + learner + correction, and
    /// each fold's fitted model with its held-out rows.
    fn out_of_fold(
        &self,
        data: &Dataset,
        folds: usize,
        seed: u64,
    ) -> Result<(Proba, Vec<FoldMember>)> {
        let splits = cross_fit_folds(
            data,
            folds,
            seed,
            "calibration and tuned thresholds need at least 2 rows of every class",
        )?;
        let mut oof = Proba::zeros(data.n_rows(), data.n_classes());
        let mut members = Vec::with_capacity(splits.len());
        for (f, fold) in splits.into_iter().enumerate() {
            let train = data.take(&fold.train);
            let test = data.take(&fold.test);
            let (model, keep_rates) = self.fit_core(&train, 1 + f as u64, seed)?;
            let p = corrected_proba(&model, &keep_rates, self.correct, &test)?;
            for (j, &i) in fold.test.iter().enumerate() {
                oof.row_mut(i).copy_from_slice(p.row(j));
            }
            let member = Member {
                model,
                keep_rates,
                calibrator: None,
            };
            members.push((member, fold.test));
        }
        Ok((oof, members))
    }

    /// Fits the whole strategy on `data`.
    ///
    /// ```
    /// use rarity::data::{bundled, read::ReadOptions};
    /// let (ds, _) = bundled::find("ecoli4").unwrap().load(&ReadOptions::default()).unwrap();
    /// let s = rarity::spec::build_strategy("bagging(n=10)+threshold(priors)").unwrap();
    /// let fitted = s.fit(&ds, 1).unwrap();
    /// let labels = fitted.predict(&ds).unwrap().1;
    /// assert_eq!(labels.len(), ds.n_rows());
    /// ```
    pub fn fit(&self, data: &Dataset, seed: u64) -> Result<FittedStrategy> {
        data.require_two_classes()?;
        let truth = data.labels();
        let folds = self.calibration.map_or(3, |c| c.folds);
        let need_oof = self.calibration.is_some() || self.decision.needs_oof();
        let (oof, fold_members) = if need_oof {
            let (p, m) = self.out_of_fold(data, folds, seed)?;
            (Some(p), m)
        } else {
            (None, Vec::new())
        };
        let (members, oof) = match (self.calibration, oof) {
            (Some(c), Some(mut p)) if c.ensemble => {
                // Each fold's model is calibrated on its own held-out rows.
                let mut members = Vec::with_capacity(fold_members.len());
                for (mut m, test_rows) in fold_members {
                    let held = Proba::new(
                        test_rows.iter().flat_map(|&i| p.row(i).to_vec()).collect(),
                        p.n_classes(),
                    );
                    let held_truth: Vec<u32> = test_rows.iter().map(|&i| truth[i]).collect();
                    let cal = OneVsRest::fit(&held, &held_truth, c.method)?;
                    let calibrated = cal.transform(&held);
                    for (j, &i) in test_rows.iter().enumerate() {
                        p.row_mut(i).copy_from_slice(calibrated.row(j));
                    }
                    m.calibrator = Some(cal);
                    members.push(m);
                }
                (members, Some(p))
            }
            (calibration, oof) => {
                let (model, keep_rates) = self.fit_core(data, 0, seed)?;
                let calibrator = match (calibration, &oof) {
                    (Some(c), Some(p)) => Some(OneVsRest::fit(p, truth, c.method)?),
                    _ => None,
                };
                let oof = match (&calibrator, oof) {
                    (Some(c), Some(p)) => Some(c.transform(&p)),
                    (_, p) => p,
                };
                let member = Member {
                    model,
                    keep_rates,
                    calibrator,
                };
                (vec![member], oof)
            }
        };
        let priors = data.priors();
        let k = data.n_classes();
        let rule = match &self.decision {
            Decision::RocClosest | Decision::Tune(_) => {
                let p = oof
                    .as_ref()
                    .expect("out-of-fold probabilities were computed");
                match (&self.decision, k) {
                    (Decision::RocClosest, 2) => Rule::Threshold(roc_closest(truth, &p.column(1))?),
                    (Decision::Tune(obj), 2) => {
                        Rule::Threshold(best_threshold(truth, &p.column(1), obj)?.0)
                    }
                    (Decision::Tune(obj), _) => Rule::Lambda(tune_lambdas(truth, p, &priors, obj)?),
                    _ => {
                        return Err(Error::invalid(
                            "roc-closest is a binary cut-off; use tune(metric=...) for multiclass",
                        ))
                    }
                }
            }
            d => data_rule(d, &priors, data)?,
        };
        rule.validate(k)?;
        Ok(FittedStrategy {
            spec: self.spec.clone(),
            schema: data.schema().clone(),
            priors,
            members,
            correct: self.correct,
            rule,
        })
    }
}

impl FittedStrategy {
    /// Checks that `data` has the training features (same names, same order).
    pub fn check_columns(&self, data: &Dataset) -> Result<()> {
        let want = &self.schema.feature_names;
        let got = data.feature_names();
        if want != got {
            let missing: Vec<&String> = want.iter().filter(|f| !got.contains(f)).collect();
            let extra: Vec<&String> = got.iter().filter(|f| !want.contains(f)).collect();
            return Err(Error::data(format!(
                "the data's columns do not match the model's: {} features expected, {} given{}{}{}",
                want.len(),
                got.len(),
                if missing.is_empty() {
                    String::new()
                } else {
                    format!("; missing: {}", join(&missing))
                },
                if extra.is_empty() {
                    String::new()
                } else {
                    format!("; unexpected: {}", join(&extra))
                },
                if missing.is_empty() && extra.is_empty() {
                    "; the order differs"
                } else {
                    ""
                }
            )));
        }
        Ok(())
    }

    /// Calibrated (and corrected) class probabilities.
    pub fn predict_proba(&self, data: &Dataset) -> Result<Proba> {
        self.check_columns(data)?;
        let mut p = self.members[0].proba(self.correct, data)?;
        if self.members.len() > 1 {
            for m in &self.members[1..] {
                let q = m.proba(self.correct, data)?;
                p.values_mut()
                    .iter_mut()
                    .zip(q.values())
                    .for_each(|(a, b)| *a += b);
            }
            let n = self.members.len() as f64;
            p.values_mut().iter_mut().for_each(|v| *v /= n);
            p.normalise_rows();
        }
        Ok(p)
    }

    /// Labels from given probabilities (amounts read from `data` if the rule
    /// needs them).
    pub fn decide(&self, data: &Dataset, proba: &Proba) -> Result<Vec<u32>> {
        let amounts = match &self.rule {
            Rule::Benefit(b) => Some(b.amounts(data)?),
            _ => None,
        };
        self.rule.decide(proba, amounts.as_deref())
    }

    /// Probabilities and labels.
    pub fn predict(&self, data: &Dataset) -> Result<(Proba, Vec<u32>)> {
        let p = self.predict_proba(data)?;
        let labels = self.decide(data, &p)?;
        Ok((p, labels))
    }
}

/// Fails if a sampler kept no row of some class.
fn check_kept(keep_rates: &[f64], class_names: &[String]) -> Result<()> {
    if let Some(k) = keep_rates.iter().position(|&r| r <= 0.0) {
        return Err(Error::data(format!(
            "the sampler kept no rows of class '{}'",
            class_names[k]
        )));
    }
    Ok(())
}

/// [`plain_rule`], after checking that `data` has a benefit's amount column.
fn data_rule(decision: &Decision, priors: &[f64], data: &Dataset) -> Result<Rule> {
    if let Decision::Benefit(b) = decision {
        b.amounts(data)
            .map_err(|e| Error::invalid(format!("benefit: {e}")))?;
    }
    plain_rule(decision, priors)
}

/// The rule of a decision that needs no training data beyond the class
/// priors (every decision but the tuned ones, `roc-closest` and `tune`).
fn plain_rule(decision: &Decision, priors: &[f64]) -> Result<Rule> {
    let k = priors.len();
    Ok(match decision {
        Decision::Argmax => Rule::Argmax,
        Decision::Fixed(t) => Rule::Threshold(*t),
        Decision::Half if k == 2 => Rule::Threshold(0.5),
        Decision::Half => Rule::Argmax,
        Decision::Priors => Rule::priors(priors)?,
        Decision::F1 => Rule::f1(priors)?,
        Decision::Lambda(l) => Rule::Lambda(l.clone()),
        Decision::Cost(m) => Rule::Cost(m.clone()),
        Decision::Benefit(b) => Rule::Benefit(b.clone()),
        Decision::RocClosest | Decision::Tune(_) => {
            return Err(Error::invalid(
                "roc-closest and tune(...) are tuned on the training data's out-of-fold \
                 probabilities; choose them when fitting (rarity fit --model '...+tune(...)')",
            ))
        }
    })
}

impl FittedStrategy {
    /// The same fitted model deciding by `decision` instead (resolved with
    /// the training priors), e.g. `threshold(0.3)` or `cost(fn=10,fp=1)`
    /// chosen at prediction time.
    ///
    /// ```
    /// use rarity::data::{bundled, read::ReadOptions};
    /// use rarity::decide::{Decision, Rule};
    /// let (ds, _) = bundled::find("ecoli4").unwrap().load(&ReadOptions::default()).unwrap();
    /// let fitted = rarity::spec::build_strategy("logistic").unwrap().fit(&ds, 1).unwrap();
    /// let t = fitted.with_decision(&Decision::Fixed(0.3)).unwrap();
    /// assert_eq!(t.rule, Rule::Threshold(0.3));
    /// ```
    pub fn with_decision(&self, decision: &Decision) -> Result<FittedStrategy> {
        let rule = plain_rule(decision, &self.priors)?;
        rule.validate(self.schema.class_names.len())?;
        if let Rule::Benefit(b) = &rule {
            if !self.schema.feature_names.contains(&b.amount) {
                return Err(Error::invalid(format!(
                    "benefit: the amount column '{}' is not a feature of the model",
                    b.amount
                )));
            }
        }
        Ok(FittedStrategy {
            rule,
            ..self.clone()
        })
    }
}

fn join(v: &[&String]) -> String {
    v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}
