//! The level a synthetic row takes at a categorical feature: SMOTE-NC's
//! majority vote (Chawla, Bowyer, Hall & Kegelmeyer 2002, section 6.1:
//! "take majority vote between the feature vector under consideration and
//! its k nearest neighbors for the nominal attribute value"). The voters are
//! the seed row and its `k` nearest rows of its class (searched with the
//! mixed distance of [`crate::neighbors::Metric::Mixed`]); a tie, which the
//! paper breaks at random, goes to the seed row's level when it is among
//! the most frequent, else to the lowest code, so the same seed gives the
//! same row. Without the seed's vote (`seed_vote=false`, imbalanced-learn's
//! `SMOTENC` and `SMOTEN`), the `k` neighbours vote alone and a tie goes to
//! the lowest code. A missing level (NaN) does not vote; a row whose voters are
//! all missing stays missing. Every row made from one seed takes the same
//! levels: the vote depends on the seed alone, never on the interpolation.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::data::Dataset;
use crate::neighbors::Neighbours;

/// Appends the levels of the synthetic rows at the categorical features
/// `categorical` (row-major, one per feature): `per_row[i]` rows from the
/// seed `bases[i]`, whose neighbours `nn.of(i)` are positions in `pool`
/// (the seed votes too when `seed_votes`).
pub(crate) fn vote_levels(
    data: &Dataset,
    (categorical, seed_votes): (&[usize], bool),
    (bases, pool, nn): (&[usize], &[usize], &Neighbours),
    per_row: &[usize],
    out: &mut Vec<f64>,
) {
    if categorical.is_empty() {
        return;
    }
    let votes: Vec<Vec<f64>> = (0..bases.len())
        .into_par_iter()
        .map(|i| {
            if per_row[i] == 0 {
                return Vec::new();
            }
            let seed = data.row(bases[i]);
            let near = nn.of(i);
            categorical
                .iter()
                .map(|&j| {
                    let others = near.iter().map(|&p| data.value(pool[p], j));
                    majority(seed_votes.then_some(seed[j]), others)
                })
                .collect()
        })
        .collect();
    for (v, &n) in votes.iter().zip(per_row) {
        for _ in 0..n {
            out.extend_from_slice(v);
        }
    }
}

/// See [`crate::sample::Sample::level_rows`].
pub(crate) fn level_rows(data: &Dataset, levels: &[f64]) -> Option<Vec<usize>> {
    let categorical = data.categorical_features();
    let nc = categorical.len();
    if nc == 0 {
        return levels.is_empty().then(Vec::new);
    }
    // Per categorical feature: the first row of each code, and of NaN.
    let firsts: Vec<(HashMap<u64, usize>, Option<usize>)> = categorical
        .iter()
        .map(|&j| {
            let (mut first, mut missing) = (HashMap::new(), None);
            for i in (0..data.n_rows()).rev() {
                match data.value(i, j) {
                    v if v.is_nan() => missing = Some(i),
                    v => {
                        first.insert(v.to_bits(), i);
                    }
                }
            }
            (first, missing)
        })
        .collect();
    levels
        .iter()
        .enumerate()
        .map(|(t, v)| {
            let (first, missing) = &firsts[t % nc];
            if v.is_nan() {
                *missing
            } else {
                first.get(&v.to_bits()).copied()
            }
        })
        .collect()
}

/// The most frequent level among `seed` and `others` (NaN does not vote);
/// a tie goes to `seed` when it is among the most frequent, else to the
/// lowest code; NaN when no voter has a level.
fn majority(seed: Option<f64>, others: impl Iterator<Item = f64>) -> f64 {
    let mut voters: Vec<f64> = seed
        .into_iter()
        .chain(others)
        .filter(|v| !v.is_nan())
        .collect();
    voters.sort_by(f64::total_cmp);
    let mut best = (0, f64::NAN);
    let mut seed_count = 0;
    for run in voters.chunk_by(|a, b| a == b) {
        if Some(run[0]) == seed {
            seed_count = run.len();
        }
        if run.len() > best.0 {
            best = (run.len(), run[0]);
        }
    }
    match seed {
        Some(seed) if seed_count > 0 && seed_count == best.0 => seed,
        _ => best.1,
    }
}

#[cfg(test)]
mod tests {
    use super::majority;

    #[test]
    fn the_most_frequent_level_with_ties_to_the_seed_then_the_lowest_code() {
        let nan = f64::NAN;
        assert_eq!(majority(Some(0.0), [2.0, 2.0, 1.0].into_iter()), 2.0);
        // 0 (the seed) and 2 tie at two votes each: the seed's level.
        assert_eq!(majority(Some(0.0), [2.0, 0.0, 2.0, 1.0].into_iter()), 0.0);
        // 1 and 2 tie, the seed has one vote: the lowest code.
        assert_eq!(majority(Some(3.0), [2.0, 1.0, 2.0, 1.0].into_iter()), 1.0);
        // Missing values do not vote; all missing stays missing.
        assert_eq!(majority(Some(nan), [nan, 4.0].into_iter()), 4.0);
        assert!(majority(Some(nan), [nan, nan].into_iter()).is_nan());
        // Without the seed: the neighbours alone, a tie to the lowest code.
        assert_eq!(majority(None, [2.0, 1.0, 2.0, 1.0].into_iter()), 1.0);
        assert_eq!(majority(None, [2.0, 1.0, 2.0].into_iter()), 2.0);
    }
}
