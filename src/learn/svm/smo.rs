//! Sequential minimal optimisation for the SVM-type dual
//!
//! ```text
//! min_a  0.5 a^T Q a + p^T a   s.t.  y^T a = const,  0 <= a_i <= C_i,
//! Q_ij = s y_i y_j K(x_i, x_j),  y_i = +-1
//! ```
//!
//! (C-SVC: `s = 1`, `p = -1`; SVDD: `s = 2`, `p_i = -K_ii`, `y = 1`).
//! Each iteration picks the pair by the second-order working set selection
//! "WSS2" of Fan, Chen & Lin (2005, "Working set selection using second
//! order information for training SVM", JMLR 6, Algorithm 1 with eq. (16)):
//! `i` maximises `-y_t G_t` over the variables that may move up, `j`
//! minimises `-b_t^2 / a_t` over those that may move down, with
//! `b_t = -y_i G_i + y_t G_t > 0` and `a_t = s (K_ii + K_tt - 2 K_it)`
//! (`tau = 1e-12` when not positive). The pair moves along `y_i a_i +
//! y_j a_j = const` by the clipped Newton step; it stops when the maximal
//! violation `m(a) - M(a)` is below `eps` (LIBSVM's default `1e-3`).

use super::kernel::{Cache, Gram};

/// Solver output: the multipliers and the gradient `Q a + p` at them.
pub(crate) struct Solution {
    pub alpha: Vec<f64>,
    pub grad: Vec<f64>,
}

/// The problem; `alpha` is a feasible start.
pub(crate) struct Dual<'g, 'a> {
    pub gram: &'g Gram<'a>,
    pub y: Vec<f64>,
    pub p: Vec<f64>,
    pub upper: Vec<f64>,
    pub scale: f64,
    pub alpha: Vec<f64>,
}

const TAU: f64 = 1e-12;

/// Solves the dual to tolerance `eps` with a kernel cache of `cache_bytes`.
pub(crate) fn solve(prob: Dual<'_, '_>, eps: f64, cache_bytes: usize) -> Solution {
    let n = prob.y.len();
    let s = prob.scale;
    let y = &prob.y;
    let c = &prob.upper;
    let mut a = prob.alpha;
    let diag: Vec<f64> = (0..n).map(|i| prob.gram.entry(i, i)).collect();
    let mut cache = Cache::new(prob.gram, cache_bytes);
    let mut g = prob.p.clone();
    for i in 0..n {
        if a[i] != 0.0 {
            cache.touch(i);
            let col = cache.get(i);
            for t in 0..n {
                g[t] += s * y[t] * y[i] * a[i] * col[t] as f64;
            }
        }
    }
    let up = |a: &[f64], t: usize| if y[t] > 0.0 { a[t] < c[t] } else { a[t] > 0.0 };
    let low = |a: &[f64], t: usize| if y[t] > 0.0 { a[t] > 0.0 } else { a[t] < c[t] };
    let max_iter = (100 * n).max(10_000_000);
    for _ in 0..max_iter {
        // i: the most violating variable that can move up.
        let mut gmax = f64::NEG_INFINITY;
        let mut i = usize::MAX;
        for t in 0..n {
            if up(&a, t) && -y[t] * g[t] >= gmax {
                gmax = -y[t] * g[t];
                i = t;
            }
        }
        if i == usize::MAX {
            break;
        }
        cache.touch(i);
        let ki = cache.get(i);
        // j: second-order choice among the variables that can move down.
        let mut gmin = f64::INFINITY;
        let mut j = usize::MAX;
        let mut best = f64::INFINITY;
        for t in 0..n {
            if !low(&a, t) {
                continue;
            }
            let v = -y[t] * g[t];
            gmin = gmin.min(v);
            let b = gmax - v;
            if b > 0.0 {
                let mut at = s * (diag[i] + diag[t] - 2.0 * ki[t] as f64);
                if at <= 0.0 {
                    at = TAU;
                }
                let obj = -b * b / at;
                if obj <= best {
                    best = obj;
                    j = t;
                }
            }
        }
        if gmax - gmin < eps || j == usize::MAX {
            break;
        }
        // Clipped Newton step along u_i = y_i, u_j = -y_j.
        let mut at = s * (diag[i] + diag[j] - 2.0 * ki[j] as f64);
        if at <= 0.0 {
            at = TAU;
        }
        let mut delta = (gmax + y[j] * g[j]) / at;
        let room_i = if y[i] > 0.0 { c[i] - a[i] } else { a[i] };
        let room_j = if y[j] > 0.0 { a[j] } else { c[j] - a[j] };
        let (mut clip_i, mut clip_j) = (false, false);
        if delta >= room_i {
            delta = room_i;
            clip_i = true;
        }
        if delta >= room_j {
            delta = room_j;
            clip_j = true;
            clip_i = room_i == room_j;
        }
        a[i] += y[i] * delta;
        a[j] -= y[j] * delta;
        // Land exactly on a bound that was hit.
        if clip_i {
            a[i] = if y[i] > 0.0 { c[i] } else { 0.0 };
        }
        if clip_j {
            a[j] = if y[j] > 0.0 { 0.0 } else { c[j] };
        }
        cache.touch(j);
        let ki = cache.get(i);
        let kj = cache.get(j);
        let f = s * delta;
        for t in 0..n {
            g[t] += f * y[t] * (ki[t] - kj[t]) as f64;
        }
    }
    Solution { alpha: a, grad: g }
}

/// The offset `rho` of the decision `sum_i a_i y_i K(x_i, x) - rho`: the
/// mean of `y_i G_i` over free variables, else the midpoint of the bounds
/// the KKT conditions leave (LIBSVM's rule).
pub(crate) fn rho(sol: &Solution, y: &[f64], upper: &[f64]) -> f64 {
    let (mut ub, mut lb) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut sum, mut free) = (0.0, 0usize);
    for t in 0..y.len() {
        let yg = y[t] * sol.grad[t];
        let at_upper = sol.alpha[t] >= upper[t];
        let at_lower = sol.alpha[t] <= 0.0;
        if at_upper {
            if y[t] < 0.0 {
                ub = ub.min(yg);
            } else {
                lb = lb.max(yg);
            }
        } else if at_lower {
            if y[t] > 0.0 {
                ub = ub.min(yg);
            } else {
                lb = lb.max(yg);
            }
        } else {
            sum += yg;
            free += 1;
        }
    }
    if free > 0 {
        sum / free as f64
    } else {
        (ub + lb) / 2.0
    }
}
