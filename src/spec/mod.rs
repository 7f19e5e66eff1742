//! Strategy specs: one string names a whole strategy, stages joined by `+`:
//! `[impute(...) +] [encode(target, ...) +] [sampler +] learner [+ correct]
//! [+ platt|isotonic] [+ priors(...)|em] [+ decision]`, e.g.
//! `under(beta=0.1)+forest(n=100)+correct+threshold(priors)`,
//! `encode(target)+under(beta=0.3)+logistic+correct` or
//! `impute(median, indicator=true)+smote+logistic`.
//!
//! The string is parsed once ([`crate::params::syntax`]) into calls, and
//! each call is built into a typed value by its family's registry: samplers
//! (`crate::sample::registry`), learners (`crate::learn::registry`) and
//! ensembles (`crate::ensemble::registry`), the stages after the learner
//! (`crate::decide::registry`). Nothing is printed back to text and parsed
//! again. Unknown names and bad values fail with a message that lists what
//! is accepted.
//!
//! Decisions: `argmax` (default; the papers' named ensembles decide at 0.5,
//! PT-bagging by `threshold(priors)`), `threshold(0.3)`, `threshold(priors)`
//! (PT_MA), `threshold(f1)` (PT_F1), `lambda(0.5,0.3,0.2)`,
//! `cost(fn=10,fp=1[,tp=0,tn=0])` or `cost(matrix='0,1;5,0')`,
//! `benefit(amount=COLUMN,overhead=V)`, `roc-closest`,
//! `tune(metric=f1|g_mean|macro_accuracy|macro_f1|accuracy|cost[,fn=..,fp=..])`.

use std::sync::Arc;

use crate::decide::registry::{build_stage, Stage};
use crate::ensemble::registry::{default_decision, ENSEMBLES};
use crate::error::{Error, Result};
use crate::learn::Learner;
use crate::params::syntax::{parse, parse_list, parse_spanned, split_list};
use crate::params::Call;
use crate::sample::registry::{build_sampler, is_sampler};
use crate::strategy::Strategy;

/// Builds the learner of a one-stage spec.
///
/// ```
/// let l = rarity::spec::build_learner("forest(n=10, max_depth=4)").unwrap();
/// assert_eq!(l.name(), "bagging(n=10,learner=tree(criterion=gini,max_depth=4,max_features=sqrt),sample=bootstrap)");
/// let e = rarity::spec::build_learner("tree(depth=3)").unwrap_err().to_string();
/// assert!(e.contains("max_depth"), "{e}");
/// ```
pub fn build_learner(spec: &str) -> Result<Arc<dyn Learner>> {
    let stages = parse(spec)?;
    if let Some(extra) = stages.get(1) {
        return Err(Error::invalid(format!(
            "spec '{spec}': stage '{}' is not available; a spec is one learner",
            extra.name
        )));
    }
    crate::ensemble::registry::build_learner(&stages[0])
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
    let calls = parse_list(list)?;
    split_list(list)
        .into_iter()
        .zip(&calls)
        .map(|(text, call)| Ok((text, crate::ensemble::registry::build_learner(call)?)))
        .collect()
}

/// Builds a strategy from its spec.
///
/// ```
/// let s = rarity::spec::build_strategy("under(beta=0.1)+forest(n=10)+correct+threshold(priors)").unwrap();
/// assert!(s.correct.is_some() && s.sampler.is_some());
/// let e = rarity::spec::build_strategy("forest(n=10)+treshold(0.5)").unwrap_err().to_string();
/// assert!(e.contains("treshold") && e.contains("threshold"), "{e}");
/// ```
pub fn build_strategy(spec: &str) -> Result<Strategy> {
    let stages = parse_spanned(spec)?;
    strategy_from_stages(spec.trim(), &stages)
}

/// Builds a strategy from parsed stages, each with its text as written;
/// `label` is the whole spec as written (for reports and the saved model).
pub fn strategy_from_stages(label: &str, stages: &[(Call, String)]) -> Result<Strategy> {
    let compact = |t: &str| t.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    let mut rest = stages.iter().peekable();
    let mut stem = Vec::new();
    // The first stages: an imputation, then an encoding.
    let mut impute = None;
    let mut encode = None;
    while let Some((c, text)) = rest.peek().copied() {
        let prefix = match c.name.as_str() {
            "impute" if impute.is_none() && encode.is_none() => build_stage(c)?,
            "encode" if encode.is_none() => build_stage(c)?,
            "impute" | "encode" => {
                return Err(Error::invalid(format!(
                    "spec '{label}': '{}' comes twice or out of order; the first stages are \
                     [impute(...)+][encode(target)+], each once",
                    compact(text)
                )))
            }
            _ => break,
        };
        match prefix {
            Stage::Impute(i) => impute = Some(i),
            Stage::Encode(e) => encode = Some(e),
            _ => unreachable!("impute and encode build their own stages"),
        }
        stem.push(compact(text));
        rest.next();
    }
    let (first, first_text) = rest.next().ok_or_else(|| {
        Error::invalid(format!(
            "spec '{label}': no {}",
            if stem.is_empty() {
                "stages"
            } else {
                "learner after the first stages"
            }
        ))
    })?;
    stem.push(compact(first_text));
    let (sampler, learner_call) = if is_sampler(&first.name) {
        let (next, text) = rest.next().ok_or_else(|| {
            Error::invalid(format!(
                "spec '{label}': the sampler '{}' must be followed by a learner",
                first.name
            ))
        })?;
        stem.push(compact(text));
        if is_sampler(&next.name) {
            return Err(Error::invalid(format!(
                "spec '{label}': two samplers ('{}' then '{}'); a strategy draws one sample, so \
                 give one sampler before the learner: a combined one (smote-enn, smote-tomek), \
                 one with both effects (under(rates=[...]) keeps each class at its own rate), or \
                 a bagging ensemble whose members draw their own (bagging(sample=...))",
                first.name, next.name
            )));
        }
        (Some(build_sampler(first)?), next)
    } else {
        (None, first)
    };
    let mut strategy = Strategy {
        spec: label.to_string(),
        stem: stem.join("+"),
        decision_stage: None,
        impute,
        encode,
        sampler,
        learner: crate::ensemble::registry::build_learner(learner_call)?,
        correct: None,
        calibration: None,
        shift: None,
        decision: default_decision(&learner_call.name),
    };
    for (c, text) in rest {
        strategy.add_stage(build_stage(c)?, &compact(text))?;
    }
    Ok(strategy)
}

/// The long help of every option that takes a strategy: each stage's
/// family with its members, their parameters and defaults, read from the
/// registries.
pub fn help() -> String {
    format!(
        "A strategy is [impute(...) +] [encode(target) +] [sampler +] learner [+ correct] \
         [+ platt|isotonic] [+ priors(...)|em] [+ decision], \
         e.g. under(beta=0.1)+forest(n=100)+correct+threshold(priors) or \
         impute(median)+smote+logistic.\n\n\
         Samplers:\n{}\nLearners:\n{}\nEnsembles:\n{}\nOther stages (impute and encode first, \
         the rest after the learner):\n{}",
        crate::params::help(crate::sample::registry::SAMPLERS),
        crate::params::help(crate::learn::registry::LEARNERS),
        crate::params::help(ENSEMBLES.iter().map(|e| &e.entry)),
        crate::params::help(crate::decide::registry::STAGES),
    )
}

#[cfg(test)]
mod tests;
