//! The PT-bagging experiment (Collell, Prelec & Patil 2018, Sec. 4-5).
//!
//! For each dataset: repeated stratified cross-validation (the paper: 5x2);
//! in each fold every ensemble family is trained once with the largest size
//! and evaluated at every size by averaging its first `n` members (member
//! `i` depends only on the seed and `i`, so these prefixes are exactly the
//! ensembles of size `n`).
//!
//! Binary methods: PT_MA-bagging (plain bootstrap, threshold at the training
//! prior), PT_F1-bagging (`(pi+ + 0.5) / 2`), EB-, RB- and SMOTE-bagging
//! (SMOTE 500% + 120% undersampling) at 0.5, and Platt scaling of the same
//! bootstrap ensemble at 0.5 (fitted on its out-of-bag probabilities, largest
//! size only). Measures: area under the precision-recall curve (average
//! precision), macro accuracy, macro F1, the stratified Brier score, recall
//! per class (Fig. 2) and the full potential of macro accuracy and macro F1
//! (the best value over thresholds, Table 5).
//!
//! Multiclass (Sec. 5.2): PT_MA (argmax of `p_k / pi_k`), plain argmax,
//! UnderOver-bagging with `a` = 10, 25, 50, 100 (Wang & Yao 2009) and every
//! class undersampled to the smallest (EB), at the largest size.
//!
//! [`run`] runs the protocol over datasets ([`run_dataset`] for each) and
//! [`summarise`] turns the per-dataset means into the paper's views: the
//! trend with ensemble size (Fig. 1), win / tie / loss (Table 4), full
//! potential and gap (Table 5), Friedman + Nemenyi, recall per class with a
//! one-sample t-test of the difference (Fig. 2), and the multiclass
//! comparison with a Wilcoxon test against the best competitor.

use std::sync::Arc;

use rand::RngExt;
use rayon::prelude::*;
use serde::Serialize;

use crate::calibrate::Platt;
use crate::data::{Dataset, Proba};
use crate::decide::tune::{best_threshold, Objective};
use crate::decide::{Decision, Rule};
use crate::ensemble::Bagging;
use crate::error::{Error, Result};
use crate::learn::tree::Tree;
use crate::metrics::report_with_labels;
use crate::rng;
use crate::sample::bootstrap::Bootstrap;
use crate::sample::{ExactlyBalanced, RoughlyBalanced, Sampler, SmoteHybrid, UnderOver};
use crate::split::{Fold, Splitter};
use crate::stats::{
    critical_difference, friedman, mean, mean_ranks, paired_t_test, wilcoxon, win_tie_loss,
};

/// The measures recorded per method, size and fold.
pub const MEASURES: &[&str] = &[
    "average_precision",
    "macro_accuracy",
    "macro_f1",
    "brier_minority",
    "brier_majority",
    "recall_minority",
    "recall_majority",
    "potential_macro_accuracy",
    "potential_macro_f1",
];

/// The binary methods, in table order.
pub const BINARY_METHODS: &[&str] = &["PT_MA", "PT_F1", "EB", "RB", "SMOTE", "Platt"];

/// The multiclass methods, in table order.
pub const MULTICLASS_METHODS: &[&str] = &[
    "PT_MA",
    "argmax",
    "UnderOver a=10",
    "UnderOver a=25",
    "UnderOver a=50",
    "UnderOver a=100",
    "EB",
];

/// Settings of the experiment.
#[derive(Debug, Clone)]
pub struct PtBaggingConfig {
    /// Ensemble sizes, ascending (the paper: 5, 10, 25, 50, 100).
    pub sizes: Vec<usize>,
    /// The cross-validation (the paper: 5 repeats of 2 folds).
    pub splitter: Splitter,
    /// The seed of the folds and of every ensemble.
    pub seed: u64,
}

impl Default for PtBaggingConfig {
    fn default() -> Self {
        PtBaggingConfig {
            sizes: vec![5, 10, 25, 50, 100],
            splitter: Splitter::Stratified {
                repeats: 5,
                folds: 2,
            },
            seed: 42,
        }
    }
}

/// One dataset's results: `means[method][size][measure]`, averaged over
/// folds (NaN where a measure does not apply, e.g. Platt below the largest
/// size or recall per class on multiclass data).
#[derive(Debug, Clone, Serialize)]
pub struct DatasetResult {
    /// Dataset name.
    pub name: String,
    /// Rows.
    pub n_rows: usize,
    /// Classes.
    pub n_classes: usize,
    /// Means over folds.
    pub means: Vec<Vec<Vec<f64>>>,
}

/// A family of ensembles trained once per fold: its sampler and the methods
/// (decisions) read from it.
struct Family {
    sampler: Arc<dyn Sampler>,
    /// `(method index, decision)`; `None` is Platt on out-of-bag scores.
    methods: Vec<(usize, Option<Decision>)>,
}

fn families(n_classes: usize) -> Vec<Family> {
    let boot: Arc<dyn Sampler> = Arc::new(Bootstrap::default());
    let one = |sampler, method, d| Family {
        sampler,
        methods: vec![(method, Some(d))],
    };
    if n_classes == 2 {
        vec![
            Family {
                sampler: boot,
                methods: vec![
                    (0, Some(Decision::Priors)),
                    (1, Some(Decision::F1)),
                    (5, None),
                ],
            },
            one(Arc::new(ExactlyBalanced), 2, Decision::Half),
            one(Arc::new(RoughlyBalanced), 3, Decision::Half),
            one(Arc::new(SmoteHybrid::default()), 4, Decision::Half),
        ]
    } else {
        let mut f = vec![Family {
            sampler: boot,
            methods: vec![
                (0, Some(Decision::Priors)),
                (1, Some(Decision::Rule(Rule::Argmax))),
            ],
        }];
        for (i, a) in [10.0, 25.0, 50.0, 100.0].into_iter().enumerate() {
            f.push(one(
                Arc::new(UnderOver { a }),
                2 + i,
                Decision::Rule(Rule::Argmax),
            ));
        }
        f.push(one(
            Arc::new(ExactlyBalanced),
            6,
            Decision::Rule(Rule::Argmax),
        ));
        f
    }
}

/// Runs the protocol on one dataset.
///
/// ```
/// use rarity::data::{bundled, read::ReadOptions};
/// use rarity::experiment::pt_bagging::{run_dataset, PtBaggingConfig, MEASURES};
/// use rarity::split::Splitter;
/// let (ds, _) = bundled::find("ecoli4").unwrap().load(&ReadOptions::default()).unwrap();
/// let cfg = PtBaggingConfig { sizes: vec![2, 5], splitter: Splitter::Stratified { repeats: 1, folds: 2 }, seed: 1 };
/// let r = run_dataset("ecoli4", &ds, &cfg).unwrap();
/// let ap = MEASURES.iter().position(|m| *m == "average_precision").unwrap();
/// assert!(r.means[0][1][ap] > 0.3); // PT_MA, 5 trees
/// ```
pub fn run_dataset(name: &str, data: &Dataset, cfg: &PtBaggingConfig) -> Result<DatasetResult> {
    data.require_two_classes()?;
    if cfg.sizes.is_empty() || cfg.sizes.contains(&0) || !cfg.sizes.is_sorted() {
        return Err(Error::invalid(
            "ensemble sizes must be ascending whole numbers >= 1",
        ));
    }
    let k = data.n_classes();
    let n_methods = if k == 2 {
        BINARY_METHODS.len()
    } else {
        MULTICLASS_METHODS.len()
    };
    let folds = cfg.splitter.split_dataset(data, cfg.seed)?;
    let per_fold: Vec<Vec<Vec<Vec<f64>>>> = folds
        .par_iter()
        .enumerate()
        .map(|(f, fold)| run_fold(data, fold, f, n_methods, cfg))
        .collect::<Result<_>>()?;
    let mut means = vec![vec![vec![0.0; MEASURES.len()]; cfg.sizes.len()]; n_methods];
    for (m, sizes) in means.iter_mut().enumerate() {
        for (s, cell) in sizes.iter_mut().enumerate() {
            for (j, v) in cell.iter_mut().enumerate() {
                let vals: Vec<f64> = per_fold
                    .iter()
                    .map(|r| r[m][s][j])
                    .filter(|x| !x.is_nan())
                    .collect();
                *v = if vals.is_empty() {
                    f64::NAN
                } else {
                    mean(&vals)
                };
            }
        }
    }
    Ok(DatasetResult {
        name: name.to_string(),
        n_rows: data.n_rows(),
        n_classes: k,
        means,
    })
}

/// What the experiment found over datasets.
#[derive(Debug, Clone, Serialize)]
pub struct PtBaggingResults {
    /// One result per dataset the protocol ran on, in order.
    pub datasets: Vec<DatasetResult>,
    /// The binary summaries (None without a binary dataset).
    pub binary: Option<BinarySummary>,
    /// The multiclass summaries (None without a multiclass dataset).
    pub multiclass: Option<MulticlassSummary>,
    /// Datasets the protocol cannot run on (e.g. a class with fewer rows
    /// than folds), with the reason.
    pub skipped: Vec<String>,
}

/// Runs the protocol: [`run_dataset`] on every dataset (one it cannot run on
/// is skipped with the reason, not fatal), then [`summarise`].
pub fn run(datasets: &[(String, Dataset)], cfg: &PtBaggingConfig) -> Result<PtBaggingResults> {
    let mut results = Vec::with_capacity(datasets.len());
    let mut skipped = Vec::new();
    for (name, ds) in super::each_dataset(datasets) {
        match run_dataset(name, ds, cfg) {
            Ok(r) => results.push(r),
            Err(e @ Error::Data(_)) => skipped.push(format!("{name}: {e}")),
            Err(e) => return Err(e),
        }
    }
    let (binary, multiclass) = summarise(&results, &cfg.sizes)?;
    Ok(PtBaggingResults {
        datasets: results,
        binary,
        multiclass,
        skipped,
    })
}

/// One fold: `[method][size][measure]`.
fn run_fold(
    data: &Dataset,
    fold: &Fold,
    f: usize,
    n_methods: usize,
    cfg: &PtBaggingConfig,
) -> Result<Vec<Vec<Vec<f64>>>> {
    let train = data.take(&fold.train);
    let test = data.take(&fold.test);
    let truth = test.labels();
    let priors = train.priors();
    let k = data.n_classes();
    let largest = *cfg.sizes.last().expect("sizes are not empty");
    let mut out = vec![vec![vec![f64::NAN; MEASURES.len()]; cfg.sizes.len()]; n_methods];
    for (fam_i, fam) in families(k).into_iter().enumerate() {
        let bag = Bagging::new(largest, Arc::new(Tree::default()), fam.sampler);
        let seed = rng::stream(cfg.seed, (f * 16 + fam_i) as u64).random::<u64>();
        let platt = fam.methods.iter().any(|(_, d)| d.is_none());
        let (model, oob) = if platt {
            let (m, o) = bag.fit_with_oob(&train, seed)?;
            (m, Some(o))
        } else {
            (bag.fit_dataset(&train, seed)?, None)
        };
        let mut sum = Proba::zeros(test.n_rows(), k);
        let mut next = 0;
        for i in 0..largest {
            let p = model.member_proba(i, &test)?;
            sum.values_mut()
                .iter_mut()
                .zip(p.values())
                .for_each(|(s, v)| *s += v);
            if i + 1 != cfg.sizes[next] {
                continue;
            }
            let mut avg = sum.clone();
            avg.values_mut()
                .iter_mut()
                .for_each(|v| *v /= (i + 1) as f64);
            for (m, decision) in &fam.methods {
                let (proba, rule) = match decision {
                    Some(d) => (avg.clone(), d.from_priors(&priors)?),
                    None if i + 1 == largest => {
                        let Some(oob) = &oob else { continue };
                        let y: Vec<bool> = train.labels().iter().map(|&c| c == 1).collect();
                        let platt = Platt::fit(&oob.proba.column(1), &y)?;
                        let p: Vec<f64> = avg.column(1).iter().map(|&s| platt.apply(s)).collect();
                        (Proba::from_positive(&p), Rule::Threshold(0.5))
                    }
                    None => continue,
                };
                out[*m][next] = measures(truth, &proba, &rule.decide(&proba, None)?)?;
            }
            next += 1;
        }
    }
    Ok(out)
}

/// The values of [`MEASURES`] for one fold's test probabilities and labels.
fn measures(truth: &[u32], proba: &Proba, labels: &[u32]) -> Result<Vec<f64>> {
    let report = report_with_labels(truth, proba, labels, &[])?;
    let get = |key: &str| {
        report
            .iter()
            .find(|(k, _)| k == key)
            .map_or(f64::NAN, |(_, v)| *v)
    };
    if proba.n_classes() != 2 {
        let mut v = vec![f64::NAN; MEASURES.len()];
        v[0] = get("average_precision");
        v[1] = get("macro_accuracy");
        v[2] = get("macro_f1");
        return Ok(v);
    }
    let p = proba.column(1);
    Ok(vec![
        get("average_precision"),
        get("macro_accuracy"),
        get("macro_f1"),
        get("brier_positive"),
        get("brier_negative"),
        get("tpr"),
        get("tnr"),
        best_threshold(truth, &p, &Objective::metric("macro_accuracy")?)?.1,
        best_threshold(truth, &p, &Objective::metric("macro_f1")?)?.1,
    ])
}

/// Friedman test with the Nemenyi critical difference over datasets.
#[derive(Debug, Clone, Serialize)]
pub struct RankTest {
    /// The measure compared.
    pub measure: String,
    /// Mean rank per method (1 = best).
    pub mean_ranks: Vec<f64>,
    /// Friedman chi-square p-value.
    pub friedman_p: f64,
    /// Nemenyi critical difference at alpha = 0.05.
    pub critical_difference: f64,
}

/// Recall per class of one method (Fig. 2).
#[derive(Debug, Clone, Serialize)]
pub struct RecallGap {
    /// Mean minority recall over datasets.
    pub minority: f64,
    /// Mean majority recall over datasets.
    pub majority: f64,
    /// Mean of minority minus majority recall.
    pub mean_difference: f64,
    /// One-sample t statistic of the differences.
    pub t: f64,
    /// Its two-sided p-value.
    pub p_value: f64,
}

/// Win / tie / loss of a reference method against another (Table 4).
#[derive(Debug, Clone, Serialize)]
pub struct Wtl {
    /// The reference method.
    pub method: String,
    /// Its opponent.
    pub against: String,
    /// The measure.
    pub measure: String,
    /// Datasets the reference wins, ties, loses.
    pub wins: usize,
    /// Ties.
    pub ties: usize,
    /// Losses.
    pub losses: usize,
    /// Paired Wilcoxon signed-rank p-value.
    pub wilcoxon_p: f64,
}

/// The paper's views of the binary results.
#[derive(Debug, Clone, Serialize)]
pub struct BinarySummary {
    /// Datasets.
    pub n_datasets: usize,
    /// The ensemble sizes.
    pub sizes: Vec<usize>,
    /// `trend[measure][method][size]`: mean over datasets, for
    /// average precision, macro accuracy and macro F1 (Fig. 1).
    pub trend: Vec<(String, Vec<Vec<f64>>)>,
    /// Mean over datasets of every measure at the largest size, per method.
    pub at_largest: Vec<Vec<f64>>,
    /// Table 4: PT_MA against each method on macro accuracy, PT_F1 on macro F1.
    pub win_tie_loss: Vec<Wtl>,
    /// Friedman + Nemenyi at the largest size.
    pub rank_tests: Vec<RankTest>,
    /// Fig. 2: recall per class at the largest size.
    pub recall: Vec<RecallGap>,
}

/// The multiclass comparison (Sec. 5.2).
#[derive(Debug, Clone, Serialize)]
pub struct MulticlassSummary {
    /// Datasets.
    pub n_datasets: usize,
    /// Mean macro accuracy per method.
    pub macro_accuracy: Vec<f64>,
    /// Mean macro F1 per method.
    pub macro_f1: Vec<f64>,
    /// Datasets on which each method has the best macro accuracy (ties
    /// count for every tied method).
    pub wins: Vec<usize>,
    /// The competitor with the highest mean macro accuracy.
    pub best_competitor: String,
    /// PT_MA against that competitor.
    pub against_best: Option<Wtl>,
}

fn column(results: &[&DatasetResult], method: usize, size: usize, measure: usize) -> Vec<f64> {
    results
        .iter()
        .map(|r| r.means[method][size][measure])
        .collect()
}

fn measure(name: &str) -> usize {
    MEASURES
        .iter()
        .position(|m| *m == name)
        .expect("a listed measure")
}

fn wtl(
    results: &[&DatasetResult],
    methods: &[&str],
    (a, b): (usize, usize),
    meas: &str,
    size: usize,
) -> Result<Wtl> {
    let j = measure(meas);
    let x = column(results, a, size, j);
    let y = column(results, b, size, j);
    let w = win_tie_loss(&x, &y, true)?;
    let p = if x.len() >= 2 && x != y {
        wilcoxon(&x, &y).map_or(f64::NAN, |r| r.p_value)
    } else {
        f64::NAN
    };
    Ok(Wtl {
        method: methods[a].to_string(),
        against: methods[b].to_string(),
        measure: meas.to_string(),
        wins: w.wins,
        ties: w.ties,
        losses: w.losses,
        wilcoxon_p: p,
    })
}

/// Summaries of the binary datasets (None without any) and of the
/// multiclass ones (None without any).
pub fn summarise(
    results: &[DatasetResult],
    sizes: &[usize],
) -> Result<(Option<BinarySummary>, Option<MulticlassSummary>)> {
    let bin: Vec<&DatasetResult> = results.iter().filter(|r| r.n_classes == 2).collect();
    let multi: Vec<&DatasetResult> = results.iter().filter(|r| r.n_classes > 2).collect();
    let binary = if bin.is_empty() {
        None
    } else {
        Some(summarise_binary(&bin, sizes)?)
    };
    let multiclass = if multi.is_empty() {
        None
    } else {
        Some(summarise_multiclass(&multi, sizes.len() - 1)?)
    };
    Ok((binary, multiclass))
}

fn nan_mean(v: &[f64]) -> f64 {
    let v: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
    if v.is_empty() {
        f64::NAN
    } else {
        mean(&v)
    }
}

fn summarise_binary(bin: &[&DatasetResult], sizes: &[usize]) -> Result<BinarySummary> {
    let last = sizes.len() - 1;
    let nm = BINARY_METHODS.len();
    // `[method][k]`: the mean over datasets of column `(method, k)`.
    let per_method = |k: usize, col: &dyn Fn(usize, usize) -> Vec<f64>| -> Vec<Vec<f64>> {
        (0..nm)
            .map(|a| (0..k).map(|x| nan_mean(&col(a, x))).collect())
            .collect()
    };
    let trend = ["average_precision", "macro_accuracy", "macro_f1"]
        .iter()
        .map(|m| {
            let j = measure(m);
            let t = per_method(sizes.len(), &|a, s| column(bin, a, s, j));
            (m.to_string(), t)
        })
        .collect();
    let at_largest = per_method(MEASURES.len(), &|a, j| column(bin, a, last, j));
    let mut table4 = Vec::new();
    for b in (0..nm).filter(|&b| b != 0) {
        table4.push(wtl(bin, BINARY_METHODS, (0, b), "macro_accuracy", last)?);
    }
    for b in (0..nm).filter(|&b| b != 1) {
        table4.push(wtl(bin, BINARY_METHODS, (1, b), "macro_f1", last)?);
    }
    let mut rank_tests = Vec::new();
    for m in ["average_precision", "macro_accuracy", "macro_f1"] {
        let j = measure(m);
        // Rows: datasets; columns: methods with a value (Platt has none below
        // the largest size, all have one here).
        let table: Vec<Vec<f64>> = bin
            .iter()
            .map(|r| (0..nm).map(|a| r.means[a][last][j]).collect())
            .collect();
        if table.iter().flatten().any(|v| v.is_nan()) || table.len() < 2 {
            continue;
        }
        let fr = friedman(&table)?;
        rank_tests.push(RankTest {
            measure: m.to_string(),
            mean_ranks: mean_ranks(&table, true)?,
            friedman_p: fr.chi2_p_value,
            critical_difference: critical_difference(nm, table.len(), 0.05)?,
        });
    }
    let (rmin, rmaj) = (measure("recall_minority"), measure("recall_majority"));
    let recall = (0..nm)
        .map(|a| {
            let x = column(bin, a, last, rmin);
            let y = column(bin, a, last, rmaj);
            let d: Vec<f64> = x.iter().zip(&y).map(|(p, q)| p - q).collect();
            let t = paired_t_test(&x, &y).ok();
            RecallGap {
                minority: nan_mean(&x),
                majority: nan_mean(&y),
                mean_difference: nan_mean(&d),
                t: t.map_or(f64::NAN, |t| t.t),
                p_value: t.map_or(f64::NAN, |t| t.p_value),
            }
        })
        .collect();
    Ok(BinarySummary {
        n_datasets: bin.len(),
        sizes: sizes.to_vec(),
        trend,
        at_largest,
        win_tie_loss: table4,
        rank_tests,
        recall,
    })
}

fn summarise_multiclass(multi: &[&DatasetResult], last: usize) -> Result<MulticlassSummary> {
    let nm = MULTICLASS_METHODS.len();
    let (ma, mf) = (measure("macro_accuracy"), measure("macro_f1"));
    let macro_accuracy: Vec<f64> = (0..nm)
        .map(|a| nan_mean(&column(multi, a, last, ma)))
        .collect();
    let macro_f1 = (0..nm)
        .map(|a| nan_mean(&column(multi, a, last, mf)))
        .collect();
    let mut wins = vec![0; nm];
    for r in multi {
        let best = (0..nm)
            .map(|a| r.means[a][last][ma])
            .fold(f64::NEG_INFINITY, f64::max);
        for (a, w) in wins.iter_mut().enumerate() {
            if r.means[a][last][ma] == best {
                *w += 1;
            }
        }
    }
    let best = (1..nm)
        .max_by(|&a, &b| macro_accuracy[a].total_cmp(&macro_accuracy[b]))
        .unwrap_or(1);
    Ok(MulticlassSummary {
        n_datasets: multi.len(),
        macro_accuracy,
        macro_f1,
        wins,
        best_competitor: MULTICLASS_METHODS[best].to_string(),
        against_best: Some(wtl(
            multi,
            MULTICLASS_METHODS,
            (0, best),
            "macro_accuracy",
            last,
        )?),
    })
}
