//! The HTML report of a [`MonitorJob`] (`rarity monitor --report DIR`,
//! built with [`crate::report`]): the input drift as bars and a table, each
//! class probability's bins reference against current, the alert rate, the
//! EM prior beside the training one with its interval, and the labelled
//! rows' metrics (the Brier decomposition among them) and reliability
//! diagram reference against current.

use super::{reliability_bin, ClassCalibration, MonitorJob};
use crate::metrics::drift::{BinShift, Status, DRIFTED, SHIFTING};
use crate::report::svg::{GroupedBars, LinePlot, Series};
use crate::report::table::Table;
use crate::report::Report;

/// Columns drawn in the drift bars (the table holds them all).
const DRAWN: usize = 40;

fn bars(
    title: &str,
    label: &str,
    groups: Vec<String>,
    series: &[&str],
    values: Vec<Vec<f64>>,
) -> String {
    GroupedBars {
        title: title.to_string(),
        value_label: label.to_string(),
        groups,
        series: series.iter().map(|s| s.to_string()).collect(),
        values,
        range: None,
    }
    .render()
}

fn moved_text(moved: &[BinShift]) -> String {
    let parts: Vec<String> = (moved.iter())
        .map(|b| {
            format!(
                "{} {:.1}% -> {:.1}%",
                b.bin,
                100.0 * b.reference,
                100.0 * b.current
            )
        })
        .collect();
    parts.join("; ")
}

impl MonitorJob {
    /// The HTML report.
    pub fn report(&self) -> Report {
        let mut r = Report::new(&format!("Monitoring {}", self.spec));
        self.drift_section(&mut r);
        self.score_section(&mut r);
        self.priors_section(&mut r);
        self.labelled_section(&mut r);
        if !self.failed.is_empty() {
            let s = r.section("Conditions met");
            for f in &self.failed {
                s.paragraph(f);
            }
        }
        r
    }

    fn drift_section(&self, r: &mut Report) {
        let s = r.section("Input drift");
        s.paragraph(&format!(
            "Reference {} ({} rows), current {} ({} rows). The population stability index of \
             each source column of the model over the reference's quantile bins (numeric) or the \
             model's levels (categorical), missing and unseen values bins of their own: below \
             {SHIFTING} stable, {SHIFTING} to {DRIFTED} shifting, above {DRIFTED} drifted; the \
             Kolmogorov-Smirnov statistic of numeric columns.",
            self.sources.0, self.rows.0, self.sources.1, self.rows.1
        ));
        let drawn = &self.columns[..self.columns.len().min(DRAWN)];
        s.figure(
            "PSI per column, largest first.",
            bars(
                "input drift",
                "PSI",
                drawn.iter().map(|d| d.column.clone()).collect(),
                &["PSI"],
                drawn.iter().map(|d| vec![d.psi]).collect(),
            ),
        );
        let mut t = Table::new(&["column", "kind", "psi", "ks", "status", "moved most"]);
        for d in &self.columns {
            t.row(vec![
                d.column.as_str().into(),
                (if d.numeric { "numeric" } else { "categorical" }).into(),
                d.psi.into(),
                d.ks.unwrap_or(f64::NAN).into(),
                Status::of(d.psi).as_str().into(),
                moved_text(&d.moved).into(),
            ]);
        }
        s.table("columns", t);
    }

    fn score_section(&self, r: &mut Report) {
        let s = r.section("Score drift");
        s.paragraph(&format!(
            "The alert rate (the share of scored rows the model's decision flags) is {:.4}% in \
             the reference and {:.4}% currently.",
            100.0 * self.alert_rate.0,
            100.0 * self.alert_rate.1
        ));
        // Two classes: p_0 is 1 - p_1, its bins the same rows mirrored.
        let skip = usize::from(self.classes.len() == 2);
        for (k, (psi, bins)) in self.classes.iter().zip(&self.score).skip(skip) {
            s.figure(
                &format!(
                    "The share of rows in each of the reference's quantile bins of p_{k}: PSI \
                     {psi:.4}, {}.",
                    Status::of(*psi).as_str()
                ),
                bars(
                    &format!("p_{k}"),
                    "share of rows",
                    bins.iter().map(|b| b.bin.clone()).collect(),
                    &["reference", "current"],
                    bins.iter().map(|b| vec![b.reference, b.current]).collect(),
                ),
            );
        }
    }

    fn priors_section(&self, r: &mut Report) {
        let pr = &self.priors;
        let s = r.section("Current priors without labels");
        let Some(e) = &pr.estimated else {
            s.paragraph(&format!(
                "Not estimated: {}.",
                pr.reason.as_deref().unwrap_or("")
            ));
            return;
        };
        let end = |j: usize| (pr.interval.as_ref()).map_or((f64::NAN, f64::NAN), |iv| iv[j]);
        if e.len() > 2 {
            s.paragraph(&format!(
                "Saerens' EM on {} current rows' probability vectors{} ({} iterations) \
                 estimates each class's prior, with a 95% bootstrap interval; {}.",
                if pr.exact {
                    "every one of the"
                } else {
                    "a sample of the"
                },
                if pr.exact {
                    String::new()
                } else {
                    format!(" ({} distinct vectors with all their rows)", pr.groups)
                },
                pr.iterations,
                match pr.outside_classes().as_slice() {
                    [] => "every training prior is inside its interval".to_string(),
                    o => format!(
                        "the training prior of {} is outside its interval",
                        (o.iter().map(|&j| self.classes[j].as_str()))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                }
            ));
            let rows: Vec<Vec<f64>> = (0..e.len())
                .map(|j| vec![pr.training[j], end(j).0, e[j], end(j).1])
                .collect();
            s.figure(
                "Each class's prior: training, estimated, and the interval's ends.",
                bars(
                    "prior",
                    "prior",
                    self.classes.clone(),
                    &["training", "low", "estimated", "high"],
                    rows,
                ),
            );
            return;
        }
        let (lo, hi) = end(1);
        s.paragraph(&format!(
            "Saerens' EM on the current rows' probabilities estimates the prior of {} at {:.6} \
             (95% bootstrap interval {lo:.6} to {hi:.6}; {} groups of probabilities, {} \
             iterations); the training prior is {:.6}{}.",
            self.classes[1],
            e[1],
            pr.groups,
            pr.iterations,
            pr.training[1],
            if pr.outside() {
                ", outside the interval"
            } else {
                ", inside the interval"
            }
        ));
        if let Some((t, moved)) = pr.threshold {
            s.paragraph(&format!(
                "At the estimated priors the model's threshold {t} becomes {moved:.6} (eq. 14)."
            ));
        }
        s.figure(
            "The positive prior: training, estimated, and the interval's ends.",
            bars(
                "prior",
                "prior",
                vec![
                    "training".into(),
                    "low".into(),
                    "estimated".into(),
                    "high".into(),
                ],
                &["prior"],
                vec![vec![pr.training[1]], vec![lo], vec![e[1]], vec![hi]],
            ),
        );
    }

    fn labelled_section(&self, r: &mut Report) {
        let Some(l) = &self.labelled else {
            return;
        };
        let s = r.section("Labelled rows");
        let held = |c: &ClassCalibration| if c.moved() { "moved" } else { "held" };
        match (l.multiclass, l.classes.first()) {
            (false, Some(c)) => {
                let (mean, observed, z) = c.calibration;
                s.paragraph(&format!(
                    "{} current rows carry a label. Their mean probability is {mean:.6} and \
                     their positive share {observed:.6} (z {z:.2}: calibration {}).",
                    l.rows,
                    held(c)
                ));
            }
            _ => {
                let each: Vec<String> = (l.classes.iter())
                    .map(|c| {
                        let (mean, observed, z) = c.calibration;
                        format!(
                            "class {}: mean probability {mean:.6}, share {observed:.6} (z \
                             {z:.2}: {})",
                            c.class,
                            held(c)
                        )
                    })
                    .collect();
                s.paragraph(&format!(
                    "{} current rows carry a label. Calibration in the large, one class \
                     against the rest: {}.",
                    l.rows,
                    each.join("; ")
                ));
            }
        }
        let reference = l.reference.as_ref();
        let mut t = Table::new(&["metric", "reference", "current"]);
        for (k, v) in &l.metrics {
            let before = reference
                .and_then(|(_, m)| m.iter().find(|(n, _)| n == k).map(|m| m.1))
                .unwrap_or(f64::NAN);
            t.row(vec![k.as_str().into(), before.into(), (*v).into()]);
        }
        s.table("labelled", t);
        for c in &l.classes {
            let of = match l.multiclass {
                false => "the labelled rows".to_string(),
                true => format!("class {} against the rest", c.class),
            };
            s.figure(
                &format!(
                    "Reliability of {of}: the positive share against the mean probability per \
                     bin of the Brier decomposition (markers sized by rows), reference and \
                     current."
                ),
                reliability_plot(c),
            );
        }
        let mut columns = vec!["bin", "side", "rows", "mean_predicted", "observed"];
        if l.multiclass {
            columns.insert(0, "class");
        }
        let mut t = Table::new(&columns);
        for c in &l.classes {
            let sides = (c.reference_reliability.iter().map(|b| ("reference", b)))
                .chain(std::iter::once(("current", &c.reliability)));
            for (side, bins) in sides {
                for (k, &(n, m, o)) in bins.iter().enumerate() {
                    let mut row = vec![
                        reliability_bin(k).into(),
                        side.into(),
                        (n as f64).into(),
                        m.into(),
                        o.into(),
                    ];
                    if l.multiclass {
                        row.insert(0, c.class.as_str().into());
                    }
                    t.row(row);
                }
            }
        }
        s.table("reliability", t);
    }
}

/// The reliability diagram: a series per labelled table, its empty bins
/// left out.
fn reliability_plot(l: &ClassCalibration) -> String {
    let mut p = LinePlot::new(
        "reliability",
        "mean predicted probability",
        "observed positive share",
    );
    p.x_range = Some((0.0, 1.0));
    p.y_range = Some((0.0, 1.0));
    p.diagonal = Some("perfect calibration".into());
    let sides = (l.reference_reliability.iter().map(|b| ("reference", b)))
        .chain(std::iter::once(("current", &l.reliability)));
    for (side, bins) in sides {
        let kept: Vec<&(u64, f64, f64)> = bins.iter().filter(|b| b.0 > 0).collect();
        let x: Vec<f64> = kept.iter().map(|b| b.1).collect();
        let y: Vec<f64> = kept.iter().map(|b| b.2).collect();
        let w: Vec<f64> = kept.iter().map(|b| b.0 as f64).collect();
        p.series
            .push(Series::line(side, &x, &y).with_weighted_markers(&w));
    }
    p.render()
}
