//! The result of ranking learners (Fan & Davidson 2006, Sec. 4): every pair
//! decided ([`Pair`], [`Outcome`]), learners ordered by wins minus losses
//! (undecided pairs count for neither), ties broken by the order the
//! learners were given; and the steps every ranking method shares: fitting
//! each learner on a dataset, and deciding pairs by per-learner scores.

use std::sync::Arc;

use rayon::prelude::*;
use serde::Serialize;

use crate::data::Dataset;
use crate::error::Result;
use crate::learn::Learner;
use crate::learn::Model;
use crate::rng;

/// Which learner a pair's outcome favours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Outcome {
    /// The first learner of the pair is better.
    First,
    /// The second learner of the pair is better.
    Second,
    /// Tied or undecided (Condition 4.3).
    Undecided,
}

/// One pairwise comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Pair {
    /// Index of learner `a`.
    pub a: usize,
    /// Index of learner `b`.
    pub b: usize,
    /// The decision.
    pub outcome: Outcome,
    /// ReverseTesting only: `[AccTrain_a^a, AccTrain_a^b, AccTrain_b^a,
    /// AccTrain_b^b]` (`x^s`: learner `x` trained on `T` labelled by `s`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acc_train: Option<[f64; 4]>,
    /// ReverseTesting only: which of `a`, `b` labelled the whole target set
    /// with one class (the models trained on that copy are constant).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub constant_copies: Vec<usize>,
}

/// The result of ranking learners.
#[derive(Debug, Clone, Serialize)]
pub struct Ranking {
    /// Learner names, in the order given.
    pub learners: Vec<String>,
    /// Learner indices, best first.
    pub order: Vec<usize>,
    /// Wins minus losses per learner.
    pub score: Vec<i64>,
    /// Every pair `a < b`.
    pub pairs: Vec<Pair>,
    /// Models built.
    pub models_built: usize,
    /// Labelled copies of `T` with a single class (their models are constant).
    pub single_class_copies: Vec<usize>,
}

impl Ranking {
    /// How this ranking disagrees with `truth`, the true order of the same
    /// learners (the population's labels): `None` when every decided pair of
    /// the truth is decided alike; else a sentence naming the best learner
    /// of each and the pairs the ranking gets wrong (issue 39: `select`
    /// ranked logistic first while its own `--truth` preferred the tree).
    ///
    /// ```
    /// use rarity::select::ranking::{Outcome, Pair, Ranking};
    /// let pair = |outcome| Pair { a: 0, b: 1, outcome, acc_train: None, constant_copies: vec![] };
    /// let ranking = |first: usize, outcome| Ranking {
    ///     learners: vec!["tree".into(), "logistic".into()], order: vec![first, 1 - first],
    ///     score: vec![0, 0], pairs: vec![pair(outcome)], models_built: 0, single_class_copies: vec![],
    /// };
    /// let found = ranking(1, Outcome::Second);
    /// let note = found.disagreement_with(&ranking(0, Outcome::First)).unwrap();
    /// assert!(note.contains("tree is best") && note.contains("1 of 1"), "{note}");
    /// assert!(found.disagreement_with(&ranking(1, Outcome::Second)).is_none());
    /// ```
    pub fn disagreement_with(&self, truth: &Ranking) -> Option<String> {
        let decided: Vec<(&Pair, &Pair)> = self
            .pairs
            .iter()
            .zip(&truth.pairs)
            .filter(|(_, t)| t.outcome != Outcome::Undecided)
            .collect();
        let wrong: Vec<String> = decided
            .iter()
            .filter(|(p, t)| p.outcome != t.outcome)
            .map(|(_, t)| {
                let (better, worse) = match t.outcome {
                    Outcome::First => (t.a, t.b),
                    _ => (t.b, t.a),
                };
                format!("{} over {}", self.learners[better], self.learners[worse])
            })
            .collect();
        if wrong.is_empty() {
            return None;
        }
        let (best, first) = (truth.order[0], self.order[0]);
        let top = if best == first {
            format!("both put {} first", self.learners[best])
        } else {
            format!(
                "by the true labels {} is best; the ranking put {} first",
                self.learners[best], self.learners[first]
            )
        };
        Some(format!(
            "the truth disagrees with the ranking: {top}; {} of {} pairs the truth decides go \
             the other way (the truth prefers {})",
            wrong.len(),
            decided.len(),
            wrong.join("; ")
        ))
    }
}

/// Every learner fitted on all rows of `data`, learner `i` with the random
/// stream `(seed, stream * 1000 + i)`, in parallel.
pub(crate) fn fit_all(
    learners: &[Arc<dyn Learner>],
    data: &Dataset,
    seed: u64,
    stream: u64,
) -> Result<Vec<Model>> {
    let rows: Vec<usize> = (0..data.n_rows()).collect();
    learners
        .par_iter()
        .enumerate()
        .map(|(i, l)| {
            l.fit(
                &data.view(&rows),
                &mut rng::stream(seed, stream * 1000 + i as u64),
            )
        })
        .collect()
}

/// Orders learners from pairwise outcomes (wins minus losses).
pub(crate) fn rank(
    names: Vec<String>,
    pairs: Vec<Pair>,
    models_built: usize,
    single: Vec<usize>,
) -> Ranking {
    let l = names.len();
    let mut score = vec![0i64; l];
    for p in &pairs {
        match p.outcome {
            Outcome::First => {
                score[p.a] += 1;
                score[p.b] -= 1;
            }
            Outcome::Second => {
                score[p.b] += 1;
                score[p.a] -= 1;
            }
            Outcome::Undecided => {}
        }
    }
    let mut order: Vec<usize> = (0..l).collect();
    order.sort_by(|&x, &y| score[y].cmp(&score[x]).then(x.cmp(&y)));
    Ranking {
        learners: names,
        order,
        score,
        pairs,
        models_built,
        single_class_copies: single,
    }
}

/// Ranks `learners` by one score each: every pair is decided by the higher
/// score (equal scores: undecided).
pub(crate) fn rank_by_scores(
    learners: &[(String, Arc<dyn Learner>)],
    scores: &[f64],
    models_built: usize,
) -> Ranking {
    let l = scores.len();
    let mut pairs = Vec::new();
    for a in 0..l {
        for b in a + 1..l {
            let outcome = if scores[a] > scores[b] {
                Outcome::First
            } else if scores[b] > scores[a] {
                Outcome::Second
            } else {
                Outcome::Undecided
            };
            pairs.push(Pair {
                a,
                b,
                outcome,
                acc_train: None,
                constant_copies: Vec::new(),
            });
        }
    }
    let names = learners.iter().map(|(n, _)| n.clone()).collect();
    rank(names, pairs, models_built, Vec::new())
}
