//! The native pieces of `rarity.spark`, each a batch-sized call the
//! Python layer runs inside Spark tasks (`mapInArrow`) or on the driver:
//!
//! - `keep_batch`: the rows of an Arrow batch kept by the per-row Bernoulli
//!   draw of `rarity::sample::keyed` (a hash of the seed and the row key, so
//!   the sample does not depend on partitioning), with the rows seen and
//!   kept per label;
//! - `label_counts`, `under_rates`: class counts and the keep rates
//!   `under(beta=..)` / `under(ratio=..)` ask for (`RandomUnder::rates_for`);
//! - `LevelTable`: the levels of categorical columns collected per
//!   partition, merged on the driver (a union: the same table whatever the
//!   partitioning) and shipped to the partitions, which replace each level
//!   by its code (its rank among the sorted level texts, as the file
//!   readers code them; `rarity::data::read::LevelTable`);
//! - `fit_drawn`: a strategy fitted on the collected sample with the
//!   population's class counts, so that `+correct` (Dal Pozzolo et al. 2015,
//!   eq. 9) undoes the sampling that happened (`Strategy::fit_drawn`); the
//!   code columns of a level table become categorical features;
//! - `predict_batch`: `p_<class>` columns and the decided `label` appended to
//!   a batch, row for row what `rarity predict` writes;
//! - `Summary`: the mergeable, bounded score histogram behind `rarity
//!   score`'s metrics (`rarity::metrics::summary::BinarySummary`);
//! - `score_keys`, `counts_above`, `RangeWalk`, `RankSums`: the exact
//!   ranking metrics by a distributed sort (`rarity::metrics::ranges`).

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int64Array, Int8Array, RecordBatch, StringArray,
};
use arrow_schema::{Field, Schema as ArrowSchema};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use pyo3_arrow::{PyRecordBatch, PyTable};

use rarity::contributions::{ReasonKind, Reasons};
use rarity::data::read::{arrow_numbers, arrow_texts, assign_classes, level_codes, Unknown};
use rarity::data::scores::prediction_columns;
use rarity::data::{ColumnEncoding, Dataset, Schema};
use rarity::metrics::ranges;
use rarity::metrics::summary::{key_score, score_key, BinarySummary, DEFAULT_MAX_GROUPS};
use rarity::sample::keyed;
use rarity::sample::RandomUnder;
use rarity::strategy::FittedStrategy;

use crate::data::{one_batch, Features};
use crate::model::Model;
use crate::pool::{run, to_py};

fn value_error(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

/// The column `name` of `batch`, or an error listing the columns.
fn column<'a>(batch: &'a RecordBatch, name: &str) -> PyResult<&'a ArrayRef> {
    batch.column_by_name(name).ok_or_else(|| {
        let names: Vec<String> = batch
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        value_error(format!(
            "no column '{name}'; columns are: {}",
            names.join(", ")
        ))
    })
}

/// The labels of `batch`'s column `label` as text (numbers as rarity
/// writes them, so `1` and `1.0` are the class `1` as in a CSV).
fn labels(batch: &RecordBatch, label: &str) -> PyResult<Vec<String>> {
    let a = column(batch, label)?;
    let texts = arrow_texts(a).ok_or_else(|| {
        value_error(format!(
            "label column '{label}' has type {}; labels are numbers or text",
            a.data_type()
        ))
    })?;
    texts
        .into_iter()
        .map(|t| {
            t.ok_or_else(|| {
                value_error(format!(
                    "label column '{label}' has a missing value; drop those rows first \
                     (df.dropna(subset=['{label}']))"
                ))
            })
        })
        .collect()
}

/// Per row, the key of one column's value (`keyed::number_key`,
/// `keyed::text_key`, `keyed::MISSING`).
fn value_keys(name: &str, a: &ArrayRef) -> PyResult<Vec<u64>> {
    if let Some(v) = arrow_numbers(a.as_ref()) {
        return Ok(v
            .into_iter()
            .map(|x| x.map_or(keyed::MISSING, keyed::number_key))
            .collect());
    }
    let t = arrow_texts(a).ok_or_else(|| {
        value_error(format!(
            "column '{name}' has type {}, which cannot be part of a row key; \
             give key= an identifier column (numbers or text)",
            a.data_type()
        ))
    })?;
    Ok(t.into_iter()
        .map(|x| x.map_or(keyed::MISSING, |s| keyed::text_key(&s)))
        .collect())
}

/// Each row's key: the `key` column's value, else the hash of every value.
fn row_keys(batch: &RecordBatch, key: Option<&str>) -> PyResult<Vec<u64>> {
    if let Some(k) = key {
        return value_keys(k, column(batch, k)?);
    }
    let schema = batch.schema();
    let cols = schema
        .fields()
        .iter()
        .zip(batch.columns())
        .map(|(f, a)| value_keys(f.name(), a))
        .collect::<PyResult<Vec<_>>>()?;
    Ok((0..batch.num_rows())
        .map(|i| keyed::row_key(cols.iter().map(|c| c[i])))
        .collect())
}

/// Rows per label, sorted by label.
fn tally(labels: &[String], kept: Option<&[bool]>) -> Vec<(String, u64, u64)> {
    let mut m: HashMap<&str, (u64, u64)> = HashMap::new();
    for (i, l) in labels.iter().enumerate() {
        let e = m.entry(l.as_str()).or_default();
        e.0 += 1;
        e.1 += u64::from(kept.is_none_or(|k| k[i]));
    }
    let mut v: Vec<(String, u64, u64)> = m
        .into_iter()
        .map(|(l, (s, k))| (l.to_string(), s, k))
        .collect();
    v.sort();
    v
}

/// The rows of `batch` kept at their label's rate (`rates[label]`, else
/// `default_rate`) by the keyed Bernoulli draw for `seed`, and per label the
/// rows seen and kept.
#[pyfunction]
#[pyo3(signature = (batch, label, rates, default_rate, seed, key=None))]
pub fn keep_batch<'py>(
    py: Python<'py>,
    batch: PyRecordBatch,
    label: &str,
    rates: HashMap<String, f64>,
    default_rate: f64,
    seed: u64,
    key: Option<&str>,
) -> PyResult<(Bound<'py, PyAny>, Vec<(String, u64, u64)>)> {
    let batch = batch.into_inner();
    let labels = labels(&batch, label)?;
    let keys = row_keys(&batch, key)?;
    let kept: Vec<bool> = labels
        .iter()
        .zip(&keys)
        .map(|(l, &k)| keyed::keep(seed, k, *rates.get(l).unwrap_or(&default_rate)))
        .collect();
    let counts = tally(&labels, Some(&kept));
    let mask = BooleanArray::from(kept);
    let out = arrow_select::filter::filter_record_batch(&batch, &mask)
        .map_err(|e| value_error(format!("cannot filter the batch: {e}")))?;
    Ok((PyRecordBatch::new(out).into_pyarrow(py)?, counts))
}

/// Rows per label of `batch`'s column `label`, sorted by label.
#[pyfunction]
pub fn label_counts(batch: PyRecordBatch, label: &str) -> PyResult<Vec<(String, u64)>> {
    let labels = labels(batch.as_ref(), label)?;
    Ok(tally(&labels, None)
        .into_iter()
        .map(|(l, n, _)| (l, n))
        .collect())
}

/// The class names of labels counted `counts`, and each label's class id.
fn classes(counts: &[(String, u64)], positive: Option<&str>) -> PyResult<(Vec<String>, Vec<u32>)> {
    let pairs: Vec<(String, usize)> = counts
        .iter()
        .map(|(l, n)| (l.clone(), *n as usize))
        .collect();
    assign_classes(&pairs, positive, false).map_err(to_py)
}

/// The keep rate of each label that `under(beta=..)` or `under(ratio=..)`
/// gives classes counted `counts` (classes ordered as rarity's readers order
/// them; `positive` names the positive class of two).
#[pyfunction]
#[pyo3(signature = (counts, beta=None, ratio=None, positive=None))]
pub fn under_rates(
    counts: Vec<(String, u64)>,
    beta: Option<f64>,
    ratio: Option<f64>,
    positive: Option<&str>,
) -> PyResult<HashMap<String, f64>> {
    let sampler = match (beta, ratio) {
        (Some(b), None) if b > 0.0 && b <= 1.0 => RandomUnder::beta(b),
        (None, Some(r)) if r > 0.0 && r <= 1.0 => RandomUnder::ratio(r),
        (Some(_), Some(_)) => return Err(value_error("give only one of beta, ratio and rates")),
        (b, r) => {
            return Err(value_error(format!(
                "beta and ratio must lie in (0, 1]; got beta={b:?}, ratio={r:?}"
            )))
        }
    };
    let (names, ids) = classes(&counts, positive)?;
    let mut per_class = vec![0usize; names.len()];
    for ((_, n), &c) in counts.iter().zip(&ids) {
        per_class[c as usize] += *n as usize;
    }
    let rates = sampler.rates_for(&per_class).map_err(to_py)?;
    Ok(counts
        .iter()
        .zip(&ids)
        .map(|((l, _), &c)| (l.clone(), rates[c as usize]))
        .collect())
}

/// The texts of `batch`'s column `name` (numbers as rarity writes them).
fn column_texts(batch: &RecordBatch, name: &str) -> PyResult<Vec<Option<String>>> {
    let a = column(batch, name)?;
    arrow_texts(a).ok_or_else(|| {
        value_error(format!(
            "column '{name}' has type {}; a categorical column holds text or numbers",
            a.data_type()
        ))
    })
}

/// The levels of categorical columns, collected per partition and merged
/// (see the module doc), and the codes they give.
#[pyclass(module = "rarity._rarity")]
pub struct LevelTable {
    inner: rarity::data::read::LevelTable,
    /// Each column's sorted levels, once the table is used to code.
    sorted: Option<Vec<Vec<String>>>,
}

impl LevelTable {
    fn of(inner: rarity::data::read::LevelTable) -> LevelTable {
        LevelTable {
            inner,
            sorted: None,
        }
    }

    fn names(&self) -> Vec<String> {
        self.inner.names().into_iter().map(String::from).collect()
    }
}

#[pymethods]
impl LevelTable {
    /// An empty table of the columns `columns`.
    #[new]
    fn new(columns: Vec<String>) -> LevelTable {
        LevelTable::of(rarity::data::read::LevelTable::new(columns))
    }

    /// Adds the levels of `batch`'s columns (text as it is, trimmed;
    /// numbers as rarity writes them; missing values are no level).
    fn add_batch(&mut self, batch: PyRecordBatch) -> PyResult<()> {
        let batch = batch.into_inner();
        for (c, name) in self.names().iter().enumerate() {
            let texts = column_texts(&batch, name)?;
            self.inner.add(c, texts.iter().map(|t| t.as_deref()));
        }
        self.sorted = None;
        Ok(())
    }

    /// Adds the levels of `other`, a table of the same columns.
    fn merge(&mut self, other: &LevelTable) -> PyResult<()> {
        self.sorted = None;
        self.inner.merge(other.inner.clone()).map_err(to_py)
    }

    /// Each column's name and levels, sorted (a level's code is its
    /// position).
    fn levels(&self) -> Vec<(String, Vec<String>)> {
        self.names()
            .into_iter()
            .enumerate()
            .map(|(c, n)| (n, self.inner.levels(c)))
            .collect()
    }

    /// `batch` with each column of the table replaced by its level codes
    /// (doubles; null for a missing value, NaN for a level not in the table).
    fn code_batch<'py>(
        &mut self,
        py: Python<'py>,
        batch: PyRecordBatch,
    ) -> PyResult<Bound<'py, PyAny>> {
        let batch = batch.into_inner();
        let inner = &self.inner;
        let sorted = self
            .sorted
            .get_or_insert_with(|| (0..inner.names().len()).map(|c| inner.levels(c)).collect());
        let schema = batch.schema();
        // Nullable, as the coding job declares its output to Spark.
        let mut fields: Vec<Field> = schema
            .fields()
            .iter()
            .map(|f| f.as_ref().clone().with_nullable(true))
            .collect();
        let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
        for (c, name) in inner.names().iter().enumerate() {
            let texts = column_texts(&batch, name)?;
            let j = schema
                .index_of(name)
                .map_err(|e| value_error(e.to_string()))?;
            let codes = level_codes(&sorted[c], texts.iter().map(|t| t.as_deref()));
            fields[j] = Field::new(*name, arrow_schema::DataType::Float64, true);
            columns[j] = Arc::new(Float64Array::from(codes));
        }
        let out = RecordBatch::try_new(Arc::new(ArrowSchema::new(fields)), columns)
            .map_err(|e| value_error(format!("cannot build the coded batch: {e}")))?;
        PyRecordBatch::new(out).into_pyarrow(py)
    }

    /// The table as bytes (to ship between the driver and the executors).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        to_json(py, &self.inner)
    }

    /// A table from `to_bytes`.
    #[staticmethod]
    fn from_bytes(b: &[u8]) -> PyResult<LevelTable> {
        Ok(LevelTable::of(from_json(b, "level table")?))
    }
}

/// `ds` with the columns of `categorical` (categorical encodings whose
/// features `ds` holds as level codes) read as categorical features.
fn with_categorical(ds: Dataset, categorical: &[ColumnEncoding]) -> rarity::Result<Dataset> {
    if categorical.is_empty() {
        return Ok(ds);
    }
    let mut schema = ds.schema().clone();
    for c in categorical {
        match schema.encodings.iter_mut().find(|e| e.name() == c.name()) {
            Some(e @ ColumnEncoding::Numeric { .. }) => *e = c.clone(),
            _ => {
                return Err(rarity::Error::invalid(format!(
                    "column '{}' of the level table is not a column of level codes in the sample",
                    c.name()
                )))
            }
        }
    }
    Dataset::new(ds.features().to_vec(), ds.labels().to_vec(), schema)
}

/// Fits `spec` (no sampler stage) on the collected sample `table` (its
/// features and the label column `label`), whose rows were drawn from a
/// population of `population` rows per label; the learner's stream is
/// `seed`'s. The columns of `levels` hold level codes
/// (`LevelTable.code_batch`) and are categorical features.
#[pyfunction]
#[pyo3(signature = (spec, table, label, population, seed, positive=None, n_jobs=None, levels=None))]
#[allow(clippy::too_many_arguments)]
pub fn fit_drawn(
    py: Python<'_>,
    spec: String,
    table: PyTable,
    label: String,
    population: Vec<(String, u64)>,
    seed: u64,
    positive: Option<String>,
    n_jobs: Option<i64>,
    levels: Option<PyRef<'_, LevelTable>>,
) -> PyResult<Model> {
    let (batches, schema) = table.into_inner();
    let batch = one_batch(batches, schema)?;
    let (names, ids) = classes(&population, positive.as_deref())?;
    let id_of: HashMap<&str, u32> = population
        .iter()
        .zip(&ids)
        .map(|((l, _), &c)| (l.as_str(), c))
        .collect();
    let y = labels(&batch, &label)?
        .iter()
        .map(|l| {
            id_of.get(l.as_str()).copied().ok_or_else(|| {
                value_error(format!(
                    "label '{l}' of the sample was not counted in the population"
                ))
            })
        })
        .collect::<PyResult<Vec<u32>>>()?;
    let mut counts = vec![0usize; names.len()];
    for ((_, n), &c) in population.iter().zip(&ids) {
        counts[c as usize] += *n as usize;
    }
    let features = Features::from_batch(&batch, |c| c != label)?;
    let categorical = levels.map_or_else(Vec::new, |l| l.inner.encodings());
    let ds = run(py, n_jobs, move || {
        let ds = features.dataset(y, names, label, None, None)?;
        with_categorical(ds, &categorical)
    })?;
    let fitted = run(py, n_jobs, move || {
        rarity::spec::build_strategy(&spec)?.fit_drawn(&ds, &counts, seed)
    })?;
    Ok(Model::new(fitted))
}

/// `model` deciding by the rule `decision` names (as `rarity predict
/// --decision`); an error for a model whose predictions depend on the rows
/// predicted together (`+em`), which partitions cannot share.
#[pyfunction]
#[pyo3(signature = (model, decision=None))]
pub fn for_partitions(model: &Model, decision: Option<&str>) -> PyResult<Model> {
    if model.fitted.batch_dependent() {
        return Err(value_error(format!(
            "{}: +em estimates the priors on all the rows predicted together, which Spark's \
             partitions cannot share; fit the model without em, or give the target priors \
             with +priors(...)",
            model.fitted.spec
        )));
    }
    let fitted = match decision {
        Some(d) => model.fitted.with_decision_spec(d).map_err(to_py)?,
        None => model.fitted.as_ref().clone(),
    };
    Ok(Model::new(fitted))
}

/// `batch` with the model's categorical columns that hold numbers (declared
/// with `categorical_cols`) as their texts, which the model's levels are.
fn categorical_texts(batch: &RecordBatch, schema: &Schema) -> PyResult<RecordBatch> {
    let arrow = batch.schema();
    let mut fields: Vec<Field> = arrow.fields().iter().map(|f| f.as_ref().clone()).collect();
    let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
    let mut changed = false;
    for e in &schema.encodings {
        let ColumnEncoding::Categorical { name, .. } = e else {
            continue;
        };
        let Ok(j) = arrow.index_of(name) else {
            continue;
        };
        if !columns[j].data_type().is_numeric() {
            continue;
        }
        let texts = column_texts(batch, name)?;
        fields[j] = Field::new(name, arrow_schema::DataType::Utf8, true);
        columns[j] = Arc::new(StringArray::from(texts));
        changed = true;
    }
    if !changed {
        return Ok(batch.clone());
    }
    RecordBatch::try_new(Arc::new(ArrowSchema::new(fields)), columns)
        .map_err(|e| value_error(format!("cannot read the categorical columns: {e}")))
}

/// The rows of `batch` read from the model's source columns only, and
/// their probabilities, labels and (with `reasons`) their reasons (one
/// thread: Spark runs a task per core); a missing value (null, NaN, a
/// missing text) is scored where the model takes it and refused elsewhere,
/// as `rarity predict` does, and an unseen level follows `unknown`.
#[allow(clippy::type_complexity)]
fn predict(
    py: Python<'_>,
    m: &Arc<FittedStrategy>,
    batch: &RecordBatch,
    unknown: Unknown,
    reasons: Option<usize>,
) -> PyResult<(rarity::data::Proba, Vec<u32>, Option<ReasonRows>)> {
    let used = |c: &str| m.schema.encodings.iter().any(|e| e.name() == c);
    let f = Features::from_batch(&categorical_texts(batch, &m.schema)?, used)?;
    let m = Arc::clone(m);
    run(py, Some(1), move || {
        let ds = f.for_schema(&m.schema, unknown, &m.missing_columns())?;
        let (p, labels) = m.predict(&ds)?;
        let why = match reasons {
            Some(k) => Some(reason_rows(&m, &ds, &labels, k)?),
            None => None,
        };
        Ok((p, labels, why))
    })
}

/// Per row, its `k` strongest reasons: columns, values' texts and
/// contributions (row-major, `k` each).
type ReasonRows = (Vec<String>, Vec<String>, Vec<f64>);

/// The reasons of `rarity predict --reasons K` for the rows of `ds`.
fn reason_rows(
    m: &FittedStrategy,
    ds: &Dataset,
    labels: &[u32],
    k: usize,
) -> rarity::Result<ReasonRows> {
    let r = Reasons::new(m, ReasonKind::Reasons(k))?;
    let plan = &r.plan;
    let c = plan.explain(ds)?;
    let (mut names, mut values, mut contrib) = (Vec::new(), Vec::new(), Vec::new());
    for (i, &l) in labels.iter().enumerate() {
        for (j, v) in plan.ranked(&c, i, l as usize).into_iter().take(k) {
            names.push(plan.columns[j].clone());
            values.push(plan.value_text(ds, i, j));
            contrib.push(v);
        }
    }
    Ok((names, values, contrib))
}

/// Fails, before any work, unless `model` has exact contributions and `k`
/// reasons fit its source columns.
#[pyfunction]
pub fn check_reasons(model: &Model, k: usize) -> PyResult<()> {
    Reasons::new(&model.fitted, ReasonKind::Reasons(k))
        .map(|_| ())
        .map_err(|e| value_error(format!("predict: reasons={k}: {e}")))
}

/// `batch` with the `p_<class>` columns and the decided `label` appended
/// (then `reason_1..K`, `value_1..K`, `contribution_1..K` with `reasons`):
/// each row's numbers are those `rarity predict` writes for it (`unknown`:
/// `error` or `ignore`, as `--unknown`).
#[pyfunction]
#[pyo3(signature = (model, batch, unknown="error", reasons=None))]
pub fn predict_batch<'py>(
    py: Python<'py>,
    model: &Model,
    batch: PyRecordBatch,
    unknown: &str,
    reasons: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let unknown = crate::model::unknown_of(unknown)?;
    let batch = batch.into_inner();
    let names = &model.fitted.schema.class_names;
    let specs = prediction_columns(&[], names);
    let schema = batch.schema();
    if let Some(s) = specs
        .iter()
        .find(|s| schema.column_with_name(&s.name).is_some())
    {
        return Err(value_error(format!(
            "the data already have a column '{}', which predict adds; rename or drop it",
            s.name
        )));
    }
    let (proba, labels, why) = predict(py, &model.fitted, &batch, unknown, reasons)?;
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    let mut columns: Vec<ArrayRef> = batch.columns().to_vec();
    for (k, s) in specs.iter().take(names.len()).enumerate() {
        fields.push(Field::new(&s.name, arrow_schema::DataType::Float64, false));
        columns.push(Arc::new(Float64Array::from(proba.column(k))));
    }
    fields.push(Field::new("label", arrow_schema::DataType::Utf8, false));
    columns.push(Arc::new(StringArray::from_iter_values(
        labels.iter().map(|&l| names[l as usize].as_str()),
    )));
    if let (Some(k), Some((rn, rv, rc))) = (reasons, why) {
        let text = |v: &[String], j: usize| -> ArrayRef {
            Arc::new(StringArray::from_iter_values(v.iter().skip(j).step_by(k)))
        };
        for (name, v) in [("reason", &rn), ("value", &rv)] {
            for j in 0..k {
                fields.push(Field::new(
                    format!("{name}_{}", j + 1),
                    arrow_schema::DataType::Utf8,
                    false,
                ));
                columns.push(text(v, j));
            }
        }
        for j in 0..k {
            fields.push(Field::new(
                format!("contribution_{}", j + 1),
                arrow_schema::DataType::Float64,
                false,
            ));
            columns.push(Arc::new(Float64Array::from_iter_values(
                rc.iter().skip(j).step_by(k).copied(),
            )));
        }
    }
    let out = RecordBatch::try_new(Arc::new(ArrowSchema::new(fields)), columns)
        .map_err(|e| value_error(format!("cannot build the predictions: {e}")))?;
    PyRecordBatch::new(out).into_pyarrow(py)
}

/// Each row's class id (0 or 1) under the binary `model`, read from the
/// column `label`.
fn binary_truth(model: &Model, batch: &RecordBatch, label: &str) -> PyResult<Vec<u32>> {
    let names = &model.fitted.schema.class_names;
    if names.len() != 2 {
        return Err(value_error(format!(
            "evaluate on Spark scores binary tasks; the model has {} classes",
            names.len()
        )));
    }
    labels(batch, label)?
        .iter()
        .map(|l| {
            names
                .iter()
                .position(|n| n == l)
                .map(|c| c as u32)
                .ok_or_else(|| {
                    value_error(format!(
                        "label '{l}' in column '{label}' is not a class of the model ({})",
                        names.join(", ")
                    ))
                })
        })
        .collect()
}

/// The classes and positive-class probabilities of `batch`'s rows.
fn scored(
    py: Python<'_>,
    model: &Model,
    batch: &RecordBatch,
    label: &str,
) -> PyResult<(Vec<u32>, Vec<f64>)> {
    let truth = binary_truth(model, batch, label)?;
    let (proba, _, _) = predict(py, &model.fitted, batch, Unknown::Error, None)?;
    Ok((truth, proba.column(1)))
}

/// The classes and probabilities of a batch of `score_keys`' pairs.
fn key_pairs(batch: &RecordBatch) -> PyResult<(Vec<u32>, Vec<f64>)> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int64Type, Int8Type};
    let k = column(batch, "k")?.as_primitive_opt::<Int64Type>();
    let y = column(batch, "y")?.as_primitive_opt::<Int8Type>();
    let (Some(k), Some(y)) = (k, y) else {
        return Err(value_error(
            "score pairs have the columns k (long) and y (byte)",
        ));
    };
    let truth = y.values().iter().map(|&c| c as u32).collect();
    let p = k.values().iter().map(|&x| key_score(x)).collect();
    Ok((truth, p))
}

/// `(k, y)`: each row's score key (`score_key` of its positive-class
/// probability, ordered as the probability) and class id, what the exact
/// evaluation sorts.
#[pyfunction]
pub fn score_keys<'py>(
    py: Python<'py>,
    model: &Model,
    batch: PyRecordBatch,
    label: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let (truth, p) = scored(py, model, batch.as_ref(), label)?;
    let fields = vec![
        Field::new("k", arrow_schema::DataType::Int64, false),
        Field::new("y", arrow_schema::DataType::Int8, false),
    ];
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values(
            p.iter().map(|&q| score_key(q)),
        )),
        Arc::new(Int8Array::from_iter_values(truth.iter().map(|&c| c as i8))),
    ];
    let out = RecordBatch::try_new(Arc::new(ArrowSchema::new(fields)), columns)
        .map_err(|e| value_error(format!("cannot build the score keys: {e}")))?;
    PyRecordBatch::new(out).into_pyarrow(py)
}

/// `[negatives, positives]` scoring above each range, `ranges[i] = (its
/// lowest score key, negatives, positives)` (`metrics::ranges::counts_above`).
#[pyfunction]
pub fn counts_above(ranges: Vec<(i64, u64, u64)>) -> PyResult<Vec<[u64; 2]>> {
    ranges::counts_above(&ranges).map_err(to_py)
}

/// Shipping a serde value from an executor as bytes.
fn to_json<'py, T: serde::Serialize>(py: Python<'py>, v: &T) -> PyResult<Bound<'py, PyBytes>> {
    let b = serde_json::to_vec(v).map_err(|e| value_error(format!("cannot write: {e}")))?;
    Ok(PyBytes::new(py, &b))
}

fn from_json<T: serde::de::DeserializeOwned>(b: &[u8], what: &str) -> PyResult<T> {
    serde_json::from_slice(b).map_err(|e| value_error(format!("not a rarity {what}: {e}")))
}

/// A mergeable summary of scored rows: what `rarity score` reports, built
/// per partition and merged on the driver (binary tasks), in at most
/// `max_groups` groups.
#[pyclass(module = "rarity._rarity")]
pub struct Summary {
    inner: BinarySummary,
}

#[pymethods]
impl Summary {
    /// An empty summary; thresholded metrics decide positive iff
    /// `p >= threshold` (as `rarity score --threshold`).
    #[new]
    #[pyo3(signature = (threshold=0.5, max_groups=DEFAULT_MAX_GROUPS))]
    fn new(threshold: f64, max_groups: usize) -> PyResult<Summary> {
        Ok(Summary {
            inner: BinarySummary::with_max_groups(threshold, max_groups).map_err(to_py)?,
        })
    }

    /// Scores `batch`'s rows with `model` and adds them, their classes read
    /// from the column `label`.
    fn add_batch(
        &mut self,
        py: Python<'_>,
        model: &Model,
        batch: PyRecordBatch,
        label: &str,
    ) -> PyResult<()> {
        let (truth, p) = scored(py, model, batch.as_ref(), label)?;
        self.inner.add(&truth, &p).map_err(to_py)
    }

    /// Adds the rows of a batch of `score_keys` pairs.
    fn add_keys(&mut self, batch: PyRecordBatch) -> PyResult<()> {
        let (truth, p) = key_pairs(batch.as_ref())?;
        self.inner.add(&truth, &p).map_err(to_py)
    }

    /// Adds the rows of `other`.
    fn merge(&mut self, other: &Summary) -> PyResult<()> {
        self.inner.merge(&other.inner).map_err(to_py)
    }

    /// Rows summarised.
    #[getter]
    fn rows(&self) -> u64 {
        self.inner.rows()
    }

    /// `[negatives, positives]` summarised.
    #[getter]
    fn class_rows(&self) -> [u64; 2] {
        self.inner.class_rows()
    }

    /// Groups held (the summary's size; at level 0 the distinct
    /// probabilities).
    #[getter]
    fn distinct(&self) -> usize {
        self.inner.distinct()
    }

    /// Bits dropped from the probabilities' keys (0: every distinct
    /// probability has its own group).
    #[getter]
    fn level(&self) -> u32 {
        self.inner.level()
    }

    /// Every metric of `rarity score`, in its order, then `ranking_exact`
    /// and `roc_auc_bin_error`; the ranking metrics from `ranking` (exact
    /// sums) when given.
    #[pyo3(signature = (ranking=None))]
    fn report(&self, ranking: Option<PyRef<'_, RankSums>>) -> PyResult<Vec<(String, f64)>> {
        self.inner
            .report_with_bounds(ranking.as_ref().map(|r| &r.inner))
            .map_err(to_py)
    }

    /// The summary as bytes (to ship from an executor).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        to_json(py, &self.inner)
    }

    /// A summary from `to_bytes`.
    #[staticmethod]
    fn from_bytes(b: &[u8]) -> PyResult<Summary> {
        Ok(Summary {
            inner: from_json(b, "summary")?,
        })
    }
}

/// The exact ranking sums of groups of tied scores
/// (`metrics::ranking::RankSums`), added over ranges.
#[pyclass(module = "rarity._rarity")]
#[derive(Default)]
pub struct RankSums {
    inner: rarity::metrics::ranking::RankSums,
}

#[pymethods]
impl RankSums {
    /// Zero sums.
    #[new]
    fn new() -> RankSums {
        RankSums::default()
    }

    /// Adds the sums of `other`.
    fn merge(&mut self, other: &RankSums) {
        self.inner.merge(&other.inner);
    }

    /// The sums as bytes (to ship from an executor).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        to_json(py, &self.inner)
    }

    /// Sums from `to_bytes`.
    #[staticmethod]
    fn from_bytes(b: &[u8]) -> PyResult<RankSums> {
        Ok(RankSums {
            inner: from_json(b, "ranking sum")?,
        })
    }
}

/// A walk over one range's `score_keys` pairs in ascending order
/// (`metrics::ranges::RangeWalk`).
#[pyclass(module = "rarity._rarity")]
pub struct RangeWalk {
    inner: Option<ranges::RangeWalk>,
}

#[pymethods]
impl RangeWalk {
    /// A range of `totals = [negatives, positives]` rows with `above`
    /// scoring higher, of `n_pos` positives in all.
    #[new]
    fn new(above: [u64; 2], totals: [u64; 2], n_pos: u64) -> RangeWalk {
        RangeWalk {
            inner: Some(ranges::RangeWalk::new(above, totals, n_pos)),
        }
    }

    /// Adds the next batch of pairs.
    fn add(&mut self, batch: PyRecordBatch) -> PyResult<()> {
        let (truth, p) = key_pairs(batch.as_ref())?;
        self.walk()?.add(&truth, &p).map_err(to_py)
    }

    /// The range's sums.
    fn finish(&mut self) -> PyResult<RankSums> {
        let w = self
            .inner
            .take()
            .ok_or_else(|| value_error("the walk is finished"))?;
        Ok(RankSums {
            inner: w.finish().map_err(to_py)?,
        })
    }
}

impl RangeWalk {
    fn walk(&mut self) -> PyResult<&mut ranges::RangeWalk> {
        self.inner
            .as_mut()
            .ok_or_else(|| value_error("the walk is finished"))
    }
}

/// Saves `model` at `path` as `rarity fit` does: written to a temporary
/// file and renamed, so a failure leaves nothing half-written.
#[pyfunction]
pub fn save_model(model: &Model, path: std::path::PathBuf) -> PyResult<()> {
    rarity::persist::save(
        model.fitted.as_ref(),
        &path,
        rarity::persist::Format::Binary,
    )
    .map_err(to_py)
}
