//! Cross-validated evaluation of a strategy: every metric of
//! [`crate::metrics::report_with_labels`] per fold (thresholded metrics use
//! the strategy's own decision), the "full potential" of the binary
//! thresholded metrics (Collell et al. 2018, Table 5: the best value over all
//! thresholds, for diagnosis only), and fit / predict times.
//!
//! Opt-in [`Extras`] add the realised `cost` of the strategy's decisions
//! under a loss matrix (Dal Pozzolo et al. 2015, Table II: mean loss per test
//! row, lower is better), the example-dependent `benefit` (Fan & Davidson
//! 2006, Sec. 6: total over the test rows, higher is better), and the test
//! folds' probabilities and labels of the first repeat (for ROC, PR and
//! reliability plots of out-of-fold predictions).

use std::path::Path;
use std::time::Instant;

use rand::RngExt;
use serde::Serialize;

use crate::data::write::{Block, Column, ColumnSpec, TableFormat, TableWriter};
use crate::data::{Dataset, Proba};
use crate::decide::tune::{full_potential, Objective};
use crate::error::{Error, Result};
use crate::metrics::catalogue::{reported, Metric, Tunable};
use crate::metrics::cost::{Benefit, LossMatrix};
use crate::metrics::report_with_labels;
use crate::progress::Progress;
use crate::rng;
use crate::split::{Fold, Prepared, Splitter};
use crate::stats::{mean, std_dev};
use crate::strategy::{batch_rule, decide, model_groups, CoreFits, Strategy};

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
    /// The test part's predictions, kept on request ([`Extras::keep_predictions`])
    /// for the folds of the first repeat.
    #[serde(skip)]
    pub predictions: Option<Predictions>,
}

/// Predictions on test rows, with the truth.
#[derive(Debug, Clone, PartialEq)]
pub struct Predictions {
    /// Row indices into the evaluated dataset.
    pub rows: Vec<usize>,
    /// True class ids.
    pub truth: Vec<u32>,
    /// Predicted class probabilities (one row per test row).
    pub proba: Proba,
    /// The strategy's decisions.
    pub labels: Vec<u32>,
}

/// Opt-in extras of an evaluation; the default adds nothing.
///
/// ```
/// use rarity::evaluate::Extras;
/// use rarity::metrics::cost::LossMatrix;
/// let e = Extras { cost: Some(LossMatrix::binary(0.0, 1.0, 5.0, 0.0).unwrap()), ..Extras::default() };
/// assert!(e.benefit.is_none() && !e.keep_predictions);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Extras {
    /// Report metric `cost`: the mean loss per test row of the strategy's
    /// decisions under this matrix (lower is better).
    pub cost: Option<LossMatrix>,
    /// Report metric `benefit`: the total benefit of the strategy's decisions
    /// over the test rows (higher is better; binary tasks).
    pub benefit: Option<Benefit>,
    /// Keep the test predictions of the first repeat's folds
    /// ([`FoldResult::predictions`], pooled by [`Evaluation::pooled_predictions`]).
    pub keep_predictions: bool,
    /// Metrics computed besides every report's: parameterised ones such as
    /// `precision_at_k(k=100)` ([`crate::metrics::catalogue::metric`]).
    pub metrics: Vec<&'static Metric>,
    /// Keep the test predictions of every fold of every repeat, for
    /// [`write_oof`] (with [`cross_validate_pooled`], in
    /// [`Evaluation::pooled_folds`]).
    pub oof: bool,
}

impl Extras {
    /// Checks the extras against the data before any fitting: the loss
    /// matrix's size, the amount column, a binary task for the benefit.
    pub fn check(&self, data: &Dataset) -> Result<()> {
        if let Some(m) = &self.cost {
            let k = data.n_classes();
            if m.n_classes() != k {
                let example: Vec<String> = (0..k)
                    .map(|i| {
                        (0..k)
                            .map(|j| if i == j { "0" } else { "1" })
                            .collect::<Vec<_>>()
                            .join(",")
                    })
                    .collect();
                return Err(Error::invalid(format!(
                    "the loss matrix is {0} x {0}, but the task has {k} classes: give a {k} x {k} \
                     matrix (row = decided class, column = true class), e.g. matrix='{1}'",
                    m.n_classes(),
                    example.join(";")
                )));
            }
        }
        if let Some(b) = &self.benefit {
            if data.n_classes() != 2 {
                return Err(Error::invalid(format!(
                    "the benefit measure needs a binary task; this one has {} classes",
                    data.n_classes()
                )));
            }
            b.amounts(data)?;
        }
        Ok(())
    }
}

/// All folds of one evaluation.
#[derive(Debug, Clone, Serialize)]
pub struct Evaluation {
    /// The strategy's spec.
    pub spec: String,
    /// Per-fold results; with `pooled`, one per repeat.
    pub folds: Vec<FoldResult>,
    /// Whether each entry of `folds` holds the metrics of a whole repeat's
    /// pooled out-of-fold predictions ([`cross_validate_pooled`]).
    pub pooled: bool,
    /// With `pooled` and [`Extras::oof`]: the per-fold results (with their
    /// test predictions) behind the pooled ones.
    #[serde(skip)]
    pub pooled_folds: Vec<FoldResult>,
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

    /// The kept predictions of the first repeat's folds (every row once),
    /// concatenated in fold order; `None` if none were kept.
    pub fn pooled_predictions(&self) -> Option<Predictions> {
        let folds = if self.pooled {
            &self.pooled_folds
        } else {
            &self.folds
        };
        let kept: Vec<&Predictions> = folds
            .iter()
            .filter(|f| f.repeat == 0)
            .filter_map(|f| f.predictions.as_ref())
            .collect();
        let first = kept.first()?;
        let k = first.proba.n_classes();
        let mut all = Predictions {
            rows: Vec::new(),
            truth: Vec::new(),
            proba: Proba::new(Vec::new(), k),
            labels: Vec::new(),
        };
        let mut values = Vec::new();
        for p in kept {
            all.rows.extend_from_slice(&p.rows);
            all.truth.extend_from_slice(&p.truth);
            all.labels.extend_from_slice(&p.labels);
            values.extend_from_slice(p.proba.values());
        }
        all.proba = Proba::new(values, k);
        Some(all)
    }

    /// The kept test predictions of every fold, as `(repeat, fold,
    /// predictions)` in evaluation order ([`Extras::oof`]).
    pub fn fold_predictions(&self) -> Vec<(usize, usize, &Predictions)> {
        let folds = if self.pooled {
            &self.pooled_folds
        } else {
            &self.folds
        };
        folds
            .iter()
            .filter_map(|f| f.predictions.as_ref().map(|p| (f.repeat, f.fold, p)))
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
pub fn fold_seed(seed: u64, fold: &Fold) -> u64 {
    rng::stream(
        seed,
        0x5eed_0000 + (fold.repeat as u64) * 1000 + fold.index as u64,
    )
    .random()
}

/// Evaluates on one fold every strategy of `group`, which must share their
/// sampler and learner ([`crate::strategy::core_groups`]): the sampler +
/// learner is fitted once (common random numbers), each distinct model
/// ([`crate::strategy::model_groups`]) once on it and predicts the test rows
/// once, and each strategy's decision is applied to those probabilities.
/// `on_model(spec)` is called after each model. Results are in the order of
/// `group`; an error names the strategy. The fold is one of `prepared`'s,
/// whose inner scheme cuts the folds of calibration and tuned thresholds on
/// the training part.
pub fn evaluate_fold_group(
    group: &[&Strategy],
    prepared: &Prepared<'_>,
    fold: &Fold,
    seed: u64,
    extras: &Extras,
    on_model: &dyn Fn(&str),
) -> Result<Vec<FoldResult>> {
    let keep = extras.oof || (extras.keep_predictions && fold.repeat == 0);
    evaluate_group(group, prepared, fold, seed, extras, keep, on_model)
}

/// [`evaluate_fold_group`], keeping the test predictions when `keep`.
fn evaluate_group(
    group: &[&Strategy],
    prepared: &Prepared<'_>,
    fold: &Fold,
    seed: u64,
    extras: &Extras,
    keep: bool,
    on_model: &dyn Fn(&str),
) -> Result<Vec<FoldResult>> {
    let train = prepared.data.take(&fold.train);
    let test = prepared.data.take(&fold.test);
    let mut cores =
        CoreFits::new(&train, fold_seed(seed, fold)).with_inner(prepared.inner.take(&fold.train));
    let amounts = extras
        .benefit
        .as_ref()
        .map(|b| b.amounts(&test))
        .transpose()?;
    let mut out: Vec<Option<FoldResult>> = vec![None; group.len()];
    for model in model_groups(group) {
        crate::cancel::check()?;
        let first = group[model[0]];
        let need_oof = model.iter().any(|&i| group[i].decision.needs_oof());
        let fitted = first
            .fit_model(&mut cores, need_oof)
            .map_err(named(first))?;
        let t0 = Instant::now();
        let (proba, batch_priors) = fitted.predict_proba(&test).map_err(named(first))?;
        let predict_seconds = t0.elapsed().as_secs_f64();
        for &i in &model {
            let s = group[i];
            let t1 = Instant::now();
            let rule = s
                .resolve(&fitted, &train)
                .and_then(|r| batch_rule(&r, s.em_plugin(), batch_priors.as_deref()))
                .map_err(named(s))?;
            let resolve_seconds = t1.elapsed().as_secs_f64();
            let t2 = Instant::now();
            let labels = decide(&rule, &test, &proba).map_err(named(s))?;
            let decide_seconds = t2.elapsed().as_secs_f64();
            let mut r = scored(
                test.labels(),
                amounts.as_deref(),
                proba.clone(),
                labels,
                extras,
            )
            .map_err(named(s))?;
            r.repeat = fold.repeat;
            r.fold = fold.index;
            r.fit_seconds = fitted.fit_seconds + resolve_seconds;
            r.predict_seconds = predict_seconds + decide_seconds;
            if keep {
                if let Some(p) = r.predictions.as_mut() {
                    p.rows = fold.test.clone();
                }
            } else {
                r.predictions = None;
            }
            out[i] = Some(r);
        }
        on_model(&first.spec);
    }
    Ok(out
        .into_iter()
        .map(|r| r.expect("every strategy is in one model"))
        .collect())
}

/// An error about strategy `s`, naming it (a cancellation stays one, and
/// an error that names the strategy already is not named twice).
fn named(s: &Strategy) -> impl Fn(Error) -> Error + '_ {
    move |e| match e {
        Error::Cancelled => e,
        e if e.to_string().starts_with(&format!("{}: ", s.spec)) => e,
        e => Error::invalid(format!("{}: {e}", s.spec)),
    }
}

/// Every metric of predictions on test rows of classes `truth`, with the
/// extras' cost and benefit (`amounts`: the benefit's amount column on those
/// rows) and the full potential of the binary thresholded metrics; the
/// predictions are kept (rows numbered from 0), timings 0.
pub(crate) fn scored(
    truth: &[u32],
    amounts: Option<&[f64]>,
    proba: Proba,
    labels: Vec<u32>,
    extras: &Extras,
) -> Result<FoldResult> {
    let mut metrics = report_with_labels(truth, &proba, &labels, &extras.metrics)?;
    if let Some(m) = &extras.cost {
        metrics.push(("cost".to_string(), m.mean_cost(truth, &labels)?));
    }
    if let (Some(b), Some(amounts)) = (&extras.benefit, amounts) {
        let total = b.total(truth, &labels, amounts)?;
        metrics.push(("benefit".to_string(), total));
    }
    let mut potential = Vec::new();
    if proba.n_classes() == 2 {
        let p = proba.column(1);
        // The binary thresholded metrics a threshold can be tuned for.
        for m in reported().filter(|m| matches!(m.tunable, Some(Tunable::Counts { .. }))) {
            let achieved = metrics
                .iter()
                .find(|(n, _)| n == m.key)
                .map_or(f64::NAN, |m| m.1);
            let best = full_potential(truth, &p, &Objective::Metric(m), achieved)?.best;
            potential.push((m.key.to_string(), best));
        }
    }
    Ok(FoldResult {
        predictions: Some(Predictions {
            rows: (0..truth.len()).collect(),
            truth: truth.to_vec(),
            proba,
            labels,
        }),
        repeat: 0,
        fold: 0,
        metrics,
        full_potential: potential,
        fit_seconds: 0.0,
        predict_seconds: 0.0,
    })
}

/// Cross-validates `strategy` on `data` with `splitter`, folds in order,
/// with the `extras`' metrics (the cost and benefit of [`Extras`] are
/// computed by [`crate::experiment`]'s comparisons).
///
/// ```
/// use rarity::data::{bundled, read::ReadOptions};
/// use rarity::split::Splitter;
/// let (ds, _) = bundled::find("glass6").unwrap().load(&ReadOptions::default()).unwrap();
/// let s = rarity::spec::build_strategy("forest(n=10)+threshold(priors)").unwrap();
/// let e = rarity::evaluate::cross_validate(&s, &ds, &Splitter::k_fold(3), 7, &Default::default()).unwrap();
/// assert_eq!(e.folds.len(), 3);
/// assert!(e.summary().iter().any(|(m, s)| m == "roc_auc" && s.mean > 0.8));
/// ```
pub fn cross_validate(
    strategy: &Strategy,
    data: &Dataset,
    splitter: &Splitter,
    seed: u64,
    extras: &Extras,
) -> Result<Evaluation> {
    Ok(Evaluation {
        spec: strategy.spec.clone(),
        folds: fold_results(strategy, data, splitter, seed, extras, extras.oof)?,
        pooled: false,
        pooled_folds: Vec::new(),
    })
}

/// Every fold's result in order, keeping the test predictions when `keep`.
fn fold_results(
    strategy: &Strategy,
    data: &Dataset,
    splitter: &Splitter,
    seed: u64,
    extras: &Extras,
    keep: bool,
) -> Result<Vec<FoldResult>> {
    data.require_two_classes()?;
    strategy.check_missing(data)?;
    strategy.check_monotone(data)?;
    let prepared = splitter.prepare(data, seed)?;
    let progress = Progress::start("cross-validation folds", prepared.folds.len() as u64);
    prepared
        .folds
        .iter()
        .map(|f| {
            let r = evaluate_group(&[strategy], &prepared, f, seed, extras, keep, &|_| {})
                .map(|mut r| r.remove(0));
            progress.add(1);
            r
        })
        .collect()
}

/// Cross-validates `strategy` on pooled out-of-fold predictions: each
/// fold's model predicts its test rows and decides them by its own rule;
/// the predictions of each repeat (every row once) are pooled and every
/// metric is computed once per repeat, as scikit-learn's
/// `cross_val_predict` practice. The result has one entry per repeat in
/// [`Evaluation::folds`] (its `fold` is the repeat's number of folds) and
/// fit / predict seconds summed over the repeat's folds. Leave-one-out needs
/// it: a one-row test fold has no AUC and rates of 0 or 1.
///
/// ```
/// use rarity::data::{bundled, read::ReadOptions};
/// use rarity::split::Splitter;
/// let (ds, _) = bundled::find("glass6").unwrap().load(&ReadOptions::default()).unwrap();
/// let s = rarity::spec::build_strategy("logistic").unwrap();
/// let e = rarity::evaluate::cross_validate_pooled(&s, &ds, &Splitter::k_fold(5), 7, &Default::default()).unwrap();
/// assert!(e.pooled && e.folds.len() == 1 && e.folds[0].fold == 5);
/// assert!(e.summary().iter().any(|(m, s)| m == "roc_auc" && s.mean > 0.8 && s.std == 0.0));
/// ```
pub fn cross_validate_pooled(
    strategy: &Strategy,
    data: &Dataset,
    splitter: &Splitter,
    seed: u64,
    extras: &Extras,
) -> Result<Evaluation> {
    let folds = fold_results(strategy, data, splitter, seed, extras, true)?;
    pooled(&strategy.spec, folds, data.n_classes(), None, extras)
}

/// The [`cross_validate_pooled`] evaluation of per-fold results `folds`
/// (in repeat order, each with its test predictions) of strategy `spec` on
/// a task of `n_classes` classes, with the extras' parameterised metrics
/// and cost, and its benefit when `amounts` (the amount column of every
/// evaluated row, indexed by row) is given.
pub(crate) fn pooled(
    spec: &str,
    folds: Vec<FoldResult>,
    n_classes: usize,
    amounts: Option<&[f64]>,
    extras: &Extras,
) -> Result<Evaluation> {
    let repeats = folds.iter().map(|f| f.repeat + 1).max().unwrap_or(0);
    let mut results = Vec::with_capacity(repeats);
    for repeat in 0..repeats {
        let mine: Vec<&FoldResult> = folds.iter().filter(|f| f.repeat == repeat).collect();
        let (mut truth, mut labels, mut values) = (Vec::new(), Vec::new(), Vec::new());
        let mut rows = Vec::new();
        for r in &mine {
            let p = r.predictions.as_ref().expect("kept");
            truth.extend_from_slice(&p.truth);
            labels.extend_from_slice(&p.labels);
            values.extend_from_slice(p.proba.values());
            rows.extend_from_slice(&p.rows);
        }
        let proba = Proba::new(values, n_classes);
        let scoring = Extras {
            metrics: extras.metrics.clone(),
            cost: extras.cost.clone(),
            benefit: amounts.and(extras.benefit.clone()),
            ..Extras::default()
        };
        let mine_amounts: Option<Vec<f64>> = amounts.map(|a| rows.iter().map(|&i| a[i]).collect());
        let mut r = scored(&truth, mine_amounts.as_deref(), proba, labels, &scoring)?;
        r.predictions = None;
        r.repeat = repeat;
        r.fold = mine.len();
        r.fit_seconds = mine.iter().map(|f| f.fit_seconds).sum();
        r.predict_seconds = mine.iter().map(|f| f.predict_seconds).sum();
        results.push(r);
    }
    Ok(Evaluation {
        spec: spec.to_string(),
        folds: results,
        pooled: true,
        pooled_folds: if extras.oof { folds } else { Vec::new() },
    })
}

/// Writes the out-of-fold predictions of `evaluations` on `data` as one
/// table (CSV, or Parquet when `path` ends in `.parquet`), atomically: per
/// test row of every fold of every repeat of every strategy, the columns
/// `row` (the row's 0-based position among the rows evaluated, after rows
/// dropped for missing values), `repeat`, `fold` (0-based), `strategy`, the
/// true class `truth`, the probabilities `p_<class>` and the decided
/// `label`. Each evaluation must have kept them ([`Extras::oof`]).
pub fn write_oof(path: &Path, data: &Dataset, evaluations: &[&Evaluation]) -> Result<()> {
    let names = data.class_names();
    let mut specs = ["row", "repeat", "fold"].map(ColumnSpec::number).to_vec();
    specs.push(ColumnSpec::text("strategy"));
    specs.push(ColumnSpec::text("truth"));
    specs.extend(names.iter().map(|c| ColumnSpec::number(format!("p_{c}"))));
    specs.push(ColumnSpec::text("label"));
    let mut w = TableWriter::create(path, TableFormat::from_path(path), specs)?;
    for e in evaluations {
        let parts = e.fold_predictions();
        if parts.is_empty() {
            return Err(Error::invalid(format!(
                "{}: no out-of-fold predictions were kept (Extras::oof)",
                e.spec
            )));
        }
        let spec = [e.spec.clone()];
        for (repeat, fold, p) in parts {
            let ids: Vec<f64> = p
                .rows
                .iter()
                .flat_map(|&r| [r as f64, repeat as f64, fold as f64])
                .collect();
            let mut columns = Column::matrix(&ids, 3);
            // Width 0: the one text on every row.
            columns.push(Column::Text {
                values: &spec,
                width: 0,
                j: 0,
            });
            columns.push(Column::Names {
                ids: &p.truth,
                names,
            });
            columns.extend(Column::matrix(p.proba.values(), p.proba.n_classes()));
            columns.push(Column::Names {
                ids: &p.labels,
                names,
            });
            w.write(&Block {
                rows: p.rows.len(),
                columns,
            })?;
        }
    }
    w.commit()
}
