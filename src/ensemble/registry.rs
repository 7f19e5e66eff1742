//! The ensembles: every ensemble a spec can name, with its parameters, and
//! the kind of fitted model they make.

use crate::ensemble::BaggedModel;
use crate::learn::ModelKind;

/// The fitted ensembles, by the name model files use.
pub const MODEL_KINDS: &[ModelKind] = &[ModelKind::of::<BaggedModel>("Bagged")];
