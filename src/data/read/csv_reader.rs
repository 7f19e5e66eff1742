//! CSV reading: a streaming numeric fast path (features parsed straight into
//! the `f64` buffer, labels interned) and a buffered path for one-hot
//! encoding of categorical columns.

use std::io::{BufRead, BufReader, Read};

use super::labels::Labels;
use super::lines::{check_width, Lines, Record};
use super::numeric::{read_numeric, Columns};
use super::{
    is_missing, parse_err, parse_number, resolve_target, trim, Categorical, Missing, ReadOptions,
    ReadReport,
};
use crate::data::{ColumnEncoding, Dataset, Schema};
use crate::error::{Error, Result};

/// Reads the header (or makes `x0, x1, ...` names) and returns the names and,
/// without a header, whether the first record (already in `rec`) is data.
fn read_header<R: BufRead>(
    lines: &mut Lines<R>,
    rec: &mut Record,
    origin: &str,
    has_header: bool,
) -> Result<(Vec<String>, bool)> {
    if !lines.next(rec)? {
        return Err(parse_err(origin, "the file is empty"));
    }
    if !has_header {
        return Ok(((0..rec.len()).map(|j| format!("x{j}")).collect(), true));
    }
    let mut names = Vec::with_capacity(rec.len());
    for (j, f) in rec.fields().enumerate() {
        let s = std::str::from_utf8(trim(f)).map_err(|_| {
            parse_err(
                origin,
                format!(
                    "line {}: the name of column {} is not valid UTF-8",
                    rec.line,
                    j + 1
                ),
            )
        })?;
        names.push(if s.is_empty() {
            format!("x{j}")
        } else {
            s.to_string()
        });
    }
    Ok((names, false))
}

pub(super) fn read_csv<R: Read + Send>(
    reader: R,
    origin: &str,
    size_hint: u64,
    opts: &ReadOptions,
) -> Result<(Dataset, ReadReport)> {
    let mut lines = Lines::new(
        BufReader::with_capacity(1 << 20, reader),
        opts.delimiter,
        origin,
    );
    let mut rec = Record::default();
    let (names, first_is_data) = read_header(&mut lines, &mut rec, origin, opts.has_header)?;
    if names.len() < 2 {
        return Err(parse_err(
            origin,
            format!(
                "found {} column(s); need at least one feature and a target \
                 (is the delimiter right? it is '{}')",
                names.len(),
                opts.delimiter as char
            ),
        ));
    }
    let target = resolve_target(opts.target.as_deref(), &names, origin)?;
    match opts.categorical {
        Categorical::Error => {
            let cols = Columns {
                names: &names,
                target,
                origin,
                opts,
            };
            let first = first_is_data.then_some(&rec);
            let (x, raw_y, labels, report) = read_numeric(lines, first, &cols, size_hint)?;
            finish_numeric(x, raw_y, labels, report, &names, target, origin, opts)
        }
        Categorical::OneHot => {
            buffered_path(lines, rec, first_is_data, names, target, origin, opts)
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn finish_numeric(
    mut x: Vec<f64>,
    raw_y: Vec<u32>,
    labels: Labels,
    report: ReadReport,
    names: &[String],
    target: usize,
    origin: &str,
    opts: &ReadOptions,
) -> Result<(Dataset, ReadReport)> {
    if report.rows_read == 0 {
        return Err(parse_err(origin, "the file has a header but no data rows"));
    }
    let (class_names, y) = labels.finish(raw_y, opts.positive.as_deref())?;
    let feature_names: Vec<String> = names
        .iter()
        .enumerate()
        .filter(|&(j, _)| j != target)
        .map(|(_, n)| n.clone())
        .collect();
    let schema = Schema {
        target_name: names[target].clone(),
        ..Schema::numeric(feature_names, class_names)
    };
    x.shrink_to_fit();
    Ok((Dataset::new(x, y, schema)?, report))
}

/// Reads every field as text, then decides per column: numeric if every
/// present value parses, else categorical (levels sorted).
fn buffered_path<R: BufRead>(
    mut lines: Lines<R>,
    mut rec: Record,
    mut have: bool,
    names: Vec<String>,
    target: usize,
    origin: &str,
    opts: &ReadOptions,
) -> Result<(Dataset, ReadReport)> {
    let width = names.len();
    let mut rows: Vec<(u64, Vec<Option<String>>)> = Vec::new();
    let mut report = ReadReport::default();
    loop {
        if !have && !lines.next(&mut rec)? {
            break;
        }
        have = false;
        check_width(&rec, width, origin)?;
        report.rows_read += 1;
        let line = rec.line;
        let mut fields = Vec::with_capacity(width);
        for (j, f) in rec.fields().enumerate() {
            let f = trim(f);
            if is_missing(f) {
                if opts.missing == Missing::Error {
                    return Err(parse_err(
                        origin,
                        format!("line {line}, column '{}': missing value", names[j]),
                    ));
                }
                fields.push(None);
            } else {
                let s = std::str::from_utf8(f).map_err(|_| {
                    parse_err(
                        origin,
                        format!("line {line}, column '{}': not valid UTF-8", names[j]),
                    )
                })?;
                fields.push(Some(s.to_string()));
            }
        }
        if fields.iter().any(Option::is_none) {
            report.dropped_missing += 1;
            continue;
        }
        rows.push((line, fields));
    }
    if report.rows_read == 0 {
        return Err(parse_err(origin, "the file has a header but no data rows"));
    }
    let cells: Vec<(u64, Vec<String>)> = rows
        .into_iter()
        .map(|(l, f)| (l, f.into_iter().map(Option::unwrap_or_default).collect()))
        .collect();
    let columns = (0..width).filter(|&j| j != target).collect::<Vec<_>>();
    let mut kinds = Vec::with_capacity(columns.len());
    for &j in &columns {
        let mut numeric = true;
        for (line, r) in &cells {
            match parse_number(r[j].as_bytes(), origin, *line, &names[j])? {
                Some(_) => {}
                None => {
                    numeric = false;
                    break;
                }
            }
        }
        if numeric {
            kinds.push(ColumnEncoding::Numeric {
                name: names[j].clone(),
            });
        } else {
            let mut levels: Vec<String> = cells.iter().map(|(_, r)| r[j].clone()).collect();
            levels.sort();
            levels.dedup();
            kinds.push(ColumnEncoding::OneHot {
                name: names[j].clone(),
                levels,
            });
        }
    }
    let mut labels = Labels::default();
    let mut raw_y = Vec::with_capacity(cells.len());
    let text: Vec<Vec<&str>> = cells
        .iter()
        .map(|(_, r)| columns.iter().map(|&j| r[j].as_str()).collect())
        .collect();
    for (line, r) in &cells {
        raw_y.push(labels.intern(r[target].as_bytes(), origin, *line)?);
    }
    let x = encode_rows(&text, &kinds, &|i| format!("{origin}: line {}", cells[i].0))?;
    let (class_names, y) = labels.finish(raw_y, opts.positive.as_deref())?;
    let schema = Schema {
        feature_names: feature_names_of(&kinds),
        class_names,
        encodings: kinds,
        target_name: names[target].clone(),
    };
    Ok((Dataset::new(x, y, schema)?, report))
}

/// Feature names produced by a list of encodings (`col` or `col=level`).
pub(super) fn feature_names_of(kinds: &[ColumnEncoding]) -> Vec<String> {
    kinds
        .iter()
        .flat_map(|k| match k {
            ColumnEncoding::Numeric { name } => vec![name.clone()],
            ColumnEncoding::OneHot { name, levels } => {
                levels.iter().map(|l| format!("{name}={l}")).collect()
            }
        })
        .collect()
}

/// Encodes text rows (one field per source input column) into the row-major
/// feature buffer; an unknown level or non-number is an error located by
/// `locate(row index)` (e.g. `"data.csv: line 7"`).
pub(super) fn encode_rows(
    rows: &[Vec<&str>],
    kinds: &[ColumnEncoding],
    locate: &dyn Fn(usize) -> String,
) -> Result<Vec<f64>> {
    let d: usize = kinds.iter().map(ColumnEncoding::width).sum();
    let mut x = Vec::with_capacity(rows.len() * d);
    for (i, r) in rows.iter().enumerate() {
        for (k, v) in kinds.iter().zip(r) {
            match k {
                ColumnEncoding::Numeric { name } => {
                    let num = v.parse::<f64>().ok().filter(|f| f.is_finite());
                    x.push(num.ok_or_else(|| {
                        Error::data(format!(
                            "{}, column '{name}': '{v}' is not a finite number",
                            locate(i)
                        ))
                    })?);
                }
                ColumnEncoding::OneHot { name, levels } => {
                    let Some(pos) = levels.iter().position(|l| l == v) else {
                        return Err(Error::data(format!(
                            "{}, column '{name}': level '{v}' is not a known level; \
                             known levels: {}",
                            locate(i),
                            levels.join(", ")
                        )));
                    };
                    x.extend((0..levels.len()).map(|l| if l == pos { 1.0 } else { 0.0 }));
                }
            }
        }
    }
    Ok(x)
}

/// Reads CSV rows to predict on, encoded exactly as the training data
/// described by `schema`: source columns are found by name (any order; extra
/// columns, including the target, are ignored), categorical levels map to the
/// training one-hot columns (an unseen level is an error), and features the
/// training data dropped (constant columns) are dropped again. Rows with a
/// missing value are an error (a prediction is owed for every row). Labels
/// are set to class 0; they are not used.
/// With `exact`, the columns of `names` must be those of `schema`'s source
/// (its features' columns, optionally its target column), in any order.
fn check_same_columns(names: &[String], schema: &Schema, origin: &str) -> Result<()> {
    let known: Vec<&str> = schema.encodings.iter().map(|e| e.name()).collect();
    let extra: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|n| !known.contains(n) && *n != schema.target_name)
        .collect();
    let missing: Vec<&str> = known
        .iter()
        .copied()
        .filter(|k| !names.iter().any(|n| n == k))
        .collect();
    let problem = match (extra.is_empty(), missing.is_empty()) {
        (true, true) => return Ok(()),
        (false, true) => format!("has columns the training set lacks: {}", extra.join(", ")),
        (true, false) => format!("lacks columns of the training set: {}", missing.join(", ")),
        (false, false) => format!(
            "has columns the training set lacks ({}) and lacks columns of the training set ({})",
            extra.join(", "),
            missing.join(", ")
        ),
    };
    Err(parse_err(
        origin,
        format!(
            "the target population {problem}; expected the training set's columns {} (and optionally its label '{}')",
            known.join(", "),
            schema.target_name
        ),
    ))
}

pub(super) fn read_with_schema<R: Read>(
    reader: R,
    origin: &str,
    delimiter: u8,
    schema: &Schema,
    exact: bool,
) -> Result<Dataset> {
    let mut lines = Lines::new(BufReader::with_capacity(1 << 20, reader), delimiter, origin);
    let mut rec = Record::default();
    let (names, _) = read_header(&mut lines, &mut rec, origin, true)?;
    if exact {
        check_same_columns(&names, schema, origin)?;
    }
    let cols: Vec<usize> = schema
        .encodings
        .iter()
        .map(|e| {
            names.iter().position(|n| n == e.name()).ok_or_else(|| {
                parse_err(
                    origin,
                    format!(
                        "column '{}' used by the model is missing; columns are: {}",
                        e.name(),
                        names.join(", ")
                    ),
                )
            })
        })
        .collect::<Result<_>>()?;
    let mut cells: Vec<(u64, Vec<String>)> = Vec::new();
    while lines.next(&mut rec)? {
        check_width(&rec, names.len(), origin)?;
        let mut row = Vec::with_capacity(cols.len());
        for &j in &cols {
            let f = trim(rec.field(j));
            if is_missing(f) {
                return Err(parse_err(
                    origin,
                    format!("line {}, column '{}': missing value", rec.line, names[j]),
                ));
            }
            let s = std::str::from_utf8(f).map_err(|_| {
                parse_err(
                    origin,
                    format!("line {}, column '{}': not valid UTF-8", rec.line, names[j]),
                )
            })?;
            row.push(s.to_string());
        }
        cells.push((rec.line, row));
    }
    if cells.is_empty() {
        return Err(parse_err(origin, "the file has a header but no data rows"));
    }
    let text: Vec<Vec<&str>> = cells
        .iter()
        .map(|(_, r)| r.iter().map(String::as_str).collect())
        .collect();
    let full = encode_rows(&text, &schema.encodings, &|i| {
        format!("{origin}: line {}", cells[i].0)
    })?;
    let full_names = feature_names_of(&schema.encodings);
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
    let mut x = Vec::with_capacity(cells.len() * keep.len());
    for row in full.chunks(width.max(1)) {
        x.extend(keep.iter().map(|&j| row[j]));
    }
    Dataset::new(x, vec![0; cells.len()], schema.clone())
}
