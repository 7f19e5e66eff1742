//! `rarity explain`: permutation importance of a saved strategy on held-out
//! rows, with the split-gain importances of tree models; a table, JSON, or
//! an HTML report with bar charts (the job is `rarity::job::explain`).
//! With `--rows N`, the strongest reasons of the N highest-scored rows.

use std::path::PathBuf;

use super::declared::Flags;
use super::output::{print_json, write_report, write_stdout};
use super::predict::ModelInput;
use super::{Global, OutputFormat};
use rarity::data::read::{read_labelled, PredictOptions};
use rarity::error::Result;
use rarity::job::explain::{ExplainParams, ExplainRequest, TopRowsRequest};
use rarity::job::Front;

/// Arguments of `rarity explain`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The model and held-out rows with its feature columns and its target
    /// column.
    #[command(flatten)]
    input: ModelInput,
    /// The declared parameters (`rarity::job::explain::ExplainParams`).
    #[command(flatten)]
    params: Flags<ExplainParams>,
    /// Write an HTML report with bar charts, and the tables as CSV and JSON,
    /// to DIR.
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
    /// Explain the N highest-scored rows instead (no target column needed):
    /// each row's strongest reasons, from the model's exact contributions.
    #[arg(long, value_name = "N", conflicts_with = "report")]
    rows: Option<usize>,
    /// Reasons per row with --rows.
    #[arg(long, value_name = "K", default_value_t = 3, requires = "rows")]
    reasons: usize,
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    if let Some(rows) = a.rows {
        return top_rows(g, a, rows);
    }
    let plan = ExplainRequest {
        params: a.params.params()?,
        seed: g.seed,
        front: Front::Cli,
    }
    .plan()?;
    a.input
        .paths()
        .report_opt("--report", a.report.as_ref())
        .check()?;
    if let Some(dir) = &a.report {
        rarity::report::check_report_dir(dir)?;
    }
    let fitted = a.input.load()?;
    let table = a.input.table()?;
    // The rows' missing values are read where the model takes them.
    let opts = PredictOptions {
        missing_ok: fitted.missing_columns(),
        ..a.input.options()?
    };
    let job = super::bar::during(g, || {
        let held = read_labelled(table, &fitted.schema, &opts)?;
        plan.run(&fitted, &held)
    })?;
    if let Some(dir) = &a.report {
        write_report(&job.report(), dir, g.quiet)?;
    }
    if g.format == OutputFormat::Json {
        return print_json(&job);
    }
    write_stdout(&job.to_text())
}

/// `--rows N`: the strongest reasons of the N highest-scored rows.
fn top_rows(g: &Global, a: &Args, rows: usize) -> Result<()> {
    a.input.paths().check()?;
    let fitted = a.input.load()?;
    let plan = TopRowsRequest {
        rows,
        reasons: a.reasons,
        front: Front::Cli,
    }
    .plan(&fitted)?;
    let table = a.input.table()?;
    let opts = a.input.options()?;
    let job = super::bar::during(g, || plan.run(&fitted, table, &opts))?;
    if g.format == OutputFormat::Json {
        return print_json(&job);
    }
    write_stdout(&job.to_text())
}
