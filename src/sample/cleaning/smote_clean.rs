//! SMOTE + Tomek links and SMOTE + ENN (Batista, Prati & Monard 2004, "A
//! study of the behavior of several methods for balancing machine learning
//! training data"): SMOTE, then the removal of both members of every Tomek
//! link, or ENN on every class, over the result, synthetic rows included.
//! The neighbours of the cleaning are searched in the same space as SMOTE's.

use crate::data::Dataset;
use crate::error::Result;
use crate::neighbors::Points;
use crate::params::{params, Bounds, Params};
use crate::rng::Rng;

use super::enn::{enn_removed, rule_flag, EnnRule, Ties, Vote, ENN_K};
use super::tomek::tomek_removed;
use super::X_DEPENDENT;
use crate::sample::draw::assemble;
use crate::sample::parts::params_of_parts;
use crate::sample::space::{Labelled, Space};
use crate::sample::{spec, Sample, Sampler, Smote};

/// SMOTE, then a cleaning of all classes (synthetic rows included) on the
/// result: `clean` flags the points to remove.
fn smote_then_clean(
    smote: &Smote,
    data: &Dataset,
    rng: &mut Rng,
    clean: impl FnOnce(Labelled<'_>) -> Vec<bool>,
) -> Result<Sample> {
    let s = smote.resample(data, rng)?;
    let n = data.n_rows();
    let d = data.n_features();
    let space = Space::new(data, smote.neighbours.standardise);
    let mut x = space.all().into_owned();
    space.extend(
        &mut x,
        &data.interpolate(&s.synthetic, &s.synthetic_levels)?,
    );
    let m = s.synthetic_labels.len();
    let mut y = data.labels().to_vec();
    y.extend_from_slice(&s.synthetic_labels);
    let set = Labelled {
        pts: Points::new(&x, n + m, d).expect("shape"),
        y: &y,
        n_classes: data.n_classes(),
        metric: space.metric(),
    };
    let removed = clean(set);
    let rows: Vec<usize> = (0..n).filter(|&i| !removed[i]).collect();
    let nc = s.synthetic_levels.len().checked_div(m).unwrap_or(0);
    let mut between = Vec::new();
    let mut levels = Vec::new();
    let mut sy = Vec::new();
    for j in (0..m).filter(|&j| !removed[n + j]) {
        between.push(s.synthetic[j]);
        levels.extend_from_slice(&s.synthetic_levels[j * nc..(j + 1) * nc]);
        sy.push(s.synthetic_labels[j]);
    }
    let mut notes = s.notes;
    notes.push(X_DEPENDENT.into());
    Ok(assemble(data, rows, between, levels, sy, notes))
}

/// SMOTE followed by the removal of both members of every Tomek link.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SmoteTomek {
    /// The SMOTE step (its `standardise` serves the links too).
    pub smote: Smote,
}

params_of_parts!(SmoteTomek: smote);

impl Sampler for SmoteTomek {
    fn synthesizes(&self) -> bool {
        true
    }

    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        let every_class = vec![true; data.n_classes()];
        smote_then_clean(&self.smote, data, rng, |set| {
            tomek_removed(set, &every_class)
        })
    }

    fn name(&self) -> String {
        spec("smote-tomek", &self.smote.parts())
    }
}

params! {
    /// The ENN step of SMOTE + ENN.
    #[derive(Debug, Clone, PartialEq)]
    pub struct SmoteEnnEditing {
        /// ENN's neighbours (3 in Wilson's and the later papers).
        pub enn_k: usize = ENN_K => Bounds::at_least(1.0),
        /// ENN's rule: mode (Wilson's) or all.
        pub rule: EnnRule = EnnRule::Mode,
    }
}

/// SMOTE followed by ENN on every class.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SmoteEnn {
    /// The SMOTE step (its `standardise` serves the editing too).
    pub smote: Smote,
    /// The editing.
    pub enn: SmoteEnnEditing,
}

params_of_parts!(SmoteEnn: smote, enn);

impl Sampler for SmoteEnn {
    fn synthesizes(&self) -> bool {
        true
    }

    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        self.enn.check()?;
        let every_class = vec![true; data.n_classes()];
        let mut vote = Vote::new(Ties::Keep, data);
        smote_then_clean(&self.smote, data, rng, |set| {
            enn_removed(set, self.enn.enn_k, self.enn.rule, &mut vote, &every_class)
        })
    }

    fn name(&self) -> String {
        let mut parts = self.smote.parts();
        parts.push(format!("enn_k={}", self.enn.enn_k));
        parts.push(rule_flag(self.enn.rule));
        spec("smote-enn", &parts)
    }
}
