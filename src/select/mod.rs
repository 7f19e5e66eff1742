//! Model selection: cross-validation splitters and ReverseTesting (Fan &
//! Davidson 2006) with its comparators. The selection-bias simulators live
//! in [`crate::data::bias`].

pub mod reverse_testing;
pub mod split;

pub use split::{Fold, Splitter};
