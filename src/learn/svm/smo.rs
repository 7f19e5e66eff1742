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
//!
//! Shrinking (Joachims 1999; LIBSVM's rule, Chang & Lin 2011, section 5.1):
//! every `min(n, 1000)` iterations the variables at a bound whose gradient
//! says they cannot join a violating pair are set aside, and selection,
//! gradient updates and kernel columns cover only the active ones. The
//! first time the violation falls below `10 eps`, and whenever the active
//! problem is solved, the gradient of the inactive variables is rebuilt
//! from the multipliers and every variable is restored; the solver stops
//! only when the whole problem meets `eps`, so shrinking changes the work,
//! not the tolerance met.

use super::kernel::{Cache, Gram, Kernel};
use crate::learn::linalg::{dot, BLOCK};

/// Solver output: the multipliers and the gradient `Q a + p` at them.
pub(crate) struct Solution {
    pub alpha: Vec<f64>,
    pub grad: Vec<f64>,
    /// Whether the tolerance was met (else the iteration limit stopped it).
    pub converged: bool,
}

/// The problem; `alpha` is a feasible start.
pub(crate) struct Dual<'g, 'a> {
    pub gram: &'g Gram<'a>,
    pub y: Vec<f64>,
    pub p: Vec<f64>,
    pub upper: Vec<f64>,
    pub scale: f64,
    pub alpha: Vec<f64>,
    /// Iteration limit; `None`: LIBSVM's `max(100 n, 10^7)`.
    pub max_iter: Option<usize>,
}

const TAU: f64 = 1e-12;

/// Solves the dual to tolerance `eps` with a kernel cache of `cache_bytes`.
pub(crate) fn solve(prob: Dual<'_, '_>, eps: f64, cache_bytes: usize) -> Solution {
    let n = prob.y.len();
    let mut st = State {
        s: prob.scale,
        y: &prob.y,
        c: &prob.upper,
        p: &prob.p,
        diag: (0..n).map(|i| prob.gram.entry(i, i)).collect(),
        a: prob.alpha.clone(),
        g: prob.p.clone(),
        active: (0..n).collect(),
        cache: Cache::new(prob.gram, cache_bytes),
    };
    let start: Vec<usize> = (0..n).filter(|&i| st.a[i] != 0.0).collect();
    if prob.gram.kernel == Kernel::Linear {
        let all: Vec<usize> = (0..n).collect();
        st.add_linear(&all);
    } else {
        st.add_columns(&start);
    }
    let every = n.clamp(1, 1000);
    let mut counter = every;
    let mut unshrunk = false;
    let max_iter = (100 * n).max(10_000_000);
    let mut converged = false;
    for _ in 0..prob.max_iter.unwrap_or(max_iter) {
        // A cancelled fit is discarded by its caller ([`crate::cancel`]).
        if crate::cancel::requested() {
            break;
        }
        counter -= 1;
        if counter == 0 {
            counter = every;
            st.shrink(eps, &mut unshrunk);
        }
        let (i, j) = match st.select(eps) {
            Some(pair) => pair,
            None if st.active.len() == n => {
                converged = true;
                break;
            }
            None => {
                // Solved on the active set: check the whole problem.
                st.restore();
                match st.select(eps) {
                    Some(pair) => {
                        counter = 1;
                        pair
                    }
                    None => {
                        converged = true;
                        break;
                    }
                }
            }
        };
        st.step(i, j);
    }
    st.restore();
    Solution {
        alpha: st.a,
        grad: st.g,
        converged,
    }
}

/// The solver's working state.
struct State<'p, 'g, 'a> {
    s: f64,
    y: &'p [f64],
    c: &'p [f64],
    p: &'p [f64],
    diag: Vec<f64>,
    a: Vec<f64>,
    /// The gradient `Q a + p`, current at the active variables.
    g: Vec<f64>,
    /// The active variables, in increasing order.
    active: Vec<usize>,
    cache: Cache<'g, 'a>,
}

impl State<'_, '_, '_> {
    /// Adds `sum_j Q_tj a_j` to the gradient from kernel columns computed
    /// [`BLOCK`] at a time (`nonzero` lists the `j` with `a_j != 0`).
    fn add_columns(&mut self, nonzero: &[usize]) {
        for block in nonzero.chunks(BLOCK) {
            self.cache.touch_all(block);
            for &i in block {
                let col = self.cache.get(i);
                let f = self.s * self.y[i] * self.a[i];
                for ((gt, yt), kt) in self.g.iter_mut().zip(self.y).zip(col) {
                    *gt += f * yt * *kt as f64;
                }
            }
        }
    }

    /// The linear kernel's shortcut for the same sum at the variables `at`:
    /// `s y_t x_t . w` with `w = sum_j a_j y_j x_j`, `O(n d)` instead of one
    /// kernel column per non-zero multiplier.
    fn add_linear(&mut self, at: &[usize]) {
        let gram = self.cache.gram();
        let mut w = vec![0.0; gram.d];
        for (j, &aj) in self.a.iter().enumerate() {
            if aj != 0.0 {
                let f = aj * self.y[j];
                for (wv, xv) in w.iter_mut().zip(gram.row(j)) {
                    *wv += f * xv;
                }
            }
        }
        for &t in at {
            self.g[t] += self.s * self.y[t] * dot(gram.row(t), &w);
        }
    }

    /// Whether variable `t` may move up (in the direction of `y_t`).
    fn up(&self, t: usize) -> bool {
        if self.y[t] > 0.0 {
            self.a[t] < self.c[t]
        } else {
            self.a[t] > 0.0
        }
    }

    /// Whether variable `t` may move down.
    fn low(&self, t: usize) -> bool {
        if self.y[t] > 0.0 {
            self.a[t] > 0.0
        } else {
            self.a[t] < self.c[t]
        }
    }

    /// The WSS2 pair among the active variables, or `None` when their
    /// maximal violation is below `eps`.
    fn select(&mut self, eps: f64) -> Option<(usize, usize)> {
        let (y, g) = (self.y, &self.g);
        // i: the most violating variable that can move up.
        let mut gmax = f64::NEG_INFINITY;
        let mut i = usize::MAX;
        for &t in &self.active {
            if self.up(t) && -y[t] * g[t] >= gmax {
                gmax = -y[t] * g[t];
                i = t;
            }
        }
        if i == usize::MAX {
            return None;
        }
        self.cache.touch(i, &self.active);
        let ki = self.cache.get(i);
        // j: second-order choice among the variables that can move down.
        let mut gmin = f64::INFINITY;
        let mut j = usize::MAX;
        let mut best = f64::INFINITY;
        for &t in &self.active {
            if !self.low(t) {
                continue;
            }
            let v = -y[t] * g[t];
            gmin = gmin.min(v);
            let b = gmax - v;
            if b > 0.0 {
                let mut at = self.s * (self.diag[i] + self.diag[t] - 2.0 * ki[t] as f64);
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
        (gmax - gmin >= eps && j != usize::MAX).then_some((i, j))
    }

    /// The clipped Newton step on the pair `(i, j)` along `u_i = y_i`,
    /// `u_j = -y_j`, and the gradient update of the active variables.
    fn step(&mut self, i: usize, j: usize) {
        let (y, c, a) = (self.y, self.c, &mut self.a);
        self.cache.touch(j, &self.active);
        let ki = self.cache.get(i);
        let kj = self.cache.get(j);
        let mut at = self.s * (self.diag[i] + self.diag[j] - 2.0 * ki[j] as f64);
        if at <= 0.0 {
            at = TAU;
        }
        let mut delta = (-y[i] * self.g[i] + y[j] * self.g[j]) / at;
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
        let f = self.s * delta;
        for &t in &self.active {
            self.g[t] += f * y[t] * (ki[t] - kj[t]) as f64;
        }
    }

    /// Sets aside the bounded variables that cannot join a violating pair
    /// (LIBSVM's `be_shrunk`). The first time the violation is below
    /// `10 eps` every variable is restored beforehand.
    fn shrink(&mut self, eps: f64, unshrunk: &mut bool) {
        let (y, g) = (self.y, &self.g);
        // m(a) over the up set and -M(a) over the low set.
        let (mut gmax1, mut gmax2) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        for &t in &self.active {
            if self.up(t) {
                gmax1 = gmax1.max(-y[t] * g[t]);
            }
            if self.low(t) {
                gmax2 = gmax2.max(y[t] * g[t]);
            }
        }
        if !*unshrunk && gmax1 + gmax2 <= 10.0 * eps {
            *unshrunk = true;
            self.restore();
        }
        let mut active = std::mem::take(&mut self.active);
        active.retain(|&t| {
            let v = -self.y[t] * self.g[t];
            match (self.up(t), self.low(t)) {
                // Can only move down: never below m(a).
                (false, true) => v <= gmax1,
                // Can only move up: never above M(a) = -gmax2.
                (true, false) => -v <= gmax2,
                _ => true,
            }
        });
        self.active = active;
    }

    /// Rebuilds the gradient of the inactive variables from the multipliers
    /// and makes every variable active again.
    fn restore(&mut self) {
        let n = self.a.len();
        if self.active.len() == n {
            return;
        }
        let mut inactive = Vec::with_capacity(n - self.active.len());
        let mut next = self.active.iter().peekable();
        for t in 0..n {
            if next.peek() == Some(&&t) {
                next.next();
            } else {
                inactive.push(t);
            }
        }
        for &t in &inactive {
            self.g[t] = self.p[t];
        }
        if self.cache.kernel() == Kernel::Linear {
            self.add_linear(&inactive);
        } else {
            for j in 0..n {
                if self.a[j] != 0.0 {
                    self.cache.complete(j, &inactive);
                    let col = self.cache.get(j);
                    let f = self.s * self.y[j] * self.a[j];
                    for &t in &inactive {
                        self.g[t] += f * self.y[t] * col[t] as f64;
                    }
                }
            }
        }
        self.active = (0..n).collect();
        self.cache.new_epoch();
    }
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
