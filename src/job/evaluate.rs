//! The `evaluate` job (`rarity evaluate`, `rarity.evaluate`): an
//! [`EvaluateRequest`] (strategy, cross-validation, pooling, added metrics,
//! out-of-fold predictions) checked into an [`EvaluatePlan`], run on a table
//! (or, on the command line, streamed from a file) into an [`EvaluateJob`]
//! that renders itself as the command line's metric table or its JSON.

use std::path::Path;

use serde_json::{json, Map, Value};

use super::source::DataSource;
use super::Front;
use crate::data::read::{ReadOptions, ReadReport, RowsDropped};
use crate::data::Dataset;
use crate::error::Result;
use crate::evaluate::{cross_validate, cross_validate_pooled, Evaluation, Extras, Summary};
use crate::metrics::probability::MURPHY_BINS;
use crate::report::format::metric_text;
use crate::report::table::Table;
use crate::split::Splitter;
use crate::strategy::Strategy;

/// What to evaluate and how: the parameters of `rarity evaluate` and
/// `rarity.evaluate`.
#[derive(Debug, Clone)]
pub struct EvaluateRequest {
    /// The strategy spec.
    pub model: String,
    /// The cross-validation as written (`10`, `2x5`, `loo`, ...).
    pub cv: String,
    /// Metrics of each repeat's pooled out-of-fold predictions instead of
    /// the mean over folds (always with `loo`).
    pub pooled: bool,
    /// Metrics added to the report (`precision_at_k(k=100)`, ...).
    pub metrics: Vec<String>,
    /// Keep the out-of-fold predictions.
    pub oof: bool,
    /// The seed of folds and fits.
    pub seed: u64,
    /// Which front end wrote the request (for its error messages).
    pub front: Front,
}

/// A checked request: the strategy built, the cross-validation parsed.
#[derive(Debug)]
pub struct EvaluatePlan {
    request: EvaluateRequest,
    strategy: Strategy,
    splitter: Splitter,
    extras: Extras,
    pooled: bool,
}

impl EvaluateRequest {
    /// Builds the strategy and parses the cross-validation and the metrics
    /// before any data is read.
    pub fn plan(self) -> Result<EvaluatePlan> {
        let strategy = crate::spec::build_strategy(&self.model)?;
        let splitter: Splitter = self.cv.parse()?;
        let metrics = super::metrics(&self.metrics, self.front)?;
        let extras = Extras {
            metrics,
            oof: self.oof,
            ..Extras::default()
        };
        let pooled = self.pooled || splitter == Splitter::LeaveOneOut;
        Ok(EvaluatePlan {
            request: self,
            strategy,
            splitter,
            extras,
            pooled,
        })
    }
}

impl EvaluatePlan {
    /// Why the strategy cannot take missing values (`None`: it can), for
    /// [`crate::job::missing_policy`].
    pub fn missing_refusal(&self) -> Option<String> {
        self.strategy.missing_refusal()
    }

    /// Cross-validates on `data` ([`cross_validate`] or
    /// [`cross_validate_pooled`]).
    pub fn run(self, data: &Dataset) -> Result<EvaluateJob> {
        let (s, split, seed) = (&self.strategy, &self.splitter, self.request.seed);
        let evaluation = if self.pooled {
            cross_validate_pooled(s, data, split, seed, &self.extras)?
        } else {
            cross_validate(s, data, split, seed, &self.extras)?
        };
        Ok(self.job(evaluation))
    }

    /// Cross-validates on the rows of `source`: a file is streamed,
    /// only each fold's sample kept while it is read
    /// ([`crate::stream::evaluate_file`]), when the strategy allows and no
    /// out-of-fold file is asked for (its rows are numbered on the whole
    /// table); otherwise every row is read (the splitter's time or group
    /// column as one, [`Splitter::key_column`]) and [`Self::run`], the
    /// out-of-fold predictions written to `oof`. `read` is told what
    /// reading found as soon as it is known.
    pub fn run_source(
        self,
        source: &DataSource,
        oof: Option<&Path>,
        read: &mut dyn FnMut(&ReadReport),
    ) -> Result<(EvaluateJob, ReadReport)> {
        let opts = &source.read;
        let keyed = ReadOptions {
            key: self.splitter.key_column(),
            ..opts.clone()
        };
        if let Some(schema) = source.header_schema_with(&keyed)? {
            self.strategy.check_columns(&schema)?;
        }
        if let (Some(path), None) = (source.file(), oof) {
            let (s, split, seed) = (
                &self.strategy.reading(opts),
                &self.splitter,
                self.request.seed,
            );
            let streamed = crate::stream::evaluate_file(
                s,
                split,
                path,
                opts,
                seed,
                &self.extras,
                self.pooled,
            )?;
            if let Some((evaluation, report)) = streamed {
                read(&report);
                return Ok((self.job(evaluation), report));
            }
        }
        let (ds, report) = source.read_whole_with(&keyed)?;
        read(&report);
        let job = self.run(&ds)?;
        if let Some(path) = oof {
            job.write_oof(path, &ds)?;
        }
        Ok((job, report))
    }

    fn job(self, evaluation: Evaluation) -> EvaluateJob {
        EvaluateJob {
            note: self
                .strategy
                .default_decision_note(&class_counts(&evaluation)),
            evaluation,
            pooled: self.pooled,
            request: self.request,
        }
    }
}

/// The class counts of a binary evaluation's rows (each row is tested once
/// per repeat: the confusion counts of the first repeat); empty beyond two
/// classes.
fn class_counts(eval: &Evaluation) -> Vec<usize> {
    let mut counts = vec![0usize; 2];
    for f in eval.folds.iter().filter(|f| f.repeat == 0) {
        for (k, v) in &f.metrics {
            match k.as_str() {
                "tn" | "fp" => counts[0] += *v as usize,
                "tp" | "fn" => counts[1] += *v as usize,
                _ => {}
            }
        }
    }
    if counts == [0, 0] {
        Vec::new()
    } else {
        counts
    }
}

/// A finite number as JSON, NaN as null.
fn number(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
}

/// What an evaluation found, rendering itself.
#[derive(Debug)]
pub struct EvaluateJob {
    /// The library's evaluation.
    pub evaluation: Evaluation,
    /// Whether the metrics are those of pooled out-of-fold predictions.
    pub pooled: bool,
    /// The note on the strategy's default decision, if it has one.
    pub note: Option<String>,
    /// The request it ran.
    pub request: EvaluateRequest,
}

impl EvaluateJob {
    /// Writes the out-of-fold predictions (kept with
    /// [`EvaluateRequest::oof`]) of the evaluation on `data` to `path`.
    pub fn write_oof(&self, path: &Path, data: &Dataset) -> Result<()> {
        crate::evaluate::write_oof(path, data, &[&self.evaluation])
    }

    /// Per metric its summary (no spread for one pooled value).
    fn summary(&self) -> Vec<(String, Summary)> {
        let mut summary = self.evaluation.summary();
        if self.pooled && self.evaluation.folds.len() == 1 {
            // One pooled value: no spread to report.
            summary.iter_mut().for_each(|(_, s)| s.std = f64::NAN);
        }
        summary
    }

    /// The folds evaluated (all repeats).
    fn folds(&self) -> usize {
        let folds = &self.evaluation.folds;
        if self.pooled {
            folds.iter().map(|f| f.fold).sum()
        } else {
            folds.len()
        }
    }

    /// The outcome as `rarity evaluate --format json` prints it; `source`
    /// names the data.
    pub fn to_json(&self, source: &str, rows_dropped: &RowsDropped) -> Value {
        let mut metrics = Map::new();
        let summary = self.summary();
        // A JSON object's keys have no order: the report's order is kept
        // beside them.
        let order: Vec<&str> = summary.iter().map(|(n, _)| n.as_str()).collect();
        for (name, s) in &summary {
            let mut m = json!({"mean": number(s.mean), "std": number(s.std)});
            if let Some(p) = s.full_potential {
                m["full_potential"] = number(p);
            }
            metrics.insert(name.clone(), m);
        }
        let (fit_s, predict_s) = self.evaluation.seconds();
        let repeats = self.pooled.then_some(self.evaluation.folds.len());
        json!({
            "model": self.evaluation.spec,
            "data": source,
            "cv": self.request.cv,
            "folds": self.folds(),
            "pooled": self.pooled,
            "repeats": repeats,
            "metrics": metrics,
            "metric_order": order,
            "murphy_bins": MURPHY_BINS,
            "fit_seconds": number(fit_s),
            "predict_seconds": number(predict_s),
            "rows_dropped": rows_dropped,
            "notes": self.note.iter().collect::<Vec<_>>(),
        })
    }

    /// The outcome as `rarity evaluate` prints it: per metric its mean, std
    /// and full potential, with notes.
    pub fn to_text(&self, source: &str) -> String {
        let summary = self.summary();
        let n = self.evaluation.folds.len();
        let how = if self.pooled {
            format!(
                "metrics of the pooled out-of-fold predictions, mean±std over {n} repeat{}",
                if n == 1 { "" } else { "s" }
            )
        } else {
            "mean±std over folds".to_string()
        };
        let mut t = Table::new(&["metric", "mean", "std", "full potential"]);
        for (name, s) in &summary {
            t.text_row(vec![
                name.clone(),
                metric_text(s.mean),
                metric_text(s.std),
                s.full_potential.map_or(String::new(), metric_text),
            ]);
        }
        let murphy = if summary.iter().any(|(k, _)| k == "brier_reliability") {
            format!(
                "\nbrier_reliability, brier_resolution: Murphy's decomposition of the Brier score \
                 over {MURPHY_BINS} equal-width probability bins (the reliability diagram's); with the \
                 within-bin terms (Stephenson et al. 2008) it adds up: brier = reliability - \
                 resolution + uncertainty + within_bin_variance - within_bin_covariance\n"
            )
        } else {
            String::new()
        };
        let undefined = super::undefined_note(
            summary
                .iter()
                .filter(|(_, s)| s.mean.is_nan())
                .map(|(k, _)| k.as_str()),
        );
        let note = self
            .note
            .as_ref()
            .map_or(String::new(), |n| format!("\nnote: {n}\n"));
        let (fit_s, predict_s) = self.evaluation.seconds();
        format!(
            "{} on {source} ({} folds, cv {}; {how})\nfit {:.2} s, predict {:.2} s in total\n\n{}{murphy}{undefined}{note}",
            self.evaluation.spec,
            self.folds(),
            self.request.cv,
            fit_s,
            predict_s,
            t.to_text()
        )
    }
}
