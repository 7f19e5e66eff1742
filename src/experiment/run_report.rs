//! The HTML report of `rarity run --report DIR`: the ranked table, the
//! Friedman / Nemenyi verdict with Demšar's critical-difference diagram,
//! out-of-fold ROC, precision-recall and reliability curves of the three
//! best strategies (Dal Pozzolo et al. 2015, Figs. 3-6 show the same kinds),
//! box plots of the metrics over folds and the recall of each class.
//!
//! The curves and recalls use the test-fold predictions of the first repeat
//! (every row predicted once by a model that did not see it), kept when the
//! comparison ran with [`Extras::keep_predictions`](crate::evaluate::Extras).

use super::compare::{Comparison, Verdict, RANKED_METRICS};
use crate::data::Dataset;
use crate::error::Result;
use crate::evaluate::Predictions;
use crate::metrics::calibration::{reliability_bins, Binning};
use crate::metrics::catalogue::metric;
use crate::metrics::ranking::{binary_ranking, precision_recall_curve, roc_curve};
use crate::report::svg::{BoxPlot, CdDiagram, GroupedBars, LinePlot, Series};
use crate::report::table::{Cell, Table};
use crate::report::Report;

/// Bins of the reliability diagrams.
pub const RELIABILITY_BINS: usize = 10;

/// Strategy specs longer than this make figures hard to read: when any
/// spec is longer, the figures label strategies by rank only (`#1`, `#2`,
/// ...) and a legend table maps the labels to the specs.
pub const LABEL_MAX_CHARS: usize = 24;

/// What the report says about the run besides the comparison itself.
#[derive(Debug, Clone)]
pub struct RunContext<'a> {
    /// The data that were compared on.
    pub data: &'a Dataset,
    /// Lines describing the data and protocol (source, folds, seed, costs).
    pub notes: Vec<String>,
    /// The metric that ranks the strategies.
    pub metric: &'a str,
    /// Whether higher values of `metric` are better.
    pub higher_is_better: bool,
}

/// The metric keys reported: the ranked set, then `cost` and `benefit` when
/// the folds have them.
fn metric_keys(cmp: &Comparison) -> Vec<(&'static str, &'static str)> {
    let has = |k: &str| {
        cmp.evaluations
            .first()
            .and_then(|e| e.folds.first())
            .is_some_and(|f| f.metrics.iter().any(|(m, _)| m == k))
    };
    RANKED_METRICS
        .iter()
        .copied()
        .chain(["cost", "benefit"])
        .filter(|k| has(k))
        .filter_map(|k| metric(k).ok().map(|m| (m.key, m.label)))
        .collect()
}

/// Builds the report of a comparison; `order` is the ranking (best first)
/// and `verdict` the Friedman / Nemenyi result when there were at least
/// three strategies.
///
/// ```
/// use rarity::data::{bundled, read::ReadOptions};
/// use rarity::evaluate::Extras;
/// use rarity::experiment::compare::compare;
/// use rarity::experiment::run_report::{run_report, RunContext};
/// use rarity::split::Splitter;
/// let (ds, _) = bundled::find("glass6").unwrap().load(&ReadOptions::default()).unwrap();
/// let s: Vec<_> = ["tree", "forest(n=5)+threshold(priors)", "forest(n=5)"]
///     .iter().map(|s| rarity::spec::build_strategy(s).unwrap()).collect();
/// let extras = Extras { keep_predictions: true, ..Extras::default() };
/// let c = compare(&s, &ds, &Splitter::k_fold(3), 1, &extras).unwrap();
/// let order = c.ranked("roc_auc", true);
/// let v = c.verdict("roc_auc", true).unwrap();
/// let ctx = RunContext { data: &ds, notes: vec![], metric: "roc_auc", higher_is_better: true };
/// let html = run_report(&c, &order, Some(&v), &ctx).unwrap().to_html();
/// assert!(html.matches("<svg").count() >= 5);
/// ```
pub fn run_report(
    cmp: &Comparison,
    order: &[usize],
    verdict: Option<&Verdict>,
    ctx: &RunContext<'_>,
) -> Result<Report> {
    let metric = ctx.metric;
    let mut report = Report::new(&format!("rarity run: strategies ranked by {metric}"));
    let rank_of = |i: usize| order.iter().position(|&j| j == i).map_or(0, |p| p + 1);
    let short = cmp
        .evaluations
        .iter()
        .any(|e| e.spec.chars().count() > LABEL_MAX_CHARS);
    let label = |i: usize| {
        if short {
            format!("#{}", rank_of(i))
        } else {
            format!("#{} {}", rank_of(i), cmp.evaluations[i].spec)
        }
    };
    let data_section = report.section("Data and protocol");
    for n in &ctx.notes {
        data_section.paragraph(n);
    }

    // Ranked table, and the per-fold values.
    let keys = metric_keys(cmp);
    let summaries: Vec<_> = cmp.evaluations.iter().map(|e| e.summary()).collect();
    let potential = |k: &str| {
        summaries
            .iter()
            .flatten()
            .any(|(m, s)| m == k && s.full_potential.is_some())
    };
    let mut header = vec!["rank".to_string(), "strategy".to_string()];
    for (k, _) in &keys {
        header.push(format!("{k}_mean"));
        header.push(format!("{k}_std"));
        if potential(k) {
            header.push(format!("{k}_full_potential"));
        }
    }
    let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut ranking = Table::new(&header_refs);
    for (pos, &i) in order.iter().enumerate() {
        let mut row: Vec<Cell> = vec![(pos + 1).into(), cmp.evaluations[i].spec.clone().into()];
        for (k, _) in &keys {
            let s = summaries[i].iter().find(|(m, _)| m == k).map(|(_, s)| *s);
            row.push(s.map_or(f64::NAN, |s| s.mean).into());
            row.push(s.map_or(f64::NAN, |s| s.std).into());
            if potential(k) {
                row.push(s.and_then(|s| s.full_potential).unwrap_or(f64::NAN).into());
            }
        }
        ranking.row(row);
    }
    let mut fold_header = vec!["strategy", "repeat", "fold"];
    fold_header.extend(keys.iter().map(|k| k.0));
    let mut folds = Table::new(&fold_header);
    for &i in order {
        let e = &cmp.evaluations[i];
        for f in &e.folds {
            let mut row: Vec<Cell> = vec![e.spec.clone().into(), f.repeat.into(), f.fold.into()];
            for (k, _) in &keys {
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
    let ranking_section = report.section(&format!("Ranking by {metric}"));
    ranking_section
        .paragraph(&format!(
            "Mean and standard deviation over folds ({} is {} better). The full potential of a \
             thresholded metric is its best value over all thresholds (Collell et al. 2018, \
             Table 5): a diagnosis of the ranking, not an achievable score.",
            metric,
            if ctx.higher_is_better {
                "higher"
            } else {
                "lower"
            }
        ))
        .table("ranking", ranking)
        .folded_table("folds", "Every fold's values", folds);
    if short {
        let mut legend = Table::new(&["label", "strategy"]);
        for &i in order {
            legend.row(vec![
                label(i).into(),
                cmp.evaluations[i].spec.clone().into(),
            ]);
        }
        ranking_section
            .paragraph(&format!(
                "Some strategy specs are longer than {LABEL_MAX_CHARS} characters, so the \
                 figures label strategies by their rank: #1 is the best."
            ))
            .table("labels", legend);
    }

    // Verdict and CD diagram.
    if let Some(v) = verdict {
        let mut t = Table::new(&["strategy", "mean_rank", "tied_with_best"]);
        for &i in order {
            t.row(vec![
                cmp.evaluations[i].spec.clone().into(),
                v.mean_ranks[i].into(),
                v.tied_with_best.contains(&i).into(),
            ]);
        }
        let cd = CdDiagram {
            title: format!("Mean ranks on {metric} (Nemenyi, alpha 0.05)"),
            names: (0..cmp.evaluations.len()).map(label).collect(),
            mean_ranks: v.mean_ranks.clone(),
            critical_difference: v.critical_difference,
        };
        report
            .section("Friedman / Nemenyi verdict")
            .paragraph(&format!(
                "Friedman test on {metric} over folds: p = {:.2e} (Iman-Davenport p = {:.2e}). \
                 Nemenyi critical difference {:.2} ranks at alpha 0.05: strategies joined by a \
                 thick line are not significantly different (Demšar 2006).",
                v.friedman_p, v.iman_davenport_p, v.critical_difference
            ))
            .figure(
                "Critical-difference diagram (rank 1 = best, on the left).",
                cd.render(),
            )
            .table("verdict", t);
    }

    // Out-of-fold curves of the top 3.
    let pooled: Vec<Option<Predictions>> = cmp
        .evaluations
        .iter()
        .map(|e| e.pooled_predictions())
        .collect();
    let top: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&i| pooled[i].is_some())
        .take(3)
        .collect();
    if !top.is_empty() && ctx.data.n_classes() == 2 {
        curves_section(&mut report, cmp, &pooled, &top, &label)?;
    }

    // Metrics over folds.
    let mut shown = vec![metric];
    for extra in ["roc_auc", "average_precision"] {
        if shown.len() < 2 && extra != metric {
            shown.push(extra);
        }
    }
    let folds_section = report.section("Metrics over folds");
    for m in shown {
        let mut b = BoxPlot::new(&format!("{m} over folds"), m);
        b.groups = order
            .iter()
            .map(|&i| (label(i), cmp.evaluations[i].values(m)))
            .collect();
        folds_section.figure(
            &format!("{m} of each strategy over the folds (box: quartiles; line: median)."),
            b.render(),
        );
    }

    // Recall per class.
    let names = ctx.data.class_names();
    let with_pred: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&i| pooled[i].is_some())
        .collect();
    if !with_pred.is_empty() {
        let mut header = vec!["strategy".to_string()];
        header.extend(names.iter().map(|c| format!("recall_{c}")));
        let header_refs: Vec<&str> = header.iter().map(String::as_str).collect();
        let mut t = Table::new(&header_refs);
        let mut values = Vec::new();
        for &i in &with_pred {
            let p = pooled[i].as_ref().expect("filtered");
            let r = recall_per_class(p, names.len());
            let mut row: Vec<Cell> = vec![cmp.evaluations[i].spec.clone().into()];
            row.extend(r.iter().map(|v| Cell::from(*v)));
            t.row(row);
            values.push(r);
        }
        let bars = GroupedBars {
            title: "Recall of each class (out-of-fold, first repeat)".into(),
            value_label: "recall".into(),
            groups: with_pred.iter().map(|&i| label(i)).collect(),
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
    Ok(report)
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

/// ROC, precision-recall and reliability curves of the `top` strategies.
fn curves_section(
    report: &mut Report,
    cmp: &Comparison,
    pooled: &[Option<Predictions>],
    top: &[usize],
    label: &dyn Fn(usize) -> String,
) -> Result<()> {
    let mut roc = LinePlot::new(
        "ROC curves (out-of-fold)",
        "false positive rate",
        "true positive rate",
    );
    roc.diagonal = Some("chance".into());
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
    let mut bins_table = Table::new(&[
        "strategy",
        "lower",
        "upper",
        "count",
        "mean_predicted",
        "observed",
    ]);
    let mut prevalence = f64::NAN;
    for &i in top {
        let p = pooled[i].as_ref().expect("top strategies have predictions");
        let scores = p.proba.column(1);
        let r = binary_ranking(&p.truth, &scores, 1)?;
        let c = roc_curve(&p.truth, &scores, 1)?;
        roc.series.push(Series::line(
            &format!("{} (AUC {:.3})", label(i), r.roc_auc),
            &c.fpr,
            &c.tpr,
        ));
        let c = precision_recall_curve(&p.truth, &scores, 1)?;
        pr.series.push(Series::line(
            &format!("{} (AP {:.3})", label(i), r.average_precision),
            &c.recall,
            &c.precision,
        ));
        let bins = reliability_bins(&p.truth, &scores, 1, RELIABILITY_BINS, Binning::Uniform)?;
        let x: Vec<f64> = bins.iter().map(|b| b.mean_predicted).collect();
        let y: Vec<f64> = bins.iter().map(|b| b.observed).collect();
        rel.series
            .push(Series::line(&label(i), &x, &y).with_markers());
        for b in &bins {
            bins_table.row(vec![
                cmp.evaluations[i].spec.clone().into(),
                b.lower.into(),
                b.upper.into(),
                b.count.into(),
                b.mean_predicted.into(),
                b.observed.into(),
            ]);
        }
        prevalence = p.truth.iter().filter(|&&t| t == 1).count() as f64 / p.truth.len() as f64;
    }
    pr.hlines
        .push((format!("positive rate ({prevalence:.3})"), prevalence));
    report
        .section("Out-of-fold curves of the three best")
        .paragraph(&format!(
            "Pooled test-fold probabilities of the first repeat (every row predicted once). \
             Reliability: {RELIABILITY_BINS} uniform bins; points on the diagonal are calibrated."
        ))
        .figure("ROC curves.", roc.render())
        .figure("Precision-recall curves.", pr.render())
        .figure("Reliability diagrams.", rel.render())
        .folded_table("reliability", "Reliability bins", bins_table);
    Ok(())
}
