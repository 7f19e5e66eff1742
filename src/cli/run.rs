//! `rarity run`: the main job. Compares the strategies that matter on one
//! dataset with repeated stratified cross-validation on shared folds, prints
//! a ranked table and a Friedman / Nemenyi verdict, and saves the winner
//! trained on all rows.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::ValueEnum;
use serde_json::json;

use super::output::{num, print_json, write_stdout, Table};
use super::{DataArgs, Global, OutputFormat};
use rarity::data::bundled;
use rarity::error::Result;
use rarity::experiment::compare::{compare, default_betas, default_strategies};
use rarity::persist::{save, Format};
use rarity::select::split::Splitter;
use rarity::strategy::Strategy;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum MetricArg {
    AveragePrecision,
    GMean,
    MacroAccuracy,
    F1,
    Brier,
    RocAuc,
}

impl MetricArg {
    fn key(self) -> &'static str {
        match self {
            MetricArg::AveragePrecision => "average_precision",
            MetricArg::GMean => "g_mean",
            MetricArg::MacroAccuracy => "macro_accuracy",
            MetricArg::F1 => "f1",
            MetricArg::Brier => "brier",
            MetricArg::RocAuc => "roc_auc",
        }
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

const COLUMNS: &[(&str, &str)] = &[
    ("roc_auc", "AUC"),
    ("average_precision", "AP"),
    ("brier", "Brier"),
    ("g_mean", "G-mean"),
    ("macro_accuracy", "macro acc"),
    ("macro_f1", "macro F1"),
];

pub fn run(g: &Global, a: &Args) -> Result<()> {
    let (ds, report) = a.data.load(Some(bundled::DEFAULT))?;
    ds.require_two_classes()?;
    let specs = if !a.models.is_empty() {
        a.models.clone()
    } else if ds.n_classes() == 2 {
        default_strategies(&default_betas(&ds))
    } else {
        vec![
            "bagging(n=100)".to_string(),
            "bagging(n=100)+threshold(priors)".to_string(),
            "bagging(n=100,sample=underover(a=50))".to_string(),
            "bagging(n=100,sample=eb)".to_string(),
            "forest(n=100)+tune(metric=macro_accuracy)".to_string(),
        ]
    };
    let strategies: Vec<Strategy> = specs
        .iter()
        .map(|s| rarity::spec::build_strategy(s))
        .collect::<Result<_>>()?;
    let splitter: Splitter = a.cv.parse()?;
    let show = !g.quiet && std::io::stderr().is_terminal();
    let progress = |done: usize, total: usize, _: &str| {
        if show {
            eprint!("\r  evaluating: {done}/{total} (strategy x fold)   ");
            if done == total {
                eprintln!();
            }
        }
    };
    let cmp = compare(
        &strategies,
        &ds,
        &splitter,
        g.seed,
        &Default::default(),
        &progress,
    )?;
    let metric = a.metric.key();
    let higher = metric != "brier";
    let order = cmp.ranked(metric, higher);
    let verdict = if strategies.len() >= 3 {
        Some(cmp.verdict(metric, higher)?)
    } else {
        None
    };
    let winner = &strategies[order[0]];
    let fitted = winner.fit(&ds, g.seed)?;
    save(&fitted, &a.output, Format::Binary)?;

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
        }));
    }
    let mut header = vec!["#", "strategy"];
    header.extend(COLUMNS.iter().map(|c| c.1));
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
        row.extend(COLUMNS.iter().map(|c| cell(i, c.0)));
        t.row(row);
    }
    let mut out = format!(
        "{}: {} rows, classes {:?} ({}), cv {} ({} folds), ranked by {metric}\n\
         mean±std over folds; (full potential: best over all thresholds)\n\n{}",
        report.source,
        ds.n_rows(),
        ds.class_names(),
        ds.class_counts()
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("/"),
        a.cv,
        cmp.evaluations[0].folds.len(),
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
    write_stdout(&out)
}
