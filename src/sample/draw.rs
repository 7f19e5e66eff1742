//! Small drawing primitives shared by the samplers: class roles, draws with
//! and without replacement, negative binomial counts, and
//! the assembly of a [`Sample`] whose keep rates are counted, never assumed.

use rand::RngExt;
use rayon::prelude::*;

use crate::data::{tally, Between, Dataset};
use crate::error::{Error, Result};
use crate::rng::Rng;

use super::Sample;

/// The minority class: the smallest non-empty class. Ties go to the higher
/// class id, so that a balanced binary set keeps class 1 (the positive class
/// by convention) as its minority.
pub(crate) fn minority_class(counts: &[usize]) -> usize {
    let mut best = 0;
    let mut best_n = usize::MAX;
    for (c, &n) in counts.iter().enumerate() {
        if n > 0 && n <= best_n {
            best = c;
            best_n = n;
        }
    }
    best
}

/// The majority class: the largest class (ties go to the lower class id).
pub(crate) fn majority_class(counts: &[usize]) -> usize {
    let mut best = 0;
    for (c, &n) in counts.iter().enumerate() {
        if n > counts[best] {
            best = c;
        }
    }
    best
}

/// Fails unless at least two classes have rows; returns the class counts.
pub(crate) fn two_class_counts(data: &Dataset, sampler: &str) -> Result<Vec<usize>> {
    let counts = data.class_counts();
    if counts.iter().filter(|&&n| n > 0).count() < 2 {
        data.require_two_classes()
            .map_err(|e| Error::data(format!("{sampler}: {e}")))?;
    }
    Ok(counts)
}

/// The classes of a dataset as the samplers see them: the counts, the
/// minority ([`minority_class`]) and the rows of each class.
pub(crate) struct Classes {
    /// Rows per class.
    pub(crate) counts: Vec<usize>,
    /// The minority class.
    pub(crate) minority: usize,
    /// The rows of each class, in row order.
    pub(crate) rows: Vec<Vec<usize>>,
    /// Per class: whether a cleaning sampler reduces it (every class but
    /// the minority unless [`Classes::cleaning`] names them).
    pub(crate) cleaned: Vec<bool>,
}

impl Classes {
    /// The classes of `data`; fails unless two have rows (`sampler` names
    /// the sampler in the error).
    pub(crate) fn of(data: &Dataset, sampler: &str) -> Result<Self> {
        let counts = two_class_counts(data, sampler)?;
        let minority = minority_class(&counts);
        Ok(Classes {
            minority,
            rows: data.rows_by_class(),
            cleaned: (0..counts.len()).map(|c| c != minority).collect(),
            counts,
        })
    }

    /// As [`Classes::of`], the classes `ids` (class ids) being the ones
    /// cleaned when given (a sampler's `classes` parameter), else every
    /// class but the minority.
    pub(crate) fn cleaning(data: &Dataset, sampler: &str, ids: Option<&[usize]>) -> Result<Self> {
        let mut cls = Classes::of(data, sampler)?;
        if let Some(ids) = ids {
            let k = cls.counts.len();
            if let Some(bad) = ids.iter().find(|&&c| c >= k) {
                return Err(Error::invalid(format!(
                    "{sampler}: classes names class id {bad}; the data has {k} classes (ids 0 to {})",
                    k - 1
                )));
            }
            cls.cleaned = (0..k).map(|c| ids.contains(&c)).collect();
        }
        Ok(cls)
    }

    /// The minority's rows.
    pub(crate) fn minority_rows(&self) -> &[usize] {
        &self.rows[self.minority]
    }

    /// Every class reduced, but the minority, that has rows, with its rows.
    pub(crate) fn others(&self) -> impl Iterator<Item = (usize, &[usize])> {
        self.rows
            .iter()
            .enumerate()
            .filter(|&(c, pool)| c != self.minority && self.cleaned[c] && !pool.is_empty())
            .map(|(c, pool)| (c, pool.as_slice()))
    }

    /// The rows of every class other than the minority that is not
    /// cleaned (kept whole).
    pub(crate) fn kept_whole(&self) -> impl Iterator<Item = usize> + '_ {
        self.rows
            .iter()
            .enumerate()
            .filter(|&(c, _)| c != self.minority && !self.cleaned[c])
            .flat_map(|(_, pool)| pool.iter().copied())
    }

    /// Per class: whether it is reduced (by default every class but the
    /// minority).
    pub(crate) fn not_minority(&self) -> Vec<bool> {
        self.cleaned.clone()
    }
}

/// `m` distinct members of `pool` (partial Fisher-Yates shuffle), in draw order.
/// `m` is capped at `pool.len()`.
pub(crate) fn without_replacement(pool: &[usize], m: usize, rng: &mut Rng) -> Vec<usize> {
    let m = m.min(pool.len());
    let mut p = pool.to_vec();
    for i in 0..m {
        let j = rng.random_range(i..p.len());
        p.swap(i, j);
    }
    p.truncate(m);
    p
}

/// `m` members of `pool` drawn uniformly with replacement (empty if `pool` is).
pub(crate) fn with_replacement(pool: &[usize], m: usize, rng: &mut Rng) -> Vec<usize> {
    if pool.is_empty() {
        return Vec::new();
    }
    (0..m)
        .map(|_| pool[rng.random_range(0..pool.len())])
        .collect()
}

/// A draw from the negative binomial NB(r, 1/2): the number of failures before
/// the `r`-th success in fair coin flips (mean `r`, variance `2r`).
///
/// Each failure run before a success is geometric(1/2), read off as the number
/// of trailing zero bits of a uniform 64-bit word (a zero word continues the
/// run), so the draw is exact and costs about `r` words.
pub(crate) fn negative_binomial_half(r: usize, rng: &mut Rng) -> usize {
    let mut failures = 0usize;
    for _ in 0..r {
        loop {
            let w: u64 = rng.random();
            if w == 0 {
                failures += 64;
            } else {
                failures += w.trailing_zeros() as usize;
                break;
            }
        }
    }
    failures
}

/// `0..n`: every row kept once, as the oversamplers' samples hold them,
/// written in parallel into a buffer advised for huge pages (a million rows
/// are 8 MB of fresh pages; see `crate::mem`).
fn all_rows(n: usize) -> Vec<usize> {
    let mut rows = crate::mem::zeroed(n);
    rows.par_iter_mut().enumerate().for_each(|(i, r)| *r = i);
    rows
}

/// A sample of existing rows only, with keep rates counted and `notes`.
pub(crate) fn assemble_rows(data: &Dataset, rows: Vec<usize>, notes: Vec<String>) -> Sample {
    let mut s = Sample::of_rows(data, rows);
    s.notes = notes;
    s
}

/// A sample of existing rows plus synthetic rows, with keep rates counted.
pub(crate) fn assemble(
    data: &Dataset,
    rows: Vec<usize>,
    synthetic: Vec<Between>,
    synthetic_levels: Vec<f64>,
    synthetic_labels: Vec<u32>,
    notes: Vec<String>,
) -> Sample {
    let mut s = Sample {
        rows,
        synthetic,
        synthetic_labels,
        synthetic_levels,
        keep_rates: Vec::new(),
        notes,
        ..Sample::default()
    };
    s.keep_rates = s.compute_keep_rates(data);
    s
}

/// A sample of every row of `data` once plus synthetic rows. The keep rates
/// are those [`Sample::compute_keep_rates`] counts, `(n_c + s_c) / n_c`,
/// taken from the class counts `counts` and the synthetic labels alone.
pub(crate) fn assemble_all_rows(
    data: &Dataset,
    counts: &[usize],
    synthetic: Vec<Between>,
    synthetic_levels: Vec<f64>,
    synthetic_labels: Vec<u32>,
    notes: Vec<String>,
) -> Sample {
    let added = tally(synthetic_labels.iter().map(|&c| c as usize), counts.len());
    let keep_rates = counts
        .iter()
        .zip(&added)
        .map(|(&n, &s)| {
            if n == 0 {
                1.0
            } else {
                (n + s) as f64 / n as f64
            }
        })
        .collect();
    Sample {
        rows: all_rows(data.n_rows()),
        synthetic,
        synthetic_labels,
        synthetic_levels,
        keep_rates,
        notes,
        ..Sample::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    #[test]
    fn all_rows_keep_rates_are_the_counted_ones() {
        let ds = Dataset::from_rows(
            vec![vec![0.0]; 5],
            vec![0, 2, 0, 0, 2],
            vec!["a".into(), "b".into(), "c".into()],
        )
        .unwrap();
        let s = assemble_all_rows(
            &ds,
            &ds.class_counts(),
            vec![Between::copy_of(1); 3],
            Vec::new(),
            vec![2, 2, 0],
            Vec::new(),
        );
        assert_eq!(s.rows, vec![0, 1, 2, 3, 4]);
        assert_eq!(s.keep_rates, s.compute_keep_rates(&ds));
        assert_eq!(s.keep_rates, vec![4.0 / 3.0, 1.0, 2.0]);
    }

    #[test]
    fn roles() {
        assert_eq!(minority_class(&[5, 2, 0, 7]), 1);
        assert_eq!(majority_class(&[5, 2, 0, 7]), 3);
        assert_eq!(minority_class(&[3, 3]), 1);
        assert_eq!(majority_class(&[3, 3]), 0);
    }

    #[test]
    fn without_replacement_is_distinct() {
        let pool: Vec<usize> = (10..30).collect();
        let mut r = stream(1, 0);
        let mut d = without_replacement(&pool, 15, &mut r);
        assert_eq!(d.len(), 15);
        d.sort_unstable();
        d.dedup();
        assert_eq!(d.len(), 15);
        assert!(d.iter().all(|v| pool.contains(v)));
        assert_eq!(without_replacement(&pool, 50, &mut r).len(), 20);
    }
}
