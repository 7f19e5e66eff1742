//! Strategies: an optional sampler, a learner (or ensemble), an optional
//! prior correction, an optional calibration and a decision, fitted and saved
//! as one object. This is what `rarity fit` saves, `rarity predict` applies
//! and `rarity evaluate` / `rarity run` compare.
//!
//! Probabilities flow as in DESIGN.md's "unifying idea":
//!
//! 1. a sampler stage draws the training sample and reports its keep rates;
//!    an `encode(target)` stage ([`crate::data::target_encode`]) is fitted
//!    on that sample, each row weighted by 1 / (its class's keep rate), and
//!    replaces the categorical features before the learner sees them (each
//!    member keeps its tables for new rows);
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
//!    exact counts) and works with pure leaves. A learner's class weights
//!    (`gbdt(class_weight=...)`) act as keep rates and are undone the same
//!    way ([`crate::learn::Classifier::class_weights`]);
//! 4. `platt` / `isotonic` fit a calibrator on out-of-fold probabilities
//!    (stratified 3-fold by default, as in the PT-bagging paper) for the
//!    model fitted on all rows; with `ensemble=true` (scikit-learn's
//!    `CalibratedClassifierCV(ensemble=True)`) each fold's model keeps the
//!    calibrator fitted on its held-out part and predictions average the
//!    folds' calibrated probabilities;
//! 5. `priors(...)` / `em` move the probabilities to other class priors
//!    (Saerens et al. 2002; Dal Pozzolo et al. 2015, eq. 14): known ones, or
//!    those Saerens' EM estimates on the rows being predicted. They start
//!    from the priors the probabilities are under: the training priors after
//!    `correct` or a calibration, else the training sample's (the training
//!    priors times the keep rates of the sampler stage and of an ensemble's
//!    members);
//! 6. the decision turns probabilities into labels; plug-in thresholds use
//!    the training priors (the target priors after a prior shift, estimated
//!    per batch after `em`), tuned ones the out-of-fold probabilities of the
//!    training data (never test data). With calibration, tuned decisions use
//!    the out-of-fold probabilities passed through the final calibrator (and
//!    the shift to known priors).
//!
//! Common random numbers: the sample and the fitted model of a strategy
//! depend only on the seed, the training rows and its sampler + learner
//! ([`Strategy::core_key`]), never on the stages that follow nor on other
//! strategies. [`CoreFits`] makes each such fit once and shares it, so
//! `X`, `X+correct` and `X+platt` see the very same fitted model, and
//! strategies that differ only in their decision ([`Strategy::model_key`])
//! share one [`FittedModel`].

use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::calibrate::prior::correct_row;
use crate::calibrate::{self, Calibration, Correction, OneVsRest, PriorShift};
use crate::data::impute::{FittedImpute, Impute};
use crate::data::read::ReadOptions;
use crate::data::target_encode::{Columns, FittedEncoding, TargetEncode};
use crate::data::{Dataset, Proba, Schema};
use crate::decide::registry::{build_stage, Stage};
use crate::decide::{Decision, PluginRule, Resolving, Rule};
use crate::error::{Error, Result};
use crate::learn::Learner;
use crate::learn::Model;
use crate::metrics::profile::Profile;
use crate::params::syntax;
use crate::rng;
use crate::sample::Sampler;
use crate::split::InnerFolds;

mod validate;
mod written;

/// The share of the rows below which a class is rare for
/// [`Strategy::default_decision_note`].
pub const RARE_SHARE: f64 = 0.1;

mod missing;
mod monotone;
mod priors;

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
    /// Optional imputation of missing values (`impute(...)+...`), fitted on
    /// the training rows before the sampler ([`crate::data::impute`]).
    pub impute: Option<Impute>,
    /// Optional target-statistics encoding of the categorical features
    /// (`encode(target)+...`), fitted on the sample the learner trains on
    /// ([`crate::data::target_encode`]).
    pub encode: Option<TargetEncode>,
    /// Optional sampler applied to the training data first.
    pub sampler: Option<Arc<dyn Sampler>>,
    /// The learner or ensemble.
    pub learner: Arc<dyn Learner>,
    /// Undo the prior shift of all sampling, and how.
    pub correct: Option<Correction>,
    /// Optional calibration.
    pub calibration: Option<Calibration>,
    /// Optional move to other class priors.
    pub shift: Option<PriorShift>,
    /// The decision.
    pub decision: Decision,
}

/// A fitted strategy: everything needed to predict (written to a model
/// file by [`written`]'s `Serialize`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
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
    /// The move to other class priors, if any.
    #[serde(default)]
    pub shift: Option<FittedShift>,
    /// How much data and time the fit took (absent in files written before
    /// rarity recorded it; older files of the same format version still
    /// load).
    #[serde(default)]
    pub fit: Option<FitRecord>,
    /// Whether the learner takes missing values as they are
    /// ([`Learner::handles_missing`] when it was fitted), so a row missing a
    /// value is scored even without an imputation (absent in older files:
    /// false, their rows with missing values are refused as before; not
    /// written when false and last).
    #[serde(default)]
    pub learner_takes_missing: bool,
    /// The training table's profile for `rarity monitor`'s reference
    /// (`rarity fit --summary`; [`Profile::summary`]): absent unless asked
    /// for, and then the file is of format version 4.
    #[serde(default)]
    pub training: Option<Box<Profile>>,
}

/// The training rows and seconds of a fit, for `rarity show`. Two records
/// are equal when their rows are: the same seed gives the same model,
/// whatever time it took.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct FitRecord {
    /// Rows of the training data (before any sampling).
    pub rows: usize,
    /// Seconds the fit took (sampler, learner, cross-fits, calibration,
    /// decision).
    pub seconds: f64,
}

impl PartialEq for FitRecord {
    fn eq(&self, other: &Self) -> bool {
        self.rows == other.rows
    }
}

/// A fitted prior shift (`+priors(...)`, `+em`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FittedShift {
    /// Where the target priors come from.
    pub shift: PriorShift,
    /// The priors the model's probabilities are under.
    pub source: Vec<f64>,
    /// With `em`: the plug-in rule resolved from each batch's estimated
    /// priors (instead of [`FittedStrategy::rule`]).
    pub plugin: Option<PluginRule>,
}

/// One fitted model with its sampler stage's keep rates and calibrator.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Member {
    /// The fitted learner.
    pub model: Model,
    /// Keep rates of the sampler stage (1 for every class without one).
    pub keep_rates: Vec<f64>,
    /// The fitted calibrator, if any.
    pub calibrator: Option<OneVsRest>,
    /// The fitted `encode(target)` stage the model reads the data through
    /// (absent in files written before it existed; the last field, so they
    /// still load; not written when absent, so files without the stage
    /// are as before).
    #[serde(default)]
    pub encoding: Option<FittedEncoding>,
    /// The fitted `impute(...)` stage the data goes through first (absent
    /// in files written before it existed, and not written when absent).
    #[serde(default)]
    pub imputer: Option<FittedImpute>,
}

/// As the derived form, the stages absent at the end left out: a member
/// without them is written as before they existed (model files are
/// MessagePack arrays, so a field is only left out when none follows it).
impl Serialize for Member {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let encoding = self.encoding.is_some() || self.imputer.is_some();
        let fields = 3 + usize::from(encoding) + usize::from(self.imputer.is_some());
        let mut st = s.serialize_struct("Member", fields)?;
        st.serialize_field("model", &self.model)?;
        st.serialize_field("keep_rates", &self.keep_rates)?;
        st.serialize_field("calibrator", &self.calibrator)?;
        if encoding {
            st.serialize_field("encoding", &self.encoding)?;
        }
        if let Some(i) = &self.imputer {
            st.serialize_field("imputer", &Some(i))?;
        }
        st.end()
    }
}

/// `data` as a model fitted after `imputer` and `encoding` reads it.
fn model_input<'a>(
    imputer: Option<&FittedImpute>,
    encoding: Option<&FittedEncoding>,
    data: &'a Dataset,
) -> Result<std::borrow::Cow<'a, Dataset>> {
    use std::borrow::Cow;
    let imputed = match imputer {
        Some(i) => Cow::Owned(i.apply(data)?),
        None => Cow::Borrowed(data),
    };
    Ok(match encoding {
        Some(e) => Cow::Owned(e.apply(&imputed)?),
        None => imputed,
    })
}

impl Member {
    fn proba(&self, correct: Option<Correction>, data: &Dataset) -> Result<Proba> {
        let data = model_input(self.imputer.as_ref(), self.encoding.as_ref(), data)?;
        let p = corrected_proba(&self.model, &self.keep_rates, correct, &data)?;
        Ok(match &self.calibrator {
            Some(c) => c.transform(&p),
            None => p,
        })
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
    let rates = correction_rates(model, keep_rates, mode);
    let mut p = match (model.member_keep_rates(), mode) {
        (Some(members), Correction::Member) => {
            // Each member's rates, floored once (not once per leaf or row).
            let floored: Vec<Vec<f64>> = members
                .iter()
                .map(|member| member.iter().map(|m| m.max(f64::MIN_POSITIVE)).collect())
                .collect();
            model.predict_proba_members(data, &|i, _, p| correct_row(p, &floored[i]))?
        }
        _ => model.predict_proba(data)?,
    };
    calibrate::correct_keep_rates(&mut p, &rates)?;
    Ok(p)
}

/// The keep rates of all the sampling behind a model's probabilities: the
/// sampler stage's times, for an ensemble of members fitted on their own
/// samples ([`crate::learn::Classifier::member_keep_rates`]), its members'
/// mean rates.
fn sample_rates(model: &Model, keep_rates: &[f64]) -> Vec<f64> {
    let mut rates = keep_rates.to_vec();
    if let Some(members) = model.member_keep_rates() {
        let n = members.len().max(1) as f64;
        for (k, r) in rates.iter_mut().enumerate() {
            *r *= members.iter().map(|m| m[k]).sum::<f64>() / n;
        }
    }
    rates
}

/// The keep rates one correction of a model's probabilities undoes: with
/// `mode=member` the sampler stage's (each member's own are undone inside
/// the ensemble), with `mode=average` all the sampling behind the model
/// ([`sample_rates`]); times the model's class weights.
pub(crate) fn correction_rates(model: &Model, keep_rates: &[f64], mode: Correction) -> Vec<f64> {
    let mut rates = match mode {
        Correction::Member => keep_rates.to_vec(),
        Correction::Average => sample_rates(model, keep_rates),
    };
    if let Some(w) = model.class_weights() {
        rates.iter_mut().zip(w).for_each(|(r, w)| *r *= w);
    }
    rates
}

/// A fit of a sampler + learner: the model, the sampler stage's keep rates
/// and the seconds it took.
#[derive(Debug)]
struct Core {
    model: Model,
    keep_rates: Vec<f64>,
    imputer: Option<FittedImpute>,
    encoding: Option<FittedEncoding>,
    seconds: f64,
}

/// A fit of a cross-fit fold with the rows it did not see.
type HeldOut = (Core, Vec<usize>);

impl Core {
    fn member(&self) -> Member {
        Member {
            model: self.model.clone(),
            keep_rates: self.keep_rates.clone(),
            calibrator: None,
            encoding: self.encoding.clone(),
            imputer: self.imputer.clone(),
        }
    }
}

/// The fits of one sampler + learner on one training set with one seed,
/// made on first use and shared by every strategy with that sampler and
/// learner (common random numbers): the model on all rows (random stream 0)
/// and, per number of folds `K`, the models of the `K`-fold cross-fit
/// (stream `1 + f` for fold `f`) that calibration and tuned decisions need,
/// stratified unless [`CoreFits::with_inner`] says otherwise.
///
/// ```
/// use rarity::data::{bundled, read::ReadOptions};
/// use rarity::strategy::CoreFits;
/// let (ds, _) = bundled::find("glass6").unwrap().load(&ReadOptions::default()).unwrap();
/// let plain = rarity::spec::build_strategy("under(ratio=1)+forest(n=5)").unwrap();
/// let corrected = rarity::spec::build_strategy("under(ratio=1)+forest(n=5)+correct").unwrap();
/// let mut cores = CoreFits::new(&ds, 7);
/// let a = plain.fit_model(&mut cores, false).unwrap();
/// let b = corrected.fit_model(&mut cores, false).unwrap();
/// assert_eq!(a.members[0].model, b.members[0].model);
/// assert!(corrected.fit_model(&mut CoreFits::new(&ds, 7), false).unwrap().members == b.members);
/// ```
pub struct CoreFits<'a> {
    data: &'a Dataset,
    seed: u64,
    key: Option<String>,
    main: Option<Core>,
    cross: Vec<(usize, Vec<HeldOut>)>,
    inner: InnerFolds,
    seconds: f64,
}

impl<'a> CoreFits<'a> {
    /// No fits yet, for training set `data` and seed `seed`.
    pub fn new(data: &'a Dataset, seed: u64) -> Self {
        CoreFits {
            data,
            seed,
            key: None,
            main: None,
            cross: Vec::new(),
            inner: InnerFolds::Stratified,
            seconds: 0.0,
        }
    }

    /// Cuts the cross-fit's folds by `inner` (a time or group column over
    /// the training set's rows) instead of stratified folds.
    pub fn with_inner(mut self, inner: InnerFolds) -> Self {
        self.inner = inner;
        self
    }

    /// The training set.
    pub fn data(&self) -> &'a Dataset {
        self.data
    }

    /// Checks that every strategy served has the same sampler and learner.
    fn serve(&mut self, s: &Strategy) -> Result<()> {
        let key = s.core_key();
        match &self.key {
            Some(k) if *k != key => Err(Error::invalid(format!(
                "shared fits of '{k}' cannot serve '{}', whose sampler or learner differs",
                s.spec
            ))),
            Some(_) => Ok(()),
            None => {
                self.key = Some(key);
                Ok(())
            }
        }
    }

    /// The imputation, sampler and learner fitted on `data` with random
    /// stream `stream`: the imputation on `data`'s rows first (the sampler
    /// draws from complete rows, indicators voted), then the sample, its
    /// encoding and the learner.
    fn fit(s: &Strategy, data: &Dataset, stream: u64, seed: u64) -> Result<Core> {
        let t0 = Instant::now();
        let mut r = rng::stream(seed, stream);
        let imputer = match &s.impute {
            Some(i) => Some(i.fit(data, None)?),
            None => None,
        };
        let imputed = match &imputer {
            Some(i) => std::borrow::Cow::Owned(i.apply_voted(data)?),
            None => std::borrow::Cow::Borrowed(data),
        };
        let (train, keep_rates) = match &s.sampler {
            Some(sampler) => {
                let sample = sampler.resample(&imputed, &mut r)?;
                crate::cancel::check()?;
                (sample.materialise(&imputed)?, sample.keep_rates)
            }
            None => (imputed.into_owned(), vec![1.0; data.n_classes()]),
        };
        let train = match &imputer {
            Some(i) => i.learned(&train)?,
            None => train,
        };
        check_kept(&keep_rates, data.class_names())?;
        let (train, encoding) = s.encode_sample(data, train, &keep_rates, &mut r)?;
        let rows: Vec<usize> = (0..train.n_rows()).collect();
        let model = s.learner.fit(&train.view(&rows), &mut r)?;
        crate::cancel::check()?;
        Ok(Core {
            model,
            keep_rates,
            imputer,
            encoding,
            seconds: t0.elapsed().as_secs_f64(),
        })
    }

    /// The fit on all rows.
    fn main(&mut self, s: &Strategy) -> Result<&Core> {
        self.serve(s)?;
        if self.main.is_none() {
            let core = Self::fit(s, self.data, 0, self.seed)?;
            self.seconds += core.seconds;
            self.main = Some(core);
        }
        Ok(self.main.as_ref().expect("just fitted"))
    }

    /// The fits of the `folds`-fold cross-fit, each with the rows it did not
    /// see.
    fn cross(&mut self, s: &Strategy, folds: usize) -> Result<&[HeldOut]> {
        self.serve(s)?;
        let at = match self.cross.iter().position(|(k, _)| *k == folds) {
            Some(at) => at,
            None => {
                let splits = self.inner.folds(
                    self.data,
                    folds,
                    self.seed,
                    "calibration and tuned thresholds need at least 2 rows of every class",
                )?;
                let mut fits = Vec::with_capacity(splits.len());
                for (f, fold) in splits.into_iter().enumerate() {
                    let train = self.data.take(&fold.train);
                    let core = Self::fit(s, &train, 1 + f as u64, self.seed)?;
                    self.seconds += core.seconds;
                    fits.push((core, fold.test));
                }
                self.cross.push((folds, fits));
                self.cross.len() - 1
            }
        };
        Ok(&self.cross[at].1)
    }
}

/// Out-of-fold probabilities of the training rows that have one (every row
/// with stratified or group inner folds; the rows after the first time
/// block with time folds), with their classes.
#[derive(Debug, Clone)]
pub struct OofProba {
    /// The rows' class ids.
    pub truth: Vec<u32>,
    /// Their out-of-fold probabilities.
    pub proba: Proba,
}

/// A fitted model: a fitted strategy without its decision rule, what the
/// strategies that differ only in their decision share.
#[derive(Debug, Clone)]
pub struct FittedModel {
    /// Feature names, encodings and class names of the training data.
    pub schema: Schema,
    /// Training class priors.
    pub priors: Vec<f64>,
    /// The fitted models whose probabilities are averaged.
    pub members: Vec<Member>,
    /// Whether and how the prior correction is applied.
    pub correct: Option<Correction>,
    /// The move to other class priors, if any (its `plugin` is the
    /// deciding strategy's: [`Strategy::em_plugin`]).
    pub shift: Option<FittedShift>,
    /// Out-of-fold probabilities of the training rows (through the
    /// calibrator and the shift to known priors when there are), when
    /// calibration or a tuned decision needed them.
    pub oof: Option<OofProba>,
    /// Seconds spent fitting it, the shared sampler + learner fits it uses
    /// included (each model counts them, as if fitted alone).
    pub fit_seconds: f64,
}

impl FittedModel {
    /// Calibrated (and corrected) class probabilities of `data`'s rows,
    /// moved by the prior shift, with the target priors of the shift (after
    /// `+em`, those estimated on `data`'s rows).
    pub fn predict_proba(&self, data: &Dataset) -> Result<(Proba, Option<Vec<f64>>)> {
        let mut p = average_members(&self.members, self.correct, data)?;
        let priors = shift_proba(self.shift.as_ref(), &mut p)?;
        Ok((p, priors))
    }

    /// The priors of the probabilities decided on: the target ones after a
    /// shift to known priors, else the training priors.
    fn decision_priors(&self) -> &[f64] {
        match &self.shift {
            Some(FittedShift {
                shift: PriorShift::To(t),
                ..
            }) => t,
            _ => &self.priors,
        }
    }
}

/// The probabilities of `rows` of `p`, in that order.
fn rows_of(p: &Proba, rows: &[usize]) -> Proba {
    Proba::new(
        rows.iter()
            .flat_map(|&i| p.row(i).iter().copied())
            .collect(),
        p.n_classes(),
    )
}

/// Moves `p` by `shift`, if any, returning the target priors.
fn shift_proba(shift: Option<&FittedShift>, p: &mut Proba) -> Result<Option<Vec<f64>>> {
    match shift {
        Some(s) => Ok(Some(s.shift.apply(p, &s.source)?.priors)),
        None => Ok(None),
    }
}

/// The rule deciding one batch: after `+em` with a plug-in threshold
/// (`plugin`), the threshold of the batch's estimated priors
/// `batch_priors`, else `rule`.
pub fn batch_rule(
    rule: &Rule,
    plugin: Option<PluginRule>,
    batch_priors: Option<&[f64]>,
) -> Result<Rule> {
    match (plugin, batch_priors) {
        (Some(plugin), Some(priors)) => plugin.resolve(priors),
        _ => Ok(rule.clone()),
    }
}

/// The probabilities of `members` averaged (one member: its own).
fn average_members(
    members: &[Member],
    correct: Option<Correction>,
    data: &Dataset,
) -> Result<Proba> {
    let mut p = members[0].proba(correct, data)?;
    if members.len() > 1 {
        for m in &members[1..] {
            let q = m.proba(correct, data)?;
            p.values_mut()
                .iter_mut()
                .zip(q.values())
                .for_each(|(a, b)| *a += b);
        }
        let n = members.len() as f64;
        p.values_mut().iter_mut().for_each(|v| *v /= n);
        p.normalise_rows();
    }
    Ok(p)
}

/// The indices of `items` grouped by equal `key`, groups in order of first
/// appearance, indices in order within each.
fn group_by<T, K: PartialEq>(items: &[T], key: impl Fn(&T) -> K) -> Vec<Vec<usize>> {
    let mut keys: Vec<K> = Vec::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let k = key(item);
        match keys.iter().position(|x| *x == k) {
            Some(g) => groups[g].push(i),
            None => {
                keys.push(k);
                groups.push(vec![i]);
            }
        }
    }
    groups
}

/// Strategies grouped by their sampler + learner ([`Strategy::core_key`]):
/// each group can share one [`CoreFits`] per training set.
pub fn core_groups(strategies: &[&Strategy]) -> Vec<Vec<usize>> {
    group_by(strategies, |s| s.core_key())
}

/// Strategies grouped by their model ([`Strategy::model_key`]): each group
/// is one fitted model deciding in several ways.
///
/// ```
/// let s: Vec<_> = ["logistic", "tree", "logistic+threshold(f1)"]
///     .iter().map(|s| rarity::spec::build_strategy(s).unwrap()).collect();
/// let refs: Vec<_> = s.iter().collect();
/// assert_eq!(rarity::strategy::model_groups(&refs), vec![vec![0, 2], vec![1]]);
/// ```
pub fn model_groups(strategies: &[&Strategy]) -> Vec<Vec<usize>> {
    group_by(strategies, |s| s.model_key())
}

/// Labels from probabilities by a resolved rule (amounts read from `data`
/// when the rule needs them).
pub fn decide(rule: &Rule, data: &Dataset, proba: &Proba) -> Result<Vec<u32>> {
    let amounts = match rule {
        Rule::Benefit(b) => Some(b.amounts(data)?),
        _ => None,
    };
    rule.decide(proba, amounts.as_deref())
}

impl Strategy {
    /// Adds a stage that follows the learner, written `text`: the
    /// correction, a calibration, a prior shift (at most one of each) or the
    /// decision, which must come last. The stages before the decision make
    /// the stem.
    pub fn add_stage(&mut self, stage: Stage, text: &str) -> Result<()> {
        let invalid = |what: &str| Err(Error::invalid(format!("spec '{}': {what}", self.spec)));
        if self.decision_stage.is_some() {
            return invalid(&format!(
                "'{text}' comes after the decision; the decision must be the last stage"
            ));
        }
        match stage {
            Stage::Impute(_) | Stage::Encode(_) => {
                return invalid(&format!(
                    "'{text}' must be a first stage, before the sampler and the learner \
                     ([impute(...)+][encode(target)+]sampler+learner)"
                ))
            }
            Stage::Correct(mode) => self.correct = Some(mode),
            Stage::Calibrate(_) if self.calibration.is_some() => {
                return invalid(&format!("two calibration stages ('{text}' is the second)"))
            }
            Stage::Calibrate(c) => self.calibration = Some(c),
            Stage::Shift(_) if self.shift.is_some() => {
                return invalid("two prior shifts (priors(...) or em); give one")
            }
            Stage::Shift(s) => self.shift = Some(s),
            Stage::Decide(d)
                if d.needs_oof() && matches!(self.shift, Some(PriorShift::Em { .. })) =>
            {
                return invalid(
                    "a threshold tuned on the training rows does not carry over to the priors \
                     em estimates for each batch; decide by threshold(priors), threshold(f1), \
                     cost(...) or a fixed threshold",
                )
            }
            Stage::Decide(d) => {
                self.decision = d;
                self.decision_stage = Some(text.to_string());
                return Ok(());
            }
        }
        self.stem = format!("{}+{text}", self.stem);
        Ok(())
    }

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

    /// The identity of the sampler + learner as built (every parameter, not
    /// the text): strategies with equal keys fit the same sample and model
    /// from the same seed and rows.
    pub fn core_key(&self) -> String {
        let core = format!("{:?}+{:?}", self.sampler, self.learner);
        let core = match &self.encode {
            Some(e) => format!("{e:?}+{core}"),
            None => core,
        };
        match &self.impute {
            Some(i) => format!("{i:?}+{core}"),
            None => core,
        }
    }

    /// The identity of the model as built: sampler, learner, correction,
    /// calibration and prior shift, everything but the decision. Strategies with equal keys
    /// are the same fitted model deciding differently.
    ///
    /// ```
    /// let a = rarity::spec::build_strategy("pt-bagging(n=10)+threshold(priors)").unwrap();
    /// let b = rarity::spec::build_strategy("pt-bagging(n=10) + threshold(f1)").unwrap();
    /// let c = rarity::spec::build_strategy("pt-bagging(n=10)+correct+threshold(f1)").unwrap();
    /// assert_eq!(a.model_key(), b.model_key());
    /// assert_ne!(a.model_key(), c.model_key());
    /// assert_eq!(a.core_key(), c.core_key());
    /// ```
    pub fn model_key(&self) -> String {
        format!(
            "{}+{:?}+{:?}+{:?}",
            self.core_key(),
            self.correct,
            self.calibration,
            self.shift
        )
    }

    /// Whether the strategy's probabilities are calibrated: it has a
    /// calibration stage (`platt`, `isotonic`), the prior correction
    /// (`correct`, Dal Pozzolo et al. 2015, eq. 9), or no sampler and a
    /// learner whose output is calibrated ([`Learner::calibrated`]: logistic
    /// regression without class weights, the Platt-scaled SVM). Such
    /// probabilities support the Bayes minimum-risk decision of a loss
    /// matrix.
    ///
    /// ```
    /// let c = |s: &str| rarity::spec::build_strategy(s).unwrap().calibrated();
    /// assert!(c("logistic") && c("logistic+platt") && c("under(ratio=1)+forest(n=5)+correct"));
    /// assert!(!c("forest(n=5)") && !c("under(ratio=1)+logistic") && !c("tree"));
    /// ```
    pub fn calibrated(&self) -> bool {
        self.calibration.is_some()
            || self.correct.is_some()
            || (self.sampler.is_none() && self.learner.calibrated())
    }

    /// A note when this strategy decides by its default (0.5, argmax) on
    /// corrected or calibrated probabilities of a task whose rarest class
    /// holds less than [`RARE_SHARE`] of `class_counts`: probabilities that
    /// estimate the true priors rarely reach 0.5 for a rare class, so the
    /// default flags almost nothing (issue 39: `under(beta=0.01)+forest+
    /// correct` had class-1 recall 0.006). The note names the decisions
    /// that fit such probabilities.
    ///
    /// ```
    /// let s = rarity::spec::build_strategy("under(beta=0.01)+forest(n=5)+correct").unwrap();
    /// assert!(s.default_decision_note(&[990, 10]).unwrap().contains("threshold(priors)"));
    /// assert!(s.default_decision_note(&[60, 40]).is_none());
    /// let t = rarity::spec::build_strategy("under(beta=0.01)+forest(n=5)+correct+threshold(priors)").unwrap();
    /// assert!(t.default_decision_note(&[990, 10]).is_none());
    /// ```
    pub fn default_decision_note(&self, class_counts: &[usize]) -> Option<String> {
        let total: usize = class_counts.iter().sum();
        let rarest = class_counts.iter().copied().min()?;
        let adjusted = self.correct.is_some() || self.calibration.is_some() || self.shift.is_some();
        if !adjusted
            || self.decision_stage.is_some()
            || !matches!(self.decision, Decision::Half | Decision::Rule(Rule::Argmax))
            || total == 0
            || (rarest as f64) >= RARE_SHARE * total as f64
        {
            return None;
        }
        let rule = if class_counts.len() == 2 {
            "p >= 0.5"
        } else {
            "argmax"
        };
        Some(format!(
            "{} decides by default ({rule}) on corrected or calibrated probabilities, and the \
             rarest class is {:.2}% of the rows: such probabilities seldom reach 0.5 for a rare \
             class, so it flags few of them. Decisions that fit calibrated probabilities: \
             +threshold(priors), +cost(fn=..,fp=..), or +tune(metric=f1)",
            self.spec,
            100.0 * rarest as f64 / total as f64
        ))
    }

    /// Fits the model (everything but the decision) on the training set of
    /// `cores`, reusing and adding to its shared sampler + learner fits;
    /// `need_oof` asks for the out-of-fold probabilities a tuned decision
    /// needs (calibration makes them anyway).
    pub fn fit_model(&self, cores: &mut CoreFits<'_>, need_oof: bool) -> Result<FittedModel> {
        let data = cores.data();
        data.require_two_classes()?;
        self.check_categorical(data)?;
        self.check_missing(data)?;
        self.check_monotone(data)?;
        let t0 = Instant::now();
        let fitted_before = cores.seconds;
        let mut core_seconds = 0.0;
        let truth = data.labels();
        let ensemble = self.calibration.is_some_and(|c| c.ensemble);
        let mut oof = None;
        let mut fold_members = Vec::new();
        // The rows with an out-of-fold prediction, ascending.
        let mut held_rows = Vec::new();
        if need_oof || self.calibration.is_some() {
            let folds = self.calibration.map_or(3, |c| c.folds);
            let mut p = Proba::zeros(data.n_rows(), data.n_classes());
            for (core, test_rows) in cores.cross(self, folds)? {
                core_seconds += core.seconds;
                let test = data.take(test_rows);
                let test = model_input(core.imputer.as_ref(), core.encoding.as_ref(), &test)?;
                let q = corrected_proba(&core.model, &core.keep_rates, self.correct, &test)?;
                for (j, &i) in test_rows.iter().enumerate() {
                    p.row_mut(i).copy_from_slice(q.row(j));
                }
                held_rows.extend_from_slice(test_rows);
                if ensemble {
                    fold_members.push((core.member(), test_rows.clone()));
                }
            }
            held_rows.sort_unstable();
            oof = Some(p);
        }
        let members = match (self.calibration, oof.as_mut()) {
            (Some(c), Some(p)) if c.ensemble => {
                // Each fold's model is calibrated on its own held-out rows.
                let mut members = Vec::with_capacity(fold_members.len());
                for (mut m, test_rows) in fold_members {
                    let held = rows_of(p, &test_rows);
                    let held_truth: Vec<u32> = test_rows.iter().map(|&i| truth[i]).collect();
                    let cal = OneVsRest::fit(&held, &held_truth, c.method)?;
                    self.check_order(&cal)?;
                    let calibrated = cal.transform(&held);
                    for (j, &i) in test_rows.iter().enumerate() {
                        p.row_mut(i).copy_from_slice(calibrated.row(j));
                    }
                    m.calibrator = Some(cal);
                    members.push(m);
                }
                members
            }
            (calibration, p) => {
                let calibrator = match (calibration, &p) {
                    (Some(c), Some(p)) => {
                        let held = rows_of(p, &held_rows);
                        let held_truth: Vec<u32> = held_rows.iter().map(|&i| truth[i]).collect();
                        let cal = OneVsRest::fit(&held, &held_truth, c.method)?;
                        self.check_order(&cal)?;
                        Some(cal)
                    }
                    _ => None,
                };
                if let (Some(c), Some(p)) = (&calibrator, p) {
                    *p = c.transform(p);
                }
                let core = cores.main(self)?;
                core_seconds += core.seconds;
                let mut member = core.member();
                member.calibrator = calibrator;
                vec![member]
            }
        };
        let priors = data.priors();
        let shift = self.fit_shift(&priors, &members[0])?;
        let mut oof = oof.map(|p| OofProba {
            truth: held_rows.iter().map(|&i| truth[i]).collect(),
            proba: rows_of(&p, &held_rows),
        });
        if let (Some(s), Some(o)) = (&shift, oof.as_mut()) {
            if let PriorShift::To(_) = s.shift {
                s.shift.apply(&mut o.proba, &s.source)?;
            }
        }
        let own = t0.elapsed().as_secs_f64() - (cores.seconds - fitted_before);
        Ok(FittedModel {
            schema: data.schema().clone(),
            priors,
            members,
            correct: self.correct,
            shift,
            oof,
            fit_seconds: own.max(0.0) + core_seconds,
        })
    }

    /// The decision resolved into a rule for `model`, fitted on `data`
    /// ([`Decision::resolve`]: plug-in thresholds from the training priors,
    /// or the target ones after a shift to known priors; tuned ones from the
    /// model's out-of-fold probabilities).
    pub fn resolve(&self, model: &FittedModel, data: &Dataset) -> Result<Rule> {
        self.decision.resolve(&Resolving {
            data,
            priors: model.decision_priors(),
            oof: model.oof.as_ref().map(|o| (o.truth.as_slice(), &o.proba)),
        })
    }

    /// After `+em`, the plug-in threshold resolved from each batch's
    /// estimated priors instead of the fitted rule.
    pub fn em_plugin(&self) -> Option<PluginRule> {
        match self.shift {
            Some(PriorShift::Em { .. }) => self.decision.plugin(),
            _ => None,
        }
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
        self.fit_with_inner(data, seed, InnerFolds::Stratified)
    }

    /// [`Strategy::fit`] with the inner folds of calibration and tuned
    /// thresholds cut by `inner` (over `data`'s rows): what `rarity run`
    /// fits its winner with under `--cv time(...)` / `group(...)`.
    pub fn fit_with_inner(
        &self,
        data: &Dataset,
        seed: u64,
        inner: InnerFolds,
    ) -> Result<FittedStrategy> {
        let mut cores = CoreFits::new(data, seed).with_inner(inner);
        let model = self.fit_model(&mut cores, self.decision.needs_oof())?;
        self.with_rule(model, data)
    }

    /// The fitted strategy of `model` (fitted on `data`) and its resolved
    /// decision.
    fn with_rule(&self, model: FittedModel, data: &Dataset) -> Result<FittedStrategy> {
        let t0 = Instant::now();
        let rule = self.resolve(&model, data)?;
        let fit = FitRecord {
            rows: data.n_rows(),
            seconds: model.fit_seconds + t0.elapsed().as_secs_f64(),
        };
        Ok(FittedStrategy {
            spec: self.spec.clone(),
            schema: model.schema,
            priors: model.priors,
            members: model.members,
            correct: model.correct,
            rule,
            shift: model.shift.map(|s| FittedShift {
                plugin: self.em_plugin(),
                ..s
            }),
            fit: Some(fit),
            learner_takes_missing: self.learner.handles_missing(),
            training: None,
        })
    }

    /// Whether [`Strategy::fit_sampled`] applies: a sampler stage, and no
    /// stage that needs the training data beyond the sample (calibration,
    /// tuned decisions, an imputation, whose statistics are the training
    /// rows').
    pub fn fits_on_sample(&self) -> bool {
        self.sampler.is_some()
            && self.impute.is_none()
            && self.calibration.is_none()
            && !self.decision.needs_oof()
    }

    /// Fits the learner, prior shift and decision on a sample the sampler
    /// stage drew elsewhere (while a file was read): `train` holds the
    /// sampled rows, `keep_rates` their classes' keep rates, `priors` the
    /// class priors of the whole data, and `rng` is the sampler's stream
    /// after its draw (stream 0 of the seed, as [`Strategy::fit`] uses). For
    /// the same rows the result is the model `fit` gives on the whole data.
    pub fn fit_sampled(
        &self,
        train: &Dataset,
        keep_rates: Vec<f64>,
        priors: Vec<f64>,
        rng: &mut rng::Rng,
    ) -> Result<FittedStrategy> {
        if !self.fits_on_sample() {
            return Err(self.needs_whole_data());
        }
        self.fit_kept(train, keep_rates, priors, rng)
    }

    /// Fits the learner, prior shift and decision on a sample drawn outside
    /// rarity (by a Spark job, `rarity.spark.undersample`): `train` holds
    /// the sampled rows and `population` the rows of each class in the
    /// data they were drawn from. The keep rates are the realised ones,
    /// `r_k = (rows of class k in train) / population[k]`, so `+correct`
    /// (Dal Pozzolo et al. 2015, eq. 9) undoes the sampling that happened;
    /// the priors are the population's. The strategy has no sampler stage
    /// (the outside draw is its sampler), no calibration and no tuned
    /// decision (they need the whole training data). The learner draws from
    /// stream 0 of `seed`.
    ///
    /// ```
    /// use rarity::data::{bundled, read::ReadOptions};
    /// let (ds, _) = bundled::find("ecoli4").unwrap().load(&ReadOptions::default()).unwrap();
    /// let s = rarity::spec::build_strategy("tree+correct").unwrap();
    /// let counts = ds.class_counts();
    /// // As if the sample were a tenth of the negatives of a ten times larger table.
    /// let population = vec![counts[0] * 10, counts[1]];
    /// let f = s.fit_drawn(&ds, &population, 1).unwrap();
    /// assert_eq!(f.members[0].keep_rates, vec![0.1, 1.0]);
    /// ```
    pub fn fit_drawn(
        &self,
        train: &Dataset,
        population: &[usize],
        seed: u64,
    ) -> Result<FittedStrategy> {
        if self.sampler.is_some() {
            return Err(Error::invalid(format!(
                "{}: the sample drawn outside is the sampler stage; give the strategy \
                 without one, e.g. forest(n=100)+correct",
                self.spec
            )));
        }
        if self.calibration.is_some() || self.decision.needs_oof() {
            return Err(self.needs_whole_data());
        }
        let kept = train.class_counts();
        if population.len() != kept.len() {
            return Err(Error::invalid(format!(
                "{} population counts given for {} classes",
                population.len(),
                kept.len()
            )));
        }
        if let Some(k) = (0..kept.len()).find(|&k| kept[k] > population[k]) {
            return Err(Error::data(format!(
                "class '{}': the sample has {} rows but the population only {}",
                train.class_names()[k],
                kept[k],
                population[k]
            )));
        }
        let n: usize = population.iter().sum();
        let priors = population.iter().map(|&c| c as f64 / n as f64).collect();
        let keep_rates = kept
            .iter()
            .zip(population)
            .map(|(&k, &p)| if p == 0 { 1.0 } else { k as f64 / p as f64 })
            .collect();
        self.fit_kept(train, keep_rates, priors, &mut rng::stream(seed, 0))
    }

    /// The target-statistics encoding fitted on `data`: the strategy's own
    /// `encode(...)` stage, else `encode(target)`'s defaults on the columns
    /// the data was marked with (`--categorical target`, `--categorical-cols
    /// COL=target`: [`Dataset::target_statistics`]).
    pub fn encoding_for(&self, data: &Dataset) -> Option<TargetEncode> {
        self.encode.clone().or_else(|| {
            let marked = data.target_statistics()?;
            let cols = if marked == data.schema().categorical_names() {
                Columns::All
            } else {
                Columns::Only(marked.to_vec())
            };
            Some(TargetEncode {
                cols,
                ..TargetEncode::default()
            })
        })
    }

    /// The strategy as it fits a file read with `opts`: with `encode(target)`'s
    /// defaults on the columns `opts` gives target statistics
    /// ([`ReadOptions::target_columns`]) unless it has an encode stage of its
    /// own, as [`Strategy::encoding_for`] does for a table read so (for the
    /// fits that keep a sample while the file streams).
    pub fn reading(&self, opts: &ReadOptions) -> Strategy {
        let mut s = self.clone();
        if s.encode.is_none() {
            s.encode = opts.target_columns().map(|cols| TargetEncode {
                cols,
                ..TargetEncode::default()
            });
        }
        s
    }

    /// The sample `sample` drawn from `data` (kept at `keep_rates`) as the
    /// learner reads it: with the encoding of [`Strategy::encoding_for`]
    /// fitted on it (folds drawn from `rng`), else as it is.
    fn encode_sample(
        &self,
        data: &Dataset,
        sample: Dataset,
        keep_rates: &[f64],
        rng: &mut rng::Rng,
    ) -> Result<(Dataset, Option<FittedEncoding>)> {
        // Without categorical features there is nothing to encode (the
        // same spec runs on any table).
        let Some(e) = self
            .encoding_for(data)
            .filter(|_| sample.schema().has_categorical())
        else {
            return Ok((sample, None));
        };
        use rand::RngExt;
        let (encoded, fitted) = e.fit(&sample, keep_rates, rng.random::<u64>())?;
        Ok((encoded, Some(fitted)))
    }

    /// Fails, before any fitting, when `data` has categorical features
    /// (level codes) and the learner does not split them as sets: its
    /// codes would be read as numbers.
    pub fn check_categorical(&self, data: &Dataset) -> Result<()> {
        let Some(column) = self.unsplit_categorical(data) else {
            return Ok(());
        };
        Err(Error::invalid(format!(
            "{}: the learner {} does not split categorical features, and column '{}' is \
             categorical (level codes); encode it by target statistics (encode(target)+..., \
             or --categorical target), one-hot encode it (--categorical one-hot, at most 50 \
             levels) or use a learner with native categorical splits (tree, forest, gbdt)",
            self.spec,
            self.learner.name(),
            column
        )))
    }

    /// The first categorical column of `data` that this strategy can take
    /// neither natively nor through an encode stage (`None`: it can take
    /// them all).
    pub fn unsplit_categorical(&self, data: &Dataset) -> Option<String> {
        if self.learner.native_categorical() {
            return None;
        }
        let cols = self.encoding_for(data).map(|e| e.cols);
        let encoded = |name: &str| match &cols {
            None => false,
            Some(Columns::All) => true,
            Some(Columns::Only(names)) => names.iter().any(|n| n == name),
            Some(Columns::AllBut(names)) => !names.iter().any(|n| n == name),
        };
        data.schema()
            .categorical_names()
            .into_iter()
            .find(|name| !encoded(name))
    }

    /// Why a strategy cannot be fitted on a sample alone.
    fn needs_whole_data(&self) -> Error {
        Error::invalid(format!(
            "{}: calibration and tuned decisions need the whole training data",
            self.spec
        ))
    }

    /// [`Strategy::fit_sampled`] and [`Strategy::fit_drawn`] once their
    /// keep rates and priors are known.
    fn fit_kept(
        &self,
        train: &Dataset,
        keep_rates: Vec<f64>,
        priors: Vec<f64>,
        rng: &mut rng::Rng,
    ) -> Result<FittedStrategy> {
        check_kept(&keep_rates, train.class_names())?;
        self.check_categorical(train)?;
        self.check_missing(train)?;
        self.check_monotone(train)?;
        let t0 = Instant::now();
        // The imputation sees the sample only: each row stands for
        // 1 / (its class's keep rate) rows of the population.
        let imputer = match &self.impute {
            Some(i) => {
                let w: Vec<f64> = keep_rates.iter().map(|r| 1.0 / r).collect();
                Some(i.fit(train, Some(&w))?)
            }
            None => None,
        };
        let imputed = match &imputer {
            Some(i) => i.apply(train)?,
            None => train.clone(),
        };
        let (sample, encoding) = self.encode_sample(train, imputed, &keep_rates, rng)?;
        let rows: Vec<usize> = (0..sample.n_rows()).collect();
        let member = Member {
            model: self.learner.fit(&sample.view(&rows), rng)?,
            keep_rates,
            calibrator: None,
            encoding,
            imputer,
        };
        let shift = self.fit_shift(&priors, &member)?;
        let model = FittedModel {
            schema: train.schema().clone(),
            priors,
            members: vec![member],
            correct: self.correct,
            shift,
            oof: None,
            fit_seconds: t0.elapsed().as_secs_f64(),
        };
        self.with_rule(model, train)
    }

    /// The prior shift fitted: its target priors checked against the
    /// classes, and the priors it starts from (the training `priors` after
    /// `correct` or a calibration, else the training sample's, from
    /// `member`'s keep rates); its `plugin` is left to the deciding
    /// strategy.
    fn fit_shift(&self, priors: &[f64], member: &Member) -> Result<Option<FittedShift>> {
        let Some(shift) = &self.shift else {
            return Ok(None);
        };
        if let PriorShift::To(t) = shift {
            calibrate::prior::check_rates(t, priors.len(), "target priors")
                .map_err(|e| Error::invalid(format!("{}: priors(...): {e}", self.spec)))?;
        }
        let source = if self.correct.is_some() || self.calibration.is_some() {
            priors.to_vec()
        } else {
            let rates = sample_rates(&member.model, &member.keep_rates);
            let w: Vec<f64> = priors.iter().zip(&rates).map(|(p, r)| p * r).collect();
            let total: f64 = w.iter().sum();
            w.iter().map(|v| v / total).collect()
        };
        Ok(Some(FittedShift {
            shift: shift.clone(),
            source,
            plugin: None,
        }))
    }
}

impl FittedStrategy {
    /// The features the fitted learner reads: the schema's, or after an
    /// `impute(...)` stage with indicators and an `encode(target)` stage
    /// the imputed and encoded ones (`missing(amount)`, `merchant=p(fraud)`).
    pub fn model_feature_names(&self) -> &[String] {
        let m = &self.members[0];
        match (&m.encoding, &m.imputer) {
            (Some(e), _) => e.feature_names(),
            (None, Some(i)) => i.feature_names(),
            (None, None) => &self.schema.feature_names,
        }
    }

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

    /// Calibrated (and corrected) class probabilities, moved to the target
    /// priors when the strategy has a prior shift (`+em` estimates them on
    /// all the rows of `data` together).
    pub fn predict_proba(&self, data: &Dataset) -> Result<Proba> {
        Ok(self.shifted_proba(data)?.0)
    }

    /// [`FittedStrategy::predict_proba`] with the target priors of the
    /// prior shift, if there is one.
    fn shifted_proba(&self, data: &Dataset) -> Result<(Proba, Option<Vec<f64>>)> {
        let mut p = self.model_proba(data)?;
        let priors = shift_proba(self.shift.as_ref(), &mut p)?;
        Ok((p, priors))
    }

    /// The probabilities before any prior shift: each row's own, whatever
    /// rows come with it.
    pub fn model_proba(&self, data: &Dataset) -> Result<Proba> {
        self.check_columns(data)?;
        self.check_missing(data)?;
        average_members(&self.members, self.correct, data)
    }

    /// Labels from given probabilities (amounts read from `data` if the rule
    /// needs them). After `+em`, a plug-in threshold is resolved from the
    /// batch's priors, taken as the mean probabilities of `proba` (EM's fixed
    /// point; [`FittedStrategy::predict`] uses EM's estimate itself).
    pub fn decide(&self, data: &Dataset, proba: &Proba) -> Result<Vec<u32>> {
        let means = self.shift.as_ref().and_then(|s| s.plugin).map(|_| {
            let n = proba.n_rows().max(1) as f64;
            (0..proba.n_classes())
                .map(|k| proba.column(k).iter().sum::<f64>() / n)
                .collect::<Vec<f64>>()
        });
        self.decide_at(data, proba, means.as_deref())
    }

    /// Labels by the fitted rule, or, after `+em` with a plug-in threshold,
    /// by the rule of the batch's estimated priors `batch_priors`.
    fn decide_at(
        &self,
        data: &Dataset,
        proba: &Proba,
        batch_priors: Option<&[f64]>,
    ) -> Result<Vec<u32>> {
        let plugin = self.shift.as_ref().and_then(|s| s.plugin);
        decide(&batch_rule(&self.rule, plugin, batch_priors)?, data, proba)
    }

    /// Whether a row's prediction depends on the other rows predicted with
    /// it: after `+em`, whose priors are estimated on the whole batch.
    pub fn batch_dependent(&self) -> bool {
        matches!(
            self.shift,
            Some(FittedShift {
                shift: PriorShift::Em { .. },
                ..
            })
        )
    }

    /// Probabilities and labels.
    pub fn predict(&self, data: &Dataset) -> Result<(Proba, Vec<u32>)> {
        let (p, priors) = self.shifted_proba(data)?;
        let labels = self.decide_at(data, &p, priors.as_deref())?;
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
    /// let t = fitted.with_decision(&Decision::Rule(Rule::Threshold(0.3))).unwrap();
    /// assert_eq!(t.rule, Rule::Threshold(0.3));
    /// ```
    pub fn with_decision(&self, decision: &Decision) -> Result<FittedStrategy> {
        let priors = match &self.shift {
            Some(FittedShift {
                shift: PriorShift::To(t),
                ..
            }) => t,
            _ => &self.priors,
        };
        let rule = decision.from_priors(priors)?;
        if let Rule::Benefit(b) = &rule {
            if !self.schema.feature_names.contains(&b.amount) {
                return Err(Error::invalid(format!(
                    "benefit: the amount column '{}' is not a feature of the model",
                    b.amount
                )));
            }
        }
        let shift = self.shift.clone().map(|s| FittedShift {
            plugin: match s.shift {
                PriorShift::Em { .. } => decision.plugin(),
                PriorShift::To(_) => None,
            },
            ..s
        });
        Ok(FittedStrategy {
            rule,
            shift,
            ..self.clone()
        })
    }
}

impl FittedStrategy {
    /// The same fitted model deciding by the rule that `spec` names (one
    /// decision stage: `threshold(0.3)`, `cost(fn=10,fp=1)`,
    /// `threshold(priors)`, `argmax`, ...), as `rarity predict --decision`
    /// and `rarity.spark.predict(decision=...)` choose it.
    ///
    /// ```
    /// use rarity::data::{bundled, read::ReadOptions};
    /// use rarity::decide::Rule;
    /// let (ds, _) = bundled::find("ecoli4").unwrap().load(&ReadOptions::default()).unwrap();
    /// let fitted = rarity::spec::build_strategy("logistic").unwrap().fit(&ds, 1).unwrap();
    /// assert_eq!(fitted.with_decision_spec("threshold(0.3)").unwrap().rule, Rule::Threshold(0.3));
    /// assert!(fitted.with_decision_spec("tree").is_err());
    /// ```
    pub fn with_decision_spec(&self, spec: &str) -> Result<FittedStrategy> {
        let stages = syntax::parse(spec)?;
        let [call] = stages.as_slice() else {
            return Err(Error::invalid(format!(
                "decision '{spec}': one decision rule is expected, e.g. threshold(0.3)"
            )));
        };
        match build_stage(call)? {
            Stage::Decide(d) => self.with_decision(&d),
            _ => Err(Error::invalid(format!(
                "decision '{spec}' is not a decision rule; use e.g. threshold(0.3), \
                 threshold(priors), cost(fn=10,fp=1), argmax"
            ))),
        }
    }
}

impl FittedStrategy {
    /// This fitted model as if its learner had been fitted on a sample that
    /// kept each class at `rates` (by class name: `class_names[k]` at
    /// `rates[k]`): its probabilities corrected by eq. 9 (Dal Pozzolo et
    /// al. 2015; `p_k ∝ p_s,k / r_k`) and its labels decided by the rule
    /// consistent with them (eq. 12), which is what Python's
    /// `CorrectedClassifier` does around a rarity estimator, so that it
    /// exports as one graph. The model must have no correction,
    /// calibration or prior shift of its own (those would come before the
    /// outer correction), and one member fitted without a sampler.
    pub fn corrected_by(&self, class_names: &[String], rates: &[f64]) -> Result<FittedStrategy> {
        let plain = self.correct.is_none()
            && self.shift.is_none()
            && self.members.len() == 1
            && self
                .members
                .iter()
                .all(|m| m.calibrator.is_none() && m.keep_rates.iter().all(|&r| r == 1.0));
        if !plain {
            return Err(Error::invalid(format!(
                "{}: a model with its own sampler, correction, calibration or prior shift \
                 cannot take a second correction in one graph",
                self.spec
            )));
        }
        let names = &self.schema.class_names;
        if class_names.len() != names.len() || rates.len() != names.len() {
            return Err(Error::invalid(format!(
                "{} keep rates for {} classes; the model has the classes {}",
                rates.len(),
                class_names.len(),
                names.join(", ")
            )));
        }
        let ordered: Vec<f64> = names
            .iter()
            .map(|n| {
                class_names
                    .iter()
                    .position(|c| c == n)
                    .map(|k| rates[k])
                    .ok_or_else(|| Error::invalid(format!("no keep rate for class '{n}'")))
            })
            .collect::<Result<_>>()?;
        let mut out = self.clone();
        out.members[0].keep_rates = ordered.clone();
        out.correct = Some(Correction::Member);
        out.rule = Rule::consistent(&ordered)?;
        out.spec = format!("{}+correct", self.spec);
        Ok(out)
    }
}

fn join(v: &[&String]) -> String {
    v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}
