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
use crate::select::comparator::{rank_by_comparator, Comparator};
use crate::select::measure::measure_value;
use crate::select::ranking::{fit_all, rank_by_scores, Outcome, Ranking};
use crate::select::reverse_testing::reverse_testing_variants;
use crate::select::variant::{Measure, ReverseTestingVariant};
use crate::split::Splitter;

/// A method that predicts the pairwise order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum SelectionMethod {
    /// ReverseTesting with a variant.
    ReverseTesting(ReverseTestingVariant),
    /// A comparator on the biased training set, measured as the variant.
    Comparator(Comparator, ReverseTestingVariant),
}

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
    /// order given, then 10-fold CV and leave-one-out.
    pub methods: Vec<(String, SelectionMethod)>,
    /// One tally per method, over every dataset.
    pub tallies: Vec<Tally>,
    /// Each dataset's name and its tally per method.
    pub per_dataset: Vec<(String, Vec<Tally>)>,
    /// The (dataset, split) cells that were skipped, with the reason (e.g.
    /// a biased training half with one class).
    pub skipped: Vec<String>,
}

/// Runs the experiment on every dataset: the ReverseTesting variants of
/// `cfg`, 10-fold CV and leave-one-out predict the pairwise order of
/// `learners`; the true order is measured by `cfg.metric` on the unbiased
/// test half.
pub fn run(
    datasets: &[(String, Dataset)],
    learners: &[(String, Arc<dyn Learner>)],
    cfg: &BiasExperimentConfig,
) -> Result<BiasExperimentResults> {
    let truth = ReverseTestingVariant {
        measure: Measure::Metric(cfg.metric.clone()),
        ..ReverseTestingVariant::paper()
    };
    let mut methods: Vec<(String, SelectionMethod)> = cfg
        .variants
        .iter()
        .map(|(label, v)| {
            (
                format!("ReverseTesting {label}"),
                SelectionMethod::ReverseTesting(v.clone()),
            )
        })
        .collect();
    let cv = Comparator::CrossValidation {
        repeats: 1,
        folds: 10,
    };
    methods.push((
        "10-fold CV".into(),
        SelectionMethod::Comparator(cv, truth.clone()),
    ));
    methods.push((
        "leave-one-out".into(),
        SelectionMethod::Comparator(Comparator::LeaveOneOut, truth.clone()),
    ));
    let ms: Vec<SelectionMethod> = methods.iter().map(|m| m.1.clone()).collect();
    let mut tallies = vec![Tally::default(); ms.len()];
    let mut per_dataset = Vec::with_capacity(datasets.len());
    let mut skipped = Vec::new();
    for (name, data) in super::each_dataset(datasets) {
        let t = run_dataset(name, data, learners, &ms, &truth, cfg, &mut skipped)?;
        for (acc, x) in tallies.iter_mut().zip(&t) {
            acc.merge(x);
        }
        per_dataset.push((name.clone(), t));
    }
    Ok(BiasExperimentResults {
        methods,
        tallies,
        per_dataset,
        skipped,
    })
}

/// One dataset: one tally per method; the (dataset, split) cells that
/// cannot be run are added to `skipped` with the reason.
fn run_dataset(
    name: &str,
    data: &Dataset,
    learners: &[(String, Arc<dyn Learner>)],
    methods: &[SelectionMethod],
    truth: &ReverseTestingVariant,
    cfg: &BiasExperimentConfig,
    skipped: &mut Vec<String>,
) -> Result<Vec<Tally>> {
    let mut tallies = vec![Tally::default(); methods.len()];
    for s in 0..cfg.splits {
        let split_seed: u64 = rng::stream(cfg.seed, s as u64).random();
        let holdout = Splitter::Holdout { test_fraction: 0.5 };
        let fold = match holdout.split_dataset(data, split_seed) {
            Ok(f) => f.into_iter().next().expect("a holdout split has one fold"),
            Err(e) => {
                skipped.push(format!("{name}: {e}"));
                break;
            }
        };
        let train = data.take(&cfg.bias.apply(data, &fold.train, split_seed)?);
        let test = data.take(&fold.test);
        if let Err(e) = train.require_two_classes() {
            skipped.push(format!("{name} split {s}: {e}"));
            continue;
        }
        let cell = || -> Result<Vec<Ranking>> {
            let variants: Vec<ReverseTestingVariant> = methods
                .iter()
                .filter_map(|m| match m {
                    SelectionMethod::ReverseTesting(v) => Some(v.clone()),
                    SelectionMethod::Comparator(..) => None,
                })
                .collect();
            let mut rvt = if variants.is_empty() {
                Vec::new()
            } else {
                reverse_testing_variants(learners, &train, &test, &variants, split_seed)?
            }
            .into_iter();
            let mut out = Vec::with_capacity(methods.len() + 1);
            out.push(true_ranking(learners, &train, &test, truth, split_seed)?);
            for m in methods {
                out.push(match m {
                    SelectionMethod::ReverseTesting(_) => {
                        rvt.next().expect("one ranking per ReverseTesting method")
                    }
                    SelectionMethod::Comparator(c, v) => {
                        rank_by_comparator(learners, &train, *c, v, split_seed)?
                    }
                });
            }
            Ok(out)
        };
        match cell() {
            Ok(r) => {
                for (t, pred) in tallies.iter_mut().zip(&r[1..]) {
                    t.add(&r[0], pred);
                }
            }
            Err(e) => skipped.push(format!("{name} split {s}: {e}")),
        }
    }
    Ok(tallies)
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
    let scores = models
        .iter()
        .map(|m| {
            measure_value(
                &variant.measure,
                test,
                &m.predict_proba(test)?,
                variant.labelling,
                &priors,
            )
        })
        .collect::<Result<Vec<f64>>>()?;
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
