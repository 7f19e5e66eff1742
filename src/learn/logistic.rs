//! L2-regularised logistic regression, binary and multinomial.
//!
//! Objective (scikit-learn's `LogisticRegression(C=c, solver='lbfgs')`, see
//! its user guide, "Logistic regression", L2 penalty):
//!
//! ```text
//! min_{beta, b}  C * sum_i s_i * loss_i  +  0.5 * ||beta||^2
//! ```
//!
//! with `s_i` the row weight times its class weight, the intercept `b` not
//! penalised, `loss_i = log(1 + exp(z_i)) - y_i z_i` for two classes (one
//! coefficient vector, positive = the higher class id) and
//! `loss_i = logsumexp_c(z_ic) - z_{i,y_i}` with one vector per class for
//! more (the symmetric, over-parametrised multinomial; the penalty makes the
//! coefficients unique, and the intercepts are centred to sum to zero).
//!
//! The features are standardised inside the model (weighted mean and
//! standard deviation, 1 for a constant column) and the penalty is written
//! on the original scale, `sum_j (w_j / sd_j)^2`, so the optimum is exactly
//! scikit-learn's while the solver sees a well-conditioned problem. The
//! solver is Newton's method with a backtracking line search when there are
//! at most 50 parameters, else L-BFGS (module `lbfgs`), finished by
//! Newton steps if it stalls; both run to a tight gradient tolerance. The
//! stored coefficients are in the original feature scale.
//!
//! Classes absent from the fitted rows get probability 0; with a single
//! class present the model predicts it with probability 1.
//!
//! `signs=[debt_ratio:1, tenure:-1]` (two classes only) fixes the sign of
//! a column's coefficient: `1` keeps it `>= 0`, so the probability of the
//! positive class never falls as the column rises (the others held fixed),
//! `-1` keeps it `<= 0`, `0` leaves it free; categorical columns are
//! refused (module `constraints`). The fit is then the same objective over
//! the box those bounds make: projected Newton (Bertsekas, "Projected
//! Newton methods for optimization problems with simple constraints", SIAM
//! J. Control Optim. 20(2), 1982: a coordinate at its bound, or within a
//! small margin of it, with the gradient pushing outward takes a diagonally
//! scaled step, the others a Newton step on their block of the Hessian,
//! the line search follows the projection onto the box) up to 50
//! parameters, else a projected L-BFGS in the manner of L-BFGS-B (Byrd, Lu,
//! Nocedal & Zhu 1995; module `lbfgs`), finished by projected Newton. Both
//! stop on the projected gradient. A bound coefficient at its bound is
//! exactly `0.0`, and standardising divides by a positive deviation, which
//! keeps every sign exactly; the probability is then monotone in floating
//! point too (a sum of products each monotone in the column, then the
//! sigmoid). With no sign constrained the fit is the unconstrained one,
//! operation for operation.

use crate::check;
use crate::learn::shap::{Additive, Combine, Linear, Space};
use crate::learn::{shape, Classifier, Kind, LeafMap};
use crate::onnx::{self, Graph, Value};
use serde::{Deserialize, Serialize};

use crate::data::View;
use crate::error::{Error, Result};
use crate::learn::constraints::Monotone;
use crate::learn::lbfgs::{self, BoxBounds, Options};
use crate::learn::linalg::{add_scatter, cholesky_solve, dot};
use crate::learn::rows::{sigmoid, softmax, ClassWeight, Rows};
use crate::learn::{Learner, Model};
use crate::params::{params, Bounds, ParamType};
use crate::rng::Rng;

params! {
    /// The logistic regression learner (hyper-parameters).
    ///
    /// ```
    /// use rarity::data::Dataset;
    /// use rarity::learn::{Learner, logistic::Logistic};
    /// let ds = Dataset::from_rows((0..20).map(|i| vec![i as f64]).collect(),
    ///     (0..20).map(|i| u32::from(i >= 10 || i == 3)).collect(),
    ///     vec!["n".into(), "p".into()]).unwrap();
    /// let rows: Vec<usize> = (0..20).collect();
    /// let m = Logistic::default().fit(&ds.view(&rows), &mut rarity::rng::stream(0, 0)).unwrap();
    /// let p = m.predict_proba(&ds).unwrap();
    /// assert!(p.row(19)[1] > 0.9 && p.row(0)[1] < 0.2);
    /// ```
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct Logistic {
        /// Inverse regularisation strength.
        pub c: f64 = 1.0 => Bounds::positive(),
        /// Class weights multiplying the row weights in the loss.
        pub class_weight: ClassWeight = ClassWeight::None,
        /// Stop when the largest gradient component of the (averaged,
        /// standardised) objective is at most this. The default, `1e-6`, is
        /// tighter than scikit-learn's `1e-4` on its raw-scale gradient;
        /// `1e-10` reaches the optimum to about `1e-8` on well-posed problems
        /// (the fixture tests use it).
        pub tol: f64 = 1e-6 => Bounds::positive(),
        /// Iteration limit of the solver (100, scikit-learn's default; Newton
        /// needs far fewer, L-BFGS on large ill-conditioned problems may stop
        /// here short of `tol`, then finished by Newton steps when affordable).
        pub max_iter: usize = 100 => Bounds::at_least(1.0),
        /// Sign constraints on coefficients, by source column (two classes):
        /// `[debt_ratio:1, tenure:-1]` keeps the first `>= 0` (the positive
        /// class's probability never falls as it rises) and the second
        /// `<= 0`; `0` or an unnamed column is free.
        pub signs: Monotone = Monotone::default(),
    }
}

/// A fitted logistic regression.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogisticModel {
    k: usize,
    d: usize,
    /// Class ids of the outputs: `[neg, pos]` for the binary model (one
    /// coefficient row), one per row of `coef` for the multinomial one.
    classes: Vec<usize>,
    /// Row-major coefficients in the original feature scale.
    coef: Vec<f64>,
    intercept: Vec<f64>,
    /// The weighted mean of each feature over the training rows (before
    /// class weights), linear SHAP's reference; empty in files written
    /// before it was kept.
    /// Not written when empty, so such a file saved again is unchanged
    /// (the last field).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    means: Vec<f64>,
}

impl Kind for LogisticModel {
    const KIND: &'static str = "Logistic";
}

impl LogisticModel {
    /// The class ids the outputs refer to (see the module doc).
    pub fn classes(&self) -> &[usize] {
        &self.classes
    }

    /// Coefficients (row-major, `d` per output) in the original scale.
    pub fn coef(&self) -> &[f64] {
        &self.coef
    }

    /// Intercepts, one per output.
    pub fn intercept(&self) -> &[f64] {
        &self.intercept
    }
}

impl Classifier for LogisticModel {
    shape!(k, d);

    fn predict_row(&self, x: &[f64], out: &mut [f64]) {
        out.iter_mut().for_each(|o| *o = 0.0);
        let outputs = self.intercept.len();
        if outputs == 0 {
            out[self.classes[0]] = 1.0;
            return;
        }
        let z = |o: usize| -> f64 {
            self.intercept[o] + dot(&self.coef[o * self.d..(o + 1) * self.d], x)
        };
        if outputs == 1 {
            let p = sigmoid(z(0));
            out[self.classes[1]] = p;
            out[self.classes[0]] = 1.0 - p;
        } else {
            let mut zs: Vec<f64> = (0..outputs).map(z).collect();
            softmax(&mut zs);
            for (&c, p) in self.classes.iter().zip(zs) {
                out[c] = p;
            }
        }
    }

    /// The coefficients: the log-odds of two classes, else each class's
    /// margin (`leaf` does not apply).
    fn additive(&self, leaf: Option<LeafMap<'_>>) -> std::result::Result<Additive, String> {
        let _ = leaf;
        linear_form(
            &self.classes,
            self.coef.clone(),
            self.intercept.clone(),
            &self.means,
            self.d,
        )
    }

    /// Checks shapes.
    fn to_onnx(&self, g: &mut Graph, x: &Value) -> std::result::Result<Value, String> {
        let outputs = self.intercept.len();
        if outputs == 0 {
            let mut row = vec![0.0; self.k];
            row[self.classes[0]] = 1.0;
            return Ok(onnx::constant_rows(g, x, row));
        }
        let z = onnx::linear(g, x, &self.coef, &self.intercept);
        Ok(onnx_proba(g, &z, outputs, &self.classes, self.k))
    }

    fn validate(&self) -> std::result::Result<(), String> {
        let outputs = self.intercept.len();
        let want_classes = if outputs <= 1 { outputs + 1 } else { outputs };
        if self.classes.len() != want_classes
            || self.coef.len() != outputs * self.d
            || self.classes.iter().any(|&c| c >= self.k)
            || !(self.means.is_empty() || self.means.len() == self.d)
        {
            return Err("logistic model: inconsistent shapes".into());
        }
        check::classes("logistic model", &self.classes, self.k)?;
        check::finite("logistic coefficient", &self.coef)?;
        check::finite("logistic intercept", &self.intercept)
    }
}

impl Logistic {
    fn check(&self) -> Result<()> {
        if !(self.c.is_finite() && self.c > 0.0) {
            return Err(Error::invalid(format!(
                "logistic: c={} is invalid; expected a positive number",
                self.c
            )));
        }
        if self.tol.is_nan() || self.tol <= 0.0 || self.max_iter == 0 {
            return Err(Error::invalid(
                "logistic: tol must be > 0 and max_iter >= 1",
            ));
        }
        Ok(())
    }
}

/// Up to this many parameters the solver is Newton's method.
const NEWTON_PARAMS: usize = 50;

/// Above this many multiply-adds per Hessian (`rows x params^2`) Newton is
/// not used even to finish an L-BFGS run that stalled.
const NEWTON_WORK: f64 = 3e8;

/// The averaged objective at `th`; writes the gradient into `g` and, when
/// asked, the Hessian (row-major `params x params`) into `h`. `xt` holds the
/// standardised rows with a trailing 1 (row-major, `d + 1` columns).
#[allow(clippy::too_many_arguments)]
fn objective(
    rows: &Rows,
    xt: &[f64],
    target: &[usize],
    total: f64,
    pen: &[f64],
    outputs: usize,
    th: &[f64],
    g: &mut [f64],
    mut h: Option<&mut [f64]>,
) -> f64 {
    let d = rows.d;
    let stride = d + 1;
    // The binary Hessian is sum_i c_i xt_i xt_i^T, accumulated in one pass.
    let mut curv = if outputs == 1 && h.is_some() {
        vec![0.0; rows.n()]
    } else {
        Vec::new()
    };
    g.iter_mut().for_each(|v| *v = 0.0);
    if let Some(h) = h.as_deref_mut() {
        h.iter_mut().for_each(|v| *v = 0.0);
    }
    let mut f = 0.0;
    let mut z = vec![0.0; outputs];
    let mut p = vec![0.0; outputs];
    for (i, xt) in xt.chunks_exact(stride).enumerate() {
        let wi = rows.w[i] / total;
        for (o, zo) in z.iter_mut().enumerate() {
            let t = &th[o * stride..(o + 1) * stride];
            *zo = dot(t, xt);
        }
        if outputs == 1 {
            let y = (target[i] == 1) as u8 as f64;
            let zi = z[0];
            // log(1 + e^z) - y z, stably.
            f += wi * (zi.max(0.0) + (-zi.abs()).exp().ln_1p() - y * zi);
            p[0] = sigmoid(zi);
            let r = wi * (p[0] - y);
            for (gj, xj) in g.iter_mut().zip(xt) {
                *gj += r * xj;
            }
            if let Some(c) = curv.get_mut(i) {
                *c = wi * p[0] * (1.0 - p[0]);
            }
            continue;
        }
        let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let lse = m + z.iter().map(|v| (v - m).exp()).sum::<f64>().ln();
        f += wi * (lse - z[target[i]]);
        for o in 0..outputs {
            p[o] = (z[o] - lse).exp();
            let r = wi * (p[o] - (o == target[i]) as u8 as f64);
            for (gj, xj) in g[o * stride..(o + 1) * stride].iter_mut().zip(xt) {
                *gj += r * xj;
            }
        }
        if let Some(h) = h.as_deref_mut() {
            add_softmax_curvature(h, &p, wi, xt);
        }
    }
    if let Some(h) = h.as_deref_mut().filter(|_| outputs == 1) {
        add_scatter(h, xt, &curv, stride);
    }
    for o in 0..outputs {
        for j in 0..d {
            let w = th[o * stride + j];
            f += 0.5 * pen[j] * w * w;
            g[o * stride + j] += pen[j] * w;
        }
    }
    if let Some(h) = h {
        mirror_and_penalise(h, pen, outputs, stride);
    }
    f
}

/// Adds one row's share of the multiclass Hessian to the upper triangle of
/// `h` (row-major `params x params`): `wi` the row's weight, `p` its
/// probabilities over the outputs, `xt` its standardised values and 1.
fn add_softmax_curvature(h: &mut [f64], p: &[f64], wi: f64, xt: &[f64]) {
    let (outputs, stride) = (p.len(), xt.len());
    let params = outputs * stride;
    for a in 0..outputs {
        for b in a..outputs {
            let c = wi * p[a] * ((a == b) as u8 as f64 - p[b]);
            if c == 0.0 {
                continue;
            }
            for j in 0..stride {
                let cj = c * xt[j];
                // Diagonal blocks: the upper triangle only.
                let from = if a == b { j } else { 0 };
                let row = &mut h[(a * stride + j) * params + b * stride..];
                for (hv, xl) in row[from..stride].iter_mut().zip(&xt[from..]) {
                    *hv += cj * xl;
                }
            }
        }
    }
}

/// Completes a Hessian accumulated in its upper triangle: mirrors it and
/// adds the penalty `pen` of each weight (not the intercepts) to the
/// diagonal.
fn mirror_and_penalise(h: &mut [f64], pen: &[f64], outputs: usize, stride: usize) {
    let params = outputs * stride;
    let d = stride - 1;
    for a in 0..outputs {
        for j in 0..stride {
            for l in 0..j {
                h[(a * stride + j) * params + a * stride + l] =
                    h[(a * stride + l) * params + a * stride + j];
            }
        }
        for b in 0..a {
            for j in 0..stride {
                for l in 0..stride {
                    h[(a * stride + j) * params + b * stride + l] =
                        h[(b * stride + l) * params + a * stride + j];
                }
            }
        }
        for j in 0..d {
            h[(a * stride + j) * params + a * stride + j] += pen[j];
        }
    }
}

/// Newton's method with a backtracking (Armijo) line search, from `th`.
fn newton<F>(th: &mut [f64], tol: f64, max_iter: usize, mut eval: F)
where
    F: FnMut(&[f64], &mut [f64], Option<&mut [f64]>) -> f64,
{
    let n = th.len();
    let mut g = vec![0.0; n];
    let mut h = vec![0.0; n * n];
    let mut gn = vec![0.0; n];
    let mut next = vec![0.0; n];
    for _ in 0..max_iter {
        let f = eval(th, &mut g, Some(&mut h));
        if g.iter().fold(0.0f64, |m, v| m.max(v.abs())) <= tol {
            return;
        }
        let step = cholesky_solve(&h, &g);
        let gd: f64 = -lbfgs::dot(&g, &step);
        let mut t = 1.0;
        let mut moved = false;
        for _ in 0..60 {
            for i in 0..n {
                next[i] = th[i] - t * step[i];
            }
            let fnew = eval(&next, &mut gn, None);
            if fnew.is_finite()
                && (fnew <= f + 1e-4 * t * gd || fnew <= f + 1e-14 * f.abs().max(1.0))
            {
                moved = true;
                break;
            }
            t *= 0.5;
        }
        if !moved {
            return;
        }
        th.copy_from_slice(&next);
    }
}

/// Projected Newton within `bounds` from `th` (Bertsekas 1982, see the
/// module doc), until the projected gradient is at most `tol`.
fn projected_newton<F>(th: &mut [f64], bounds: &BoxBounds, tol: f64, max_iter: usize, mut eval: F)
where
    F: FnMut(&[f64], &mut [f64], Option<&mut [f64]>) -> f64,
{
    let n = th.len();
    for (i, v) in th.iter_mut().enumerate() {
        *v = bounds.clamp(i, *v);
    }
    let (mut g, mut gn, mut next) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let mut h = vec![0.0; n * n];
    for _ in 0..max_iter {
        let f = eval(th, &mut g, Some(&mut h));
        if bounds.gradient_norm(th, &g) <= tol {
            return;
        }
        let step = projected_newton_step(th, &g, &h, bounds);
        // The predicted decrease: the Newton part's g.s per unit step,
        // the scaled part's g.(th - next) as projected.
        let free: Vec<bool> = step.iter().map(|(_, held)| !held).collect();
        let gs: f64 = (0..n).filter(|&i| free[i]).map(|i| g[i] * step[i].0).sum();
        let mut t = 1.0;
        let mut moved = false;
        for _ in 0..60 {
            for i in 0..n {
                next[i] = bounds.clamp(i, th[i] - t * step[i].0);
            }
            let fnew = eval(&next, &mut gn, None);
            let held: f64 = (0..n)
                .filter(|&i| !free[i])
                .map(|i| g[i] * (th[i] - next[i]))
                .sum();
            if fnew.is_finite()
                && (fnew <= f - 1e-4 * (t * gs + held) || fnew <= f + 1e-14 * f.abs().max(1.0))
            {
                moved = true;
                break;
            }
            t *= 0.5;
        }
        if !moved {
            return;
        }
        th.copy_from_slice(&next);
    }
}

/// The projected Newton step at `th` (gradient `g`, Hessian `h`): per
/// coordinate, its step (subtracted) and whether it is held, i.e. within a
/// margin of a bound the gradient pushes against; held coordinates step by
/// their gradient over their curvature, the others by Newton's step on
/// their block of the Hessian.
fn projected_newton_step(th: &[f64], g: &[f64], h: &[f64], bounds: &BoxBounds) -> Vec<(f64, bool)> {
    let n = th.len();
    // Bertsekas's margin: the size of the projected gradient step, at most
    // 1e-3 (the standardised scale).
    let margin = (0..n)
        .map(|i| (th[i] - bounds.clamp(i, th[i] - g[i])).abs())
        .fold(0.0f64, f64::max)
        .min(1e-3);
    let held: Vec<bool> = (0..n)
        .map(|i| {
            (th[i] - bounds.lower[i] <= margin && g[i] > 0.0)
                || (bounds.upper[i] - th[i] <= margin && g[i] < 0.0)
        })
        .collect();
    let free: Vec<usize> = (0..n).filter(|&i| !held[i]).collect();
    let m = free.len();
    let mut sub = vec![0.0; m * m];
    for (a, &i) in free.iter().enumerate() {
        for (b, &j) in free.iter().enumerate() {
            sub[a * m + b] = h[i * n + j];
        }
    }
    let gf: Vec<f64> = free.iter().map(|&i| g[i]).collect();
    let sf = cholesky_solve(&sub, &gf);
    let mut out: Vec<(f64, bool)> = (0..n)
        .map(|i| {
            let c = h[i * n + i];
            (if c > 0.0 { g[i] / c } else { g[i] }, true)
        })
        .collect();
    for (a, &i) in free.iter().enumerate() {
        out[i] = (sf[a], false);
    }
    out
}

/// The weighted mean of each column of `rows`.
pub(crate) fn column_means(rows: &Rows) -> Vec<f64> {
    let total: f64 = rows.w.iter().sum();
    let mut mean = vec![0.0; rows.d];
    for i in 0..rows.n() {
        for (m, v) in mean.iter_mut().zip(rows.row(i)) {
            *m += rows.w[i] * v;
        }
    }
    mean.iter_mut().for_each(|m| *m /= total);
    mean
}

/// The additive form of linear scores `coef . x + intercept` over the
/// present `classes` (one row for two classes: the log-odds; else one per
/// class: the softmax margins) with the training means `means`, or why
/// there is none.
pub(crate) fn linear_form(
    classes: &[usize],
    coef: Vec<f64>,
    intercept: Vec<f64>,
    means: &[f64],
    d: usize,
) -> std::result::Result<Additive, String> {
    if intercept.is_empty() {
        return Err("a linear model of one class".into());
    }
    if means.len() != d {
        return Err(
            "linear models saved before rarity kept the training means, which \
             contributions are measured from: fit the model again with this version"
                .into(),
        );
    }
    let space = if intercept.len() == 1 {
        Space::LogOdds
    } else {
        Space::Margins
    };
    Ok(Additive {
        space,
        classes: classes.to_vec(),
        combine: Combine::Sum,
        bias: intercept,
        trees: Vec::new(),
        linear: Some(Linear {
            coef,
            mean: means.to_vec(),
        }),
    })
}

/// Weighted mean and standard deviation of each column (sd 1 when 0).
pub(crate) fn standardise(rows: &mut Rows) -> (Vec<f64>, Vec<f64>) {
    let (n, d) = (rows.n(), rows.d);
    let total: f64 = rows.w.iter().sum();
    let mut mean = vec![0.0; d];
    for i in 0..n {
        for (m, v) in mean.iter_mut().zip(rows.row(i)) {
            *m += rows.w[i] * v;
        }
    }
    mean.iter_mut().for_each(|m| *m /= total);
    let mut var = vec![0.0; d];
    for i in 0..n {
        for j in 0..d {
            let r = rows.x[i * d + j] - mean[j];
            var[j] += rows.w[i] * r * r;
        }
    }
    let sd: Vec<f64> = var
        .iter()
        .map(|v| {
            let s = (v / total).sqrt();
            if s > 0.0 && s.is_finite() {
                s
            } else {
                1.0
            }
        })
        .collect();
    for i in 0..n {
        for j in 0..d {
            let v = &mut rows.x[i * d + j];
            *v = (*v - mean[j]) / sd[j];
        }
    }
    (mean, sd)
}

/// The box of the parameters `outputs x (d + 1)` (weights, then the
/// intercept) that the per-feature `signs` make, or `None` when none is
/// constrained (a constraint is refused beyond one output before this).
fn sign_bounds(signs: &[i8], outputs: usize, stride: usize) -> Option<BoxBounds> {
    if outputs != 1 || signs.iter().all(|&s| s == 0) {
        return None;
    }
    let mut lower = vec![f64::NEG_INFINITY; stride];
    let mut upper = vec![f64::INFINITY; stride];
    for (j, &s) in signs.iter().enumerate() {
        match s {
            1 => lower[j] = 0.0,
            -1 => upper[j] = 0.0,
            _ => {}
        }
    }
    Some(BoxBounds { lower, upper })
}

/// An objective as [`objective`] gives it: value, gradient, Hessian.
trait Eval: Fn(&[f64], &mut [f64], Option<&mut [f64]>) -> f64 + Copy {}

impl<F: Fn(&[f64], &mut [f64], Option<&mut [f64]>) -> f64 + Copy> Eval for F {}

impl Logistic {
    /// The solver's options for L-BFGS.
    fn options(&self) -> Options {
        Options {
            gtol: self.tol,
            max_iter: self.max_iter,
            memory: 10,
        }
    }

    /// Minimises `eval` from `theta`: Newton when the parameters are few;
    /// otherwise L-BFGS, polished by Newton if it stalls short of the
    /// tolerance and Newton is `affordable`.
    fn solve(&self, theta: &mut [f64], affordable: bool, eval: impl Eval) {
        // L-BFGS runs only beyond NEWTON_PARAMS (`||` short-circuits).
        let newton_now = theta.len() <= NEWTON_PARAMS
            || (!lbfgs::minimize(theta, self.options(), |th, g| eval(th, g, None)) && affordable);
        if newton_now {
            newton(theta, self.tol, self.max_iter, eval);
        }
    }

    /// [`Logistic::solve`] within `bounds`, by their projected forms.
    fn solve_bounded(
        &self,
        theta: &mut [f64],
        bounds: &BoxBounds,
        affordable: bool,
        eval: impl Eval,
    ) {
        let (tol, max_iter) = (self.tol, self.max_iter);
        let newton_now = theta.len() <= NEWTON_PARAMS
            || (!lbfgs::minimize_bounded(theta, bounds, self.options(), |th, g| eval(th, g, None))
                && affordable);
        if newton_now {
            projected_newton(theta, bounds, tol, max_iter, eval);
        }
    }
}

impl Learner for Logistic {
    fn fit(&self, data: &View<'_>, _rng: &mut Rng) -> Result<Model> {
        self.check()?;
        let mut rows = Rows::collapsed(data, "logistic regression")?;
        let means = column_means(&rows);
        let factors = self.class_weight.factors(&rows)?;
        rows.scale_classes(&factors);
        let classes = rows.present();
        let (k, d) = (rows.k, rows.d);
        let signs = (self.signs).directions_for(data.data().schema(), k, "logistic signs")?;
        if classes.len() < 2 {
            return Ok(Model::new(LogisticModel {
                k,
                d,
                classes,
                coef: Vec::new(),
                intercept: Vec::new(),
                means,
            }));
        }
        let (mean, sd) = standardise(&mut rows);
        let total: f64 = rows.w.iter().sum();
        let outputs = if classes.len() == 2 { 1 } else { classes.len() };
        let mut slot = vec![usize::MAX; k];
        for (s, &c) in classes.iter().enumerate() {
            slot[c] = s;
        }
        let target: Vec<usize> = rows.y.iter().map(|&c| slot[c]).collect();
        // Penalty on the standardised weights: (0.5 / C) * (w_j / sd_j)^2,
        // everything divided by the total weight.
        let pen: Vec<f64> = sd.iter().map(|s| 1.0 / (self.c * total * s * s)).collect();
        let stride = d + 1;
        let params = outputs * stride;
        let mut theta = vec![0.0; params];
        let mut xt = Vec::with_capacity(rows.n() * stride);
        for i in 0..rows.n() {
            xt.extend_from_slice(rows.row(i));
            xt.push(1.0);
        }
        let eval = |th: &[f64], g: &mut [f64], mut h: Option<&mut [f64]>| -> f64 {
            objective(
                &rows,
                &xt,
                &target,
                total,
                &pen,
                outputs,
                th,
                g,
                h.as_deref_mut(),
            )
        };
        let affordable = (rows.n() as f64) * (params * params) as f64 <= NEWTON_WORK;
        match sign_bounds(&signs, outputs, stride) {
            None => self.solve(&mut theta, affordable, eval),
            Some(bounds) => self.solve_bounded(&mut theta, &bounds, affordable, eval),
        }
        // Back to the original scale: beta_j = w_j / sd_j,
        // b = w_0 - sum_j beta_j mean_j.
        let mut coef = Vec::with_capacity(outputs * d);
        let mut intercept = Vec::with_capacity(outputs);
        for o in 0..outputs {
            let t = &theta[o * stride..(o + 1) * stride];
            let mut b = t[d];
            for j in 0..d {
                let beta = t[j] / sd[j];
                b -= beta * mean[j];
                coef.push(beta);
            }
            intercept.push(b);
        }
        if outputs > 1 {
            let mid = intercept.iter().sum::<f64>() / outputs as f64;
            intercept.iter_mut().for_each(|b| *b -= mid);
        }
        Ok(Model::new(LogisticModel {
            k,
            d,
            classes,
            coef,
            intercept,
            means,
        }))
    }

    fn name(&self) -> String {
        let mut s = format!("logistic(c={}", self.c);
        if self.class_weight != ClassWeight::None {
            s += &format!(",class_weight={}", self.class_weight.to_text());
        }
        if !self.signs.is_empty() {
            s += &format!(",signs={}", self.signs.to_text());
        }
        s + ")"
    }

    /// Maximum likelihood without class weights: calibrated on the
    /// training distribution (class weights shift the priors).
    fn calibrated(&self) -> bool {
        self.class_weight == ClassWeight::None
    }

    /// `signs=`: a coefficient of sign s makes the probability monotone
    /// in its column in the direction s.
    fn monotone(&self) -> &[(String, i8)] {
        &self.signs.0
    }
}

/// The ONNX probabilities of `outputs` linear scores `z` of a model over
/// `k` classes that saw `classes`: the sigmoid of a single score (the
/// positive class), else the softmax, scattered into class columns.
pub(crate) fn onnx_proba(
    g: &mut Graph,
    z: &Value,
    outputs: usize,
    classes: &[usize],
    k: usize,
) -> Value {
    let p = if outputs == 1 {
        let s = onnx::sigmoid(g, z);
        onnx::binary_columns(g, &s)
    } else {
        onnx::softmax_rows(g, z, outputs)
    };
    onnx::scatter_columns(g, &p, classes, k)
}

#[cfg(test)]
#[path = "logistic/tests.rs"]
mod tests;
