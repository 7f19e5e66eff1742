//! `rarity fit`: train a strategy on all rows and save it.

use std::path::PathBuf;

use serde_json::json;

use super::output::{print_json, write_stdout};
use super::{DataArgs, Global, OutputFormat};
use rarity::decide::{Decision, Rule};
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
    a.data.paths().output("-o", &a.output).check()?;
    let strategy = rarity::spec::build_strategy(&a.model)?;
    let (fitted, rows, report) = super::bar::during(g, || {
        // The sampler stage's sample is kept while the file is read when it
        // can be; otherwise the whole table is read.
        if let Some(path) = &a.data.file {
            if let Some(done) = fit_file(&strategy, path, &a.data.read_options()?, g.seed)? {
                a.data.note_dropped(&done.2, g.quiet);
                return Ok(done);
            }
        }
        let (ds, report) = a.data.load_noting(None, g.quiet)?;
        Ok::<_, rarity::Error>((strategy.fit(&ds, g.seed)?, ds.n_rows(), report))
    })?;
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
            "rule": fitted.rule.to_string(),
            "decision": decision_text(&strategy.decision, &fitted.rule),
            "rows_dropped": report.rows_dropped(),
        }));
    }
    if g.quiet {
        // The model file is the result; --quiet leaves nothing else.
        return Ok(());
    }
    write_stdout(&format!(
        "fitted {} on {} ({} rows); decision {}; saved to {}\n",
        fitted.spec,
        report.source,
        rows,
        decision_text(&strategy.decision, &fitted.rule),
        a.output.display()
    ))
}

/// The decision as the spec writes it and, when fitting resolved it to other
/// numbers, the rule it became: `threshold(priors) = threshold(0.00174)`.
/// (The default at 0.5 shows as the rule alone: argmax beyond two classes.)
fn decision_text(decision: &Decision, rule: &Rule) -> String {
    let (spec, resolved) = (decision.to_string(), rule.to_string());
    if spec == resolved || *decision == Decision::Half {
        resolved
    } else {
        format!("{spec} = {resolved}")
    }
}
