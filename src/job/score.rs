//! The `score` job (`rarity score`, `rarity.metrics.score`): a
//! [`ScoreRequest`] (the binary threshold and the metrics added to the
//! report) checked into a [`ScorePlan`], run on true class ids and
//! probabilities into a [`ScoreJob`]: every metric, rendering itself as the
//! command line's table or its JSON.

use serde_json::{Map, Value};

use super::{fixed, metrics, undefined_note, Front};
use crate::data::Proba;
use crate::error::Result;
use crate::metrics::catalogue::Metric;
use crate::metrics::{report_with_labels, score_report};
use crate::report::table::Table;

/// How to score: the parameters of `rarity score` and
/// `rarity.metrics.score`.
#[derive(Debug, Clone)]
pub struct ScoreRequest {
    /// Binary labels: positive iff p >= threshold.
    pub threshold: f64,
    /// Metrics added to the report (`precision_at_k(k=100)`, ...).
    pub metrics: Vec<String>,
    /// Which front end wrote the request (for its error messages).
    pub front: Front,
}

/// A checked request: the added metrics found in the catalogue.
#[derive(Debug, Clone)]
pub struct ScorePlan {
    threshold: f64,
    extra: Vec<&'static Metric>,
}

impl ScoreRequest {
    /// Finds the added metrics before any score is read.
    pub fn plan(self) -> Result<ScorePlan> {
        Ok(ScorePlan {
            extra: metrics(&self.metrics, self.front)?,
            threshold: self.threshold,
        })
    }
}

impl ScorePlan {
    /// Every metric of `proba` against the class ids `truth`, the labels
    /// decided at the threshold (binary) or by the argmax; `labels` instead
    /// when given (decided by any other rule).
    pub fn run(&self, truth: &[u32], proba: &Proba, labels: Option<&[u32]>) -> Result<ScoreJob> {
        let metrics = match labels {
            Some(l) => report_with_labels(truth, proba, l, &self.extra)?,
            None => score_report(truth, proba, self.threshold, &self.extra)?,
        };
        let binary = proba.n_classes() == 2 && labels.is_none();
        Ok(ScoreJob {
            metrics,
            rows: truth.len(),
            classes: proba.n_classes(),
            threshold: binary.then_some(self.threshold),
            decided: None,
        })
    }
}

/// What scoring found, rendering itself.
#[derive(Debug, Clone)]
pub struct ScoreJob {
    /// Every metric in report order (NaN: undefined on these rows).
    pub metrics: Vec<(String, f64)>,
    /// Rows scored.
    pub rows: usize,
    /// Classes of the probabilities.
    pub classes: usize,
    /// Binary: the threshold that decided the labels.
    pub threshold: Option<f64>,
    /// The column whose decided labels were scored, when they were read
    /// from one.
    pub decided: Option<String>,
}

impl ScoreJob {
    /// The job, saying that its labels were those of column `decided`.
    pub fn decided_by(self, decided: Option<String>) -> ScoreJob {
        ScoreJob { decided, ..self }
    }

    /// The outcome as `rarity score --format json` prints it: per metric
    /// its value, null when undefined.
    pub fn to_json(&self) -> Value {
        let map: Map<String, Value> = self
            .metrics
            .iter()
            .map(|(k, v)| {
                let v = serde_json::Number::from_f64(*v).map_or(Value::Null, Value::Number);
                (k.clone(), v)
            })
            .collect();
        Value::Object(map)
    }

    /// The outcome as `rarity score` prints it: a table of every metric.
    pub fn to_text(&self) -> String {
        let mut t = Table::new(&["metric", "value"]);
        for (k, v) in &self.metrics {
            t.text_row(vec![k.clone(), fixed(*v, 6)]);
        }
        let undefined = undefined_note(
            self.metrics
                .iter()
                .filter(|r| r.1.is_nan())
                .map(|r| r.0.as_str()),
        );
        let how = match (&self.decided, self.threshold) {
            (Some(c), _) => format!(", the decided labels of column '{c}'"),
            (None, Some(t)) => format!(", threshold {t}"),
            (None, None) => ", argmax labels".to_string(),
        };
        format!(
            "{} rows, {} classes{how}\n\n{}{undefined}",
            self.rows,
            self.classes,
            t.to_text()
        )
    }
}
