//! The jobs of both front ends as library calls: for each job a typed
//! request (what the command line's flags and Python's keyword arguments
//! both spell), one call that checks it and does the work, and an outcome
//! that renders itself as the command line's text and JSON (Python returns
//! the same JSON as a dict). The command line then only parses arguments
//! into a request and prints the outcome; the Python bindings only convert
//! arguments; neither assembles settings.
//!
//! - [`run`]: `rarity run` / `rarity.run`, the main job.
//! - [`evaluate`]: `rarity evaluate` / `rarity.evaluate`, the
//!   cross-validated metrics of one strategy.
//! - [`calibrate`]: `rarity calibrate` / `rarity.calibration.recalibrate`,
//!   probabilities moved off a sample's keep rates or onto other priors.
//! - [`select`]: `rarity select` / `rarity.select.select`, choosing a
//!   learner for a population the labelled sample does not represent.
//! - [`explain`]: `rarity explain` / `rarity.explain`, permutation and
//!   split-gain importances (`rarity show` / `rarity.show` is the library's
//!   [`crate::explain::ModelSummary`], which renders itself).
//! - [`score`]: `rarity score` / `rarity.metrics.score`, every metric of
//!   labels and probabilities.
//! - [`resample`]: `rarity resample` / `rarity.resample`, a sampler's draw
//!   with the class counts before and after.
//! - [`fit`] and [`predict`]: `rarity fit` / `rarity predict`, a strategy
//!   fitted and saved, and a saved one applied to new rows.
//! - [`monitor`]: `rarity monitor`, a model watched in production: input
//!   and score drift, the alert rate, the current priors without labels.
//! - [`declared`]: each job's parameters declared once, the front ends'
//!   flags and keywords made from the declaration and read back by it.
//! - [`source`]: a job's data file or bundled dataset; the jobs that can
//!   work while a file is read decide between streaming and reading whole.
//! - [`read`]: the reading request every job's data file comes through
//!   (delimiter, decimal, header, categorical modes, missing, drops).
//! - [`experiment`]: `rarity experiment calibration`, `pt-bagging` and
//!   `reverse-testing`, the papers' protocols over datasets.

pub mod calibrate;
pub mod declared;
pub mod evaluate;
pub mod experiment;
pub mod explain;
pub mod fit;
pub mod monitor;
pub mod predict;
pub mod read;
pub mod resample;
pub mod run;
pub mod score;
pub mod select;
pub mod source;

use crate::data::read::Missing;
use crate::error::{Error, Result};
use crate::metrics::catalogue::{metric, Metric};
use crate::strategy::Strategy;
use declared::Declared;

/// The jobs declared once.
pub const JOBS: &[Declared] = &[
    monitor::DECLARED,
    explain::DECLARED,
    resample::DECLARED,
    select::DECLARED,
];

/// The declared job `job`.
pub fn job(job: &str) -> Result<&'static Declared> {
    JOBS.iter().find(|d| d.job == job).ok_or_else(|| {
        let names: Vec<&str> = JOBS.iter().map(|d| d.job).collect();
        Error::invalid(format!(
            "no declared job '{job}'; the declared jobs are {}",
            names.join(", ")
        ))
    })
}

/// Which front end spells a request, so that an error names the parameter
/// as its user wrote it (`--cost` on the command line, `cost` in Python).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Front {
    /// The command line: `--decision-metric`.
    #[default]
    Cli,
    /// Python's keyword arguments: `decision_metric`.
    Python,
}

impl Front {
    /// The parameter `name` (snake case) as this front end spells it.
    ///
    /// ```
    /// use rarity::job::Front;
    /// assert_eq!(Front::Cli.param("decision_metric"), "--decision-metric");
    /// assert_eq!(Front::Python.param("decision_metric"), "decision_metric");
    /// ```
    pub fn param(self, name: &str) -> String {
        match self {
            Front::Cli => format!("--{}", name.replace('_', "-")),
            Front::Python => name.to_string(),
        }
    }
}

/// The note under a metrics table that shows `-`: which metrics these rows
/// leave undefined, and the usual reasons (empty when none is).
pub fn undefined_note<'a>(keys: impl IntoIterator<Item = &'a str>) -> String {
    let keys: Vec<&str> = keys.into_iter().collect();
    if keys.is_empty() {
        return String::new();
    }
    format!(
        "\n-: undefined on these rows (null in JSON): {}. A metric is undefined when the rows \
         cannot define it: a class absent, k above the number of rows, a precision or recall \
         no threshold reaches.\n",
        keys.join(", ")
    )
}

/// The metrics of a request's `metric` parameter (repeatable), an unknown
/// one an error naming the parameter as `front` spells it.
pub fn metrics(keys: &[String], front: Front) -> Result<Vec<&'static Metric>> {
    keys.iter()
        .map(|k| metric(k).map_err(|e| Error::invalid(format!("{}: {e}", front.param("metric")))))
        .collect()
}

/// A number with `digits` decimals for a text table, NaN as `-`.
///
/// ```
/// use rarity::job::fixed;
/// assert_eq!(fixed(0.25, 3), "0.250");
/// assert_eq!(fixed(f64::NAN, 3), "-");
/// ```
pub fn fixed(v: f64, digits: usize) -> String {
    if v.is_nan() {
        "-".to_string()
    } else {
        format!("{v:.digits$}")
    }
}

/// The missing-value policy a job reads its data with, settled from the
/// one asked for (`--missing`, `missing=`) and `refusal`, why one of the
/// strategies it fits cannot take missing values ([`refusal`]; `None`:
/// every one takes them, or the job picks its strategies from the data,
/// each given an imputation when it needs one: `rarity run`'s defaults),
/// before any row is read: [`Missing::Auto`] keeps missing values when
/// nothing refuses them and drops the incomplete rows otherwise;
/// [`Missing::Keep`] with a refusal is an error that names the stage to
/// add; `drop` and `error` stay as asked.
///
/// ```
/// use rarity::data::read::Missing;
/// use rarity::job::{missing_policy, refusal, Front};
/// let s = |t: &str| rarity::spec::build_strategy(t).unwrap();
/// let (imputed, plain) = (s("impute(median)+logistic"), s("logistic"));
/// let (none, some) = (refusal(&[&imputed]), refusal(&[&imputed, &plain]));
/// assert_eq!(missing_policy(Missing::Auto, none, Front::Cli).unwrap(), Missing::Keep);
/// assert_eq!(missing_policy(Missing::Auto, some.clone(), Front::Cli).unwrap(), Missing::Drop);
/// let e = missing_policy(Missing::Keep, some, Front::Cli).unwrap_err().to_string();
/// assert!(e.contains("--missing keep") && e.contains("impute(median)+logistic"), "{e}");
/// ```
pub fn missing_policy(
    requested: Missing,
    refusal: Option<String>,
    front: Front,
) -> Result<Missing> {
    match (requested, refusal) {
        (Missing::Auto, None) => Ok(Missing::Keep),
        (Missing::Auto, Some(_)) => Ok(Missing::Drop),
        (Missing::Keep, Some(why)) => Err(Error::invalid(format!(
            "{}: {why}",
            missing_param(front, Missing::Keep)
        ))),
        (m, _) => Ok(m),
    }
}

/// Why the first of `strategies` that cannot take missing values cannot
/// ([`Strategy::missing_refusal`]; `None`: every one takes them).
pub fn refusal(strategies: &[&Strategy]) -> Option<String> {
    strategies.iter().find_map(|s| s.missing_refusal())
}

/// The missing-value parameter with its value as `front` spells it
/// (`--missing keep`, `missing='keep'`).
pub fn missing_param(front: Front, m: Missing) -> String {
    match front {
        Front::Cli => format!("--missing {}", m.word()),
        Front::Python => format!("missing='{}'", m.word()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_declared_job_has_a_table_and_distinct_front_end_names() {
        for d in JOBS {
            let table = (d.table)();
            assert!(!table.is_empty(), "{}", d.job);
            for i in &table {
                assert!(!i.doc.is_empty(), "{}: {} has no doc", d.job, i.name);
                let flag = i.name.replace('_', "-");
                assert!(!d.cli_only.contains(&flag.as_str()), "{}: {flag}", d.job);
                assert!(!d.python_only.contains(&i.name), "{}: {}", d.job, i.name);
                assert!(
                    !d.python_only.contains(&d.python(i.name)),
                    "{}: {}",
                    d.job,
                    i.name
                );
            }
        }
        assert!(job("monitor").is_ok());
        assert!(job("nope").unwrap_err().to_string().contains("monitor"));
    }
}
