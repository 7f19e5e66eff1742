//! `rarity resample`: write a resampled copy of a dataset and report the
//! class counts before and after and the keep rates.

use std::path::PathBuf;

use serde_json::json;

use super::output::{num, print_json, write_stdout, Render, Table};
use super::{DataArgs, Global, OutputFormat};
use rarity::data::write::write_csv;
use rarity::error::Result;
use rarity::rng;
use rarity::sample::{sampler_from_name, SamplerParams, METHODS};

fn methods_help() -> String {
    METHODS
        .iter()
        .map(|(n, d)| format!("  {n}: {d}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Arguments of `rarity resample`.
#[derive(Debug, clap::Args)]
#[command(after_help = format!("Methods:\n{}", methods_help()))]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// The resampling method (see the list below).
    #[arg(long)]
    method: String,
    /// Undersampling rate of the majority class (under).
    #[arg(long)]
    beta: Option<f64>,
    /// Minority/majority ratio after resampling.
    #[arg(long)]
    ratio: Option<f64>,
    /// Neighbours (SMOTE family, ENN, NCL, NearMiss).
    #[arg(long)]
    k: Option<usize>,
    /// Percent of new minority rows (over, SMOTE family, hybrid).
    #[arg(long)]
    amount: Option<f64>,
    /// UnderOver's rate in percent of the largest class.
    #[arg(long)]
    a: Option<f64>,
    /// Search neighbours on standardised features.
    #[arg(long)]
    standardise: bool,
    /// Output CSV.
    #[arg(short, long)]
    output: PathBuf,
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    let (ds, _) = a.data.load(None)?;
    let params = SamplerParams {
        beta: a.beta,
        ratio: a.ratio,
        k: a.k,
        amount: a.amount,
        a: a.a,
        standardise: a.standardise,
        ..SamplerParams::default()
    };
    let sampler = sampler_from_name(&a.method, &params)?;
    let sample = sampler.resample(&ds, &mut rng::stream(g.seed, 0))?;
    let out = sample.materialise(&ds)?;
    write_csv(&out, &a.output)?;
    let before = ds.class_counts();
    let after = out.class_counts();
    if g.format == OutputFormat::Json {
        return print_json(&json!({
            "method": sampler.name(),
            "output": a.output.display().to_string(),
            "classes": ds.class_names(),
            "before": before,
            "after": after,
            "keep_rates": sample.keep_rates,
            "synthetic_rows": sample.synthetic_labels.len(),
            "notes": sample.notes,
        }));
    }
    let mut t = Table::new(&["class", "before", "after", "keep rate"]);
    for (k, name) in ds.class_names().iter().enumerate() {
        t.text_row(vec![
            name.clone(),
            before[k].to_string(),
            after[k].to_string(),
            num(sample.keep_rates[k], 4),
        ]);
    }
    let notes: String = sample
        .notes
        .iter()
        .map(|n| format!("note: {n}\n"))
        .collect();
    write_stdout(&format!(
        "{} -> {} ({} synthetic rows)\n\n{}{notes}",
        sampler.name(),
        a.output.display(),
        sample.synthetic_labels.len(),
        t.render()
    ))
}
