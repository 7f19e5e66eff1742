//! The `params!` macro: a parameter struct declared once, with each field's
//! default, valid range and doc, from which the struct, its `Default`, its
//! [`Params`](super::Params) table, setter and checks are generated.
//!
//! ```ignore
//! params! {
//!     /// AdaBoost.M1.
//!     #[derive(Debug, Clone, PartialEq)]
//!     pub struct AdaBoost {
//!         /// Boosting rounds.
//!         pub n: usize = 50 => Bounds::at_least(1.0),
//!         /// Depth of each round's tree.
//!         pub depth: usize = 1 => Bounds::at_least(1.0),
//!     }
//! }
//! ```
//!
//! A field without `=> bounds` accepts any value of its type. A count whose
//! every unit takes memory as soon as it is used declares it in its bounds
//! (`Bounds::at_least(1.0).each_taking(bytes)`): a count that cannot fit in
//! the memory available is refused with what it would need. A struct may
//! add a cross-field check after the fields, `check = path::to::fn;`
//! (`fn(&Self) -> Result<()>`), which runs after every field's own check.

macro_rules! params {
    (@bounds) => { None };
    (@bounds $b:expr) => { Some($b) };
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $fvis:vis $field:ident : $ty:ty = $default:expr $(=> $bounds:expr)?
            ),* $(,)?
        }
        $(check = $check:path;)?
    ) => {
        $(#[$attr])*
        $vis struct $name {
            $( $(#[doc = $doc])* $fvis $field: $ty, )*
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $( $field: $default, )* }
            }
        }

        impl $crate::params::Params for $name {
            fn table(&self) -> Vec<$crate::params::ParamInfo> {
                vec![$(
                    $crate::params::ParamInfo {
                        name: stringify!($field),
                        expected: $crate::params::expected::<$ty>(
                            $crate::params::params!(@bounds $($bounds)?)),
                        default: $crate::params::ParamType::to_text(&self.$field),
                        doc: concat!($($doc),*).trim().to_string(),
                    },
                )*]
            }

            fn set(
                &mut self,
                key: &str,
                #[allow(unused_variables)] value: &$crate::params::Value,
            ) -> ::std::result::Result<bool, String> {
                match key {
                    $(
                        stringify!($field) => {
                            let bounds = $crate::params::params!(@bounds $($bounds)?);
                            let expected = || format!("expected {}", $crate::params::expected::<$ty>(bounds));
                            let v = <$ty as $crate::params::ParamType>::from_value(value)
                                .map_err(|why| if why.is_empty() { expected() } else { why })?;
                            if !$crate::params::within(&v, bounds) {
                                return Err(expected());
                            }
                            $crate::params::affordable(&v, bounds)?;
                            self.$field = v;
                            Ok(true)
                        }
                    )*
                    _ => Ok(false),
                }
            }

            fn check(&self) -> $crate::error::Result<()> {
                $(
                    let bounds = $crate::params::params!(@bounds $($bounds)?);
                    if !$crate::params::within(&self.$field, bounds) {
                        return Err($crate::error::Error::invalid(format!(
                            "{}={} is invalid; expected {}",
                            stringify!($field),
                            $crate::params::ParamType::to_text(&self.$field),
                            $crate::params::expected::<$ty>(bounds)
                        )));
                    }
                    $crate::params::affordable(&self.$field, bounds).map_err(|why| {
                        $crate::error::Error::invalid(format!(
                            "{}={} is invalid; {why}",
                            stringify!($field),
                            $crate::params::ParamType::to_text(&self.$field),
                        ))
                    })?;
                )*
                $( $check(self)?; )?
                Ok(())
            }
        }
    };
}
pub(crate) use params;
