//! `rarity experiment calibration`: Dal Pozzolo et al. (2015) Sec. VI over a
//! directory of datasets (the job is `rarity::job::experiment::calibration`).

use std::path::PathBuf;

use super::over_datasets::run_experiment;
use super::Global;
use rarity::error::Result;
use rarity::job::experiment::calibration::CalibrationRequest;
use rarity::job::Front;

/// Arguments of `rarity experiment calibration`.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Directories of CSV datasets (default: the bundled ones); multiclass
    /// datasets are skipped.
    #[arg(long = "data-dir")]
    data_dirs: Vec<PathBuf>,
    /// Learner specs separated by commas, e.g. `tree,forest(n=100,max_depth=4)`
    /// (the paper: random forest, SVM, LogitBoost).
    #[arg(long, default_value = "forest(n=100),logitboost,svm")]
    learners: String,
    /// Undersampling levels t in (0, 1], beta = (N+/N-)^t (1 = balanced).
    #[arg(long, default_value = "1,0.75,0.5,0.25")]
    levels: String,
    /// Repeated stratified cross-validation, `RxK` (the paper: 10x10).
    #[arg(long, default_value = "10x10")]
    cv: String,
    /// Skip datasets with more rows.
    #[arg(long, default_value_t = 100_000)]
    max_rows: usize,
    /// Write an HTML report with plots (Table V, Fig. 3-6), and every table
    /// as CSV and JSON, to DIR.
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    let plan = CalibrationRequest {
        learners: a.learners.clone(),
        levels: a.levels.clone(),
        cv: a.cv.clone(),
        seed: g.seed,
        front: Front::Cli,
    }
    .plan()?;
    run_experiment(g, &a.data_dirs, a.max_rows, a.report.as_ref(), plan, |_| {
        Ok(())
    })
}
