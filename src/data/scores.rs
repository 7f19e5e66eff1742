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
    /// The column of true labels; `None`: the one column of the file that
    /// is not one `rarity predict` writes (see [`truth_column`]).
    pub truth: Option<String>,
    /// The probability column(s): one for binary, one per class beyond.
    pub proba: Vec<String>,
    /// The positive label (binary; default `1`, else the last label).
    pub positive: Option<String>,
    /// The field delimiter.
    pub delimiter: u8,
    /// Which decided labels score the thresholded metrics.
    pub decided: Decided,
}

/// Which labels the thresholded metrics of a scores file score.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decided {
    /// `rarity predict`'s `label` column when the file has one (the labels
    /// its model decided, by whatever rule), else the threshold.
    Auto,
    /// The labels of this column.
    Column(String),
    /// Labels decided anew at the threshold (binary) or by the argmax.
    Threshold,
}

/// What a scores file holds: the true class ids, the probabilities and,
/// when a decided column was read, its labels as class ids.
#[derive(Debug, Clone)]
pub struct Scores {
    /// The true class ids.
    pub truth: Vec<u32>,
    /// The probabilities (`n x k`).
    pub proba: Proba,
    /// The decided labels as class ids, when a column of them was read
    /// ([`ScoresSpec::decided`]).
    pub decided: Option<Vec<u32>>,
    /// The column of decided labels read.
    pub decided_column: Option<String>,
    /// The column of true labels read.
    pub truth_column: String,
}

/// Whether `name` is a column `rarity predict` writes: a probability
/// `p_<class>`, the decided `label`, reason codes and contributions.
fn predicted_column(name: &str) -> bool {
    name == "label"
        || name == "base_value"
        || name.starts_with("p_")
        || ["reason_", "value_", "contribution_"].iter().any(|p| {
            name.strip_prefix(p)
                .is_some_and(|k| k.parse::<usize>().is_ok())
        })
}

/// The column of true labels when none is named: the one column of
/// `names` that `rarity predict` does not write (it keeps the table's
/// target under its own name); an error naming the candidates when there
/// are none or several (identifier columns).
///
/// ```
/// use rarity::data::scores::truth_column;
/// let cols = |c: &[&str]| c.iter().map(|s| s.to_string()).collect::<Vec<_>>();
/// assert_eq!(truth_column(&cols(&["class", "p_0", "p_1", "label"])).unwrap(), "class");
/// assert!(truth_column(&cols(&["id", "class", "p_1", "label"])).is_err());
/// ```
pub fn truth_column(names: &[String]) -> Result<String> {
    let candidates: Vec<&String> = names.iter().filter(|n| !predicted_column(n)).collect();
    match candidates[..] {
        [one] => Ok(one.clone()),
        [] => Err(Error::invalid(
            "no column of true labels: the file has only predictions (p_<class>, label); \
             predict on a table that has the target column, or give --truth COL",
        )),
        _ => Err(Error::invalid(format!(
            "which column holds the true labels? give --truth COL (one of: {})",
            candidates
                .iter()
                .map(|c| c.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
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
/// matrix, and the decided labels when `spec` names their column. Every
/// row must be complete and every probability in `[0, 1]`. Of a file (not
/// standard input) only the columns named are read, so identifier columns
/// of any type pass; the truth column may then go unnamed.
pub fn read_scores(path: &Path, spec: &ScoresSpec) -> Result<Scores> {
    let (truth, decided, drop) = chosen_columns(path, spec)?;
    let opts = ReadOptions {
        target: Some(truth.clone()),
        delimiter: spec.delimiter,
        categorical_cols: decided.iter().cloned().collect(),
        drop,
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
    let column = |c: &String| {
        ds.feature_names()
            .iter()
            .position(|f| f == c)
            .ok_or_else(|| {
                Error::invalid(format!(
                    "probability column '{c}' not found; columns are: {}",
                    ds.feature_names().join(", ")
                ))
            })
    };
    let cols: Vec<usize> = spec.proba.iter().map(column).collect::<Result<_>>()?;
    let decided_text = decided.as_ref().map(|c| level_texts(&ds, c)).transpose()?;
    let (names, n) = (ds.class_names(), ds.n_rows());
    let (truth_ids, proba, decided_ids) = if cols.len() == 1 {
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
        let truth_ids = (0..n)
            .map(|i| u32::from(names[ds.label(i)] == positive))
            .collect();
        let p: Vec<f64> = (0..n).map(|i| ds.value(i, cols[0])).collect();
        check_range(&p, &spec.proba)?;
        let decided = decided_text.map(|t| t.iter().map(|l| u32::from(*l == positive)).collect());
        (truth_ids, Proba::from_positive(&p), decided)
    } else {
        let k = cols.len();
        let class_of = column_classes(&spec.proba);
        let id_of = |l: &str| {
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
        };
        let map: Vec<u32> = names.iter().map(|l| id_of(l)).collect::<Result<_>>()?;
        let truth_ids = (0..n).map(|i| map[ds.label(i)]).collect();
        let mut values = Vec::with_capacity(n * k);
        for i in 0..n {
            values.extend(cols.iter().map(|&c| ds.value(i, c)));
        }
        check_range(&values, &spec.proba)?;
        let decided = decided_text
            .map(|t| t.iter().map(|l| id_of(l)).collect::<Result<Vec<_>>>())
            .transpose()?;
        (truth_ids, Proba::new(values, k), decided)
    };
    Ok(Scores {
        truth: truth_ids,
        proba,
        decided: decided_ids,
        decided_column: decided,
        truth_column: truth,
    })
}

/// The truth column, the decided-labels column (if any) and the columns to
/// leave out: of a file, its header is read first, every named column must
/// be in it and the others are dropped (so identifier columns of any type
/// pass, and the truth column may go unnamed: [`truth_column`]); standard
/// input is read once, whole, and must name its truth column.
fn chosen_columns(path: &Path, spec: &ScoresSpec) -> Result<(String, Option<String>, Vec<String>)> {
    let names = if super::write::is_stdio(path) {
        None
    } else {
        Some(
            super::read::Table::open(path, &ReadOptions::default())?
                .names()
                .to_vec(),
        )
    };
    let truth = match (&spec.truth, &names) {
        (Some(t), _) => t.clone(),
        (None, Some(names)) => truth_column(names)?,
        (None, None) => {
            return Err(Error::invalid(
                "scores from standard input need --truth COL",
            ))
        }
    };
    // `auto`: predict's `label` column, unless it is the truth itself (a
    // file of true labels named `label` and probabilities).
    let decided = match (&spec.decided, &names) {
        (Decided::Column(c), _) => Some(c.clone()),
        (Decided::Auto, Some(n)) if truth != "label" && n.iter().any(|c| c == "label") => {
            Some("label".to_string())
        }
        _ => None,
    };
    let Some(names) = names else {
        return Ok((truth, decided, Vec::new()));
    };
    let used: Vec<&String> = std::iter::once(&truth)
        .chain(&spec.proba)
        .chain(&decided)
        .collect();
    let (what, first) = (
        ["target", "probability", "decided-labels"],
        1 + spec.proba.len(),
    );
    for (i, c) in used.iter().enumerate() {
        if !names.contains(c) {
            let kind = what[if i == 0 {
                0
            } else if i < first {
                1
            } else {
                2
            }];
            return Err(Error::invalid(format!(
                "{}: {kind} column '{c}' not found; columns are: {}",
                path.display(),
                names.join(", ")
            )));
        }
    }
    let drop = names.into_iter().filter(|c| !used.contains(&c)).collect();
    Ok((truth, decided, drop))
}

/// The level text of every row of the categorical column `c` of `ds`.
fn level_texts<'a>(ds: &'a super::Dataset, c: &str) -> Result<Vec<&'a str>> {
    let j = ds.feature_names().iter().position(|f| f == c);
    let levels = ds.schema().encodings.iter().find_map(|e| match e {
        crate::data::ColumnEncoding::Categorical { name, levels } if name == c => Some(levels),
        _ => None,
    });
    let (Some(j), Some(levels)) = (j, levels) else {
        return Err(Error::invalid(format!(
            "column '{c}' of decided labels is not read as labels"
        )));
    };
    Ok((0..ds.n_rows())
        .map(|i| levels[ds.value(i, j) as usize].as_str())
        .collect())
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
