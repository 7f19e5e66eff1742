//! The papers' experiments over directories of datasets (`rarity experiment
//! calibration`, `pt-bagging`, `reverse-testing`): for each a request (its
//! settings as written) checked into a plan before any dataset is loaded,
//! the library's protocol run on the loaded datasets, and an outcome that
//! renders itself as the command line's text, its JSON and its HTML report.
//! Loading the datasets and timing the run is the front end's frame; it
//! hands what it did over as a [`Ran`]. A front end without a frame of its
//! own (Python) loads with [`load_datasets`] and runs with [`run_timed`].

pub mod calibration;
pub mod pt_bagging;
pub mod reverse_testing;

use std::path::PathBuf;
use std::time::Instant;

use serde_json::Value;

use crate::data::bundled::find;
use crate::data::dirs::{load_dirs, LoadedDatasets};
use crate::data::read::ReadOptions;
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::job::Front;
use crate::report::Report;

/// A checked experiment request: the protocol run on the loaded datasets,
/// then, with what the frame did, what the experiment [`Found`].
pub trait ExperimentPlan: Sized {
    /// The protocol's results.
    type Results;
    /// Runs the protocol on `datasets`.
    fn run(&self, datasets: &[(String, Dataset)]) -> Result<Self::Results>;
    /// What the protocol left out, with the reason.
    fn skipped(results: &Self::Results) -> &[String];
    /// The outcome of a run its frame did.
    fn outcome(self, ran: Ran<Self::Results>) -> Found<Self> {
        Found {
            skipped: ran.all_skipped(Self::skipped(&ran.results)),
            results: ran.results,
            datasets: ran.datasets,
            seconds: ran.seconds,
            plan: self,
        }
    }
}

/// What an experiment found: the protocol's results with what its frame
/// did, and the plan it ran; each experiment renders it
/// ([`ExperimentJob`]).
pub struct Found<P: ExperimentPlan> {
    /// The protocol's results.
    pub results: P::Results,
    /// How many datasets it ran on.
    pub datasets: usize,
    /// Everything left out, with the reason: the datasets left out when
    /// loading, then what the protocol left out.
    pub skipped: Vec<String>,
    /// Seconds the experiment took (loading excluded).
    pub seconds: f64,
    plan: P,
}

/// What an experiment found, rendering itself as the command line's text,
/// its JSON and its HTML report.
pub trait ExperimentJob {
    /// The HTML report: plots and every table as CSV and JSON.
    fn report(&self) -> Report;
    /// The outcome as the command line prints it with `--format json`.
    fn to_json(&self) -> Value;
    /// The outcome as the command line prints it.
    fn to_text(&self) -> String;
}

/// An experiment's results with what its frame did: the datasets it ran on
/// and those it left out when loading, and the seconds the experiment took
/// (loading excluded).
#[derive(Debug, Clone)]
pub struct Ran<T> {
    /// The protocol's results.
    pub results: T,
    /// How many datasets it ran on.
    pub datasets: usize,
    /// The datasets left out when loading, with the reason.
    pub skipped: Vec<String>,
    /// Seconds the experiment took (loading excluded).
    pub seconds: f64,
}

/// The datasets an experiment runs on: the bundled datasets `names` in the
/// order given, then every CSV file of `dirs` ([`load_dirs`]); every bundled
/// dataset when neither is given (as `rarity experiment` without
/// `--data-dir`). A dataset with more than `max_rows` rows is left out; an
/// unknown or repeated name is an error naming the parameter `datasets` as
/// `front` spells it.
///
/// ```
/// use rarity::job::{experiment::load_datasets, Front};
/// let loaded = load_datasets(&["glass6".into(), "ecoli4".into()], &[], 300, Front::Python).unwrap();
/// assert_eq!(loaded.datasets.len(), 1);
/// assert_eq!(loaded.datasets[0].0, "glass6");
/// assert_eq!(loaded.skipped, ["ecoli4: 336 rows > max_rows 300"]);
/// let twice = load_datasets(&["glass6".into(), "glass6".into()], &[], 300, Front::Python);
/// assert!(twice.unwrap_err().to_string().starts_with("datasets: 'glass6' is given twice"));
/// assert!(load_datasets(&["nope".into()], &[], 10, Front::Python).is_err());
/// ```
pub fn load_datasets(
    names: &[String],
    dirs: &[PathBuf],
    max_rows: usize,
    front: Front,
) -> Result<LoadedDatasets> {
    if names.is_empty() {
        return load_dirs(dirs, max_rows);
    }
    let mut loaded = LoadedDatasets {
        datasets: Vec::new(),
        skipped: Vec::new(),
    };
    for (i, name) in names.iter().enumerate() {
        let what = front.param("datasets");
        if names[..i].contains(name) {
            return Err(Error::invalid(format!("{what}: '{name}' is given twice")));
        }
        let bundled = find(name).map_err(|e| Error::invalid(format!("{what}: {e}")))?;
        let ds = bundled.load(&ReadOptions::default())?.0;
        if ds.n_rows() > max_rows {
            loaded.skipped.push(format!(
                "{name}: {} rows > {} {max_rows}",
                ds.n_rows(),
                front.param("max_rows")
            ));
        } else {
            loaded.datasets.push((name.clone(), ds));
        }
    }
    if !dirs.is_empty() {
        let more = load_dirs(dirs, max_rows)?;
        loaded.datasets.extend(more.datasets);
        loaded.skipped.extend(more.skipped);
    }
    Ok(loaded)
}

/// Runs `plan` on the `loaded` datasets, timed (loading excluded), and
/// returns what it found: the command line's frame without its progress
/// bar and report.
pub fn run_timed<P: ExperimentPlan>(plan: P, loaded: LoadedDatasets) -> Result<Found<P>> {
    let start = Instant::now();
    let results = plan.run(&loaded.datasets)?;
    let ran = Ran {
        results,
        datasets: loaded.datasets.len(),
        skipped: loaded.skipped,
        seconds: start.elapsed().as_secs_f64(),
    };
    Ok(plan.outcome(ran))
}

impl<T> Ran<T> {
    /// Everything left out: the datasets left out when loading, then what
    /// the protocol left out (`own`).
    fn all_skipped(&self, own: &[String]) -> Vec<String> {
        self.skipped.iter().chain(own).cloned().collect()
    }
}

/// The lines of a report's notes on what was skipped.
fn skipped_notes(skipped: &[String]) -> impl Iterator<Item = String> + '_ {
    skipped.iter().map(|s| format!("Skipped: {s}"))
}

/// The text lines on what was skipped.
fn skipped_text(skipped: &[String]) -> String {
    skipped.iter().map(|s| format!("skipped: {s}\n")).collect()
}
