//! `rarity resample`: write a resampled copy of a dataset and report the
//! class counts before and after and the keep rates.

use std::path::PathBuf;

use serde_json::json;

use super::output::{counts_table, print_json, write_stdout};
use super::{DataArgs, Global, OutputFormat};
use rarity::data::write::write_csv;
use rarity::error::{Error, Result};
use rarity::params::{self, syntax, Call, Value};
use rarity::rng;
use rarity::sample::registry::{build_sampler, with_flags, SAMPLERS};

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
    /// Output CSV.
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

pub fn run(g: &Global, a: &Args) -> Result<()> {
    let sampler = build_sampler(&sampler_call(a)?)?;
    let (ds, sample, out) = super::bar::during(g, || {
        let (ds, _) = a.data.load(None)?;
        let sample = sampler.resample(&ds, &mut rng::stream(g.seed, 0))?;
        let out = sample.materialise(&ds)?;
        write_csv(&out, &a.output)?;
        Ok::<_, rarity::Error>((ds, sample, out))
    })?;
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
    let t = counts_table(ds.class_names(), &before, &after, &sample.keep_rates);
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
        t.to_text()
    ))
}
