//! RUSBoost (Seiffert, Khoshgoftaar, Van Hulse & Napolitano 2010; the
//! lecture's "boosting with sampling"): AdaBoost.M1 whose every round's tree
//! is fitted on a random undersample, without replacement, of each class to
//! the size of the smallest (uniformly, whatever the weights), carrying
//! those rows' current weights; the error and the weight update use all
//! training rows, as in imbalanced-learn's `RUSBoostClassifier`.
//!
//! The boosting is [`crate::learn::adaboost::boost`]; the undersampling is
//! composed here, above the learners, because no learner knows samplers.

use crate::data::View;
use crate::error::Result;
use crate::learn::adaboost::{boost, BoostVariant};
use crate::learn::{Learner, Model};
use crate::params::{params, Bounds, Params};
use crate::rng::Rng;
use crate::sample::draw::without_replacement;

params! {
    /// The RUSBoost learner (hyper-parameters).
    ///
    /// ```
    /// use rarity::data::Dataset;
    /// use rarity::ensemble::rus_boost::RusBoost;
    /// use rarity::learn::Learner;
    /// let ds = Dataset::from_rows((0..40).map(|i| vec![i as f64]).collect(),
    ///     (0..40).map(|i| u32::from(i >= 34)).collect(), vec!["n".into(), "p".into()]).unwrap();
    /// let rows: Vec<usize> = (0..40).collect();
    /// let m = RusBoost::default().fit(&ds.view(&rows), &mut rarity::rng::stream(0, 0)).unwrap();
    /// assert!(m.predict_proba(&ds).unwrap().row(39)[1] > 0.5);
    /// ```
    #[derive(Debug, Clone, PartialEq)]
    pub struct RusBoost {
        /// Boosting rounds.
        pub n: usize = 50 => Bounds::at_least(1.0),
        /// Depth of each round's tree (1 = stumps).
        pub depth: usize = 1 => Bounds::at_least(1.0),
    }
}

/// Each class undersampled without replacement to the smallest class's
/// size, in row order.
fn balanced_undersample(by_class: &[Vec<usize>], rng: &mut Rng) -> Vec<usize> {
    let smallest = by_class.iter().map(Vec::len).min().unwrap_or(0);
    let mut rows: Vec<usize> = by_class
        .iter()
        .flat_map(|pool| without_replacement(pool, smallest, rng))
        .collect();
    rows.sort_unstable();
    rows
}

impl Learner for RusBoost {
    fn fit(&self, data: &View<'_>, rng: &mut Rng) -> Result<Model> {
        self.check()?;
        let m = boost(
            self.n,
            self.depth,
            BoostVariant::M1,
            data,
            rng,
            Some(&balanced_undersample),
        )?;
        Ok(Model::new(m))
    }

    /// Its trees learn where missing values go.
    fn handles_missing(&self) -> bool {
        true
    }

    fn name(&self) -> String {
        format!("rus-boost(n={},depth={})", self.n, self.depth)
    }
}
