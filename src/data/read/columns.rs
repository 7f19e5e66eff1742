//! Tables given column by column (the Python package's DataFrames and Arrow
//! tables), encoded exactly as the CSV reader encodes a file with
//! `--categorical one-hot`: a text column whose values all parse as finite
//! numbers is numeric; any other text column is one-hot encoded with its
//! levels sorted, features named `column=level`, at most [`MAX_LEVELS`]
//! levels (the reading rules of [`rows`](super::rows)); values are trimmed,
//! empty, `?` and `NA` texts are missing, and `NaN` / `inf` texts are
//! errors. A missing value is kept as the readers' `--missing keep` keeps
//! one: NaN (in each of a one-hot column's features; a NaN code), for the
//! strategy to take or refuse (the caller drops incomplete rows first for
//! `--missing drop`). Rows are counted from 0 in messages, as the tables'
//! own indices count them.
//!
//! Data to predict on is encoded with the training [`Schema`]: columns are
//! found by name (any order; others are ignored), levels map to the training
//! one-hot columns (an unseen level is an error, or with
//! [`Unknown::Ignore`] all zeros) and features the training data dropped are
//! dropped again, as [`read_with_schema`](super::read_with_schema) does for
//! CSV.

use std::borrow::Cow;

use rayon::prelude::*;

use super::is_missing;
use super::level_table::level_code;
use super::number::number;
use super::quote::quoted;
use super::rows::{check_unique_names, feature_names_of, Unknown, MAX_LEVELS};
use super::{KeyColumn, KeyKind};
use crate::data::{ColumnEncoding, Schema};
use crate::error::{Error, Result};

/// The values of one column.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnValues<'a> {
    /// Numbers (borrowed when the caller already holds them as `f64`).
    Numbers(Cow<'a, [f64]>),
    /// Texts; `None` is a missing value.
    Text(Vec<Option<String>>),
}

/// A named column.
#[derive(Debug, Clone, PartialEq)]
pub struct Column<'a> {
    /// The column's name.
    pub name: String,
    /// Its values, one per row.
    pub values: ColumnValues<'a>,
}

impl Column<'_> {
    fn len(&self) -> usize {
        match &self.values {
            ColumnValues::Numbers(v) => v.len(),
            ColumnValues::Text(v) => v.len(),
        }
    }

    /// The column's text at `row` (trimmed), or the error of a missing value.
    fn text(&self, row: usize) -> Result<Option<&str>> {
        match &self.values {
            ColumnValues::Numbers(_) => Ok(None),
            ColumnValues::Text(_) => match self.cell(row) {
                Some(t) => Ok(Some(t)),
                None => Err(Error::data(format!(
                    "row {}, column '{}': missing value",
                    row + 1,
                    self.name
                ))),
            },
        }
    }

    /// A text column's value at `row`, trimmed; `None` when it is missing
    /// (or the column holds numbers).
    fn cell(&self, row: usize) -> Option<&str> {
        match &self.values {
            ColumnValues::Numbers(_) => None,
            ColumnValues::Text(v) => v[row]
                .as_deref()
                .map(super::trim_text)
                .filter(|t| !is_missing(t.as_bytes())),
        }
    }

    /// Whether the value at `row` is missing (NaN, or a missing text).
    pub fn is_missing_at(&self, row: usize) -> bool {
        match &self.values {
            ColumnValues::Numbers(v) => v[row].is_nan(),
            ColumnValues::Text(_) => self.cell(row).is_none(),
        }
    }
}

/// How a column becomes features: numbers as they are, texts parsed as
/// numbers, or texts one-hot encoded.
fn encoding_of(c: &Column<'_>) -> Result<ColumnEncoding> {
    let name = c.name.clone();
    let ColumnValues::Text(values) = &c.values else {
        return Ok(ColumnEncoding::Numeric { name });
    };
    let mut numeric = true;
    for row in (0..values.len()).filter(|&r| !c.is_missing_at(r)) {
        match number_at(c, row)? {
            Some(_) => {}
            None => {
                numeric = false;
                break;
            }
        }
    }
    if numeric {
        return Ok(ColumnEncoding::Numeric { name });
    }
    let mut levels: Vec<String> = (0..values.len())
        .filter_map(|r| c.cell(r).map(str::to_string))
        .collect();
    levels.sort();
    levels.dedup();
    if levels.len() > MAX_LEVELS {
        return Err(Error::data(format!(
            "column '{name}' has more than {MAX_LEVELS} distinct values, '{}' among them, too \
             many to one-hot encode; if it is an identifier, leave it out of the table",
            levels[0]
        )));
    }
    Ok(ColumnEncoding::OneHot { name, levels })
}

/// The position of `key`'s column and that column read as the key (a
/// numeric column as it is).
fn key_column<'a>(columns: &[Column<'a>], key: &KeyColumn) -> Result<(usize, Column<'a>)> {
    let what = match key.kind {
        KeyKind::Time => "time column",
        KeyKind::Group => "group column",
    };
    let j = columns
        .iter()
        .position(|c| c.name == key.name)
        .ok_or_else(|| {
            Error::invalid(format!(
                "{what} '{}' is not a column of the features; columns are: {}",
                key.name,
                columns
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
    let c = &columns[j];
    if let ColumnValues::Numbers(_) = c.values {
        return Ok((j, c.clone()));
    }
    let n = c.len();
    let values: Vec<f64> = match key.kind {
        KeyKind::Time => (0..n)
            .map(|r| {
                let t = c.text(r)?.expect("a text column");
                super::dates::time_value(t.as_bytes(), b'.')
                    .map_err(|why| Error::data(format!("row {r}, time column '{}': {why}", c.name)))
            })
            .collect::<Result<_>>()?,
        KeyKind::Group => {
            let texts: Vec<&str> = (0..n)
                .map(|r| Ok(c.text(r)?.expect("a text column")))
                .collect::<Result<_>>()?;
            let numbers: Option<Vec<f64>> = texts
                .iter()
                .map(|t| number(t.as_bytes(), b'.').ok().flatten())
                .collect();
            match numbers {
                Some(v) => v,
                None => {
                    let mut sorted = texts.clone();
                    sorted.sort_unstable();
                    sorted.dedup();
                    texts
                        .iter()
                        .map(|t| sorted.binary_search(t).map_or(0.0, |i| i as f64))
                        .collect()
                }
            }
        }
    };
    Ok((
        j,
        Column {
            name: c.name.clone(),
            values: ColumnValues::Numbers(Cow::Owned(values)),
        },
    ))
}

/// The number text column `c` holds at `row` as the readers parse it
/// (`None`: not a number); an error for a missing value or a non-finite
/// token.
fn number_at(c: &Column<'_>, row: usize) -> Result<Option<f64>> {
    let t = c.text(row)?.expect("a text column");
    number(t.as_bytes(), b'.').map_err(|()| {
        Error::data(format!(
            "row {row}, column '{}': '{t}' is not a finite number",
            c.name
        ))
    })
}

fn check_lengths(columns: &[&Column<'_>]) -> Result<usize> {
    let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
    check_unique_names(&names, "the table")?;
    let n = columns.first().map_or(0, |c| c.len());
    if let Some(c) = columns.iter().find(|c| c.len() != n) {
        return Err(Error::invalid(format!(
            "column '{}' has {} values, but column '{}' has {n}",
            c.name,
            c.len(),
            columns[0].name
        )));
    }
    Ok(n)
}

/// Writes the features of `columns` (encoded by `kinds`, one per column)
/// into a row-major buffer, a missing value NaN (in each of a one-hot
/// column's features) and a level `kinds` does not know an error, or with
/// [`Unknown::Ignore`] all zeros; rows are encoded in parallel blocks.
fn encode(
    columns: &[&Column<'_>],
    kinds: &[ColumnEncoding],
    n: usize,
    unknown: Unknown,
) -> Result<Vec<f64>> {
    /// Rows encoded per parallel task.
    const BLOCK: usize = 4096;
    let d: usize = kinds.iter().map(ColumnEncoding::width).sum();
    let mut x = crate::mem::zeroed(n * d);
    if d == 0 {
        return Ok(x);
    }
    // Sorted levels (the readers' order) are searched by bisection.
    let sorted: Vec<bool> = kinds
        .iter()
        .map(|k| match k {
            ColumnEncoding::Categorical { levels, .. } => levels.is_sorted(),
            _ => false,
        })
        .collect();
    x.par_chunks_mut(BLOCK * d)
        .enumerate()
        .try_for_each(|(b, out)| -> Result<()> {
            let r0 = b * BLOCK;
            let mut offset = 0;
            for ((c, kind), &sorted) in columns.iter().zip(kinds).zip(&sorted) {
                let width = kind.width();
                for (i, row) in out.chunks_exact_mut(d).enumerate() {
                    let r = r0 + i;
                    let cell = &mut row[offset..offset + width];
                    if matches!(c.values, ColumnValues::Text(_)) && c.cell(r).is_none() {
                        cell.iter_mut().for_each(|v| *v = f64::NAN);
                        continue;
                    }
                    match (&c.values, kind) {
                        (ColumnValues::Numbers(v), ColumnEncoding::Numeric { .. }) => {
                            cell[0] = v[r];
                        }
                        (ColumnValues::Text(_), ColumnEncoding::Numeric { name }) => {
                            cell[0] = number_at(c, r)?.ok_or_else(|| {
                                Error::data(format!(
                                    "row {r}, column '{name}': '{}' is not a number",
                                    quoted(c.text(r).ok().flatten().unwrap_or_default().as_bytes())
                                ))
                            })?;
                        }
                        (ColumnValues::Text(_), ColumnEncoding::OneHot { name, levels }) => {
                            let t = c.text(r)?.expect("a text column");
                            cell.iter_mut().for_each(|v| *v = 0.0);
                            match levels.iter().position(|l| l == t) {
                                Some(pos) => cell[pos] = 1.0,
                                None if unknown == Unknown::Ignore => {}
                                None => {
                                    return Err(Error::data(format!(
                                        "row {r}, column '{name}': level '{}' is not a known \
                                         level; known levels: {}",
                                        quoted(t.as_bytes()),
                                        levels.join(", ")
                                    )))
                                }
                            }
                        }
                        (ColumnValues::Text(_), ColumnEncoding::Categorical { levels, .. }) => {
                            cell[0] = c
                                .text(r)?
                                .and_then(|t| {
                                    if sorted {
                                        level_code(levels, t)
                                    } else {
                                        levels.iter().position(|l| l == t)
                                    }
                                })
                                .map_or(f64::NAN, |p| p as f64);
                        }
                        (ColumnValues::Numbers(_), ColumnEncoding::Categorical { name, .. }) => {
                            return Err(Error::data(format!(
                                "column '{name}' holds numbers, but the model reads it as a \
                                 categorical text column"
                            )))
                        }
                        (ColumnValues::Numbers(_), ColumnEncoding::OneHot { name, .. }) => {
                            return Err(Error::data(format!(
                                "column '{name}' holds numbers, but the model one-hot encodes \
                                 it as text"
                            )))
                        }
                    }
                }
                offset += width;
            }
            Ok(())
        })?;
    Ok(x)
}

/// The features of a table given by columns, with how each column was
/// encoded (see the module doc).
///
/// ```
/// use std::borrow::Cow;
/// use rarity::data::read::{encode_columns, Column, ColumnValues};
/// let cols = vec![
///     Column { name: "size".into(), values: ColumnValues::Numbers(Cow::Borrowed(&[1.0, 2.0])) },
///     Column { name: "colour".into(), values: ColumnValues::Text(vec![Some("red".into()), Some("blue".into())]) },
/// ];
/// let (x, kinds) = encode_columns(&cols).unwrap();
/// assert_eq!(x, vec![1.0, 0.0, 1.0, 2.0, 1.0, 0.0]);
/// assert_eq!(kinds[1].width(), 2); // colour=blue, colour=red
/// ```
pub fn encode_columns(columns: &[Column<'_>]) -> Result<(Vec<f64>, Vec<ColumnEncoding>)> {
    encode_columns_keyed(columns, None)
}

/// [`encode_columns`] with `key`'s column read as the readers read a time
/// or group key ([`KeyColumn`]): text times as seconds since 1970, text
/// group ids numbered in sorted order; numbers as they are.
///
/// ```
/// use std::borrow::Cow;
/// use rarity::data::read::{encode_columns_keyed, Column, ColumnValues, KeyColumn, KeyKind};
/// let text = |v: &[&str]| ColumnValues::Text(v.iter().map(|s| Some(s.to_string())).collect());
/// let cols = vec![
///     Column { name: "day".into(), values: text(&["1970-01-02", "1970-01-01T00:00:30"]) },
///     Column { name: "card".into(), values: text(&["C9", "C10"]) },
/// ];
/// let key = |name: &str, kind| KeyColumn { name: name.into(), kind };
/// let (x, _) = encode_columns_keyed(&cols[..1], Some(&key("day", KeyKind::Time))).unwrap();
/// assert_eq!(x, vec![86_400.0, 30.0]);
/// let (x, _) = encode_columns_keyed(&cols[1..], Some(&key("card", KeyKind::Group))).unwrap();
/// assert_eq!(x, vec![1.0, 0.0]); // "C10" sorts before "C9"
/// ```
pub fn encode_columns_keyed(
    columns: &[Column<'_>],
    key: Option<&KeyColumn>,
) -> Result<(Vec<f64>, Vec<ColumnEncoding>)> {
    let keyed = match key {
        Some(k) => Some(key_column(columns, k)?),
        None => None,
    };
    let refs: Vec<&Column<'_>> = columns
        .iter()
        .enumerate()
        .map(|(j, c)| match &keyed {
            Some((k, kc)) if *k == j => kc,
            _ => c,
        })
        .collect();
    let n = check_lengths(&refs)?;
    let kinds = refs
        .iter()
        .map(|c| encoding_of(c))
        .collect::<Result<Vec<_>>>()?;
    Ok((encode(&refs, &kinds, n, Unknown::Error)?, kinds))
}

/// The features of a table given by columns, encoded as the training data
/// of `schema` was (see the module doc): a level the model does not know
/// an error, or with [`Unknown::Ignore`] all zeros.
///
/// ```
/// use std::borrow::Cow;
/// use rarity::data::read::{encode_columns, encode_columns_with_schema, Column, ColumnValues, Unknown};
/// use rarity::data::{Schema, ColumnEncoding};
/// let text = |v: &[&str]| ColumnValues::Text(v.iter().map(|s| Some(s.to_string())).collect());
/// let train = vec![Column { name: "colour".into(), values: text(&["red", "blue"]) }];
/// let (_, kinds) = encode_columns(&train).unwrap();
/// let schema = Schema { feature_names: vec!["colour=blue".into(), "colour=red".into()],
///     class_names: vec!["a".into(), "b".into()], encodings: kinds, target_name: "y".into() };
/// let new = vec![
///     Column { name: "other".into(), values: ColumnValues::Numbers(Cow::Owned(vec![5.0])) },
///     Column { name: "colour".into(), values: text(&["blue"]) },
/// ];
/// assert_eq!(encode_columns_with_schema(&new, &schema, Unknown::Error).unwrap(), vec![1.0, 0.0]);
/// let unseen = vec![Column { name: "colour".into(), values: text(&["green"]) }];
/// assert!(encode_columns_with_schema(&unseen, &schema, Unknown::Error).is_err());
/// assert_eq!(encode_columns_with_schema(&unseen, &schema, Unknown::Ignore).unwrap(), vec![0.0, 0.0]);
/// ```
pub fn encode_columns_with_schema(
    columns: &[Column<'_>],
    schema: &Schema,
    unknown: Unknown,
) -> Result<Vec<f64>> {
    let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
    check_unique_names(&names, "the table")?;
    let picked: Vec<&Column<'_>> = schema
        .encodings
        .iter()
        .map(|e| {
            columns.iter().find(|c| c.name == e.name()).ok_or_else(|| {
                Error::data(format!(
                    "column '{}' used by the model is missing; columns are: {}",
                    e.name(),
                    columns
                        .iter()
                        .map(|c| c.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })
        })
        .collect::<Result<_>>()?;
    let n = check_lengths(&picked)?;
    let full = encode(&picked, &schema.encodings, n, unknown)?;
    let full_names = feature_names_of(&schema.encodings);
    if full_names == schema.feature_names {
        return Ok(full);
    }
    let keep: Vec<usize> = schema
        .feature_names
        .iter()
        .map(|f| {
            full_names.iter().position(|n| n == f).ok_or_else(|| {
                Error::invalid(format!("the model's feature '{f}' has no source column"))
            })
        })
        .collect::<Result<_>>()?;
    let width = full_names.len();
    let mut x = Vec::with_capacity(n * keep.len());
    for row in full.chunks(width.max(1)) {
        x.extend(keep.iter().map(|&j| row[j]));
    }
    Ok(x)
}

/// Feature names of encoded columns: `column` or `column=level`.
pub fn feature_names(kinds: &[ColumnEncoding]) -> Vec<String> {
    feature_names_of(kinds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::read::{read_from, Categorical, Format, ReadOptions};

    fn text(v: &[&str]) -> ColumnValues<'static> {
        ColumnValues::Text(v.iter().map(|s| Some(s.to_string())).collect())
    }

    /// The same table as a CSV (read with one-hot encoding) and as columns.
    #[test]
    fn columns_encode_as_the_csv_reader() {
        let csv = "a,colour,num_text,y\n1.5,red,3,p\n2,blue,4.25,n\n-1,red, 7,n\n";
        let opts = ReadOptions {
            categorical: Categorical::OneHot,
            ..ReadOptions::default()
        };
        let (ds, _) = read_from(csv.as_bytes(), "t", Format::Csv, 0, &opts).unwrap();
        let cols = vec![
            Column {
                name: "a".into(),
                values: ColumnValues::Numbers(Cow::Owned(vec![1.5, 2.0, -1.0])),
            },
            Column {
                name: "colour".into(),
                values: text(&["red", "blue", "red"]),
            },
            Column {
                name: "num_text".into(),
                values: text(&["3", "4.25", " 7"]),
            },
        ];
        let (x, kinds) = encode_columns(&cols).unwrap();
        assert_eq!(x, ds.features());
        assert_eq!(&kinds, &ds.schema().encodings);
        assert_eq!(feature_names(&kinds), ds.feature_names());
        assert_eq!(
            encode_columns_with_schema(&cols, ds.schema(), Unknown::Error).unwrap(),
            ds.features()
        );
    }

    /// More than `MAX_LEVELS` distinct values: numbers when they all are
    /// (as the CSV reader decides), else an error in both.
    #[test]
    fn many_distinct_values_as_the_csv_reader() {
        let opts = ReadOptions {
            categorical: Categorical::OneHot,
            ..ReadOptions::default()
        };
        let n = MAX_LEVELS + 10;
        let numbers: Vec<String> = (0..n).map(|i| format!("{}.5", i)).collect();
        let words: Vec<String> = (0..n).map(|i| format!("w{i}")).collect();
        let labels: Vec<&str> = (0..n).map(|i| if i % 3 == 0 { "p" } else { "n" }).collect();
        let csv = |v: &[String]| {
            let mut t = String::from("c,y\n");
            for (x, y) in v.iter().zip(&labels) {
                t.push_str(&format!("{x},{y}\n"));
            }
            t
        };
        let texts = |v: &[String]| {
            vec![Column {
                name: "c".into(),
                values: ColumnValues::Text(v.iter().cloned().map(Some).collect()),
            }]
        };
        let (ds, _) = read_from(csv(&numbers).as_bytes(), "t", Format::Csv, 0, &opts).unwrap();
        let (x, kinds) = encode_columns(&texts(&numbers)).unwrap();
        assert_eq!(x, ds.features());
        assert_eq!(&kinds, &ds.schema().encodings);
        assert!(read_from(csv(&words).as_bytes(), "t", Format::Csv, 0, &opts).is_err());
        let e = encode_columns(&texts(&words)).unwrap_err().to_string();
        assert!(
            e.contains(&format!("more than {MAX_LEVELS} distinct values")),
            "{e}"
        );
    }

    #[test]
    fn missing_values_are_nan_and_bad_shapes_errors() {
        let cols = vec![
            Column {
                name: "c".into(),
                values: ColumnValues::Text(vec![Some("a".into()), None, Some("b".into())]),
            },
            Column {
                name: "t".into(),
                values: text(&["1", "?", "2.5"]),
            },
        ];
        let (x, kinds) = encode_columns(&cols).unwrap();
        assert!(matches!(&kinds[0], ColumnEncoding::OneHot { levels, .. } if levels.len() == 2));
        assert!(matches!(&kinds[1], ColumnEncoding::Numeric { .. }));
        assert_eq!(&x[..3], &[1.0, 0.0, 1.0]);
        assert!(x[3..6].iter().all(|v| v.is_nan()));
        assert_eq!(&x[6..], &[0.0, 1.0, 2.5]);
        let cols = vec![
            Column {
                name: "a".into(),
                values: ColumnValues::Numbers(Cow::Owned(vec![1.0])),
            },
            Column {
                name: "b".into(),
                values: text(&["x", "?"]),
            },
        ];
        let e = encode_columns(&cols).unwrap_err().to_string();
        assert!(e.contains("column 'b' has 2 values"), "{e}");
        let e = encode_columns(&[Column {
            name: "t".into(),
            values: text(&["1", "NaN"]),
        }])
        .unwrap_err()
        .to_string();
        assert!(e.contains("'NaN' is not a finite number"), "{e}");
    }
}
