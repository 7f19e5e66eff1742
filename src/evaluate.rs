//! Cross-validated evaluation of a strategy: every metric of
//! [`crate::metrics::report_with_labels`] per fold (thresholded metrics use
//! the strategy's own decision), the "full potential" of the binary
//! thresholded metrics (Collell et al. 2018, Table 5: the best value over all
//! thresholds, for diagnosis only), and fit / predict times.

use std::time::Instant;

use rand::RngExt;
use serde::Serialize;

use crate::data::Dataset;
use crate::decide::tune::{full_potential, Objective};
use crate::error::Result;
use crate::metrics::report_with_labels;
use crate::rng;
use crate::select::split::{Fold, Splitter};
use crate::stats::{mean, std_dev};
use crate::strategy::Strategy;

/// The binary thresholded metrics whose full potential is reported.
pub const POTENTIAL: &[(&str, Objective)] = &[
    ("accuracy", Objective::Accuracy),
    ("f1", Objective::F1),
    ("g_mean", Objective::GMean),
    ("macro_accuracy", Objective::MacroAccuracy),
    ("macro_f1", Objective::MacroF1),
];

/// One fold's results.
#[derive(Debug, Clone, Serialize)]
pub struct FoldResult {
    /// Repeat number.
    pub repeat: usize,
    /// Fold number within the repeat.
    pub fold: usize,
    /// Every metric, in report order.
    pub metrics: Vec<(String, f64)>,
    /// Best value over thresholds of the binary thresholded metrics.
    pub full_potential: Vec<(String, f64)>,
    /// Seconds to fit the strategy on the training part.
    pub fit_seconds: f64,
    /// Seconds to predict the test part.
    pub predict_seconds: f64,
}

/// All folds of one evaluation.
#[derive(Debug, Clone, Serialize)]
pub struct Evaluation {
    /// The strategy's spec.
    pub spec: String,
    /// Per-fold results.
    pub folds: Vec<FoldResult>,
}

/// Mean and standard deviation of one metric over folds.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Summary {
    /// Mean over folds (NaN folds ignored).
    pub mean: f64,
    /// Sample standard deviation over folds (ddof = 1; 0 for one fold).
    pub std: f64,
    /// Mean full potential over folds, for binary thresholded metrics.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_potential: Option<f64>,
}

fn summarise(values: &[f64]) -> (f64, f64) {
    let v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    match v.len() {
        0 => (f64::NAN, f64::NAN),
        1 => (v[0], 0.0),
        _ => (mean(&v), std_dev(&v)),
    }
}

impl Evaluation {
    /// Per metric: mean, std and (binary thresholded metrics) full potential.
    pub fn summary(&self) -> Vec<(String, Summary)> {
        let Some(first) = self.folds.first() else {
            return Vec::new();
        };
        first
            .metrics
            .iter()
            .enumerate()
            .map(|(j, (name, _))| {
                let (m, s) = summarise(
                    &self
                        .folds
                        .iter()
                        .map(|f| f.metrics[j].1)
                        .collect::<Vec<_>>(),
                );
                let potential = first
                    .full_potential
                    .iter()
                    .position(|(n, _)| n == name)
                    .map(|p| {
                        summarise(
                            &self
                                .folds
                                .iter()
                                .map(|f| f.full_potential[p].1)
                                .collect::<Vec<_>>(),
                        )
                        .0
                    });
                (
                    name.clone(),
                    Summary {
                        mean: m,
                        std: s,
                        full_potential: potential,
                    },
                )
            })
            .collect()
    }

    /// The values of one metric over folds.
    pub fn values(&self, metric: &str) -> Vec<f64> {
        self.folds
            .iter()
            .filter_map(|f| f.metrics.iter().find(|(n, _)| n == metric).map(|(_, v)| *v))
            .collect()
    }

    /// Total fit and predict seconds over folds.
    pub fn seconds(&self) -> (f64, f64) {
        (
            self.folds.iter().map(|f| f.fit_seconds).sum(),
            self.folds.iter().map(|f| f.predict_seconds).sum(),
        )
    }
}

/// The seed a fold's strategy is fitted with: a function of the user seed
/// and the fold's position only.
fn fold_seed(seed: u64, fold: &Fold) -> u64 {
    rng::stream(
        seed,
        0x5eed_0000 + (fold.repeat as u64) * 1000 + fold.index as u64,
    )
    .random()
}

/// Evaluates one fold.
pub fn evaluate_fold(
    strategy: &Strategy,
    data: &Dataset,
    fold: &Fold,
    seed: u64,
) -> Result<FoldResult> {
    let train = data.take(&fold.train);
    let test = data.take(&fold.test);
    let t0 = Instant::now();
    let fitted = strategy.fit(&train, fold_seed(seed, fold))?;
    let fit_seconds = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let (proba, labels) = fitted.predict(&test)?;
    let predict_seconds = t1.elapsed().as_secs_f64();
    let truth = test.labels();
    let metrics = report_with_labels(truth, &proba, &labels)?;
    let mut potential = Vec::new();
    if proba.n_classes() == 2 {
        let p = proba.column(1);
        for (name, obj) in POTENTIAL {
            let achieved = metrics
                .iter()
                .find(|(n, _)| n == name)
                .map_or(f64::NAN, |m| m.1);
            potential.push((
                name.to_string(),
                full_potential(truth, &p, obj, achieved)?.best,
            ));
        }
    }
    Ok(FoldResult {
        repeat: fold.repeat,
        fold: fold.index,
        metrics,
        full_potential: potential,
        fit_seconds,
        predict_seconds,
    })
}

/// Cross-validates `strategy` on `data` with `splitter`, folds in order.
///
/// ```
/// use rarity::data::{bundled, read::ReadOptions};
/// use rarity::select::split::Splitter;
/// let (ds, _) = bundled::find("glass6").unwrap().load(&ReadOptions::default()).unwrap();
/// let s = rarity::spec::build_strategy("forest(n=10)+threshold(priors)").unwrap();
/// let e = rarity::evaluate::cross_validate(&s, &ds, &Splitter::k_fold(3), 7).unwrap();
/// assert_eq!(e.folds.len(), 3);
/// assert!(e.summary().iter().any(|(m, s)| m == "roc_auc" && s.mean > 0.8));
/// ```
pub fn cross_validate(
    strategy: &Strategy,
    data: &Dataset,
    splitter: &Splitter,
    seed: u64,
) -> Result<Evaluation> {
    data.require_two_classes()?;
    let folds = splitter.split_dataset(data, seed)?;
    let results = folds
        .iter()
        .map(|f| evaluate_fold(strategy, data, f, seed))
        .collect::<Result<Vec<_>>>()?;
    Ok(Evaluation {
        spec: strategy.spec.clone(),
        folds: results,
    })
}
