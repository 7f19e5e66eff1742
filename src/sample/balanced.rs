//! The balanced per-bag draws of the bagging literature (Collell et al. 2018,
//! section 2.4, and the methods it compares):
//!
//! - **EB**, exactly balanced: all minority rows plus as many rows of every
//!   other class, drawn without replacement.
//! - **RB**, roughly balanced (Hido, Kashima & Takahashi 2009): a bootstrap of
//!   the minority of size `n+`, and for every other class a size drawn from
//!   the negative binomial NB(`n+`, 1/2) (mean `n+`, variance `2 n+`), its
//!   rows drawn with replacement.
//! - **UnderOver** (Wang & Yao 2009, "UnderBagging to OverBagging"): every
//!   class bootstrapped (with replacement) to `a%` of the largest class, so
//!   classes larger than that are undersampled and smaller ones oversampled;
//!   `a = 100` is OverBagging, small `a` UnderBagging.
//! - **Balanced bootstrap** (Chen, Liaw & Breiman 2004, balanced random
//!   forests; Kim's lecture, "bootstrap samples with balanced class by
//!   stratification"): a bootstrap of size `n+` from every class, the
//!   minority included.
//!
//! For more than two classes "minority" is the smallest class and every
//! other class is treated as EB/RB treat the majority.

use crate::data::Dataset;
use crate::error::Result;
use crate::params::{params, Bounds, Params};
use crate::rng::Rng;

use super::draw::{
    assemble, majority_class, minority_class, negative_binomial_half, two_class_counts,
    with_replacement, without_replacement,
};
use super::parts::no_params;
use super::{Sample, Sampler};

/// EB: all minority rows and as many rows of each other class (no replacement).
///
/// ```
/// use rarity::data::Dataset;
/// use rarity::sample::{ExactlyBalanced, Sampler};
/// let ds = Dataset::from_rows(vec![vec![0.0]; 6], vec![0, 0, 0, 0, 1, 1],
///                             vec!["n".into(), "p".into()]).unwrap();
/// let s = ExactlyBalanced.resample(&ds, &mut rarity::rng::stream(3, 0)).unwrap();
/// assert_eq!(s.keep_rates, vec![0.5, 1.0]);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ExactlyBalanced;

impl Sampler for ExactlyBalanced {
    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        let counts = two_class_counts(data, "eb")?;
        let m = minority_class(&counts);
        let mut rows = Vec::new();
        for (c, pool) in data.rows_by_class().iter().enumerate() {
            if c == m {
                rows.extend_from_slice(pool);
            } else {
                rows.extend(without_replacement(pool, counts[m], rng));
            }
        }
        rows.sort_unstable();
        Ok(assemble(data, rows, Vec::new(), Vec::new(), Vec::new()))
    }

    fn name(&self) -> String {
        "eb".into()
    }
}

/// RB: minority bootstrap of size `n+`; each other class NB(`n+`, 1/2) rows
/// drawn with replacement.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RoughlyBalanced;

impl Sampler for RoughlyBalanced {
    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        let counts = two_class_counts(data, "rb")?;
        let m = minority_class(&counts);
        let mut rows = Vec::new();
        let mut notes = Vec::new();
        for (c, pool) in data.rows_by_class().iter().enumerate() {
            let size = if c == m {
                counts[m]
            } else if pool.is_empty() {
                0
            } else {
                let s = negative_binomial_half(counts[m], rng);
                if s == 0 {
                    notes.push(format!(
                        "the negative binomial draw gave no rows of class '{}'",
                        data.class_names()[c]
                    ));
                }
                s
            };
            rows.extend(with_replacement(pool, size, rng));
        }
        rows.sort_unstable();
        Ok(assemble(data, rows, Vec::new(), Vec::new(), notes))
    }

    fn name(&self) -> String {
        "rb".into()
    }
}

params! {
    /// UnderOver (Wang & Yao): every class bootstrapped to `a%` of the largest class.
    ///
    /// ```
    /// use rarity::data::Dataset;
    /// use rarity::sample::{Sampler, UnderOver};
    /// let y = [vec![0u32; 100], vec![1; 20], vec![2; 5]].concat();
    /// let ds = Dataset::from_rows(vec![vec![0.0]; 125], y,
    ///                             vec!["a".into(), "b".into(), "c".into()]).unwrap();
    /// let s = UnderOver { a: 50.0 }.resample(&ds, &mut rarity::rng::stream(3, 0)).unwrap();
    /// assert_eq!(s.keep_rates, vec![0.5, 2.5, 10.0]); // 50 rows of each class
    /// ```
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct UnderOver {
        /// Size of every class in percent of the largest (the paper tries 10,
        /// 25, 50 and 100; 100 is OverBagging, small values UnderBagging).
        pub a: f64 = 50.0 => Bounds::positive(),
    }
}

impl Sampler for UnderOver {
    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        self.check()?;
        let counts = two_class_counts(data, "underover")?;
        let size =
            ((self.a / 100.0 * counts[majority_class(&counts)] as f64).round() as usize).max(1);
        Ok(every_class(data, size, rng))
    }

    fn name(&self) -> String {
        format!("underover(a={})", self.a)
    }
}

/// `size` rows drawn with replacement from every class (none from an empty one).
fn every_class(data: &Dataset, size: usize, rng: &mut Rng) -> Sample {
    let mut rows = Vec::new();
    for pool in data.rows_by_class() {
        rows.extend(with_replacement(&pool, size, rng));
    }
    rows.sort_unstable();
    assemble(data, rows, Vec::new(), Vec::new(), Vec::new())
}

/// Stratified balanced bootstrap (balanced random forests): `n+` rows drawn
/// with replacement from every class.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BalancedBootstrap;

impl Sampler for BalancedBootstrap {
    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        let counts = two_class_counts(data, "balanced bootstrap")?;
        Ok(every_class(data, counts[minority_class(&counts)], rng))
    }

    fn name(&self) -> String {
        "balanced-bootstrap".into()
    }
}

no_params!(ExactlyBalanced, RoughlyBalanced, BalancedBootstrap);
