//! What drives a fitted strategy and what its model file holds:
//! permutation importance on held-out rows for any strategy
//! ([`permutation`]: Breiman 2001, sec. 10; Fisher, Rudin & Dominici 2019),
//! the split-gain importances of its trees, forests, bagging ensembles and
//! gradient-boosted trees ([`crate::learn::Importances`]), their HTML report
//! ([`report`]), and a readable summary of a model file ([`summary`]:
//! `rarity show`).

pub mod permutation;
pub mod report;
pub mod summary;

pub use permutation::{
    permutation_importance, split_gain_importances, Explanation, FeatureImportance,
};
pub use summary::ModelSummary;
