//! The feature space the neighbour-based samplers search in: the data's own
//! features or, with `standardise=true`, their z-scores (the mean and the
//! population standard deviation of each feature over all rows, as
//! scikit-learn's `StandardScaler`; see [`Scaling`]). SMOTE and its variants
//! interpolate in the original units whatever the space; the cleaning
//! methods only compare distances. Every sampler's `standardise` parameter
//! prepares its points here, so it means the same everywhere.
//!
//! A table with categorical features (level codes) is searched with
//! SMOTE-NC's mixed distance (Chawla, Bowyer, Hall & Kegelmeyer 2002,
//! section 6.1; [`Metric::Mixed`]): Euclidean over the numeric features
//! plus, for each categorical feature whose levels differ, `Med^2`, with
//! `Med` the median of the numeric features' standard deviations (population,
//! in the search space) over the minority class (the smallest class; with
//! no numeric feature, `Med = 1` and the count of differing levels ranks).
//! Level codes are never standardised. A table without categorical
//! features is searched as before, bit for bit.

use std::borrow::Cow;

use crate::data::tally;
use crate::data::Dataset;
use crate::neighbors::{gather, Exclude, Metric, Neighbours, Points, Scaling};

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
    /// Per feature, whether it holds level codes (empty: none does).
    categorical: Vec<bool>,
    /// What a differing level adds to a squared distance (`Med^2`).
    penalty: f64,
}

impl<'a> Space<'a> {
    /// The space of `data`, standardised or not.
    pub(crate) fn new(data: &'a Dataset, standardise: bool) -> Self {
        let levels = data.schema().categorical_levels();
        let categorical: Vec<bool> = if levels.iter().any(Option::is_some) {
            levels.iter().map(Option::is_some).collect()
        } else {
            Vec::new()
        };
        let mut space = Space {
            data,
            scaling: standardise.then(|| Scaling::fit(data).keeping(&categorical)),
            categorical,
            penalty: 0.0,
        };
        if !space.categorical.is_empty() {
            let med = space.median_minority_sd();
            space.penalty = med * med;
        }
        space
    }

    /// SMOTE-NC's `Med`: the median of the numeric features' standard
    /// deviations over the rows of the smallest class (the lower class id
    /// on a tie), in the search space; 1 when no feature is numeric.
    fn median_minority_sd(&self) -> f64 {
        let counts = tally(
            self.data.labels().iter().map(|&c| c as usize),
            self.data.n_classes(),
        );
        let minority = (0..counts.len())
            .filter(|&c| counts[c] > 0)
            .min_by_key(|&c| counts[c])
            .unwrap_or(0);
        let rows = self.data.rows_of_class(minority);
        let x = self.gather(&rows);
        let d = self.data.n_features();
        let n = rows.len().max(1) as f64;
        let mut sds: Vec<f64> = (0..d)
            .filter(|&j| !self.categorical[j])
            .map(|j| {
                let mean = x.iter().skip(j).step_by(d).sum::<f64>() / n;
                let ss = x
                    .iter()
                    .skip(j)
                    .step_by(d)
                    .map(|v| (v - mean) * (v - mean))
                    .sum::<f64>();
                (ss / n).sqrt()
            })
            .collect();
        if sds.is_empty() {
            return 1.0;
        }
        sds.sort_by(f64::total_cmp);
        let m = sds.len();
        if m % 2 == 1 {
            sds[m / 2]
        } else {
            (sds[m / 2 - 1] + sds[m / 2]) / 2.0
        }
    }

    /// How rows are compared: SMOTE-NC's mixed distance when the table has
    /// categorical features, else Euclidean.
    pub(crate) fn metric(&self) -> Metric<'_> {
        if self.categorical.is_empty() {
            Metric::Euclidean
        } else {
            Metric::Mixed {
                categorical: &self.categorical,
                penalty: self.penalty,
            }
        }
    }

    /// The data.
    pub(crate) fn data(&self) -> &'a Dataset {
        self.data
    }

    /// The notes to start a sample with.
    pub(crate) fn note(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.scaling.is_some() {
            notes.push(
                "neighbours searched on standardised features (z-scores over all rows)".into(),
            );
        }
        if !self.categorical.is_empty() {
            notes.push(format!(
                "categorical features: SMOTE-NC's distance (a differing level adds Med = {:.4} \
                 to the distance); a synthetic row takes the level most frequent among its \
                 seed row and the seed's k nearest neighbours",
                self.penalty.sqrt()
            ));
        }
        notes
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
        self.metric().knn(
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
    /// How they are compared.
    pub(crate) metric: Metric<'a>,
}

impl<'a> Labelled<'a> {
    /// The rows of the space's data, with `x` their features in the search
    /// space ([`Space::all`]).
    pub(crate) fn of(space: &'a Space<'a>, x: &'a [f64]) -> Self {
        let data = space.data();
        Labelled {
            pts: Points::new(x, data.n_rows(), data.n_features()).expect("shape"),
            y: data.labels(),
            n_classes: data.n_classes(),
            metric: space.metric(),
        }
    }

    /// The class of point `i`.
    pub(crate) fn label(&self, i: usize) -> usize {
        self.y[i] as usize
    }
}
