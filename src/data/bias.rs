//! Selection-bias simulators, the protocol of Fan & Davidson (2006, Sec. 5):
//! a training sample drawn with a selection variable `s` that depends on the
//! features (feature bias), on the class (class bias), or on nothing (random
//! selection). Each returns the kept row indices in increasing order.

use rand::RngExt;

use super::Dataset;
use crate::error::{Error, Result};
use crate::rng::Rng;

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
