//! The papers' protocols and the main job, built from the library's pieces.
//!
//! - [`compare`]: `rarity run`'s comparison of strategies on one dataset with
//!   repeated stratified cross-validation on shared folds, a Friedman test
//!   and Nemenyi critical difference over the folds (Demsar 2006).
//! - [`run_report`]: the HTML report of `rarity run --report DIR`.
//! - [`experiment_report`]: the HTML reports of `rarity experiment
//!   calibration|pt-bagging|reverse-testing --report DIR`.
//! - [`bias`]: the ReverseTesting bias experiment (Fan & Davidson 2006,
//!   Sec. 5): correct / wrong / undecided pairwise predictions per method.
//! - [`calibration`]: undersampling at several beta, with and without the
//!   prior correction (Dal Pozzolo et al. 2015, Sec. VI, Table V, Fig. 3-4).
//! - [`pt_bagging`]: PT-bagging against the rebalancing ensembles (Collell
//!   et al. 2018, Sec. 4-5): ensemble-size trend, win / tie / loss, full
//!   potential, recall per class, multiclass.

pub mod bias;
pub mod calibration;
pub mod compare;
pub mod experiment_report;
pub mod pt_bagging;
pub mod run;
pub mod run_report;
