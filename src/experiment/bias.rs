//! The bias experiment of Fan & Davidson (2006, Sec. 5): does a selection
//! method predict the true pairwise order of learners when the training
//! sample is biased?
//!
//! For each dataset and each of several random stratified 50/50 splits: bias
//! the training half (feature bias: sort by the first attribute and drop the
//! lowest 25%; class bias, e.g. half of the largest class kept; or none),
//! fit every learner on it, and take as the true order of each pair the
//! better measure on the unbiased test half ([`true_ranking`]).
//! Each method (ReverseTesting variants using the test half unlabelled,
//! 10-fold CV and leave-one-out on the biased training half) predicts every
//! pair; a prediction is correct, wrong or undecided. Pairs whose true
//! measures are exactly equal are not counted. The paper's summary: RvT 84%
//! correct, 10-fold CV 68%, LOO 40% over 50 comparisons.

use std::sync::Arc;

use rand::RngExt;
use serde::Serialize;

pub use crate::data::bias::Bias;
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::learn::Learner;
use crate::rng;
use crate::select::comparator::Comparator;
use crate::select::measure::measure_value;
use crate::select::method::{run_methods, Method, Selection};
use crate::select::ranking::{fit_all, rank_by_scores, Outcome, Ranking};
use crate::select::variant::{Measure, ReverseTestingVariant};
use crate::split::Splitter;

/// Correct / wrong / undecided counts of one method.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Tally {
    /// Pairs predicted as the truth.
    pub correct: usize,
    /// Pairs predicted the other way.
    pub wrong: usize,
    /// Pairs left undecided.
    pub undecided: usize,
    /// ReverseTesting only: counted pairs where `a` or `b` labelled the
    /// whole target set with one class (included in the three counts).
    pub constant: usize,
    /// ReverseTesting only: undecided pairs where `L_a` or `L_b` measures
    /// its models of the two copies exactly equal (`AccTrain_a^a ==
    /// AccTrain_a^b` or `AccTrain_b^a == AccTrain_b^b`); the other undecided
    /// pairs had the judges disagree.
    pub tied: usize,
}

impl Tally {
    /// Share of counted pairs predicted correctly.
    pub fn percent_correct(&self) -> f64 {
        let n = self.correct + self.wrong + self.undecided;
        if n == 0 {
            f64::NAN
        } else {
            100.0 * self.correct as f64 / n as f64
        }
    }

    /// Adds another tally's counts.
    pub fn merge(&mut self, other: &Tally) {
        self.correct += other.correct;
        self.wrong += other.wrong;
        self.undecided += other.undecided;
        self.constant += other.constant;
        self.tied += other.tied;
    }

    fn add(&mut self, truth: &Ranking, predicted: &Ranking) {
        for (t, p) in truth.pairs.iter().zip(&predicted.pairs) {
            if t.outcome == Outcome::Undecided {
                continue;
            }
            if !p.constant_copies.is_empty() {
                self.constant += 1;
            }
            match (t.outcome, p.outcome) {
                (_, Outcome::Undecided) => {
                    self.undecided += 1;
                    if let Some([aa, ab, ba, bb]) = p.acc_train {
                        if aa == ab || ba == bb {
                            self.tied += 1;
                        }
                    }
                }
                (a, b) if a == b => self.correct += 1,
                _ => self.wrong += 1,
            }
        }
    }
}

/// Settings of the bias experiment.
#[derive(Debug, Clone)]
pub struct BiasExperimentConfig {
    /// The ReverseTesting variants to evaluate, each with its label (the
    /// method is named `ReverseTesting LABEL`).
    pub variants: Vec<(String, ReverseTestingVariant)>,
    /// Further selection methods, each with its label (its name in the
    /// results), evaluated after the variants.
    pub methods: Vec<(String, Method)>,
    /// The metric of the true order and of the comparators (argmax labels).
    pub metric: String,
    /// How the training half is biased.
    pub bias: Bias,
    /// Random 50/50 splits per dataset.
    pub splits: usize,
    /// The seed of the splits, the biases and the learners.
    pub seed: u64,
}

/// What the bias experiment found.
#[derive(Debug, Clone)]
pub struct BiasExperimentResults {
    /// The methods with their names: the ReverseTesting variants in the
    /// order given, the further methods, then 10-fold CV and leave-one-out.
    pub methods: Vec<(String, Method)>,
    /// One tally per method, over every dataset.
    pub tallies: Vec<Tally>,
    /// Each dataset's name and its tally per method.
    pub per_dataset: Vec<(String, Vec<Tally>)>,
    /// Every counted pair.
    pub pairs: Vec<PairRecord>,
    /// Every (dataset, split) cell run, with its bias diagnostics.
    pub cells: Vec<CellRecord>,
    /// The (dataset, split) cells that were skipped, with the reason (e.g.
    /// a biased training half with one class).
    pub skipped: Vec<String>,
}

/// One counted pair: the truth and every method's decision.
#[derive(Debug, Clone, Serialize)]
pub struct PairRecord {
    /// The dataset.
    pub dataset: String,
    /// The split.
    pub split: usize,
    /// Learner `a`.
    pub a: String,
    /// Learner `b`.
    pub b: String,
    /// Rows of the test half.
    pub test_rows: usize,
    /// The true measures of `a` and `b` on the test half (oriented: higher
    /// is better).
    pub truth: [f64; 2],
    /// The share of bootstrap resamples of the test half on which the pair
    /// is ordered as on the test half: how reproducible the true order is.
    /// Its mean over pairs estimates, optimistically, the % correct of a
    /// method that knew the order on the whole population (the order on
    /// one test half is a noisy copy of it).
    pub agreement: f64,
    /// Each method's decision, in the order of the methods.
    pub outcomes: Vec<Outcome>,
}

/// One (dataset, split) cell that was run: the sizes and what the bias
/// tests found (from the first method that ran each test).
#[derive(Debug, Clone, Serialize)]
pub struct CellRecord {
    /// The dataset.
    pub dataset: String,
    /// The split.
    pub split: usize,
    /// Rows of the biased training half.
    pub train_rows: usize,
    /// Rows of the test half.
    pub test_rows: usize,
    /// The out-of-fold AUC of the density-ratio classifier, training vs
    /// test rows.
    pub shift_auc: Option<f64>,
    /// Whether the covariate-shift test fired.
    pub shift_detected: Option<bool>,
    /// The p-value of the test for a prior shift.
    pub prior_p_value: Option<f64>,
    /// The class shares of the biased training half.
    pub train_priors: Vec<f64>,
    /// The class shares of the test half (the target's true priors).
    pub test_priors: Vec<f64>,
    /// The target priors estimated without the test labels (the mean of
    /// the learners' EM estimates).
    pub estimated_priors: Option<Vec<f64>>,
    /// The effective sample size of the importance weights, as a share of
    /// the training rows.
    pub effective_share: Option<f64>,
}

/// Runs the experiment on every dataset: the ReverseTesting variants and
/// further methods of `cfg`, 10-fold CV and leave-one-out predict the
/// pairwise order of `learners`; the true order is measured by `cfg.metric`
/// on the unbiased test half.
pub fn run(
    datasets: &[(String, Dataset)],
    learners: &[(String, Arc<dyn Learner>)],
    cfg: &BiasExperimentConfig,
) -> Result<BiasExperimentResults> {
    let truth = ReverseTestingVariant {
        measure: Measure::Metric(cfg.metric.clone()),
        ..ReverseTestingVariant::paper()
    };
    let mut methods: Vec<(String, Method)> = cfg
        .variants
        .iter()
        .map(|(label, v)| {
            (
                format!("ReverseTesting {label}"),
                Method::ReverseTesting(v.clone()),
            )
        })
        .collect();
    methods.extend(cfg.methods.iter().cloned());
    let cv = Comparator::CrossValidation {
        repeats: 1,
        folds: 10,
    };
    methods.push(("10-fold CV".into(), Method::Comparator(cv)));
    methods.push((
        "leave-one-out".into(),
        Method::Comparator(Comparator::LeaveOneOut),
    ));
    let ms: Vec<Method> = methods.iter().map(|m| m.1.clone()).collect();
    let mut out = BiasExperimentResults {
        methods,
        tallies: vec![Tally::default(); ms.len()],
        per_dataset: Vec::with_capacity(datasets.len()),
        pairs: Vec::new(),
        cells: Vec::new(),
        skipped: Vec::new(),
    };
    for (name, data) in super::each_dataset(datasets) {
        let t = run_dataset(name, data, learners, &ms, &truth, cfg, &mut out)?;
        for (acc, x) in out.tallies.iter_mut().zip(&t) {
            acc.merge(x);
        }
        out.per_dataset.push((name.clone(), t));
    }
    Ok(out)
}

/// One dataset: one tally per method; the counted pairs and the cells run
/// are added to `out`, the (dataset, split) cells that cannot be run to
/// `out.skipped` with the reason.
fn run_dataset(
    name: &str,
    data: &Dataset,
    learners: &[(String, Arc<dyn Learner>)],
    methods: &[Method],
    truth: &ReverseTestingVariant,
    cfg: &BiasExperimentConfig,
    out: &mut BiasExperimentResults,
) -> Result<Vec<Tally>> {
    let mut tallies = vec![Tally::default(); methods.len()];
    for s in 0..cfg.splits {
        let split_seed: u64 = rng::stream(cfg.seed, s as u64).random();
        let holdout = Splitter::Holdout { test_fraction: 0.5 };
        let fold = match holdout.split_dataset(data, split_seed) {
            Ok(f) => f.into_iter().next().expect("a holdout split has one fold"),
            Err(e) => {
                out.skipped.push(format!("{name}: {e}"));
                break;
            }
        };
        let train = data.take(&cfg.bias.apply(data, &fold.train, split_seed)?);
        let test = data.take(&fold.test);
        if let Err(e) = train.require_two_classes() {
            out.skipped.push(format!("{name} split {s}: {e}"));
            continue;
        }
        let cell = || -> Result<(Vec<f64>, Vec<f64>, Vec<Selection>)> {
            let (scores, agreement) = true_order(learners, &train, &test, truth, split_seed)?;
            let found = run_methods(methods, learners, &train, &test, truth, split_seed)?;
            Ok((scores, agreement, found))
        };
        match cell() {
            Ok((scores, agreement, found)) => {
                let truth = rank_by_scores(learners, &scores, learners.len());
                for (t, pred) in tallies.iter_mut().zip(&found) {
                    t.add(&truth, &pred.ranking);
                }
                for (j, p) in truth.pairs.iter().enumerate() {
                    if p.outcome == Outcome::Undecided {
                        continue;
                    }
                    out.pairs.push(PairRecord {
                        dataset: name.to_string(),
                        split: s,
                        a: learners[p.a].0.clone(),
                        b: learners[p.b].0.clone(),
                        test_rows: test.n_rows(),
                        truth: [scores[p.a], scores[p.b]],
                        agreement: agreement[j],
                        outcomes: found.iter().map(|f| f.ranking.pairs[j].outcome).collect(),
                    });
                }
                let shift = found.iter().find_map(|f| f.shift.as_ref());
                out.cells.push(CellRecord {
                    dataset: name.to_string(),
                    split: s,
                    train_rows: train.n_rows(),
                    test_rows: test.n_rows(),
                    shift_auc: shift.map(|t| t.auc),
                    shift_detected: shift.map(|t| t.detected),
                    prior_p_value: found
                        .iter()
                        .find_map(|f| f.priors.as_ref().map(|p| p.p_value)),
                    train_priors: train.priors(),
                    test_priors: test.priors(),
                    estimated_priors: found
                        .iter()
                        .find_map(|f| f.priors.as_ref().map(|p| p.mean.clone())),
                    effective_share: found
                        .iter()
                        .find_map(|f| f.weights.as_ref().map(|w| w.effective_size / w.rows as f64)),
                });
            }
            Err(e) => out.skipped.push(format!("{name} split {s}: {e}")),
        }
    }
    Ok(tallies)
}

/// Bootstrap resamples of the test half behind [`PairRecord::agreement`].
const AGREEMENT_RESAMPLES: usize = 200;

/// The true measures of each learner trained on `train` on the labelled
/// `test` set, and for each pair of learners the share of
/// [`AGREEMENT_RESAMPLES`] bootstrap resamples of `test` (seeded by `seed`)
/// on which the pair is ordered as on `test` itself.
fn true_order(
    learners: &[(String, Arc<dyn Learner>)],
    train: &Dataset,
    test: &Dataset,
    variant: &ReverseTestingVariant,
    seed: u64,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let (scores, probas) = true_scores(learners, train, test, variant, seed)?;
    let l = learners.len();
    let priors = train.priors();
    let mut r = rng::stream(seed, 0xa9ee);
    let n = test.n_rows();
    let mut same = vec![0usize; l * (l - 1) / 2];
    for _ in 0..AGREEMENT_RESAMPLES {
        let rows: Vec<usize> = (0..n).map(|_| r.random_range(0..n)).collect();
        let sample = test.take(&rows);
        let s = probas
            .iter()
            .map(|p| {
                let mut q = crate::data::Proba::zeros(n, p.n_classes());
                for (j, &i) in rows.iter().enumerate() {
                    q.row_mut(j).copy_from_slice(p.row(i));
                }
                measure_value(
                    &variant.measure,
                    &sample,
                    &q,
                    variant.labelling,
                    &priors,
                    None,
                )
            })
            .collect::<Result<Vec<f64>>>()?;
        let mut k = 0;
        for a in 0..l {
            for b in a + 1..l {
                let sign = |x: f64, y: f64| x.partial_cmp(&y);
                same[k] += usize::from(sign(s[a], s[b]) == sign(scores[a], scores[b]));
                k += 1;
            }
        }
    }
    let agreement = same
        .iter()
        .map(|&c| c as f64 / AGREEMENT_RESAMPLES as f64)
        .collect();
    Ok((scores, agreement))
}

/// Each learner trained on `train` and measured on the labelled `test` set
/// as `variant` measures (oriented: higher is better), with its
/// probabilities on `test`.
fn true_scores(
    learners: &[(String, Arc<dyn Learner>)],
    train: &Dataset,
    test: &Dataset,
    variant: &ReverseTestingVariant,
    seed: u64,
) -> Result<(Vec<f64>, Vec<crate::data::Proba>)> {
    if test.class_names() != train.class_names() {
        return Err(Error::data(format!(
            "the target's classes ({}) differ from the training set's ({})",
            test.class_names().join(", "),
            train.class_names().join(", ")
        )));
    }
    let ls: Vec<Arc<dyn Learner>> = learners.iter().map(|(_, l)| Arc::clone(l)).collect();
    let models = fit_all(&ls, train, seed, 0)?;
    let priors = train.priors();
    let probas = models
        .iter()
        .map(|m| m.predict_proba(test))
        .collect::<Result<Vec<_>>>()?;
    let scores = probas
        .iter()
        .map(|p| measure_value(&variant.measure, test, p, variant.labelling, &priors, None))
        .collect::<Result<Vec<f64>>>()?;
    Ok((scores, probas))
}

/// The true pairwise order: each learner trained on `train` and measured on
/// the labelled `test` set (the target population with its labels) as
/// `variant` measures (its labelling applies to thresholded metrics). The
/// two sets must have the same classes.
pub fn true_ranking(
    learners: &[(String, Arc<dyn Learner>)],
    train: &Dataset,
    test: &Dataset,
    variant: &ReverseTestingVariant,
    seed: u64,
) -> Result<Ranking> {
    let (scores, _) = true_scores(learners, train, test, variant, seed)?;
    Ok(rank_by_scores(learners, &scores, learners.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::test_learners::{noisy_tree_and_tree, shifted, train_and_target};

    #[test]
    fn the_true_order_puts_the_better_learner_first() {
        let learners = noisy_tree_and_tree();
        let (train, test) = train_and_target(300, 0.3);
        let paper = ReverseTestingVariant::paper();
        let truth = true_ranking(&learners, &train, &test, &paper, 3).unwrap();
        assert_eq!(truth.order, vec![1, 0]);
        assert_eq!(truth.models_built, 2);
        let rows = vec![vec![0.1, 0.2], vec![0.9, 0.8]];
        let other = Dataset::from_rows(rows, vec![0, 1], vec!["no".into(), "yes".into()]).unwrap();
        let e = true_ranking(&learners, &train, &other, &paper, 3).unwrap_err();
        assert!(e.to_string().contains("target's classes (no, yes)"), "{e}");
    }

    #[test]
    fn every_method_is_tallied_per_dataset_and_in_total() {
        let datasets = vec![
            ("a".to_string(), shifted(60, 0.0, 1)),
            ("b".to_string(), shifted(60, 0.0, 2)),
        ];
        let cfg = BiasExperimentConfig {
            variants: vec![("paper".into(), ReverseTestingVariant::paper())],
            methods: Vec::new(),
            metric: "accuracy".into(),
            bias: Bias::HalveLargestClass,
            splits: 2,
            seed: 5,
        };
        let r = run(&datasets, &noisy_tree_and_tree(), &cfg).unwrap();
        let done: Vec<&str> = r.per_dataset.iter().map(|d| d.0.as_str()).collect();
        assert_eq!(done, ["a", "b"]);
        let names: Vec<&str> = r.methods.iter().map(|m| m.0.as_str()).collect();
        assert_eq!(
            names,
            ["ReverseTesting paper", "10-fold CV", "leave-one-out"]
        );
        assert!(r.skipped.is_empty(), "{:?}", r.skipped);
        for (m, total) in r.tallies.iter().enumerate() {
            let mut sum = Tally::default();
            for (_, t) in &r.per_dataset {
                sum.merge(&t[m]);
            }
            assert_eq!(&sum, total);
            // One pair, 2 datasets x 2 splits, unless the truth ties.
            assert!(total.correct + total.wrong + total.undecided <= 4);
        }
    }
}
