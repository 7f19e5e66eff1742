//! The fitted gradient-boosting model: initial scores plus the sum of the
//! trees' leaf values (already shrunk by the learning rate) per output,
//! turned into probabilities by the logistic function (two classes) or the
//! softmax. Each tree is a compact array of split nodes; a child index `c`
//! is a node when `c >= 0` and leaf `!c` otherwise (LightGBM's layout).
//! Scoring walks a flat copy of all trees ([`Walk`]), built when the model
//! is fitted or read from a file.

use serde::{Deserialize, Serialize};

use crate::check;
use crate::learn::naive_bayes::scatter;
use crate::learn::rows::{sigmoid, softmax};
use crate::learn::shap::Additive;
use crate::learn::{Classifier, Importances, Kind, LeafMap};
use crate::onnx::{Graph, Value};

use super::tree::GbdtTree;
use super::walk::Walk;

/// The fields a model file holds (the scoring layout is rebuilt).
#[derive(Deserialize)]
struct GbdtFile {
    n_classes: usize,
    n_features: usize,
    classes: Vec<usize>,
    init: Vec<f64>,
    trees: Vec<GbdtTree>,
    class_weights: Vec<f64>,
}

impl From<GbdtFile> for GbdtModel {
    fn from(f: GbdtFile) -> Self {
        GbdtModel {
            walk: Walk::new(&f.trees, f.n_features),
            n_classes: f.n_classes,
            n_features: f.n_features,
            classes: f.classes,
            init: f.init,
            trees: f.trees,
            class_weights: f.class_weights,
        }
    }
}

/// A fitted gbdt model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "GbdtFile")]
pub struct GbdtModel {
    pub(super) n_classes: usize,
    pub(super) n_features: usize,
    /// The classes present in the training rows; output `j` is class
    /// `classes[j]` (two classes: one output, the second class's log-odds).
    pub(super) classes: Vec<usize>,
    /// Initial raw score per output.
    pub(super) init: Vec<f64>,
    /// Round-major: tree `r * outputs + j` is round `r`'s tree of output `j`.
    pub(super) trees: Vec<GbdtTree>,
    /// Per class of the dataset, the weight its rows had in the loss.
    pub(super) class_weights: Vec<f64>,
    /// The scoring layout of `trees` (`None` when they are malformed, then
    /// refused by [`Classifier::validate`], or have categorical splits: then
    /// rows walk the trees one by one).
    #[serde(skip)]
    pub(super) walk: Option<Walk>,
}

impl GbdtModel {
    /// Number of raw scores per row.
    pub fn outputs(&self) -> usize {
        if self.classes.len() == 2 {
            1
        } else {
            self.classes.len()
        }
    }

    /// The boosting rounds kept (after early stopping, the best round).
    pub fn rounds(&self) -> usize {
        self.trees.len() / self.outputs().max(1)
    }

    /// The trees, round-major.
    pub fn trees(&self) -> &[GbdtTree] {
        &self.trees
    }

    /// The raw scores of a block of rows walking [`GbdtModel::trees`] one
    /// row at a time (`o` per row, each the initial score plus the trees'
    /// values in tree order): the reference the fast walk is held to.
    #[cfg(test)]
    pub(super) fn scores_by_tree(&self, x: &[f64]) -> Vec<f64> {
        let (d, o) = (self.n_features.max(1), self.outputs());
        let mut f = Vec::new();
        for xr in x.chunks(d) {
            let start = f.len();
            f.extend_from_slice(&self.init);
            for (t, tree) in self.trees.iter().enumerate() {
                f[start + t % o] += tree.values[tree.leaf(xr)];
            }
        }
        f
    }

    /// The raw scores of a block of rows (`o` per row).
    pub(super) fn scores(&self, x: &[f64], rows: usize) -> Vec<f64> {
        let (d, o) = (self.n_features.max(1), self.outputs());
        let mut f: Vec<f64> = (0..rows * o).map(|i| self.init[i % o]).collect();
        if self.walk.as_ref().is_some_and(|w| w.add(x, d, o, &mut f)) {
            return f;
        }
        for (t, tree) in self.trees.iter().enumerate() {
            for (fr, xr) in f.chunks_mut(o).zip(x.chunks(d)) {
                fr[t % o] += tree.values[tree.leaf(xr)];
            }
        }
        f
    }
}

impl Kind for GbdtModel {
    const KIND: &'static str = "Gbdt";
}

impl Classifier for GbdtModel {
    fn n_classes(&self) -> usize {
        self.n_classes
    }

    fn n_features(&self) -> usize {
        self.n_features
    }

    fn predict_row(&self, x: &[f64], out: &mut [f64]) {
        self.predict_rows(x, out);
    }

    /// A block of rows tree by tree (each tree's nodes stay in cache while
    /// it scores the block); each row's scores add the trees in order.
    fn predict_rows(&self, x: &[f64], out: &mut [f64]) {
        let k = self.n_classes;
        if self.classes.len() < 2 {
            for o in out.chunks_mut(k) {
                scatter(&self.classes, &[1.0], o);
            }
            return;
        }
        let o = self.outputs();
        let mut f = self.scores(x, out.len() / k);
        for (fr, or) in f.chunks_mut(o).zip(out.chunks_mut(k)) {
            if o == 1 {
                let p = sigmoid(fr[0]);
                scatter(&self.classes, &[1.0 - p, p], or);
            } else {
                softmax(fr);
                scatter(&self.classes, fr, or);
            }
        }
    }

    /// Total split gain per feature, normalised.
    fn importances(&self) -> Option<Importances> {
        let mut gain = vec![0.0; self.n_features];
        for n in self.trees.iter().flat_map(|t| &t.nodes) {
            gain[n.feature as usize] += n.gain;
        }
        Some(Importances::single(gain))
    }

    /// The class weights, when they are not all 1.
    fn to_onnx(&self, g: &mut Graph, x: &Value) -> Result<Value, String> {
        self.onnx_graph(g, x)
    }

    /// The initial scores and the trees, in log-odds or margins (the
    /// leaves hold no probabilities: `leaf` does not apply).
    fn additive(&self, leaf: Option<LeafMap<'_>>) -> Result<Additive, String> {
        let _ = leaf;
        self.additive_form()
    }

    fn class_weights(&self) -> Option<&[f64]> {
        self.class_weights
            .iter()
            .any(|&w| w != 1.0)
            .then_some(&self.class_weights[..])
    }

    fn validate(&self) -> Result<(), String> {
        let k = self.n_classes;
        let o = self.outputs();
        check::classes("gbdt model", &self.classes, k)?;
        if self.classes.len() > 1 && (self.init.len() != o || !self.trees.len().is_multiple_of(o)) {
            return Err("gbdt model: scores and trees disagree with the classes".into());
        }
        if self.class_weights.len() != k
            || self
                .class_weights
                .iter()
                .any(|w| !(w.is_finite() && *w > 0.0))
        {
            return Err("gbdt model: class weights must be one per class, finite and > 0".into());
        }
        check::finite("gbdt initial score", &self.init)?;
        for (t, tree) in self.trees.iter().enumerate() {
            tree.validate(self.n_features)
                .map_err(|e| format!("gbdt tree {t}: {e}"))?;
        }
        Ok(())
    }
}
