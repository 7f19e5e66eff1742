//! Model selection: cross-validation splitters (and, later, ReverseTesting
//! and selection-bias simulators).

pub mod split;

pub use split::{Fold, Splitter};
