//! The density ratio `w(x) = p_target(x) / p_train(x)` of the unlabelled
//! target population `T` to the labelled training set `D`, estimated on the
//! rows of `D`: the importance weights of importance-weighted
//! cross-validation (Sugiyama, Krauledat & Müller 2007, eq. 8, [`super::iwcv`]).
//!
//! Two estimators (the registry [`RATIOS`], spec names `classifier` and
//! `ulsif`):
//!
//! - **Probabilistic classifier** ([`ClassifierRatio`]; Sugiyama, Suzuki &
//!   Kanamori 2012, *Density Ratio Estimation in Machine Learning*, Sec.
//!   4.1; Bickel, Brückner & Scheffer 2007): a classifier separates the rows
//!   of `D` (label 0) from those of `T` (label 1); by Bayes' rule
//!   `w(x) = (n_D / n_T) P(T | x) / P(D | x)`. It is cross-fitted: the rows
//!   of `D` and `T` are dealt into `folds` stratified folds, and every row's
//!   `P(T | x)` comes from the model fitted on the other folds, so no row's
//!   weight comes from a model that saw it. The classifier is any learner
//!   spec (`logistic`, `forest(n=100)`, ...). Its out-of-fold AUC is the
//!   covariate-shift test of [`ShiftTest`]: near 0.5, `D` and `T` cannot be
//!   told apart. On data with categorical features (level codes), a
//!   learner without native categorical splits would read the codes as
//!   numbers (and an unseen level, NaN, as nothing at all): there `gbdt`,
//!   which splits them as sets of levels, separates the sets instead, and
//!   the test names it.
//! - **uLSIF** ([`Ulsif`]; Kanamori, Hido & Sugiyama 2009, JMLR 10, Sec.
//!   3): `w(x) = sum_l alpha_l K(x, c_l)` with Gaussian kernels
//!   `K(x, c) = exp(-|x - c|^2 / (2 sigma^2))` centred on `b` random target
//!   rows, fitted by least squares in closed form:
//!   `alpha = max(0, (H + lambda I)^-1 h)` with
//!   `H = (1/n_D) sum_{x in D} k(x) k(x)^T`, `h = (1/n_T) sum_{x in T} k(x)`
//!   (eq. 8-9). `sigma` and `lambda` are chosen by the paper's closed-form
//!   leave-one-out score (Sec. 3.4) over a grid. Features are standardised
//!   (mean and standard deviation of `D` and `T` together) first.
//!
//! **Weights from ratios** (both estimators, [`WeightRule`]): the raw
//! ratios on `D` are normalised to mean 1, flattened to `w^power`
//! (Shimodaira 2000's flattening, Sugiyama et al. 2007 Sec. 2.3: `power=0`
//! gives plain cross-validation, `1` the unbiased weights), normalised to
//! mean 1 again, then capped at the value `c` for which the capped weights'
//! largest is `clip` times their mean (`c = clip * mean(min(w, c))`, the
//! weights above `c` set to `c`), and normalised to mean 1 once more: no
//! weight exceeds `clip`. The effective sample size of the weights,
//! `(sum w)^2 / sum w^2` (Kong 1992), says how many equally weighted rows
//! they are worth.

use std::sync::Arc;

use rand::seq::SliceRandom;
use rayon::prelude::*;
use serde::Serialize;

use crate::data::{Dataset, Schema};
use crate::error::{Error, Result};
use crate::learn::gbdt::Gbdt;
use crate::learn::linalg::sym_eigen;
use crate::learn::logistic::Logistic;
use crate::learn::Learner;
use crate::metrics::ranking::roc_auc;
use crate::params::{from_call, params, Bounds, Call, Entry, ParamType, Params, Value};
use crate::rng;
use crate::split::cross_fit_folds;

/// The random stream of the density-ratio classifier's folds and fits.
const STREAM: u64 = 0xd5_0000;

params! {
    /// The probabilistic-classifier estimator of the density ratio.
    #[derive(Debug, Clone)]
    pub struct ClassifierRatio {
        /// The classifier separating training rows from target rows.
        pub learner: Arc<dyn Learner> = Arc::new(Logistic::default()),
        /// Cross-fitting folds (fewer when a set has fewer rows).
        pub folds: usize = 5 => Bounds::at_least(2.0),
        /// Flattening exponent: weights are ratio^power.
        pub power: f64 = 1.0 => Bounds::closed(0.0, 1.0),
        /// Largest weight as a multiple of the mean weight.
        pub clip: f64 = 20.0 => Bounds::at_least(1.0),
    }
}

params! {
    /// uLSIF (Kanamori, Hido & Sugiyama 2009).
    #[derive(Debug, Clone, PartialEq)]
    pub struct Ulsif {
        /// Gaussian kernel centres, drawn from the target rows.
        pub centres: usize = 100 => Bounds::at_least(1.0),
        /// Kernel width on standardised features (none: chosen by leave-one-out).
        pub sigma: Option<f64> = None => Bounds::positive(),
        /// Ridge (none: chosen by leave-one-out).
        pub lambda: Option<f64> = None => Bounds::positive(),
        /// Flattening exponent: weights are ratio^power.
        pub power: f64 = 1.0 => Bounds::closed(0.0, 1.0),
        /// Largest weight as a multiple of the mean weight.
        pub clip: f64 = 20.0 => Bounds::at_least(1.0),
    }
}

/// How raw density ratios become weights (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct WeightRule {
    /// Flattening exponent in `[0, 1]`.
    pub power: f64,
    /// Largest weight as a multiple of the mean (`>= 1`).
    pub clip: f64,
}

/// A density-ratio estimator.
#[derive(Debug, Clone)]
pub enum RatioEstimator {
    /// A cross-fitted probabilistic classifier.
    Classifier(ClassifierRatio),
    /// uLSIF.
    Ulsif(Ulsif),
}

/// Every density-ratio estimator a spec can name.
pub const RATIOS: &[Entry<RatioEstimator>] = &[
    Entry {
        name: "classifier",
        python: None,
        summary: "a cross-fitted probabilistic classifier of training vs target rows (Bickel et al. 2007)",
        params: || ClassifierRatio::default().table(),
        build: |c| Ok(RatioEstimator::Classifier(from_call(c)?)),
    },
    Entry {
        name: "ulsif",
        python: None,
        summary: "unconstrained least-squares importance fitting (Kanamori, Hido & Sugiyama 2009)",
        params: || Ulsif::default().table(),
        build: |c| Ok(RatioEstimator::Ulsif(from_call(c)?)),
    },
];

impl Default for RatioEstimator {
    fn default() -> Self {
        RatioEstimator::Classifier(ClassifierRatio::default())
    }
}

impl ParamType for RatioEstimator {
    fn from_value(v: &Value) -> std::result::Result<Self, String> {
        match v {
            Value::Call(c) => RatioEstimator::from_call(c).map_err(|e| e.to_string()),
            _ => Err(String::new()),
        }
    }
    fn expected() -> String {
        "a density-ratio estimator such as classifier(learner=logistic) or ulsif".into()
    }
    fn to_text(&self) -> String {
        self.to_string()
    }
}

impl std::fmt::Display for RatioEstimator {
    /// The canonical spec, every parameter written out.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (name, table) = match self {
            RatioEstimator::Classifier(c) => ("classifier", c.table()),
            RatioEstimator::Ulsif(u) => ("ulsif", u.table()),
        };
        let args: Vec<String> = table
            .iter()
            .map(|p| format!("{}={}", p.name, p.default))
            .collect();
        write!(f, "{name}({})", args.join(","))
    }
}

/// Importance weights of the training rows.
#[derive(Debug, Clone, Serialize)]
pub struct ImportanceWeights {
    /// One weight per training row, mean 1.
    #[serde(skip)]
    pub weights: Vec<f64>,
    /// `(sum w)^2 / sum w^2`.
    pub effective_size: f64,
    /// Training rows.
    pub rows: usize,
    /// Rows whose weight was capped.
    pub clipped: usize,
    /// The largest weight.
    pub max_weight: f64,
    /// The estimator, as a spec.
    pub estimator: String,
    /// uLSIF only: the kernel width and ridge used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sigma_lambda: Option<(f64, f64)>,
}

/// The covariate-shift test: how well a cross-fitted classifier tells the
/// target rows from the training rows.
#[derive(Debug, Clone, Serialize)]
pub struct ShiftTest {
    /// Out-of-fold ROC AUC of `P(T | x)`, target rows positive.
    pub auc: f64,
    /// `(auc - 0.5) / se0`, with `se0 = sqrt((n_D + n_T + 1) / (12 n_D n_T))`
    /// the standard deviation of the AUC when the two sets come from one
    /// distribution (the Mann-Whitney statistic's null variance).
    pub z: f64,
    /// `z >= 3` (one-sided p below 0.0014).
    pub detected: bool,
    /// The classifier.
    pub classifier: String,
}

impl ShiftTest {
    /// The test from an out-of-fold AUC on `n_d` training and `n_t` target
    /// rows.
    fn new(auc: f64, n_d: usize, n_t: usize, classifier: String) -> ShiftTest {
        let (a, b) = (n_d as f64, n_t as f64);
        let se0 = ((a + b + 1.0) / (12.0 * a * b)).sqrt();
        let z = (auc - 0.5) / se0;
        ShiftTest {
            auc,
            z,
            detected: z >= 3.0,
            classifier,
        }
    }
}

impl RatioEstimator {
    /// Parses an estimator spec such as `classifier(learner=forest(n=50))`
    /// or `ulsif(power=0.5)`.
    pub fn parse(spec: &str) -> Result<RatioEstimator> {
        let calls = crate::params::syntax::parse(spec)?;
        if calls.len() != 1 {
            return Err(Error::invalid(format!(
                "density-ratio estimator '{spec}': give one estimator"
            )));
        }
        RatioEstimator::from_call(&calls[0])
    }

    /// The estimator of a parsed call.
    pub fn from_call(call: &Call) -> Result<RatioEstimator> {
        (crate::params::find(RATIOS, &call.name, "density-ratio estimator")?.build)(call)
    }

    /// The flattening and clipping of the weights.
    pub fn rule(&self) -> WeightRule {
        match self {
            RatioEstimator::Classifier(c) => WeightRule {
                power: c.power,
                clip: c.clip,
            },
            RatioEstimator::Ulsif(u) => WeightRule {
                power: u.power,
                clip: u.clip,
            },
        }
    }

    /// Importance weights of the rows of `train` for the population
    /// `target` (its labels are ignored); for the classifier estimator, also
    /// its covariate-shift test.
    pub fn estimate(
        &self,
        train: &Dataset,
        target: &Dataset,
        seed: u64,
    ) -> Result<(ImportanceWeights, Option<ShiftTest>)> {
        check_sets(train, target)?;
        let (ratio, test, sl) = match self {
            RatioEstimator::Classifier(c) => {
                let (ratio, test) = c.ratio(train, target, seed)?;
                (ratio, Some(test), None)
            }
            RatioEstimator::Ulsif(u) => {
                let (ratio, sigma, lambda) = u.ratio(train, target, seed)?;
                (ratio, None, Some((sigma, lambda)))
            }
        };
        let mut w = weights_from_ratios(&ratio, self.rule())?;
        w.estimator = self.to_string();
        w.sigma_lambda = sl;
        Ok((w, test))
    }
}

/// Both sets have the same features and rows to estimate from.
fn check_sets(train: &Dataset, target: &Dataset) -> Result<()> {
    if train.feature_names() != target.feature_names() {
        return Err(Error::data(format!(
            "the training set and the target population have different features ({} vs {})",
            train.n_features(),
            target.n_features()
        )));
    }
    if train.n_rows() < 2 || target.n_rows() < 2 {
        return Err(Error::data(
            "a density ratio needs at least 2 training and 2 target rows",
        ));
    }
    Ok(())
}

/// The [`WeightRule`] applied to raw non-negative ratios (module doc).
pub fn weights_from_ratios(ratio: &[f64], rule: WeightRule) -> Result<ImportanceWeights> {
    if let Some(r) = ratio.iter().find(|r| !(r.is_finite() && **r >= 0.0)) {
        return Err(Error::data(format!(
            "density ratio {r} is not a finite number >= 0"
        )));
    }
    let normalise = |w: &mut Vec<f64>| -> Result<()> {
        let mean = w.iter().sum::<f64>() / w.len() as f64;
        if !(mean > 0.0) {
            return Err(Error::data(
                "every density ratio on the training rows is 0: the target population \
                 lies outside the training set's range",
            ));
        }
        w.iter_mut().for_each(|v| *v /= mean);
        Ok(())
    };
    let mut w = ratio.to_vec();
    normalise(&mut w)?;
    w.iter_mut().for_each(|v| *v = v.powf(rule.power));
    normalise(&mut w)?;
    let cap = cap_for(&w, rule.clip);
    let clipped = w.iter().filter(|&&v| v > cap).count();
    w.iter_mut().for_each(|v| *v = v.min(cap));
    normalise(&mut w)?;
    Ok(ImportanceWeights {
        effective_size: effective_size(&w),
        rows: w.len(),
        clipped,
        max_weight: w.iter().copied().fold(0.0, f64::max),
        weights: w,
        estimator: String::new(),
        sigma_lambda: None,
    })
}

/// The cap `c` with `c = clip * mean(min(w, c))` for weights `w` of mean 1
/// (`max(w)` when no weight exceeds `clip` times the mean). With the `m`
/// largest weights capped, `c = clip * s / (n - clip * m)` where `s` sums
/// the others; the smallest `m` for which this `c` is at least the next
/// weight is the answer. When fewer than `n / clip` weights are positive no
/// positive cap satisfies the rule; the smallest positive weight is
/// returned (every positive weight then becomes equal).
fn cap_for(w: &[f64], clip: f64) -> f64 {
    let n = w.len() as f64;
    let mut sorted = w.to_vec();
    sorted.sort_by(|a, b| b.total_cmp(a));
    let smallest_positive = sorted.iter().rev().find(|&&v| v > 0.0).copied();
    let mut rest: f64 = sorted.iter().sum();
    for (m, &v) in sorted.iter().enumerate() {
        let den = n - clip * m as f64;
        if den > 0.0 {
            let c = clip * rest / den;
            if c >= v && c > 0.0 {
                return if m == 0 { v } else { c };
            }
        }
        rest -= v;
    }
    smallest_positive.unwrap_or(0.0)
}

/// `(sum w)^2 / sum w^2` (Kong 1992): `n` for equal weights, 1 when one row
/// holds all the weight.
///
/// ```
/// use rarity::select::density_ratio::effective_size;
/// assert_eq!(effective_size(&[1.0; 8]), 8.0);
/// assert_eq!(effective_size(&[0.0, 0.0, 5.0]), 1.0);
/// ```
pub fn effective_size(w: &[f64]) -> f64 {
    let s: f64 = w.iter().sum();
    let s2: f64 = w.iter().map(|v| v * v).sum();
    if s2 == 0.0 {
        0.0
    } else {
        s * s / s2
    }
}

/// Training rows then target rows, labelled 0 and 1.
fn stacked(train: &Dataset, target: &Dataset) -> Result<Dataset> {
    let mut x = train.features().to_vec();
    x.extend_from_slice(target.features());
    let mut y = vec![0u32; train.n_rows()];
    y.resize(train.n_rows() + target.n_rows(), 1);
    let schema = Schema {
        class_names: vec!["training set".into(), "target population".into()],
        target_name: "population".into(),
        ..train.schema().clone()
    };
    Dataset::new(x, y, schema)
}

impl ClassifierRatio {
    /// Cross-fitted `P(T | x)` of every row of `train` then `target`.
    pub fn out_of_fold(&self, train: &Dataset, target: &Dataset, seed: u64) -> Result<Vec<f64>> {
        let both = stacked(train, target)?;
        let learner = self.learner_for(train);
        let folds = cross_fit_folds(
            &both,
            self.folds,
            seed,
            "the density-ratio classifier needs at least 2 training and 2 target rows",
        )?;
        let parts: Vec<(Vec<usize>, Vec<f64>)> = folds
            .par_iter()
            .enumerate()
            .map(|(f, fold)| {
                let m = learner.fit(
                    &both.view(&fold.train),
                    &mut rng::stream(seed, STREAM + f as u64),
                )?;
                let p = m.predict_proba(&both.take(&fold.test))?;
                Ok((fold.test.clone(), p.column(1)))
            })
            .collect::<Result<_>>()?;
        let mut out = vec![0.0; both.n_rows()];
        for (rows, p) in parts {
            for (i, v) in rows.into_iter().zip(p) {
                out[i] = v;
            }
        }
        Ok(out)
    }

    /// The classifier that separates the rows of `data`'s kind: the
    /// configured one, or `gbdt` when `data` has categorical features the
    /// configured one cannot split (see the module docs).
    fn learner_for(&self, data: &Dataset) -> Arc<dyn Learner> {
        if data.schema().has_categorical() && !self.learner.native_categorical() {
            Arc::new(Gbdt::default())
        } else {
            Arc::clone(&self.learner)
        }
    }

    /// Raw ratios on the training rows and the covariate-shift test.
    fn ratio(&self, train: &Dataset, target: &Dataset, seed: u64) -> Result<(Vec<f64>, ShiftTest)> {
        let p = self.out_of_fold(train, target, seed)?;
        let (n_d, n_t) = (train.n_rows(), target.n_rows());
        let mut test = self.test_from(&p, n_d, n_t)?;
        test.classifier = self.learner_for(train).name();
        let prior = n_d as f64 / n_t as f64;
        // P(D | x) is kept above 1e-9 so that a row the classifier is sure
        // belongs to T gets a large finite ratio (then capped by `clip`).
        let ratio = p[..n_d]
            .iter()
            .map(|&q| prior * q / (1.0 - q).max(1e-9))
            .collect();
        Ok((ratio, test))
    }

    /// The covariate-shift test of out-of-fold `P(T | x)` on `n_d` training
    /// rows followed by `n_t` target rows.
    pub(crate) fn test_from(&self, p: &[f64], n_d: usize, n_t: usize) -> Result<ShiftTest> {
        let mut y = vec![0u32; n_d];
        y.resize(n_d + n_t, 1);
        let auc = roc_auc(&y, p, 1)?;
        Ok(ShiftTest::new(auc, n_d, n_t, self.learner.name()))
    }

    /// The covariate-shift test alone.
    pub fn shift_test(&self, train: &Dataset, target: &Dataset, seed: u64) -> Result<ShiftTest> {
        check_sets(train, target)?;
        let p = self.out_of_fold(train, target, seed)?;
        let mut test = self.test_from(&p, train.n_rows(), target.n_rows())?;
        test.classifier = self.learner_for(train).name();
        Ok(test)
    }
}

/// Squared distances between the rows of `a` and `b` (`cat.len()` columns
/// each), `a.len() / d x b.len() / d`, row-major. A categorical column
/// (`cat[j]`, level codes) adds 2 where the levels differ, the squared
/// distance of their one-hot vectors (a missing or unseen level, NaN, is one
/// more level).
fn sq_dists(a: &[f64], b: &[f64], cat: &[bool]) -> Vec<f64> {
    let d = cat.len();
    let mut out = Vec::with_capacity(a.len() / d.max(1) * b.len() / d.max(1));
    let categorical = cat.iter().any(|&c| c);
    for x in a.chunks_exact(d) {
        for c in b.chunks_exact(d) {
            out.push(if categorical {
                x.iter()
                    .zip(c)
                    .zip(cat)
                    .map(|((u, v), &is_cat)| match is_cat {
                        false => (u - v) * (u - v),
                        true if u == v || (u.is_nan() && v.is_nan()) => 0.0,
                        true => 2.0,
                    })
                    .sum()
            } else {
                x.iter().zip(c).map(|(u, v)| (u - v) * (u - v)).sum()
            });
        }
    }
    out
}

/// Rows cap of each set in uLSIF's fit.
const FIT_ROWS: usize = 5000;

/// The rows (`d` columns each) of `x`, or a seeded random subset of
/// [`FIT_ROWS`] of them when there are more (`r` is drawn from only then).
fn fit_rows(x: &[f64], d: usize, r: &mut rng::Rng) -> Vec<f64> {
    let n = x.len() / d;
    if n <= FIT_ROWS {
        return x.to_vec();
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(r);
    order[..FIT_ROWS]
        .iter()
        .flat_map(|&i| x[i * d..(i + 1) * d].iter().copied())
        .collect()
}

/// Rows cap of uLSIF's leave-one-out score (the first rows of each set, in
/// a seeded random order).
const LOO_ROWS: usize = 500;

impl Ulsif {
    /// Raw ratios on the training rows, with the kernel width and ridge.
    fn ratio(&self, train: &Dataset, target: &Dataset, seed: u64) -> Result<(Vec<f64>, f64, f64)> {
        let d = train.n_features();
        if d == 0 {
            return Err(Error::data("uLSIF needs at least one feature"));
        }
        let cat: Vec<bool> = train
            .schema()
            .categorical_levels()
            .iter()
            .map(Option::is_some)
            .collect();
        let cat = &cat[..];
        let (xd, xt) = standardised(train, target, cat);
        let n_t = target.n_rows();
        let mut r = rng::stream(seed, STREAM + 0x100);
        let mut order: Vec<usize> = (0..n_t).collect();
        order.shuffle(&mut r);
        let b = self.centres.min(n_t);
        let centres: Vec<f64> = order[..b]
            .iter()
            .flat_map(|&i| xt[i * d..(i + 1) * d].to_vec())
            .collect();
        // H, h and the leave-one-out search read at most FIT_ROWS rows of
        // each set (a seeded random subset of a larger one), so that memory
        // stays bounded; the ratio is then evaluated on every training row.
        let fd = fit_rows(&xd, d, &mut r);
        let ft = fit_rows(&xt, d, &mut r);
        let (n_d, n_t) = (fd.len() / d, ft.len() / d);
        let dist_d = sq_dists(&fd, &centres, cat); // n_d x b
        let dist_t = sq_dists(&ft, &centres, cat); // n_t x b
        let (sigma, lambda) = match (self.sigma, self.lambda) {
            (Some(s), Some(l)) => (s, l),
            _ => {
                // Leave-one-out rows: a seeded random subset of each set.
                let mut od: Vec<usize> = (0..n_d).collect();
                od.shuffle(&mut r);
                let mut ot: Vec<usize> = (0..n_t).collect();
                ot.shuffle(&mut r);
                let n = n_d.min(n_t).min(LOO_ROWS);
                let loo = Loo {
                    dist_d: &dist_d,
                    dist_t: &dist_t,
                    rows_d: &od[..n],
                    rows_t: &ot[..n],
                    n_d,
                    n_t,
                    b,
                };
                self.loo_search(&loo, &centres, cat)?
            }
        };
        let kd = kernel(&dist_d, sigma);
        let kt = kernel(&dist_t, sigma);
        let (h_mat, h) = moments(&kd, &kt, n_d, n_t, b);
        let (vals, vecs) = sym_eigen(&h_mat, b);
        let alpha: Vec<f64> = solve_eigen(&vals, &vecs, b, lambda, &h)
            .into_iter()
            .map(|a| a.max(0.0))
            .collect();
        let ratio = xd
            .par_chunks(d * 1024)
            .flat_map_iter(|rows| {
                let k = kernel(&sq_dists(rows, &centres, cat), sigma);
                k.chunks_exact(b)
                    .map(|k| k.iter().zip(&alpha).map(|(u, v)| u * v).sum::<f64>())
                    .collect::<Vec<f64>>()
            })
            .collect();
        Ok((ratio, sigma, lambda))
    }

    /// The kernel width and ridge of the smallest leave-one-out score over
    /// the grid (the median distance between `centres` times 2^(e/2), ridge
    /// 10^(-3 + e/2); a given `sigma` or `lambda` fixes its axis).
    fn loo_search(&self, loo: &Loo<'_>, centres: &[f64], cat: &[bool]) -> Result<(f64, f64)> {
        let mut median: Vec<f64> = sq_dists(centres, centres, cat)
            .into_iter()
            .filter(|&v| v > 0.0)
            .collect();
        median.sort_by(f64::total_cmp);
        let m = median.get(median.len() / 2).map_or(1.0, |v| v.sqrt());
        let sigmas: Vec<f64> = match self.sigma {
            Some(s) => vec![s],
            None => (-4..=4).map(|e| m * 2f64.powf(e as f64 / 2.0)).collect(),
        };
        let lambdas: Vec<f64> = match self.lambda {
            Some(l) => vec![l],
            None => (0..9).map(|e| 10f64.powf(-3.0 + 0.5 * e as f64)).collect(),
        };
        let scored: Vec<(f64, f64, f64)> = sigmas
            .par_iter()
            .flat_map_iter(|&s| {
                let scores = loo.scores(s, &lambdas);
                lambdas
                    .iter()
                    .zip(scores)
                    .map(move |(&l, score)| (score, s, l))
                    .collect::<Vec<_>>()
            })
            .collect();
        let best = scored
            .iter()
            .filter(|t| t.0.is_finite())
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .ok_or_else(|| Error::data("uLSIF: no kernel width gave a finite score"))?;
        Ok((best.1, best.2))
    }
}

/// The rows of `train` and `target` (`cat.len()` features) standardised
/// with the mean and standard deviation of both sets together; categorical
/// columns (`cat[j]`) keep their level codes.
fn standardised(train: &Dataset, target: &Dataset, cat: &[bool]) -> (Vec<f64>, Vec<f64>) {
    let d = cat.len();
    let n_all = (train.n_rows() + target.n_rows()) as f64;
    let mut mean = vec![0.0; d];
    for x in train
        .features()
        .chunks_exact(d)
        .chain(target.features().chunks_exact(d))
    {
        mean.iter_mut().zip(x).for_each(|(m, v)| *m += v / n_all);
    }
    let mut sd = vec![0.0; d];
    for x in train
        .features()
        .chunks_exact(d)
        .chain(target.features().chunks_exact(d))
    {
        for ((s, v), m) in sd.iter_mut().zip(x).zip(&mean) {
            *s += (v - m) * (v - m) / n_all;
        }
    }
    sd.iter_mut()
        .for_each(|s| *s = if *s > 0.0 { s.sqrt() } else { 1.0 });
    for (j, _) in cat.iter().enumerate().filter(|(_, &c)| c) {
        (mean[j], sd[j]) = (0.0, 1.0);
    }
    let scale = |data: &Dataset| -> Vec<f64> {
        data.features()
            .chunks_exact(d)
            .flat_map(|x| (0..d).map(|j| (x[j] - mean[j]) / sd[j]).collect::<Vec<_>>())
            .collect()
    };
    (scale(train), scale(target))
}

/// `exp(-dist / (2 sigma^2))` elementwise.
fn kernel(dist: &[f64], sigma: f64) -> Vec<f64> {
    let c = 1.0 / (2.0 * sigma * sigma);
    dist.iter().map(|v| (-v * c).exp()).collect()
}

/// `H = K_D^T K_D / n_D` (`b x b`) and `h = mean of the rows of K_T`.
fn moments(kd: &[f64], kt: &[f64], n_d: usize, n_t: usize, b: usize) -> (Vec<f64>, Vec<f64>) {
    let mut h_mat = vec![0.0; b * b];
    for k in kd.chunks_exact(b) {
        for i in 0..b {
            let ki = k[i] / n_d as f64;
            if ki == 0.0 {
                continue;
            }
            for (hv, kj) in h_mat[i * b..(i + 1) * b].iter_mut().zip(k) {
                *hv += ki * kj;
            }
        }
    }
    let mut h = vec![0.0; b];
    for k in kt.chunks_exact(b) {
        h.iter_mut().zip(k).for_each(|(a, v)| *a += v / n_t as f64);
    }
    (h_mat, h)
}

/// `(H + shift I)^-1 v` from the eigen-decomposition `H = V^T diag(vals) V`
/// (eigenvectors the rows of `vecs`).
fn solve_eigen(vals: &[f64], vecs: &[f64], b: usize, shift: f64, v: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; b];
    for r in 0..b {
        let e = &vecs[r * b..(r + 1) * b];
        let c = e.iter().zip(v).map(|(a, x)| a * x).sum::<f64>() / (vals[r] + shift);
        out.iter_mut().zip(e).for_each(|(o, a)| *o += c * a);
    }
    out
}

/// The data of uLSIF's leave-one-out score.
struct Loo<'a> {
    /// Squared distances of the training rows to the centres (`n_D x b`).
    dist_d: &'a [f64],
    /// Squared distances of the target rows to the centres (`n_T x b`).
    dist_t: &'a [f64],
    /// The training rows left out in turn.
    rows_d: &'a [usize],
    /// The target rows left out in turn (as many as `rows_d`).
    rows_t: &'a [usize],
    n_d: usize,
    n_t: usize,
    b: usize,
}

impl Loo<'_> {
    /// Kanamori et al.'s closed-form leave-one-out score (2009, Sec. 3.4;
    /// the `uLSIF.m` reference code) for kernel width `sigma` and each
    /// ridge in `lambdas` (lower is better): leaving out the `i`-th pair of
    /// a training and a target row, `J = mean_i w_i(x_i^D)^2 / 2 -
    /// mean_i w_i(x_i^T)`, where `w_i` is fitted without the pair, by the
    /// Sherman-Woodbury-Morrison formula.
    fn scores(&self, sigma: f64, lambdas: &[f64]) -> Vec<f64> {
        let (b, n_d, n_t) = (self.b, self.n_d as f64, self.n_t as f64);
        let kd = kernel(self.dist_d, sigma);
        let kt = kernel(self.dist_t, sigma);
        let (h_mat, h) = moments(&kd, &kt, self.n_d, self.n_t, b);
        let (vals, vecs) = sym_eigen(&h_mat, b);
        let n = self.rows_d.len();
        // The left-out columns in the eigenbasis: V k (b values per row).
        let project = |k: &[f64], rows: &[usize]| -> Vec<f64> {
            let mut out = vec![0.0; rows.len() * b];
            for (j, &i) in rows.iter().enumerate() {
                let col = &k[i * b..(i + 1) * b];
                for r in 0..b {
                    out[j * b + r] = vecs[r * b..(r + 1) * b]
                        .iter()
                        .zip(col)
                        .map(|(a, x)| a * x)
                        .sum();
                }
            }
            out
        };
        let pd = project(&kd, self.rows_d);
        let pt = project(&kt, self.rows_t);
        let ph: Vec<f64> = (0..b)
            .map(|r| {
                vecs[r * b..(r + 1) * b]
                    .iter()
                    .zip(&h)
                    .map(|(a, x)| a * x)
                    .sum()
            })
            .collect();
        lambdas
            .iter()
            .map(|&lambda| {
                let shift = lambda * (n_d - 1.0) / n_d;
                let inv: Vec<f64> = vals.iter().map(|v| 1.0 / (v + shift)).collect();
                // B^-1 x = V^T diag(inv) (V x) for each left-out column x.
                let back = |p: &[f64]| -> Vec<f64> {
                    let mut out = vec![0.0; b];
                    for r in 0..b {
                        let c = p[r] * inv[r];
                        out.iter_mut()
                            .zip(&vecs[r * b..(r + 1) * b])
                            .for_each(|(o, a)| *o += c * a);
                    }
                    out
                };
                let binv_h = back(&ph);
                let (mut sq, mut lin) = (0.0, 0.0);
                for j in 0..n {
                    let (id, it) = (self.rows_d[j], self.rows_t[j]);
                    let kdj = &kd[id * b..(id + 1) * b];
                    let ktj = &kt[it * b..(it + 1) * b];
                    let pdj = &pd[j * b..(j + 1) * b];
                    let ptj = &pt[j * b..(j + 1) * b];
                    let binv_kd = back(pdj);
                    let binv_kt = back(ptj);
                    // k_D^T B^-1 k_D, h^T B^-1 k_D, k_T^T B^-1 k_D in the eigenbasis.
                    let (mut dd, mut hd, mut td) = (0.0, 0.0, 0.0);
                    for r in 0..b {
                        dd += pdj[r] * pdj[r] * inv[r];
                        hd += ph[r] * pdj[r] * inv[r];
                        td += ptj[r] * pdj[r] * inv[r];
                    }
                    let den = n_d - dd;
                    let mut wd = 0.0;
                    let mut wt = 0.0;
                    for l in 0..b {
                        let b0 = binv_h[l] + binv_kd[l] * hd / den;
                        let b1 = binv_kt[l] + binv_kd[l] * td / den;
                        let b2 = ((n_d - 1.0) / (n_d * (n_t - 1.0)) * (n_t * b0 - b1)).max(0.0);
                        wd += kdj[l] * b2;
                        wt += ktj[l] * b2;
                    }
                    sq += wd * wd;
                    lin += wt;
                }
                sq / (2.0 * n as f64) - lin / n as f64
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    /// `n` rows of one feature drawn from N(mu, 1), class by sign.
    fn gaussian(n: usize, mu: f64, seed: u64) -> Dataset {
        let mut r = rng::stream(seed, 0);
        let rows: Vec<Vec<f64>> = (0..n)
            .map(|_| {
                // Box-Muller.
                let (u, v): (f64, f64) = (r.random(), r.random());
                vec![mu + (-2.0 * (1.0 - u).ln()).sqrt() * (std::f64::consts::TAU * v).cos()]
            })
            .collect();
        let y = rows.iter().map(|x| u32::from(x[0] > 0.0)).collect();
        Dataset::from_rows(rows, y, vec!["n".into(), "p".into()]).unwrap()
    }

    /// Pearson correlation.
    fn corr(a: &[f64], b: &[f64]) -> f64 {
        let n = a.len() as f64;
        let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
        let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
        let va: f64 = a.iter().map(|x| (x - ma) * (x - ma)).sum();
        let vb: f64 = b.iter().map(|y| (y - mb) * (y - mb)).sum();
        cov / (va * vb).sqrt()
    }

    /// D ~ N(0, 1), T ~ N(0.5, 1): w(x) = exp(0.5 x - 0.125), normalised.
    fn true_weights(train: &Dataset) -> Vec<f64> {
        let w: Vec<f64> = (0..train.n_rows())
            .map(|i| (0.5 * train.value(i, 0) - 0.125).exp())
            .collect();
        let m = w.iter().sum::<f64>() / w.len() as f64;
        w.iter().map(|v| v / m).collect()
    }

    #[test]
    fn ulsif_recovers_the_ratio_of_two_gaussians() {
        let (train, target) = (gaussian(400, 0.0, 1), gaussian(400, 0.5, 2));
        let est = RatioEstimator::parse("ulsif(clip=100)").unwrap();
        let (w, test) = est.estimate(&train, &target, 3).unwrap();
        assert!(test.is_none());
        let truth = true_weights(&train);
        assert!(
            corr(&w.weights, &truth) > 0.9,
            "{}",
            corr(&w.weights, &truth)
        );
        let mean = w.weights.iter().sum::<f64>() / 400.0;
        assert!((mean - 1.0).abs() < 1e-12);
        let (s, l) = w.sigma_lambda.unwrap();
        assert!(s > 0.0 && l > 0.0);
        // Fixed sigma and lambda skip the search and give the same kind of fit.
        let fixed = RatioEstimator::parse("ulsif(sigma=1,lambda=0.1,clip=100)").unwrap();
        let (wf, _) = fixed.estimate(&train, &target, 3).unwrap();
        assert!(
            corr(&wf.weights, &truth) > 0.9,
            "{}",
            corr(&wf.weights, &truth)
        );
        assert_eq!(wf.sigma_lambda, Some((1.0, 0.1)));
    }

    #[test]
    fn ulsif_fits_large_sets_on_a_subsample_and_weights_every_row() {
        let (train, target) = (gaussian(12_000, 0.0, 4), gaussian(9_000, 0.5, 5));
        let est = RatioEstimator::parse("ulsif(clip=100)").unwrap();
        let (w, _) = est.estimate(&train, &target, 3).unwrap();
        assert_eq!(w.weights.len(), 12_000);
        assert!(corr(&w.weights, &true_weights(&train)) > 0.9);
    }

    #[test]
    fn the_classifier_recovers_the_ratio_and_detects_the_shift() {
        let (train, target) = (gaussian(400, 0.0, 1), gaussian(400, 0.5, 2));
        let est = RatioEstimator::default();
        let (w, test) = est.estimate(&train, &target, 3).unwrap();
        // Logistic regression is the right model for two Gaussians of equal
        // variance: log w is linear in x.
        assert!(corr(&w.weights, &true_weights(&train)) > 0.95);
        let test = test.unwrap();
        assert!(test.detected && test.auc > 0.6, "{test:?}");
        // No shift: an AUC near 0.5, not detected.
        let same = gaussian(400, 0.0, 7);
        let t = ClassifierRatio::default()
            .shift_test(&train, &same, 3)
            .unwrap();
        assert!(!t.detected && (t.auc - 0.5).abs() < 0.1, "{t:?}");
    }

    #[test]
    fn cross_fitting_keeps_each_row_out_of_its_own_model() {
        // A 1-nearest-neighbour classifier fitted on a row predicts that
        // row's own label with certainty; out of fold it cannot, so on sets
        // drawn from one distribution the AUC stays near 0.5 instead of 1.
        let (train, target) = (gaussian(200, 0.0, 1), gaussian(200, 0.0, 2));
        let knn = ClassifierRatio {
            learner: Arc::new(crate::learn::knn::Knn {
                k: 1,
                ..Default::default()
            }),
            ..ClassifierRatio::default()
        };
        let p = knn.out_of_fold(&train, &target, 5).unwrap();
        let t = knn.test_from(&p, 200, 200).unwrap();
        assert!(t.auc < 0.6, "{t:?}");
        // Fitted on everything, the same classifier separates perfectly.
        let both = stacked(&train, &target).unwrap();
        let all: Vec<usize> = (0..400).collect();
        let m = knn
            .learner
            .fit(&both.view(&all), &mut rng::stream(5, 0))
            .unwrap();
        let seen = m.predict_proba(&both).unwrap().column(1);
        assert_eq!(knn.test_from(&seen, 200, 200).unwrap().auc, 1.0);
    }

    #[test]
    fn weights_are_normalised_flattened_and_clipped() {
        let r = [0.0, 1.0, 2.0, 5.0, 100.0];
        let w = weights_from_ratios(
            &r,
            WeightRule {
                power: 1.0,
                clip: 1000.0,
            },
        )
        .unwrap();
        let mean: f64 = w.weights.iter().sum::<f64>() / 5.0;
        assert!((mean - 1.0).abs() < 1e-12);
        assert!((w.weights[4] / w.weights[1] - 100.0).abs() < 1e-9);
        assert_eq!(w.clipped, 0);
        // ESS: (sum w)^2 / sum w^2.
        let ess = 5.0 * 5.0 / w.weights.iter().map(|v| v * v).sum::<f64>();
        assert!((w.effective_size - ess).abs() < 1e-9);
        // power 0: equal weights except the zero ratio (0^0 = 1).
        let flat = weights_from_ratios(
            &r,
            WeightRule {
                power: 0.0,
                clip: 20.0,
            },
        )
        .unwrap();
        assert!(flat.weights.iter().all(|&v| (v - 1.0).abs() < 1e-12));
        assert_eq!(flat.effective_size, 5.0);
        // A cap: the largest weight is exactly 2x the mean after capping.
        let capped = weights_from_ratios(
            &r,
            WeightRule {
                power: 1.0,
                clip: 2.0,
            },
        )
        .unwrap();
        assert_eq!(capped.clipped, 1);
        assert!((capped.max_weight - 2.0).abs() < 1e-12, "{capped:?}");
        assert!(capped.weights.iter().all(|&v| v <= 2.0 + 1e-12));
        let mean: f64 = capped.weights.iter().sum::<f64>() / 5.0;
        assert!((mean - 1.0).abs() < 1e-12);
        // One positive ratio of five: no cap keeps it within 2x the mean.
        let one = weights_from_ratios(
            &[0.0, 0.0, 3.0, 0.0, 0.0],
            WeightRule {
                power: 1.0,
                clip: 2.0,
            },
        )
        .unwrap();
        assert_eq!(one.weights, vec![0.0, 0.0, 5.0, 0.0, 0.0]);
        assert_eq!(one.effective_size, 1.0);
        assert!(weights_from_ratios(
            &[0.0, 0.0],
            WeightRule {
                power: 1.0,
                clip: 2.0
            }
        )
        .is_err());
        assert!(weights_from_ratios(
            &[f64::NAN],
            WeightRule {
                power: 1.0,
                clip: 2.0
            }
        )
        .is_err());
    }

    #[test]
    fn specs_parse_print_and_explain() {
        let e = RatioEstimator::parse("classifier(learner=forest(n=5),folds=3,power=0.5)").unwrap();
        assert!(
            e.to_string().starts_with("classifier(learner=bagging(n=5"),
            "{e}"
        );
        assert_eq!(e.rule().power, 0.5);
        let back = RatioEstimator::parse(&e.to_string()).unwrap();
        assert_eq!(back.to_string(), e.to_string());
        let u = RatioEstimator::parse("ulsif").unwrap().to_string();
        assert_eq!(
            u,
            "ulsif(centres=100,sigma=none,lambda=none,power=1,clip=20)"
        );
        let err = RatioEstimator::parse("kliep").unwrap_err().to_string();
        assert!(
            err.contains("unknown density-ratio estimator 'kliep'"),
            "{err}"
        );
        let err = RatioEstimator::parse("ulsif(power=2)")
            .unwrap_err()
            .to_string();
        assert!(err.contains("power=2 is invalid"), "{err}");
    }
}
