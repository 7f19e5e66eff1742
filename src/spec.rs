//! Model specs: the small language the CLI uses to name a model.
//!
//! Grammar (whitespace ignored):
//!
//! ```text
//! spec  := call ('+' call)*            stages, applied left to right
//! call  := NAME [ '(' [arg (',' arg)*] ')' ]
//! arg   := [NAME '='] value            keyword or positional
//! value := NUMBER | 'text' | "text" | call
//! ```
//!
//! e.g. `bagging(n=100, learner=tree(criterion=entropy), sample=bootstrap)`.
//! [`parse`] gives the syntax tree; [`build_learner`] turns a one-stage spec
//! into a [`Learner`]. Unknown names and bad values fail with a message that
//! lists what is accepted. Later stages (`+correct`, `+threshold(priors)`) and
//! new learners or samplers extend [`learner_from_call`] /
//! [`sampler_from_call`].

use std::fmt;
use std::sync::Arc;

use crate::ensemble::{Bagging, Vote};
use crate::error::{Error, Result};
use crate::learn::tree::{Criterion, LeafEstimate, MaxFeatures, RandomTree, Splitter, Tree};
use crate::learn::Learner;
use crate::sample::bootstrap::Bootstrap;
use crate::sample::no_resampling::NoResampling;
use crate::sample::Sampler;

/// A parsed spec: one or more stages joined by `+`.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// The stages, in order.
    pub stages: Vec<Call>,
}

/// `name(key=value, ...)`; a bare `name` has no arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The name.
    pub name: String,
    /// Arguments in the order written: `(Some(name), value)` for
    /// `name=value`, `(None, value)` for a positional value.
    pub args: Vec<(Option<String>, Value)>,
}

/// An argument value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A number.
    Number(f64),
    /// A quoted text.
    Text(String),
    /// A name, possibly with arguments (`sqrt`, `tree(max_depth=3)`).
    Call(Call),
}

impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if !self.args.is_empty() {
            f.write_str("(")?;
            for (i, (k, v)) in self.args.iter().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                match k {
                    Some(k) => write!(f, "{k}={v}")?,
                    None => write!(f, "{v}")?,
                }
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Number(x) => write!(f, "{x}"),
            Value::Text(t) => write!(f, "'{t}'"),
            Value::Call(c) => write!(f, "{c}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Name(String),
    Number(f64),
    Text(String),
    Punct(char),
}

fn tokenize(s: &str) -> Result<Vec<(usize, Token)>> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if "(),=+".contains(c) {
            out.push((i, Token::Punct(c)));
            i += 1;
        } else if c == '\'' || c == '"' {
            let end = chars[i + 1..].iter().position(|&q| q == c).ok_or_else(|| {
                Error::invalid(format!("spec '{s}': unclosed quote at {}", i + 1))
            })?;
            out.push((i, Token::Text(chars[i + 1..i + 1 + end].iter().collect())));
            i += end + 2;
        } else if c.is_ascii_digit() || c == '.' || c == '-' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric() || ".-+".contains(chars[i]))
                && (chars[i] != '+' || matches!(chars[i - 1], 'e' | 'E'))
            {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            let x = text
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| Error::invalid(format!("spec '{s}': '{text}' is not a number")))?;
            out.push((start, Token::Number(x)));
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((start, Token::Name(chars[start..i].iter().collect())));
        } else {
            return Err(Error::invalid(format!(
                "spec '{s}': unexpected '{c}' at position {}",
                i + 1
            )));
        }
    }
    Ok(out)
}

struct Parser<'a> {
    src: &'a str,
    toks: Vec<(usize, Token)>,
    pos: usize,
}

impl Parser<'_> {
    fn err(&self, what: &str) -> Error {
        match self.toks.get(self.pos) {
            Some((at, _)) => Error::invalid(format!(
                "spec '{}': expected {what} at position {}",
                self.src,
                at + 1
            )),
            None => Error::invalid(format!("spec '{}': expected {what} at the end", self.src)),
        }
    }

    fn eat(&mut self, c: char) -> bool {
        if self.toks.get(self.pos).map(|t| &t.1) == Some(&Token::Punct(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn call(&mut self) -> Result<Call> {
        let name = match self.toks.get(self.pos) {
            Some((_, Token::Name(n))) => n.clone(),
            _ => return Err(self.err("a name")),
        };
        self.pos += 1;
        let mut args = Vec::new();
        if self.eat('(') && !self.eat(')') {
            loop {
                let key = match (self.toks.get(self.pos), self.toks.get(self.pos + 1)) {
                    (Some((_, Token::Name(k))), Some((_, Token::Punct('=')))) => {
                        self.pos += 2;
                        Some(k.clone())
                    }
                    _ => None,
                };
                let what = key.as_deref().unwrap_or("an argument");
                let value = match self.toks.get(self.pos) {
                    Some((_, Token::Number(x))) => {
                        self.pos += 1;
                        Value::Number(*x)
                    }
                    Some((_, Token::Text(t))) => {
                        self.pos += 1;
                        Value::Text(t.clone())
                    }
                    Some((_, Token::Name(_))) => Value::Call(self.call()?),
                    _ => return Err(self.err(&format!("a value for '{what}'"))),
                };
                args.push((key, value));
                if self.eat(')') {
                    break;
                }
                if !self.eat(',') {
                    return Err(self.err("',' or ')'"));
                }
            }
        }
        Ok(Call { name, args })
    }
}

/// Parses a spec.
///
/// ```
/// use rarity::spec::{parse, Value};
/// let s = parse("bagging(n=100, learner=tree(max_depth=3)) + correct").unwrap();
/// assert_eq!(s.stages.len(), 2);
/// assert_eq!(s.stages[0].args[0], (Some("n".to_string()), Value::Number(100.0)));
/// assert!(parse("tree(max_depth=)").is_err());
/// ```
pub fn parse(s: &str) -> Result<Spec> {
    let mut p = Parser {
        src: s,
        toks: tokenize(s)?,
        pos: 0,
    };
    let mut stages = vec![p.call()?];
    while p.eat('+') {
        stages.push(p.call()?);
    }
    if p.pos < p.toks.len() {
        return Err(p.err("'+' or the end of the spec"));
    }
    Ok(Spec { stages })
}

/// The learners a spec may name.
pub const LEARNERS: &[&str] = &["tree", "forest", "bagging", "rdt", "random_tree"];
/// The samplers a spec may name.
pub const SAMPLERS: &[&str] = &["bootstrap", "none"];

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
                b.sampler = sampler_from_call(s)?;
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
                Some(s) => sampler_from_call(s)?,
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
        other => Err(Error::invalid(format!(
            "unknown learner '{other}'; accepted: {}",
            LEARNERS.join(", ")
        ))),
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

/// Builds a sampler from a call such as `bootstrap(fraction=0.5)`.
pub fn sampler_from_call(c: &Call) -> Result<Arc<dyn Sampler>> {
    match c.name.as_str() {
        "bootstrap" => {
            let a = Args::new(c, &["fraction"])?;
            let fraction = a.number("fraction")?.unwrap_or(1.0);
            if fraction.is_nan() || fraction <= 0.0 {
                return Err(Error::invalid(format!(
                    "bootstrap: fraction={fraction} is invalid; expected a positive number"
                )));
            }
            Ok(Arc::new(Bootstrap { fraction }))
        }
        "none" => {
            Args::new(c, &[])?;
            Ok(Arc::new(NoResampling))
        }
        other => Err(Error::invalid(format!(
            "unknown sampler '{other}'; accepted: {}",
            SAMPLERS.join(", ")
        ))),
    }
}

#[cfg(test)]
mod tests;
