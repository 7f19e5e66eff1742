//! `rarity run`: the main job. Compares the strategies that matter on one
//! dataset with repeated stratified cross-validation on shared folds, prints
//! a ranked table and a Friedman / Nemenyi verdict, and saves the winner
//! trained on all rows.

use std::path::PathBuf;

use serde_json::json;

use super::output::{print_json, write_stdout, Table};
use super::{DataArgs, Global, OutputFormat};
use rarity::data::bundled;
use rarity::error::{Error, Result};
use rarity::evaluate::Extras;
use rarity::experiment::compare::{DECISION_METRICS, MODEL_METRICS};
use rarity::experiment::run::{
    classes_text, counts_text, decision_copies, decision_metric, decision_notes, folds_text,
    ranking_metric, report_notes, run as run_job, Level, RunSettings,
};
use rarity::experiment::run_report::{run_report, RunContext};
use rarity::metrics::catalogue;
use rarity::metrics::cost::{Benefit, LossMatrix};
use rarity::persist::{save, Format};
use rarity::report::format::{mean_std_text, metric_text, p_value_text};
use rarity::split::Splitter;

/// Arguments of `rarity run`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = rarity::spec::help())]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// The metric that ranks: any key of `rarity score` with a direction,
    /// or `cost` / `benefit` with `--cost` / `--benefit`. A ranking or
    /// probability metric (average_precision, roc_auc, brier, log_loss)
    /// ranks models (everything but the decision: strategies that differ only
    /// in their decision are one model); a thresholded one (g_mean, f1, ...,
    /// cost, benefit) ranks strategies. The Friedman / Nemenyi verdict
    /// compares models.
    #[arg(long, default_value = "average_precision")]
    metric: String,
    /// The thresholded metric that compares the decisions of each model
    /// (and picks the winner's decision) when `--metric` ranks models;
    /// default: cost with `--cost`, benefit with `--benefit`, else g_mean.
    #[arg(long, value_name = "METRIC")]
    decision_metric: Option<String>,
    /// Repeated cross-validation, `RxK` (R repeats of K folds), K folds,
    /// `loo` (leave-one-out, always pooled), holdout:F, or
    /// time(col=COL, folds=5) / group(col=COL, folds=5) (see `rarity evaluate --help`).
    #[arg(long, default_value = "2x5")]
    cv: String,
    /// Pool the out-of-fold predictions of each repeat and compute every
    /// metric once on them (one value per repeat), ranking and testing on
    /// those instead of per-fold values; always on with `--cv loo`.
    #[arg(long)]
    pooled: bool,
    /// Compare these strategies instead of the default set (repeatable).
    #[arg(long = "model", short = 'm')]
    models: Vec<String>,
    /// Misclassification costs `fn=..,fp=..[,tp=0,tn=0]` (or
    /// `matrix='0,1;5,0'`): adds metric `cost`, the mean loss per test row of
    /// each strategy's decisions, and for every model whose probabilities
    /// are calibrated (platt, isotonic, correct, logistic, svm) or that
    /// decides by `threshold(priors)` a copy deciding by `cost(...)` (Bayes
    /// minimum risk).
    #[arg(long, value_name = "COSTS")]
    cost: Option<String>,
    /// Example-dependent benefit `amount=COL,overhead=V` (COL a feature
    /// column): adds metric `benefit`, the total over each test fold (a caught
    /// positive earns amount - V, a false alarm costs V), and for the same
    /// models as `--cost` a copy deciding by `benefit(...)`.
    #[arg(long, value_name = "SPEC")]
    benefit: Option<String>,
    /// Write an HTML report with plots, and every table as CSV and JSON, to DIR.
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
    /// Write every strategy's out-of-fold predictions to FILE (CSV, or
    /// Parquet for `.parquet`): row, repeat, fold, strategy, truth,
    /// p_<class>, label.
    #[arg(long, value_name = "FILE")]
    oof: Option<PathBuf>,
    /// Where to save the winner trained on all rows.
    #[arg(short, long, default_value = "rarity-winner.rarity")]
    output: PathBuf,
}

impl Default for Args {
    fn default() -> Self {
        use clap::Parser;
        #[derive(Parser)]
        struct Wrap {
            #[command(flatten)]
            a: Args,
        }
        Wrap::parse_from(["run"]).a
    }
}

/// The loss matrix of `--cost` (the arguments of `cost(...)`).
fn parse_cost(s: &str) -> Result<LossMatrix> {
    rarity::experiment::run::parse_cost(s).map_err(|e| Error::invalid(format!("--cost '{s}': {e}")))
}

/// The benefit of `--benefit` (the arguments of `benefit(...)`).
pub(super) fn parse_benefit(s: &str) -> Result<Benefit> {
    rarity::experiment::run::parse_benefit(s)
        .map_err(|e| Error::invalid(format!("--benefit '{s}': {e}")))
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    let cost = a.cost.as_deref().map(parse_cost).transpose()?;
    let benefit: Option<Benefit> = a.benefit.as_deref().map(parse_benefit).transpose()?;
    let ranking = ranking_metric(&a.metric, cost.is_some(), benefit.is_some())?;
    let decision = a
        .decision_metric
        .as_deref()
        .map(|k| ranking_metric(k, cost.is_some(), benefit.is_some()))
        .transpose()?;
    // Checked before any work.
    decision_metric(ranking, decision, cost.is_some(), benefit.is_some())?;
    a.data
        .paths()
        .output("-o", &a.output)
        .output_opt("--oof", a.oof.as_ref())
        .report_opt("--report", a.report.as_ref())
        .check()?;
    if let Some(dir) = &a.report {
        rarity::report::check_report_dir(dir)?;
    }
    if let Some(path) = &a.oof {
        rarity::data::write::check_output(path)?;
    }
    let splitter: Splitter = a.cv.parse()?;
    let (ds, report) = a
        .data
        .load_split(Some(bundled::DEFAULT), g.quiet, Some(&splitter))?;
    let decision_copies = decision_copies(a.cost.as_deref().zip(cost.as_ref()), benefit.as_ref());
    let settings = RunSettings {
        strategies: a
            .models
            .iter()
            .map(|s| rarity::spec::build_strategy(s))
            .collect::<Result<_>>()?,
        decision_copies,
        extras: Extras {
            cost,
            benefit,
            keep_predictions: a.report.is_some(),
            metrics: Vec::new(),
            oof: a.oof.is_some(),
        },
        metric: ranking,
        decision_metric: decision,
        splitter,
        pooled: a.pooled,
        seed: g.seed,
    };
    let extras = settings.extras.clone();
    let outcome = super::bar::during(g, || run_job(&ds, settings))?;
    save(&outcome.winner, &a.output, Format::Binary)?;
    let cmp = &outcome.comparison;
    if let Some(path) = &a.oof {
        let all: Vec<&_> = cmp.evaluations.iter().collect();
        rarity::evaluate::write_oof(path, &ds, &all)?;
    }
    let verdict = &outcome.verdict;
    let winner = outcome.winner_strategy();
    let metric = ranking.key;
    let dm = outcome.decision_metric.key;
    let level = match outcome.level {
        Level::Models => "models",
        Level::Strategies => "strategies",
    };

    let classes = classes_text(&ds);
    let counts = counts_text(&outcome);
    if let Some(dir) = &a.report {
        let notes = report_notes(
            &outcome,
            &ds,
            &report.source,
            &a.cv,
            a.cost.as_deref(),
            Some(&a.output),
        );
        let ctx = RunContext { data: &ds, notes };
        run_report(&outcome, &ctx)?.write(dir)?;
    }

    let notes = decision_notes(&outcome, &ds);
    let one_value = outcome.pooled && cmp.evaluations[0].folds.len() == 1;
    let summaries: Vec<_> = cmp.evaluations.iter().map(|e| e.summary()).collect();
    let metrics_json = |i: usize| -> serde_json::Map<String, serde_json::Value> {
        summaries[i]
            .iter()
            .map(|(k, s)| {
                (
                    k.clone(),
                    json!({"mean": s.mean, "std": s.std, "full_potential": s.full_potential}),
                )
            })
            .collect()
    };
    let model_of = |i: usize| {
        cmp.models
            .iter()
            .position(|m| m.strategies.contains(&i))
            .expect("every strategy is in a model")
    };
    if g.format == OutputFormat::Json {
        let ranking_rows: Vec<_> = match outcome.level {
            Level::Models => outcome
                .decisions
                .iter()
                .map(|d| {
                    let i = d.strategies[0];
                    json!({"model": cmp.models[d.model].spec, "strategy": cmp.evaluations[i].spec, "metrics": metrics_json(i)})
                })
                .collect(),
            Level::Strategies => outcome
                .order
                .iter()
                .map(|&i| json!({"strategy": cmp.evaluations[i].spec, "model": cmp.models[model_of(i)].spec, "metrics": metrics_json(i)}))
                .collect(),
        };
        let models: Vec<_> = outcome
            .model_order
            .iter()
            .map(|&m| {
                let e = &cmp.models[m];
                json!({"model": e.spec, "strategies": e.strategies.iter().map(|&i| &cmp.evaluations[i].spec).collect::<Vec<_>>(),
                       "metrics": MODEL_METRICS.iter().filter_map(|k| summaries[e.strategies[0]].iter().find(|(n, _)| n == k))
                           .map(|(k, s)| (k.clone(), json!({"mean": s.mean, "std": s.std}))).collect::<serde_json::Map<_, _>>()})
            })
            .collect();
        let decisions: Vec<_> = outcome
            .decisions
            .iter()
            .map(|d| {
                let rows: Vec<_> = d
                    .strategies
                    .iter()
                    .zip(&d.p_vs_best)
                    .map(|(&i, &p)| json!({"strategy": cmp.evaluations[i].spec,
                        "decision": outcome.strategies[i].decision_stage.clone().unwrap_or_else(|| "default".into()),
                        "p_vs_best": p, "metrics": metrics_json(i)}))
                    .collect();
                json!({"model": cmp.models[d.model].spec, "metric": dm, "decisions": rows})
            })
            .collect();
        return print_json(&json!({
            "data": report.source, "cv": a.cv, "pooled": outcome.pooled, "notes": notes, "metric": metric, "level": outcome.level,
            "decision_metric": dm, "ranking": ranking_rows, "models": models, "decisions": decisions,
            "verdict": verdict, "winner": winner.spec, "saved": a.output.display().to_string(),
            "rows_dropped": report.rows_dropped(),
            "cost": a.cost, "benefit": extras.benefit,
            "report": a.report.as_ref().map(|d| d.join("index.html").display().to_string()),
        }));
    }

    let cell = |i: usize, key: &str| -> String {
        summaries[i]
            .iter()
            .find(|(k, _)| k == key)
            .map_or("-".into(), |(_, s)| {
                if one_value {
                    metric_text(s.mean)
                } else {
                    mean_std_text(s.mean, s.std)
                }
            })
    };
    let label = |k: &str| catalogue::metric(k).map_or(k.to_string(), |m| m.label.to_string());
    let has = |k: &str| summaries[0].iter().any(|(n, _)| n == k);
    let mut decision_keys: Vec<&str> = vec![dm];
    decision_keys.extend(
        ["cost", "benefit"]
            .iter()
            .chain(DECISION_METRICS)
            .copied()
            .filter(|k| *k != dm && has(k)),
    );
    let over = if !outcome.pooled {
        "mean±std over folds"
    } else if cmp.evaluations[0].folds.len() == 1 {
        "one value of the pooled out-of-fold predictions"
    } else {
        "pooled out-of-fold predictions, mean±std over repeats"
    };
    let mut out = format!(
        "{}: {} rows, {classes}, cv {} ({}); {counts}\n\
         ranked by {metric}: it ranks {level}; {over}{}{}\n\n",
        report.source,
        ds.n_rows(),
        a.cv,
        folds_text(&outcome),
        if extras.cost.is_some() {
            "; cost: mean loss per row"
        } else {
            ""
        },
        if extras.benefit.is_some() {
            "; benefit: total per test fold"
        } else {
            ""
        },
    );
    let mut model_label = vec![String::new(); cmp.models.len()];
    for (r, &m) in outcome.model_order.iter().enumerate() {
        model_label[m] = format!("M{}", r + 1);
    }
    match outcome.level {
        Level::Models => {
            let mut keys = vec![metric];
            keys.extend(MODEL_METRICS.iter().copied().filter(|k| *k != metric));
            let mut header = vec!["#".to_string(), "model".to_string()];
            header.extend(keys.iter().map(|k| label(k)));
            let refs: Vec<&str> = header.iter().map(String::as_str).collect();
            let mut t = Table::new(&refs);
            for &m in &outcome.model_order {
                let i = cmp.models[m].strategies[0];
                let mut row = vec![model_label[m].clone(), cmp.models[m].spec.clone()];
                row.extend(keys.iter().map(|k| cell(i, k)));
                t.text_row(row);
            }
            out.push_str(&format!("models ranked by {metric}\n{}\n", t.to_text()));
        }
        Level::Strategies => {
            let mut keys = decision_keys.clone();
            keys.extend(["roc_auc", "average_precision"]);
            let mut header = vec!["#".to_string(), "strategy".to_string(), "model".to_string()];
            header.extend(keys.iter().map(|k| label(k)));
            let refs: Vec<&str> = header.iter().map(String::as_str).collect();
            let mut t = Table::new(&refs);
            for (r, &i) in outcome.order.iter().enumerate() {
                let mut row = vec![
                    (r + 1).to_string(),
                    cmp.evaluations[i].spec.clone(),
                    model_label[model_of(i)].clone(),
                ];
                row.extend(keys.iter().map(|k| cell(i, k)));
                t.text_row(row);
            }
            out.push_str(&format!("strategies ranked by {metric}\n{}\n", t.to_text()));
        }
    }
    let mut header = vec!["model".to_string(), "strategy".to_string()];
    header.push(label(dm));
    header.push("p vs best".into());
    header.extend(decision_keys.iter().skip(1).map(|k| label(k)));
    let refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new(&refs);
    for d in &outcome.decisions {
        for (&i, &p) in d.strategies.iter().zip(&d.p_vs_best) {
            let mut row = vec![
                model_label[d.model].clone(),
                cmp.evaluations[i].spec.clone(),
            ];
            row.push(cell(i, dm));
            row.push(p_value_text(p));
            row.extend(decision_keys.iter().skip(1).map(|k| cell(i, k)));
            t.text_row(row);
        }
    }
    out.push_str(&format!(
        "decisions of each model by {dm} (p vs best: Wilcoxon signed-rank over {} against the model's best decision)\n{}\n",
        if outcome.pooled { "repeats" } else { "folds" },
        t.to_text()
    ));
    for n in &notes {
        out.push_str(&format!("note: {n}\n"));
    }
    if !notes.is_empty() {
        out.push('\n');
    }
    out.push_str(&format!("verdict: {}\n", verdict.summary));
    if verdict.testable {
        out.push_str(&format!(
            "not significantly worse than the best: {}\n",
            outcome
                .model_order
                .iter()
                .filter(|m| verdict.tied_with_best.contains(m))
                .map(|&m| format!("{} {}", model_label[m], verdict.models[m]))
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    out.push_str(&format!(
        "\nwinner for {metric}: {}\nsaved, trained on all rows, to {}\n\
         next: rarity predict {} FILE -o predictions.csv\n",
        winner.spec,
        a.output.display(),
        shell_word(&a.output.display().to_string())
    ));
    if let Some(dir) = &a.report {
        out.push_str(&format!(
            "report written to {}\n",
            dir.join("index.html").display()
        ));
    }
    write_stdout(&out)
}

/// `s` as one shell word: as is when it holds only safe characters, else
/// in single quotes.
fn shell_word(s: &str) -> String {
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
