//! ENN, edited nearest neighbours (Wilson 1972, "Asymptotic properties of
//! nearest neighbor rules using edited data"): a row outside the minority is
//! removed when its `k` (3) nearest neighbours outvote its class
//! ([`EnnRule::Mode`], Wilson's rule: some other class has more votes than
//! its own) or, with [`EnnRule::All`], when any neighbour disagrees. The
//! neighbourhood cleaning rule and SMOTE + ENN edit the same way.

use crate::data::Dataset;
use crate::error::Result;
use crate::neighbors::{knn, Exclude};
use crate::params::{choice, params, Bounds, Params};
use crate::rng::Rng;

use super::{clean, survivors};
use crate::sample::space::{std_flag, Labelled};
use crate::sample::{spec, Sample, Sampler};

/// ENN's neighbours by default (3 in Wilson's and the later papers).
pub(super) const ENN_K: usize = 3;

choice! {
    /// How ENN decides that a row disagrees with its neighbours.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum EnnRule {
        /// Wilson's rule: removed when another class has more neighbours than its own.
        Mode = "mode",
        /// Removed when any neighbour is of another class (scikit-learn-contrib's default).
        All = "all",
    }
}

params! {
    /// Edited nearest neighbours on the classes other than the minority.
    #[derive(Debug, Clone, PartialEq)]
    pub struct EditedNearestNeighbours {
        /// Neighbours that vote on each row (3 in Wilson's and the later papers).
        pub k: usize = ENN_K => Bounds::at_least(1.0),
        /// mode: removed when another class outvotes the row's own; all:
        /// removed when any neighbour is of another class.
        pub rule: EnnRule = EnnRule::Mode,
        /// Search neighbours on standardised features (flag: standardise).
        pub standardise: bool = false,
    }
}

impl EditedNearestNeighbours {
    /// ENN with `k` neighbours and `rule`, on the features as they are.
    pub fn new(k: usize, rule: EnnRule) -> Result<Self> {
        let enn = EditedNearestNeighbours {
            k,
            rule,
            standardise: false,
        };
        enn.check()?;
        Ok(enn)
    }
}

/// Rows of the classes flagged in `target` that ENN removes.
///
/// One self-search of all rows (each pair of rows visited once) gives every
/// row its `k` neighbours; only the flagged classes' rows are then judged.
pub(super) fn enn_removed(
    set: Labelled<'_>,
    k: usize,
    rule: EnnRule,
    target: &[bool],
) -> Vec<bool> {
    let nn = knn(set.pts, set.pts, k, Exclude::SameIndex);
    let mut out = vec![false; set.pts.len()];
    if nn.is_empty() {
        return out;
    }
    let mut votes = vec![0usize; set.n_classes];
    for (i, slot) in out.iter_mut().enumerate() {
        if !target[set.label(i)] {
            continue;
        }
        votes.iter_mut().for_each(|v| *v = 0);
        for &j in nn.of(i) {
            votes[set.label(j)] += 1;
        }
        let own = votes[set.label(i)];
        *slot = match rule {
            EnnRule::Mode => votes.iter().any(|&v| v > own),
            EnnRule::All => own < nn.k(),
        };
    }
    out
}

/// `rule=all` as it appears in a sampler's name (empty for Wilson's rule).
pub(super) fn rule_flag(rule: EnnRule) -> String {
    match rule {
        EnnRule::Mode => String::new(),
        EnnRule::All => "rule=all".into(),
    }
}

impl Sampler for EditedNearestNeighbours {
    fn resample(&self, data: &Dataset, _rng: &mut Rng) -> Result<Sample> {
        clean(self, data, "enn", self.standardise, |set, cls| {
            survivors(&enn_removed(set, self.k, self.rule, &cls.not_minority()))
        })
    }

    fn name(&self) -> String {
        spec(
            "enn",
            &[
                format!("k={}", self.k),
                rule_flag(self.rule),
                std_flag(self.standardise),
            ],
        )
    }
}
