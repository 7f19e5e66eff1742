//! `rarity evaluate`: cross-validated metrics of one strategy, per fold or
//! on pooled out-of-fold predictions (`--pooled`, always for `--cv loo`).

use std::path::PathBuf;

use serde_json::{json, Map, Value};

use super::output::{print_json, undefined_note, write_stdout, Table};
use super::{DataArgs, Global, OutputFormat};
use rarity::error::Result;
use rarity::evaluate::{cross_validate, cross_validate_pooled, write_oof, Extras};
use rarity::metrics::probability::MURPHY_BINS;
use rarity::report::format::metric_text;
use rarity::split::Splitter;
use rarity::stream::evaluate_file;

/// Arguments of `rarity evaluate`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = rarity::spec::help())]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// The strategy, e.g. `bagging(n=100)+threshold(priors)`.
    #[arg(long, short)]
    model: String,
    /// Cross-validation: K folds, RxK repeated, 5x2, loo, time(col=COL, folds=5)
    /// (expanding window in time) or group(col=COL, folds=5) (no group on
    /// both sides); the column is not a feature unless keep=true.
    #[arg(long, default_value = "10")]
    cv: String,
    /// Pool the out-of-fold predictions of each repeat and compute every
    /// metric once on them (scikit-learn's `cross_val_predict` practice)
    /// instead of averaging per-fold values; always on with `--cv loo`,
    /// whose one-row folds have no AUC and rates of only 0 or 1.
    #[arg(long)]
    pooled: bool,
    /// A metric to add to the report, repeatable (parameterised ones such
    /// as `precision_at_k(k=100)` or `recall_at_precision(p=0.9)`).
    #[arg(long)]
    metric: Vec<String>,
    /// Write the out-of-fold predictions to FILE (CSV, or Parquet for
    /// `.parquet`): row, repeat, fold, strategy, truth, p_<class>, label.
    #[arg(long, value_name = "FILE")]
    oof: Option<PathBuf>,
}

/// A finite number as JSON, NaN as null.
pub fn number(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    let strategy = rarity::spec::build_strategy(&a.model)?;
    let splitter: Splitter = a.cv.parse()?;
    let extras = Extras {
        metrics: super::score::metrics(&a.metric)?,
        oof: a.oof.is_some(),
        ..Extras::default()
    };
    a.data.paths().output_opt("--oof", a.oof.as_ref()).check()?;
    let pooled = a.pooled || splitter == Splitter::LeaveOneOut;
    let (eval, report) = super::bar::during(g, || {
        // Each fold's sample is kept while the file is read when it can be
        // (no out-of-fold file: its rows are numbered on the whole table).
        if let (Some(path), None) = (&a.data.file, &a.oof) {
            let opts = a.data.read_options()?;
            if let Some(done) =
                evaluate_file(&strategy, &splitter, path, &opts, g.seed, &extras, pooled)?
            {
                a.data.note_dropped(&done.1, g.quiet);
                return Ok(done);
            }
        }
        let (ds, report) = a.data.load_split(None, g.quiet, Some(&splitter))?;
        let eval = if pooled {
            cross_validate_pooled(&strategy, &ds, &splitter, g.seed, &extras)?
        } else {
            cross_validate(&strategy, &ds, &splitter, g.seed, &extras)?
        };
        if let Some(path) = &a.oof {
            write_oof(path, &ds, &[&eval])?;
        }
        Ok::<_, rarity::Error>((eval, report))
    })?;
    let note = strategy.default_decision_note(&class_counts(&eval));
    let mut summary = eval.summary();
    if pooled && eval.folds.len() == 1 {
        // One pooled value: no spread to report.
        summary.iter_mut().for_each(|(_, s)| s.std = f64::NAN);
    }
    let (fit_s, predict_s) = eval.seconds();
    let folds: usize = if pooled {
        eval.folds.iter().map(|f| f.fold).sum()
    } else {
        eval.folds.len()
    };
    let how = if pooled {
        format!(
            "metrics of the pooled out-of-fold predictions, mean±std over {} repeat{}",
            eval.folds.len(),
            if eval.folds.len() == 1 { "" } else { "s" }
        )
    } else {
        "mean±std over folds".to_string()
    };
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
            "folds": folds,
            "pooled": pooled,
            "repeats": if pooled { Some(eval.folds.len()) } else { None },
            "metrics": metrics,
            "murphy_bins": MURPHY_BINS,
            "fit_seconds": number(fit_s),
            "predict_seconds": number(predict_s),
            "rows_dropped": report.rows_dropped(),
            "notes": note.iter().collect::<Vec<_>>(),
        }));
    }
    let mut t = Table::new(&["metric", "mean", "std", "full potential"]);
    for (name, s) in &summary {
        t.text_row(vec![
            name.clone(),
            metric_text(s.mean),
            metric_text(s.std),
            s.full_potential.map_or(String::new(), metric_text),
        ]);
    }
    let murphy = if summary.iter().any(|(k, _)| k == "brier_reliability") {
        format!(
            "\nbrier_reliability, brier_resolution: Murphy's decomposition of the Brier score \
             over {MURPHY_BINS} equal-width probability bins (the reliability diagram's); with the \
             within-bin terms (Stephenson et al. 2008) it adds up: brier = reliability - \
             resolution + uncertainty + within_bin_variance - within_bin_covariance\n"
        )
    } else {
        String::new()
    };
    let undefined = undefined_note(
        summary
            .iter()
            .filter(|(_, s)| s.mean.is_nan())
            .map(|(k, _)| k.as_str()),
    );
    let note = note.map_or(String::new(), |n| format!("\nnote: {n}\n"));
    write_stdout(&format!(
        "{} on {} ({folds} folds, cv {}; {how})\nfit {:.2} s, predict {:.2} s in total\n\n{}{murphy}{undefined}{note}",
        eval.spec,
        report.source,
        a.cv,
        fit_s,
        predict_s,
        t.to_text()
    ))
}

/// The class counts of a binary evaluation's rows (each row is tested once
/// per repeat: the confusion counts of the first repeat); empty beyond two
/// classes.
fn class_counts(eval: &rarity::evaluate::Evaluation) -> Vec<usize> {
    let mut counts = vec![0usize; 2];
    for f in eval.folds.iter().filter(|f| f.repeat == 0) {
        for (k, v) in &f.metrics {
            match k.as_str() {
                "tn" | "fp" => counts[0] += *v as usize,
                "tp" | "fn" => counts[1] += *v as usize,
                _ => {}
            }
        }
    }
    if counts == [0, 0] {
        Vec::new()
    } else {
        counts
    }
}
