//! The papers' experiments (`rarity experiment calibration`, `pt-bagging`
//! and `reverse-testing`) as Python sees them: each function fills the
//! library's request (`rarity::job::experiment`), loads the datasets and
//! runs the plan as the command line does, and keeps the outcome, which
//! renders itself as the command's JSON, text and HTML report.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;

use rarity::job::experiment::calibration::{CalibrationJob, CalibrationRequest};
use rarity::job::experiment::pt_bagging::{PtBaggingJob, PtBaggingRequest};
use rarity::job::experiment::reverse_testing::{
    named_bias, ReverseTestingJob, ReverseTestingRequest,
};
use rarity::job::experiment::{load_datasets, run_timed, ExperimentJob, ExperimentPlan, Found};
use rarity::job::Front;

use crate::functions::json_py;
use crate::pool::run;

/// One experiment's outcome.
enum Job {
    Calibration(Box<CalibrationJob>),
    PtBagging(Box<PtBaggingJob>),
    ReverseTesting(Box<ReverseTestingJob>),
}

/// What an experiment found, kept for its JSON, text and report.
#[pyclass(frozen, module = "rarity._rarity")]
pub struct Experiment {
    job: Arc<Job>,
}

impl From<CalibrationJob> for Job {
    fn from(j: CalibrationJob) -> Job {
        Job::Calibration(Box::new(j))
    }
}

impl From<PtBaggingJob> for Job {
    fn from(j: PtBaggingJob) -> Job {
        Job::PtBagging(Box::new(j))
    }
}

impl From<ReverseTestingJob> for Job {
    fn from(j: ReverseTestingJob) -> Job {
        Job::ReverseTesting(Box::new(j))
    }
}

impl Job {
    fn rendered(&self) -> &dyn ExperimentJob {
        match self {
            Job::Calibration(j) => j.as_ref(),
            Job::PtBagging(j) => j.as_ref(),
            Job::ReverseTesting(j) => j.as_ref(),
        }
    }
}

/// Where an experiment's datasets come from, a tuple `(names, dirs,
/// max_rows)`: bundled names and directories of CSV files (every bundled
/// dataset when neither is given), more than `max_rows` rows left out.
#[derive(FromPyObject)]
pub struct Datasets(Vec<String>, Vec<PathBuf>, usize);

/// Loads `data` and runs `plan` on `n_jobs` threads with the GIL released.
fn run_plan<P>(
    py: Python<'_>,
    data: Datasets,
    n_jobs: Option<i64>,
    plan: impl FnOnce() -> rarity::Result<P> + Send + 'static,
) -> PyResult<Experiment>
where
    P: ExperimentPlan + Send + 'static,
    Job: From<Found<P>>,
{
    let job = run(py, n_jobs, move || {
        let plan = plan()?;
        let Datasets(names, dirs, max_rows) = data;
        let loaded = load_datasets(&names, &dirs, max_rows, Front::Python)?;
        Ok(Job::from(run_timed(plan, loaded)?))
    })?;
    Ok(Experiment { job: Arc::new(job) })
}

/// Undersampling with and without the prior correction (Dal Pozzolo et al.
/// 2015, Sec. VI): the request and call of `rarity experiment calibration`.
#[pyfunction]
#[pyo3(signature = (data, learners, levels, cv, seed, n_jobs=None))]
pub fn calibration_experiment(
    py: Python<'_>,
    data: Datasets,
    learners: String,
    levels: String,
    cv: String,
    seed: u64,
    n_jobs: Option<i64>,
) -> PyResult<Experiment> {
    let request = CalibrationRequest {
        learners,
        levels,
        cv,
        seed,
        front: Front::Python,
    };
    run_plan(py, data, n_jobs, || request.plan())
}

/// PT-bagging against the other ensembles (Collell et al. 2018, Sec. 4-5):
/// the request and call of `rarity experiment pt-bagging`.
#[pyfunction]
#[pyo3(signature = (data, sizes, cv, seed, n_jobs=None))]
pub fn pt_bagging_experiment(
    py: Python<'_>,
    data: Datasets,
    sizes: String,
    cv: String,
    seed: u64,
    n_jobs: Option<i64>,
) -> PyResult<Experiment> {
    let request = PtBaggingRequest {
        sizes,
        cv,
        seed,
        front: Front::Python,
    };
    run_plan(py, data, n_jobs, || request.plan())
}

/// The ReverseTesting bias experiment (Fan & Davidson 2006, Sec. 5): the
/// request and call of `rarity experiment reverse-testing`.
#[pyfunction]
#[pyo3(signature = (data, learners, splits, metric, variants, methods, bias, seed, n_jobs=None))]
#[allow(clippy::too_many_arguments)]
pub fn reverse_testing_experiment(
    py: Python<'_>,
    data: Datasets,
    learners: String,
    splits: usize,
    metric: String,
    variants: Vec<String>,
    methods: Vec<String>,
    bias: String,
    seed: u64,
    n_jobs: Option<i64>,
) -> PyResult<Experiment> {
    let plan = move || {
        ReverseTestingRequest {
            learners,
            splits,
            metric,
            variants,
            methods,
            bias: named_bias(&bias, Front::Python)?,
            seed,
            front: Front::Python,
        }
        .plan()
    };
    run_plan(py, data, n_jobs, plan)
}

#[pymethods]
impl Experiment {
    /// The outcome as `rarity experiment ... --format json` prints it.
    fn to_json(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        json_py(py, &self.job.rendered().to_json())
    }

    /// The outcome as `rarity experiment ...` prints it.
    fn to_text(&self) -> String {
        rarity::printable::escape_text(&self.job.rendered().to_text()).into_owned()
    }

    /// The HTML report's page as `--report DIR` writes its `index.html`
    /// (tables and SVG figures inline).
    fn report_html(&self) -> String {
        self.job.rendered().report().to_html()
    }

    /// Writes the HTML report (and every table as CSV and JSON) to `dir`, as
    /// `--report DIR` does; an existing file there is an error.
    fn report(&self, py: Python<'_>, dir: PathBuf) -> PyResult<()> {
        let job = Arc::clone(&self.job);
        run(py, Some(1), move || {
            rarity::report::check_report_dir(&dir)?;
            job.rendered().report().write(&dir)
        })
    }

    /// The report's files (path in the folder, text) as `report` writes
    /// them.
    fn report_files(&self) -> PyResult<Vec<(String, String)>> {
        self.job
            .rendered()
            .report()
            .files()
            .map_err(crate::pool::to_py)
    }

    /// The counted pairs as the CSV text `write_pairs` writes (the
    /// reverse-testing experiment only; `None` for the others).
    fn pairs_csv(&self) -> Option<String> {
        match &*self.job {
            Job::ReverseTesting(j) => Some(j.pairs_csv()),
            _ => None,
        }
    }

    /// Writes every counted pair as CSV to `path`, as `rarity experiment
    /// reverse-testing --pairs FILE` does (the reverse-testing experiment
    /// only).
    fn write_pairs(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let job = Arc::clone(&self.job);
        run(py, Some(1), move || match &*job {
            Job::ReverseTesting(j) => j.write_pairs(&path),
            _ => Err(rarity::Error::invalid(
                "pairs: only the reverse-testing experiment counts pairs",
            )),
        })
    }
}
