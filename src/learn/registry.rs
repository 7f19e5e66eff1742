//! The base learners a spec can name, with their parameters, and every kind
//! of fitted model they make. (Ensembles, which combine learners with
//! samplers, have their own table in `crate::ensemble::registry`.)
//!
//! Adding a learner: its own file under `learn/` (the parameter struct,
//! declared with `params!`, the `Learner` impl and the fitted type with its
//! `Classifier` impl), then one entry below and one model kind.

use std::sync::Arc;

use crate::learn::adaboost::{AdaBoost, AdaC2, BoostModel};
use crate::learn::discriminant::{Lda, LdaModel, Qda, QdaModel};
use crate::learn::gbdt::{Gbdt, GbdtModel};
use crate::learn::knn::{Knn, KnnModel};
use crate::learn::logistic::{Logistic, LogisticModel};
use crate::learn::logitboost::{LogitBoost, LogitBoostModel};
use crate::learn::naive_bayes::{BinnedNb, BinnedNbModel, GaussianNb, GaussianNbModel};
use crate::learn::svdd::{Svdd, SvddModel};
use crate::learn::svm::{Svm, SvmModel};
use crate::learn::tree::{RandomTree, Tree, TreeModel};
use crate::learn::{Learner, ModelKind};
use crate::params::{from_call, Call, Entry, ParamInfo, Params};

/// The entry of learner `L`, whose parameters are its fields.
const fn learner<L: Learner + Params + Default + 'static>(
    name: &'static str,
    summary: &'static str,
) -> Entry<Arc<dyn Learner>> {
    Entry {
        name,
        summary,
        params: table::<L>,
        build: build::<L>,
    }
}

fn table<L: Params + Default>() -> Vec<ParamInfo> {
    L::default().table()
}

fn build<L: Learner + Params + Default + 'static>(
    call: &Call,
) -> crate::error::Result<Arc<dyn Learner>> {
    Ok(Arc::new(from_call::<L>(call)?))
}

/// Every base learner a spec can name.
pub const LEARNERS: &[Entry<Arc<dyn Learner>>] = &[
    learner::<Tree>("tree", "probability decision tree: CART (gini), ID3 (entropy) or C4.5 (gain_ratio), unpruned by default"),
    learner::<RandomTree>("random_tree", "Fan's random decision tree (random feature and threshold per node)"),
    learner::<Logistic>("logistic", "L2-regularised logistic regression"),
    learner::<GaussianNb>("gnb", "Gaussian naive Bayes"),
    learner::<BinnedNb>("nb-binned", "naive Bayes on equal-width bins (Laplace-smoothed)"),
    learner::<Svm>("svm", "C-SVM (linear or RBF kernel) with Platt-scaled probabilities"),
    learner::<Lda>("lda", "linear discriminant analysis with given or estimated priors"),
    learner::<Qda>("qda", "quadratic discriminant analysis with covariance shrinkage"),
    learner::<Knn>("knn", "k nearest neighbours (exact search), uniform or distance votes"),
    learner::<AdaBoost>("adaboost", "AdaBoost.M1 / SAMME (Freund & Schapire 1997) of depth-limited trees"),
    learner::<AdaC2>("adac2", "AdaC2 (Sun et al. 2007): cost-sensitive AdaBoost, two classes"),
    learner::<LogitBoost>("logitboost", "LogitBoost (Friedman, Hastie & Tibshirani 2000) of regression stumps"),
    learner::<Svdd>("svdd", "support vector data description (Tax & Duin 2004): a one-class scorer of the normal class"),
    learner::<Gbdt>("gbdt", "histogram gradient-boosted trees (Friedman 2001; LightGBM's leaf-wise growth), log loss or softmax, class weights undone by +correct"),
];

/// The fitted models of the base learners, by the name model files use.
pub const MODEL_KINDS: &[ModelKind] = &[
    ModelKind::of::<TreeModel>("Tree"),
    ModelKind::of::<LogisticModel>("Logistic"),
    ModelKind::of::<GaussianNbModel>("GaussianNb"),
    ModelKind::of::<BinnedNbModel>("BinnedNb"),
    ModelKind::of::<SvmModel>("Svm"),
    ModelKind::of::<LdaModel>("Lda"),
    ModelKind::of::<QdaModel>("Qda"),
    ModelKind::of::<KnnModel>("Knn"),
    ModelKind::of::<BoostModel>("Boost"),
    ModelKind::of::<LogitBoostModel>("LogitBoost"),
    ModelKind::of::<SvddModel>("Svdd"),
    ModelKind::of::<GbdtModel>("Gbdt"),
];
