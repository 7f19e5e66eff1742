//! The losses gbdt minimises in the raw scores `F`, with their gradients and
//! hessians (Friedman 2001, "Greedy function approximation", sec. 4.5-4.6;
//! the second-order form of Chen & Guestrin 2016, eq. 2-3).
//!
//! - Two classes: log loss of `p = 1 / (1 + exp(-F))`, row weight `w`:
//!   `l = w (log(1 + exp(F)) - y F)`, `g = w (p - y)`, `h = w p (1 - p)`.
//! - `K > 2` classes: cross-entropy of `p = softmax(F)`:
//!   `l = w (log sum_j exp(F_j) - F_y)`, `g_k = w (p_k - [y = k])`, and the
//!   diagonal of the Hessian `h_k = w p_k (1 - p_k)`, one tree per class and
//!   round (scikit-learn's `HistGradientBoostingClassifier`; LightGBM
//!   multiplies `h_k` by `K / (K - 1)`).
//!
//! The initial scores are the weighted class log-odds (two classes) or log
//! priors (LightGBM's `boost_from_average`, scikit-learn's baseline).
//! Gradients and hessians are stored as `f32` (as LightGBM and scikit-learn
//! do) and summed in `f64`.

use rayon::prelude::*;

use super::split::Grad;

/// Rows per parallel task of the gradient pass.
const CHUNK: usize = 4096;

/// `log(1 + exp(z))` without overflow.
fn softplus(z: f64) -> f64 {
    if z > 0.0 {
        z + (-z).exp().ln_1p()
    } else {
        z.exp().ln_1p()
    }
}

/// The gradient and hessian of the two-class log loss at score `z` for a
/// row of the second class (`pos`) or the first, with weight `w`.
#[inline(always)]
fn binary_gradients(z: f64, pos: bool, w: f64) -> (f64, f64) {
    // With e = exp(-|F|), q = e / (1 + e) is the smaller of p and 1 - p,
    // and p (1 - p) = e / (1 + e)^2: no cancellation in either tail.
    let e = (-z.abs()).exp();
    let q = e / (1.0 + e);
    let (p, not_p) = if z >= 0.0 { (1.0 - q, q) } else { (q, 1.0 - q) };
    (
        w * if pos { -not_p } else { p },
        w * e / ((1.0 + e) * (1.0 + e)),
    )
}

/// The loss of a model with `outputs` raw scores per row: 1 (two classes,
/// the score of the second) or one per class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Loss {
    pub outputs: usize,
}

impl Loss {
    /// The loss for `classes` classes present (at least 2).
    pub fn for_classes(classes: usize) -> Loss {
        Loss {
            outputs: if classes == 2 { 1 } else { classes },
        }
    }

    /// Initial raw scores from the weighted class totals.
    pub fn init(&self, totals: &[f64]) -> Vec<f64> {
        if self.outputs == 1 {
            vec![(totals[1] / totals[0]).ln()]
        } else {
            let w: f64 = totals.iter().sum();
            totals.iter().map(|t| (t / w).ln()).collect()
        }
    }

    /// The gradients and hessians of one row's loss in each output of its
    /// raw scores `f`, for true class `y` and weight `w`, into `g` and `h`.
    pub fn row_gradients(&self, f: &[f64], y: usize, w: f64, g: &mut [f64], h: &mut [f64]) {
        if self.outputs == 1 {
            (g[0], h[0]) = binary_gradients(f[0], y == 1, w);
        } else {
            let m = f.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let mut s = 0.0;
            for (gk, &fk) in g.iter_mut().zip(f) {
                *gk = (fk - m).exp();
                s += *gk;
            }
            for (k, (gk, hk)) in g.iter_mut().zip(h.iter_mut()).enumerate() {
                let p = *gk / s;
                let t = if y == k { 1.0 } else { 0.0 };
                *gk = w * (p - t);
                *hk = w * p * (1.0 - p);
            }
        }
    }

    /// The gradients and hessians of rows `0..y.len()`, output by output
    /// (`out[k * n + i]` for row `i` of `n`: each output's tree reads its
    /// own in row order), from their scores `f`, output by output too
    /// (`f[k * stride + i]`). In parallel over blocks of rows; each value
    /// depends only on its row, so the result does not depend on the
    /// thread count.
    pub fn gradients(&self, f: &[f64], stride: usize, y: &[u16], w: &[f64], out: &mut [Grad]) {
        let (o, n) = (self.outputs, y.len());
        if o == 1 {
            // Two classes: one score a row, no per-row buffers.
            out.par_chunks_mut(CHUNK).enumerate().for_each(|(c, rows)| {
                let first = c * CHUNK;
                for (j, r) in rows.iter_mut().enumerate() {
                    let i = first + j;
                    let (gv, hv) = binary_gradients(f[i], y[i] == 1, w[i]);
                    *r = Grad {
                        g: gv as f32,
                        h: hv as f32,
                    };
                }
            });
            return;
        }
        // Each block of rows gets its slice of every output's gradients.
        let mut blocks: Vec<Vec<&mut [Grad]>> =
            (0..n.div_ceil(CHUNK)).map(|_| Vec::new()).collect();
        for output in out.chunks_mut(n.max(1)).take(o) {
            for (b, part) in blocks.iter_mut().zip(output.chunks_mut(CHUNK)) {
                b.push(part);
            }
        }
        blocks
            .into_par_iter()
            .enumerate()
            .for_each(|(c, mut outs)| {
                let (mut gr64, mut hr64) = (vec![0.0; o], vec![0.0; o]);
                let mut fi = vec![0.0; o];
                let first = c * CHUNK;
                for j in 0..outs[0].len() {
                    let i = first + j;
                    for (k, v) in fi.iter_mut().enumerate() {
                        *v = f[k * stride + i];
                    }
                    self.row_gradients(&fi, y[i] as usize, w[i], &mut gr64, &mut hr64);
                    for k in 0..o {
                        outs[k][j] = Grad {
                            g: gr64[k] as f32,
                            h: hr64[k] as f32,
                        };
                    }
                }
            });
    }

    /// One row's loss (weight 1) for true class `y`.
    pub fn loss(&self, f: &[f64], y: usize) -> f64 {
        if self.outputs == 1 {
            softplus(if y == 1 { -f[0] } else { f[0] })
        } else {
            let m = f.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let s: f64 = f.iter().map(|v| (v - m).exp()).sum();
            m + s.ln() - f[y]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gradients and hessians against central finite differences of the
    /// loss, in both tails and for three classes.
    #[test]
    fn gradients_and_hessians_match_finite_differences() {
        let eps = 1e-5;
        let check = |loss: Loss, f: Vec<f64>, y: usize, w: f64| {
            for k in 0..loss.outputs {
                let at = |d: f64| {
                    let mut g = f.clone();
                    g[k] += d;
                    g
                };
                let l = |d: f64| w * loss.loss(&at(d), y);
                let fd_g = (l(eps) - l(-eps)) / (2.0 * eps);
                let fd_h = (l(eps) - 2.0 * l(0.0) + l(-eps)) / (eps * eps);
                let gh = |f: &[f64]| {
                    let (mut g, mut h) = (vec![0.0; loss.outputs], vec![0.0; loss.outputs]);
                    loss.row_gradients(f, y, w, &mut g, &mut h);
                    (g[k], h[k])
                };
                let fd_h2 = (gh(&at(eps)).0 - gh(&at(-eps)).0) / (2.0 * eps);
                let (g, h) = gh(&f);
                let tol = 1e-6 * (1.0 + g.abs());
                assert!((g - fd_g).abs() < tol, "{f:?} y={y} k={k}: g {g} vs {fd_g}");
                assert!(
                    (h - fd_h2).abs() < 1e-6 * (1.0 + h),
                    "{f:?}: h {h} vs {fd_h2}"
                );
                assert!(
                    (h - fd_h).abs() < 1e-3 * (1.0 + h),
                    "{f:?}: h {h} vs {fd_h}"
                );
            }
        };
        let bin = Loss::for_classes(2);
        for &z in &[-30.0, -6.4, -0.7, 0.0, 0.3, 5.0, 25.0] {
            for y in 0..2 {
                check(bin, vec![z], y, 1.7);
            }
        }
        let multi = Loss::for_classes(3);
        for f in [vec![0.1, -0.4, 2.0], vec![-5.0, 3.0, 0.0], vec![0.0; 3]] {
            for y in 0..3 {
                check(multi, f.clone(), y, 0.6);
            }
        }
    }

    #[test]
    fn tails_keep_their_precision() {
        let bin = Loss::for_classes(2);
        // p = sigmoid(-40) ~ 4.2e-18: 1 - p rounds to 1, but the hessian and
        // the gradient of a negative row keep p itself.
        let (mut g, mut h) = ([0.0], [0.0]);
        bin.row_gradients(&[-40.0], 0, 1.0, &mut g, &mut h);
        let p = (-40.0f64).exp() / (1.0 + (-40.0f64).exp());
        assert!(
            (g[0] - p).abs() < 1e-30 && (h[0] - p).abs() < 1e-30,
            "{g:?} {h:?} {p}"
        );
        bin.row_gradients(&[40.0], 1, 1.0, &mut g, &mut h);
        assert!((g[0] + p).abs() < 1e-30, "{g:?}");
    }

    #[test]
    fn initial_scores_are_log_odds_and_log_priors() {
        assert_eq!(
            Loss::for_classes(2).init(&[3.0, 1.0]),
            vec![(1.0f64 / 3.0).ln()]
        );
        let i = Loss::for_classes(3).init(&[1.0, 1.0, 2.0]);
        assert_eq!(i, vec![0.25f64.ln(), 0.25f64.ln(), 0.5f64.ln()]);
    }
}
