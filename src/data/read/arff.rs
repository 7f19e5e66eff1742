//! KEEL `.dat` and Weka ARFF.
//!
//! Grammar handled: `%` comments, `@relation`, `@attribute NAME TYPE` with
//! `real`, `integer`, `numeric` (KEEL may add a `[min, max]` range, which is
//! ignored) and nominal `{a, b, c}` types, KEEL's `@inputs` / `@outputs`,
//! `@data`, `?` for missing, quoted names and values (`'a b'`), and sparse
//! ARFF rows `{index value, ...}` (absent entries are 0, i.e. the first level
//! of a nominal attribute). `string` and `date` attributes are rejected with a
//! clear message. The target is the `@outputs` attribute (KEEL), else the
//! option's target, else the last attribute. Nominal inputs become one-hot
//! columns in declared level order; a nominal target keeps its declared order.
//! A line may be at most as long as a CSV line (`RARITY_MAX_LINE_BYTES`).
//!
//! What a declaration may cost is bounded before any row is read, as
//! serde_json bounds what a document may nest: a nominal type declares at
//! most [`MAX_DECLARED_LEVELS`] levels (splitting stops there, so a header
//! line of millions of levels is refused, not held), a nominal target at
//! most the classes a target may have (`RARITY_MAX_CLASSES`, see
//! [`super::classes`]), and the one-hot table is checked against the memory
//! available ([`crate::limits::check_memory`]) before it is allocated.
//! Values are looked up in a nominal type by hashing, so a row costs the
//! same whatever the levels declared.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};

use super::lines::{max_line_bytes, too_long};
use super::quote::quoted;
use super::rows::{check_unique_names, feature_names_of, find_column, resolve_target};
use super::{assign_classes, parse_err, Missing, ReadOptions, ReadReport};
use crate::data::{ColumnEncoding, Dataset, Schema};
use crate::error::{Error, Result};

#[derive(Debug, Clone)]
enum AttrType {
    Numeric,
    Nominal(Vec<String>),
}

#[derive(Debug, Clone)]
struct Attribute {
    name: String,
    kind: AttrType,
}

/// The most levels one nominal declaration may hold: 2^16. A nominal input
/// becomes one feature per level, and no table one-hot encodes more; a
/// category of more levels (a merchant, a postcode) belongs in a CSV or
/// Parquet column read with `--categorical native`.
pub const MAX_DECLARED_LEVELS: usize = 1 << 16;

/// Splits on `sep` outside single or double quotes, trimming and unquoting.
fn split_fields(s: &str, sep: char) -> Vec<String> {
    split_fields_upto(s, sep, usize::MAX).unwrap_or_default()
}

/// [`split_fields`], `None` as soon as there are more than `most` fields:
/// nothing beyond is held.
fn split_fields_upto(s: &str, sep: char, most: usize) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => quote = Some(c),
            (None, c) if c == sep => {
                if out.len() == most {
                    return None;
                }
                out.push(std::mem::take(&mut cur).trim().to_string());
            }
            (None, c) => cur.push(c),
        }
    }
    if out.len() == most {
        return None;
    }
    out.push(cur.trim().to_string());
    Some(out)
}

/// Splits the head of an `@attribute` line into name and the rest.
fn name_and_rest(s: &str) -> Option<(String, &str)> {
    let s = s.trim_start();
    let q = s.chars().next()?;
    if q == '\'' || q == '"' {
        let end = s[1..].find(q)? + 1;
        Some((s[1..end].to_string(), &s[end + 1..]))
    } else {
        let end = s.find(|c: char| c.is_whitespace() || c == '{' || c == '[')?;
        Some((s[..end].to_string(), &s[end..]))
    }
}

fn parse_attribute(rest: &str, origin: &str, line: usize) -> Result<Attribute> {
    let bad = |m: &str| parse_err(origin, format!("line {line}: {m}"));
    let (name, ty) =
        name_and_rest(rest).ok_or_else(|| bad("@attribute needs a name and a type"))?;
    let ty = ty.trim();
    if let Some(body) = ty.strip_prefix('{') {
        let body = body
            .rfind('}')
            .map(|e| &body[..e])
            .ok_or_else(|| bad("nominal type has no closing '}'"))?;
        let levels: Vec<String> = split_fields_upto(body, ',', MAX_DECLARED_LEVELS)
            .ok_or_else(|| {
                bad(&format!(
                    "attribute '{}' declares more than {MAX_DECLARED_LEVELS} levels, the most \
                     a nominal type may hold (each is a one-hot feature); read a category of \
                     that many levels from CSV or Parquet with --categorical native",
                    quoted(name.as_bytes())
                ))
            })?
            .into_iter()
            .filter(|l| !l.is_empty())
            .collect();
        if levels.is_empty() {
            return Err(bad(&format!("attribute '{name}' has no levels")));
        }
        return Ok(Attribute {
            name,
            kind: AttrType::Nominal(levels),
        });
    }
    let word = ty
        .split(|c: char| c.is_whitespace() || c == '[')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    match word.as_str() {
        "real" | "integer" | "numeric" => Ok(Attribute {
            name,
            kind: AttrType::Numeric,
        }),
        other => Err(bad(&format!(
            "attribute '{name}' has type '{other}'; accepted: real, integer, numeric, {{nominal levels}}"
        ))),
    }
}

fn names_list(rest: &str) -> Vec<String> {
    split_fields(rest, ',')
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect()
}

/// The data rows read so far, each with its line number, held within the
/// memory available.
#[derive(Default)]
struct HeldRows {
    rows: Vec<(usize, Vec<Option<String>>)>,
    /// What the rows take, as glibc's allocator counts it ([`held_bytes`]).
    bytes: f64,
}

impl HeldRows {
    /// Adds the row of line `line_no`, refused when the rows would take more
    /// than the memory available.
    fn push(&mut self, line_no: usize, vals: Vec<Option<String>>, origin: &str) -> Result<()> {
        self.bytes += held_bytes(&vals);
        let available = crate::limits::memory_available();
        if self.bytes > available as f64 {
            return Err(parse_err(
                origin,
                format!(
                    "the rows read ({} so far, line {line_no}) take more than the memory \
                     available, {}",
                    self.rows.len() + 1,
                    crate::limits::bytes_text(available as f64)
                ),
            ));
        }
        self.rows.push((line_no, vals));
        Ok(())
    }
}

/// The bytes a row of [`HeldRows`] takes, as glibc's allocator counts them
/// (a block is its size and 8 bytes rounded up to 16, at least 32): its
/// entry in the list (twice, for the list's doubling), its values and their
/// texts.
fn held_bytes(vals: &[Option<String>]) -> f64 {
    let block = |n: usize| {
        if n == 0 {
            0
        } else {
            (n + 8).div_ceil(16).max(2) * 16
        }
    };
    let texts: usize = vals.iter().flatten().map(|v| block(v.len())).sum();
    let entry = std::mem::size_of::<(usize, Vec<Option<String>>)>();
    (2 * entry + block(std::mem::size_of_val(vals)) + texts) as f64
}

pub(super) fn read_arff<R: Read>(
    reader: R,
    origin: &str,
    opts: &ReadOptions,
) -> Result<(Dataset, ReadReport)> {
    let mut reader = BufReader::new(reader);
    let max = max_line_bytes();
    let mut raw = Vec::new();
    let mut attrs: Vec<Attribute> = Vec::new();
    let mut outputs: Vec<String> = Vec::new();
    let mut line_no = 0usize;
    let mut in_data = false;
    let mut saw_any = false;
    let mut held = HeldRows::default();
    let mut report = ReadReport::default();

    loop {
        raw.clear();
        // A line may be at most `max` bytes: reading stops just past that.
        let n = (&mut reader)
            .take(max as u64 + 1)
            .read_until(b'\n', &mut raw)
            .map_err(|e| parse_err(origin, format!("read failed: {e}")))?;
        if n == 0 {
            break;
        }
        line_no += 1;
        if raw.last() == Some(&b'\n') {
            raw.pop();
        } else if raw.len() > max {
            return Err(too_long(origin, line_no as u64, &raw));
        }
        let text = std::str::from_utf8(&raw)
            .map_err(|_| parse_err(origin, format!("line {line_no}: not valid UTF-8")))?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(text).trim();
        if text.is_empty() || text.starts_with('%') {
            continue;
        }
        saw_any = true;
        if !in_data {
            let lower = text.to_ascii_lowercase();
            let keyword = lower.split_whitespace().next().unwrap_or("");
            let rest = text[keyword.len()..].trim();
            match keyword {
                "@relation" => {}
                "@attribute" => attrs.push(parse_attribute(rest, origin, line_no)?),
                "@inputs" => {}
                "@outputs" | "@output" => outputs = names_list(rest),
                "@data" => {
                    check_declared_target(&attrs, &outputs, origin, opts)?;
                    in_data = true;
                }
                _ => {
                    return Err(parse_err(
                        origin,
                        format!(
                            "line {line_no}: expected a header line (@relation, @attribute, \
                             @inputs, @outputs, @data), found '{}'",
                            quoted(text.as_bytes())
                        ),
                    ))
                }
            }
            continue;
        }
        report.rows_read += 1;
        match data_row(text, &attrs, origin, line_no, opts)? {
            Some(vals) => held.push(line_no, vals, origin)?,
            None => report.dropped_missing += 1,
        }
    }
    if !saw_any {
        return Err(parse_err(origin, "the file is empty"));
    }
    if !in_data {
        return Err(parse_err(origin, "no @data section"));
    }
    if attrs.len() < 2 {
        return Err(parse_err(
            origin,
            "need at least one input attribute and an output",
        ));
    }
    if report.rows_read == 0 {
        return Err(parse_err(origin, "the @data section has no rows"));
    }
    let names: Vec<String> = attrs.iter().map(|a| a.name.clone()).collect();
    check_unique_names(&names, origin)?;
    let target = target_of(&outputs, &names, origin, opts)?;
    build(attrs, held.rows, target, origin, opts, report)
}

/// Fails when the target's nominal type declares more classes than a
/// target may have: checked when `@data` starts, before any row is read
/// (the classes of a nominal target are its declared levels, used or not).
fn check_declared_target(
    attrs: &[Attribute],
    outputs: &[String],
    origin: &str,
    opts: &ReadOptions,
) -> Result<()> {
    let names: Vec<String> = attrs.iter().map(|a| a.name.clone()).collect();
    let Some(t) = (attrs.len() >= 2)
        .then(|| target_of(outputs, &names, origin, opts).ok())
        .flatten()
    else {
        return Ok(()); // the reader says what is wrong once the header is whole
    };
    let max = super::classes::max_classes();
    match &attrs[t].kind {
        AttrType::Nominal(levels) if levels.len() > max => Err(parse_err(
            origin,
            format!(
                "the target '{}' declares {} classes, more than the {max} a classifier can \
                 sensibly learn; choose the label column with --target NAME, or, if it is \
                 right, allow more classes with {}=<n>",
                quoted(attrs[t].name.as_bytes()),
                levels.len(),
                super::classes::MAX_CLASSES_ENV
            ),
        )),
        _ => Ok(()),
    }
}

/// One line of the @data section (line `line_no`) as its values (`None`:
/// missing); `None` when one is missing and missing values are not kept
/// (the row is dropped).
fn data_row(
    text: &str,
    attrs: &[Attribute],
    origin: &str,
    line_no: usize,
    opts: &ReadOptions,
) -> Result<Option<Vec<Option<String>>>> {
    let fields = if text.starts_with('{') {
        sparse_row(text, attrs, origin, line_no)?
    } else {
        split_fields(text, ',')
    };
    if fields.len() != attrs.len() {
        return Err(parse_err(
            origin,
            format!(
                "line {line_no}: {} values, but {} attributes are declared",
                fields.len(),
                attrs.len()
            ),
        ));
    }
    let mut vals = Vec::with_capacity(fields.len());
    for (a, f) in attrs.iter().zip(fields) {
        if f == "?" || f.is_empty() {
            if opts.missing == Missing::Error {
                return Err(parse_err(
                    origin,
                    format!("line {line_no}, attribute '{}': missing value", a.name),
                ));
            }
            vals.push(None);
        } else {
            vals.push(Some(f));
        }
    }
    if !opts.missing.keeps() && vals.iter().any(Option::is_none) {
        return Ok(None);
    }
    Ok(Some(vals))
}

/// The target attribute's index among `names`: the one `@outputs` names,
/// unless `--target` chooses.
fn target_of(
    outputs: &[String],
    names: &[String],
    origin: &str,
    opts: &ReadOptions,
) -> Result<usize> {
    Ok(match outputs {
        [one] if opts.target.is_none() => names.iter().position(|n| n == one).ok_or_else(|| {
            parse_err(
                origin,
                format!("@outputs names '{one}', which is not an attribute"),
            )
        })?,
        [] | [_] => resolve_target(opts.target.as_deref(), names, origin)?,
        _ if opts.target.is_some() => resolve_target(opts.target.as_deref(), names, origin)?,
        many => {
            return Err(Error::invalid(format!(
                "{origin}: several outputs ({}); choose one with --target",
                many.join(", ")
            )))
        }
    })
}

/// Expands a sparse ARFF row `{i v, j w}` to dense fields.
fn sparse_row(text: &str, attrs: &[Attribute], origin: &str, line: usize) -> Result<Vec<String>> {
    let body = text.trim_start_matches('{').trim_end_matches('}').trim();
    let mut fields: Vec<String> = attrs
        .iter()
        .map(|a| match &a.kind {
            AttrType::Numeric => "0".to_string(),
            AttrType::Nominal(levels) => levels[0].clone(),
        })
        .collect();
    if body.is_empty() {
        return Ok(fields);
    }
    for entry in split_fields(body, ',') {
        let mut it = entry.splitn(2, char::is_whitespace);
        let idx = it.next().and_then(|s| s.trim().parse::<usize>().ok());
        let val = it.next().map(str::trim);
        match (idx, val) {
            (Some(i), Some(v)) if i < attrs.len() => {
                fields[i] = v.trim_matches(|c| c == '\'' || c == '"').to_string()
            }
            _ => {
                return Err(parse_err(
                    origin,
                    format!(
                        "line {line}: bad sparse entry '{}' (expected 'index value')",
                        quoted(entry.as_bytes())
                    ),
                ))
            }
        }
    }
    Ok(fields)
}

fn build(
    attrs: Vec<Attribute>,
    rows: Vec<(usize, Vec<Option<String>>)>,
    target: usize,
    origin: &str,
    opts: &ReadOptions,
    mut report: ReadReport,
) -> Result<(Dataset, ReadReport)> {
    let names: Vec<String> = attrs.iter().map(|a| a.name.clone()).collect();
    // Kept missing values leave a row with no label to learn from.
    let rows: Vec<(usize, Vec<Option<String>>)> = rows
        .into_iter()
        .filter(|(_, r)| r[target].is_some())
        .collect();
    report.dropped_label = report.rows_read - report.dropped_missing - rows.len();
    if rows.is_empty() {
        return Err(parse_err(
            origin,
            format!(
                "every one of the {} rows misses its label and was dropped",
                report.rows_read
            ),
        ));
    }
    let drop = opts
        .drop
        .iter()
        .map(|d| find_column(&names, d, "--drop column", origin))
        .collect::<Result<Vec<usize>>>()?;
    let inputs: Vec<usize> = (0..attrs.len())
        .filter(|&j| j != target && !drop.contains(&j))
        .collect();
    let kinds: Vec<ColumnEncoding> = inputs
        .iter()
        .map(|&j| match &attrs[j].kind {
            AttrType::Numeric => ColumnEncoding::Numeric {
                name: attrs[j].name.clone(),
            },
            AttrType::Nominal(levels) => ColumnEncoding::OneHot {
                name: attrs[j].name.clone(),
                levels: levels.clone(),
            },
        })
        .collect();
    let text: Vec<Vec<Option<&str>>> = rows
        .iter()
        .map(|(_, r)| inputs.iter().map(|&j| r[j].as_deref()).collect())
        .collect();
    report.kept_missing = text.iter().flatten().filter(|v| v.is_none()).count();
    let x = encode_rows(&text, &kinds, &|i| format!("{origin}: line {}", rows[i].0))?;
    let cells: Vec<(usize, Vec<String>)> = rows
        .into_iter()
        .map(|(l, r)| (l, r.into_iter().map(Option::unwrap_or_default).collect()))
        .collect();
    // Labels: declared order for a nominal target, else numeric/lexicographic.
    let (declared, label_names): (bool, Vec<String>) = match &attrs[target].kind {
        AttrType::Nominal(levels) => (true, levels.clone()),
        AttrType::Numeric => {
            let mut seen: Vec<String> = cells.iter().map(|(_, r)| r[target].clone()).collect();
            seen.sort();
            seen.dedup();
            (false, seen)
        }
    };
    let mut counts = vec![0usize; label_names.len()];
    let mut raw_y = Vec::with_capacity(cells.len());
    let label_ids = index_of(&label_names);
    for (line, r) in &cells {
        let Some(&id) = label_ids.get(r[target].as_str()) else {
            return Err(parse_err(
                origin,
                format!(
                    "line {line}: class '{}' is not one of the declared levels ({})",
                    quoted(r[target].as_bytes()),
                    listed(&label_names)
                ),
            ));
        };
        counts[id] += 1;
        raw_y.push(id);
    }
    let pairs: Vec<(String, usize)> = label_names.into_iter().zip(counts).collect();
    let (class_names, map) = assign_classes(&pairs, opts.positive.as_deref(), declared)?;
    let y = raw_y.into_iter().map(|r| map[r]).collect();
    let schema = Schema {
        feature_names: feature_names_of(&kinds),
        class_names,
        encodings: kinds,
        target_name: attrs[target].name.clone(),
    };
    Ok((Dataset::new(x, y, schema)?, report))
}

/// Encodes text rows (one field per source input column, `None` a kept
/// missing value: NaN, in each of a one-hot column's features) into the
/// row-major feature buffer; an unknown level or non-number is an error
/// located by `locate(row index)` (e.g. `"data.csv: line 7"`).
fn encode_rows(
    rows: &[Vec<Option<&str>>],
    kinds: &[ColumnEncoding],
    locate: &dyn Fn(usize) -> String,
) -> Result<Vec<f64>> {
    let d: usize = kinds.iter().map(ColumnEncoding::width).sum();
    crate::limits::check_memory(
        &format!("the table ({} rows of {d} features)", rows.len()),
        rows.len() as f64 * d as f64 * 8.0,
    )?;
    let mut x = Vec::with_capacity(rows.len() * d);
    let index: Vec<Option<HashMap<&str, usize>>> = kinds
        .iter()
        .map(|k| match k {
            ColumnEncoding::OneHot { levels, .. } | ColumnEncoding::Categorical { levels, .. } => {
                Some(index_of(levels))
            }
            ColumnEncoding::Numeric { .. } => None,
        })
        .collect();
    for (i, r) in rows.iter().enumerate() {
        for ((k, v), index) in kinds.iter().zip(r).zip(&index) {
            let Some(v) = v else {
                x.extend(std::iter::repeat_n(f64::NAN, k.width()));
                continue;
            };
            let level = index.as_ref().and_then(|m| m.get(v).copied());
            match k {
                ColumnEncoding::Numeric { name } => {
                    let num = v.parse::<f64>().ok().filter(|f| f.is_finite());
                    x.push(num.ok_or_else(|| {
                        Error::data(format!(
                            "{}, column '{name}': '{}' is not a finite number",
                            locate(i),
                            quoted(v.as_bytes())
                        ))
                    })?);
                }
                ColumnEncoding::OneHot { name, levels } => {
                    let Some(pos) = level else {
                        return Err(Error::data(format!(
                            "{}, column '{name}': level '{}' is not a known level; \
                             known levels: {}",
                            locate(i),
                            quoted(v.as_bytes()),
                            listed(levels)
                        )));
                    };
                    x.extend((0..levels.len()).map(|l| if l == pos { 1.0 } else { 0.0 }));
                }
                ColumnEncoding::Categorical { .. } => {
                    x.push(level.map_or(f64::NAN, |p| p as f64));
                }
            }
        }
    }
    Ok(x)
}

/// The first levels of `levels` for a message, with how many there are
/// when there are more.
fn listed(levels: &[String]) -> String {
    const SHOWN: usize = 20;
    let head: Vec<String> = levels
        .iter()
        .take(SHOWN)
        .map(|l| quoted(l.as_bytes()))
        .collect();
    let more = levels.len().saturating_sub(SHOWN);
    if more == 0 {
        head.join(", ")
    } else {
        format!("{}, ... ({} in all)", head.join(", "), levels.len())
    }
}

/// Each text's position in `texts` (the first, for a repeated one).
fn index_of(texts: &[String]) -> HashMap<&str, usize> {
    let mut index = HashMap::with_capacity(texts.len());
    for (i, t) in texts.iter().enumerate() {
        index.entry(t.as_str()).or_insert(i);
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::read::{read_from, Format};

    fn read(text: &str) -> Result<(Dataset, ReadReport)> {
        read_from(
            text.as_bytes(),
            "t.dat",
            Format::Arff,
            0,
            &ReadOptions::default(),
        )
    }

    #[test]
    fn keel_header_with_ranges_and_outputs() {
        let t = "@relation r\n@attribute A real [0.0, 9.5]\n@attribute B {x, y}\n\
                 @attribute Class {positive, negative}\n@inputs A, B\n@outputs Class\n@data\n\
                 1.5, x, negative\n2.5, y, positive\n3.0, x, negative\n";
        let (ds, _) = read(t).unwrap();
        assert_eq!(ds.feature_names(), &["A", "B=x", "B=y"]);
        assert_eq!(ds.class_names(), &["negative", "positive"]);
        assert_eq!(ds.row(1), &[2.5, 0.0, 1.0]);
        assert_eq!(ds.class_counts(), vec![2, 1]);
    }

    #[test]
    fn sparse_rows_and_missing() {
        let t = "% comment\n@RELATION r\n@ATTRIBUTE 'a b' NUMERIC\n@ATTRIBUTE c NUMERIC\n\
                 @ATTRIBUTE cls {u,v}\n@DATA\n{0 3, 2 v}\n{}\n?,1,u\n1,2,v\n";
        let (ds, rep) = read(t).unwrap();
        assert_eq!(ds.n_rows(), 3);
        assert_eq!(rep.dropped_missing, 1);
        assert_eq!(ds.row(0), &[3.0, 0.0]);
        assert_eq!(ds.feature_names()[0], "a b");
    }

    #[test]
    fn errors_name_the_line() {
        let e = read("@relation r\n@attribute a string\n@attribute c {p,q}\n@data\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("string"), "{e}");
        let e = read("@relation r\n@attribute a real\n@attribute c {p,q}\n@data\n1,p\n2\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 6"), "{e}");
        let e = read("@relation r\n@attribute a {x}\n@attribute c {p,q}\n@data\nz,p\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 5") && e.contains("'z'"), "{e}");
        let e = read("@relation r\n@attribute a real\n@attribute c {p,q}\n@data\n1,r\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("'r' is not one of"), "{e}");
    }

    #[test]
    fn what_a_declaration_may_cost_is_bounded() {
        let levels = |n: usize| {
            (0..n)
                .map(|i| format!("l{i}"))
                .collect::<Vec<_>>()
                .join(",")
        };
        // An input of more levels than a declaration may hold, refused as
        // it is split.
        let t = format!(
            "@relation r\n@attribute a {{{}}}\n@attribute c {{p,q}}\n@data\nl1,p\n",
            levels(MAX_DECLARED_LEVELS + 1)
        );
        let e = read(&t).unwrap_err().to_string();
        assert!(
            e.contains("line 2") && e.contains("declares more than 65536 levels"),
            "{e}"
        );
        // As many as it may hold are read, and looked up by hashing.
        let t = format!(
            "@relation r\n@attribute a {{{}}}\n@attribute c {{p,q}}\n@data\nl65535,p\nl0,q\n",
            levels(MAX_DECLARED_LEVELS)
        );
        let (ds, _) = read(&t).unwrap();
        assert_eq!(ds.n_features(), MAX_DECLARED_LEVELS);
        assert_eq!(ds.value(0, MAX_DECLARED_LEVELS - 1), 1.0);
        // A target of more classes than a target may have, before any row.
        let t = format!(
            "@relation r\n@attribute a real\n@attribute c {{{}}}\n@data\n1,l0\n",
            levels(5000)
        );
        let e = read(&t).unwrap_err().to_string();
        assert!(
            e.contains("declares 5000 classes") && e.contains("RARITY_MAX_CLASSES"),
            "{e}"
        );
        // An unknown level's message lists a few levels, not all of them.
        let t = format!(
            "@relation r\n@attribute a {{{}}}\n@attribute c {{p,q}}\n@data\nzz,p\n",
            levels(900)
        );
        let e = read(&t).unwrap_err().to_string();
        assert!(e.contains("... (900 in all)") && e.len() < 400, "{e}");
    }
}
