//! Each job's declared parameters for the Python package (issue 53):
//! `rarity._declared.Job` reads a job's table here at import and makes the
//! Python function's defaults and docstring entries from it
//! (`rarity::job::declared`).

use pyo3::prelude::*;

use crate::functions::json_py;
use crate::pool::to_py;

/// The declared job `job`: its parameters (`name`, `python` (its keyword),
/// `expected`, `default` as spec text, `doc`, `required`) and Python's own keywords, from which the Python
/// function's defaults and docstring entries are made.
#[pyfunction]
pub fn job_params<'py>(py: Python<'py>, job: &str) -> PyResult<(Py<PyAny>, Vec<&'static str>)> {
    let d = rarity::job::job(job).map_err(to_py)?;
    let table: Vec<serde_json::Value> = ((d.table)().iter())
        .map(|i| {
            serde_json::json!({"name": i.name, "python": d.python(i.name),
                               "expected": i.expected, "default": i.default, "doc": i.doc,
                               "required": d.required.contains(&i.name)})
        })
        .collect();
    Ok((
        json_py(py, &serde_json::Value::Array(table))?,
        d.python_only.to_vec(),
    ))
}

/// The names of the declared jobs (`rarity::job::JOBS`): the Python tests
/// check each one's function against its declaration.
#[pyfunction]
pub fn declared_jobs() -> Vec<&'static str> {
    rarity::job::JOBS.iter().map(|d| d.job).collect()
}
