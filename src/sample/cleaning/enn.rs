//! ENN, edited nearest neighbours (Wilson 1972, "Asymptotic properties of
//! nearest neighbor rules using edited data"): a row outside the minority is
//! removed when its `k` (3) nearest neighbours outvote its class
//! ([`EnnRule::Mode`], Wilson's rule: some other class has more votes than
//! its own) or, with [`EnnRule::All`], when any neighbour disagrees. The
//! neighbourhood cleaning rule and SMOTE + ENN edit the same way.
//!
//! A tied vote keeps the row ([`Ties::Keep`], Wilson's "outvoted") or goes
//! to the class whose label sorts first ([`Ties::Lowest`]): imbalanced-learn
//! takes the mode of the neighbours' labels with SciPy's `mode`, which
//! returns the smallest of the most frequent labels, and removes the row
//! unless that is its own.

use crate::data::read::label_order;
use crate::data::Dataset;
use crate::error::Result;
use crate::neighbors::Exclude;
use crate::params::{choice, params, Bounds, Params};
use crate::rng::Rng;

use super::{classes_flag, clean, survivors};
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

choice! {
    /// Where a tied vote of neighbours goes.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Ties {
        /// To the row's own class when it is among the tied (Wilson: a row
        /// is removed only when outvoted).
        Keep = "keep",
        /// To the tied class whose label sorts first (numerically when every
        /// label is a number): SciPy's `mode`, as imbalanced-learn votes.
        Lowest = "lowest",
    }
}

/// A vote of neighbours: counts per class, then the elected class.
pub(super) struct Vote {
    ties: Ties,
    /// Each class's position in sorted label order.
    rank: Vec<usize>,
    counts: Vec<usize>,
}

impl Vote {
    /// A vote over the classes of `data`.
    pub(super) fn new(ties: Ties, data: &Dataset) -> Vote {
        Vote {
            ties,
            rank: label_order(data.class_names()),
            counts: vec![0; data.n_classes()],
        }
    }

    /// Counts the classes of `voters` (class ids).
    pub(super) fn count(&mut self, voters: impl Iterator<Item = usize>) -> &[usize] {
        self.counts.iter_mut().for_each(|v| *v = 0);
        for c in voters {
            self.counts[c] += 1;
        }
        &self.counts
    }

    /// The class the last count elects for a row of class `own`: the most
    /// votes, a tie settled by the rule.
    pub(super) fn elected(&self, own: usize) -> usize {
        let top = self.counts.iter().copied().max().unwrap_or(0);
        let tied = (0..self.counts.len()).filter(|&c| self.counts[c] == top);
        match self.ties {
            Ties::Keep if self.counts[own] == top => own,
            _ => tied
                .min_by_key(|&c| self.rank[c])
                .expect("at least one class"),
        }
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
        /// mode: a tie keeps the row (keep) or goes to the class whose label
        /// sorts first (lowest, imbalanced-learn's).
        pub ties: Ties = Ties::Keep,
        /// The class ids cleaned, e.g. classes=1:2 (none: every class but
        /// the minority; imbalanced-learn's sampling_strategy as a list).
        pub classes: Option<Vec<usize>> = None,
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
            ties: Ties::Keep,
            classes: None,
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
    vote: &mut Vote,
    target: &[bool],
) -> Vec<bool> {
    let nn = set.metric.knn(set.pts, set.pts, k, Exclude::SameIndex);
    let mut out = vec![false; set.pts.len()];
    if nn.is_empty() {
        return out;
    }
    for (i, slot) in out.iter_mut().enumerate() {
        let own = set.label(i);
        if !target[own] {
            continue;
        }
        let votes = vote.count(nn.of(i).iter().map(|&j| set.label(j)));
        *slot = match rule {
            EnnRule::Mode => vote.elected(own) != own,
            EnnRule::All => votes[own] < nn.k(),
        };
    }
    out
}

/// `ties=lowest` as it appears in a sampler's name (empty for the default).
pub(super) fn ties_flag(ties: Ties) -> String {
    match ties {
        Ties::Keep => String::new(),
        Ties::Lowest => "ties=lowest".into(),
    }
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
        let mut vote = Vote::new(self.ties, data);
        clean(
            self,
            data,
            ("enn", self.standardise, self.classes.as_deref()),
            |set, cls| {
                survivors(&enn_removed(
                    set,
                    self.k,
                    self.rule,
                    &mut vote,
                    &cls.not_minority(),
                ))
            },
        )
    }

    fn name(&self) -> String {
        spec(
            "enn",
            &[
                format!("k={}", self.k),
                rule_flag(self.rule),
                ties_flag(self.ties),
                classes_flag(&self.classes),
                std_flag(self.standardise),
            ],
        )
    }
}

/// One round of ENN on the rows `kept` of `set` (row numbers, in order):
/// the rows it keeps, judging the classes flagged in `target` (`None`:
/// every class but the smallest among `kept`).
pub(super) fn enn_round(
    set: Labelled<'_>,
    kept: &[usize],
    (k, rule): (usize, EnnRule),
    vote: &mut Vote,
    target: Option<&[bool]>,
) -> Vec<usize> {
    let d = set.pts.dim();
    let x = set.pts.gather(kept);
    let y: Vec<u32> = kept.iter().map(|&i| set.y[i]).collect();
    let counts = crate::data::tally(y.iter().map(|&c| c as usize), set.n_classes);
    let minority = crate::sample::draw::minority_class(&counts);
    let auto: Vec<bool> = (0..set.n_classes).map(|c| c != minority).collect();
    let sub = Labelled {
        pts: crate::neighbors::Points::new(&x, kept.len(), d).expect("shape"),
        y: &y,
        n_classes: set.n_classes,
        metric: set.metric,
    };
    let removed = enn_removed(sub, k, rule, vote, target.unwrap_or(&auto));
    survivors(&removed).into_iter().map(|i| kept[i]).collect()
}

/// Whether the repeated editings (AllKNN, repeated ENN) stop after a round
/// that kept `kept`: a class other than the input's minority fell below the
/// minority's input size (unless `allow_minority`), or a class lost every
/// row (imbalanced-learn's stopping rules).
pub(super) fn editing_stops(
    set: Labelled<'_>,
    cls: &crate::sample::draw::Classes,
    kept: &[usize],
    allow_minority: bool,
) -> bool {
    let counts = crate::data::tally(kept.iter().map(|&i| set.label(i)), set.n_classes);
    let m = cls.minority;
    let present = |c: usize| cls.counts[c] > 0;
    let lost = (0..counts.len()).any(|c| present(c) && counts[c] == 0);
    let below = (0..counts.len())
        .any(|c| c != m && present(c) && counts[c] > 0 && counts[c] < cls.counts[m]);
    lost || (below && !allow_minority)
}
