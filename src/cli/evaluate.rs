//! `rarity evaluate`: cross-validated metrics of one strategy, per fold or
//! on pooled out-of-fold predictions (`--pooled`, always for `--cv loo`).

use std::path::PathBuf;

use super::output::{print_json, write_stdout};
use super::{DataArgs, Global, OutputFormat};
use rarity::error::Result;
use rarity::job::evaluate::EvaluateRequest;
use rarity::job::Front;

/// Arguments of `rarity evaluate`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = rarity::spec::help())]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// The strategy, e.g. `bagging(n=100)+threshold(priors)`.
    #[arg(long, short)]
    model: String,
    /// Cross-validation: K folds, RxK repeated, 5x2, loo, time(col=COL, folds=5)
    /// (expanding window in time) or group(col=COL, folds=5) (no group on
    /// both sides); the column is not a feature unless keep=true.
    #[arg(long, default_value = "10")]
    cv: String,
    /// Pool the out-of-fold predictions of each repeat and compute every
    /// metric once on them (scikit-learn's `cross_val_predict` practice)
    /// instead of averaging per-fold values; always on with `--cv loo`,
    /// whose one-row folds have no AUC and rates of only 0 or 1.
    #[arg(long)]
    pooled: bool,
    /// A metric to add to the report, repeatable (parameterised ones such
    /// as `precision_at_k(k=100)` or `recall_at_precision(p=0.9)`).
    #[arg(long)]
    metric: Vec<String>,
    /// Write the out-of-fold predictions to FILE (CSV, or Parquet for
    /// `.parquet`): row, repeat, fold, strategy, truth, p_<class>, label.
    #[arg(long, value_name = "FILE")]
    oof: Option<PathBuf>,
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    let plan = EvaluateRequest {
        model: a.model.clone(),
        cv: a.cv.clone(),
        pooled: a.pooled,
        metrics: a.metric.clone(),
        oof: a.oof.is_some(),
        seed: g.seed,
        front: Front::Cli,
    }
    .plan()?;
    a.data.paths().output_opt("--oof", a.oof.as_ref()).check()?;
    let data = a.data.settle(plan.missing_refusal())?;
    let source = data.source(None)?;
    let (job, report) = super::bar::during(g, || {
        let noted = &mut |r: &rarity::data::read::ReadReport| data.note_dropped(r, g.quiet);
        plan.run_source(&source, a.oof.as_deref(), noted)
    })?;
    if g.format == OutputFormat::Json {
        return print_json(&job.to_json(&report.source, &report.rows_dropped()));
    }
    write_stdout(&job.to_text(&report.source))
}
