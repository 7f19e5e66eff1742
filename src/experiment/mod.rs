//! The papers' protocols and the main job, built from the library's pieces.
//!
//! - [`compare`]: `rarity run`'s comparison of strategies on one dataset with
//!   repeated stratified cross-validation on shared folds, a Friedman test
//!   and Nemenyi critical difference over the folds (Demsar 2006).
//! - [`run_report`]: the HTML report of `rarity run --report DIR`.
//! - [`experiment_report`]: the HTML reports of `rarity experiment
//!   calibration|pt-bagging|reverse-testing --report DIR`.
//! - [`bias`]: the ReverseTesting bias experiment (Fan & Davidson 2006,
//!   Sec. 5): correct / wrong / undecided pairwise predictions per method,
//!   against the true order on the unbiased half.
//! - [`calibration`]: undersampling at several beta, with and without the
//!   prior correction (Dal Pozzolo et al. 2015, Sec. VI, Table V, Fig. 3-4).
//! - [`pt_bagging`]: PT-bagging against the rebalancing ensembles (Collell
//!   et al. 2018, Sec. 4-5): ensemble-size trend, win / tie / loss, full
//!   potential, recall per class, multiclass.
//!
//! Each experiment's `run` takes the datasets (e.g. from
//! [`crate::data::dirs::load_dirs`]) and typed settings, counts the datasets
//! done in [`crate::progress`] ([`each_dataset`]) and returns typed results;
//! the front ends only print them.

pub mod bias;
pub mod calibration;
pub mod compare;
pub mod experiment_report;
pub mod pt_bagging;
pub mod run;
pub mod run_report;

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::progress::Progress;

/// The named datasets of an experiment in order, counted in
/// [`crate::progress`] as they are done, labelled with the name of the one
/// in progress.
pub fn each_dataset(datasets: &[(String, Dataset)]) -> impl Iterator<Item = &(String, Dataset)> {
    let progress = Progress::start("datasets", datasets.len() as u64);
    let mut next = datasets.iter();
    let mut started = false;
    std::iter::from_fn(move || {
        if started {
            progress.add(1);
        }
        started = true;
        let d = next.next()?;
        progress.set_label(&d.0);
        Some(d)
    })
}

/// Parses a comma-separated list of settings such as the ensemble sizes
/// `5,10,25` or the undersampling levels `1,0.5`; a bad item is an error
/// naming `what` (e.g. the flag `--sizes`), what was `expected` and an
/// `example`.
///
/// ```
/// use rarity::experiment::parse_list;
/// assert_eq!(parse_list::<usize>("--sizes", "5, 10", "a whole number", "5,10").unwrap(), [5, 10]);
/// let e = parse_list::<f64>("--levels", "1,x", "a number", "1,0.5").unwrap_err();
/// assert_eq!(e.to_string(), "--levels: 'x' is not a number (e.g. 1,0.5)");
/// ```
pub fn parse_list<T: std::str::FromStr>(
    what: &str,
    text: &str,
    expected: &str,
    example: &str,
) -> Result<Vec<T>> {
    text.split(',')
        .map(|s| {
            s.trim().parse::<T>().map_err(|_| {
                Error::invalid(format!("{what}: '{s}' is not {expected} (e.g. {example})"))
            })
        })
        .collect()
}
