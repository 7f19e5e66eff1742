//! The stages of a strategy spec other than the sampler and the learner:
//! the imputation and the target-statistics encoding that come first
//! (`impute(...)`, [`crate::data::impute`]; `encode(target, ...)`,
//! [`crate::data::target_encode`]), and those that follow the learner: the
//! prior correction (Dal Pozzolo et al. 2015, eq. 9), the calibrators (Platt,
//! isotonic), the prior shift to known or EM-estimated target priors
//! (Saerens et al. 2002; Dal Pozzolo et al. 2015, eq. 14) and the decision
//! rules, each with its parameters.

use crate::calibrate::{Calibration, CalibrationMethod, Correction, PriorShift};
use crate::data::impute::{Impute, ImputeStrategy};
use crate::data::target_encode::{Columns, TargetEncode};
use crate::data::target_stats::Smooth;
use crate::decide::tune::Objective;
use crate::decide::{Decision, Rule};
use crate::error::{Error, Result};
use crate::metrics::catalogue::metric_of_call;
use crate::metrics::cost::{Benefit, LossMatrix};
use crate::params::{apply, from_call, params, Bounds, Call, Entry, ParamInfo, Params, Value};

/// A stage other than the sampler and the learner.
#[derive(Debug, Clone, PartialEq)]
pub enum Stage {
    /// Replace missing values by training statistics (a first stage,
    /// fitted before the sampler: `impute(median)+...`).
    Impute(Impute),
    /// Replace categorical features by their target statistics (a first
    /// stage: `encode(target)+...`).
    Encode(TargetEncode),
    /// Undo the prior shift of all sampling (`+correct`).
    Correct(Correction),
    /// Calibrate the probabilities (`+platt`, `+isotonic`).
    Calibrate(Calibration),
    /// Move the probabilities to other priors (`+priors(...)`, `+em`).
    Shift(PriorShift),
    /// Decide the labels (the last stage).
    Decide(Decision),
}

params! {
    /// `correct(mode)`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct CorrectParams {
        /// `member`: each ensemble member with its own keep rates before
        /// averaging; `average`: the average with the members' mean rates.
        pub mode: Correction = Correction::Member,
    }
}

params! {
    /// `encode(target, folds, smooth)`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct EncodeParams {
        /// Folds of the cross-fit: a training row's value comes from the
        /// table fitted on the other folds.
        pub folds: usize = 5 => Bounds::at_least(2.0),
        /// Shrinkage toward the prior: auto (empirical Bayes, scikit-learn's
        /// TargetEncoder) or a count of prior rows added to each level.
        pub smooth: Smooth = Smooth::Auto,
        /// The categorical columns to encode: all, or those named (the
        /// others stay level codes for native categorical splits).
        pub cols: Columns = Columns::All,
    }
}

/// `all`, a column name, or a list of names (`[merchant, mcc]`,
/// `merchant:mcc`, `'merchant,mcc'`).
impl crate::params::ParamType for Columns {
    fn from_value(v: &Value) -> std::result::Result<Self, String> {
        let names: Vec<String> = match v {
            _ if v.word() == Some("all") => return Ok(Columns::All),
            Value::Text(t) => t.split(',').map(|n| n.trim().to_string()).collect(),
            Value::List(items) => (items.iter())
                .map(String::from_value)
                .collect::<std::result::Result<_, _>>()?,
            _ => vec![String::from_value(v)?],
        };
        if names.iter().any(String::is_empty) {
            return Err(String::new());
        }
        Ok(Columns::Only(names))
    }
    fn expected() -> String {
        "all, a column name or a list of names such as [merchant, mcc]".into()
    }
    fn to_text(&self) -> String {
        match self {
            Columns::Only(names) => names.to_text(),
            Columns::All | Columns::AllBut(_) => "all".into(),
        }
    }
}

/// `auto` or a count `>= 0`.
impl crate::params::ParamType for Smooth {
    fn from_value(v: &Value) -> std::result::Result<Self, String> {
        match (v, v.word()) {
            (_, Some("auto")) => Ok(Smooth::Auto),
            (Value::Number(m), _) if m.is_finite() && *m >= 0.0 => Ok(Smooth::Count(*m)),
            _ => Err(String::new()),
        }
    }
    fn expected() -> String {
        "auto or a count >= 0".into()
    }
    fn to_text(&self) -> String {
        match self {
            Smooth::Auto => "auto".into(),
            Smooth::Count(m) => crate::params::number_text(*m),
        }
    }
}

/// `encode(target, folds=.., smooth=..)`: the encoding named first, then
/// its parameters.
fn encode(c: &Call) -> Result<Stage> {
    let mut rest = c.clone();
    match rest.args.first() {
        Some((None, v)) if v.word() == Some("target") => {
            rest.args.remove(0);
        }
        _ => {
            return Err(Error::invalid(format!(
            "{c}: expected encode(target, folds=5, smooth=auto, cols=all); target statistics are \
                 the encoding this stage makes"
        )))
        }
    }
    let p: EncodeParams = from_call(&rest)?;
    Ok(Stage::Encode(TargetEncode {
        folds: p.folds,
        smooth: p.smooth,
        cols: p.cols,
    }))
}

params! {
    /// `impute(strategy, value, indicator)`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct ImputeParams {
        /// The statistic of a numeric feature's training values a missing
        /// one gets (a categorical column takes its most frequent level).
        pub strategy: ImputeStrategy = ImputeStrategy::Median,
        /// The constant of strategy=constant (required there).
        pub value: Option<f64> = None,
        /// Add a 0/1 feature missing(COL) per column missing a training
        /// value.
        pub indicator: bool = false,
    }
}

/// `impute(median, ...)` or `impute(strategy=median, ...)`: the strategy
/// may be given first without its key.
fn impute(c: &Call) -> Result<Stage> {
    let mut call = c.clone();
    if let Some((None, v)) = call.args.first() {
        let v = v.clone();
        call.args[0] = (Some("strategy".to_string()), v);
    }
    let p: ImputeParams = from_call(&call)?;
    let stage = Impute {
        strategy: p.strategy,
        value: p.value,
        indicator: p.indicator,
    };
    stage.check()?;
    Ok(Stage::Impute(stage))
}

params! {
    /// `platt(folds, ensemble)` / `isotonic(folds, ensemble)`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct CalibrationParams {
        /// Stratified folds of the out-of-fold probabilities.
        pub folds: usize = 3 => Bounds::at_least(2.0),
        /// Keep one calibrated model per fold and average them.
        pub ensemble: bool = false,
    }
}

params! {
    /// `em(tol, max_iter)`: Saerens' EM on the rows being predicted.
    #[derive(Debug, Clone, PartialEq)]
    pub struct EmParams {
        /// Stop when no estimated prior moves by this much in an iteration.
        pub tol: f64 = 1e-8 => Bounds::positive(),
        /// Stop after this many iterations.
        pub max_iter: usize = 1000 => Bounds::at_least(1.0),
    }
}

params! {
    /// A stage without parameters.
    #[derive(Debug, Clone, PartialEq)]
    pub struct NoParams {}
}

params! {
    /// `benefit(amount, overhead)`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct BenefitParams {
        /// The feature column holding each row's amount.
        pub amount: String = String::new(),
        /// The fixed cost of acting on a row.
        pub overhead: Option<f64> = None,
    }
}

/// The keyword arguments of a loss given by its cells (`fn=10,fp=1`, `tp`
/// and `tn` 0 by default) or a whole matrix (`matrix='0,1;5,0'`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LossParams {
    cells: [Option<f64>; 4],
    matrix: Option<String>,
    /// Other keys this stage accepts (`tune`'s `metric`, a name or a call
    /// such as `recall_at_precision(p=0.9)`).
    metric: Option<Call>,
    with_metric: bool,
}

const CELLS: [&str; 4] = ["fn", "fp", "tp", "tn"];

impl Params for LossParams {
    fn table(&self) -> Vec<ParamInfo> {
        let mut t: Vec<ParamInfo> = Vec::new();
        if self.with_metric {
            t.push(info(
                "metric",
                "a tunable metric or cost",
                "f1",
                "The metric the threshold maximises (cost: minimised under the loss below).",
            ));
        }
        let docs = [
            "Loss of a missed positive (false negative).",
            "Loss of a false alarm (false positive).",
            "Loss of a caught positive.",
            "Loss of a correct rejection.",
        ];
        for (k, d) in CELLS.iter().zip(docs) {
            t.push(info(
                k,
                "a number",
                if k.starts_with('t') { "0" } else { "1" },
                d,
            ));
        }
        if !self.with_metric {
            t.push(info(
                "matrix",
                "rows of numbers, e.g. '0,1;5,0'",
                "none",
                "The whole loss matrix: row = decided class, column = true class.",
            ));
        }
        t
    }

    fn set(&mut self, key: &str, value: &Value) -> std::result::Result<bool, String> {
        if let Some(i) = CELLS.iter().position(|c| *c == key) {
            match value {
                Value::Number(x) => self.cells[i] = Some(*x),
                _ => return Err("expected a number".into()),
            }
            return Ok(true);
        }
        match (key, value) {
            ("matrix", Value::Text(t)) if !self.with_metric => self.matrix = Some(t.clone()),
            ("matrix", _) if !self.with_metric => {
                return Err("expected a quoted matrix such as '0,1;5,0'".into())
            }
            ("metric", v) if self.with_metric => match v {
                Value::Call(c) => self.metric = Some(c.clone()),
                _ => {
                    return Err("expected a metric such as f1 or recall_at_precision(p=0.9)".into())
                }
            },
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn check(&self) -> Result<()> {
        Ok(())
    }
}

impl LossParams {
    /// The loss matrix given, or `None` when no cell and no matrix was.
    fn loss(&self, call: &Call) -> Result<Option<LossMatrix>> {
        if let Some(t) = &self.matrix {
            let rows: Vec<Vec<f64>> = t
                .split(';')
                .map(|r| r.split(',').map(|v| v.trim().parse::<f64>()).collect())
                .collect::<std::result::Result<_, _>>()
                .map_err(|_| {
                    Error::invalid(format!(
                        "{call}: matrix must be rows of numbers, e.g. matrix='0,1,1;5,0,1;5,5,0' \
                         (row = decided class, column = true class)"
                    ))
                })?;
            return LossMatrix::new(rows).map(Some);
        }
        let [fn_, fp, tp, tn] = self.cells;
        if fn_.is_none() && fp.is_none() {
            return Ok(None);
        }
        LossMatrix::binary(
            tn.unwrap_or(0.0),
            fp.unwrap_or(1.0),
            fn_.unwrap_or(1.0),
            tp.unwrap_or(0.0),
        )
        .map(Some)
    }
}

fn info(name: &'static str, expected: &str, default: &str, doc: &str) -> ParamInfo {
    ParamInfo {
        name,
        expected: expected.to_string(),
        default: default.to_string(),
        doc: doc.to_string(),
    }
}

fn no_params(call: &Call) -> Result<()> {
    from_call::<NoParams>(call).map(|_| ())
}

fn calibration(call: &Call, method: CalibrationMethod) -> Result<Stage> {
    let p: CalibrationParams = from_call(call)?;
    Ok(Stage::Calibrate(Calibration {
        method,
        folds: p.folds,
        ensemble: p.ensemble,
    }))
}

fn positional_numbers(c: &Call) -> Result<Vec<f64>> {
    c.args
        .iter()
        .map(|(k, v)| match (k, v) {
            (None, Value::Number(x)) => Ok(*x),
            _ => Err(Error::invalid(format!(
                "{c}: expected plain numbers, e.g. {}(0.5, 0.3, 0.2)",
                c.name
            ))),
        })
        .collect()
}

fn threshold(c: &Call) -> Result<Stage> {
    let d = match c.args.as_slice() {
        [(None, Value::Number(t))] if (0.0..=1.0).contains(t) => {
            Decision::Rule(Rule::Threshold(*t))
        }
        [(None, v)] if v.word() == Some("priors") => Decision::Priors,
        [(None, v)] if v.word() == Some("f1") => Decision::F1,
        _ => {
            return Err(Error::invalid(format!(
                "{c}: expected threshold(T) with T in [0, 1], threshold(priors) or threshold(f1)"
            )))
        }
    };
    Ok(Stage::Decide(d))
}

fn lambda(c: &Call) -> Result<Stage> {
    let l = positional_numbers(c)?;
    if l.len() < 2 || l.iter().any(|v| *v <= 0.0) {
        return Err(Error::invalid(format!(
            "{c}: expected one positive threshold per class, e.g. lambda(0.5, 0.3, 0.2)"
        )));
    }
    Ok(Stage::Decide(Decision::Rule(Rule::Lambda(l))))
}

fn priors(c: &Call) -> Result<Stage> {
    let p = positional_numbers(c)?;
    if p.len() < 2 || p.iter().any(|v| !(*v > 0.0 && v.is_finite())) {
        return Err(Error::invalid(format!(
            "{c}: expected one positive prior per class, in class order, e.g. priors(0.99, 0.01)"
        )));
    }
    let total: f64 = p.iter().sum();
    Ok(Stage::Shift(PriorShift::To(
        p.iter().map(|v| v / total).collect(),
    )))
}

fn cost(c: &Call) -> Result<Stage> {
    let p = apply(c, LossParams::default())?;
    let m = p.loss(c)?.ok_or_else(|| {
        Error::invalid(format!(
            "{}: give the costs, e.g. fn=10,fp=1 (tp=0 and tn=0 by default)",
            c.name
        ))
    })?;
    Ok(Stage::Decide(Decision::Rule(Rule::Cost(m))))
}

fn benefit(c: &Call) -> Result<Stage> {
    let p: BenefitParams = from_call(c)?;
    if p.amount.is_empty() {
        return Err(Error::invalid(format!(
            "{c}: expected benefit(amount=COLUMN, overhead=V)"
        )));
    }
    let overhead = p
        .overhead
        .ok_or_else(|| Error::invalid(format!("{c}: overhead=V is required (e.g. 90)")))?;
    Ok(Stage::Decide(Decision::Rule(Rule::Benefit(Benefit {
        amount: p.amount,
        overhead,
    }))))
}

fn tune(c: &Call) -> Result<Stage> {
    let p = apply(
        c,
        LossParams {
            with_metric: true,
            ..LossParams::default()
        },
    )?;
    let metric = p.metric.clone().unwrap_or_else(|| Call::bare("f1"));
    let objective = match metric.name.as_str() {
        "cost" => Objective::Cost(p.loss(c)?.ok_or_else(|| {
            Error::invalid(format!(
                "{}: give the costs, e.g. fn=10,fp=1 (tp=0 and tn=0 by default)",
                c.name
            ))
        })?),
        _ => metric_of_call(&metric)
            .and_then(Objective::of)
            .map_err(|e| Error::invalid(format!("{c}: {e}")))?,
    };
    Ok(Stage::Decide(Decision::Tune(objective)))
}

fn positional_table(expected: &str, doc: &str) -> Vec<ParamInfo> {
    vec![info("(value)", expected, "-", doc)]
}

/// Every stage other than the sampler and the learner: `impute` and
/// `encode` come first, the others follow the learner.
pub const STAGES: &[Entry<Stage>] = &[
    Entry {
        name: "impute",
        python: None,
        summary: "first stage: each missing value replaced by a statistic of the training rows (median, mean, most frequent, or a constant; a categorical column its most frequent level), fitted before the sampler, with a 0/1 missing(<col>) feature per column missing a training value when indicator=true (issue 52)",
        params: || ImputeParams::default().table(),
        build: impute,
    },
    Entry {
        name: "encode",
        python: None,
        summary: "first stage: each categorical column replaced by its cross-fitted, shrunk p(class | level), one column <col>=p(<class>) per class beyond the first, rows weighted by 1 / keep rate when the strategy samples (Micci-Barreca 2001; issue 41)",
        params: || {
            let mut t = positional_table("target", "The encoding: target statistics.");
            t.extend(EncodeParams::default().table());
            t
        },
        build: encode,
    },
    Entry {
        name: "correct",
        python: None,
        summary: "undo the prior shift of all sampling from the keep rates (Dal Pozzolo et al. 2015, eq. 9)",
        params: || CorrectParams::default().table(),
        build: |c| Ok(Stage::Correct(from_call::<CorrectParams>(c)?.mode)),
    },
    Entry {
        name: "platt",
        python: None,
        summary: "Platt scaling on stratified out-of-fold probabilities",
        params: || CalibrationParams::default().table(),
        build: |c| calibration(c, CalibrationMethod::Platt),
    },
    Entry {
        name: "isotonic",
        python: None,
        summary: "isotonic regression on stratified out-of-fold probabilities",
        params: || CalibrationParams::default().table(),
        build: |c| calibration(c, CalibrationMethod::Isotonic),
    },
    Entry {
        name: "priors",
        python: None,
        summary: "move the probabilities to known target priors, in class order (Saerens et al. 2002; Dal Pozzolo et al. 2015, eq. 14); a decision that follows uses them",
        params: || positional_table("one positive number per class (scaled to sum to 1)", "The target priors."),
        build: priors,
    },
    Entry {
        name: "em",
        python: None,
        summary: "move the probabilities to the priors Saerens' EM estimates on the rows being predicted (Saerens et al. 2002); threshold(priors) / threshold(f1) that follow use them",
        params: || EmParams::default().table(),
        build: |c| {
            let p: EmParams = from_call(c)?;
            Ok(Stage::Shift(PriorShift::Em {
                tol: p.tol,
                max_iter: p.max_iter,
            }))
        },
    },
    Entry {
        name: "argmax",
        python: None,
        summary: "the most probable class",
        params: Vec::new,
        build: |c| no_params(c).map(|_| Stage::Decide(Decision::Rule(Rule::Argmax))),
    },
    Entry {
        name: "threshold",
        python: None,
        summary: "binary: positive iff p >= T; threshold(priors) = PT_MA (tau = pi+), threshold(f1) = PT_F1",
        params: || positional_table("T in [0, 1], priors or f1", "The threshold."),
        build: threshold,
    },
    Entry {
        name: "lambda",
        python: None,
        summary: "per-class thresholds: predict argmax p_k / lambda_k",
        params: || positional_table("one positive number per class", "The thresholds."),
        build: lambda,
    },
    Entry {
        name: "cost",
        python: None,
        summary: "Bayes minimum risk under a loss matrix (Dal Pozzolo et al. 2015, Sec. IV-A)",
        params: || LossParams::default().table(),
        build: cost,
    },
    Entry {
        name: "benefit",
        python: None,
        summary: "example-dependent benefit: positive iff p * amount > overhead (Fan & Davidson 2006, Sec. 6)",
        params: || BenefitParams::default().table(),
        build: benefit,
    },
    Entry {
        name: "roc-closest",
        python: None,
        summary: "the ROC point closest to (0, 1) on out-of-fold probabilities",
        params: Vec::new,
        build: |c| no_params(c).map(|_| Stage::Decide(Decision::RocClosest)),
    },
    Entry {
        name: "tune",
        python: None,
        summary: "the threshold (binary) or lambdas (multiclass) maximising a metric on out-of-fold probabilities",
        params: || {
            LossParams {
                with_metric: true,
                ..LossParams::default()
            }
            .table()
        },
        build: tune,
    },
];

/// The stage `call` names (`roc_closest` is read as `roc-closest`).
pub fn build_stage(call: &Call) -> Result<Stage> {
    let name = if call.name == "roc_closest" {
        "roc-closest"
    } else {
        call.name.as_str()
    };
    let entry = crate::params::find(STAGES, name, "stage")?;
    (entry.build)(call)
}

/// The decision a `cost(...)` / `tune(...)` call's arguments describe, as
/// `--cost fn=5,fp=1` gives them: the loss matrix.
pub fn loss_matrix(call: &Call) -> Result<LossMatrix> {
    match cost(call)? {
        Stage::Decide(Decision::Rule(Rule::Cost(m))) => Ok(m),
        _ => Err(Error::invalid(format!("{call}: expected a loss matrix"))),
    }
}
