//! `rarity run`: the main job. Compares the strategies that matter on one
//! dataset with repeated stratified cross-validation on shared folds, prints
//! a ranked table and a Friedman / Nemenyi verdict, and saves the winner
//! trained on all rows.

use std::path::PathBuf;

use super::output::{print_json, write_stdout};
use super::{DataArgs, Global, OutputFormat};
use rarity::data::bundled;
use rarity::error::Result;
use rarity::job::run::{RunRequest, Shown};
use rarity::job::Front;
use rarity::persist::{save, Format};

/// Arguments of `rarity run`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = rarity::spec::help())]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// The metric that ranks: any key of `rarity score` with a direction,
    /// or `cost` / `benefit` with `--cost` / `--benefit`. A ranking or
    /// probability metric (average_precision, roc_auc, brier, log_loss)
    /// ranks models (everything but the decision: strategies that differ only
    /// in their decision are one model); a thresholded one (g_mean, f1, ...,
    /// cost, benefit) ranks strategies. The Friedman / Nemenyi verdict
    /// compares models.
    #[arg(long, default_value = RunRequest::DEFAULT_METRIC)]
    metric: String,
    /// The thresholded metric that compares the decisions of each model
    /// (and picks the winner's decision) when `--metric` ranks models;
    /// default: cost with `--cost`, benefit with `--benefit`, else g_mean.
    #[arg(long, value_name = "METRIC")]
    decision_metric: Option<String>,
    /// Repeated cross-validation, `RxK` (R repeats of K folds), K folds,
    /// `loo` (leave-one-out, always pooled), holdout:F, or
    /// time(col=COL, folds=5) / group(col=COL, folds=5) (see `rarity evaluate --help`).
    #[arg(long, default_value = RunRequest::DEFAULT_CV)]
    cv: String,
    /// Pool the out-of-fold predictions of each repeat and compute every
    /// metric once on them (one value per repeat), ranking and testing on
    /// those instead of per-fold values; always on with `--cv loo`.
    #[arg(long)]
    pooled: bool,
    /// Compare these strategies instead of the default set (repeatable).
    #[arg(long = "model", short = 'm')]
    models: Vec<String>,
    /// Misclassification costs `fn=..,fp=..[,tp=0,tn=0]` (or
    /// `matrix='0,1;5,0'`): adds metric `cost`, the mean loss per test row of
    /// each strategy's decisions, and for every model whose probabilities
    /// are calibrated (platt, isotonic, correct, logistic, svm) or that
    /// decides by `threshold(priors)` a copy deciding by `cost(...)` (Bayes
    /// minimum risk).
    #[arg(long, value_name = "COSTS")]
    cost: Option<String>,
    /// Example-dependent benefit `amount=COL,overhead=V` (COL a feature
    /// column): adds metric `benefit`, the total over each test fold (a caught
    /// positive earns amount - V, a false alarm costs V), and for the same
    /// models as `--cost` a copy deciding by `benefit(...)`.
    #[arg(long, value_name = "SPEC")]
    benefit: Option<String>,
    /// Write an HTML report with plots, and every table as CSV and JSON, to DIR.
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
    /// Write every strategy's out-of-fold predictions to FILE (CSV, or
    /// Parquet for `.parquet`): row, repeat, fold, strategy, truth,
    /// p_<class>, label.
    #[arg(long, value_name = "FILE")]
    oof: Option<PathBuf>,
    /// Where to save the winner trained on all rows.
    #[arg(short, long, default_value = "rarity-winner.rarity")]
    output: PathBuf,
}

impl Default for Args {
    fn default() -> Self {
        use clap::Parser;
        #[derive(Parser)]
        struct Wrap {
            #[command(flatten)]
            a: Args,
        }
        Wrap::parse_from(["run"]).a
    }
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    let plan = RunRequest {
        models: a.models.clone(),
        metric: a.metric.clone(),
        decision_metric: a.decision_metric.clone(),
        cv: a.cv.clone(),
        pooled: a.pooled,
        cost: a.cost.clone(),
        benefit: a.benefit.clone(),
        keep_predictions: a.report.is_some(),
        oof: a.oof.is_some(),
        seed: g.seed,
        front: Front::Cli,
    }
    .plan()?;
    a.data
        .paths()
        .output("-o", &a.output)
        .output_opt("--oof", a.oof.as_ref())
        .report_opt("--report", a.report.as_ref())
        .check()?;
    if let Some(dir) = &a.report {
        rarity::report::check_report_dir(dir)?;
    }
    if let Some(path) = &a.oof {
        rarity::data::write::check_output(path)?;
    }
    let (ds, read) = a.data.settle(plan.missing_refusal())?.load_split(
        Some(bundled::DEFAULT),
        g.quiet,
        Some(plan.splitter()),
    )?;
    let job = super::bar::during(g, || plan.run(&ds))?;
    save(&job.outcome.winner, &a.output, Format::Binary)?;
    if let Some(path) = &a.oof {
        job.write_oof(path)?;
    }
    if let Some(dir) = &a.report {
        job.write_report(dir, &read.source, Some(&a.output))?;
    }
    let program = super::output::program_off_path();
    let shown = Shown {
        source: &read.source,
        rows_dropped: read.rows_dropped(),
        saved: Some(&a.output),
        report: a.report.as_deref(),
        why: a.data.is_default().then_some(bundled::DEFAULT_WHY),
        program: program.as_deref(),
    };
    if g.format == OutputFormat::Json {
        return print_json(&job.to_json(&shown));
    }
    write_stdout(&job.to_text(&shown))
}
