//! The learners: every base learner a spec can name, with its parameters,
//! and every kind of fitted model they make.

use crate::learn::adaboost::BoostModel;
use crate::learn::discriminant::{LdaModel, QdaModel};
use crate::learn::knn::KnnModel;
use crate::learn::logistic::LogisticModel;
use crate::learn::logitboost::LogitBoostModel;
use crate::learn::naive_bayes::{BinnedNbModel, GaussianNbModel};
use crate::learn::svdd::SvddModel;
use crate::learn::svm::SvmModel;
use crate::learn::tree::TreeModel;
use crate::learn::ModelKind;

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
];
