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
}
