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
//!
//! A categorical feature (level codes) is never interpolated: a synthetic
//! row carries its level for each categorical feature beside the recipe
//! (the sampler's vote, SMOTE-NC's: Chawla et al. 2002, section 6.1; see
//! [`crate::sample`]), so every code written is a real level's.

use serde::{Deserialize, Serialize};

use super::Dataset;
use crate::error::{Error, Result};

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

impl Between {
    /// [`Between::write`], then `levels` (this row's level at each
    /// categorical feature) at the categorical features `categorical`
    /// (their indices, see [`Dataset::categorical_features`]).
    pub fn write_with_levels(
        &self,
        data: &Dataset,
        out: &mut [f64],
        categorical: &[usize],
        levels: &[f64],
    ) {
        self.write(data, out);
        for (&j, &l) in categorical.iter().zip(levels) {
            out[j] = l;
        }
    }
}

impl Dataset {
    /// The values of the rows `between`, row-major (`between.len() * d`),
    /// with `levels` their values at the categorical features (row-major,
    /// one per categorical feature). Fails when `levels` has not one value
    /// per synthetic row and categorical feature.
    ///
    /// ```
    /// use rarity::data::{Between, ColumnEncoding, Dataset};
    /// let ds = Dataset::from_rows(vec![vec![1.0, 0.0], vec![3.0, 4.0]], vec![0, 1],
    ///                             vec!["n".into(), "p".into()]).unwrap();
    /// let mut schema = ds.schema().clone();
    /// schema.encodings[1] = ColumnEncoding::Categorical {
    ///     name: schema.feature_names[1].clone(),
    ///     levels: (0..5).map(|l| l.to_string()).collect(),
    /// };
    /// let ds = Dataset::new(ds.features().to_vec(), ds.labels().to_vec(), schema).unwrap();
    /// let b = Between { from: 0, to: 1, gap: 0.5 };
    /// assert_eq!(ds.interpolate(&[b], &[4.0]).unwrap(), vec![2.0, 4.0]);
    /// assert!(ds.interpolate(&[b], &[]).is_err());
    /// ```
    pub fn interpolate(&self, between: &[Between], levels: &[f64]) -> Result<Vec<f64>> {
        let d = self.n_features();
        let categorical = self.categorical_features();
        self.check_levels(between.len(), categorical.len(), levels)?;
        let mut out = vec![0.0; between.len() * d];
        if d > 0 {
            for (i, (o, b)) in out.chunks_exact_mut(d).zip(between).enumerate() {
                let nc = categorical.len();
                b.write_with_levels(self, o, &categorical, &levels[i * nc..(i + 1) * nc]);
            }
        }
        Ok(out)
    }

    /// Fails unless `levels` holds `n * nc` values: one per synthetic row
    /// and categorical feature.
    pub(crate) fn check_levels(&self, n: usize, nc: usize, levels: &[f64]) -> Result<()> {
        if levels.len() == n * nc {
            return Ok(());
        }
        Err(Error::invalid(format!(
            "{} levels given for {n} synthetic rows of {nc} categorical features; {} expected",
            levels.len(),
            n * nc
        )))
    }

    /// The indices of the categorical features (level codes).
    pub fn categorical_features(&self) -> Vec<usize> {
        self.schema()
            .categorical_levels()
            .iter()
            .enumerate()
            .filter_map(|(j, l)| l.map(|_| j))
            .collect()
    }
}
