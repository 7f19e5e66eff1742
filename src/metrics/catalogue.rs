//! The metric catalogue: every metric rarity reports, with its key, label,
//! direction, the tasks it is defined for, what it needs, whether a
//! threshold can be tuned for it, and the function computing it.
//!
//! `rarity score`, `evaluate`, `run`'s ranking, `tune(metric=...)`,
//! ReverseTesting's measures and the reports all read this table; adding a
//! metric is its function plus one entry here. The order of the entries is
//! the order of every report.
//!
//! Definitions (binary: class 1 positive, thresholded metrics from the
//! decided labels; multiclass: one-vs-rest macro averages for the ranking
//! metrics, argmax or the strategy's rule for the labels, macro averages of
//! the per-class rates) are those of [`super::report`]'s module doc.
//!
//! An entry may take parameters, declared with `params!` and written as a
//! call in the spec syntax: `precision_at_k(k=100)`,
//! `recall_at_alert_rate(rate=0.01)` (the alert-budget metrics of
//! [`super::budget`]). Such a metric is computed when asked for (`score
//! --metric`, `evaluate --metric`, `run --metric`, `tune(metric=...)`), not
//! in every report; [`metric`] reads the call, checks its parameters and
//! returns one `&'static Metric` per distinct call (interned: a program
//! holds as many as the distinct calls it reads).

use std::cell::OnceCell;
use std::sync::Mutex;

use super::budget::{alert_budget, Curve};
use super::calibration::expected_calibration_error;
use super::confusion::{Average, BinaryCounts, Confusion};
use super::probability::{
    brier, brier_weighted, log_loss, log_loss_weighted, murphy_decomposition, murphy_multiclass,
    stratified_brier, Murphy, MURPHY_BINS,
};
use super::ranking::{binary_ranking, ranking_ovr_macro, roc_auc_hand_till, RankingScores};
use crate::data::Proba;
use crate::error::{did_you_mean, Error, Result};
use crate::params::{from_call, params, syntax, Bounds, Call, Params};

/// Number of uniform bins of the reported expected calibration error.
pub const ECE_BINS: usize = 10;

// The labels of brier_reliability, brier_resolution and the within-bin
// terms name the bins.
const _: () = assert!(MURPHY_BINS == 10);

/// Which values of a metric are better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Direction {
    /// Larger is better (AUC, F1, benefit, ...).
    Higher,
    /// Smaller is better (Brier, log loss, cost, FPR, ...).
    Lower,
    /// A property of the data, not of the model (Murphy's uncertainty).
    Neither,
}

/// What a metric is computed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Needs {
    /// The predicted probabilities (ranking and probability metrics).
    Probabilities,
    /// The decided labels (thresholded metrics).
    Labels,
    /// Settings of the evaluation beyond the predictions (a loss matrix,
    /// per-row amounts).
    Settings,
}

/// A metric's value from binary confusion counts, and from a multiclass
/// confusion matrix where it is defined: what threshold tuning optimises.
#[derive(Debug, Clone, Copy)]
pub enum Tunable {
    /// The metric itself, a function of the decided labels.
    Counts {
        /// The value of binary counts.
        binary: fn(&BinaryCounts) -> f64,
        /// The value of a multiclass confusion matrix (`None`: binary only).
        multiclass: Option<fn(&Confusion) -> f64>,
    },
    /// A target of a parameterised threshold-free metric (binary): the value
    /// of binary counts given the metric's parameter, `-inf` where the
    /// threshold misses the target (`recall_at_precision(p=0.9)` tunes the
    /// threshold of the largest recall at precision 0.9 or more).
    Target(fn(&BinaryCounts, f64) -> f64),
}

/// A parameterised entry's parameters: their table (for help and
/// errors) and the reading of a call into the one number its definition
/// takes.
#[derive(Debug, Clone, Copy)]
pub struct MetricParams {
    /// The parameters' table.
    pub table: fn() -> Vec<crate::params::ParamInfo>,
    /// The parameter's value in a call (checked).
    pub read: fn(&Call) -> Result<f64>,
}

/// How a metric is computed from scored predictions.
#[derive(Debug, Clone, Copy)]
pub enum Definition {
    /// The same function for both tasks (ranking and probability metrics).
    Scores(fn(&Scored) -> Result<f64>),
    /// A per-class rate: the positive class's for two classes, the macro
    /// average over classes beyond.
    Rate(fn(&BinaryCounts) -> f64),
    /// A function of the whole confusion matrix, for both tasks.
    Confusion(fn(&Confusion) -> f64),
    /// Different definitions for two classes and beyond.
    Split {
        /// Two classes.
        binary: fn(&Scored) -> Result<f64>,
        /// More classes.
        multiclass: fn(&Scored) -> Result<f64>,
    },
    /// Two classes only (probability metrics of the positive class).
    BinaryOnly(fn(&Scored) -> Result<f64>),
    /// More than two classes only.
    MulticlassOnly(fn(&Scored) -> Result<f64>),
    /// Computed by an evaluation from its settings (a loss matrix, amounts).
    Settings,
    /// A binary metric of the positive-class scores and the metric's
    /// parameter (the alert budgets).
    Budget(fn(&Curve, f64) -> f64),
    /// A confusion count of the positive class (binary; not weighted).
    Count(fn(&BinaryCounts) -> u64),
}

/// One metric.
#[derive(Debug, Clone, Copy)]
pub struct Metric {
    /// The key of reports and options (`roc_auc`).
    pub key: &'static str,
    /// A short column title (`AUC`).
    pub label: &'static str,
    /// Which values are better.
    pub direction: Direction,
    /// How it is computed.
    pub definition: Definition,
    /// Set when a threshold (or per-class thresholds) can be tuned for it.
    pub tunable: Option<Tunable>,
    /// Set for an entry that takes parameters.
    pub params: Option<MetricParams>,
    /// The parameter's value in a metric read from a call (`NaN` for the
    /// catalogue's entries themselves).
    pub param: f64,
    /// Set for a probability metric whose definition reads the rows'
    /// weights (see [`Metric::weighted`]).
    weighted_scores: bool,
}

impl Metric {
    /// Whether [`weighted_value`] computes it: every function of the labels
    /// (from a weighted confusion matrix) and the Brier score and log loss
    /// (weighted means over rows).
    pub fn weighted(&self) -> bool {
        self.weighted_scores
            || (self.needs() == Needs::Labels && !matches!(self.definition, Definition::Count(_)))
    }

    /// What it is computed from.
    ///
    /// ```
    /// use rarity::metrics::catalogue::{metric, Needs};
    /// assert_eq!(metric("g_mean").unwrap().needs(), Needs::Labels);
    /// assert_eq!(metric("roc_auc").unwrap().needs(), Needs::Probabilities);
    /// ```
    pub fn needs(&self) -> Needs {
        match self.definition {
            Definition::Rate(_) | Definition::Confusion(_) | Definition::Count(_) => Needs::Labels,
            Definition::Settings => Needs::Settings,
            Definition::Budget(_) => Needs::Probabilities,
            // A threshold can be tuned only for a function of the labels
            // (G-mean's two definitions are `Split`).
            _ if self.tunable.is_some() => Needs::Labels,
            _ => Needs::Probabilities,
        }
    }

    /// Whether it is reported for a task of `k` classes.
    pub fn defined_for(&self, k: usize) -> bool {
        match self.definition {
            Definition::BinaryOnly(_) | Definition::Budget(_) | Definition::Count(_) => k == 2,
            Definition::MulticlassOnly(_) => k > 2,
            Definition::Settings => false,
            _ => true,
        }
    }

    /// Its value on scored predictions of `k` classes (`None` when not
    /// defined for them).
    pub fn compute(&self, s: &Scored) -> Option<Result<f64>> {
        let binary = s.proba.n_classes() == 2;
        if !self.defined_for(s.proba.n_classes()) {
            return None;
        }
        Some(match self.definition {
            Definition::Scores(f) | Definition::BinaryOnly(f) | Definition::MulticlassOnly(f) => {
                f(s)
            }
            Definition::Rate(rate) if binary => Ok(rate(&s.positive())),
            Definition::Rate(rate) => Ok(s.macro_rate(rate)),
            Definition::Confusion(f) => Ok(f(&s.confusion)),
            Definition::Split { binary: b, .. } if binary => b(s),
            Definition::Split { multiclass, .. } => multiclass(s),
            Definition::Budget(f) => s.curve().map(|c| f(c, self.param)),
            Definition::Count(f) => Ok(f(&s.positive()) as f64),
            Definition::Settings => return None,
        })
    }

    /// Whether larger values are better (false for lower-is-better metrics
    /// and for those with no direction).
    pub fn higher_is_better(&self) -> bool {
        self.direction == Direction::Higher
    }

    /// The value oriented so that larger is better (negated when lower is
    /// better); an error for a metric with no direction.
    pub fn oriented(&self, value: f64) -> Result<f64> {
        match self.direction {
            Direction::Higher => Ok(value),
            Direction::Lower => Ok(-value),
            Direction::Neither => Err(Error::invalid(format!(
                "{} describes the data, not a model: it cannot rank models",
                self.key
            ))),
        }
    }
}

/// The predictions being scored, with the pieces several metrics share
/// computed once on first use.
pub struct Scored<'a> {
    /// True class ids.
    pub truth: &'a [u32],
    /// Predicted probabilities (`n x k`).
    pub proba: &'a Proba,
    /// The confusion matrix of the decided labels (weighted when the rows
    /// are).
    pub confusion: Confusion,
    weights: Option<&'a [f64]>,
    ranking: OnceCell<RankingScores>,
    murphy: OnceCell<Murphy>,
    stratified: OnceCell<Vec<f64>>,
    curve: OnceCell<Curve>,
}

impl<'a> Scored<'a> {
    /// Predictions with their decided labels (already checked by the caller).
    pub fn new(truth: &'a [u32], proba: &'a Proba, labels: &[u32]) -> Result<Self> {
        Ok(Scored {
            truth,
            proba,
            confusion: Confusion::from_labels(truth, labels, proba.n_classes())?,
            weights: None,
            ranking: OnceCell::new(),
            murphy: OnceCell::new(),
            stratified: OnceCell::new(),
            curve: OnceCell::new(),
        })
    }

    /// Predictions whose rows carry `weights` (see [`weighted_value`]).
    pub fn weighted(
        truth: &'a [u32],
        proba: &'a Proba,
        labels: &[u32],
        weights: &'a [f64],
    ) -> Result<Self> {
        let confusion = Confusion::from_weighted_labels(truth, labels, proba.n_classes(), weights)?;
        Ok(Scored {
            confusion,
            weights: Some(weights),
            ..Scored::new(truth, proba, labels)?
        })
    }

    fn ranking(&self) -> Result<&RankingScores> {
        if let Some(r) = self.ranking.get() {
            return Ok(r);
        }
        let r = if self.proba.n_classes() == 2 {
            binary_ranking(self.truth, &self.proba.column(1), 1)?
        } else {
            ranking_ovr_macro(self.truth, self.proba)?
        };
        Ok(self.ranking.get_or_init(|| r))
    }

    fn murphy(&self) -> Result<&Murphy> {
        if let Some(m) = self.murphy.get() {
            return Ok(m);
        }
        let m = if self.proba.n_classes() == 2 {
            murphy_decomposition(self.truth, &self.proba.column(1), 1, MURPHY_BINS)?
        } else {
            murphy_multiclass(self.truth, self.proba, MURPHY_BINS)?
        };
        Ok(self.murphy.get_or_init(|| m))
    }

    fn stratified(&self) -> Result<&[f64]> {
        if let Some(s) = self.stratified.get() {
            return Ok(s);
        }
        let s = stratified_brier(self.truth, self.proba)?;
        Ok(self.stratified.get_or_init(|| s))
    }

    fn curve(&self) -> Result<&Curve> {
        if let Some(c) = self.curve.get() {
            return Ok(c);
        }
        let c = Curve::new(self.truth, &self.proba.column(1))?;
        Ok(self.curve.get_or_init(|| c))
    }

    fn positive(&self) -> BinaryCounts {
        self.confusion.one_vs_rest(1)
    }

    fn macro_rate(&self, rate: fn(&BinaryCounts) -> f64) -> f64 {
        self.confusion.average(rate, Average::Macro)
    }
}

/// Mean per-class recall of binary counts (balanced accuracy).
fn binary_macro_accuracy(c: &BinaryCounts) -> f64 {
    0.5 * (c.tpr() + c.tnr())
}

/// Mean of both classes' F1 of binary counts.
fn binary_macro_f1(c: &BinaryCounts) -> f64 {
    let neg = BinaryCounts {
        tp: c.tn,
        fp: c.fn_,
        fn_: c.fp,
        tn: c.tp,
    };
    0.5 * (c.f1() + neg.f1())
}

/// A metric (not tunable).
const fn metric_of(
    key: &'static str,
    label: &'static str,
    direction: Direction,
    definition: Definition,
) -> Metric {
    Metric {
        key,
        label,
        direction,
        definition,
        tunable: None,
        params: None,
        param: f64::NAN,
        weighted_scores: false,
    }
}

/// A probability metric whose definition reads the rows' weights.
const fn weighted(m: Metric) -> Metric {
    Metric {
        weighted_scores: true,
        ..m
    }
}

/// A thresholded metric that tuning can optimise.
const fn tunable(
    m: Metric,
    binary: fn(&BinaryCounts) -> f64,
    multiclass: Option<fn(&Confusion) -> f64>,
) -> Metric {
    Metric {
        tunable: Some(Tunable::Counts { binary, multiclass }),
        ..m
    }
}

/// An alert-budget metric with its parameters, and its tuning target if a
/// threshold can be tuned for it.
const fn budget(
    key: &'static str,
    label: &'static str,
    f: fn(&Curve, f64) -> f64,
    params: MetricParams,
    target: Option<fn(&BinaryCounts, f64) -> f64>,
) -> Metric {
    Metric {
        params: Some(params),
        tunable: match target {
            Some(t) => Some(Tunable::Target(t)),
            None => None,
        },
        ..metric_of(key, label, Higher, Definition::Budget(f))
    }
}

params! {
    /// The alert budget of `precision_at_k` and `recall_at_k`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct AtK {
        /// Alerts: the k highest scores (required).
        pub k: Option<usize> = None => Bounds::at_least(1.0),
    }
}

params! {
    /// The alert budget of `recall_at_alert_rate`, relative to the rows.
    #[derive(Debug, Clone, PartialEq)]
    pub struct AtRate {
        /// Fraction of the rows alerted: the top ceil(rate x rows) scores.
        pub rate: f64 = 0.01 => Bounds::left_open(0.0, 1.0),
    }
}

params! {
    /// The precision target of `recall_at_precision`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct AtPrecision {
        /// Required precision.
        pub p: f64 = 0.9 => Bounds::left_open(0.0, 1.0),
    }
}

params! {
    /// The recall target of `precision_at_recall`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct AtRecall {
        /// Required recall.
        pub r: f64 = 0.8 => Bounds::left_open(0.0, 1.0),
    }
}

const AT_K: MetricParams = MetricParams {
    table: || AtK::default().table(),
    read: |c| {
        from_call::<AtK>(c)?.k.map(|k| k as f64).ok_or_else(|| {
            Error::invalid(format!(
                "{c}: give the number of alerts, e.g. {}(k=100)",
                c.name
            ))
        })
    },
};

/// Recall within an alert budget of `rate` of the rows.
fn within_rate(c: &BinaryCounts, rate: f64) -> f64 {
    let n = c.tp + c.fp + c.fn_ + c.tn;
    if c.tp + c.fp <= alert_budget(rate, n) {
        c.tpr()
    } else {
        f64::NEG_INFINITY
    }
}

/// Recall at a precision of `p` or more.
fn at_precision(c: &BinaryCounts, p: f64) -> f64 {
    if c.tp + c.fp > 0 && c.ppv() >= p {
        c.tpr()
    } else {
        f64::NEG_INFINITY
    }
}

/// Precision at a recall of `r` or more.
fn at_recall(c: &BinaryCounts, r: f64) -> f64 {
    if c.support() > 0 && c.tpr() >= r {
        c.ppv()
    } else {
        f64::NEG_INFINITY
    }
}

use Definition::{BinaryOnly, MulticlassOnly, Rate, Scores, Settings, Split};
use Direction::{Higher, Lower, Neither};

/// Every metric, in report order.
pub const METRICS: &[Metric] = &[
    metric_of(
        "roc_auc",
        "AUC",
        Higher,
        Scores(|s| Ok(s.ranking()?.roc_auc)),
    ),
    metric_of(
        "average_precision",
        "AP",
        Higher,
        Scores(|s| Ok(s.ranking()?.average_precision)),
    ),
    metric_of(
        "pr_auc_trapezoid",
        "PR AUC (trapezoid)",
        Higher,
        Scores(|s| Ok(s.ranking()?.pr_auc_trapezoid)),
    ),
    weighted(metric_of(
        "brier",
        "Brier",
        Lower,
        Scores(|s| match s.weights {
            Some(w) => brier_weighted(s.truth, s.proba, w),
            None => brier(s.truth, s.proba),
        }),
    )),
    weighted(metric_of(
        "log_loss",
        "log loss",
        Lower,
        Scores(|s| match s.weights {
            Some(w) => log_loss_weighted(s.truth, s.proba, w),
            None => log_loss(s.truth, s.proba),
        }),
    )),
    tunable(
        metric_of(
            "accuracy",
            "accuracy",
            Higher,
            Definition::Confusion(Confusion::accuracy),
        ),
        BinaryCounts::accuracy,
        Some(Confusion::accuracy),
    ),
    metric_of("tpr", "TPR", Higher, Rate(BinaryCounts::tpr)),
    metric_of("tnr", "TNR", Higher, Rate(BinaryCounts::tnr)),
    metric_of("ppv", "PPV", Higher, Rate(BinaryCounts::ppv)),
    metric_of("npv", "NPV", Higher, Rate(BinaryCounts::npv)),
    metric_of("fpr", "FPR", Lower, Rate(BinaryCounts::fpr)),
    metric_of("fdr", "FDR", Lower, Rate(BinaryCounts::fdr)),
    metric_of(
        "tp",
        "TP",
        Higher,
        BinaryOnly(|s| Ok(s.positive().tp as f64)),
    ),
    metric_of(
        "fp",
        "FP",
        Lower,
        BinaryOnly(|s| Ok(s.positive().fp as f64)),
    ),
    metric_of(
        "tn",
        "TN",
        Higher,
        BinaryOnly(|s| Ok(s.positive().tn as f64)),
    ),
    metric_of(
        "fn",
        "FN",
        Lower,
        BinaryOnly(|s| Ok(s.positive().fn_ as f64)),
    ),
    tunable(
        metric_of("f1", "F1", Higher, Rate(BinaryCounts::f1)),
        BinaryCounts::f1,
        None,
    ),
    tunable(
        metric_of(
            "g_mean",
            "G-mean",
            Higher,
            Split {
                binary: |s| Ok(s.positive().g_mean()),
                multiclass: |s| Ok(s.confusion.g_mean()),
            },
        ),
        BinaryCounts::g_mean,
        Some(Confusion::g_mean),
    ),
    tunable(
        metric_of(
            "macro_accuracy",
            "macro acc",
            Higher,
            Definition::Confusion(Confusion::macro_accuracy),
        ),
        binary_macro_accuracy,
        Some(Confusion::macro_accuracy),
    ),
    tunable(
        metric_of(
            "macro_f1",
            "macro F1",
            Higher,
            Definition::Confusion(Confusion::macro_f1),
        ),
        binary_macro_f1,
        Some(Confusion::macro_f1),
    ),
    metric_of(
        "brier_positive",
        "Brier+",
        Lower,
        BinaryOnly(|s| Ok(s.stratified()?[1])),
    ),
    metric_of(
        "brier_negative",
        "Brier-",
        Lower,
        BinaryOnly(|s| Ok(s.stratified()?[0])),
    ),
    metric_of(
        "ece",
        "ECE",
        Lower,
        BinaryOnly(|s| expected_calibration_error(s.truth, &s.proba.column(1), 1, ECE_BINS)),
    ),
    metric_of(
        "brier_reliability",
        "reliability (10 bins)",
        Lower,
        Scores(|s| Ok(s.murphy()?.reliability)),
    ),
    metric_of(
        "brier_resolution",
        "resolution (10 bins)",
        Higher,
        Scores(|s| Ok(s.murphy()?.resolution)),
    ),
    metric_of(
        "brier_uncertainty",
        "uncertainty",
        Neither,
        Scores(|s| Ok(s.murphy()?.uncertainty)),
    ),
    metric_of(
        "brier_within_bin_variance",
        "within-bin variance (10 bins)",
        Neither,
        Scores(|s| Ok(s.murphy()?.within_bin_variance)),
    ),
    metric_of(
        "brier_within_bin_covariance",
        "within-bin covariance (10 bins)",
        Neither,
        Scores(|s| Ok(s.murphy()?.within_bin_covariance)),
    ),
    metric_of(
        "roc_auc_hand_till",
        "AUC (Hand-Till)",
        Higher,
        MulticlassOnly(|s| roc_auc_hand_till(s.truth, s.proba)),
    ),
    metric_of("cost", "cost", Lower, Settings),
    metric_of("benefit", "benefit", Higher, Settings),
    budget(
        "precision_at_k",
        "P@k",
        |c, k| c.precision_at_k(k as u64),
        AT_K,
        None,
    ),
    budget(
        "recall_at_k",
        "R@k",
        |c, k| c.recall_at_k(k as u64),
        AT_K,
        None,
    ),
    budget(
        "recall_at_alert_rate",
        "R@rate",
        Curve::recall_at_alert_rate,
        MetricParams {
            table: || AtRate::default().table(),
            read: |c| Ok(from_call::<AtRate>(c)?.rate),
        },
        Some(within_rate),
    ),
    budget(
        "recall_at_precision",
        "R@P",
        Curve::recall_at_precision,
        MetricParams {
            table: || AtPrecision::default().table(),
            read: |c| Ok(from_call::<AtPrecision>(c)?.p),
        },
        Some(at_precision),
    ),
    budget(
        "precision_at_recall",
        "P@R",
        Curve::precision_at_recall,
        MetricParams {
            table: || AtRecall::default().table(),
            read: |c| Ok(from_call::<AtRecall>(c)?.r),
        },
        Some(at_recall),
    ),
];

/// The metric with key `key`, a name or a call for a parameterised one
/// (`precision_at_k(k=100)`), or an error that suggests the closest key and
/// lists them all.
///
/// ```
/// use rarity::metrics::catalogue::{metric, Direction};
/// assert_eq!(metric("brier").unwrap().direction, Direction::Lower);
/// let e = metric("rocauc").unwrap_err().to_string();
/// assert!(e.contains("did you mean 'roc_auc'"), "{e}");
/// let m = metric("recall_at_precision( p = 0.95 )").unwrap();
/// assert_eq!((m.key, m.param), ("recall_at_precision(p=0.95)", 0.95));
/// assert_eq!(metric("recall_at_alert_rate").unwrap().key, "recall_at_alert_rate(rate=0.01)");
/// assert!(metric("precision_at_k").unwrap_err().to_string().contains("k=100"));
/// ```
pub fn metric(key: &str) -> Result<&'static Metric> {
    match syntax::parse(key) {
        Ok(calls) if calls.len() == 1 => metric_of_call(&calls[0]),
        _ => Err(unknown_metric(key)),
    }
}

/// The metric a parsed call names ([`metric`]).
pub fn metric_of_call(call: &Call) -> Result<&'static Metric> {
    let entry = METRICS
        .iter()
        .find(|m| m.key == call.name)
        .ok_or_else(|| unknown_metric(&call.to_string()))?;
    let Some(params) = entry.params else {
        if call.args.is_empty() {
            return Ok(entry);
        }
        return Err(Error::invalid(format!(
            "{call}: the metric {} takes no parameters",
            entry.key
        )));
    };
    let value = (params.read)(call)?;
    let name = (params.table)()[0].name;
    let key = format!(
        "{}({name}={})",
        entry.key,
        crate::params::number_text(value)
    );
    Ok(intern(key, entry, value))
}

/// One `&'static Metric` per distinct parameterised call.
fn intern(key: String, entry: &'static Metric, value: f64) -> &'static Metric {
    static READ: Mutex<Vec<&'static Metric>> = Mutex::new(Vec::new());
    let mut read = READ.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(m) = read.iter().find(|m| m.key == key) {
        return m;
    }
    let m: &'static Metric = Box::leak(Box::new(Metric {
        key: Box::leak(key.into_boxed_str()),
        param: value,
        ..*entry
    }));
    read.push(m);
    m
}

/// The error of an unknown metric key: the closest key and every key (the
/// parameterised ones written as calls).
fn unknown_metric(key: &str) -> Error {
    let keys = METRICS.iter().map(|m| m.key);
    let hint = did_you_mean(key.split('(').next().unwrap_or(key), keys)
        .map_or(String::new(), |s| format!(" (did you mean '{s}'?)"));
    Error::invalid(format!(
        "unknown metric '{key}'{hint}; accepted: {}",
        METRICS.iter().map(written).collect::<Vec<_>>().join(", ")
    ))
}

/// A catalogue entry as written: its key, or a call with its parameters
/// (`precision_at_k(k=K)`); a metric read from a call is its call
/// (`precision_at_k(k=100)`).
///
/// ```
/// use rarity::metrics::catalogue::{metric, written, METRICS};
/// let entry = METRICS.iter().find(|m| m.key == "recall_at_precision").unwrap();
/// assert_eq!(written(entry), "recall_at_precision(p=P)");
/// let call = metric("recall_at_precision(p=0.5)").unwrap();
/// assert_eq!(written(call), "recall_at_precision(p=0.5)");
/// ```
pub fn written(m: &Metric) -> String {
    match m.params {
        None => m.key.to_string(),
        Some(_) if m.key.contains('(') => m.key.to_string(),
        Some(p) => {
            let args: Vec<String> = (p.table)()
                .iter()
                .map(|i| format!("{}={}", i.name, i.name.to_uppercase()))
                .collect();
            format!("{}({})", m.key, args.join(","))
        }
    }
}

/// One metric of predictions with their decided labels (checked as the
/// report checks them); an error for a metric the task does not define or
/// that needs an evaluation's settings.
///
/// ```
/// use rarity::data::Proba;
/// use rarity::metrics::catalogue::{metric, value};
/// let p = Proba::from_positive(&[0.1, 0.4, 0.35, 0.8]);
/// assert_eq!(value(metric("roc_auc").unwrap(), &[0, 0, 1, 1], &p, &[0, 0, 0, 1]).unwrap(), 0.75);
/// ```
pub fn value(m: &Metric, truth: &[u32], proba: &Proba, labels: &[u32]) -> Result<f64> {
    super::check_proba(truth, proba)?;
    m.compute(&Scored::new(truth, proba, labels)?)
        .unwrap_or_else(|| Err(undefined(m, proba.n_classes())))
}

/// The error of a metric asked for on a task of `k` classes it does not
/// define (or that needs an evaluation's settings).
pub fn undefined(m: &Metric, k: usize) -> Error {
    Error::invalid(format!(
        "{} is not defined for {k} classes{}",
        m.key,
        if m.needs() == Needs::Settings {
            " from predictions alone (it needs the evaluation's settings)"
        } else if k > 2 && m.defined_for(2) {
            " (it is a binary metric of the positive class)"
        } else {
            ""
        }
    ))
}

/// One metric of predictions whose rows carry `weights`: the
/// importance-weighted estimate of the metric on a population whose rows
/// are `w(x)` times as frequent (Sugiyama, Krauledat & Müller 2007, eq. 8:
/// each row's loss times its weight). Functions of the labels come from the
/// weighted confusion matrix ([`Confusion::from_weighted_labels`]), the
/// Brier score and log loss are weighted means; equal weights give
/// [`value`]. An error for a metric without a weighted form (the ranking
/// and calibration metrics).
///
/// ```
/// use rarity::data::Proba;
/// use rarity::metrics::catalogue::{metric, weighted_value};
/// let p = Proba::from_positive(&[0.1, 0.4, 0.35, 0.8]);
/// let acc = metric("accuracy").unwrap();
/// // Row 3 (wrong) counts twice.
/// assert_eq!(weighted_value(acc, &[0, 0, 1, 1], &p, &[0, 0, 0, 1], &[1.0, 1.0, 2.0, 1.0]).unwrap(), 0.6);
/// assert!(weighted_value(metric("roc_auc").unwrap(), &[0, 1], &p, &[0, 1], &[1.0, 1.0]).is_err());
/// ```
pub fn weighted_value(
    m: &Metric,
    truth: &[u32],
    proba: &Proba,
    labels: &[u32],
    weights: &[f64],
) -> Result<f64> {
    if !m.weighted() {
        return Err(Error::invalid(format!(
            "{} has no importance-weighted form; weighted measures: {}",
            m.key,
            METRICS
                .iter()
                .filter(|m| m.weighted())
                .map(|m| m.key)
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    super::check_proba(truth, proba)?;
    m.compute(&Scored::weighted(truth, proba, labels, weights)?)
        .unwrap_or_else(|| {
            Err(Error::invalid(format!(
                "{} is not defined for {} classes",
                m.key,
                proba.n_classes()
            )))
        })
}

/// The metrics a threshold can be tuned for, as `tune(metric=...)` lists them.
pub fn tunable_keys() -> Vec<String> {
    METRICS
        .iter()
        .filter(|m| m.tunable.is_some())
        .map(written)
        .collect()
}

/// The catalogue's entries computed in every report: all but the
/// parameterised ones (computed when asked for) and those needing an
/// evaluation's settings.
pub fn reported() -> impl Iterator<Item = &'static Metric> {
    METRICS.iter().filter(|m| m.params.is_none())
}
