//! The `explain` job (`rarity explain`, `rarity.explain`): an
//! [`ExplainRequest`] (the metric whose drop measures importance, the
//! shuffles per column, the seed) checked into an [`ExplainPlan`] before any
//! model or row is read, run on a fitted strategy and held-out rows into an
//! [`ExplainJob`] that renders itself as the command line's text, its JSON
//! and its HTML report.
//!
//! `rarity show` / `rarity.show` needs no request: the library's
//! [`crate::explain::ModelSummary`] of a model file is its outcome and
//! renders itself (`to_text`, and its JSON by serialising it).

use serde::Serialize;

use super::Front;
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::explain::report::{permutation_table, report, split_gain_table};
use crate::explain::{permutation_importance, Explanation};
use crate::metrics::catalogue::{metric, Metric};
use crate::report::Report;
use crate::strategy::FittedStrategy;

/// What to explain with: the parameters of `rarity explain` and
/// `rarity.explain`.
#[derive(Debug, Clone)]
pub struct ExplainRequest {
    /// The metric whose drop measures importance (`-` read as `_`).
    pub metric: String,
    /// Shuffles per column.
    pub repeats: usize,
    /// The seed of the shuffles.
    pub seed: u64,
    /// Which front end wrote the request (for its error messages).
    pub front: Front,
}

/// A checked request: the metric found in the catalogue.
#[derive(Debug, Clone)]
pub struct ExplainPlan {
    metric: &'static Metric,
    repeats: usize,
    seed: u64,
}

impl ExplainRequest {
    /// Finds the metric before the model or any row is read.
    pub fn plan(self) -> Result<ExplainPlan> {
        let m = metric(&self.metric.replace('-', "_"))
            .map_err(|e| Error::invalid(format!("{}: {e}", self.front.param("metric"))))?;
        Ok(ExplainPlan {
            metric: m,
            repeats: self.repeats,
            seed: self.seed,
        })
    }
}

impl ExplainPlan {
    /// The permutation importance of `fitted` on the held-out rows `held`
    /// (with the split-gain importances of tree models).
    pub fn run(&self, fitted: &FittedStrategy, held: &Dataset) -> Result<ExplainJob> {
        let explanation =
            permutation_importance(fitted, held, self.metric, self.repeats, self.seed)?;
        Ok(ExplainJob { explanation })
    }
}

/// What an explanation found, rendering itself; it serialises as
/// `rarity explain --format json` prints it.
#[derive(Debug, Clone, Serialize)]
#[serde(transparent)]
pub struct ExplainJob {
    /// The library's explanation.
    pub explanation: Explanation,
}

impl ExplainJob {
    /// The HTML report with bar charts, and the tables as CSV and JSON
    /// (`rarity explain --report DIR`).
    pub fn report(&self) -> Report {
        report(&self.explanation)
    }

    /// The outcome as `rarity explain` prints it: the baseline, then the
    /// permutation table and, for tree models, the split-gain table.
    pub fn to_text(&self) -> String {
        let e = &self.explanation;
        let mut text = format!(
            "{} on {} held-out rows: {:.4}; permutation importance ({} shuffles per column, \
             mean {} of the metric):\n{}",
            e.metric,
            e.rows,
            e.baseline,
            e.repeats,
            if e.higher_is_better { "drop" } else { "rise" },
            permutation_table(e).to_text()
        );
        if let (Some(g), Some(t)) = (&e.split_gain, split_gain_table(e)) {
            text.push_str(&format!(
                "\nsplit-gain importance (share of the gain, std over {} members):\n{}",
                g.members,
                t.to_text()
            ));
        }
        text
    }
}
