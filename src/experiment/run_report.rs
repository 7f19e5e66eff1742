//! The HTML report of `rarity run --report DIR`: the ranking (models or
//! strategies, as the ranking metric decides, see [`super::run`]), the
//! decisions of each model, the Friedman / Nemenyi verdict between models
//! with Demšar's critical-difference diagram, out-of-fold ROC,
//! precision-recall and reliability curves of the three best distinct
//! models (Dal Pozzolo et al. 2015, Figs. 3-6 show the same kinds), box
//! plots of the metrics over folds and the recall of each class.
//!
//! Layout for a 1,200 px page: the main tables put the ranking metric first
//! and hold what fits; every other value is in a folded details table (and
//! in `tables/*.csv`, `tables/*.json` at full precision). Numbers read as
//! [`crate::report::format`] writes them. Models are labelled `M1`, `M2`,
//! ... by rank and strategies `M1.1`, `M1.2`, ... (model rank, then the
//! decision's rank within the model); the `labels` table maps labels to
//! specs.
//!
//! The curves and recalls use the test-fold predictions of the first repeat
//! (every row predicted once by a model that did not see it), kept when the
//! comparison ran with [`Extras::keep_predictions`](crate::evaluate::Extras).

use super::compare::{ranks_models, DECISION_METRICS, MODEL_METRICS};
use super::run::{Level, RunOutcome};
use crate::data::Dataset;
use crate::error::Result;
use crate::evaluate::{Predictions, Summary};
use crate::metrics::calibration::{reliability_bins, Bin, Binning};
use crate::metrics::catalogue::metric;
use crate::metrics::ranking::{binary_ranking, precision_recall_curve, roc_curve};
use crate::report::format::metric_text;
use crate::report::svg::{BoxPlot, CdDiagram, GroupedBars, LinePlot, Series};
use crate::report::table::{Cell, Table};
use crate::report::Report;

/// Bins of the reliability diagrams.
pub const RELIABILITY_BINS: usize = 10;

/// Strategy specs longer than this make figures hard to read: when any
/// spec is longer, the figures show labels only (`M1`, `M1.2`, ...) and the
/// `labels` table maps them to the specs.
pub const LABEL_MAX_CHARS: usize = 24;

/// Metric columns of the main ranking table besides the ranking metric.
const MAIN_COLUMNS: usize = 4;

/// What the report says about the run besides the comparison itself.
#[derive(Debug, Clone)]
pub struct RunContext<'a> {
    /// The data that were compared on.
    pub data: &'a Dataset,
    /// Lines describing the data and protocol (source, folds, seed, costs).
    pub notes: Vec<String>,
}

/// The labels of models and strategies.
struct Labels {
    /// `M{rank}` per model index.
    model: Vec<String>,
    /// `M{model rank}.{decision rank}` per strategy index.
    strategy: Vec<String>,
    /// Whether figures show the specs after the labels.
    with_specs: bool,
}

impl Labels {
    fn new(o: &RunOutcome) -> Labels {
        let cmp = &o.comparison;
        let mut model = vec![String::new(); cmp.models.len()];
        let mut strategy = vec![String::new(); cmp.evaluations.len()];
        for (r, d) in o.decisions.iter().enumerate() {
            model[d.model] = format!("M{}", r + 1);
            for (j, &i) in d.strategies.iter().enumerate() {
                strategy[i] = format!("M{}.{}", r + 1, j + 1);
            }
        }
        let with_specs = cmp
            .evaluations
            .iter()
            .all(|e| e.spec.chars().count() <= LABEL_MAX_CHARS);
        Labels {
            model,
            strategy,
            with_specs,
        }
    }

    /// A model's label in figures.
    fn model_figure(&self, o: &RunOutcome, m: usize) -> String {
        if self.with_specs {
            format!("{} {}", self.model[m], o.comparison.models[m].spec)
        } else {
            self.model[m].clone()
        }
    }

    /// A strategy's label in figures.
    fn strategy_figure(&self, o: &RunOutcome, i: usize) -> String {
        if self.with_specs {
            format!("{} {}", self.strategy[i], o.comparison.evaluations[i].spec)
        } else {
            self.strategy[i].clone()
        }
    }
}

/// What the ranking and decision tables read.
struct Page<'a> {
    o: &'a RunOutcome,
    labels: Labels,
    summaries: Vec<Vec<(String, Summary)>>,
    all_keys: Vec<&'static str>,
}

/// The metric keys the folds have: the model metrics, the decision metrics,
/// then `cost` and `benefit` when present.
fn present_keys(o: &RunOutcome, keys: &[&'static str]) -> Vec<&'static str> {
    let has = |k: &str| {
        o.comparison
            .evaluations
            .first()
            .and_then(|e| e.folds.first())
            .is_some_and(|f| f.metrics.iter().any(|(m, _)| m == k))
    };
    keys.iter().copied().filter(|k| has(k)).collect()
}

/// The summary of `key` for strategy `i`.
fn summary_of(summaries: &[Vec<(String, Summary)>], i: usize, key: &str) -> Option<Summary> {
    summaries[i].iter().find(|(m, _)| m == key).map(|(_, s)| *s)
}

/// Builds the report of a run.
///
/// ```
/// use rarity::data::{bundled, read::ReadOptions};
/// use rarity::evaluate::Extras;
/// use rarity::experiment::run::{run, RunSettings};
/// use rarity::experiment::run_report::{run_report, RunContext};
/// use rarity::metrics::catalogue::metric;
/// let (ds, _) = bundled::find("glass6").unwrap().load(&ReadOptions::default()).unwrap();
/// let strategies = ["tree", "forest(n=5)+threshold(priors)", "forest(n=5)", "logistic"]
///     .iter().map(|s| rarity::spec::build_strategy(s).unwrap()).collect();
/// let settings = RunSettings {
///     strategies, decision_copies: vec![], metric: metric("roc_auc").unwrap(), decision_metric: None,
///     extras: Extras { keep_predictions: true, ..Extras::default() },
///     splitter: "1x3".parse().unwrap(), pooled: false, seed: 1,
/// };
/// let outcome = run(&ds, settings).unwrap();
/// let ctx = RunContext { data: &ds, notes: vec![] };
/// let html = run_report(&outcome, &ctx).unwrap().to_html();
/// assert!(html.matches("<svg").count() >= 5);
/// ```
pub fn run_report(o: &RunOutcome, ctx: &RunContext<'_>) -> Result<Report> {
    let cmp = &o.comparison;
    let key = o.metric.key;
    let labels = Labels::new(o);
    let level_word = match o.level {
        Level::Models => "models",
        Level::Strategies => "strategies",
    };
    let mut report = Report::new(&format!("rarity run: {level_word} ranked by {key}"));
    let data_section = report.section("Data and protocol");
    for n in &ctx.notes {
        data_section.paragraph(n);
    }
    let summaries: Vec<_> = cmp.evaluations.iter().map(|e| e.summary()).collect();
    let mut all_keys: Vec<&'static str> = MODEL_METRICS.to_vec();
    all_keys.extend_from_slice(DECISION_METRICS);
    all_keys.extend(["cost", "benefit"]);
    let all_keys = present_keys(o, &all_keys);

    let page = Page {
        o,
        labels,
        summaries,
        all_keys,
    };
    ranking_section(&mut report, &page);
    decisions_section(&mut report, &page);
    let labels = page.labels;
    verdict_section(&mut report, o, &labels);

    let pooled: Vec<Option<Predictions>> = cmp
        .evaluations
        .iter()
        .map(|e| e.pooled_predictions())
        .collect();
    // The three best distinct models with predictions, each through its
    // first strategy (the decision does not change the probabilities).
    let top: Vec<usize> = o
        .model_order
        .iter()
        .copied()
        .filter(|&m| pooled[cmp.models[m].strategies[0]].is_some())
        .take(3)
        .collect();
    if !top.is_empty() && ctx.data.n_classes() == 2 {
        curves_section(&mut report, o, &pooled, &top, &labels)?;
    }
    folds_section(&mut report, o, &labels);
    recall_section(&mut report, o, &pooled, &labels, ctx.data);
    Ok(report)
}

/// The main ranking table (the ranking metric first, what fits a page) and
/// the folded details of every strategy.
fn ranking_section(report: &mut Report, page: &Page<'_>) {
    let o = page.o;
    let cmp = &o.comparison;
    let key = o.metric.key;
    let direction = if o.metric.higher_is_better() {
        "higher"
    } else {
        "lower"
    };
    let what = match o.level {
        Level::Models => format!(
            "{key} is a ranking or probability metric: no decision changes it, so it ranks \
             models (everything but the decision); {} distinct models among {} strategies.",
            cmp.models.len(),
            cmp.evaluations.len()
        ),
        Level::Strategies => format!(
            "{key} depends on the decisions, so it ranks strategies (a model with one decision); \
             the verdict below compares models, each by its best decision."
        ),
    };
    report
        .section(&format!("Ranking by {key}"))
        .paragraph(&format!(
            "{what} Mean and standard deviation over folds ({key}: {direction} is better); \
             tied_with_best: not significantly worse than the best model (Nemenyi)."
        ))
        .table("ranking", ranking_table(page))
        .folded_table(
            "ranking_details",
            "Every metric of every strategy (mean, std, and the full potential of a \
             thresholded metric: its best value over all thresholds, Collell et al. 2018, \
             Table 5, a diagnosis rather than an achievable score)",
            ranking_details(page),
        )
        .folded_table("folds", "Every fold's values", fold_values(page))
        .folded_table(
            "labels",
            "Labels of models (M1) and strategies (M1.1)",
            label_legend(page),
        );
}

/// The main ranking table: per ranked row (model or strategy) the ranking
/// metric's mean and std, the means of the metrics that fit a page, and
/// whether it ties with the best model.
fn ranking_table(page: &Page<'_>) -> Table {
    let Page {
        o,
        labels,
        summaries,
        ..
    } = page;
    let key = o.metric.key;
    let (name_col, level_keys): (&str, Vec<&'static str>) = match o.level {
        Level::Models => ("model", present_keys(o, MODEL_METRICS)),
        Level::Strategies => {
            let mut k = vec!["cost", "benefit"];
            k.extend_from_slice(DECISION_METRICS);
            k.extend_from_slice(MODEL_METRICS);
            ("strategy", present_keys(o, &k))
        }
    };
    let others: Vec<&str> = level_keys
        .iter()
        .copied()
        .filter(|k| *k != key)
        .take(MAIN_COLUMNS)
        .collect();
    let mut header = vec![
        "rank".to_string(),
        "label".to_string(),
        name_col.to_string(),
        format!("{key}_mean"),
        format!("{key}_std"),
    ];
    header.extend(others.iter().map(|k| format!("{k}_mean")));
    header.push("tied_with_best".into());
    let refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut main = Table::new(&refs);
    for (pos, (label, name, i, m)) in ranked_rows(o, labels).into_iter().enumerate() {
        let s = summary_of(summaries, i, key);
        let mut row: Vec<Cell> = vec![
            (pos + 1).into(),
            label.into(),
            name.into(),
            s.map_or(f64::NAN, |s| s.mean).into(),
            s.map_or(f64::NAN, |s| s.std).into(),
        ];
        for k in &others {
            row.push(
                summary_of(summaries, i, k)
                    .map_or(f64::NAN, |s| s.mean)
                    .into(),
            );
        }
        row.push(o.verdict.tied_with_best.contains(&m).into());
        main.row(row);
    }

    main
}

/// The rows of the ranking, in rank order: per model (through its
/// representative strategy on the metric) or per strategy, its label, spec,
/// strategy index and model index.
fn ranked_rows(o: &RunOutcome, labels: &Labels) -> Vec<(String, String, usize, usize)> {
    let cmp = &o.comparison;
    let key = o.metric.key;
    let reps = cmp.representatives(key, o.metric.higher_is_better());
    match o.level {
        Level::Models => o
            .model_order
            .iter()
            .map(|&m| {
                (
                    labels.model[m].clone(),
                    cmp.models[m].spec.clone(),
                    reps[m],
                    m,
                )
            })
            .collect(),
        Level::Strategies => o
            .order
            .iter()
            .map(|&i| {
                let m = cmp.models.iter().position(|m| m.strategies.contains(&i));
                (
                    labels.strategy[i].clone(),
                    cmp.evaluations[i].spec.clone(),
                    i,
                    m.unwrap_or(0),
                )
            })
            .collect(),
    }
}

/// Every metric of every strategy: mean, std and, for a thresholded metric,
/// its full potential, then the fit time.
fn ranking_details(page: &Page<'_>) -> Table {
    let (o, labels, summaries) = (page.o, &page.labels, &page.summaries);
    let (cmp, all_keys) = (&o.comparison, &page.all_keys);
    let potential = |k: &str| {
        summaries
            .iter()
            .flatten()
            .any(|(m, s)| m == k && s.full_potential.is_some())
    };
    let mut header = vec![
        "label".to_string(),
        "strategy".to_string(),
        "model".to_string(),
    ];
    for k in all_keys {
        header.push(format!("{k}_mean"));
        header.push(format!("{k}_std"));
        if potential(k) {
            header.push(format!("{k}_full_potential"));
        }
    }
    header.push("fit_seconds".into());
    let refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut details = Table::new(&refs);
    for d in &o.decisions {
        for &i in &d.strategies {
            let mut row: Vec<Cell> = vec![
                labels.strategy[i].clone().into(),
                cmp.evaluations[i].spec.clone().into(),
                cmp.models[d.model].spec.clone().into(),
            ];
            for k in all_keys {
                let s = summary_of(summaries, i, k);
                row.push(s.map_or(f64::NAN, |s| s.mean).into());
                row.push(s.map_or(f64::NAN, |s| s.std).into());
                if potential(k) {
                    row.push(s.and_then(|s| s.full_potential).unwrap_or(f64::NAN).into());
                }
            }
            row.push(cmp.evaluations[i].seconds().0.into());
            details.row(row);
        }
    }
    details
}

/// Every fold's value of every metric, per strategy in rank order.
fn fold_values(page: &Page<'_>) -> Table {
    let Page { o, all_keys, .. } = page;
    let cmp = &o.comparison;
    let mut fold_header = vec!["strategy", "repeat", "fold"];
    fold_header.extend(all_keys);
    let mut folds = Table::new(&fold_header);
    for &i in &o.order {
        let e = &cmp.evaluations[i];
        for f in &e.folds {
            let mut row: Vec<Cell> = vec![e.spec.clone().into(), f.repeat.into(), f.fold.into()];
            for k in all_keys {
                let v = f
                    .metrics
                    .iter()
                    .find(|(m, _)| m == k)
                    .map_or(f64::NAN, |m| m.1);
                row.push(v.into());
            }
            folds.row(row);
        }
    }
    folds
}

/// The labels of the models (`M1`) and strategies (`M1.1`) with their specs.
fn label_legend(page: &Page<'_>) -> Table {
    let Page { o, labels, .. } = page;
    let cmp = &o.comparison;
    let mut legend = Table::new(&["label", "spec"]);
    for d in &o.decisions {
        legend.row(vec![
            labels.model[d.model].clone().into(),
            cmp.models[d.model].spec.clone().into(),
        ]);
        for &i in &d.strategies {
            legend.row(vec![
                labels.strategy[i].clone().into(),
                cmp.evaluations[i].spec.clone().into(),
            ]);
        }
    }
    legend
}

/// The decisions of each model on the decision metric, with the Wilcoxon
/// p-value against the model's best decision.
fn decisions_section(report: &mut Report, page: &Page<'_>) {
    let Page {
        o,
        labels,
        summaries,
        all_keys,
    } = page;
    let cmp = &o.comparison;
    let dm = o.decision_metric.key;
    let others: Vec<&str> = all_keys
        .iter()
        .copied()
        .filter(|k| *k != dm && metric(k).is_ok_and(|m| !ranks_models(m)))
        .take(MAIN_COLUMNS - 1)
        .collect();
    let mut header = vec![
        "label".to_string(),
        "strategy".to_string(),
        format!("{dm}_mean"),
        format!("{dm}_std"),
        "p_vs_best".to_string(),
    ];
    header.extend(others.iter().map(|k| format!("{k}_mean")));
    let refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new(&refs);
    for d in &o.decisions {
        for (&i, &p) in d.strategies.iter().zip(&d.p_vs_best) {
            let s = summary_of(summaries, i, dm);
            let mut row: Vec<Cell> = vec![
                labels.strategy[i].clone().into(),
                cmp.evaluations[i].spec.clone().into(),
                s.map_or(f64::NAN, |s| s.mean).into(),
                s.map_or(f64::NAN, |s| s.std).into(),
                Cell::PValue(p),
            ];
            for k in &others {
                row.push(
                    summary_of(summaries, i, k)
                        .map_or(f64::NAN, |s| s.mean)
                        .into(),
                );
            }
            t.row(row);
        }
    }
    let direction = if o.decision_metric.higher_is_better() {
        "higher"
    } else {
        "lower"
    };
    report
        .section(&format!("Decisions of each model, by {dm}"))
        .paragraph(&format!(
            "Each model's decisions applied to the same probabilities, best first on {dm} \
             ({direction} is better). p_vs_best: two-sided Wilcoxon signed-rank test over \
             folds against the model's best decision (- for the best itself)."
        ))
        .table("decisions", t);
}

/// The Friedman / Nemenyi verdict between models.
fn verdict_section(report: &mut Report, o: &RunOutcome, labels: &Labels) {
    let v = &o.verdict;
    let mut t = Table::new(&[
        "label",
        "model",
        "represented_by",
        "mean_rank",
        "tied_with_best",
    ]);
    for &m in &o.model_order {
        t.row(vec![
            labels.model[m].clone().into(),
            v.models[m].clone().into(),
            v.represented_by[m].clone().into(),
            v.mean_ranks[m].into(),
            v.tied_with_best.contains(&m).into(),
        ]);
    }
    let section = report.section("Friedman / Nemenyi verdict between models");
    section.paragraph(&format!("{}.", capitalised(&v.summary)));
    if v.testable {
        let cd = CdDiagram {
            title: format!("Mean ranks on {} (Nemenyi, alpha 0.05)", v.metric),
            names: (0..v.models.len())
                .map(|m| labels.model[m].clone())
                .collect(),
            mean_ranks: v.mean_ranks.clone(),
            critical_difference: v.critical_difference,
        };
        section
            .paragraph(
                "Models joined by a thick line are not significantly different (Demšar 2006).",
            )
            .figure(
                "Critical-difference diagram (rank 1 = best, on the left).",
                cd.render(),
            );
    }
    section.table("verdict", t);
}

/// `s` with its first letter upper-case.
fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or(String::new(), |f| {
        f.to_uppercase().collect::<String>() + c.as_str()
    })
}

/// Box plots of the ranking metric (and AUC or AP) over folds: per model
/// when models rank, per strategy otherwise.
fn folds_section(report: &mut Report, o: &RunOutcome, labels: &Labels) {
    let cmp = &o.comparison;
    let key = o.metric.key;
    let mut shown = vec![key];
    for extra in ["roc_auc", "average_precision"] {
        if shown.len() < 2 && extra != key {
            shown.push(extra);
        }
    }
    let section = report.section("Metrics over folds");
    for m in shown {
        let mut b = BoxPlot::new(&format!("{m} over folds"), m);
        let is_model_metric = metric(m).is_ok_and(ranks_models);
        let whom = if is_model_metric { "model" } else { "strategy" };
        b.groups = if is_model_metric {
            o.model_order
                .iter()
                .map(|&mi| {
                    let i = cmp.models[mi].strategies[0];
                    (labels.model_figure(o, mi), cmp.evaluations[i].values(m))
                })
                .collect()
        } else {
            o.order
                .iter()
                .map(|&i| (labels.strategy_figure(o, i), cmp.evaluations[i].values(m)))
                .collect()
        };
        section.figure(
            &format!("{m} of each {whom} over the folds (box: quartiles; line: median)."),
            b.render(),
        );
    }
}

/// Recall of each class per strategy, from the pooled first repeat.
fn recall_section(
    report: &mut Report,
    o: &RunOutcome,
    pooled: &[Option<Predictions>],
    labels: &Labels,
    data: &Dataset,
) {
    let cmp = &o.comparison;
    let names = data.class_names();
    let with_pred: Vec<usize> = o
        .order
        .iter()
        .copied()
        .filter(|&i| pooled[i].is_some())
        .collect();
    if with_pred.is_empty() {
        return;
    }
    let mut header = vec!["label".to_string(), "strategy".to_string()];
    header.extend(names.iter().map(|c| format!("recall_{c}")));
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut t = Table::new(&header_refs);
    let mut values = Vec::new();
    for &i in &with_pred {
        let p = pooled[i].as_ref().expect("filtered");
        let r = recall_per_class(p, names.len());
        let mut row: Vec<Cell> = vec![
            labels.strategy[i].clone().into(),
            cmp.evaluations[i].spec.clone().into(),
        ];
        row.extend(r.iter().map(|v| Cell::from(*v)));
        t.row(row);
        values.push(r);
    }
    let bars = GroupedBars {
        title: "Recall of each class (out-of-fold, first repeat)".into(),
        value_label: "recall".into(),
        groups: with_pred
            .iter()
            .map(|&i| labels.strategy_figure(o, i))
            .collect(),
        series: names.iter().map(|c| format!("class {c}")).collect(),
        values,
        range: Some((0.0, 1.0)),
    };
    report
        .section("Recall per class")
        .paragraph(
            "The fraction of each class's rows that the strategy's own decisions label \
             correctly, pooled over the test folds of the first repeat.",
        )
        .figure("Recall per class and strategy.", bars.render())
        .table("recall_per_class", t);
}

/// Recall of each class: correct decisions over the class's rows (`NaN` for
/// a class without rows).
fn recall_per_class(p: &Predictions, k: usize) -> Vec<f64> {
    let mut hit = vec![0usize; k];
    let mut total = vec![0usize; k];
    for (&t, &l) in p.truth.iter().zip(&p.labels) {
        if (t as usize) < k {
            total[t as usize] += 1;
            hit[t as usize] += usize::from(t == l);
        }
    }
    (0..k)
        .map(|c| {
            if total[c] == 0 {
                f64::NAN
            } else {
                hit[c] as f64 / total[c] as f64
            }
        })
        .collect()
}

/// ROC, precision-recall and reliability curves of the `top` models.
fn curves_section(
    report: &mut Report,
    o: &RunOutcome,
    pooled: &[Option<Predictions>],
    top: &[usize],
    labels: &Labels,
) -> Result<()> {
    let cmp = &o.comparison;
    let mut plots = CurvePlots::new();
    let mut bins_table = Table::new(&[
        "label",
        "model",
        "lower",
        "upper",
        "count",
        "mean_predicted",
        "observed",
    ]);
    let mut prevalence = f64::NAN;
    for &m in top {
        let p = pooled[cmp.models[m].strategies[0]]
            .as_ref()
            .expect("top models have predictions");
        let bins = plots.add(&labels.model_figure(o, m), p)?;
        for b in &bins {
            bins_table.row(vec![
                labels.model[m].clone().into(),
                cmp.models[m].spec.clone().into(),
                b.lower.into(),
                b.upper.into(),
                b.count.into(),
                b.mean_predicted.into(),
                b.observed.into(),
            ]);
        }
        prevalence = p.truth.iter().filter(|&&t| t == 1).count() as f64 / p.truth.len() as f64;
    }
    let CurvePlots {
        roc,
        mut log_roc,
        mut pr,
        rel,
        min_fpr,
    } = plots;
    log_roc.x_range = Some((min_fpr.log10().floor().min(-1.0), 0.0));
    pr.hlines.push((
        format!("positive rate ({})", metric_text(prevalence)),
        prevalence,
    ));
    report
        .section("Out-of-fold curves of the three best models")
        .paragraph(&format!(
            "Pooled test-fold probabilities of the first repeat: every row predicted once, by \
             a model that did not see it. The AUC and AP in the legends are computed once on \
             these pooled predictions; the tables' are means over the folds of every repeat, \
             each fold scored alone, so the two differ (AP most: a fold with few positives \
             scores far from the pooled value). Reliability: {RELIABILITY_BINS} equal-width \
             bins; points on the diagonal are calibrated; a marker's area is proportional to \
             its bin's number of rows (hover for the count, and see the reliability table), so \
             a nearly empty bin shows as a small dot. Curves of more than 2,000 points are \
             thinned to at most 2,000 (Ramer-Douglas-Peucker within a quarter pixel of the \
             full curve, coarser only when that keeps too many)."
        ))
        .figure("ROC curves.", roc.render())
        .figure(
            "ROC curves on a log false-positive axis: the region where a rare class's alarms \
             are raised (each curve starts at its first false positive).",
            log_roc.render(),
        )
        .figure(
            "Precision-recall curves (legend: AP of the pooled predictions).",
            pr.render(),
        )
        .figure(
            "Reliability diagram (marker area: rows in the bin).",
            rel.render(),
        )
        .folded_table("reliability", "Reliability bins", bins_table);
    Ok(())
}

/// The out-of-fold plots of [`curves_section`], filled model by model.
struct CurvePlots {
    roc: LinePlot,
    log_roc: LinePlot,
    pr: LinePlot,
    rel: LinePlot,
    /// The smallest false-positive rate a model can have (one alarm).
    min_fpr: f64,
}

impl CurvePlots {
    /// The plots, titled and scaled, with no curve yet.
    fn new() -> Self {
        let mut roc = LinePlot::new(
            "ROC curves (out-of-fold)",
            "false positive rate",
            "true positive rate",
        );
        roc.diagonal = Some("chance".into());
        // The same curves on a log false-positive axis: at a positive rate of a
        // few per thousand, the alarms that matter are at FPR 1e-4 to 1e-2,
        // squeezed against the left edge of the linear plot.
        let mut log_roc = LinePlot::new(
            "ROC curves, log false-positive axis (out-of-fold)",
            "log10 false positive rate (-2 = 1%, -3 = 0.1%)",
            "true positive rate",
        );
        log_roc.y_range = Some((0.0, 1.0));
        let mut pr = LinePlot::new(
            "Precision-recall curves (out-of-fold)",
            "recall",
            "precision",
        );
        let mut rel = LinePlot::new(
            "Reliability diagram (out-of-fold)",
            "mean predicted probability",
            "observed positive rate",
        );
        rel.diagonal = Some("perfectly calibrated".into());
        for plot in [&mut roc, &mut pr, &mut rel] {
            plot.x_range = Some((0.0, 1.0));
            plot.y_range = Some((0.0, 1.0));
        }
        CurvePlots {
            roc,
            log_roc,
            pr,
            rel,
            min_fpr: 1.0,
        }
    }

    /// Adds the curves of model `name` from its pooled predictions `p`;
    /// returns its reliability bins.
    fn add(&mut self, name: &str, p: &Predictions) -> Result<Vec<Bin>> {
        let scores = p.proba.column(1);
        let r = binary_ranking(&p.truth, &scores, 1)?;
        let c = roc_curve(&p.truth, &scores, 1)?;
        self.roc.series.push(Series::line(
            &format!("{name} (pooled AUC {})", metric_text(r.roc_auc)),
            &c.fpr,
            &c.tpr,
        ));
        // FPR 0 has no logarithm: the curve starts at the first false alarm.
        let (log_fpr, tpr): (Vec<f64>, Vec<f64>) = c
            .fpr
            .iter()
            .zip(&c.tpr)
            .filter(|(f, _)| **f > 0.0)
            .map(|(f, t)| (f.log10(), *t))
            .unzip();
        let negatives = p.truth.iter().filter(|&&t| t != 1).count().max(1);
        self.min_fpr = self.min_fpr.min(1.0 / negatives as f64);
        self.log_roc.series.push(Series::line(name, &log_fpr, &tpr));
        let c = precision_recall_curve(&p.truth, &scores, 1)?;
        self.pr.series.push(Series::line(
            &format!("{name} (pooled AP {})", metric_text(r.average_precision)),
            &c.recall,
            &c.precision,
        ));
        let bins = reliability_bins(&p.truth, &scores, 1, RELIABILITY_BINS, Binning::Uniform)?;
        let x: Vec<f64> = bins.iter().map(|b| b.mean_predicted).collect();
        let y: Vec<f64> = bins.iter().map(|b| b.observed).collect();
        let counts: Vec<f64> = bins.iter().map(|b| b.count as f64).collect();
        self.rel
            .series
            .push(Series::line(name, &x, &y).with_weighted_markers(&counts));
        Ok(bins)
    }
}
