//! Files of scores and predictions: reading true labels with predicted
//! probabilities (what `rarity score` measures), and writing a model's
//! predictions (what `rarity predict` produces: one `p_<class>` column per
//! class and the decided `label`).
//!
//! Binary: one probability column, the probability of the positive class
//! (the label named by `positive`, else `1` if present, else the last label
//! in sorted order; see [`positive_label`] for files where one label
//! appears). Multiclass: one probability column per class, in class
//! order. Classes are named by the columns when every column is `p_<label>`
//! (as predictions files name them), else the labels must be the class ids
//! `0..k-1`.

use std::path::Path;

use super::read::{read_path, read_with_schema, ReadOptions};
use super::write::{Block, Column, ColumnSpec, TableFormat, TableWriter};
use super::{Proba, Schema};
use crate::error::{Error, Result};

/// Which columns of a scores file hold what.
#[derive(Debug, Clone)]
pub struct ScoresSpec {
    /// The column of true labels.
    pub truth: String,
    /// The probability column(s): one for binary, one per class beyond.
    pub proba: Vec<String>,
    /// The positive label (binary; default `1`, else the last label).
    pub positive: Option<String>,
    /// The field delimiter.
    pub delimiter: u8,
}

/// The positive label of binary scores whose true labels take the values
/// `names`: `positive` if given, else `1` if present, else the last label in
/// sorted order. When fewer than two labels appear (a batch without a single
/// fraud), the positive class may be absent: `positive` if given; else `1`
/// when the one label is `0` or `-1` (scikit-learn's convention for
/// `pos_label=None`); else an error, since the one label could be either
/// class.
///
/// ```
/// use rarity::data::scores::positive_label;
/// let names = vec!["no".to_string(), "yes".to_string()];
/// assert_eq!(positive_label(&names, None).unwrap(), "yes");
/// assert_eq!(positive_label(&["1".into(), "0".into()], None).unwrap(), "1");
/// assert!(positive_label(&names, Some("maybe")).is_err());
/// // Only negatives: the positive class is absent.
/// assert_eq!(positive_label(&["0".into()], None).unwrap(), "1");
/// assert_eq!(positive_label(&["no".into()], Some("yes")).unwrap(), "yes");
/// assert!(positive_label(&["no".into()], None).is_err());
/// ```
pub fn positive_label(names: &[String], positive: Option<&str>) -> Result<String> {
    let one = names.len() < 2;
    let label = match positive {
        Some(p) => p.to_string(),
        None if names.iter().any(|l| l == "1") => "1".to_string(),
        None if one && names.iter().all(|l| l == "0" || l == "-1") => "1".to_string(),
        None if one => {
            return Err(Error::invalid(format!(
                "only one label ('{}') appears, so it could be either class: name the \
                 positive class (--positive, or pos_label in Python)",
                names.join("")
            )))
        }
        None => {
            let mut sorted = names.to_vec();
            sorted.sort();
            sorted.last().cloned().unwrap_or_default()
        }
    };
    if !names.contains(&label) && !one {
        return Err(Error::invalid(format!(
            "positive label '{label}' not found; labels are: {}",
            names.join(", ")
        )));
    }
    Ok(label)
}

/// Reads true labels and probabilities: the class ids and the `n x k`
/// matrix. Every row must be complete and every probability in `[0, 1]`.
pub fn read_scores(path: &Path, spec: &ScoresSpec) -> Result<(Vec<u32>, Proba)> {
    let opts = ReadOptions {
        target: Some(spec.truth.clone()),
        delimiter: spec.delimiter,
        ..ReadOptions::default()
    };
    let (ds, report) = read_path(path, &opts)?;
    if report.dropped_missing > 0 {
        return Err(Error::data(format!(
            "{}: {} rows have missing values; scores need every row",
            path.display(),
            report.dropped_missing
        )));
    }
    let cols: Vec<usize> = spec
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
        // With one label in the file, a predictions column `p_<label>` (as
        // `rarity predict` names them) says which class it scores.
        let hint = spec.proba[0].strip_prefix("p_").filter(|_| names.len() < 2);
        let positive = positive_label(names, spec.positive.as_deref().or(hint))?;
        let truth = (0..n)
            .map(|i| u32::from(names[ds.label(i)] == positive))
            .collect();
        let p: Vec<f64> = (0..n).map(|i| ds.value(i, cols[0])).collect();
        check_range(&p, &spec.proba)?;
        return Ok((truth, Proba::from_positive(&p)));
    }
    let k = cols.len();
    let class_of = column_classes(&spec.proba);
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
    check_range(&values, &spec.proba)?;
    Ok((truth, Proba::new(values, k)))
}

/// The classes probability columns stand for: `<label>` of every column
/// when all are named `p_<label>`, else `0..k-1`; one column is the
/// positive class's probability of a binary task (classes `0` and `1`).
fn column_classes(columns: &[String]) -> Vec<String> {
    if columns.len() == 1 {
        return vec!["0".into(), "1".into()];
    }
    if columns.iter().all(|c| c.starts_with("p_")) {
        columns.iter().map(|c| c[2..].to_string()).collect()
    } else {
        (0..columns.len()).map(|c| c.to_string()).collect()
    }
}

/// Checks that every value of a row-major table of probability `columns`
/// lies in `[0, 1]`; the error names the row and the column.
fn check_range(values: &[f64], columns: &[String]) -> Result<()> {
    match values.iter().position(|v| !(0.0..=1.0).contains(v)) {
        Some(i) => Err(Error::data(format!(
            "row {}, column '{}': probability {} is outside [0, 1]",
            i / columns.len() + 1,
            columns[i % columns.len()],
            values[i]
        ))),
        None => Ok(()),
    }
}

/// Reads probability columns without labels (the scores of any model, to
/// recalibrate): the `n x k` matrix (one column: the positive class's
/// probability) and the class names (see [`column_classes`]). Other columns
/// are ignored; every row must be complete and every value in `[0, 1]`.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("rarity-doc-scores-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let f = dir.join("s.csv");
/// std::fs::write(&f, "id,score\na,0.25\nb,0.75\n").unwrap();
/// let (p, classes) = rarity::data::scores::read_probabilities(&f, &["score".into()], b',').unwrap();
/// assert_eq!((p.row(1), classes.len()), (&[0.25, 0.75][..], 2));
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn read_probabilities(
    path: &Path,
    columns: &[String],
    delimiter: u8,
) -> Result<(Proba, Vec<String>)> {
    let classes = column_classes(columns);
    let schema = Schema::numeric(columns.to_vec(), classes.clone());
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let ds = read_with_schema(file, &path.display().to_string(), delimiter, &schema)?;
    check_range(ds.features(), columns)?;
    let proba = if columns.len() == 1 {
        Proba::from_positive(ds.features())
    } else {
        Proba::new(ds.features().to_vec(), columns.len())
    };
    Ok((proba, classes))
}

/// The columns of a predictions table: the identifier columns, one
/// `p_<class>` per class, and `label`.
pub fn prediction_columns(ids: &[String], class_names: &[String]) -> Vec<ColumnSpec> {
    ids.iter()
        .map(ColumnSpec::text)
        .chain(
            class_names
                .iter()
                .map(|c| ColumnSpec::number(format!("p_{c}"))),
        )
        .chain(std::iter::once(ColumnSpec::text("label")))
        .collect()
}

/// A block of predictions: `ids` (row-major, one per identifier column),
/// the probabilities and the decided class ids.
pub fn prediction_block<'a>(
    ids: &'a [String],
    n_ids: usize,
    class_names: &'a [String],
    proba: &'a Proba,
    labels: &'a [u32],
) -> Block<'a> {
    let mut columns: Vec<Column> = (0..n_ids)
        .map(|j| Column::Text {
            values: ids,
            width: n_ids,
            j,
        })
        .collect();
    columns.extend(Column::matrix(proba.values(), proba.n_classes()));
    columns.push(Column::Names {
        ids: labels,
        names: class_names,
    });
    Block {
        rows: labels.len(),
        columns,
    }
}

/// Writes predictions atomically: a header `p_<class>,...,label`, then per
/// row the class probabilities (shortest round-trip decimals) and the
/// decided class name. Parquet when `path` ends in `.parquet`.
pub fn write_predictions(
    path: &Path,
    class_names: &[String],
    proba: &Proba,
    labels: &[u32],
) -> Result<()> {
    let mut w = TableWriter::create(
        path,
        TableFormat::from_path(path),
        prediction_columns(&[], class_names),
    )?;
    w.write(&prediction_block(&[], 0, class_names, proba, labels))?;
    w.commit()
}
