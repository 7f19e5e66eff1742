//! Model selection under sample-selection bias: ReverseTesting (Fan &
//! Davidson 2006, Sec. 4) and the comparators it is measured against
//! (Sec. 5).
//!
//! - [`variant`]: the settings of a ReverseTesting run and their text form
//!   (presets `paper` and `default`, `key=value` settings).
//! - [`reverse_testing`]: the algorithm (Sec. 4, Figure 3): label the target
//!   set with each learner, train the judges on the copies, decide every pair.
//! - [`comparator`]: cross-validation, leave-one-out and training accuracy
//!   on the training set alone.
//! - [`density_ratio`]: `p_T(x) / p_D(x)` by a cross-fitted classifier or
//!   uLSIF (Kanamori, Hido & Sugiyama 2009), weights, the covariate-shift
//!   test; [`iwcv`]: importance-weighted cross-validation (Sugiyama,
//!   Krauledat & Müller 2007, eq. 8); [`prior_cv`]: cross-validation
//!   weighted by EM-estimated target priors (Saerens et al. 2002).
//! - [`method`]: the selection methods by name (and their vote), run
//!   together on shared fold models, and `rarity select`'s bias diagnosis.
//! - [`ranking`]: the result of a selection: pairwise outcomes, learners
//!   ordered by wins minus losses.
//! - `measure` (internal): how models are scored on labelled data (a
//!   metric by name, or the example-dependent benefit of Sec. 6).
//!
//! The splitters live in [`crate::split`], the selection-bias simulators in
//! [`crate::data::bias`]; the bias experiment and its true order in
//! `experiment::bias`.

pub mod comparator;
pub mod density_ratio;
pub mod iwcv;
pub(crate) mod measure;
pub mod method;
pub mod prior_cv;
pub mod ranking;
pub mod reverse_testing;
#[cfg(test)]
pub(crate) mod test_learners;
pub mod variant;
