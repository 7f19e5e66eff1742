//! Random oversampling with replacement (Kim's lecture notes, "up-sampling":
//! the small class is sampled with replacement until the classes reach the
//! wanted sizes), and the class-size targets shared with the SMOTE family.
//!
//! Every input row is kept once; the extra rows of class `c` are drawn
//! uniformly with replacement from that class, so the keep rate of `c` is
//! `target_c / N_c >= 1`.

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::params::{params, Bounds, Params};
use crate::rng::Rng;

use crate::sample::draw::{
    assemble_rows, majority_class, minority_class, two_class_counts, with_replacement,
};
use crate::sample::parts::{at_most_one, params_of_parts};
use crate::sample::{colon_list, spec, Sample, Sampler};

params! {
    /// The class sizes an oversampler aims at: at most one of `ratio`,
    /// `amount` and `counts`; with none, every class is brought up to the
    /// size of the largest.
    #[derive(Debug, Clone, PartialEq)]
    pub struct OverTarget {
        /// Every class other than the largest brought up to ratio * N_max
        /// (classes already that large left alone); at least N_min / N_max.
        pub ratio: Option<f64> = None => Bounds::positive(),
        /// SMOTE's amount N%: each class other than the largest gains
        /// round(N / 100 * N_c) rows (500 makes the minority six times larger).
        pub amount: Option<f64> = None => Bounds::at_least(0.0),
        /// Wanted size of each class, in class-id order (none below its size).
        pub counts: Option<Vec<usize>> = None,
    }
    check = one_target;
}

fn one_target(t: &OverTarget) -> Result<()> {
    at_most_one(
        &[t.ratio.is_some(), t.amount.is_some(), t.counts.is_some()],
        "give at most one of ratio, amount and counts (the class sizes to reach)",
    )
}

impl OverTarget {
    /// Wanted size of each class given the input `counts`, checked before
    /// anything is drawn: a sample of more rows (of `features` features)
    /// than the row limit or the memory available allows is an error that
    /// says how much it would need ([`crate::limits::check_rows`]).
    pub fn sizes(&self, counts: &[usize], features: usize) -> Result<Vec<usize>> {
        let sizes = self.wanted(counts)?;
        let what = match self.spec() {
            s if s.is_empty() => "oversampling".to_string(),
            s => format!("oversampling to {s}"),
        };
        crate::limits::check_rows(&what, sizes.iter().sum(), features)?;
        // Each size is at most the total just checked, so the casts are exact.
        Ok(sizes.iter().map(|&s| s as usize).collect())
    }

    /// Wanted size of each class given the input `counts`, as numbers (a
    /// user's ratio or amount may ask for more than a `usize` holds).
    fn wanted(&self, counts: &[usize]) -> Result<Vec<f64>> {
        self.check()?;
        let big = majority_class(counts);
        let nmax = counts[big];
        if let Some(r) = self.ratio {
            let nmin = counts[minority_class(counts)];
            let lo = nmin as f64 / nmax as f64;
            if !(r.is_finite() && r >= lo) {
                return Err(Error::invalid(format!(
                    "ratio = {r} is below its valid minimum N_min/N_max = {lo:.6} \
                     ({nmin} / {nmax}): oversampling cannot shrink a class"
                )));
            }
            let want = (r * nmax as f64).round();
            return Ok(counts
                .iter()
                .enumerate()
                .map(|(c, &n)| {
                    let n = n as f64;
                    if c == big || n == 0.0 {
                        n
                    } else {
                        n.max(want)
                    }
                })
                .collect());
        }
        if let Some(p) = self.amount {
            return Ok(counts
                .iter()
                .enumerate()
                .map(|(c, &n)| {
                    let n = n as f64;
                    if c == big {
                        n
                    } else {
                        n + (p / 100.0 * n).round()
                    }
                })
                .collect());
        }
        let Some(want) = &self.counts else {
            return Ok(counts
                .iter()
                .map(|&n| if n == 0 { 0.0 } else { nmax as f64 })
                .collect());
        };
        if want.len() != counts.len() {
            return Err(Error::invalid(format!(
                "{} class sizes given for {} classes",
                want.len(),
                counts.len()
            )));
        }
        for (c, (&w, &n)) in want.iter().zip(counts).enumerate() {
            if w < n {
                return Err(Error::invalid(format!(
                    "class {c} has {n} rows; oversampling cannot bring it down to {w}"
                )));
            }
            if n == 0 && w > 0 {
                return Err(Error::data(format!(
                    "class {c} has no rows to oversample from"
                )));
            }
        }
        Ok(want.iter().map(|&w| w as f64).collect())
    }

    /// The target as it appears in a sampler name (`ratio=0.5`, `amount=200`,
    /// `counts=100:100`; empty for balance).
    pub(crate) fn spec(&self) -> String {
        if let Some(r) = self.ratio {
            format!("ratio={r}")
        } else if let Some(p) = self.amount {
            format!("amount={p}")
        } else if let Some(v) = &self.counts {
            format!("counts={}", colon_list(v))
        } else {
            String::new()
        }
    }
}

/// Random oversampling with replacement.
///
/// ```
/// use rarity::data::Dataset;
/// use rarity::sample::{OverTarget, RandomOver, Sampler};
/// let ds = Dataset::from_rows(vec![vec![0.0]; 5], vec![0, 0, 0, 0, 1],
///                             vec!["n".into(), "p".into()]).unwrap();
/// let s = RandomOver::default().resample(&ds, &mut rarity::rng::stream(1, 0)).unwrap();
/// assert_eq!(s.keep_rates, vec![1.0, 4.0]);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RandomOver {
    /// The class sizes to reach.
    pub target: OverTarget,
}

params_of_parts!(RandomOver: target);

impl RandomOver {
    /// Oversampling to `target`.
    pub fn new(target: OverTarget) -> Self {
        RandomOver { target }
    }
}

impl Sampler for RandomOver {
    /// Rows are drawn by class, never by their values.
    fn handles_missing(&self) -> bool {
        true
    }

    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        let counts = two_class_counts(data, "oversampling")?;
        let sizes = self.target.sizes(&counts, data.n_features())?;
        let mut rows: Vec<usize> = (0..data.n_rows()).collect();
        for (c, pool) in data.rows_by_class().iter().enumerate() {
            rows.extend(with_replacement(pool, sizes[c] - counts[c], rng));
        }
        Ok(assemble_rows(data, rows, Vec::new()))
    }

    fn name(&self) -> String {
        spec("over", &[self.target.spec()])
    }
}
