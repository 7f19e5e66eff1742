//! The `run` job (`rarity run`, `rarity.run`): a [`RunRequest`] as both
//! front ends spell it, checked into a [`RunPlan`] before any data is read,
//! run into a [`RunJob`] that renders itself as the command line's ranked
//! tables, verdict and winner (text) or its JSON.

use std::path::Path;

use serde_json::{json, Map, Value};

use super::Front;
use crate::data::read::RowsDropped;
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::evaluate::{Extras, Summary};
use crate::experiment::compare::{DECISION_METRICS, MODEL_METRICS};
use crate::experiment::run::{
    classes_text, counts_text, decision_copies, decision_metric, decision_notes, folds_text,
    parse_benefit, parse_cost, ranking_metric, report_notes, run, Level, RunOutcome, RunSettings,
};
use crate::experiment::run_report::{run_report, RunContext};
use crate::metrics::catalogue;
use crate::report::format::{mean_std_text, metric_text, p_value_text};
use crate::report::table::Table;
use crate::report::Report;
use crate::split::Splitter;

/// What to compare and how: the parameters of `rarity run` and
/// `rarity.run`, as text the way their users write them.
#[derive(Debug, Clone)]
pub struct RunRequest {
    /// Strategy specs; empty: the default set for the task.
    pub models: Vec<String>,
    /// The ranking metric (`--metric`).
    pub metric: String,
    /// The metric comparing each model's decisions; `None`: the default.
    pub decision_metric: Option<String>,
    /// The cross-validation as written (`2x5`, `loo`, `time(col=t)`, ...).
    pub cv: String,
    /// Rank on each repeat's pooled out-of-fold predictions.
    pub pooled: bool,
    /// Misclassification costs, `fn=..,fp=..` or `matrix='...'`.
    pub cost: Option<String>,
    /// Example-dependent benefit, `amount=COL,overhead=V`.
    pub benefit: Option<String>,
    /// Keep every out-of-fold prediction (for a report's curves).
    pub keep_predictions: bool,
    /// Keep the out-of-fold rows for [`RunJob::write_oof`].
    pub oof: bool,
    /// The seed of folds and fits.
    pub seed: u64,
    /// Which front end wrote the request (for its error messages).
    pub front: Front,
}

/// A checked request: every parameter parsed, nothing run yet.
#[derive(Debug)]
pub struct RunPlan {
    request: RunRequest,
    settings: RunSettings,
}

impl RunRequest {
    /// The ranking metric when none is given (`--metric`, `metric=`).
    pub const DEFAULT_METRIC: &'static str = "average_precision";
    /// The cross-validation when none is given (`--cv`, `cv=`): 2 repeats
    /// of 5 folds.
    pub const DEFAULT_CV: &'static str = "2x5";

    /// Parses and checks every parameter (metrics, costs, benefit,
    /// cross-validation, strategies) before any data is read.
    pub fn plan(self) -> Result<RunPlan> {
        let param = |name: &str, text: &str, e: Error| {
            Error::invalid(format!("{} '{text}': {e}", self.front.param(name)))
        };
        let cost = match &self.cost {
            Some(s) => Some(parse_cost(s).map_err(|e| param("cost", s, e))?),
            None => None,
        };
        let benefit = match &self.benefit {
            Some(s) => Some(parse_benefit(s).map_err(|e| param("benefit", s, e))?),
            None => None,
        };
        let (has_cost, has_benefit) = (cost.is_some(), benefit.is_some());
        let metric = ranking_metric(&self.metric, has_cost, has_benefit)?;
        let decision = self
            .decision_metric
            .as_deref()
            .map(|k| ranking_metric(k, has_cost, has_benefit))
            .transpose()?;
        decision_metric(metric, decision, has_cost, has_benefit)?;
        let splitter: Splitter = self.cv.parse()?;
        let strategies = self
            .models
            .iter()
            .map(|s| crate::spec::build_strategy(s))
            .collect::<Result<_>>()?;
        let settings = RunSettings {
            strategies,
            decision_copies: decision_copies(
                self.cost.as_deref().zip(cost.as_ref()),
                benefit.as_ref(),
            ),
            extras: Extras {
                cost,
                benefit,
                keep_predictions: self.keep_predictions,
                metrics: Vec::new(),
                oof: self.oof,
            },
            metric,
            decision_metric: decision,
            splitter,
            pooled: self.pooled,
            seed: self.seed,
        };
        Ok(RunPlan {
            request: self,
            settings,
        })
    }
}

impl RunPlan {
    /// Why one of the strategies cannot take missing values (`None`: each
    /// can, or the task's defaults are run, each given an imputation where
    /// it needs one), for [`crate::job::missing_policy`].
    pub fn missing_refusal(&self) -> Option<String> {
        let given: Vec<&crate::strategy::Strategy> = self.settings.strategies.iter().collect();
        super::refusal(&given)
    }

    /// The cross-validation (a `time(...)` / `group(...)` splitter names
    /// the column the data must keep).
    pub fn splitter(&self) -> &Splitter {
        &self.settings.splitter
    }

    /// Runs the job on `data` ([`crate::experiment::run::run`]).
    pub fn run(self, data: &Dataset) -> Result<RunJob> {
        let outcome = run(data, self.settings)?;
        Ok(RunJob {
            outcome,
            data: data.clone(),
            request: self.request,
        })
    }
}

/// Where a run's data came from and where its results went, as the
/// outcome shows them.
#[derive(Debug, Clone)]
pub struct Shown<'a> {
    /// The data as the user named it (a path, a bundled name, `<data>`).
    pub source: &'a str,
    /// Incomplete rows the reader dropped.
    pub rows_dropped: RowsDropped,
    /// Where the winner was saved, if it was.
    pub saved: Option<&'a Path>,
    /// The report's directory, if one was written.
    pub report: Option<&'a Path>,
    /// Why the run used this data when its user named none
    /// ([`crate::data::bundled::DEFAULT_WHY`]).
    pub why: Option<&'a str>,
    /// How the user can call this rarity, when not as `rarity` (it is not
    /// on their `PATH`): the `next:` line says so.
    pub program: Option<&'a str>,
}

/// What a run found, with its data and request, rendering itself.
#[derive(Debug, Clone)]
pub struct RunJob {
    /// The library's outcome.
    pub outcome: RunOutcome,
    /// The data it ran on.
    pub data: Dataset,
    /// The request it ran.
    pub request: RunRequest,
}

/// A summary as JSON: mean, std and full potential (null if none).
fn summary_json(s: &Summary) -> Value {
    json!({"mean": s.mean, "std": s.std, "full_potential": s.full_potential})
}

impl RunJob {
    /// Writes every strategy's out-of-fold predictions to `path`.
    pub fn write_oof(&self, path: &Path) -> Result<()> {
        let all: Vec<&_> = self.outcome.comparison.evaluations.iter().collect();
        crate::evaluate::write_oof(path, &self.data, &all)
    }

    /// Writes the HTML report (and every table as CSV and JSON) to `dir`.
    pub fn write_report(&self, dir: &Path, source: &str, saved: Option<&Path>) -> Result<()> {
        self.report(source, saved)?.write(dir)
    }

    /// The HTML report's page (tables and SVG figures inline, nothing
    /// fetched), as `index.html` of [`RunJob::write_report`] holds it.
    pub fn report_html(&self, source: &str) -> Result<String> {
        Ok(self.report(source, None)?.to_html())
    }

    /// The report's files ([`Report::files`]) as [`RunJob::write_report`]
    /// would write them (nothing saved).
    pub fn report_files(&self, source: &str) -> Result<Vec<(String, String)>> {
        self.report(source, None)?.files()
    }

    /// The report of the outcome (`source` names the data, `saved` the
    /// model file, if any).
    fn report(&self, source: &str, saved: Option<&Path>) -> Result<Report> {
        let notes = report_notes(
            &self.outcome,
            &self.data,
            source,
            &self.request.cv,
            self.request.cost.as_deref(),
            saved,
        );
        let ctx = RunContext {
            data: &self.data,
            notes,
        };
        run_report(&self.outcome, &ctx)
    }

    /// Per strategy, its metrics' summaries.
    fn summaries(&self) -> Vec<Vec<(String, Summary)>> {
        let evaluations = &self.outcome.comparison.evaluations;
        evaluations.iter().map(|e| e.summary()).collect()
    }

    /// The model (index) of strategy `i`.
    fn model_of(&self, i: usize) -> usize {
        self.outcome
            .comparison
            .models
            .iter()
            .position(|m| m.strategies.contains(&i))
            .expect("every strategy is in a model")
    }

    /// The outcome as `rarity run --format json` prints it.
    pub fn to_json(&self, shown: &Shown) -> Value {
        let (o, summaries) = (&self.outcome, self.summaries());
        let cmp = &o.comparison;
        let metrics_json = |i: usize| -> Map<String, Value> {
            summaries[i]
                .iter()
                .map(|(k, s)| (k.clone(), summary_json(s)))
                .collect()
        };
        let spec = |i: usize| &cmp.evaluations[i].spec;
        let ranking: Vec<_> = match o.level {
            Level::Models => o
                .decisions
                .iter()
                .map(|d| {
                    let i = d.strategies[0];
                    json!({"model": cmp.models[d.model].spec, "strategy": spec(i), "metrics": metrics_json(i)})
                })
                .collect(),
            Level::Strategies => o
                .order
                .iter()
                .map(|&i| json!({"strategy": spec(i), "model": cmp.models[self.model_of(i)].spec, "metrics": metrics_json(i)}))
                .collect(),
        };
        let models: Vec<_> = o
            .model_order
            .iter()
            .map(|&m| {
                let e = &cmp.models[m];
                let metrics: Map<_, _> = MODEL_METRICS
                    .iter()
                    .filter_map(|k| summaries[e.strategies[0]].iter().find(|(n, _)| n == k))
                    .map(|(k, s)| (k.clone(), json!({"mean": s.mean, "std": s.std})))
                    .collect();
                let specs: Vec<_> = e.strategies.iter().map(|&i| spec(i)).collect();
                json!({"model": e.spec, "strategies": specs, "metrics": metrics})
            })
            .collect();
        let dm = o.decision_metric.key;
        let decisions: Vec<_> = o
            .decisions
            .iter()
            .map(|d| {
                let rows: Vec<_> = d
                    .strategies
                    .iter()
                    .zip(&d.p_vs_best)
                    .map(|(&i, &p)| json!({"strategy": spec(i),
                        "decision": o.strategies[i].decision_stage.clone().unwrap_or_else(|| "default".into()),
                        "p_vs_best": p, "metrics": metrics_json(i)}))
                    .collect();
                json!({"model": cmp.models[d.model].spec, "metric": dm, "decisions": rows})
            })
            .collect();
        let ties: Vec<_> = o
            .ties
            .iter()
            .map(|t| {
                let items: Vec<&str> = t
                    .items
                    .iter()
                    .map(|&i| match o.level {
                        Level::Models => cmp.models[i].spec.as_str(),
                        Level::Strategies => spec(i).as_str(),
                    })
                    .collect();
                json!({"items": items, "value": t.value, "by": t.by})
            })
            .collect();
        let mut notes = decision_notes(o, &self.data);
        notes.extend(self.alert_note());
        let r = &self.request;
        json!({
            "data": shown.source, "data_why": shown.why, "cv": r.cv, "pooled": o.pooled, "notes": notes,
            "metric": o.metric.key, "level": o.level,
            "decision_metric": dm, "ranking": ranking, "models": models, "decisions": decisions,
            "verdict": o.verdict, "winner": o.winner_strategy().spec, "ties": ties,
            "saved": shown.saved.map(|p| p.display().to_string()),
            "rows_dropped": shown.rows_dropped,
            "cost": r.cost, "benefit": o.extras.benefit,
            "report": shown.report.map(|d| d.join("index.html").display().to_string()),
        })
    }

    /// The outcome as `rarity run` prints it: the ranked table, each
    /// model's decisions, notes, the verdict and the winner.
    pub fn to_text(&self, shown: &Shown) -> String {
        let cells = Cells::new(self);
        let mut out = self.header(shown, &cells);
        out.push_str(&self.ranking_text(&cells));
        out.push_str(&self.ties_text(&cells));
        out.push_str(&self.decisions_text(&cells));
        let mut notes = decision_notes(&self.outcome, &self.data);
        notes.extend(self.alert_note());
        for n in &notes {
            out.push_str(&format!("note: {n}\n"));
        }
        if !notes.is_empty() {
            out.push('\n');
        }
        out.push_str(&self.verdict_text(&cells));
        out.push_str(&winner_text(
            self.outcome.metric.key,
            &self.outcome.winner_strategy().spec,
            shown,
        ));
        out
    }

    /// On a binary task whose decisions the default `g_mean` chose, when the
    /// winner flags more than twice the positives' share of the rows: what
    /// that costs in alerts, and the metrics that fit an alert budget.
    fn alert_note(&self) -> Option<String> {
        let (o, r) = (&self.outcome, &self.request);
        let default = r.decision_metric.is_none() && r.cost.is_none() && r.benefit.is_none();
        if !default || o.decision_metric.key != "g_mean" || self.data.n_classes() != 2 {
            return None;
        }
        let summaries = self.summaries();
        let winner = &summaries[o.order[0]];
        let mean = |k: &str| winner.iter().find(|(n, _)| n == k).map(|(_, s)| s.mean);
        let (tp, fp, tn, fneg) = (mean("tp")?, mean("fp")?, mean("tn")?, mean("fn")?);
        let rows = tp + fp + tn + fneg;
        let (flagged, positive) = ((tp + fp) / rows, (tp + fneg) / rows);
        if !(flagged > 2.0 * positive) {
            return None;
        }
        Some(format!(
            "the decisions were chosen by g_mean (the default), which weighs both classes' recall \
             alike: the winner flags {:.1}% of the rows where {:.1}% are positive (precision {:.3}). \
             When alerts cost review time, decide by costs (--cost fn=..,fp=.. --metric cost: the \
             Bayes minimum-risk threshold) or rank by an alert budget (--metric \
             'recall_at_alert_rate(rate=0.01)' or 'precision_at_k(k=100)') and decide by \
             --decision-metric f1",
            100.0 * flagged,
            100.0 * positive,
            tp / (tp + fp)
        ))
    }

    /// The two lines above the tables.
    fn header(&self, shown: &Shown, cells: &Cells) -> String {
        let o = &self.outcome;
        let level = match o.level {
            Level::Models => "models",
            Level::Strategies => "strategies",
        };
        let over = if !o.pooled {
            "mean±std over folds"
        } else if cells.one_value {
            "one value of the pooled out-of-fold predictions"
        } else {
            "pooled out-of-fold predictions, mean±std over repeats"
        };
        let why = shown.why.map_or(String::new(), |w| format!("{w}\n"));
        format!(
            "{why}{}: {} rows, {}, cv {} ({}); {}\n\
             ranked by {}: it ranks {level}; {over}{}{}\n\n",
            shown.source,
            self.data.n_rows(),
            classes_text(&self.data),
            self.request.cv,
            folds_text(o),
            counts_text(o),
            o.metric.key,
            if o.extras.cost.is_some() {
                "; cost: mean loss per row"
            } else {
                ""
            },
            if o.extras.benefit.is_some() {
                "; benefit: total per test fold"
            } else {
                ""
            },
        )
    }

    /// The table of ranked models or strategies.
    fn ranking_text(&self, cells: &Cells) -> String {
        let (o, metric) = (&self.outcome, self.outcome.metric.key);
        let cmp = &o.comparison;
        match o.level {
            Level::Models => {
                let mut keys = vec![metric];
                keys.extend(MODEL_METRICS.iter().copied().filter(|k| *k != metric));
                let mut t = table(&["#", "model"], &keys);
                for &m in &o.model_order {
                    let i = cmp.models[m].strategies[0];
                    let mut row = vec![cells.model_label[m].clone(), cmp.models[m].spec.clone()];
                    row.extend(keys.iter().map(|k| cells.cell(i, k)));
                    t.text_row(row);
                }
                format!("models ranked by {metric}\n{}\n", t.to_text())
            }
            Level::Strategies => {
                let mut keys = cells.decision_keys.clone();
                keys.extend(["roc_auc", "average_precision"]);
                let mut t = table(&["#", "strategy", "model"], &keys);
                for (r, &i) in o.order.iter().enumerate() {
                    let mut row = vec![
                        (r + 1).to_string(),
                        cmp.evaluations[i].spec.clone(),
                        cells.model_label[self.model_of(i)].clone(),
                    ];
                    row.extend(keys.iter().map(|k| cells.cell(i, k)));
                    t.text_row(row);
                }
                format!("strategies ranked by {metric}\n{}\n", t.to_text())
            }
        }
    }

    /// One line per tie on the ranking metric: who tied and what ordered
    /// them (empty without ties).
    fn ties_text(&self, cells: &Cells) -> String {
        let o = &self.outcome;
        let mut out = String::new();
        for t in &o.ties {
            let names: Vec<String> = t
                .items
                .iter()
                .map(|&i| match o.level {
                    Level::Models => {
                        format!("{} {}", cells.model_label[i], o.comparison.models[i].spec)
                    }
                    Level::Strategies => o.comparison.evaluations[i].spec.clone(),
                })
                .collect();
            let how = match t.by.as_str() {
                "position" => "nothing else told them apart: in the order given".into(),
                by => {
                    let dir = catalogue::metric(by).map_or("", |m| {
                        if m.higher_is_better() {
                            " (higher first)"
                        } else {
                            " (lower first)"
                        }
                    });
                    format!("ordered by {}{dir}", label(by))
                }
            };
            out.push_str(&format!(
                "tie on {} ({}, equal to 12 digits): {}; {how}\n",
                o.metric.key,
                metric_text(t.value),
                names.join(", "),
            ));
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out
    }

    /// The table of each model's decisions.
    fn decisions_text(&self, cells: &Cells) -> String {
        let o = &self.outcome;
        let dm = o.decision_metric.key;
        let mut header = vec!["model".to_string(), "strategy".to_string(), label(dm)];
        header.push("p vs best".into());
        header.extend(cells.decision_keys.iter().skip(1).map(|k| label(k)));
        let refs: Vec<&str> = header.iter().map(String::as_str).collect();
        let mut t = Table::new(&refs);
        for d in &o.decisions {
            for (&i, &p) in d.strategies.iter().zip(&d.p_vs_best) {
                let mut row = vec![
                    cells.model_label[d.model].clone(),
                    o.comparison.evaluations[i].spec.clone(),
                ];
                row.push(cells.cell(i, dm));
                row.push(p_value_text(p));
                row.extend(cells.decision_keys.iter().skip(1).map(|k| cells.cell(i, k)));
                t.text_row(row);
            }
        }
        format!(
            "decisions of each model by {dm} (p vs best: Wilcoxon signed-rank over {} against the model's best decision)\n{}\n",
            if o.pooled { "repeats" } else { "folds" },
            t.to_text()
        )
    }

    /// The verdict and the models tied with the best.
    fn verdict_text(&self, cells: &Cells) -> String {
        let (o, verdict) = (&self.outcome, &self.outcome.verdict);
        let mut out = format!("verdict: {}\n", verdict.summary);
        if verdict.testable {
            out.push_str(&format!(
                "not significantly worse than the best: {}\n",
                o.model_order
                    .iter()
                    .filter(|m| verdict.tied_with_best.contains(m))
                    .map(|&m| format!("{} {}", cells.model_label[m], verdict.models[m]))
                    .collect::<Vec<_>>()
                    .join("; ")
            ));
        }
        out
    }
}

/// The winner, where it was saved and what to do next, and the report.
fn winner_text(metric: &str, winner: &str, shown: &Shown) -> String {
    let mut out = format!("\nwinner for {metric}: {winner}\n");
    if let Some(saved) = shown.saved {
        let program = shown.program.map_or("rarity".to_string(), shell_word);
        out.push_str(&format!(
            "saved, trained on all rows, to {}\nnext: {program} predict {} FILE -o predictions.csv\n",
            saved.display(),
            shell_word(&saved.display().to_string())
        ));
        if shown.program.is_some() {
            out.push_str(
                "(rarity is not on your PATH; `cargo install --path .` in its checkout puts it there)\n",
            );
        }
    }
    if let Some(dir) = shown.report {
        out.push_str(&format!(
            "report written to {}\n",
            dir.join("index.html").display()
        ));
    }
    out
}

/// A metric's label (its key when the catalogue has none).
fn label(k: &str) -> String {
    catalogue::metric(k).map_or(k.to_string(), |m| m.label.to_string())
}

/// A table with the columns `first` then the labels of `keys`.
fn table(first: &[&str], keys: &[&str]) -> Table {
    let mut header: Vec<String> = first.iter().map(|s| s.to_string()).collect();
    header.extend(keys.iter().map(|k| label(k)));
    let refs: Vec<&str> = header.iter().map(String::as_str).collect();
    Table::new(&refs)
}

/// The cells of a run's text tables.
struct Cells {
    summaries: Vec<Vec<(String, Summary)>>,
    /// Whether each metric is one value (pooled, one repeat): no ± std.
    one_value: bool,
    /// `M1`, `M2`, ... by model rank, per model index.
    model_label: Vec<String>,
    /// The decision metric, then cost, benefit and the thresholded metrics
    /// the run measured.
    decision_keys: Vec<&'static str>,
}

impl Cells {
    fn new(job: &RunJob) -> Cells {
        let o = &job.outcome;
        let summaries = job.summaries();
        let mut model_label = vec![String::new(); o.comparison.models.len()];
        for (r, &m) in o.model_order.iter().enumerate() {
            model_label[m] = format!("M{}", r + 1);
        }
        let dm = o.decision_metric.key;
        let has = |k: &str| summaries[0].iter().any(|(n, _)| n == k);
        let mut decision_keys: Vec<&'static str> = vec![dm];
        decision_keys.extend(
            ["cost", "benefit"]
                .iter()
                .chain(DECISION_METRICS)
                .copied()
                .filter(|k| *k != dm && has(k)),
        );
        Cells {
            one_value: o.pooled && o.comparison.evaluations[0].folds.len() == 1,
            summaries,
            model_label,
            decision_keys,
        }
    }

    /// Strategy `i`'s `key` as the tables show it (`-` when not measured).
    fn cell(&self, i: usize, key: &str) -> String {
        self.summaries[i]
            .iter()
            .find(|(k, _)| k == key)
            .map_or("-".into(), |(_, s)| {
                if self.one_value {
                    metric_text(s.mean)
                } else {
                    mean_std_text(s.mean, s.std)
                }
            })
    }
}

/// `s` as one shell word: as is when it holds only safe characters, else
/// in single quotes.
///
/// ```
/// use rarity::job::run::shell_word;
/// assert_eq!(shell_word("a/b.rarity"), "a/b.rarity");
/// assert_eq!(shell_word("-x"), "./-x");
/// assert_eq!(shell_word("it's"), r"'it'\''s'");
/// ```
pub fn shell_word(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./+=:,@".contains(c);
    if s.starts_with('-') {
        // Not an option.
        shell_word(&format!("./{s}"))
    } else if !s.is_empty() && s.chars().all(safe) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}
