//! `rarity predict`: apply a saved strategy to new rows, streaming.
//!
//! Writes the identifier columns (`--id`), one probability column per class
//! (`p_<class>`) and the decided `label` (then the reasons of `--reasons K`
//! or the contributions of `--contributions`), atomically (or to stdout
//! with `-o -`), in constant memory. The job is `rarity::job::predict`.

use std::path::{Path, PathBuf};

use clap::ValueEnum;

use rarity::data::write::JobPaths;

use super::output::{json_text, print_summary};
use super::{Global, OutputFormat};
use rarity::data::bundled;
use rarity::data::read::{PredictOptions, ReadOptions, Table, Unknown};
use rarity::data::write::is_stdio;
use rarity::error::{Error, Result};
use rarity::job::predict::PredictRequest;
use rarity::job::Front;
use rarity::persist::{load, read};
use rarity::strategy::FittedStrategy;

/// `--unknown`: what a categorical level the model was not trained on is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UnknownArg {
    /// Fail, counting the rows and listing the unseen levels.
    Error,
    /// Encode an unseen level as all zeros in its one-hot columns (a
    /// categorical column's as a level no split holds, the prior of a
    /// target encoding).
    Ignore,
}

impl UnknownArg {
    /// The readers' rule.
    pub fn rule(self) -> Unknown {
        match self {
            UnknownArg::Error => Unknown::Error,
            UnknownArg::Ignore => Unknown::Ignore,
        }
    }
}

/// A saved model and the rows to score it on (`predict`, `explain`).
#[derive(Debug, clap::Args)]
pub struct ModelInput {
    /// A model saved by `rarity fit` or `rarity run` (`-`: standard input,
    /// when the data is a file).
    pub model: PathBuf,
    /// Data with the model's feature columns (CSV, .gz/.zst, Parquet, Arrow
    /// IPC; `-`: standard input). Other columns are ignored.
    pub file: Option<PathBuf>,
    /// A bundled dataset instead of a file.
    #[arg(long, conflicts_with = "file")]
    pub dataset: Option<String>,
    /// CSV field delimiter.
    #[arg(long, default_value = ",")]
    pub delimiter: char,
    /// Decimal separator of CSV numbers (`.` or `,`).
    #[arg(long, default_value = ".", value_name = "SEP")]
    pub decimal: String,
    /// Categorical levels the model was not trained on: error, or ignore
    /// (all-zero one-hot columns; a level no split holds in a categorical
    /// column, the prior of a target encoding).
    #[arg(long, value_enum, default_value_t = UnknownArg::Error)]
    pub unknown: UnknownArg,
}

impl ModelInput {
    /// The model and data files, as inputs of a command's [`JobPaths`].
    pub fn paths(&self) -> JobPaths<'_> {
        JobPaths::new()
            .input("the model", &self.model)
            .input_opt("the data", self.file.as_ref())
    }

    /// The table of the FILE or bundled `--dataset`.
    pub fn table(&self) -> Result<Table<'static>> {
        if !self.delimiter.is_ascii() {
            return Err(Error::invalid("--delimiter must be one ASCII character"));
        }
        let read = ReadOptions {
            delimiter: self.delimiter as u8,
            ..ReadOptions::default()
        };
        match (&self.file, &self.dataset) {
            (Some(p), _) => Table::open(p, &read),
            (None, Some(name)) => bundled::find(name)?.table(&read),
            (None, None) => Err(Error::invalid("no data: give a FILE or --dataset NAME")),
        }
    }

    /// The saved strategy.
    pub fn load(&self) -> Result<FittedStrategy> {
        if !is_stdio(&self.model) {
            return load(&self.model);
        }
        if self.file.as_deref().is_none_or(is_stdio) && self.dataset.is_none() {
            return Err(Error::invalid(
                "the model and the data cannot both come from standard input: give the \
                 model or the data as a file",
            ));
        }
        // Only the model's bytes are read, as its header states them.
        read(std::io::stdin().lock(), Path::new("<stdin>"))
    }

    /// How the rows are read: the decimal separator and the unseen-level
    /// rule, otherwise the defaults.
    pub fn options(&self) -> Result<PredictOptions> {
        Ok(PredictOptions {
            decimal: Some(rarity::job::read::decimal(
                &self.decimal,
                rarity::job::Front::Cli,
            )?),
            unknown: self.unknown.rule(),
            ..PredictOptions::default()
        })
    }
}

/// Arguments of `rarity predict`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    input: ModelInput,
    /// Identifier column carried to the output (repeatable).
    #[arg(long = "id", value_name = "COL")]
    ids: Vec<String>,
    /// Decide by this rule instead of the saved one, on the saved
    /// probabilities: e.g. "threshold(0.3)", "cost(fn=10,fp=1)",
    /// "threshold(priors)", "argmax".
    #[arg(long, value_name = "RULE")]
    decision: Option<String>,
    /// Add each row's K strongest reasons after `label`: `reason_1..K`
    /// (the source column), `value_1..K` (its value, the level for a
    /// category) and `contribution_1..K` (towards the decided class,
    /// strongest first), from the model's exact contributions.
    #[arg(long, value_name = "K")]
    reasons: Option<usize>,
    /// Add every source column's contribution and the base value after
    /// `label` instead (`contribution_<col>`, `base_value`; per class beyond
    /// two classes).
    #[arg(long, conflicts_with = "reasons")]
    contributions: bool,
    /// Where to write the predictions (`.parquet`: Parquet; `-`: stdout).
    #[arg(short, long)]
    output: PathBuf,
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    a.input.paths().output("-o", &a.output).check()?;
    let plan = PredictRequest {
        decision: a.decision.clone(),
        ids: a.ids.clone(),
        unknown: a.input.unknown.rule(),
        reasons: a.reasons,
        contributions: a.contributions,
        front: Front::Cli,
    }
    .plan(a.input.load()?)?;
    let table = a.input.table()?;
    let opts = a.input.options()?;
    let job = super::bar::during(g, || plan.run(table, opts, &a.output))?;
    if g.format == OutputFormat::Json {
        return print_summary(&a.output, g.quiet, &json_text(&job.to_json(&a.output))?);
    }
    if g.quiet {
        return Ok(());
    }
    print_summary(&a.output, g.quiet, &job.to_text(&a.output))
}
