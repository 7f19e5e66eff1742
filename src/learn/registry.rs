//! The base learners a spec can name, with their parameters, and every kind
//! of fitted model they make. (Ensembles, which combine learners with
//! samplers, have their own table in `crate::ensemble::registry`.)
//!
//! Adding a learner: its own file under `learn/` (the parameter struct,
//! declared with `params!`, the `Learner` impl and the fitted type with its
//! `Classifier` impl), then its module line, one entry and one model kind
//! below.

use std::sync::Arc;

// Every base learner's module is declared here, beside its entry below, so
// that adding a learner touches its own file and this one; `learn` re-exports
// them (`crate::learn::tree`, ...).
#[path = "adaboost.rs"]
pub mod adaboost;
#[path = "discriminant.rs"]
pub mod discriminant;
#[path = "gbdt/mod.rs"]
pub mod gbdt;
#[path = "knn.rs"]
pub mod knn;
#[path = "logistic.rs"]
pub mod logistic;
#[path = "logitboost.rs"]
pub mod logitboost;
#[path = "naive_bayes.rs"]
pub mod naive_bayes;
#[path = "svdd.rs"]
pub mod svdd;
#[path = "svm/mod.rs"]
pub mod svm;
#[path = "tree/mod.rs"]
pub mod tree;

use self::adaboost::{AdaBoost, AdaC2, BoostModel};
use self::discriminant::{Lda, LdaModel, Qda, QdaModel};
use self::gbdt::{Gbdt, GbdtModel};
use self::knn::{Knn, KnnModel};
use self::logistic::{Logistic, LogisticModel};
use self::logitboost::{LogitBoost, LogitBoostModel};
use self::naive_bayes::{BinnedNb, BinnedNbModel, GaussianNb, GaussianNbModel};
use self::svdd::{Svdd, SvddModel};
use self::svm::{Svm, SvmModel};
use self::tree::{RandomTree, Tree, TreeModel};
use crate::learn::{Learner, ModelKind};
use crate::params::{from_call, Entry, Params};

/// The entry of learner `L`, whose parameters are its fields.
const fn learner<L: Learner + Params + Default + 'static>(
    name: &'static str,
    summary: &'static str,
) -> Entry<Arc<dyn Learner>> {
    Entry::of::<L>(name, summary, |c| Ok(Arc::new(from_call::<L>(c)?)))
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
    learner::<AdaC2>("adac2", "AdaC2 (Sun et al. 2007): cost-sensitive AdaBoost, two classes; default costs 1 (positive) and (N+/N-)^(1/n) (negative)"),
    learner::<LogitBoost>("logitboost", "LogitBoost (Friedman, Hastie & Tibshirani 2000) of regression stumps"),
    learner::<Svdd>("svdd", "support vector data description (Tax & Duin 2004): a one-class scorer of the normal class"),
    learner::<Gbdt>("gbdt", "histogram gradient-boosted trees (Friedman 2001; LightGBM's leaf-wise growth), log loss or softmax, class weights undone by +correct"),
];

/// The fitted models of the base learners, by the name model files use,
/// each with the learners that fit it (RUSBoost, an ensemble entry, boosts
/// trees as AdaBoost does).
pub const MODEL_KINDS: &[ModelKind] = &[
    ModelKind::of::<TreeModel>().made_by(&["tree", "random_tree"]),
    ModelKind::of::<LogisticModel>().made_by(&["logistic"]),
    ModelKind::of::<GaussianNbModel>().made_by(&["gnb"]),
    ModelKind::of::<BinnedNbModel>().made_by(&["nb-binned"]),
    ModelKind::of::<SvmModel>().made_by(&["svm"]),
    ModelKind::of::<LdaModel>().made_by(&["lda"]),
    ModelKind::of::<QdaModel>().made_by(&["qda"]),
    ModelKind::of::<KnnModel>().made_by(&["knn"]),
    ModelKind::of::<BoostModel>().made_by(&["adaboost", "adac2", "rus-boost"]),
    ModelKind::of::<LogitBoostModel>().made_by(&["logitboost"]),
    ModelKind::of::<SvddModel>().made_by(&["svdd"]),
    ModelKind::of::<GbdtModel>().made_by(&["gbdt"]),
];
