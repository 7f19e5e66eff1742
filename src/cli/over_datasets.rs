//! The frame every `rarity experiment` runs in: the report directory
//! prepared first, the datasets loaded, the job timed, all under the
//! progress bar; then the outcome written as the report and printed.

use std::path::PathBuf;
use std::time::Instant;

use super::output::{print_json, write_report, write_stdout};
use super::{Global, OutputFormat};
use rarity::data::dirs::load_dirs;
use rarity::data::write::JobPaths;
use rarity::data::Dataset;
use rarity::error::Result;
use rarity::job::experiment::{ExperimentJob, ExperimentPlan, Found, Ran};

/// The frame of every experiment: prepares the report directory (an
/// existing file there fails before any work), loads the datasets of
/// `dirs` (the bundled ones when empty; more than `max_rows` rows: left
/// out) and runs `job` on them, all under the progress bar.
pub(super) fn over_datasets<T>(
    g: &Global,
    dirs: &[PathBuf],
    max_rows: usize,
    report: Option<&PathBuf>,
    job: impl FnOnce(&[(String, Dataset)]) -> Result<T>,
) -> Result<Ran<T>> {
    JobPaths::new().report_opt("--report", report).check()?;
    if let Some(dir) = report {
        rarity::report::check_report_dir(dir)?;
    }
    super::bar::during(g, || {
        let loaded = load_dirs(dirs, max_rows)?;
        let start = Instant::now();
        let results = job(&loaded.datasets)?;
        Ok(Ran {
            results,
            datasets: loaded.datasets.len(),
            skipped: loaded.skipped,
            seconds: start.elapsed().as_secs_f64(),
        })
    })
}

/// Runs `plan` in the frame of [`over_datasets`], hands its outcome to
/// `also` (an extra output such as `--pairs`), writes the report to `report`
/// if asked and prints the outcome in the global format.
pub(super) fn run_experiment<P: ExperimentPlan>(
    g: &Global,
    dirs: &[PathBuf],
    max_rows: usize,
    report: Option<&PathBuf>,
    plan: P,
    also: impl FnOnce(&Found<P>) -> Result<()>,
) -> Result<()>
where
    Found<P>: ExperimentJob,
{
    let ran = over_datasets(g, dirs, max_rows, report, |d| plan.run(d))?;
    let job = plan.outcome(ran);
    also(&job)?;
    if let Some(dir) = report {
        write_report(&job.report(), dir, g.quiet)?;
    }
    if g.format == OutputFormat::Json {
        return print_json(&job.to_json());
    }
    write_stdout(&job.to_text())
}
