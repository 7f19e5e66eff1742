//! CNN, condensed nearest neighbour (Hart 1968, "The condensed nearest
//! neighbor rule"): the store starts with the minority and one random row
//! of the class being reduced; rows of that class are visited in random
//! order and added when the 1-NN rule on the store misclassifies them;
//! passes repeat until one adds nothing. Each class other than the minority
//! is condensed in turn.

use rand::RngExt;
use rayon::prelude::*;

use crate::data::Dataset;
use crate::error::Result;
use crate::params::params;
use crate::rng::{shuffle, Rng};

use super::{clean, nearest_in};
use crate::sample::space::{std_flag, Labelled};
use crate::sample::{spec, Sample, Sampler};

params! {
    /// Hart's condensed nearest neighbour, each non-minority class condensed.
    #[derive(Debug, Clone, PartialEq)]
    pub struct CondensedNearestNeighbour {
        /// Search neighbours on standardised features (flag: standardise).
        pub standardise: bool = false,
    }
}

/// Hart's condensing of the rows `cands` (one class) against a store that
/// holds `store` (the minority) plus one seed; returns the rows of the class kept.
fn condense(set: Labelled<'_>, store: &[usize], cands: &[usize], rng: &mut Rng) -> Vec<usize> {
    let c = set.label(cands[0]);
    let seed = cands[rng.random_range(0..cands.len())];
    let mut order: Vec<usize> = cands.iter().copied().filter(|&i| i != seed).collect();
    shuffle(&mut order, rng);
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
        if !added {
            break;
        }
    }
    kept.sort_unstable();
    kept
}

impl Sampler for CondensedNearestNeighbour {
    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        clean(self, data, "cnn", self.standardise, |set, cls| {
            let mut rows = cls.minority_rows().to_vec();
            for (_, pool) in cls.others() {
                rows.extend(condense(set, cls.minority_rows(), pool, rng));
            }
            rows.sort_unstable();
            rows
        })
    }

    fn name(&self) -> String {
        spec("cnn", &[std_flag(self.standardise)])
    }
}
