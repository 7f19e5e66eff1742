//! Model specs: the small language the CLI uses to name a model.
//!
//! The grammar is that of [`crate::params::syntax`] (calls joined by `+`,
//! keyword or positional arguments, lists such as `rates=[0.5, 1]`), e.g.
//! `bagging(n=100, learner=tree(criterion=entropy), sample=bootstrap)`.
//! [`parse`] gives the syntax tree; [`build_learner`] turns a one-stage spec
//! into a [`Learner`]. Unknown names and bad values fail with a message that
//! lists what is accepted. Later stages (`+correct`, `+threshold(priors)`) and
//! new learners extend [`learner_from_call`]; samplers are read by the
//! sampler registry ([`crate::sample::build_sampler`]).

use std::sync::Arc;

use crate::calibrate;
use crate::decide::tune::Objective;
use crate::ensemble::{Bagging, Vote};
use crate::error::{Error, Result};
use crate::learn::adaboost::{AdaBoost, Cost, Variant};
use crate::learn::discriminant::{Lda, Priors, Qda};
use crate::learn::knn::{Knn, Weighting};
use crate::learn::logistic::Logistic;
use crate::learn::logitboost::LogitBoost;
use crate::learn::naive_bayes::{BinnedNb, GaussianNb};
use crate::learn::svdd::{Normal, Svdd};
use crate::learn::svm::{Gamma, KernelKind, Svm};
use crate::learn::tree::{Criterion, LeafEstimate, MaxFeatures, RandomTree, Splitter, Tree};
use crate::learn::{ClassWeight, Learner};
use crate::metrics::cost::LossMatrix;
use crate::params::syntax;
pub use crate::params::syntax::{Call, Value};
use crate::sample::bootstrap::Bootstrap;
use crate::sample::registry::{build_sampler, is_sampler};
use crate::strategy::{Calibration, Correct, Decision, Strategy};

/// A parsed spec: one or more stages joined by `+`.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// The stages, in order.
    pub stages: Vec<Call>,
}

/// Parses a spec (the grammar of [`crate::params::syntax`]).
///
/// ```
/// use rarity::spec::{parse, Value};
/// let s = parse("bagging(n=100, learner=tree(max_depth=3)) + correct").unwrap();
/// assert_eq!(s.stages.len(), 2);
/// assert_eq!(s.stages[0].args[0], (Some("n".to_string()), Value::Number(100.0)));
/// assert!(parse("tree(max_depth=)").is_err());
/// ```
pub fn parse(s: &str) -> Result<Spec> {
    Ok(Spec {
        stages: syntax::parse(s)?,
    })
}

/// The learners a spec may name.
pub const LEARNERS: &[&str] = &[
    "tree",
    "forest",
    "bagging",
    "rdt",
    "random_tree",
    "logistic",
    "gnb",
    "nb-binned",
    "svm",
    "lda",
    "qda",
    "knn",
    "adaboost",
    "adac2",
    "logitboost",
    "svdd",
    "pt-bagging",
    "eb-bagging",
    "rb-bagging",
    "smote-bagging",
    "underover-bagging",
    "under-bagging",
    "balanced-forest",
    "easy-ensemble",
    "rus-boost",
];
/// Builds the learner of a one-stage spec.
///
/// ```
/// let l = rarity::spec::build_learner("forest(n=10, max_depth=4)").unwrap();
/// assert_eq!(l.name(), "bagging(n=10,learner=tree(criterion=gini,max_depth=4,max_features=sqrt),sample=bootstrap)");
/// let e = rarity::spec::build_learner("tree(depth=3)").unwrap_err().to_string();
/// assert!(e.contains("max_depth"), "{e}");
/// ```
pub fn build_learner(spec: &str) -> Result<Arc<dyn Learner>> {
    let s = parse(spec)?;
    if let Some(extra) = s.stages.get(1) {
        return Err(Error::invalid(format!(
            "spec '{spec}': stage '{}' is not available; a spec is one learner ({})",
            extra.name,
            LEARNERS.join(", ")
        )));
    }
    learner_from_call(&s.stages[0])
}

/// Keyword arguments being consumed, with the accepted names for messages.
struct Args<'a> {
    call: &'a Call,
}

impl<'a> Args<'a> {
    fn new(call: &'a Call, accepted: &[&str]) -> Result<Self> {
        for (i, (k, v)) in call.args.iter().enumerate() {
            let Some(k) = k else {
                return Err(Error::invalid(format!(
                    "{}: argument {v} needs a name (write name=value); accepted: {}",
                    call.name,
                    accepted.join(", ")
                )));
            };
            if !accepted.contains(&k.as_str()) {
                return Err(Error::invalid(format!(
                    "{}: unknown argument '{k}'; accepted: {}",
                    call.name,
                    if accepted.is_empty() {
                        "none".to_string()
                    } else {
                        accepted.join(", ")
                    }
                )));
            }
            if call.args[..i].iter().any(|(p, _)| p.as_ref() == Some(k)) {
                return Err(Error::invalid(format!("{}: '{k}' given twice", call.name)));
            }
        }
        Ok(Args { call })
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.call
            .args
            .iter()
            .find(|(k, _)| k.as_deref() == Some(key))
            .map(|(_, v)| v)
    }

    fn bad(&self, key: &str, v: &Value, want: &str) -> Error {
        Error::invalid(format!(
            "{}: {key}={v} is invalid; expected {want}",
            self.call.name
        ))
    }

    fn count(&self, key: &str, min: usize) -> Result<Option<usize>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Number(x)) if x.fract() == 0.0 && *x >= min as f64 && *x < 1e15 => {
                Ok(Some(*x as usize))
            }
            Some(v) => Err(self.bad(key, v, &format!("a whole number >= {min}"))),
        }
    }

    fn number(&self, key: &str) -> Result<Option<f64>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Number(x)) => Ok(Some(*x)),
            Some(v) => Err(self.bad(key, v, "a number")),
        }
    }

    /// A bare name among `choices`.
    fn word(&self, key: &str, choices: &[&str]) -> Result<Option<&'a str>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Call(c)) if c.args.is_empty() && choices.contains(&c.name.as_str()) => {
                Ok(Some(c.name.as_str()))
            }
            Some(v) => Err(self.bad(key, v, &format!("one of {}", choices.join(", ")))),
        }
    }

    fn call(&self, key: &str) -> Result<Option<&'a Call>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Call(c)) => Ok(Some(c)),
            Some(v) => Err(self.bad(key, v, "a name such as tree or bootstrap")),
        }
    }
}

const TREE_ARGS: &[&str] = &[
    "criterion",
    "max_depth",
    "min_samples_split",
    "min_samples_leaf",
    "max_features",
    "leaf",
    "splitter",
];

fn tree_from(a: &Args<'_>, mut t: Tree) -> Result<Tree> {
    if let Some(c) = a.word("criterion", &["gini", "entropy", "gain_ratio"])? {
        t.criterion = match c {
            "gini" => Criterion::Gini,
            "entropy" => Criterion::Entropy,
            _ => Criterion::GainRatio,
        };
    }
    t.max_depth = depth(a, t.max_depth)?;
    t.min_samples_split = a
        .count("min_samples_split", 2)?
        .unwrap_or(t.min_samples_split);
    t.min_samples_leaf = a
        .count("min_samples_leaf", 1)?
        .unwrap_or(t.min_samples_leaf);
    if let Some(v) = a.get("max_features") {
        let want = "none, sqrt, log2, a whole number >= 1 or a fraction in (0, 1)";
        t.max_features = match v {
            Value::Call(c) if c.args.is_empty() => match c.name.as_str() {
                "none" | "all" => MaxFeatures::All,
                "sqrt" => MaxFeatures::Sqrt,
                "log2" => MaxFeatures::Log2,
                _ => return Err(a.bad("max_features", v, want)),
            },
            Value::Number(x) if *x >= 1.0 && x.fract() == 0.0 => MaxFeatures::Count(*x as usize),
            Value::Number(x) if *x > 0.0 && *x < 1.0 => MaxFeatures::Fraction(*x),
            _ => return Err(a.bad("max_features", v, want)),
        };
    }
    t.leaf = leaf(a, t.leaf)?;
    if let Some(v) = a.word("splitter", &["exact", "hist"])? {
        t.splitter = match v {
            "exact" => Splitter::Exact,
            _ => Splitter::Hist,
        };
    }
    t.check()?;
    Ok(t)
}

fn depth(a: &Args<'_>, default: Option<usize>) -> Result<Option<usize>> {
    match a.get("max_depth") {
        Some(Value::Call(c)) if c.name == "none" && c.args.is_empty() => Ok(None),
        Some(Value::Number(_)) => a.count("max_depth", 1),
        Some(v) => Err(a.bad("max_depth", v, "a whole number >= 1 or none")),
        None => Ok(default),
    }
}

fn leaf(a: &Args<'_>, default: LeafEstimate) -> Result<LeafEstimate> {
    let want = "frequency, laplace or m_estimate(m=NUMBER)";
    match a.get("leaf") {
        None => Ok(default),
        Some(v @ Value::Call(c)) => match c.name.as_str() {
            "frequency" if c.args.is_empty() => Ok(LeafEstimate::Frequency),
            "laplace" if c.args.is_empty() => Ok(LeafEstimate::Laplace),
            "m_estimate" => {
                let m = Args::new(c, &["m"])?;
                match m.number("m")?.unwrap_or(2.0) {
                    x if x >= 0.0 => Ok(LeafEstimate::MEstimate(x)),
                    _ => Err(a.bad("leaf", v, want)),
                }
            }
            _ => Err(a.bad("leaf", v, want)),
        },
        Some(v) => Err(a.bad("leaf", v, want)),
    }
}

fn vote(a: &Args<'_>) -> Result<Vote> {
    Ok(match a.word("vote", &["soft", "hard"])? {
        Some("hard") => Vote::Hard,
        _ => Vote::Soft,
    })
}

/// Builds a learner from a call such as `tree(max_depth=3)`.
pub fn learner_from_call(c: &Call) -> Result<Arc<dyn Learner>> {
    if let Some(ensemble) = presets::ensemble_from_call(c) {
        return ensemble;
    }
    match c.name.as_str() {
        "tree" => {
            let a = Args::new(c, TREE_ARGS)?;
            Ok(Arc::new(tree_from(&a, Tree::default())?))
        }
        "random_tree" => {
            let a = Args::new(c, &["max_depth", "min_samples_split", "leaf"])?;
            Ok(Arc::new(random_tree(&a)?))
        }
        "forest" => {
            let mut accepted = vec!["n", "sample", "vote"];
            accepted.extend_from_slice(TREE_ARGS);
            let a = Args::new(c, &accepted)?;
            let mut b = Bagging::forest(a.count("n", 1)?.unwrap_or(100));
            let base = Tree {
                max_features: MaxFeatures::Sqrt,
                ..Tree::default()
            };
            b.learner = Arc::new(tree_from(&a, base)?);
            if let Some(s) = a.call("sample")? {
                b.sampler = build_sampler(s)?;
            }
            b.vote = vote(&a)?;
            Ok(Arc::new(b))
        }
        "bagging" => {
            let a = Args::new(c, &["n", "learner", "sample", "vote"])?;
            let learner = match a.call("learner")? {
                Some(l) => learner_from_call(l)?,
                None => Arc::new(Tree::default()),
            };
            let sampler = match a.call("sample")? {
                Some(s) => build_sampler(s)?,
                None => Arc::new(Bootstrap::default()),
            };
            let mut b = Bagging::new(a.count("n", 1)?.unwrap_or(100), learner, sampler);
            b.vote = vote(&a)?;
            Ok(Arc::new(b))
        }
        "rdt" => {
            let a = Args::new(c, &["n", "max_depth", "min_samples_split", "leaf", "vote"])?;
            let mut b = Bagging::rdt(a.count("n", 1)?.unwrap_or(10));
            b.learner = Arc::new(random_tree(&a)?);
            b.vote = vote(&a)?;
            Ok(Arc::new(b))
        }
        "logistic" => {
            let a = Args::new(c, &["c", "class_weight", "tol", "max_iter"])?;
            let d = Logistic::default();
            Ok(Arc::new(Logistic {
                c: positive(&a, "c")?.unwrap_or(d.c),
                class_weight: class_weight(&a)?,
                tol: positive(&a, "tol")?.unwrap_or(d.tol),
                max_iter: a.count("max_iter", 1)?.unwrap_or(d.max_iter),
            }))
        }
        "gnb" => {
            let a = Args::new(c, &["var_smoothing"])?;
            Ok(Arc::new(GaussianNb {
                var_smoothing: positive(&a, "var_smoothing")?
                    .unwrap_or(GaussianNb::default().var_smoothing),
            }))
        }
        "nb-binned" => {
            let a = Args::new(c, &["bins"])?;
            Ok(Arc::new(BinnedNb {
                bins: a.count("bins", 1)?.unwrap_or(10),
            }))
        }
        "svm" => {
            let a = Args::new(
                c,
                &[
                    "kernel",
                    "c",
                    "gamma",
                    "class_weight",
                    "tol",
                    "cache_mb",
                    "folds",
                ],
            )?;
            let d = Svm::default();
            let kernel = match a.word("kernel", &["linear", "rbf"])? {
                Some("linear") => KernelKind::Linear,
                _ => KernelKind::Rbf,
            };
            Ok(Arc::new(Svm {
                kernel,
                c: positive(&a, "c")?.unwrap_or(d.c),
                gamma: gamma(&a)?.unwrap_or(d.gamma),
                class_weight: class_weight(&a)?,
                tol: positive(&a, "tol")?.unwrap_or(d.tol),
                cache_mb: positive(&a, "cache_mb")?.unwrap_or(d.cache_mb),
                folds: a.count("folds", 2)?.unwrap_or(d.folds),
            }))
        }
        "lda" => {
            let a = Args::new(c, &["priors"])?;
            Ok(Arc::new(Lda {
                priors: priors(&a)?,
            }))
        }
        "qda" => {
            let a = Args::new(c, &["priors", "reg"])?;
            let reg = match a.number("reg")? {
                Some(r) if (0.0..=1.0).contains(&r) => r,
                Some(r) => return Err(a.bad("reg", &Value::Number(r), "a number in [0, 1]")),
                None => 0.0,
            };
            Ok(Arc::new(Qda {
                priors: priors(&a)?,
                reg,
            }))
        }
        "knn" => {
            let a = Args::new(c, &["k", "weights"])?;
            Ok(Arc::new(Knn {
                k: a.count("k", 1)?.unwrap_or(5),
                weights: match a.word("weights", &["uniform", "distance"])? {
                    Some("distance") => Weighting::Distance,
                    _ => Weighting::Uniform,
                },
            }))
        }
        "adaboost" => {
            let a = Args::new(c, &["n", "depth"])?;
            Ok(Arc::new(AdaBoost {
                n: a.count("n", 1)?.unwrap_or(50),
                depth: a.count("depth", 1)?.unwrap_or(1),
                variant: Variant::M1,
                undersample: false,
            }))
        }
        "adac2" => {
            let a = Args::new(c, &["n", "depth", "cost_pos", "cost_neg"])?;
            let cost_pos = match a.get("cost_pos") {
                None => Cost::Value(1.0),
                Some(Value::Call(b)) if b.name == "balanced" && b.args.is_empty() => Cost::Balanced,
                Some(_) => Cost::Value(positive(&a, "cost_pos")?.unwrap_or(1.0)),
            };
            Ok(Arc::new(AdaBoost {
                n: a.count("n", 1)?.unwrap_or(50),
                depth: a.count("depth", 1)?.unwrap_or(1),
                variant: Variant::AdaC2 {
                    cost_pos,
                    cost_neg: positive(&a, "cost_neg")?.unwrap_or(0.5),
                },
                undersample: false,
            }))
        }
        "logitboost" => {
            let a = Args::new(c, &["n"])?;
            Ok(Arc::new(LogitBoost {
                n: a.count("n", 1)?.unwrap_or(100),
            }))
        }
        "svdd" => {
            let a = Args::new(c, &["nu", "kernel", "gamma", "normal", "tol", "cache_mb"])?;
            let d = Svdd::default();
            let nu = match a.number("nu")? {
                Some(x) if x > 0.0 && x <= 1.0 => x,
                Some(x) => return Err(a.bad("nu", &Value::Number(x), "a number in (0, 1]")),
                None => d.nu,
            };
            let normal = match a.get("normal") {
                None => Normal::Majority,
                Some(Value::Call(m)) if m.name == "majority" && m.args.is_empty() => {
                    Normal::Majority
                }
                Some(_) => Normal::Class(a.count("normal", 0)?.unwrap_or(0)),
            };
            Ok(Arc::new(Svdd {
                nu,
                kernel: match a.word("kernel", &["linear", "rbf"])? {
                    Some("linear") => KernelKind::Linear,
                    _ => KernelKind::Rbf,
                },
                gamma: gamma(&a)?.unwrap_or(d.gamma),
                normal,
                tol: positive(&a, "tol")?.unwrap_or(d.tol),
                cache_mb: positive(&a, "cache_mb")?.unwrap_or(d.cache_mb),
            }))
        }
        other => Err(Error::invalid(format!(
            "unknown learner '{other}'; accepted: {}",
            LEARNERS.join(", ")
        ))),
    }
}

/// A list of numbers written `given(v0, v1, ...)`, each `>= 0`.
fn given(a: &Args<'_>, key: &str, v: &Value, c: &Call, want: &str) -> Result<Vec<f64>> {
    if c.args.is_empty() {
        return Err(a.bad(key, v, want));
    }
    c.args
        .iter()
        .map(|(k, x)| match (k, x) {
            (None, Value::Number(x)) if *x >= 0.0 => Ok(*x),
            _ => Err(a.bad(key, v, want)),
        })
        .collect()
}

/// `priors=train|balanced|given(p0, p1, ...)`.
fn priors(a: &Args<'_>) -> Result<Priors> {
    let want = "train, balanced or given(p0, p1, ...) with one prior >= 0 per class";
    match a.get("priors") {
        None => Ok(Priors::Train),
        Some(v @ Value::Call(c)) => match c.name.as_str() {
            "train" if c.args.is_empty() => Ok(Priors::Train),
            "balanced" if c.args.is_empty() => Ok(Priors::Balanced),
            "given" => given(a, "priors", v, c, want).map(Priors::Given),
            _ => Err(a.bad("priors", v, want)),
        },
        Some(v) => Err(a.bad("priors", v, want)),
    }
}

/// `gamma=scale|auto|NUMBER`.
fn gamma(a: &Args<'_>) -> Result<Option<Gamma>> {
    match a.get("gamma") {
        None => Ok(None),
        Some(Value::Call(c)) if c.args.is_empty() && c.name == "scale" => Ok(Some(Gamma::Scale)),
        Some(Value::Call(c)) if c.args.is_empty() && c.name == "auto" => Ok(Some(Gamma::Auto)),
        Some(Value::Number(x)) if *x > 0.0 => Ok(Some(Gamma::Value(*x))),
        Some(v) => Err(a.bad("gamma", v, "scale, auto or a positive number")),
    }
}

/// A positive finite number.
fn positive(a: &Args<'_>, key: &str) -> Result<Option<f64>> {
    match a.number(key)? {
        Some(x) if x > 0.0 && x.is_finite() => Ok(Some(x)),
        Some(x) => Err(a.bad(key, &Value::Number(x), "a positive number")),
        None => Ok(None),
    }
}

/// `class_weight=none|balanced|given(w0, w1, ...)`.
fn class_weight(a: &Args<'_>) -> Result<ClassWeight> {
    let want = "none, balanced or given(w0, w1, ...) with one weight >= 0 per class";
    match a.get("class_weight") {
        None => Ok(ClassWeight::None),
        Some(v @ Value::Call(c)) => match c.name.as_str() {
            "none" if c.args.is_empty() => Ok(ClassWeight::None),
            "balanced" if c.args.is_empty() => Ok(ClassWeight::Balanced),
            "given" => given(a, "class_weight", v, c, want).map(ClassWeight::Given),
            _ => Err(a.bad("class_weight", v, want)),
        },
        Some(v) => Err(a.bad("class_weight", v, want)),
    }
}

fn random_tree(a: &Args<'_>) -> Result<RandomTree> {
    let d = RandomTree::default();
    Ok(RandomTree {
        max_depth: depth(a, d.max_depth)?,
        min_samples_split: a
            .count("min_samples_split", 2)?
            .unwrap_or(d.min_samples_split),
        leaf: leaf(a, d.leaf)?,
    })
}

pub mod presets;
#[cfg(test)]
mod tests;

/// The stages that may follow the learner in a strategy spec.
pub const STAGES: &[&str] = &[
    "correct",
    "platt",
    "isotonic",
    "argmax",
    "threshold",
    "lambda",
    "cost",
    "benefit",
    "roc-closest",
    "tune",
];

/// Builds a strategy: `[sampler +] learner [+ correct] [+ platt|isotonic]
/// [+ decision]`, e.g. `under(beta=0.1)+forest(n=100)+correct+threshold(priors)`.
///
/// Decisions: `argmax` (default), `threshold(0.3)`, `threshold(priors)`
/// (PT_MA), `threshold(f1)` (PT_F1), `lambda(0.5,0.3,0.2)`,
/// `cost(fn=10,fp=1[,tp=0,tn=0])` or `cost(matrix='0,1;5,0')`,
/// `benefit(amount=COLUMN,overhead=V)`, `roc-closest`,
/// `tune(metric=f1|g_mean|macro_accuracy|macro_f1|accuracy|cost[,fn=..,fp=..])`.
///
/// ```
/// let s = rarity::spec::build_strategy("under(beta=0.1)+forest(n=10)+correct+threshold(priors)").unwrap();
/// assert!(s.correct.is_some() && s.sampler.is_some());
/// let e = rarity::spec::build_strategy("forest(n=10)+treshold(0.5)").unwrap_err().to_string();
/// assert!(e.contains("treshold") && e.contains("threshold"), "{e}");
/// ```
pub fn build_strategy(spec: &str) -> Result<Strategy> {
    let parsed = parse(spec)?;
    let mut stages = parsed.stages.iter();
    let first = stages.next().expect("a parsed spec has a stage");
    let (sampler, learner_call) = if is_sampler(&first.name) {
        let next = stages.next().ok_or_else(|| {
            Error::invalid(format!(
                "spec '{spec}': the sampler '{}' must be followed by a learner ({})",
                first.name,
                LEARNERS.join(", ")
            ))
        })?;
        (Some(build_sampler(first)?), next)
    } else {
        (None, first)
    };
    let mut strategy = Strategy {
        spec: spec.trim().to_string(),
        sampler,
        learner: learner_from_call(learner_call)?,
        correct: None,
        calibration: None,
        decision: presets::default_decision(&learner_call.name),
    };
    let mut decided = false;
    for c in stages {
        if decided {
            return Err(Error::invalid(format!(
                "spec '{spec}': '{}' comes after the decision; the decision must be the last stage",
                c.name
            )));
        }
        match c.name.as_str() {
            "correct" => {
                let a = Args::new(c, &["mode"])?;
                strategy.correct = Some(match a.word("mode", &["member", "average"])? {
                    Some("average") => Correct::Average,
                    _ => Correct::Member,
                });
            }
            "platt" | "isotonic" => {
                let a = Args::new(c, &["folds", "ensemble"])?;
                let calibration = Calibration {
                    method: if c.name == "platt" {
                        calibrate::Method::Platt
                    } else {
                        calibrate::Method::Isotonic
                    },
                    folds: a.count("folds", 2)?.unwrap_or(3),
                    ensemble: a.word("ensemble", &["true", "false"])? == Some("true"),
                };
                if strategy.calibration.replace(calibration).is_some() {
                    return Err(Error::invalid(format!(
                        "spec '{spec}': two calibration stages"
                    )));
                }
            }
            _ => {
                strategy.decision = decision_from_call(c)?;
                decided = true;
            }
        }
    }
    Ok(strategy)
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

fn objective_from(a: &Args<'_>, key: &str) -> Result<Objective> {
    let names = [
        "f1",
        "g_mean",
        "macro_accuracy",
        "macro_f1",
        "accuracy",
        "cost",
    ];
    Ok(match a.word(key, &names)?.unwrap_or("f1") {
        "f1" => Objective::F1,
        "g_mean" => Objective::GMean,
        "macro_accuracy" => Objective::MacroAccuracy,
        "macro_f1" => Objective::MacroF1,
        "accuracy" => Objective::Accuracy,
        _ => Objective::Cost(binary_costs(a)?),
    })
}

fn binary_costs(a: &Args<'_>) -> Result<LossMatrix> {
    let fn_ = a.number("fn")?;
    let fp = a.number("fp")?;
    if fn_.is_none() && fp.is_none() {
        return Err(Error::invalid(format!(
            "{}: give the costs, e.g. fn=10,fp=1 (tp=0 and tn=0 by default)",
            a.call.name
        )));
    }
    LossMatrix::binary(
        a.number("tn")?.unwrap_or(0.0),
        fp.unwrap_or(1.0),
        fn_.unwrap_or(1.0),
        a.number("tp")?.unwrap_or(0.0),
    )
}

/// Builds a decision stage.
pub fn decision_from_call(c: &Call) -> Result<Decision> {
    Ok(match c.name.as_str() {
        "argmax" => {
            Args::new(c, &[])?;
            Decision::Argmax
        }
        "threshold" => match c.args.as_slice() {
            [(None, Value::Number(t))] if (0.0..=1.0).contains(t) => Decision::Fixed(*t),
            [(None, Value::Call(w))] if w.args.is_empty() && w.name == "priors" => Decision::Priors,
            [(None, Value::Call(w))] if w.args.is_empty() && w.name == "f1" => Decision::F1,
            _ => {
                return Err(Error::invalid(format!(
                "{c}: expected threshold(T) with T in [0, 1], threshold(priors) or threshold(f1)"
            )))
            }
        },
        "lambda" => {
            let l = positional_numbers(c)?;
            if l.len() < 2 || l.iter().any(|v| *v <= 0.0) {
                return Err(Error::invalid(format!(
                    "{c}: expected one positive threshold per class, e.g. lambda(0.5, 0.3, 0.2)"
                )));
            }
            Decision::Lambda(l)
        }
        "cost" => {
            let a = Args::new(c, &["fn", "fp", "tp", "tn", "matrix"])?;
            match a.get("matrix") {
                Some(Value::Text(t)) => {
                    let rows: Vec<Vec<f64>> = t
                        .split(';')
                        .map(|r| r.split(',').map(|v| v.trim().parse::<f64>()).collect())
                        .collect::<std::result::Result<_, _>>()
                        .map_err(|_| {
                            Error::invalid(format!(
                                "{c}: matrix must be rows of numbers, e.g. matrix='0,1,1;5,0,1;5,5,0' \
                                 (row = decided class, column = true class)"
                            ))
                        })?;
                    Decision::Cost(LossMatrix::new(rows)?)
                }
                Some(v) => return Err(a.bad("matrix", v, "a quoted matrix such as '0,1;5,0'")),
                None => Decision::Cost(binary_costs(&a)?),
            }
        }
        "benefit" => {
            let a = Args::new(c, &["amount", "overhead"])?;
            let amount = match a.get("amount") {
                Some(Value::Call(n)) if n.args.is_empty() => n.name.clone(),
                Some(Value::Text(t)) => t.clone(),
                _ => {
                    return Err(Error::invalid(format!(
                        "{c}: expected benefit(amount=COLUMN, overhead=V)"
                    )))
                }
            };
            let overhead = a
                .number("overhead")?
                .ok_or_else(|| Error::invalid(format!("{c}: overhead=V is required (e.g. 90)")))?;
            Decision::Benefit { amount, overhead }
        }
        "roc-closest" | "roc_closest" => {
            Args::new(c, &[])?;
            Decision::RocClosest
        }
        "tune" => {
            let a = Args::new(c, &["metric", "fn", "fp", "tp", "tn"])?;
            Decision::Tune(objective_from(&a, "metric")?)
        }
        other => {
            return Err(Error::invalid(format!(
                "unknown stage '{other}'; after the learner a spec accepts: {}",
                STAGES.join(", ")
            )))
        }
    })
}

/// Builds every learner of a comma-separated list such as
/// `tree, forest(n=100,max_depth=4), svm` (commas inside parentheses belong
/// to the learner), each with the text it was written as.
///
/// ```
/// let l = rarity::spec::build_learners("forest(n=10,max_depth=4), gnb").unwrap();
/// assert_eq!(l[0].0, "forest(n=10,max_depth=4)");
/// assert_eq!(l.len(), 2);
/// assert!(rarity::spec::build_learners("tree,,gnb").is_err());
/// ```
pub fn build_learners(list: &str) -> Result<Vec<(String, Arc<dyn Learner>)>> {
    crate::params::syntax::parse_list(list)?;
    crate::params::syntax::split_list(list)
        .into_iter()
        .map(|s| {
            let l = build_learner(&s)?;
            Ok((s, l))
        })
        .collect()
}
