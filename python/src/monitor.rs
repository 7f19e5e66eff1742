//! A model watched in production, from Python: `monitor` is the library's
//! `rarity::job::monitor` request and run (the one of `rarity monitor`) on
//! two tables, each a data file read as the command line reads it or an
//! Arrow table in memory (pandas, polars, pyarrow: read as an Arrow IPC
//! file is); its [`MonitorResult`] renders the command's text, JSON and
//! report. For `rarity.spark.monitor`, [`MonitorProfile`] is one
//! partition's pass ([`rarity::metrics::profile::Profile`]), shipped as
//! bytes and merged on the driver, and `monitor_profiles` compares the
//! merged profiles by the same [`MonitorPlan::compare`] the single machine
//! runs, so both give the same figures for the same rows.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use pyo3_arrow::{PyRecordBatch, PyTable};

use rarity::data::read::{PredictOptions, ReadOptions, Table};
use rarity::job::declared;
use rarity::job::monitor::{Counted, MonitorJob, MonitorPlan, MonitorRequest};
use rarity::job::Front;
use rarity::strategy::FittedStrategy;
use rarity::metrics::profile::Profile;
use rarity::stream::monitor::{profile, PassOptions};

use crate::functions::json_py;
use crate::model::Model;
use crate::pool::{run, to_py};

fn value_error(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

/// Where a table's rows come from.
enum Source {
    /// A data file.
    Path(PathBuf),
    /// Arrow record batches in memory, with the table's name.
    Arrow(PyTable, String),
}

impl Source {
    /// `obj` (a path, or anything with `__arrow_c_stream__`) named `name`.
    fn of(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Source> {
        if let Ok(p) = obj.extract::<PathBuf>() {
            return Ok(Source::Path(p));
        }
        let t: PyTable = obj.extract().map_err(|_| {
            value_error(format!(
                "monitor: {name} must be a data file's path or an Arrow table (pandas, polars, \
                 pyarrow), got {}",
                obj.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ))
        })?;
        Ok(Source::Arrow(t, format!("<{name}>")))
    }

    fn open(self, read: &ReadOptions) -> rarity::Result<Table<'static>> {
        match self {
            Source::Path(p) => Table::open(&p, read),
            Source::Arrow(t, origin) => {
                let (batches, schema) = t.into_inner();
                Table::from_batches(schema, batches, &origin)
            }
        }
    }
}

/// The request of `rarity monitor` from Python's keywords (`(name, text)`
/// of each declared parameter given), read by the declaration and checked
/// against `fitted` before any row is read.
fn plan(fitted: &FittedStrategy, params: &[(String, String)], seed: u64) -> PyResult<MonitorPlan> {
    MonitorRequest {
        params: declared::read(&rarity::job::monitor::DECLARED, params, Front::Python).map_err(to_py)?,
        seed,
        front: Front::Python,
    }
    .plan(fitted)
    .map_err(to_py)
}

/// Watches `model` on `current` against `reference` (each a path or an
/// Arrow table; no reference: the model's training summary): `rarity
/// monitor`'s request and run.
#[pyfunction]
#[pyo3(signature = (model, reference, current, params, seed=42, delimiter=",", decimal=".", n_jobs=None))]
#[allow(clippy::too_many_arguments)]
pub fn monitor(
    py: Python<'_>,
    model: &Model,
    reference: Option<&Bound<'_, PyAny>>,
    current: &Bound<'_, PyAny>,
    params: Vec<(String, String)>,
    seed: u64,
    delimiter: &str,
    decimal: &str,
    n_jobs: Option<i64>,
) -> PyResult<MonitorResult> {
    let fitted = Arc::clone(&model.fitted);
    let plan = plan(&fitted, &params, seed)?;
    let delimiter = match delimiter.as_bytes() {
        [b] if b.is_ascii() => *b,
        _ => {
            return Err(value_error(format!(
                "delimiter={delimiter:?}: must be one ASCII character"
            )))
        }
    };
    let decimal = rarity::job::read::decimal(decimal, Front::Python).map_err(to_py)?;
    let (reference, current) = (
        reference.map(|r| Source::of(r, "reference")).transpose()?,
        Source::of(current, "current")?,
    );
    let job = run(py, n_jobs, move || {
        let read = ReadOptions {
            delimiter,
            ..ReadOptions::default()
        };
        let reference = reference.map(|r| r.open(&read)).transpose()?;
        let current = current.open(&read)?;
        let opts = PredictOptions {
            decimal: Some(decimal),
            ..PredictOptions::default()
        };
        plan.run(&fitted, reference, current, &opts)
    })?;
    Ok(MonitorResult { job: Arc::new(job) })
}

/// One partition's pass for `rarity.spark.monitor`: the profile of the
/// batches added, a label column counted where given.
#[pyclass(module = "rarity._rarity")]
pub struct MonitorProfile {
    inner: Profile,
    label: Option<String>,
}

#[pymethods]
impl MonitorProfile {
    /// The profile of no rows of `model`'s columns.
    #[new]
    #[pyo3(signature = (model, label=None))]
    fn new(model: &Model, label: Option<String>) -> PyResult<MonitorProfile> {
        Ok(MonitorProfile {
            inner: Profile::new(&model.fitted, label.is_some()).map_err(to_py)?,
            label,
        })
    }

    /// Counts `batch`'s rows (one thread: Spark runs a task per core), read
    /// as `rarity.monitor` reads an Arrow table.
    fn add_batch(&mut self, py: Python<'_>, model: &Model, batch: PyRecordBatch) -> PyResult<()> {
        let batch = batch.into_inner();
        if batch.num_rows() == 0 {
            return Ok(());
        }
        let (fitted, label) = (Arc::clone(&model.fitted), self.label.clone());
        let part = run(py, Some(1), move || {
            let t = Table::from_batches(batch.schema(), vec![batch], "<partition>")?;
            let pass = PassOptions {
                read: &PredictOptions::default(),
                label: label.as_deref(),
            };
            profile(&fitted, t, &pass)
        })?;
        self.inner.merge(&part).map_err(to_py)
    }

    /// Adds another partition's profile.
    fn merge(&mut self, other: &MonitorProfile) -> PyResult<()> {
        self.inner.merge(&other.inner).map_err(to_py)
    }

    /// Rows counted.
    #[getter]
    fn rows(&self) -> u64 {
        self.inner.rows
    }

    /// The profile as bytes, for shipping from an executor.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let b = serde_json::to_vec(&(&self.inner, &self.label))
            .map_err(|e| value_error(format!("cannot write the profile: {e}")))?;
        Ok(PyBytes::new(py, &b))
    }

    /// The profile `to_bytes` wrote.
    #[staticmethod]
    fn from_bytes(b: &[u8]) -> PyResult<MonitorProfile> {
        let (inner, label): (Profile, Option<String>) = serde_json::from_slice(b)
            .map_err(|e| value_error(format!("not a rarity monitor profile: {e}")))?;
        Ok(MonitorProfile { inner, label })
    }
}

/// Checks a monitoring request and the two tables' columns (`(name,
/// columns)` each) against `model` before any row is read; returns the
/// label column each pass counts (reference, current).
#[pyfunction]
#[pyo3(signature = (model, reference, current, params, seed=42))]
pub fn monitor_labels(
    model: &Model,
    reference: (String, Vec<String>),
    current: (String, Vec<String>),
    params: Vec<(String, String)>,
    seed: u64,
) -> PyResult<(Option<String>, Option<String>)> {
    let plan = plan(&model.fitted, &params, seed)?;
    plan.label_columns(
        &model.fitted,
        (&reference.0, &reference.1),
        (&current.0, &current.1),
    )
    .map_err(to_py)
}

/// The model's training summary as a reference (`(name, columns,
/// profile)`, as `monitor_profiles` takes it), or an error saying how to
/// give one.
#[pyfunction]
#[pyo3(signature = (model, params, seed=42))]
pub fn monitor_training(
    model: &Model,
    params: Vec<(String, String)>,
    seed: u64,
) -> PyResult<(String, Vec<String>, MonitorProfile)> {
    let plan = plan(&model.fitted, &params, seed)?;
    let c = plan.training_reference(&model.fitted).map_err(to_py)?;
    let profile = MonitorProfile {
        inner: c.profile,
        label: None,
    };
    Ok((c.origin, c.names, profile))
}

/// The outcome of the merged profiles of the two tables (`(name, columns,
/// profile)` each): what `rarity monitor` reports for the same rows.
#[pyfunction]
#[pyo3(signature = (model, reference, current, params, seed=42, n_jobs=None))]
pub fn monitor_profiles(
    py: Python<'_>,
    model: &Model,
    reference: (String, Vec<String>, PyRef<'_, MonitorProfile>),
    current: (String, Vec<String>, PyRef<'_, MonitorProfile>),
    params: Vec<(String, String)>,
    seed: u64,
    n_jobs: Option<i64>,
) -> PyResult<MonitorResult> {
    let fitted = Arc::clone(&model.fitted);
    let plan = plan(&fitted, &params, seed)?;
    let counted = |(origin, names, p): (String, Vec<String>, PyRef<'_, MonitorProfile>)| Counted {
        origin,
        names,
        profile: p.inner.clone(),
    };
    let (r, c) = (counted(reference), counted(current));
    let job = run(py, n_jobs, move || plan.compare(&fitted, &r, &c))?;
    Ok(MonitorResult { job: Arc::new(job) })
}

/// What monitoring found: `rarity monitor`'s outcome.
#[pyclass(frozen, module = "rarity._rarity")]
pub struct MonitorResult {
    job: Arc<MonitorJob>,
}

#[pymethods]
impl MonitorResult {
    /// The outcome as `rarity monitor --format json` prints it.
    fn to_json(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        json_py(py, &self.job.to_json())
    }

    /// The outcome as `rarity monitor` prints it.
    fn to_text(&self) -> String {
        rarity::printable::escape_text(&self.job.to_text()).into_owned()
    }

    /// The HTML page of `rarity monitor --report DIR`.
    fn report_html(&self) -> String {
        self.job.report().to_html()
    }

    /// The report's files (path in the folder, text).
    fn report_files(&self) -> PyResult<Vec<(String, String)>> {
        self.job.report().files().map_err(to_py)
    }

    /// Writes the report to `dir`, as `rarity monitor --report DIR` does.
    fn report(&self, py: Python<'_>, dir: PathBuf) -> PyResult<()> {
        let job = Arc::clone(&self.job);
        run(py, Some(1), move || {
            rarity::report::check_report_dir(&dir)?;
            job.report().write(&dir)
        })
    }

    /// The `fail_on` conditions met.
    #[getter]
    fn failed(&self) -> Vec<String> {
        self.job.failed.clone()
    }
}
