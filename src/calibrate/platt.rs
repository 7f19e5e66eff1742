//! Platt scaling (Platt 1999), fitted with the Newton method and backtracking
//! line search of Lin, Lin & Weng (2007, "A note on Platt's probabilistic
//! outputs for support vector machines").
//!
//! Model: `p(+|f) = 1 / (1 + exp(A f + B))`. Targets are smoothed as Platt
//! proposed, `t+ = (N+ + 1) / (N+ + 2)` and `t- = 1 / (N- + 2)`, to avoid
//! overfitting the sigmoid to separable scores. The PT-bagging paper fits it
//! on 3-fold out-of-fold scores; that fold logic lives with the strategy that
//! owns the learner.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// A fitted sigmoid `1 / (1 + exp(a f + b))`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Platt {
    /// Slope (negative when higher scores mean more positive).
    pub a: f64,
    /// Intercept.
    pub b: f64,
}

impl Platt {
    /// Fits on scores and whether each row is positive.
    ///
    /// ```
    /// use rarity::calibrate::Platt;
    /// let f = [0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9];
    /// let y = [false, false, true, false, true, false, true, true];
    /// let p = Platt::fit(&f, &y).unwrap();
    /// assert!(p.a < 0.0);
    /// assert!(p.apply(0.9) > p.apply(0.1));
    /// ```
    pub fn fit(scores: &[f64], positive: &[bool]) -> Result<Platt> {
        if scores.len() != positive.len() || scores.is_empty() {
            return Err(Error::invalid(
                "Platt scaling needs one label per score and at least one score",
            ));
        }
        if scores.iter().any(|s| !s.is_finite()) {
            return Err(Error::invalid("Platt scaling needs finite scores"));
        }
        let n_pos = positive.iter().filter(|&&p| p).count() as f64;
        let n_neg = scores.len() as f64 - n_pos;
        let hi = (n_pos + 1.0) / (n_pos + 2.0);
        let lo = 1.0 / (n_neg + 2.0);
        let t: Vec<f64> = positive.iter().map(|&p| if p { hi } else { lo }).collect();

        // Objective: sum t log(1 + exp(-fApB)) + (1 - t) log(1 + exp(fApB))
        // written stably for either sign of fApB.
        let objective = |a: f64, b: f64| -> f64 {
            scores
                .iter()
                .zip(&t)
                .map(|(&f, &ti)| {
                    let z = f * a + b;
                    if z >= 0.0 {
                        ti * z + (1.0 + (-z).exp()).ln()
                    } else {
                        (ti - 1.0) * z + (1.0 + z.exp()).ln()
                    }
                })
                .sum()
        };
        let (max_iter, min_step, sigma, eps) = (100, 1e-10, 1e-12, 1e-5);
        let mut a = 0.0;
        let mut b = ((n_neg + 1.0) / (n_pos + 1.0)).ln();
        let mut fval = objective(a, b);
        for _ in 0..max_iter {
            // Gradient and Hessian (with a small ridge for stability).
            let (mut h11, mut h22, mut h21, mut g1, mut g2) = (sigma, sigma, 0.0, 0.0, 0.0);
            for (&f, &ti) in scores.iter().zip(&t) {
                let z = f * a + b;
                let (p, q) = if z >= 0.0 {
                    let e = (-z).exp();
                    (e / (1.0 + e), 1.0 / (1.0 + e))
                } else {
                    let e = z.exp();
                    (1.0 / (1.0 + e), e / (1.0 + e))
                };
                let d2 = p * q;
                h11 += f * f * d2;
                h22 += d2;
                h21 += f * d2;
                let d1 = ti - p;
                g1 += f * d1;
                g2 += d1;
            }
            if g1.abs() < eps && g2.abs() < eps {
                break;
            }
            let det = h11 * h22 - h21 * h21;
            let da = -(h22 * g1 - h21 * g2) / det;
            let db = -(-h21 * g1 + h11 * g2) / det;
            let gd = g1 * da + g2 * db;
            let mut step = 1.0;
            let mut moved = false;
            while step >= min_step {
                let (na, nb) = (a + step * da, b + step * db);
                let nf = objective(na, nb);
                if nf < fval + 1e-4 * step * gd {
                    a = na;
                    b = nb;
                    fval = nf;
                    moved = true;
                    break;
                }
                step /= 2.0;
            }
            if !moved {
                break;
            }
        }
        Ok(Platt { a, b })
    }

    /// The calibrated probability of a score.
    pub fn apply(&self, score: f64) -> f64 {
        let z = score * self.a + self.b;
        if z >= 0.0 {
            let e = (-z).exp();
            e / (1.0 + e)
        } else {
            1.0 / (1.0 + z.exp())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_a_known_sigmoid() {
        // Scores with labels drawn from p = 1 / (1 + exp(-4 f + 2)).
        let mut rng = crate::rng::stream(5, 0);
        use rand::RngExt;
        let mut f = Vec::new();
        let mut y = Vec::new();
        for _ in 0..20_000 {
            let s: f64 = rng.random::<f64>() * 2.0 - 0.5;
            let p = 1.0 / (1.0 + (-4.0 * s + 2.0).exp());
            f.push(s);
            y.push(rng.random::<f64>() < p);
        }
        let fit = Platt::fit(&f, &y).unwrap();
        assert!((fit.a + 4.0).abs() < 0.25, "{fit:?}");
        assert!((fit.b - 2.0).abs() < 0.15, "{fit:?}");
    }

    #[test]
    fn separable_scores_stay_finite() {
        let fit = Platt::fit(&[0.0, 0.0, 1.0, 1.0], &[false, false, true, true]).unwrap();
        assert!(fit.a.is_finite() && fit.b.is_finite());
        assert!(fit.apply(1.0) < 1.0 && fit.apply(0.0) > 0.0);
        assert!(Platt::fit(&[], &[]).is_err());
    }
}
