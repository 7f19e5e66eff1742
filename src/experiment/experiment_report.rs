//! The HTML reports of `rarity experiment calibration|pt-bagging|
//! reverse-testing --report DIR`: every table of the text output (also
//! written as CSV and JSON) and the papers' figures as SVG.
//!
//! - [`calibration_report`]: Table V, the Brier wins, box plots of AUC and
//!   Brier over folds against beta for `p`, `p_s` and `p'` (Dal Pozzolo et
//!   al. 2015, Fig. 5-6), and the synthetic curves of Fig. 3 and 4.
//! - [`pt_bagging_report`]: the ensemble-size trend (Collell et al. 2018,
//!   Fig. 1), Tables 4 and 5, Demšar's critical-difference diagram per
//!   measure, recall per class (Fig. 2) and the multiclass comparison.
//! - [`reverse_testing_report`]: correct / wrong / undecided per method (Fan
//!   & Davidson 2006, Sec. 5).

use super::bias::Tally;
use super::calibration::{
    BrierWins, CalibrationCell, GaussianCurves, RankRow, MEASURES, PROBABILITIES,
    PROBABILITY_COLOURS,
};
use super::pt_bagging::{
    BinarySummary, MulticlassSummary, BINARY_METHODS, MEASURES as PT_MEASURES, MULTICLASS_METHODS,
};
use crate::report::format::p_equals_text;
use crate::report::svg::{BoxPlot, CdDiagram, GroupedBars, LinePlot, Series};
use crate::report::table::{Cell, Table};
use crate::report::Report;

/// Colours of the undersampling rates of Fig. 3 other than `beta = 1`:
/// none is one of [`PROBABILITY_COLOURS`].
const BETA_COLOURS: &[&str] = &[
    "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// Adds a "Data and protocol" section with one paragraph per note (none
/// without notes).
fn notes_section(report: &mut Report, notes: &[String]) {
    if notes.is_empty() {
        return;
    }
    let s = report.section("Data and protocol");
    for n in notes {
        s.paragraph(n);
    }
}

/// The learners of `cells`, in first-seen order.
fn learners(cells: &[CalibrationCell]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for c in cells {
        if !out.contains(&c.learner.as_str()) {
            out.push(&c.learner);
        }
    }
    out
}

/// The dataset shown in the box plots of one learner: the most imbalanced
/// (the smallest `beta` at the strongest level, i.e. the smallest `N+/N-`).
fn most_imbalanced<'a>(cells: &'a [CalibrationCell], learner: &str) -> Option<&'a CalibrationCell> {
    let key = |c: &CalibrationCell| c.betas.iter().copied().fold(f64::INFINITY, f64::min);
    cells
        .iter()
        .filter(|c| c.learner == learner)
        .min_by(|a, b| key(a).total_cmp(&key(b)))
}

/// Box plot of one measure over the folds of one cell: `p` once (it does
/// not depend on beta), then `p_s` and `p'` at every beta.
fn calibration_boxes(cell: &CalibrationCell, measure: usize) -> BoxPlot {
    let m = MEASURES[measure];
    let mut b = BoxPlot::new(
        &format!("{m} over folds: {} with {}", cell.dataset, cell.learner),
        m,
    );
    if let Some(level) = cell.folds.first() {
        b.groups
            .push(("p (all rows)".into(), level[0][measure].clone()));
        b.colours.push(PROBABILITY_COLOURS[0]);
    }
    for (l, level) in cell.folds.iter().enumerate() {
        let beta = cell.betas.get(l).copied().unwrap_or(f64::NAN);
        for q in 1..PROBABILITIES.len() {
            b.groups.push((
                format!("beta={beta:.3} {}", PROBABILITIES[q]),
                level[q][measure].clone(),
            ));
            b.colours.push(PROBABILITY_COLOURS[q]);
        }
    }
    b
}

/// The report of the calibration experiment (Dal Pozzolo et al. 2015,
/// Sec. VI): `rows` and `wins` from
/// [`table_v`](super::calibration::table_v) over `cells`, `curves` from
/// [`gaussian_curves`](super::calibration::gaussian_curves) fitted with
/// `curve_learner`, and `notes` describing the run.
///
/// ```
/// use rarity::data::{bundled, read::ReadOptions};
/// use rarity::experiment::calibration::{gaussian_curves, run_cell, table_v, CalibrationConfig};
/// use rarity::experiment::experiment_report::calibration_report;
/// use rarity::split::Splitter;
/// let (ds, _) = bundled::find("ecoli4").unwrap().load(&ReadOptions::default()).unwrap();
/// let cfg = CalibrationConfig { levels: vec![1.0, 0.5], splitter: Splitter::Stratified { repeats: 1, folds: 2 }, seed: 3 };
/// let l = rarity::spec::build_learner("forest(n=5)").unwrap();
/// let cells = vec![run_cell("ecoli4", &ds, "forest(n=5)", &l, &cfg).unwrap()];
/// let (rows, wins) = table_v(&cells).unwrap();
/// let curves = vec![gaussian_curves(3.0, &l, 1).unwrap()];
/// let html = calibration_report(&cells, &rows, &wins, &curves, "forest(n=5)", &[]).to_html();
/// assert!(html.matches("<svg").count() >= 4 && html.contains("Table V"));
/// ```
pub fn calibration_report(
    cells: &[CalibrationCell],
    rows: &[RankRow],
    wins: &BrierWins,
    curves: &[GaussianCurves],
    curve_learner: &str,
    notes: &[String],
) -> Report {
    let mut report = Report::new("rarity experiment calibration (Dal Pozzolo et al. 2015)");
    notes_section(&mut report, notes);
    report
        .section("Table V: ranks of p, p_s and p'")
        .paragraph(
            "Rank sums over datasets x beta (AUC and G-mean: 3 = best; Brier: 3 = the largest, \
             i.e. the worst calibrated, as in the paper) and paired t-test p-values of the ranks \
             of p against those of p_s and of p'.",
        )
        .table("table_v", table_v(rows))
        .paragraph("Share of (dataset, beta) cells where the corrected p' has a lower Brier score than p_s.")
        .table("brier_wins", brier_wins(wins));
    fold_boxes_section(&mut report, cells);
    gaussian_section(&mut report, curves, curve_learner);
    report
}

/// The rows of Table V: rank sums of p, p_s and p' and the p-values.
fn table_v(rows: &[RankRow]) -> Table {
    let mut t5 = Table::new(&[
        "measure",
        "learner",
        "rank_sum_p",
        "rank_sum_p_s",
        "rank_sum_p_corrected",
        "p_value_p_vs_p_s",
        "p_value_p_vs_p_corrected",
        "cells",
    ]);
    for r in rows {
        let sum = |q: usize| r.rank_sums.get(q).copied().unwrap_or(f64::NAN);
        t5.row(vec![
            r.measure.clone().into(),
            r.learner.clone().into(),
            sum(0).into(),
            sum(1).into(),
            sum(2).into(),
            Cell::PValue(r.p_vs_p_s),
            Cell::PValue(r.p_vs_p_corrected),
            r.cells.into(),
        ]);
    }
    t5
}

/// The share of cells where p' has a lower Brier score than p_s, per learner.
fn brier_wins(wins: &BrierWins) -> Table {
    let mut tw = Table::new(&["learner", "share_brier_p_corrected_below_p_s"]);
    for (l, f) in wins {
        tw.row(vec![l.clone().into(), (*f).into()]);
    }
    tw
}

/// The means over folds of every dataset, learner, beta and probability.
fn cell_means(cells: &[CalibrationCell]) -> Table {
    let mut means = Table::new(&[
        "dataset",
        "learner",
        "beta",
        "probability",
        "auc",
        "g_mean",
        "brier",
    ]);
    for c in cells {
        for (l, level) in c.values.iter().enumerate() {
            for (q, v) in level.iter().enumerate() {
                let mut row: Vec<Cell> = vec![
                    c.dataset.clone().into(),
                    c.learner.clone().into(),
                    c.betas.get(l).copied().unwrap_or(f64::NAN).into(),
                    PROBABILITIES[q].into(),
                ];
                row.extend(v.iter().map(|x| Cell::from(*x)));
                means.row(row);
            }
        }
    }
    means
}

/// The box plots of AUC and Brier over folds against beta (Fig. 5-6), per
/// learner on its most imbalanced dataset, and the cells' means.
fn fold_boxes_section(report: &mut Report, cells: &[CalibrationCell]) {
    let boxes = report.section("Measures over folds against beta (Fig. 5-6)");
    boxes.paragraph(
        "For each learner, the most imbalanced dataset (smallest N+/N-): AUC and Brier score of \
         p (fitted on all rows), p_s (after undersampling the majority at rate beta) and p' \
         (p_s corrected by eq. 9) over the cross-validation folds. beta is the nominal rate on \
         the whole dataset; box: quartiles; line: median.",
    );
    for learner in learners(cells) {
        let Some(cell) = most_imbalanced(cells, learner) else {
            continue;
        };
        for (j, m) in MEASURES.iter().enumerate().filter(|(_, m)| **m != "g_mean") {
            boxes.figure(
                &format!(
                    "{m} of {learner} on {} (the most imbalanced dataset) over folds, by beta.",
                    cell.dataset
                ),
                calibration_boxes(cell, j).render(),
            );
        }
    }
    boxes.folded_table(
        "cells",
        "Means over folds of every dataset, learner and beta",
        cell_means(cells),
    );
}

/// The synthetic Gaussian task (Fig. 3-4): per class distance, the true
/// and estimated posteriors against x and against the true p, and their
/// mean deviations.
fn gaussian_section(report: &mut Report, curves: &[GaussianCurves], curve_learner: &str) {
    let synth = report.section("Synthetic Gaussian task (Fig. 3-4)");
    synth.paragraph(&format!(
        "One feature, 10% positives, sigma = 3, class means mu apart. Fig. 3: the true \
         posterior after undersampling at rate beta (eq. 4); beta = 1 is p itself. Fig. 4: \
         {curve_learner} fitted after balancing undersampling: its p̂_s and the corrected p̂' \
         against x, and against the true p (a reliability diagram with the exact \
         posterior in place of observed rates)."
    ));
    let mut dev = Table::new(&[
        "mu",
        "beta",
        "mean_abs_p_s_hat_minus_p",
        "mean_abs_p_corrected_hat_minus_p",
    ]);
    for c in curves {
        let [f3, f4, rel] = gaussian_plots(c);
        synth
            .figure(
                &format!(
                    "Fig. 3, mu = {}: undersampling shifts the posterior up.",
                    c.mu
                ),
                f3.render(),
            )
            .figure(
                &format!(
                    "Fig. 4, mu = {}: the correction brings p̂_s back towards p.",
                    c.mu
                ),
                f4.render(),
            )
            .figure(
                &format!(
                    "Reliability against the true posterior, mu = {}: on the diagonal is \
                     calibrated; p̂_s lies above it.",
                    c.mu
                ),
                rel.render(),
            );
        dev.row(gaussian_deviations(c));
    }
    synth.table("gaussian", dev);
}

/// Fig. 3, Fig. 4 and the reliability plot of one class distance.
fn gaussian_plots(c: &GaussianCurves) -> [LinePlot; 3] {
    let mut f3 = LinePlot::new(
        &format!("Fig. 3: true p_s against x, mu = {}", c.mu),
        "x",
        "p_s(+|x)",
    );
    f3.y_range = Some((0.0, 1.0));
    // beta = 1 is p itself, in p's colour; the other rates in colours
    // that p_s and p' never take.
    let mut others = BETA_COLOURS.iter().cycle();
    for (beta, p_s) in &c.p_s_by_beta {
        let col = if *beta == 1.0 {
            PROBABILITY_COLOURS[0]
        } else {
            others.next().copied().unwrap_or(PROBABILITY_COLOURS[0])
        };
        f3.series
            .push(Series::line(&format!("beta = {beta:.3}"), &c.x, p_s).with_colour(col));
    }
    let mut f4 = LinePlot::new(
        &format!("Fig. 4: estimates against x, mu = {}", c.mu),
        "x",
        "probability of +",
    );
    f4.y_range = Some((0.0, 1.0));
    let [p_col, p_s_col, p_corrected_col] = [0, 1, 2].map(|q| PROBABILITY_COLOURS[q]);
    f4.series
        .push(Series::line("p (true)", &c.x, &c.p).with_colour(p_col));
    f4.series.push(
        Series::line(&format!("p̂_s (beta = {:.3})", c.beta), &c.x, &c.p_s_hat).with_colour(p_s_col),
    );
    f4.series.push(
        Series::line("p̂' (corrected)", &c.x, &c.p_corrected_hat).with_colour(p_corrected_col),
    );
    let mut rel = LinePlot::new(
        &format!("Estimates against the true p, mu = {}", c.mu),
        "true p(+|x)",
        "estimated probability",
    );
    rel.x_range = Some((0.0, 1.0));
    rel.y_range = Some((0.0, 1.0));
    rel.diagonal = Some("perfectly calibrated".into());
    rel.series
        .push(Series::line("p̂_s", &c.p, &c.p_s_hat).with_colour(p_s_col));
    rel.series.push(
        Series::line("p̂' (corrected)", &c.p, &c.p_corrected_hat).with_colour(p_corrected_col),
    );
    [f3, f4, rel]
}

/// One row of the `gaussian` table: the mean absolute deviations of p̂_s
/// and p̂' from the true p.
fn gaussian_deviations(c: &GaussianCurves) -> Vec<Cell> {
    let mean_dev = |v: &[f64]| {
        v.iter().zip(&c.p).map(|(a, b)| (a - b).abs()).sum::<f64>() / v.len().max(1) as f64
    };
    vec![
        c.mu.into(),
        c.beta.into(),
        mean_dev(&c.p_s_hat).into(),
        mean_dev(&c.p_corrected_hat).into(),
    ]
}

/// The report of the PT-bagging experiment (Collell et al. 2018, Sec. 4-5)
/// from the summaries of [`summarise`](super::pt_bagging::summarise) and
/// `notes` describing the run.
///
/// ```
/// use rarity::data::{bundled, read::ReadOptions};
/// use rarity::experiment::experiment_report::pt_bagging_report;
/// use rarity::experiment::pt_bagging::{run_dataset, summarise, PtBaggingConfig};
/// use rarity::split::Splitter;
/// let cfg = PtBaggingConfig { sizes: vec![2, 3], splitter: Splitter::Stratified { repeats: 1, folds: 2 }, seed: 1 };
/// let results: Vec<_> = ["ecoli4", "glass6", "yeast4"].iter().map(|n| {
///     let (ds, _) = bundled::find(n).unwrap().load(&ReadOptions::default()).unwrap();
///     run_dataset(n, &ds, &cfg).unwrap()
/// }).collect();
/// let (b, m) = summarise(&results, &cfg.sizes).unwrap();
/// let html = pt_bagging_report(b.as_ref(), m.as_ref(), &[]).to_html();
/// assert!(html.contains("Critical-difference") && html.matches("<svg").count() >= 5);
/// ```
pub fn pt_bagging_report(
    binary: Option<&BinarySummary>,
    multiclass: Option<&MulticlassSummary>,
    notes: &[String],
) -> Report {
    let mut report = Report::new("rarity experiment pt-bagging (Collell et al. 2018)");
    notes_section(&mut report, notes);
    if let Some(b) = binary {
        pt_binary(&mut report, b);
    }
    if let Some(m) = multiclass {
        pt_multiclass(&mut report, m);
    }
    report
}

/// The binary sections of [`pt_bagging_report`].
fn pt_binary(report: &mut Report, b: &BinarySummary) {
    pt_trend_section(report, b);
    let largest = b.sizes.last().copied().unwrap_or(0);
    report
        .section(&format!("Tables 4 and 5 (n = {largest})"))
        .paragraph(
            "Table 5: mean over datasets of macro accuracy and macro F1 with their full \
             potential (the best value over thresholds) and the gap, and the Brier score of \
             each class.",
        )
        .table("table_5", pt_table_5(b))
        .paragraph(
            "Table 4: win / tie / loss over datasets of PT_MA (macro accuracy) and PT_F1 \
             (macro F1) against every other method, with the paired Wilcoxon p-value.",
        )
        .table("table_4", pt_table_4(b));
    pt_ranks_section(report, b, largest);
    pt_recall_section(report, b, largest);
}

/// The ensemble-size trend (Fig. 1): per measure, a plot and a table of
/// each method's mean against the number of trees.
fn pt_trend_section(report: &mut Report, b: &BinarySummary) {
    let sizes: Vec<f64> = b.sizes.iter().map(|&s| s as f64).collect();
    let size_cols: Vec<String> = b.sizes.iter().map(|s| format!("n={s}")).collect();
    let trend = report.section(&format!(
        "Ensemble size trend (Fig. 1): {} binary datasets",
        b.n_datasets
    ));
    trend.paragraph(
        "Mean over datasets of each measure against the number of trees. Platt scaling is \
         fitted at the largest size only.",
    );
    for (measure, values) in &b.trend {
        let mut header = vec!["method"];
        header.extend(size_cols.iter().map(String::as_str));
        let mut t = Table::new(&header);
        let mut plot = LinePlot::new(
            &format!("Mean {measure} against ensemble size"),
            "ensemble size",
            measure,
        );
        for (m, row) in BINARY_METHODS.iter().zip(values) {
            let mut cells: Vec<Cell> = vec![(*m).into()];
            cells.extend(row.iter().map(|v| Cell::from(*v)));
            t.row(cells);
            plot.series
                .push(Series::line(m, &sizes, row).with_markers());
        }
        trend
            .figure(
                &format!("Mean {measure} over datasets by ensemble size (Fig. 1)."),
                plot.render(),
            )
            .table(&format!("trend_{measure}"), t);
    }
}

/// Table 5: per method, the means at the largest size of macro accuracy and
/// macro F1 with their potential and gap, and the Brier score per class.
fn pt_table_5(b: &BinarySummary) -> Table {
    let j = |m: &str| PT_MEASURES.iter().position(|x| *x == m);
    let get = |v: &[f64], m: &str| j(m).and_then(|i| v.get(i).copied()).unwrap_or(f64::NAN);
    let mut t5 = Table::new(&[
        "method",
        "macro_accuracy",
        "potential_macro_accuracy",
        "gap_macro_accuracy",
        "macro_f1",
        "potential_macro_f1",
        "gap_macro_f1",
        "brier_minority",
        "brier_majority",
    ]);
    for (m, v) in BINARY_METHODS.iter().zip(&b.at_largest) {
        let (ma, pma) = (get(v, "macro_accuracy"), get(v, "potential_macro_accuracy"));
        let (mf, pmf) = (get(v, "macro_f1"), get(v, "potential_macro_f1"));
        t5.row(vec![
            (*m).into(),
            ma.into(),
            pma.into(),
            (pma - ma).into(),
            mf.into(),
            pmf.into(),
            (pmf - mf).into(),
            get(v, "brier_minority").into(),
            get(v, "brier_majority").into(),
        ]);
    }
    t5
}

/// Table 4: win / tie / loss of the PT methods against the others.
fn pt_table_4(b: &BinarySummary) -> Table {
    let mut t4 = Table::new(&[
        "method",
        "against",
        "measure",
        "wins",
        "ties",
        "losses",
        "wilcoxon_p",
    ]);
    for w in &b.win_tie_loss {
        t4.row(vec![
            w.method.clone().into(),
            w.against.clone().into(),
            w.measure.clone().into(),
            w.wins.into(),
            w.ties.into(),
            w.losses.into(),
            Cell::PValue(w.wilcoxon_p),
        ]);
    }
    t4
}

/// The Friedman tests with a critical-difference diagram per measure.
fn pt_ranks_section(report: &mut Report, b: &BinarySummary, largest: usize) {
    let mut header = vec!["measure", "friedman_p", "critical_difference"];
    header.extend(BINARY_METHODS.iter().copied());
    let mut tr = Table::new(&header);
    let ranks = report.section("Friedman test and Nemenyi critical difference");
    ranks.paragraph(&format!(
        "Mean ranks over datasets at n = {largest} (1 = best). Methods joined by a thick line \
         are not significantly different at alpha 0.05 (Demšar 2006)."
    ));
    for r in &b.rank_tests {
        let cd = CdDiagram {
            title: format!("{} (Friedman {})", r.measure, p_equals_text(r.friedman_p)),
            names: BINARY_METHODS.iter().map(|s| s.to_string()).collect(),
            mean_ranks: r.mean_ranks.clone(),
            critical_difference: r.critical_difference,
        };
        ranks.figure(
            &format!("Critical-difference diagram of {}.", r.measure),
            cd.render(),
        );
        let mut cells: Vec<Cell> = vec![
            r.measure.clone().into(),
            Cell::PValue(r.friedman_p),
            r.critical_difference.into(),
        ];
        cells.extend(r.mean_ranks.iter().map(|v| Cell::from(*v)));
        tr.row(cells);
    }
    if b.rank_tests.is_empty() {
        ranks.paragraph("Not enough datasets for the test (at least two are needed).");
    }
    ranks.table("rank_tests", tr);
}

/// The recall of each class per method (Fig. 2), with the t-test of their
/// difference.
fn pt_recall_section(report: &mut Report, b: &BinarySummary, largest: usize) {
    let mut t2 = Table::new(&[
        "method",
        "recall_minority",
        "recall_majority",
        "mean_difference",
        "t",
        "p_value",
    ]);
    for (m, r) in BINARY_METHODS.iter().zip(&b.recall) {
        t2.row(vec![
            (*m).into(),
            r.minority.into(),
            r.majority.into(),
            r.mean_difference.into(),
            r.t.into(),
            Cell::PValue(r.p_value),
        ]);
    }
    let bars = GroupedBars {
        title: format!("Mean recall per class at n = {largest}"),
        value_label: "recall".into(),
        groups: BINARY_METHODS.iter().map(|s| s.to_string()).collect(),
        series: vec!["minority".into(), "majority".into()],
        values: b
            .recall
            .iter()
            .map(|r| vec![r.minority, r.majority])
            .collect(),
        range: Some((0.0, 1.0)),
    };
    report
        .section("Recall per class (Fig. 2)")
        .paragraph(
            "Mean over datasets of the recall of the minority and the majority class, and a \
             one-sample t-test of their difference.",
        )
        .figure("Recall of each class per method (Fig. 2).", bars.render())
        .table("recall_per_class", t2);
}

/// The multiclass section of [`pt_bagging_report`].
fn pt_multiclass(report: &mut Report, m: &MulticlassSummary) {
    let mut t = Table::new(&["method", "macro_accuracy", "macro_f1", "wins"]);
    for (i, name) in MULTICLASS_METHODS.iter().enumerate() {
        let at = |v: &[f64]| v.get(i).copied().unwrap_or(f64::NAN);
        t.row(vec![
            (*name).into(),
            at(&m.macro_accuracy).into(),
            at(&m.macro_f1).into(),
            m.wins.get(i).copied().unwrap_or(0).into(),
        ]);
    }
    let bars = GroupedBars {
        title: "Multiclass: mean macro accuracy and macro F1".into(),
        value_label: "mean over datasets".into(),
        groups: MULTICLASS_METHODS.iter().map(|s| s.to_string()).collect(),
        series: vec!["macro accuracy".into(), "macro F1".into()],
        values: (0..MULTICLASS_METHODS.len())
            .map(|i| {
                vec![
                    m.macro_accuracy.get(i).copied().unwrap_or(f64::NAN),
                    m.macro_f1.get(i).copied().unwrap_or(f64::NAN),
                ]
            })
            .collect(),
        range: Some((0.0, 1.0)),
    };
    let s = report.section(&format!("Multiclass: {} datasets (Sec. 5.2)", m.n_datasets));
    s.paragraph(
        "Mean over datasets at the largest size; wins: datasets on which the method has the \
         best macro accuracy (ties count for every tied method).",
    )
    .figure("Multiclass methods.", bars.render())
    .table("multiclass", t);
    if let Some(w) = &m.against_best {
        s.paragraph(&format!(
            "PT_MA against the best competitor ({}) on macro accuracy: win / tie / loss \
             {}/{}/{}, Wilcoxon {}.",
            m.best_competitor,
            w.wins,
            w.ties,
            w.losses,
            p_equals_text(w.wilcoxon_p)
        ));
    }
}

/// The report of the ReverseTesting bias experiment (Fan & Davidson 2006,
/// Sec. 5): one `(method, tally)` per method, and `notes` describing the run.
///
/// ```
/// use rarity::experiment::bias::Tally;
/// use rarity::experiment::experiment_report::reverse_testing_report;
/// let t = Tally { correct: 8, wrong: 1, undecided: 1, ..Tally::default() };
/// let html = reverse_testing_report(&[("10-fold CV".into(), t)], &[]).to_html();
/// assert!(html.contains("<svg") && html.contains("10-fold CV"));
/// ```
pub fn reverse_testing_report(methods: &[(String, Tally)], notes: &[String]) -> Report {
    let mut report = Report::new("rarity experiment reverse-testing (Fan & Davidson 2006)");
    notes_section(&mut report, notes);
    let mut t = Table::new(&["method", "correct", "wrong", "undecided", "percent_correct"]);
    let mut values = Vec::new();
    for (m, x) in methods {
        t.row(vec![
            m.clone().into(),
            x.correct.into(),
            x.wrong.into(),
            x.undecided.into(),
            x.percent_correct().into(),
        ]);
        let n = (x.correct + x.wrong + x.undecided) as f64;
        let pct = |k: usize| {
            if n == 0.0 {
                f64::NAN
            } else {
                100.0 * k as f64 / n
            }
        };
        values.push(vec![pct(x.correct), pct(x.wrong), pct(x.undecided)]);
    }
    let bars = GroupedBars {
        title: "Pairwise order predictions per method".into(),
        value_label: "% of counted pairs".into(),
        groups: methods.iter().map(|(m, _)| m.clone()).collect(),
        series: vec!["correct".into(), "wrong".into(), "undecided".into()],
        values,
        range: Some((0.0, 100.0)),
    };
    report
        .section("Correct, wrong and undecided predictions")
        .paragraph(
            "For every pair of learners, whether each method predicts the order measured on \
             the unbiased test half. The paper: ReverseTesting 84% correct, 10-fold CV 68%, \
             leave-one-out 40%.",
        )
        .figure("Share of pairs per outcome and method.", bars.render())
        .table("summary", t);
    report
}
