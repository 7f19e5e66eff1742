//! The bagging engine (Breiman 1996; Collell et al. 2018, Algorithm 1).
//!
//! [`Bagging`] trains `n` members, each by any [`Learner`] on its own sample
//! drawn by any [`Sampler`]: the plain bootstrap gives bagging and (with
//! `max_features = sqrt` trees) random forests; no resampling with random
//! trees gives Fan's RDT ensembles; the undersampling, SMOTE and
//! roughly-balanced samplers plug in the same way. A sample made only of
//! existing rows is fitted as a [`View`](crate::data::View) over the shared
//! dataset (and over the learner's [`Prepared`](crate::learn::Prepared)
//! state, e.g. presorted columns, made once); a sample with synthetic rows is
//! materialised first.
//!
//! Member `i` draws all its randomness (sample and learner) from
//! `rng::stream(seed, i)`, and members are trained in parallel with rayon and
//! collected in member order, so the fitted model is bit-identical for any
//! thread count. The [`BaggedModel`] keeps each member's class keep rates for
//! the calibration stage, and combines members by soft vote (average,
//! renormalised) or hard vote.

mod bagged;
mod onnx;
pub mod registry;
pub mod rus_boost;

use std::sync::Arc;

use rand::RngExt;
use rayon::prelude::*;

pub use bagged::{BaggedModel, Vote};

use crate::data::{Dataset, Proba, View};
use crate::error::{Error, Result};
use crate::learn::tree::{MaxFeatures, RandomTree, Tree};
use crate::learn::{Classifier, Learner, Model, Prepared};
use crate::params::{params, Bounds};
use crate::progress::Progress;
use crate::rng::{self, Rng};
use crate::sample::bootstrap::Bootstrap;
use crate::sample::no_resampling::NoResampling;
use crate::sample::Sampler;

params! {
    /// Bagging: `n` models, each fitted by `learner` on a sample drawn by
    /// `sample`, combined by `vote`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use rarity::data::Dataset;
    /// use rarity::ensemble::Bagging;
    /// use rarity::learn::{tree::Tree, Classifier};
    /// use rarity::sample::bootstrap::Bootstrap;
    /// let ds = Dataset::from_rows((0..40).map(|i| vec![(i % 10) as f64, (i / 10) as f64]).collect(),
    ///     (0..40).map(|i| (i % 10 >= 8) as u32).collect(), vec!["n".into(), "p".into()]).unwrap();
    /// let bag = Bagging::new(25, Arc::new(Tree::default()), Arc::new(Bootstrap::default()));
    /// let model = bag.fit_dataset(&ds, 7).unwrap();
    /// let p = model.predict_proba(&ds).unwrap();
    /// assert!(p.row(9)[1] > 0.5 && p.row(0)[1] < 0.5);
    /// ```
    #[derive(Debug, Clone)]
    pub struct Bagging {
        /// Number of members.
        pub n: usize = 100 => Bounds::at_least(1.0).each_taking(MEMBER_BYTES),
        /// The learner fitted on every sample.
        pub learner: Arc<dyn Learner> = Arc::new(Tree::default()),
        /// How each member's sample is drawn.
        pub sample: Arc<dyn Sampler> = Arc::new(Bootstrap::default()),
        /// How member probabilities are combined.
        pub vote: Vote = Vote::Soft,
    }
}

/// Out-of-bag probabilities: for each training row, the vote of the members
/// whose sample did not contain it.
#[derive(Debug, Clone, PartialEq)]
pub struct OutOfBag {
    /// `n x k` probabilities; a row that was in every member's sample gets
    /// the training class priors.
    pub proba: Proba,
    /// For each row, how many members voted on it.
    pub n_members: Vec<u32>,
}

/// Bytes each member takes before any is trained: its slot in the
/// collected results and in the fitted model's lists of members and keep
/// rates (a member count that cannot fit is refused when it is read).
pub(crate) const MEMBER_BYTES: usize = std::mem::size_of::<Result<Member>>()
    + std::mem::size_of::<Model>()
    + std::mem::size_of::<Vec<f64>>();

/// One trained member and what the engine remembers about its sample.
struct Member {
    model: Model,
    keep_rates: Vec<f64>,
    /// Bit set of the input rows in the member's sample (when asked for).
    in_bag: Vec<u64>,
}

impl Bagging {
    /// Bagging of `n` models, soft vote.
    pub fn new(n: usize, learner: Arc<dyn Learner>, sample: Arc<dyn Sampler>) -> Self {
        Bagging {
            n,
            learner,
            sample,
            vote: Vote::Soft,
        }
    }

    /// A random forest (Breiman 2001): bootstrap samples and unpruned Gini
    /// trees that consider `sqrt(d)` random features per split.
    pub fn forest(n_trees: usize) -> Self {
        let tree = Tree {
            max_features: MaxFeatures::Sqrt,
            ..Tree::default()
        };
        Bagging::new(n_trees, Arc::new(tree), Arc::new(Bootstrap::default()))
    }

    /// Fan's random decision trees: `n_trees` random trees, each on all the
    /// rows (Fan & Davidson 2006 use 10).
    pub fn rdt(n_trees: usize) -> Self {
        Bagging::new(
            n_trees,
            Arc::new(RandomTree::default()),
            Arc::new(NoResampling),
        )
    }

    /// Fits the ensemble on all of `data`; member `i` uses
    /// `rng::stream(seed, i)`.
    pub fn fit_dataset(&self, data: &Dataset, seed: u64) -> Result<BaggedModel> {
        let (model, _) = self.train(data, seed, false)?;
        Ok(model)
    }

    /// Fits the ensemble and also returns the out-of-bag probabilities of the
    /// training rows.
    pub fn fit_with_oob(&self, data: &Dataset, seed: u64) -> Result<(BaggedModel, OutOfBag)> {
        let (model, in_bag) = self.train(data, seed, true)?;
        let oob = out_of_bag(&model, &in_bag, data);
        Ok((model, oob))
    }

    fn train(
        &self,
        data: &Dataset,
        seed: u64,
        track: bool,
    ) -> Result<(BaggedModel, Vec<Vec<u64>>)> {
        if self.n == 0 {
            return Err(Error::invalid("the number of members n must be at least 1"));
        }
        // A member count set in code is checked as a parsed one is: refused,
        // saying what it would need, when the members cannot fit.
        crate::params::Params::check(self)?;
        data.require_two_classes()?;
        let prepared = self.learner.prepare(data)?;
        let progress = Progress::start("fitting ensemble members", self.n as u64);
        let results: Vec<Result<Member>> = (0..self.n)
            .into_par_iter()
            .map(|i| {
                let m = self.member(data, &prepared, rng::stream(seed, i as u64), track);
                progress.add(1);
                m
            })
            .collect();
        let mut models = Vec::with_capacity(self.n);
        let mut rates = Vec::with_capacity(self.n);
        let mut bags = Vec::new();
        for r in results {
            let m = r?;
            models.push(m.model);
            rates.push(m.keep_rates);
            if track {
                bags.push(m.in_bag);
            }
        }
        Ok((BaggedModel::new(models, rates, self.vote)?, bags))
    }

    fn member(
        &self,
        data: &Dataset,
        prepared: &Prepared,
        mut rng: Rng,
        track: bool,
    ) -> Result<Member> {
        crate::cancel::check()?;
        let sample = self.sample.resample(data, &mut rng)?;
        crate::cancel::check()?;
        let model = if sample.has_synthetic() {
            let ds = sample.materialise(data)?;
            let all: Vec<usize> = (0..ds.n_rows()).collect();
            self.learner.fit(&ds.view(&all), &mut rng)?
        } else {
            self.learner
                .fit_prepared(prepared, &data.view(&sample.rows), &mut rng)?
        };
        crate::cancel::check()?;
        let mut in_bag = Vec::new();
        if track {
            in_bag = vec![0u64; data.n_rows().div_ceil(64)];
            for &i in &sample.rows {
                in_bag[i / 64] |= 1 << (i % 64);
            }
        }
        // The prior shift to undo: none for a sampler that keeps the priors
        // (a bootstrap's counted rates are noise around 1; "correcting" each
        // member for its own noise would reorder rows and change the AUC).
        let mut keep_rates = if self.sample.keeps_priors() {
            vec![1.0; data.n_classes()]
        } else {
            sample.keep_rates
        };
        // A learner's class weights act as further keep rates (see
        // `Classifier::class_weights`).
        if let Some(w) = model.class_weights() {
            keep_rates.iter_mut().zip(w).for_each(|(r, w)| *r *= w);
        }
        Ok(Member {
            model,
            keep_rates,
            in_bag,
        })
    }
}

/// Out-of-bag vote: each row in parallel, its out-of-bag members in member
/// order (so the result does not depend on the thread count).
fn out_of_bag(model: &BaggedModel, in_bag: &[Vec<u64>], data: &Dataset) -> OutOfBag {
    let k = model.n_classes();
    let priors = data.priors();
    let mut proba = Proba::zeros(data.n_rows(), k);
    let n_members: Vec<u32> = proba
        .values_mut()
        .par_chunks_mut(k)
        .enumerate()
        .map(|(row, out)| {
            let mut tmp = vec![0.0; k];
            let mut used = 0u32;
            for (m, bag) in model.members().iter().zip(in_bag) {
                if bag[row / 64] >> (row % 64) & 1 == 0 {
                    m.predict_row(data.row(row), &mut tmp);
                    match model.vote() {
                        Vote::Soft => out.iter_mut().zip(&tmp).for_each(|(o, v)| *o += v),
                        Vote::Hard => {
                            let best = (1..k).fold(0, |b, c| if tmp[c] > tmp[b] { c } else { b });
                            out[best] += 1.0;
                        }
                    }
                    used += 1;
                }
            }
            let s: f64 = out.iter().sum();
            if used == 0 || s <= 0.0 {
                out.copy_from_slice(&priors);
            } else {
                out.iter_mut().for_each(|v| *v /= s);
            }
            used
        })
        .collect();
    OutOfBag { proba, n_members }
}

impl Learner for Bagging {
    /// Fits on the view's rows (copied into a new table unless the view is
    /// the whole dataset in order), with member streams keyed by a seed drawn
    /// from `rng`.
    fn fit(&self, data: &View<'_>, rng: &mut Rng) -> Result<Model> {
        let seed: u64 = rng.random();
        let ds = data.data();
        let whole =
            data.len() == ds.n_rows() && data.indices().iter().enumerate().all(|(i, &r)| i == r);
        let model = if whole {
            self.fit_dataset(ds, seed)?
        } else {
            self.fit_dataset(&ds.take(data.indices()), seed)?
        };
        Ok(Model::new(model))
    }

    /// As its members: bagged trees split categorical features natively.
    fn native_categorical(&self) -> bool {
        self.learner.native_categorical()
    }

    /// As its members: bagged trees take missing values where their
    /// learner does, when the members' sampler draws without measuring
    /// distances (`sample=smote` does not).
    fn handles_missing(&self) -> bool {
        self.learner.handles_missing() && self.sample.handles_missing()
    }

    /// As its members: an average (or a share of votes, each a threshold
    /// on a member's probability) of monotone members is monotone, and a
    /// member's prior correction is a non-decreasing map.
    fn monotone(&self) -> &[(String, i8)] {
        self.learner.monotone()
    }

    fn interaction(&self) -> &[Vec<String>] {
        self.learner.interaction()
    }

    fn name(&self) -> String {
        let vote = match self.vote {
            Vote::Soft => String::new(),
            Vote::Hard => ",vote=hard".into(),
        };
        format!(
            "bagging(n={},learner={},sample={}{vote})",
            self.n,
            self.learner.name(),
            self.sample.name()
        )
    }
}

#[cfg(test)]
mod tests;
