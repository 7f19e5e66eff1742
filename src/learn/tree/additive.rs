//! A fitted tree as the arrays its contributions are computed from
//! ([`crate::learn::shap`]): its splits as it routes rows
//! ([`TreeModel::leaf_index`]: `x <= threshold` or the level in the set
//! goes left, a missing value right), each leaf's class probabilities
//! (through a leaf map, when a stage changes them) and its cover, the
//! weighted class totals of the training rows that reached it.

use super::model::TreeModel;
use crate::learn::shap::{Node, ShapTree, Split};
use crate::learn::LeafMap;

impl TreeModel {
    /// The tree's arrays: each leaf's values are `pick` of its class
    /// probabilities after `leaf`.
    pub fn shap_tree(
        &self,
        leaf: Option<LeafMap<'_>>,
        pick: impl Fn(&[f64]) -> Vec<f64>,
    ) -> Result<ShapTree, String> {
        let nodes = self.nodes();
        ShapTree::read(0usize, |i| {
            let n = nodes[i];
            if n.is_leaf() {
                let l = n.left as usize;
                let mut p = self.proba_of_leaf(l).to_vec();
                if let Some(f) = leaf {
                    f(&mut p);
                }
                return Node::Leaf(pick(&p), self.leaf_counts(l).iter().sum());
            }
            let split = Split {
                feature: n.feature as usize,
                threshold: n.threshold,
                set: self.set(i).cloned(),
                missing_left: n.default_left,
            };
            Node::Split(split, n.left as usize, n.right as usize)
        })
    }

    /// The values a tree of `k` classes explains: the second class's
    /// probability of two classes, else every class's.
    pub fn explained(k: usize) -> fn(&[f64]) -> Vec<f64> {
        if k == 2 {
            |p| vec![p[1]]
        } else {
            |p| p.to_vec()
        }
    }
}
