//! `rarity run`: the main job. Compares the strategies that matter on one
//! dataset with repeated stratified cross-validation on shared folds, prints
//! a ranked table and a Friedman / Nemenyi verdict, and saves the winner
//! trained on all rows.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;

use super::output::{num, print_json, write_stdout, Table};
use super::select::parse_benefit;
use super::{DataArgs, Global, OutputFormat};
use rarity::data::bundled;
use rarity::error::{Error, Result};
use rarity::evaluate::{Benefit, Extras};
use rarity::experiment::compare::{
    compare, default_betas, default_multiclass_strategies, default_strategies, lower_is_better,
    RANKED_METRICS,
};
use rarity::experiment::run_report::{run_report, RunContext};
use rarity::metrics::cost::LossMatrix;
use rarity::persist::{save, Format};
use rarity::split::Splitter;
use rarity::strategy::{Decision, Strategy};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum MetricArg {
    #[value(name = "average_precision", alias = "average-precision")]
    AveragePrecision,
    #[value(name = "g_mean", alias = "g-mean")]
    GMean,
    #[value(name = "macro_accuracy", alias = "macro-accuracy")]
    MacroAccuracy,
    F1,
    Brier,
    #[value(name = "roc_auc", alias = "roc-auc")]
    RocAuc,
    /// The loss of the decisions under `--cost` (lower is better); with only
    /// `--benefit`, the benefit.
    Cost,
    /// The example-dependent benefit under `--benefit` (higher is better).
    Benefit,
}

impl MetricArg {
    /// The metric key ranking the strategies, given which of `--cost` and
    /// `--benefit` were set.
    fn key(self, cost: bool, benefit: bool) -> Result<&'static str> {
        Ok(match self {
            MetricArg::AveragePrecision => "average_precision",
            MetricArg::GMean => "g_mean",
            MetricArg::MacroAccuracy => "macro_accuracy",
            MetricArg::F1 => "f1",
            MetricArg::Brier => "brier",
            MetricArg::RocAuc => "roc_auc",
            MetricArg::Cost if cost => "cost",
            MetricArg::Cost if benefit => "benefit",
            MetricArg::Cost => {
                return Err(Error::invalid(
                    "--metric cost needs the costs: give --cost fn=..,fp=.. \
                     (or --benefit amount=COL,overhead=V)",
                ))
            }
            MetricArg::Benefit if benefit => "benefit",
            MetricArg::Benefit => {
                return Err(Error::invalid(
                    "--metric benefit needs --benefit amount=COL,overhead=V",
                ))
            }
        })
    }
}

/// Arguments of `rarity run`.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    #[command(flatten)]
    data: DataArgs,
    /// The metric that picks the winner.
    #[arg(long, value_enum, default_value_t = MetricArg::AveragePrecision)]
    metric: MetricArg,
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

/// The loss matrix of `--cost`, read with the spec grammar of `cost(...)`.
fn parse_cost(s: &str) -> Result<LossMatrix> {
    let bad = |e: Error| Error::invalid(format!("--cost '{s}': {e}"));
    let spec = rarity::spec::parse(&format!("cost({s})")).map_err(bad)?;
    match rarity::spec::decision_from_call(&spec.stages[0]).map_err(bad)? {
        Decision::Cost(m) => Ok(m),
        _ => Err(Error::invalid(format!(
            "--cost '{s}': expected fn=..,fp=..[,tp=..,tn=..]"
        ))),
    }
}

/// Adds, for each spec ending in `+threshold(priors)`, a copy ending in each
/// of `decisions` instead (skipping specs already present).
fn with_decisions(specs: Vec<String>, decisions: &[String]) -> Vec<String> {
    let mut out = specs.clone();
    for s in &specs {
        let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        if let Some(prefix) = compact.strip_suffix("+threshold(priors)") {
            for d in decisions {
                let v = format!("{prefix}+{d}");
                if !out.contains(&v) {
                    out.push(v);
                }
            }
        }
    }
    out
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
    let metric = a.metric.key(cost.is_some(), benefit.is_some())?;
    if let Some(dir) = &a.report {
        rarity::report::prepare_dir(dir)?;
    }
    let (ds, report) = a.data.load(Some(bundled::DEFAULT))?;
    ds.require_two_classes()?;
    let extras = Extras {
        cost,
        benefit,
        keep_predictions: a.report.is_some(),
    };
    extras.check(&ds)?;
    let specs = if !a.models.is_empty() {
        a.models.clone()
    } else if ds.n_classes() == 2 {
        default_strategies(&default_betas(&ds))
    } else {
        default_multiclass_strategies()
    };
    let mut decisions = Vec::new();
    if let Some(c) = &a.cost {
        decisions.push(format!("cost({})", c.trim()));
    }
    if let Some(b) = &extras.benefit {
        decisions.push(format!(
            "benefit(amount='{}',overhead={})",
            b.amount, b.overhead
        ));
    }
    let specs = with_decisions(specs, &decisions);
    let strategies: Vec<Strategy> = specs
        .iter()
        .map(|s| rarity::spec::build_strategy(s))
        .collect::<Result<_>>()?;
    let splitter: Splitter = a.cv.parse()?;
    let bar = progress_bar(!g.quiet && std::io::stderr().is_terminal());
    let progress = |done: usize, total: usize, spec: &str| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
        bar.set_message(spec.to_string());
    };
    let cmp = compare(&strategies, &ds, &splitter, g.seed, &extras, &progress);
    bar.finish_and_clear();
    let cmp = cmp?;
    let higher = !lower_is_better(metric);
    let order = cmp.ranked(metric, higher);
    let verdict = if strategies.len() >= 3 {
        Some(cmp.verdict(metric, higher)?)
    } else {
        None
    };
    let winner = &strategies[order[0]];
    let fitted = winner.fit(&ds, g.seed)?;
    save(&fitted, &a.output, Format::Binary)?;

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
            higher_is_better: higher,
        };
        run_report(&cmp, &order, verdict.as_ref(), &ctx)?.write(dir)?;
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
            "cost": a.cost, "benefit": extras.benefit,
            "report": a.report.as_ref().map(|d| d.join("index.html").display().to_string()),
        }));
    }
    let mut columns: Vec<(&str, &str)> = RANKED_METRICS.to_vec();
    if extras.cost.is_some() {
        columns.push(("cost", "cost"));
    }
    if extras.benefit.is_some() {
        columns.push(("benefit", "benefit"));
    }
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
        t.row(row);
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
        t.render()
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
