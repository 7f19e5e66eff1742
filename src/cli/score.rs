//! `rarity score`: every metric for a CSV of true labels and predicted
//! probabilities.
//!
//! Binary: one `--proba` column, the probability of the positive class (the
//! label named by `--positive`, else `1` if present, else the last label in
//! sorted order); labels at `--threshold` (positive iff p >= T). Multiclass:
//! one `--proba` column per class, in class order. Classes are named by the
//! columns when every column is `p_<label>` (as `rarity predict` writes them),
//! else the labels must be the class ids `0..k-1`.

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::output::{num, write_stdout, Table};
use super::{Global, OutputFormat};
use rarity::data::read::{read_path, ReadOptions};
use rarity::data::Proba;
use rarity::error::{Error, Result};
use rarity::metrics::score_report;

/// Arguments of `rarity score`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// CSV with a label column and probability column(s).
    file: PathBuf,
    /// The column of true labels.
    #[arg(long)]
    truth: String,
    /// Probability column(s): one for binary, one per class for multiclass.
    #[arg(long, required = true)]
    proba: Vec<String>,
    /// Threshold for binary labels (positive iff p >= T).
    #[arg(long, default_value_t = 0.5)]
    threshold: f64,
    /// The positive label (binary; default `1`, else the last label).
    #[arg(long)]
    positive: Option<String>,
    /// CSV field delimiter.
    #[arg(long, default_value = ",")]
    delimiter: char,
}

/// Reads truth and probabilities; returns class ids and the matrix.
fn load(a: &Args) -> Result<(Vec<u32>, Proba)> {
    if !a.delimiter.is_ascii() {
        return Err(Error::invalid("--delimiter must be one ASCII character"));
    }
    let opts = ReadOptions {
        target: Some(a.truth.clone()),
        delimiter: a.delimiter as u8,
        ..ReadOptions::default()
    };
    let (ds, report) = read_path(&a.file, &opts)?;
    if report.dropped_missing > 0 {
        return Err(Error::data(format!(
            "{}: {} rows have missing values; scores need every row",
            a.file.display(),
            report.dropped_missing
        )));
    }
    let cols: Vec<usize> = a
        .proba
        .iter()
        .map(|c| {
            ds.feature_names()
                .iter()
                .position(|f| f == c)
                .ok_or_else(|| {
                    Error::invalid(format!(
                        "probability column '{c}' not found; columns are: {}",
                        ds.feature_names().join(", ")
                    ))
                })
        })
        .collect::<Result<_>>()?;
    let names = ds.class_names();
    let n = ds.n_rows();
    if cols.len() == 1 {
        if names.len() > 2 {
            return Err(Error::data(format!(
                "one probability column but {} labels ({}); give one --proba per class",
                names.len(),
                names.join(", ")
            )));
        }
        let positive = match &a.positive {
            Some(p) => p.clone(),
            None if names.iter().any(|l| l == "1") => "1".to_string(),
            None => {
                let mut sorted = names.to_vec();
                sorted.sort();
                sorted.last().cloned().unwrap_or_default()
            }
        };
        if !names.contains(&positive) && a.positive.is_some() {
            return Err(Error::invalid(format!(
                "positive label '{positive}' not found; labels are: {}",
                names.join(", ")
            )));
        }
        let truth = (0..n)
            .map(|i| u32::from(names[ds.label(i)] == positive))
            .collect();
        let p: Vec<f64> = (0..n).map(|i| ds.value(i, cols[0])).collect();
        if let Some(i) = p.iter().position(|v| !(0.0..=1.0).contains(v)) {
            return Err(Error::data(format!(
                "row {}, column '{}': probability {} is outside [0, 1]",
                i + 1,
                a.proba[0],
                p[i]
            )));
        }
        return Ok((truth, Proba::from_positive(&p)));
    }
    let k = cols.len();
    let class_of: Vec<String> = if a.proba.iter().all(|c| c.starts_with("p_")) {
        a.proba.iter().map(|c| c[2..].to_string()).collect()
    } else {
        (0..k).map(|c| c.to_string()).collect()
    };
    let map: Vec<u32> = names
        .iter()
        .map(|l| {
            class_of
                .iter()
                .position(|c| c == l)
                .map(|c| c as u32)
                .ok_or_else(|| {
                    Error::data(format!(
                        "label '{l}' has no probability column; classes are: {}",
                        class_of.join(", ")
                    ))
                })
        })
        .collect::<Result<_>>()?;
    let truth = (0..n).map(|i| map[ds.label(i)]).collect();
    let mut values = Vec::with_capacity(n * k);
    for i in 0..n {
        values.extend(cols.iter().map(|&c| ds.value(i, c)));
    }
    Ok((truth, Proba::new(values, k)))
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    let (truth, proba) = load(a)?;
    let report = score_report(&truth, &proba, a.threshold)?;
    if g.format == OutputFormat::Json {
        let map: Map<String, Value> = report
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    serde_json::Number::from_f64(*v).map_or(Value::Null, Value::Number),
                )
            })
            .collect();
        return super::output::print_json(&Value::Object(map));
    }
    let mut t = Table::new(&["metric", "value"]);
    for (k, v) in &report {
        t.row(vec![k.clone(), num(*v, 6)]);
    }
    write_stdout(&format!(
        "{} rows, {} classes{}\n\n{}",
        truth.len(),
        proba.n_classes(),
        if proba.n_classes() == 2 {
            format!(", threshold {}", a.threshold)
        } else {
            ", argmax labels".to_string()
        },
        t.render()
    ))
}
