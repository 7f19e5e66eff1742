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

use crate::data::{rows_by_class, Dataset};
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
#[derive(Debug, Clone, Copy, PartialEq)]
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
                for (c, rows) in classes.iter().enumerate() {
                    if !rows.is_empty() && rows.len() < folds {
                        let advice = if rows.len() >= 2 {
                            format!("use at most {} folds", rows.len())
                        } else {
                            "stratified cross-validation needs at least 2 rows of every class \
                             present; drop or merge that class"
                                .to_string()
                        };
                        return Err(Error::data(format!(
                            "{} has {} rows, fewer than the {folds} folds, so some test fold would have none; {advice}",
                            name(c as u32),
                            rows.len(),
                        )));
                    }
                }
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
        }
    }
}

fn stratified_repeat(
    classes: &[Vec<usize>],
    n: usize,
    folds: usize,
    repeat: usize,
    seed: u64,
) -> Vec<Fold> {
    let mut rng = rng::stream(seed, repeat as u64);
    let mut fold_of = vec![0usize; n];
    let mut next = 0;
    for rows in classes {
        let mut rows = rows.clone();
        rng::shuffle(&mut rows, &mut rng);
        for i in rows {
            fold_of[i] = next;
            next = (next + 1) % folds;
        }
    }
    (0..folds)
        .map(|f| {
            let (test, train): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| fold_of[i] == f);
            Fold {
                repeat,
                index: f,
                train,
                test,
            }
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
    /// (leave-one-out) and `holdout:F` (one split with test fraction F).
    fn from_str(s: &str) -> Result<Self> {
        let s = s.trim().to_ascii_lowercase();
        let bad = || {
            Error::invalid(format!(
                "'{s}' is not a cross-validation scheme; use K (e.g. 10), RxK (e.g. 10x10, 5x2), loo or holdout:F (e.g. holdout:0.3)"
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
