//! Comparing strategies on one dataset (`rarity run`): every strategy is
//! evaluated on the same repeated stratified folds; folds and strategies run
//! in parallel (each fold's seed depends only on the user seed and the
//! fold's position, so results are identical at any thread count). The
//! strategies are ranked by the chosen metric's mean, and a Friedman test
//! with the Nemenyi critical difference over the folds says which are
//! distinguishable from the best.

use rayon::prelude::*;
use serde::Serialize;

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::evaluate::{evaluate_fold_group, pooled, Evaluation, Extras, FoldResult};
use crate::metrics::catalogue::{Metric, Needs};
use crate::progress::Progress;
use crate::report::format::{metric_text, p_equals_text};
use crate::split::Splitter;
use crate::stats::{critical_difference, friedman, mean_ranks};
use crate::strategy::{core_groups, model_groups, Strategy};

/// The metrics that compare models in `rarity run`'s tables: ranking and
/// probability metrics, which no decision changes (labels from the
/// catalogue, [`crate::metrics::catalogue`]).
pub const MODEL_METRICS: &[&str] = &["roc_auc", "average_precision", "brier", "log_loss"];

/// Whether `m` ranks models: a ranking or probability metric, which no
/// decision changes (a thresholded or cost metric ranks strategies).
///
/// ```
/// use rarity::experiment::compare::ranks_models;
/// use rarity::metrics::catalogue::metric;
/// assert!(ranks_models(metric("brier").unwrap()) && !ranks_models(metric("cost").unwrap()));
/// ```
pub fn ranks_models(m: &Metric) -> bool {
    m.needs() == Needs::Probabilities
}

/// The thresholded metrics that compare the decisions of a model in
/// `rarity run`'s tables (`cost` and `benefit` join them when given).
pub const DECISION_METRICS: &[&str] = &["g_mean", "f1", "macro_accuracy", "macro_f1"];

/// The strategies `rarity run` compares on a binary task (issue 10's list:
/// PT-bagging with both plug-in thresholds; undersampling at several beta
/// with and without the prior correction; EB-, RB- and SMOTE-bagging with and
/// without correction; a balanced forest; a random forest with a tuned
/// threshold; logistic regression with Platt scaling and with a tuned
/// threshold), and issue 20's gradient-boosting presets ([`GBDT_PRESETS`]).
/// `betas` are the undersampling rates to try besides the balanced
/// `under(ratio=1)`.
///
/// ```
/// let s = rarity::experiment::compare::default_strategies(&[0.2]);
/// assert!(s.contains(&"pt-bagging(n=100)+threshold(priors)".to_string()));
/// assert!(s.contains(&"gbdt(class_weight=balanced)+correct+threshold(priors)".to_string()));
/// assert!(s.iter().all(|x| rarity::spec::build_strategy(x).is_ok()));
/// ```
pub fn default_strategies(betas: &[f64]) -> Vec<String> {
    let mut s = vec![
        "pt-bagging(n=100)+threshold(priors)".to_string(),
        "pt-bagging(n=100)+threshold(f1)".to_string(),
    ];
    let unders =
        std::iter::once("ratio=1".to_string()).chain(betas.iter().map(|b| format!("beta={b:.4}")));
    for u in unders {
        s.push(format!("under({u})+forest(n=100)+threshold(0.5)"));
        s.push(format!(
            "under({u})+forest(n=100)+correct+threshold(priors)"
        ));
    }
    for e in ["eb-bagging", "rb-bagging", "smote-bagging"] {
        s.push(format!("{e}(n=100)+threshold(0.5)"));
        s.push(format!(
            "{e}(n=100)+correct(mode=average)+threshold(priors)"
        ));
    }
    s.push("balanced-forest(n=100)+threshold(0.5)".to_string());
    s.push("forest(n=100)+tune(metric=f1)".to_string());
    s.push("logistic+platt+threshold(0.5)".to_string());
    s.push("logistic+tune(metric=f1)".to_string());
    s.extend(GBDT_PRESETS.iter().map(|p| p.to_string()));
    s
}

/// Gradient-boosted trees as a fraud team deploys them, in `rarity run`'s
/// binary defaults (issue 20): plain with a tuned threshold; with class
/// weights (`balanced`: the classes weigh alike, LightGBM's `is_unbalance`)
/// corrected back by eq. 9 of Dal Pozzolo et al. (2015), the weights being
/// keep rates; on a balanced undersample, corrected. The undersample keeps
/// `2 N+` rows, so it grows leaves of 5 rows rather than LightGBM's 20
/// (with a few dozen positives, 20 rows a leaf leave no split: on the
/// shared KEEL sets glass4 and ecoli4 the AP rose from 0.06 to 0.53 and
/// 0.83, `docs/ranking.md`).
pub const GBDT_PRESETS: &[&str] = &[
    "gbdt+tune(metric=f1)",
    "gbdt(class_weight=balanced)+correct+threshold(priors)",
    "under(ratio=1)+gbdt(min_samples_leaf=5)+correct+threshold(priors)",
];

/// The strategies `rarity run` compares on a multiclass task: PT_MA and
/// plain argmax bagging, UnderOver- and EB-bagging, a forest with tuned
/// per-class thresholds; gradient-boosted trees with tuned thresholds and
/// with balanced class weights corrected back (issue 20).
///
/// ```
/// let s = rarity::experiment::compare::default_multiclass_strategies();
/// assert!(s.contains(&"gbdt(class_weight=balanced)+correct".to_string()));
/// assert!(s.iter().all(|x| rarity::spec::build_strategy(x).is_ok()));
/// ```
pub fn default_multiclass_strategies() -> Vec<String> {
    [
        "pt-bagging(n=100)+threshold(priors)",
        "pt-bagging(n=100)+argmax",
        "underover-bagging(n=100,a=50)",
        "eb-bagging(n=100)",
        "forest(n=100)+tune(metric=macro_accuracy)",
        "gbdt+tune(metric=macro_accuracy)",
        "gbdt(class_weight=balanced)+correct",
    ]
    .map(String::from)
    .to_vec()
}

/// Undersampling rates strictly between `N+/N-` and 1 (geometrically
/// spaced); the balanced end is `under(ratio=1)`, which is balanced in every
/// training fold whatever its exact class counts, and `beta = 1` is plain
/// bagging. None when `N+/N-` is above 0.5.
pub fn default_betas(data: &Dataset) -> Vec<f64> {
    let c = data.class_counts();
    let lo = c[1] as f64 / c[0].max(1) as f64;
    if lo >= 0.5 {
        return Vec::new();
    }
    [lo.powf(2.0 / 3.0), lo.powf(1.0 / 3.0)]
        .iter()
        .map(|b| (b * 1e4).ceil() / 1e4)
        .collect()
}

/// The Friedman / Nemenyi verdict over folds, between models (a strategy's
/// decision copies are one model: comparing them as separate methods would
/// inflate the critical difference).
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// The metric compared.
    pub metric: String,
    /// The models compared ([`ModelEntry::spec`]), in evaluation order.
    pub models: Vec<String>,
    /// The strategy standing for each model: its best decision on the metric
    /// (any of them for a ranking or probability metric, which the decision
    /// does not change).
    pub represented_by: Vec<String>,
    /// Mean rank of each model over folds (1 = best).
    pub mean_ranks: Vec<f64>,
    /// Friedman chi-square p-value (`NaN`, `null` in JSON, when no
    /// difference can be tested).
    pub friedman_p: f64,
    /// Iman-Davenport F p-value (`NaN` when no difference can be tested).
    pub iman_davenport_p: f64,
    /// Nemenyi critical difference at alpha = 0.05 (`NaN` with fewer than
    /// two models).
    pub critical_difference: f64,
    /// Models (indices into `models`) whose mean rank is within the
    /// critical difference of the best's (not significantly worse); every
    /// model when no difference can be tested.
    pub tied_with_best: Vec<usize>,
    /// Whether the Friedman test is defined: at least three models, and not
    /// every one with the same value on every fold.
    pub testable: bool,
    /// The verdict in words.
    pub summary: String,
}

/// A model of a comparison: the strategies that share everything but the
/// decision ([`Strategy::model_key`]).
#[derive(Debug, Clone, Serialize)]
pub struct ModelEntry {
    /// The first strategy's spec without its decision stage.
    pub spec: String,
    /// Its strategies (indices into [`Comparison::evaluations`]), one per
    /// decision, in the order given.
    pub strategies: Vec<usize>,
}

/// All strategies' evaluations on shared folds.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// One evaluation per strategy, in the order given.
    pub evaluations: Vec<Evaluation>,
    /// The distinct models, in order of first appearance.
    pub models: Vec<ModelEntry>,
}

/// The mean of the finite values (`NaN` when there are none).
fn finite_mean(values: &[f64]) -> f64 {
    let v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Indices ordered by `means`, best first (`NaN` last, ties by index).
pub fn order_by(means: &[f64], higher_is_better: bool) -> Vec<usize> {
    let key = |i: usize| {
        let m = means[i];
        if m.is_nan() {
            f64::NEG_INFINITY
        } else if higher_is_better {
            m
        } else {
            -m
        }
    };
    let mut order: Vec<usize> = (0..means.len()).collect();
    order.sort_by(|&a, &b| key(b).total_cmp(&key(a)).then(a.cmp(&b)));
    order
}

/// Relative tolerance under which two means of the ranking metric tie:
/// equal to twelve significant digits. Monotone maps of one model's
/// probabilities (Platt scaling, the prior correction) leave every ranking
/// metric equal to the last bit; the tolerance also catches the last-digit
/// noise of sums taken in another order.
pub const TIE_TOLERANCE: f64 = 1e-12;

/// Whether `a` and `b` tie under [`TIE_TOLERANCE`] (two NaN tie).
pub fn tied(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || (a - b).abs() <= TIE_TOLERANCE * a.abs().max(b.abs())
}

/// A metric that breaks ties of the ranking metric: its key and its values
/// per item (strategy or model), and whether higher is better.
#[derive(Debug, Clone)]
pub struct TieBreaker {
    /// The metric's key (`brier`, `log_loss`, a decision metric).
    pub key: &'static str,
    /// Its mean per item.
    pub values: Vec<f64>,
    /// Whether higher is better.
    pub higher: bool,
}

/// A group of items that tied on the ranking metric, and what ordered them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tie {
    /// The tied items (strategy or model indices), in their new order.
    pub items: Vec<usize>,
    /// The ranking metric's mean they share.
    pub value: f64,
    /// The key of the tie-breaker that put the first item first, or
    /// `position` when none told them apart (the first given wins).
    pub by: String,
}

/// `order` (best first by `primary`, see [`order_by`]) with every run of
/// items tied on `primary` ([`tied`]) ordered by `breakers` in turn (each
/// compared with the same tolerance, NaN last), then by position; and the
/// ties that were so broken.
///
/// ```
/// use rarity::experiment::compare::{break_ties, TieBreaker};
/// let brier = TieBreaker { key: "brier", values: vec![0.2, 0.1, 0.3], higher: false };
/// let (order, ties) = break_ties(vec![0, 1, 2], &[0.9, 0.9, 0.5], &[brier]);
/// assert_eq!(order, [1, 0, 2]);
/// assert_eq!((ties[0].items.clone(), ties[0].by.as_str()), (vec![1, 0], "brier"));
/// ```
pub fn break_ties(
    order: Vec<usize>,
    primary: &[f64],
    breakers: &[TieBreaker],
) -> (Vec<usize>, Vec<Tie>) {
    let key = |b: &TieBreaker, i: usize| {
        let v = b.values[i];
        if v.is_nan() {
            f64::NEG_INFINITY
        } else if b.higher {
            v
        } else {
            -v
        }
    };
    let (mut out, mut ties) = (Vec::with_capacity(order.len()), Vec::new());
    let mut start = 0;
    while start < order.len() {
        let first = primary[order[start]];
        let mut end = start + 1;
        while end < order.len() && tied(primary[order[end]], first) {
            end += 1;
        }
        let mut group = order[start..end].to_vec();
        if group.len() > 1 {
            // A stable sort: what no breaker tells apart keeps its place.
            group.sort_by(|&a, &b| {
                for br in breakers {
                    let (ka, kb) = (key(br, a), key(br, b));
                    if !tied(ka, kb) {
                        return kb.total_cmp(&ka);
                    }
                }
                std::cmp::Ordering::Equal
            });
            let (a, b) = (group[0], group[1]);
            let by = breakers
                .iter()
                .find(|br| !tied(key(br, a), key(br, b)))
                .map_or("position", |br| br.key);
            ties.push(Tie {
                items: group.clone(),
                value: first,
                by: by.to_string(),
            });
        }
        out.extend(group);
        start = end;
    }
    (out, ties)
}

impl Comparison {
    /// The comparison on pooled out-of-fold predictions: each evaluation
    /// (whose folds kept their test predictions, [`Extras::oof`]) becomes
    /// one result per repeat, every metric computed once on the repeat's
    /// pooled predictions ([`crate::evaluate::cross_validate_pooled`]), with
    /// the extras' cost and benefit. The per-fold results stay behind
    /// ([`Evaluation::pooled_folds`]) when `extras` keeps predictions or
    /// out-of-fold rows.
    pub fn pooled(self, data: &Dataset, extras: &Extras) -> Result<Comparison> {
        let amounts = extras
            .benefit
            .as_ref()
            .map(|b| b.amounts(data))
            .transpose()?;
        let keep = Extras {
            oof: extras.oof || extras.keep_predictions,
            ..extras.clone()
        };
        let evaluations = self
            .evaluations
            .into_iter()
            .map(|e| {
                pooled(
                    &e.spec,
                    e.folds,
                    data.n_classes(),
                    amounts.as_deref(),
                    &keep,
                )
            })
            .collect::<Result<_>>()?;
        Ok(Comparison {
            evaluations,
            models: self.models,
        })
    }

    /// The mean over folds of `metric` for each strategy.
    pub fn means(&self, metric: &str) -> Vec<f64> {
        self.evaluations
            .iter()
            .map(|e| finite_mean(&e.values(metric)))
            .collect()
    }

    /// Strategy indices ordered by the metric's mean, best first.
    pub fn ranked(&self, metric: &str, higher_is_better: bool) -> Vec<usize> {
        order_by(&self.means(metric), higher_is_better)
    }

    /// The strategy standing for each model on `metric`: its best by mean
    /// (the first given on ties).
    pub fn representatives(&self, metric: &str, higher_is_better: bool) -> Vec<usize> {
        let means = self.means(metric);
        self.models
            .iter()
            .map(|m| {
                let sub: Vec<f64> = m.strategies.iter().map(|&i| means[i]).collect();
                m.strategies[order_by(&sub, higher_is_better)[0]]
            })
            .collect()
    }

    /// Model indices ordered by their representative's mean, best first.
    pub fn ranked_models(&self, metric: &str, higher_is_better: bool) -> Vec<usize> {
        let means = self.means(metric);
        let rep: Vec<f64> = self
            .representatives(metric, higher_is_better)
            .iter()
            .map(|&i| means[i])
            .collect();
        order_by(&rep, higher_is_better)
    }

    /// The values of `metric` of the strategies `reps` on each of the `n`
    /// folds, one row per fold, signed so that higher is better; an
    /// undefined value is one below the fold's worst (it ranks last).
    fn fold_table(
        &self,
        reps: &[usize],
        n: usize,
        metric: &str,
        higher_is_better: bool,
    ) -> Vec<Vec<f64>> {
        (0..n)
            .map(|f| {
                let row: Vec<f64> = reps
                    .iter()
                    .map(|&i| {
                        let e = &self.evaluations[i];
                        let v = e.folds[f]
                            .metrics
                            .iter()
                            .find(|(m, _)| m == metric)
                            .map_or(f64::NAN, |(_, v)| *v);
                        if higher_is_better {
                            v
                        } else {
                            -v
                        }
                    })
                    .collect();
                // An undefined value ranks last in its fold.
                let worst = row
                    .iter()
                    .copied()
                    .filter(|v| v.is_finite())
                    .fold(f64::INFINITY, f64::min);
                let floor = if worst.is_finite() { worst - 1.0 } else { 0.0 };
                row.iter()
                    .map(|v| if v.is_finite() { *v } else { floor })
                    .collect()
            })
            .collect()
    }

    /// Friedman and Nemenyi over folds between the models, each standing
    /// as its best decision on `metric`. With fewer than three models, or
    /// when every model has the same value on every fold, the test is
    /// undefined: the verdict says that no difference can be tested and
    /// counts every model as tied with the best.
    pub fn verdict(&self, metric: &str, higher_is_better: bool) -> Result<Verdict> {
        let reps = self.representatives(metric, higher_is_better);
        let k = reps.len();
        let n = self.evaluations.first().map_or(0, |e| e.folds.len());
        let table = self.fold_table(&reps, n, metric, higher_is_better);
        let ranks = mean_ranks(&table, true)?;
        let unit = if self.evaluations.first().is_some_and(|e| e.pooled) {
            "pooled repeats"
        } else {
            "folds"
        };
        let fr = if k >= 3 && n >= 2 {
            friedman(&table).ok()
        } else {
            None
        };
        let cd = if k >= 2 {
            critical_difference(k, n, 0.05)?
        } else {
            f64::NAN
        };
        let best = ranks.iter().copied().fold(f64::INFINITY, f64::min);
        let (testable, tied, summary) = match fr {
            Some(fr) => {
                let tied: Vec<usize> = (0..k).filter(|&i| ranks[i] - best <= cd).collect();
                // Every fold ranking the models alike makes Iman and
                // Davenport's denominator N (k - 1) - chi2 zero: F is
                // infinite whatever N, which is no evidence with few folds.
                let iman = if fr.f.is_finite() {
                    format!("Iman-Davenport {}", p_equals_text(fr.f_p_value))
                } else {
                    format!(
                        "Iman-Davenport undefined: every {} ranks the models alike, so its F \
                         is infinite; read the Friedman p",
                        unit.trim_end_matches('s')
                    )
                };
                let summary = format!(
                    "Friedman test on {metric} over {n} {unit} between {k} models: {} \
                     ({iman}); Nemenyi critical difference {} ranks at alpha 0.05; \
                     {} of {k} models not significantly worse than the best",
                    p_equals_text(fr.chi2_p_value),
                    metric_text(cd),
                    tied.len()
                );
                (Some(fr), tied, summary)
            }
            None => {
                let why = if k < 3 {
                    let models = if k == 1 { "one model" } else { "two models" };
                    format!("{models}; the Friedman test needs at least three")
                } else if n < 2 {
                    format!(
                        "one value of {metric} per model (one pooled repeat); \
                         the Friedman test needs at least two folds or repeats"
                    )
                } else {
                    format!("every model has the same {metric} on every fold")
                };
                (
                    None,
                    (0..k).collect(),
                    format!("no difference can be tested: {why}"),
                )
            }
        };
        Ok(Verdict {
            metric: metric.to_string(),
            models: self.models.iter().map(|m| m.spec.clone()).collect(),
            represented_by: reps
                .iter()
                .map(|&i| self.evaluations[i].spec.clone())
                .collect(),
            mean_ranks: ranks,
            friedman_p: testable.map_or(f64::NAN, |f| f.chi2_p_value),
            iman_davenport_p: testable
                .filter(|f| f.f.is_finite())
                .map_or(f64::NAN, |f| f.f_p_value),
            critical_difference: cd,
            tied_with_best: tied,
            testable: testable.is_some(),
            summary,
        })
    }
}

/// Evaluates every strategy on the same folds of `splitter`, with the
/// opt-in [`Extras`] (cost, benefit, kept predictions). Strategies that
/// share a sampler and learner share its fits on each fold, and the
/// strategies of one model (differing only in the decision) are one fit
/// deciding in several ways ([`evaluate_fold_group`]); the (model, fold)
/// evaluations done are counted in [`crate::progress`] (labelled with the
/// spec of the model just evaluated). Results do not depend on the thread count, on
/// the order in which evaluations finish, nor on the strategies' order.
///
/// ```
/// use rarity::data::{bundled, read::ReadOptions};
/// use rarity::evaluate::Extras;
/// use rarity::experiment::compare::compare;
/// use rarity::split::Splitter;
/// let (ds, _) = bundled::find("glass6").unwrap().load(&ReadOptions::default()).unwrap();
/// let s: Vec<_> = ["tree", "forest(n=5)+threshold(priors)", "forest(n=5)+threshold(f1)"]
///     .iter().map(|s| rarity::spec::build_strategy(s).unwrap()).collect();
/// let extras = Extras { keep_predictions: true, ..Extras::default() };
/// let c = compare(&s, &ds, &Splitter::k_fold(3), 1, &extras).unwrap();
/// assert_eq!(c.evaluations[1].pooled_predictions().unwrap().rows.len(), ds.n_rows());
/// assert_eq!(c.models.len(), 2);
/// assert_eq!(c.models[1].spec, "forest(n=5)");
/// ```
pub fn compare(
    strategies: &[Strategy],
    data: &Dataset,
    splitter: &Splitter,
    seed: u64,
    extras: &Extras,
) -> Result<Comparison> {
    if strategies.is_empty() {
        return Err(Error::invalid("no strategies to compare"));
    }
    data.require_two_classes()?;
    extras.check(data)?;
    // Missing values a strategy cannot take, and constraints on columns the
    // table lacks, stop the run before any fold.
    for s in strategies {
        s.check_missing(data)?;
        s.check_monotone(data)?;
    }
    let prepared = splitter.prepare(data, seed)?;
    let folds = &prepared.folds;
    let refs: Vec<&Strategy> = strategies.iter().collect();
    let models: Vec<ModelEntry> = model_groups(&refs)
        .into_iter()
        .map(|m| ModelEntry {
            spec: strategies[m[0]].stem.clone(),
            strategies: m,
        })
        .collect();
    let groups = core_groups(&refs);
    let progress = Progress::start(
        "(model x fold) evaluations",
        (models.len() * folds.len()) as u64,
    );
    let cells: Vec<(usize, usize)> = (0..groups.len())
        .flat_map(|g| (0..folds.len()).map(move |f| (g, f)))
        .collect();
    let results: Vec<Vec<FoldResult>> = cells
        .par_iter()
        .map(|&(g, f)| {
            let group: Vec<&Strategy> = groups[g].iter().map(|&i| &strategies[i]).collect();
            evaluate_fold_group(&group, &prepared, &folds[f], seed, extras, &|spec| {
                progress.add(1);
                progress.set_label(spec);
            })
        })
        .collect::<Result<_>>()?;
    let mut per_strategy: Vec<Vec<FoldResult>> =
        vec![Vec::with_capacity(folds.len()); strategies.len()];
    for (&(g, _), rs) in cells.iter().zip(results) {
        for (&i, r) in groups[g].iter().zip(rs) {
            per_strategy[i].push(r);
        }
    }
    let evaluations = strategies
        .iter()
        .zip(per_strategy)
        .map(|(s, folds)| Evaluation {
            spec: s.spec.clone(),
            folds,
            pooled: false,
            pooled_folds: Vec::new(),
        })
        .collect();
    Ok(Comparison {
        evaluations,
        models,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A comparison of `values[m][f]`: model `m`'s metric on fold `f`.
    fn comparison(values: &[Vec<f64>]) -> Comparison {
        let fold = |f: usize, v: f64| FoldResult {
            repeat: 0,
            fold: f,
            metrics: vec![("average_precision".to_string(), v)],
            full_potential: Vec::new(),
            fit_seconds: 0.0,
            predict_seconds: 0.0,
            predictions: None,
        };
        Comparison {
            evaluations: values
                .iter()
                .enumerate()
                .map(|(m, vs)| Evaluation {
                    spec: format!("m{m}"),
                    folds: vs.iter().enumerate().map(|(f, &v)| fold(f, v)).collect(),
                    pooled: false,
                    pooled_folds: Vec::new(),
                })
                .collect(),
            models: (0..values.len())
                .map(|m| ModelEntry {
                    spec: format!("m{m}"),
                    strategies: vec![m],
                })
                .collect(),
        }
    }

    #[test]
    fn folds_that_rank_alike_leave_iman_davenport_undefined() {
        // Every fold ranks m0 > m1 > m2: F's denominator is zero.
        let v = comparison(&[vec![0.9, 0.8], vec![0.7, 0.6], vec![0.5, 0.4]]);
        let verdict = v.verdict("average_precision", true).unwrap();
        assert!(verdict.iman_davenport_p.is_nan(), "{verdict:?}");
        assert!(
            verdict.summary.contains("Iman-Davenport undefined"),
            "{}",
            verdict.summary
        );
        // With disagreement it is a p-value again.
        let v = comparison(&[
            vec![0.9, 0.6, 0.8],
            vec![0.7, 0.8, 0.6],
            vec![0.5, 0.4, 0.7],
        ]);
        let verdict = v.verdict("average_precision", true).unwrap();
        assert!(verdict.iman_davenport_p.is_finite(), "{verdict:?}");
    }

    #[test]
    fn ties_are_broken_in_turn_and_recorded() {
        let brier = TieBreaker {
            key: "brier",
            values: vec![0.2, 0.2, 0.1, 0.3],
            higher: false,
        };
        let log_loss = TieBreaker {
            key: "log_loss",
            values: vec![0.5, 0.4, 0.9, 0.1],
            higher: false,
        };
        // 0, 1 and 2 tie on the primary metric (to 12 digits); 3 is last.
        let primary = [0.8, 0.8 * (1.0 + 1e-14), 0.8, 0.7];
        let (order, ties) = break_ties(vec![0, 1, 2, 3], &primary, &[brier, log_loss]);
        assert_eq!(order, [2, 1, 0, 3]);
        assert_eq!(ties.len(), 1);
        assert_eq!(ties[0].by, "brier");
        // Nothing tells them apart: the order given, said.
        let (order, ties) = break_ties(vec![1, 0], &[0.5, 0.5], &[]);
        assert_eq!((order, ties[0].by.as_str()), (vec![1, 0], "position"));
    }
}
