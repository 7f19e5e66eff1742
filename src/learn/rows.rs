//! The training rows of a view as a dense weighted table.
//!
//! Most learners here work on a row-major copy of the rows they fit on, with
//! one weight per row. [`Rows::collapsed`] merges the repeats of a bootstrap
//! view into one row whose weight is `copies x row weight` (for every loss
//! that is a weighted sum over rows this is the same objective, and the
//! kernel and covariance work shrinks with the number of distinct rows);
//! rows of weight 0 are left out, since they carry no information.

use crate::data::View;
use crate::error::{Error, Result};
use crate::params::{ParamType, Value};

/// Weighted training rows: `x` is row-major `n x d`, `y` class ids `< k`.
#[derive(Debug, Clone)]
pub(crate) struct Rows {
    pub x: Vec<f64>,
    pub y: Vec<usize>,
    pub w: Vec<f64>,
    pub d: usize,
    pub k: usize,
}

impl Rows {
    /// Distinct rows of the view (first-appearance order) with weight
    /// `copies x weight`; rows of weight 0 are dropped. Fails when no row has
    /// a positive weight (`who` names the learner in the message).
    pub fn collapsed(view: &View<'_>, who: &str) -> Result<Rows> {
        let data = view.data();
        let d = data.n_features();
        let mut slot = vec![usize::MAX; data.n_rows()];
        let mut rows = Rows {
            x: Vec::new(),
            y: Vec::new(),
            w: Vec::new(),
            d,
            k: data.n_classes(),
        };
        for &i in view.indices() {
            let wi = data.weight(i);
            if wi <= 0.0 {
                continue;
            }
            if slot[i] == usize::MAX {
                slot[i] = rows.y.len();
                rows.x.extend_from_slice(data.row(i));
                rows.y.push(data.label(i));
                rows.w.push(0.0);
            }
            rows.w[slot[i]] += wi;
        }
        rows.check(who)?;
        Ok(rows)
    }

    /// Every row of the view in order, repeats kept as copies (each with its
    /// own weight); rows of weight 0 are dropped.
    pub fn expanded(view: &View<'_>, who: &str) -> Result<Rows> {
        let data = view.data();
        let mut rows = Rows {
            x: Vec::with_capacity(view.len() * data.n_features()),
            y: Vec::with_capacity(view.len()),
            w: Vec::with_capacity(view.len()),
            d: data.n_features(),
            k: data.n_classes(),
        };
        for &i in view.indices() {
            let wi = data.weight(i);
            if wi > 0.0 {
                rows.x.extend_from_slice(data.row(i));
                rows.y.push(data.label(i));
                rows.w.push(wi);
            }
        }
        rows.check(who)?;
        Ok(rows)
    }

    fn check(&self, who: &str) -> Result<()> {
        if self.y.is_empty() {
            return Err(Error::data(format!(
                "cannot fit {who}: no training row has a positive weight"
            )));
        }
        if self.d == 0 {
            return Err(Error::data(format!(
                "cannot fit {who}: the data has no feature columns"
            )));
        }
        Ok(())
    }

    /// Number of rows.
    pub fn n(&self) -> usize {
        self.y.len()
    }

    /// Features of row `i`.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.x[i * self.d..(i + 1) * self.d]
    }

    /// Total weight per class.
    pub fn class_weights(&self) -> Vec<f64> {
        let mut t = vec![0.0; self.k];
        for (&c, &w) in self.y.iter().zip(&self.w) {
            t[c] += w;
        }
        t
    }

    /// The classes with positive total weight, in id order.
    pub fn present(&self) -> Vec<usize> {
        self.class_weights()
            .iter()
            .enumerate()
            .filter(|(_, &t)| t > 0.0)
            .map(|(c, _)| c)
            .collect()
    }

    /// Multiplies each row's weight by its class's factor.
    pub fn scale_classes(&mut self, factor: &[f64]) {
        for (w, &c) in self.w.iter_mut().zip(&self.y) {
            *w *= factor[c];
        }
    }
}

/// Class weighting for learners with a weighted loss.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum ClassWeight {
    /// Every class weight 1.
    None,
    /// scikit-learn's `balanced`: class `c` gets `W / (K W_c)` with `W` the
    /// total weight and `K` the number of classes present.
    Balanced,
    /// Explicit weights, one per class id.
    Given(Vec<f64>),
}

impl ClassWeight {
    /// The per-class factors for these rows.
    pub(crate) fn factors(&self, rows: &Rows) -> Result<Vec<f64>> {
        self.for_totals(&rows.class_weights())
    }

    /// The per-class factors for rows whose total weight per class is `t`
    /// (one entry per class).
    pub(crate) fn for_totals(&self, t: &[f64]) -> Result<Vec<f64>> {
        match self {
            ClassWeight::None => Ok(vec![1.0; t.len()]),
            ClassWeight::Balanced => {
                let total: f64 = t.iter().sum();
                let present = t.iter().filter(|&&v| v > 0.0).count() as f64;
                Ok(t.iter()
                    .map(|&v| if v > 0.0 { total / (present * v) } else { 1.0 })
                    .collect())
            }
            ClassWeight::Given(v) => {
                if v.len() != t.len() {
                    return Err(Error::invalid(format!(
                        "class_weight gives {} weights for {} classes",
                        v.len(),
                        t.len()
                    )));
                }
                if v.iter().any(|x| !(x.is_finite() && *x >= 0.0)) {
                    return Err(Error::invalid("class weights must be finite and >= 0"));
                }
                Ok(v.clone())
            }
        }
    }
}

/// Writes the softmax of `z` into `z` (in place, overflow-safe).
pub(crate) fn softmax(z: &mut [f64]) {
    let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let mut s = 0.0;
    for v in z.iter_mut() {
        *v = (*v - m).exp();
        s += *v;
    }
    for v in z.iter_mut() {
        *v /= s;
    }
}

/// The logistic function `1 / (1 + exp(-z))`, without overflow.
pub(crate) fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// Implements [`ParamType`] for a per-class parameter enum: two words, or
/// one number `>= 0` per class (a `Given(Vec<f64>)` variant).
macro_rules! per_class_param {
    ($ty:ident { $a:ident = $wa:literal, $b:ident = $wb:literal }, $what:literal, $example:literal) => {
        impl $crate::params::ParamType for $ty {
            fn from_value(v: &$crate::params::Value) -> std::result::Result<Self, String> {
                match v.word() {
                    Some($wa) => Ok($ty::$a),
                    Some($wb) => Ok($ty::$b),
                    _ => $crate::learn::rows::per_class(v).map($ty::Given),
                }
            }
            fn expected() -> String {
                concat!(
                    $wa,
                    ", ",
                    $wb,
                    " or one ",
                    $what,
                    " >= 0 per class, e.g. ",
                    $example
                )
                .into()
            }
            fn to_text(&self) -> String {
                match self {
                    $ty::$a => $wa.into(),
                    $ty::$b => $wb.into(),
                    $ty::Given(v) => $crate::learn::rows::given_text(v),
                }
            }
        }
    };
}
pub(crate) use per_class_param;

per_class_param!(ClassWeight { None = "none", Balanced = "balanced" }, "weight", "[1, 5]");

/// One number `>= 0` per class: a list (`[a, b]`, `a:b`, `'a,b'`) or
/// `given(a, b)`.
pub(crate) fn per_class(v: &Value) -> std::result::Result<Vec<f64>, String> {
    let values = match v {
        Value::Call(c) if c.name == "given" && !c.args.is_empty() => c
            .args
            .iter()
            .map(|(k, x)| match (k, x) {
                (None, Value::Number(x)) => Ok(*x),
                _ => Err(String::new()),
            })
            .collect::<std::result::Result<Vec<f64>, String>>()?,
        _ => Vec::<f64>::from_value(v)?,
    };
    if values.iter().all(|x| *x >= 0.0) {
        Ok(values)
    } else {
        Err(String::new())
    }
}

/// Per-class numbers as spec text: `given(a,b)`.
pub(crate) fn given_text(v: &[f64]) -> String {
    format!(
        "given({})",
        v.iter().map(f64::to_string).collect::<Vec<_>>().join(",")
    )
}
