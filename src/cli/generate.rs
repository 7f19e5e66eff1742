//! `rarity generate gaussian|fraud`: synthetic datasets as CSV.

use std::path::PathBuf;

use clap::ValueEnum;
use serde::Serialize;

use super::output::{json_text, print_summary};
use super::{Global, OutputFormat};
use rarity::data::synth::{FraudTask, GaussianTask};
use rarity::data::write::{write_dataset, TableFormat};
use rarity::error::Result;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Kind {
    /// Dal Pozzolo's task: N(0, sigma) negatives, N(mu, sigma) positives.
    Gaussian,
    /// A credit-card-like fraud table (Time, V1..V28, Amount).
    Fraud,
}

/// Arguments of `rarity generate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Which generator.
    #[arg(value_enum)]
    kind: Kind,
    /// Rows (default: 10,000 gaussian, 284,807 fraud).
    #[arg(long)]
    n: Option<usize>,
    /// Features (gaussian only; fraud has 30).
    #[arg(long, default_value_t = 1)]
    d: usize,
    /// Share of positives (default: 0.1 gaussian, 0.00172 fraud).
    #[arg(long)]
    positive_rate: Option<f64>,
    /// Mean of the positives (gaussian).
    #[arg(long, default_value_t = 3.0, allow_hyphen_values = true)]
    mu: f64,
    /// Standard deviation of both classes (gaussian).
    #[arg(long, default_value_t = 3.0)]
    sigma: f64,
    /// Number of fraud clusters (fraud).
    #[arg(long, default_value_t = 4)]
    clusters: usize,
    /// Output file: CSV, or Parquet when it ends in `.parquet`; `-` writes
    /// CSV to standard output.
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
    let counts = match a.kind {
        Kind::Gaussian => {
            let def = GaussianTask::default();
            let task = GaussianTask {
                n: a.n.unwrap_or(def.n),
                d: a.d,
                positive_rate: a.positive_rate.unwrap_or(def.positive_rate),
                mu: a.mu,
                sigma: a.sigma,
            };
            let (ds, _) = task.generate(g.seed)?;
            write_dataset(&ds, &a.output, TableFormat::from_path(&a.output))?;
            ds.class_counts()
        }
        Kind::Fraud => {
            let def = FraudTask::default();
            let task = FraudTask {
                n: a.n.unwrap_or(def.n),
                positive_rate: a.positive_rate.unwrap_or(def.positive_rate),
                clusters: a.clusters,
            };
            task.write_table(g.seed, &a.output)?.to_vec()
        }
    };
    let w = Written {
        output: a.output.display().to_string(),
        n: counts.iter().sum(),
        class_counts: counts,
    };
    if g.format == OutputFormat::Json {
        return print_summary(&a.output, g.quiet, &json_text(&w)?);
    }
    print_summary(&a.output, g.quiet, &format!(
        "wrote {} rows ({} negative, {} positive) to {}\n",
        w.n, w.class_counts[0], w.class_counts[1], w.output
    ))
}
