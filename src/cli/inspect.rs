//! `rarity inspect`: what a dataset holds.

use serde::Serialize;

use super::output::{num, print_json, write_stdout, Table};
use super::{DataArgs, Global, OutputFormat};
use rarity::data::read::RowsDropped;
use rarity::error::Result;

/// Arguments of `rarity inspect`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
}

#[derive(Serialize)]
struct Feature {
    name: String,
    /// `numeric` or `categorical` (level codes).
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    min: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mean: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max: Option<f64>,
    /// A categorical feature's number of levels.
    #[serde(skip_serializing_if = "Option::is_none")]
    levels: Option<usize>,
    /// Its rows without a value (a categorical one's: without a level).
    missing: usize,
    /// Its most frequent levels and their rows, most first.
    #[serde(skip_serializing_if = "Option::is_none")]
    top: Option<Vec<Level>>,
}

/// One level of a categorical feature and its rows.
#[derive(Serialize)]
struct Level {
    level: String,
    rows: usize,
}

/// How many of a categorical feature's most frequent levels are shown.
const TOP_LEVELS: usize = 3;

#[derive(Serialize)]
struct Summary {
    source: String,
    n: usize,
    d: usize,
    target: String,
    classes: Vec<String>,
    class_counts: Vec<usize>,
    priors: Vec<f64>,
    imbalance_ratio: f64,
    rows_read: usize,
    dropped_missing: usize,
    dropped_constant: Vec<String>,
    rows_dropped: RowsDropped,
    features: Vec<Feature>,
}

/// Each feature as inspect shows it: a numeric one's min, mean and max, a
/// categorical one's levels, missing rows and most frequent levels.
fn features(ds: &rarity::data::Dataset) -> Vec<Feature> {
    let texts = ds.schema().level_texts();
    let missing = ds.missing_counts();
    ds.feature_names()
        .iter()
        .zip(ds.feature_summary())
        .zip(ds.level_counts())
        .enumerate()
        .map(|(j, ((n, (min, mean, max)), levels))| match levels {
            None => Feature {
                name: n.clone(),
                kind: "numeric",
                min: Some(min),
                mean: Some(mean),
                max: Some(max),
                levels: None,
                missing: missing[j],
                top: None,
            },
            Some((counts, missing)) => {
                let mut order: Vec<usize> = (0..counts.len()).collect();
                order.sort_by(|&a, &b| counts[b].cmp(&counts[a]).then(a.cmp(&b)));
                let top = order
                    .iter()
                    .take(TOP_LEVELS)
                    .filter(|&&l| counts[l] > 0)
                    .map(|&l| Level {
                        level: texts[j].as_ref().map_or(l.to_string(), |t| t[l].clone()),
                        rows: counts[l],
                    })
                    .collect();
                Feature {
                    name: n.clone(),
                    kind: "categorical",
                    min: None,
                    mean: None,
                    max: None,
                    levels: Some(counts.len()),
                    missing,
                    top: Some(top),
                }
            }
        })
        .collect()
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    let (ds, report) = a.data.load_noting(None, g.quiet)?;
    let features = features(&ds);
    let s = Summary {
        source: report.source.clone(),
        n: ds.n_rows(),
        d: ds.n_features(),
        target: ds.schema().target_name.clone(),
        classes: ds.class_names().to_vec(),
        class_counts: ds.class_counts(),
        priors: ds.priors(),
        imbalance_ratio: ds.imbalance_ratio(),
        rows_read: report.rows_read,
        dropped_missing: report.rows_dropped().count,
        rows_dropped: report.rows_dropped(),
        dropped_constant: report.dropped_constant,
        features,
    };
    if g.format == OutputFormat::Json {
        return print_json(&s);
    }
    write_stdout(&text(&s))
}

/// The summary as `rarity inspect` prints it.
fn text(s: &Summary) -> String {
    let mut out = format!(
        "{}\n  rows: {} ({} read, {} dropped for missing values)\n  features: {}\n  target: {}\n  imbalance ratio: {}\n",
        s.source, s.n, s.rows_read, s.dropped_missing, s.d, s.target, num(s.imbalance_ratio, 2)
    );
    if !s.dropped_constant.is_empty() {
        out.push_str(&format!(
            "  constant columns dropped: {}\n",
            s.dropped_constant.join(", ")
        ));
    }
    out.push('\n');
    let mut t = Table::new(&["class", "id", "rows", "prior"]);
    for (k, name) in s.classes.iter().enumerate() {
        let role = match (s.classes.len(), k) {
            (2, 1) => " (positive)",
            (2, 0) => " (negative)",
            _ => "",
        };
        t.text_row(vec![
            format!("{name}{role}"),
            k.to_string(),
            s.class_counts[k].to_string(),
            num(s.priors[k], 4),
        ]);
    }
    out.push_str(&t.to_text());
    out.push('\n');
    let mut t = Table::new(&["feature", "min", "mean", "max", "missing"]);
    let mut c = Table::new(&["categorical", "levels", "missing", "most frequent (rows)"]);
    for f in &s.features {
        match (&f.top, f.min, f.mean, f.max) {
            (Some(top), ..) => c.text_row(vec![
                f.name.clone(),
                f.levels.unwrap_or(0).to_string(),
                f.missing.to_string(),
                top.iter()
                    .map(|l| format!("{} ({})", l.level, l.rows))
                    .collect::<Vec<_>>()
                    .join(", "),
            ]),
            (None, Some(min), Some(mean), Some(max)) => t.text_row(vec![
                f.name.clone(),
                num(min, 4),
                num(mean, 4),
                num(max, 4),
                f.missing.to_string(),
            ]),
            _ => {}
        }
    }
    if s.features.iter().any(|f| f.top.is_none()) {
        out.push_str(&t.to_text());
    }
    if s.features.iter().any(|f| f.top.is_some()) {
        out.push('\n');
        out.push_str(&c.to_text());
    }
    out
}
