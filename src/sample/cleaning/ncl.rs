//! NCL, the neighbourhood cleaning rule (Laurikkala 2001, "Improving
//! identification of difficult small classes by balancing class
//! distribution"): ENN (Wilson's rule, `k` = 3) on the other classes, plus,
//! for every minority row that its `k` nearest neighbours misclassify, those
//! neighbours that belong to a class of at least half the minority's size.

use crate::data::Dataset;
use crate::error::Result;
use crate::neighbors::{knn, Exclude, Points};
use crate::params::{params, Bounds};
use crate::rng::Rng;

use super::enn::{enn_removed, EnnRule, ENN_K};
use super::{clean, survivors};
use crate::sample::space::std_flag;
use crate::sample::{spec, Sample, Sampler};

params! {
    /// Laurikkala's neighbourhood cleaning rule.
    #[derive(Debug, Clone, PartialEq)]
    pub struct NeighbourhoodCleaningRule {
        /// Neighbours of the editing and of each minority row (3 in the paper).
        pub k: usize = ENN_K => Bounds::at_least(1.0),
        /// Search neighbours on standardised features (flag: standardise).
        pub standardise: bool = false,
    }
}

impl Sampler for NeighbourhoodCleaningRule {
    fn resample(&self, data: &Dataset, _rng: &mut Rng) -> Result<Sample> {
        clean(self, data, "ncl", self.standardise, |set, cls| {
            let (m, counts) = (cls.minority, &cls.counts);
            let big_enough: Vec<bool> = counts
                .iter()
                .enumerate()
                .map(|(c, &n)| c != m && 2 * n >= counts[m])
                .collect();
            let mut removed = enn_removed(set, self.k, EnnRule::Mode, &cls.not_minority());
            let minority = cls.minority_rows();
            let q = set.pts.gather(minority);
            let nn = knn(
                Points::new(&q, minority.len(), set.pts.dim()).expect("shape"),
                set.pts,
                self.k,
                Exclude::Given(minority),
            );
            let mut votes = vec![0usize; set.n_classes];
            for qi in 0..minority.len() {
                votes.iter_mut().for_each(|v| *v = 0);
                for &j in nn.of(qi) {
                    votes[set.label(j)] += 1;
                }
                if votes.iter().any(|&v| v > votes[m]) {
                    for &j in nn.of(qi) {
                        if big_enough[set.label(j)] {
                            removed[j] = true;
                        }
                    }
                }
            }
            survivors(&removed)
        })
    }

    fn name(&self) -> String {
        spec(
            "ncl",
            &[format!("k={}", self.k), std_flag(self.standardise)],
        )
    }
}
