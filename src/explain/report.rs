//! The tables and HTML report of an [`Explanation`]: permutation importance
//! (mean drop of the metric, its standard deviation over the repeats, each
//! repeat's drop) and the split-gain importances, each as a table and a bar
//! chart (`rarity explain --report DIR`, built with [`crate::report`]).

use super::permutation::Explanation;
use crate::report::svg::GroupedBars;
use crate::report::table::Table;
use crate::report::Report;

/// The permutation importances, most important first: feature, importance,
/// std and one column per repeat.
pub fn permutation_table(e: &Explanation) -> Table {
    let repeats: Vec<String> = (1..=e.repeats).map(|r| format!("repeat {r}")).collect();
    let mut header = vec!["feature", "importance", "std"];
    header.extend(repeats.iter().map(String::as_str));
    let mut t = Table::new(&header);
    for f in &e.permutation {
        let mut row = vec![f.feature.as_str().into(), f.importance.into(), f.std.into()];
        row.extend(f.drops.iter().map(|&d| d.into()));
        t.row(row);
    }
    t
}

/// The split-gain importances (feature, share of the gain, std over the
/// members), most important first; `None` for models without splits.
pub fn split_gain_table(e: &Explanation) -> Option<Table> {
    let g = e.split_gain.as_ref()?;
    let mut t = Table::new(&["feature", "split_gain", "std"]);
    for (f, v, s) in &g.features {
        t.row(vec![f.as_str().into(), (*v).into(), (*s).into()]);
    }
    Some(t)
}

/// One bar per feature, in the given order.
fn bars(title: &str, value_label: &str, features: Vec<(String, f64)>) -> String {
    let (groups, values) = features.into_iter().map(|(f, v)| (f, vec![v])).unzip();
    GroupedBars {
        title: title.to_string(),
        value_label: value_label.to_string(),
        groups,
        series: vec![value_label.to_string()],
        values,
        range: None,
    }
    .render()
}

/// The HTML report: the permutation importances and, when the model has
/// them, the split-gain importances, each as a table and a bar chart.
///
/// ```
/// use rarity::data::{bundled, read::ReadOptions};
/// use rarity::explain::{permutation_importance, report::report};
/// let (ds, _) = bundled::find("glass6").unwrap().load(&ReadOptions::default()).unwrap();
/// let model = rarity::spec::build_strategy("tree").unwrap().fit(&ds, 1).unwrap();
/// let metric = rarity::metrics::catalogue::metric("roc_auc").unwrap();
/// let html = report(&permutation_importance(&model, &ds, metric, 2, 1).unwrap()).to_html();
/// assert!(html.contains("Permutation importance") && html.contains("Split-gain importance"));
/// ```
pub fn report(e: &Explanation) -> Report {
    let mut r = Report::new(&format!("What drives {}", e.spec));
    let s = r.section("Permutation importance");
    s.paragraph(&format!(
        "{} on {} held-out rows is {:.4}. Each column's importance is the mean {} of {} \
         after its values are shuffled among the rows, over {} shuffles (std over the \
         shuffles); a one-hot column's levels move together.",
        e.metric,
        e.rows,
        e.baseline,
        if e.higher_is_better { "drop" } else { "rise" },
        e.metric,
        e.repeats
    ));
    let label = format!("{} drop", e.metric);
    s.figure(
        "Permutation importance, most important first.",
        bars(
            "permutation importance",
            &label,
            e.permutation
                .iter()
                .map(|f| (f.feature.clone(), f.importance))
                .collect(),
        ),
    );
    s.table("permutation", permutation_table(e));
    if let (Some(g), Some(t)) = (&e.split_gain, split_gain_table(e)) {
        let s = r.section("Split-gain importance");
        s.paragraph(&format!(
            "Each feature's share of the total split gain of the model, averaged over {} \
             member{} (std over the members).",
            g.members,
            if g.members == 1 { "" } else { "s" }
        ));
        s.figure(
            "Split-gain importance, most important first.",
            bars(
                "split-gain importance",
                "share of the gain",
                g.features.iter().map(|(f, v, _)| (f.clone(), *v)).collect(),
            ),
        );
        s.table("split_gain", t);
    }
    r
}
