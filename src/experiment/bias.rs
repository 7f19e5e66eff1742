//! The bias experiment of Fan & Davidson (2006, Sec. 5): does a selection
//! method predict the true pairwise order of learners when the training
//! sample is biased?
//!
//! For each dataset and each of several random stratified 50/50 splits: bias
//! the training half (feature bias: sort by the first attribute and drop the
//! lowest 25%; class bias; or none), fit every learner on it, and take as the
//! true order of each pair the better measure on the unbiased test half.
//! Each method (ReverseTesting variants using the test half unlabelled,
//! 10-fold CV and leave-one-out on the biased training half) predicts every
//! pair; a prediction is correct, wrong or undecided. Pairs whose true
//! measures are exactly equal are not counted. The paper's summary: RvT 84%
//! correct, 10-fold CV 68%, LOO 40% over 50 comparisons.

use std::sync::Arc;

use rand::RngExt;
use serde::Serialize;

use crate::data::bias::{class_bias, feature_bias};
use crate::data::Dataset;
use crate::error::Result;
use crate::learn::Learner;
use crate::rng;
use crate::select::reverse_testing::{
    rank_by_comparator, reverse_testing_variants, true_ranking, Comparator, Outcome, Ranking,
    Variant,
};
use crate::select::split::Splitter;

/// How the training half is biased.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Bias {
    /// Sort by a feature and drop the lowest fraction (the paper: 0, 25%).
    Feature {
        /// The feature.
        attribute: usize,
        /// The fraction dropped.
        fraction: f64,
    },
    /// Keep each row of class `k` with probability `rates[k]`.
    Class(Vec<f64>),
    /// No bias.
    None,
}

/// A method that predicts the pairwise order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Method {
    /// ReverseTesting with a variant.
    ReverseTesting(Variant),
    /// A comparator on the biased training set, measured as the variant.
    Comparator(Comparator, Variant),
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

/// Biases the training rows of one split.
fn biased_rows(data: &Dataset, rows: &[usize], bias: &Bias, seed: u64) -> Result<Vec<usize>> {
    match bias {
        Bias::Feature {
            attribute,
            fraction,
        } => feature_bias(data, rows, *attribute, *fraction),
        Bias::Class(rates) => class_bias(data, rows, rates, &mut rng::stream(seed, 0xb1a5)),
        Bias::None => Ok(rows.to_vec()),
    }
}

/// Runs the experiment; returns one tally per method (in the order given)
/// and the (dataset, split) cells that were skipped, with the reason (e.g. a
/// biased training half with one class). The true order is measured as
/// `truth` measures (its labelling applies to thresholded metrics).
pub fn run(
    datasets: &[(String, Dataset)],
    learners: &[(String, Arc<dyn Learner>)],
    methods: &[Method],
    truth: &Variant,
    bias: &Bias,
    splits: usize,
    seed: u64,
) -> Result<(Vec<Tally>, Vec<String>)> {
    let mut tallies = vec![Tally::default(); methods.len()];
    let mut skipped = Vec::new();
    for (name, data) in datasets {
        for s in 0..splits {
            let split_seed: u64 = rng::stream(seed, s as u64).random();
            let holdout = Splitter::Holdout { test_fraction: 0.5 };
            let fold = match holdout.split_dataset(data, split_seed) {
                Ok(f) => f.into_iter().next().expect("a holdout split has one fold"),
                Err(e) => {
                    skipped.push(format!("{name}: {e}"));
                    break;
                }
            };
            let train = data.take(&biased_rows(data, &fold.train, bias, split_seed)?);
            let test = data.take(&fold.test);
            if let Err(e) = train.require_two_classes() {
                skipped.push(format!("{name} split {s}: {e}"));
                continue;
            }
            let cell = || -> Result<Vec<Ranking>> {
                let variants: Vec<Variant> = methods
                    .iter()
                    .filter_map(|m| match m {
                        Method::ReverseTesting(v) => Some(v.clone()),
                        Method::Comparator(..) => None,
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
                        Method::ReverseTesting(_) => {
                            rvt.next().expect("one ranking per ReverseTesting method")
                        }
                        Method::Comparator(c, v) => {
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
    }
    Ok((tallies, skipped))
}
