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
    let priors = train.priors();
    let l = learners.len();
    let mut scores = vec![0.0; l];
    let mut models_built = 0;
    let progress = Progress::start("models fitted", 0);
    for (x, (_, learner)) in learners.iter().enumerate() {
        scores[x] = match comparator {
            Comparator::Training => {
                models_built += 1;
                let rows: Vec<usize> = (0..train.n_rows()).collect();
                let m = learner.fit(&train.view(&rows), &mut rng::stream(seed, x as u64))?;
                progress.set_total(l as u64);
                progress.add(1);
                measure_value(
                    &variant.measure,
                    train,
                    &m.predict_proba(train)?,
                    variant.labelling,
                    &priors,
                )?
            }
            Comparator::CrossValidation { .. } | Comparator::LeaveOneOut => {
                // A class with fewer rows than folds caps the folds (at least 2).
                let splitter = match comparator {
                    Comparator::CrossValidation { repeats, folds } => Splitter::Stratified {
                        repeats,
                        folds: folds.min(smallest_class(train)).max(2),
                    },
                    _ => Splitter::LeaveOneOut,
                };
                let folds = splitter.split_dataset(train, seed)?;
                models_built += folds.len();
                progress.set_total((l * folds.len()) as u64);
                // Pool the out-of-fold probabilities of each repeat, then
                // measure once per repeat (LOO has a single pooled repeat).
                let repeats = folds.iter().map(|f| f.repeat).max().map_or(1, |r| r + 1);
                let mut pooled = vec![Proba::zeros(train.n_rows(), train.n_classes()); repeats];
                let parts: Vec<(usize, Vec<usize>, Proba)> = folds
                    .par_iter()
                    .enumerate()
                    .map(|(f, fold)| {
                        let m = learner.fit(
                            &train.view(&fold.train),
                            &mut rng::stream(seed, (x * 100_000 + f) as u64),
                        )?;
                        progress.add(1);
                        Ok((
                            fold.repeat,
                            fold.test.clone(),
                            m.predict_proba(&train.take(&fold.test))?,
                        ))
                    })
                    .collect::<Result<_>>()?;
                for (r, rows, p) in parts {
                    for (j, &i) in rows.iter().enumerate() {
                        pooled[r].row_mut(i).copy_from_slice(p.row(j));
                    }
                }
                let mut total = 0.0;
                for p in &pooled {
                    total += measure_value(&variant.measure, train, p, variant.labelling, &priors)?;
                }
                total / repeats as f64
            }
        };
    }
    Ok(rank_by_scores(learners, &scores, models_built))
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
