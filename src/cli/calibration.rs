//! `rarity experiment calibration`: Dal Pozzolo et al. (2015) Sec. VI over a
//! directory of datasets (see [`rarity::experiment::calibration`]).

use std::path::PathBuf;

use serde_json::json;

use super::output::{num, print_json, write_report, write_stdout, Table};
use super::over_datasets::over_datasets;
use super::{Global, OutputFormat};
use rarity::error::Result;
use rarity::experiment::calibration::{run as calibration_run, CalibrationConfig};
use rarity::experiment::experiment_report::calibration_report;
use rarity::experiment::parse_list;

/// Arguments of `rarity experiment calibration`.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Directories of CSV datasets (default: the bundled ones); multiclass
    /// datasets are skipped.
    #[arg(long = "data-dir")]
    data_dirs: Vec<PathBuf>,
    /// Learner specs separated by commas, e.g. `tree,forest(n=100,max_depth=4)`
    /// (the paper: random forest, SVM, LogitBoost).
    #[arg(long, default_value = "forest(n=100),logitboost,svm")]
    learners: String,
    /// Undersampling levels t in (0, 1], beta = (N+/N-)^t (1 = balanced).
    #[arg(long, default_value = "1,0.75,0.5,0.25")]
    levels: String,
    /// Repeated stratified cross-validation, `RxK` (the paper: 10x10).
    #[arg(long, default_value = "10x10")]
    cv: String,
    /// Skip datasets with more rows.
    #[arg(long, default_value_t = 100_000)]
    max_rows: usize,
    /// Write an HTML report with plots (Table V, Fig. 3-6), and every table
    /// as CSV and JSON, to DIR.
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    let levels: Vec<f64> = parse_list("--levels", &a.levels, "a number", "1,0.5")?;
    let cfg = CalibrationConfig {
        levels,
        splitter: a.cv.parse()?,
        seed: g.seed,
    };
    let learners = rarity::spec::build_learners(&a.learners)?;
    let ran = over_datasets(g, &a.data_dirs, a.max_rows, a.report.as_ref(), |d| {
        calibration_run(d, &learners, &cfg)
    })?;
    let (r, seconds) = (ran.results, ran.seconds);
    let mut skipped = ran.skipped;
    skipped.extend(r.skipped);
    let (cells, rows, better, curves) = (&r.cells, &r.table_v, &r.brier_wins, &r.gaussian);
    if let Some(dir) = &a.report {
        let mut datasets: Vec<&str> = cells.iter().map(|c| c.dataset.as_str()).collect();
        datasets.dedup();
        let mut notes = vec![
            format!(
                "{} binary datasets: {}.",
                datasets.len(),
                datasets.join(", ")
            ),
            format!(
                "Learners: {}; {} stratified cross-validation; levels t = {} (beta = (N+/N-)^t); \
                 seed {}.",
                a.learners, a.cv, a.levels, g.seed
            ),
        ];
        notes.extend(skipped.iter().map(|s| format!("Skipped: {s}")));
        let html = calibration_report(cells, rows, better, curves, &learners[0].0, &notes);
        write_report(&html, dir, g.quiet)?;
    }
    if g.format == OutputFormat::Json {
        return print_json(&json!({
            "cv": a.cv, "levels": cfg.levels, "table_v": rows,
            "brier_corrected_below_undersampled": better, "gaussian": curves,
            "cells": cells, "skipped": skipped, "seconds": seconds,
        }));
    }
    let n_data = cells.len() / learners.len().max(1);
    let mut out = format!(
        "Undersampling calibration experiment (Dal Pozzolo et al. 2015): {n_data} datasets, {} CV, \
         levels {}; {seconds:.0} s\n\nTable V: rank sums over datasets x beta (AUC, G-mean: 3 = best; \
         Brier: 3 = worst) and paired t-test p-values of the ranks\n",
        a.cv, a.levels
    );
    let mut t = Table::new(&[
        "measure", "learner", "R(p)", "R(p_s)", "R(p')", "p vs p_s", "p vs p'", "cells",
    ]);
    for r in rows {
        t.text_row(vec![
            r.measure.clone(),
            r.learner.clone(),
            num(r.rank_sums[0], 1),
            num(r.rank_sums[1], 1),
            num(r.rank_sums[2], 1),
            num(r.p_vs_p_s, 3),
            num(r.p_vs_p_corrected, 3),
            r.cells.to_string(),
        ]);
    }
    out.push_str(&t.to_text());
    out.push_str("\nShare of (dataset, beta) cells with Brier(p') < Brier(p_s):\n");
    for (l, f) in better {
        out.push_str(&format!("  {l}: {}%\n", num(100.0 * f, 1)));
    }
    out.push_str(&format!(
        "\nSynthetic Gaussian task (Fig. 3-4), {} after balancing undersampling: mean |estimate - p| over the grid\n",
        learners[0].0
    ));
    let mut t = Table::new(&["mu", "beta", "|p_s - p|", "|p' - p|"]);
    for c in curves {
        let dev = |v: &[f64]| {
            v.iter().zip(&c.p).map(|(a, b)| (a - b).abs()).sum::<f64>() / v.len() as f64
        };
        t.text_row(vec![
            num(c.mu, 0),
            num(c.beta, 4),
            num(dev(&c.p_s_hat), 4),
            num(dev(&c.p_corrected_hat), 4),
        ]);
    }
    out.push_str(&t.to_text());
    for s in &skipped {
        out.push_str(&format!("skipped: {s}\n"));
    }
    write_stdout(&out)
}
