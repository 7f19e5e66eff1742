//! Base learners and the learner contract.
//!
//! A [`Learner`] holds hyper-parameters and fits a [`Model`] on a [`View`] of a
//! [`Dataset`] (borrowed rows, repeats allowed: a bootstrap bag is a view with
//! repeated indices, each repeat counting as one more copy of the row; per-row
//! weights come from [`View::weight`]). A fitted [`Model`] returns an `n x k`
//! probability matrix whose `k` is the training dataset's class count, even
//! when a class is absent from the rows it was fitted on.
//!
//! Learners know nothing about samplers (see `/work/shared/DESIGN.md`): the
//! bagging engine in [`crate::ensemble`] draws samples and hands learners
//! views. To let hundreds of fits on views of one dataset share expensive
//! per-dataset work (the tree learners' presorted columns), a learner may
//! compute a [`Prepared`] value once with [`Learner::prepare`] and receive it
//! back in every [`Learner::fit_prepared`] call.
//!
//! Every learner returns its own fitted type, which implements
//! [`Classifier`], wrapped in a [`Model`] (see [`fitted`]). A fitted type
//! whose output is a sum of trees or of coefficients writes it as an
//! additive form ([`Classifier::additive`]), from which [`shap`] computes
//! its exact per-row contributions.
//!
//! The learners, with their model-spec names ([`crate::spec`]):
//!
//! | spec | learner | module |
//! |---|---|---|
//! | `tree`, `random_tree` | decision trees | [`tree`] |
//! | `logistic(c, class_weight, tol, max_iter, signs)` | L2 logistic regression | [`logistic`] |
//! | `gnb(var_smoothing)` | Gaussian naive Bayes | [`naive_bayes`] |
//! | `nb-binned(bins)` | equal-width binned naive Bayes | [`naive_bayes`] |
//! | `knn(k, weights)` | k nearest neighbours | [`knn`] |
//! | `svm(kernel, c, gamma, class_weight, tol, cache_mb, folds)` | C-SVM + Platt | [`svm`] |
//! | `lda(priors)`, `qda(priors, reg)` | discriminant analysis | [`discriminant`] |
//! | `adaboost(n, depth)`, `adac2(n, depth, cost_pos, cost_neg)` | AdaBoost.M1 / AdaC2 | [`adaboost`] |
//! | `logitboost(n)` | LogitBoost with stumps | [`logitboost`] |
//! | `gbdt(rounds, learning_rate, max_leaves, ...)` | histogram gradient boosting | [`gbdt`] |
//! | `svdd(nu, kernel, gamma, normal, tol, cache_mb)` | one-class SVDD | [`svdd`] |
//!
//! Each fits on a view (repeats count as copies, row weights honoured; rows
//! of weight 0 are ignored) and predicts `n x k` probabilities over all the
//! training dataset's classes, 0 for classes absent from the fitted rows.

pub mod constraints;
mod fitted;
mod importance;
mod lbfgs;
pub(crate) mod linalg;
pub mod registry;
mod rows;
pub mod shap;

pub(crate) use fitted::shape;
pub use fitted::{
    check_features, in_blocks_of, in_row_blocks, Classifier, ClassifierBox, Kind, LeafMap,
    MemberHook, Model, ModelKind, Nesting, MAX_ENSEMBLE_NESTING, ROW_CHUNK,
};
pub use importance::Importances;
pub use registry::*;
pub use rows::ClassWeight;

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use crate::data::{Dataset, View};
use crate::error::Result;
use crate::rng::Rng;

/// Per-dataset state a learner computes once (e.g. presorted feature
/// columns) and reuses for every fit on a view of that dataset.
///
/// Opaque to everyone but the learner that made it; [`Prepared::none`] means
/// "nothing prepared", and every learner must accept it.
#[derive(Clone, Default)]
pub struct Prepared(Option<Arc<dyn Any + Send + Sync>>);

impl Prepared {
    /// Nothing prepared.
    pub fn none() -> Self {
        Prepared(None)
    }

    /// Wraps a learner's prepared state.
    pub fn new<T: Any + Send + Sync>(value: T) -> Self {
        Prepared(Some(Arc::new(value)))
    }

    /// The prepared state, if there is one of type `T`.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.0.as_deref().and_then(|v| v.downcast_ref::<T>())
    }
}

impl fmt::Debug for Prepared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "Prepared(..)"
        } else {
            "Prepared(none)"
        })
    }
}

/// A way of fitting a probabilistic classifier.
///
/// ```
/// use rarity::data::Dataset;
/// use rarity::learn::{Learner, tree::Tree};
/// let ds = Dataset::from_rows(vec![vec![0.0], vec![1.0], vec![2.0], vec![3.0]],
///                             vec![0, 0, 1, 1], vec!["n".into(), "p".into()]).unwrap();
/// let rows: Vec<usize> = (0..4).collect();
/// let model = Tree::default().fit(&ds.view(&rows), &mut rarity::rng::stream(1, 0)).unwrap();
/// let p = model.predict_proba(&ds).unwrap();
/// assert_eq!(p.column(1), vec![0.0, 0.0, 1.0, 1.0]);
/// ```
pub trait Learner: Send + Sync + fmt::Debug {
    /// Fits a model on the rows of `data` (repeats count as copies; row
    /// weights are honoured), drawing any randomness from `rng`.
    fn fit(&self, data: &View<'_>, rng: &mut Rng) -> Result<Model>;

    /// Computes per-dataset state shared by many fits on views of `data`.
    /// The default prepares nothing.
    fn prepare(&self, _data: &Dataset) -> Result<Prepared> {
        Ok(Prepared::none())
    }

    /// Fits on a view of the dataset `prepared` was made from (by
    /// [`Learner::prepare`]). The default ignores `prepared`.
    fn fit_prepared(&self, _prepared: &Prepared, data: &View<'_>, rng: &mut Rng) -> Result<Model> {
        self.fit(data, rng)
    }

    /// A short name with the hyper-parameters, for reports
    /// (e.g. `tree(criterion=gini)`).
    fn name(&self) -> String;

    /// Whether the learner splits categorical features (level codes, see
    /// [`ColumnEncoding::Categorical`](crate::data::ColumnEncoding)) as sets
    /// of levels. A learner that does not is never given such features: the
    /// strategy refuses them, or encodes them first.
    fn native_categorical(&self) -> bool {
        false
    }

    /// Whether the learner takes missing values (NaN features) as they are,
    /// learning where they go (a default direction at each split). A learner
    /// that does not is never given them: the strategy asks for an
    /// `impute(...)` stage first, or refuses the table before any work.
    fn handles_missing(&self) -> bool {
        false
    }

    /// Whether the fitted model's probabilities are calibrated estimates of
    /// the class posteriors of the rows it was fitted on, as they come out:
    /// true for a probability model fitted by maximum likelihood without
    /// reweighting the classes (logistic regression without class weights)
    /// and for outputs mapped by a calibrator fitted on held-out scores (the
    /// SVM's Platt scaling on internal cross-validation). False by default:
    /// trees (pure leaves give 0/1), forests and bagging (votes), naive
    /// Bayes, boosting (margins through a link), kNN and SVDD.
    fn calibrated(&self) -> bool {
        false
    }

    /// The columns in which the fitted model's probability of the positive
    /// class is constrained monotone, with their directions (`gbdt`'s and the
    /// trees' `monotone=`, `logistic`'s `signs=`; an ensemble's as its
    /// members'). The strategy keeps the guarantee through its later stages
    /// (every one is a non-decreasing map of that probability, a fitted
    /// Platt slope is checked) and refuses, before fitting, a stage that
    /// would break it. Empty by default: no constraint.
    fn monotone(&self) -> &[(String, i8)] {
        &[]
    }

    /// The groups of source columns a branch may combine (`gbdt`'s
    /// `interaction=`), checked against the table's columns before any
    /// fitting. Empty by default: no constraint.
    fn interaction(&self) -> &[Vec<String>] {
        &[]
    }
}
