//! Repeated ENN (Tomek 1976, "An experiment with the edited nearest-neighbor
//! rule"): ENN with `k` neighbours applied again to what it kept, until a
//! round removes nothing, `max_iter` rounds ran, a class other than the
//! minority falls below the minority's size or a class loses every row
//! (imbalanced-learn's `RepeatedEditedNearestNeighbours`, 0.14, stops so).
//! Each round judges the classes cleaned (by default every class but the
//! smallest of the rows left). The rounds run are the sample's fact
//! `n_iter`.

use crate::data::Dataset;
use crate::error::Result;
use crate::params::{params, Bounds};
use crate::rng::Rng;

use super::enn::{editing_stops, enn_round, rule_flag, ties_flag, EnnRule, Ties, Vote, ENN_K};
use super::{classes_flag, clean};
use crate::sample::space::std_flag;
use crate::sample::{spec, Sample, Sampler};

params! {
    /// Repeated edited nearest neighbours.
    #[derive(Debug, Clone, PartialEq)]
    pub struct RepeatedEnn {
        /// Neighbours that vote on each row.
        pub k: usize = ENN_K => Bounds::at_least(1.0),
        /// The most rounds of ENN.
        pub max_iter: usize = 100 => Bounds::at_least(1.0),
        /// mode: removed when another class outvotes the row's own; all:
        /// removed when any neighbour is of another class.
        pub rule: EnnRule = EnnRule::Mode,
        /// mode: a tie keeps the row (keep) or goes to the class whose label
        /// sorts first (lowest, imbalanced-learn's).
        pub ties: Ties = Ties::Keep,
        /// The class ids cleaned, e.g. classes=1:2 (none: every class but
        /// the smallest; imbalanced-learn's sampling_strategy as a list).
        pub classes: Option<Vec<usize>> = None,
        /// Search neighbours on standardised features (flag: standardise).
        pub standardise: bool = false,
    }
}

impl Sampler for RepeatedEnn {
    fn resample(&self, data: &Dataset, _rng: &mut Rng) -> Result<Sample> {
        let mut vote = Vote::new(self.ties, data);
        let given = self.classes.as_deref();
        let mut rounds = 0;
        let mut s = clean(self, data, ("renn", self.standardise, given), |set, cls| {
            let target = given.map(|_| cls.not_minority());
            let mut kept: Vec<usize> = (0..set.pts.len()).collect();
            while rounds < self.max_iter {
                rounds += 1;
                let before = kept.len();
                kept = enn_round(
                    set,
                    &kept,
                    (self.k, self.rule),
                    &mut vote,
                    target.as_deref(),
                );
                if kept.len() == before || editing_stops(set, cls, &kept, false) {
                    break;
                }
            }
            kept
        })?;
        s.facts.push(("n_iter".into(), vec![rounds as f64]));
        Ok(s)
    }

    fn name(&self) -> String {
        spec(
            "renn",
            &[
                format!("k={}", self.k),
                format!("max_iter={}", self.max_iter),
                rule_flag(self.rule),
                ties_flag(self.ties),
                classes_flag(&self.classes),
                std_flag(self.standardise),
            ],
        )
    }
}
