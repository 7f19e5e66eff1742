//! A fitted tree as a [`TreeTable`] for the ONNX export, with whatever its
//! leaves should add (their probabilities, a vote, a boosting weight).

use crate::onnx::{Child, Split, TreeTable};

use super::TreeModel;

impl TreeModel {
    /// The tree with `leaves` at its leaves (leaf `l`'s values at
    /// `l * width..(l + 1) * width`).
    pub fn onnx_table(&self, leaves: Vec<f64>) -> TreeTable {
        let nodes = self.nodes();
        let mut split_of = vec![0usize; nodes.len()];
        let mut count = 0;
        for (i, n) in nodes.iter().enumerate() {
            if !n.is_leaf() {
                split_of[i] = count;
                count += 1;
            }
        }
        let child = |j: u32| {
            let n = &nodes[j as usize];
            if n.is_leaf() {
                Child::Leaf(n.left as usize)
            } else {
                Child::Split(split_of[j as usize])
            }
        };
        let members = (0..nodes.len())
            .filter(|&i| !nodes[i].is_leaf())
            .map(|i| self.set(i).map(|s| s.codes().map(|c| c as f64).collect()))
            .collect();
        let splits = nodes
            .iter()
            .filter(|n| !n.is_leaf())
            .map(|n| Split {
                feature: n.feature as usize,
                threshold: n.threshold,
                left: child(n.left),
                right: child(n.right),
                default_left: n.default_left,
            })
            .collect();
        TreeTable {
            splits,
            leaves,
            members,
        }
    }

    /// Every leaf's probabilities, leaf by leaf.
    pub fn leaf_table(&self) -> Vec<f64> {
        (0..self.n_leaves())
            .flat_map(|l| self.proba_of_leaf(l).iter().copied())
            .collect()
    }
}
