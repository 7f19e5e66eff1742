//! Readers: CSV, KEEL `.dat` and ARFF into a [`Dataset`].
//!
//! Conventions (the papers use complete instances only):
//! - Missing values are empty fields, `?` and `NA`. By default incomplete rows
//!   are dropped and counted in [`ReadReport::dropped_missing`];
//!   [`Missing::Error`] makes them an error naming the line and column.
//! - `NaN` and `inf` tokens are errors (they are not missing values, and no
//!   learner can use them).
//! - The target is the last column unless named (by name, or by 0-based
//!   index; `-1` is the last).
//! - Classes: labels that all parse as numbers are ordered numerically,
//!   others lexicographically (KEEL/ARFF: in declared order). For two classes
//!   class 1 is the positive class: the one named by `positive`, else the
//!   minority. Naming a positive label in a multiclass table makes the task
//!   binary, that label against the rest (`not <label>`).
//! - Non-numeric CSV feature columns are an error naming the column unless
//!   [`Categorical::OneHot`] is chosen; KEEL/ARFF nominal inputs are always
//!   one-hot encoded in declared level order. Features are then named
//!   `column=level`, and the mapping is kept in the [`Schema`](super::Schema)
//!   so prediction data is encoded the same way.

mod arff;
mod classes;
mod csv_reader;
mod labels;
mod lines;
mod number;
mod numeric;

use std::path::Path;

use serde::Serialize;

use super::Dataset;
use crate::error::{Error, Result};

pub use classes::assign_classes;

/// What to do with rows that have missing values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Missing {
    /// Drop incomplete rows and count them (the default).
    #[default]
    Drop,
    /// Fail on the first missing value.
    Error,
}

/// What to do with non-numeric feature columns in CSV.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Categorical {
    /// Fail, naming the column (the default).
    #[default]
    Error,
    /// One-hot encode: one 0/1 feature per level.
    OneHot,
}

/// Options shared by all readers.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// Target column: a name, or a 0-based index (`-1` = last). Default: last.
    pub target: Option<String>,
    /// The label of the positive class (binary tasks).
    pub positive: Option<String>,
    /// CSV field delimiter.
    pub delimiter: u8,
    /// Whether the CSV's first line is a header.
    pub has_header: bool,
    /// Non-numeric CSV feature columns.
    pub categorical: Categorical,
    /// Rows with missing values.
    pub missing: Missing,
    /// Drop feature columns that take one value only.
    pub drop_constant: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            target: None,
            positive: None,
            delimiter: b',',
            has_header: true,
            categorical: Categorical::Error,
            missing: Missing::Drop,
            drop_constant: false,
        }
    }
}

/// What a reader did besides producing the table.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ReadReport {
    /// Where the data came from.
    pub source: String,
    /// Data rows read (before dropping).
    pub rows_read: usize,
    /// Rows dropped for missing values.
    pub dropped_missing: usize,
    /// Feature columns dropped as constant.
    pub dropped_constant: Vec<String>,
}

/// File formats rarity reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Delimited text with an optional header.
    Csv,
    /// KEEL `.dat` or Weka ARFF (same header grammar; KEEL adds
    /// `@inputs`/`@outputs` and `[min, max]` ranges).
    Arff,
}

impl Format {
    /// The format implied by a file name: `.dat` and `.arff` are KEEL/ARFF,
    /// anything else is CSV.
    pub fn from_path(path: &Path) -> Format {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("dat") | Some("arff") => Format::Arff,
            _ => Format::Csv,
        }
    }
}

/// Reads a file, choosing the format from its extension.
///
/// ```no_run
/// use rarity::data::read::{read_path, ReadOptions};
/// let (ds, report) = read_path("transactions.csv".as_ref(), &ReadOptions::default()).unwrap();
/// println!("{} rows ({} dropped)", ds.n_rows(), report.dropped_missing);
/// ```
pub fn read_path(path: &Path, opts: &ReadOptions) -> Result<(Dataset, ReadReport)> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    if meta.is_dir() {
        return Err(Error::invalid(format!(
            "{} is a directory, not a data file",
            path.display()
        )));
    }
    let origin = path.display().to_string();
    let reader = std::io::BufReader::with_capacity(1 << 20, file);
    read_from(reader, &origin, Format::from_path(path), meta.len(), opts)
}

/// Reads from any byte source; `origin` names it in messages and
/// `size_hint` (bytes, 0 if unknown) pre-sizes buffers.
///
/// ```
/// use rarity::data::read::{read_from, Format, ReadOptions};
/// let text = "a,b,label\n1,2,no\n3,4,yes\n5,6,no\n";
/// let (ds, _) = read_from(text.as_bytes(), "inline", Format::Csv, 0,
///                         &ReadOptions::default()).unwrap();
/// assert_eq!(ds.class_names(), &["no".to_string(), "yes".to_string()]);
/// assert_eq!(ds.class_counts(), vec![2, 1]);
/// ```
pub fn read_from<R: std::io::Read + Send>(
    reader: R,
    origin: &str,
    format: Format,
    size_hint: u64,
    opts: &ReadOptions,
) -> Result<(Dataset, ReadReport)> {
    let (ds, mut report) = match format {
        Format::Csv => csv_reader::read_csv(reader, origin, size_hint, opts)?,
        Format::Arff => arff::read_arff(reader, origin, opts)?,
    };
    report.source = origin.to_string();
    if opts.drop_constant {
        let cols = ds.constant_columns();
        report.dropped_constant = cols
            .iter()
            .map(|&j| ds.feature_names()[j].clone())
            .collect();
        return Ok((ds.drop_columns(&cols), report));
    }
    Ok((ds, report))
}

/// Reads data to predict on, encoded as the training data of `schema` was
/// (CSV with a header; see the module docs for the rules). The labels of the
/// returned dataset are placeholders.
///
/// ```
/// use rarity::data::read::{read_from, read_with_schema, Categorical, Format, ReadOptions};
/// let train = "colour,size,y\nred,1,a\nblue,2,b\n";
/// let opts = ReadOptions { categorical: Categorical::OneHot, ..ReadOptions::default() };
/// let (ds, _) = read_from(train.as_bytes(), "train", Format::Csv, 0, &opts).unwrap();
/// // Columns in another order, no label column.
/// let new = read_with_schema("size,colour\n5,blue\n".as_bytes(), "new", b',', ds.schema()).unwrap();
/// assert_eq!(new.row(0), &[1.0, 0.0, 5.0]);
/// assert!(read_with_schema("size,colour\n5,green\n".as_bytes(), "new", b',', ds.schema()).is_err());
/// ```
pub fn read_with_schema<R: std::io::Read>(
    reader: R,
    origin: &str,
    delimiter: u8,
    schema: &super::Schema,
) -> Result<Dataset> {
    csv_reader::read_with_schema(reader, origin, delimiter, schema, false)
}

/// Reads an unlabelled target population for a training set of `schema`:
/// as [`read_with_schema`], but its columns must be exactly the training
/// set's (its label column may be present or not); a column the training
/// set lacks, or a missing one, is an error naming them.
///
/// ```
/// use rarity::data::read::{read_from, read_population, Format, ReadOptions};
/// let (ds, _) = read_from("a,b,y\n1,2,p\n3,4,n\n".as_bytes(), "train", Format::Csv, 0, &ReadOptions::default()).unwrap();
/// assert!(read_population("b,a\n5,6\n".as_bytes(), "t", b',', ds.schema()).is_ok());
/// let e = read_population("a,b,c\n5,6,7\n".as_bytes(), "t", b',', ds.schema()).unwrap_err();
/// assert!(e.to_string().contains("has columns the training set lacks: c"), "{e}");
/// let e = read_population("a\n5\n".as_bytes(), "t", b',', ds.schema()).unwrap_err();
/// assert!(e.to_string().contains("lacks columns of the training set: b"), "{e}");
/// ```
pub fn read_population<R: std::io::Read>(
    reader: R,
    origin: &str,
    delimiter: u8,
    schema: &super::Schema,
) -> Result<Dataset> {
    csv_reader::read_with_schema(reader, origin, delimiter, schema, true)
}

/// Resolves a target spec (name, or 0-based index, `-1` = last) against the
/// column names.
pub(crate) fn resolve_target(spec: Option<&str>, names: &[String], origin: &str) -> Result<usize> {
    let Some(spec) = spec else {
        return names
            .len()
            .checked_sub(1)
            .ok_or_else(|| parse_err(origin, "no columns"));
    };
    if let Some(i) = names.iter().position(|n| n == spec) {
        return Ok(i);
    }
    if let Ok(i) = spec.parse::<i64>() {
        let n = names.len() as i64;
        let idx = if i < 0 { n + i } else { i };
        if (0..n).contains(&idx) {
            return Ok(idx as usize);
        }
    }
    Err(Error::invalid(format!(
        "{origin}: target column '{spec}' not found; columns are: {}",
        names.join(", ")
    )))
}

pub(crate) fn parse_err(origin: &str, msg: impl Into<String>) -> Error {
    Error::Parse {
        origin: origin.to_string(),
        message: msg.into(),
    }
}

/// Is this (trimmed) field a missing value marker?
pub(crate) fn is_missing(field: &[u8]) -> bool {
    matches!(field, b"" | b"?" | b"NA")
}

/// Parses a trimmed numeric field; `Ok(None)` if it is not a number,
/// an error if it is a non-finite token (`NaN`, `inf`).
pub(crate) fn parse_number(
    field: &[u8],
    origin: &str,
    line: u64,
    column: &str,
) -> Result<Option<f64>> {
    match number::parse_f64(field) {
        Some(v) if v.is_finite() => Ok(Some(v)),
        Some(_) => Err(parse_err(
            origin,
            format!(
                "line {line}, column '{column}': '{}' is not a finite number; \
                 mark missing values with an empty field or '?'",
                String::from_utf8_lossy(field)
            ),
        )),
        None => Ok(None),
    }
}

pub(crate) fn trim(field: &[u8]) -> &[u8] {
    field.trim_ascii()
}
