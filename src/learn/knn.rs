//! k nearest neighbours (Fix & Hodges 1951; Cover & Hart 1967), as
//! scikit-learn's `KNeighborsClassifier(algorithm='brute')` with the
//! Euclidean metric.
//!
//! The probability of class `c` is the share of the `k` nearest training
//! rows' votes that go to `c`: each neighbour votes with its row weight
//! (1 without weights; a row repeated in a bag is that many neighbours),
//! times `1 / distance` with `weights=distance`. When some neighbours are at
//! distance 0, only they vote (scikit-learn's rule). With fewer than `k`
//! training rows, all of them are the neighbours.
//!
//! The search is an exact brute-force scan ([`nearest`]) ordered by
//! `(squared distance, training row index)`, so ties are broken by index:
//! deterministic, but scikit-learn's order among neighbours at exactly the
//! same distance from a query can differ (and only then can the results).

use serde::{Deserialize, Serialize};

use super::rows::Rows;
use crate::data::View;
use crate::error::{Error, Result};
use crate::learn::{Learner, Model};
use crate::rng::Rng;

/// How neighbours' votes are weighted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Weighting {
    /// Every neighbour counts the same.
    Uniform,
    /// Votes weighted by the inverse distance.
    Distance,
}

/// The kNN learner (hyper-parameters).
///
/// ```
/// use rarity::data::Dataset;
/// use rarity::learn::{Learner, knn::Knn};
/// let ds = Dataset::from_rows((0..10).map(|i| vec![i as f64]).collect(),
///     vec![0, 0, 0, 0, 0, 1, 1, 1, 1, 1], vec!["n".into(), "p".into()]).unwrap();
/// let rows: Vec<usize> = (0..10).collect();
/// let m = Knn::default().fit(&ds.view(&rows), &mut rarity::rng::stream(0, 0)).unwrap();
/// // The 5 nearest rows to x = 4 are 2..=6: three negatives, two positives.
/// assert_eq!(m.predict_proba(&ds).unwrap().row(4), &[0.6, 0.4]);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Knn {
    /// Number of neighbours (>= 1).
    pub k: usize,
    /// Vote weighting.
    pub weights: Weighting,
}

impl Default for Knn {
    fn default() -> Self {
        Knn {
            k: 5,
            weights: Weighting::Uniform,
        }
    }
}

/// A fitted kNN: the training rows themselves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KnnModel {
    n_classes: usize,
    d: usize,
    k: usize,
    weights: Weighting,
    x: Vec<f64>,
    y: Vec<u32>,
    w: Vec<f64>,
}

/// The `k` rows of `x` (row-major, `d` columns) nearest to `q`, as
/// `(squared distance, row)` in increasing `(distance, row)` order.
pub(crate) fn nearest(x: &[f64], d: usize, q: &[f64], k: usize) -> Vec<(f64, usize)> {
    let mut all: Vec<(f64, usize)> = x
        .chunks_exact(d)
        .enumerate()
        .map(|(i, r)| {
            let s: f64 = r.iter().zip(q).map(|(a, b)| (a - b) * (a - b)).sum();
            (s, i)
        })
        .collect();
    let by = |a: &(f64, usize), b: &(f64, usize)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
    let k = k.min(all.len());
    if k < all.len() {
        all.select_nth_unstable_by(k, by);
        all.truncate(k);
    }
    all.sort_unstable_by(by);
    all
}

impl KnnModel {
    /// Number of classes of the training dataset.
    pub fn n_classes(&self) -> usize {
        self.n_classes
    }

    /// Number of features.
    pub fn n_features(&self) -> usize {
        self.d
    }

    /// Class probabilities of one row.
    pub fn predict_row(&self, x: &[f64], out: &mut [f64]) {
        out.iter_mut().for_each(|o| *o = 0.0);
        let nb = nearest(&self.x, self.d, x, self.k);
        let exact = self.weights == Weighting::Distance && nb.iter().any(|n| n.0 == 0.0);
        for &(d2, i) in &nb {
            let v = match self.weights {
                Weighting::Uniform => self.w[i],
                Weighting::Distance if exact => {
                    if d2 == 0.0 {
                        self.w[i]
                    } else {
                        0.0
                    }
                }
                Weighting::Distance => self.w[i] / d2.sqrt(),
            };
            out[self.y[i] as usize] += v;
        }
        let s: f64 = out.iter().sum();
        out.iter_mut().for_each(|o| *o /= s);
    }

    /// Checks shapes.
    pub fn validate(&self) -> std::result::Result<(), String> {
        let n = self.y.len();
        if n == 0
            || self.k == 0
            || self.x.len() != n * self.d
            || self.w.len() != n
            || self.w.iter().any(|&w| !(w > 0.0 && w.is_finite()))
            || self.y.iter().any(|&c| c as usize >= self.n_classes)
        {
            return Err("kNN model: inconsistent shapes, labels or weights".into());
        }
        Ok(())
    }
}

impl Learner for Knn {
    fn fit(&self, data: &View<'_>, _rng: &mut Rng) -> Result<Model> {
        if self.k == 0 {
            return Err(Error::invalid("knn: k must be at least 1"));
        }
        let rows = Rows::expanded(data, "kNN")?;
        Ok(Model::Knn(KnnModel {
            n_classes: rows.k,
            d: rows.d,
            k: self.k,
            weights: self.weights,
            y: rows.y.iter().map(|&c| c as u32).collect(),
            x: rows.x,
            w: rows.w,
        }))
    }

    fn name(&self) -> String {
        let w = match self.weights {
            Weighting::Uniform => "uniform",
            Weighting::Distance => "distance",
        };
        format!("knn(k={},weights={w})", self.k)
    }
}
