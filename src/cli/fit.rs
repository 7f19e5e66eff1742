//! `rarity fit`: train a strategy on all rows and save it (the job is
//! `rarity::job::fit`).

use std::path::PathBuf;

use super::output::{print_json, write_stdout};
use super::{DataArgs, Global, OutputFormat};
use rarity::error::Result;
use rarity::job::fit::FitRequest;
use rarity::persist::{save, Format};

/// Arguments of `rarity fit`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = rarity::spec::help())]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// The strategy, e.g. `under(beta=0.1)+forest(n=100)+correct+threshold(priors)`.
    #[arg(long, short)]
    model: String,
    /// Where to save the model.
    #[arg(short, long)]
    output: PathBuf,
    /// Save as JSON instead of the compact binary format.
    #[arg(long)]
    json_model: bool,
    /// Keep a summary of the training table in the model (its columns'
    /// and scores' distributions, reading the table a second time):
    /// `rarity monitor MODEL --current FILE` then needs no --reference.
    /// The model file is then of format version 4.
    #[arg(long)]
    summary: bool,
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    a.data.paths().output("-o", &a.output).check()?;
    let plan = FitRequest {
        model: a.model.clone(),
        seed: g.seed,
        summary: a.summary,
    }
    .plan()?;
    let data = a.data.settle(plan.missing_refusal())?;
    let source = data.source(None)?;
    let (job, report) = super::bar::during(g, || {
        plan.run_source(&source, &mut |r| data.note_dropped(r, g.quiet))
    })?;
    let format = if a.json_model {
        Format::Json
    } else {
        Format::Binary
    };
    save(&job.fitted, &a.output, format)?;
    if g.format == OutputFormat::Json {
        return print_json(&job.to_json(&a.output, &report.rows_dropped()));
    }
    if g.quiet {
        // The model file is the result; --quiet leaves nothing else.
        return Ok(());
    }
    write_stdout(&job.to_text(&report.source, &a.output))
}
