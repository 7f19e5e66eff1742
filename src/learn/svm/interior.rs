//! An interior-point start for the linear C-SVC dual.
//!
//! SMO (module `smo`) moves two multipliers at a time. With the linear
//! kernel on unscaled features (`K` entries of 10^6 and more) and `C = 1`,
//! the dual is so ill-conditioned that it needs millions of such steps, on
//! LIBSVM as here (minutes for pima-sized sets). This module first solves
//!
//! ```text
//! min_a  0.5 ||V^T a||^2 - 1^T a   s.t.  y^T a = 0,  0 <= a_i <= C_i,
//! V_i = y_i (x_i - m)
//! ```
//!
//! by a primal-dual interior-point method, Mehrotra's predictor-corrector
//! (Mehrotra 1992, "On the implementation of a primal-dual interior point
//! method", SIAM J. Optim. 2(4)); the Newton systems `(D + V V^T) da = r`
//! (`D` diagonal) are solved in `O(n d^2)` through the Sherman-Morrison-
//! Woodbury identity with a `d x d` Cholesky factor, as Ferris & Munson
//! (2003, "Interior-point methods for massive support vector machines",
//! SIAM J. Optim. 13(3)) do for linear SVMs. Centring the features on their
//! mean `m` changes `||V^T a||^2` only by terms in `y^T a`, so on the
//! feasible set it is the C-SVC dual; it keeps `V` well scaled.
//!
//! The iterate is then rounded to the bounds it approaches, made to satisfy
//! `y^T a = 0` again, and handed to SMO as its starting point: SMO's
//! stopping rule (maximal KKT violation below its tolerance) still decides
//! when the problem is solved, and from this start it needs few steps.

use crate::learn::linalg::{cholesky_apply, cholesky_factor};

/// Iteration limit of the interior-point method.
const MAX_ITER: usize = 100;
/// Stop when the average complementarity is below this times `max C_i` and
/// the residuals are below this (relative).
const TOL: f64 = 1e-10;
/// Largest free set solved for directly by [`Newton::exact`].
const MAX_FREE: usize = 400;
/// Changes of partition [`Newton::exact`] makes before giving up.
const MAX_SWAPS: usize = 50;
/// Sign error of a reduced gradient tolerated at a bound by
/// [`Newton::exact`] (SMO's default tolerance is `1e-3`).
const FREE_TOL: f64 = 1e-5;
/// Iterations without a better iterate after which the method stops, once
/// the complementarity is below `LATE` times its initial value.
const STALL: usize = 4;
const LATE: f64 = 1e-6;
/// Fraction of the step to the boundary taken.
const STEP: f64 = 0.995;
/// A multiplier within this fraction of `C_i` of a bound is put on it.
const SNAP: f64 = 1e-7;

/// A feasible starting point (`0 <= a_i <= upper_i`, `y^T a = 0`) close to
/// the optimum of the C-SVC dual with the linear kernel on rows `x`
/// (row-major, `d` columns) with labels `y` (+-1), or `None` when the method
/// breaks down (SMO then starts from zero).
pub(crate) fn start(x: &[f64], d: usize, y: &[f64], upper: &[f64]) -> Option<Vec<f64>> {
    let n = y.len();
    let idx: Vec<usize> = (0..n).filter(|&i| upper[i] > 0.0).collect();
    let m = idx.len();
    if m < 2 || d == 0 {
        return None;
    }
    let mut mean = vec![0.0; d];
    for &i in &idx {
        for (mj, xj) in mean.iter_mut().zip(&x[i * d..(i + 1) * d]) {
            *mj += xj;
        }
    }
    mean.iter_mut().for_each(|v| *v /= m as f64);
    let mut v = Vec::with_capacity(m * d);
    for &i in &idx {
        v.extend(
            x[i * d..(i + 1) * d]
                .iter()
                .zip(&mean)
                .map(|(a, b)| y[i] * (a - b)),
        );
    }
    let sys = Newton {
        v: &v,
        d,
        y: idx.iter().map(|&i| y[i]).collect(),
    };
    let c: Vec<f64> = idx.iter().map(|&i| upper[i]).collect();
    let a = round(sys.solve(&c)?, &c, &sys.y)?;
    // The exact solution for the free set the iterate shows, if it is better.
    let a = match sys.exact(&a, &c) {
        Some(e) if sys.violation(&e, &c) < sys.violation(&a, &c) => e,
        _ => a,
    };
    let mut alpha = vec![0.0; n];
    for (&i, ai) in idx.iter().zip(a) {
        alpha[i] = ai;
    }
    Some(alpha)
}

/// The data of the Newton systems.
struct Newton<'v> {
    /// `V`, row-major `m x d`.
    v: &'v [f64],
    d: usize,
    y: Vec<f64>,
}

/// The iterate: multipliers `a`, slacks `t = C - a`, the duals `z` (of
/// `a >= 0`), `u` (of `a <= C`) and `lam` (of `y^T a = 0`).
struct Point {
    a: Vec<f64>,
    t: Vec<f64>,
    z: Vec<f64>,
    u: Vec<f64>,
    lam: f64,
}

/// A Newton direction.
struct Direction {
    a: Vec<f64>,
    z: Vec<f64>,
    u: Vec<f64>,
    lam: f64,
}

impl Newton<'_> {
    /// `Q a = V V^T a`.
    fn q(&self, a: &[f64]) -> Vec<f64> {
        let d = self.d;
        let mut w = vec![0.0; d];
        for (vi, ai) in self.v.chunks_exact(d).zip(a) {
            for (wj, vj) in w.iter_mut().zip(vi) {
                *wj += ai * vj;
            }
        }
        self.v.chunks_exact(d).map(|vi| dot(vi, &w)).collect()
    }

    /// The maximal KKT violation `max_up(-y_t G_t) - min_low(-y_t G_t)`
    /// (SMO's stopping measure) at the feasible `a`.
    fn violation(&self, a: &[f64], c: &[f64]) -> f64 {
        let qa = self.q(a);
        let (mut up, mut low) = (f64::NEG_INFINITY, f64::INFINITY);
        for t in 0..a.len() {
            let (y, v) = (self.y[t], -self.y[t] * (qa[t] - 1.0));
            let (below, above) = (a[t] < c[t], a[t] > 0.0);
            if (y > 0.0 && below) || (y < 0.0 && above) {
                up = up.max(v);
            }
            if (y > 0.0 && above) || (y < 0.0 && below) {
                low = low.min(v);
            }
        }
        up - low
    }

    /// The optimum found by a primal active-set method started from the
    /// partition of `a` into multipliers at 0, at `C_i` and free (the
    /// interior-point iterate identifies it up to a few rows; of more than
    /// `d + 1` free ones, those nearest a bound start on it). For a
    /// partition, the free multipliers and `lam` solve the KKT equations
    /// `Q_FF a_F - lam y_F = 1 - Q_FU C_U`, `y_F^T a_F = -y_U^T C_U`
    /// (Gaussian elimination with partial pivoting); a free multiplier
    /// outside its box is put on the bound it crossed, else the bounded
    /// multiplier whose reduced gradient `G_i - lam y_i` has the wrong sign
    /// by the most (beyond `FREE_TOL`) is freed. `None` when a partition
    /// has no free multipliers or more than `d + 1` (the equations are then
    /// singular: the free rows span at most `d` dimensions, plus the offset),
    /// or after `MAX_SWAPS` changes.
    fn exact(&self, a: &[f64], c: &[f64]) -> Option<Vec<f64>> {
        let d = self.d;
        let m = a.len();
        let row = |i: usize| &self.v[i * d..(i + 1) * d];
        // 0: at zero, 1: free, 2: at C.
        let mut state: Vec<u8> = (0..m)
            .map(|i| {
                if a[i] <= 0.0 {
                    0
                } else if a[i] >= c[i] {
                    2
                } else {
                    1
                }
            })
            .collect();
        // At most d + 1 multipliers can be free at a unique optimum: put the
        // excess, those nearest a bound relative to C_i, on that bound.
        let mut free: Vec<usize> = (0..m).filter(|&i| state[i] == 1).collect();
        let near = |i: usize| a[i].min(c[i] - a[i]) / c[i];
        free.sort_by(|&i, &j| near(i).total_cmp(&near(j)));
        for &i in free.iter().take(free.len().saturating_sub(d + 1)) {
            state[i] = if a[i] < c[i] - a[i] { 0 } else { 2 };
        }
        for _ in 0..MAX_SWAPS {
            let free: Vec<usize> = (0..m).filter(|&i| state[i] == 1).collect();
            let k = free.len() + 1;
            if free.is_empty() || free.len() > (d + 1).min(MAX_FREE) {
                return None;
            }
            let mut wu = vec![0.0; d];
            let mut yu = 0.0;
            for i in (0..m).filter(|&i| state[i] == 2) {
                wu.iter_mut().zip(row(i)).for_each(|(w, v)| *w += c[i] * v);
                yu += self.y[i] * c[i];
            }
            let mut mat = vec![0.0; k * k];
            let mut rhs = vec![0.0; k];
            for (p, &i) in free.iter().enumerate() {
                for (q, &j) in free.iter().enumerate() {
                    mat[p * k + q] = dot(row(i), row(j));
                }
                mat[p * k + k - 1] = -self.y[i];
                mat[(k - 1) * k + p] = self.y[i];
                rhs[p] = 1.0 - dot(row(i), &wu);
            }
            rhs[k - 1] = -yu;
            let sol = gauss_solve(mat, rhs, k)?;
            // A free multiplier out of its box: onto the bound it crossed
            // (the one furthest out first).
            let out = free
                .iter()
                .enumerate()
                .map(|(p, &i)| (i, (-sol[p]).max(sol[p] - c[i]) / c[i], sol[p] < 0.0))
                .filter(|&(_, excess, _)| excess > 0.0)
                .max_by(|x, y| x.1.total_cmp(&y.1));
            if let Some((i, _, low)) = out {
                state[i] = if low { 0 } else { 2 };
                continue;
            }
            let mut cand = vec![0.0; m];
            for i in 0..m {
                if state[i] == 2 {
                    cand[i] = c[i];
                }
            }
            for (p, &i) in free.iter().enumerate() {
                cand[i] = sol[p];
            }
            let lam = sol[k - 1];
            let qa = self.q(&cand);
            let wrong = (0..m)
                .filter(|&i| state[i] != 1)
                .map(|i| {
                    let r = qa[i] - 1.0 - lam * self.y[i];
                    (i, if state[i] == 0 { -r } else { r })
                })
                .filter(|&(_, v)| v > FREE_TOL)
                .max_by(|x, y| x.1.total_cmp(&y.1));
            match wrong {
                Some((i, _)) => state[i] = 1,
                None => return Some(cand),
            }
        }
        None
    }

    /// The interior-point iterations from the centre of the box.
    fn solve(&self, c: &[f64]) -> Option<Vec<f64>> {
        let m = c.len();
        let cmax = c.iter().fold(0.0f64, |a, &b| a.max(b));
        let a: Vec<f64> = c.iter().map(|ci| 0.5 * ci).collect();
        // Duals that make the start satisfy the stationarity equations.
        let g: Vec<f64> = self.q(&a).iter().map(|qa| qa - 1.0).collect();
        let mut p = Point {
            t: a.clone(),
            a,
            z: g.iter().map(|gi| gi.max(0.0) + 1.0).collect(),
            u: g.iter().map(|gi| (-gi).max(0.0) + 1.0).collect(),
            lam: 0.0,
        };
        let mut best = (f64::INFINITY, Vec::new(), 0usize);
        let mut mu0 = 0.0f64;
        for _ in 0..MAX_ITER {
            let qa = self.q(&p.a);
            let rd: Vec<f64> = (0..m)
                .map(|i| qa[i] - 1.0 - p.lam * self.y[i] - p.z[i] + p.u[i])
                .collect();
            let rp = dot(&self.y, &p.a);
            let mu = (dot(&p.a, &p.z) + dot(&p.t, &p.u)) / (2 * m) as f64;
            let scale = 1.0 + qa.iter().fold(0.0f64, |s, v| s.max(v.abs()));
            let rd_max = rd.iter().fold(0.0f64, |s, v| s.max(v.abs()));
            if !(mu.is_finite() && rd_max.is_finite()) {
                break;
            }
            // Late iterations lose accuracy in the Sherman-Morrison-Woodbury
            // solves (large cancelling terms): keep the best iterate seen.
            let merit = mu / cmax + rd_max / scale + rp.abs() / (cmax * m as f64);
            if merit < best.0 {
                best = (merit, p.a.clone(), 0);
            } else {
                best.2 += 1;
            }
            mu0 = mu0.max(mu);
            if mu <= TOL * cmax || (best.2 >= STALL && mu <= LATE * mu0) {
                break;
            }
            let dg: Vec<f64> = (0..m).map(|i| p.z[i] / p.a[i] + p.u[i] / p.t[i]).collect();
            let factor = self.factor(&dg);
            let hy = self.apply(&factor, &dg, &self.y);
            let yhy = dot(&self.y, &hy);
            // Predictor (affine scaling), then Mehrotra's corrector.
            let zero = vec![0.0; m];
            let aff = self.direction(&p, &rd, rp, &dg, &factor, &hy, yhy, 0.0, &zero);
            let s = step(&p, &aff, 1.0);
            let mu_aff = (0..m)
                .map(|i| {
                    (p.a[i] + s * aff.a[i]) * (p.z[i] + s * aff.z[i])
                        + (p.t[i] - s * aff.a[i]) * (p.u[i] + s * aff.u[i])
                })
                .sum::<f64>()
                / (2 * m) as f64;
            let sigma = (mu_aff / mu).clamp(0.0, 1.0).powi(3);
            let dir = self.direction(&p, &rd, rp, &dg, &factor, &hy, yhy, sigma * mu, &aff.a);
            let s = (STEP * step(&p, &dir, 1.0 / STEP)).min(1.0);
            for i in 0..m {
                p.a[i] += s * dir.a[i];
                p.t[i] -= s * dir.a[i];
                p.z[i] += s * dir.z[i];
                p.u[i] += s * dir.u[i];
            }
            p.lam += s * dir.lam;
            if p.a.iter().chain(&p.t).any(|v| !(*v > 0.0)) {
                break;
            }
        }
        Some(best.1).filter(|a| !a.is_empty())
    }

    /// The Newton direction for the perturbed complementarity `target`
    /// (`sigma mu`), with Mehrotra's second-order term from the predictor's
    /// `da_aff` (zero for the predictor itself; its `dz`, `du` are
    /// recomputed from it).
    #[allow(clippy::too_many_arguments)]
    fn direction(
        &self,
        p: &Point,
        rd: &[f64],
        rp: f64,
        dg: &[f64],
        factor: &[f64],
        hy: &[f64],
        yhy: f64,
        target: f64,
        da_aff: &[f64],
    ) -> Direction {
        let m = p.a.len();
        // Second-order terms da_aff * dz_aff and -da_aff * du_aff.
        let (mut rz, mut ru) = (vec![0.0; m], vec![0.0; m]);
        for i in 0..m {
            let dz_aff = (-p.a[i] * p.z[i] - p.z[i] * da_aff[i]) / p.a[i];
            let du_aff = (-p.t[i] * p.u[i] + p.u[i] * da_aff[i]) / p.t[i];
            rz[i] = target - p.a[i] * p.z[i] - da_aff[i] * dz_aff;
            ru[i] = target - p.t[i] * p.u[i] + da_aff[i] * du_aff;
        }
        let rhs: Vec<f64> = (0..m)
            .map(|i| -rd[i] + rz[i] / p.a[i] - ru[i] / p.t[i])
            .collect();
        let ha = self.apply(factor, dg, &rhs);
        let lam = (-rp - dot(&self.y, &ha)) / yhy;
        let a: Vec<f64> = ha.iter().zip(hy).map(|(h, y)| h + lam * y).collect();
        let z = (0..m).map(|i| (rz[i] - p.z[i] * a[i]) / p.a[i]).collect();
        let u = (0..m).map(|i| (ru[i] + p.u[i] * a[i]) / p.t[i]).collect();
        Direction { a, z, u, lam }
    }

    /// The Cholesky factor of `I + V^T D^{-1} V`.
    fn factor(&self, dg: &[f64]) -> Vec<f64> {
        let d = self.d;
        let mut mat = vec![0.0; d * d];
        let inv: Vec<f64> = dg.iter().map(|v| 1.0 / v).collect();
        crate::learn::linalg::add_scatter(&mut mat, self.v, &inv, d);
        for i in 0..d {
            mat[i * d + i] += 1.0;
            for j in 0..i {
                mat[i * d + j] = mat[j * d + i];
            }
        }
        cholesky_factor(&mat, d)
    }

    /// `(D + V V^T)^{-1} r`, refined twice against the residual
    /// `r - (D + V V^T) x` (the identity's two terms cancel for the free
    /// multipliers late in the iterations, where `D` is tiny).
    fn apply(&self, factor: &[f64], dg: &[f64], r: &[f64]) -> Vec<f64> {
        let mut x = self.woodbury(factor, dg, r);
        for _ in 0..2 {
            let hx = self.q(&x);
            let res: Vec<f64> = (0..r.len()).map(|i| r[i] - dg[i] * x[i] - hx[i]).collect();
            let dx = self.woodbury(factor, dg, &res);
            x.iter_mut().zip(dx).for_each(|(xi, di)| *xi += di);
        }
        x
    }

    /// `(D + V V^T)^{-1} r = D^{-1} r - D^{-1} V (I + V^T D^{-1} V)^{-1}
    /// V^T D^{-1} r` (Sherman-Morrison-Woodbury).
    fn woodbury(&self, factor: &[f64], dg: &[f64], r: &[f64]) -> Vec<f64> {
        let d = self.d;
        let s: Vec<f64> = r.iter().zip(dg).map(|(ri, di)| ri / di).collect();
        let mut w = vec![0.0; d];
        for (vi, si) in self.v.chunks_exact(d).zip(&s) {
            for (wj, vj) in w.iter_mut().zip(vi) {
                *wj += si * vj;
            }
        }
        cholesky_apply(factor, &mut w);
        self.v
            .chunks_exact(d)
            .zip(s.iter().zip(dg))
            .map(|(vi, (si, di))| si - dot(vi, &w) / di)
            .collect()
    }
}

/// The largest step `<= limit` along `dir` keeping `a`, `t`, `z`, `u`
/// non-negative.
fn step(p: &Point, dir: &Direction, limit: f64) -> f64 {
    let mut s = limit;
    let mut bound = |x: f64, dx: f64| {
        if dx < 0.0 {
            s = s.min(-x / dx);
        }
    };
    for i in 0..p.a.len() {
        bound(p.a[i], dir.a[i]);
        bound(p.t[i], -dir.a[i]);
        bound(p.z[i], dir.z[i]);
        bound(p.u[i], dir.u[i]);
    }
    s
}

/// Puts the multipliers close to a bound on it and restores `y^T a = 0` by
/// moving the free ones within their room; `None` when that is impossible.
fn round(mut a: Vec<f64>, c: &[f64], y: &[f64]) -> Option<Vec<f64>> {
    for (ai, &ci) in a.iter_mut().zip(c) {
        if *ai <= SNAP * ci {
            *ai = 0.0;
        } else if *ai >= (1.0 - SNAP) * ci {
            *ai = ci;
        }
    }
    // Remaining imbalance; move free multipliers to cancel it, most room first.
    let mut excess = dot(y, &a);
    let mut free: Vec<usize> = (0..a.len())
        .filter(|&i| a[i] > 0.0 && a[i] < c[i])
        .collect();
    free.sort_by(|&i, &j| c[j].total_cmp(&c[i]));
    for i in free {
        if excess == 0.0 {
            break;
        }
        // Changing a_i by delta changes y^T a by y_i delta.
        let want = -excess * y[i];
        let delta = want.clamp(-a[i], c[i] - a[i]);
        a[i] += delta;
        excess += y[i] * delta;
    }
    let total: f64 = c.iter().sum();
    (excess.abs() <= 1e-12 * total).then_some(a)
}

/// Solves the `k x k` system `mat x = rhs` (row-major) by Gaussian
/// elimination with partial pivoting; `None` when it is singular.
fn gauss_solve(mut mat: Vec<f64>, mut rhs: Vec<f64>, k: usize) -> Option<Vec<f64>> {
    for col in 0..k {
        let piv =
            (col..k).max_by(|&i, &j| mat[i * k + col].abs().total_cmp(&mat[j * k + col].abs()))?;
        if mat[piv * k + col] == 0.0 || !mat[piv * k + col].is_finite() {
            return None;
        }
        if piv != col {
            for q in 0..k {
                mat.swap(piv * k + q, col * k + q);
            }
            rhs.swap(piv, col);
        }
        let pv = mat[col * k + col];
        for r in col + 1..k {
            let f = mat[r * k + col] / pv;
            if f != 0.0 {
                for q in col..k {
                    mat[r * k + q] -= f * mat[col * k + q];
                }
                rhs[r] -= f * rhs[col];
            }
        }
    }
    for r in (0..k).rev() {
        let s: f64 = (r + 1..k).map(|q| mat[r * k + q] * rhs[q]).sum();
        rhs[r] = (rhs[r] - s) / mat[r * k + r];
    }
    rhs.iter().all(|v| v.is_finite()).then_some(rhs)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    crate::learn::linalg::dot(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(state: &mut u64) -> f64 {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*state >> 11) as f64 / (1u64 << 53) as f64
    }

    #[test]
    fn two_points_give_the_textbook_margin() {
        // x = +-1 on one axis: w = 1, b = 0, a = (0.5, 0.5) when C >= 0.5.
        let x = [1.0, 3.0, -1.0, 3.0];
        let a = start(&x, 2, &[1.0, -1.0], &[10.0, 10.0]).unwrap();
        assert!(
            (a[0] - 0.5).abs() < 1e-9 && (a[1] - 0.5).abs() < 1e-9,
            "{a:?}"
        );
    }

    #[test]
    fn the_start_is_feasible_and_nearly_optimal_on_noisy_data() {
        // Two overlapping Gaussian-like clouds, one feature scaled by 1e3
        // (the case SMO alone finds hard), rows of zero weight included.
        let (n, d) = (300, 4);
        let mut s = 7u64;
        let mut x = Vec::new();
        let mut y = Vec::new();
        let mut c = Vec::new();
        for i in 0..n {
            let label = if i % 3 == 0 { 1.0 } else { -1.0 };
            for j in 0..d {
                let v = lcg(&mut s) + lcg(&mut s) - 1.0 + 0.4 * label;
                x.push(if j == 0 { 1e3 * v } else { v });
            }
            y.push(label);
            c.push(if i % 50 == 7 {
                0.0
            } else {
                1.0 + (i % 4) as f64
            });
        }
        let a = start(&x, d, &y, &c).unwrap();
        assert!(a.iter().zip(&c).all(|(ai, ci)| *ai >= 0.0 && ai <= ci));
        let balance: f64 = a.iter().zip(&y).map(|(ai, yi)| ai * yi).sum();
        assert!(balance.abs() < 1e-9, "{balance}");
        let idx: Vec<usize> = (0..n).filter(|&i| c[i] > 0.0).collect();
        let v: Vec<f64> = idx
            .iter()
            .flat_map(|&i| {
                let yi = y[i];
                x[i * d..(i + 1) * d].iter().map(move |v| v * yi)
            })
            .collect();
        let sys = Newton {
            v: &v,
            d,
            y: idx.iter().map(|&i| y[i]).collect(),
        };
        let sub: Vec<f64> = idx.iter().map(|&i| a[i]).collect();
        let cs: Vec<f64> = idx.iter().map(|&i| c[i]).collect();
        let viol = sys.violation(&sub, &cs);
        assert!(viol < 1e-3, "KKT violation {viol}");
        // Some multipliers are free, some at each bound: a real test of both.
        assert!(sub.iter().zip(&cs).any(|(ai, ci)| *ai > 0.0 && ai < ci));
        assert!(sub.iter().zip(&cs).any(|(ai, ci)| ai == ci));
        assert!(sub.contains(&0.0));
    }

    #[test]
    fn gauss_solve_pivots_and_detects_singular_systems() {
        let x = gauss_solve(vec![0.0, 1.0, 2.0, 3.0], vec![1.0, 8.0], 2).unwrap();
        assert!((x[0] - 2.5).abs() < 1e-12 && (x[1] - 1.0).abs() < 1e-12);
        assert!(gauss_solve(vec![1.0, 2.0, 2.0, 4.0], vec![1.0, 2.0], 2).is_none());
    }
}
