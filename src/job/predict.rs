//! The `predict` job (`rarity predict`; in Python the estimators'
//! `predict` / `predict_proba`): a [`PredictRequest`] (another decision
//! rule, identifier columns, what to do with unseen levels) applied to a
//! saved strategy as a [`PredictPlan`], run on a table streamed to an
//! output file into a [`PredictJob`] that renders itself as the command
//! line's line or its JSON.

use std::path::Path;

use serde::Serialize;
use serde_json::{json, Value};

use super::Front;
use crate::contributions::{Plan, ReasonKind, Reasons};
use crate::data::read::{PredictOptions, Table, Unknown};
use crate::error::{Error, Result};
use crate::strategy::FittedStrategy;
use crate::stream::{predict_file, Predicted};

/// How to predict: the parameters of `rarity predict`.
#[derive(Debug, Clone)]
pub struct PredictRequest {
    /// Decide by this rule instead of the saved one (`threshold(0.3)`,
    /// `cost(fn=10,fp=1)`, ...).
    pub decision: Option<String>,
    /// Identifier columns carried to the output.
    pub ids: Vec<String>,
    /// Levels the model was not trained on.
    pub unknown: Unknown,
    /// Add each row's `K` strongest reasons (`--reasons K`).
    pub reasons: Option<usize>,
    /// Add every column's contribution and the base value instead
    /// (`--contributions`).
    pub contributions: bool,
    /// Which front end wrote the request (for its error messages).
    pub front: Front,
}

/// A checked request: the saved strategy deciding by the request's rule.
#[derive(Debug)]
pub struct PredictPlan {
    fitted: FittedStrategy,
    ids: Vec<String>,
    unknown: Unknown,
    reasons: Option<Reasons>,
}

impl PredictRequest {
    /// The saved strategy `fitted`, deciding by the request's rule when it
    /// gives one, with the contributions' plan when reasons or
    /// contributions are asked for (checked here, before any row is read).
    pub fn plan(self, fitted: FittedStrategy) -> Result<PredictPlan> {
        let fitted = match &self.decision {
            Some(spec) => fitted
                .with_decision_spec(spec)
                .map_err(|e| Error::invalid(format!("{}: {e}", self.front.param("decision"))))?,
            None => fitted,
        };
        let kind = match (self.reasons, self.contributions) {
            (Some(_), true) => {
                return Err(Error::invalid(format!(
                    "give {} or {}, not both",
                    self.front.param("reasons"),
                    self.front.param("contributions")
                )))
            }
            (Some(k), false) => Some(ReasonKind::Reasons(k)),
            (None, true) => Some(ReasonKind::Contributions),
            (None, false) => None,
        };
        let reasons = match kind {
            Some(kind) => Some(Reasons::new(&fitted, kind).map_err(|e| {
                let flag = match kind {
                    ReasonKind::Reasons(_) => "reasons",
                    ReasonKind::Contributions => "contributions",
                };
                Error::invalid(format!("{}: {e}", self.front.param(flag)))
            })?),
            None => None,
        };
        Ok(PredictPlan {
            fitted,
            ids: self.ids,
            unknown: self.unknown,
            reasons,
        })
    }
}

impl PredictPlan {
    /// Predicts every row of `table` (read with `opts`, the request's
    /// identifier columns and unseen-level rule added, missing values read
    /// where the model takes them: [`FittedStrategy::missing_columns`]) and
    /// writes them to `output` ([`predict_file`]): every row is scored or
    /// the whole file is refused, never a row dropped.
    pub fn run(&self, table: Table<'_>, opts: PredictOptions, output: &Path) -> Result<PredictJob> {
        let (ids, id_names, target) = self.carried(table.names())?;
        let opts = PredictOptions {
            ids,
            id_names,
            unknown: self.unknown,
            missing_ok: self.fitted.missing_columns(),
            ..opts
        };
        let predicted = predict_file(&self.fitted, table, &opts, output, self.reasons.as_ref())?;
        Ok(PredictJob {
            spec: self.fitted.spec.clone(),
            rule: self.fitted.rule.to_string(),
            classes: self.fitted.schema.class_names.clone(),
            target,
            predicted,
            explained: self.reasons.as_ref().map(|r| Explained::of(&r.plan)),
        })
    }

    /// The columns carried to the output and the names they take there:
    /// the identifier columns, then the training target column when the
    /// table has it and no `--id` names it (kept so that the predictions
    /// can be scored: under its own name, or `true_<name>` when that is one
    /// of predict's own columns), and the target's output name. An
    /// identifier given twice, or named as one of predict's own columns
    /// (`p_<class>`, `label`), is an error: the output's columns must have
    /// distinct names (a Parquet file with two equal names cannot be read
    /// by pandas).
    fn carried(&self, columns: &[String]) -> Result<(Vec<String>, Vec<String>, Option<String>)> {
        let own = crate::data::scores::prediction_columns(&[], &self.fitted.schema.class_names);
        let own: Vec<&str> = own.iter().map(|c| c.name.as_str()).collect();
        for (i, id) in self.ids.iter().enumerate() {
            if self.ids[..i].contains(id) {
                return Err(Error::invalid(format!("--id {id} is given twice")));
            }
            if own.contains(&id.as_str()) {
                return Err(Error::invalid(format!(
                    "--id {id}: the predictions have a column '{id}' of their own ({}); \
                     carry another column, or rename this one in the table",
                    own.join(", ")
                )));
            }
        }
        let (mut ids, mut names) = (self.ids.clone(), self.ids.clone());
        let target = &self.fitted.schema.target_name;
        let kept =
            (!target.is_empty() && columns.contains(target) && !ids.contains(target)).then(|| {
                let mut name = target.clone();
                while own.contains(&name.as_str()) || names.contains(&name) {
                    name = format!("true_{name}");
                }
                ids.push(target.clone());
                names.push(name.clone());
                name
            });
        Ok((ids, names, kept))
    }
}

/// What predicting did, rendering itself.
#[derive(Debug)]
pub struct PredictJob {
    /// The strategy's spec.
    pub spec: String,
    /// The rule that decided the labels.
    pub rule: String,
    /// The class names.
    pub classes: Vec<String>,
    /// The output column that holds the table's target column, when it had
    /// one.
    pub target: Option<String>,
    /// Rows predicted, per class decided, and what the reader did.
    pub predicted: Predicted,
    /// What the added contributions explain, when they were asked for.
    pub explained: Option<Explained>,
}

/// What a predictions file's contributions explain (its JSON's
/// `contributions`).
#[derive(Debug, Clone, Serialize)]
pub struct Explained {
    /// `log-odds`, `margins` or `probability`.
    pub space: &'static str,
    /// The stages taken into the explained output.
    pub taken: Vec<String>,
    /// The stages whose probabilities are reported beside the
    /// contributions (empty: `base + sum` is the strategy's own output).
    pub beside: Vec<String>,
    /// A sentence saying so.
    pub note: String,
}

impl Explained {
    /// The summary of `plan`.
    pub fn of(plan: &Plan) -> Explained {
        Explained {
            space: plan.space.name(),
            taken: plan.taken.clone(),
            beside: plan.beside.clone(),
            note: plan.describe(),
        }
    }
}

impl PredictJob {
    /// The outcome as `rarity predict --format json` prints it, the
    /// predictions written to `output`.
    pub fn to_json(&self, output: &Path) -> Value {
        let p = &self.predicted;
        json!({
            "model": self.spec,
            "output": output.display().to_string(),
            "rows": p.rows,
            "classes": self.classes,
            "class_counts": p.class_counts,
            "rule": self.rule,
            "target": self.target,
            "rows_dropped": p.report.rows_dropped(),
            "contributions": self.explained,
        })
    }

    /// The outcome as `rarity predict` prints it: rows decided per class.
    pub fn to_text(&self, output: &Path) -> String {
        let summary: Vec<String> = self
            .classes
            .iter()
            .zip(&self.predicted.class_counts)
            .map(|(n, c)| format!("{c} {n}"))
            .collect();
        let note = match &self.explained {
            Some(e) => format!("contributions: {}\n", e.note),
            None => String::new(),
        };
        let target = self.target.as_ref().map_or(String::new(), |t| {
            format!("; the target column is kept as '{t}' (rarity score scores it)")
        });
        format!(
            "predicted {} rows ({}) to {}{target}\n{note}",
            self.predicted.rows,
            summary.join(", "),
            output.display()
        )
    }
}
