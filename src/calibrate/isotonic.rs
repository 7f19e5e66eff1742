//! Isotonic regression by pool adjacent violators, with scikit-learn's
//! `IsotonicRegression(increasing=True, out_of_bounds="clip")` conventions:
//! rows with equal scores are first pooled (weighted mean), the fit is a
//! non-decreasing step function on the distinct scores, predictions
//! interpolate linearly between those scores and clip outside their range.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// A fitted non-decreasing calibration map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Isotonic {
    xs: Vec<f64>,
    ys: Vec<f64>,
}

impl Isotonic {
    /// Fits targets `positive` (as 0/1) on `scores`, optional row weights.
    ///
    /// ```
    /// use rarity::calibrate::Isotonic;
    /// let iso = Isotonic::fit(&[1.0, 2.0, 3.0, 4.0], &[false, true, false, true], None).unwrap();
    /// assert_eq!(iso.apply(1.0), 0.0);
    /// assert_eq!(iso.apply(2.5), 0.5);
    /// assert_eq!(iso.apply(9.0), 1.0);
    /// ```
    pub fn fit(scores: &[f64], positive: &[bool], weights: Option<&[f64]>) -> Result<Isotonic> {
        let y: Vec<f64> = positive.iter().map(|&p| f64::from(u8::from(p))).collect();
        Isotonic::fit_values(scores, &y, weights)
    }

    /// Fits arbitrary real targets.
    pub fn fit_values(x: &[f64], y: &[f64], weights: Option<&[f64]>) -> Result<Isotonic> {
        if x.len() != y.len() || x.is_empty() || weights.is_some_and(|w| w.len() != x.len()) {
            return Err(Error::invalid(
                "isotonic regression needs matching, non-empty scores, targets and weights",
            ));
        }
        if x.iter().chain(y).any(|v| !v.is_finite()) {
            return Err(Error::invalid("isotonic regression needs finite values"));
        }
        let w = |i: usize| weights.map_or(1.0, |w| w[i]);
        let mut order: Vec<usize> = (0..x.len()).collect();
        order.sort_by(|&a, &b| x[a].total_cmp(&x[b]).then(y[a].total_cmp(&y[b])));
        // Pool equal scores.
        let mut xs: Vec<f64> = Vec::new();
        let mut sum_wy: Vec<f64> = Vec::new();
        let mut sum_w: Vec<f64> = Vec::new();
        for &i in &order {
            if xs.last() == Some(&x[i]) {
                *sum_wy.last_mut().unwrap() += w(i) * y[i];
                *sum_w.last_mut().unwrap() += w(i);
            } else {
                xs.push(x[i]);
                sum_wy.push(w(i) * y[i]);
                sum_w.push(w(i));
            }
        }
        // Pool adjacent violators over blocks (mean, weight, length).
        let mut blocks: Vec<(f64, f64, usize)> = Vec::with_capacity(xs.len());
        for (swy, sw) in sum_wy.iter().zip(&sum_w) {
            let mut cur = (if *sw > 0.0 { swy / sw } else { 0.0 }, *sw, 1usize);
            while let Some(&(m, bw, len)) = blocks.last() {
                if m <= cur.0 {
                    break;
                }
                blocks.pop();
                let tw = bw + cur.1;
                let mean = if tw > 0.0 {
                    (m * bw + cur.0 * cur.1) / tw
                } else {
                    m
                };
                cur = (mean, tw, len + cur.2);
            }
            blocks.push(cur);
        }
        let ys = blocks
            .iter()
            .flat_map(|&(m, _, len)| std::iter::repeat_n(m, len))
            .collect();
        Ok(Isotonic { xs, ys })
    }

    /// Whether a step function read from a file can be applied: knots
    /// present, as many values as knots, knots ascending and finite, values
    /// probabilities (in `[0, 1]`) that never decrease, as fitting makes them.
    pub fn validate(&self) -> std::result::Result<(), String> {
        let ok = !self.xs.is_empty()
            && self.xs.len() == self.ys.len()
            && self.xs.iter().all(|v| v.is_finite())
            && self.xs.windows(2).all(|w| w[0] <= w[1]);
        if !ok {
            return Err(
                "an isotonic calibrator's knots are empty, unsorted, not finite or unpaired".into(),
            );
        }
        crate::check::unit("isotonic calibrated value", &self.ys)?;
        if self.ys.windows(2).any(|w| w[0] > w[1]) {
            return Err("an isotonic calibrator's values decrease".into());
        }
        Ok(())
    }

    /// The knots: fitted scores (ascending) and their calibrated values.
    pub fn knots(&self) -> (&[f64], &[f64]) {
        (&self.xs, &self.ys)
    }

    /// The calibrated value at `score` (linear between fitted scores, clipped
    /// outside them).
    pub fn apply(&self, score: f64) -> f64 {
        let n = self.xs.len();
        if score <= self.xs[0] {
            return self.ys[0];
        }
        if score >= self.xs[n - 1] {
            return self.ys[n - 1];
        }
        let hi = self.xs.partition_point(|&v| v <= score);
        let (x0, x1) = (self.xs[hi - 1], self.xs[hi]);
        let (y0, y1) = (self.ys[hi - 1], self.ys[hi]);
        if score == x0 {
            return y0;
        }
        y0 + (y1 - y0) * (score - x0) / (x1 - x0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_violators_and_ties() {
        // Two rows at x=2 (targets 1 and 0) pool to 0.5; then 3 -> 0 violates
        // and pools with them.
        let iso =
            Isotonic::fit_values(&[1.0, 2.0, 2.0, 3.0, 4.0], &[0.0, 1.0, 0.0, 0.0, 1.0], None)
                .unwrap();
        assert_eq!(iso.xs, vec![1.0, 2.0, 3.0, 4.0]);
        let third = 1.0 / 3.0;
        assert_eq!(iso.ys, vec![0.0, third, third, 1.0]);
        assert_eq!(iso.apply(3.5), third + (1.0 - third) * 0.5);
        assert!(Isotonic::fit_values(&[], &[], None).is_err());
    }

    #[test]
    fn weights_shift_the_pooled_mean() {
        let iso = Isotonic::fit_values(&[1.0, 2.0], &[1.0, 0.0], Some(&[3.0, 1.0])).unwrap();
        assert_eq!(iso.ys, vec![0.75, 0.75]);
    }
}
