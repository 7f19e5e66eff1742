//! `gbdt`: histogram gradient-boosted decision trees for two or more
//! classes (Friedman 2001, "Greedy function approximation: a gradient
//! boosting machine"; with the second-order leaf steps and regularisation of
//! XGBoost, Chen & Guestrin 2016, and the histograms and leaf-wise growth of
//! LightGBM, Ke et al. 2017).
//!
//! Round `r` fits one tree per output to the gradients and hessians of the
//! log loss (two classes) or the softmax cross-entropy (one tree per class)
//! at the current scores, and adds its leaf values times `learning_rate`.
//! The features are binned once per dataset into at most `bins` quantile
//! bins, the same table as the histogram trees (`crate::learn::tree::Binned`).
//!
//! Files, by job:
//!
//! | file | job |
//! |---|---|
//! | `loss.rs` | gradients, hessians, initial scores, validation loss |
//! | `hist.rs` | bin codes of the fit's rows, gradient histograms, subtraction |
//! | `quantize.rs` | gradients rounded to integers for the histograms |
//! | `split.rs` | leaf values (L2, bounded step) and the best split of a leaf |
//! | `monotone.rs` | monotone bounds (basic, intermediate, advanced) and interaction groups |
//! | `categorical.rs` | the best set split of a leaf on a categorical feature |
//! | `grow.rs` | leaf-wise growth of one tree, row partitioning |
//! | `train.rs` | the boosting loop: rows, class weights, sampling, early stopping |
//! | `tree.rs` | one boosted tree: split nodes, leaf values, the walk of one row |
//! | `additive.rs` | the trees as arrays for exact contributions (`crate::learn::shap`) |
//! | `model.rs` | the fitted model: prediction, importances |
//! | `walk.rs` | the scoring layout: flat nodes, rows walked in groups |
//!
//! **Class weights are keep rates.** `class_weight` (`balanced`: `W / (K
//! W_k)` over the `K` classes present, scikit-learn's rule; or given) and
//! `scale_pos_weight=S` (class 1 weighs `S`, LightGBM's and XGBoost's
//! parameter) multiply the rows' weights in the loss. Weighting class `k` by
//! `w_k` is sampling it at rate `w_k`, so the model estimates `p_s,k ∝ w_k
//! p_k`, and `gbdt(...)+correct` recovers `p_k ∝ p_s,k / w_k` exactly as it
//! undoes a sampler's keep rates (Dal Pozzolo et al. 2015, eq. 9; the
//! weights are exposed by `Classifier::class_weights`). The map is monotone,
//! so ranking metrics are unchanged.
//!
//! **The bounded step.** With a rare class, the hessians `p (1 - p)` of the
//! rows are tiny (about `pi+` at the initial score), so a leaf holding a few
//! positives gets a Newton step `-G / H` of hundreds in log-odds; at
//! `learning_rate=0.1` the scores overshoot and oscillate (LightGBM's
//! defaults reach a ROC AUC of 0.50 on a table with 0.17% positives).
//! `max_delta_step` bounds every leaf's step before shrinkage (XGBoost's
//! parameter of that name, which its documentation recommends for
//! "logistic regression when class is extremely imbalanced"); the split
//! gains use the bounded step. The default bound, 5, was measured on the
//! 284,807-row `generate fraud` table (0.18% positives; 5-fold CV,
//! `benches/gbdt_vs_lightgbm.py`): unbounded, the fit reproduces LightGBM
//! (ROC AUC 0.50 at `learning_rate=0.1`, 0.9967 at 0.02); a bound of 1
//! holds at 0.1 but caps the scores at 0.02 (100 rounds move a row by at
//! most 2 in log-odds: AP 0.68 against LightGBM's 0.87); 5 and 10 give
//! AUC 0.9974 / AP 0.93 at 0.02 and 0.9990 / 0.97 at 0.1.
//!
//! **Categorical features** (level codes,
//! [`ColumnEncoding::Categorical`](crate::data::ColumnEncoding)) are split
//! natively, as LightGBM does: one bin per level (a column of many levels
//! keeps those covering 99% of its rows, with two-byte bin codes; the rest
//! share one bin), and at each leaf the
//! levels sorted by their gradient statistic, the best set along that
//! order sent left (`categorical.rs`; `cat_smooth`, `cat_l2`,
//! `max_cat_threshold`, `min_data_per_group`, `max_cat_to_onehot`, with
//! LightGBM's defaults). Missing values and levels unseen in training go
//! right, with the levels not in the set.
//!
//! **Missing values** (NaN features) are learned from, as LightGBM and
//! XGBoost do (Chen & Guestrin 2016, sec. 3.4, sparsity-aware split
//! finding): a numeric feature with missing values has a bin of its own in
//! the histograms, the last (LightGBM's NaN bin), and each split scores
//! every threshold with the leaf's missing values on the right, then on
//! the left, then the observed values against the missing ones (a
//! threshold of `f64::MAX`), keeping the first of equal gains; the split
//! stores the direction it learned ([`GbdtNode::default_left`],
//! [`GbdtTree::goes_left`], which every walk follows: the tree walk, the
//! flat layout, the 64-row batch layout, streamed prediction). A leaf
//! without missing values of the split's feature sends them to the side of
//! the larger hessian. A feature without missing values in training
//! follows LightGBM's rule for its `missing_type=None` (the default
//! `use_missing=true`, `zero_as_missing=false`): a missing value met when
//! scoring is read as 0, so each split sends it where 0 goes (`0 <=
//! threshold`). (LightGBM's `missing_type=Zero`, zeros taken for missing,
//! exists only under its `zero_as_missing=true` and has no equivalent
//! here.) Categorical features keep their missing level, which goes right
//! with the levels outside a split's set. Model files written before
//! missing values were learned hold no direction: NaN goes right at every
//! split, as it did. Tables without a NaN fit bit for bit as before (the
//! same bins, splits and leaf values).
//!
//! **Quantized gradients** (`gradients=quantized`; `auto`, the default,
//! from 500,000 training rows): the split search sums each row's gradient
//! and hessian rounded stochastically to 8-bit levels, as LightGBM's
//! `use_quantized_grad` does (Shi et al. 2022), packed into one integer
//! word, and sparse leaves are summed row-wise; the leaf values stay exact
//! (`quantize.rs`, `hist.rs`). On the 1,000,000 x 28 dense tables the fit
//! takes 8-17% less time, with AUC and AP within 0.0004 of the exact fit's
//! (`benches/README.md`). On the 284,807-row fraud table it was slower, not
//! faster, hence the threshold. On the 70 small shared sets, quantized fits
//! rank better on average (mean AP 0.7042 against 0.7007 exact), a
//! measurement not yet made the default there.
//!
//! Determinism: histograms are built per feature by one task each, in row
//! order (quantized sums are integers, the same in any order); every round draws its row and column samples from its own stream;
//! so a model is bit-identical at any thread count.

mod additive;
mod categorical;
mod grow;
mod hist;
mod loss;
mod model;
mod monotone;
mod onnx;
mod quantize;
mod split;
mod train;
mod tree;
mod walk;

use serde::{Deserialize, Serialize};

pub use model::GbdtModel;
pub use monotone::MonotoneMethod;
pub use tree::{GbdtNode, GbdtTree};

use crate::data::{Dataset, View};
use crate::error::{Error, Result};
use crate::learn::constraints::{Interactions, Monotone};
use crate::learn::tree::{Binned, MAX_BINS};
use crate::learn::{ClassWeight, Learner, Model, Prepared};
use crate::limits::MAX_TREE_DEPTH;
use crate::params::{choice, params, Bounds, ParamType, Params};
use crate::rng::Rng;

params! {
    /// The gradient-boosting learner (hyper-parameters). The defaults are
    /// LightGBM's (100 rounds, learning rate 0.1, 31 leaves, 20 rows and a
    /// hessian of 1e-3 per leaf, 255 bins), with the leaf step bounded.
    ///
    /// ```
    /// use rarity::data::Dataset;
    /// use rarity::learn::{Learner, gbdt::Gbdt};
    /// let ds = Dataset::from_rows((0..200).map(|i| vec![(i % 20) as f64, (i / 20) as f64]).collect(),
    ///     (0..200).map(|i| u32::from(i % 20 >= 15)).collect(), vec!["n".into(), "p".into()]).unwrap();
    /// let rows: Vec<usize> = (0..200).collect();
    /// let gbdt = Gbdt { rounds: 50, min_samples_leaf: 5, ..Gbdt::default() };
    /// let m = gbdt.fit(&ds.view(&rows), &mut rarity::rng::stream(0, 0)).unwrap();
    /// let p = m.predict_proba(&ds).unwrap();
    /// assert!(p.row(19)[1] > 0.9 && p.row(0)[1] < 0.1);
    /// ```
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(default)]
    pub struct Gbdt {
        /// Boosting rounds (one tree per round, or per class and round
        /// beyond two classes).
        pub rounds: usize = 100 => Bounds::at_least(1.0),
        /// Shrinkage: each tree's leaf values are multiplied by it.
        pub learning_rate: f64 = 0.1 => Bounds::positive(),
        /// Leaves per tree (leaf-wise growth, the best gain first).
        pub max_leaves: usize = 31 => Bounds::at_least(2.0),
        /// Depth limit (root at depth 0); 0 for none (but 512 levels, the
        /// most rarity grows).
        pub max_depth: usize = 0 => Bounds::closed(0.0, MAX_TREE_DEPTH as f64),
        /// Each leaf keeps at least this many rows (copies counted, as
        /// leaf_rows says).
        pub min_samples_leaf: usize = 20 => Bounds::at_least(1.0),
        /// How min_samples_leaf counts a leaf's rows: hessian (the parent's
        /// rows times the leaf's share of its hessian, as LightGBM counts
        /// them) or rows (the row copies themselves, as scikit-learn does).
        pub leaf_rows: LeafRows = LeafRows::Hessian,
        /// Each leaf keeps at least this hessian sum.
        pub min_child_weight: f64 = 1e-3 => Bounds::at_least(0.0),
        /// L2 penalty on leaf values (XGBoost's lambda).
        pub l2: f64 = 0.0 => Bounds::at_least(0.0),
        /// Fraction of the rows each round's trees are grown on (drawn
        /// without replacement per round).
        pub subsample: f64 = 1.0 => Bounds::left_open(0.0, 1.0),
        /// Fraction of the features each tree may split on (drawn per tree).
        pub colsample: f64 = 1.0 => Bounds::left_open(0.0, 1.0),
        /// Quantile bins per feature.
        pub bins: usize = MAX_BINS => Bounds::closed(2.0, MAX_BINS as f64),
        /// Stop after this many rounds without a lower validation loss and
        /// keep the best round; 0 for no early stopping.
        pub early_stopping: usize = 0 => Bounds::at_least(0.0),
        /// The stratified fraction of the rows held out for early stopping.
        pub validation_fraction: f64 = 0.1 => Bounds::open(0.0, 1.0),
        /// Class weights multiplying the row weights in the loss: none,
        /// balanced, or one weight > 0 per class ('w0,w1,...').
        pub class_weight: ClassWeight = ClassWeight::None,
        /// Weight of class 1 (two classes), e.g. N-/N+; instead of
        /// class_weight.
        pub scale_pos_weight: Option<f64> = None => Bounds::positive(),
        /// Bound on every leaf's step before shrinkage; 0 for none.
        pub max_delta_step: f64 = 5.0 => Bounds::at_least(0.0),
        /// Categorical features: the smoothing count of a level's gradient
        /// statistic G / (H + cat_smooth) that orders a leaf's levels, and
        /// the fewest rows a level needs in the leaf to be sent left
        /// (LightGBM's cat_smooth).
        pub cat_smooth: f64 = 10.0 => Bounds::at_least(0.0),
        /// Categorical features: extra L2 penalty on the children of a
        /// split sending several levels left (LightGBM's cat_l2).
        pub cat_l2: f64 = 10.0 => Bounds::at_least(0.0),
        /// Categorical features: most levels one split sends left
        /// (LightGBM's max_cat_threshold).
        pub max_cat_threshold: usize = 32 => Bounds::at_least(1.0),
        /// Categorical features: fewest rows per group of levels added
        /// between two candidate splits, and on the right side
        /// (LightGBM's min_data_per_group).
        pub min_data_per_group: usize = 100 => Bounds::at_least(1.0),
        /// Categorical features with at most this many levels in a leaf
        /// are split one level against the rest (LightGBM's
        /// max_cat_to_onehot).
        pub max_cat_to_onehot: usize = 4 => Bounds::at_least(1.0),
        /// What the split search's histograms sum: exact gradients,
        /// quantized ones (8-bit levels summed as integers, leaf values
        /// still exact), or auto (quantized from 500,000 training rows).
        pub gradients: GradientSums = GradientSums::Auto,
        /// Per source column, the direction the positive class's score
        /// must keep as the column rises, the others held fixed: 1 never
        /// down, -1 never up, 0 free ([debt_ratio:1, tenure:-1]; two
        /// classes, numeric columns; `monotone.rs`).
        pub monotone: Monotone = Monotone::default(),
        /// How monotone bounds are set: basic (a split's mean output
        /// between its children), intermediate (the outputs of the leaves
        /// ordered with each leaf) or advanced (the same for each
        /// candidate's halves); LightGBM's monotone_constraints_method.
        pub monotone_method: MonotoneMethod = MonotoneMethod::Basic,
        /// Discourages monotone splits near the root: P forbids them in the
        /// first floor(P) levels (LightGBM's monotone_penalty).
        pub monotone_penalty: f64 = 0.0 => Bounds::at_least(0.0),
        /// Groups of source columns a branch may split on together
        /// ([[a,b],[c,d,e]]): each branch uses the columns of one group;
        /// columns no group names form one more (scikit-learn's
        /// interaction_cst).
        pub interaction: Interactions = Interactions::default(),
    }
    check = check_gbdt;
}

choice! {
    /// How a leaf's rows are counted against `min_samples_leaf`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    pub enum LeafRows {
        /// The leaf's rows times its share of the parent's hessian
        /// (LightGBM's `min_data_in_leaf`): rows the model is sure of count
        /// for little, so a few rare-class rows it still gets wrong can
        /// have a leaf of their own (`split.rs`).
        Hessian = "hessian",
        /// The row copies themselves (scikit-learn's `min_samples_leaf`).
        Rows = "rows",
    }
}

choice! {
    /// What the split search's histograms sum (`quantize.rs`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    pub enum GradientSums {
        /// Quantized from [`quantize::AUTO_ROWS`] training rows up to
        /// [`quantize::MAX_ROWS`], exact otherwise.
        Auto = "auto",
        /// The gradients and hessians themselves.
        Exact = "exact",
        /// Gradients and hessians stochastically rounded to 8-bit levels
        /// (LightGBM's `use_quantized_grad`); at most 2^24 training rows.
        Quantized = "quantized",
    }
}

/// The checks a field's range cannot express.
fn check_gbdt(g: &Gbdt) -> Result<()> {
    if g.scale_pos_weight.is_some() && g.class_weight != ClassWeight::None {
        return Err(Error::invalid(
            "gbdt: give class_weight or scale_pos_weight, not both",
        ));
    }
    if let ClassWeight::Given(w) = &g.class_weight {
        if w.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
            return Err(Error::invalid(format!(
                "gbdt: class_weight={} is invalid; every weight must be finite and > 0 \
                 (a class of weight 0 could not be corrected back)",
                g.class_weight.to_text()
            )));
        }
    }
    Ok(())
}

impl Gbdt {
    /// The checks that need the data's shape, before any work.
    fn check_data(&self, data: &Dataset) -> Result<()> {
        self.check()?;
        if data.n_features() == 0 {
            return Err(Error::data(
                "cannot fit gbdt: the data has no feature columns",
            ));
        }
        train::class_weights(self, &vec![1.0; data.n_classes()])?;
        self.constraints(data).map(|_| ())
    }

    /// The monotone and interaction constraints by feature of `data`.
    fn constraints(&self, data: &Dataset) -> Result<monotone::Constraints> {
        let schema = data.schema();
        let dirs = (self.monotone).directions_for(schema, data.n_classes(), "gbdt monotone")?;
        let monotone = dirs.iter().any(|&d| d != 0);
        Ok(monotone::Constraints {
            dirs: if monotone { dirs } else { Vec::new() },
            method: monotone.then_some(self.monotone_method),
            penalty: self.monotone_penalty,
            groups: match self.interaction.is_empty() {
                true => Vec::new(),
                false => self.interaction.groups(schema, "gbdt interaction")?,
            },
        })
    }

    /// The rules of set splits on categorical features.
    fn cat_rules(&self) -> split::CatRules {
        split::CatRules {
            smooth: self.cat_smooth,
            l2: self.cat_l2,
            max_threshold: self.max_cat_threshold,
            min_per_group: self.min_data_per_group as f64,
            max_onehot: self.max_cat_to_onehot,
        }
    }

    fn fit_with(&self, bins: &Binned, data: &View<'_>, rng: &mut Rng) -> Result<Model> {
        Ok(Model::new(train::fit(self, bins, data, rng)?))
    }
}

impl Learner for Gbdt {
    fn fit(&self, data: &View<'_>, rng: &mut Rng) -> Result<Model> {
        self.check_data(data.data())?;
        self.fit_with(&Binned::with_max_bins(data.data(), self.bins)?, data, rng)
    }

    fn prepare(&self, data: &Dataset) -> Result<Prepared> {
        self.check_data(data)?;
        Ok(Prepared::new(Binned::with_max_bins(data, self.bins)?))
    }

    fn fit_prepared(&self, prepared: &Prepared, data: &View<'_>, rng: &mut Rng) -> Result<Model> {
        match prepared.get::<Binned>() {
            Some(b) if b.matches(data.data()) && b.max_bins() == self.bins => {
                self.check_data(data.data())?;
                self.fit_with(b, data, rng)
            }
            _ => self.fit(data, rng),
        }
    }

    /// Categorical features get set splits (`categorical.rs`).
    fn native_categorical(&self) -> bool {
        true
    }

    /// Each split learns where missing values go (`split.rs`).
    fn handles_missing(&self) -> bool {
        true
    }

    /// `monotone=`: every leaf's output is bounded (`monotone.rs`).
    fn monotone(&self) -> &[(String, i8)] {
        &self.monotone.0
    }

    /// `interaction=`: a branch splits on the features of one group.
    fn interaction(&self) -> &[Vec<String>] {
        &self.interaction.0
    }

    /// `gbdt` with the parameters that differ from the defaults.
    fn name(&self) -> String {
        let set: Vec<String> = self
            .table()
            .into_iter()
            .zip(Gbdt::default().table())
            .filter(|(p, d)| p.default != d.default)
            .map(|(p, _)| format!("{}={}", p.name, p.default))
            .collect();
        if set.is_empty() {
            "gbdt".into()
        } else {
            format!("gbdt({})", set.join(","))
        }
    }
}

#[cfg(test)]
mod tests;
