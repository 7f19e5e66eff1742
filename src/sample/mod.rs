//! Resampling. Every sampler returns a [`Sample`]: the rows it drew (indices
//! into its input, repeats allowed), any synthetic rows it made, and per class
//! the keep rate `r_k = (rows of class k in the sample) / (rows of class k in
//! the input)`.
//!
//! The keep rates are what lets any model trained on a sample undo the prior
//! shift exactly (Dal Pozzolo et al. 2015, eq. 9 for the binary case with
//! `r_- = beta`, `r_+ = 1`; in general `p_k(x) ∝ p_s,k(x) / r_k`).
//!
//! The samplers (each module's doc cites its source; the neighbour-based
//! ones search with [`crate::neighbors`], in the space `space` prepares):
//!
//! | module | samplers |
//! | --- | --- |
//! | `under` | [`RandomUnder`]: Bernoulli or exact count, rate / ratio / per-class rates |
//! | `over` | [`RandomOver`]; the class-size targets [`OverTarget`] |
//! | `balanced` | [`ExactlyBalanced`] (EB), [`RoughlyBalanced`] (RB), [`UnderOver`], [`BalancedBootstrap`] |
//! | `smote` | [`Smote`], [`BorderlineSmote`] (kinds 1 and 2), [`Adasyn`], [`SmoteHybrid`] (500% / 120%) |
//! | `svm_smote`, `kmeans_smote` | [`SvmSmote`], [`KMeansSmote`] |
//! | `cluster_centroids` | [`ClusterCentroids`] (soft and hard voting; `kmeans` clusters) |
//! | `cleaning` | [`TomekLinks`], [`EditedNearestNeighbours`], [`RepeatedEnn`], [`AllKnn`], [`CondensedNearestNeighbour`], [`OneSidedSelection`], [`NeighbourhoodCleaningRule`], [`NearMiss`], [`InstanceHardness`], [`SmoteTomek`], [`SmoteEnn`] |
//! | [`bootstrap`], [`no_resampling`] | the plain bootstrap and no resampling (bagging's draws) |
//! | [`registry`] | every sampler by name, with its parameters: [`build_sampler`] |
//!
//! Every sampler's parameters are a parameter struct
//! ([`params!`](crate::params::params)) with each default and valid range
//! declared once; a spec such as `under(beta=0.2)` is read into it by the
//! registry, and [`Sampler::name`] prints a spec that reads back to the same
//! sampler.

pub(crate) mod draw;
pub mod keyed;
mod kmeans;
mod nominal;
mod parts;
pub mod plan;
pub mod registry;
mod space;
#[cfg(test)]
mod tests;

pub use registry::*;

use serde::{Deserialize, Serialize};

use crate::data::{tally, Between, Dataset};
use crate::error::Result;
use crate::rng::Rng;

/// What a sampler drew from a dataset.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Indices into the input dataset (repeats allowed).
    pub rows: Vec<usize>,
    /// Synthetic rows, one per label of `synthetic_labels`, as points
    /// between two input rows (their values are computed where they are
    /// written: [`Sample::materialise`], [`Dataset::take_append_into`]).
    pub synthetic: Vec<Between>,
    /// Class ids of the synthetic rows: those of `synthetic`, then those of
    /// `synthetic_values`.
    pub synthetic_labels: Vec<u32>,
    /// Synthetic rows given by their values (row-major, one row per label
    /// after the `synthetic` recipes' labels): rows that are no point of a
    /// segment between two input rows, as cluster centroids and the
    /// smoothed bootstrap's perturbed copies. Empty for most samplers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub synthetic_values: Vec<f64>,
    /// The synthetic rows' levels at the categorical features (row-major,
    /// one per categorical feature in feature order; empty when the table
    /// has none): SMOTE-NC's vote, never an interpolated code.
    #[serde(default)]
    pub synthetic_levels: Vec<f64>,
    /// Per class: rows of that class in the sample (drawn + synthetic) over
    /// rows of that class in the input (1 for a class absent from the input).
    pub keep_rates: Vec<f64>,
    /// Things the user should know (e.g. "k reduced to 2: only 3 minority rows").
    pub notes: Vec<String>,
    /// What the draw found, by name, for callers that report it (the
    /// fitted attributes of imbalanced-learn's classes): `n_iter` (the
    /// editing rounds run), `danger` (the rows Borderline-SMOTE found in
    /// danger), `centroid_rows` (the rows the hard vote of cluster
    /// centroids kept)... Empty for most samplers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<(String, Vec<f64>)>,
}

impl Sample {
    /// Builds a sample of existing rows and computes the keep rates.
    ///
    /// ```
    /// use rarity::data::Dataset;
    /// use rarity::sample::Sample;
    /// let ds = Dataset::from_rows(vec![vec![0.0]; 4], vec![0, 0, 0, 1],
    ///                             vec!["n".into(), "p".into()]).unwrap();
    /// let s = Sample::of_rows(&ds, vec![0, 3, 3]);
    /// assert_eq!(s.keep_rates, vec![1.0 / 3.0, 2.0]);
    /// ```
    pub fn of_rows(data: &Dataset, rows: Vec<usize>) -> Self {
        let mut s = Sample {
            rows,
            ..Sample::default()
        };
        s.keep_rates = s.compute_keep_rates(data);
        s
    }

    /// Keep rates from the rows and synthetic labels held, relative to `data`.
    pub fn compute_keep_rates(&self, data: &Dataset) -> Vec<f64> {
        let input = data.class_counts();
        let k = input.len();
        let mut got = tally(self.rows.iter().map(|&i| data.label(i)), k);
        let synthetic = tally(self.synthetic_labels.iter().map(|&c| c as usize), k);
        got.iter_mut().zip(synthetic).for_each(|(g, s)| *g += s);
        input
            .iter()
            .zip(&got)
            .map(|(&n, &g)| if n == 0 { 1.0 } else { g as f64 / n as f64 })
            .collect()
    }

    /// True when the sample holds synthetic rows (the training set must then
    /// be materialised with [`Sample::materialise`]).
    pub fn has_synthetic(&self) -> bool {
        !self.synthetic_labels.is_empty()
    }

    /// The fact called `name` ([`Sample::facts`]), if the draw recorded it.
    pub fn fact(&self, name: &str) -> Option<&[f64]> {
        self.facts
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }

    /// For each synthetic row and categorical feature (row-major, as
    /// [`Sample::synthetic_levels`]), a row of `data` that holds the same
    /// level (the first; a missing level: the first row missing it), so a
    /// caller can copy the level from its own copy of the input (a table's
    /// text or category column). `None` when a level is held by no row,
    /// which a sample of `data` never gives.
    pub fn level_rows(&self, data: &Dataset) -> Option<Vec<usize>> {
        nominal::level_rows(data, &self.synthetic_levels)
    }

    /// The sampled rows plus the synthetic ones as a new dataset.
    pub fn materialise(&self, data: &Dataset) -> Result<Dataset> {
        if !self.has_synthetic() {
            return Ok(data.take(&self.rows));
        }
        let nb = self.synthetic.len().min(self.synthetic_labels.len());
        let out = data.take_append(
            &self.rows,
            &self.synthetic,
            &self.synthetic_levels,
            &self.synthetic_labels[..nb],
        )?;
        if self.synthetic_values.is_empty() {
            return Ok(out);
        }
        out.append(&self.synthetic_values, &self.synthetic_labels[nb..])
    }

    /// Writes the sample's features (the kept rows, the recipes' rows, then
    /// the rows given by value) into `out`, `(rows + synthetic rows) * d`
    /// values, row-major, as [`Sample::materialise`] lays them out.
    pub fn write_features(&self, data: &Dataset, out: &mut [f64]) -> Result<()> {
        let tail = self.synthetic_values.len();
        if tail > out.len() {
            return Err(crate::error::Error::invalid(
                "the output is smaller than the sample's rows given by value",
            ));
        }
        let (head, rest) = out.split_at_mut(out.len() - tail);
        data.take_append_into(&self.rows, &self.synthetic, &self.synthetic_levels, head)?;
        rest.copy_from_slice(&self.synthetic_values);
        Ok(())
    }
}

/// A way of drawing a training sample from a dataset.
pub trait Sampler: Send + Sync + std::fmt::Debug {
    /// Draws a sample from `data` using `rng`.
    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample>;

    /// A short name for reports (e.g. `bootstrap`, `under(beta=0.1)`): a
    /// spec that [`build_sampler`] reads back to the same sampler.
    fn name(&self) -> String;

    /// Whether the sampler keeps the class priors by design: it draws rows
    /// uniformly whatever their class (the plain bootstrap), so its counted
    /// keep rates differ from 1 only by sampling noise and there is no
    /// prior shift for a correction to undo. False for every sampler that
    /// rebalances.
    fn keeps_priors(&self) -> bool {
        false
    }

    /// Whether the sampler takes rows with missing values (NaN features) as
    /// they are: it draws rows by their class alone (random under- and
    /// oversampling, the bootstrap, the balanced draws), never measuring a
    /// distance on their values. False for every sampler that does (SMOTE
    /// and its relatives, the cleaning rules, NearMiss): a strategy then
    /// needs an `impute(...)` stage before it.
    fn handles_missing(&self) -> bool {
        false
    }

    /// Whether the sample holds rows that are not rows of the input (SMOTE
    /// and its kin): a sample that only selects rows can be given as the
    /// indices of the rows it keeps (imbalanced-learn's `sample_indices_`).
    fn synthesizes(&self) -> bool {
        false
    }

    /// For samplers whose keep decision is per row and per class: the draw
    /// made from the class counts alone (`class_names` for notes), the same
    /// one [`Sampler::resample`] makes with the same `rng`, so a sample can
    /// be kept while a file streams past. `None`: the sampler needs the rows
    /// themselves (neighbours, synthetic rows, ...).
    fn plan(
        &self,
        counts: &[usize],
        class_names: &[String],
        rng: &mut Rng,
    ) -> Option<Result<plan::Plan>> {
        let _ = (counts, class_names, rng);
        None
    }

    /// For a [`Sampler::plan`] that, on two classes, keeps every row of the
    /// minority and each row of the other class whose uniform draw (one per
    /// row of that class, in input order) falls below a rate: that rate.
    /// A file can then be sampled in one pass, before its classes are
    /// counted ([`crate::data::read::read_speculative`]).
    fn streaming_rate(&self) -> Option<f64> {
        None
    }
}

/// A sampler name in the `method(key=value,...)` form its parser reads:
/// empty parts are left out, and no parentheses when nothing is left.
pub(crate) fn spec(method: &str, parts: &[String]) -> String {
    let parts: Vec<&str> = parts
        .iter()
        .map(String::as_str)
        .filter(|p| !p.is_empty())
        .collect();
    if parts.is_empty() {
        method.to_string()
    } else {
        format!("{method}({})", parts.join(","))
    }
}

/// A list parameter as a sampler's name writes it: `0.5:1`.
pub(crate) fn colon_list<T: std::fmt::Display>(v: &[T]) -> String {
    v.iter().map(T::to_string).collect::<Vec<_>>().join(":")
}
