//! The Poisson bootstrap of grouped rows (Hanley & MacGibbon 2006, "Creating
//! non-parametric bootstrap samples using Poisson frequencies"): each row is
//! drawn a Poisson(1) number of times instead of drawing `n` rows with
//! replacement, so a group of `m` rows is drawn Poisson(`m`) times, which
//! needs the groups' counts only (`rarity monitor`'s interval of the EM
//! prior over a histogram of probabilities, in memory that does not grow
//! with the rows). The resampled total varies around `n`, a difference that
//! vanishes as `n` grows; replicates are independent streams of one seed.
//!
//! Poisson variates: by multiplying uniforms below a mean of 10 (Knuth),
//! and by Hörmann's transformed rejection with squeeze, PTRS (1993, "The
//! transformed rejection method for generating Poisson random variables"),
//! from 10 up.

use rand::RngExt;

use crate::rng::Rng;

/// A Poisson(`lambda`) variate (`lambda >= 0`, finite).
pub fn poisson(rng: &mut Rng, lambda: f64) -> u64 {
    if lambda <= 0.0 {
        return 0;
    }
    if lambda < 10.0 {
        let limit = (-lambda).exp();
        let (mut k, mut prod) = (0u64, rng.random::<f64>());
        while prod > limit {
            k += 1;
            prod *= rng.random::<f64>();
        }
        return k;
    }
    let slam = lambda.sqrt();
    let loglam = lambda.ln();
    let b = 0.931 + 2.53 * slam;
    let a = -0.059 + 0.02483 * b;
    let inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
    let vr = 0.9277 - 3.6224 / (b - 2.0);
    loop {
        let u = rng.random::<f64>() - 0.5;
        let v = rng.random::<f64>();
        let us = 0.5 - u.abs();
        let k = ((2.0 * a / us + b) * u + lambda + 0.43).floor();
        if us >= 0.07 && v <= vr {
            return k as u64;
        }
        if k < 0.0 || (us < 0.013 && v > us) {
            continue;
        }
        let lhs = v.ln() + inv_alpha.ln() - (a / (us * us) + b).ln();
        let rhs = -lambda + k * loglam - statrs::function::gamma::ln_gamma(k + 1.0);
        if lhs <= rhs {
            return k as u64;
        }
    }
}

/// The `(q, 1 - q)` percentile interval of `values` (sorted here): the
/// values at ranks `floor(q (n - 1))` and `ceil((1 - q) (n - 1))`.
pub fn percentile_interval(values: &mut [f64], q: f64) -> (f64, f64) {
    if values.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    values.sort_by(f64::total_cmp);
    let last = (values.len() - 1) as f64;
    let lo = (q * last).floor() as usize;
    let hi = ((1.0 - q) * last).ceil() as usize;
    (values[lo], values[hi.min(values.len() - 1)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poisson_variates_have_their_mean_and_variance() {
        for lambda in [0.5, 3.0, 9.9, 10.0, 42.0, 1e4, 1e8] {
            let mut r = crate::rng::stream(56, lambda as u64);
            let n = 20_000;
            let xs: Vec<f64> = (0..n).map(|_| poisson(&mut r, lambda) as f64).collect();
            let mean = xs.iter().sum::<f64>() / n as f64;
            let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            // Five standard errors of the mean; the variance within 5%.
            assert!(
                (mean - lambda).abs() < 5.0 * (lambda / n as f64).sqrt(),
                "{lambda}: {mean}"
            );
            assert!((var / lambda - 1.0).abs() < 0.05, "{lambda}: {var}");
        }
        assert_eq!(poisson(&mut crate::rng::stream(1, 1), 0.0), 0);
    }

    #[test]
    fn the_interval_is_taken_at_the_outer_ranks() {
        let mut v: Vec<f64> = (0..=100).rev().map(f64::from).collect();
        assert_eq!(percentile_interval(&mut v, 0.025), (2.0, 98.0));
        assert!(percentile_interval(&mut [], 0.025).0.is_nan());
    }
}
