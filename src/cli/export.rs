//! `rarity export`: a saved strategy as an ONNX model, to be scored by
//! ONNX Runtime, Triton or the JVM and .NET runtimes (`rarity::export`).

use std::io::Write;
use std::path::PathBuf;

use serde_json::json;

use super::output::{json_text, print_summary};
use super::{Global, OutputFormat};
use rarity::data::write::{AtomicFile, JobPaths};
use rarity::data::ColumnEncoding;
use rarity::error::Result;
use rarity::persist::load;
use rarity::strategy::FittedStrategy;

/// Arguments of `rarity export`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A model saved by `rarity fit` or `rarity run`.
    model: PathBuf,
    /// The ONNX file to write (`-`: standard output).
    #[arg(short, long)]
    output: PathBuf,
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    JobPaths::new()
        .input("the model", &a.model)
        .output("-o", &a.output)
        .check()?;
    let model: FittedStrategy = load(&a.model)?;
    let bytes = rarity::export::to_onnx(&model)?;
    let mut f = AtomicFile::create(&a.output)?;
    f.writer().write_all(&bytes).map_err(|e| f.err(e))?;
    f.commit()?;
    let schema = &model.schema;
    // The graph's inputs: `X` holds the numeric columns; each text column
    // (one-hot or categorical) is a string input of its own.
    let numeric = schema
        .encodings
        .iter()
        .filter(|e| matches!(e, ColumnEncoding::Numeric { .. }))
        .count();
    let text_inputs: String = schema
        .encodings
        .iter()
        .filter(|e| !matches!(e, ColumnEncoding::Numeric { .. }))
        .map(|e| format!(", {} [N, 1] string", e.name()))
        .collect();
    let text = match g.format {
        OutputFormat::Json => json_text(&json!({
            "output": a.output.display().to_string(),
            "bytes": bytes.len(),
            "strategy": model.spec,
            "features": schema.feature_names,
            "classes": schema.class_names,
            "decision": model.rule.to_string(),
        }))?,
        OutputFormat::Text => format!(
            "exported {} to {} ({} bytes): input X [N, {}] double{}; outputs probabilities \
             [N, {}] double and label [N] string\n",
            model.spec,
            a.output.display(),
            bytes.len(),
            numeric,
            text_inputs,
            schema.class_names.len()
        ),
    };
    print_summary(&a.output, g.quiet, &text)
}
