//! `rarity experiment pt-bagging`: Collell et al. (2018) Sec. 4-5 over a
//! directory of datasets (the job is `rarity::job::experiment::pt_bagging`).

use std::path::PathBuf;

use super::over_datasets::run_experiment;
use super::Global;
use rarity::error::Result;
use rarity::job::experiment::pt_bagging::PtBaggingRequest;
use rarity::job::Front;

/// Arguments of `rarity experiment pt-bagging`.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Directories of CSV datasets (default: the bundled ones).
    #[arg(long = "data-dir")]
    data_dirs: Vec<PathBuf>,
    /// Ensemble sizes, ascending, separated by commas.
    #[arg(long, default_value = "5,10,25,50,100")]
    sizes: String,
    /// Repeated stratified cross-validation, `RxK`.
    #[arg(long, default_value = "5x2")]
    cv: String,
    /// Skip datasets with more rows.
    #[arg(long, default_value_t = 100_000)]
    max_rows: usize,
    /// Write an HTML report with plots (Fig. 1-2, critical-difference
    /// diagrams), and every table as CSV and JSON, to DIR.
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    let plan = PtBaggingRequest {
        sizes: a.sizes.clone(),
        cv: a.cv.clone(),
        seed: g.seed,
        front: Front::Cli,
    }
    .plan()?;
    run_experiment(g, &a.data_dirs, a.max_rows, a.report.as_ref(), plan, |_| {
        Ok(())
    })
}
