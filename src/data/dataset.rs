//! The labelled table every part of rarity works on.
//!
//! Features are dense `f64`, stored row-major in one shared buffer; class ids
//! are `0..k`. Binary convention everywhere: class 1 is the positive class,
//! which is the minority unless the user names another one (`--positive`).
//! Row subsets are cheap: [`Dataset::view`] borrows the table with a list of row
//! indices and copies nothing; [`Dataset::take`] materialises a new table only
//! when a caller needs one.

use std::sync::Arc;

use rayon::prelude::*;

use serde::{Deserialize, Serialize};

use super::buffer::Values;
use super::Between;
use crate::error::{Error, Result};

/// How many of `labels` fall in each of `k` classes. Successive labels are
/// counted in four interleaved tallies: a run of equal labels would
/// otherwise chain every increment on the store of the previous one (a few
/// cycles each through store-to-load forwarding, milliseconds over a million
/// rows).
pub(crate) fn tally(labels: impl Iterator<Item = usize>, k: usize) -> Vec<usize> {
    let mut t = vec![[0usize; 4]; k];
    for (i, l) in labels.enumerate() {
        t[l][i % 4] += 1;
    }
    t.iter().map(|c| c.iter().sum()).collect()
}

/// Row indices of each class `0..k`, in row order; `k` is raised to the
/// largest label + 1 when that is more.
///
/// ```
/// assert_eq!(rarity::data::rows_by_class(&[1, 0, 1], 0), vec![vec![1], vec![0, 2]]);
/// ```
pub fn rows_by_class(labels: &[u32], k: usize) -> Vec<Vec<usize>> {
    let k = labels
        .iter()
        .map(|&c| c as usize + 1)
        .max()
        .unwrap_or(0)
        .max(k);
    let mut out = vec![Vec::new(); k];
    for (i, &c) in labels.iter().enumerate() {
        out[c as usize].push(i);
    }
    out
}

/// Fails unless at least two of the classes (`counts`, `names`) have rows.
pub fn require_two_classes(counts: &[usize], names: &[String]) -> Result<()> {
    if counts.iter().all(|&c| c == 0) {
        return Err(Error::data(
            "the data has no rows; at least two classes with rows are needed",
        ));
    }
    let present = counts.iter().filter(|&&c| c > 0).count();
    if present < 2 {
        return Err(Error::data(format!(
            "the data has only one class with rows ({}); at least two are needed",
            counts
                .iter()
                .zip(names)
                .filter(|(c, _)| **c > 0)
                .map(|(_, n)| format!("'{n}'"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(())
}

/// How one source column became one or more numeric feature columns.
///
/// Recorded at read time so that data given later for prediction is encoded
/// exactly as the training data was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ColumnEncoding {
    /// A numeric column, copied as it is.
    Numeric {
        /// The column's name in the source file.
        name: String,
    },
    /// A categorical column, one-hot encoded: one 0/1 feature per level, in
    /// the order given (features are named `name=level`).
    OneHot {
        /// The column's name in the source file.
        name: String,
        /// The levels, in feature order.
        levels: Vec<String>,
    },
    /// A categorical column kept as one feature of level codes: the
    /// feature's value is the level's index in `levels` (0, 1, ...), and
    /// NaN for a missing value or a level the model was not trained on
    /// (never a real level's code). Learners with native categorical
    /// splits read the codes as a set of levels; the feature is named after
    /// the column.
    Categorical {
        /// The column's name in the source file.
        name: String,
        /// The levels, in code order.
        levels: Vec<String>,
    },
}

impl ColumnEncoding {
    /// The source column's name.
    pub fn name(&self) -> &str {
        match self {
            ColumnEncoding::Numeric { name }
            | ColumnEncoding::OneHot { name, .. }
            | ColumnEncoding::Categorical { name, .. } => name,
        }
    }

    /// How many feature columns this source column produces.
    pub fn width(&self) -> usize {
        match self {
            ColumnEncoding::Numeric { .. } | ColumnEncoding::Categorical { .. } => 1,
            ColumnEncoding::OneHot { levels, .. } => levels.len(),
        }
    }
}

/// Names and encodings shared by a dataset and every subset of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Schema {
    /// One name per feature column.
    pub feature_names: Vec<String>,
    /// One name per class id (`class_names[k]` is the label of class `k`).
    pub class_names: Vec<String>,
    /// How the source's input columns map to features, in source order.
    pub encodings: Vec<ColumnEncoding>,
    /// The name of the target column in the source.
    pub target_name: String,
}

impl Schema {
    /// The schema of an all-numeric table: one numeric column per feature
    /// and a target column named `class`.
    ///
    /// ```
    /// use rarity::data::Schema;
    /// let s = Schema::numeric(vec!["a".into()], vec!["neg".into(), "pos".into()]);
    /// assert_eq!((s.encodings.len(), s.target_name.as_str()), (1, "class"));
    /// ```
    pub fn numeric(feature_names: Vec<String>, class_names: Vec<String>) -> Schema {
        Schema {
            encodings: feature_names
                .iter()
                .map(|n| ColumnEncoding::Numeric { name: n.clone() })
                .collect(),
            feature_names,
            class_names,
            target_name: "class".into(),
        }
    }

    /// Per feature column, the level texts of a categorical feature (in
    /// code order), or `None` for a numeric or one-hot feature.
    pub fn level_texts(&self) -> Vec<Option<&[String]>> {
        let levels: std::collections::HashMap<&str, &[String]> = self
            .encodings
            .iter()
            .filter_map(|e| match e {
                ColumnEncoding::Categorical { name, levels } => Some((name.as_str(), &levels[..])),
                _ => None,
            })
            .collect();
        self.feature_names
            .iter()
            .map(|f| levels.get(f.as_str()).copied())
            .collect()
    }

    /// Per feature column, the number of levels of a categorical feature
    /// (its values are codes `0..levels`, NaN when missing or unseen), or
    /// `None` for a numeric or one-hot feature. Features are matched to
    /// their source columns by name, as the readers name them.
    ///
    /// ```
    /// use rarity::data::{ColumnEncoding, Schema};
    /// let mut s = Schema::numeric(vec!["a".into(), "shop".into()], vec!["n".into(), "p".into()]);
    /// s.encodings[1] = ColumnEncoding::Categorical { name: "shop".into(), levels: vec!["x".into(), "y".into()] };
    /// assert_eq!(s.categorical_levels(), vec![None, Some(2)]);
    /// ```
    pub fn categorical_levels(&self) -> Vec<Option<usize>> {
        let levels: std::collections::HashMap<&str, usize> = self
            .encodings
            .iter()
            .filter_map(|e| match e {
                ColumnEncoding::Categorical { name, levels } => Some((name.as_str(), levels.len())),
                _ => None,
            })
            .collect();
        self.feature_names
            .iter()
            .map(|f| levels.get(f.as_str()).copied())
            .collect()
    }

    /// Whether any feature is categorical (kept as level codes).
    pub fn has_categorical(&self) -> bool {
        self.encodings
            .iter()
            .any(|e| matches!(e, ColumnEncoding::Categorical { .. }))
    }

    /// The names of the categorical features (level codes), in order.
    pub fn categorical_names(&self) -> Vec<String> {
        self.encodings
            .iter()
            .filter(|e| matches!(e, ColumnEncoding::Categorical { .. }))
            .map(|e| e.name().to_string())
            .collect()
    }
}

/// A labelled table: `n` rows, `d` numeric features, class ids `0..k`.
///
/// ```
/// use rarity::data::Dataset;
/// let ds = Dataset::from_rows(
///     vec![vec![0.0, 1.0], vec![1.0, 0.0], vec![2.0, 2.0]],
///     vec![0, 0, 1],
///     vec!["neg".into(), "pos".into()],
/// ).unwrap();
/// assert_eq!(ds.n_rows(), 3);
/// assert_eq!(ds.class_counts(), vec![2, 1]);
/// assert_eq!(ds.row(2), &[2.0, 2.0]);
/// assert!((ds.imbalance_ratio() - 2.0).abs() < 1e-12);
/// ```
#[derive(Debug, Clone)]
pub struct Dataset {
    x: Values,
    y: Arc<Vec<u32>>,
    weights: Option<Arc<Vec<f64>>>,
    n_rows: usize,
    n_features: usize,
    schema: Arc<Schema>,
    /// The categorical features every strategy fitted on it encodes by
    /// target statistics (`--categorical target`, `COL=target`).
    target_statistics: Option<Arc<Vec<String>>>,
}

/// The largest sum of row weights a dataset takes: learners multiply
/// weighted sums (of gradients, squares, counts), and the products of sums
/// beyond this overflow an `f64`.
pub const MAX_TOTAL_WEIGHT: f64 = 1e150;

impl Dataset {
    /// Builds a dataset from a row-major feature buffer (`x.len() == y.len() * d`).
    ///
    /// Fails if the shapes disagree, a label is not below `schema.class_names.len()`,
    /// a feature is infinite, or there are rows but no feature columns. A
    /// NaN feature is a missing value (a missing or unseen level at a
    /// categorical feature): a strategy that cannot take missing values
    /// refuses it (`Strategy::check_missing`).
    pub fn new(x: Vec<f64>, y: Vec<u32>, schema: Schema) -> Result<Self> {
        Dataset::from_values(Values::from_vec(x), y, schema)
    }

    /// [`Dataset::new`] on a shared buffer, e.g. memory another runtime
    /// lends (read in place, not copied).
    pub fn from_values(x: Values, y: Vec<u32>, schema: Schema) -> Result<Self> {
        Dataset::from_shared(x, y, Arc::new(schema))
    }

    /// [`Dataset::from_values`] with a shared schema (datasets scored
    /// one after another with one model's schema need not copy it).
    pub fn from_shared(x: Values, y: Vec<u32>, schema: Arc<Schema>) -> Result<Self> {
        let d = schema.feature_names.len();
        let n = y.len();
        if d == 0 && n > 0 {
            return Err(Error::data(
                "the data has no feature columns; at least one is needed",
            ));
        }
        if x.len() != n * d {
            return Err(Error::invalid(format!(
                "feature buffer has {} values, expected {} rows x {} features = {}",
                x.len(),
                n,
                d,
                n * d
            )));
        }
        let k = schema.class_names.len();
        if let Some(bad) = y.iter().find(|&&c| c as usize >= k) {
            return Err(Error::invalid(format!(
                "class id {bad} out of range: there are {k} classes"
            )));
        }
        // A branch-free pass per chunk (vectorised, in parallel) first; the
        // position is only searched for when some value is infinite (NaN is
        // a missing value: a strategy that cannot take it refuses it).
        let no_inf = |c: &[f64]| c.iter().fold(true, |ok, v| ok & (v.abs() != f64::INFINITY));
        let all_ok = if x.len() <= 1 << 16 {
            no_inf(&x)
        } else {
            x.par_chunks(1 << 16).all(no_inf)
        };
        if let Some(pos) = (!all_ok)
            .then(|| (0..x.len()).find(|&p| x[p].is_infinite()))
            .flatten()
        {
            return Err(Error::data(format!(
                "row {} (counting from 0), feature '{}' is {}: infinities are not values a \
                 learner can use (a missing value is NaN, or empty, ? or NA in a file)",
                pos / d.max(1),
                schema.feature_names[pos % d.max(1)],
                x[pos]
            )));
        }
        Ok(Dataset {
            x,
            y: Arc::new(y),
            weights: None,
            n_rows: n,
            n_features: d,
            schema,
            target_statistics: None,
        })
    }

    /// The first missing value (NaN) in row order, as (row, feature);
    /// `None` when the table is complete (one vectorised pass first).
    ///
    /// ```
    /// use rarity::data::Dataset;
    /// let ds = Dataset::from_rows(vec![vec![1.0, 2.0], vec![3.0, f64::NAN]], vec![0, 1],
    ///                             vec!["n".into(), "p".into()]).unwrap();
    /// assert_eq!(ds.first_missing(), Some((1, 1)));
    /// ```
    pub fn first_missing(&self) -> Option<(usize, usize)> {
        let any = |c: &[f64]| c.iter().fold(false, |nan, v| nan | v.is_nan());
        if !self.x.par_chunks(1 << 16).any(any) {
            return None;
        }
        let p = self.x.iter().position(|v| v.is_nan())?;
        Some((p / self.n_features, p % self.n_features))
    }

    /// The same rows, labels and weights under another schema of the same
    /// width (e.g. features renamed or re-declared by a stage), checked as
    /// [`Dataset::from_shared`] checks a table.
    pub fn with_schema(&self, schema: Schema) -> Result<Dataset> {
        let mut ds = Dataset::from_shared(self.x.clone(), self.y.to_vec(), Arc::new(schema))?;
        ds.weights = self.weights.clone();
        ds.target_statistics = self.target_statistics.clone();
        Ok(ds)
    }

    /// Builds a dataset from rows of features, class ids and class names;
    /// features are named `x0, x1, ...`. Convenient in tests and examples.
    pub fn from_rows(rows: Vec<Vec<f64>>, y: Vec<u32>, class_names: Vec<String>) -> Result<Self> {
        let d = rows.first().map_or(0, Vec::len);
        if let Some(i) = rows.iter().position(|r| r.len() != d) {
            return Err(Error::invalid(format!(
                "row {} has {} values, expected {d}",
                i + 1,
                rows[i].len()
            )));
        }
        let feature_names: Vec<String> = (0..d).map(|j| format!("x{j}")).collect();
        let schema = Schema::numeric(feature_names, class_names);
        Dataset::new(rows.into_iter().flatten().collect(), y, schema)
    }

    /// Attaches per-row weights (non-negative, finite, one per row, summing
    /// to at most [`MAX_TOTAL_WEIGHT`]).
    pub fn with_weights(mut self, w: Vec<f64>) -> Result<Self> {
        if w.len() != self.n_rows {
            return Err(Error::invalid(format!(
                "{} weights given for {} rows",
                w.len(),
                self.n_rows
            )));
        }
        if let Some(i) = w.iter().position(|v| !v.is_finite() || *v < 0.0) {
            return Err(Error::invalid(format!(
                "weight of row {} is {}: weights must be finite and >= 0",
                i + 1,
                w[i]
            )));
        }
        if !w.is_empty() && w.iter().all(|v| *v == 0.0) {
            return Err(Error::invalid(
                "every weight is zero: at least one row needs a positive weight",
            ));
        }
        let total: f64 = w.iter().sum();
        if !(total <= MAX_TOTAL_WEIGHT) {
            return Err(Error::invalid(format!(
                "the weights sum to {total:e}, beyond {MAX_TOTAL_WEIGHT:e}: the learners multiply \
                 weighted sums, which would overflow; scale the weights down (only their ratios \
                 matter)"
            )));
        }
        self.weights = Some(Arc::new(w));
        Ok(self)
    }

    /// The dataset marked as read with `--categorical target`
    /// (`categorical="target"` in Python): strategies without an
    /// `encode(...)` stage of their own encode its categorical features by
    /// target statistics (`encode(target)`'s defaults).
    pub fn with_target_statistics(self) -> Self {
        let names = self.schema.categorical_names();
        self.with_target_columns(names)
    }

    /// The dataset marked so that strategies without an `encode(...)` stage
    /// of their own encode the categorical features `names` by target
    /// statistics, the others staying level codes (`--categorical-cols
    /// merchant=target`); no name: no encoding.
    pub fn with_target_columns(mut self, names: Vec<String>) -> Self {
        self.target_statistics = (!names.is_empty()).then(|| Arc::new(names));
        self
    }

    /// The categorical features strategies encode by target statistics
    /// ([`Dataset::with_target_columns`]; `None`: none).
    pub fn target_statistics(&self) -> Option<&[String]> {
        self.target_statistics.as_deref().map(Vec::as_slice)
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }

    /// Number of feature columns.
    pub fn n_features(&self) -> usize {
        self.n_features
    }

    /// Number of classes `k` (class ids are `0..k`).
    pub fn n_classes(&self) -> usize {
        self.schema.class_names.len()
    }

    /// The features of row `i`.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.x[i * self.n_features..(i + 1) * self.n_features]
    }

    /// Feature `j` of row `i`.
    pub fn value(&self, i: usize, j: usize) -> f64 {
        self.x[i * self.n_features + j]
    }

    /// The whole row-major feature buffer (`n_rows * n_features` values).
    pub fn features(&self) -> &[f64] {
        &self.x
    }

    /// Class ids, one per row.
    pub fn labels(&self) -> &[u32] {
        &self.y
    }

    /// Class id of row `i`.
    pub fn label(&self, i: usize) -> usize {
        self.y[i] as usize
    }

    /// Per-row weights, if any were given.
    pub fn weights(&self) -> Option<&[f64]> {
        self.weights.as_deref().map(Vec::as_slice)
    }

    /// Weight of row `i` (1 when no weights were given).
    pub fn weight(&self, i: usize) -> f64 {
        self.weights.as_ref().map_or(1.0, |w| w[i])
    }

    /// Names, encodings and class names.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The shared schema, for attaching to derived datasets and models.
    pub fn schema_arc(&self) -> Arc<Schema> {
        Arc::clone(&self.schema)
    }

    /// Feature names.
    pub fn feature_names(&self) -> &[String] {
        &self.schema.feature_names
    }

    /// The index of the feature named `name`; the error names the
    /// features and suggests a close match (`what` says what the column is
    /// for: "amount column").
    ///
    /// ```
    /// let ds = rarity::Dataset::from_rows(vec![vec![1.0, 2.0]], vec![0], vec!["a".into()]).unwrap();
    /// assert_eq!(ds.feature_index("x1", "column").unwrap(), 1);
    /// let e = ds.feature_index("X1", "bias column").unwrap_err().to_string();
    /// assert!(e.contains("bias column 'X1' is not a feature (did you mean 'x1'?)"), "{e}");
    /// ```
    pub fn feature_index(&self, name: &str, what: &str) -> Result<usize> {
        let names = self.feature_names();
        names.iter().position(|f| f == name).ok_or_else(|| {
            let hint = crate::error::did_you_mean(name, names.iter().map(String::as_str))
                .map_or_else(String::new, |m| format!(" (did you mean '{m}'?)"));
            Error::invalid(format!(
                "{what} '{name}' is not a feature{hint}; features are: {}",
                names.join(", ")
            ))
        })
    }

    /// Class names, indexed by class id.
    pub fn class_names(&self) -> &[String] {
        &self.schema.class_names
    }

    /// Rows per class, in class-id order.
    pub fn class_counts(&self) -> Vec<usize> {
        tally(self.y.iter().map(|&l| l as usize), self.n_classes())
    }

    /// Class priors (fraction of rows per class).
    pub fn priors(&self) -> Vec<f64> {
        let n = self.n_rows.max(1) as f64;
        self.class_counts()
            .into_iter()
            .map(|c| c as f64 / n)
            .collect()
    }

    /// Largest class count over smallest non-empty class count (1 for an
    /// empty or single-class table).
    pub fn imbalance_ratio(&self) -> f64 {
        let counts: Vec<usize> = self.class_counts().into_iter().filter(|&c| c > 0).collect();
        match (counts.iter().max(), counts.iter().min()) {
            (Some(&hi), Some(&lo)) => hi as f64 / lo as f64,
            _ => 1.0,
        }
    }

    /// Indices of the rows of class `k`, in row order.
    pub fn rows_of_class(&self, k: usize) -> Vec<usize> {
        let y = self.labels();
        (0..y.len()).filter(|&i| y[i] as usize == k).collect()
    }

    /// Indices of the rows of every class (one group per class name, each
    /// in row order).
    pub fn rows_by_class(&self) -> Vec<Vec<usize>> {
        rows_by_class(self.labels(), self.n_classes())
    }

    /// Fails with a clear message unless at least two classes have rows.
    pub fn require_two_classes(&self) -> Result<()> {
        require_two_classes(&self.class_counts(), self.class_names())
    }

    /// A borrowed subset of rows (repeats allowed); copies nothing.
    pub fn view<'a>(&'a self, rows: &'a [usize]) -> View<'a> {
        View { data: self, rows }
    }

    /// A new dataset holding the given rows (repeats allowed), same schema.
    pub fn take(&self, rows: &[usize]) -> Dataset {
        let d = self.n_features;
        let mut x = Vec::with_capacity(rows.len() * d);
        for &i in rows {
            x.extend_from_slice(self.row(i));
        }
        Dataset {
            x: Values::from_vec(x),
            y: Arc::new(rows.iter().map(|&i| self.y[i]).collect()),
            weights: self
                .weights
                .as_ref()
                .map(|w| Arc::new(rows.iter().map(|&i| w[i]).collect())),
            n_rows: rows.len(),
            n_features: d,
            schema: Arc::clone(&self.schema),
            target_statistics: self.target_statistics.clone(),
        }
    }

    /// A new dataset with these rows appended (features row-major, labels,
    /// weight 1 for each when the table has weights). Used for synthetic rows.
    pub fn append(&self, x: &[f64], y: &[u32]) -> Result<Dataset> {
        let d = self.n_features;
        if x.len() != y.len() * d {
            return Err(Error::invalid(
                "appended rows do not match the feature count",
            ));
        }
        let mut nx = Vec::with_capacity(self.x.len() + x.len());
        nx.extend_from_slice(&self.x);
        nx.extend_from_slice(x);
        let mut ny = Vec::with_capacity(self.n_rows + y.len());
        ny.extend_from_slice(&self.y);
        ny.extend_from_slice(y);
        let weights = self.weights.as_ref().map(|w| {
            let mut nw = w.as_ref().clone();
            nw.resize(self.n_rows + y.len(), 1.0);
            Arc::new(nw)
        });
        let mut out = Dataset::new(nx, ny, self.schema.as_ref().clone())?;
        out.schema = Arc::clone(&self.schema);
        out.weights = weights;
        Ok(out)
    }

    /// The rows `rows` (repeats allowed) followed by the synthetic rows
    /// `between` with labels `y` and categorical values `levels` (see
    /// [`Dataset::interpolate`]; weight 1 each when the table has
    /// weights): the same dataset as
    /// `self.take(rows).append(&self.interpolate(between, levels)?, y)`, built in one
    /// parallel pass without the intermediate copies. Used to materialise
    /// samples with synthetic rows.
    ///
    /// ```
    /// use rarity::data::{Between, Dataset};
    /// let ds = Dataset::from_rows(vec![vec![1.0], vec![2.0]], vec![0, 1],
    ///                             vec!["n".into(), "p".into()]).unwrap();
    /// let mid = Between { from: 0, to: 1, gap: 0.5 };
    /// let out = ds.take_append(&[1, 1], &[mid], &[], &[1]).unwrap();
    /// assert_eq!(out.features(), &[2.0, 2.0, 1.5]);
    /// assert_eq!(out.labels(), &[1, 1, 1]);
    /// ```
    pub fn take_append(
        &self,
        rows: &[usize],
        between: &[Between],
        levels: &[f64],
        y: &[u32],
    ) -> Result<Dataset> {
        let k = self.schema.class_names.len();
        if let Some(bad) = y.iter().find(|&&c| c as usize >= k) {
            return Err(Error::invalid(format!(
                "class id {bad} out of range: there are {k} classes"
            )));
        }
        if y.len() != between.len() {
            return Err(Error::invalid(format!(
                "{} synthetic rows but {} labels",
                between.len(),
                y.len()
            )));
        }
        // Fresh pages, advised for huge pages and not written until each
        // value is written once, in parallel (see `crate::mem`).
        let mut nx = crate::mem::zeroed((rows.len() + y.len()) * self.n_features);
        self.take_append_into(rows, between, levels, &mut nx)?;
        let mut ny = Vec::with_capacity(rows.len() + y.len());
        ny.extend(rows.iter().map(|&i| self.y[i]));
        ny.extend_from_slice(y);
        let weights = self.weights.as_ref().map(|w| {
            let mut nw = Vec::with_capacity(ny.len());
            nw.extend(rows.iter().map(|&i| w[i]));
            nw.resize(ny.len(), 1.0);
            Arc::new(nw)
        });
        Ok(Dataset {
            x: Values::from_vec(nx),
            y: Arc::new(ny),
            weights,
            n_rows: rows.len() + y.len(),
            n_features: self.n_features,
            schema: Arc::clone(&self.schema),
            target_statistics: self.target_statistics.clone(),
        })
    }

    /// The features of [`Dataset::take_append`] written into `out`
    /// (`(rows.len() + between.len()) * d` values, row-major), in parallel:
    /// for callers that own the output buffer (e.g. a NumPy array). A
    /// synthetic row that is not finite (the segment between two huge
    /// values of opposite signs) is an error; a missing level (NaN) at a
    /// categorical feature is not.
    ///
    /// ```
    /// use rarity::data::{Between, Dataset};
    /// let ds = Dataset::from_rows(vec![vec![1.0], vec![2.0]], vec![0, 1],
    ///                             vec!["n".into(), "p".into()]).unwrap();
    /// let mut out = [0.0; 3];
    /// ds.take_append_into(&[1, 0], &[Between { from: 0, to: 1, gap: 0.5 }], &[], &mut out).unwrap();
    /// assert_eq!(out, [2.0, 1.0, 1.5]);
    /// ```
    pub fn take_append_into(
        &self,
        rows: &[usize],
        between: &[Between],
        levels: &[f64],
        out: &mut [f64],
    ) -> Result<()> {
        /// Rows written per parallel task.
        const CHUNK_ROWS: usize = 2048;
        /// How far ahead a synthetic row's inputs are prefetched.
        const RECIPES_AHEAD: usize = 8;
        let d = self.n_features;
        let n_out = rows.len() + between.len();
        if out.len() != n_out * d {
            return Err(Error::invalid(format!(
                "the output holds {} values; {n_out} rows of {d} features need {}",
                out.len(),
                n_out * d
            )));
        }
        let ends = between.iter().flat_map(|b| [b.from, b.to]);
        if let Some(bad) = rows.iter().copied().chain(ends).find(|&i| i >= self.n_rows) {
            return Err(Error::invalid(format!(
                "row {bad} out of range: the table has {} rows",
                self.n_rows
            )));
        }
        let categorical = self.categorical_features();
        let nc = categorical.len();
        self.check_levels(between.len(), nc, levels)?;
        if d == 0 {
            return Ok(());
        }
        let mut is_level = vec![false; d];
        categorical.iter().for_each(|&j| is_level[j] = true);
        let (head, tail) = out.split_at_mut(rows.len() * d);
        head.par_chunks_mut(CHUNK_ROWS * d)
            .zip(rows.par_chunks(CHUNK_ROWS))
            .for_each(|(out, rows)| {
                for (o, &i) in out.chunks_exact_mut(d).zip(rows) {
                    o.copy_from_slice(self.row(i));
                }
            });
        let bad = tail
            .par_chunks_mut(CHUNK_ROWS * d)
            .zip(between.par_chunks(CHUNK_ROWS))
            .enumerate()
            .filter_map(|(c, (out, between))| {
                // The two rows a recipe reads lie anywhere in the table:
                // fetched a few recipes ahead, their loads overlap instead
                // of each waiting on memory in turn.
                for (i, (o, b)) in out.chunks_exact_mut(d).zip(between).enumerate() {
                    if let Some(next) = between.get(i + RECIPES_AHEAD) {
                        crate::mem::prefetch_all(self.row(next.from));
                        crate::mem::prefetch_all(self.row(next.to));
                    }
                    let t = c * CHUNK_ROWS + i;
                    b.write_with_levels(self, o, &categorical, &levels[t * nc..(t + 1) * nc]);
                }
                // A branch-free test first (vectorised); the position is
                // only searched for when some value is not finite (a
                // missing level is allowed).
                if out.iter().fold(true, |ok, v| ok & v.is_finite()) {
                    return None;
                }
                let p = out
                    .iter()
                    .enumerate()
                    .position(|(p, v)| !(v.is_finite() || v.is_nan() && is_level[p % d]))?;
                Some(c * CHUNK_ROWS * d + p)
            })
            .min();
        if let Some(pos) = bad {
            return Err(Error::data(format!(
                "row {}, feature '{}' is {}, not a finite number",
                rows.len() + pos / d + 1,
                self.schema.feature_names[pos % d],
                tail[pos]
            )));
        }
        Ok(())
    }

    /// Per-feature minimum, mean and maximum of the values held (missing
    /// ones left out; NaN for a feature without any).
    pub fn feature_summary(&self) -> Vec<(f64, f64, f64)> {
        let d = self.n_features;
        let mut out = vec![(f64::INFINITY, 0.0, f64::NEG_INFINITY); d];
        let mut seen = vec![0usize; d];
        for i in 0..self.n_rows {
            for (j, &v) in self.row(i).iter().enumerate() {
                if v.is_nan() {
                    continue;
                }
                let s = &mut out[j];
                s.0 = s.0.min(v);
                s.1 += v;
                s.2 = s.2.max(v);
                seen[j] += 1;
            }
        }
        for (s, &n) in out.iter_mut().zip(&seen) {
            if n == 0 {
                *s = (f64::NAN, f64::NAN, f64::NAN);
            } else {
                s.1 /= n as f64;
            }
        }
        out
    }

    /// Per feature, how many rows miss its value (NaN).
    pub fn missing_counts(&self) -> Vec<usize> {
        let d = self.n_features;
        let mut counts = vec![0; d];
        if self.first_missing().is_none() {
            return counts;
        }
        for row in self.x.chunks(d.max(1)) {
            for (c, v) in counts.iter_mut().zip(row) {
                *c += usize::from(v.is_nan());
            }
        }
        counts
    }

    /// Per feature, for a categorical one (level codes), the rows of each
    /// level in level order and the rows missing a level; `None` for a
    /// numeric feature (what `rarity inspect` shows instead of the codes'
    /// min, mean and max).
    pub fn level_counts(&self) -> Vec<Option<(Vec<usize>, usize)>> {
        let levels = self.schema.categorical_levels();
        let mut out: Vec<Option<(Vec<usize>, usize)>> =
            levels.iter().map(|l| l.map(|n| (vec![0; n], 0))).collect();
        for i in 0..self.n_rows {
            for (j, &v) in self.row(i).iter().enumerate() {
                if let Some((counts, missing)) = &mut out[j] {
                    match counts.get_mut(v as usize) {
                        Some(c) if v.is_finite() && v >= 0.0 => *c += 1,
                        _ => *missing += 1,
                    }
                }
            }
        }
        out
    }

    /// Indices of feature columns that take a single value over all rows.
    pub fn constant_columns(&self) -> Vec<usize> {
        if self.n_rows == 0 {
            return Vec::new();
        }
        (0..self.n_features)
            .filter(|&j| {
                let v0 = self.value(0, j);
                (1..self.n_rows).all(|i| self.value(i, j) == v0)
            })
            .collect()
    }

    /// A copy without the given feature columns. The schema's feature
    /// names follow; a numeric source column dropped whole leaves the
    /// encodings too (prediction data need not have it), while a one-hot
    /// encoding is kept whole so that prediction data can be encoded first
    /// and then reduced the same way.
    pub fn drop_columns(&self, cols: &[usize]) -> Dataset {
        if cols.is_empty() {
            return self.clone();
        }
        let keep: Vec<usize> = (0..self.n_features).filter(|j| !cols.contains(j)).collect();
        let mut x = Vec::with_capacity(self.n_rows * keep.len());
        for i in 0..self.n_rows {
            let r = self.row(i);
            x.extend(keep.iter().map(|&j| r[j]));
        }
        let mut schema = self.schema.as_ref().clone();
        schema.feature_names = keep
            .iter()
            .map(|&j| self.schema.feature_names[j].clone())
            .collect();
        let gone: Vec<&String> = cols
            .iter()
            .map(|&j| &self.schema.feature_names[j])
            .collect();
        schema.encodings.retain(|e| match e {
            ColumnEncoding::Numeric { name } | ColumnEncoding::Categorical { name, .. } => {
                !gone.contains(&name)
            }
            ColumnEncoding::OneHot { .. } => true,
        });
        Dataset {
            x: Values::from_vec(x),
            y: Arc::clone(&self.y),
            weights: self.weights.clone(),
            n_rows: self.n_rows,
            n_features: keep.len(),
            schema: Arc::new(schema),
            target_statistics: self.target_statistics.clone(),
        }
    }
}

/// A borrowed subset of a [`Dataset`]'s rows, in a given order (repeats allowed).
///
/// ```
/// use rarity::data::Dataset;
/// let ds = Dataset::from_rows(vec![vec![1.0], vec![2.0], vec![3.0]], vec![0, 1, 0],
///                             vec!["a".into(), "b".into()]).unwrap();
/// let idx = [2, 2, 1];
/// let v = ds.view(&idx);
/// assert_eq!(v.len(), 3);
/// assert_eq!(v.row(0), &[3.0]);
/// assert_eq!(v.label(2), 1);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    data: &'a Dataset,
    rows: &'a [usize],
}

impl<'a> View<'a> {
    /// Number of rows in the view.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True when the view has no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The underlying dataset.
    pub fn data(&self) -> &'a Dataset {
        self.data
    }

    /// The row indices into the underlying dataset.
    pub fn indices(&self) -> &'a [usize] {
        self.rows
    }

    /// Features of the view's `i`-th row.
    pub fn row(&self, i: usize) -> &'a [f64] {
        self.data.row(self.rows[i])
    }

    /// Class id of the view's `i`-th row.
    pub fn label(&self, i: usize) -> usize {
        self.data.label(self.rows[i])
    }

    /// Weight of the view's `i`-th row (1 without weights).
    pub fn weight(&self, i: usize) -> f64 {
        self.data.weight(self.rows[i])
    }

    /// Rows per class within the view.
    pub fn class_counts(&self) -> Vec<usize> {
        let mut c = vec![0usize; self.data.n_classes()];
        for &i in self.rows {
            c[self.data.label(i)] += 1;
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Dataset {
        Dataset::from_rows(
            vec![
                vec![1.0, 5.0],
                vec![2.0, 5.0],
                vec![3.0, 5.0],
                vec![4.0, 5.0],
            ],
            vec![0, 0, 0, 1],
            vec!["no".into(), "yes".into()],
        )
        .unwrap()
    }

    #[test]
    fn counts_priors_ratio() {
        let ds = tiny();
        assert_eq!(ds.class_counts(), vec![3, 1]);
        assert_eq!(ds.priors(), vec![0.75, 0.25]);
        assert_eq!(ds.imbalance_ratio(), 3.0);
        assert_eq!(ds.rows_of_class(1), vec![3]);
    }

    #[test]
    fn take_and_view_agree() {
        let ds = tiny().with_weights(vec![1.0, 2.0, 3.0, 4.0]).unwrap();
        let idx = vec![3, 0, 3];
        let t = ds.take(&idx);
        let v = ds.view(&idx);
        for i in 0..3 {
            assert_eq!(t.row(i), v.row(i));
            assert_eq!(t.label(i), v.label(i));
            assert_eq!(t.weight(i), v.weight(i));
        }
        assert_eq!(t.class_counts(), vec![1, 2]);
    }

    #[test]
    fn constant_columns_dropped() {
        let ds = tiny();
        assert_eq!(ds.constant_columns(), vec![1]);
        let r = ds.drop_columns(&[1]);
        assert_eq!(r.n_features(), 1);
        assert_eq!(r.feature_names(), &["x0".to_string()]);
        assert_eq!(r.row(3), &[4.0]);
        // The numeric column leaves the encodings: prediction data need not have it.
        let names: Vec<&str> = r.schema().encodings.iter().map(|e| e.name()).collect();
        assert_eq!(names, ["x0"]);
    }

    #[test]
    fn rejects_bad_shapes_and_values() {
        let schema = tiny().schema().clone();
        assert!(Dataset::new(vec![1.0; 3], vec![0, 1], schema.clone()).is_err());
        assert!(Dataset::new(vec![1.0; 4], vec![0, 2], schema.clone()).is_err());
        assert!(Dataset::new(vec![f64::INFINITY, 1.0, 1.0, 1.0], vec![0, 1], schema).is_err());
        assert!(tiny().with_weights(vec![1.0, -1.0, 1.0, 1.0]).is_err());
    }

    #[test]
    fn one_class_is_reported() {
        let ds =
            Dataset::from_rows(vec![vec![1.0]], vec![0], vec!["a".into(), "b".into()]).unwrap();
        let e = ds.require_two_classes().unwrap_err().to_string();
        assert!(e.contains("only one class"), "{e}");
        // No rows at all is said as such (issue 39, item 13), not "only one
        // class with rows ()".
        let e = super::require_two_classes(&[0, 0], &["a".into(), "b".into()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("the data has no rows"), "{e}");
    }

    #[test]
    fn take_append_is_take_then_append() {
        let ds = tiny().with_weights(vec![1.0, 2.0, 3.0, 4.0]).unwrap();
        let rows = [3, 0, 0, 2];
        let between = [
            Between {
                from: 0,
                to: 3,
                gap: 0.25,
            },
            Between::copy_of(1),
        ];
        let y = [1, 0];
        let one = ds.take_append(&rows, &between, &[], &y).unwrap();
        let two = ds
            .take(&rows)
            .append(&ds.interpolate(&between, &[]).unwrap(), &y)
            .unwrap();
        assert_eq!(one.features(), two.features());
        assert_eq!(one.labels(), two.labels());
        assert_eq!(one.weights(), two.weights());
        assert_eq!(one.n_rows(), 6);
        assert_eq!(one.weights(), Some(&[4.0, 1.0, 1.0, 3.0, 1.0, 1.0][..]));
        assert_eq!(&one.features()[10..], ds.row(1));
        assert!(ds.take_append(&rows, &between[..1], &[], &y).is_err());
        assert!(ds.take_append(&rows, &between, &[], &[1, 2]).is_err());
        assert!(ds.take_append(&rows, &between, &[0.0], &y).is_err());
        let far = [Between {
            from: 0,
            to: 4,
            gap: 0.5,
        }];
        let e = ds
            .take_append(&rows, &far, &[], &[1])
            .unwrap_err()
            .to_string();
        assert!(e.contains("row 4 out of range"), "{e}");
        let huge = Dataset::from_rows(
            vec![vec![0.0, -f64::MAX], vec![1.0, f64::MAX]],
            vec![0, 1],
            vec!["n".into(), "p".into()],
        )
        .unwrap();
        let e = huge
            .take_append(
                &[0],
                &[Between {
                    from: 0,
                    to: 1,
                    gap: 0.5,
                }],
                &[],
                &[1],
            )
            .unwrap_err()
            .to_string();
        assert!(e.contains("row 2, feature 'x1'"), "{e}");
    }

    #[test]
    fn append_keeps_schema() {
        let ds = tiny();
        let a = ds.append(&[9.0, 9.0], &[1]).unwrap();
        assert_eq!(a.n_rows(), 5);
        assert_eq!(a.class_counts(), vec![3, 2]);
    }
}
