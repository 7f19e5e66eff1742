//! The `explain` job (`rarity explain`, `rarity.explain`): an
//! [`ExplainRequest`] (its declared [`ExplainParams`]: the metric whose
//! drop measures importance and the shuffles per column; the seed) checked into an [`ExplainPlan`] before any
//! model or row is read, run on a fitted strategy and held-out rows into an
//! [`ExplainJob`] that renders itself as the command line's text, its JSON
//! and its HTML report.
//!
//! With `--rows N`, a [`TopRowsRequest`] instead: the strongest reasons of
//! the highest-scored rows of a file, from the model's exact
//! contributions ([`crate::contributions`]), no labels needed.
//!
//! `rarity show` / `rarity.show` needs no request: the library's
//! [`crate::explain::ModelSummary`] of a model file is its outcome and
//! renders itself (`to_text`, and its JSON by serialising it).

use serde::Serialize;

use super::declared::Declared;
use super::Front;
use crate::contributions::{ReasonKind, Reasons};
use crate::data::read::{predict_blocks, PredictBlock, PredictOptions, Table};
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::explain::report::{permutation_table, report, split_gain_table};
use crate::explain::{permutation_importance, Explanation};
use crate::metrics::catalogue::{metric, Metric};
use crate::params::{defaults_table, params, Bounds, Params};
use crate::report::Report;
use crate::strategy::FittedStrategy;

/// The default metric whose drop measures importance: `rarity run`'s.
pub const DEFAULT_METRIC: &str = super::run::RunRequest::DEFAULT_METRIC;

/// Shuffles per column unless asked otherwise.
pub const DEFAULT_REPEATS: usize = 5;

params! {
    /// The parameters of `rarity explain` and `rarity.explain`, declared
    /// once ([`super::declared`]).
    #[derive(Debug, Clone, PartialEq)]
    pub struct ExplainParams {
        /// The metric whose drop measures importance (any of rarity score's,
        /// e.g. roc_auc, brier, recall_at_precision(p=0.9)).
        pub metric: String = String::from(DEFAULT_METRIC),
        /// Shuffles per column.
        pub repeats: usize = DEFAULT_REPEATS => Bounds::at_least(1.0),
    }
}

/// `explain`'s declaration: its parameters, and each front end's own.
pub const DECLARED: Declared = Declared {
    job: "explain",
    table: defaults_table::<ExplainParams>,
    required: &[],
    cli_only: &[
        "dataset",
        "delimiter",
        "decimal",
        "unknown",
        "report",
        "rows",
        "reasons",
    ],
    python_only: &["model", "X", "y", "seed", "random_state", "n_jobs"],
    python_names: &[("repeats", "n_repeats")],
};

/// What to explain with: the parameters of `rarity explain` and
/// `rarity.explain`.
#[derive(Debug, Clone)]
pub struct ExplainRequest {
    /// The declared parameters.
    pub params: ExplainParams,
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
        // Read from a front end, the values are checked already (in its
        // spelling); built in code, here.
        self.params.check()?;
        let name = DECLARED.spelled("metric", self.front);
        let m = metric(&self.params.metric.replace('-', "_"))
            .map_err(|e| Error::invalid(format!("{name}: {e}")))?;
        Ok(ExplainPlan {
            metric: m,
            repeats: self.params.repeats,
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

/// `rarity explain MODEL FILE --rows N` (`--reasons K`): the `K`
/// strongest reasons of the `N` highest-scored rows of a file, read in
/// blocks (memory: `N` rows and one block, whatever the file's size).
#[derive(Debug, Clone)]
pub struct TopRowsRequest {
    /// Rows to explain.
    pub rows: usize,
    /// Reasons per row.
    pub reasons: usize,
    /// Which front end wrote the request (for its error messages).
    pub front: Front,
}

/// A checked [`TopRowsRequest`]: the model's contributions planned.
#[derive(Debug, Clone)]
pub struct TopRowsPlan {
    rows: usize,
    reasons: Reasons,
}

impl TopRowsRequest {
    /// Checks the counts and plans `fitted`'s contributions, before any
    /// row is read.
    pub fn plan(self, fitted: &FittedStrategy) -> Result<TopRowsPlan> {
        if self.rows == 0 {
            return Err(Error::invalid(format!(
                "{} must be at least 1",
                self.front.param("rows")
            )));
        }
        let reasons = Reasons::new(fitted, ReasonKind::Reasons(self.reasons))
            .map_err(|e| Error::invalid(format!("{}: {e}", self.front.param("reasons"))))?;
        Ok(TopRowsPlan {
            rows: self.rows,
            reasons,
        })
    }
}

/// One explained row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopRow {
    /// Its number in the file (1 for the first data row).
    pub row: usize,
    /// Its score: the positive class's probability (two classes), else
    /// the decided class's.
    pub score: f64,
    /// The decided class.
    pub label: String,
    /// Its strongest reasons towards the decided class.
    pub reasons: Vec<Reason>,
}

/// One reason of a row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reason {
    /// The source column.
    pub column: String,
    /// The row's value (the level text of a category).
    pub value: String,
    /// Its contribution towards the decided class.
    pub contribution: f64,
}

/// The explained rows, highest score first, rendering themselves.
#[derive(Debug, Clone, Serialize)]
pub struct TopRowsJob {
    /// The strategy's spec.
    pub model: String,
    /// The space of the contributions (`log-odds`, `margins`, `probability`).
    pub space: &'static str,
    /// The stages reported beside the contributions.
    pub beside: Vec<String>,
    /// What they explain, as a sentence.
    pub note: String,
    /// Rows read.
    pub rows_read: usize,
    /// The explained rows.
    pub rows: Vec<TopRow>,
}

/// A row kept while reading: its score, its number and its features.
type Kept = (f64, usize, Vec<f64>);

impl TopRowsPlan {
    /// Reads `table` (with `opts`) in blocks, keeps its `N` highest-scored
    /// rows (earlier rows first on ties) and explains them.
    pub fn run(
        &self,
        fitted: &FittedStrategy,
        table: Table<'_>,
        opts: &PredictOptions,
    ) -> Result<TopRowsJob> {
        let mut kept: Vec<Kept> = Vec::new();
        let mut seen = 0usize;
        let binary = fitted.schema.class_names.len() == 2;
        predict_blocks(table, &fitted.schema, opts, &mut |b: PredictBlock| {
            let (p, labels) = fitted.predict(&b.data)?;
            for (i, &l) in labels.iter().enumerate() {
                let score = p.row(i)[if binary { 1 } else { l as usize }];
                kept.push((score, seen + i + 1, b.data.row(i).to_vec()));
            }
            seen += labels.len();
            kept.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            kept.truncate(self.rows);
            Ok(())
        })?;
        let x: Vec<f64> = kept.iter().flat_map(|k| k.2.iter().copied()).collect();
        let data = Dataset::new(x, vec![0; kept.len()], fitted.schema.clone())?;
        let (_, labels) = fitted.predict(&data)?;
        let plan = &self.reasons.plan;
        let contrib = plan.explain(&data)?;
        let ReasonKind::Reasons(k) = self.reasons.kind else {
            unreachable!("planned with reasons")
        };
        let rows = kept
            .iter()
            .zip(&labels)
            .enumerate()
            .map(|(i, ((score, row, _), &l))| TopRow {
                row: *row,
                score: *score,
                label: fitted.schema.class_names[l as usize].clone(),
                reasons: plan
                    .ranked(&contrib, i, l as usize)
                    .into_iter()
                    .take(k)
                    .map(|(c, v)| Reason {
                        column: plan.columns[c].clone(),
                        value: plan.value_text(&data, i, c),
                        contribution: v,
                    })
                    .collect(),
            })
            .collect();
        Ok(TopRowsJob {
            model: fitted.spec.clone(),
            space: plan.space.name(),
            beside: plan.beside.clone(),
            note: plan.describe(),
            rows_read: seen,
            rows,
        })
    }
}

impl TopRowsJob {
    /// The rows as `rarity explain --rows` prints them: one line per row,
    /// then its reasons.
    pub fn to_text(&self) -> String {
        let mut t = format!(
            "the {} highest-scored of {} rows, contributions {}:\n",
            self.rows.len(),
            self.rows_read,
            self.note
        );
        for r in &self.rows {
            t += &format!("row {} (score {:.4}, label {}):\n", r.row, r.score, r.label);
            for (i, reason) in r.reasons.iter().enumerate() {
                t += &format!(
                    "  {}. {} = {} ({:+.4})\n",
                    i + 1,
                    reason.column,
                    reason.value,
                    reason.contribution
                );
            }
        }
        t
    }
}
