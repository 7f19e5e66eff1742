//! Stratified splitters for evaluation: k-fold, repeated k-fold (Dal Pozzolo
//! et al. 2015: 10 x 10), 5x2 (Dietterich 1998; Collell et al. 2018),
//! leave-one-out and a train/test hold-out; and the folds of cross-fitting
//! ([`cross_fit_folds`]), shared by a strategy's calibration and tuned
//! thresholds and by cross-fitted ReverseTesting (Fan & Davidson 2006).
//!
//! Stratification: in each repeat, the rows of every class are shuffled and
//! dealt in turn to the folds, the dealing continuing from class to class, so
//! every fold gets `floor` or `ceil` of each class's share and fold sizes
//! differ by at most one. A class with fewer rows than folds is an error
//! (some test fold would lack it); classes with no rows at all are ignored.
//! Repeat `r` shuffles with the random stream `(seed, r)`, so the folds
//! depend only on the seed. Indices within a fold are sorted ascending.
//!
//! Validation in time and by group, for data that drift or come in groups
//! (`--cv time(col=Time, folds=5)`, `--cv group(col=Card, folds=5)`):
//!
//! - **time**: the rows, ordered by the time column, are cut into
//!   `folds + 1` blocks of about equal size, never between rows of the same
//!   time (each row of time-sorted position `s` of `n` goes to block
//!   `floor(s (folds + 1) / n)` of the first row of its time); fold `i`
//!   tests block `i + 1` and trains on blocks `0..=i`, everything before it
//!   and nothing after (an expanding window, scikit-learn's
//!   `TimeSeriesSplit`; Tashman 2000). One repeat; the seed plays no part.
//! - **group**: no group has rows on both sides. Groups are dealt, largest
//!   first (ties in a seeded random order), to the fold with the fewest rows
//!   so far (the lowest on ties), which balances fold sizes
//!   (scikit-learn's `GroupKFold`, with seeded ties).
//!
//! The column is read as a key ([`Splitter::key_column`]): a time column's
//! ISO 8601 texts and Parquet/IPC dates and timestamps as seconds since
//! 1970, a group column's text ids numbered in sorted order (any count,
//! never one-hot). The models do not see it unless `keep=true`
//! ([`Splitter::prepare`] drops it); then it is a feature, read as
//! features are (numbers). Rows with a missing
//! time or group follow the reading rules (dropped, or an error with
//! `--missing error`). Under either scheme the inner folds of a strategy's
//! calibration and tuned thresholds (`tune(...)`, `roc-closest`, `platt`,
//! `isotonic`) follow it too on each training part ([`InnerFolds`]): a
//! threshold is tuned on later times than its inner models were trained
//! on, or on groups they never saw.

use std::borrow::Cow;

use crate::data::read::{KeyColumn, KeyKind};
use crate::data::{rows_by_class, Dataset};
use crate::params::{from_call, params, syntax, Bounds, Params};
use crate::rng;
use crate::{Error, Result};
use std::str::FromStr;

/// One evaluation split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fold {
    /// Repeat number, from 0.
    pub repeat: usize,
    /// Fold number within the repeat, from 0.
    pub index: usize,
    /// Training rows, ascending.
    pub train: Vec<usize>,
    /// Test rows, ascending.
    pub test: Vec<usize>,
}

/// How to split rows into training and test sets.
///
/// ```
/// use rarity::split::Splitter;
/// let labels = [0, 0, 0, 0, 1, 1, 0, 0, 1, 0];
/// let folds = "5x2".parse::<Splitter>().unwrap().split(&labels, 7).unwrap();
/// assert_eq!(folds.len(), 10);
/// // Every test fold holds positives and the test folds of a repeat partition the rows.
/// assert!(folds.iter().all(|f| f.test.iter().any(|&i| labels[i] == 1)));
/// assert_eq!(folds[0].test.len() + folds[1].test.len(), 10);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Splitter {
    /// `repeats` runs of stratified, shuffled `folds`-fold cross-validation.
    Stratified {
        /// Number of independent repeats (1 for plain k-fold).
        repeats: usize,
        /// Number of folds per repeat.
        folds: usize,
    },
    /// Each row is the test set once.
    LeaveOneOut,
    /// One stratified train/test split with about `test_fraction` of each
    /// class in the test set (at least one row of each, and one left to train).
    Holdout {
        /// Share of each class held out for testing, in (0, 1).
        test_fraction: f64,
    },
    /// Expanding-window folds in the order of a time column (module doc).
    Time(ColumnSplit),
    /// Folds that keep each group of a column on one side (module doc).
    Group(ColumnSplit),
}

params! {
    /// The column and folds of `time(...)` and `group(...)`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct ColumnSplit {
        /// The time or group column (a numeric feature; required).
        pub col: Option<String> = None,
        /// Number of test blocks (time) or folds (group).
        pub folds: usize = 5 => Bounds::at_least(2.0),
        /// Keep the column as a feature of the models.
        pub keep: bool = false,
    }
}

impl ColumnSplit {
    /// The column's name.
    fn column(&self) -> &str {
        self.col.as_deref().unwrap_or_default()
    }

    /// The column's values, one per row of `data`.
    fn values(&self, data: &Dataset, what: &str) -> Result<Vec<f64>> {
        let j = self.index(data, what)?;
        Ok((0..data.n_rows()).map(|i| data.value(i, j)).collect())
    }

    /// The column's feature index; a text column read one-hot (features
    /// `col=level`) is an error that says so.
    fn index(&self, data: &Dataset, what: &str) -> Result<usize> {
        let name = self.column();
        data.feature_index(name, what).map_err(|e| {
            let prefix = format!("{name}=");
            let hot: Vec<&str> = (data.feature_names().iter())
                .filter(|f| f.starts_with(&prefix))
                .map(String::as_str)
                .collect();
            match hot.as_slice() {
                [] => e,
                [first, ..] => Error::invalid(format!(
                    "{what} '{name}' holds text, read as {} one-hot column{} ({first}, ...); a \
                     time or group column kept as a feature (keep=true), or declared nominal \
                     in a KEEL/ARFF file, must be numeric: write its values as numbers (group \
                     ids 0, 1, 2, ...; times as seconds or days)",
                    hot.len(),
                    if hot.len() == 1 { "" } else { "s" }
                )),
            }
        })
    }
}

impl Splitter {
    /// Stratified `folds`-fold cross-validation, once.
    pub fn k_fold(folds: usize) -> Self {
        Splitter::Stratified { repeats: 1, folds }
    }

    /// Dietterich's 5x2 cross-validation: five repeats of two folds.
    pub fn five_by_two() -> Self {
        Splitter::Stratified {
            repeats: 5,
            folds: 2,
        }
    }

    /// The splits for rows with class ids `labels`; class names in error
    /// messages are `class ID`.
    pub fn split(&self, labels: &[u32], seed: u64) -> Result<Vec<Fold>> {
        self.split_named(labels, seed, &|c| format!("class {c}"))
    }

    /// The splits of a dataset's rows; error messages name its classes.
    pub fn split_dataset(&self, data: &Dataset, seed: u64) -> Result<Vec<Fold>> {
        match self {
            Splitter::Time(c) => {
                let time = c.values(data, "time column")?;
                return time_folds(c, &time, data.labels(), data.class_names());
            }
            Splitter::Group(c) => {
                return group_folds(c, &c.values(data, "group column")?, data.n_rows(), seed)
            }
            _ => {}
        }
        let names = data.class_names();
        self.split_named(data.labels(), seed, &|c| match names.get(c as usize) {
            Some(n) => format!("class '{n}'"),
            None => format!("class {c}"),
        })
    }

    fn split_named(
        &self,
        labels: &[u32],
        seed: u64,
        name: &dyn Fn(u32) -> String,
    ) -> Result<Vec<Fold>> {
        match *self {
            Splitter::Stratified { repeats, folds } => {
                if folds < 2 || repeats == 0 {
                    return Err(Error::invalid(format!(
                        "cross-validation needs at least 2 folds and 1 repeat, got {repeats}x{folds}"
                    )));
                }
                let classes = rows_by_class(labels, 0);
                let counts: Vec<usize> = classes.iter().map(Vec::len).collect();
                check_stratified(&counts, folds, name)?;
                check_folds_fit(repeats, folds, labels.len())?;
                let mut out = Vec::with_capacity(repeats * folds);
                for r in 0..repeats {
                    out.extend(stratified_repeat(&classes, labels.len(), folds, r, seed));
                }
                Ok(out)
            }
            Splitter::LeaveOneOut => {
                let n = labels.len();
                if n < 2 {
                    return Err(Error::data("leave-one-out needs at least two rows"));
                }
                check_leave_one_out_fits(n)?;
                Ok((0..n)
                    .map(|i| Fold {
                        repeat: 0,
                        index: i,
                        train: (0..n).filter(|&j| j != i).collect(),
                        test: vec![i],
                    })
                    .collect())
            }
            Splitter::Holdout { test_fraction } => {
                holdout(labels, test_fraction, seed, name).map(|f| vec![f])
            }
            Splitter::Time(_) | Splitter::Group(_) => Err(Error::invalid(
                "time(...) and group(...) split a dataset by one of its columns",
            )),
        }
    }

    /// The column `time(...)` / `group(...)` reads as a key rather than a
    /// feature ([`KeyColumn`]): text times and group ids, dates and
    /// timestamps become numbers. `None` for other schemes, and with
    /// `keep=true`, when the column is a feature of the models and is read
    /// as features are.
    pub fn key_column(&self) -> Option<KeyColumn> {
        let (c, kind) = match self {
            Splitter::Time(c) => (c, KeyKind::Time),
            Splitter::Group(c) => (c, KeyKind::Group),
            _ => return None,
        };
        (!c.keep).then(|| KeyColumn {
            name: c.column().to_string(),
            kind,
        })
    }

    /// The dataset the models see (without the time or group column unless
    /// `keep=true`), the folds of its rows and the scheme of the inner folds
    /// ([`Splitter::inner`]).
    pub fn prepare<'a>(&self, data: &'a Dataset, seed: u64) -> Result<Prepared<'a>> {
        let folds = self.split_dataset(data, seed)?;
        Ok(Prepared {
            data: self.features(data)?,
            folds,
            inner: self.inner(data)?,
        })
    }

    /// How the inner folds of a strategy's calibration and tuned thresholds
    /// are cut on a training part: by the same time or group column under
    /// `time(...)` / `group(...)` (read from `data` before the column leaves
    /// the features), stratified otherwise.
    pub fn inner(&self, data: &Dataset) -> Result<InnerFolds> {
        Ok(match self {
            Splitter::Time(c) => InnerFolds::Time(c.clone(), c.values(data, "time column")?),
            Splitter::Group(c) => InnerFolds::Group(c.clone(), c.values(data, "group column")?),
            _ => InnerFolds::Stratified,
        })
    }

    /// The dataset the models see: `data` without the time or group column
    /// unless `keep=true`.
    pub fn features<'a>(&self, data: &'a Dataset) -> Result<Cow<'a, Dataset>> {
        match self {
            Splitter::Time(c) | Splitter::Group(c) if !c.keep => {
                let j = c.index(data, "split column")?;
                if data.n_features() == 1 {
                    return Err(Error::invalid(format!(
                        "'{}' is the only feature; keep it as one with keep=true",
                        c.column()
                    )));
                }
                Ok(Cow::Owned(data.drop_columns(&[j])))
            }
            _ => Ok(Cow::Borrowed(data)),
        }
    }
}

/// A dataset as the models see it, the folds of its rows, and how the inner
/// folds of each training part are cut ([`Splitter::prepare`]).
#[derive(Debug, Clone)]
pub struct Prepared<'a> {
    /// The dataset without the time or group column (unless `keep=true`).
    pub data: Cow<'a, Dataset>,
    /// The folds of its rows.
    pub folds: Vec<Fold>,
    /// The scheme of the inner folds, over its rows.
    pub inner: InnerFolds,
}

/// How the folds of cross-fitting (a strategy's calibration and tuned
/// thresholds, [`crate::strategy::CoreFits`]) are cut on a training set:
/// stratified ([`cross_fit_folds`]), or by the time or group column of the
/// outer `time(...)` / `group(...)` scheme, so that a threshold tuned on a
/// time-ordered validation is itself tuned on later rows than its models
/// saw, and no group is on both sides of an inner fold either. The column
/// holds one value per row of the dataset it was read from; [`InnerFolds::take`]
/// restricts it to a training part's rows.
///
/// ```
/// use rarity::split::{InnerFolds, Splitter};
/// let (ds, _) = rarity::data::bundled::find("pima").unwrap()
///     .load(&rarity::data::read::ReadOptions::default()).unwrap();
/// let cv: Splitter = "time(col=x1, folds=3)".parse().unwrap();
/// let inner = cv.inner(&ds).unwrap();
/// // Inner folds of the first 500 rows, 3 of them, each testing later times than it trains on.
/// let rows: Vec<usize> = (0..500).collect();
/// let folds = inner.take(&rows).folds(&ds.take(&rows), 3, 1, "too few").unwrap();
/// assert_eq!(folds.len(), 3);
/// assert_eq!(InnerFolds::default(), InnerFolds::Stratified);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub enum InnerFolds {
    /// Stratified folds ([`cross_fit_folds`]).
    #[default]
    Stratified,
    /// Expanding-window folds in the order of the column's values.
    Time(ColumnSplit, Vec<f64>),
    /// Folds that keep each value of the column on one side.
    Group(ColumnSplit, Vec<f64>),
}

impl InnerFolds {
    /// The scheme over `rows` (indices into the rows it holds values of).
    pub fn take(&self, rows: &[usize]) -> InnerFolds {
        let pick = |v: &[f64]| rows.iter().map(|&i| v[i]).collect();
        match self {
            InnerFolds::Stratified => InnerFolds::Stratified,
            InnerFolds::Time(c, v) => InnerFolds::Time(c.clone(), pick(v)),
            InnerFolds::Group(c, v) => InnerFolds::Group(c.clone(), pick(v)),
        }
    }

    /// `folds` inner folds of `data`'s rows (the rows the scheme holds
    /// values of). Stratified: [`cross_fit_folds`] (`too_few` names what
    /// needed them). Time: the expanding window, so the first block gets no
    /// out-of-fold prediction; group: every row gets one. An error says
    /// which inner folds could not be cut and why.
    pub fn folds(
        &self,
        data: &Dataset,
        folds: usize,
        seed: u64,
        too_few: &str,
    ) -> Result<Vec<Fold>> {
        let (c, values, scheme) = match self {
            InnerFolds::Stratified => return cross_fit_folds(data, folds, seed, too_few),
            InnerFolds::Time(c, v) => (c, v, "time"),
            InnerFolds::Group(c, v) => (c, v, "group"),
        };
        if values.len() != data.n_rows() {
            return Err(Error::invalid(format!(
                "inner {scheme} folds: {} values of '{}' for {} rows",
                values.len(),
                c.column(),
                data.n_rows()
            )));
        }
        let inner = ColumnSplit { folds, ..c.clone() };
        let cut = match self {
            InnerFolds::Time(..) => time_folds(&inner, values, data.labels(), data.class_names()),
            _ => group_folds(&inner, values, data.n_rows(), seed),
        };
        cut.map_err(|e| {
            Error::data(format!(
                "the inner folds of calibration and tuned thresholds follow --cv                  {scheme}(col={}) on each training part: {e}",
                c.column()
            ))
        })
    }
}

/// The folds of `time(...)` (`scheme` `"time"`) or `group(...)`
/// (`"group"`) from the `values` alone of a column named `column` (in
/// messages), one per row, with the rows'
/// class ids `labels` (all 0 when there are none) named by `class_names`:
/// the splitters of the Python package. Non-finite values are an error.
///
/// ```
/// use rarity::split::column_folds;
/// let times: Vec<f64> = (0..12).map(f64::from).collect();
/// let all = ["all".to_string()];
/// let folds = column_folds("time", "t", &times, &[0; 12], &all, 3, 42).unwrap();
/// assert_eq!((folds[0].train.len(), &folds[0].test), (3, &vec![3, 4, 5]));
/// let e = column_folds("group", "g", &[1.0; 12], &[0; 12], &all, 3, 42).unwrap_err();
/// assert!(e.to_string().contains("group column 'g' has 1 group;"), "{e}");
/// ```
pub fn column_folds(
    scheme: &str,
    column: &str,
    values: &[f64],
    labels: &[u32],
    class_names: &[String],
    folds: usize,
    seed: u64,
) -> Result<Vec<Fold>> {
    let c = ColumnSplit {
        col: Some(column.to_string()),
        folds,
        keep: true,
    };
    c.check()
        .map_err(|e| Error::invalid(format!("{scheme} folds: {e}")))?;
    if values.len() != labels.len() {
        return Err(Error::invalid(format!(
            "{} values for {} labels",
            values.len(),
            labels.len()
        )));
    }
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(Error::data(format!(
            "{scheme} values must be finite numbers; row {i} holds {}",
            values[i]
        )));
    }
    if labels.iter().any(|&l| l as usize >= class_names.len()) {
        return Err(Error::invalid("a label is not the id of a named class"));
    }
    match scheme {
        "time" => time_folds(&c, values, labels, class_names),
        "group" => group_folds(&c, values, values.len(), seed),
        other => Err(Error::invalid(format!(
            "unknown scheme '{other}'; accepted: time, group"
        ))),
    }
}

/// Expanding-window folds in the order of `time` (module doc); every
/// training part must hold every class of `class_names`.
fn time_folds(
    c: &ColumnSplit,
    time: &[f64],
    labels: &[u32],
    class_names: &[String],
) -> Result<Vec<Fold>> {
    let n = time.len();
    let blocks = c.folds + 1;
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| time[a].total_cmp(&time[b]).then(a.cmp(&b)));
    let mut distinct = 0;
    let mut block_of = vec![0usize; n];
    let mut block = 0;
    for (s, &i) in order.iter().enumerate() {
        if s == 0 || time[i] != time[order[s - 1]] {
            distinct += 1;
            block = (s * blocks / n).min(c.folds);
        }
        block_of[i] = block;
    }
    if distinct < blocks {
        return Err(Error::data(format!(
            "time column '{}' has {distinct} distinct value{}; time(folds={}) needs at least {blocks} \
             (a first block to train on, then one per test fold)",
            c.column(),
            if distinct == 1 { "" } else { "s" },
            c.folds
        )));
    }
    let mut sizes = vec![0usize; blocks];
    block_of.iter().for_each(|&b| sizes[b] += 1);
    if let Some(b) = sizes.iter().position(|&s| s == 0) {
        return Err(Error::data(format!(
            "time column '{}': block {b} of {blocks} is empty: too many rows share one time \
             to cut {blocks} blocks; use fewer folds",
            c.column()
        )));
    }
    (0..c.folds)
        .map(|f| {
            let train: Vec<usize> = (0..n).filter(|&i| block_of[i] <= f).collect();
            let train_labels: Vec<u32> = train.iter().map(|&i| labels[i]).collect();
            let classes = rows_by_class(&train_labels, class_names.len());
            if let Some(k) = classes.iter().position(Vec::is_empty) {
                return Err(Error::data(format!(
                    "time fold {f}: the rows before '{}' = {} hold no row of class '{}'; \
                     use fewer folds",
                    c.column(),
                    time[order[train.len()]],
                    class_names[k]
                )));
            }
            Ok(Fold {
                repeat: 0,
                index: f,
                train,
                test: (0..n).filter(|&i| block_of[i] == f + 1).collect(),
            })
        })
        .collect()
}

/// Folds that keep each group on one side, balanced by size (module doc).
fn group_folds(c: &ColumnSplit, group: &[f64], n: usize, seed: u64) -> Result<Vec<Fold>> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| group[a].total_cmp(&group[b]));
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (s, &i) in order.iter().enumerate() {
        if s == 0 || group[i].total_cmp(&group[order[s - 1]]).is_ne() {
            groups.push(Vec::new());
        }
        groups.last_mut().expect("pushed").push(i);
    }
    if groups.len() < c.folds {
        return Err(Error::data(format!(
            "group column '{}' has {} group{}; group(folds={}) needs at least as many groups \
             as folds",
            c.column(),
            groups.len(),
            if groups.len() == 1 { "" } else { "s" },
            c.folds
        )));
    }
    let mut rng = rng::stream(seed, 0);
    rng::shuffle(&mut groups, &mut rng);
    // Stable: equal sizes stay in the seeded order.
    groups.sort_by_key(|g| std::cmp::Reverse(g.len()));
    let mut sizes = vec![0usize; c.folds];
    let mut fold_of = vec![0usize; n];
    for g in &groups {
        let f = (0..c.folds).min_by_key(|&f| sizes[f]).expect("folds >= 2");
        sizes[f] += g.len();
        g.iter().for_each(|&i| fold_of[i] = f);
    }
    Ok((0..c.folds)
        .map(|f| {
            let (test, train): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| fold_of[i] == f);
            Fold {
                repeat: 0,
                index: f,
                train,
                test,
            }
        })
        .collect())
}

fn stratified_repeat(
    classes: &[Vec<usize>],
    n: usize,
    folds: usize,
    repeat: usize,
    seed: u64,
) -> Vec<Fold> {
    let counts: Vec<usize> = classes.iter().map(Vec::len).collect();
    let mut fold_of = vec![0u16; n];
    for (rows, of) in classes
        .iter()
        .zip(class_folds(&counts, folds, repeat, seed))
    {
        for (&i, f) in rows.iter().zip(of) {
            fold_of[i] = f;
        }
    }
    (0..folds)
        .map(|f| {
            let (test, train): (Vec<usize>, Vec<usize>) =
                (0..n).partition(|&i| fold_of[i] as usize == f);
            Fold {
                repeat,
                index: f,
                train,
                test,
            }
        })
        .collect()
}

/// Most folds of stratified cross-validation (fold numbers are kept in a
/// `u16` per row, [`class_folds`]).
pub const MAX_FOLDS: usize = u16::MAX as usize;

/// Fails, saying how much it would need, when the folds of `repeats` x
/// `folds` cross-validation of `rows` rows cannot all be held at once: each
/// fold's record, and every row once in a test part and `folds - 1` times
/// in a training part, per repeat. Counted in floats, so that no product of
/// the user's numbers overflows before it is checked.
pub fn check_folds_fit(repeats: usize, folds: usize, rows: usize) -> Result<()> {
    let (r, k) = (repeats as f64, folds as f64);
    let bytes = r * k * (std::mem::size_of::<Fold>() as f64 + rows as f64 * 8.0);
    crate::limits::check_memory(&format!("{repeats}x{folds} cross-validation"), bytes)
}

/// Fails, saying how much it would need, when the folds of leave-one-out
/// over `rows` rows cannot all be held at once: `rows` folds of `rows - 1`
/// training rows and one test row each, memory that grows with the square
/// of the rows (20,000 rows: 3.2 GB; 200,000: 320 GB). Checked before any
/// fold is cut, as [`check_folds_fit`] checks k-fold.
pub fn check_leave_one_out_fits(rows: usize) -> Result<()> {
    let n = rows as f64;
    let bytes = n * (std::mem::size_of::<Fold>() as f64 + n * 8.0);
    crate::limits::check_memory(
        &format!(
            "leave-one-out on {rows} rows ({rows} folds of {} training rows; k-fold \
             cross-validation, e.g. 10 folds, needs a fraction of it)",
            rows - 1
        ),
        bytes,
    )
}

/// More distinct numeric labels than this, in a target whose class is too
/// small for the folds, and the target looks continuous.
const CONTINUOUS_CLASSES: usize = 20;

/// Fails unless stratified `folds`-fold cross-validation can be cut from
/// classes of `counts` rows: every class present has at least `folds` rows;
/// `name(class)` names a class in the error.
pub fn check_stratified(
    counts: &[usize],
    folds: usize,
    name: &dyn Fn(u32) -> String,
) -> Result<()> {
    if folds > MAX_FOLDS {
        return Err(Error::invalid(format!(
            "at most {MAX_FOLDS} folds, got {folds}; leave-one-out is --cv loo"
        )));
    }
    for (c, &n) in counts.iter().enumerate() {
        if n > u32::MAX as usize {
            return Err(Error::data(format!(
                "{} has {n} rows; stratified folds are cut from at most {} rows a class",
                name(c as u32),
                u32::MAX
            )));
        }
        if n > 0 && n < folds {
            let classes = counts.iter().filter(|&&n| n > 0).count();
            let numeric = (0..counts.len() as u32).all(|c| {
                name(c)
                    .trim_start_matches("class '")
                    .trim_end_matches('\'')
                    .parse::<f64>()
                    .is_ok()
            });
            let advice = if classes > CONTINUOUS_CLASSES && numeric {
                format!(
                    "the target has {classes} distinct values, all numbers: it looks continuous \
                     (a measurement, not a class). Name the label column with --target NAME (or \
                     its 0-based index; target= in Python)"
                )
            } else if n >= 2 {
                format!("use at most {n} folds")
            } else {
                "stratified cross-validation needs at least 2 rows of every class \
                 present; drop or merge that class"
                    .to_string()
            };
            return Err(Error::data(format!(
                "{} has {n} rows, fewer than the {folds} folds, so some test fold would have none; {advice}",
                name(c as u32),
            )));
        }
    }
    Ok(())
}

/// The folds of one repeat of stratified cross-validation, per class: the
/// fold of each of its rows, by the row's position among the rows of its
/// class (`counts[c]` rows of class `c`). Each class's positions are
/// shuffled by stream `repeat` of `seed`, class after class, and dealt to
/// the folds in turn, the deal going on from one class to the next. The
/// folds depend on the class counts and the order of each class's rows
/// only, so a file can be split as it is read (the streamed evaluation).
pub fn class_folds(counts: &[usize], folds: usize, repeat: usize, seed: u64) -> Vec<Vec<u16>> {
    let mut rng = rng::stream(seed, repeat as u64);
    let mut next = 0;
    counts
        .iter()
        .map(|&n| {
            // Positions as u32 ([`check_stratified`]): half the memory.
            let mut order: Vec<u32> = (0..n as u32).collect();
            rng::shuffle(&mut order, &mut rng);
            let mut of = vec![0u16; n];
            for i in order {
                of[i as usize] = next as u16;
                next = (next + 1) % folds;
            }
            of
        })
        .collect()
}

fn holdout(labels: &[u32], frac: f64, seed: u64, name: &dyn Fn(u32) -> String) -> Result<Fold> {
    if !(frac > 0.0 && frac < 1.0) {
        return Err(Error::invalid(format!(
            "the test fraction must lie strictly between 0 and 1, got {frac}"
        )));
    }
    let mut rng = rng::stream(seed, 0);
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for (c, rows) in rows_by_class(labels, 0).into_iter().enumerate() {
        if rows.is_empty() {
            continue;
        }
        if rows.len() < 2 {
            return Err(Error::data(format!(
                "{} has 1 row; a stratified hold-out needs at least 2 (one to train, one to test)",
                name(c as u32)
            )));
        }
        let mut rows = rows;
        rng::shuffle(&mut rows, &mut rng);
        let n_test = ((frac * rows.len() as f64).round() as usize).clamp(1, rows.len() - 1);
        test.extend_from_slice(&rows[..n_test]);
        train.extend_from_slice(&rows[n_test..]);
    }
    train.sort_unstable();
    test.sort_unstable();
    Ok(Fold {
        repeat: 0,
        index: 0,
        train,
        test,
    })
}

impl FromStr for Splitter {
    type Err = Error;

    /// Parses the CLI's `--cv` values: `K` (stratified K-fold, e.g. `10`),
    /// `RxK` (R repeats of K folds, e.g. `10x10`, `5x2`), `loo`
    /// (leave-one-out), `holdout:F` (one split with test fraction F),
    /// `time(col=COL, folds=5, keep=false)` and `group(col=COL, folds=5,
    /// keep=false)`.
    fn from_str(s: &str) -> Result<Self> {
        let t = s.trim();
        if t.starts_with("time") || t.starts_with("group") {
            return column_split(t);
        }
        let s = t.to_ascii_lowercase();
        let bad = || {
            Error::invalid(format!(
                "'{s}' is not a cross-validation scheme; use K (e.g. 10), RxK (e.g. 10x10, 5x2), loo, holdout:F (e.g. holdout:0.3), time(col=COL, folds=5) (an expanding window in the order of COL) or group(col=COL, folds=5) (no value of COL on both sides)"
            ))
        };
        let int = |t: &str| t.parse::<usize>().map_err(|_| bad());
        let splitter = if s == "loo" {
            Splitter::LeaveOneOut
        } else if let Some(f) = s.strip_prefix("holdout:") {
            Splitter::Holdout {
                test_fraction: f.parse::<f64>().map_err(|_| bad())?,
            }
        } else if let Some((r, k)) = s.split_once('x') {
            Splitter::Stratified {
                repeats: int(r)?,
                folds: int(k)?,
            }
        } else {
            Splitter::k_fold(int(&s)?)
        };
        match splitter {
            Splitter::Stratified { repeats, folds } if repeats == 0 || folds < 2 => {
                Err(Error::invalid(format!(
                    "'{s}': cross-validation needs at least 1 repeat and 2 folds"
                )))
            }
            Splitter::Stratified { folds, .. } if folds > MAX_FOLDS => Err(Error::invalid(
                format!("'{s}': at most {MAX_FOLDS} folds, got {folds}; leave-one-out is --cv loo"),
            )),
            Splitter::Stratified { repeats, folds } => {
                check_folds_fit(repeats, folds, 0)
                    .map_err(|e| Error::invalid(format!("--cv '{s}': {e}")))?;
                Ok(splitter)
            }
            Splitter::Holdout { test_fraction }
                if !(test_fraction > 0.0 && test_fraction < 1.0) =>
            {
                Err(Error::invalid(format!(
                    "'{s}': the test fraction must lie strictly between 0 and 1"
                )))
            }
            other => Ok(other),
        }
    }
}

/// `time(...)` or `group(...)`, checked.
fn column_split(s: &str) -> Result<Splitter> {
    let bad = |e: Error| Error::invalid(format!("--cv '{s}': {e}"));
    let calls = syntax::parse(s).map_err(bad)?;
    let [call] = calls.as_slice() else {
        return Err(bad(Error::invalid("give one scheme")));
    };
    let c: ColumnSplit = from_call(call).map_err(bad)?;
    if c.col.as_deref().is_none_or(str::is_empty) {
        return Err(bad(Error::invalid(format!(
            "name the column, e.g. {}(col=Time, folds=5)",
            call.name
        ))));
    }
    match call.name.as_str() {
        "time" => Ok(Splitter::Time(c)),
        "group" => Ok(Splitter::Group(c)),
        other => Err(bad(Error::invalid(format!(
            "unknown scheme '{other}'; accepted: time, group"
        )))),
    }
}

/// Rows of the smallest class present in `data` (0 when it has no rows).
pub(crate) fn smallest_class(data: &Dataset) -> usize {
    data.class_counts()
        .into_iter()
        .filter(|&c| c > 0)
        .min()
        .unwrap_or(0)
}

/// The folds of cross-fitting, where every row gets a prediction from a model
/// fitted without it: one stratified `folds`-fold split, with at most as
/// many folds as the smallest class present has rows, so that every test
/// fold holds every class. Fewer than 2 folds left is an error with the
/// message `too_few`, which names what needed the folds. Used by a
/// strategy's calibration and tuned thresholds, and by cross-fitted
/// ReverseTesting.
///
/// ```
/// use rarity::split::cross_fit_folds;
/// let (ds, _) = rarity::data::bundled::find("ecoli4").unwrap()
///     .load(&rarity::data::read::ReadOptions::default()).unwrap();
/// assert_eq!(cross_fit_folds(&ds, 5, 1, "too few rows").unwrap().len(), 5);
/// // No more folds than the smallest class has rows.
/// let smallest = *ds.class_counts().iter().min().unwrap();
/// assert_eq!(cross_fit_folds(&ds, 1000, 1, "too few rows").unwrap().len(), smallest);
/// assert_eq!(cross_fit_folds(&ds, 1, 1, "too few rows").unwrap_err().to_string(), "too few rows");
/// ```
pub fn cross_fit_folds(
    data: &Dataset,
    folds: usize,
    seed: u64,
    too_few: &str,
) -> Result<Vec<Fold>> {
    let folds = folds.min(smallest_class(data));
    if folds < 2 {
        return Err(Error::data(too_few));
    }
    Splitter::Stratified { repeats: 1, folds }.split_dataset(data, seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels() -> Vec<u32> {
        (0..103).map(|i| u32::from(i % 10 == 3)).collect()
    }

    #[test]
    fn folds_partition_rows_and_stay_stratified() {
        let y = labels();
        let folds = Splitter::Stratified {
            repeats: 10,
            folds: 10,
        }
        .split(&y, 1)
        .unwrap();
        assert_eq!(folds.len(), 100);
        for r in 0..10 {
            let mut seen = vec![0; y.len()];
            for f in folds.iter().filter(|f| f.repeat == r) {
                for &i in &f.test {
                    seen[i] += 1;
                }
                let pos = f.test.iter().filter(|&&i| y[i] == 1).count();
                assert!(pos == 1 || pos == 2, "positives in a test fold: {pos}");
                assert_eq!(f.train.len() + f.test.len(), y.len());
                assert!(f.train.iter().all(|i| !f.test.contains(i)));
            }
            assert!(seen.iter().all(|&s| s == 1));
        }
    }

    #[test]
    fn same_seed_same_folds_other_seed_other_folds() {
        let y = labels();
        let s = Splitter::k_fold(5);
        assert_eq!(s.split(&y, 3).unwrap(), s.split(&y, 3).unwrap());
        assert_ne!(s.split(&y, 3).unwrap(), s.split(&y, 4).unwrap());
    }

    #[test]
    fn too_few_rows_of_a_class_is_a_clear_error() {
        let y = [0, 0, 0, 0, 0, 1, 1, 1];
        let e = Splitter::k_fold(5).split(&y, 0).unwrap_err().to_string();
        assert!(
            e.contains("class 1 has 3 rows") && e.contains("5 folds"),
            "{e}"
        );
        assert!(Splitter::Holdout { test_fraction: 0.3 }
            .split(&[0, 0, 1], 0)
            .is_err());
    }

    #[test]
    fn holdout_and_leave_one_out() {
        let y = labels();
        let f = &Splitter::Holdout { test_fraction: 0.3 }
            .split(&y, 9)
            .unwrap()[0];
        assert_eq!(f.test.len(), 31);
        assert_eq!(f.test.iter().filter(|&&i| y[i] == 1).count(), 3);
        let loo = Splitter::LeaveOneOut.split(&[0, 1, 0], 0).unwrap();
        assert_eq!(loo[1].test, vec![1]);
        assert_eq!(loo[1].train, vec![0, 2]);
        // Rows whose folds cannot be held are refused before any is cut.
        let e = check_leave_one_out_fits(10_000_000)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("leave-one-out on 10000000 rows") && e.contains("would need 800.0 TB"),
            "{e}"
        );
        assert!(check_leave_one_out_fits(1000).is_ok());
    }

    /// Rows with features (time, group, x) and a label.
    fn table(rows: &[(f64, f64, u32)]) -> Dataset {
        let x = rows.iter().flat_map(|&(t, g, _)| [t, g, t * 0.5]).collect();
        let names = ["Time", "Card", "x"].map(String::from).to_vec();
        let schema = crate::data::Schema::numeric(names, vec!["0".into(), "1".into()]);
        Dataset::new(x, rows.iter().map(|r| r.2).collect(), schema).unwrap()
    }

    #[test]
    fn time_folds_train_only_on_the_past_and_never_cut_a_time() {
        // 40 rows, times 0..20 twice each, shuffled row order; every 4th positive.
        let rows: Vec<(f64, f64, u32)> = (0..40)
            .map(|i| (((i * 7) % 40 / 2) as f64, 0.0, u32::from(i % 4 == 0)))
            .collect();
        let data = table(&rows);
        let s: Splitter = "time(col=Time, folds=3)".parse().unwrap();
        let Prepared {
            data: seen, folds, ..
        } = s.prepare(&data, 1).unwrap();
        assert_eq!(seen.feature_names(), ["Card", "x"]);
        assert_eq!(folds.len(), 3);
        let t = |i: usize| rows[i].0;
        let mut tested = 0;
        for (f, fold) in folds.iter().enumerate() {
            let last_train = fold.train.iter().map(|&i| t(i)).fold(f64::MIN, f64::max);
            let first_test = fold.test.iter().map(|&i| t(i)).fold(f64::MAX, f64::min);
            assert!(last_train < first_test, "fold {f}");
            assert_eq!(fold.train.len(), 10 * (f + 1));
            assert_eq!(fold.test.len(), 10);
            tested += fold.test.len();
        }
        assert_eq!(tested, 30);
        // The seed plays no part; keep=true keeps the column.
        assert_eq!(s.split_dataset(&data, 9).unwrap(), folds);
        let kept: Splitter = "time(col=Time, folds=3, keep=true)".parse().unwrap();
        assert_eq!(kept.features(&data).unwrap().n_features(), 3);
    }

    #[test]
    fn group_folds_keep_groups_apart_balanced_and_seeded() {
        let rows: Vec<(f64, f64, u32)> = (0..60)
            .map(|i| (i as f64, (i % 12) as f64, u32::from(i % 5 == 0)))
            .collect();
        let data = table(&rows);
        let s: Splitter = "group(col=Card, folds=4)".parse().unwrap();
        let folds = s.split_dataset(&data, 3).unwrap();
        for f in &folds {
            assert_eq!(f.test.len(), 15);
            for &i in &f.test {
                assert!(f.train.iter().all(|&j| rows[j].1 != rows[i].1));
            }
        }
        assert_eq!(s.split_dataset(&data, 3).unwrap(), folds);
        assert_ne!(s.split_dataset(&data, 4).unwrap(), folds);
    }

    #[test]
    fn inner_folds_follow_the_scheme_on_a_training_part() {
        // 60 rows: times 0..30 twice each in a scrambled order, 12 cards.
        let rows: Vec<(f64, f64, u32)> = (0..60)
            .map(|i| {
                (
                    ((i * 7) % 60 / 2) as f64,
                    (i % 12) as f64,
                    u32::from(i % 3 == 0),
                )
            })
            .collect();
        let data = table(&rows);
        let train: Vec<usize> = (0..60).filter(|i| i % 4 != 1).collect();
        let part = data.take(&train);
        let time = "time(col=Time, folds=5)".parse::<Splitter>().unwrap();
        let inner = time.inner(&data).unwrap().take(&train);
        let folds = inner.folds(&part, 3, 1, "too few").unwrap();
        assert_eq!(folds.len(), 3);
        let t = |i: usize| rows[train[i]].0;
        for f in &folds {
            let last = f.train.iter().map(|&i| t(i)).fold(f64::MIN, f64::max);
            assert!(f.test.iter().all(|&i| t(i) > last));
        }
        // The first block is never tested.
        let tested: usize = folds.iter().map(|f| f.test.len()).sum();
        assert!(tested < train.len() && tested >= train.len() / 2);
        let group = "group(col=Card, folds=4)".parse::<Splitter>().unwrap();
        let inner = group.inner(&data).unwrap().take(&train);
        let folds = inner.folds(&part, 3, 1, "too few").unwrap();
        let card = |i: usize| rows[train[i]].1;
        for f in &folds {
            assert!(f
                .test
                .iter()
                .all(|&i| f.train.iter().all(|&j| card(j) != card(i))));
        }
        assert_eq!(
            folds.iter().map(|f| f.test.len()).sum::<usize>(),
            train.len()
        );
        // Too few times on the training part: the message says which folds.
        let early: Vec<usize> = (0..60).filter(|&i| rows[i].0 < 2.0).collect();
        let e = time
            .inner(&data)
            .unwrap()
            .take(&early)
            .folds(&data.take(&early), 3, 1, "too few")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("inner folds") && e.contains("2 distinct values"),
            "{e}"
        );
        assert_eq!(
            Splitter::k_fold(5).inner(&data).unwrap(),
            InnerFolds::Stratified
        );
    }

    #[test]
    fn column_splits_explain_bad_input() {
        let rows: Vec<(f64, f64, u32)> = (0..12)
            .map(|i| ((i / 4) as f64, 1.0, u32::from(i % 2 == 0)))
            .collect();
        let data = table(&rows);
        let err = |cv: &str| {
            let s: Splitter = cv.parse().unwrap();
            s.split_dataset(&data, 0).unwrap_err().to_string()
        };
        let e = err("time(col=Time, folds=3)");
        assert!(
            e.contains("3 distinct values") && e.contains("at least 4"),
            "{e}"
        );
        let e = err("group(col=Card, folds=2)");
        assert!(e.contains("has 1 group;"), "{e}");
        let e = err("time(col=Tme)");
        assert!(e.contains("did you mean 'Time'"), "{e}");
        // A text column read one-hot: the error says what to do.
        let x = (0..8)
            .flat_map(|i| [i as f64, f64::from(i % 2 == 0), f64::from(i % 2 == 1)])
            .collect();
        let names = ["x", "g=a", "g=b"].map(String::from).to_vec();
        let schema = crate::data::Schema::numeric(names, vec!["0".into(), "1".into()]);
        let hot = Dataset::new(x, (0..8).map(|i| u32::from(i % 4 == 0)).collect(), schema).unwrap();
        let s: Splitter = "group(col=g, folds=2)".parse().unwrap();
        let e = s.split_dataset(&hot, 0).unwrap_err().to_string();
        assert!(
            e.contains("holds text, read as 2 one-hot columns (g=a, ...)"),
            "{e}"
        );
        assert!(s.features(&hot).is_err());
        for (cv, why) in [
            ("time(folds=3)", "name the column"),
            ("group(col=Card, folds=1)", "folds=1 is invalid"),
            ("time(col=Time, fold=3)", "unknown argument 'fold'"),
        ] {
            let e = cv.parse::<Splitter>().unwrap_err().to_string();
            assert!(e.contains(why), "{cv}: {e}");
        }
    }

    #[test]
    fn parses_cli_values() {
        assert_eq!("10".parse::<Splitter>().unwrap(), Splitter::k_fold(10));
        assert_eq!("5x2".parse::<Splitter>().unwrap(), Splitter::five_by_two());
        assert_eq!(
            "10X10".parse::<Splitter>().unwrap(),
            Splitter::Stratified {
                repeats: 10,
                folds: 10
            }
        );
        assert_eq!("loo".parse::<Splitter>().unwrap(), Splitter::LeaveOneOut);
        assert_eq!(
            "holdout:0.25".parse::<Splitter>().unwrap(),
            Splitter::Holdout {
                test_fraction: 0.25
            }
        );
        for bad in ["1", "0x5", "ten", "holdout:1.5", "3x"] {
            assert!(bad.parse::<Splitter>().is_err(), "{bad}");
        }
    }
}
