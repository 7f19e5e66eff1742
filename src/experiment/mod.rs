//! The papers' protocols and the main job, built from the library's pieces.
//!
//! - [`compare`]: `rarity run`'s comparison of strategies on one dataset with
//!   repeated stratified cross-validation on shared folds, a Friedman test
//!   and Nemenyi critical difference over the folds (Demsar 2006).
//! - [`run_report`]: the HTML report of `rarity run --report DIR`.
//! - [`bias`]: the ReverseTesting bias experiment (Fan & Davidson 2006,
//!   Sec. 5): correct / wrong / undecided pairwise predictions per method.

pub mod bias;
pub mod compare;
pub mod run_report;
