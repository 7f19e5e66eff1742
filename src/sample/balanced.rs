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

use crate::sample::draw::{
    assemble_rows, majority_class, negative_binomial_half, with_replacement, without_replacement,
    Classes,
};
use crate::sample::parts::no_params;
use crate::sample::{Sample, Sampler};

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
    /// Rows are drawn by class, never by their values.
    fn handles_missing(&self) -> bool {
        true
    }

    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        let cls = Classes::of(data, "eb")?;
        let rows = by_class(&cls, |c, pool| {
            if c == cls.minority {
                pool.to_vec()
            } else {
                without_replacement(pool, cls.minority_rows().len(), rng)
            }
        });
        Ok(Sample::of_rows(data, rows))
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
    /// Rows are drawn by class, never by their values.
    fn handles_missing(&self) -> bool {
        true
    }

    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        let cls = Classes::of(data, "rb")?;
        let n_min = cls.minority_rows().len();
        let mut notes = Vec::new();
        let rows = by_class(&cls, |c, pool| {
            let size = if c == cls.minority {
                n_min
            } else if pool.is_empty() {
                0
            } else {
                let s = negative_binomial_half(n_min, rng);
                if s == 0 {
                    notes.push(format!(
                        "the negative binomial draw gave no rows of class '{}'",
                        data.class_names()[c]
                    ));
                }
                s
            };
            with_replacement(pool, size, rng)
        });
        Ok(assemble_rows(data, rows, notes))
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
    /// Rows are drawn by class, never by their values.
    fn handles_missing(&self) -> bool {
        true
    }

    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        self.check()?;
        let cls = Classes::of(data, "underover")?;
        let largest = cls.counts[majority_class(&cls.counts)];
        let size = (self.a / 100.0 * largest as f64).round().max(1.0);
        let classes = cls.counts.iter().filter(|&&n| n > 0).count();
        crate::limits::check_rows(&self.name(), size * classes as f64, data.n_features())?;
        let size = size as usize;
        let rows = by_class(&cls, |_, pool| with_replacement(pool, size, rng));
        Ok(Sample::of_rows(data, rows))
    }

    fn name(&self) -> String {
        format!("underover(a={})", self.a)
    }
}

/// The rows `draw(c, pool)` gives for every class `c` (`pool`: its rows),
/// in row order.
fn by_class(cls: &Classes, mut draw: impl FnMut(usize, &[usize]) -> Vec<usize>) -> Vec<usize> {
    let mut rows = Vec::new();
    for (c, pool) in cls.rows.iter().enumerate() {
        rows.extend(draw(c, pool));
    }
    rows.sort_unstable();
    rows
}

/// Stratified balanced bootstrap (balanced random forests): `n+` rows drawn
/// with replacement from every class.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BalancedBootstrap;

impl Sampler for BalancedBootstrap {
    /// Rows are drawn by class, never by their values.
    fn handles_missing(&self) -> bool {
        true
    }

    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        let cls = Classes::of(data, "balanced bootstrap")?;
        let size = cls.minority_rows().len();
        let rows = by_class(&cls, |_, pool| with_replacement(pool, size, rng));
        Ok(Sample::of_rows(data, rows))
    }

    fn name(&self) -> String {
        "balanced-bootstrap".into()
    }
}

no_params!(ExactlyBalanced, RoughlyBalanced, BalancedBootstrap);
