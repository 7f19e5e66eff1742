//! TEMPORARY shim until the sampler registry lands: builds samplers from a
//! parsed call through the old name parser.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::params::{Call, ParamType, Value};
use crate::sample::bootstrap::Bootstrap;
use crate::sample::no_resampling::NoResampling;
use crate::sample::Sampler;

/// The sampler a call names.
pub fn build_sampler(c: &Call) -> Result<Arc<dyn Sampler>> {
    match c.name.as_str() {
        "bootstrap" => {
            let fraction = match c.arg("fraction") {
                None => 1.0,
                Some(Value::Number(x)) if *x > 0.0 => *x,
                Some(_) => return Err(Error::invalid("bootstrap: bad fraction")),
            };
            Ok(Arc::new(Bootstrap { fraction }))
        }
        "none" => Ok(Arc::new(NoResampling)),
        _ => Ok(Arc::from(crate::sample::sampler_from_spec(&c.to_string())?)),
    }
}

/// Whether `name` is a sampler.
pub fn is_sampler(name: &str) -> bool {
    name == "bootstrap" || name == "none" || crate::sample::METHODS.iter().any(|(n, _)| *n == name)
}

impl ParamType for Arc<dyn Sampler> {
    fn from_value(v: &Value) -> std::result::Result<Self, String> {
        match v {
            Value::Call(c) => build_sampler(c).map_err(|e| e.to_string()),
            _ => Err(String::new()),
        }
    }
    fn expected() -> String {
        "a sampler such as bootstrap or under(beta=0.2)".into()
    }
    fn to_text(&self) -> String {
        self.name()
    }
}
