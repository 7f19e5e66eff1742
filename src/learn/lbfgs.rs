//! Limited-memory BFGS for smooth convex objectives (Nocedal & Wright,
//! *Numerical Optimization*, 2nd ed., Algorithm 7.4 with the two-loop
//! recursion 7.5 and the initial scaling 7.20).
//!
//! The line search backtracks from the unit step until the Armijo condition
//! holds (sufficient decrease, `c1 = 1e-4`). Close to the optimum the
//! decrease of the objective falls below its rounding error; a step is then
//! also accepted when the objective did not grow beyond rounding and the
//! directional derivative shrank, so the iteration can drive the gradient
//! to the requested tolerance. Pairs with non-positive curvature are not
//! stored (the update would lose positive definiteness).
//!
//! [`minimize_bounded`] keeps each coordinate within bounds, in the manner
//! of L-BFGS-B (Byrd, Lu, Nocedal & Zhu, "A limited memory algorithm for
//! bound constrained optimization", SIAM J. Sci. Comput. 16(5), 1995),
//! simplified: a coordinate at a bound its gradient pushes against is held
//! fixed (its direction component is zero), the two-loop direction is taken
//! over the others, and the line search follows the projection of the ray
//! onto the box (Armijo on the projected step). It stops when the largest
//! component of the projected gradient is at most the tolerance.

/// Stopping rules.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Options {
    /// Stop when the largest gradient component is at most this.
    pub gtol: f64,
    /// Stop after this many iterations.
    pub max_iter: usize,
    /// Stored correction pairs.
    pub memory: usize,
}

/// Minimises `f` from `x` (updated in place). `f(x, g)` returns the
/// objective and writes the gradient into `g`. Returns whether the gradient
/// tolerance was reached.
pub(crate) fn minimize<F>(x: &mut [f64], opts: Options, mut f: F) -> bool
where
    F: FnMut(&[f64], &mut [f64]) -> f64,
{
    let n = x.len();
    let mut g = vec![0.0; n];
    let mut fx = f(x, &mut g);
    let mut s_hist: Vec<Vec<f64>> = Vec::new();
    let mut y_hist: Vec<Vec<f64>> = Vec::new();
    let mut rho: Vec<f64> = Vec::new();
    let mut d = vec![0.0; n];
    let mut xn = vec![0.0; n];
    let mut gn = vec![0.0; n];
    let mut alpha = vec![0.0; opts.memory];
    for _ in 0..opts.max_iter {
        // A cancelled fit is discarded by its caller ([`crate::cancel`]).
        if crate::cancel::requested() {
            return false;
        }
        if inf_norm(&g) <= opts.gtol {
            return true;
        }
        // Two-loop recursion: d = -H g.
        d.iter_mut().zip(&g).for_each(|(di, gi)| *di = -gi);
        let m = s_hist.len();
        for j in (0..m).rev() {
            alpha[j] = rho[j] * dot(&s_hist[j], &d);
            axpy(-alpha[j], &y_hist[j], &mut d);
        }
        let gamma = if m > 0 {
            dot(&s_hist[m - 1], &y_hist[m - 1]) / dot(&y_hist[m - 1], &y_hist[m - 1])
        } else {
            1.0 / inf_norm(&g).max(1.0)
        };
        d.iter_mut().for_each(|v| *v *= gamma);
        for j in 0..m {
            let beta = rho[j] * dot(&y_hist[j], &d);
            axpy(alpha[j] - beta, &s_hist[j], &mut d);
        }
        let mut gd = dot(&g, &d);
        if gd >= 0.0 {
            // Not a descent direction (rounding): restart from steepest descent.
            s_hist.clear();
            y_hist.clear();
            rho.clear();
            d.iter_mut().zip(&g).for_each(|(di, gi)| *di = -gi);
            gd = dot(&g, &d);
        }
        let mut step = 1.0;
        let mut accepted = false;
        for _ in 0..60 {
            for i in 0..n {
                xn[i] = x[i] + step * d[i];
            }
            let fnew = f(&xn, &mut gn);
            let armijo = fnew <= fx + 1e-4 * step * gd;
            let flat = fnew <= fx + 1e-14 * fx.abs().max(1.0) && dot(&gn, &d).abs() < gd.abs();
            if fnew.is_finite() && (armijo || flat) {
                accepted = true;
                fx = fnew;
                break;
            }
            step *= 0.5;
        }
        if !accepted {
            return false;
        }
        let s: Vec<f64> = (0..n).map(|i| xn[i] - x[i]).collect();
        let yv: Vec<f64> = (0..n).map(|i| gn[i] - g[i]).collect();
        x.copy_from_slice(&xn);
        g.copy_from_slice(&gn);
        let sy = dot(&s, &yv);
        if sy > 1e-300 {
            if s_hist.len() == opts.memory {
                s_hist.remove(0);
                y_hist.remove(0);
                rho.remove(0);
            }
            s_hist.push(s);
            y_hist.push(yv);
            rho.push(1.0 / sy);
        }
    }
    inf_norm(&g) <= opts.gtol
}

/// Per coordinate, `lower <= x <= upper` (an infinite bound for none).
#[derive(Debug, Clone)]
pub(crate) struct BoxBounds {
    /// The lower bounds.
    pub lower: Vec<f64>,
    /// The upper bounds.
    pub upper: Vec<f64>,
}

impl BoxBounds {
    /// `v` moved into coordinate `i`'s interval; a value at or past a bound
    /// becomes that bound exactly (so `-0.0` at a lower bound `0` is `0.0`).
    pub fn clamp(&self, i: usize, v: f64) -> f64 {
        if v <= self.lower[i] {
            self.lower[i]
        } else if v >= self.upper[i] {
            self.upper[i]
        } else {
            v
        }
    }

    /// Whether coordinate `i` of `x` sits at a bound the gradient `g`
    /// pushes against (a descent step would leave the box).
    pub fn blocked(&self, x: &[f64], g: &[f64], i: usize) -> bool {
        (x[i] <= self.lower[i] && g[i] > 0.0) || (x[i] >= self.upper[i] && g[i] < 0.0)
    }

    /// The largest component of the projected gradient at `x`: `g` with
    /// the blocked coordinates zeroed.
    pub fn gradient_norm(&self, x: &[f64], g: &[f64]) -> f64 {
        (0..x.len())
            .filter(|&i| !self.blocked(x, g, i))
            .fold(0.0, |m, i| m.max(g[i].abs()))
    }
}

/// The correction pairs of a limited-memory run.
struct Memory {
    s: Vec<Vec<f64>>,
    y: Vec<Vec<f64>>,
    rho: Vec<f64>,
    alpha: Vec<f64>,
    size: usize,
}

impl Memory {
    fn new(size: usize) -> Memory {
        Memory {
            s: Vec::new(),
            y: Vec::new(),
            rho: Vec::new(),
            alpha: vec![0.0; size],
            size,
        }
    }

    fn clear(&mut self) {
        self.s.clear();
        self.y.clear();
        self.rho.clear();
    }

    /// Overwrites `d` with `H d` (the two-loop recursion); `scale` is the
    /// initial inverse Hessian when no pair is stored.
    fn apply(&mut self, d: &mut [f64], scale: f64) {
        let m = self.s.len();
        for j in (0..m).rev() {
            self.alpha[j] = self.rho[j] * dot(&self.s[j], d);
            axpy(-self.alpha[j], &self.y[j], d);
        }
        let gamma = if m > 0 {
            dot(&self.s[m - 1], &self.y[m - 1]) / dot(&self.y[m - 1], &self.y[m - 1])
        } else {
            scale
        };
        d.iter_mut().for_each(|v| *v *= gamma);
        for j in 0..m {
            let beta = self.rho[j] * dot(&self.y[j], d);
            axpy(self.alpha[j] - beta, &self.s[j], d);
        }
    }

    /// Stores the pair `s`, `y` when its curvature is positive.
    fn push(&mut self, s: Vec<f64>, y: Vec<f64>) {
        let sy = dot(&s, &y);
        if sy > 1e-300 {
            if self.s.len() == self.size {
                self.s.remove(0);
                self.y.remove(0);
                self.rho.remove(0);
            }
            self.s.push(s);
            self.y.push(y);
            self.rho.push(1.0 / sy);
        }
    }
}

/// [`minimize`] within `bounds` (see the module doc): `x` is first moved
/// into the box. Returns whether the projected gradient tolerance was
/// reached; every iterate, and so the result, lies in the box exactly.
pub(crate) fn minimize_bounded<F>(
    x: &mut [f64],
    bounds: &BoxBounds,
    opts: Options,
    mut f: F,
) -> bool
where
    F: FnMut(&[f64], &mut [f64]) -> f64,
{
    let n = x.len();
    for (i, v) in x.iter_mut().enumerate() {
        *v = bounds.clamp(i, *v);
    }
    let mut g = vec![0.0; n];
    let mut fx = f(x, &mut g);
    let mut mem = Memory::new(opts.memory);
    let mut d = vec![0.0; n];
    let mut xn = vec![0.0; n];
    let mut gn = vec![0.0; n];
    for _ in 0..opts.max_iter {
        if crate::cancel::requested() {
            return false;
        }
        let norm = bounds.gradient_norm(x, &g);
        if norm <= opts.gtol {
            return true;
        }
        let free: Vec<bool> = (0..n).map(|i| !bounds.blocked(x, &g, i)).collect();
        let project = |d: &mut [f64]| {
            d.iter_mut()
                .zip(&free)
                .for_each(|(v, &f)| *v = if f { *v } else { 0.0 });
        };
        d.iter_mut().zip(&g).for_each(|(di, gi)| *di = -gi);
        project(&mut d);
        mem.apply(&mut d, 1.0 / norm.max(1.0));
        project(&mut d);
        if dot(&g, &d) >= 0.0 {
            mem.clear();
            d.iter_mut().zip(&g).for_each(|(di, gi)| *di = -gi);
            project(&mut d);
        }
        let Some(fnew) = projected_search(x, &g, fx, &d, bounds, &mut xn, &mut gn, &mut f) else {
            return false;
        };
        fx = fnew;
        let s: Vec<f64> = (0..n).map(|i| xn[i] - x[i]).collect();
        let yv: Vec<f64> = (0..n).map(|i| gn[i] - g[i]).collect();
        x.copy_from_slice(&xn);
        g.copy_from_slice(&gn);
        mem.push(s, yv);
    }
    bounds.gradient_norm(x, &g) <= opts.gtol
}

/// Backtracks along the projection of `x + t d` onto the box from `t = 1`
/// until the Armijo condition on the projected step holds (or, near the
/// optimum, the objective stays within rounding and the projected gradient
/// shrinks); leaves the point in `xn`, its gradient in `gn`, and returns
/// its objective, or `None` when no step is accepted.
#[allow(clippy::too_many_arguments)]
fn projected_search<F>(
    x: &[f64],
    g: &[f64],
    fx: f64,
    d: &[f64],
    bounds: &BoxBounds,
    xn: &mut [f64],
    gn: &mut [f64],
    f: &mut F,
) -> Option<f64>
where
    F: FnMut(&[f64], &mut [f64]) -> f64,
{
    let norm = bounds.gradient_norm(x, g);
    let mut step = 1.0;
    for _ in 0..60 {
        for i in 0..x.len() {
            xn[i] = bounds.clamp(i, x[i] + step * d[i]);
        }
        let fnew = f(xn, gn);
        let gs: f64 = (0..x.len()).map(|i| g[i] * (xn[i] - x[i])).sum();
        let armijo = gs < 0.0 && fnew <= fx + 1e-4 * gs;
        let flat = fnew <= fx + 1e-14 * fx.abs().max(1.0) && bounds.gradient_norm(xn, gn) < norm;
        if fnew.is_finite() && (armijo || flat) {
            return Some(fnew);
        }
        step *= 0.5;
    }
    None
}

pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    y.iter_mut().zip(x).for_each(|(yi, xi)| *yi += a * xi);
}

fn inf_norm(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimises_an_ill_conditioned_quadratic_and_rosenbrock() {
        let opts = Options {
            gtol: 1e-10,
            max_iter: 2000,
            memory: 10,
        };
        let scale = [1.0, 10.0, 100.0, 1000.0];
        let mut x = vec![1.0; 4];
        assert!(minimize(&mut x, opts, |x, g| {
            let mut f = 0.0;
            for i in 0..4 {
                let r = x[i] - i as f64;
                f += 0.5 * scale[i] * r * r;
                g[i] = scale[i] * r;
            }
            f
        }));
        for (i, v) in x.iter().enumerate() {
            assert!((v - i as f64).abs() < 1e-10, "{x:?}");
        }
        let mut x = vec![-1.2, 1.0];
        assert!(minimize(&mut x, opts, |x, g| {
            let (a, b) = (1.0 - x[0], x[1] - x[0] * x[0]);
            g[0] = -2.0 * a - 400.0 * x[0] * b;
            g[1] = 200.0 * b;
            a * a + 100.0 * b * b
        }));
        assert!(
            (x[0] - 1.0).abs() < 1e-8 && (x[1] - 1.0).abs() < 1e-8,
            "{x:?}"
        );
    }

    #[test]
    fn bounded_runs_stop_on_the_box_at_the_constrained_optimum() {
        let opts = Options {
            gtol: 1e-10,
            max_iter: 2000,
            memory: 10,
        };
        // A coupled quadratic 0.5 x'Ax - b'x whose free optimum is (-1, 2, 3)
        // with x0 >= 0 and x2 <= 1: the optimum is x0 = 0, x2 = 1 and x1
        // minimising the rest, a1 x1 = b1 - a10 x0 - a12 x2.
        let a = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]];
        let free = [-1.0, 2.0, 3.0];
        let b: Vec<f64> = (0..3).map(|i| dot(&a[i], &free)).collect();
        let bounds = BoxBounds {
            lower: vec![0.0, f64::NEG_INFINITY, f64::NEG_INFINITY],
            upper: vec![f64::INFINITY, f64::INFINITY, 1.0],
        };
        let mut x = vec![5.0, -5.0, -5.0];
        assert!(minimize_bounded(&mut x, &bounds, opts, |x, g| {
            let mut f = 0.0;
            for i in 0..3 {
                g[i] = dot(&a[i], x) - b[i];
                f += x[i] * (0.5 * dot(&a[i], x) - b[i]);
            }
            f
        }));
        assert_eq!((x[0], x[2]), (0.0, 1.0));
        assert!(x[0].is_sign_positive());
        let x1 = (b[1] - 0.2) / 3.0;
        assert!((x[1] - x1).abs() < 1e-10, "{x:?}");
        // Rosenbrock with x0 <= 0.5: the optimum is (0.5, 0.25).
        let bounds = BoxBounds {
            lower: vec![f64::NEG_INFINITY; 2],
            upper: vec![0.5, f64::INFINITY],
        };
        let mut x = vec![-1.2, 1.0];
        assert!(minimize_bounded(&mut x, &bounds, opts, |x, g| {
            let (a, b) = (1.0 - x[0], x[1] - x[0] * x[0]);
            g[0] = -2.0 * a - 400.0 * x[0] * b;
            g[1] = 200.0 * b;
            a * a + 100.0 * b * b
        }));
        assert!(x[0] == 0.5 && (x[1] - 0.25).abs() < 1e-9, "{x:?}");
    }
}
