//! Instance hardness threshold (Smith, Martinez & Giraud-Carrier 2014, "An
//! instance level analysis of data complexity"): a learner's
//! cross-validated probability of each row's own class measures how hard
//! the row is (`1 - p`); each reduced class keeps its `n` easiest rows, the
//! `n` with the highest probability (ties to the lower row), exactly `n`
//! (imbalanced-learn's `InstanceHardnessThreshold` keeps the rows at or
//! above the percentile, so ties can keep more). The learner is any of
//! [`crate::learn::registry::LEARNERS`], fitted on `folds` stratified folds
//! drawn from the sampler's random stream. By default every class but the
//! minority is reduced to the minority's size; `counts` gives each class's
//! rows.

use rand::RngExt;

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::learn::{registry::LEARNERS, Learner};
use crate::params::{params, syntax, Bounds, ParamType, Params};
use crate::rng::{stream, Rng};
use crate::split::Splitter;

use super::X_DEPENDENT;
use crate::sample::draw::{assemble_rows, Classes};
use crate::sample::{colon_list, spec, Sample, Sampler};

params! {
    /// Instance hardness threshold.
    #[derive(Debug, Clone, PartialEq)]
    pub struct InstanceHardness {
        /// The learner whose cross-validated probabilities measure hardness
        /// (a learner spec, e.g. gbdt or tree(max_depth=4)).
        pub learner: String = String::from("gbdt"),
        /// Stratified folds of the cross-validation.
        pub folds: usize = 5 => Bounds::at_least(2.0),
        /// Rows kept of each class, in class-id order (a class keeps every
        /// row when its count is its size or more); none: every class but
        /// the minority reduced to the minority's size.
        pub counts: Option<Vec<usize>> = None,
    }
}

impl InstanceHardness {
    /// The learner its spec names.
    fn build_learner(&self) -> Result<std::sync::Arc<dyn Learner>> {
        let calls = syntax::parse(&self.learner)?;
        let [call] = calls.as_slice() else {
            return Err(Error::invalid(format!(
                "iht: learner='{}' must be one learner, e.g. gbdt",
                self.learner
            )));
        };
        (crate::params::find(LEARNERS, &call.name, "learner")?.build)(call)
    }
}

/// Each row's cross-validated probability of its own class, by `learner`
/// fitted on the other folds of a stratified `folds`-fold split.
pub fn own_class_proba(
    data: &Dataset,
    learner: &dyn Learner,
    folds: usize,
    rng: &mut Rng,
) -> Result<Vec<f64>> {
    let splits = Splitter::k_fold(folds).split_dataset(data, rng.random())?;
    let mut own = vec![0.0; data.n_rows()];
    for (f, fold) in splits.iter().enumerate() {
        let model = learner.fit(&data.view(&fold.train), &mut stream(rng.random(), f as u64))?;
        let test = data.take(&fold.test);
        let p = model.predict_proba(&test)?;
        for (t, &i) in fold.test.iter().enumerate() {
            own[i] = p.row(t)[data.label(i)];
        }
        crate::cancel::check()?;
    }
    Ok(own)
}

/// The rows kept: of each class `c`, all its rows when `want[c]` is its
/// size or more, else the `want[c]` rows of highest `score` (ties: lower
/// row), in row order.
pub fn keep_highest(score: &[f64], rows_by_class: &[Vec<usize>], want: &[usize]) -> Vec<usize> {
    let mut kept = Vec::new();
    for (pool, &w) in rows_by_class.iter().zip(want) {
        if w >= pool.len() {
            kept.extend_from_slice(pool);
            continue;
        }
        let mut order = pool.clone();
        order.sort_by(|&a, &b| score[b].total_cmp(&score[a]).then(a.cmp(&b)));
        kept.extend_from_slice(&order[..w]);
    }
    kept.sort_unstable();
    kept
}

impl Sampler for InstanceHardness {
    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        self.check()?;
        let learner = self.build_learner()?;
        let cls = Classes::of(data, "iht")?;
        let want: Vec<usize> = match &self.counts {
            Some(v) if v.len() != cls.counts.len() => {
                return Err(Error::invalid(format!(
                    "iht: {} counts given for {} classes",
                    v.len(),
                    cls.counts.len()
                )))
            }
            Some(v) => v.clone(),
            None => (0..cls.counts.len())
                .map(|c| {
                    if c == cls.minority {
                        cls.counts[c]
                    } else {
                        cls.counts[cls.minority]
                    }
                })
                .collect(),
        };
        let own = own_class_proba(data, learner.as_ref(), self.folds, rng)?;
        let rows = keep_highest(&own, &cls.rows, &want);
        Ok(assemble_rows(data, rows, vec![X_DEPENDENT.into()]))
    }

    fn name(&self) -> String {
        spec(
            "iht",
            &[
                format!("learner={}", self.learner.to_text()),
                format!("folds={}", self.folds),
                self.counts
                    .as_ref()
                    .map(|v| format!("counts={}", colon_list(v)))
                    .unwrap_or_default(),
            ],
        )
    }
}
