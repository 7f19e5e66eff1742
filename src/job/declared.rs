//! Each job's parameters declared once (issue 53): a job's request holds a
//! [`params!`](crate::params) struct whose fields give the name, type,
//! default, bounds and doc of every parameter both front ends take, and
//! the front ends are made from it. The command line's flags are the
//! table's names in kebab case with its docs as help (`cli::declared`);
//! Python's keywords are its names (or scikit-learn's spelling where the
//! declaration gives one, [`Declared::python_names`]), with their defaults
//! and docstring entries read from the table at import
//! (`rarity._rarity.job_params`).
//! Both hand the values over as text, read here once ([`read`]), so a
//! value means the same and is refused with the same words from either.
//!
//! [`JOBS`](super::JOBS) lists the declared jobs with the parameters only
//! one front end has (a path on the command line, `n_jobs` in Python); the
//! command line's and Python's tests fail when a front end adds or drops a
//! parameter the declaration does not have.

use super::Front;
use crate::error::{did_you_mean, Error, Result};
use crate::params::{set_text, ParamInfo, Params};

/// A job whose parameters are declared once.
#[derive(Debug, Clone, Copy)]
pub struct Declared {
    /// The job (`rarity monitor`'s `monitor`, Python's `rarity.monitor`).
    pub job: &'static str,
    /// Its declared parameters, with their defaults.
    pub table: fn() -> Vec<ParamInfo>,
    /// The parameters a caller must give (no default): a required flag, a
    /// Python argument without a default.
    pub required: &'static [&'static str],
    /// The command line's own flags (long names): paths, reader options.
    pub cli_only: &'static [&'static str],
    /// Python's own keywords: the tables, `n_jobs`, scikit-learn's aliases.
    pub python_only: &'static [&'static str],
    /// `(parameter, keyword)` where Python's keyword is not the declared
    /// name (scikit-learn's spelling: `repeats` is `n_repeats`).
    pub python_names: &'static [(&'static str, &'static str)],
}

impl Declared {
    /// Python's keyword of the declared parameter `name`.
    pub fn python<'a>(&self, name: &'a str) -> &'a str {
        (self.python_names.iter())
            .find(|(n, _)| *n == name)
            .map_or(name, |(_, k)| k)
    }

    /// The parameter `name` as `front` spells it (`--fail-on`, `n_repeats`).
    pub fn spelled(&self, name: &str, front: Front) -> String {
        match front {
            Front::Cli => front.param(name),
            Front::Python => self.python(name).to_string(),
        }
    }
}

/// The parameters of the job `d` from a front end's `(name, text)` pairs
/// (declared names), the rest at their defaults; each name and value
/// checked, the errors in the front end's spelling (`--bins 1: expected a
/// whole number >= 2`, `n_repeats=0: ...`).
pub fn read<P: Params + Default>(
    d: &Declared,
    given: &[(String, String)],
    front: Front,
) -> Result<P> {
    let mut p = P::default();
    let job = d.job;
    for (key, text) in given {
        let name = d.spelled(key, front);
        let shown = match front {
            Front::Cli => format!("{name} {text}"),
            Front::Python => format!("{name}={text}"),
        };
        match set_text(&mut p, key, text) {
            Ok(true) => {}
            Ok(false) => {
                let table = p.table();
                let names: Vec<String> = table.iter().map(|i| d.spelled(i.name, front)).collect();
                let near = did_you_mean(key, table.iter().map(|i| i.name))
                    .map_or(String::new(), |m| {
                        format!(" (did you mean {}?)", d.spelled(m, front))
                    });
                return Err(Error::invalid(format!(
                    "{job}: no parameter {name}{near}; its parameters are {}",
                    names.join(", ")
                )));
            }
            Err(why) => return Err(Error::invalid(format!("{job}: {shown}: {why}"))),
        }
    }
    if let Some(r) = (d.required.iter()).find(|r| !given.iter().any(|(k, _)| k == *r)) {
        return Err(Error::invalid(format!(
            "{job}: {} is required",
            d.spelled(r, front)
        )));
    }
    p.check()?;
    Ok(p)
}
