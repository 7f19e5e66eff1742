//! The selection methods by name, as `rarity select --method` and the bias
//! experiment's `--method` write them, and the runner that computes several
//! of them on one training set `D` and target population `T`, sharing what
//! they have in common: the cross-validation fold models (plain,
//! importance-weighted and prior-corrected cross-validation use the same
//! out-of-fold predictions), the density-ratio weights, the ReverseTesting
//! models of each labelling.
//!
//! | spec | method | source |
//! |---|---|---|
//! | `reverse-testing(variant=V)` | ReverseTesting ([`super::reverse_testing`]) | Fan & Davidson 2006, Sec. 4 |
//! | `cv(folds=10,repeats=1)` | stratified k-fold cross-validation on `D` | Fan & Davidson 2006, Sec. 3 |
//! | `loo` | leave-one-out on `D` | Fan & Davidson 2006, Sec. 3 |
//! | `train` | the measure on `D` of models fitted on `D` | |
//! | `iwcv(ratio=E,folds=10)` | importance-weighted cross-validation ([`super::iwcv`]) | Sugiyama, Krauledat & Müller 2007, eq. 8 |
//! | `prior-cv(folds=10,priors=mean)` | prior-corrected cross-validation ([`super::prior_cv`]) | Saerens et al. 2002; Sugiyama et al. 2007 |
//!
//! Every method but ReverseTesting measures with the metric (or benefit) of
//! the selection and argmax labels; ReverseTesting measures as its variant
//! says.

use std::sync::Arc;

use serde::Serialize;

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::learn::Learner;
use crate::params::{from_call, params, Bounds, Call, Params, Value};

use super::comparator::{
    out_of_fold, rank_by_comparator, scores_of, splitter_for, Comparator, OutOfFold,
};
use super::density_ratio::{ImportanceWeights, RatioEstimator, ShiftTest};
use super::iwcv::Iwcv;
use super::prior_cv::{estimate_priors, PriorCv, PriorShift, PriorSource};
use super::ranking::{rank, rank_by_scores, Outcome, Pair, Ranking};
use super::reverse_testing::reverse_testing_weighted;
use super::variant::{ReverseTestingVariant, Weighting};

/// The fewest target rows a method that reads the target population
/// accepts.
pub const MIN_TARGET_ROWS: usize = 10;

/// The default of `rarity select --method`: the method that ordered the
/// most learner pairs correctly in the bias experiment under feature bias
/// (79.7% against 73.6% for 10-fold CV), confirmed under class bias (78.8%
/// against 74.5%; `docs/reverse-testing.md`): the majority of the default
/// ReverseTesting variant and two importance-weighted cross-validations.
pub const DEFAULT_METHOD: &str =
    "vote(reverse-testing, iwcv(ratio=classifier(power=0.5)), iwcv(ratio=ulsif))";

/// A selection method.
#[derive(Debug, Clone)]
pub enum Method {
    /// ReverseTesting with a variant.
    ReverseTesting(ReverseTestingVariant),
    /// Cross-validation, leave-one-out or training accuracy on `D`.
    Comparator(Comparator),
    /// Importance-weighted cross-validation.
    Iwcv(Iwcv),
    /// Prior-corrected cross-validation.
    PriorCv(PriorCv),
    /// The majority of the methods' decisions on each pair (a tie:
    /// undecided).
    Vote(Vec<Method>),
}

/// The method names with one line each, for help and error messages.
pub const METHODS: &[(&str, &str)] = &[
    ("reverse-testing", "ReverseTesting (Fan & Davidson 2006); variant=V (default: --variant)"),
    ("cv", "stratified k-fold cross-validation on the training set; folds=10, repeats=1"),
    ("loo", "leave-one-out on the training set"),
    ("train", "the measure on the training set of models fitted on it"),
    ("iwcv", "importance-weighted cross-validation (Sugiyama et al. 2007); ratio=classifier(...)|ulsif(...), folds=10"),
    ("prior-cv", "cross-validation weighted by EM-estimated target priors (Saerens et al. 2002); folds=10, priors=mean|own"),
    ("vote", "the majority of several methods' decisions on each pair, e.g. vote(reverse-testing, iwcv, cv)"),
];

params! {
    /// The arguments of `reverse-testing`.
    #[derive(Debug, Clone, PartialEq)]
    struct RtArgs {
        /// The variant (none: the caller's default).
        variant: Option<String> = None,
    }
}

params! {
    /// The arguments of `cv`.
    #[derive(Debug, Clone, PartialEq)]
    struct CvArgs {
        /// Folds (at most the smallest class's rows).
        folds: usize = 10 => Bounds::at_least(2.0),
        /// Repeats.
        repeats: usize = 1 => Bounds::at_least(1.0),
    }
}

impl Method {
    /// Parses a method spec such as `iwcv(ratio=ulsif)` or `cv(folds=5)`.
    /// ReverseTesting's variant is `variant` unless the spec sets one, read
    /// for the selection's `metric` ([`ReverseTestingVariant::parse`]).
    pub fn parse(spec: &str, metric: &str, variant: &str) -> Result<Method> {
        let calls = crate::params::syntax::parse(spec)?;
        if calls.len() != 1 {
            return Err(Error::invalid(format!("method '{spec}': give one method")));
        }
        Method::from_call(&calls[0], metric, variant)
    }

    fn from_call(call: &Call, metric: &str, variant: &str) -> Result<Method> {
        let no_args = |m: Method| {
            if call.args.is_empty() {
                Ok(m)
            } else {
                Err(Error::invalid(format!("{} takes no arguments", call.name)))
            }
        };
        match call.name.as_str() {
            "reverse-testing" => {
                let a: RtArgs = from_call(call)?;
                let v = a.variant.as_deref().unwrap_or(variant);
                Ok(Method::ReverseTesting(ReverseTestingVariant::parse(
                    v, metric,
                )?))
            }
            "cv" => {
                let a: CvArgs = from_call(call)?;
                Ok(Method::Comparator(Comparator::CrossValidation {
                    repeats: a.repeats,
                    folds: a.folds,
                }))
            }
            "loo" => no_args(Method::Comparator(Comparator::LeaveOneOut)),
            "train" => no_args(Method::Comparator(Comparator::Training)),
            "iwcv" => Ok(Method::Iwcv(from_call(call)?)),
            "prior-cv" => Ok(Method::PriorCv(from_call(call)?)),
            "vote" => {
                let members = call
                    .args
                    .iter()
                    .map(|(name, value)| match (name, value) {
                        (None, Value::Call(c)) if c.name != "vote" => {
                            Method::from_call(c, metric, variant)
                        }
                        _ => Err(Error::invalid(
                            "vote: each argument is a method other than vote, written without a name, e.g. vote(reverse-testing, iwcv, cv)",
                        )),
                    })
                    .collect::<Result<Vec<Method>>>()?;
                if members.len() < 2 {
                    return Err(Error::invalid(format!(
                        "vote needs at least two methods, got {}",
                        members.len()
                    )));
                }
                Ok(Method::Vote(members))
            }
            other => Err(crate::params::unknown(
                "selection method",
                other,
                METHODS.iter().map(|m| m.0),
            )),
        }
    }

    /// Whether the method reads the target population's features.
    pub fn uses_target(&self) -> bool {
        match self {
            Method::Comparator(_) => false,
            Method::Vote(ms) => ms.iter().any(Method::uses_target),
            _ => true,
        }
    }
}

impl std::fmt::Display for Method {
    /// The canonical spec, every parameter written out.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let args = |t: Vec<crate::params::ParamInfo>| {
            t.iter()
                .map(|p| format!("{}={}", p.name, p.default))
                .collect::<Vec<_>>()
                .join(",")
        };
        match self {
            Method::ReverseTesting(v) => write!(f, "reverse-testing(variant='{v}')"),
            Method::Comparator(Comparator::CrossValidation { repeats, folds }) => {
                write!(f, "cv(folds={folds},repeats={repeats})")
            }
            Method::Comparator(Comparator::LeaveOneOut) => write!(f, "loo"),
            Method::Comparator(Comparator::Training) => write!(f, "train"),
            Method::Iwcv(m) => write!(f, "iwcv({})", args(m.table())),
            Method::PriorCv(m) => write!(f, "prior-cv({})", args(m.table())),
            Method::Vote(ms) => {
                let ms: Vec<String> = ms.iter().map(Method::to_string).collect();
                write!(f, "vote({})", ms.join(","))
            }
        }
    }
}

/// What one method found.
#[derive(Debug, Clone, Serialize)]
pub struct Selection {
    /// The learners ranked.
    pub ranking: Ranking,
    /// Each learner's estimated measure on `T` (higher is better), for the
    /// methods that score learners one by one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scores: Option<Vec<f64>>,
    /// The importance weights used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weights: Option<ImportanceWeights>,
    /// The covariate-shift test of the density-ratio classifier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shift: Option<ShiftTest>,
    /// The estimated target priors and the test for a prior shift.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priors: Option<PriorShift>,
}

impl Selection {
    fn of(ranking: Ranking) -> Selection {
        Selection {
            ranking,
            scores: None,
            weights: None,
            shift: None,
            priors: None,
        }
    }
}

/// The checks every selection makes before any work.
pub fn check_selection(
    methods: &[Method],
    learners: usize,
    train: &Dataset,
    target: &Dataset,
) -> Result<()> {
    if learners < 2 {
        return Err(Error::invalid("selection compares at least two learners"));
    }
    train
        .require_two_classes()
        .map_err(|e| Error::data(format!("the training set: {e}")))?;
    if methods.iter().any(Method::uses_target) {
        if train.feature_names() != target.feature_names() {
            return Err(Error::data(format!(
                "the training set and the target population have different features ({} vs {})",
                train.n_features(),
                target.n_features()
            )));
        }
        if target.n_rows() < MIN_TARGET_ROWS {
            return Err(Error::data(format!(
                "the target population has {} rows; estimating its distribution needs at least {MIN_TARGET_ROWS}",
                target.n_rows()
            )));
        }
    }
    Ok(())
}

/// Runs every method on the training set `train` (`D`) for the unlabelled
/// population `target` (`T`; its labels are ignored), measured by `plain`'s
/// measure with argmax labels (ReverseTesting by its variant). Returns one
/// [`Selection`] per method, each what the method alone gives.
pub fn run_methods(
    methods: &[Method],
    learners: &[(String, Arc<dyn Learner>)],
    train: &Dataset,
    target: &Dataset,
    plain: &ReverseTestingVariant,
    seed: u64,
) -> Result<Vec<Selection>> {
    check_selection(methods, learners.len(), train, target)?;
    let mut shared = Shared {
        predict_target: methods.iter().any(Method::uses_target),
        ..Shared::default()
    };
    let task = Task(learners, train, target, plain, seed);
    run_shared(&mut shared, methods, &task)
}

/// What every method of a run reads: the learners, the training set, the
/// target population, the plain measure and the seed.
#[derive(Clone, Copy)]
struct Task<'a>(
    &'a [(String, Arc<dyn Learner>)],
    &'a Dataset,
    &'a Dataset,
    &'a ReverseTestingVariant,
    u64,
);

/// [`run_methods`] with the fold models and weights cached in `shared`.
fn run_shared(shared: &mut Shared, methods: &[Method], task: &Task<'_>) -> Result<Vec<Selection>> {
    let Task(learners, train, target, plain, seed) = *task;
    // ReverseTesting variants together (they share models).
    let variants: Vec<ReverseTestingVariant> = methods
        .iter()
        .filter_map(|m| match m {
            Method::ReverseTesting(v) => Some(v.clone()),
            _ => None,
        })
        .collect();
    for kind in variants.iter().filter_map(|v| v.weights) {
        shared.weights(&kind.estimator(), train, target, seed)?;
    }
    let rvt_weights: Vec<Option<&[f64]>> = variants
        .iter()
        .map(|v| {
            v.weights
                .map(|k: Weighting| shared.cached_weights(&k.estimator()).weights.as_slice())
        })
        .collect();
    let rvt = if variants.is_empty() {
        Vec::new()
    } else {
        reverse_testing_weighted(learners, train, target, &variants, &rvt_weights, seed)?
    };
    // Variants of one labelling and fold count share their models.
    let mut kinds = Vec::new();
    for (v, r) in variants.iter().zip(&rvt) {
        if !kinds.contains(&(v.labelling, v.folds)) {
            kinds.push((v.labelling, v.folds));
            shared.built += r.models_built;
        }
    }
    let mut rvt = rvt.into_iter();
    let mut out = Vec::with_capacity(methods.len());
    for m in methods {
        out.push(match m {
            Method::ReverseTesting(_) => {
                Selection::of(rvt.next().expect("one ranking per ReverseTesting method"))
            }
            Method::Comparator(Comparator::CrossValidation { repeats, folds }) => {
                // Shared with the weighted cross-validations of the same folds.
                let oof = shared.oof(learners, train, target, *folds, *repeats, seed)?;
                let scores = scores_of(oof, train, plain, None)?;
                scored(learners, scores, oof.models_built)
            }
            Method::Comparator(c) => {
                Selection::of(rank_by_comparator(learners, train, *c, plain, seed)?)
            }
            Method::Iwcv(iw) => {
                let (w, shift) = shared.weights(&iw.ratio, train, target, seed)?;
                let oof = shared.oof(learners, train, target, iw.folds, iw.repeats, seed)?;
                let scores = scores_of(oof, train, plain, Some(&w.weights))?;
                Selection {
                    weights: Some(w),
                    shift,
                    ..scored(learners, scores, oof.models_built)
                }
            }
            Method::PriorCv(pc) => {
                let oof = shared.oof(learners, train, target, pc.folds, pc.repeats, seed)?;
                let shift = estimate_priors(oof, train, pc.calibrate, pc.estimator)?;
                let scores = (0..learners.len())
                    .map(|x| {
                        let w = pc.weights_for(&shift, train, x);
                        let one = OutOfFold {
                            on_train: vec![oof.on_train[x].clone()],
                            on_target: Vec::new(),
                            models_built: 0,
                        };
                        Ok(scores_of(&one, train, plain, Some(&w))?[0])
                    })
                    .collect::<Result<Vec<f64>>>()?;
                Selection {
                    priors: Some(shift),
                    ..scored(learners, scores, oof.models_built)
                }
            }
            Method::Vote(members) => {
                let before = shared.built;
                let found = run_shared(shared, members, task)?;
                vote(learners, &found, shared.built - before)
            }
        });
    }
    Ok(out)
}

/// What the two bias tests found on `D` and `T`.
#[derive(Debug, Clone, Serialize)]
pub struct Diagnosis {
    /// Covariate shift: how well the default density-ratio classifier
    /// (cross-fitted logistic regression) tells `T`'s rows from `D`'s; an
    /// AUC near 0.5 means no covariate shift.
    pub shift: ShiftTest,
    /// Prior shift: the target priors estimated by EM on the 10-fold models'
    /// posteriors, and Saerens et al.'s likelihood-ratio test.
    pub priors: PriorShift,
    /// `none`, `covariate`, `prior` or `covariate and prior`.
    pub detected: &'static str,
}

impl Diagnosis {
    /// The verdict of the two tests.
    fn new(shift: ShiftTest, priors: PriorShift) -> Diagnosis {
        let detected = match (shift.detected, priors.detected) {
            (false, false) => "none",
            (true, false) => "covariate",
            (false, true) => "prior",
            (true, true) => "covariate and prior",
        };
        Diagnosis {
            shift,
            priors,
            detected,
        }
    }
}

/// Runs `method` and the two bias tests of [`Diagnosis`]: the covariate-shift
/// test of the default density-ratio classifier and the prior-shift test on
/// the 10-fold models (shared with a 10-fold method).
pub fn select(
    method: &Method,
    learners: &[(String, Arc<dyn Learner>)],
    train: &Dataset,
    target: &Dataset,
    plain: &ReverseTestingVariant,
    seed: u64,
) -> Result<(Selection, Diagnosis)> {
    let methods = std::slice::from_ref(method);
    // The tests read the target whatever the method: check as for a method
    // that reads it.
    check_selection(
        &[Method::Iwcv(Iwcv::default())],
        learners.len(),
        train,
        target,
    )?;
    let mut shared = Shared {
        predict_target: true,
        ..Shared::default()
    };
    let task = Task(learners, train, target, plain, seed);
    let chosen = run_shared(&mut shared, methods, &task)?.remove(0);
    let (_, shift) = shared.weights(&RatioEstimator::default(), train, target, seed)?;
    let pc = PriorCv::default();
    let oof = shared.oof(learners, train, target, pc.folds, pc.repeats, seed)?;
    let priors = estimate_priors(oof, train, pc.calibrate, pc.estimator)?;
    let diagnosis = Diagnosis::new(
        shift.expect("the classifier ratio reports its test"),
        priors,
    );
    Ok((chosen, diagnosis))
}

impl Method {
    /// One sentence on what the method did to correct for the bias, from its
    /// selection.
    pub fn what_it_did(&self, s: &Selection) -> String {
        match self {
            Method::ReverseTesting(v) => format!(
                "ReverseTesting: each learner labelled the target population, the learners were trained on each copy and judged on the training set ({v})"
            ),
            Method::Comparator(Comparator::Training) => {
                "measured each learner on its own training set: no correction".into()
            }
            Method::Comparator(_) => {
                "cross-validation on the training set alone: no correction for the bias".into()
            }
            Method::Iwcv(_) => match &s.weights {
                Some(w) => format!(
                    "weighted each validation row by its density ratio p_T(x) / p_D(x) ({}): effective sample size {:.1} of {} rows, {} weights clipped, largest {:.2}",
                    w.estimator, w.effective_size, w.rows, w.clipped, w.max_weight
                ),
                None => "importance-weighted cross-validation".into(),
            },
            Method::Vote(ms) => format!(
                "the majority of {} methods' decisions on each pair: {}",
                ms.len(),
                ms.iter().map(Method::to_string).collect::<Vec<_>>().join("; ")
            ),
            Method::PriorCv(pc) => match &s.priors {
                Some(p) => {
                    let fmt = |v: &[f64]| {
                        v.iter()
                            .map(|x| format!("{x:.3}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                    let used = match pc.priors {
                        PriorSource::Mean => fmt(&p.mean),
                        PriorSource::Median => fmt(&p.median),
                        PriorSource::Committee => fmt(&p.committee),
                        PriorSource::Own => "each learner's own".into(),
                    };
                    format!(
                        "weighted each validation row by pi_T(y) / pi_D(y): training priors [{}], estimated target priors [{used}]",
                        fmt(&p.train)
                    )
                }
                None => "prior-corrected cross-validation".into(),
            },
        }
    }
}

/// The majority of the selections' decisions on each pair (a tie:
/// undecided), with `models_built` models.
fn vote(
    learners: &[(String, Arc<dyn Learner>)],
    found: &[Selection],
    models_built: usize,
) -> Selection {
    let pairs = found[0]
        .ranking
        .pairs
        .iter()
        .enumerate()
        .map(|(j, p)| {
            let count = |o: Outcome| {
                found
                    .iter()
                    .filter(|s| s.ranking.pairs[j].outcome == o)
                    .count()
            };
            let (a, b) = (count(Outcome::First), count(Outcome::Second));
            Pair {
                a: p.a,
                b: p.b,
                outcome: match a.cmp(&b) {
                    std::cmp::Ordering::Greater => Outcome::First,
                    std::cmp::Ordering::Less => Outcome::Second,
                    std::cmp::Ordering::Equal => Outcome::Undecided,
                },
                acc_train: None,
                constant_copies: Vec::new(),
            }
        })
        .collect();
    let names = learners.iter().map(|(n, _)| n.clone()).collect();
    Selection::of(rank(names, pairs, models_built, Vec::new()))
}

/// A ranking by per-learner scores.
fn scored(
    learners: &[(String, Arc<dyn Learner>)],
    scores: Vec<f64>,
    models_built: usize,
) -> Selection {
    Selection {
        scores: Some(scores.clone()),
        ..Selection::of(rank_by_scores(learners, &scores, models_built))
    }
}

/// What the methods of one run share.
#[derive(Default)]
struct Shared {
    /// Whether the fold models predict the target (some method reads it).
    predict_target: bool,
    /// Out-of-fold predictions by (folds, repeats).
    oof: Vec<((usize, usize), OutOfFold)>,
    /// Models fitted so far (fold models and ReverseTesting models).
    built: usize,
    /// Importance weights (and the classifier's shift test) by estimator spec.
    weights: Vec<(String, ImportanceWeights, Option<ShiftTest>)>,
}

impl Shared {
    /// The out-of-fold predictions of `repeats` runs of stratified
    /// `folds`-fold cross-validation, with the fold models' predictions on
    /// the target when a method reads it.
    fn oof(
        &mut self,
        learners: &[(String, Arc<dyn Learner>)],
        train: &Dataset,
        target: &Dataset,
        folds: usize,
        repeats: usize,
        seed: u64,
    ) -> Result<&OutOfFold> {
        let key = (folds, repeats);
        if let Some(i) = self.oof.iter().position(|(k, _)| *k == key) {
            return Ok(&self.oof[i].1);
        }
        let splitter = splitter_for(Comparator::CrossValidation { repeats, folds }, train);
        let t = self.predict_target.then_some(target);
        let oof = out_of_fold(learners, train, splitter, t, seed)?;
        self.built += oof.models_built;
        self.oof.push((key, oof));
        Ok(&self.oof.last().expect("just pushed").1)
    }

    /// The importance weights of an estimator (estimated once).
    fn weights(
        &mut self,
        estimator: &RatioEstimator,
        train: &Dataset,
        target: &Dataset,
        seed: u64,
    ) -> Result<(ImportanceWeights, Option<ShiftTest>)> {
        let key = estimator.to_string();
        if let Some((_, w, s)) = self.weights.iter().find(|(k, _, _)| *k == key) {
            return Ok((w.clone(), s.clone()));
        }
        let (w, s) = estimator.estimate(train, target, seed)?;
        self.weights.push((key, w.clone(), s.clone()));
        Ok((w, s))
    }

    /// Weights estimated before by [`Shared::weights`].
    fn cached_weights(&self, estimator: &RatioEstimator) -> &ImportanceWeights {
        let key = estimator.to_string();
        &self
            .weights
            .iter()
            .find(|(k, _, _)| *k == key)
            .expect("the weights were estimated")
            .1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::test_learners::{noisy_tree_and_tree, train_and_target};

    fn parse(spec: &str) -> Result<Method> {
        Method::parse(spec, "accuracy", "default")
    }

    /// The selection of one method, alone.
    fn select_alone(
        m: &Method,
        learners: &[(String, Arc<dyn Learner>)],
        (train, target): (&Dataset, &Dataset),
        seed: u64,
    ) -> Selection {
        let plain = ReverseTestingVariant::paper();
        run_methods(
            std::slice::from_ref(m),
            learners,
            train,
            target,
            &plain,
            seed,
        )
        .unwrap()
        .remove(0)
    }

    #[test]
    fn methods_parse_and_print() {
        for (spec, printed) in [
            ("cv", "cv(folds=10,repeats=1)"),
            ("cv(folds=5)", "cv(folds=5,repeats=1)"),
            ("loo", "loo"),
            ("train", "train"),
            ("prior-cv(priors=own)", "prior-cv(folds=10,repeats=1,priors=own,calibrate=none,estimator=em)"),
            (
                "reverse-testing(variant=paper)",
                "reverse-testing(variant='labels=argmax,measure=accuracy,decide=strict,judges=pair,folds=0')",
            ),
        ] {
            assert_eq!(parse(spec).unwrap().to_string(), printed);
            assert_eq!(parse(printed).unwrap().to_string(), printed);
        }
        let iw = parse("iwcv(ratio=ulsif(power=0.5))").unwrap().to_string();
        assert!(
            iw.starts_with("iwcv(ratio=ulsif(centres=100,sigma=none,lambda=none,power=0.5"),
            "{iw}"
        );
        assert_eq!(parse(&iw).unwrap().to_string(), iw);
        for (bad, needle) in [
            (
                "iwcvv",
                "unknown selection method 'iwcvv' (did you mean 'iwcv'?)",
            ),
            ("loo(folds=3)", "loo takes no arguments"),
            (
                "iwcv(ratio=kliep)",
                "unknown density-ratio estimator 'kliep'",
            ),
            ("cv(folds=1)", "folds=1 is invalid"),
        ] {
            let e = parse(bad).unwrap_err().to_string();
            assert!(e.contains(needle), "{bad}: {e}");
        }
    }

    #[test]
    fn shared_predictions_give_what_each_method_gives_alone() {
        let (train, target) = train_and_target(200, 0.3);
        let learners = noisy_tree_and_tree();
        let plain = ReverseTestingVariant::paper();
        let methods: Vec<Method> = ["cv", "iwcv", "prior-cv", "reverse-testing(variant=paper)"]
            .iter()
            .map(|s| parse(s).unwrap())
            .collect();
        let all = run_methods(&methods, &learners, &train, &target, &plain, 4).unwrap();
        for (m, together) in methods.iter().zip(&all) {
            let alone = select_alone(m, &learners, (&train, &target), 4);
            assert_eq!(alone.scores, together.scores, "{m}");
            assert_eq!(alone.ranking.order, together.ranking.order, "{m}");
        }
        // Plain CV here is the comparator's.
        let cv = rank_by_comparator(
            &learners,
            &train,
            Comparator::CrossValidation {
                repeats: 1,
                folds: 10,
            },
            &plain,
            4,
        )
        .unwrap();
        assert_eq!(cv.order, all[0].ranking.order);
        assert_eq!(all[0].ranking.models_built, 20);
        assert!(all[1].weights.is_some() && all[1].shift.is_some());
        assert!(all[2].priors.is_some());
        // The tree is better on T and every method finds it.
        for s in &all {
            assert_eq!(s.ranking.order, vec![1, 0]);
        }
    }

    #[test]
    fn bad_inputs_are_named() {
        let (train, target) = train_and_target(60, 0.0);
        let learners = noisy_tree_and_tree();
        let plain = ReverseTestingVariant::paper();
        let iw = [parse("iwcv").unwrap()];
        let small = target.take(&[0, 1, 2, 3, 4, 5, 6, 7, 8]);
        let e = run_methods(&iw, &learners, &train, &small, &plain, 1)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("target population has 9 rows") && e.contains("at least 10"),
            "{e}"
        );
        // Cross-validation does not read the target.
        let cv = [parse("cv(folds=3)").unwrap()];
        assert!(run_methods(&cv, &learners, &train, &small, &plain, 1).is_ok());
        let zeros = train.rows_of_class(0);
        let one_class = train.take(&zeros);
        let e = run_methods(&iw, &learners, &one_class, &target, &plain, 1)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("the training set: the data has only one class"),
            "{e}"
        );
        let e = run_methods(&iw, &learners[..1], &train, &target, &plain, 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("at least two learners"), "{e}");
    }

    #[test]
    fn a_vote_is_the_majority_of_its_members() {
        let (train, target) = train_and_target(200, 0.3);
        let mut learners = noisy_tree_and_tree();
        learners.extend(crate::select::test_learners::always_zero_and_tree());
        let members = [
            "cv(folds=5)",
            "iwcv(folds=5)",
            "reverse-testing(variant=paper)",
        ];
        let sets = (&train, &target);
        let alone: Vec<Selection> = members
            .iter()
            .map(|m| select_alone(&parse(m).unwrap(), &learners, sets, 2))
            .collect();
        let spec = format!("vote({})", members.join(","));
        let v = select_alone(&parse(&spec).unwrap(), &learners, sets, 2);
        let mut decided = 0;
        for (j, p) in v.ranking.pairs.iter().enumerate() {
            let count = |o| {
                alone
                    .iter()
                    .filter(|s| s.ranking.pairs[j].outcome == o)
                    .count()
            };
            let (a, b) = (count(Outcome::First), count(Outcome::Second));
            let expect = if a > b {
                Outcome::First
            } else if b > a {
                Outcome::Second
            } else {
                Outcome::Undecided
            };
            assert_eq!(p.outcome, expect, "pair {j}");
            decided += usize::from(expect != Outcome::Undecided);
        }
        assert!(decided > 0);
        // The fold models are shared by cv and iwcv: counted once.
        let models: usize = alone.iter().map(|s| s.ranking.models_built).sum();
        assert_eq!(
            v.ranking.models_built,
            models - alone[1].ranking.models_built
        );
        // Printed back, it parses to itself.
        let printed = parse(&spec).unwrap().to_string();
        assert!(
            printed.starts_with("vote(cv(folds=5,repeats=1),iwcv("),
            "{printed}"
        );
        assert_eq!(parse(&printed).unwrap().to_string(), printed);
        for bad in ["vote(cv)", "vote(a=cv,b=loo)", "vote(cv,vote(cv,loo))"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
