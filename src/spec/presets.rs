//! The papers' named ensembles, as learners a spec can name, each with the
//! paper's defaults and its own default decision.
//!
//! - `pt-bagging(n=100)`: PT-bagging (Collell, Prelec & Patil 2018,
//!   Algorithm 1): bagging of unpruned probability trees (leaf frequencies,
//!   no Laplace smoothing) on plain bootstrap samples of the natural class
//!   distribution; the threshold is chosen after training: by default
//!   `threshold(priors)` (PT_MA; multiclass: argmax of `p_k / pi_k`), or
//!   `+threshold(f1)` (PT_F1, `tau = (pi+ + 0.5) / 2`).
//! - `eb-bagging`, `rb-bagging`, `smote-bagging`, `underover-bagging(a=50)`:
//!   the rebalancing competitors of Collell et al. Sec. 2.4 and 5 (exactly
//!   balanced; roughly balanced, Hido et al. 2009; SMOTE 500% of the minority
//!   with 120% undersampling, a balanced hybrid; UnderOver, Wang & Yao 2009),
//!   100 unpruned trees, decided at 0.5 as in the paper (argmax for more than
//!   two classes). Any of them takes `+correct` (Dal Pozzolo et al. 2015,
//!   eq. 9, per member with its own keep rates) and any decision.
//! - `under-bagging(beta=..)`: UnderBagging at any rate beta (default: the
//!   balanced `ratio=1`), the variance remedy Dal Pozzolo et al. point to;
//!   pair with `+correct`.
//! - `balanced-forest`: a random forest (sqrt features) whose trees are
//!   grown on balanced bootstraps, `n+` rows drawn with replacement from
//!   every class (the lecture's "random forests for the bootstrap sample
//!   with balanced classes"; the minority is bootstrapped too).
//! - `easy-ensemble(n=10, rounds=50)`: EasyEnsemble (Liu, Wu & Zhou 2009):
//!   AdaBoost of stumps on `n` exactly balanced subsets, averaged.
//! - `rus-boost(n=50)`: RUSBoost (Seiffert et al. 2010): AdaBoost.M1 whose
//!   every round is fitted on a balanced random undersample.
//!
//! A preset is a plain learner (see [`super::learner_from_call`]); its
//! default decision applies when the spec names none.

use std::sync::Arc;

use super::{tree_from, vote, Args, Call, TREE_ARGS};
use crate::ensemble::Bagging;
use crate::error::{Error, Result};
use crate::learn::adaboost::{AdaBoost, Variant};
use crate::learn::tree::{MaxFeatures, Tree};
use crate::learn::Learner;
use crate::params::{apply, Params};
use crate::sample::bootstrap::Bootstrap;
use crate::sample::{
    BalancedBootstrap, ExactlyBalanced, RandomUnder, RoughlyBalanced, Sampler, SmoteHybrid,
    UnderOver,
};
use crate::strategy::Decision;

/// The named ensembles, with a one-line description each.
pub const ENSEMBLES: &[(&str, &str)] = &[
    ("pt-bagging", "PT-bagging: n (100) unpruned trees on plain bootstraps; decides by threshold(priors) (PT_MA) unless told otherwise, e.g. +threshold(f1)"),
    ("eb-bagging", "exactly balanced bagging: n (100) trees, each on every minority row + as many of each other class; threshold 0.5"),
    ("rb-bagging", "roughly balanced bagging (Hido et al.): n (100) trees, minority bootstrap + NB(n+, 1/2) majority rows; threshold 0.5"),
    ("smote-bagging", "SMOTE-bagging: n (100) trees, each on SMOTE amount (500) % of the minority + under (120) % undersampling; threshold 0.5"),
    ("underover-bagging", "UnderOver-bagging (Wang & Yao): n (100) trees, every class bootstrapped to a (50) % of the largest; threshold 0.5 / argmax"),
    ("under-bagging", "UnderBagging: n (100) trees, the majority undersampled at rate beta (default ratio=1, balanced); pair with +correct"),
    ("balanced-forest", "balanced random forest: n (100) sqrt-feature trees, each on n+ rows drawn with replacement from every class; threshold 0.5"),
    ("easy-ensemble", "EasyEnsemble: n (10) AdaBoost ensembles of rounds (50) stumps, each on an exactly balanced subset; threshold 0.5"),
    ("rus-boost", "RUSBoost: AdaBoost.M1 with n (50) rounds of depth (1) trees, each round on a balanced random undersample; threshold 0.5"),
];

/// Whether `name` is a named ensemble.
pub fn is_ensemble(name: &str) -> bool {
    ENSEMBLES.iter().any(|(n, _)| *n == name)
}

/// The decision a named ensemble uses when the spec gives none: PT_MA for
/// `pt-bagging`, 0.5 (argmax beyond two classes) for the others, argmax for
/// any other learner.
///
/// ```
/// use rarity::spec::presets::default_decision;
/// use rarity::strategy::Decision;
/// assert_eq!(default_decision("pt-bagging"), Decision::Priors);
/// assert_eq!(default_decision("eb-bagging"), Decision::Half);
/// assert_eq!(default_decision("tree"), Decision::Argmax);
/// ```
pub fn default_decision(name: &str) -> Decision {
    match name {
        "pt-bagging" => Decision::Priors,
        n if is_ensemble(n) => Decision::Half,
        _ => Decision::Argmax,
    }
}

/// Bagging of unpruned trees (or `max_features=sqrt` trees for a forest)
/// on samples drawn by `sampler`; `extra` are the preset's own keys.
fn tree_bagging(
    c: &Call,
    extra: &[&str],
    forest: bool,
    sampler: Arc<dyn Sampler>,
) -> Result<Bagging> {
    let mut accepted = vec!["n", "vote"];
    accepted.extend_from_slice(extra);
    accepted.extend_from_slice(TREE_ARGS);
    let a = Args::new(c, &accepted)?;
    let base = if forest {
        Tree {
            max_features: MaxFeatures::Sqrt,
            ..Tree::default()
        }
    } else {
        Tree::default()
    };
    let mut b = Bagging::new(
        a.count("n", 1)?.unwrap_or(100),
        Arc::new(tree_from(&a, base)?),
        sampler,
    );
    b.vote = vote(&a)?;
    Ok(b)
}

/// The sampler `S` (called `name` in a spec) with the preset's own
/// arguments `keys` of `c` (e.g. `smote-bagging`'s `amount`, `under` and `k`
/// for its hybrid), the others left at `S`'s defaults; errors are prefixed
/// with the preset's call.
fn sampler<S: Sampler + Params + Default + 'static>(
    c: &Call,
    name: &str,
    keys: &[&str],
) -> Result<Arc<dyn Sampler>> {
    let own = Call {
        name: name.to_string(),
        args: c
            .args
            .iter()
            .filter(|(k, _)| k.as_deref().is_some_and(|k| keys.contains(&k)))
            .cloned()
            .collect(),
    };
    let s: S = apply(&own, S::default()).map_err(|e| Error::invalid(format!("{c}: {e}")))?;
    Ok(Arc::new(s))
}

/// Builds a named ensemble; `None` when `c` names none.
pub(super) fn ensemble_from_call(c: &Call) -> Option<Result<Arc<dyn Learner>>> {
    is_ensemble(&c.name).then(|| build(c))
}

fn build(c: &Call) -> Result<Arc<dyn Learner>> {
    let bagged = match c.name.as_str() {
        "pt-bagging" => tree_bagging(c, &[], false, Arc::new(Bootstrap::default()))?,
        "eb-bagging" => tree_bagging(c, &[], false, Arc::new(ExactlyBalanced))?,
        "rb-bagging" => tree_bagging(c, &[], false, Arc::new(RoughlyBalanced))?,
        "smote-bagging" => {
            let keys = ["amount", "under", "k"];
            tree_bagging(c, &keys, false, sampler::<SmoteHybrid>(c, "hybrid", &keys)?)?
        }
        "underover-bagging" => tree_bagging(
            c,
            &["a"],
            false,
            sampler::<UnderOver>(c, "underover", &["a"])?,
        )?,
        "under-bagging" => {
            let keys = ["beta", "ratio"];
            tree_bagging(c, &keys, false, sampler::<RandomUnder>(c, "under", &keys)?)?
        }
        "balanced-forest" => tree_bagging(c, &[], true, Arc::new(BalancedBootstrap))?,
        "easy-ensemble" => {
            let a = Args::new(c, &["n", "rounds", "depth", "vote"])?;
            let boost = AdaBoost {
                n: a.count("rounds", 1)?.unwrap_or(50),
                depth: a.count("depth", 1)?.unwrap_or(1),
                variant: Variant::M1,
                undersample: false,
            };
            let mut b = Bagging::new(
                a.count("n", 1)?.unwrap_or(10),
                Arc::new(boost),
                Arc::new(ExactlyBalanced),
            );
            b.vote = vote(&a)?;
            b
        }
        "rus-boost" => {
            let a = Args::new(c, &["n", "depth"])?;
            return Ok(Arc::new(AdaBoost {
                n: a.count("n", 1)?.unwrap_or(50),
                depth: a.count("depth", 1)?.unwrap_or(1),
                variant: Variant::M1,
                undersample: true,
            }));
        }
        other => return Err(Error::invalid(format!("'{other}' is not a named ensemble"))),
    };
    Ok(Arc::new(bagged))
}
