//! `rarity experiment pt-bagging` as a job: Collell et al. (2018) Sec. 4-5
//! over datasets ([`crate::experiment::pt_bagging`]): the ensemble-size
//! trends, full potential, win/tie/loss, rank tests and recall per class
//! of the binary datasets and the multiclass comparison, as text, JSON and
//! an HTML report.

use serde_json::{json, Value};

use super::{skipped_notes, skipped_text, ExperimentJob, ExperimentPlan, Found};
use crate::data::Dataset;
use crate::error::Result;
use crate::experiment::experiment_report::pt_bagging_report;
use crate::experiment::parse_list;
use crate::experiment::pt_bagging::{
    run, BinarySummary, MulticlassSummary, PtBaggingConfig, PtBaggingResults, BINARY_METHODS,
    MEASURES, MULTICLASS_METHODS,
};
use crate::job::{fixed as num, Front};
use crate::report::format::p_equals_text;
use crate::report::p_value_text;
use crate::report::table::Table;
use crate::report::Report;

/// The experiment's settings as written.
#[derive(Debug, Clone)]
pub struct PtBaggingRequest {
    /// Ensemble sizes, ascending, separated by commas.
    pub sizes: String,
    /// Repeated stratified cross-validation, `RxK`.
    pub cv: String,
    /// The seed of folds and fits.
    pub seed: u64,
    /// Which front end wrote the request (for its error messages).
    pub front: Front,
}

/// A checked request: the sizes and folds parsed.
pub struct PtBaggingPlan {
    request: PtBaggingRequest,
    cfg: PtBaggingConfig,
}

impl PtBaggingRequest {
    /// Parses the sizes and the cross-validation before any dataset is
    /// loaded.
    pub fn plan(self) -> Result<PtBaggingPlan> {
        let sizes = parse_list(
            &self.front.param("sizes"),
            &self.sizes,
            "a whole number",
            &format!("{} 5,10,25,50,100", self.front.param("sizes")),
        )?;
        let cfg = PtBaggingConfig {
            sizes,
            splitter: self.cv.parse()?,
            seed: self.seed,
        };
        Ok(PtBaggingPlan { request: self, cfg })
    }
}

impl ExperimentPlan for PtBaggingPlan {
    type Results = PtBaggingResults;

    fn run(&self, datasets: &[(String, Dataset)]) -> Result<PtBaggingResults> {
        run(datasets, &self.cfg)
    }

    fn skipped(results: &PtBaggingResults) -> &[String] {
        &results.skipped
    }
}

/// What the experiment found, rendering itself.
pub type PtBaggingJob = Found<PtBaggingPlan>;

impl ExperimentJob for PtBaggingJob {
    /// The HTML report with plots (Fig. 1-2, critical-difference diagrams)
    /// and every table as CSV and JSON.
    fn report(&self) -> Report {
        let (r, q) = (&self.results, &self.plan.request);
        let names: Vec<&str> = r.datasets.iter().map(|r| r.name.as_str()).collect();
        let mut notes = vec![
            format!("{} datasets: {}.", r.datasets.len(), names.join(", ")),
            format!(
                "{} stratified cross-validation; ensembles of {} trees; seed {}.",
                q.cv, q.sizes, q.seed
            ),
        ];
        notes.extend(skipped_notes(&self.skipped));
        pt_bagging_report(r.binary.as_ref(), r.multiclass.as_ref(), &notes)
    }

    /// The outcome as `rarity experiment pt-bagging --format json` prints it.
    fn to_json(&self) -> Value {
        let r = &self.results;
        json!({
            "cv": self.plan.request.cv, "sizes": self.plan.cfg.sizes, "measures": MEASURES,
            "binary_methods": BINARY_METHODS, "multiclass_methods": MULTICLASS_METHODS,
            "binary": r.binary, "multiclass": r.multiclass, "datasets": r.datasets,
            "skipped": self.skipped, "seconds": self.seconds,
        })
    }

    /// The outcome as `rarity experiment pt-bagging` prints it.
    fn to_text(&self) -> String {
        let (r, q) = (&self.results, &self.plan.request);
        let mut out = format!(
            "PT-bagging experiment (Collell et al. 2018): {} datasets, {} CV, sizes {}; {:.0} s\n",
            r.datasets.len(),
            q.cv,
            q.sizes,
            self.seconds
        );
        if let Some(b) = &r.binary {
            out.push_str(&binary_text(b));
        }
        if let Some(m) = &r.multiclass {
            out.push_str(&multiclass_text(m));
        }
        out.push_str(&skipped_text(&self.skipped));
        out
    }
}

/// The binary datasets' tables: the trends (Fig. 1), full potential
/// (Table 5), win/tie/loss (Table 4), rank tests and recall (Fig. 2).
fn binary_text(b: &BinarySummary) -> String {
    let mut out = format!("\n## Binary: {} datasets\n", b.n_datasets);
    let sizes: Vec<String> = b.sizes.iter().map(|s| format!("n={s}")).collect();
    for (measure, t) in &b.trend {
        let mut header = vec!["method"];
        header.extend(sizes.iter().map(String::as_str));
        let mut table = Table::new(&header);
        for (m, row) in BINARY_METHODS.iter().zip(t) {
            let mut cells = vec![m.to_string()];
            cells.extend(row.iter().map(|v| num(*v, 4)));
            table.text_row(cells);
        }
        out.push_str(&format!(
            "\nEnsemble size trend (Fig. 1), mean {measure} over datasets:\n{}",
            table.to_text()
        ));
    }
    out.push_str(&format!(
        "\nAt n={}: full potential and gap (Table 5), stratified Brier:\n{}",
        b.sizes.last().copied().unwrap_or(0),
        potential_table(b).to_text()
    ));
    let mut t4 = Table::new(&["method", "against", "measure", "W/T/L", "Wilcoxon p"]);
    for w in &b.win_tie_loss {
        t4.text_row(vec![
            w.method.clone(),
            w.against.clone(),
            w.measure.clone(),
            format!("{}/{}/{}", w.wins, w.ties, w.losses),
            p_value_text(w.wilcoxon_p),
        ]);
    }
    out.push_str(&format!(
        "\nWin / tie / loss over datasets (Table 4):\n{}",
        t4.to_text()
    ));
    out.push_str(&format!(
        "\nFriedman test and Nemenyi critical difference; mean ranks (1 = best):\n{}",
        ranks_table(b).to_text()
    ));
    let mut t2 = Table::new(&["method", "recall min", "recall maj", "mean diff", "t", "p"]);
    for (m, r) in BINARY_METHODS.iter().zip(&b.recall) {
        t2.text_row(vec![
            m.to_string(),
            num(r.minority, 4),
            num(r.majority, 4),
            num(r.mean_difference, 4),
            num(r.t, 3),
            p_value_text(r.p_value),
        ]);
    }
    out.push_str(&format!(
        "\nRecall per class (Fig. 2), one-sample t-test of minority - majority:\n{}",
        t2.to_text()
    ));
    out
}

/// At the largest size: macro accuracy and F1 with their full potential
/// and gap, and the stratified Brier scores (Table 5).
fn potential_table(b: &BinarySummary) -> Table {
    let j = |m: &str| MEASURES.iter().position(|x| *x == m).unwrap_or(0);
    let mut t5 = Table::new(&[
        "method",
        "macro acc",
        "potential",
        "gap",
        "macro F1",
        "potential",
        "gap",
        "Brier min",
        "Brier maj",
    ]);
    for (m, v) in BINARY_METHODS.iter().zip(&b.at_largest) {
        let (ma, pma) = (v[j("macro_accuracy")], v[j("potential_macro_accuracy")]);
        let (mf, pmf) = (v[j("macro_f1")], v[j("potential_macro_f1")]);
        t5.text_row(vec![
            m.to_string(),
            num(ma, 4),
            num(pma, 4),
            num(pma - ma, 4),
            num(mf, 4),
            num(pmf, 4),
            num(pmf - mf, 4),
            num(v[j("brier_minority")], 4),
            num(v[j("brier_majority")], 4),
        ]);
    }
    t5
}

/// Per measure the Friedman test, the Nemenyi critical difference and the
/// methods' mean ranks.
fn ranks_table(b: &BinarySummary) -> Table {
    let mut header = vec!["measure", "Friedman p", "CD"];
    header.extend(BINARY_METHODS.iter().copied());
    let mut tr = Table::new(&header);
    for r in &b.rank_tests {
        let mut cells = vec![
            r.measure.clone(),
            p_value_text(r.friedman_p),
            num(r.critical_difference, 3),
        ];
        cells.extend(r.mean_ranks.iter().map(|v| num(*v, 2)));
        tr.text_row(cells);
    }
    tr
}

/// The multiclass comparison (Sec. 5.2).
fn multiclass_text(m: &MulticlassSummary) -> String {
    let mut t = Table::new(&["method", "macro acc", "macro F1", "wins"]);
    for (i, name) in MULTICLASS_METHODS.iter().enumerate() {
        t.text_row(vec![
            name.to_string(),
            num(m.macro_accuracy[i], 4),
            num(m.macro_f1[i], 4),
            m.wins[i].to_string(),
        ]);
    }
    let mut out = format!(
        "\n## Multiclass: {} datasets (Sec. 5.2)\n{}",
        m.n_datasets,
        t.to_text()
    );
    if let Some(w) = &m.against_best {
        out.push_str(&format!(
            "PT_MA against the best competitor ({}): W/T/L {}/{}/{}, Wilcoxon {}\n",
            m.best_competitor,
            w.wins,
            w.ties,
            w.losses,
            p_equals_text(w.wilcoxon_p)
        ));
    }
    out
}
