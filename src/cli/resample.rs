//! `rarity resample`: write a resampled copy of a dataset and report the
//! class counts before and after and the keep rates (the job is
//! `rarity::job::resample`).

use std::path::PathBuf;

use super::declared::Flags;
use super::output::{json_text, print_summary};
use super::{DataArgs, Global, OutputFormat};
use rarity::data::write::{write_dataset, TableFormat};
use rarity::error::Result;
use rarity::job::resample::{ResampleParams, ResampleRequest};
use rarity::job::Front;
use rarity::params;
use rarity::sample::registry::SAMPLERS;

fn methods_help() -> String {
    format!(
        "Samplers: --method takes a name or a spec such as \"enn(k=5,rule=all)\" or \
         \"under(rates=[0.5,1])\"; --beta, --ratio, --k, --amount, --a and --standardise set \
         the parameter of that name. Each sampler with its parameters, defaults and ranges:\n{}",
        params::help(SAMPLERS)
    )
}

/// Arguments of `rarity resample`.
#[derive(Debug, clap::Args)]
#[command(after_help = methods_help())]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// The declared parameters (`rarity::job::resample::ResampleParams`).
    #[command(flatten)]
    params: Flags<ResampleParams>,
    /// Output table: CSV, or Parquet when it ends in `.parquet`; gzip or zstd
    /// CSV when it ends in `.gz` / `.zst`; `-`
    /// writes CSV to standard output.
    #[arg(short, long)]
    output: PathBuf,
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    a.data.paths().output("-o", &a.output).check()?;
    let plan = ResampleRequest {
        params: a.params.params()?,
        seed: g.seed,
        front: Front::Cli,
    }
    .plan()?;
    let data = a.data.settle(plan.missing_refusal())?;
    let source = data.source(None)?;
    let (job, report) = super::bar::during(g, || {
        plan.run_source(&source, &mut |r| data.note_dropped(r, g.quiet))
    })?;
    write_dataset(&job.data, &a.output, TableFormat::from_path(&a.output))?;
    let text = if g.format == OutputFormat::Json {
        json_text(&job.to_json(Some(&a.output), &report.rows_dropped()))?
    } else {
        job.to_text(&a.output)
    };
    print_summary(&a.output, g.quiet, &text)
}
