//! Reliability-diagram data and the expected calibration error.
//!
//! Bins follow scikit-learn's `calibration_curve` (version 1.9): `uniform`
//! edges `0, 1/n, ..., 1`; `quantile` edges at the `0, 1/n, ..., 1` quantiles
//! of the predicted probabilities (NumPy's default linear interpolation,
//! Hyndman and Fan's method 7). A probability goes to the bin whose upper
//! edge is the first edge `>=` it (so a value on an interior edge belongs to
//! the lower bin). Empty bins are left out, as scikit-learn does; repeated
//! quantile edges therefore merge bins.
//!
//! The expected calibration error (Naeini et al. 2015) is
//! `sum_b (n_b / N) |o_b - f_b|` over uniform bins, `f_b` the mean predicted
//! probability and `o_b` the observed frequency of bin `b`. It is not in
//! scikit-learn.

use super::{check_len, check_unit};
use crate::{Error, Result};

/// How the `[0, 1]` axis is cut into bins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binning {
    /// Equal-width bins.
    Uniform,
    /// Bins holding about equally many predictions.
    Quantile,
}

/// One non-empty bin of a reliability diagram.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bin {
    /// Lower edge (exclusive, except for the first bin).
    pub lower: f64,
    /// Upper edge (inclusive).
    pub upper: f64,
    /// Number of predictions in the bin.
    pub count: usize,
    /// Mean predicted probability in the bin (`prob_pred` in scikit-learn).
    pub mean_predicted: f64,
    /// Fraction of the bin's rows that are positive (`prob_true`).
    pub observed: f64,
}

/// The `n + 1` edges `0, 1/n, ..., 1` as NumPy's `linspace(0, 1, n + 1)`.
fn linspace01(n: usize) -> Vec<f64> {
    let step = 1.0 / n as f64;
    let mut e: Vec<f64> = (0..=n).map(|i| i as f64 * step).collect();
    e[n] = 1.0;
    e
}

/// The function giving the equal-width bin (of `n_bins`) of a probability:
/// the bin whose upper edge is the first edge `>=` it, as
/// [`reliability_bins`] with [`Binning::Uniform`] assigns them.
///
/// ```
/// let bin = rarity::metrics::calibration::uniform_bin_of(10).unwrap();
/// assert_eq!((bin(0.0), bin(0.1), bin(0.1000001), bin(1.0)), (0, 0, 1, 9));
/// ```
pub fn uniform_bin_of(n_bins: usize) -> Result<impl Fn(f64) -> usize> {
    if n_bins == 0 {
        return Err(Error::invalid("the number of bins must be at least 1"));
    }
    let edges = linspace01(n_bins);
    Ok(move |q: f64| edges[1..n_bins].partition_point(|&e| e < q))
}

/// The `q`-quantile of sorted values as NumPy's `percentile(x, 100 q)`.
fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    let q = (q * 100.0) / 100.0;
    let n = sorted.len();
    let v = (n - 1) as f64 * q;
    if v >= (n - 1) as f64 {
        return sorted[n - 1];
    }
    let lo = v.floor();
    let g = v - lo;
    let (a, b) = (sorted[lo as usize], sorted[lo as usize + 1]);
    let d = b - a;
    if g >= 0.5 {
        b - d * (1.0 - g)
    } else {
        a + d * g
    }
}

/// Reliability-diagram data of positive-class probabilities `p` in `n_bins`
/// bins: scikit-learn's `calibration_curve` plus each bin's edges and count.
///
/// ```
/// use rarity::metrics::calibration::{reliability_bins, Binning};
/// let t = [0, 0, 1, 1];
/// let bins = reliability_bins(&t, &[0.1, 0.3, 0.35, 0.9], 1, 2, Binning::Uniform).unwrap();
/// assert_eq!(bins.len(), 2);
/// assert_eq!((bins[0].count, bins[0].observed), (3, 1.0 / 3.0));
/// assert_eq!(bins[1].mean_predicted, 0.9);
/// ```
pub fn reliability_bins(
    truth: &[u32],
    p: &[f64],
    positive: u32,
    n_bins: usize,
    binning: Binning,
) -> Result<Vec<Bin>> {
    check_len(truth.len(), p.len(), "probabilities")?;
    check_unit(p)?;
    if n_bins == 0 {
        return Err(Error::invalid("the number of bins must be at least 1"));
    }
    let edges = match binning {
        Binning::Uniform => linspace01(n_bins),
        Binning::Quantile => {
            let mut sorted = p.to_vec();
            sorted.sort_unstable_by(f64::total_cmp);
            linspace01(n_bins)
                .iter()
                .map(|&q| quantile_sorted(&sorted, q))
                .collect()
        }
    };
    let interior = &edges[1..n_bins];
    let mut sums = vec![0.0; n_bins];
    let mut hits = vec![0usize; n_bins];
    let mut counts = vec![0usize; n_bins];
    for (&t, &q) in truth.iter().zip(p) {
        let b = interior.partition_point(|&e| e < q);
        sums[b] += q;
        hits[b] += usize::from(t == positive);
        counts[b] += 1;
    }
    Ok((0..n_bins)
        .filter(|&b| counts[b] > 0)
        .map(|b| Bin {
            lower: edges[b],
            upper: edges[b + 1],
            count: counts[b],
            mean_predicted: sums[b] / counts[b] as f64,
            observed: hits[b] as f64 / counts[b] as f64,
        })
        .collect())
}

/// Expected calibration error over `n_bins` uniform bins.
///
/// ```
/// use rarity::metrics::calibration::expected_calibration_error;
/// // Predictions of 0.5 on a half-positive set are perfectly calibrated.
/// assert_eq!(expected_calibration_error(&[0, 1], &[0.5, 0.5], 1, 10).unwrap(), 0.0);
/// ```
pub fn expected_calibration_error(
    truth: &[u32],
    p: &[f64],
    positive: u32,
    n_bins: usize,
) -> Result<f64> {
    let bins = reliability_bins(truth, p, positive, n_bins, Binning::Uniform)?;
    let n = p.len() as f64;
    Ok(bins
        .iter()
        .map(|b| b.count as f64 / n * (b.observed - b.mean_predicted).abs())
        .sum())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_on_an_edge_go_to_the_lower_bin() {
        let bins = reliability_bins(&[1, 0, 1], &[0.5, 0.0, 1.0], 1, 2, Binning::Uniform).unwrap();
        assert_eq!(bins[0].count, 2);
        assert_eq!(bins[1].count, 1);
    }

    #[test]
    fn quantile_bins_merge_on_repeated_edges() {
        let bins = reliability_bins(
            &[0, 0, 0, 1],
            &[0.2, 0.2, 0.2, 0.9],
            1,
            4,
            Binning::Quantile,
        )
        .unwrap();
        assert_eq!(bins.iter().map(|b| b.count).sum::<usize>(), 4);
        assert!(bins.len() < 4);
        assert!(reliability_bins(&[0], &[0.2], 1, 0, Binning::Quantile).is_err());
    }
}
