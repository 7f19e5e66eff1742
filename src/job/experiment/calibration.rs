//! `rarity experiment calibration` as a job: Dal Pozzolo et al. (2015)
//! Sec. VI over datasets ([`crate::experiment::calibration`]), its Table V,
//! the share of cells where the correction lowers the Brier score and the
//! Gaussian task's curves, as text, JSON and an HTML report.

use std::sync::Arc;

use serde_json::{json, Value};

use super::{skipped_notes, skipped_text, ExperimentJob, ExperimentPlan, Found};
use crate::data::Dataset;
use crate::error::Result;
use crate::experiment::calibration::{run, CalibrationConfig, CalibrationResults};
use crate::experiment::experiment_report::calibration_report;
use crate::experiment::parse_list;
use crate::job::{fixed as num, Front};
use crate::learn::Learner;
use crate::report::table::Table;
use crate::report::Report;

/// The experiment's settings as written.
#[derive(Debug, Clone)]
pub struct CalibrationRequest {
    /// Learner specs separated by commas.
    pub learners: String,
    /// Undersampling levels t in (0, 1], separated by commas.
    pub levels: String,
    /// Repeated stratified cross-validation, `RxK`.
    pub cv: String,
    /// The seed of folds and fits.
    pub seed: u64,
    /// Which front end wrote the request (for its error messages).
    pub front: Front,
}

/// A checked request: the levels, folds and learners built.
pub struct CalibrationPlan {
    request: CalibrationRequest,
    learners: Vec<(String, Arc<dyn Learner>)>,
    cfg: CalibrationConfig,
}

impl CalibrationRequest {
    /// Parses the levels and the cross-validation and builds the learners
    /// before any dataset is loaded.
    pub fn plan(self) -> Result<CalibrationPlan> {
        let levels = parse_list(
            &self.front.param("levels"),
            &self.levels,
            "a number",
            "1,0.5",
        )?;
        let cfg = CalibrationConfig {
            levels,
            splitter: self.cv.parse()?,
            seed: self.seed,
        };
        let learners = crate::spec::build_learners(&self.learners)?;
        Ok(CalibrationPlan {
            request: self,
            learners,
            cfg,
        })
    }
}

impl ExperimentPlan for CalibrationPlan {
    type Results = CalibrationResults;

    fn run(&self, datasets: &[(String, Dataset)]) -> Result<CalibrationResults> {
        run(datasets, &self.learners, &self.cfg)
    }

    fn skipped(results: &CalibrationResults) -> &[String] {
        &results.skipped
    }
}

/// What the experiment found, rendering itself.
pub type CalibrationJob = Found<CalibrationPlan>;

impl ExperimentJob for CalibrationJob {
    /// The HTML report with plots (Table V, Fig. 3-6) and every table as
    /// CSV and JSON.
    fn report(&self) -> Report {
        let (r, q) = (&self.results, &self.plan.request);
        let mut datasets: Vec<&str> = r.cells.iter().map(|c| c.dataset.as_str()).collect();
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
                q.learners, q.cv, q.levels, q.seed
            ),
        ];
        notes.extend(skipped_notes(&self.skipped));
        let first = &self.plan.learners[0].0;
        calibration_report(
            &r.cells,
            &r.table_v,
            &r.brier_wins,
            &r.gaussian,
            first,
            &notes,
        )
    }

    /// The outcome as `rarity experiment calibration --format json` prints
    /// it.
    fn to_json(&self) -> Value {
        let r = &self.results;
        json!({
            "cv": self.plan.request.cv, "levels": self.plan.cfg.levels, "table_v": r.table_v,
            "brier_corrected_below_undersampled": r.brier_wins, "gaussian": r.gaussian,
            "cells": r.cells, "skipped": self.skipped, "seconds": self.seconds,
        })
    }

    /// The outcome as `rarity experiment calibration` prints it: Table V,
    /// the Brier wins and the Gaussian task's deviations.
    fn to_text(&self) -> String {
        let (r, q) = (&self.results, &self.plan.request);
        let n_data = r.cells.len() / self.plan.learners.len().max(1);
        let mut out = format!(
            "Undersampling calibration experiment (Dal Pozzolo et al. 2015): {n_data} datasets, {} CV, \
             levels {}; {:.0} s\n\nTable V: rank sums over datasets x beta (AUC, G-mean: 3 = best; \
             Brier: 3 = worst) and paired t-test p-values of the ranks\n",
            q.cv, q.levels, self.seconds
        );
        let mut t = Table::new(&[
            "measure", "learner", "R(p)", "R(p_s)", "R(p')", "p vs p_s", "p vs p'", "cells",
        ]);
        for row in &r.table_v {
            t.text_row(vec![
                row.measure.clone(),
                row.learner.clone(),
                num(row.rank_sums[0], 1),
                num(row.rank_sums[1], 1),
                num(row.rank_sums[2], 1),
                num(row.p_vs_p_s, 3),
                num(row.p_vs_p_corrected, 3),
                row.cells.to_string(),
            ]);
        }
        out.push_str(&t.to_text());
        out.push_str("\nShare of (dataset, beta) cells with Brier(p') < Brier(p_s):\n");
        for (l, f) in &r.brier_wins {
            out.push_str(&format!("  {l}: {}%\n", num(100.0 * f, 1)));
        }
        out.push_str(&format!(
            "\nSynthetic Gaussian task (Fig. 3-4), {} after balancing undersampling: mean |estimate - p| over the grid\n",
            self.plan.learners[0].0
        ));
        out.push_str(&self.gaussian_table().to_text());
        out.push_str(&skipped_text(&self.skipped));
        out
    }
}

impl CalibrationJob {
    /// Per Gaussian task and beta, the mean deviation of the undersampled
    /// and the corrected probabilities from the true ones.
    fn gaussian_table(&self) -> Table {
        let mut t = Table::new(&["mu", "beta", "|p_s - p|", "|p' - p|"]);
        for c in &self.results.gaussian {
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
        t
    }
}
