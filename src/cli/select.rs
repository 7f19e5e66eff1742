//! `rarity select`: rank learners for a target population by ReverseTesting
//! (or, for comparison, cross-validation, leave-one-out or training accuracy).

use std::path::PathBuf;

use super::data_args::{CategoricalArgs, MissingArgs};
use super::declared::Flags;
use super::output::{print_json, write_stdout};
use super::{Global, OutputFormat};
use rarity::data::read::ReadOptions;
use rarity::error::Result;
use rarity::job::select::{SelectFiles, SelectParams, SelectRequest};
use rarity::job::Front;

/// Arguments of `rarity select`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The labelled (possibly biased) training set D.
    #[arg(long)]
    train: PathBuf,
    /// The unlabelled target population T, a file (a label column, if
    /// present, is ignored). `--target` is accepted as an older name.
    #[arg(long, alias = "target", value_name = "FILE")]
    population: PathBuf,
    /// Categorical levels of the population the training set lacks: error,
    /// or ignore (as `rarity predict --unknown`).
    #[arg(long, value_enum, default_value_t = super::predict::UnknownArg::Error)]
    unknown: super::predict::UnknownArg,
    /// The label column of the training set (default: last).
    #[arg(long)]
    label: Option<String>,
    /// The declared parameters (`rarity::job::select::SelectParams`).
    #[command(flatten)]
    params: Flags<SelectParams>,
    /// The target set's true label column: also report the true order.
    #[arg(long)]
    truth: Option<String>,
    #[command(flatten)]
    categories: CategoricalArgs,
    #[command(flatten)]
    missing: MissingArgs,
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    let plan = SelectRequest {
        params: a.params.params()?,
        seed: g.seed,
        front: Front::Cli,
    }
    .plan()?;
    let missing = a.missing.settle(plan.missing_refusal())?;
    let opts = ReadOptions {
        target: a.label.clone(),
        missing,
        ..a.categories.read_options()?
    };
    let files = SelectFiles {
        train: &a.train,
        population: &a.population,
        truth: a.truth.as_deref(),
    };
    let data = plan.read_files(&files, &opts, a.unknown.rule())?;
    if !g.quiet {
        if let Some(note) = data.read.dropped_note() {
            eprintln!("note: {note}");
        }
    }
    let job = super::bar::during(g, || {
        plan.run(&data.train, &data.target, data.truth.as_ref())
    })?;
    if g.format == OutputFormat::Json {
        return print_json(&job.to_json());
    }
    write_stdout(&job.to_text())
}
