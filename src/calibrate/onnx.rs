//! The probability maps of this module as ONNX graph nodes, operation by
//! operation as the Rust code computes them, so that an exported model's
//! probabilities match rarity's to the last bits: the prior correction
//! (eq. 9 of Dal Pozzolo et al. 2015, binary in its odds form), the move to
//! other priors (Saerens et al., eq. 14), Platt's sigmoid and the isotonic
//! step function, one class against the rest.

use crate::onnx::{self, Graph, Value};

use super::{Calibrator, Isotonic, OneVsRest, Platt};

/// Rows of `p` (`[N, k]`) multiplied by per-class `weights` and
/// renormalised; binary rows by the odds form with `ratio = w_1 / w_0`
/// read from the positive column alone (`prior::reweight_row`).
pub fn reweight(g: &mut Graph, p: &Value, weights: &[f64], ratio: f64) -> Value {
    let k = weights.len();
    if k == 2 {
        let one = g.scalar(1.0);
        let zero = g.scalar(0.0);
        let p1 = g.columns(p, 1, 2);
        let ps = g.op("Min", &[&p1, &one], &[]);
        // correct_binary: 0 at p <= 0, else 1 / (1 + (1 - p) / (p * beta)).
        let beta = g.scalar(ratio);
        let num = g.sub(&one, &ps);
        let den = g.mul(&ps, &beta);
        let odds = g.div(&num, &den);
        let plus = g.add(&one, &odds);
        let q = g.div(&one, &plus);
        let none = g.op("LessOrEqual", &[&ps, &zero], &[]);
        let q = g.select(&none, &zero, &q);
        return onnx::binary_columns(g, &q);
    }
    let w = g.doubles(weights.to_vec());
    let v = g.mul(p, &w);
    onnx::normalise_rows(g, &v, k)
}

/// `correct_keep_rates`: undoes a sampler's keep rates, `p_k ∝ p_k / r_k`.
pub fn correct_keep_rates(g: &mut Graph, p: &Value, keep_rates: &[f64]) -> Value {
    let w: Vec<f64> = keep_rates.iter().map(|r| 1.0 / r).collect();
    let ratio = if keep_rates.len() == 2 {
        keep_rates[0] / keep_rates[1]
    } else {
        1.0
    };
    reweight(g, p, &w, ratio)
}

/// `adjust_to_priors`: probabilities under `train` priors moved to `target`.
pub fn adjust_to_priors(g: &mut Graph, p: &Value, train: &[f64], target: &[f64]) -> Value {
    let w: Vec<f64> = target.iter().zip(train).map(|(t, s)| t / s).collect();
    let ratio = if w.len() == 2 { w[1] / w[0] } else { 1.0 };
    reweight(g, p, &w, ratio)
}

impl Platt {
    /// [`Platt::apply`] on a column of scores.
    pub fn apply_onnx(&self, g: &mut Graph, s: &Value) -> Value {
        let (a, b, zero, one) = (
            g.scalar(self.a),
            g.scalar(self.b),
            g.scalar(0.0),
            g.scalar(1.0),
        );
        let sa = g.mul(s, &a);
        let z = g.add(&sa, &b);
        let nonneg = g.op("GreaterOrEqual", &[&z, &zero], &[]);
        let mz = g.neg(&z);
        let e = g.exp(&mz);
        let d1 = g.add(&one, &e);
        let pos = g.div(&e, &d1);
        let ez = g.exp(&z);
        let d2 = g.add(&one, &ez);
        let neg = g.div(&one, &d2);
        g.select(&nonneg, &pos, &neg)
    }
}

impl Isotonic {
    /// [`Isotonic::apply`] on a column of scores (`[N, 1]`): the segment of
    /// each score found by counting the knots at or below it.
    pub fn apply_onnx(&self, g: &mut Graph, s: &Value) -> Value {
        let (xs, ys) = self.knots();
        let n = xs.len();
        let (first, last) = (g.scalar(xs[0]), g.scalar(xs[n - 1]));
        let (y_first, y_last) = (g.scalar(ys[0]), g.scalar(ys[n - 1]));
        let below = g.op("LessOrEqual", &[s, &first], &[]);
        if n == 1 {
            return g.select(&below, &y_first, &y_first);
        }
        let knots = g.constant(onnx::Tensor::Double(vec![1, n as i64], xs.to_vec()));
        let at_or_below = g.op("LessOrEqual", &[&knots, s], &[]);
        let counts = g.cast(&at_or_below, onnx::DataType::Int64);
        let hi = g.row_sum(&counts);
        let (lo_i, hi_i) = (g.ints(vec![1]), g.ints(vec![n as i64 - 1]));
        let hi = g.op("Min", &[&hi, &hi_i], &[]);
        let hi = g.op("Max", &[&hi, &lo_i], &[]);
        let lo = g.sub(&hi, &lo_i);
        let (xv, yv) = (g.doubles(xs.to_vec()), g.doubles(ys.to_vec()));
        let x0 = g.op("Gather", &[&xv, &lo], &[]);
        let x1 = g.op("Gather", &[&xv, &hi], &[]);
        let y0 = g.op("Gather", &[&yv, &lo], &[]);
        let y1 = g.op("Gather", &[&yv, &hi], &[]);
        // y0 + (y1 - y0) * (score - x0) / (x1 - x0)
        let dy = g.sub(&y1, &y0);
        let dx = g.sub(s, &x0);
        let num = g.mul(&dy, &dx);
        let span = g.sub(&x1, &x0);
        let step = g.div(&num, &span);
        let inside = g.add(&y0, &step);
        let above = g.op("GreaterOrEqual", &[s, &last], &[]);
        let upper = g.select(&above, &y_last, &inside);
        g.select(&below, &y_first, &upper)
    }
}

impl Calibrator {
    /// [`Calibrator::apply`] on a column of scores.
    pub fn apply_onnx(&self, g: &mut Graph, s: &Value) -> Value {
        match self {
            Calibrator::Platt(p) => p.apply_onnx(g, s),
            Calibrator::Isotonic(i) => i.apply_onnx(g, s),
        }
    }
}

impl OneVsRest {
    /// [`OneVsRest::transform`] of `p` (`[N, k]`).
    pub fn transform_onnx(&self, g: &mut Graph, p: &Value) -> Value {
        let k = self.n_classes;
        let zero = g.scalar(0.0);
        if k == 2 {
            let s = g.columns(p, 1, 2);
            let c = self.calibrators[0].apply_onnx(g, &s);
            let one = g.scalar(1.0);
            let c = g.op("Clip", &[&c, &zero, &one], &[]);
            return onnx::binary_columns(g, &c);
        }
        let cols: Vec<Value> = (0..k)
            .map(|c| {
                let s = g.columns(p, c, c + 1);
                let v = self.calibrators[c].apply_onnx(g, &s);
                g.op("Max", &[&v, &zero], &[])
            })
            .collect();
        let all = g.concat_columns(&cols.iter().collect::<Vec<_>>());
        onnx::normalise_rows(g, &all, k)
    }
}
