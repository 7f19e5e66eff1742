//! Data: the [`Dataset`] table, the [`Proba`] matrix, readers (CSV, Parquet,
//! Arrow IPC, KEEL `.dat`, ARFF), the bundled datasets, synthetic generators,
//! selection-bias simulators and output tables and files (CSV, Parquet).

mod between;
mod buffer;
mod dataset;
mod proba;

pub mod bias;
pub mod bundled;
pub mod dirs;
pub mod fraud_categories;
pub mod impute;
pub mod read;
pub mod scores;
pub mod synth;
pub mod target_encode;
pub mod target_stats;
pub mod write;

pub use between::Between;
pub use buffer::Values;
pub(crate) use dataset::tally;
pub use dataset::{require_two_classes, rows_by_class, ColumnEncoding, Dataset, Schema, View};
pub use proba::Proba;
