//! The `fit` job (`rarity fit`; in Python the estimators' `fit`): a
//! [`FitRequest`] (the strategy spec, the seed) checked into a [`FitPlan`]
//! (the strategy built) before any row is read, fitted on a table, or on
//! the file's sample kept while reading it, into a [`FitJob`]: the fitted
//! strategy, rendering itself as the command line's line or its JSON.
//! Asked for (`--summary`), the training table is read once more, scored,
//! and its profile kept in the model as `rarity monitor`'s default
//! reference ([`crate::metrics::profile`]).

use std::path::Path;

use serde_json::{json, Value};

use super::source::{DataSource, Origin};
use crate::data::bundled;
use crate::data::read::{PredictOptions, ReadReport, RowsDropped, Table};
use crate::data::write::is_stdio;
use crate::data::Dataset;
use crate::decide::{Decision, Rule};
use crate::error::{Error, Result};
use crate::metrics::profile::Profile;
use crate::strategy::{FittedStrategy, Strategy};
use crate::stream::fit_file;
use crate::stream::monitor::{profile, PassOptions};

/// What to fit: the parameters of `rarity fit`.
#[derive(Debug, Clone)]
pub struct FitRequest {
    /// The strategy spec.
    pub model: String,
    /// The seed of the fit.
    pub seed: u64,
    /// Keep the training table's profile in the model (`rarity fit
    /// --summary`): `rarity monitor`'s reference when it is given none.
    pub summary: bool,
}

/// A checked request: the strategy built.
#[derive(Debug)]
pub struct FitPlan {
    strategy: Strategy,
    seed: u64,
    summary: bool,
}

impl FitRequest {
    /// Builds the strategy before any row is read.
    pub fn plan(self) -> Result<FitPlan> {
        Ok(FitPlan {
            strategy: crate::spec::build_strategy(&self.model)?,
            seed: self.seed,
            summary: self.summary,
        })
    }
}

impl FitPlan {
    /// Why the strategy cannot take missing values (`None`: it can), for
    /// [`crate::job::missing_policy`].
    pub fn missing_refusal(&self) -> Option<String> {
        self.strategy.missing_refusal()
    }

    /// Fits on the rows of `source`: a file is streamed, the sampler
    /// stage's sample kept while it is read ([`fit_file`]), when the
    /// strategy allows; otherwise every row is read and [`Self::run`].
    /// `read` is told what reading found as soon as it is known.
    pub fn run_source(
        self,
        source: &DataSource,
        read: &mut dyn FnMut(&ReadReport),
    ) -> Result<(FitJob, ReadReport)> {
        if let Some(path) = source.file().filter(|_| self.summary) {
            let once = match is_stdio(path) {
                true => Some("standard input".to_string()),
                false => match std::fs::metadata(path) {
                    // A directory is refused by the reader as it is.
                    Ok(m) if !m.is_file() && !m.is_dir() => {
                        Some(format!("{} (not a regular file)", path.display()))
                    }
                    _ => None,
                },
            };
            if let Some(what) = once {
                return Err(Error::invalid(format!(
                    "--summary reads the training table a second time, after the fit, and \
                     {what} can be read once: give the table as a regular file"
                )));
            }
        }
        if let Some(schema) = source.header_schema()? {
            self.strategy.check_columns(&schema)?;
        }
        let opts = &source.read;
        let streamed = match source.file() {
            Some(path) => fit_file(&self.strategy.reading(opts), path, opts, self.seed)?,
            None => None,
        };
        let (mut job, report) = match streamed {
            Some((fitted, rows, report)) => {
                read(&report);
                (self.job(fitted, rows), report)
            }
            None => {
                let (ds, report) = source.read_whole()?;
                read(&report);
                let fitted = self.strategy.fit(&ds, self.seed)?;
                (self.job(fitted, ds.n_rows()), report)
            }
        };
        if self.summary {
            let summary = training_summary(&job.fitted, source)?;
            job.fitted.training = Some(Box::new(summary));
        }
        Ok((job, report))
    }

    /// Fits on every row of `data`.
    pub fn run(self, data: &Dataset) -> Result<FitJob> {
        let fitted = self.strategy.fit(data, self.seed)?;
        Ok(self.job(fitted, data.n_rows()))
    }

    fn job(&self, fitted: FittedStrategy, rows: usize) -> FitJob {
        FitJob {
            decision: decision_text(&self.strategy.decision, &fitted.rule),
            fitted,
            rows,
        }
    }
}

/// The training table's profile, read again and scored by the fitted
/// strategy as `rarity monitor` reads a reference ([`profile`]; its labels
/// are not counted, as a summary holds no labelled metrics), kept as a
/// summary ([`Profile::summary`]).
fn training_summary(fitted: &FittedStrategy, source: &DataSource) -> Result<Profile> {
    let table = match &source.origin {
        Origin::File(path) => Table::open(path, &source.read)?,
        Origin::Bundled(name) => bundled::find(name)?.table(&source.read)?,
    };
    let read = PredictOptions {
        decimal: Some(source.read.decimal),
        ..PredictOptions::default()
    };
    let pass = PassOptions {
        read: &read,
        label: None,
    };
    Ok(profile(fitted, table, &pass)?.summary())
}

/// What fitting gave, rendering itself.
#[derive(Debug, Clone)]
pub struct FitJob {
    /// The fitted strategy.
    pub fitted: FittedStrategy,
    /// Rows it was fitted on (before its sampler stage).
    pub rows: usize,
    /// Its decision as the spec writes it and the rule it became.
    pub decision: String,
}

impl FitJob {
    /// The outcome as `rarity fit --format json` prints it, the model saved
    /// to `output`.
    pub fn to_json(&self, output: &Path, rows_dropped: &RowsDropped) -> Value {
        json!({
            "model": self.fitted.spec,
            "output": output.display().to_string(),
            "rows": self.rows,
            "classes": self.fitted.schema.class_names,
            "rule": self.fitted.rule.to_string(),
            "decision": self.decision,
            "rows_dropped": rows_dropped,
        })
    }

    /// The outcome as `rarity fit` prints it: the fit on `source`, saved to
    /// `output`.
    pub fn to_text(&self, source: &str, output: &Path) -> String {
        format!(
            "fitted {} on {source} ({} rows); decision {}; saved to {}\n",
            self.fitted.spec,
            self.rows,
            self.decision,
            output.display()
        )
    }
}

/// The decision as the spec writes it and, when fitting resolved it to other
/// numbers, the rule it became: `threshold(priors) = threshold(0.00174)`.
/// (The default at 0.5 shows as the rule alone: argmax beyond two classes.)
fn decision_text(decision: &Decision, rule: &Rule) -> String {
    let (spec, resolved) = (decision.to_string(), rule.to_string());
    if spec == resolved || *decision == Decision::Half {
        resolved
    } else {
        format!("{spec} = {resolved}")
    }
}
