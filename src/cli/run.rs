//! `rarity run`: the main job. Compares the strategies that matter on one
//! dataset with repeated stratified cross-validation on shared folds, prints
//! a ranked table and a Friedman / Nemenyi verdict, and saves the winner
//! trained on all rows.

use std::io::IsTerminal;
use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;

use super::output::{num, print_json, write_stdout, Table};
use super::{DataArgs, Global, OutputFormat};
use rarity::data::bundled;
use rarity::decide::registry::{build_stage, loss_matrix, Stage};
use rarity::decide::Decision;
use rarity::error::{Error, Result};
use rarity::evaluate::Extras;
use rarity::experiment::compare::RANKED_METRICS;
use rarity::experiment::run::{ranking_metric, run as run_job, RunSettings};
use rarity::experiment::run_report::{run_report, RunContext};
use rarity::metrics::catalogue;
use rarity::metrics::cost::{Benefit, LossMatrix};
use rarity::params::syntax::parse_args;
use rarity::persist::{save, Format};

/// Arguments of `rarity run`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = rarity::spec::help())]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// The metric that picks the winner: any key of `rarity score` with a
    /// direction (e.g. average_precision, roc_auc, brier, g_mean, f1), or
    /// `cost` / `benefit` with `--cost` / `--benefit`.
    #[arg(long, default_value = "average_precision")]
    metric: String,
    /// Repeated cross-validation, `RxK` (R repeats of K folds).
    #[arg(long, default_value = "2x5")]
    cv: String,
    /// Compare these strategies instead of the default set (repeatable).
    #[arg(long = "model", short = 'm')]
    models: Vec<String>,
    /// Misclassification costs `fn=..,fp=..[,tp=0,tn=0]` (or
    /// `matrix='0,1;5,0'`): adds metric `cost`, the mean loss per test row of
    /// each strategy's decisions, and for every strategy ending in
    /// `threshold(priors)` a copy deciding by `cost(...)` (Bayes minimum risk).
    #[arg(long, value_name = "COSTS")]
    cost: Option<String>,
    /// Example-dependent benefit `amount=COL,overhead=V` (COL a feature
    /// column): adds metric `benefit`, the total over each test fold (a caught
    /// positive earns amount - V, a false alarm costs V), and for every strategy
    /// ending in `threshold(priors)` a copy deciding by `benefit(...)`.
    #[arg(long, value_name = "SPEC")]
    benefit: Option<String>,
    /// Write an HTML report with plots, and every table as CSV and JSON, to DIR.
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
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
    let bad = |e: Error| Error::invalid(format!("--cost '{s}': {e}"));
    loss_matrix(&parse_args("cost", s).map_err(bad)?).map_err(bad)
}

/// The benefit of `--benefit` (the arguments of `benefit(...)`).
pub(super) fn parse_benefit(s: &str) -> Result<Benefit> {
    let bad = |e: Error| Error::invalid(format!("--benefit '{s}': {e}"));
    match build_stage(&parse_args("benefit", s).map_err(bad)?).map_err(bad)? {
        Stage::Decide(Decision::Benefit(b)) => Ok(b),
        _ => Err(Error::invalid(format!(
            "--benefit '{s}': expected amount=COLUMN,overhead=NUMBER"
        ))),
    }
}

/// A progress bar over (strategy, fold) evaluations on stderr, hidden when
/// `show` is false.
fn progress_bar(show: bool) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(
        "  {bar:24} {pos}/{len} (strategy x fold) {elapsed} {wide_msg}",
    ) {
        bar.set_style(style);
    }
    bar
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    let cost = a.cost.as_deref().map(parse_cost).transpose()?;
    let benefit: Option<Benefit> = a.benefit.as_deref().map(parse_benefit).transpose()?;
    let ranking = ranking_metric(&a.metric, cost.is_some(), benefit.is_some())?;
    if let Some(dir) = &a.report {
        rarity::report::prepare_dir(dir)?;
    }
    let (ds, report) = a.data.load_noting(Some(bundled::DEFAULT), g.quiet)?;
    let mut decision_copies = Vec::new();
    if let (Some(m), Some(text)) = (&cost, &a.cost) {
        decision_copies.push((Decision::Cost(m.clone()), format!("cost({})", text.trim())));
    }
    if let Some(b) = &benefit {
        decision_copies.push((
            Decision::Benefit(b.clone()),
            format!("benefit(amount='{}',overhead={})", b.amount, b.overhead),
        ));
    }
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
        },
        metric: ranking,
        splitter: a.cv.parse()?,
        seed: g.seed,
    };
    let extras = settings.extras.clone();
    let bar = progress_bar(!g.quiet && std::io::stderr().is_terminal());
    let progress = |done: usize, total: usize, spec: &str| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
        bar.set_message(spec.to_string());
    };
    let outcome = run_job(&ds, settings, &progress);
    bar.finish_and_clear();
    let outcome = outcome?;
    save(&outcome.winner, &a.output, Format::Binary)?;
    let cmp = &outcome.comparison;
    let order = &outcome.order;
    let verdict = outcome.verdict.as_ref();
    let winner = outcome.winner_strategy();
    let metric = ranking.key;
    let strategies = &outcome.strategies;

    let classes = format!(
        "classes {:?} ({})",
        ds.class_names(),
        ds.class_counts()
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("/")
    );
    if let Some(dir) = &a.report {
        let mut notes = vec![
            format!("Data: {}, {} rows, {} features, {classes}.", report.source, ds.n_rows(), ds.n_features()),
            format!(
                "Protocol: repeated stratified cross-validation {} ({} folds) on shared folds, seed {}; {} strategies.",
                a.cv,
                cmp.evaluations[0].folds.len(),
                g.seed,
                strategies.len()
            ),
        ];
        if let Some(c) = &a.cost {
            notes.push(format!(
                "cost: mean loss per test row of each strategy's decisions under {c} (lower is better)."
            ));
        }
        if let Some(b) = &extras.benefit {
            notes.push(format!(
                "benefit: total over each test fold; a caught positive earns {} - {}, a false alarm costs {} (higher is better).",
                b.amount, b.overhead, b.overhead
            ));
        }
        notes.push(format!(
            "Winner for {metric}: {} (saved, trained on all rows, to {}).",
            winner.spec,
            a.output.display()
        ));
        let ctx = RunContext {
            data: &ds,
            notes,
            metric,
            higher_is_better: ranking.higher_is_better(),
        };
        run_report(cmp, order, verdict, &ctx)?.write(dir)?;
    }

    let summaries: Vec<_> = cmp.evaluations.iter().map(|e| e.summary()).collect();
    if g.format == OutputFormat::Json {
        let rows: Vec<_> = order
            .iter()
            .map(|&i| {
                let m: serde_json::Map<String, serde_json::Value> = summaries[i]
                    .iter()
                    .map(|(k, s)| (k.clone(), json!({"mean": s.mean, "std": s.std, "full_potential": s.full_potential})))
                    .collect();
                json!({"strategy": cmp.evaluations[i].spec, "metrics": m})
            })
            .collect();
        return print_json(&json!({
            "data": report.source, "cv": a.cv, "metric": metric, "ranking": rows,
            "verdict": verdict, "winner": winner.spec, "saved": a.output.display().to_string(),
            "rows_dropped": report.rows_dropped(),
            "cost": a.cost, "benefit": extras.benefit,
            "report": a.report.as_ref().map(|d| d.join("index.html").display().to_string()),
        }));
    }
    let mut keys: Vec<&str> = RANKED_METRICS.to_vec();
    if extras.cost.is_some() {
        keys.push("cost");
    }
    if extras.benefit.is_some() {
        keys.push("benefit");
    }
    let columns: Vec<(&str, &str)> = keys
        .iter()
        .map(|k| catalogue::metric(k).map(|m| (m.key, m.label)))
        .collect::<Result<_>>()?;
    let mut header = vec!["#", "strategy"];
    header.extend(columns.iter().map(|c| c.1));
    let mut t = Table::new(&header);
    let cell = |i: usize, key: &str| -> String {
        summaries[i]
            .iter()
            .find(|(k, _)| k == key)
            .map_or("-".into(), |(_, s)| {
                let fp = s
                    .full_potential
                    .map_or(String::new(), |p| format!(" ({})", num(p, 3)));
                format!("{}±{}{fp}", num(s.mean, 3), num(s.std, 3))
            })
    };
    for (rank, &i) in order.iter().enumerate() {
        let mut row = vec![(rank + 1).to_string(), cmp.evaluations[i].spec.clone()];
        row.extend(columns.iter().map(|c| cell(i, c.0)));
        t.text_row(row);
    }
    let mut out = format!(
        "{}: {} rows, {classes}, cv {} ({} folds), ranked by {metric}\n\
         mean±std over folds; (full potential: best over all thresholds){}{}\n\n{}",
        report.source,
        ds.n_rows(),
        a.cv,
        cmp.evaluations[0].folds.len(),
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
        t.to_text()
    );
    if let Some(v) = &verdict {
        out.push_str(&format!(
            "\nFriedman test on {metric} over folds: p = {:.2e} (Iman-Davenport p = {:.2e}); \
             Nemenyi critical difference {:.2} ranks at alpha 0.05.\n\
             Not significantly worse than the best: {}\n",
            v.friedman_p,
            v.iman_davenport_p,
            v.critical_difference,
            v.tied_with_best
                .iter()
                .map(|&i| cmp.evaluations[i].spec.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    out.push_str(&format!(
        "\nwinner for {metric}: {}\nsaved, trained on all rows, to {}\n",
        winner.spec,
        a.output.display()
    ));
    if let Some(dir) = &a.report {
        out.push_str(&format!(
            "report written to {}\n",
            dir.join("index.html").display()
        ));
    }
    write_stdout(&out)
}
