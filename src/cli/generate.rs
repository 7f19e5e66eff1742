//! `rarity generate gaussian|fraud|bias`: synthetic datasets, and biased
//! training samples of a dataset, as CSV.

use std::path::PathBuf;

use serde::Serialize;

use super::output::{counts_table, json_text, print_json, print_summary, write_stdout};
use super::{DataArgs, Global, OutputFormat};
use rarity::data::bias::Bias;
use rarity::data::fraud_categories::FraudCategories;
use rarity::data::synth::{FraudTask, GaussianTask, TRUE_POSTERIOR};
use rarity::data::write::{write_dataset, JobPaths, TableFormat};
use rarity::error::Result;
use rarity::experiment::parse_list;

/// Arguments of `rarity generate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    kind: Kind,
}

// Parsed once per run: the size of the data options in `Bias` costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, clap::Subcommand)]
enum Kind {
    /// Dal Pozzolo's task: N(0, sigma) negatives, N(mu, sigma) positives in
    /// each feature x0, x1, ...; the true posterior p(+|x) is written as the
    /// column `p_true` (drop it before training).
    Gaussian(GaussianArgs),
    /// A credit-card-like fraud table (Time, V1..V28, Amount, class): every
    /// `--seed` draws rows from one fixed population (`--drift` for new
    /// fraud patterns).
    Fraud(FraudArgs),
    /// A biased training sample of a dataset (Fan & Davidson 2006, Sec. 5):
    /// feature bias (sort by a column, drop the lowest fraction) or class
    /// bias (keep each class at a rate).
    Bias(BiasArgs),
}

/// Options of `generate gaussian`.
#[derive(Debug, clap::Args)]
struct GaussianArgs {
    /// Rows.
    #[arg(long, default_value_t = GaussianTask::default().n)]
    n: usize,
    /// Features.
    #[arg(long, default_value_t = 1)]
    d: usize,
    /// Share of positives.
    #[arg(long, default_value_t = GaussianTask::default().positive_rate)]
    positive_rate: f64,
    /// Mean of the positives.
    #[arg(long, default_value_t = 3.0, allow_hyphen_values = true)]
    mu: f64,
    /// Standard deviation of both classes.
    #[arg(long, default_value_t = 3.0)]
    sigma: f64,
    /// Output file: CSV, or Parquet when it ends in `.parquet`; gzip or zstd
    /// CSV when it ends in `.gz` / `.zst`; `-` writes
    /// CSV to standard output.
    #[arg(short, long)]
    output: PathBuf,
}

/// Options of `generate fraud`.
#[derive(Debug, clap::Args)]
struct FraudArgs {
    /// Rows.
    #[arg(long, default_value_t = FraudTask::default().n)]
    n: usize,
    /// Share of frauds.
    #[arg(long, default_value_t = FraudTask::default().positive_rate)]
    positive_rate: f64,
    /// Number of fraud clusters.
    #[arg(long, default_value_t = 4)]
    clusters: usize,
    /// Share of the fraud clusters (fraud patterns) replaced by new ones
    /// drawn from `--seed`, in [0, 1]. By default (0) every `--seed` draws
    /// rows from one fixed population, so a later sample is the same
    /// population; give `--drift 0.5` (half the patterns new) or `--drift 1`
    /// (all new) to test a model on a population that drifted.
    #[arg(long, default_value_t = 0.0, value_name = "SHARE")]
    drift: f64,
    /// Add categorical fields before `class`: `merchant` (20,000 merchants,
    /// a few high-risk ones among many clean ones), `country` (200) and `mcc`
    /// (1,000 merchant category codes), text columns that carry a large
    /// share of the fraud signal; the same levels and risks for every
    /// `--seed`. Read them with `--categorical native` (or `target`) and
    /// `--categorical-cols mcc` (its codes look like numbers).
    #[arg(long)]
    categorical: bool,
    /// Output file: CSV, or Parquet when it ends in `.parquet`; gzip or zstd
    /// CSV when it ends in `.gz` / `.zst`; `-` writes
    /// CSV to standard output.
    #[arg(short, long)]
    output: PathBuf,
}

/// Options of `generate bias`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("bias").required(true).args(["feature", "class"])))]
struct BiasArgs {
    #[command(flatten)]
    data: DataArgs,
    /// Feature bias: sort the rows by this feature column and drop the
    /// lowest `--drop` share of them (a number in [0, 1), default 0.25; the
    /// other `--drop` values name columns to leave out, as in every reading
    /// command).
    #[arg(long, value_name = "COL")]
    feature: Option<String>,
    /// Class bias: keep each row of class k with probability RATES[k]
    /// (one rate in [0, 1] per class, in class order, e.g. `0.5,1`).
    #[arg(long, value_name = "RATES", conflicts_with = "feature")]
    class: Option<String>,
    /// Output file: CSV, or Parquet when it ends in `.parquet`; gzip or zstd
    /// CSV when it ends in `.gz` / `.zst`.
    #[arg(short, long)]
    output: PathBuf,
}

#[derive(Serialize)]
struct Written {
    output: String,
    n: usize,
    class_counts: Vec<usize>,
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    match &a.kind {
        Kind::Gaussian(GaussianArgs { output, .. }) | Kind::Fraud(FraudArgs { output, .. }) => {
            JobPaths::new().output("-o", output).check()?
        }
        Kind::Bias(b) => b.data.paths().output("-o", &b.output).check()?,
    }
    let (output, counts) = match &a.kind {
        Kind::Gaussian(a) => {
            let task = GaussianTask {
                n: a.n,
                d: a.d,
                positive_rate: a.positive_rate,
                mu: a.mu,
                sigma: a.sigma,
            };
            let ds = task.with_posterior(g.seed)?;
            write_dataset(&ds, &a.output, TableFormat::from_path(&a.output))?;
            if !g.quiet {
                super::output::note(&format!(
                    "note: column {TRUE_POSTERIOR} is the true posterior p(+|x), not a feature: \
                     drop it before training"
                ));
            }
            (&a.output, ds.class_counts())
        }
        Kind::Fraud(a) => {
            let task = FraudTask {
                n: a.n,
                positive_rate: a.positive_rate,
                clusters: a.clusters,
                drift: a.drift,
            };
            let cats = a.categorical.then(FraudCategories::new);
            let counts = task.write_table_with(g.seed, &a.output, cats.as_ref())?;
            (&a.output, counts.to_vec())
        }
        Kind::Bias(b) => return bias(g, b),
    };
    let w = Written {
        output: output.display().to_string(),
        n: counts.iter().sum(),
        class_counts: counts,
    };
    if g.format == OutputFormat::Json {
        return print_summary(output, g.quiet, &json_text(&w)?);
    }
    print_summary(
        output,
        g.quiet,
        &format!(
            "wrote {} rows ({} negative, {} positive) to {}\n",
            w.n, w.class_counts[0], w.class_counts[1], w.output
        ),
    )
}

/// `generate bias`: reads the data, keeps the biased selection of its rows
/// and writes it.
fn bias(g: &Global, a: &BiasArgs) -> Result<()> {
    // `--drop` is shared with the reading options: a share of rows to drop
    // (with --feature), or column names.
    let (shares, columns): (Vec<&String>, Vec<&String>) = a
        .data
        .drop
        .iter()
        .partition(|v| a.feature.is_some() && v.parse::<f64>().is_ok());
    let drop = match shares.as_slice() {
        [] => rarity::data::bias::FEATURE_DROP,
        [one] => one.parse::<f64>().expect("partitioned as a number"),
        _ => {
            return Err(rarity::Error::invalid(
                "generate bias: give one --drop share of rows (e.g. --drop 0.25)",
            ))
        }
    };
    let mut data = a.data.clone();
    data.drop = columns.into_iter().cloned().collect();
    let (ds, _) = data.load(None)?;
    // clap makes sure one of --feature and --class is given.
    let (bias, settings) = match &a.feature {
        Some(col) => (
            Bias::Feature {
                attribute: ds.feature_index(col, "--feature column")?,
                fraction: drop,
            },
            serde_json::json!({"feature": col, "drop": drop}),
        ),
        None => {
            let rates: Vec<f64> = parse_list(
                "--class",
                a.class.as_deref().unwrap_or_default(),
                "a keep rate in [0, 1]",
                "--class 0.5,1",
            )?;
            let json = serde_json::json!({ "class": rates });
            (Bias::Class(rates), json)
        }
    };
    let all: Vec<usize> = (0..ds.n_rows()).collect();
    let rows = bias.apply(&ds, &all, g.seed)?;
    if rows.is_empty() {
        return Err(rarity::Error::invalid(format!(
            "generate bias: the selection keeps none of the {} rows, and a sample with no \
             rows is no training set; give a keep rate above 0 for some class (e.g. --class \
             0.5,1)",
            ds.n_rows()
        )));
    }
    let kept = ds.take(&rows);
    write_dataset(&kept, &a.output, TableFormat::from_path(&a.output))?;
    let (before, after) = (ds.class_counts(), kept.class_counts());
    if g.format == OutputFormat::Json {
        return print_json(&serde_json::json!({
            "bias": settings,
            "output": a.output.display().to_string(),
            "classes": ds.class_names(),
            "before": before,
            "after": after,
        }));
    }
    let rates: Vec<f64> = before
        .iter()
        .zip(&after)
        .map(|(b, a)| *a as f64 / (*b).max(1) as f64)
        .collect();
    let t = counts_table(ds.class_names(), &before, &after, &rates);
    let how = match (&a.feature, &a.class) {
        (Some(col), _) => format!("feature bias: lowest {drop} of '{col}' dropped"),
        _ => "class bias".to_string(),
    };
    write_stdout(&format!(
        "{how}: {} of {} rows -> {}\n\n{}",
        kept.n_rows(),
        ds.n_rows(),
        a.output.display(),
        t.to_text()
    ))
}
