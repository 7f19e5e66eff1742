//! Fitted models: the [`Model`] enum.
//!
//! Every fitted model in rarity is one variant of [`Model`]. An enum (and not
//! `Box<dyn Trait>`) because models must serialise to a self-describing file
//! (see [`crate::persist`]) with plain `serde` derive, with no registry of
//! type tags, and because prediction then dispatches statically in the hot
//! loops of the ensembles. Ensembles hold `Vec<Model>`, so any model can be a
//! member, including another ensemble.
//!
//! Adding a learner means: one struct for its fitted form (in its own module
//! under `learn/`, `ensemble/`, `calibrate/`, ...), one variant here, and one
//! arm in each of the few methods below ([`Model::n_classes`],
//! [`Model::n_features`], [`Model::predict_row`], [`Model::validate`]).
//! Nothing else in the crate matches on the variants. This module sits above
//! the modules whose models it wraps; the learner contract in
//! [`crate::learn`] only names the type.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::data::{Dataset, Proba};
use crate::ensemble::BaggedModel;
use crate::error::{Error, Result};
use crate::learn::adaboost::BoostModel;
use crate::learn::discriminant::{LdaModel, QdaModel};
use crate::learn::knn::KnnModel;
use crate::learn::logistic::LogisticModel;
use crate::learn::logitboost::LogitBoostModel;
use crate::learn::naive_bayes::{BinnedNbModel, GaussianNbModel};
use crate::learn::svdd::SvddModel;
use crate::learn::svm::SvmModel;
use crate::learn::tree::TreeModel;

/// A fitted probabilistic classifier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Model {
    /// A decision tree (CART/C4.5-style or random), see [`TreeModel`].
    Tree(TreeModel),
    /// An ensemble of member models combined by vote, see [`BaggedModel`].
    Bagged(BaggedModel),
    /// Logistic regression, see [`LogisticModel`].
    Logistic(LogisticModel),
    /// Gaussian naive Bayes, see [`GaussianNbModel`].
    GaussianNb(GaussianNbModel),
    /// Binned naive Bayes, see [`BinnedNbModel`].
    BinnedNb(BinnedNbModel),
    /// Support vector machine, see [`SvmModel`].
    Svm(SvmModel),
    /// Linear discriminant analysis, see [`LdaModel`].
    Lda(LdaModel),
    /// Quadratic discriminant analysis, see [`QdaModel`].
    Qda(QdaModel),
    /// k nearest neighbours, see [`KnnModel`].
    Knn(KnnModel),
    /// AdaBoost.M1 / AdaC2, see [`BoostModel`].
    Boost(BoostModel),
    /// LogitBoost, see [`LogitBoostModel`].
    LogitBoost(LogitBoostModel),
    /// One-class SVDD outlier scorer, see [`SvddModel`].
    Svdd(SvddModel),
}

impl Model {
    /// Number of classes `k` of the training dataset.
    pub fn n_classes(&self) -> usize {
        match self {
            Model::Tree(m) => m.n_classes(),
            Model::Bagged(m) => m.n_classes(),
            Model::Logistic(m) => m.n_classes(),
            Model::GaussianNb(m) => m.n_classes(),
            Model::BinnedNb(m) => m.n_classes(),
            Model::Svm(m) => m.n_classes(),
            Model::Lda(m) => m.n_classes(),
            Model::Qda(m) => m.n_classes(),
            Model::Knn(m) => m.n_classes(),
            Model::Boost(m) => m.n_classes(),
            Model::LogitBoost(m) => m.n_classes(),
            Model::Svdd(m) => m.n_classes(),
        }
    }

    /// Number of features the model expects.
    pub fn n_features(&self) -> usize {
        match self {
            Model::Tree(m) => m.n_features(),
            Model::Bagged(m) => m.n_features(),
            Model::Logistic(m) => m.n_features(),
            Model::GaussianNb(m) => m.n_features(),
            Model::BinnedNb(m) => m.n_features(),
            Model::Svm(m) => m.n_features(),
            Model::Lda(m) => m.n_features(),
            Model::Qda(m) => m.n_features(),
            Model::Knn(m) => m.n_features(),
            Model::Boost(m) => m.n_features(),
            Model::LogitBoost(m) => m.n_features(),
            Model::Svdd(m) => m.n_features(),
        }
    }

    /// Writes the class probabilities of one row (`x.len() == n_features`)
    /// into `out` (`out.len() == n_classes`); they sum to 1.
    ///
    /// # Panics
    /// If the lengths are wrong (a programming error; [`Model::predict_proba`]
    /// checks user data).
    pub fn predict_row(&self, x: &[f64], out: &mut [f64]) {
        match self {
            Model::Tree(m) => out.copy_from_slice(m.leaf_proba(x)),
            Model::Bagged(m) => m.predict_row(x, out),
            Model::Logistic(m) => m.predict_row(x, out),
            Model::GaussianNb(m) => m.predict_row(x, out),
            Model::BinnedNb(m) => m.predict_row(x, out),
            Model::Svm(m) => m.predict_row(x, out),
            Model::Lda(m) => m.predict_row(x, out),
            Model::Qda(m) => m.predict_row(x, out),
            Model::Knn(m) => m.predict_row(x, out),
            Model::Boost(m) => m.predict_row(x, out),
            Model::LogitBoost(m) => m.predict_row(x, out),
            Model::Svdd(m) => m.predict_row(x, out),
        }
    }

    /// Class probabilities for every row of `data` (`n x k`, rows sum to 1),
    /// computed in parallel over rows.
    ///
    /// Fails if `data` has a different number of features than the training
    /// data.
    pub fn predict_proba(&self, data: &Dataset) -> Result<Proba> {
        match self {
            Model::Bagged(m) => return m.predict_proba(data),
            Model::Knn(m) => return m.predict_proba(data),
            _ => {}
        }
        self.check_features(data)?;
        let k = self.n_classes();
        let mut p = Proba::zeros(data.n_rows(), k);
        p.values_mut()
            .par_chunks_mut(k * ROW_CHUNK)
            .enumerate()
            .for_each(|(c, chunk)| {
                let first = c * ROW_CHUNK;
                let d = data.n_features();
                let x = &data.features()[first * d..(first + chunk.len() / k) * d];
                // The learners whose prediction costs most score blocks of rows.
                match self {
                    Model::Qda(m) => m.predict_rows(x, chunk),
                    Model::Svm(m) => m.predict_rows(x, chunk),
                    Model::Svdd(m) => m.predict_rows(x, chunk),
                    _ => {
                        for (j, out) in chunk.chunks_mut(k).enumerate() {
                            self.predict_row(data.row(first + j), out);
                        }
                    }
                }
            });
        Ok(p)
    }

    /// Fails with a clear message unless `data` has the model's feature count.
    pub fn check_features(&self, data: &Dataset) -> Result<()> {
        if data.n_features() != self.n_features() {
            return Err(Error::data(format!(
                "the model was trained on {} features but the data has {}",
                self.n_features(),
                data.n_features()
            )));
        }
        Ok(())
    }

    /// Checks the internal consistency of a model (child indices, feature
    /// indices, shapes), e.g. after loading it from a file. Returns what is
    /// wrong.
    pub fn validate(&self) -> std::result::Result<(), String> {
        match self {
            Model::Tree(m) => m.validate(),
            Model::Bagged(m) => m.validate(),
            Model::Logistic(m) => m.validate(),
            Model::GaussianNb(m) => m.validate(),
            Model::BinnedNb(m) => m.validate(),
            Model::Svm(m) => m.validate(),
            Model::Lda(m) => m.validate(),
            Model::Qda(m) => m.validate(),
            Model::Knn(m) => m.validate(),
            Model::Boost(m) => m.validate(),
            Model::LogitBoost(m) => m.validate(),
            Model::Svdd(m) => m.validate(),
        }
    }
}

/// Rows per parallel task in prediction.
pub(crate) const ROW_CHUNK: usize = 256;
