//! `rarity predict`: apply a saved strategy to new rows.
//!
//! Writes one probability column per class (`p_<class>`) and the decided
//! `label`, atomically.

use std::path::PathBuf;

use super::output::write_stdout;
use super::Global;
use rarity::data::read::read_with_schema;
use rarity::data::scores::write_predictions;
use rarity::data::{bundled, Dataset};
use rarity::error::{Error, Result};
use rarity::persist::load;
use rarity::strategy::FittedStrategy;

/// Arguments of `rarity predict`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A model saved by `rarity fit`.
    model: PathBuf,
    /// CSV with the model's feature columns (a label column is ignored).
    file: Option<PathBuf>,
    /// A bundled dataset instead of a file.
    #[arg(long, conflicts_with = "file")]
    dataset: Option<String>,
    /// CSV field delimiter.
    #[arg(long, default_value = ",")]
    delimiter: char,
    /// Where to write the predictions.
    #[arg(short, long)]
    output: PathBuf,
}

fn read(a: &Args, fitted: &FittedStrategy) -> Result<Dataset> {
    if !a.delimiter.is_ascii() {
        return Err(Error::invalid("--delimiter must be one ASCII character"));
    }
    let d = a.delimiter as u8;
    match (&a.file, &a.dataset) {
        (Some(p), _) => {
            let f = std::fs::File::open(p).map_err(|e| Error::io(p, e))?;
            read_with_schema(f, &p.display().to_string(), d, &fitted.schema)
        }
        (None, Some(name)) => {
            let b = bundled::find(name)?;
            read_with_schema(b.csv, &format!("<dataset {name}>"), d, &fitted.schema)
        }
        (None, None) => Err(Error::invalid("no data: give a FILE or --dataset NAME")),
    }
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    let fitted: FittedStrategy = load(&a.model)?;
    let (proba, labels) = super::bar::during(g, || fitted.predict(&read(a, &fitted)?))?;
    let names = &fitted.schema.class_names;
    write_predictions(&a.output, names, &proba, &labels)?;
    if !g.quiet {
        let mut counts = vec![0usize; names.len()];
        labels.iter().for_each(|&l| counts[l as usize] += 1);
        let summary: Vec<String> = names
            .iter()
            .zip(&counts)
            .map(|(n, c)| format!("{c} {n}"))
            .collect();
        write_stdout(&format!(
            "predicted {} rows ({}) to {}\n",
            labels.len(),
            summary.join(", "),
            a.output.display()
        ))?;
    }
    Ok(())
}
