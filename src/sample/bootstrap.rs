//! The plain non-parametric bootstrap (Efron 1979; Breiman 1996's bagging):
//! draw rows uniformly with replacement, so the sample keeps the natural class
//! distribution in expectation (the sampling of PT-bagging, Collell et al.
//! 2018, Algorithm 1 step 1.2).

use rand::RngExt;

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::params::{params, Bounds, Params};
use crate::rng::Rng;
use crate::sample::{Sample, Sampler};

params! {
    /// Draws `round(fraction * n)` rows uniformly with replacement.
    ///
    /// ```
    /// use rarity::data::Dataset;
    /// use rarity::sample::{Sampler, bootstrap::Bootstrap};
    /// let ds = Dataset::from_rows(vec![vec![0.0]; 10], vec![0; 10],
    ///                             vec!["a".into(), "b".into()]).unwrap();
    /// let s = Bootstrap::default().resample(&ds, &mut rarity::rng::stream(1, 0)).unwrap();
    /// assert_eq!(s.rows.len(), 10);
    /// assert!(s.rows.iter().all(|&i| i < 10));
    /// ```
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct Bootstrap {
        /// Sample size as a fraction of the input's rows.
        pub fraction: f64 = 1.0 => Bounds::positive(),
    }
}

impl Sampler for Bootstrap {
    /// Rows are drawn by class, never by their values.
    fn handles_missing(&self) -> bool {
        true
    }

    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        self.check()?;
        let n = data.n_rows();
        if n == 0 {
            return Err(Error::data("cannot draw a bootstrap sample from no rows"));
        }
        let size = (self.fraction * n as f64).round().max(1.0);
        crate::limits::check_rows(&self.name(), size, data.n_features())?;
        let size = size as usize;
        let rows = (0..size).map(|_| rng.random_range(0..n)).collect();
        Ok(Sample::of_rows(data, rows))
    }

    /// Rows are drawn uniformly, whatever their class.
    fn keeps_priors(&self) -> bool {
        true
    }

    fn name(&self) -> String {
        if self.fraction == 1.0 {
            "bootstrap".into()
        } else {
            format!("bootstrap(fraction={})", self.fraction)
        }
    }
}
