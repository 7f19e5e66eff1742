//! The feature space the neighbour-based samplers search in: the data's own
//! features or, with `standardise=true`, their z-scores (the mean and the
//! population standard deviation of each feature over all rows, as
//! scikit-learn's `StandardScaler`; see [`Scaling`]). SMOTE and its variants
//! interpolate in the original units whatever the space; the cleaning
//! methods only compare distances. Every sampler's `standardise` parameter
//! prepares its points here, so it means the same everywhere.

use std::borrow::Cow;

use crate::data::Dataset;
use crate::neighbors::{gather, knn, Exclude, Neighbours, Points, Scaling};

/// The `standardise` flag as it appears in a sampler's name (empty when off).
pub(crate) fn std_flag(on: bool) -> String {
    if on {
        "standardise".into()
    } else {
        String::new()
    }
}

/// The data's rows in the search space.
pub(crate) struct Space<'a> {
    data: &'a Dataset,
    scaling: Option<Scaling>,
}

impl<'a> Space<'a> {
    /// The space of `data`, standardised or not.
    pub(crate) fn new(data: &'a Dataset, standardise: bool) -> Self {
        Space {
            data,
            scaling: standardise.then(|| Scaling::fit(data)),
        }
    }

    /// The data.
    pub(crate) fn data(&self) -> &'a Dataset {
        self.data
    }

    /// The notes to start a sample with.
    pub(crate) fn note(&self) -> Vec<String> {
        if self.scaling.is_some() {
            vec!["neighbours searched on standardised features (z-scores over all rows)".into()]
        } else {
            Vec::new()
        }
    }

    /// The rows `rows`, in the search space, as one buffer.
    pub(crate) fn gather(&self, rows: &[usize]) -> Vec<f64> {
        gather(
            self.data.features(),
            self.data.n_features(),
            rows,
            self.scaling.as_ref(),
        )
    }

    /// Every row, in the search space (the data's own buffer when it is not
    /// standardised).
    pub(crate) fn all(&self) -> Cow<'a, [f64]> {
        match &self.scaling {
            Some(_) => Cow::Owned(self.gather(&(0..self.data.n_rows()).collect::<Vec<_>>())),
            None => Cow::Borrowed(self.data.features()),
        }
    }

    /// Appends `rows` (row-major, in the original units, e.g. synthetic
    /// rows) to `x` in the search space.
    pub(crate) fn extend(&self, x: &mut Vec<f64>, rows: &[f64]) {
        match &self.scaling {
            Some(s) => {
                for r in rows.chunks(self.data.n_features().max(1)) {
                    s.push_scaled(r, x);
                }
            }
            None => x.extend_from_slice(rows),
        }
    }

    /// The `k` nearest neighbours, over all rows, of the rows `pool` (each
    /// excluding itself); neighbour indices are row numbers.
    pub(crate) fn among_all(&self, pool: &[usize], k: usize) -> Neighbours {
        let d = self.data.n_features();
        let q = self.gather(pool);
        let all = self.all();
        knn(
            Points::new(&q, pool.len(), d).expect("shape"),
            Points::new(&all, self.data.n_rows(), d).expect("shape"),
            k,
            Exclude::Given(pool),
        )
    }
}

/// A labelled point set in the search space: the data's rows, or the data
/// plus synthetic rows.
#[derive(Clone, Copy)]
pub(crate) struct Labelled<'a> {
    /// The points.
    pub(crate) pts: Points<'a>,
    /// Their class ids.
    pub(crate) y: &'a [u32],
    /// Classes of the data.
    pub(crate) n_classes: usize,
}

impl<'a> Labelled<'a> {
    /// The rows of `data`, with `x` their features in the search space
    /// ([`Space::all`]).
    pub(crate) fn of(data: &'a Dataset, x: &'a [f64]) -> Self {
        Labelled {
            pts: Points::new(x, data.n_rows(), data.n_features()).expect("shape"),
            y: data.labels(),
            n_classes: data.n_classes(),
        }
    }

    /// The class of point `i`.
    pub(crate) fn label(&self, i: usize) -> usize {
        self.y[i] as usize
    }
}
