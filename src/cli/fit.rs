//! `rarity fit`: train a strategy on all rows and save it.

use std::path::PathBuf;

use serde_json::json;

use super::output::{print_json, rows_bar, write_stdout};
use super::{DataArgs, Global, OutputFormat};
use rarity::error::Result;
use rarity::persist::{save, Format};
use rarity::stream::fit_file;

/// Arguments of `rarity fit`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = rarity::spec::help())]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// The strategy, e.g. `under(beta=0.1)+forest(n=100)+correct+threshold(priors)`.
    #[arg(long, short)]
    model: String,
    /// Where to save the model.
    #[arg(short, long)]
    output: PathBuf,
    /// Save as JSON instead of the compact binary format.
    #[arg(long)]
    json_model: bool,
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    let strategy = rarity::spec::build_strategy(&a.model)?;
    // The sampler stage's sample is kept while the file is read when it
    // can be; otherwise the whole table is read.
    let bar = rows_bar(g.quiet, "reading");
    let streamed = match &a.data.file {
        Some(path) => fit_file(&strategy, path, &a.data.read_options()?, g.seed, &|r| {
            bar.set_position(r)
        }),
        None => Ok(None),
    };
    bar.finish_and_clear();
    let streamed = streamed?;
    let (fitted, rows, report) = match streamed {
        Some(done) => {
            a.data.note_dropped(&done.2, g.quiet);
            done
        }
        None => {
            let (ds, report) = a.data.load_noting(None, g.quiet)?;
            (strategy.fit(&ds, g.seed)?, ds.n_rows(), report)
        }
    };
    let format = if a.json_model {
        Format::Json
    } else {
        Format::Binary
    };
    save(&fitted, &a.output, format)?;
    if g.format == OutputFormat::Json {
        return print_json(&json!({
            "model": fitted.spec,
            "output": a.output.display().to_string(),
            "rows": rows,
            "classes": fitted.schema.class_names,
            "rule": fitted.rule,
            "rows_dropped": report.rows_dropped(),
        }));
    }
    write_stdout(&format!(
        "fitted {} on {} ({} rows); decision {:?}; saved to {}\n",
        fitted.spec,
        report.source,
        rows,
        fitted.rule,
        a.output.display()
    ))
}
