//! A boosted tree as the arrays its contributions are computed from
//! ([`crate::learn::shap`]): its splits as [`GbdtTree::leaf`] routes rows
//! (`x <= threshold` or the level in the set goes left, a missing value
//! right), its leaf values and its leaves' covers (the rows of the round's
//! sample that reached them, [`GbdtTree::covers`]).

use super::model::GbdtModel;
use super::tree::GbdtTree;
use crate::learn::shap::{Additive, Node, ShapTree, Split};

impl GbdtTree {
    /// The tree's arrays, or why there are none (a file written before
    /// trees kept their covers).
    pub fn shap_tree(&self) -> Result<ShapTree, String> {
        if self.covers.len() != self.values.len() {
            return Err(
                "gbdt models saved before rarity kept each leaf's training rows, which \
                 contributions weigh paths by: fit the model again with this version"
                    .into(),
            );
        }
        let root = if self.nodes.is_empty() { -1 } else { 0 };
        ShapTree::read(root, |c: i32| {
            if c < 0 {
                let l = !c as usize;
                return Node::Leaf(vec![self.values[l]], self.covers[l]);
            }
            let n = self.nodes[c as usize];
            let split = Split {
                feature: n.feature as usize,
                threshold: n.threshold,
                set: self.set(c as usize).cloned(),
                missing_left: n.default_left,
            };
            Node::Split(split, n.left, n.right)
        })
    }
}

impl GbdtModel {
    /// The initial scores plus every tree, each adding to its output: the
    /// log-odds of two classes, else each class's softmax margin.
    pub(super) fn additive_form(&self) -> Result<Additive, String> {
        if self.classes.len() < 2 {
            return Err("a gbdt model of one class".into());
        }
        let trees = self
            .trees
            .iter()
            .map(GbdtTree::shap_tree)
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Additive::boosted(
            self.classes.clone(),
            self.init.clone(),
            trees,
        ))
    }
}
