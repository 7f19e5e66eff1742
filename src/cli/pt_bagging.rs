//! `rarity experiment pt-bagging`: Collell et al. (2018) Sec. 4-5 over a
//! directory of datasets (see [`rarity::experiment::pt_bagging`]).

use std::path::PathBuf;

use serde_json::json;

use super::output::{num, print_json, write_report, write_stdout, Table};
use super::over_datasets::over_datasets;
use super::{Global, OutputFormat};
use rarity::error::Result;
use rarity::experiment::experiment_report::pt_bagging_report;
use rarity::experiment::parse_list;
use rarity::experiment::pt_bagging::{
    run as pt_bagging_run, BinarySummary, MulticlassSummary, PtBaggingConfig, BINARY_METHODS,
    MEASURES, MULTICLASS_METHODS,
};
use rarity::report::p_value_text;

/// Arguments of `rarity experiment pt-bagging`.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// Directories of CSV datasets (default: the bundled ones).
    #[arg(long = "data-dir")]
    data_dirs: Vec<PathBuf>,
    /// Ensemble sizes, ascending, separated by commas.
    #[arg(long, default_value = "5,10,25,50,100")]
    sizes: String,
    /// Repeated stratified cross-validation, `RxK`.
    #[arg(long, default_value = "5x2")]
    cv: String,
    /// Skip datasets with more rows.
    #[arg(long, default_value_t = 100_000)]
    max_rows: usize,
    /// Write an HTML report with plots (Fig. 1-2, critical-difference
    /// diagrams), and every table as CSV and JSON, to DIR.
    #[arg(long, value_name = "DIR")]
    report: Option<PathBuf>,
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    let sizes: Vec<usize> = parse_list(
        "--sizes",
        &a.sizes,
        "a whole number",
        "--sizes 5,10,25,50,100",
    )?;
    let cfg = PtBaggingConfig {
        sizes,
        splitter: a.cv.parse()?,
        seed: g.seed,
    };
    let ran = over_datasets(g, &a.data_dirs, a.max_rows, a.report.as_ref(), |d| {
        pt_bagging_run(d, &cfg)
    })?;
    let (r, seconds) = (ran.results, ran.seconds);
    let mut skipped = ran.skipped;
    skipped.extend(r.skipped);
    let (results, binary, multiclass) = (&r.datasets, &r.binary, &r.multiclass);
    if let Some(dir) = &a.report {
        let names: Vec<&str> = results.iter().map(|r| r.name.as_str()).collect();
        let mut notes = vec![
            format!("{} datasets: {}.", results.len(), names.join(", ")),
            format!(
                "{} stratified cross-validation; ensembles of {} trees; seed {}.",
                a.cv, a.sizes, g.seed
            ),
        ];
        notes.extend(skipped.iter().map(|s| format!("Skipped: {s}")));
        let html = pt_bagging_report(binary.as_ref(), multiclass.as_ref(), &notes);
        write_report(&html, dir, g.quiet)?;
    }
    if g.format == OutputFormat::Json {
        return print_json(&json!({
            "cv": a.cv, "sizes": cfg.sizes, "measures": MEASURES,
            "binary_methods": BINARY_METHODS, "multiclass_methods": MULTICLASS_METHODS,
            "binary": binary, "multiclass": multiclass, "datasets": results,
            "skipped": skipped, "seconds": seconds,
        }));
    }
    let mut out = format!(
        "PT-bagging experiment (Collell et al. 2018): {} datasets, {} CV, sizes {}; {:.0} s\n",
        results.len(),
        a.cv,
        a.sizes,
        seconds
    );
    if let Some(b) = binary {
        out.push_str(&render_binary(b));
    }
    if let Some(m) = multiclass {
        out.push_str(&render_multiclass(m));
    }
    for s in &skipped {
        out.push_str(&format!("skipped: {s}\n"));
    }
    write_stdout(&out)
}

fn render_binary(b: &BinarySummary) -> String {
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
    out.push_str(&format!(
        "\nAt n={}: full potential and gap (Table 5), stratified Brier:\n{}",
        b.sizes.last().copied().unwrap_or(0),
        t5.to_text()
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
    out.push_str(&format!(
        "\nFriedman test and Nemenyi critical difference; mean ranks (1 = best):\n{}",
        tr.to_text()
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

fn render_multiclass(m: &MulticlassSummary) -> String {
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
            rarity::report::format::p_equals_text(w.wilcoxon_p)
        ));
    }
    out
}
