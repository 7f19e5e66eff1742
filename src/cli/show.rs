//! `rarity show`: a readable summary of a model file; with `--trees`,
//! every tree as arrays (`rarity::contributions::TreeDump`, JSON).

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
    /// Write every tree as arrays instead (children, default child for
    /// missing values, features, thresholds or level sets, values, covers,
    /// and how the trees combine), as JSON whatever --format says.
    #[arg(long)]
    trees: bool,
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    if a.trees {
        let fitted = rarity::persist::load(&a.model)?;
        return print_json(&rarity::contributions::TreeDump::of(&fitted)?);
    }
    let s = ModelSummary::read(&a.model)?;
    match g.format {
        OutputFormat::Json => print_json(&s),
        OutputFormat::Text => write_stdout(&s.to_text()),
    }
}
