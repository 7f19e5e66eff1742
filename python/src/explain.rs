//! What drives a fitted model and what it is, from Python: `explain` is
//! the library's `rarity::job::explain` request (the one of `rarity
//! explain`), `show` is `rarity::explain::ModelSummary` of the model's file
//! bytes (what `rarity show` reads), and `split_gain` is the model's
//! split-gain importances per source column (`feature_importances_`). Each
//! returns the library's serialised value, so Python's dicts equal the
//! command line's `--format json`.

use std::path::Path;
use std::sync::Arc;

use numpy::PyReadonlyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use rarity::data::Dataset;
use rarity::explain::permutation::column_groups;
use rarity::explain::{split_gain_importances, ModelSummary};
use rarity::job::declared;
use rarity::job::explain::{ExplainRequest, DECLARED};
use rarity::job::Front;
use rarity::persist::{to_bytes, Format};

use crate::data::Features;
use crate::functions::json_py;
use crate::model::Model;
use crate::pool::{run, to_py};

fn to_dict<T: serde::Serialize>(py: Python<'_>, v: &T) -> PyResult<Py<PyAny>> {
    let j = serde_json::to_value(v).map_err(|e| PyValueError::new_err(e.to_string()))?;
    json_py(py, &j)
}

/// Permutation importance of `model` on the rows `features` with class ids
/// `y` (the model's class order), with the declared parameters `params`
/// (`(name, text)` pairs, read by the library as the command line's flags
/// are) and shuffles seeded by `seed`: `rarity explain --format json`'s
/// object.
#[pyfunction]
#[pyo3(signature = (model, features, y, params, seed, n_jobs=None))]
pub fn explain(
    py: Python<'_>,
    model: &Model,
    features: &Features,
    y: PyReadonlyArray1<'_, u32>,
    params: Vec<(String, String)>,
    seed: u64,
    n_jobs: Option<i64>,
) -> PyResult<Py<PyAny>> {
    let plan = ExplainRequest {
        params: declared::read(&DECLARED, &params, Front::Python).map_err(to_py)?,
        seed,
        front: Front::Python,
    }
    .plan()
    .map_err(to_py)?;
    let y = y.as_array().to_vec();
    let (f, fitted) = (features.clone(), Arc::clone(&model.fitted));
    let e = run(py, n_jobs, move || {
        let unlabelled = f.for_schema(
            &fitted.schema,
            rarity::data::read::Unknown::Error,
            &fitted.missing_columns(),
        )?;
        let x = unlabelled.features().to_vec();
        let held = Dataset::new(x, y, unlabelled.schema().clone())?;
        plan.run(&fitted, &held)
    })?;
    to_dict(py, &e)
}

/// The summary of `model` as `rarity show --format json` gives it for the
/// model file `model.save` writes.
#[pyfunction]
pub fn show(py: Python<'_>, model: &Model) -> PyResult<Py<PyAny>> {
    let bytes = to_bytes(model.fitted.as_ref(), Format::Binary).map_err(to_py)?;
    let s = ModelSummary::from_bytes(&bytes, Path::new("<model>")).map_err(to_py)?;
    to_dict(py, &s)
}

/// Per source column, its share of the split gain (a one-hot column's
/// levels summed; the shares sum to 1), or `None` for a model without
/// splits.
#[pyfunction]
pub fn split_gain(model: &Model) -> Option<Vec<f64>> {
    let imp = split_gain_importances(&model.fitted)?;
    let groups = column_groups(&model.fitted.schema);
    Some(
        groups
            .iter()
            .map(|(_, cols)| cols.iter().map(|&c| imp.values[c]).sum())
            .collect(),
    )
}
