//! `rarity run`, the main job, as a library call: compare strategies on one
//! dataset with repeated cross-validation on shared folds, rank them by a
//! metric of the catalogue, test the differences (Friedman / Nemenyi over
//! the folds, Demšar 2006), and fit the winner on all rows.
//!
//! Two levels. A *model* is everything but the decision (sampler, learner,
//! correction, calibration; [`Strategy::model_key`]): strategies that differ
//! only in their decision are one model, fitted once per fold, deciding in
//! several ways. Models are compared on ranking and probability metrics
//! (AUC, AP, Brier, log loss), which no decision changes; the *decisions of
//! one model* are compared on a thresholded metric (cost, F1, G-mean, ...).
//! The ranking metric says which level ranks: a ranking or probability
//! metric ranks models (each model's decisions then ranked by the decision
//! metric), a thresholded or cost metric ranks (model, decision) pairs. The
//! Friedman / Nemenyi verdict is always between models (a model standing as
//! its best decision on a thresholded metric), so decision copies do not
//! inflate the critical difference; when it is undefined (fewer than three
//! models, or all tied) the verdict says that no difference can be tested
//! and the run goes on.
//!
//! Decision copies: with a loss matrix (`--cost`) or an example-dependent
//! benefit (`--benefit`), every model whose probabilities are calibrated
//! ([`Strategy::calibrated`]: `platt`, `isotonic`, `correct`, or a learner
//! with calibrated output) or that decides by the training priors
//! (`threshold(priors)`, the plug-in of PT-bagging) is also evaluated
//! deciding by the Bayes minimum-risk rule under that loss (Dal Pozzolo et
//! al. 2015, Sec. IV-A) or by the benefit rule (Fan & Davidson 2006,
//! Sec. 6).

use std::path::Path;

use serde::Serialize;

use crate::data::Dataset;
use crate::decide::registry::{build_stage, loss_matrix, Stage};
use crate::decide::{Decision, Rule};
use crate::error::{Error, Result};
use crate::evaluate::Extras;
use crate::experiment::compare::{
    break_ties, compare, default_betas, default_multiclass_strategies, default_strategies,
    order_by, ranks_models, Comparison, Tie, TieBreaker, Verdict,
};
use crate::metrics::catalogue::{metric, Metric};
use crate::metrics::cost::{Benefit, LossMatrix};
use crate::params::syntax::parse_args;
use crate::sample::SmoteNeighbours;
use crate::spec::build_strategy;
use crate::split::Splitter;
use crate::stats::wilcoxon;
use crate::strategy::{model_groups, FittedStrategy, Strategy};

/// What `rarity run` compares and how.
#[derive(Debug, Clone)]
pub struct RunSettings {
    /// The strategies; empty: the default set for the task
    /// ([`default_strategies`], [`default_multiclass_strategies`]), each that
    /// cannot take missing values given `impute(median)` first when the
    /// data has some.
    pub strategies: Vec<Strategy>,
    /// Decisions that join the comparison as copies of every model with
    /// calibrated probabilities or deciding by `threshold(priors)`, each
    /// with the stage text its copies are labelled with (`cost(fn=5,fp=1)`).
    pub decision_copies: Vec<(Decision, String)>,
    /// Cost, benefit and kept predictions of the evaluation.
    pub extras: Extras,
    /// The metric that ranks (models or strategies, see the module doc).
    pub metric: &'static Metric,
    /// The thresholded metric that compares the decisions of one model when
    /// `metric` ranks models; `None`: `cost` with a loss matrix, else
    /// `benefit` with a benefit, else `g_mean` ([`decision_metric`]).
    pub decision_metric: Option<&'static Metric>,
    /// The cross-validation.
    pub splitter: Splitter,
    /// Rank on the metrics of each repeat's pooled out-of-fold predictions
    /// instead of the mean over folds ([`Comparison::pooled`]); always on
    /// with leave-one-out, whose one-row test folds have no AUC and rates of
    /// 0 or 1.
    pub pooled: bool,
    /// The seed of folds and fits.
    pub seed: u64,
}

/// What the ranking metric ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Models (a ranking or probability metric).
    Models,
    /// (Model, decision) pairs, i.e. strategies (a thresholded metric).
    Strategies,
}

/// The decisions of one model compared on the decision metric.
#[derive(Debug, Clone, Serialize)]
pub struct Decisions {
    /// The model (index into [`Comparison::models`]).
    pub model: usize,
    /// Its strategies (indices into [`Comparison::evaluations`]), best
    /// first on the decision metric.
    pub strategies: Vec<usize>,
    /// For each, the two-sided Wilcoxon signed-rank p-value over folds
    /// against the model's best decision (`NaN` for the best itself, or when
    /// the two never differ).
    pub p_vs_best: Vec<f64>,
}

/// What `rarity run` found.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// The strategies compared, decision copies included, in evaluation
    /// order.
    pub strategies: Vec<Strategy>,
    /// Every strategy's evaluation on the shared folds, and the models.
    pub comparison: Comparison,
    /// The ranking metric.
    pub metric: &'static Metric,
    /// What the ranking metric ranks.
    pub level: Level,
    /// The metric that compares the decisions of one model.
    pub decision_metric: &'static Metric,
    /// Model indices, best first (a model by its best decision on a
    /// thresholded metric).
    pub model_order: Vec<usize>,
    /// Strategy indices, best first: by the metric (strategy level), or by
    /// their model's rank and then by the decision metric (model level).
    pub order: Vec<usize>,
    /// The decisions of each model, in model order.
    pub decisions: Vec<Decisions>,
    /// The ties on the ranking metric and what broke them: models (model
    /// level) or strategies (strategy level).
    pub ties: Vec<Tie>,
    /// The Friedman / Nemenyi verdict between models.
    pub verdict: Verdict,
    /// The best strategy fitted on all rows.
    pub winner: FittedStrategy,
    /// The cost, benefit and kept predictions of the evaluation.
    pub extras: Extras,
    /// Whether the metrics are those of each repeat's pooled out-of-fold
    /// predictions (one value per repeat) rather than per fold.
    pub pooled: bool,
    /// The seed of folds and fits.
    pub seed: u64,
}

impl RunOutcome {
    /// The winning strategy.
    pub fn winner_strategy(&self) -> &Strategy {
        &self.strategies[self.order[0]]
    }
}

/// The metric `key` names for ranking, given which of a loss matrix and a
/// benefit the run has: `cost` ranks by the benefit when only a benefit is
/// given; `cost` and `benefit` need theirs; a metric with no direction
/// cannot rank.
///
/// ```
/// use rarity::experiment::run::ranking_metric;
/// assert_eq!(ranking_metric("average-precision", false, false).unwrap().key, "average_precision");
/// assert_eq!(ranking_metric("cost", false, true).unwrap().key, "benefit");
/// assert!(ranking_metric("cost", false, false).is_err());
/// ```
pub fn ranking_metric(key: &str, cost: bool, benefit: bool) -> Result<&'static Metric> {
    let key = key.replace('-', "_");
    let m = match key.as_str() {
        "cost" if cost => metric("cost")?,
        "cost" if benefit => metric("benefit")?,
        "cost" => {
            return Err(Error::invalid(
                "--metric cost needs the costs: give --cost fn=..,fp=.. \
                 (or --benefit amount=COL,overhead=V)",
            ))
        }
        "benefit" if !benefit => {
            return Err(Error::invalid(
                "--metric benefit needs --benefit amount=COL,overhead=V",
            ))
        }
        k => metric(k)?,
    };
    m.oriented(0.0)?;
    Ok(m)
}

/// The thresholded metric comparing the decisions of one model: the
/// ranking metric itself when it is thresholded (then `given` must be
/// `None` or the same), else `given`, else `cost` with a loss matrix,
/// `benefit` with a benefit, `g_mean` otherwise.
///
/// ```
/// use rarity::experiment::run::decision_metric;
/// use rarity::metrics::catalogue::metric;
/// let auc = metric("roc_auc").unwrap();
/// assert_eq!(decision_metric(auc, None, true, false).unwrap().key, "cost");
/// assert_eq!(decision_metric(auc, None, false, false).unwrap().key, "g_mean");
/// assert_eq!(decision_metric(metric("f1").unwrap(), None, true, false).unwrap().key, "f1");
/// assert!(decision_metric(auc, Some(metric("brier").unwrap()), false, false).is_err());
/// ```
pub fn decision_metric(
    ranking: &'static Metric,
    given: Option<&'static Metric>,
    cost: bool,
    benefit: bool,
) -> Result<&'static Metric> {
    if !ranks_models(ranking) {
        return match given {
            Some(g) if g.key != ranking.key => Err(Error::invalid(format!(
                "--metric {} already ranks the decisions; --decision-metric applies when \
                 --metric is a ranking or probability metric (roc_auc, average_precision, \
                 brier, log_loss)",
                ranking.key
            ))),
            _ => Ok(ranking),
        };
    }
    let m = match given {
        Some(g) => g,
        None if cost => metric("cost")?,
        None if benefit => metric("benefit")?,
        None => metric("g_mean")?,
    };
    if ranks_models(m) {
        return Err(Error::invalid(format!(
            "--decision-metric {}: decisions change only thresholded metrics; use one of \
             the labels' metrics (g_mean, f1, macro_accuracy, macro_f1, accuracy, ...) or cost / benefit",
            m.key
        )));
    }
    m.oriented(0.0)?;
    Ok(m)
}

/// The loss matrix of a cost option written as the arguments of
/// `cost(...)`: `fn=5,fp=1[,tp=0,tn=0]` or `matrix='0,1;5,0'`.
///
/// ```
/// let m = rarity::experiment::run::parse_cost("fn=5,fp=1").unwrap();
/// assert_eq!(m.n_classes(), 2);
/// ```
pub fn parse_cost(text: &str) -> Result<LossMatrix> {
    loss_matrix(&parse_args("cost", text)?)
}

/// The benefit of a benefit option written as the arguments of
/// `benefit(...)`: `amount=COLUMN,overhead=V`.
///
/// ```
/// let b = rarity::experiment::run::parse_benefit("amount=x4,overhead=50").unwrap();
/// assert_eq!((b.amount.as_str(), b.overhead), ("x4", 50.0));
/// ```
pub fn parse_benefit(text: &str) -> Result<Benefit> {
    match build_stage(&parse_args("benefit", text)?)? {
        Stage::Decide(Decision::Rule(Rule::Benefit(b))) => Ok(b),
        _ => Err(Error::invalid("expected amount=COLUMN,overhead=NUMBER")),
    }
}

/// The decision copies of a run with a cost option (its text, as given,
/// and the loss matrix it describes) and a benefit: `cost(TEXT)` and
/// `benefit(amount='COL',overhead=V)`, the labels their copies carry.
pub fn decision_copies(
    cost: Option<(&str, &LossMatrix)>,
    benefit: Option<&Benefit>,
) -> Vec<(Decision, String)> {
    let mut copies = Vec::new();
    if let Some((text, m)) = cost {
        let d = Decision::Rule(Rule::Cost(m.clone()));
        copies.push((d, format!("cost({})", text.trim())));
    }
    if let Some(b) = benefit {
        let d = Decision::Rule(Rule::Benefit(b.clone()));
        let label = d.to_string();
        copies.push((d, label));
    }
    copies
}

/// The classes of a dataset as reports show them: `classes ["neg", "pos"]
/// (500/268)`.
pub fn classes_text(data: &Dataset) -> String {
    format!(
        "classes {:?} ({})",
        data.class_names(),
        data.class_counts()
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("/")
    )
}

/// The notes of a run's HTML report: the data (`source`), the protocol
/// (`cv` as written, e.g. `2x5`), the cost (its text) and benefit, and the
/// winner (with the file it was saved to, if it was).
pub fn report_notes(
    outcome: &RunOutcome,
    data: &Dataset,
    source: &str,
    cv: &str,
    cost: Option<&str>,
    saved_to: Option<&Path>,
) -> Vec<String> {
    let (seed, metric) = (outcome.seed, outcome.metric.key);
    let mut notes = vec![
        format!(
            "Data: {source}, {} rows, {} features, {}.",
            data.n_rows(),
            data.n_features(),
            classes_text(data)
        ),
        format!(
            "Protocol: {} {cv} ({}) on shared folds, seed {seed}; {}, each fitted once per fold.",
            if outcome.pooled {
                "cross-validation"
            } else {
                "repeated stratified cross-validation"
            },
            folds_text(outcome),
            counts_text(outcome)
        ),
    ];
    if let Some(c) = cost {
        notes.push(format!(
            "cost: mean loss per test row of each strategy's decisions under {c} (lower is better)."
        ));
    }
    if let Some(b) = &outcome.extras.benefit {
        notes.push(format!(
            "benefit: total over each test fold; a caught positive earns {} - {}, a false alarm costs {} (higher is better).",
            b.amount, b.overhead, b.overhead
        ));
    }
    notes.extend(
        decision_notes(outcome, data)
            .into_iter()
            .map(|n| format!("Note: {n}.")),
    );
    let winner = &outcome.winner_strategy().spec;
    notes.push(match saved_to {
        Some(p) => format!(
            "Winner for {metric}: {winner} (saved, trained on all rows, to {}).",
            p.display()
        ),
        None => format!("Winner for {metric}: {winner} (trained on all rows)."),
    });
    notes
}

/// The folds of a run and how its metrics summarise them: `10 folds`
/// (averaged over folds), or `214 folds; metrics of each repeat's pooled
/// out-of-fold predictions` when pooled.
pub fn folds_text(outcome: &RunOutcome) -> String {
    let e = &outcome.comparison.evaluations[0];
    if outcome.pooled {
        let folds: usize = e.folds.iter().map(|f| f.fold).sum();
        format!("{folds} folds; metrics of each repeat's pooled out-of-fold predictions")
    } else {
        format!("{} folds", e.folds.len())
    }
}

/// The notes on the decisions of a run's strategies
/// ([`Strategy::default_decision_note`]): those deciding by default on
/// corrected or calibrated probabilities of a rare class.
pub fn decision_notes(outcome: &RunOutcome, data: &Dataset) -> Vec<String> {
    let counts = data.class_counts();
    outcome
        .order
        .iter()
        .filter_map(|&i| outcome.strategies[i].default_decision_note(&counts))
        .collect()
}

/// How many strategies and distinct models a run compared: `7 strategies, 5
/// distinct models (a model is everything but the decision)`.
pub fn counts_text(outcome: &RunOutcome) -> String {
    let models = outcome.comparison.models.len();
    format!(
        "{} strategies, {models} distinct model{} (a model is everything but the decision)",
        outcome.strategies.len(),
        if models == 1 { "" } else { "s" }
    )
}

/// The strategies compared: the given ones (or the task's defaults), then
/// a copy of each model deciding by each of `copies` when its probabilities
/// are calibrated ([`Strategy::calibrated`]) or one of its strategies
/// decides by `threshold(priors)`; a model that already decides that way
/// gets no copy.
///
/// ```
/// use rarity::decide::{Decision, Rule};
/// use rarity::experiment::run::with_decision_copies;
/// use rarity::metrics::cost::LossMatrix;
/// let s: Vec<_> = ["logistic+platt", "tree", "forest(n=5)+threshold(priors)", "forest(n=5)+threshold(f1)"]
///     .iter().map(|s| rarity::spec::build_strategy(s).unwrap()).collect();
/// let cost = Decision::Rule(Rule::Cost(LossMatrix::binary(0.0, 1.0, 5.0, 0.0).unwrap()));
/// let all = with_decision_copies(s, &[(cost, "cost(fn=5,fp=1)".into())]);
/// let specs: Vec<_> = all.iter().map(|s| s.spec.as_str()).collect();
/// assert_eq!(&specs[4..], ["logistic+platt+cost(fn=5,fp=1)", "forest(n=5)+cost(fn=5,fp=1)"]);
/// ```
pub fn with_decision_copies(
    strategies: Vec<Strategy>,
    copies: &[(Decision, String)],
) -> Vec<Strategy> {
    let mut out = strategies.clone();
    let refs: Vec<&Strategy> = strategies.iter().collect();
    for model in model_groups(&refs) {
        let members: Vec<&Strategy> = model.iter().map(|&i| &strategies[i]).collect();
        let first = members[0];
        let eligible = first.calibrated() || members.iter().any(|s| s.decision == Decision::Priors);
        if !eligible {
            continue;
        }
        for (d, text) in copies {
            if members.iter().any(|s| s.decision == *d) {
                continue;
            }
            let copy = first.with_decision(d.clone(), text);
            if !out.iter().any(|o| o.spec == copy.spec) {
                out.push(copy);
            }
        }
    }
    out
}

/// The strategies with a `threshold(priors)` copy of every model whose
/// probabilities are calibrated ([`Strategy::calibrated`]: Platt,
/// isotonic, the prior correction, a calibrated learner) and whose every
/// decision is the default 0.5 (or argmax): on a rare class such
/// probabilities seldom reach 0.5, and the priors are the threshold that
/// fits them (PT_MA), as the corrected defaults decide.
///
/// ```
/// use rarity::experiment::run::with_prior_copies;
/// let s: Vec<_> = ["logistic+platt+threshold(0.5)", "tree", "gnb+platt+threshold(f1)"]
///     .iter().map(|s| rarity::spec::build_strategy(s).unwrap()).collect();
/// let all = with_prior_copies(s);
/// let specs: Vec<_> = all.iter().map(|s| s.spec.as_str()).collect();
/// assert_eq!(specs[3..], ["logistic+platt+threshold(priors)"]);
/// ```
pub fn with_prior_copies(strategies: Vec<Strategy>) -> Vec<Strategy> {
    let half = |d: &Decision| {
        matches!(
            d,
            Decision::Half | Decision::Rule(Rule::Argmax) | Decision::Rule(Rule::Threshold(0.5))
        )
    };
    let mut out = strategies.clone();
    let refs: Vec<&Strategy> = strategies.iter().collect();
    for model in model_groups(&refs) {
        let members: Vec<&Strategy> = model.iter().map(|&i| &strategies[i]).collect();
        let first = members[0];
        if !first.calibrated() || !members.iter().all(|s| half(&s.decision)) {
            continue;
        }
        let copy = first.with_decision(Decision::Priors, "threshold(priors)");
        if !out.iter().any(|o| o.spec == copy.spec) {
            out.push(copy);
        }
    }
    out
}

/// The decisions of every model on `metric`, in `model_order`, each ranked
/// with its Wilcoxon p-value against the model's best.
fn compare_decisions(cmp: &Comparison, metric: &Metric, model_order: &[usize]) -> Vec<Decisions> {
    let higher = metric.higher_is_better();
    let means = cmp.means(metric.key);
    model_order
        .iter()
        .map(|&m| {
            let mine = &cmp.models[m].strategies;
            let sub: Vec<f64> = mine.iter().map(|&i| means[i]).collect();
            let ranked: Vec<usize> = order_by(&sub, higher)
                .into_iter()
                .map(|j| mine[j])
                .collect();
            let best = cmp.evaluations[ranked[0]].values(metric.key);
            let p_vs_best = ranked
                .iter()
                .enumerate()
                .map(|(pos, &i)| {
                    if pos == 0 {
                        return f64::NAN;
                    }
                    let other = cmp.evaluations[i].values(metric.key);
                    wilcoxon(&best, &other).map_or(f64::NAN, |w| w.p_value)
                })
                .collect();
            Decisions {
                model: m,
                strategies: ranked,
                p_vs_best,
            }
        })
        .collect()
}

/// The models and strategies best first, with the ties on the ranking
/// metric broken (issue 58): by the Brier score, then the log loss (the
/// probabilities' quality: a monotone map such as Platt scaling ties every
/// ranking metric but not these), then, for models, by their best
/// decision's value of the decision metric; what still ties keeps the
/// order given. Returns the model order, each model's decisions in that
/// order, the strategy order and the ties broken (models at the model
/// level, strategies at the strategy level).
fn rank_breaking_ties(
    cmp: &Comparison,
    metric: &Metric,
    decision_metric: &Metric,
    level: Level,
) -> (Vec<usize>, Vec<Decisions>, Vec<usize>, Vec<Tie>) {
    let (key, higher) = (metric.key, metric.higher_is_better());
    let means = cmp.means(key);
    let reps = cmp.representatives(key, higher);
    let per_model = |v: &[f64]| -> Vec<f64> { reps.iter().map(|&i| v[i]).collect() };
    let probability = |values: &dyn Fn(&[f64]) -> Vec<f64>| -> Vec<TieBreaker> {
        [("brier", false), ("log_loss", false)]
            .into_iter()
            .filter(|(k, _)| *k != key)
            .map(|(k, higher)| TieBreaker {
                key: k,
                values: values(&cmp.means(k)),
                higher,
            })
            .collect()
    };
    let primary = per_model(&means);
    let first = order_by(&primary, higher);
    let mut decisions = compare_decisions(cmp, decision_metric, &first);
    let dm = cmp.means(decision_metric.key);
    let mut best_decision = vec![f64::NAN; cmp.models.len()];
    for d in &decisions {
        best_decision[d.model] = dm[d.strategies[0]];
    }
    let mut breakers = probability(&per_model);
    if decision_metric.key != key {
        breakers.push(TieBreaker {
            key: decision_metric.key,
            values: best_decision,
            higher: decision_metric.higher_is_better(),
        });
    }
    let (model_order, model_ties) = break_ties(first, &primary, &breakers);
    let rank: Vec<usize> = {
        let mut r = vec![0; model_order.len()];
        for (pos, &m) in model_order.iter().enumerate() {
            r[m] = pos;
        }
        r
    };
    decisions.sort_by_key(|d| rank[d.model]);
    match level {
        Level::Models => {
            let order = decisions
                .iter()
                .flat_map(|d| d.strategies.iter().copied())
                .collect();
            (model_order, decisions, order, model_ties)
        }
        Level::Strategies => {
            let same = |v: &[f64]| v.to_vec();
            let (order, ties) = break_ties(cmp.ranked(key, higher), &means, &probability(&same));
            (model_order, decisions, order, ties)
        }
    }
}

/// Whether SMOTE-bagging's default `k` fits every training fold: SMOTE
/// needs more than `k` rows of the class it enlarges (the fold's smallest),
/// so on fewer the default strategy is left out of the defaults rather than
/// failing the run. A split that fails here fails in the comparison, which
/// says why.
fn smote_fits_every_fold(data: &Dataset, splitter: &Splitter, seed: u64) -> bool {
    let k = SmoteNeighbours::default().k;
    let Ok(folds) = splitter.split_dataset(data, seed) else {
        return true;
    };
    folds.iter().all(|f| {
        let mut counts = vec![0usize; data.n_classes()];
        for &i in &f.train {
            counts[data.label(i)] += 1;
        }
        counts.iter().filter(|&&n| n > 0).all(|&n| n > k)
    })
}

/// The task's default strategies ([`default_strategies`] with SMOTE-bagging
/// only when it fits every fold, [`default_multiclass_strategies`]); on a
/// table with missing values, a default that cannot take them imputes them
/// first, in plain sight: its spec says so.
fn task_defaults(data: &Dataset, splitter: &Splitter, seed: u64) -> Result<Vec<Strategy>> {
    let specs = if data.n_classes() == 2 {
        let mut specs = default_strategies(&default_betas(data));
        if !smote_fits_every_fold(data, splitter, seed) {
            specs.retain(|s| !s.starts_with("smote-bagging"));
        }
        specs
    } else {
        default_multiclass_strategies()
    };
    let holes = data.first_missing().is_some();
    specs
        .iter()
        .map(|s| {
            let built = build_strategy(s)?;
            if holes && !built.takes_missing() {
                build_strategy(&format!("impute(median)+{s}"))
            } else {
                Ok(built)
            }
        })
        .collect()
}

/// Runs the comparison on `data` (its (model, fold) evaluations counted in
/// [`crate::progress`]).
pub fn run(data: &Dataset, settings: RunSettings) -> Result<RunOutcome> {
    data.require_two_classes()?;
    settings.extras.check(data)?;
    let decision_metric = decision_metric(
        settings.metric,
        settings.decision_metric,
        settings.extras.cost.is_some(),
        settings.extras.benefit.is_some(),
    )?;
    let given = if settings.strategies.is_empty() {
        task_defaults(data, &settings.splitter, settings.seed)?
    } else {
        settings.strategies
    };
    let strategies = with_decision_copies(with_prior_copies(given), &settings.decision_copies);
    // A parameterised ranking or decision metric is computed besides every
    // report's metrics.
    let mut extras = settings.extras.clone();
    for m in [settings.metric, decision_metric] {
        if m.params.is_some() && !extras.metrics.iter().any(|e| e.key == m.key) {
            extras.metrics.push(m);
        }
    }
    let pooled = settings.pooled || settings.splitter == Splitter::LeaveOneOut;
    let evaluated = Extras {
        oof: extras.oof || pooled,
        ..extras.clone()
    };
    let mut comparison = compare(
        &strategies,
        data,
        &settings.splitter,
        settings.seed,
        &evaluated,
    )?;
    if pooled {
        comparison = comparison.pooled(data, &extras)?;
    }
    let key = settings.metric.key;
    let higher = settings.metric.higher_is_better();
    let level = if ranks_models(settings.metric) {
        Level::Models
    } else {
        Level::Strategies
    };
    let (model_order, decisions, order, ties) =
        rank_breaking_ties(&comparison, settings.metric, decision_metric, level);
    let verdict = comparison.verdict(key, higher)?;
    // The models do not see a time or group column of the splitter, whose
    // scheme cuts the winner's inner folds too.
    let winner = strategies[order[0]].fit_with_inner(
        &*settings.splitter.features(data)?,
        settings.seed,
        settings.splitter.inner(data)?,
    )?;
    Ok(RunOutcome {
        strategies,
        comparison,
        metric: settings.metric,
        level,
        decision_metric,
        model_order,
        order,
        decisions,
        ties,
        verdict,
        winner,
        extras: settings.extras,
        pooled,
        seed: settings.seed,
    })
}
