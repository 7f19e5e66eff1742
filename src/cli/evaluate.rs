//! `rarity evaluate`: cross-validated metrics of one strategy.

use serde_json::{json, Map, Value};

use super::output::{num, print_json, write_stdout, Table};
use super::{DataArgs, Global, OutputFormat};
use rarity::error::Result;
use rarity::evaluate::cross_validate;
use rarity::split::Splitter;

/// Arguments of `rarity evaluate`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = rarity::spec::help())]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// The strategy, e.g. `bagging(n=100)+threshold(priors)`.
    #[arg(long, short)]
    model: String,
    /// Cross-validation: K folds, RxK repeated, 5x2, or loo.
    #[arg(long, default_value = "10")]
    cv: String,
}

/// A finite number as JSON, NaN as null.
pub fn number(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    let (ds, report) = a.data.load_noting(None, g.quiet)?;
    let strategy = rarity::spec::build_strategy(&a.model)?;
    let splitter: Splitter = a.cv.parse()?;
    let eval = cross_validate(&strategy, &ds, &splitter, g.seed)?;
    let summary = eval.summary();
    let (fit_s, predict_s) = eval.seconds();
    if g.format == OutputFormat::Json {
        let mut metrics = Map::new();
        for (name, s) in &summary {
            let mut m = json!({"mean": number(s.mean), "std": number(s.std)});
            if let Some(p) = s.full_potential {
                m["full_potential"] = number(p);
            }
            metrics.insert(name.clone(), m);
        }
        return print_json(&json!({
            "model": eval.spec,
            "data": report.source,
            "cv": a.cv,
            "folds": eval.folds.len(),
            "metrics": metrics,
            "fit_seconds": number(fit_s),
            "predict_seconds": number(predict_s),
            "rows_dropped": report.rows_dropped(),
        }));
    }
    let mut t = Table::new(&["metric", "mean", "std", "full potential"]);
    for (name, s) in &summary {
        t.text_row(vec![
            name.clone(),
            num(s.mean, 4),
            num(s.std, 4),
            s.full_potential.map_or(String::new(), |p| num(p, 4)),
        ]);
    }
    write_stdout(&format!(
        "{} on {} ({} folds, cv {})\nfit {:.2} s, predict {:.2} s in total\n\n{}",
        eval.spec,
        report.source,
        eval.folds.len(),
        a.cv,
        fit_s,
        predict_s,
        t.to_text()
    ))
}
