//! NCL, the neighbourhood cleaning rule (Laurikkala 2001, "Improving
//! identification of difficult small classes by balancing class
//! distribution"): ENN (Wilson's rule, `k` = 3) on the other classes, plus,
//! for every minority row that its `k` nearest neighbours misclassify, those
//! neighbours that belong to a class of at least half the minority's size.
//!
//! Three conventions are parameters, so that imbalanced-learn's
//! `NeighbourhoodCleaningRule` (0.14) is reachable exactly:
//! - `ties`: a tied vote (of the editing and of the misclassification test)
//!   keeps the row's own class (`keep`) or goes to the class whose label
//!   sorts first (`lowest`, SciPy's `mode`, which imbalanced-learn uses);
//! - `self_vote`: the misclassification test counts the minority row among
//!   its own `k` voters (its `k - 1` nearest other rows and itself), as
//!   imbalanced-learn's `KNeighborsClassifier.predict` on its training rows
//!   does; by default the `k` nearest other rows vote;
//! - `threshold`, `strict`: a class is cleaned when its size is at least
//!   `threshold` times the minority's (Laurikkala's "at least half"), or,
//!   with `strict`, above it (imbalanced-learn's `n > threshold_cleaning *
//!   n_min`).
//!
//! The neighbours removed for a misclassified minority row are its `k`
//! nearest other rows either way.

use crate::data::Dataset;
use crate::error::Result;
use crate::neighbors::{Exclude, Points};
use crate::params::{params, Bounds};
use crate::rng::Rng;

use super::enn::{enn_removed, rule_flag, ties_flag, EnnRule, Ties, Vote, ENN_K};
use super::{classes_flag, clean, survivors};
use crate::sample::space::std_flag;
use crate::sample::{spec, Sample, Sampler};

params! {
    /// Laurikkala's neighbourhood cleaning rule.
    #[derive(Debug, Clone, PartialEq)]
    pub struct NeighbourhoodCleaningRule {
        /// Neighbours of the editing and of each minority row (3 in the paper).
        pub k: usize = ENN_K => Bounds::at_least(1.0),
        /// The editing's neighbours (none: k).
        pub enn_k: Option<usize> = None => Bounds::at_least(1.0),
        /// The editing's rule: mode (Wilson's, Laurikkala's) or all.
        pub rule: EnnRule = EnnRule::Mode,
        /// A tied vote keeps the row's own class (keep) or goes to the class
        /// whose label sorts first (lowest, imbalanced-learn's).
        pub ties: Ties = Ties::Keep,
        /// The misclassification test counts the minority row itself among
        /// its k voters (imbalanced-learn's).
        pub self_vote: bool = false,
        /// Classes of at least this many times the minority's size are cleaned.
        pub threshold: f64 = 0.5 => Bounds::at_least(0.0),
        /// Clean only classes strictly above threshold times the minority's
        /// size (imbalanced-learn's).
        pub strict: bool = false,
        /// The class ids cleaned, e.g. classes=1:2 (none: every class but
        /// the minority; imbalanced-learn's sampling_strategy as a list).
        pub classes: Option<Vec<usize>> = None,
        /// Search neighbours on standardised features (flag: standardise).
        pub standardise: bool = false,
    }
}

impl Sampler for NeighbourhoodCleaningRule {
    fn resample(&self, data: &Dataset, _rng: &mut Rng) -> Result<Sample> {
        let mut vote = Vote::new(self.ties, data);
        clean(
            self,
            data,
            ("ncl", self.standardise, self.classes.as_deref()),
            |set, cls| {
                let (m, counts) = (cls.minority, &cls.counts);
                let floor = self.threshold * counts[m] as f64;
                let cleaned: Vec<bool> = counts
                    .iter()
                    .enumerate()
                    .map(|(c, &n)| {
                        c != m
                            && cls.cleaned[c]
                            && if self.strict {
                                n as f64 > floor
                            } else {
                                n as f64 >= floor
                            }
                    })
                    .collect();
                let mut removed = enn_removed(
                    set,
                    self.enn_k.unwrap_or(self.k),
                    self.rule,
                    &mut vote,
                    &cls.not_minority(),
                );
                let minority = cls.minority_rows();
                let q = set.pts.gather(minority);
                let nn = set.metric.knn(
                    Points::new(&q, minority.len(), set.pts.dim()).expect("shape"),
                    set.pts,
                    self.k,
                    Exclude::Given(minority),
                );
                for qi in 0..minority.len() {
                    let others = nn.of(qi);
                    let voters = if self.self_vote { self.k - 1 } else { self.k };
                    let own = std::iter::once(m).filter(|_| self.self_vote);
                    vote.count(own.chain(others.iter().take(voters).map(|&j| set.label(j))));
                    if vote.elected(m) != m {
                        for &j in others {
                            if cleaned[set.label(j)] {
                                removed[j] = true;
                            }
                        }
                    }
                }
                survivors(&removed)
            },
        )
    }

    fn name(&self) -> String {
        spec(
            "ncl",
            &[
                format!("k={}", self.k),
                self.enn_k.map(|k| format!("enn_k={k}")).unwrap_or_default(),
                rule_flag(self.rule),
                ties_flag(self.ties),
                if self.self_vote {
                    "self_vote=true".into()
                } else {
                    String::new()
                },
                if self.threshold == 0.5 {
                    String::new()
                } else {
                    format!("threshold={}", self.threshold)
                },
                if self.strict {
                    "strict=true".into()
                } else {
                    String::new()
                },
                classes_flag(&self.classes),
                std_flag(self.standardise),
            ],
        )
    }
}
