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
    min: f64,
    mean: f64,
    max: f64,
    missing: usize,
}

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

pub fn run(g: &Global, a: &Args) -> Result<()> {
    // No strategy to settle `auto` for: the complete rows are described, as
    // before missing values could be kept; `--missing keep` counts them per
    // column.
    let (ds, report) = a.data.load_noting(None, g.quiet)?;
    let missing = ds.missing_counts();
    let features = ds
        .feature_names()
        .iter()
        .zip(ds.feature_summary())
        .zip(missing)
        .map(|((n, (min, mean, max)), missing)| Feature {
            name: n.clone(),
            min,
            mean,
            max,
            missing,
        })
        .collect();
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
    for f in &s.features {
        t.text_row(vec![
            f.name.clone(),
            num(f.min, 4),
            num(f.mean, 4),
            num(f.max, 4),
            f.missing.to_string(),
        ]);
    }
    out.push_str(&t.to_text());
    write_stdout(&out)
}
