//! `rarity resample`: write a resampled copy of a dataset and report the
//! class counts before and after and the keep rates.

use std::path::PathBuf;

use serde_json::json;

use super::output::{counts_table, json_text, print_summary};
use super::{DataArgs, Global, OutputFormat};
use rarity::data::read::ReadReport;
use rarity::data::write::{write_dataset, TableFormat};
use rarity::data::Dataset;
use rarity::error::{Error, Result};
use rarity::params::{self, syntax, Call, Value};
use rarity::rng;
use rarity::sample::registry::{build_sampler, with_flags, SAMPLERS};
use rarity::sample::Sampler;
use rarity::stream::sample_file;

fn methods_help() -> String {
    format!(
        "Samplers: --method takes a name or a spec such as \"enn(k=5,rule=all)\" or \
         \"under(rates=[0.5,1])\"; --beta, --ratio, --k, --amount, --a and --standardise set \
         the parameter of that name. Each sampler with its parameters, defaults and ranges:\n{}",
        params::help(SAMPLERS)
    )
}

/// Arguments of `rarity resample`.
#[derive(Debug, clap::Args)]
#[command(after_help = methods_help())]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// The sampler: a name or a full spec (see the list below).
    #[arg(long)]
    method: String,
    /// Undersampling rate of the majority class (under: beta).
    #[arg(long)]
    beta: Option<f64>,
    /// Minority/majority ratio after resampling (ratio).
    #[arg(long)]
    ratio: Option<f64>,
    /// Neighbours (k: SMOTE family, ENN, NCL, NearMiss).
    #[arg(long)]
    k: Option<usize>,
    /// Percent of new minority rows (amount: over, SMOTE family, hybrid).
    #[arg(long)]
    amount: Option<f64>,
    /// UnderOver's rate in percent of the largest class (a).
    #[arg(long)]
    a: Option<f64>,
    /// Search neighbours on standardised features (standardise).
    #[arg(long)]
    standardise: bool,
    /// Output table: CSV, or Parquet when it ends in `.parquet`; gzip or zstd
    /// CSV when it ends in `.gz` / `.zst`; `-`
    /// writes CSV to standard output.
    #[arg(short, long)]
    output: PathBuf,
}

/// The sampler's call: `--method` with the parameter flags added as keyword
/// arguments (a flag whose key the spec also sets is an error).
fn sampler_call(a: &Args) -> Result<Call> {
    let mut stages = syntax::parse(&a.method)?;
    if stages.len() > 1 {
        return Err(Error::invalid(format!(
            "--method '{}': one sampler is expected, e.g. under(beta=0.2)",
            a.method
        )));
    }
    let call = stages.remove(0);
    let entry = params::find(SAMPLERS, &call.name, "sampler")?;
    let mut call = with_flags(&call, &(entry.params)());
    let flags = [
        ("beta", a.beta.map(Value::Number)),
        ("ratio", a.ratio.map(Value::Number)),
        ("k", a.k.map(|k| Value::Number(k as f64))),
        ("amount", a.amount.map(Value::Number)),
        ("a", a.a.map(Value::Number)),
        (
            "standardise",
            a.standardise.then(|| Value::Call(Call::bare("true"))),
        ),
    ];
    for (key, value) in flags {
        let Some(value) = value else { continue };
        if call.arg(key).is_some() {
            return Err(Error::invalid(format!(
                "--{key} and {key} in --method '{}' both given; give it once",
                a.method
            )));
        }
        call.args.push((Some(key.to_string()), value));
    }
    Ok(call)
}

/// What was resampled: the sample, the class names and counts of the
/// input, the keep rates, synthetic rows and notes.
struct Resampled {
    out: Dataset,
    before: Vec<usize>,
    keep_rates: Vec<f64>,
    synthetic: usize,
    notes: Vec<String>,
    report: ReadReport,
}

/// Resamples the data: while reading the file when the sampler's keep
/// decisions are per row and per class, else in memory.
fn resample(g: &Global, a: &Args, sampler: &dyn Sampler) -> Result<Resampled> {
    let mut rng = rng::stream(g.seed, 0);
    if let Some(path) = &a.data.file {
        if let Some(s) = sample_file(sampler, path, &a.data.read_options()?, &mut rng)? {
            a.data.note_dropped(&s.report, g.quiet);
            return Ok(Resampled {
                out: s.data,
                before: s.counts,
                keep_rates: s.keep_rates,
                synthetic: 0,
                notes: s.notes,
                report: s.report,
            });
        }
    }
    let (ds, report) = a.data.load_noting(None, g.quiet)?;
    let sample = sampler.resample(&ds, &mut rng)?;
    Ok(Resampled {
        out: sample.materialise(&ds)?,
        before: ds.class_counts(),
        keep_rates: sample.keep_rates,
        synthetic: sample.synthetic_labels.len(),
        notes: sample.notes,
        report,
    })
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    a.data.paths().output("-o", &a.output).check()?;
    let sampler = build_sampler(&sampler_call(a)?)?;
    let r = super::bar::during(g, || resample(g, a, sampler.as_ref()))?;
    let out = &r.out;
    write_dataset(out, &a.output, TableFormat::from_path(&a.output))?;
    let before = &r.before;
    let after = out.class_counts();
    if g.format == OutputFormat::Json {
        return print_summary(
            &a.output,
            g.quiet,
            &json_text(&json!({
                "method": sampler.name(),
                "output": a.output.display().to_string(),
                "classes": out.class_names(),
                "before": before,
                "after": after,
                "keep_rates": r.keep_rates,
                "synthetic_rows": r.synthetic,
                "notes": r.notes,
                "rows_dropped": r.report.rows_dropped(),
            }))?,
        );
    }
    let t = counts_table(out.class_names(), before, &after, &r.keep_rates);
    let notes: String = r.notes.iter().map(|n| format!("note: {n}\n")).collect();
    print_summary(
        &a.output,
        g.quiet,
        &format!(
            "{} -> {} ({} synthetic rows)\n\n{}{notes}",
            sampler.name(),
            a.output.display(),
            r.synthetic,
            t.to_text()
        ),
    )
}
