//! ReverseTesting (Fan & Davidson 2006, Sec. 4, Figure 3): choosing among
//! learners when the labelled training set `D` is a biased sample, using the
//! unlabelled target population `T`.
//!
//! For learners `L_a`, `L_b`: fit each on `D` (`theta_a`, `theta_b`), label
//! `T` with each (`T_a`, `T_b`), fit each learner again on each labelled copy
//! (`theta_a^a`, `theta_a^b`, ... where `theta_x^s` is learner `x` trained on
//! `T_s`), and measure the four models on `D` (`AccTrain_x^s`).
//! Condition 4.1: if `AccTrain_a^b > AccTrain_a^a` and `AccTrain_b^b >
//! AccTrain_b^a`, `L_b` is expected to be more accurate on `T`; Condition 4.2
//! is the mirror image; otherwise the pair is undecided (4.3).
//!
//! **Ranking of `l` learners.** Each learner is fitted once on `D` and once
//! on each of the `l` labelled copies of `T`: `l + l^2` models instead of the
//! paper's `2 l^2 + 3 l`. Every pair is then decided as above and learners
//! are ordered by wins minus losses (undecided pairs count for neither),
//! ties broken by the order the learners were given.
//!
//! **Imbalance.** Labelling `T` by argmax (the paper) often gives the whole
//! copy the majority class; models trained on a one-class copy are constant
//! (never fitted; flagged in [`Pair::constant_copies`] and
//! [`Ranking::single_class_copies`]) and the conditions tie. A [`Variant`]
//! sets four things: the labelling ([`Labelling::Priors`]: the PT_MA rule,
//! argmax of `p_k / pi_k`; [`Labelling::Sample`]: a label drawn from the
//! posterior), the measure on `D` (any metric, e.g. macro accuracy, G-mean,
//! Brier, or the example-dependent benefit of the paper's Section 6), the
//! [`Decision`] (all judges agree, as the paper, or the sign of the summed
//! differences) and the [`Judges`] (`L_a`, `L_b`, or every learner), plus
//! cross-fitting ([`Variant::folds`]): the paper measures on `D` models
//! derived from `D` itself, which rewards learners that memorise `D`.
//! [`Variant::paper`] is the literal algorithm; [`Variant::recommended`] the
//! variant that measured best (`docs/reverse-testing.md`).
//!
//! **Comparators** on equal terms: repeated k-fold cross-validation,
//! leave-one-out and training-set accuracy score each learner on `D` alone;
//! a pair is decided by the higher score (equal scores: undecided).

use std::sync::Arc;

use rand::RngExt;
use rayon::prelude::*;
use serde::Serialize;

use crate::data::{Dataset, Proba, Schema};
use crate::decide::Rule;
use crate::error::{Error, Result};
use crate::learn::Learner;
use crate::learn::Model;
use crate::metrics::cost::Benefit;
use crate::metrics::report_with_labels;
use crate::rng;
use crate::select::split::Splitter;

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
    /// Any metric of [`report_with_labels`] by name (e.g. `accuracy`,
    /// `macro_accuracy`, `g_mean`, `roc_auc`); higher is better except for
    /// `brier`, `log_loss` and the rates where lower is better (`fpr`,
    /// `fdr`), which are negated.
    Metric(String),
    /// Total example-dependent benefit (Fan & Davidson Sec. 6): act on a row
    /// iff `p(positive) * amount > overhead`; a caught positive earns
    /// `amount - overhead`, a false alarm `-overhead`.
    Benefit(Benefit),
}

/// How a pair is decided from the judges' measures on `D`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Decision {
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

/// A ReverseTesting configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Variant {
    /// How `T` is labelled.
    pub labelling: Labelling,
    /// How models are measured on `D`.
    pub measure: Measure,
    /// How a pair is decided from the measures.
    pub decision: Decision,
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
}

impl Variant {
    /// The literal algorithm of the paper: argmax labels, 0-1 accuracy,
    /// Conditions 4.1-4.3 on `L_a` and `L_b`.
    pub fn paper() -> Variant {
        Variant {
            labelling: Labelling::Argmax,
            measure: Measure::Metric("accuracy".into()),
            decision: Decision::Strict,
            judges: Judges::Pair,
            folds: 0,
        }
    }

    /// The default: the variant that measured best in the bias experiment
    /// (`docs/reverse-testing.md`) for the target `metric`, always deciding
    /// by the summed differences. For `accuracy`, the judges are measured by
    /// the Brier score (a smooth proper score, so 0-1 ties disappear) and
    /// cross-fitted on 5 folds, judged by `L_a` and `L_b`. For any other
    /// metric (e.g. `g_mean`, `macro_accuracy`), the judges are measured by
    /// that metric, on all of `D`, and every learner judges.
    pub fn recommended(metric: &str) -> Variant {
        if metric == "accuracy" {
            Variant {
                labelling: Labelling::Argmax,
                measure: Measure::Metric("brier".into()),
                decision: Decision::Sum,
                judges: Judges::Pair,
                folds: 5,
            }
        } else {
            Variant {
                labelling: Labelling::Argmax,
                measure: Measure::Metric(metric.into()),
                decision: Decision::Sum,
                judges: Judges::All,
                folds: 0,
            }
        }
    }

    /// Parses a variant: a preset (`paper`, `default`, `priors`, `sample`)
    /// and/or `key=value` settings separated by commas, later ones winning:
    /// `labels=argmax|priors|sample`, `measure=METRIC`,
    /// `decide=strict|sum`, `judges=pair|all`, `folds=0|K`. The measure is
    /// `metric` unless set. Example: `paper,decide=sum`.
    pub fn parse(spec: &str, metric: &str) -> Result<Variant> {
        let mut v = Variant {
            measure: Measure::Metric(metric.into()),
            ..Variant::paper()
        };
        let bad = |what: &str| {
            Error::invalid(format!(
                "variant '{spec}': {what}; expected a preset (paper, default, priors, sample) \
                 or labels=argmax|priors|sample, measure=METRIC, decide=strict|sum, judges=pair|all, folds=0|K"
            ))
        };
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part.split_once('=') {
                None => match part {
                    "paper" => {
                        v = Variant {
                            measure: v.measure,
                            ..Variant::paper()
                        }
                    }
                    "default" => v = Variant::recommended(metric),
                    "priors" => v.labelling = Labelling::Priors,
                    "sample" => v.labelling = Labelling::Sample,
                    _ => return Err(bad(&format!("unknown preset '{part}'"))),
                },
                Some((key, value)) => match (key.trim(), value.trim()) {
                    ("labels", "argmax") => v.labelling = Labelling::Argmax,
                    ("labels", "priors") => v.labelling = Labelling::Priors,
                    ("labels", "sample") => v.labelling = Labelling::Sample,
                    ("measure", m) if !m.is_empty() => v.measure = Measure::Metric(m.into()),
                    ("decide", "strict") => v.decision = Decision::Strict,
                    ("decide", "sum") => v.decision = Decision::Sum,
                    ("judges", "pair") => v.judges = Judges::Pair,
                    ("judges", "all") => v.judges = Judges::All,
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

impl std::fmt::Display for Variant {
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
            Decision::Strict => "strict",
            Decision::Sum => "sum",
        };
        let judges = match self.judges {
            Judges::Pair => "pair",
            Judges::All => "all",
        };
        write!(
            f,
            "labels={labels},measure={measure},decide={decide},judges={judges},folds={}",
            self.folds
        )
    }
}

/// Which learner a pair's outcome favours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Outcome {
    /// The first learner of the pair is better.
    First,
    /// The second learner of the pair is better.
    Second,
    /// Tied or undecided (Condition 4.3).
    Undecided,
}

/// One pairwise comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Pair {
    /// Index of learner `a`.
    pub a: usize,
    /// Index of learner `b`.
    pub b: usize,
    /// The decision.
    pub outcome: Outcome,
    /// ReverseTesting only: `[AccTrain_a^a, AccTrain_a^b, AccTrain_b^a,
    /// AccTrain_b^b]` (`x^s`: learner `x` trained on `T` labelled by `s`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acc_train: Option<[f64; 4]>,
    /// ReverseTesting only: which of `a`, `b` labelled the whole target set
    /// with one class (the models trained on that copy are constant).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub constant_copies: Vec<usize>,
}

/// The result of ranking learners.
#[derive(Debug, Clone, Serialize)]
pub struct Ranking {
    /// Learner names, in the order given.
    pub learners: Vec<String>,
    /// Learner indices, best first.
    pub order: Vec<usize>,
    /// Wins minus losses per learner.
    pub score: Vec<i64>,
    /// Every pair `a < b`.
    pub pairs: Vec<Pair>,
    /// Models built.
    pub models_built: usize,
    /// Labelled copies of `T` with a single class (their models are constant).
    pub single_class_copies: Vec<usize>,
}

/// A model fitted on a labelled copy of `T`, or the constant class of a
/// one-class copy.
enum Fitted {
    Model(Model),
    Constant(usize),
}

impl Fitted {
    fn proba(&self, data: &Dataset) -> Result<Proba> {
        match self {
            Fitted::Model(m) => m.predict_proba(data),
            Fitted::Constant(c) => {
                let k = data.n_classes();
                let mut p = Proba::zeros(data.n_rows(), k);
                for i in 0..data.n_rows() {
                    p.row_mut(i)[*c] = 1.0;
                }
                Ok(p)
            }
        }
    }
}

/// Labels from probabilities under a labelling rule.
fn label(p: &Proba, labelling: Labelling, priors: &[f64], seed: u64) -> Result<Vec<u32>> {
    match labelling {
        Labelling::Argmax => Rule::Argmax.decide(p, None),
        Labelling::Priors => Rule::priors(priors)?.decide(p, None),
        Labelling::Sample => {
            let mut r = rng::stream(seed, 0x1abe1);
            Ok((0..p.n_rows())
                .map(|i| {
                    let u: f64 = r.random();
                    let row = p.row(i);
                    let mut acc = 0.0;
                    for (k, v) in row.iter().enumerate() {
                        acc += v;
                        if u < acc {
                            return k as u32;
                        }
                    }
                    (row.len() - 1) as u32
                })
                .collect())
        }
    }
}

/// A measure's value on labelled data (higher is better).
fn measure_value(
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
            let report = report_with_labels(truth, p, &labels)?;
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
            Ok(
                if matches!(name.as_str(), "brier" | "log_loss" | "fpr" | "fdr") {
                    -v
                } else {
                    v
                },
            )
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

/// A copy of `target` carrying `labels` and `train`'s schema.
fn labelled_copy(target: &Dataset, labels: Vec<u32>, schema: &Schema) -> Result<Dataset> {
    Dataset::new(target.features().to_vec(), labels, schema.clone())
}

fn check_inputs(learners: &[Arc<dyn Learner>], train: &Dataset, target: &Dataset) -> Result<()> {
    if learners.len() < 2 {
        return Err(Error::invalid(
            "ReverseTesting compares at least two learners",
        ));
    }
    train.require_two_classes()?;
    if train.feature_names() != target.feature_names() {
        return Err(Error::data(format!(
            "the training and target sets have different features ({} vs {})",
            train.n_features(),
            target.n_features()
        )));
    }
    if target.n_rows() == 0 {
        return Err(Error::data("the target set has no rows"));
    }
    Ok(())
}

fn fit_all(
    learners: &[Arc<dyn Learner>],
    data: &Dataset,
    seed: u64,
    stream: u64,
) -> Result<Vec<Model>> {
    let rows: Vec<usize> = (0..data.n_rows()).collect();
    learners
        .par_iter()
        .enumerate()
        .map(|(i, l)| {
            l.fit(
                &data.view(&rows),
                &mut rng::stream(seed, stream * 1000 + i as u64),
            )
        })
        .collect()
}

/// Every pair decided by the higher score (equal scores: undecided).
fn pairs_from_scores(scores: &[f64]) -> Vec<Pair> {
    let l = scores.len();
    let mut pairs = Vec::new();
    for a in 0..l {
        for b in a + 1..l {
            let outcome = if scores[a] > scores[b] {
                Outcome::First
            } else if scores[b] > scores[a] {
                Outcome::Second
            } else {
                Outcome::Undecided
            };
            pairs.push(Pair {
                a,
                b,
                outcome,
                acc_train: None,
                constant_copies: Vec::new(),
            });
        }
    }
    pairs
}

/// Orders learners from pairwise outcomes (wins minus losses).
fn rank(names: Vec<String>, pairs: Vec<Pair>, models_built: usize, single: Vec<usize>) -> Ranking {
    let l = names.len();
    let mut score = vec![0i64; l];
    for p in &pairs {
        match p.outcome {
            Outcome::First => {
                score[p.a] += 1;
                score[p.b] -= 1;
            }
            Outcome::Second => {
                score[p.b] += 1;
                score[p.a] -= 1;
            }
            Outcome::Undecided => {}
        }
    }
    let mut order: Vec<usize> = (0..l).collect();
    order.sort_by(|&x, &y| score[y].cmp(&score[x]).then(x.cmp(&y)));
    Ranking {
        learners: names,
        order,
        score,
        pairs,
        models_built,
        single_class_copies: single,
    }
}

/// ReverseTesting ranking of `learners` (given with their names) trained on
/// `train` (`D`) for the unlabelled `target` (`T`; its labels are ignored).
pub fn reverse_testing(
    learners: &[(String, Arc<dyn Learner>)],
    train: &Dataset,
    target: &Dataset,
    variant: &Variant,
    seed: u64,
) -> Result<Ranking> {
    let mut r =
        reverse_testing_variants(learners, train, target, std::slice::from_ref(variant), seed)?;
    Ok(r.remove(0))
}

/// [`reverse_testing`] for several variants at once: the models of each
/// labelling are fitted once and shared by the variants using it. Returns
/// one ranking per variant, each equal to what [`reverse_testing`] gives
/// (`models_built` counts the models of that variant's labelling).
pub fn reverse_testing_variants(
    learners: &[(String, Arc<dyn Learner>)],
    train: &Dataset,
    target: &Dataset,
    variants: &[Variant],
    seed: u64,
) -> Result<Vec<Ranking>> {
    let ls: Vec<Arc<dyn Learner>> = learners.iter().map(|(_, l)| Arc::clone(l)).collect();
    check_inputs(&ls, train, target)?;
    let l = ls.len();
    let priors = train.priors();
    let names: Vec<String> = learners.iter().map(|(n, _)| n.clone()).collect();
    let mut out: Vec<Option<Ranking>> = vec![None; variants.len()];
    let mut groups: Vec<(Labelling, usize)> = Vec::new();
    for v in variants {
        if !groups.contains(&(v.labelling, v.folds)) {
            groups.push((v.labelling, v.folds));
        }
    }
    for (labelling, folds) in groups {
        let judged = judge(&ls, train, target, labelling, folds, seed)?;
        // 4. Measure on D and decide every pair, per variant.
        for (i, v) in variants.iter().enumerate() {
            if (v.labelling, v.folds) != (labelling, folds) {
                continue;
            }
            let mut m = vec![vec![0.0; l]; l];
            for (x, row) in m.iter_mut().enumerate() {
                for (s, cell) in row.iter_mut().enumerate() {
                    *cell = measure_value(
                        &v.measure,
                        train,
                        &judged.on_copy[x][s],
                        labelling,
                        &priors,
                    )?;
                }
            }
            let mut pairs = Vec::new();
            for a in 0..l {
                for b in a + 1..l {
                    let judges: Vec<usize> = match v.judges {
                        Judges::Pair => vec![a, b],
                        Judges::All => (0..l).collect(),
                    };
                    let diffs: Vec<f64> = judges.iter().map(|&x| m[x][b] - m[x][a]).collect();
                    pairs.push(Pair {
                        a,
                        b,
                        outcome: decide(&diffs, v.decision),
                        acc_train: Some([m[a][a], m[a][b], m[b][a], m[b][b]]),
                        constant_copies: [a, b]
                            .into_iter()
                            .filter(|s| judged.single.contains(s))
                            .collect(),
                    });
                }
            }
            out[i] = Some(rank(
                names.clone(),
                pairs,
                judged.models_built,
                judged.single.clone(),
            ));
        }
    }
    Ok(out
        .into_iter()
        .map(|r| r.expect("every variant's group was run"))
        .collect())
}

/// The judges' predictions on `D` for one labelling.
struct Judged {
    /// `on_copy[x][s]`: learner `x` trained on `T` labelled by learner `s`,
    /// predicting every row of `D` (out of fold when cross-fitted).
    on_copy: Vec<Vec<Proba>>,
    /// Learners whose labelling of `T` had one class (in any fold).
    single: Vec<usize>,
    /// Models fitted.
    models_built: usize,
}

/// Steps 1-3 of ReverseTesting: fit on `D` (or on each fold's training
/// part), label `T`, fit every learner on every labelled copy and predict `D`
/// (or the held-out fold). A one-class copy gives constant models, not fitted.
fn judge(
    ls: &[Arc<dyn Learner>],
    train: &Dataset,
    target: &Dataset,
    labelling: Labelling,
    folds: usize,
    seed: u64,
) -> Result<Judged> {
    let l = ls.len();
    let n = train.n_rows();
    let all: Vec<usize> = (0..n).collect();
    // (rows fitted, rows predicted) per part.
    let parts: Vec<(Vec<usize>, Vec<usize>)> = if folds < 2 {
        vec![(all.clone(), all)]
    } else {
        let smallest = train
            .class_counts()
            .into_iter()
            .filter(|&c| c > 0)
            .min()
            .unwrap_or(0);
        if smallest < 2 {
            return Err(Error::data(
                "cross-fitted ReverseTesting (folds >= 2) needs at least 2 training rows of each class",
            ));
        }
        Splitter::Stratified {
            repeats: 1,
            folds: folds.min(smallest),
        }
        .split_dataset(train, seed)?
        .into_iter()
        .map(|f| (f.train, f.test))
        .collect()
    };
    let mut on_copy = vec![vec![Proba::zeros(n, train.n_classes()); l]; l];
    let mut single = Vec::new();
    let mut models_built = 0;
    for (f, (fit_rows, eval_rows)) in parts.iter().enumerate() {
        let base = (f * (l + 1)) as u64;
        let d = train.take(fit_rows);
        let eval = train.take(eval_rows);
        let priors = d.priors();
        let on_d = fit_all(ls, &d, seed, base)?;
        models_built += l;
        for (s, m) in on_d.iter().enumerate() {
            let labels = label(
                &m.predict_proba(target)?,
                labelling,
                &priors,
                seed ^ s as u64 ^ ((f as u64) << 32),
            )?;
            let first = labels[0];
            let fitted: Vec<Fitted> = if labels.iter().all(|&c| c == first) {
                if !single.contains(&s) {
                    single.push(s);
                }
                (0..l).map(|_| Fitted::Constant(first as usize)).collect()
            } else {
                let copy = labelled_copy(target, labels, train.schema())?;
                models_built += l;
                fit_all(ls, &copy, seed, base + 1 + s as u64)?
                    .into_iter()
                    .map(Fitted::Model)
                    .collect()
            };
            for (x, model) in fitted.iter().enumerate() {
                let p = model.proba(&eval)?;
                for (j, &i) in eval_rows.iter().enumerate() {
                    on_copy[x][s].row_mut(i).copy_from_slice(p.row(j));
                }
            }
        }
    }
    single.sort_unstable();
    Ok(Judged {
        on_copy,
        single,
        models_built,
    })
}

/// Decides a pair from the judges' differences `M_x^b - M_x^a` (positive:
/// the copy labelled by `b` trains better models, so `b` is better).
fn decide(diffs: &[f64], decision: Decision) -> Outcome {
    match decision {
        Decision::Strict => {
            if diffs.iter().all(|&d| d > 0.0) {
                Outcome::Second
            } else if diffs.iter().all(|&d| d < 0.0) {
                Outcome::First
            } else {
                Outcome::Undecided
            }
        }
        Decision::Sum => {
            let total: f64 = diffs.iter().sum();
            if total > 0.0 {
                Outcome::Second
            } else if total < 0.0 {
                Outcome::First
            } else {
                Outcome::Undecided
            }
        }
    }
}

/// A comparator that scores each learner on `D` alone. Cross-validation uses
/// at most as many folds as the smallest class has rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Comparator {
    /// Repeated stratified k-fold cross-validation.
    CrossValidation {
        /// Repeats.
        repeats: usize,
        /// Folds.
        folds: usize,
    },
    /// Leave-one-out.
    LeaveOneOut,
    /// Accuracy on the training set itself.
    Training,
}

/// Ranks learners by a comparator's score on `train`, measured as `variant`
/// measures (the labelling only matters for thresholded metrics).
pub fn rank_by_comparator(
    learners: &[(String, Arc<dyn Learner>)],
    train: &Dataset,
    comparator: Comparator,
    variant: &Variant,
    seed: u64,
) -> Result<Ranking> {
    train.require_two_classes()?;
    let priors = train.priors();
    let l = learners.len();
    let mut scores = vec![0.0; l];
    let mut models_built = 0;
    for (x, (_, learner)) in learners.iter().enumerate() {
        scores[x] = match comparator {
            Comparator::Training => {
                models_built += 1;
                let rows: Vec<usize> = (0..train.n_rows()).collect();
                let m = learner.fit(&train.view(&rows), &mut rng::stream(seed, x as u64))?;
                measure_value(
                    &variant.measure,
                    train,
                    &m.predict_proba(train)?,
                    variant.labelling,
                    &priors,
                )?
            }
            Comparator::CrossValidation { .. } | Comparator::LeaveOneOut => {
                // A class with fewer rows than folds caps the folds (at least 2).
                let smallest = train
                    .class_counts()
                    .into_iter()
                    .filter(|&c| c > 0)
                    .min()
                    .unwrap_or(0);
                let splitter = match comparator {
                    Comparator::CrossValidation { repeats, folds } => Splitter::Stratified {
                        repeats,
                        folds: folds.min(smallest).max(2),
                    },
                    _ => Splitter::LeaveOneOut,
                };
                let folds = splitter.split_dataset(train, seed)?;
                models_built += folds.len();
                // Pool the out-of-fold probabilities of each repeat, then
                // measure once per repeat (LOO has a single pooled repeat).
                let repeats = folds.iter().map(|f| f.repeat).max().map_or(1, |r| r + 1);
                let mut pooled = vec![Proba::zeros(train.n_rows(), train.n_classes()); repeats];
                let parts: Vec<(usize, Vec<usize>, Proba)> = folds
                    .par_iter()
                    .enumerate()
                    .map(|(f, fold)| {
                        let m = learner.fit(
                            &train.view(&fold.train),
                            &mut rng::stream(seed, (x * 100_000 + f) as u64),
                        )?;
                        Ok((
                            fold.repeat,
                            fold.test.clone(),
                            m.predict_proba(&train.take(&fold.test))?,
                        ))
                    })
                    .collect::<Result<_>>()?;
                for (r, rows, p) in parts {
                    for (j, &i) in rows.iter().enumerate() {
                        pooled[r].row_mut(i).copy_from_slice(p.row(j));
                    }
                }
                let mut total = 0.0;
                for p in &pooled {
                    total += measure_value(&variant.measure, train, p, variant.labelling, &priors)?;
                }
                total / repeats as f64
            }
        };
    }
    let pairs = pairs_from_scores(&scores);
    let names = learners.iter().map(|(n, _)| n.clone()).collect();
    Ok(rank(names, pairs, models_built, Vec::new()))
}

/// The true pairwise order: each learner trained on `train` and measured on
/// the labelled `test` set.
pub fn true_ranking(
    learners: &[(String, Arc<dyn Learner>)],
    train: &Dataset,
    test: &Dataset,
    variant: &Variant,
    seed: u64,
) -> Result<Ranking> {
    let ls: Vec<Arc<dyn Learner>> = learners.iter().map(|(_, l)| Arc::clone(l)).collect();
    let models = fit_all(&ls, train, seed, 0)?;
    let priors = train.priors();
    let scores = models
        .iter()
        .map(|m| {
            measure_value(
                &variant.measure,
                test,
                &m.predict_proba(test)?,
                variant.labelling,
                &priors,
            )
        })
        .collect::<Result<Vec<f64>>>()?;
    let l = learners.len();
    let pairs = pairs_from_scores(&scores);
    Ok(rank(
        learners.iter().map(|(n, _)| n.clone()).collect(),
        pairs,
        l,
        Vec::new(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::tree::Tree;

    /// A reasonable but worse learner: a tree fitted after flipping each
    /// training label with probability 0.3.
    #[derive(Debug)]
    struct NoisyTree;

    impl Learner for NoisyTree {
        fn fit(&self, data: &crate::data::View<'_>, rng: &mut crate::rng::Rng) -> Result<Model> {
            let ds = data.data().take(data.indices());
            let y: Vec<u32> = ds
                .labels()
                .iter()
                .map(|&c| if rng.random::<f64>() < 0.3 { 1 - c } else { c })
                .collect();
            let noisy = Dataset::new(ds.features().to_vec(), y, ds.schema().clone())?;
            let rows: Vec<usize> = (0..noisy.n_rows()).collect();
            Tree::default().fit(&noisy.view(&rows), rng)
        }
        fn name(&self) -> String {
            "noisy-tree".into()
        }
    }

    /// Always class 0: labels `T` with one class.
    #[derive(Debug)]
    struct AlwaysZero;

    impl Learner for AlwaysZero {
        fn fit(&self, data: &crate::data::View<'_>, rng: &mut crate::rng::Rng) -> Result<Model> {
            let zero = (0..data.len()).find(|&i| data.label(i) == 0).unwrap_or(0);
            let rows = [data.indices()[zero]];
            Tree::default().fit(&data.data().view(&rows), rng)
        }
        fn name(&self) -> String {
            "always-zero".into()
        }
    }

    /// y = 1 iff x0 > 0.5: a tree learns it, the constant learner does not.
    fn data(n: usize, shift: f64, seed: u64) -> Dataset {
        let mut r = rng::stream(seed, 0);
        let rows: Vec<Vec<f64>> = (0..n)
            .map(|_| vec![r.random::<f64>() * (1.0 - shift) + shift, r.random()])
            .collect();
        let y = rows.iter().map(|x| u32::from(x[0] > 0.5)).collect();
        Dataset::from_rows(rows, y, vec!["0".into(), "1".into()]).unwrap()
    }

    #[test]
    fn the_learner_that_is_better_on_t_ranks_first() {
        let train = data(300, 0.0, 1);
        let target = data(300, 0.3, 2);
        let learners: Vec<(String, Arc<dyn Learner>)> = vec![
            ("noisy-tree".into(), Arc::new(NoisyTree)),
            ("tree".into(), Arc::new(Tree::default())),
        ];
        let r = reverse_testing(&learners, &train, &target, &Variant::paper(), 3).unwrap();
        assert_eq!(r.order, vec![1, 0], "{r:?}");
        assert_eq!(r.pairs[0].outcome, Outcome::Second);
        assert_eq!(r.models_built, 2 + 4);
        let cv = rank_by_comparator(
            &learners,
            &train,
            Comparator::CrossValidation {
                repeats: 1,
                folds: 5,
            },
            &Variant::paper(),
            3,
        )
        .unwrap();
        assert_eq!(cv.order, vec![1, 0]);
        let truth = true_ranking(&learners, &train, &target, &Variant::paper(), 3).unwrap();
        assert_eq!(truth.order, vec![1, 0]);
    }

    #[test]
    fn a_one_class_labelling_gives_constant_models() {
        let train = data(100, 0.0, 1);
        let learners: Vec<(String, Arc<dyn Learner>)> = vec![
            ("always-zero".into(), Arc::new(AlwaysZero)),
            ("tree".into(), Arc::new(Tree::default())),
        ];
        let r =
            reverse_testing(&learners, &train, &data(100, 0.0, 2), &Variant::paper(), 3).unwrap();
        assert_eq!(r.single_class_copies, vec![0]);
        // Constant models are not fitted: 2 on D + 2 on the tree's copy.
        assert_eq!(r.models_built, 4);
        let acc = r.pairs[0].acc_train.unwrap();
        let zeros = train.class_counts()[0] as f64 / train.n_rows() as f64;
        assert_eq!((acc[0], acc[2]), (zeros, zeros));
    }

    #[test]
    fn the_paper_ties_on_a_one_class_copy_and_the_default_decides() {
        // AlwaysZero labels T with class 0: its copy's models are constant,
        // and AlwaysZero trained on the tree's copy is still constant, so
        // AccTrain_a^a == AccTrain_a^b and Condition 4.3 holds. Summing the
        // differences lets the tree judge decide.
        let train = data(200, 0.0, 1);
        let target = data(200, 0.0, 2);
        let learners: Vec<(String, Arc<dyn Learner>)> = vec![
            ("always-zero".into(), Arc::new(AlwaysZero)),
            ("tree".into(), Arc::new(Tree::default())),
        ];
        let paper = reverse_testing(&learners, &train, &target, &Variant::paper(), 3).unwrap();
        assert_eq!(paper.pairs[0].outcome, Outcome::Undecided);
        assert_eq!(paper.pairs[0].constant_copies, vec![0]);
        for spec in ["paper,decide=sum", "default"] {
            let v = Variant::parse(spec, "accuracy").unwrap();
            let r = reverse_testing(&learners, &train, &target, &v, 3).unwrap();
            assert_eq!(r.pairs[0].outcome, Outcome::Second, "{spec}: {r:?}");
            assert_eq!(r.pairs[0].constant_copies, vec![0], "{spec}");
        }
    }

    #[test]
    fn strict_needs_every_judge_and_sum_weighs_them() {
        assert_eq!(decide(&[0.1, 0.2], Decision::Strict), Outcome::Second);
        assert_eq!(decide(&[-0.1, -0.2], Decision::Strict), Outcome::First);
        // Mixed conditions: the paper's Condition 4.3.
        assert_eq!(decide(&[0.3, -0.1], Decision::Strict), Outcome::Undecided);
        assert_eq!(decide(&[0.3, -0.1], Decision::Sum), Outcome::Second);
        assert_eq!(decide(&[-0.3, 0.1], Decision::Sum), Outcome::First);
        assert_eq!(decide(&[0.0, 0.0], Decision::Sum), Outcome::Undecided);
        assert_eq!(decide(&[0.1, 0.0], Decision::Strict), Outcome::Undecided);
    }

    #[test]
    fn cross_fitted_judges_see_no_training_row() {
        let train = data(300, 0.0, 1);
        let target = data(300, 0.3, 2);
        let learners: Vec<(String, Arc<dyn Learner>)> = vec![
            ("noisy-tree".into(), Arc::new(NoisyTree)),
            ("tree".into(), Arc::new(Tree::default())),
        ];
        let v = Variant::parse("paper,decide=sum,folds=3", "accuracy").unwrap();
        let r = reverse_testing(&learners, &train, &target, &v, 3).unwrap();
        assert_eq!(r.order, vec![1, 0], "{r:?}");
        // 3 folds x (2 on D + 4 on the copies).
        assert_eq!(r.models_built, 3 * 6);
        // Several variants at once give what each gives alone.
        let vs = [
            Variant::paper(),
            v.clone(),
            Variant::recommended("accuracy"),
        ];
        let many = reverse_testing_variants(&learners, &train, &target, &vs, 3).unwrap();
        for (one, v) in many.iter().zip(&vs) {
            let alone = reverse_testing(&learners, &train, &target, v, 3).unwrap();
            assert_eq!(one.pairs[0].acc_train, alone.pairs[0].acc_train);
        }
    }

    #[test]
    fn variants_parse_and_print() {
        assert_eq!(
            Variant::parse("paper", "accuracy").unwrap(),
            Variant::paper()
        );
        let v = Variant::parse("priors,measure=brier,decide=sum,judges=all,folds=4", "x").unwrap();
        assert_eq!(v.labelling, Labelling::Priors);
        assert_eq!(v.measure, Measure::Metric("brier".into()));
        assert_eq!(
            (v.decision, v.judges, v.folds),
            (Decision::Sum, Judges::All, 4)
        );
        assert_eq!(Variant::parse(&v.to_string(), "y").unwrap(), v);
        let d = Variant::parse("default", "g_mean").unwrap();
        assert_eq!(d, Variant::recommended("g_mean"));
        for bad in ["nope", "labels=max", "folds=1", "folds=x", "decide="] {
            let e = Variant::parse(bad, "accuracy").unwrap_err().to_string();
            assert!(e.contains(&format!("variant '{bad}'")), "{e}");
        }
    }

    #[test]
    fn bad_inputs_are_explained() {
        let train = data(50, 0.0, 1);
        let one: Vec<(String, Arc<dyn Learner>)> = vec![("tree".into(), Arc::new(Tree::default()))];
        assert!(reverse_testing(&one, &train, &train, &Variant::paper(), 1).is_err());
        let two: Vec<(String, Arc<dyn Learner>)> = vec![
            ("a".into(), Arc::new(Tree::default())),
            ("b".into(), Arc::new(AlwaysZero)),
        ];
        let bad = Variant {
            measure: Measure::Metric("nope".into()),
            ..Variant::paper()
        };
        let e = reverse_testing(&two, &train, &train, &bad, 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown metric 'nope'"), "{e}");
    }
}
