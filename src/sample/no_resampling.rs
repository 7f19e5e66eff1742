//! No resampling: every member sees the whole training set (each row once).
//! This is how Fan's random decision trees are trained (their diversity comes
//! from the random structure, not from the data).

use crate::data::Dataset;
use crate::error::Result;
use crate::rng::Rng;
use crate::sample::parts::no_params;
use crate::sample::{Sample, Sampler};

/// Returns all rows, in order; every keep rate is 1.
///
/// ```
/// use rarity::data::Dataset;
/// use rarity::sample::{Sampler, no_resampling::NoResampling};
/// let ds = Dataset::from_rows(vec![vec![0.0]; 3], vec![0, 1, 0],
///                             vec!["a".into(), "b".into()]).unwrap();
/// let s = NoResampling.resample(&ds, &mut rarity::rng::stream(1, 0)).unwrap();
/// assert_eq!(s.rows, vec![0, 1, 2]);
/// assert_eq!(s.keep_rates, vec![1.0, 1.0]);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoResampling;

impl Sampler for NoResampling {
    /// Rows are drawn by class, never by their values.
    fn handles_missing(&self) -> bool {
        true
    }

    fn resample(&self, data: &Dataset, _rng: &mut Rng) -> Result<Sample> {
        Ok(Sample::of_rows(data, (0..data.n_rows()).collect()))
    }

    fn name(&self) -> String {
        "none".into()
    }
}

no_params!(NoResampling);
