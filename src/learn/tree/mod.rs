//! Probability decision trees.
//!
//! - [`Tree`]: a CART-style binary tree on numeric features, grown unpruned by
//!   default (until a node is pure or has no valid split), with the Gini
//!   criterion (Breiman et al. 1984), entropy / information gain, or C4.5's
//!   gain ratio (Quinlan 1993); `max_depth`, `min_samples_split`,
//!   `min_samples_leaf`, `max_features` and per-row weights as in
//!   scikit-learn's `DecisionTreeClassifier`. Leaves hold weighted class
//!   totals; the probability is their raw frequency by default (the
//!   PT-bagging paper, Collell et al. 2018, uses unpruned C4.5 trees without
//!   Laplace smoothing, which hurts under imbalance), with Laplace and
//!   m-estimate smoothing as options ([`LeafEstimate`]).
//! - [`RandomTree`]: Fan's random decision tree (feature and threshold drawn
//!   at random; see [`random`](self::random) for the details).
//!
//! Random forests (Breiman 2001) are bagging of [`Tree`]s with
//! `max_features = sqrt`: see [`crate::ensemble::Bagging::forest`].
//!
//! **Missing values** (NaN features) are learned from, never imputed
//! ([`Learner::handles_missing`]). Each split stores where they go
//! ([`Node::default_left`]; [`TreeModel::goes_left`] is the routing every
//! walk follows). Every splitter, exact or histogram (whose bins give the
//! missing values one of their own), scores a node's candidates as
//! scikit-learn's best splitter does (1.3 and later): every threshold
//! between observed values with the node's missing values on the right,
//! then the same thresholds with them on the left, then (`missing_split=mia`, the
//! default) the observed values against the missing ones, the split that
//! makes missingness an attribute of its own (MIA, Twala, Jones & Hand
//! 2008, "Good methods for coping with missing data in decision trees");
//! ties keep the first candidate. `missing_split=direction` leaves that last
//! split out: each threshold only sends the missing values the better way.
//! A node without missing values of the split's feature (and so a feature
//! without any in training) sends them, met when scoring, to the child of
//! more weight (copies times row weight): scikit-learn's rule, the child
//! with the most samples, a tie going right. The random tree
//! ([`RandomTree`]) ignores the labels and sends them to a side drawn at
//! random (scikit-learn's random splitter). Which of `mia` and `direction`
//! measures better is in `benches/README.md` (`benches/missing_vs_lightgbm.py`).
//! Model files written before missing values were learned hold no
//! direction: every split then sends NaN right, as those versions did.
//!
//! Speed: every tree fitted on views of one dataset shares one per-dataset
//! table made by [`Learner::prepare`]: the features binned into at most
//! [`MAX_BINS`] quantile bins ([`Binned`], for the default histogram
//! splitter; LightGBM's scheme, Ke et al. 2017) or presorted ([`Presorted`],
//! for the exact splitter; [`Splitter`] chooses). A bag is a per-row count
//! vector over it, and a fit costs time linear in the bag's distinct rows per
//! level of the tree, without any sorting.

mod additive;
mod binned;
mod categorical;
mod exact;
mod hist;
mod model;
mod monotone;
mod onnx;
mod presort;
pub mod random;
mod score;

use serde::{Deserialize, Serialize};

pub(crate) use binned::Slot;
pub use binned::{Binned, Column, MAX_BINS};
pub use categorical::CatSet;
pub(crate) use categorical::{prefix_set, scan_prefixes, sort_by_stat, BinSet};
pub use model::{numeric_left, Node, TreeModel};
pub use presort::Presorted;

use crate::data::View;
use crate::error::{Error, Result};
use crate::learn::constraints::Monotone;
use crate::learn::{Learner, Model, Prepared};
use crate::limits::MAX_TREE_DEPTH;
use crate::params::{choice, params, Bounds, ParamType, Value};
use crate::rng::Rng;

choice! {
    /// The impurity criterion a [`Tree`] minimises when choosing a split.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    pub enum Criterion {
        /// Gini impurity (CART; scikit-learn's default).
        Gini = "gini",
        /// Entropy: maximise the information gain (ID3).
        Entropy = "entropy",
        /// C4.5's gain ratio: information gain over split information.
        GainRatio = "gain_ratio",
    }
}

choice! {
    /// How a [`Tree`] finds the best split of a node.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    pub enum SplitSearch {
        /// Every boundary between distinct values present in the node
        /// (presorted columns, [`Presorted`]); scikit-learn's `best` splitter.
        Exact = "exact",
        /// Boundaries between quantile bins, at most [`MAX_BINS`] per feature,
        /// made once per dataset ([`Binned`]). A feature with at most
        /// [`MAX_BINS`] distinct values gets one bin per value and the same
        /// candidate splits as [`SplitSearch::Exact`].
        Hist = "hist",
    }
}

choice! {
    /// How a [`Tree`]'s splits treat missing values (NaN): see the module
    /// doc.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    pub enum MissingSplits {
        /// Each threshold on the observed values scores the missing values
        /// on either side and sends them the better way (a learned default
        /// direction).
        Direction = "direction",
        /// The same, and the split of the observed values from the missing
        /// ones: missing values incorporated in attributes (MIA, Twala et
        /// al. 2008); scikit-learn's best splitter's candidates.
        Mia = "mia",
    }
}

/// How many features a split may consider (drawn afresh at every node).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum MaxFeatures {
    /// All `d` features.
    All,
    /// `max(1, floor(sqrt(d)))` (random forests' default).
    Sqrt,
    /// `max(1, floor(log2(d)))`.
    Log2,
    /// A number of features; 0 is an error, more than `d` means all `d`.
    Count(usize),
    /// A fraction of `d` in `(0, 1]`: `max(1, floor(fraction * d))`.
    Fraction(f64),
}

impl MaxFeatures {
    /// The number of features for `d` features.
    ///
    /// ```
    /// use rarity::learn::tree::MaxFeatures;
    /// assert_eq!(MaxFeatures::Sqrt.resolve(30).unwrap(), 5);
    /// assert_eq!(MaxFeatures::Count(50).resolve(30).unwrap(), 30);
    /// assert!(MaxFeatures::Count(0).resolve(30).is_err());
    /// ```
    pub fn resolve(&self, d: usize) -> Result<usize> {
        let df = d as f64;
        let m = match *self {
            MaxFeatures::All => d,
            MaxFeatures::Sqrt => df.sqrt().floor() as usize,
            MaxFeatures::Log2 => df.log2().floor() as usize,
            MaxFeatures::Count(0) => return Err(Error::invalid(
                "max_features must be at least 1 (or none, sqrt, log2, or a fraction in (0, 1])",
            )),
            MaxFeatures::Count(c) => c.min(d),
            MaxFeatures::Fraction(f) if f > 0.0 && f <= 1.0 => (f * df).floor() as usize,
            MaxFeatures::Fraction(f) => {
                return Err(Error::invalid(format!(
                    "max_features fraction {f} is not in (0, 1]"
                )))
            }
        };
        Ok(m.clamp(1, d.max(1)))
    }
}

/// `none` (all), `sqrt`, `log2`, a whole number >= 1 or a fraction in (0, 1).
impl ParamType for MaxFeatures {
    fn from_value(v: &Value) -> std::result::Result<Self, String> {
        match (v, v.word()) {
            (_, Some("none" | "all")) => Ok(MaxFeatures::All),
            (_, Some("sqrt")) => Ok(MaxFeatures::Sqrt),
            (_, Some("log2")) => Ok(MaxFeatures::Log2),
            (Value::Number(x), _) if *x >= 1.0 && x.fract() == 0.0 => {
                Ok(MaxFeatures::Count(*x as usize))
            }
            (Value::Number(x), _) if *x > 0.0 && *x < 1.0 => Ok(MaxFeatures::Fraction(*x)),
            _ => Err(String::new()),
        }
    }
    fn expected() -> String {
        "none, sqrt, log2, a whole number >= 1 or a fraction in (0, 1)".into()
    }
    fn to_text(&self) -> String {
        match self {
            MaxFeatures::All => "none".into(),
            MaxFeatures::Sqrt => "sqrt".into(),
            MaxFeatures::Log2 => "log2".into(),
            MaxFeatures::Count(c) => c.to_string(),
            MaxFeatures::Fraction(f) => f.to_string(),
        }
    }
}

/// How a leaf's weighted class totals `c_k` (sum `N`, `K` classes) become
/// probabilities.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum LeafEstimate {
    /// Raw frequency `c_k / N`.
    Frequency,
    /// Laplace: `(c_k + 1) / (N + K)`.
    Laplace,
    /// m-estimate (Cestnik 1990): `(c_k + m p_k) / (N + m)` with `p_k` the
    /// class priors of the training rows.
    MEstimate(f64),
}

impl LeafEstimate {
    /// Writes the probabilities for totals `counts` into `out`.
    ///
    /// ```
    /// use rarity::learn::tree::LeafEstimate;
    /// let mut p = [0.0; 2];
    /// LeafEstimate::Laplace.apply(&[3.0, 0.0], &[0.5, 0.5], &mut p);
    /// assert_eq!(p, [0.8, 0.2]);
    /// ```
    pub fn apply(&self, counts: &[f64], priors: &[f64], out: &mut [f64]) {
        let n: f64 = counts.iter().sum();
        let k = counts.len() as f64;
        for ((o, &c), &p) in out.iter_mut().zip(counts).zip(priors) {
            *o = match *self {
                LeafEstimate::Frequency => c / n,
                LeafEstimate::Laplace => (c + 1.0) / (n + k),
                LeafEstimate::MEstimate(m) => (c + m * p) / (n + m),
            };
        }
    }
}

/// `frequency`, `laplace` or `m_estimate(m=M)` (`m >= 0`, default 2).
impl ParamType for LeafEstimate {
    fn from_value(v: &Value) -> std::result::Result<Self, String> {
        match v {
            Value::Call(c) => match (c.name.as_str(), c.args.as_slice()) {
                ("frequency", []) => Ok(LeafEstimate::Frequency),
                ("laplace", []) => Ok(LeafEstimate::Laplace),
                ("m_estimate", []) => Ok(LeafEstimate::MEstimate(2.0)),
                ("m_estimate", [(_, Value::Number(m))]) if k_is_m(c) && *m >= 0.0 => {
                    Ok(LeafEstimate::MEstimate(*m))
                }
                _ => Err(String::new()),
            },
            _ => Err(String::new()),
        }
    }
    fn expected() -> String {
        "frequency, laplace or m_estimate(m=NUMBER >= 0)".into()
    }
    fn to_text(&self) -> String {
        match self {
            LeafEstimate::Frequency => "frequency".into(),
            LeafEstimate::Laplace => "laplace".into(),
            LeafEstimate::MEstimate(m) => format!("m_estimate(m={m})"),
        }
    }
}

/// Whether `m_estimate(...)`'s one argument is `m` (or positional).
fn k_is_m(c: &crate::params::Call) -> bool {
    c.args[0].0.as_deref().is_none_or(|k| k == "m")
}

params! {
    /// The probability decision tree learner (hyper-parameters).
    ///
    /// The default is an unpruned Gini tree over all features with raw-frequency
    /// leaves: scikit-learn's `DecisionTreeClassifier()` defaults, and the
    /// unsmoothed probability tree of the PT-bagging paper.
    ///
    /// Row counts for `min_samples_split` / `min_samples_leaf` count repeated
    /// rows of a bag as copies. Rows of weight 0 are ignored.
    ///
    /// ```
    /// use rarity::data::Dataset;
    /// use rarity::learn::{Learner, tree::Tree};
    /// let ds = Dataset::from_rows(vec![vec![0.0], vec![0.0], vec![1.0]], vec![0, 1, 1],
    ///                             vec!["n".into(), "p".into()]).unwrap();
    /// let rows = [0, 1, 2];
    /// let m = Tree::default().fit(&ds.view(&rows), &mut rarity::rng::stream(0, 0)).unwrap();
    /// // Rows 0 and 1 share x = 0: their leaf holds one of each class.
    /// assert_eq!(m.predict_proba(&ds).unwrap().row(0), &[0.5, 0.5]);
    /// ```
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct Tree {
        /// Split criterion.
        pub criterion: Criterion = Criterion::Gini,
        /// Maximum depth (root at depth 0); none grows until pure (or 512
        /// levels deep, the most rarity grows).
        pub max_depth: Option<usize> = None => Bounds::closed(1.0, MAX_TREE_DEPTH as f64),
        /// A node with fewer rows is not split.
        pub min_samples_split: usize = 2 => Bounds::at_least(2.0),
        /// Each child must keep at least this many rows.
        pub min_samples_leaf: usize = 1 => Bounds::at_least(1.0),
        /// Features considered per split (drawn afresh at every node).
        pub max_features: MaxFeatures = MaxFeatures::All,
        /// Leaf probability estimate.
        pub leaf: LeafEstimate = LeafEstimate::Frequency,
        /// Split search: histogram (LightGBM's binning) or exact.
        pub splitter: SplitSearch = SplitSearch::Hist,
        /// Categorical features: the smoothing count pulling each level's
        /// class rate towards the node's, `(w_c + s p_c) / (w + s)`, in the
        /// order a node's levels are sorted by, and the fewest rows a level
        /// needs in the node to be sent left (LightGBM's cat_smooth).
        pub cat_smooth: f64 = 10.0 => Bounds::at_least(0.0),
        /// Categorical features: fewest rows per group of levels added
        /// between two candidate set splits, and on the right side
        /// (LightGBM's min_data_per_group).
        pub min_data_per_group: usize = 10 => Bounds::at_least(1.0),
        /// Categorical features: most levels one split sends left
        /// (LightGBM's max_cat_threshold).
        pub max_cat_threshold: usize = 32 => Bounds::at_least(1.0),
        /// Categorical features: pseudo-rows at the node's class mix added
        /// to each child of a set split when it is scored, shrinking the
        /// gain of small children (LightGBM's cat_l2).
        pub cat_l2: f64 = 10.0 => Bounds::at_least(0.0),
        /// Categorical features of at most this many levels are searched
        /// exhaustively and unregularised: every level against the rest
        /// and every prefix of the levels sorted by their in-node rate
        /// (LightGBM's max_cat_to_onehot, default 4, gives its one-hot
        /// splits to such columns).
        pub max_cat_to_onehot: usize = 4 => Bounds::at_least(1.0),
        /// Missing values (NaN): direction (each threshold sends them the
        /// better way) or mia (also the split of the observed values from
        /// the missing ones, Twala et al. 2008). Not `missing`, the
        /// missing-value policy of every reading front end.
        pub missing_split: MissingSplits = MissingSplits::Mia,
        /// Per source column, a direction the positive class's probability
        /// must keep as the column rises, the others held fixed:
        /// `[debt_ratio:1, tenure:-1]` (1 never falls, -1 never rises, 0
        /// free); two classes only, numeric columns only (scikit-learn
        /// 1.4's monotonic_cst: children's values ordered, bounds passed
        /// down, leaves clipped).
        pub monotone: Monotone = Monotone::default(),
    }
    check = check_tree;
}

/// The checks a field's range cannot express: a finite `m >= 0` for
/// `m_estimate`, finite categorical counts, a usable `max_features`.
fn check_tree(t: &Tree) -> Result<()> {
    if let LeafEstimate::MEstimate(m) = t.leaf {
        if !(m.is_finite() && m >= 0.0) {
            return Err(Error::invalid(format!(
                "m-estimate m = {m}: must be finite and >= 0"
            )));
        }
    }
    for (name, v) in [("cat_smooth", t.cat_smooth), ("cat_l2", t.cat_l2)] {
        if !v.is_finite() {
            return Err(Error::invalid(format!("{name} = {v}: must be finite")));
        }
    }
    t.max_features.resolve(1).map(|_| ())
}

impl Tree {
    /// C4.5-like settings (gain ratio, unpruned, raw frequencies): the base
    /// learner of the PT-bagging paper.
    pub fn c45() -> Self {
        Tree {
            criterion: Criterion::GainRatio,
            ..Tree::default()
        }
    }
}

impl Tree {
    /// The categorical and missing-value parameters that differ from their
    /// defaults, as they follow the others in [`Learner::name`].
    fn categorical_name(&self) -> String {
        let d = Tree::default();
        let mut s = String::new();
        if self.cat_smooth != d.cat_smooth {
            s += &format!(",cat_smooth={}", self.cat_smooth);
        }
        if self.min_data_per_group != d.min_data_per_group {
            s += &format!(",min_data_per_group={}", self.min_data_per_group);
        }
        if self.max_cat_threshold != d.max_cat_threshold {
            s += &format!(",max_cat_threshold={}", self.max_cat_threshold);
        }
        if self.cat_l2 != d.cat_l2 {
            s += &format!(",cat_l2={}", self.cat_l2);
        }
        if self.max_cat_to_onehot != d.max_cat_to_onehot {
            s += &format!(",max_cat_to_onehot={}", self.max_cat_to_onehot);
        }
        if self.missing_split != d.missing_split {
            s += &format!(",missing_split={}", self.missing_split.to_text());
        }
        if !self.monotone.0.is_empty() {
            s += &format!(",monotone={}", self.monotone.to_text());
        }
        s
    }

    /// The depth at which growing stops: `max_depth`, at most
    /// [`MAX_TREE_DEPTH`] (a tree built in code with a deeper `max_depth`
    /// stops there too).
    pub(crate) fn depth_limit(&self) -> usize {
        self.max_depth
            .map_or(MAX_TREE_DEPTH, |d| d.min(MAX_TREE_DEPTH))
    }

    /// Grows a tree on the view's rows.
    pub fn grow(&self, data: &View<'_>, rng: &mut Rng) -> Result<TreeModel> {
        match self.splitter {
            SplitSearch::Exact => exact::grow(self, &Presorted::new(data.data())?, data, rng),
            SplitSearch::Hist => hist::grow(self, &Binned::new(data.data())?, data, rng),
        }
    }

    /// Grows a tree on a view of the dataset `prepared` was made from (see
    /// [`Learner::prepare`]); prepares afresh if it was made from another.
    pub fn grow_prepared(
        &self,
        prepared: &Prepared,
        data: &View<'_>,
        rng: &mut Rng,
    ) -> Result<TreeModel> {
        let own = data.data();
        match self.splitter {
            SplitSearch::Exact => match prepared.get::<Presorted>() {
                Some(pre) if pre.matches(own) => exact::grow(self, pre, data, rng),
                _ => self.grow(data, rng),
            },
            SplitSearch::Hist => match prepared.get::<Binned>() {
                Some(bins) if bins.matches(own) => hist::grow(self, bins, data, rng),
                _ => self.grow(data, rng),
            },
        }
    }
}

impl Learner for Tree {
    fn fit(&self, data: &View<'_>, rng: &mut Rng) -> Result<Model> {
        Ok(Model::new(self.grow(data, rng)?))
    }

    fn prepare(&self, data: &crate::data::Dataset) -> Result<Prepared> {
        Ok(match self.splitter {
            SplitSearch::Exact => Prepared::new(Presorted::new(data)?),
            SplitSearch::Hist => Prepared::new(Binned::new(data)?),
        })
    }

    fn fit_prepared(&self, prepared: &Prepared, data: &View<'_>, rng: &mut Rng) -> Result<Model> {
        Ok(Model::new(self.grow_prepared(prepared, data, rng)?))
    }

    /// The histogram splitter splits categorical features by sets of
    /// levels (`categorical.rs`); the exact one does not.
    fn native_categorical(&self) -> bool {
        self.splitter == SplitSearch::Hist
    }

    /// Every splitter learns where missing values go (`missing`).
    fn handles_missing(&self) -> bool {
        true
    }

    /// `monotone=`: leaf probabilities clipped to bounds (`monotone.rs`).
    fn monotone(&self) -> &[(String, i8)] {
        &self.monotone.0
    }

    fn name(&self) -> String {
        let mut s = format!("tree(criterion={}", self.criterion.to_text());
        if let Some(md) = self.max_depth {
            s += &format!(",max_depth={md}");
        }
        if self.min_samples_split != 2 {
            s += &format!(",min_samples_split={}", self.min_samples_split);
        }
        if self.min_samples_leaf != 1 {
            s += &format!(",min_samples_leaf={}", self.min_samples_leaf);
        }
        if self.max_features != MaxFeatures::All {
            s += &format!(",max_features={}", self.max_features.to_text());
        }
        if self.leaf != LeafEstimate::Frequency {
            s += &format!(",leaf={}", self.leaf.to_text());
        }
        if self.splitter != SplitSearch::Hist {
            s += &format!(",splitter={}", self.splitter.to_text());
        }
        s + &self.categorical_name() + ")"
    }
}

params! {
    /// Fan's random decision tree learner (one tree; ensembles of them are
    /// [`crate::ensemble::Bagging::rdt`]).
    ///
    /// ```
    /// use rarity::data::Dataset;
    /// use rarity::learn::{Learner, tree::RandomTree};
    /// let ds = Dataset::from_rows((0..8).map(|i| vec![i as f64, (i % 3) as f64]).collect(),
    ///                             vec![0, 0, 0, 0, 1, 1, 1, 1], vec!["n".into(), "p".into()]).unwrap();
    /// let rows: Vec<usize> = (0..8).collect();
    /// let m = RandomTree::default().fit(&ds.view(&rows), &mut rarity::rng::stream(3, 0)).unwrap();
    /// assert_eq!(m.predict_proba(&ds).unwrap().n_rows(), 8);
    /// ```
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct RandomTree {
        /// Depth limit; none means half the number of features (at least 1,
        /// at most 512), as in Fan et al. 2003.
        pub max_depth: Option<usize> = None => Bounds::closed(1.0, MAX_TREE_DEPTH as f64),
        /// A node with fewer rows is not split.
        pub min_samples_split: usize = 2 => Bounds::at_least(2.0),
        /// Leaf probability estimate (raw frequency in Fan's RDT).
        pub leaf: LeafEstimate = LeafEstimate::Frequency,
    }
}

impl Learner for RandomTree {
    fn fit(&self, data: &View<'_>, rng: &mut Rng) -> Result<Model> {
        Ok(Model::new(random::grow(self, data, rng)?))
    }

    /// Missing values go to a side drawn at random (`random.rs`).
    fn handles_missing(&self) -> bool {
        true
    }

    fn name(&self) -> String {
        match self.max_depth {
            Some(md) => format!("random_tree(max_depth={md})"),
            None => "random_tree".into(),
        }
    }
}

#[cfg(test)]
mod tests;
