//! CNN, condensed nearest neighbour (Hart 1968, "The condensed nearest
//! neighbor rule"): the store starts with the minority and one random row
//! of the class being reduced; rows of that class are visited in random
//! order and added when the 1-NN rule on the store misclassifies them;
//! passes repeat until one adds nothing. Each class other than the minority
//! is condensed in turn.
//!
//! With `once`, the class's rows are visited once, in input order, after
//! the random seed row: imbalanced-learn's `CondensedNearestNeighbour`
//! (0.14), whose store is therefore not always consistent (a row visited
//! early may be misclassified by rows added after it).

use rand::RngExt;
use rayon::prelude::*;

use crate::data::Dataset;
use crate::error::Result;
use crate::params::params;
use crate::rng::{shuffle, Rng};

use super::{classes_flag, clean, nearest_in};
use crate::sample::space::{std_flag, Labelled};
use crate::sample::{spec, Sample, Sampler};

params! {
    /// Hart's condensed nearest neighbour, each non-minority class condensed.
    #[derive(Debug, Clone, PartialEq)]
    pub struct CondensedNearestNeighbour {
        /// The class ids cleaned, e.g. classes=1:2 (none: every class but
        /// the minority; imbalanced-learn's sampling_strategy as a list).
        pub classes: Option<Vec<usize>> = None,
        /// One pass in input order (imbalanced-learn's) instead of Hart's
        /// passes in random order until one adds nothing.
        pub once: bool = false,
        /// Search neighbours on standardised features (flag: standardise).
        pub standardise: bool = false,
    }
}

/// Hart's condensing of the rows `cands` (one class) against a store that
/// holds `store` (the minority) plus one seed; returns the rows of the class kept.
/// With `once`, the rows are visited once in input order.
fn condense(
    set: Labelled<'_>,
    store: &[usize],
    cands: &[usize],
    once: bool,
    rng: &mut Rng,
) -> Vec<usize> {
    let c = set.label(cands[0]);
    let seed = cands[rng.random_range(0..cands.len())];
    let mut order: Vec<usize> = cands.iter().copied().filter(|&i| i != seed).collect();
    if !once {
        shuffle(&mut order, rng);
    }
    let mut store: Vec<usize> = store.to_vec();
    store.push(seed);
    // Nearest store row (squared distance, row) of every candidate, kept up to date.
    let nn = nearest_in(set, &order, &store);
    let mut near: Vec<(f64, usize)> = (0..order.len())
        .map(|i| (nn.dist2_of(i)[0], store[nn.of(i)[0]]))
        .collect();
    let mut inside = vec![false; order.len()];
    let mut kept = vec![seed];
    loop {
        let mut added = false;
        for p in 0..order.len() {
            if inside[p] || set.label(near[p].1) == c {
                continue;
            }
            inside[p] = true;
            added = true;
            let new = order[p];
            kept.push(new);
            let nx = set.pts.row(new);
            near.par_iter_mut().enumerate().for_each(|(q, slot)| {
                let dq = set.metric.dist2(set.pts.row(order[q]), nx);
                if dq < slot.0 {
                    *slot = (dq, new);
                }
            });
        }
        if !added || once {
            break;
        }
    }
    kept.sort_unstable();
    kept
}

impl Sampler for CondensedNearestNeighbour {
    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        clean(
            self,
            data,
            ("cnn", self.standardise, self.classes.as_deref()),
            |set, cls| {
                let mut rows = cls.minority_rows().to_vec();
                rows.extend(cls.kept_whole());
                for (_, pool) in cls.others() {
                    rows.extend(condense(set, cls.minority_rows(), pool, self.once, rng));
                }
                rows.sort_unstable();
                rows
            },
        )
    }

    fn name(&self) -> String {
        spec(
            "cnn",
            &[
                classes_flag(&self.classes),
                if self.once {
                    "once=true".into()
                } else {
                    String::new()
                },
                std_flag(self.standardise),
            ],
        )
    }
}
