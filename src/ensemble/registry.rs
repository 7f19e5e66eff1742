//! The ensembles a spec can name, with their parameters: the bagging engine
//! (`bagging`, `forest`, `rdt`) and the papers' named methods with their
//! defaults and default decisions (PT-bagging, EB-, RB-, SMOTE-,
//! UnderOver- and under-bagging, balanced forests, EasyEnsemble, RUSBoost),
//! and the kind of fitted model they make.
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
//! - `rus-boost(n=50)`: RUSBoost (Seiffert et al. 2010), see
//!   [`super::rus_boost`].

use std::sync::Arc;

use crate::decide::{Decision, Rule};
use crate::ensemble::rus_boost::RusBoost;
use crate::ensemble::{BaggedModel, Bagging, Vote};
use crate::error::Result;
use crate::learn::adaboost::AdaBoost;
use crate::learn::registry::LEARNERS;
use crate::learn::tree::{MaxFeatures, RandomTree, Tree};
use crate::learn::{Learner, ModelKind, Nesting};
use crate::params::{
    apply, from_call, params, unknown, Bounds, Call, Entry, Family, Merged, ParamInfo, Params,
};
use crate::sample::bootstrap::Bootstrap;
use crate::sample::no_resampling::NoResampling;
use crate::sample::{
    BalancedBootstrap, ExactlyBalanced, RandomUnder, RoughlyBalanced, Sampler, SmoteHybrid,
    UnderOver,
};

/// The fitted ensembles, by the name model files use, with the ensembles
/// that fit them (every entry of [`ENSEMBLES`] but `rus-boost`, whose
/// model is a boosting model).
pub const MODEL_KINDS: &[ModelKind] = &[ModelKind::of::<BaggedModel>().made_by(&[
    "forest",
    "bagging",
    "rdt",
    "pt-bagging",
    "eb-bagging",
    "rb-bagging",
    "smote-bagging",
    "underover-bagging",
    "under-bagging",
    "balanced-forest",
    "easy-ensemble",
])];

params! {
    /// The member count and vote of an ensemble.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Members {
        /// Number of members.
        pub n: usize = 100 => Bounds::at_least(1.0).each_taking(super::MEMBER_BYTES),
        /// How member probabilities are combined.
        pub vote: Vote = Vote::Soft,
    }
}

params! {
    /// A forest's sampler.
    #[derive(Debug, Clone)]
    pub struct ForestSample {
        /// How each tree's sample is drawn.
        pub sample: Arc<dyn Sampler> = Arc::new(Bootstrap::default()),
    }
}

params! {
    /// EasyEnsemble's boosting.
    #[derive(Debug, Clone, PartialEq)]
    pub struct EasyRounds {
        /// AdaBoost rounds per subset.
        pub rounds: usize = 50 => Bounds::at_least(1.0),
        /// Depth of each round's tree.
        pub depth: usize = 1 => Bounds::at_least(1.0),
    }
}

fn members(n: usize) -> Members {
    Members {
        n,
        vote: Vote::Soft,
    }
}

fn sqrt_tree() -> Tree {
    Tree {
        max_features: MaxFeatures::Sqrt,
        ..Tree::default()
    }
}

/// Bagging of trees (`forest`: sqrt features) on `sample`'s samples, with
/// the call's member count, vote and tree parameters.
fn tree_bagging(m: Merged<Members, Tree>, sample: Arc<dyn Sampler>) -> Arc<dyn Learner> {
    let Merged(members, tree) = m;
    Arc::new(Bagging {
        n: members.n,
        learner: Arc::new(tree),
        sample,
        vote: members.vote,
    })
}

fn plain_trees() -> Merged<Members, Tree> {
    Merged(members(100), Tree::default())
}

/// Table of a parameter type starting from `initial`.
fn table<P: Params>(initial: P) -> Vec<ParamInfo> {
    initial.table()
}

/// An ensemble a spec can name: its registry entry and the decision it
/// uses when the spec gives none (the papers' named methods decide at 0.5,
/// or by PT_MA for PT-bagging; the generic engines by argmax).
pub struct Ensemble {
    /// The name, summary, parameters and builder.
    pub entry: Entry<Arc<dyn Learner>>,
    /// The default decision.
    pub decision: Decision,
}

/// Every ensemble a spec can name.
pub const ENSEMBLES: &[Ensemble] = &[
    Ensemble {
        decision: Decision::Rule(Rule::Argmax),
        entry: Entry {
        name: "forest",
        python: Some("RandomForest"),
        summary: "random forest (Breiman 2001): n trees with sqrt(d) features per split on bootstrap samples",
        params: || table(Merged(Merged(members(100), ForestSample::default()), sqrt_tree())),
        build: |c| {
            let Merged(Merged(m, s), tree) =
                apply(c, Merged(Merged(members(100), ForestSample::default()), sqrt_tree()))?;
            Ok(Arc::new(Bagging {
                n: m.n,
                learner: Arc::new(tree),
                sample: s.sample,
                vote: m.vote,
            }))
        },
    },
    },
    Ensemble {
        decision: Decision::Rule(Rule::Argmax),
        entry: Entry {
        name: "bagging",
        python: None,
        summary: "bagging (Breiman 1996): n members of any learner, each on its own sample of any sampler",
        params: || Bagging::default().table(),
        build: |c| Ok(Arc::new(from_call::<Bagging>(c)?)),
    },
    },
    Ensemble {
        decision: Decision::Rule(Rule::Argmax),
        entry: Entry {
        name: "rdt",
        python: Some("RandomDecisionTrees"),
        summary: "Fan's random decision trees: n random trees, each on all rows",
        params: || table(Merged(members(10), RandomTree::default())),
        build: |c| {
            let Merged(m, tree) = apply(c, Merged(members(10), RandomTree::default()))?;
            Ok(Arc::new(Bagging {
                n: m.n,
                learner: Arc::new(tree),
                sample: Arc::new(NoResampling),
                vote: m.vote,
            }))
        },
    },
    },
    Ensemble {
        decision: Decision::Priors,
        entry: Entry {
        name: "pt-bagging",
        python: None,
        summary: "PT-bagging: n (100) unpruned trees on plain bootstraps; decides by threshold(priors) (PT_MA) unless told otherwise, e.g. +threshold(f1)",
        params: || table(plain_trees()),
        build: |c| Ok(tree_bagging(apply(c, plain_trees())?, Arc::new(Bootstrap::default()))),
    },
    },
    Ensemble {
        decision: Decision::Half,
        entry: Entry {
        name: "eb-bagging",
        python: None,
        summary: "exactly balanced bagging: n (100) trees, each on every minority row + as many of each other class; threshold 0.5",
        params: || table(plain_trees()),
        build: |c| Ok(tree_bagging(apply(c, plain_trees())?, Arc::new(ExactlyBalanced))),
    },
    },
    Ensemble {
        decision: Decision::Half,
        entry: Entry {
        name: "rb-bagging",
        python: None,
        summary: "roughly balanced bagging (Hido et al.): n (100) trees, minority bootstrap + NB(n+, 1/2) majority rows; threshold 0.5",
        params: || table(plain_trees()),
        build: |c| Ok(tree_bagging(apply(c, plain_trees())?, Arc::new(RoughlyBalanced))),
    },
    },
    Ensemble {
        decision: Decision::Half,
        entry: Entry {
        name: "smote-bagging",
        python: None,
        summary: "SMOTE-bagging: n (100) trees, each on SMOTE amount (500) % of the minority + under (120) % undersampling; threshold 0.5",
        params: || table(Merged(plain_trees(), SmoteHybrid::default())),
        build: |c| {
            let Merged(m, hybrid) = apply(c, Merged(plain_trees(), SmoteHybrid::default()))?;
            Ok(tree_bagging(m, Arc::new(hybrid)))
        },
    },
    },
    Ensemble {
        decision: Decision::Half,
        entry: Entry {
        name: "underover-bagging",
        python: Some("UnderOverBagging"),
        summary: "UnderOver-bagging (Wang & Yao): n (100) trees, every class bootstrapped to a (50) % of the largest; threshold 0.5 / argmax",
        params: || table(Merged(plain_trees(), UnderOver::default())),
        build: |c| {
            let Merged(m, under_over) = apply(c, Merged(plain_trees(), UnderOver::default()))?;
            Ok(tree_bagging(m, Arc::new(under_over)))
        },
    },
    },
    Ensemble {
        decision: Decision::Half,
        entry: Entry {
        name: "under-bagging",
        python: None,
        summary: "UnderBagging: n (100) trees, the majority undersampled at rate beta (default ratio=1, balanced); pair with +correct",
        params: || table(Merged(plain_trees(), RandomUnder::default())),
        build: |c| {
            let Merged(m, mut under) = apply(c, Merged(plain_trees(), RandomUnder::default()))
                .map_err(|e| crate::error::Error::invalid(format!("{c}: {e}")))?;
            if under.beta.is_none() && under.rates.is_none() && under.ratio.is_none() {
                under.ratio = Some(1.0);
            }
            Ok(tree_bagging(m, Arc::new(under)))
        },
    },
    },
    Ensemble {
        decision: Decision::Half,
        entry: Entry {
        name: "balanced-forest",
        python: None,
        summary: "balanced random forest: n (100) sqrt-feature trees, each on n+ rows drawn with replacement from every class; threshold 0.5",
        params: || table(Merged(members(100), sqrt_tree())),
        build: |c| {
            let m = apply(c, Merged(members(100), sqrt_tree()))?;
            Ok(tree_bagging(m, Arc::new(BalancedBootstrap)))
        },
    },
    },
    Ensemble {
        decision: Decision::Half,
        entry: Entry {
        name: "easy-ensemble",
        python: None,
        summary: "EasyEnsemble: n (10) AdaBoost ensembles of rounds (50) stumps, each on an exactly balanced subset; threshold 0.5",
        params: || table(Merged(members(10), EasyRounds::default())),
        build: |c| {
            let Merged(m, r) = apply(c, Merged(members(10), EasyRounds::default()))?;
            Ok(Arc::new(Bagging {
                n: m.n,
                learner: Arc::new(AdaBoost {
                    n: r.rounds,
                    depth: r.depth,
                }),
                sample: Arc::new(ExactlyBalanced),
                vote: m.vote,
            }))
        },
    },
    },
    Ensemble {
        decision: Decision::Half,
        entry: Entry {
        name: "rus-boost",
        python: None,
        summary: "RUSBoost: AdaBoost.M1 with n (50) rounds of depth (1) trees, each round on a balanced random undersample; threshold 0.5",
        params: || RusBoost::default().table(),
        build: |c| Ok(Arc::new(from_call::<RusBoost>(c)?)),
    },
    },
];

/// The decision a learner uses when the spec gives none: its ensemble
/// entry's ([`Ensemble::decision`]: PT_MA for `pt-bagging`, 0.5 (argmax
/// beyond two classes) for the papers' other named ensembles), argmax for
/// any other learner.
///
/// ```
/// use rarity::ensemble::registry::default_decision;
/// use rarity::decide::{Decision, Rule};
/// assert_eq!(default_decision("pt-bagging"), Decision::Priors);
/// assert_eq!(default_decision("eb-bagging"), Decision::Half);
/// assert_eq!(default_decision("tree"), Decision::Rule(Rule::Argmax));
/// ```
pub fn default_decision(name: &str) -> Decision {
    ENSEMBLES
        .iter()
        .find(|e| e.entry.name == name)
        .map_or(Decision::Rule(Rule::Argmax), |e| e.decision.clone())
}

/// Every learner a spec can name: the base learners, then the ensembles.
pub fn all_learners() -> impl Iterator<Item = &'static Entry<Arc<dyn Learner>>> + Clone {
    LEARNERS.iter().chain(ENSEMBLES.iter().map(|e| &e.entry))
}

/// The learner (base or ensemble) a call names. Ensembles nested deeper
/// than [`crate::learn::MAX_ENSEMBLE_NESTING`] are refused (their model could be neither
/// written nor read).
pub fn build_learner(call: &Call) -> Result<Arc<dyn Learner>> {
    let _level =
        match ENSEMBLES.iter().any(|e| e.entry.name == call.name) {
            true => Some(Nesting::ensemble().map_err(|e| {
                crate::error::Error::invalid(format!("learner '{}': {e}", call.name))
            })?),
            false => None,
        };
    let entry = all_learners()
        .find(|e| e.name == call.name)
        .ok_or_else(|| unknown("learner", &call.name, all_learners().map(|e| e.name)))?;
    (entry.build)(call)
}

/// Learners as parameters (`bagging(learner=tree(max_depth=3))`).
impl Family for dyn Learner {
    fn expected() -> String {
        "a learner such as tree or logistic(c=0.5)".into()
    }
    fn build(call: &Call) -> Result<Arc<Self>> {
        build_learner(call)
    }
    fn spec_text(&self) -> String {
        self.name()
    }
}
