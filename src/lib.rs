//! # rarity: learning from imbalanced data
//!
//! A toolkit for the problems where the class you care about is rare: fraud,
//! defects, rare diseases. It implements, from the source papers:
//!
//! - undersampling with calibrated probabilities (Dal Pozzolo et al. 2015):
//!   the posterior correction (eq. 9) and the consistent threshold (eq. 12);
//! - PT-bagging (Collell et al. 2018): bagging on the natural distribution with
//!   probability thresholds chosen after training;
//! - ReverseTesting (Fan & Davidson 2006): choosing a learner under
//!   sample-selection bias using the unlabeled target population;
//! - the wider toolbox of the course notes (Kim): sampling, SMOTE, informative
//!   undersampling, alternate cut-offs, cost-sensitive learning and the metrics.
//!
//! Layout: `data` (tables, readers, generators) and the exact neighbour
//! search (`neighbors`) at the bottom, then metrics, statistics, samplers, learners, ensembles, calibration, decisions and
//! model selection; the `rarity` binary is a thin layer over this library.

// `!(x > 0.0)` is the NaN-rejecting check used on purpose for parameters.
#![warn(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]
#![allow(clippy::neg_cmp_op_on_partial_ord)]

pub mod calibrate;
pub mod cancel;
pub mod check;
pub mod contributions;
pub mod data;
pub mod decide;
pub mod ensemble;
pub mod error;
pub mod evaluate;
pub mod experiment;
pub mod explain;
pub mod export;
pub mod job;
pub mod learn;
pub mod limits;
pub(crate) mod mem;
pub mod metrics;
pub mod neighbors;
pub mod onnx;
#[cfg(target_os = "linux")]
pub mod out_of_memory;
pub mod params;
pub mod persist;
pub mod printable;
pub mod progress;
pub mod report;
pub mod rng;
pub mod sample;
pub mod select;
pub mod spec;
pub mod split;
pub mod stats;
pub mod strategy;
pub mod stream;

pub use data::Dataset;
pub use error::{Error, Result};
pub use learn::Model;
