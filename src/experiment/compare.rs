//! Comparing strategies on one dataset (`rarity run`): every strategy is
//! evaluated on the same repeated stratified folds; folds and strategies run
//! in parallel (each fold's seed depends only on the user seed and the
//! fold's position, so results are identical at any thread count). The
//! strategies are ranked by the chosen metric's mean, and a Friedman test
//! with the Nemenyi critical difference over the folds says which are
//! distinguishable from the best.

use crate::progress::Progress;

use rayon::prelude::*;
use serde::Serialize;

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::evaluate::{evaluate_fold_with, Evaluation, Extras, FoldResult};
use crate::split::Splitter;
use crate::stats::{critical_difference, friedman, mean_ranks};
use crate::strategy::Strategy;

/// The metrics of `rarity run`'s ranked table (titles from the catalogue,
/// [`crate::metrics::catalogue`]).
pub const RANKED_METRICS: &[&str] = &[
    "roc_auc",
    "average_precision",
    "brier",
    "g_mean",
    "macro_accuracy",
    "macro_f1",
];

/// The strategies `rarity run` compares on a binary task (issue 10's list:
/// PT-bagging with both plug-in thresholds; undersampling at several beta
/// with and without the prior correction; EB-, RB- and SMOTE-bagging with and
/// without correction; a balanced forest; a random forest with a tuned
/// threshold; logistic regression with Platt scaling and with a tuned
/// threshold). `betas` are the undersampling rates to try besides the
/// balanced `under(ratio=1)`.
///
/// ```
/// let s = rarity::experiment::compare::default_strategies(&[0.2]);
/// assert!(s.contains(&"pt-bagging(n=100)+threshold(priors)".to_string()));
/// assert!(s.iter().all(|x| rarity::spec::build_strategy(x).is_ok()));
/// ```
pub fn default_strategies(betas: &[f64]) -> Vec<String> {
    let mut s = vec![
        "pt-bagging(n=100)+threshold(priors)".to_string(),
        "pt-bagging(n=100)+threshold(f1)".to_string(),
    ];
    let unders =
        std::iter::once("ratio=1".to_string()).chain(betas.iter().map(|b| format!("beta={b:.4}")));
    for u in unders {
        s.push(format!("under({u})+forest(n=100)+threshold(0.5)"));
        s.push(format!(
            "under({u})+forest(n=100)+correct+threshold(priors)"
        ));
    }
    for e in ["eb-bagging", "rb-bagging", "smote-bagging"] {
        s.push(format!("{e}(n=100)+threshold(0.5)"));
        s.push(format!(
            "{e}(n=100)+correct(mode=average)+threshold(priors)"
        ));
    }
    s.push("balanced-forest(n=100)+threshold(0.5)".to_string());
    s.push("forest(n=100)+tune(metric=f1)".to_string());
    s.push("logistic+platt+threshold(0.5)".to_string());
    s.push("logistic+tune(metric=f1)".to_string());
    s
}

/// The strategies `rarity run` compares on a multiclass task: PT_MA and
/// plain argmax bagging, UnderOver- and EB-bagging, a forest with tuned
/// per-class thresholds.
pub fn default_multiclass_strategies() -> Vec<String> {
    [
        "pt-bagging(n=100)+threshold(priors)",
        "pt-bagging(n=100)+argmax",
        "underover-bagging(n=100,a=50)",
        "eb-bagging(n=100)",
        "forest(n=100)+tune(metric=macro_accuracy)",
    ]
    .map(String::from)
    .to_vec()
}

/// Undersampling rates strictly between `N+/N-` and 1 (geometrically
/// spaced); the balanced end is `under(ratio=1)`, which is balanced in every
/// training fold whatever its exact class counts, and `beta = 1` is plain
/// bagging. None when `N+/N-` is above 0.5.
pub fn default_betas(data: &Dataset) -> Vec<f64> {
    let c = data.class_counts();
    let lo = c[1] as f64 / c[0].max(1) as f64;
    if lo >= 0.5 {
        return Vec::new();
    }
    [lo.powf(2.0 / 3.0), lo.powf(1.0 / 3.0)]
        .iter()
        .map(|b| (b * 1e4).ceil() / 1e4)
        .collect()
}

/// The Friedman / Nemenyi verdict over folds.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// The metric compared.
    pub metric: String,
    /// Mean rank of each strategy over folds (1 = best).
    pub mean_ranks: Vec<f64>,
    /// Friedman chi-square p-value.
    pub friedman_p: f64,
    /// Iman-Davenport F p-value.
    pub iman_davenport_p: f64,
    /// Nemenyi critical difference at alpha = 0.05.
    pub critical_difference: f64,
    /// Strategies whose mean rank is within the critical difference of the
    /// best's (not significantly worse).
    pub tied_with_best: Vec<usize>,
}

/// All strategies' evaluations on shared folds.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// One evaluation per strategy, in the order given.
    pub evaluations: Vec<Evaluation>,
}

impl Comparison {
    /// Strategy indices ordered by the metric's mean, best first.
    pub fn ranked(&self, metric: &str, higher_is_better: bool) -> Vec<usize> {
        let means: Vec<f64> = self
            .evaluations
            .iter()
            .map(|e| {
                let v: Vec<f64> = e
                    .values(metric)
                    .into_iter()
                    .filter(|x| !x.is_nan())
                    .collect();
                if v.is_empty() {
                    f64::NAN
                } else {
                    v.iter().sum::<f64>() / v.len() as f64
                }
            })
            .collect();
        let key = |i: usize| {
            let m = means[i];
            if m.is_nan() {
                f64::NEG_INFINITY
            } else if higher_is_better {
                m
            } else {
                -m
            }
        };
        let mut order: Vec<usize> = (0..means.len()).collect();
        order.sort_by(|&a, &b| key(b).total_cmp(&key(a)).then(a.cmp(&b)));
        order
    }

    /// Friedman and Nemenyi over folds (needs at least 3 strategies).
    pub fn verdict(&self, metric: &str, higher_is_better: bool) -> Result<Verdict> {
        let k = self.evaluations.len();
        let n = self.evaluations.first().map_or(0, |e| e.folds.len());
        let table: Vec<Vec<f64>> = (0..n)
            .map(|f| {
                self.evaluations
                    .iter()
                    .map(|e| {
                        let v = e.folds[f]
                            .metrics
                            .iter()
                            .find(|(m, _)| m == metric)
                            .map_or(f64::NAN, |(_, v)| *v);
                        // An undefined value ranks last.
                        if v.is_nan() {
                            if higher_is_better {
                                f64::NEG_INFINITY
                            } else {
                                f64::INFINITY
                            }
                        } else {
                            v
                        }
                    })
                    .collect()
            })
            .collect();
        let ranks = mean_ranks(&table, higher_is_better)?;
        let keyed: Vec<Vec<f64>> = table
            .iter()
            .map(|r| {
                r.iter()
                    .map(|v| if higher_is_better { *v } else { -v })
                    .collect()
            })
            .collect();
        let fr = friedman(&keyed)?;
        let cd = critical_difference(k, n, 0.05)?;
        let best = ranks.iter().copied().fold(f64::INFINITY, f64::min);
        Ok(Verdict {
            metric: metric.to_string(),
            tied_with_best: (0..k).filter(|&i| ranks[i] - best <= cd).collect(),
            mean_ranks: ranks,
            friedman_p: fr.chi2_p_value,
            iman_davenport_p: fr.f_p_value,
            critical_difference: cd,
        })
    }
}

/// Evaluates every strategy on the same folds of `splitter`, with the
/// opt-in [`Extras`] (cost, benefit, kept predictions), counting the
/// (strategy, fold) evaluations done in [`crate::progress`] (labelled with
/// the spec of the strategy just evaluated). Results do not depend on the
/// thread count or on the order in which evaluations finish.
///
/// ```
/// use rarity::data::{bundled, read::ReadOptions};
/// use rarity::evaluate::Extras;
/// use rarity::experiment::compare::compare;
/// use rarity::split::Splitter;
/// let (ds, _) = bundled::find("glass6").unwrap().load(&ReadOptions::default()).unwrap();
/// let s: Vec<_> = ["tree", "forest(n=5)+threshold(priors)"]
///     .iter().map(|s| rarity::spec::build_strategy(s).unwrap()).collect();
/// let extras = Extras { keep_predictions: true, ..Extras::default() };
/// let c = compare(&s, &ds, &Splitter::k_fold(3), 1, &extras).unwrap();
/// assert_eq!(c.evaluations[1].pooled_predictions().unwrap().rows.len(), ds.n_rows());
/// ```
pub fn compare(
    strategies: &[Strategy],
    data: &Dataset,
    splitter: &Splitter,
    seed: u64,
    extras: &Extras,
) -> Result<Comparison> {
    if strategies.is_empty() {
        return Err(Error::invalid("no strategies to compare"));
    }
    data.require_two_classes()?;
    extras.check(data)?;
    let folds = splitter.split_dataset(data, seed)?;
    let progress = Progress::start(
        "(strategy x fold) evaluations",
        (strategies.len() * folds.len()) as u64,
    );
    let cells: Vec<(usize, usize)> = (0..strategies.len())
        .flat_map(|s| (0..folds.len()).map(move |f| (s, f)))
        .collect();
    let results: Vec<FoldResult> = cells
        .par_iter()
        .map(|&(s, f)| {
            let r = evaluate_fold_with(&strategies[s], data, &folds[f], seed, extras);
            progress.add(1);
            progress.set_label(&strategies[s].spec);
            r.map_err(|e| Error::invalid(format!("{}: {e}", strategies[s].spec)))
        })
        .collect::<Result<_>>()?;
    let mut it = results.into_iter();
    let evaluations = strategies
        .iter()
        .map(|s| Evaluation {
            spec: s.spec.clone(),
            folds: it.by_ref().take(folds.len()).collect(),
        })
        .collect();
    Ok(Comparison { evaluations })
}
