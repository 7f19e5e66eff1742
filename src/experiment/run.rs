//! `rarity run`, the main job, as a library call: compare strategies on one
//! dataset with repeated cross-validation on shared folds, rank them by a
//! metric of the catalogue, test the differences (Friedman / Nemenyi over
//! the folds, Demšar 2006), and fit the winner on all rows.
//!
//! Decision copies: with a loss matrix (`--cost`) or an example-dependent
//! benefit (`--benefit`), every strategy deciding by the training priors
//! (`threshold(priors)`) is also evaluated deciding by the Bayes
//! minimum-risk rule under that loss (Dal Pozzolo et al. 2015, Sec. IV-A) or
//! by the benefit rule (Fan & Davidson 2006, Sec. 6).

use crate::data::Dataset;
use crate::decide::Decision;
use crate::error::{Error, Result};
use crate::evaluate::Extras;
use crate::experiment::compare::{
    compare, default_betas, default_multiclass_strategies, default_strategies, Comparison, Verdict,
};
use crate::metrics::catalogue::{metric, Metric};
use crate::spec::build_strategy;
use crate::split::Splitter;
use crate::strategy::{FittedStrategy, Strategy};

/// What `rarity run` compares and how.
#[derive(Debug, Clone)]
pub struct RunSettings {
    /// The strategies; empty: the default set for the task
    /// ([`default_strategies`], [`default_multiclass_strategies`]).
    pub strategies: Vec<Strategy>,
    /// Decisions that join the comparison as copies of every strategy
    /// deciding by `threshold(priors)`, each with the stage text its copies
    /// are labelled with (`cost(fn=5,fp=1)`).
    pub decision_copies: Vec<(Decision, String)>,
    /// Cost, benefit and kept predictions of the evaluation.
    pub extras: Extras,
    /// The metric that ranks the strategies.
    pub metric: &'static Metric,
    /// The cross-validation.
    pub splitter: Splitter,
    /// The seed of folds and fits.
    pub seed: u64,
}

/// What `rarity run` found.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// The strategies compared, decision copies included, in evaluation
    /// order.
    pub strategies: Vec<Strategy>,
    /// Every strategy's evaluation on the shared folds.
    pub comparison: Comparison,
    /// Strategy indices, best first.
    pub order: Vec<usize>,
    /// The Friedman / Nemenyi verdict (at least three strategies).
    pub verdict: Option<Verdict>,
    /// The best strategy fitted on all rows.
    pub winner: FittedStrategy,
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

/// The strategies compared: the given ones (or the task's defaults), then
/// the decision copies of every one deciding by `threshold(priors)` (a copy
/// whose label is already present is skipped).
pub fn with_decision_copies(
    strategies: Vec<Strategy>,
    copies: &[(Decision, String)],
) -> Vec<Strategy> {
    let mut out = strategies.clone();
    for s in &strategies {
        if s.decision_stage.as_deref() != Some("threshold(priors)") {
            continue;
        }
        for (d, text) in copies {
            let copy = s.with_decision(d.clone(), text);
            if !out.iter().any(|o| o.spec == copy.spec) {
                out.push(copy);
            }
        }
    }
    out
}

/// Runs the comparison on `data` (its (strategy, fold) evaluations counted
/// in [`crate::progress`]).
pub fn run(data: &Dataset, settings: RunSettings) -> Result<RunOutcome> {
    data.require_two_classes()?;
    settings.extras.check(data)?;
    let given = if settings.strategies.is_empty() {
        let specs = if data.n_classes() == 2 {
            default_strategies(&default_betas(data))
        } else {
            default_multiclass_strategies()
        };
        specs
            .iter()
            .map(|s| build_strategy(s))
            .collect::<Result<Vec<_>>>()?
    } else {
        settings.strategies
    };
    let strategies = with_decision_copies(given, &settings.decision_copies);
    let comparison = compare(
        &strategies,
        data,
        &settings.splitter,
        settings.seed,
        &settings.extras,
    )?;
    let key = settings.metric.key;
    let higher = settings.metric.higher_is_better();
    let order = comparison.ranked(key, higher);
    let verdict = if strategies.len() >= 3 {
        Some(comparison.verdict(key, higher)?)
    } else {
        None
    };
    let winner = strategies[order[0]].fit(data, settings.seed)?;
    Ok(RunOutcome {
        strategies,
        comparison,
        order,
        verdict,
        winner,
    })
}
