//! AllKNN (Tomek 1976, "An experiment with the edited nearest-neighbor
//! rule"): ENN with 1, 2, ..., `k` neighbours in turn, each round editing
//! what the previous one kept. Each round judges the classes cleaned (by
//! default every class but the smallest of the rows left); the rounds stop
//! early when a class other than the minority falls below the minority's
//! size (unless `allow_minority`) or a class loses every row, as
//! imbalanced-learn's `AllKNN` (0.14) stops.

use crate::data::Dataset;
use crate::error::Result;
use crate::params::{params, Bounds};
use crate::rng::Rng;

use super::enn::{editing_stops, enn_round, rule_flag, ties_flag, EnnRule, Ties, Vote, ENN_K};
use super::{classes_flag, clean};
use crate::sample::space::std_flag;
use crate::sample::{spec, Sample, Sampler};

params! {
    /// AllKNN: ENN repeated with 1 to k neighbours.
    #[derive(Debug, Clone, PartialEq)]
    pub struct AllKnn {
        /// The largest neighbourhood of the rounds (1, 2, ..., k).
        pub k: usize = ENN_K => Bounds::at_least(1.0),
        /// mode: removed when another class outvotes the row's own; all:
        /// removed when any neighbour is of another class.
        pub rule: EnnRule = EnnRule::Mode,
        /// mode: a tie keeps the row (keep) or goes to the class whose label
        /// sorts first (lowest, imbalanced-learn's).
        pub ties: Ties = Ties::Keep,
        /// Go on when a class other than the minority falls below the
        /// minority's size.
        pub allow_minority: bool = false,
        /// The class ids cleaned, e.g. classes=1:2 (none: every class but
        /// the smallest; imbalanced-learn's sampling_strategy as a list).
        pub classes: Option<Vec<usize>> = None,
        /// Search neighbours on standardised features (flag: standardise).
        pub standardise: bool = false,
    }
}

impl Sampler for AllKnn {
    fn resample(&self, data: &Dataset, _rng: &mut Rng) -> Result<Sample> {
        let mut vote = Vote::new(self.ties, data);
        let given = self.classes.as_deref();
        clean(
            self,
            data,
            ("allknn", self.standardise, given),
            |set, cls| {
                let target = given.map(|_| cls.not_minority());
                let mut kept: Vec<usize> = (0..set.pts.len()).collect();
                for k in 1..=self.k {
                    kept = enn_round(set, &kept, (k, self.rule), &mut vote, target.as_deref());
                    if editing_stops(set, cls, &kept, self.allow_minority) {
                        break;
                    }
                }
                kept
            },
        )
    }

    fn name(&self) -> String {
        spec(
            "allknn",
            &[
                format!("k={}", self.k),
                rule_flag(self.rule),
                ties_flag(self.ties),
                if self.allow_minority {
                    "allow_minority=true".into()
                } else {
                    String::new()
                },
                classes_flag(&self.classes),
                std_flag(self.standardise),
            ],
        )
    }
}
