//! Data: the [`Dataset`] table, the [`Proba`] matrix, readers (CSV, KEEL `.dat`,
//! ARFF), the bundled datasets, synthetic generators and selection-bias
//! simulators.

mod dataset;
mod proba;

pub use dataset::{ColumnEncoding, Dataset, Schema, View};
pub use proba::Proba;
pub mod bundled;
pub mod read;
