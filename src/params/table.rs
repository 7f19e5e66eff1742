//! Parameter tables and registry entries.
//!
//! A family (learners, samplers, decision rules, calibrators, metrics) is a
//! slice of [`Entry`]s: a name, a one-line summary, the parameters (name,
//! what is accepted, default, doc) and a builder. Parameters are declared
//! once, with their defaults and valid ranges, on the parameter type itself
//! ([`params!`](crate::params::params)); a builder reads a parsed [`Call`]
//! into that type with [`from_call`], which validates every argument before
//! any work starts (the pattern of imbalanced-learn's `fit_resample` ->
//! `_fit_resample`, and of linfa's checked parameters). The command line's
//! help, error messages that list the alternatives and the Python package
//! all read the same tables.

use crate::error::{did_you_mean, Error, Result};

use super::types::ParamType;

use super::syntax::{shortened, Call, Value};

/// One parameter as help and the Python package show it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ParamInfo {
    /// The keyword (`max_depth`).
    pub name: &'static str,
    /// What is accepted, with the valid range (`a whole number >= 1 or none`).
    pub expected: String,
    /// The default, as spec text.
    pub default: String,
    /// One line on what it does.
    pub doc: String,
}

/// A parameter type: every field a spec may set, with its default (the
/// value `Default` gives) and valid range. Implemented by
/// [`params!`](crate::params::params) for plain structs; by hand where a
/// family flattens two tables (e.g. a forest's tree parameters).
pub trait Params {
    /// The parameters, with `self`'s values shown as the defaults.
    fn table(&self) -> Vec<ParamInfo>;
    /// Sets `key` from a spec value: `Ok(false)` when there is no such
    /// parameter, `Err(why)` when the value is not accepted: `expected ...`
    /// for a wrong type or range, or the reason a nested spec (a learner, a
    /// sampler) was refused.
    fn set(&mut self, key: &str, value: &Value) -> std::result::Result<bool, String>;
    /// Checks every parameter (for values set in code rather than parsed):
    /// `Err` says which one is invalid and what is accepted.
    fn check(&self) -> Result<()>;
}

/// Reads the keyword arguments of `call` into `initial` (which holds the
/// defaults): every argument must be named, known, given once and valid.
/// Errors name the call, the argument and what is accepted.
pub fn apply<P: Params>(call: &Call, mut initial: P) -> Result<P> {
    let names: Vec<&'static str> = initial.table().iter().map(|p| p.name).collect();
    let accepted = || {
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    };
    for (i, (k, v)) in call.args.iter().enumerate() {
        let Some(k) = k else {
            return Err(Error::invalid(format!(
                "{}: argument {} needs a name (write name=value); accepted: {}",
                call.name,
                shortened(&v.to_string(), 60),
                accepted()
            )));
        };
        if call.args[..i].iter().any(|(p, _)| p.as_ref() == Some(k)) {
            return Err(Error::invalid(format!("{}: '{k}' given twice", call.name)));
        }
        match initial.set(k, v) {
            Ok(true) => {}
            Ok(false) => {
                let hint = did_you_mean(k, names.iter().copied())
                    .map_or(String::new(), |s| format!(" (did you mean '{s}'?)"));
                return Err(Error::invalid(format!(
                    "{}: unknown argument '{k}'{hint}; accepted: {}",
                    call.name,
                    accepted()
                )));
            }
            Err(why) => {
                // A nested call's text is shortened: each level of a deep
                // spec would otherwise repeat the whole rest of it.
                return Err(Error::invalid(format!(
                    "{}: {k}={} is invalid; {why}",
                    call.name,
                    shortened(&v.to_string(), 60)
                )));
            }
        }
    }
    initial.check()?;
    Ok(initial)
}

/// [`apply`] starting from the type's defaults.
pub fn from_call<P: Params + Default>(call: &Call) -> Result<P> {
    apply(call, P::default())
}

/// A member of a family: what help shows and how to build it from a call.
pub struct Entry<T> {
    /// The name a spec uses.
    pub name: &'static str,
    /// One line on what it is (with its source where it has one).
    pub summary: &'static str,
    /// The parameters with their defaults.
    pub params: fn() -> Vec<ParamInfo>,
    /// Builds it from a parsed call (validating every argument first).
    pub build: fn(&Call) -> Result<T>,
    /// Its class name in Python, where the CamelCase of `name` reads badly
    /// (`forest` is `RandomForest`, `eb` is `ExactlyBalanced`).
    pub python: Option<&'static str>,
}

impl<T> std::fmt::Debug for Entry<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry").field("name", &self.name).finish()
    }
}

impl<T> Entry<T> {
    /// An entry whose parameters are those of `P`'s defaults.
    pub const fn of<P: Params + Default>(
        name: &'static str,
        summary: &'static str,
        build: fn(&Call) -> Result<T>,
    ) -> Entry<T> {
        Entry {
            name,
            summary,
            params: defaults_table::<P>,
            build,
            python: None,
        }
    }

    /// The entry with its class name in Python.
    pub const fn python(mut self, class: &'static str) -> Entry<T> {
        self.python = Some(class);
        self
    }
}

/// Sets `key` of `p` from a front end's text (a command-line value, a
/// Python keyword's value as text): the text itself where the type takes a
/// text (`--label my col`), else read as a spec value (`10`, `none`,
/// `[1,2]`). `Ok(false)`: `p` has no such parameter; `Err` says what is
/// accepted.
pub fn set_text<P: Params>(p: &mut P, key: &str, text: &str) -> std::result::Result<bool, String> {
    match p.set(key, &Value::Text(text.to_string())) {
        Ok(found) => Ok(found),
        Err(first) => match super::syntax::parse_value(text) {
            Ok(v) => p.set(key, &v),
            Err(_) => Err(first),
        },
    }
}

/// The parameter table of `P`'s defaults.
pub fn defaults_table<P: Params + Default>() -> Vec<ParamInfo> {
    P::default().table()
}

/// A family whose members are built from calls and held as `Arc<Self>`
/// (`dyn Learner`, `dyn Sampler`): it makes `Arc<Self>` a parameter type,
/// so that one member can be another's parameter
/// (`bagging(learner=tree(max_depth=3), sample=under(beta=0.2))`).
pub trait Family {
    /// What is accepted, in words (`a learner such as tree`).
    fn expected() -> String;
    /// The member a call names.
    fn build(call: &Call) -> Result<std::sync::Arc<Self>>;
    /// The member as spec text.
    fn spec_text(&self) -> String;
}

impl<T: Family + ?Sized> ParamType for std::sync::Arc<T> {
    fn from_value(v: &Value) -> std::result::Result<Self, String> {
        match v {
            Value::Call(c) => T::build(c).map_err(|e| e.to_string()),
            _ => Err(String::new()),
        }
    }
    fn expected() -> String {
        T::expected()
    }
    fn to_text(&self) -> String {
        self.as_ref().spec_text()
    }
}

/// The entry called `name` in a family, or an error that names the family,
/// suggests the closest name and lists every accepted one.
pub fn find<'a, T>(entries: &'a [Entry<T>], name: &str, family: &str) -> Result<&'a Entry<T>> {
    entries
        .iter()
        .find(|e| e.name == name)
        .ok_or_else(|| unknown(family, name, entries.iter().map(|e| e.name)))
}

/// The error for an unknown `name` of a family: the closest accepted name
/// and the list of all.
pub fn unknown<'a>(
    family: &str,
    name: &str,
    accepted: impl Iterator<Item = &'a str> + Clone,
) -> Error {
    let hint = did_you_mean(name, accepted.clone())
        .map_or(String::new(), |s| format!(" (did you mean '{s}'?)"));
    Error::invalid(format!(
        "unknown {family} '{name}'{hint}; accepted: {}",
        accepted.collect::<Vec<_>>().join(", ")
    ))
}

/// Help text of a family: each entry's name and summary, then its
/// parameters with defaults, indented.
pub fn help<'a, T: 'a>(entries: impl IntoIterator<Item = &'a Entry<T>>) -> String {
    let mut out = String::new();
    for e in entries {
        out.push_str(&format!("  {}: {}\n", e.name, e.summary));
        for p in (e.params)() {
            out.push_str(&format!(
                "      {}={} ({}): {}\n",
                p.name, p.default, p.expected, p.doc
            ));
        }
    }
    out
}

/// Two parameter types read as one: a key goes to the first that has it.
/// E.g. a forest is its own parameters (`n`, `sample`, `vote`) followed by
/// its trees' (`max_depth`, ...).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Merged<A, B>(pub A, pub B);

impl<A: Params, B: Params> Params for Merged<A, B> {
    fn table(&self) -> Vec<ParamInfo> {
        let mut t = self.0.table();
        t.extend(self.1.table());
        t
    }

    fn set(&mut self, key: &str, value: &Value) -> std::result::Result<bool, String> {
        if self.0.set(key, value)? {
            return Ok(true);
        }
        self.1.set(key, value)
    }

    fn check(&self) -> Result<()> {
        self.0.check()?;
        self.1.check()
    }
}
