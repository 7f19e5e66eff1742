//! A matrix of class probabilities: one row per example, one column per class.

use serde::{Deserialize, Serialize};

/// Row-major `n x k` class probabilities (each row sums to 1).
///
/// ```
/// use rarity::data::Proba;
/// let p = Proba::from_positive(&[0.2, 0.9]);
/// assert_eq!(p.n_classes(), 2);
/// assert_eq!(p.row(1), &[0.09999999999999998, 0.9]);
/// assert_eq!(p.column(1), vec![0.2, 0.9]);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Proba {
    n_rows: usize,
    n_classes: usize,
    values: Vec<f64>,
}

impl Proba {
    /// Wraps a row-major buffer of `n_rows * n_classes` values.
    ///
    /// # Panics
    /// If `values.len()` is not a multiple of `n_classes` (a programming error).
    pub fn new(values: Vec<f64>, n_classes: usize) -> Self {
        assert!(
            n_classes > 0 && values.len().is_multiple_of(n_classes),
            "ragged probability matrix"
        );
        Proba {
            n_rows: values.len() / n_classes,
            n_classes,
            values,
        }
    }

    /// An `n x k` matrix of zeros, to be filled.
    pub fn zeros(n_rows: usize, n_classes: usize) -> Self {
        Proba::new(vec![0.0; n_rows * n_classes], n_classes)
    }

    /// Binary probabilities from the positive-class column: rows `[1 - p, p]`.
    pub fn from_positive(p: &[f64]) -> Self {
        Proba::new(p.iter().flat_map(|&q| [1.0 - q, q]).collect(), 2)
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    /// Number of classes.
    pub fn n_classes(&self) -> usize {
        self.n_classes
    }

    /// Probabilities of row `i`.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.values[i * self.n_classes..(i + 1) * self.n_classes]
    }

    /// Mutable probabilities of row `i`.
    pub fn row_mut(&mut self, i: usize) -> &mut [f64] {
        &mut self.values[i * self.n_classes..(i + 1) * self.n_classes]
    }

    /// The probability of class `k` for every row.
    pub fn column(&self, k: usize) -> Vec<f64> {
        self.values
            .iter()
            .skip(k)
            .step_by(self.n_classes)
            .copied()
            .collect()
    }

    /// The whole row-major buffer.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The row-major buffer, taken out.
    pub fn into_values(self) -> Vec<f64> {
        self.values
    }

    /// Mutable access to the whole row-major buffer.
    pub fn values_mut(&mut self) -> &mut [f64] {
        &mut self.values
    }

    /// The class with the largest probability in each row (lowest id on ties).
    pub fn argmax(&self) -> Vec<usize> {
        (0..self.n_rows)
            .map(|i| {
                let r = self.row(i);
                let mut best = 0;
                for k in 1..r.len() {
                    if r[k] > r[best] {
                        best = k;
                    }
                }
                best
            })
            .collect()
    }

    /// Rescales every row to sum to 1 (a row of zeros becomes uniform).
    pub fn normalise_rows(&mut self) {
        let k = self.n_classes;
        for r in self.values.chunks_mut(k) {
            let s: f64 = r.iter().sum();
            if s > 0.0 {
                r.iter_mut().for_each(|v| *v /= s);
            } else {
                r.iter_mut().for_each(|v| *v = 1.0 / k as f64);
            }
        }
    }
}
