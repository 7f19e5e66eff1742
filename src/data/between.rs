//! Synthetic rows held as recipes: a point on the segment between two rows
//! of the input table, `x_from + gap (x_to - x_from)` with `gap` in
//! `[0, 1)`, SMOTE's interpolation (Chawla, Bowyer, Hall & Kegelmeyer 2002;
//! Kim's notes on SMOTE, step 4) and that of its variants.
//!
//! A recipe is two row indices and the gap, 24 bytes whatever the number of
//! features, and the values are computed where they are written (a
//! materialised sample, a NumPy array): SMOTE's million synthetic rows of 30
//! features are 24 MB of recipes instead of 240 MB of values written once by
//! the sampler and read back by whoever copies them out. The value is the
//! same floating-point expression an eager sampler computes, so the rows are
//! bit for bit the same.

use serde::{Deserialize, Serialize};

use super::Dataset;

/// A synthetic row between rows `from` and `to` of a table, at `gap` of the
/// way from `from`.
///
/// ```
/// use rarity::data::{Between, Dataset};
/// let ds = Dataset::from_rows(vec![vec![1.0, 10.0], vec![3.0, 20.0]], vec![0, 1],
///                             vec!["n".into(), "p".into()]).unwrap();
/// let mut out = [0.0; 2];
/// Between { from: 0, to: 1, gap: 0.25 }.write(&ds, &mut out);
/// assert_eq!(out, [1.5, 12.5]);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Between {
    /// The row interpolated from.
    pub from: usize,
    /// The row interpolated towards.
    pub to: usize,
    /// How far along the segment, from `from` (0) to `to` (1).
    pub gap: f64,
}

impl Between {
    /// A copy of `row`: `x + 0 (x - x)` is `x` itself for every finite
    /// value.
    pub fn copy_of(row: usize) -> Self {
        Between {
            from: row,
            to: row,
            gap: 0.0,
        }
    }

    /// Writes the row's `d` values into `out` (`out.len()` values of rows
    /// `from` and `to` of `data`). Panics if a row is out of range, which
    /// [`Dataset::take_append_into`] checks first.
    pub fn write(&self, data: &Dataset, out: &mut [f64]) {
        let (a, b) = (data.row(self.from), data.row(self.to));
        for ((o, &a), &b) in out.iter_mut().zip(a).zip(b) {
            *o = a + self.gap * (b - a);
        }
    }
}

impl Dataset {
    /// The values of the rows `between`, row-major (`between.len() * d`).
    pub fn interpolate(&self, between: &[Between]) -> Vec<f64> {
        let d = self.n_features();
        let mut out = vec![0.0; between.len() * d];
        if d > 0 {
            for (o, b) in out.chunks_exact_mut(d).zip(between) {
                b.write(self, o);
            }
        }
        out
    }
}
