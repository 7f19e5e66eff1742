//! Parameter tables of the samplers that are not one flat
//! [`params!`](crate::params::params) struct: a sampler made of parameter
//! parts (SMOTE is its neighbour search plus an [`OverTarget`](super::OverTarget))
//! and the samplers that take no parameters; and the check of parameters
//! that are alternatives to each other.

use crate::error::{Error, Result};

/// Fails with `message` when more than one of the alternatives is `given`.
pub(crate) fn at_most_one(given: &[bool], message: &str) -> Result<()> {
    if given.iter().filter(|&&g| g).count() > 1 {
        return Err(Error::invalid(message));
    }
    Ok(())
}

/// Implements [`Params`](crate::params::Params) for `$ty` from its fields
/// `$part`, each a parameter struct whose keys `$ty` takes over: the tables
/// joined in order, a key set on the part that has it, every part checked.
macro_rules! params_of_parts {
    ($ty:ty: $($part:tt),+) => {
        impl $crate::params::Params for $ty {
            fn table(&self) -> Vec<$crate::params::ParamInfo> {
                let mut t = Vec::new();
                $( t.extend($crate::params::Params::table(&self.$part)); )+
                t
            }

            fn set(
                &mut self,
                key: &str,
                value: &$crate::params::Value,
            ) -> ::std::result::Result<bool, String> {
                $(
                    if $crate::params::Params::set(&mut self.$part, key, value)? {
                        return Ok(true);
                    }
                )+
                Ok(false)
            }

            fn check(&self) -> $crate::error::Result<()> {
                $( $crate::params::Params::check(&self.$part)?; )+
                Ok(())
            }
        }
    };
}
pub(crate) use params_of_parts;

/// Implements [`Params`](crate::params::Params) with no parameters for each
/// of the given types.
macro_rules! no_params {
    ($($ty:ty),+) => {
        $(
            impl $crate::params::Params for $ty {
                fn table(&self) -> Vec<$crate::params::ParamInfo> {
                    Vec::new()
                }

                fn set(
                    &mut self,
                    _: &str,
                    _: &$crate::params::Value,
                ) -> ::std::result::Result<bool, String> {
                    Ok(false)
                }

                fn check(&self) -> $crate::error::Result<()> {
                    Ok(())
                }
            }
        )+
    };
}
pub(crate) use no_params;
