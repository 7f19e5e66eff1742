//! `rarity show`: a readable summary of a model file.

use std::path::PathBuf;

use super::output::{print_json, write_stdout};
use super::{Global, OutputFormat};
use rarity::error::Result;
use rarity::explain::ModelSummary;

/// Arguments of `rarity show`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A model saved by `rarity fit` or `rarity run`.
    model: PathBuf,
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    let s = ModelSummary::read(&a.model)?;
    match g.format {
        OutputFormat::Json => print_json(&s),
        OutputFormat::Text => write_stdout(&s.to_text()),
    }
}
