//! The papers' experiments over directories of datasets (`rarity experiment
//! calibration`, `pt-bagging`, `reverse-testing`): for each a request (its
//! settings as written) checked into a plan before any dataset is loaded,
//! the library's protocol run on the loaded datasets, and an outcome that
//! renders itself as the command line's text, its JSON and its HTML report.
//! Loading the datasets and timing the run is the front end's frame; it
//! hands what it did over as a [`Ran`].

pub mod calibration;
pub mod pt_bagging;
pub mod reverse_testing;

use serde_json::Value;

use crate::data::Dataset;
use crate::error::Result;
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
