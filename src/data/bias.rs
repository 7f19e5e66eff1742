//! Selection-bias simulators, the protocol of Fan & Davidson (2006, Sec. 5):
//! a training sample drawn with a selection variable `s` that depends on the
//! features (feature bias), on the class (class bias), or on nothing (random
//! selection). Each returns the kept row indices in increasing order;
//! [`Bias`] names one of them with its settings (what `rarity generate bias`
//! and the ReverseTesting bias experiment apply).

use rand::RngExt;
use serde::Serialize;

use super::Dataset;
use crate::error::{Error, Result};
use crate::rng::{self, Rng};

/// A selection bias with its settings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Bias {
    /// Sort by a feature and drop the lowest fraction (the paper: 0, 25%).
    Feature {
        /// The feature.
        attribute: usize,
        /// The fraction dropped.
        fraction: f64,
    },
    /// Keep each row of class `k` with probability `rates[k]`.
    Class(Vec<f64>),
    /// Keep each row of the dataset's largest class with probability 1/2,
    /// every row of the others (a class bias set per dataset).
    HalveLargestClass,
    /// No bias.
    None,
}

/// The share of rows the feature bias drops by default: Fan & Davidson
/// (2006) sort by the first attribute and drop its lowest 25%.
pub const FEATURE_DROP: f64 = 0.25;

impl Bias {
    /// The paper's feature bias: the lowest [`FEATURE_DROP`] share of rows
    /// by the first attribute dropped.
    pub const PAPER_FEATURE: Bias = Bias::Feature {
        attribute: 0,
        fraction: FEATURE_DROP,
    };

    /// The rows of `rows` the biased selection keeps, in increasing order;
    /// the class biases draw from `seed`.
    ///
    /// ```
    /// use rarity::data::bias::Bias;
    /// let ds = rarity::Dataset::from_rows((0..8).map(|i| vec![i as f64]).collect(),
    ///     vec![0, 0, 0, 0, 0, 0, 1, 1], vec!["a".into(), "b".into()]).unwrap();
    /// let all: Vec<usize> = (0..8).collect();
    /// let kept = Bias::Feature { attribute: 0, fraction: 0.25 }.apply(&ds, &all, 1).unwrap();
    /// assert_eq!(kept, vec![2, 3, 4, 5, 6, 7]);
    /// assert_eq!(Bias::Class(vec![0.0, 1.0]).apply(&ds, &all, 1).unwrap(), vec![6, 7]);
    /// ```
    pub fn apply(&self, data: &Dataset, rows: &[usize], seed: u64) -> Result<Vec<usize>> {
        let rng = || rng::stream(seed, 0xb1a5);
        match self {
            Bias::Feature {
                attribute,
                fraction,
            } => feature_bias(data, rows, *attribute, *fraction),
            Bias::Class(rates) => class_bias(data, rows, rates, &mut rng()),
            Bias::HalveLargestClass => {
                class_bias(data, rows, &largest_class_halved(data), &mut rng())
            }
            Bias::None => Ok(rows.to_vec()),
        }
    }
}

/// Keep rates of [`Bias::HalveLargestClass`]: 1/2 for the largest class of
/// `data` (the last of equally large ones), 1 for the others.
fn largest_class_halved(data: &Dataset) -> Vec<f64> {
    let c = data.class_counts();
    let big = (0..c.len()).max_by_key(|&k| c[k]).unwrap_or(0);
    (0..c.len())
        .map(|k| if k == big { 0.5 } else { 1.0 })
        .collect()
}

/// Feature bias: sort `rows` by feature `attribute` (ties by row index) and
/// drop the first `fraction` of them (the paper: attribute 0, 25%).
///
/// ```
/// use rarity::data::{Dataset, bias};
/// let ds = Dataset::from_rows(vec![vec![3.0], vec![1.0], vec![2.0], vec![0.0]],
///                             vec![0, 1, 0, 1], vec!["a".into(), "b".into()]).unwrap();
/// let kept = bias::feature_bias(&ds, &[0, 1, 2, 3], 0, 0.25).unwrap();
/// assert_eq!(kept, vec![0, 1, 2]); // row 3 (smallest x) is dropped
/// ```
pub fn feature_bias(
    ds: &Dataset,
    rows: &[usize],
    attribute: usize,
    fraction: f64,
) -> Result<Vec<usize>> {
    if attribute >= ds.n_features() {
        return Err(Error::invalid(format!(
            "feature bias on attribute {attribute}, but the data has {} features",
            ds.n_features()
        )));
    }
    if !(0.0..1.0).contains(&fraction) {
        return Err(Error::invalid(format!(
            "feature bias drops a fraction in [0, 1), got {fraction}"
        )));
    }
    let mut sorted = rows.to_vec();
    sorted.sort_by(|&a, &b| {
        ds.value(a, attribute)
            .total_cmp(&ds.value(b, attribute))
            .then(a.cmp(&b))
    });
    let drop = (fraction * sorted.len() as f64).floor() as usize;
    let mut kept = sorted.split_off(drop);
    kept.sort_unstable();
    Ok(kept)
}

/// Class bias: keep each row of class `k` with probability `keep[k]`.
pub fn class_bias(ds: &Dataset, rows: &[usize], keep: &[f64], rng: &mut Rng) -> Result<Vec<usize>> {
    if keep.len() != ds.n_classes() {
        return Err(Error::invalid(format!(
            "class bias needs one keep rate per class ({}), got {}",
            ds.n_classes(),
            keep.len()
        )));
    }
    if let Some(r) = keep.iter().find(|r| !(0.0..=1.0).contains(*r)) {
        return Err(Error::invalid(format!("keep rate {r} is not in [0, 1]")));
    }
    let mut kept: Vec<usize> = rows
        .iter()
        .copied()
        .filter(|&i| rng.random::<f64>() < keep[ds.label(i)])
        .collect();
    kept.sort_unstable();
    Ok(kept)
}

/// Random selection (no bias): keep each row with probability `fraction`.
pub fn random_selection(rows: &[usize], fraction: f64, rng: &mut Rng) -> Result<Vec<usize>> {
    if !(0.0..=1.0).contains(&fraction) {
        return Err(Error::invalid(format!(
            "random selection keeps a fraction in [0, 1], got {fraction}"
        )));
    }
    let mut kept: Vec<usize> = rows
        .iter()
        .copied()
        .filter(|_| rng.random::<f64>() < fraction)
        .collect();
    kept.sort_unstable();
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    fn ds() -> Dataset {
        let rows = (0..100).map(|i| vec![(i * 37 % 100) as f64]).collect();
        let y = (0..100).map(|i| u32::from(i % 10 == 0)).collect();
        Dataset::from_rows(rows, y, vec!["n".into(), "p".into()]).unwrap()
    }

    #[test]
    fn feature_bias_drops_the_lowest_values() {
        let d = ds();
        let all: Vec<usize> = (0..100).collect();
        let kept = feature_bias(&d, &all, 0, 0.25).unwrap();
        assert_eq!(kept.len(), 75);
        assert!(kept.iter().all(|&i| d.value(i, 0) >= 25.0));
        assert!(feature_bias(&d, &all, 1, 0.25).is_err());
        assert!(feature_bias(&d, &all, 0, 1.0).is_err());
    }

    #[test]
    fn class_bias_respects_rates() {
        let d = ds();
        let all: Vec<usize> = (0..100).collect();
        let kept = class_bias(&d, &all, &[0.0, 1.0], &mut stream(1, 0)).unwrap();
        assert_eq!(kept.len(), 10);
        assert!(kept.iter().all(|&i| d.label(i) == 1));
        assert!(class_bias(&d, &all, &[0.5], &mut stream(1, 0)).is_err());
    }

    #[test]
    fn random_selection_is_seeded() {
        let all: Vec<usize> = (0..1000).collect();
        let a = random_selection(&all, 0.3, &mut stream(2, 0)).unwrap();
        let b = random_selection(&all, 0.3, &mut stream(2, 0)).unwrap();
        assert_eq!(a, b);
        assert!(a.len() > 240 && a.len() < 360, "{}", a.len());
    }
}
