//! Resampling from Python: a sampler spec drawn on a dataset with
//! `rng::stream(seed, 0)`, the stream `rarity resample --seed` and a
//! strategy's sampler stage use, so the same seed draws the same rows.
//! The resampled table is written straight into a new NumPy array, in
//! parallel, with the GIL released.

use std::sync::Arc;

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods};
use pyo3::prelude::*;

use rarity::data::Dataset;
use rarity::sample::Sample;

use crate::data::Data;
use crate::pool::run;

/// What a sampler drew: the rows it kept (indices into the input,
/// repeats allowed), the synthetic rows it made, and the keep rates.
#[pyclass(frozen, module = "rarity._rarity")]
pub struct Drawn {
    sample: Arc<Sample>,
    data: Dataset,
}

/// Draws sampler `spec` (e.g. `smote(k=5)`) on `data` with `seed`; a
/// sampler that measures distances refuses missing values (a sampler
/// returns the rows it is given, it never drops one), as `rarity resample
/// --missing keep` does.
#[pyfunction]
#[pyo3(signature = (spec, data, seed, n_jobs=None))]
pub fn resample(
    py: Python<'_>,
    spec: String,
    data: &Data,
    seed: u64,
    n_jobs: Option<i64>,
) -> PyResult<Drawn> {
    let ds = data.ds.clone();
    let d2 = ds.clone();
    let sample = run(py, n_jobs, move || {
        d2.require_two_classes()?;
        let sampler = rarity::sample::parse_sampler(&spec)?;
        let refusal = rarity::job::resample::sampler_refusal(sampler.as_ref());
        if let (Some((i, j)), Some(why)) = (d2.first_missing(), refusal) {
            return Err(rarity::Error::invalid(format!(
                "row {i}, column '{}' is missing: {why}",
                d2.feature_names()[j]
            )));
        }
        let s = sampler.resample(&d2, &mut rarity::rng::stream(seed, 0))?;
        rarity::cancel::check()?;
        Ok(s)
    })?;
    Ok(Drawn {
        sample: Arc::new(sample),
        data: ds,
    })
}

/// A raw pointer to an output buffer, written by one job while its owner
/// (a NumPy array held by the waiting caller) lives.
struct OutPtr(*mut f64, usize);
// SAFETY: the buffer is written only by the job it is sent to, while the
// caller keeps the array alive and untouched until the job returns.
unsafe impl Send for OutPtr {}

#[pymethods]
impl Drawn {
    /// Indices of the kept rows into the input (repeats allowed).
    #[getter]
    fn rows<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let v: Vec<i64> = self.sample.rows.iter().map(|&i| i as i64).collect();
        v.into_pyarray(py)
    }

    /// Number of synthetic rows.
    #[getter]
    fn n_synthetic(&self) -> usize {
        self.sample.synthetic_labels.len()
    }

    /// Per class, rows in the sample over rows in the input.
    #[getter]
    fn keep_rates(&self) -> Vec<f64> {
        self.sample.keep_rates.clone()
    }

    /// The fact `name` the draw recorded (`n_iter`, `danger`, ...), if any.
    fn fact(&self, name: &str) -> Option<Vec<f64>> {
        self.sample.fact(name).map(<[f64]>::to_vec)
    }

    /// What the sampler wants the user to know.
    #[getter]
    fn notes(&self) -> Vec<String> {
        self.sample.notes.clone()
    }

    /// The categorical features (their indices) and, for each synthetic row
    /// and categorical feature (row-major, `n_synthetic * len`), a row of
    /// the input holding its level: the caller copies levels from its own
    /// table.
    fn level_rows<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Vec<usize>, Bound<'py, PyArray1<i64>>)> {
        let categorical = self.data.categorical_features();
        let rows = self.sample.level_rows(&self.data).ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err("a synthetic row's level is no input row's")
        })?;
        let v: Vec<i64> = rows.iter().map(|&i| i as i64).collect();
        Ok((categorical, v.into_pyarray(py)))
    }

    /// Class ids of the resampled rows: the kept rows', then the synthetic
    /// rows'.
    fn labels<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        let y = self.data.labels();
        let mut out: Vec<u32> = self.sample.rows.iter().map(|&i| y[i]).collect();
        out.extend_from_slice(&self.sample.synthetic_labels);
        out.into_pyarray(py)
    }

    /// The resampled features (`n_out x d`): the kept rows, then the
    /// synthetic ones, written in parallel into a new array.
    #[pyo3(signature = (n_jobs=None))]
    fn features<'py>(
        &self,
        py: Python<'py>,
        n_jobs: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let d = self.data.n_features();
        let n_out = self.sample.rows.len() + self.sample.synthetic_labels.len();
        // SAFETY: every value of the new array is written below before it
        // is returned (or the array is dropped unread on error).
        let out = unsafe { PyArray2::<f64>::new(py, [n_out, d], false) };
        let ptr = OutPtr(out.data(), n_out * d);
        let (sample, data) = (Arc::clone(&self.sample), self.data.clone());
        run(py, n_jobs, move || {
            let p = ptr;
            // SAFETY: the array holds `n_out * d` values; this job is the
            // only writer and the caller waits for it with the array alive.
            let buf = unsafe { std::slice::from_raw_parts_mut(p.0, p.1) };
            sample.write_features(&data, buf)
        })?;
        Ok(out)
    }
}
