//! `rarity score`: every metric for a CSV of true labels and predicted
//! probabilities.
//!
//! Binary: one `--proba` column, the probability of the positive class (the
//! label named by `--positive`, else `1` if present, else the last label in
//! sorted order; in a file with one label, the class of a `p_<label>`
//! column, else `1` when the label is `0` or `-1`, else an error);
//! labels at `--threshold` (positive iff p >= T). Multiclass:
//! one `--proba` column per class, in class order. Classes are named by the
//! columns when every column is `p_<label>` (as `rarity predict` writes them),
//! else the labels must be the class ids `0..k-1`. The job is
//! `rarity::job::score`.

use std::path::PathBuf;

use super::output::{print_json, write_stdout};
use super::{Global, OutputFormat};
use rarity::data::scores::{read_scores, Decided, ScoresSpec};
use rarity::error::{Error, Result};
use rarity::job::score::ScoreRequest;
use rarity::job::Front;

/// Arguments of `rarity score`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// CSV with a label column and probability column(s).
    file: PathBuf,
    /// The column of true labels (default: the one column that is not one
    /// `rarity predict` writes: it keeps the table's target column under
    /// its own name).
    #[arg(long)]
    truth: Option<String>,
    /// Probability column(s): one for binary, one per class for multiclass.
    #[arg(long, required = true)]
    proba: Vec<String>,
    /// Threshold for binary labels (positive iff p >= T; default 0.5),
    /// deciding anew instead of reading the decided labels.
    #[arg(long)]
    threshold: Option<f64>,
    /// The column of decided labels the thresholded metrics score
    /// (`none`: decide anew at --threshold or by the argmax). Default: the
    /// `label` column `rarity predict` writes, when the file has one and
    /// no --threshold is given, so a model's own rule (threshold(priors),
    /// cost(...)) is what is scored.
    #[arg(long, value_name = "COL")]
    decided: Option<String>,
    /// The positive label (binary; default `1`, else the last label). It
    /// may be absent from a file with one label (a batch without a single
    /// positive).
    #[arg(long)]
    positive: Option<String>,
    /// CSV field delimiter.
    #[arg(long, default_value = ",")]
    delimiter: char,
    /// A metric to add to the report, repeatable: the alert budgets
    /// `precision_at_k(k=K)`, `recall_at_k(k=K)`,
    /// `recall_at_alert_rate(rate=0.01)`, `recall_at_precision(p=0.9)`,
    /// `precision_at_recall(r=0.8)`.
    #[arg(long)]
    metric: Vec<String>,
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    if !a.delimiter.is_ascii() {
        return Err(Error::invalid("--delimiter must be one ASCII character"));
    }
    let decided = match (a.decided.as_deref(), a.threshold) {
        (Some("none"), _) => Decided::Threshold,
        (Some(c), None) => Decided::Column(c.to_string()),
        (Some(c), Some(_)) => {
            return Err(Error::invalid(format!(
                "--decided {c} and --threshold both decide the labels: give one"
            )))
        }
        (None, Some(_)) => Decided::Threshold,
        (None, None) => Decided::Auto,
    };
    let spec = ScoresSpec {
        truth: a.truth.clone(),
        proba: a.proba.clone(),
        positive: a.positive.clone(),
        delimiter: a.delimiter as u8,
        decided,
    };
    let plan = ScoreRequest {
        threshold: a.threshold.unwrap_or(0.5),
        metrics: a.metric.clone(),
        front: Front::Cli,
    }
    .plan()?;
    let scores = read_scores(&a.file, &spec)?;
    let job = plan
        .run(&scores.truth, &scores.proba, scores.decided.as_deref())?
        .decided_by(scores.decided_column);
    if g.format == OutputFormat::Json {
        return print_json(&job.to_json());
    }
    write_stdout(&job.to_text())
}
