//! The undersampling calibration experiment (Dal Pozzolo, Caelen, Johnson &
//! Bontempi 2015, Sec. VI and Fig. 3-4).
//!
//! For each dataset, learner and undersampling rate `beta` between
//! `N+/N-` and 1: stratified cross-validation (the paper: 10 repeats of 10
//! folds). In every fold the learner is fitted on all training rows (`p̂`)
//! and, for every `beta`, on the training rows left after undersampling the
//! majority at rate `beta` (each negative kept with probability `beta`):
//! `p̂_s`, and its correction by eq. 9, `p̂'`. The thresholds are
//! `tau = pi+` for `p̂`, `tau_s = pi_s+` (the undersampled prior) for
//! `p̂_s`, and `tau'` from `tau_s` by eq. 12 (which is `pi+`), so `p̂_s` and
//! `p̂'` give the same labels. Measures: AUC, G-mean, Brier score, averaged
//! over folds.
//!
//! Table V: for every dataset and `beta` the three probabilities are ranked
//! (3 = best: highest AUC or G-mean; for the Brier score 3 = the largest,
//! i.e. the worst calibrated, as in the paper) and the ranks summed; paired
//! t-tests compare the ranks of `p̂` with those of `p̂_s` and of `p̂'`. The
//! fraction of cells where `Brier(p̂') < Brier(p̂_s)` is reported too.
//!
//! `beta` levels are fractions `t` of the way, on a log scale, from 1 down to
//! the balancing rate: `beta = (N+/N-)^t`, computed on each training fold so
//! that `t = 1` balances it exactly.
//!
//! [`run`] runs the whole protocol over datasets and learners; [`run_cell`]
//! one dataset with one learner, [`table_v`] the summary.
//! [`gaussian_curves`] gives Fig. 3 (the true `p_s` against `x` for several
//! `beta`, from eq. 4) and Fig. 4 (`p̂_s`, `p̂'` estimated on the
//! undersampled synthetic task against the true `p`).

use std::sync::Arc;

use rayon::prelude::*;
use serde::Serialize;

use crate::calibrate::{correct_binary, correct_keep_rates};
use crate::data::synth::GaussianTask;
use crate::data::{Dataset, Proba, Schema};
use crate::decide::{corrected_threshold, Rule};
use crate::error::{Error, Result};
use crate::learn::Learner;
use crate::metrics::confusion::Confusion;
use crate::metrics::probability::brier;
use crate::metrics::ranking::roc_auc;
use crate::rng;
use crate::sample::RandomUnder;
use crate::sample::Sampler;
use crate::split::Splitter;
use crate::stats::{paired_t_test, rankdata};

/// The three probability estimates, in table order.
pub const PROBABILITIES: &[&str] = &["p", "p_s", "p'"];
/// The colour of each of [`PROBABILITIES`] in every figure of the
/// experiment's report (dark grey, red, blue).
pub const PROBABILITY_COLOURS: &[&str] = &["#444444", "#d62728", "#1f77b4"];
/// The measures, in table order.
pub const MEASURES: &[&str] = &["auc", "g_mean", "brier"];

/// Settings of the experiment.
#[derive(Debug, Clone)]
pub struct CalibrationConfig {
    /// Fractions `t` of the log-distance from `beta = 1` to balance
    /// (`beta = (N+/N-)^t`), each in (0, 1].
    pub levels: Vec<f64>,
    /// The cross-validation (the paper: 10 x 10).
    pub splitter: Splitter,
    /// The seed of the folds, samples and learners.
    pub seed: u64,
}

impl Default for CalibrationConfig {
    fn default() -> Self {
        CalibrationConfig {
            levels: vec![1.0, 0.75, 0.5, 0.25],
            splitter: Splitter::Stratified {
                repeats: 10,
                folds: 10,
            },
            seed: 42,
        }
    }
}

/// One dataset and learner: `values[level][probability][measure]`, means
/// over folds, and the nominal `beta` of each level on the whole dataset.
#[derive(Debug, Clone, Serialize)]
pub struct CalibrationCell {
    /// Dataset name.
    pub dataset: String,
    /// Learner spec.
    pub learner: String,
    /// `(N+/N-)^t` on the whole dataset, per level.
    pub betas: Vec<f64>,
    /// Means over folds.
    pub values: Vec<Vec<Vec<f64>>>,
    /// Per level and probability, the per-fold values of every measure
    /// (`folds[level][probability][measure][fold]`), for boxplots.
    pub folds: Vec<Vec<Vec<Vec<f64>>>>,
}

/// AUC, G-mean and Brier score of one probability with its threshold.
fn measures(truth: &[u32], p: &[f64], tau: f64) -> Result<Vec<f64>> {
    let proba = Proba::from_positive(p);
    let labels = Rule::Threshold(tau).decide(&proba, None)?;
    let c = Confusion::from_labels(truth, &labels, 2)?;
    Ok(vec![
        roc_auc(truth, p, 1)?,
        c.one_vs_rest(1).g_mean(),
        brier(truth, &proba)?,
    ])
}

/// Runs one learner on one binary dataset.
///
/// ```
/// use std::sync::Arc;
/// use rarity::data::{bundled, read::ReadOptions};
/// use rarity::experiment::calibration::{run_cell, CalibrationConfig};
/// use rarity::split::Splitter;
/// let (ds, _) = bundled::find("ecoli4").unwrap().load(&ReadOptions::default()).unwrap();
/// let cfg = CalibrationConfig { levels: vec![1.0], splitter: Splitter::Stratified { repeats: 1, folds: 2 }, seed: 3 };
/// let learner = rarity::spec::build_learner("forest(n=20)").unwrap();
/// let c = run_cell("ecoli4", &ds, "forest(n=20)", &learner, &cfg).unwrap();
/// let (p_s, p_corr) = (&c.values[0][1], &c.values[0][2]);
/// assert_eq!(p_s[0], p_corr[0]); // eq. 9 is monotone: same AUC
/// assert_eq!(p_s[1], p_corr[1]); // eq. 12: same labels, same G-mean
/// assert!(p_corr[2] < p_s[2]);   // better calibrated
/// ```
pub fn run_cell(
    name: &str,
    data: &Dataset,
    spec: &str,
    learner: &Arc<dyn Learner>,
    cfg: &CalibrationConfig,
) -> Result<CalibrationCell> {
    if data.n_classes() != 2 {
        return Err(Error::data(format!(
            "{name}: the calibration experiment needs a binary task; this one has {} classes",
            data.n_classes()
        )));
    }
    if cfg.levels.is_empty() || cfg.levels.iter().any(|t| !(*t > 0.0 && *t <= 1.0)) {
        return Err(Error::invalid("undersampling levels must lie in (0, 1]"));
    }
    let ratio = |c: &[usize]| c[1] as f64 / c[0].max(1) as f64;
    let whole = ratio(&data.class_counts());
    let folds = cfg.splitter.split_dataset(data, cfg.seed)?;
    // [fold][level][probability][measure]
    let per_fold: Vec<Vec<Vec<Vec<f64>>>> = folds
        .par_iter()
        .enumerate()
        .map(|(f, fold)| -> Result<_> {
            let train = data.take(&fold.train);
            let test = data.take(&fold.test);
            let truth = test.labels();
            let rows: Vec<usize> = (0..train.n_rows()).collect();
            let mut r = rng::stream(cfg.seed, (f * 64) as u64);
            let p = learner
                .fit(&train.view(&rows), &mut r)?
                .predict_proba(&test)?;
            let p = p.column(1);
            let pi = train.priors()[1];
            let full = measures(truth, &p, pi)?;
            let lo = ratio(&train.class_counts());
            cfg.levels
                .iter()
                .enumerate()
                .map(|(l, t)| {
                    let mut r = rng::stream(cfg.seed, (f * 64 + l + 1) as u64);
                    let beta = lo.powf(*t).max(lo);
                    let sample = RandomUnder::beta(beta).resample(&train, &mut r)?;
                    let under = sample.materialise(&train)?;
                    let rows: Vec<usize> = (0..under.n_rows()).collect();
                    let m = learner.fit(&under.view(&rows), &mut r)?;
                    let mut ps = m.predict_proba(&test)?;
                    let tau_s = under.priors()[1];
                    let s = measures(truth, &ps.column(1), tau_s)?;
                    let k = &sample.keep_rates;
                    correct_keep_rates(&mut ps, k)?;
                    let tau_c = corrected_threshold(tau_s, k[0] / k[1]);
                    let c = measures(truth, &ps.column(1), tau_c)?;
                    Ok(vec![full.clone(), s, c])
                })
                .collect()
        })
        .collect::<Result<_>>()?;
    let nl = cfg.levels.len();
    let (np, nm) = (PROBABILITIES.len(), MEASURES.len());
    let mut values = vec![vec![vec![0.0; nm]; np]; nl];
    let mut per = vec![vec![vec![Vec::with_capacity(per_fold.len()); nm]; np]; nl];
    for l in 0..nl {
        for q in 0..np {
            for j in 0..nm {
                let v: Vec<f64> = per_fold.iter().map(|f| f[l][q][j]).collect();
                let ok: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
                values[l][q][j] = if ok.is_empty() {
                    f64::NAN
                } else {
                    ok.iter().sum::<f64>() / ok.len() as f64
                };
                per[l][q][j] = v;
            }
        }
    }
    Ok(CalibrationCell {
        dataset: name.to_string(),
        learner: spec.to_string(),
        betas: cfg.levels.iter().map(|t| whole.powf(*t)).collect(),
        values,
        folds: per,
    })
}

/// What the experiment found over datasets and learners.
#[derive(Debug, Clone, Serialize)]
pub struct CalibrationResults {
    /// One cell per binary dataset and learner, dataset by dataset.
    pub cells: Vec<CalibrationCell>,
    /// Table V over the cells ([`table_v`]).
    pub table_v: Vec<RankRow>,
    /// The share of cells where the correction lowers the Brier score.
    pub brier_wins: BrierWins,
    /// Fig. 3 and 4 for class-mean distances 3 and 15, with the first learner.
    pub gaussian: Vec<GaussianCurves>,
    /// Datasets (or dataset and learner) left out, with the reason: more
    /// than two classes, or data the protocol cannot run on.
    pub skipped: Vec<String>,
}

/// Runs the protocol: [`run_cell`] for every binary dataset and learner
/// (others are skipped, as are cells whose data the protocol cannot run on,
/// e.g. a class with fewer rows than folds), [`table_v`] over the cells, and
/// [`gaussian_curves`] with the first learner.
pub fn run(
    datasets: &[(String, Dataset)],
    learners: &[(String, Arc<dyn Learner>)],
    cfg: &CalibrationConfig,
) -> Result<CalibrationResults> {
    let Some((_, first)) = learners.first() else {
        return Err(Error::invalid("the calibration experiment needs a learner"));
    };
    let mut cells = Vec::new();
    let mut skipped = Vec::new();
    for (name, ds) in super::each_dataset(datasets) {
        if ds.n_classes() != 2 {
            skipped.push(format!("{name}: {} classes (binary only)", ds.n_classes()));
            continue;
        }
        for (spec, l) in learners {
            match run_cell(name, ds, spec, l, cfg) {
                Ok(c) => cells.push(c),
                Err(e @ Error::Data(_)) => skipped.push(format!("{name} with {spec}: {e}")),
                Err(e) => return Err(e),
            }
        }
    }
    let (table_v, brier_wins) = table_v(&cells)?;
    let gaussian = [3.0, 15.0]
        .iter()
        .map(|&mu| gaussian_curves(mu, first, cfg.seed))
        .collect::<Result<_>>()?;
    Ok(CalibrationResults {
        cells,
        table_v,
        brier_wins,
        gaussian,
        skipped,
    })
}

/// Table V for one learner and measure.
#[derive(Debug, Clone, Serialize)]
pub struct RankRow {
    /// Learner spec.
    pub learner: String,
    /// Measure.
    pub measure: String,
    /// Rank sums of `p`, `p_s`, `p'` (3 = best, or worst calibrated for Brier).
    pub rank_sums: Vec<f64>,
    /// Paired t-test p-value of the ranks of `p` against `p_s`.
    pub p_vs_p_s: f64,
    /// Paired t-test p-value of the ranks of `p` against `p'`.
    pub p_vs_p_corrected: f64,
    /// Cells (dataset x beta).
    pub cells: usize,
}

/// Per learner, the fraction of (dataset, beta) cells with
/// `Brier(p') < Brier(p_s)`.
pub type BrierWins = Vec<(String, f64)>;

/// Table V over `cells` (grouped by learner), and the [`BrierWins`].
pub fn table_v(cells: &[CalibrationCell]) -> Result<(Vec<RankRow>, BrierWins)> {
    let mut learners: Vec<&str> = Vec::new();
    for c in cells {
        if !learners.contains(&c.learner.as_str()) {
            learners.push(&c.learner);
        }
    }
    let mut rows = Vec::new();
    let mut better = Vec::new();
    for l in learners {
        let mine: Vec<&CalibrationCell> = cells.iter().filter(|c| c.learner == l).collect();
        for (j, m) in MEASURES.iter().enumerate() {
            let mut ranks: Vec<Vec<f64>> = vec![Vec::new(); 3];
            for c in &mine {
                for level in &c.values {
                    let v: Vec<f64> = level.iter().map(|q| q[j]).collect();
                    if v.iter().any(|x| x.is_nan()) {
                        continue;
                    }
                    // rankdata gives 1 to the smallest: for AUC and G-mean
                    // the best gets 3; for Brier the worst (largest) gets 3.
                    for (q, r) in rankdata(&v).into_iter().enumerate() {
                        ranks[q].push(r);
                    }
                }
            }
            let test = |a: &[f64], b: &[f64]| paired_t_test(a, b).map_or(f64::NAN, |t| t.p_value);
            rows.push(RankRow {
                learner: l.to_string(),
                measure: m.to_string(),
                rank_sums: ranks.iter().map(|r| r.iter().sum()).collect(),
                p_vs_p_s: test(&ranks[0], &ranks[1]),
                p_vs_p_corrected: test(&ranks[0], &ranks[2]),
                cells: ranks[0].len(),
            });
        }
        let (mut n, mut wins) = (0usize, 0usize);
        for c in &mine {
            for level in &c.values {
                n += 1;
                wins += usize::from(level[2][2] < level[1][2]);
            }
        }
        better.push((l.to_string(), wins as f64 / n.max(1) as f64));
    }
    Ok((rows, better))
}

/// The curves of Fig. 3 and Fig. 4 on a one-feature Gaussian task.
#[derive(Debug, Clone, Serialize)]
pub struct GaussianCurves {
    /// Distance between the class means.
    pub mu: f64,
    /// The grid of x values.
    pub x: Vec<f64>,
    /// The true posterior `p(+|x)`.
    pub p: Vec<f64>,
    /// Fig. 3: `(beta, true p_s(x))` for several beta (eq. 4).
    pub p_s_by_beta: Vec<(f64, Vec<f64>)>,
    /// Fig. 4: the balancing beta, `N+/N-`.
    pub beta: f64,
    /// Fig. 4: the learner's `p̂_s` after undersampling at `beta`.
    pub p_s_hat: Vec<f64>,
    /// Fig. 4: its correction `p̂'` (eq. 9).
    pub p_corrected_hat: Vec<f64>,
}

/// Fig. 3 and 4: the paper's Gaussian task (10,000 rows, 10% positives,
/// sigma = 3) with class-mean distance `mu`, a grid of 121 x values over the
/// bulk of both classes, and `learner` fitted after balancing undersampling.
pub fn gaussian_curves(mu: f64, learner: &Arc<dyn Learner>, seed: u64) -> Result<GaussianCurves> {
    let task = GaussianTask {
        mu,
        ..GaussianTask::default()
    };
    let (data, _) = task.generate(seed)?;
    let c = data.class_counts();
    let beta = c[1] as f64 / c[0] as f64;
    let (lo, hi) = (-3.0 * task.sigma, mu + 3.0 * task.sigma);
    let x: Vec<f64> = (0..=120)
        .map(|i| lo + (hi - lo) * i as f64 / 120.0)
        .collect();
    let p: Vec<f64> = x.iter().map(|v| task.posterior(&[*v])).collect();
    let p_s_by_beta = [1.0, 0.5, 0.25, 0.1, 0.05, beta]
        .iter()
        .filter(|b| **b >= beta)
        .map(|&b| (b, p.iter().map(|&q| q / (q + b * (1.0 - q))).collect()))
        .collect();
    let mut r = rng::stream(seed, 1);
    let sample = RandomUnder::beta(beta).resample(&data, &mut r)?;
    let under = sample.materialise(&data)?;
    let rows: Vec<usize> = (0..under.n_rows()).collect();
    let model = learner.fit(&under.view(&rows), &mut r)?;
    let schema: Schema = data.schema().clone();
    let grid = Dataset::new(x.clone(), vec![0; x.len()], schema)?;
    let p_s_hat = model.predict_proba(&grid)?.column(1);
    let b = sample.keep_rates[0] / sample.keep_rates[1];
    let p_corrected_hat = p_s_hat.iter().map(|&q| correct_binary(q, b)).collect();
    Ok(GaussianCurves {
        mu,
        x,
        p,
        p_s_by_beta,
        beta,
        p_s_hat,
        p_corrected_hat,
    })
}
