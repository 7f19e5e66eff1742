//! The `monitor` job (`rarity monitor`, issue 56): a model in production
//! watched on a current table against a reference one, each read once
//! ([`crate::stream::monitor`]). A [`MonitorRequest`] (bins, bootstrap
//! replicates, `--fail-on` conditions, the label column) is checked into a
//! [`MonitorPlan`] against the model before any row is read; its outcome,
//! a [`MonitorJob`], renders itself as text and JSON and says which
//! conditions hold.
//!
//! - **Input drift**: per source column of the model, the PSI over the
//!   reference's quantile bins (numeric) or the model's levels
//!   (categorical), missing and unseen values bins of their own, and the
//!   KS statistic of numeric columns ([`crate::metrics::drift`]); columns
//!   ordered by PSI, the bins that moved most named.
//! - **Score drift**: the PSI of the model's probability of each class;
//!   the alert rate, the share of scored rows the model's decision flags
//!   (two classes: decided positive; more: decided as a class other than
//!   the most frequent training class), reference and current.
//! - **The current priors without labels**: Saerens' EM (Dal Pozzolo et
//!   al. 2015, prior shift; [`crate::calibrate::em`]) on the current rows'
//!   probabilities, grouped ([`crate::stream::monitor::EM_GROUPS`]), from
//!   the priors the probabilities are posteriors under
//!   ([`FittedStrategy::probability_priors`]), with a percentile interval
//!   from a Poisson bootstrap of the groups ([`crate::stats::bootstrap`]),
//!   and the model's threshold moved to the estimate (eq. 14 then eq. 12:
//!   [`Recalibration::threshold`]). Flagged `outside` when the training
//!   prior is outside the interval. More than two classes: EM on a bounded
//!   sample of the probability vectors ([`crate::metrics::vectors`]: every
//!   row's while they have few distinct vectors, else all the rows of a
//!   uniform sample of the distinct ones), each class's prior with its
//!   interval; JSON's `priors.em.on` says `histogram` or `sample`.
//! - **With labels**: the metrics of `rarity score` on the labelled current
//!   rows (and on the reference's, when it has the model's target column),
//!   and whether calibration moved: the z statistic of the observed
//!   positive rate against the mean predicted probability of the labelled
//!   rows (calibration in the large, `|z| > 1.96`), and the reliability
//!   table of each labelled table over the Brier decomposition's
//!   [`MURPHY_BINS`] bins. More than two classes: the multiclass report of
//!   the model's decided classes ([`MulticlassSummary`]), and each class's
//!   calibration and reliability table, one class against the rest.

use std::fmt::Write as _;

use rayon::prelude::*;
use serde_json::{json, Map, Value};

use super::declared::Declared;
use super::{fixed, Front};
use crate::calibrate::em::{saerens_em_grouped, saerens_em_weighted};
use crate::calibrate::{PriorShift, Recalibration};
use crate::data::read::{check_model_columns, PredictOptions, Table};
use crate::data::ColumnEncoding;
use crate::decide::Rule;
use crate::error::{Error, Result};
use crate::metrics::drift::{level_drift, movers, numeric_drift, BinShift, Status, DEFAULT_BINS};
use crate::metrics::multiclass_summary::MulticlassSummary;
use crate::metrics::probability::MURPHY_BINS;
use crate::metrics::profile::{ColumnCounts, Profile};
use crate::params::{defaults_table, params, Bounds, Params};
use crate::report::table::Table as TextTable;
use crate::stats::bootstrap::{percentile_interval, poisson};
use crate::strategy::FittedStrategy;
use crate::stream::monitor::{profile, PassOptions};

mod report;

/// Bootstrap replicates of the EM prior unless asked otherwise.
pub const DEFAULT_BOOTSTRAP: usize = 200;

/// The EM tolerance and iteration cap (`+em`'s defaults).
const EM_TOL: f64 = 1e-8;
const EM_MAX_ITER: usize = 1000;

/// The z beyond which calibration moved (two-sided 95%).
const Z_MOVED: f64 = 1.96;

params! {
    /// The parameters of `rarity monitor` and `rarity.monitor`, declared
    /// once ([`super::declared`]).
    #[derive(Debug, Clone, PartialEq)]
    pub struct MonitorParams {
        /// The current table's label column (empty values: unlabelled rows,
        /// e.g. not yet matured); its labelled rows get the metrics of
        /// `rarity score`, calibration in the large and the reliability table.
        pub label: Option<String> = None,
        /// Quantile bins of a numeric column and of each class's probability.
        pub bins: usize = DEFAULT_BINS => Bounds::at_least(2.0),
        /// Bootstrap replicates of the EM prior's interval (0: none).
        pub bootstrap: usize = DEFAULT_BOOTSTRAP,
        /// Conditions that fail the job (the command line exits with code 3),
        /// e.g. psi=0.25,prior=2x: psi=X, ks=X, score=X (a column's or a class
        /// probability's above X); prior=Nx, alerts=Nx (N times the reference,
        /// or 1/N).
        pub fail_on: Option<String> = None,
    }
}

/// `monitor`'s declaration: its parameters, and each front end's own.
pub const DECLARED: Declared = Declared {
    job: "monitor",
    table: defaults_table::<MonitorParams>,
    required: &[],
    cli_only: &[
        "reference",
        "dataset",
        "current",
        "current-dataset",
        "report",
        "delimiter",
        "decimal",
    ],
    python_only: &[
        "model",
        "reference",
        "current",
        "seed",
        "random_state",
        "n_jobs",
        "delimiter",
        "decimal",
    ],
    python_names: &[],
};

/// What to monitor with: the declared parameters, the seed and the front end.
#[derive(Debug, Clone)]
pub struct MonitorRequest {
    /// The declared parameters.
    pub params: MonitorParams,
    /// The seed of the bootstrap.
    pub seed: u64,
    /// Which front end wrote the request (for its error messages).
    pub front: Front,
}

/// A condition of `--fail-on`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Condition {
    /// Some input column's PSI above the value.
    Psi(f64),
    /// Some numeric input column's KS statistic above the value.
    Ks(f64),
    /// The PSI of some class's probability above the value.
    Score(f64),
    /// The estimated positive prior at least this many times the training
    /// one, or at most its inverse.
    Prior(f64),
    /// The current alert rate at least this many times the reference's, or
    /// at most its inverse.
    Alerts(f64),
}

impl Condition {
    fn parse(item: &str, flag: &str) -> Result<Condition> {
        let bad = |why: &str| {
            Error::invalid(format!(
                "{flag} {item}: {why}; conditions are psi=X, ks=X, score=X (a PSI or KS \
                 above X) and prior=Nx, alerts=Nx (N >= 1 times the reference, or 1/N), \
                 joined by commas, e.g. psi=0.25,prior=2x"
            ))
        };
        let (name, value) = item.split_once('=').ok_or_else(|| bad("no '='"))?;
        let (name, value) = (name.trim(), value.trim());
        let ratio = matches!(name, "prior" | "alerts");
        let number = if ratio {
            value.strip_suffix(['x', 'X']).unwrap_or(value)
        } else {
            value
        };
        let v: f64 = number
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| bad("the value is not a number"))?;
        match name {
            "psi" | "ks" | "score" if v < 0.0 => Err(bad("the value must be >= 0")),
            "prior" | "alerts" if v < 1.0 => Err(bad("the ratio must be >= 1")),
            "psi" => Ok(Condition::Psi(v)),
            "ks" => Ok(Condition::Ks(v)),
            "score" => Ok(Condition::Score(v)),
            "prior" => Ok(Condition::Prior(v)),
            "alerts" => Ok(Condition::Alerts(v)),
            _ => Err(bad("unknown condition")),
        }
    }

    /// Parses `psi=0.25,prior=2x`.
    pub fn parse_all(text: &str, flag: &str) -> Result<Vec<Condition>> {
        let items: Vec<&str> = text.split(',').filter(|s| !s.trim().is_empty()).collect();
        if items.is_empty() {
            return Err(Error::invalid(format!("{flag}: no condition given")));
        }
        items.iter().map(|i| Condition::parse(i, flag)).collect()
    }
}

/// A checked request.
#[derive(Debug, Clone)]
pub struct MonitorPlan {
    bins: usize,
    bootstrap: usize,
    conditions: Vec<Condition>,
    label: Option<String>,
    seed: u64,
    front: Front,
}

/// A reference to read, or one counted already.
enum Reference<'t> {
    Table(Table<'t>),
    Summary(Counted),
}

/// The reference's name when it is the model's training summary.
pub const TRAINING_SUMMARY: &str = "the model's training summary";

impl MonitorRequest {
    /// Checks the request against `fitted` before any row is read.
    pub fn plan(self, fitted: &FittedStrategy) -> Result<MonitorPlan> {
        let p = |n: &str| self.front.param(n);
        // Read from a front end, the values are checked already (in its
        // spelling); built in code, here.
        self.params.check()?;
        let MonitorParams {
            label,
            bins,
            bootstrap,
            fail_on,
        } = self.params;
        let conditions = match &fail_on {
            Some(t) => Condition::parse_all(t, &p("fail_on"))?,
            None => Vec::new(),
        };
        if let Some(l) = &label {
            if fitted.schema.encodings.iter().any(|e| e.name() == l) {
                return Err(Error::invalid(format!(
                    "{} {l}: the column is an input of the model, not a label",
                    p("label")
                )));
            }
        }
        if conditions.iter().any(|c| matches!(c, Condition::Prior(_))) {
            probability_priors(fitted)
                .map_err(|why| Error::invalid(format!("{}: prior=...: {why}", p("fail_on"))))?;
        }
        Ok(MonitorPlan {
            bins,
            bootstrap,
            conditions,
            label,
            seed: self.seed,
            front: self.front,
        })
    }
}

/// One table as the job saw it: where it came from, its columns, and what
/// its pass counted (one [`profile`], or the merged profiles of its parts).
#[derive(Debug, Clone)]
pub struct Counted {
    /// The table's name (a path, a bundled dataset's, a DataFrame's).
    pub origin: String,
    /// Its columns.
    pub names: Vec<String>,
    /// What was counted.
    pub profile: Profile,
}

impl MonitorPlan {
    /// Checks the two tables' columns against `fitted` before any row is
    /// read (a model column missing, the label column absent), and returns
    /// the label column each pass counts: the current table's `--label`,
    /// and the model's target where the reference has it.
    pub fn label_columns(
        &self,
        fitted: &FittedStrategy,
        reference: (&str, &[String]),
        current: (&str, &[String]),
    ) -> Result<(Option<String>, Option<String>)> {
        if let Some(l) = &self.label {
            if !current.1.iter().any(|n| n == l) {
                return Err(Error::invalid(format!(
                    "{}: no label column '{l}'; its columns are {}",
                    current.0,
                    current.1.join(", ")
                )));
            }
        }
        check_model_columns(reference.1, reference.0, &fitted.schema)?;
        check_model_columns(current.1, current.0, &fitted.schema)?;
        let target = &fitted.schema.target_name;
        let ref_label = reference
            .1
            .iter()
            .any(|n| n == target)
            .then(|| target.clone());
        Ok((ref_label, self.label.clone()))
    }

    /// The model's training summary as the reference
    /// ([`FittedStrategy::training`], kept by `rarity fit --summary`), or
    /// an error saying how to give one.
    pub fn training_reference(&self, fitted: &FittedStrategy) -> Result<Counted> {
        let t = fitted.training.as_deref().ok_or_else(|| {
            let (reference, summary) = match self.front {
                Front::Cli => (
                    "--reference FILE (or --dataset NAME)",
                    "rarity fit --summary",
                ),
                Front::Python => ("reference=", "rarity fit --summary"),
            };
            Error::invalid(format!(
                "the model holds no training summary to compare with: give {reference}, \
                 or fit it again with {summary}"
            ))
        })?;
        Ok(Counted {
            origin: TRAINING_SUMMARY.to_string(),
            names: fitted
                .schema
                .encodings
                .iter()
                .map(|e| e.name().to_string())
                .collect(),
            profile: t.clone(),
        })
    }

    /// Reads `reference` (`None`: the model's training summary,
    /// [`Self::training_reference`]) and `current` once each and compares
    /// them.
    pub fn run(
        &self,
        fitted: &FittedStrategy,
        reference: Option<Table<'_>>,
        current: Table<'_>,
        read: &PredictOptions,
    ) -> Result<MonitorJob> {
        let reference = match reference {
            Some(t) => Reference::Table(t),
            None => Reference::Summary(self.training_reference(fitted)?),
        };
        let side = |t: &Table<'_>| (t.origin().to_string(), t.names().to_vec());
        let (r_origin, r_names) = match &reference {
            Reference::Table(t) => side(t),
            Reference::Summary(c) => (c.origin.clone(), c.names.clone()),
        };
        let (r_label, c_label) = self.label_columns(
            fitted,
            (&r_origin, &r_names),
            (current.origin(), current.names()),
        )?;
        let (c_origin, c_names) = side(&current);
        // The current table first: its faults (no rows, unknown labels) are
        // the likelier ones.
        let (c_pass, r_pass) = (
            PassOptions {
                read,
                label: c_label.as_deref(),
            },
            PassOptions {
                read,
                label: r_label.as_deref(),
            },
        );
        let c = profile(fitted, current, &c_pass)?;
        let r = match reference {
            Reference::Table(t) => profile(fitted, t, &r_pass)?,
            Reference::Summary(c) => c.profile,
        };
        let counted = |origin, names, profile| Counted {
            origin,
            names,
            profile,
        };
        self.compare(
            fitted,
            &counted(r_origin, r_names, r),
            &counted(c_origin, c_names, c),
        )
    }

    /// The outcome of the two tables' counts (from [`MonitorPlan::run`], or
    /// from profiles merged across a cluster's partitions): the same
    /// figures for the same rows however they were split.
    pub fn compare(
        &self,
        fitted: &FittedStrategy,
        reference: &Counted,
        current: &Counted,
    ) -> Result<MonitorJob> {
        let (r, c) = (&reference.profile, &current.profile);
        if c.rows == 0 {
            return Err(Error::data(format!(
                "{}: the current table has no rows",
                current.origin
            )));
        }
        if r.rows == 0 {
            return Err(Error::data(format!(
                "{}: the reference table has no rows",
                reference.origin
            )));
        }
        let model_cols: Vec<&str> = fitted.schema.encodings.iter().map(|e| e.name()).collect();
        let target = fitted.schema.target_name.as_str();
        let ignored = |names: &[String], label: Option<&str>| -> Vec<String> {
            (names.iter())
                .filter(|n| !model_cols.contains(&n.as_str()) && Some(n.as_str()) != label)
                .cloned()
                .collect()
        };
        let ref_label = (r.labelled.is_some() || r.labelled_classes.is_some()).then_some(target);
        let mut job = MonitorJob {
            spec: fitted.spec.clone(),
            classes: fitted.schema.class_names.clone(),
            sources: (reference.origin.clone(), current.origin.clone()),
            rows: (r.rows, c.rows),
            unscored: (r.unscored, c.unscored),
            ignored: (
                ignored(&reference.names, ref_label),
                ignored(&current.names, self.label.as_deref()),
            ),
            columns: self.columns(fitted, r, c)?,
            score: self.score(r, c)?,
            alert_rate: (alert_rate(fitted, r), alert_rate(fitted, c)),
            priors: self.priors(fitted, c)?,
            labelled: self
                .label
                .as_ref()
                .map(|_| Labelled::of(&fitted.schema.class_names, c, r))
                .transpose()?,
            failed: Vec::new(),
        };
        job.failed = self.failed(&job);
        Ok(job)
    }

    fn columns(
        &self,
        fitted: &FittedStrategy,
        r: &Profile,
        c: &Profile,
    ) -> Result<Vec<ColumnDrift>> {
        let mut out = Vec::with_capacity(r.columns.len());
        for (e, (a, b)) in fitted
            .schema
            .encodings
            .iter()
            .zip(r.columns.iter().zip(&c.columns))
        {
            out.push(match (e, a, b) {
                (_, ColumnCounts::Numeric(a), ColumnCounts::Numeric(b)) => {
                    let d = numeric_drift(a, b, self.bins)?;
                    ColumnDrift {
                        column: e.name().to_string(),
                        numeric: true,
                        psi: d.psi,
                        ks: Some(d.ks),
                        moved: movers(&d.bins),
                        exact: d.exact,
                    }
                }
                (
                    ColumnEncoding::OneHot { levels, .. }
                    | ColumnEncoding::Categorical { levels, .. },
                    ColumnCounts::Levels(a),
                    ColumnCounts::Levels(b),
                ) => {
                    let (psi, bins) = level_drift(a, b, levels)?;
                    ColumnDrift {
                        column: e.name().to_string(),
                        numeric: false,
                        psi,
                        ks: None,
                        moved: movers(&bins),
                        exact: true,
                    }
                }
                _ => return Err(Error::invalid("the two profiles count different columns")),
            });
        }
        // By drift, largest first; ties in the model's column order.
        out.sort_by(|a, b| b.psi.total_cmp(&a.psi));
        Ok(out)
    }

    fn score(&self, r: &Profile, c: &Profile) -> Result<Vec<(f64, Vec<BinShift>)>> {
        (r.scores.iter().zip(&c.scores))
            .map(|(a, b)| {
                let d = numeric_drift(a, b, self.bins)?;
                Ok((d.psi, d.bins))
            })
            .collect()
    }

    fn priors(&self, fitted: &FittedStrategy, c: &Profile) -> Result<Priors> {
        let mut out = Priors {
            training: fitted.priors.clone(),
            estimated: None,
            interval: None,
            threshold: None,
            iterations: 0,
            converged: false,
            groups: 0,
            exact: false,
            sampled: false,
            reason: None,
        };
        let source = match probability_priors(fitted) {
            Ok(s) => s,
            Err(why) => {
                out.reason = Some(why);
                return Ok(out);
            }
        };
        let k = source.len();
        // EM's rows: the binary histogram's groups (the positive class's
        // probability), or the sample of probability vectors.
        let (rows, w, exact): (Vec<f64>, Vec<f64>, bool) = match (&c.em, &c.em_vectors) {
            (Some(em), _) => {
                let (p, w): (Vec<f64>, Vec<f64>) =
                    em.groups().into_iter().map(|(p, n)| (p, n as f64)).unzip();
                let rows = p.iter().flat_map(|&p| [1.0 - p, p]).collect();
                (rows, w, em.exact())
            }
            (None, Some(v)) => {
                let (rows, n) = v.groups();
                (rows, n.into_iter().map(|n| n as f64).collect(), v.exact())
            }
            (None, None) => {
                out.reason = Some("no probabilities were counted for EM".into());
                return Ok(out);
            }
        };
        if w.is_empty() {
            out.reason = Some("no current row could be scored".into());
            return Ok(out);
        }
        let estimate = |w: &[f64]| -> Result<(Vec<f64>, usize, bool)> {
            match k {
                2 => {
                    let p: Vec<f64> = rows.chunks_exact(2).map(|r| r[1]).collect();
                    saerens_em_grouped(&p, w, &source, EM_TOL, EM_MAX_ITER)
                }
                _ => saerens_em_weighted(&rows, k, w, &source, EM_TOL, EM_MAX_ITER),
            }
        };
        let (est, iterations, converged) = estimate(&w)?;
        // A replicate that draws no row (a table of a few rows) has no
        // estimate and is left out of the interval.
        let replicates: Vec<Vec<f64>> = (0..self.bootstrap as u64)
            .into_par_iter()
            .map(|b| {
                let mut rng = crate::rng::stream(self.seed, b);
                let wb: Vec<f64> = w.iter().map(|&m| poisson(&mut rng, m) as f64).collect();
                match wb.iter().any(|&x| x > 0.0) {
                    true => estimate(&wb).map(|e| Some(e.0)),
                    false => Ok(None),
                }
            })
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .flatten()
            .collect();
        if !replicates.is_empty() {
            out.interval = Some(
                (0..k)
                    .map(|j| {
                        let mut v: Vec<f64> = replicates.iter().map(|r| r[j]).collect();
                        percentile_interval(&mut v, 0.025)
                    })
                    .collect(),
            );
        }
        if let Rule::Threshold(t) = fitted.rule {
            let moved = Recalibration {
                keep_rates: None,
                shift: Some((PriorShift::To(est.clone()), source.clone())),
            }
            .threshold(t, None)?;
            out.threshold = Some((t, moved));
        }
        out.estimated = Some(est);
        out.iterations = iterations;
        out.converged = converged;
        out.groups = w.len();
        out.exact = exact;
        out.sampled = c.em.is_none();
        Ok(out)
    }

    fn failed(&self, job: &MonitorJob) -> Vec<String> {
        let ratio_met = |a: f64, b: f64, n: f64| b > 0.0 && (a / b >= n || a / b <= 1.0 / n);
        let mut out = Vec::new();
        for c in &self.conditions {
            match *c {
                Condition::Psi(x) => out.extend(
                    (job.columns.iter())
                        .filter(|d| d.psi > x)
                        .map(|d| format!("psi={x}: {} has PSI {:.4}", d.column, d.psi)),
                ),
                Condition::Ks(x) => out.extend(
                    (job.columns.iter())
                        .filter(|d| d.ks.is_some_and(|k| k > x))
                        .map(|d| format!("ks={x}: {} has KS {:.4}", d.column, d.ks.unwrap_or(0.0))),
                ),
                Condition::Score(x) => out.extend(
                    (job.score.iter().zip(&job.classes))
                        .filter(|((p, _), _)| *p > x)
                        .map(|((p, _), k)| format!("score={x}: p_{k} has PSI {p:.4}")),
                ),
                Condition::Prior(n) => {
                    if let Some(e) = &job.priors.estimated {
                        // Two classes: the positive one (the other moves with it).
                        let first = if e.len() == 2 { 1 } else { 0 };
                        for (j, (&est, &t)) in e.iter().zip(&job.priors.training).enumerate() {
                            if j >= first && ratio_met(est, t, n) {
                                out.push(format!(
                                    "prior={n}x: the estimated prior of {} is {est:.6}, {:.2}x \
                                     the training prior {t:.6}",
                                    job.classes[j],
                                    est / t
                                ));
                            }
                        }
                    }
                }
                Condition::Alerts(n) => {
                    let (a, b) = job.alert_rate;
                    if ratio_met(b, a, n) {
                        out.push(format!(
                            "alerts={n}x: the alert rate is {b:.6}, {:.2}x the reference's {a:.6}",
                            b / a
                        ));
                    }
                }
            }
        }
        out
    }
}

/// The priors `fitted`'s probabilities are posteriors under, or why they
/// are not calibrated ([`FittedStrategy::probability_priors`], told whether
/// the spec's learner is calibrated as it comes out).
fn probability_priors(fitted: &FittedStrategy) -> std::result::Result<Vec<f64>, String> {
    let calibrated = crate::spec::build_strategy(&fitted.spec)
        .map(|s| s.learner.calibrated())
        .unwrap_or(false);
    fitted.probability_priors(calibrated)
}

/// The share of scored rows the model's decision flags.
fn alert_rate(fitted: &FittedStrategy, p: &Profile) -> f64 {
    let scored: u64 = p.decided.iter().sum();
    if scored == 0 {
        return f64::NAN;
    }
    let flagged = match p.decided.len() {
        2 => p.decided[1],
        _ => {
            let major = (0..fitted.priors.len())
                .max_by(|&a, &b| {
                    fitted.priors[a]
                        .total_cmp(&fitted.priors[b])
                        .then(b.cmp(&a))
                })
                .unwrap_or(0);
            scored - p.decided[major]
        }
    };
    flagged as f64 / scored as f64
}

/// One source column's drift.
#[derive(Debug, Clone)]
pub struct ColumnDrift {
    /// The source column.
    pub column: String,
    /// Numeric (quantile bins, KS) or categorical (levels).
    pub numeric: bool,
    /// The population stability index.
    pub psi: f64,
    /// The KS statistic (numeric columns).
    pub ks: Option<f64>,
    /// The bins that moved most.
    pub moved: Vec<BinShift>,
    /// Whether the counts are exact (see [`crate::metrics::drift`]).
    pub exact: bool,
}

/// The EM estimate of the current priors.
#[derive(Debug, Clone)]
pub struct Priors {
    /// The training priors.
    pub training: Vec<f64>,
    /// The estimate, when there is one.
    pub estimated: Option<Vec<f64>>,
    /// Per class, the bootstrap interval of its prior.
    pub interval: Option<Vec<(f64, f64)>>,
    /// The model's threshold and where eq. 14 moves it.
    pub threshold: Option<(f64, f64)>,
    /// EM's iterations.
    pub iterations: usize,
    /// Whether EM converged.
    pub converged: bool,
    /// Groups of probabilities EM ran on.
    pub groups: usize,
    /// Whether each group is one distinct probability.
    pub exact: bool,
    /// Whether EM ran on a sample of the probability vectors (more than two
    /// classes, [`crate::metrics::vectors`]) rather than on the histogram
    /// of the positive class's probability.
    pub sampled: bool,
    /// Why there is no estimate.
    pub reason: Option<String>,
}

impl Priors {
    /// The classes whose training prior lies outside its estimate's
    /// interval (two classes: the positive one alone, the other's interval
    /// being its mirror).
    pub fn outside_classes(&self) -> Vec<usize> {
        let Some(iv) = &self.interval else {
            return Vec::new();
        };
        let first = if iv.len() == 2 { 1 } else { 0 };
        (first..iv.len())
            .filter(|&j| {
                let t = self.training.get(j).copied().unwrap_or(f64::NAN);
                t < iv[j].0 || t > iv[j].1
            })
            .collect()
    }

    /// Whether a training prior lies outside its estimate's interval.
    pub fn outside(&self) -> bool {
        !self.outside_classes().is_empty()
    }
}

/// The labelled rows' metrics.
#[derive(Debug, Clone)]
pub struct Labelled {
    /// Labelled current rows.
    pub rows: u64,
    /// `rarity score`'s metrics on them.
    pub metrics: Vec<(String, f64)>,
    /// The reference's labelled rows and metrics, when it has the target.
    pub reference: Option<(u64, Vec<(String, f64)>)>,
    /// The calibration of each class's probability: two classes, the
    /// positive class's; more, every class's (one against the rest).
    pub classes: Vec<ClassCalibration>,
    /// Whether the model has more than two classes (the JSON gives the
    /// calibration and reliability by class name).
    pub multiclass: bool,
}

/// Whether one class's probability stayed calibrated on the labelled rows.
#[derive(Debug, Clone)]
pub struct ClassCalibration {
    /// The class.
    pub class: String,
    /// Calibration in the large: (mean predicted, observed rate, z), current.
    pub calibration: (f64, f64, f64),
    /// The reliability table of the current labelled rows, over the
    /// Brier decomposition's bins
    /// ([`crate::metrics::summary::BinarySummary::reliability`]).
    pub reliability: Vec<(u64, f64, f64)>,
    /// The reference's, when it has labelled rows.
    pub reference_reliability: Option<Vec<(u64, f64, f64)>>,
}

impl ClassCalibration {
    /// Whether calibration in the large moved (`|z| > 1.96`).
    pub fn moved(&self) -> bool {
        self.calibration.2.abs() > Z_MOVED
    }
}

/// The text of reliability bin `k` of [`MURPHY_BINS`]: `[0.1, 0.2)`.
pub fn reliability_bin(k: usize) -> String {
    let w = 1.0 / MURPHY_BINS as f64;
    let close = if k + 1 == MURPHY_BINS { ']' } else { ')' };
    format!("[{:.1}, {:.1}{close}", k as f64 * w, (k + 1) as f64 * w)
}

/// Calibration in the large of `n` rows: their mean probability, their
/// observed rate and the z statistic of the gap.
fn in_the_large(n: f64, p_sum: f64, positives: f64) -> (f64, f64, f64) {
    let (mean, observed) = (p_sum / n, positives / n);
    (
        mean,
        observed,
        (observed - mean) / (mean * (1.0 - mean) / n).sqrt(),
    )
}

impl Labelled {
    fn of(classes: &[String], c: &Profile, r: &Profile) -> Result<Labelled> {
        if let Some(summary) = &c.labelled_classes {
            return Labelled::of_classes(classes, summary, r);
        }
        let summary = c
            .labelled
            .as_ref()
            .ok_or_else(|| Error::invalid("no labelled rows were counted"))?;
        let (reference, reference_reliability) = match &r.labelled {
            Some(s) if r.labelled_rows > 0 => {
                (Some((r.labelled_rows, s.report()?)), Some(s.reliability()))
            }
            _ => (None, None),
        };
        let n = c.labelled_rows as f64;
        Ok(Labelled {
            rows: c.labelled_rows,
            metrics: if c.labelled_rows > 0 {
                summary.report()?
            } else {
                Vec::new()
            },
            reference,
            classes: vec![ClassCalibration {
                class: classes[1].clone(),
                calibration: in_the_large(n, c.labelled_p, c.labelled_pos as f64),
                reliability: summary.reliability(),
                reference_reliability,
            }],
            multiclass: false,
        })
    }

    /// More than two classes: the multiclass report, and each class's
    /// calibration from its one-vs-rest summary.
    fn of_classes(
        classes: &[String],
        summary: &MulticlassSummary,
        r: &Profile,
    ) -> Result<Labelled> {
        let rows = summary.rows();
        let theirs = r.labelled_classes.as_ref().filter(|s| s.rows() > 0);
        let per_class = (0..classes.len())
            .map(|k| {
                let ovr = summary
                    .class(k)
                    .ok_or_else(|| Error::invalid("the labelled summary counts other classes"))?;
                let n = rows as f64;
                let p_sum = summary.mean_probability(k) * n;
                Ok(ClassCalibration {
                    class: classes[k].clone(),
                    calibration: in_the_large(n, p_sum, ovr.class_rows()[1] as f64),
                    reliability: ovr.reliability(),
                    reference_reliability: theirs.and_then(|s| s.class(k)).map(|s| s.reliability()),
                })
            })
            .collect::<Result<_>>()?;
        Ok(Labelled {
            rows,
            metrics: if rows > 0 {
                summary.report()?
            } else {
                Vec::new()
            },
            reference: theirs
                .map(|s| Ok::<_, Error>((s.rows(), s.report()?)))
                .transpose()?,
            classes: per_class,
            multiclass: true,
        })
    }

    /// Whether calibration in the large moved for some class.
    pub fn calibration_moved(&self) -> bool {
        self.classes.iter().any(ClassCalibration::moved)
    }
}

/// What monitoring found, rendering itself.
#[derive(Debug, Clone)]
pub struct MonitorJob {
    /// The model's spec.
    pub spec: String,
    /// The model's classes.
    pub classes: Vec<String>,
    /// The reference's and the current table's names.
    pub sources: (String, String),
    /// Rows read, reference and current.
    pub rows: (u64, u64),
    /// Rows not scored (a missing value the model cannot take).
    pub unscored: (u64, u64),
    /// Columns the model does not read, reference and current.
    pub ignored: (Vec<String>, Vec<String>),
    /// Input drift, largest first.
    pub columns: Vec<ColumnDrift>,
    /// The PSI of each class's probability, with its bins.
    pub score: Vec<(f64, Vec<BinShift>)>,
    /// The alert rate, reference and current.
    pub alert_rate: (f64, f64),
    /// The current priors.
    pub priors: Priors,
    /// The labelled rows' metrics.
    pub labelled: Option<Labelled>,
    /// The `--fail-on` conditions met.
    pub failed: Vec<String>,
}

fn num(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
}

/// The reliability tables of the labelled rows as text: per bin the rows,
/// mean probability and positive share, reference (when labelled) and
/// current.
fn reliability_text(l: &ClassCalibration, of: &str) -> String {
    let mut t = TextTable::new(&[
        "bin",
        "ref rows",
        "ref mean",
        "ref observed",
        "rows",
        "mean",
        "observed",
    ]);
    let cell = |v: Option<&(u64, f64, f64)>| -> [String; 3] {
        match v {
            Some(&(n, m, o)) if n > 0 => [n.to_string(), fixed(m, 4), fixed(o, 4)],
            Some(_) => ["0".into(), String::new(), String::new()],
            None => [String::new(), String::new(), String::new()],
        }
    };
    for (k, cur) in l.reliability.iter().enumerate() {
        let r = cell(l.reference_reliability.as_ref().and_then(|v| v.get(k)));
        let c = cell(Some(cur));
        let mut row = vec![reliability_bin(k)];
        row.extend(r);
        row.extend(c);
        t.text_row(row);
    }
    format!(
        "reliability{of} of the labelled rows (reference, current)\n{}",
        t.to_text()
    )
}

/// A reliability table as JSON: per bin its `bin`, `rows`,
/// `mean_predicted` and `observed` (null for an empty bin).
fn reliability_json(bins: &[(u64, f64, f64)]) -> Value {
    (bins.iter().enumerate())
        .map(|(k, &(rows, mean, observed))| {
            json!({"bin": reliability_bin(k), "rows": rows,
                   "mean_predicted": num(mean), "observed": num(observed)})
        })
        .collect()
}

fn metrics_json(m: &[(String, f64)]) -> Map<String, Value> {
    m.iter().map(|(k, v)| (k.clone(), num(*v))).collect()
}

impl MonitorJob {
    /// The PSI of each class's probability.
    pub fn score_psi(&self) -> Vec<f64> {
        self.score.iter().map(|s| s.0).collect()
    }

    fn by_class(&self, v: &[f64]) -> Value {
        Value::Object(
            self.classes
                .iter()
                .zip(v)
                .map(|(k, x)| (k.clone(), num(*x)))
                .collect(),
        )
    }

    /// The outcome as `rarity monitor --format json` prints it.
    pub fn to_json(&self) -> Value {
        let columns: Vec<Value> = (self.columns.iter())
            .map(|d| {
                let mut o = json!({
                    "column": d.column,
                    "kind": if d.numeric { "numeric" } else { "categorical" },
                    "psi": num(d.psi),
                    "status": Status::of(d.psi).as_str(),
                    "moved": d.moved.iter().map(|b| json!({
                        "bin": b.bin, "reference": num(b.reference),
                        "current": num(b.current), "psi": num(b.psi),
                    })).collect::<Vec<_>>(),
                    "exact": d.exact,
                });
                if let Some(ks) = d.ks {
                    o["ks"] = num(ks);
                }
                o
            })
            .collect();
        let pr = &self.priors;
        let end = |pick: fn(&(f64, f64)) -> f64| -> Value {
            pr.interval.as_ref().map_or(Value::Null, |iv| {
                self.by_class(&iv.iter().map(pick).collect::<Vec<f64>>())
            })
        };
        let outside: Vec<&str> = (pr.outside_classes().into_iter())
            .map(|j| self.classes[j].as_str())
            .collect();
        let mut priors = json!({
            "training": self.by_class(&pr.training),
            "estimated": pr.estimated.as_ref().map_or(Value::Null, |e| self.by_class(e)),
            "low": end(|i| i.0),
            "high": end(|i| i.1),
            "outside": pr.outside(),
            "outside_classes": outside,
            "em": {"iterations": pr.iterations, "converged": pr.converged,
                   "on": if pr.sampled { "sample" } else { "histogram" },
                   "groups": pr.groups, "exact": pr.exact},
        });
        if let Some((t, moved)) = pr.threshold {
            priors["threshold"] = json!({"model": num(t), "shifted": num(moved)});
        }
        if let Some(why) = &pr.reason {
            priors["reason"] = json!(why);
        }
        let mut out = json!({
            "model": self.spec,
            "reference": {"source": self.sources.0, "rows": self.rows.0,
                          "unscored": self.unscored.0, "ignored": self.ignored.0},
            "current": {"source": self.sources.1, "rows": self.rows.1,
                        "unscored": self.unscored.1, "ignored": self.ignored.1},
            "columns": columns,
            "score": {"psi": self.by_class(&self.score_psi())},
            "alert_rate": {"reference": num(self.alert_rate.0), "current": num(self.alert_rate.1)},
            "priors": priors,
            "failed": self.failed,
        });
        if let Some(l) = &self.labelled {
            let mut m = metrics_json(&l.metrics);
            m.insert("rows".into(), json!(l.rows));
            let calibration = |c: &ClassCalibration| {
                let (mean, observed, z) = c.calibration;
                json!({"mean_predicted": num(mean), "observed": num(observed),
                       "z": num(z), "moved": c.moved()})
            };
            // Two classes: the positive class's, as it is; more: by class.
            let by_class = |f: &dyn Fn(&ClassCalibration) -> Option<Value>| match l.multiclass {
                false => l.classes.first().and_then(f),
                true => {
                    let all: Map<String, Value> = (l.classes.iter())
                        .filter_map(|c| f(c).map(|v| (c.class.clone(), v)))
                        .collect();
                    (!all.is_empty()).then_some(Value::Object(all))
                }
            };
            let put = |m: &mut Map<String, Value>, key: &str, v: Option<Value>| {
                if let Some(v) = v {
                    m.insert(key.into(), v);
                }
            };
            put(&mut m, "calibration", by_class(&|c| Some(calibration(c))));
            put(
                &mut m,
                "reliability",
                by_class(&|c| Some(reliability_json(&c.reliability))),
            );
            if let Some((rows, rm)) = &l.reference {
                let mut r = metrics_json(rm);
                r.insert("rows".into(), json!(rows));
                let rel =
                    |c: &ClassCalibration| c.reference_reliability.as_deref().map(reliability_json);
                put(&mut r, "reliability", by_class(&rel));
                m.insert("reference".into(), Value::Object(r));
            }
            out["labelled"] = Value::Object(m);
        }
        out
    }

    /// The outcome as `rarity monitor` prints it.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "{}\nreference {} ({} rows), current {} ({} rows)\n\ninput drift (PSI: < 0.1 \
             stable, 0.1-0.25 shifting, > 0.25 drifted)\n",
            self.spec, self.sources.0, self.rows.0, self.sources.1, self.rows.1
        );
        let mut t = TextTable::new(&["column", "psi", "ks", "status", "moved most"]);
        for d in &self.columns {
            let moved = d.moved.first().map_or_else(String::new, |b| {
                format!(
                    "{} {:.1}% -> {:.1}%",
                    b.bin,
                    100.0 * b.reference,
                    100.0 * b.current
                )
            });
            t.text_row(vec![
                d.column.clone(),
                fixed(d.psi, 4),
                d.ks.map_or_else(String::new, |k| fixed(k, 4)),
                Status::of(d.psi).as_str().into(),
                moved,
            ]);
        }
        s.push_str(&t.to_text());
        let _ = writeln!(s, "\nscore drift (PSI of each class's probability)");
        for (k, p) in self.classes.iter().zip(&self.score_psi()) {
            let _ = writeln!(s, "  p_{k}: {} {}", fixed(*p, 4), Status::of(*p).as_str());
        }
        let _ = writeln!(
            s,
            "alert rate: reference {}, current {}",
            fixed(self.alert_rate.0, 6),
            fixed(self.alert_rate.1, 6)
        );
        s.push_str(&self.priors_text());
        if let Some(l) = &self.labelled {
            let get = |k: &str| {
                l.metrics
                    .iter()
                    .find(|m| m.0 == k)
                    .map_or(f64::NAN, |m| m.1)
            };
            let held = |c: &ClassCalibration| if c.moved() { "moved" } else { "held" };
            match (l.multiclass, l.classes.first()) {
                (false, Some(c)) => {
                    let (mean, observed, z) = c.calibration;
                    let _ = writeln!(
                        s,
                        "labelled: {} rows, average precision {}, roc auc {}, brier {}; mean \
                         predicted {}, observed {} (z {:.2}: calibration {})",
                        l.rows,
                        fixed(get("average_precision"), 4),
                        fixed(get("roc_auc"), 4),
                        fixed(get("brier"), 6),
                        fixed(mean, 6),
                        fixed(observed, 6),
                        z,
                        held(c)
                    );
                    s.push_str(&reliability_text(c, ""));
                }
                _ => {
                    let _ = writeln!(
                        s,
                        "labelled: {} rows, roc auc (one vs rest) {}, hand-till {}, brier {}, \
                         accuracy {}, macro f1 {}",
                        l.rows,
                        fixed(get("roc_auc"), 4),
                        fixed(get("roc_auc_hand_till"), 4),
                        fixed(get("brier"), 6),
                        fixed(get("accuracy"), 4),
                        fixed(get("macro_f1"), 4),
                    );
                    for c in &l.classes {
                        let (mean, observed, z) = c.calibration;
                        let _ = writeln!(
                            s,
                            "class {}: mean predicted {}, observed {} (z {z:.2}: calibration {})",
                            c.class,
                            fixed(mean, 6),
                            fixed(observed, 6),
                            held(c)
                        );
                        s.push_str(&reliability_text(c, &format!(" of class {}", c.class)));
                    }
                }
            }
        }
        for f in &self.failed {
            let _ = writeln!(s, "failed: {f}");
        }
        s
    }

    fn priors_text(&self) -> String {
        let pr = &self.priors;
        let Some(e) = &pr.estimated else {
            return format!(
                "current priors: not estimated ({})\n",
                pr.reason.as_deref().unwrap_or("")
            );
        };
        let interval = |j: usize| {
            (pr.interval.as_ref()).map_or_else(String::new, |iv| {
                format!(" (95% interval {:.6} to {:.6})", iv[j].0, iv[j].1)
            })
        };
        let outside = pr.outside_classes();
        let flag = |j: usize| match outside.contains(&j) {
            true => ", outside the interval",
            false => "",
        };
        let mut s = match e.len() {
            2 => format!(
                "current prior of {} (EM, no labels): {:.6}{}; training {:.6}{}\n",
                self.classes[1],
                e[1],
                interval(1),
                pr.training[1],
                flag(1)
            ),
            _ => {
                let mut s = match pr.exact {
                    true => format!(
                        "current priors (EM, no labels, on every row's probability vector: {} \
                         distinct)\n",
                        pr.groups
                    ),
                    false => format!(
                        "current priors (EM, no labels, on a sample of {} distinct probability \
                         vectors with all their rows)\n",
                        pr.groups
                    ),
                };
                for (j, k) in self.classes.iter().enumerate() {
                    let _ = writeln!(
                        s,
                        "  {k}: {:.6}{}; training {:.6}{}",
                        e[j],
                        interval(j),
                        pr.training[j],
                        flag(j)
                    );
                }
                s
            }
        };
        if let Some((t, moved)) = pr.threshold {
            let _ = writeln!(
                s,
                "  the threshold {t} moves to {moved:.6} at the estimated priors"
            );
        }
        s
    }
}
