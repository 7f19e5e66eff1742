//! `rarity select`: rank learners for a target population by ReverseTesting
//! (or, for comparison, cross-validation, leave-one-out or training accuracy).

use std::path::PathBuf;

use super::data_args::{CategoricalArgs, MissingArgs};
use super::output::{print_json, write_stdout};
use super::{Global, OutputFormat};
use rarity::data::read::ReadOptions;
use rarity::error::Result;
use rarity::job::select::{SelectFiles, SelectRequest, DEFAULT_METHOD};
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
    /// Learner specs separated by commas, e.g. `tree,forest(n=10),rdt`.
    #[arg(long)]
    learners: String,
    /// The selection method: `reverse-testing`, `cv`, `loo`, `train`,
    /// `iwcv` (importance-weighted cross-validation), `prior-cv`
    /// (prior-corrected cross-validation), with arguments such as
    /// `iwcv(ratio=ulsif)` or `cv(folds=5)`; the default is the method that
    /// measured best (docs/reverse-testing.md).
    #[arg(long, default_value = DEFAULT_METHOD)]
    method: String,
    /// The ReverseTesting variant: `default` (the best-measuring one, see
    /// docs/reverse-testing.md), `paper` (the literal algorithm), `priors`,
    /// `sample`, and/or `labels=argmax|priors|sample`, `measure=METRIC`,
    /// `decide=strict|sum`, `judges=pair|all`, e.g. `paper,decide=sum`.
    #[arg(long, default_value = "default")]
    variant: String,
    /// The measure on the training set: any metric of `rarity score`.
    #[arg(long, default_value = "accuracy")]
    metric: String,
    /// Example-dependent benefit instead of a metric: `amount=COL,overhead=V`.
    #[arg(long)]
    benefit: Option<String>,
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
        learners: a.learners.clone(),
        method: a.method.clone(),
        variant: a.variant.clone(),
        metric: a.metric.clone(),
        benefit: a.benefit.clone(),
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
