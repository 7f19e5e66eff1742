//! Parameter value types: how a spec [`Value`] becomes a typed field, what
//! is accepted (for help and errors), and the text a value is shown as.

use std::fmt::Write as _;

use super::syntax::{number_text, Value};
use crate::limits::MAX_COUNT;

/// A type a parameter can have.
pub trait ParamType: Sized {
    /// The typed value of a spec value. `Err` with an empty text when it is
    /// not of this type (the caller says what is expected, from
    /// [`ParamType::expected`]); with a reason when a nested spec (a learner,
    /// a sampler) was refused.
    fn from_value(v: &Value) -> Result<Self, String>;
    /// What is accepted, e.g. `a whole number` or `one of gini, entropy`.
    fn expected() -> String;
    /// The value as spec text (`5`, `sqrt`, `none`, `[0.2,1]`).
    fn to_text(&self) -> String;
    /// What is accepted within `bounds` (`a whole number >= 1`).
    fn expected_within(bounds: Option<Bounds>) -> String {
        match bounds {
            Some(b) => format!("{} {}", Self::expected(), b.describe()),
            None => Self::expected(),
        }
    }
    /// The numbers to check against a parameter's [`Bounds`] (none for
    /// non-numeric types).
    fn numbers(&self) -> Vec<f64> {
        Vec::new()
    }
}

/// The valid range of a numeric parameter (each number of a list).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    lo: f64,
    lo_open: bool,
    hi: f64,
    hi_open: bool,
    /// Bytes of memory each unit of the value takes as soon as it is used
    /// (0: none to speak of), checked against the memory available.
    bytes_each: f64,
}

impl Bounds {
    /// `[lo, inf)`.
    pub const fn at_least(lo: f64) -> Bounds {
        Bounds {
            lo,
            lo_open: false,
            hi: f64::INFINITY,
            hi_open: true,
            bytes_each: 0.0,
        }
    }
    /// `(0, inf)`.
    pub const fn positive() -> Bounds {
        Bounds {
            lo: 0.0,
            lo_open: true,
            hi: f64::INFINITY,
            hi_open: true,
            bytes_each: 0.0,
        }
    }
    /// `[lo, hi]`.
    pub const fn closed(lo: f64, hi: f64) -> Bounds {
        Bounds {
            lo,
            lo_open: false,
            hi,
            hi_open: false,
            bytes_each: 0.0,
        }
    }
    /// `(lo, hi]`: a rate such as an undersampling beta in `(0, 1]`.
    pub const fn left_open(lo: f64, hi: f64) -> Bounds {
        Bounds {
            lo,
            lo_open: true,
            hi,
            hi_open: false,
            bytes_each: 0.0,
        }
    }
    /// `(lo, hi)`.
    pub const fn open(lo: f64, hi: f64) -> Bounds {
        Bounds {
            lo,
            lo_open: true,
            hi,
            hi_open: true,
            bytes_each: 0.0,
        }
    }

    /// The same range, for a count of which each unit takes `bytes` of
    /// memory as soon as it is used (an ensemble's members): a count whose
    /// units cannot all fit in the memory available is refused, saying how
    /// much it would need ([`affordable`]).
    pub const fn each_taking(self, bytes: usize) -> Bounds {
        Bounds {
            bytes_each: bytes as f64,
            ..self
        }
    }

    /// Whether `x` lies in the range (NaN never does).
    pub fn contains(&self, x: f64) -> bool {
        let above = if self.lo_open {
            x > self.lo
        } else {
            x >= self.lo
        };
        let below = if self.hi_open {
            x < self.hi
        } else {
            x <= self.hi
        };
        above && below
    }

    /// The range in words: `>= 1`, `> 0`, `in (0, 1]`.
    pub fn describe(&self) -> String {
        match (self.hi.is_infinite(), self.lo_open, self.lo) {
            (true, true, lo) => format!("> {lo}"),
            (true, false, lo) => format!(">= {lo}"),
            _ => format!(
                "in {}{}, {}{}",
                if self.lo_open { '(' } else { '[' },
                self.lo,
                self.hi,
                if self.hi_open { ')' } else { ']' }
            ),
        }
    }
}

/// What a parameter of type `T` within `bounds` accepts, in words.
pub fn expected<T: ParamType>(bounds: Option<Bounds>) -> String {
    T::expected_within(bounds)
}

/// Checks every number of `value` against `bounds`.
pub fn within<T: ParamType>(value: &T, bounds: Option<Bounds>) -> bool {
    bounds.is_none_or(|b| value.numbers().iter().all(|&x| b.contains(x)))
}

/// Fails, saying how much it would need, when some number of `value` is a
/// count whose units (each taking the bytes [`Bounds::each_taking`] says)
/// cannot all fit in the memory available.
pub fn affordable<T: ParamType>(value: &T, bounds: Option<Bounds>) -> Result<(), String> {
    let Some(each) = bounds.map(|b| b.bytes_each).filter(|&b| b > 0.0) else {
        return Ok(());
    };
    for x in value.numbers() {
        crate::limits::check_memory(&format!("{x} of {each} B each"), x * each)
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

impl ParamType for f64 {
    fn from_value(v: &Value) -> Result<Self, String> {
        match v {
            Value::Number(x) => Ok(*x),
            _ => Err(String::new()),
        }
    }
    fn expected() -> String {
        "a number".into()
    }
    fn to_text(&self) -> String {
        number_text(*self)
    }
    fn numbers(&self) -> Vec<f64> {
        vec![*self]
    }
}

impl ParamType for usize {
    fn from_value(v: &Value) -> Result<Self, String> {
        match v {
            // Checked before the cast: `as` would saturate a larger number.
            Value::Number(x) if x.fract() == 0.0 && *x >= 0.0 => {
                if *x <= MAX_COUNT as f64 {
                    Ok(*x as usize)
                } else {
                    Err(format!("too large: at most {MAX_COUNT}"))
                }
            }
            _ => Err(String::new()),
        }
    }
    fn expected() -> String {
        "a whole number".into()
    }
    fn to_text(&self) -> String {
        self.to_string()
    }
    fn numbers(&self) -> Vec<f64> {
        vec![*self as f64]
    }
}

impl ParamType for bool {
    fn from_value(v: &Value) -> Result<Self, String> {
        match v.word() {
            Some("true") => Ok(true),
            Some("false") => Ok(false),
            _ => Err(String::new()),
        }
    }
    fn expected() -> String {
        "true or false".into()
    }
    fn to_text(&self) -> String {
        self.to_string()
    }
}

impl ParamType for String {
    fn from_value(v: &Value) -> Result<Self, String> {
        match v {
            Value::Text(t) => Ok(t.clone()),
            Value::Call(c) if c.args.is_empty() => Ok(c.name.clone()),
            _ => Err(String::new()),
        }
    }
    fn expected() -> String {
        "a name or a quoted text".into()
    }
    fn to_text(&self) -> String {
        if !self.is_empty()
            && self
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
            && self.starts_with(|c: char| c.is_alphabetic())
        {
            self.clone()
        } else {
            format!("'{self}'")
        }
    }
}

/// `none`, or a value of `T`.
impl<T: ParamType> ParamType for Option<T> {
    fn from_value(v: &Value) -> Result<Self, String> {
        match v.word() {
            Some("none") => Ok(None),
            _ => T::from_value(v).map(Some),
        }
    }
    fn expected() -> String {
        format!("{} or none", T::expected())
    }
    fn expected_within(bounds: Option<Bounds>) -> String {
        format!("{} or none", T::expected_within(bounds))
    }
    fn to_text(&self) -> String {
        self.as_ref().map_or_else(|| "none".to_string(), T::to_text)
    }
    fn numbers(&self) -> Vec<f64> {
        self.as_ref().map_or_else(Vec::new, T::numbers)
    }
}

/// The items of a list value: `[a, b]`, `a:b`, a quoted `'a,b'` / `'a:b'`,
/// or a single number.
fn list_items(v: &Value) -> Result<Vec<Value>, String> {
    match v {
        Value::List(items) => Ok(items.clone()),
        Value::Number(_) => Ok(vec![v.clone()]),
        Value::Text(t) => t
            .split([',', ':'])
            .map(|s| {
                s.trim()
                    .parse::<f64>()
                    .map(Value::Number)
                    .map_err(|_| String::new())
            })
            .collect(),
        _ => Err(String::new()),
    }
}

impl<T: ParamType> ParamType for Vec<T> {
    fn from_value(v: &Value) -> Result<Self, String> {
        let items = list_items(v)?;
        if items.is_empty() {
            return Err(String::new());
        }
        items.iter().map(T::from_value).collect()
    }
    fn expected() -> String {
        let one = T::expected();
        let plural = one.strip_prefix("a ").unwrap_or(&one).to_string();
        format!("a list of {plural}s such as [0.2, 1] or 0.2:1")
    }
    fn to_text(&self) -> String {
        let mut s = String::from("[");
        for (i, v) in self.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            let _ = write!(s, "{}", v.to_text());
        }
        s.push(']');
        s
    }
    fn numbers(&self) -> Vec<f64> {
        self.iter().flat_map(T::numbers).collect()
    }
}

/// Defines a parameter enum of bare words, e.g. `criterion=gini|entropy`.
///
/// ```ignore
/// choice! {
///     /// Split criterion.
///     #[derive(Debug, Clone, Copy, PartialEq, Eq)]
///     pub enum Criterion {
///         /// Gini impurity.
///         Gini = "gini",
///         /// Entropy.
///         Entropy = "entropy",
///     }
/// }
/// ```
macro_rules! choice {
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident {
            $( $(#[doc = $doc:literal])* $variant:ident = $word:literal ),+ $(,)?
        }
    ) => {
        $(#[$attr])*
        $vis enum $name {
            $( $(#[doc = $doc])* $variant, )+
        }

        impl $crate::params::ParamType for $name {
            fn from_value(v: &$crate::params::Value) -> ::std::result::Result<Self, String> {
                match v.word() {
                    $( Some($word) => Ok($name::$variant), )+
                    _ => Err(String::new()),
                }
            }
            fn expected() -> String {
                format!("one of {}", [$($word),+].join(", "))
            }
            fn to_text(&self) -> String {
                match self {
                    $( $name::$variant => $word.to_string(), )+
                }
            }
        }
    };
}
pub(crate) use choice;

/// Implements [`ParamType`] for an enum of words and one `Value(f64)`
/// variant: one of the words, or a number that `$ok` accepts
/// (e.g. `cost=balanced|2.5`).
///
/// ```ignore
/// word_or_number!(Cost { Balanced = "balanced" }, |x| x > 0.0, "balanced or a positive number");
/// ```
macro_rules! word_or_number {
    ($name:ident { $($variant:ident = $word:literal),+ }, $ok:expr, $expected:literal) => {
        impl $crate::params::ParamType for $name {
            fn from_value(v: &$crate::params::Value) -> ::std::result::Result<Self, String> {
                let ok: fn(f64) -> bool = $ok;
                match (v, v.word()) {
                    $( (_, Some($word)) => Ok($name::$variant), )+
                    ($crate::params::Value::Number(x), _) if ok(*x) => Ok($name::Value(*x)),
                    _ => Err(String::new()),
                }
            }
            fn expected() -> String {
                $expected.into()
            }
            fn to_text(&self) -> String {
                match self {
                    $( $name::$variant => $word.into(), )+
                    $name::Value(x) => x.to_string(),
                }
            }
        }
    };
}
pub(crate) use word_or_number;
