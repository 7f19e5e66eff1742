//! `rarity monitor`: a saved model watched on a current table against a
//! reference one (input and score drift, the alert rate, the current priors
//! without labels, the labelled rows' metrics); exit code 3 when a
//! `--fail-on` condition holds. The job is `rarity::job::monitor`.

use std::path::PathBuf;

use super::output::{note, print_json, write_report, write_stdout};
use super::{Global, OutputFormat};
use rarity::data::bundled;
use rarity::data::read::{PredictOptions, ReadOptions, Table};
use rarity::data::write::JobPaths;
use rarity::error::{Error, Result};
use rarity::job::monitor::{MonitorParams, MonitorRequest};
use rarity::job::Front;
use rarity::persist::load;

use super::declared::Flags;

/// The exit code when a `--fail-on` condition holds.
pub const CONDITION_MET: i32 = 3;

/// Arguments of `rarity monitor`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A model saved by `rarity fit` or `rarity run`.
    model: PathBuf,
    /// The reference table (the training data, or a period the model was
    /// known good on): CSV, .gz/.zst, Parquet, Arrow IPC. Without it (and
    /// --dataset), the training summary the model holds (`rarity fit
    /// --summary`).
    #[arg(long, value_name = "FILE")]
    reference: Option<PathBuf>,
    /// A bundled dataset as the reference instead.
    #[arg(long, value_name = "NAME", conflicts_with = "reference")]
    dataset: Option<String>,
    /// The current table, with the model's columns.
    #[arg(long, value_name = "FILE", required_unless_present = "current_dataset")]
    current: Option<PathBuf>,
    /// A bundled dataset as the current table instead.
    #[arg(long, value_name = "NAME", conflicts_with = "current")]
    current_dataset: Option<String>,
    /// The declared parameters (`rarity::job::monitor::MonitorParams`).
    #[command(flatten)]
    params: Flags<MonitorParams>,
    /// Write an HTML report (drift bars, score bins reference vs current, the
    /// EM prior with its interval, the labelled rows' metrics) and its tables
    /// as CSV and JSON to DIR.
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
    /// CSV field delimiter.
    #[arg(long, default_value = ",")]
    delimiter: char,
    /// Decimal separator of CSV numbers (`.` or `,`).
    #[arg(long, default_value = ".", value_name = "SEP")]
    decimal: String,
}

fn table(
    file: &Option<PathBuf>,
    dataset: &Option<String>,
    read: &ReadOptions,
) -> Result<Table<'static>> {
    match (file, dataset) {
        (Some(p), _) => Table::open(p, read),
        (None, Some(name)) => bundled::find(name)?.table(read),
        (None, None) => Err(Error::invalid("no data: give a FILE or a bundled dataset")),
    }
}

/// Runs the job; the exit code is [`CONDITION_MET`] when a condition holds.
pub fn run(g: &Global, a: &Args) -> Result<i32> {
    if !a.delimiter.is_ascii() {
        return Err(Error::invalid("--delimiter must be one ASCII character"));
    }
    JobPaths::new()
        .input("the model", &a.model)
        .input_opt("--reference", a.reference.as_ref())
        .input_opt("--current", a.current.as_ref())
        .report_opt("--report", a.report.as_ref())
        .check()?;
    if let Some(dir) = &a.report {
        rarity::report::check_report_dir(dir)?;
    }
    let fitted = load(&a.model)?;
    let plan = MonitorRequest {
        params: a.params.params()?,
        seed: g.seed,
        front: Front::Cli,
    }
    .plan(&fitted)?;
    let read = ReadOptions {
        delimiter: a.delimiter as u8,
        ..ReadOptions::default()
    };
    let reference = match (&a.reference, &a.dataset) {
        (None, None) => None,
        _ => Some(table(&a.reference, &a.dataset, &read)?),
    };
    let current = table(&a.current, &a.current_dataset, &read)?;
    let opts = PredictOptions {
        decimal: Some(rarity::job::read::decimal(&a.decimal, Front::Cli)?),
        ..PredictOptions::default()
    };
    let job = super::bar::during(g, || plan.run(&fitted, reference, current, &opts))?;
    if let Some(dir) = &a.report {
        write_report(&job.report(), dir, g.quiet)?;
    }
    // The outcome is the result: printed under --quiet too (which only
    // silences the progress bar and the notes).
    if g.format == OutputFormat::Json {
        print_json(&job.to_json())?;
    } else {
        write_stdout(&job.to_text())?;
    }
    if job.failed.is_empty() {
        return Ok(0);
    }
    for f in &job.failed {
        note(&format!("monitor: condition met: {f}"));
    }
    Ok(CONDITION_MET)
}
