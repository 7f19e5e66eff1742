//! Data in: NumPy arrays read in place, Arrow tables (pandas, polars,
//! pyarrow: anything with `__arrow_c_stream__`) converted once, columns and
//! lists of rows; labels ordered into classes by the library's rules
//! (`rarity::data::read::assign_classes`), features encoded as the CSV
//! reader encodes them (`rarity::data::read::encode_columns`); columns
//! declared categorical (`categorical_features=`) as one feature of level
//! codes each, levels sorted by text as the readers sort a file's (or in a
//! declared order), and, predicting, mapped to the model's levels by text
//! (NaN when missing; a level unseen in training an error, or NaN with
//! `unknown='ignore'`, as `rarity predict --unknown`). Missing values
//! (NaN, None, null, empty, `?`, `NA`) follow the missing-value policy the
//! caller settled (`rarity::job::missing_policy`), as the file readers
//! follow `--missing`: kept (NaN; a row missing its label dropped and
//! counted), the incomplete rows dropped and counted before any level is
//! collected, or an error naming the row (counted from 0) and the column, so
//! a table and its CSV give the same model.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};

use arrow_array::cast::AsArray;
use arrow_array::types::Float64Type;
use arrow_array::{Array, ArrayRef, Float64Array, RecordBatch};
use arrow_schema::DataType;
use numpy::{
    PyArray1, PyArrayDescrMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3_arrow::PyTable;

use rarity::data::read::{
    assign_classes, encode_columns_keyed, encode_columns_with_schema, feature_names, Column,
    ColumnValues, KeyColumn, Missing, Unknown,
};
use rarity::data::{ColumnEncoding, Dataset, Schema, Values};

use crate::pool::{run, to_py};

/// Keeps a Python object (a NumPy array) alive for a buffer read in place.
struct PyOwner(#[allow(dead_code)] Py<PyAny>);

/// A numeric column: Arrow's `f64` values (read in place) or converted ones.
#[derive(Clone)]
enum Numbers {
    Arrow(Float64Array),
    Owned(Arc<Vec<f64>>),
}

impl Numbers {
    fn values(&self) -> &[f64] {
        match self {
            Numbers::Arrow(a) => a.values(),
            Numbers::Owned(v) => v,
        }
    }
}

#[derive(Clone)]
enum Col {
    Numbers(Numbers),
    Text(Arc<Vec<Option<String>>>),
    /// Dates or timestamps as ISO 8601 text, with the Arrow type's name:
    /// read only as the time or group key of a `cv` spec.
    Time(Arc<Vec<Option<String>>>, String),
    /// A categorical feature (`categorical_features=`): level texts, and
    /// the declared order of the levels (an ordered pandas category, a
    /// polars `Enum`); `None`: the levels sorted by text, as the readers
    /// sort a file's (`--categorical native`).
    Category(Arc<Vec<Option<String>>>, Option<Arc<Vec<String>>>),
}

impl Col {
    /// The column's values at `rows`, in that order.
    fn take(&self, rows: &[usize]) -> Col {
        let texts =
            |t: &Arc<Vec<Option<String>>>| Arc::new(rows.iter().map(|&i| t[i].clone()).collect());
        match self {
            Col::Numbers(v) => {
                let v = v.values();
                Col::Numbers(Numbers::Owned(Arc::new(
                    rows.iter().map(|&i| v[i]).collect(),
                )))
            }
            Col::Text(t) => Col::Text(texts(t)),
            Col::Time(t, ty) => Col::Time(texts(t), ty.clone()),
            Col::Category(t, order) => Col::Category(texts(t), order.clone()),
        }
    }

    /// The column's values as level texts: numbers as rarity writes them
    /// (as the readers take a numeric column declared categorical), NaN
    /// missing.
    fn level_texts(&self) -> Arc<Vec<Option<String>>> {
        match self {
            Col::Numbers(v) => Arc::new(v.values().iter().map(|&x| number_level(x)).collect()),
            Col::Text(t) | Col::Time(t, _) | Col::Category(t, _) => Arc::clone(t),
        }
    }

    /// The level codes of the column by the levels' texts (`levels` in code
    /// order): a missing value or a level not among them is NaN.
    fn codes(&self, levels: &[String]) -> Vec<f64> {
        match self {
            Col::Numbers(v) => {
                let texts: Vec<Option<String>> =
                    v.values().iter().map(|&x| number_level(x)).collect();
                text_codes(&texts, levels)
            }
            Col::Text(t) | Col::Time(t, _) | Col::Category(t, _) => text_codes(t, levels),
        }
    }
}

/// The code of each text among `levels` (code order) by text; NaN for a
/// missing value or a level not among them.
fn text_codes(texts: &[Option<String>], levels: &[String]) -> Vec<f64> {
    let index: HashMap<&str, usize> = levels
        .iter()
        .enumerate()
        .map(|(i, l)| (l.as_str(), i))
        .collect();
    texts
        .iter()
        .map(|v| {
            level_of(v)
                .and_then(|t| index.get(t))
                .map_or(f64::NAN, |&i| i as f64)
        })
        .collect()
}

/// The level text of a number in a categorical column (`None`: NaN, a
/// missing value).
fn number_level(x: f64) -> Option<String> {
    (!x.is_nan()).then(|| number_text(x))
}

/// A number as rarity writes it (the text of its level).
fn number_text(x: f64) -> String {
    let mut b = Vec::new();
    rarity::data::write::number::push_f64(&mut b, x);
    String::from_utf8(b).expect("ASCII")
}

/// A value's level text, trimmed; `None` when missing (`None`, or the
/// readers' missing markers: empty, `?`, `NA`).
fn level_of(v: &Option<String>) -> Option<&str> {
    v.as_deref()
        .map(rarity::data::read::trim_text)
        .filter(|t| !matches!(*t, "" | "?" | "NA"))
}

/// The level codes and levels of training column `name`: levels in the
/// declared `order` (those present), else sorted by text; a missing value
/// is NaN (kept, or its row dropped before fitting: [`Features::training_rows`]).
fn category_codes(
    name: &str,
    texts: &[Option<String>],
    order: Option<&[String]>,
) -> rarity::Result<(Vec<f64>, Vec<String>)> {
    let present: HashSet<&str> = texts.iter().filter_map(level_of).collect();
    let levels: Vec<String> = match order {
        Some(order) => {
            let mut seen = HashSet::new();
            let levels: Vec<String> = order
                .iter()
                .map(|l| rarity::data::read::trim_text(l))
                .filter(|l| present.contains(l) && seen.insert(*l))
                .map(str::to_string)
                .collect();
            if let Some(l) = present.iter().find(|l| !seen.contains(*l)) {
                return Err(rarity::Error::data(format!(
                    "column '{name}': level '{l}' is not among the column's declared categories"
                )));
            }
            levels
        }
        None => {
            let mut v: Vec<&str> = present.into_iter().collect();
            v.sort_unstable();
            v.into_iter().map(str::to_string).collect()
        }
    };
    let codes = text_codes(texts, &levels);
    Ok((codes, levels))
}

#[derive(Clone)]
enum Inner {
    /// A row-major matrix (`n x d`), with the DataFrame's names if any.
    Matrix {
        values: Values,
        n: usize,
        d: usize,
        names: Option<Vec<String>>,
    },
    /// Named columns.
    Columns { cols: Vec<(String, Col)>, n: usize },
}

/// Features without labels: what `fit` pairs with labels and `predict`
/// encodes with a model's schema.
#[pyclass(frozen, module = "rarity._rarity")]
#[derive(Clone)]
pub struct Features {
    inner: Inner,
}

fn value_error(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

/// The column names of the data's own table (`x0, x1, ...` for a matrix
/// without names).
fn default_names(d: usize) -> Vec<String> {
    (0..d).map(|j| format!("x{j}")).collect()
}

/// One Arrow column as rarity reads it: numbers (integers and floats, cast
/// to `f64`; a null is NaN, a missing value) or text (strings,
/// categoricals, booleans as `True`/`False`).
fn arrow_column(name: &str, a: &ArrayRef) -> PyResult<Col> {
    let dt = a.data_type();
    let numeric = dt.is_numeric() && !matches!(dt, DataType::Float16);
    if numeric {
        let f = match dt {
            DataType::Float64 => a.as_primitive::<Float64Type>().clone(),
            _ => arrow_cast::cast(a, &DataType::Float64)
                .map_err(|e| value_error(format!("column '{name}': {e}")))?
                .as_primitive::<Float64Type>()
                .clone(),
        };
        if f.null_count() > 0 {
            let v: Vec<f64> = (0..f.len())
                .map(|i| if f.is_null(i) { f64::NAN } else { f.value(i) })
                .collect();
            return Ok(Col::Numbers(Numbers::Owned(Arc::new(v))));
        }
        return Ok(Col::Numbers(Numbers::Arrow(f)));
    }
    // Dates and timestamps come as ISO 8601 text, which a time or group
    // key reads (`--cv time(col=...)`); as a feature they are text.
    let text_type = matches!(
        dt,
        DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Boolean
            | DataType::Date32
            | DataType::Date64
            | DataType::Timestamp(..)
    ) || matches!(dt, DataType::Dictionary(_, v) if matches!(**v, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View));
    if *dt == DataType::Null {
        // A column of missing values only (pandas' all-None object column).
        return Ok(Col::Text(Arc::new(vec![None; a.len()])));
    }
    if let DataType::Dictionary(_, v) = dt {
        if v.is_numeric() {
            // Numeric categories (a pandas category of numbers): their
            // values as text, as the readers read such a column.
            let texts = rarity::data::read::arrow_texts(a)
                .ok_or_else(|| value_error(format!("column '{name}' has type {dt}")))?;
            return Ok(Col::Text(Arc::new(texts)));
        }
    }
    if !text_type {
        return Err(value_error(format!(
            "column '{name}' has type {dt}; rarity reads numbers and text (strings, categoricals, booleans)"
        )));
    }
    let s = arrow_cast::cast(a, &DataType::Utf8)
        .map_err(|e| value_error(format!("column '{name}': {e}")))?;
    let s = s.as_string::<i32>();
    let texts: Vec<Option<String>> = (0..s.len())
        .map(|i| {
            (!s.is_null(i)).then(|| {
                let v = s.value(i);
                // Booleans are written as Python (and pandas' CSV) writes them.
                match (dt, v) {
                    (DataType::Boolean, "true") => "True".to_string(),
                    (DataType::Boolean, "false") => "False".to_string(),
                    _ => v.to_string(),
                }
            })
        })
        .collect();
    Ok(match dt {
        DataType::Date32 | DataType::Date64 | DataType::Timestamp(..) => {
            Col::Time(Arc::new(texts), dt.to_string())
        }
        _ => Col::Text(Arc::new(texts)),
    })
}

impl Features {
    /// The columns of an Arrow batch that `wanted` accepts by name, read as
    /// [`Features::from_arrow`] reads a table's.
    pub fn from_batch(batch: &RecordBatch, wanted: impl Fn(&str) -> bool) -> PyResult<Features> {
        let mut cols = Vec::with_capacity(batch.num_columns());
        for (f, a) in batch.schema().fields().iter().zip(batch.columns()) {
            if wanted(f.name()) {
                cols.push((f.name().clone(), arrow_column(f.name(), a)?));
            }
        }
        Ok(Features {
            inner: Inner::Columns {
                cols,
                n: batch.num_rows(),
            },
        })
    }

    /// The columns as the library reads them (borrowing this object).
    fn columns(&self) -> Vec<Column<'_>> {
        match &self.inner {
            Inner::Columns { cols, .. } => cols
                .iter()
                .map(|(name, c)| Column {
                    name: name.clone(),
                    values: match c {
                        Col::Numbers(v) => ColumnValues::Numbers(Cow::Borrowed(v.values())),
                        Col::Text(t) | Col::Time(t, _) | Col::Category(t, _) => {
                            ColumnValues::Text(t.as_ref().clone())
                        }
                    },
                })
                .collect(),
            Inner::Matrix { .. } => Vec::new(),
        }
    }

    pub fn n_rows(&self) -> usize {
        match &self.inner {
            Inner::Matrix { n, .. } | Inner::Columns { n, .. } => *n,
        }
    }

    /// The names of the source columns.
    pub fn names(&self) -> Vec<String> {
        match &self.inner {
            Inner::Matrix { d, names, .. } => names.clone().unwrap_or_else(|| default_names(*d)),
            Inner::Columns { cols, .. } => cols.iter().map(|(n, _)| n.clone()).collect(),
        }
    }

    /// A labelled dataset: class ids `y` (`0..k`), `class_names`, optional
    /// row weights. Runs inside a pool (the checks are parallel).
    pub fn dataset(
        &self,
        y: Vec<u32>,
        class_names: Vec<String>,
        target_name: String,
        weights: Option<Vec<f64>>,
        key: Option<&KeyColumn>,
    ) -> rarity::Result<Dataset> {
        let n = self.n_rows();
        if y.len() != n {
            return Err(rarity::Error::invalid(format!(
                "X has {n} rows but y has {} labels; give one label per row",
                y.len()
            )));
        }
        let ds = match &self.inner {
            Inner::Matrix { values, d, .. } => {
                let names = self.names();
                let schema = Schema {
                    encodings: names
                        .iter()
                        .map(|n| ColumnEncoding::Numeric { name: n.clone() })
                        .collect(),
                    feature_names: names,
                    class_names,
                    target_name,
                };
                debug_assert_eq!(values.len(), n * d);
                Dataset::from_values(values.clone(), y, schema)?
            }
            Inner::Columns { cols, .. } => {
                let times = cols.iter().filter_map(|(name, c)| match c {
                    Col::Time(_, ty) => Some((name, ty)),
                    _ => None,
                });
                for (name, ty) in times {
                    if key.is_none_or(|k| &k.name != name) {
                        return Err(rarity::Error::invalid(format!(
                            "column '{name}' has type {ty}; rarity reads numbers and text \
                             (strings, categoricals, booleans) as features; a date or time \
                             column can order the folds of rarity.run(..., cv=\"time(col={name})\")"
                        )));
                    }
                }
                let (x, kinds) = self.encode_for_fit(cols, key)?;
                let schema = Schema {
                    feature_names: feature_names(&kinds),
                    class_names,
                    encodings: kinds,
                    target_name,
                };
                Dataset::new(x, y, schema)?
            }
        };
        match weights {
            Some(w) => ds.with_weights(w),
            None => Ok(ds),
        }
    }

    /// The rows to predict on, encoded as the training data of `schema`:
    /// a matrix by position (as many columns as the model's features), a
    /// table by column name. Labels are placeholders.
    /// [`Features::for_schema`], where an unnamed matrix of the model's
    /// width shares `numeric`, the model's schema with numeric columns, made
    /// once per model (what `for_schema` would copy on every call).
    pub fn for_model(
        &self,
        schema: &Schema,
        numeric: &OnceLock<Arc<Schema>>,
        unknown: Unknown,
        missing_ok: &[bool],
    ) -> rarity::Result<Dataset> {
        match &self.inner {
            Inner::Matrix {
                values,
                d,
                names: None,
                n,
            } if *d == schema.feature_names.len() && !schema.has_categorical() => {
                let s = numeric
                    .get_or_init(|| Arc::new(numeric_schema(schema.feature_names.clone(), schema)));
                Dataset::from_shared(values.clone(), vec![0; *n], Arc::clone(s))
            }
            _ => self.for_schema(schema, unknown, missing_ok),
        }
    }

    /// The rows to predict on, encoded as the training data of `schema`
    /// (see [`Features::for_model`]); a level the model was not trained on
    /// is an error listing them, or with [`Unknown::Ignore`] all zeros
    /// (one-hot) or NaN (a level no split holds, the prior of a target
    /// encoding). A missing level of a categorical column whose missing
    /// values the model does not take (`missing_ok`, one flag per encoding:
    /// `FittedStrategy::missing_columns`) is an error naming its row
    /// (counted from 0); the other features' missing values are the
    /// model's to refuse.
    pub fn for_schema(
        &self,
        schema: &Schema,
        unknown: Unknown,
        missing_ok: &[bool],
    ) -> rarity::Result<Dataset> {
        let n = self.n_rows();
        match &self.inner {
            Inner::Matrix {
                values, d, names, ..
            } => {
                // Unnamed columns are the model's features by position; named
                // ones (or a count that differs) are checked by the library
                // when predicting, which names what is missing.
                let names = match names {
                    None if *d == schema.feature_names.len() => schema.feature_names.clone(),
                    None => default_names(*d),
                    Some(names) => names.clone(),
                };
                if schema.has_categorical() {
                    // Categorical columns by name, their values read as levels.
                    let (cols, n) = self.named_columns(names);
                    let columns = Features {
                        inner: Inner::Columns { cols, n },
                    };
                    return columns.for_schema(schema, unknown, missing_ok);
                }
                Dataset::from_values(values.clone(), vec![0; n], numeric_schema(names, schema))
            }
            Inner::Columns { cols, .. } => {
                let mut columns = self.columns();
                let mut view = schema.clone();
                for (k, e) in view.encodings.iter_mut().enumerate() {
                    if let ColumnEncoding::Categorical { name, levels } = e {
                        if let Some(j) = cols.iter().position(|(c, _)| c == name) {
                            if !missing_ok.get(k).copied().unwrap_or(false) {
                                if let Some(i) = (0..n).find(|&i| self.missing_at(i, j)) {
                                    return Err(rarity::Error::data(format!(
                                        "row {i}, column '{name}': missing value (a prediction \
                                         is owed for every row, and the model cannot take \
                                         missing values in this column: fit it with an \
                                         impute(...) stage, or a learner that learns where \
                                         missing values go)"
                                    )));
                                }
                            }
                            let codes = cols[j].1.codes(levels);
                            if unknown == Unknown::Error {
                                unseen_levels(name, &cols[j].1, &codes)?;
                            }
                            columns[j].values = ColumnValues::Numbers(Cow::Owned(codes));
                        }
                        *e = ColumnEncoding::Numeric { name: name.clone() };
                    }
                }
                // The level codes stand as numbers for the encoding; the
                // dataset keeps the model's schema (NaN: missing or unseen).
                let x = encode_columns_with_schema(&columns, &view, unknown)?;
                Dataset::new(x, vec![0; n], schema.clone())
            }
        }
    }

    /// The features of `cols` for fitting, with their encodings: each
    /// categorical column one feature of level codes
    /// (`ColumnEncoding::Categorical`), the others as the readers encode a
    /// table ([`encode_columns_keyed`]).
    fn encode_for_fit(
        &self,
        cols: &[(String, Col)],
        key: Option<&KeyColumn>,
    ) -> rarity::Result<(Vec<f64>, Vec<ColumnEncoding>)> {
        let mut columns = self.columns();
        let mut levels = Vec::new();
        for (j, (name, c)) in cols.iter().enumerate() {
            if let Col::Category(t, order) = c {
                let (codes, lv) = category_codes(name, t, order.as_ref().map(|o| o.as_slice()))?;
                columns[j].values = ColumnValues::Numbers(Cow::Owned(codes));
                levels.push((j, lv));
            }
        }
        let (x, mut kinds) = encode_columns_keyed(&columns, key)?;
        for (j, levels) in levels {
            let name = kinds[j].name().to_string();
            kinds[j] = ColumnEncoding::Categorical { name, levels };
        }
        Ok((x, kinds))
    }

    /// Whether the value of column `j` at row `i` is missing (NaN, None,
    /// null, or a missing text: empty, `?`, `NA`).
    fn missing_at(&self, i: usize, j: usize) -> bool {
        match &self.inner {
            Inner::Matrix { values, d, .. } => values[i * d + j].is_nan(),
            Inner::Columns { cols, .. } => match &cols[j].1 {
                Col::Numbers(v) => v.values()[i].is_nan(),
                Col::Text(t) | Col::Time(t, _) | Col::Category(t, _) => level_of(&t[i]).is_none(),
            },
        }
    }

    /// These features at `rows`, in that order.
    fn take(&self, rows: &[usize]) -> Features {
        match &self.inner {
            Inner::Columns { cols, .. } => Features {
                inner: Inner::Columns {
                    cols: cols
                        .iter()
                        .map(|(name, c)| (name.clone(), c.take(rows)))
                        .collect(),
                    n: rows.len(),
                },
            },
            Inner::Matrix {
                values, d, names, ..
            } => {
                let mut x = Vec::with_capacity(rows.len() * d);
                for &i in rows {
                    x.extend_from_slice(&values[i * d..(i + 1) * d]);
                }
                Features {
                    inner: Inner::Matrix {
                        values: Values::from_vec(x),
                        n: rows.len(),
                        d: *d,
                        names: names.clone(),
                    },
                }
            }
        }
    }

    /// The features, labels `y` (a missing one [`NO_LABEL`]) and `weights`
    /// to fit on under the settled missing-value `policy`, as the readers
    /// follow `--missing`: `keep` drops only the rows whose label (or `key`
    /// column) is missing, `drop` every incomplete row, `error` fails on the
    /// first missing value, naming its row (counted from 0) and column.
    /// Labels or weights of the wrong length are left for
    /// [`Features::dataset`] to report.
    fn training_rows(
        &self,
        y: Vec<u32>,
        weights: Option<Vec<f64>>,
        policy: Missing,
        key: Option<&KeyColumn>,
    ) -> rarity::Result<(Features, Vec<u32>, Option<Vec<f64>>, Dropped)> {
        let n = self.n_rows();
        let fits = y.len() == n && weights.as_ref().is_none_or(|w| w.len() == n);
        let names = self.names();
        let key_at = key.and_then(|k| names.iter().position(|c| *c == k.name));
        let mut rows = Vec::with_capacity(n);
        let mut dropped = Dropped::default();
        for i in (0..n).filter(|_| fits) {
            let column = (0..names.len()).find(|&j| self.missing_at(i, j));
            let unusable = y[i] == NO_LABEL || key_at.is_some_and(|k| self.missing_at(i, k));
            if !unusable && (policy == Missing::Keep || column.is_none()) {
                rows.push(i);
                continue;
            }
            if policy == Missing::Error {
                return Err(rarity::Error::data(match column {
                    Some(j) if y[i] != NO_LABEL => {
                        format!("row {i}, column '{}': missing value", names[j])
                    }
                    _ => format!("row {i}: the label is missing"),
                }));
            }
            if policy == Missing::Keep {
                dropped.label += 1;
            } else {
                dropped.missing += 1;
            }
        }
        if !fits || rows.len() == n {
            return Ok((self.clone(), y, weights, dropped));
        }
        if rows.is_empty() {
            return Err(rarity::Error::data(format!(
                "every one of the {n} rows misses a value ({}), and such rows are dropped; \
                 nothing is left to fit on",
                if policy == Missing::Keep {
                    "its label"
                } else {
                    "missing='keep' keeps the missing feature values for a strategy that takes them"
                }
            )));
        }
        let pick = |v: &[f64]| rows.iter().map(|&i| v[i]).collect();
        let y = rows.iter().map(|&i| y[i]).collect();
        let weights = weights.as_deref().map(pick);
        Ok((self.take(&rows), y, weights, dropped))
    }

    /// The named columns of these features (a matrix's columns named
    /// `names`) and the number of rows.
    fn named_columns(&self, names: Vec<String>) -> (Vec<(String, Col)>, usize) {
        match &self.inner {
            Inner::Columns { cols, n } => (cols.clone(), *n),
            Inner::Matrix { values, n, d, .. } => {
                let (n, d) = (*n, *d);
                let cols = names
                    .into_iter()
                    .enumerate()
                    .map(|(j, name)| {
                        let v: Vec<f64> = (0..n).map(|i| values[i * d + j]).collect();
                        (name, Col::Numbers(Numbers::Owned(Arc::new(v))))
                    })
                    .collect();
                (cols, n)
            }
        }
    }
}

/// Fails when categorical column `name` (`col`, coded `codes` by the
/// model's levels) holds levels the model was not trained on, counting the
/// rows and listing the levels, as `rarity predict` does.
fn unseen_levels(name: &str, col: &Col, codes: &[f64]) -> rarity::Result<()> {
    let texts = col.level_texts();
    let mut unseen: std::collections::BTreeMap<&str, usize> = Default::default();
    for (t, c) in texts.iter().zip(codes) {
        if let (true, Some(level)) = (c.is_nan(), level_of(t)) {
            *unseen.entry(level).or_insert(0) += 1;
        }
    }
    if unseen.is_empty() {
        return Ok(());
    }
    let rows: usize = unseen.values().sum();
    let list: Vec<String> = unseen
        .iter()
        .take(20)
        .map(|(l, n)| format!("'{l}' ({n} row{})", if *n == 1 { "" } else { "s" }))
        .collect();
    Err(rarity::Error::data(format!(
        "column '{name}': {rows} row(s) have {} level(s) the model was not trained on: {}; \
         unknown='ignore' reads them as a level no split holds (the prior of a target \
         encoding)",
        unseen.len(),
        list.join(", ")
    )))
}

/// `schema` with the numeric columns `names`: the schema of a matrix.
fn numeric_schema(names: Vec<String>, schema: &Schema) -> Schema {
    Schema {
        encodings: names
            .iter()
            .map(|n| ColumnEncoding::Numeric { name: n.clone() })
            .collect(),
        feature_names: names,
        class_names: schema.class_names.clone(),
        target_name: schema.target_name.clone(),
    }
}

#[pymethods]
impl Features {
    /// A 2-D C-contiguous float64 (read in place) or float32 (converted)
    /// NumPy array, with the DataFrame's column names if it came from one.
    #[staticmethod]
    #[pyo3(signature = (x, names=None, n_jobs=None))]
    fn from_numpy(
        py: Python<'_>,
        x: &Bound<'_, PyAny>,
        names: Option<Vec<String>>,
        n_jobs: Option<i64>,
    ) -> PyResult<Features> {
        let arr = x
            .cast::<numpy::PyUntypedArray>()
            .map_err(|_| value_error("X must be a NumPy array"))?;
        if arr.ndim() != 2 {
            return Err(value_error(format!(
                "X has {} dimension(s); expected 2 (rows x features). Reshape your data \
                 with X.reshape(-1, 1) for one feature or X.reshape(1, -1) for one row",
                arr.ndim()
            )));
        }
        let (n, d) = (arr.shape()[0], arr.shape()[1]);
        if let Some(names) = &names {
            if names.len() != d {
                return Err(value_error(format!(
                    "{} names for {d} columns",
                    names.len()
                )));
            }
        }
        let dtype = arr.dtype();
        let values = if dtype.is_equiv_to(&numpy::dtype::<f64>(py)) {
            let a: PyReadonlyArray2<'_, f64> = x.extract()?;
            let slice = a
                .as_slice()
                .map_err(|_| value_error("X must be C-contiguous"))?;
            let owner: Arc<dyn std::any::Any + Send + Sync> = Arc::new(PyOwner(x.clone().unbind()));
            // SAFETY: `slice` holds the array's `n * d` values; `owner`
            // keeps the array alive as long as the buffer, and the fit
            // reads it only (the Python layer asks callers not to write X
            // while a fit runs).
            unsafe { Values::borrowed(slice.as_ptr(), slice.len(), owner) }
        } else if dtype.is_equiv_to(&numpy::dtype::<f32>(py)) {
            let a: PyReadonlyArray2<'_, f32> = x.extract()?;
            let v: Vec<f32> = a
                .as_slice()
                .map_err(|_| value_error("X must be C-contiguous"))?
                .to_vec();
            let w = run(py, n_jobs, move || {
                use rayon::prelude::*;
                Ok(v.par_iter().map(|&x| f64::from(x)).collect::<Vec<f64>>())
            })?;
            Values::from_vec(w)
        } else {
            return Err(value_error(format!(
                "X has dtype {dtype}; expected float64 or float32"
            )));
        };
        Ok(Features {
            inner: Inner::Matrix {
                values,
                n,
                d,
                names,
            },
        })
    }

    /// Any table with `__arrow_c_stream__` (pandas with pyarrow, polars,
    /// pyarrow): numeric columns read as numbers, text columns encoded.
    #[staticmethod]
    fn from_arrow(table: &Bound<'_, PyAny>) -> PyResult<Features> {
        let t: PyTable = table.extract()?;
        let (batches, schema) = t.into_inner();
        Features::from_batch(&one_batch(batches, schema)?, |_| true)
    }

    /// Named columns: each a 1-D float64 array or a list of str / None.
    #[staticmethod]
    fn from_columns(columns: Vec<(String, Bound<'_, PyAny>)>) -> PyResult<Features> {
        let mut cols = Vec::with_capacity(columns.len());
        let mut n = None;
        for (name, v) in columns {
            let c = if let Ok(a) = v.extract::<PyReadonlyArray1<'_, f64>>() {
                Col::Numbers(Numbers::Owned(Arc::new(a.as_array().to_vec())))
            } else {
                let t: Vec<Option<String>> = v.extract().map_err(|_| {
                    value_error(format!(
                        "column '{name}' holds values that are neither numbers nor text"
                    ))
                })?;
                Col::Text(Arc::new(t))
            };
            let len = match &c {
                Col::Numbers(v) => v.values().len(),
                Col::Text(t) | Col::Time(t, _) | Col::Category(t, _) => t.len(),
            };
            if *n.get_or_insert(len) != len {
                return Err(value_error(format!(
                    "column '{name}' has {len} values, but the first column has {}",
                    n.unwrap_or(0)
                )));
            }
            cols.push((name, c));
        }
        Ok(Features {
            inner: Inner::Columns {
                cols,
                n: n.unwrap_or(0),
            },
        })
    }

    /// Rows given as a list of lists of numbers (every row as long as the
    /// first).
    #[staticmethod]
    fn from_rows(rows: Vec<Vec<f64>>) -> PyResult<Features> {
        let n = rows.len();
        let d = rows.first().map_or(0, Vec::len);
        // The library's check of ragged rows and its message.
        let ds = Dataset::from_rows(rows, vec![0; n], vec!["_".into()]).map_err(to_py)?;
        Ok(Features {
            inner: Inner::Matrix {
                values: Values::from_vec(ds.features().to_vec()),
                n,
                d,
                names: None,
            },
        })
    }

    /// These features with the columns at `columns` (0-based) read as
    /// categorical: one feature of level codes each, levels in the given
    /// order (`orders[i]`: the declared categories, as texts or numbers) or,
    /// for `None`, sorted by text as the readers sort a file's. Numbers are
    /// levels as rarity writes them (`3`, `2.5`).
    fn categorical(&self, columns: Vec<usize>, orders: Vec<Option<Order>>) -> PyResult<Features> {
        if orders.len() != columns.len() {
            return Err(value_error(
                "one order (or None) per categorical column is needed",
            ));
        }
        let (mut cols, n) = self.named_columns(self.names());
        for (j, order) in columns.into_iter().zip(orders) {
            let d = cols.len();
            let (_, c) = cols.get_mut(j).ok_or_else(|| {
                value_error(format!(
                    "categorical column {j} is out of range: X has {d} columns"
                ))
            })?;
            *c = Col::Category(c.level_texts(), order.map(|o| Arc::new(o.texts())));
        }
        Ok(Features {
            inner: Inner::Columns { cols, n },
        })
    }

    /// Number of rows.
    #[getter]
    fn n_rows_(&self) -> usize {
        self.n_rows()
    }

    /// Names of the source columns (`x0, x1, ...` for an unnamed matrix).
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.names()
    }

    /// Positions of the text columns (strings: what `--categorical native`
    /// reads as level codes in a file).
    #[getter]
    fn text_columns(&self) -> Vec<usize> {
        match &self.inner {
            Inner::Matrix { .. } => Vec::new(),
            Inner::Columns { cols, .. } => (cols.iter().enumerate())
                .filter(|(_, (_, c))| matches!(c, Col::Text(_)))
                .map(|(j, _)| j)
                .collect(),
        }
    }
}

/// The declared levels of a categorical column, in order.
#[derive(FromPyObject)]
pub enum Order {
    /// Level texts.
    Texts(Vec<String>),
    /// Numeric categories (their texts as rarity writes numbers).
    Numbers(Vec<f64>),
}

impl Order {
    fn texts(self) -> Vec<String> {
        match self {
            Order::Texts(t) => t,
            Order::Numbers(v) => v.into_iter().map(number_text).collect(),
        }
    }
}

/// The batches of a chunked table as one.
pub fn one_batch(
    batches: Vec<RecordBatch>,
    schema: arrow_schema::SchemaRef,
) -> PyResult<RecordBatch> {
    match batches.len() {
        0 => Ok(RecordBatch::new_empty(schema)),
        1 => Ok(batches.into_iter().next().expect("one batch")),
        _ => arrow_select::concat::concat_batches(&schema, &batches)
            .map_err(|e| value_error(format!("cannot join the table's chunks: {e}"))),
    }
}

/// The key column of a cross-validation spec (`time(col=...)`,
/// `group(col=...)`), read as the command line reads it.
pub fn split_key(cv: Option<&str>) -> PyResult<Option<KeyColumn>> {
    match cv {
        None => Ok(None),
        Some(cv) => Ok(cv
            .parse::<rarity::split::Splitter>()
            .map_err(to_py)?
            .key_column()),
    }
}

/// The class id of a row whose label is missing (`None`, NaN): the row is
/// dropped (`missing='keep'` or `'drop'`) or refused (`'error'`).
pub const NO_LABEL: u32 = u32::MAX;

/// Rows left out before fitting, as the file readers count them.
#[derive(Debug, Clone, Copy, Default)]
pub struct Dropped {
    /// Rows with a missing feature value (`missing='drop'`).
    pub missing: usize,
    /// Rows whose label (or cross-validation key) is missing, while
    /// missing feature values are kept.
    pub label: usize,
}

/// A labelled dataset, ready to fit on.
#[pyclass(frozen, module = "rarity._rarity")]
pub struct Data {
    pub ds: Dataset,
    /// Rows left out for missing values (as the file readers drop them).
    pub dropped: Dropped,
}

impl Data {
    /// A dataset from which no row was dropped.
    pub fn whole(ds: Dataset) -> Data {
        Data {
            ds,
            dropped: Dropped::default(),
        }
    }

    /// A dataset with the rows a reader's `report` dropped.
    pub fn read(ds: Dataset, report: &rarity::data::read::ReadReport) -> Data {
        Data {
            ds,
            dropped: Dropped {
                missing: report.dropped_missing,
                label: report.dropped_label,
            },
        }
    }

    /// The rows dropped, as a command's JSON reports them.
    pub fn rows_dropped(&self) -> rarity::data::read::RowsDropped {
        rarity::data::read::ReadReport {
            dropped_missing: self.dropped.missing,
            dropped_label: self.dropped.label,
            ..Default::default()
        }
        .rows_dropped()
    }
}

#[pymethods]
impl Data {
    /// Features with class ids `y` (a missing label [`NO_LABEL`]), the
    /// class names, the target's name, optional row weights, and the
    /// missing-value policy settled for the strategies that will fit on it
    /// (`keep`, `drop` or `error`: [`crate::functions::missing_policy`]).
    #[new]
    #[pyo3(signature = (features, y, class_names, target_name="y".to_string(), weights=None, n_jobs=None, cv=None, missing="drop"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        features: &Features,
        y: PyReadonlyArray1<'_, u32>,
        class_names: Vec<String>,
        target_name: String,
        weights: Option<PyReadonlyArray1<'_, f64>>,
        n_jobs: Option<i64>,
        cv: Option<&str>,
        missing: &str,
    ) -> PyResult<Data> {
        let policy = settled(missing)?;
        let y = y.as_array().to_vec();
        let weights = weights.map(|w| w.as_array().to_vec());
        let f = features.clone();
        let key = split_key(cv)?;
        run(py, n_jobs, move || {
            let (f, y, weights, dropped) = f.training_rows(y, weights, policy, key.as_ref())?;
            let ds = f.dataset(y, class_names, target_name, weights, key.as_ref())?;
            Ok(Data { ds, dropped })
        })
    }

    /// Rows left out for missing values (their feature values under
    /// `missing='drop'`, their labels).
    #[getter]
    fn rows_dropped_(&self) -> usize {
        self.dropped.missing + self.dropped.label
    }

    /// Rows left out because their label is missing.
    #[getter]
    fn rows_dropped_label_(&self) -> usize {
        self.dropped.label
    }

    /// Feature values kept missing (NaN).
    #[getter]
    fn missing_values_(&self) -> usize {
        self.ds.missing_counts().iter().sum()
    }

    #[getter]
    fn n_rows(&self) -> usize {
        self.ds.n_rows()
    }

    #[getter]
    fn n_features(&self) -> usize {
        self.ds.n_features()
    }

    #[getter]
    fn feature_names(&self) -> Vec<String> {
        self.ds.feature_names().to_vec()
    }

    #[getter]
    fn class_names(&self) -> Vec<String> {
        self.ds.class_names().to_vec()
    }

    /// Whether a feature is categorical (level codes).
    #[getter]
    fn has_categorical(&self) -> bool {
        self.ds.schema().has_categorical()
    }

    /// This dataset marked so that every strategy without an encode stage
    /// encodes its categorical features by target statistics, as
    /// `--categorical target` marks a file's.
    fn with_target_statistics(&self) -> Data {
        Data {
            ds: self.ds.clone().with_target_statistics(),
            dropped: self.dropped,
        }
    }

    /// This dataset marked so that every strategy without an encode stage
    /// encodes the categorical features `names` by target statistics (the
    /// others stay level codes), as `--categorical-cols COL=target` marks a
    /// file's.
    fn with_target_columns(&self, names: Vec<String>) -> Data {
        Data {
            ds: self.ds.clone().with_target_columns(names),
            dropped: self.dropped,
        }
    }

    #[getter]
    fn class_counts(&self) -> Vec<usize> {
        self.ds.class_counts()
    }

    #[getter]
    fn priors(&self) -> Vec<f64> {
        self.ds.priors()
    }

    /// Class ids of the rows.
    #[getter]
    fn labels<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        PyArray1::from_slice(py, self.ds.labels())
    }
}

/// A settled missing-value policy word (`keep`, `drop`, `error`).
pub fn settled(missing: &str) -> PyResult<Missing> {
    match Missing::from_word(missing) {
        Some(Missing::Auto) | None => Err(value_error(format!(
            "missing='{missing}' is invalid here; expected keep, drop or error (a policy \
             settled by rarity's missing_policy)"
        ))),
        Some(m) => Ok(m),
    }
}

/// Orders labels into classes as every rarity reader does: `names` are the
/// distinct labels as text, `counts` their rows. Returns the class names
/// (class `k` is `names[k]`) and, per given label, its class id. Numeric
/// labels are ordered numerically, others as text; for two classes class 1
/// is the positive class: `positive` if given, else the minority.
#[pyfunction]
#[pyo3(signature = (names, counts, positive=None))]
pub fn assign_labels(
    names: Vec<String>,
    counts: Vec<usize>,
    positive: Option<String>,
) -> PyResult<(Vec<String>, Vec<u32>)> {
    if names.len() != counts.len() {
        return Err(value_error("one count per label is needed"));
    }
    let pairs: Vec<(String, usize)> = names.into_iter().zip(counts).collect();
    assign_classes(&pairs, positive.as_deref(), false).map_err(to_py)
}
