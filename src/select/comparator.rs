//! The comparators ReverseTesting is measured against (Fan & Davidson 2006,
//! Sec. 5: 10-fold cross-validation and leave-one-out), plus training-set
//! accuracy. Each scores every learner on the labelled training set `D`
//! alone, measured as a ReverseTesting variant measures; a pair is decided
//! by the higher score (equal scores: undecided).

use std::sync::Arc;

use rayon::prelude::*;
use serde::Serialize;

use crate::data::{Dataset, Proba};
use crate::error::Result;
use crate::learn::Learner;
use crate::progress::Progress;
use crate::rng;
use crate::split::{smallest_class, Splitter};

use super::measure::measure_value;
use super::ranking::{rank_by_scores, Ranking};
use super::variant::ReverseTestingVariant;

/// A comparator that scores each learner on `D` alone. Cross-validation uses
/// at most as many folds as the smallest class has rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Comparator {
    /// Repeated stratified k-fold cross-validation.
    CrossValidation {
        /// Repeats.
        repeats: usize,
        /// Folds.
        folds: usize,
    },
    /// Leave-one-out.
    LeaveOneOut,
    /// Accuracy on the training set itself.
    Training,
}

impl Comparator {
    /// The comparator `rarity select --method` names: `cv` (10-fold
    /// cross-validation, the paper's), `loo` or `train`.
    ///
    /// ```
    /// use rarity::select::comparator::Comparator;
    /// assert_eq!(Comparator::named("loo").unwrap(), Comparator::LeaveOneOut);
    /// assert!(Comparator::named("holdout").is_err());
    /// ```
    pub fn named(name: &str) -> Result<Comparator> {
        match name {
            "cv" => Ok(Comparator::CrossValidation {
                repeats: 1,
                folds: 10,
            }),
            "loo" => Ok(Comparator::LeaveOneOut),
            "train" => Ok(Comparator::Training),
            _ => Err(crate::error::Error::invalid(format!(
                "unknown comparator '{name}'; accepted: cv, loo, train"
            ))),
        }
    }
}

/// Every learner's out-of-fold probabilities on the training set `D`, and
/// optionally its fold models' mean probabilities on a target set `T`:
/// what cross-validation, importance-weighted cross-validation
/// ([`super::iwcv`]) and prior-corrected cross-validation
/// ([`super::prior_cv`]) measure.
#[derive(Debug, Clone)]
pub struct OutOfFold {
    /// `on_train[x][r]`: learner `x`'s pooled out-of-fold probabilities on
    /// every row of `D` in repeat `r`.
    pub on_train: Vec<Vec<Proba>>,
    /// `on_target[x]`: the mean of learner `x`'s fold models' probabilities
    /// on every row of `T` (empty when no target was given).
    pub on_target: Vec<Proba>,
    /// Models fitted.
    pub models_built: usize,
}

/// The folds of a comparator on `train`: stratified k-fold with at most as
/// many folds as the smallest class has rows (at least 2), or leave-one-out.
pub(crate) fn splitter_for(comparator: Comparator, train: &Dataset) -> Splitter {
    match comparator {
        Comparator::CrossValidation { repeats, folds } => Splitter::Stratified {
            repeats,
            folds: folds.min(smallest_class(train)).max(2),
        },
        _ => Splitter::LeaveOneOut,
    }
}

/// Fits every learner on the training part of every fold of `splitter` and
/// pools its out-of-fold probabilities per repeat (learner `x`, fold `f`
/// fitted with the random stream `(seed, x * 100000 + f)`); with a
/// `target`, each fold model also predicts it and the predictions are
/// averaged per learner.
pub fn out_of_fold(
    learners: &[(String, Arc<dyn Learner>)],
    train: &Dataset,
    splitter: Splitter,
    target: Option<&Dataset>,
    seed: u64,
) -> Result<OutOfFold> {
    let folds = splitter.split_dataset(train, seed)?;
    let repeats = folds.iter().map(|f| f.repeat).max().map_or(1, |r| r + 1);
    let mut on_train = Vec::with_capacity(learners.len());
    let mut on_target = Vec::new();
    let progress = Progress::start("models fitted", (learners.len() * folds.len()) as u64);
    for (x, (_, learner)) in learners.iter().enumerate() {
        let parts: Vec<(usize, Vec<usize>, Proba, Option<Proba>)> = folds
            .par_iter()
            .enumerate()
            .map(|(f, fold)| {
                let m = learner.fit(
                    &train.view(&fold.train),
                    &mut rng::stream(seed, (x * 100_000 + f) as u64),
                )?;
                progress.add(1);
                let on_t = target.map(|t| m.predict_proba(t)).transpose()?;
                Ok((
                    fold.repeat,
                    fold.test.clone(),
                    m.predict_proba(&train.take(&fold.test))?,
                    on_t,
                ))
            })
            .collect::<Result<_>>()?;
        let mut pooled = vec![Proba::zeros(train.n_rows(), train.n_classes()); repeats];
        let mut mean_t = target.map(|t| Proba::zeros(t.n_rows(), train.n_classes()));
        for (r, rows, p, on_t) in parts {
            for (j, &i) in rows.iter().enumerate() {
                pooled[r].row_mut(i).copy_from_slice(p.row(j));
            }
            if let (Some(acc), Some(q)) = (mean_t.as_mut(), on_t) {
                let n = folds.len() as f64;
                acc.values_mut()
                    .iter_mut()
                    .zip(q.values())
                    .for_each(|(a, v)| *a += v / n);
            }
        }
        on_train.push(pooled);
        on_target.extend(mean_t);
    }
    Ok(OutOfFold {
        on_train,
        on_target,
        models_built: folds.len() * learners.len(),
    })
}

/// Each learner's measure of its out-of-fold probabilities (mean over
/// repeats), every training row weighted by `weights` when given.
pub(crate) fn scores_of(
    oof: &OutOfFold,
    train: &Dataset,
    variant: &ReverseTestingVariant,
    weights: Option<&[f64]>,
) -> Result<Vec<f64>> {
    let priors = train.priors();
    oof.on_train
        .iter()
        .map(|repeats| {
            let mut total = 0.0;
            for p in repeats {
                total += measure_value(
                    &variant.measure,
                    train,
                    p,
                    variant.labelling,
                    &priors,
                    weights,
                )?;
            }
            Ok(total / repeats.len() as f64)
        })
        .collect()
}

/// Ranks learners by a comparator's score on `train`, measured as `variant`
/// measures (the labelling only matters for thresholded metrics).
pub fn rank_by_comparator(
    learners: &[(String, Arc<dyn Learner>)],
    train: &Dataset,
    comparator: Comparator,
    variant: &ReverseTestingVariant,
    seed: u64,
) -> Result<Ranking> {
    train.require_two_classes()?;
    match comparator {
        Comparator::Training => {
            let priors = train.priors();
            let rows: Vec<usize> = (0..train.n_rows()).collect();
            let progress = Progress::start("models fitted", learners.len() as u64);
            let scores = learners
                .iter()
                .enumerate()
                .map(|(x, (_, learner))| {
                    let m = learner.fit(&train.view(&rows), &mut rng::stream(seed, x as u64))?;
                    progress.add(1);
                    measure_value(
                        &variant.measure,
                        train,
                        &m.predict_proba(train)?,
                        variant.labelling,
                        &priors,
                        None,
                    )
                })
                .collect::<Result<Vec<f64>>>()?;
            Ok(rank_by_scores(learners, &scores, learners.len()))
        }
        Comparator::CrossValidation { .. } | Comparator::LeaveOneOut => {
            let splitter = splitter_for(comparator, train);
            let oof = out_of_fold(learners, train, splitter, None, seed)?;
            let scores = scores_of(&oof, train, variant, None)?;
            Ok(rank_by_scores(learners, &scores, oof.models_built))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::test_learners::{noisy_tree_and_tree, train_and_target};

    #[test]
    fn cross_validation_ranks_the_better_learner_first() {
        let (train, _) = train_and_target(300, 0.3);
        let cv = Comparator::CrossValidation {
            repeats: 1,
            folds: 5,
        };
        let paper = ReverseTestingVariant::paper();
        let r = rank_by_comparator(&noisy_tree_and_tree(), &train, cv, &paper, 3).unwrap();
        assert_eq!(r.order, vec![1, 0]);
    }
}
