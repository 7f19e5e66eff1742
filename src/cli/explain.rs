//! `rarity explain`: permutation importance of a saved strategy on held-out
//! rows, with the split-gain importances of tree models; a table, JSON, or
//! an HTML report with bar charts.

use std::path::PathBuf;

use super::output::{print_json, write_report, write_stdout};
use super::predict::ModelInput;
use super::{Global, OutputFormat};
use rarity::data::read::read_labelled;
use rarity::error::{Error, Result};
use rarity::explain::permutation_importance;
use rarity::explain::report::{permutation_table, report, split_gain_table};
use rarity::metrics::catalogue::metric;

/// Arguments of `rarity explain`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The model and held-out rows with its feature columns and its target
    /// column.
    #[command(flatten)]
    input: ModelInput,
    /// The metric whose drop measures importance (any of `rarity score`'s,
    /// e.g. roc_auc, brier, recall_at_precision(p=0.9)).
    #[arg(long, default_value = "average_precision")]
    metric: String,
    /// Shuffles per column.
    #[arg(long, default_value_t = 5)]
    repeats: usize,
    /// Write an HTML report with bar charts, and the tables as CSV and JSON,
    /// to DIR.
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    let m = metric(&a.metric.replace('-', "_"))
        .map_err(|e| Error::invalid(format!("--metric: {e}")))?;
    a.input
        .paths()
        .report_opt("--report", a.report.as_ref())
        .check()?;
    if let Some(dir) = &a.report {
        rarity::report::check_report_dir(dir)?;
    }
    let fitted = a.input.load()?;
    let table = a.input.table()?;
    let opts = a.input.options()?;
    let e = super::bar::during(g, || {
        let held = read_labelled(table, &fitted.schema, &opts)?;
        permutation_importance(&fitted, &held, m, a.repeats, g.seed)
    })?;
    if let Some(dir) = &a.report {
        write_report(&report(&e), dir, g.quiet)?;
    }
    if g.format == OutputFormat::Json {
        return print_json(&e);
    }
    let mut text = format!(
        "{} on {} held-out rows: {:.4}; permutation importance ({} shuffles per column, \
         mean {} of the metric):\n{}",
        e.metric,
        e.rows,
        e.baseline,
        e.repeats,
        if e.higher_is_better { "drop" } else { "rise" },
        permutation_table(&e).to_text()
    );
    if let (Some(g), Some(t)) = (&e.split_gain, split_gain_table(&e)) {
        text.push_str(&format!(
            "\nsplit-gain importance (share of the gain, std over {} members):\n{}",
            g.members,
            t.to_text()
        ));
    }
    write_stdout(&text)
}
