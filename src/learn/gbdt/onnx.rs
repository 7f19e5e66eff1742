//! A fitted gradient-boosting model as an ONNX graph: its trees summed by
//! one `TreeEnsemble` node (tree `t` adds to output `t mod outputs`), the
//! initial scores added, then the sigmoid (two classes) or the softmax.

use crate::onnx::{self, tree_sum, Child, Graph, Split, TreeTable, Value};

use super::model::GbdtModel;
use super::tree::GbdtTree;

/// The tree with its leaf values at output `target` of `outputs`.
fn table(tree: &GbdtTree, target: usize, outputs: usize) -> TreeTable {
    let child = |c: i32| {
        if c < 0 {
            Child::Leaf(!c as usize)
        } else {
            Child::Split(c as usize)
        }
    };
    let splits = tree
        .nodes
        .iter()
        .map(|n| Split {
            feature: n.feature as usize,
            threshold: n.threshold,
            left: child(n.left),
            right: child(n.right),
            default_left: n.default_left,
        })
        .collect();
    let mut leaves = vec![0.0; tree.values.len() * outputs];
    for (l, &v) in tree.values.iter().enumerate() {
        leaves[l * outputs + target] = v;
    }
    let members = tree
        .sets
        .iter()
        .map(|s| s.as_ref().map(|s| s.codes().map(|c| c as f64).collect()))
        .collect();
    TreeTable {
        splits,
        leaves,
        members,
    }
}

impl GbdtModel {
    /// See [`crate::learn::Classifier::to_onnx`].
    pub(super) fn onnx_graph(&self, g: &mut Graph, x: &Value) -> Result<Value, String> {
        graph(self, g, x)
    }
}

fn graph(m: &GbdtModel, g: &mut Graph, x: &Value) -> Result<Value, String> {
    let k = m.n_classes;
    if m.classes.len() < 2 {
        let mut row = vec![0.0; k];
        row[m.classes[0]] = 1.0;
        return Ok(onnx::constant_rows(g, x, row));
    }
    let o = m.outputs();
    let tables: Vec<TreeTable> = m
        .trees
        .iter()
        .enumerate()
        .map(|(t, tree)| table(tree, t % o, o))
        .collect();
    let sums = tree_sum(g, x, &tables, o)?;
    let init = g.doubles(m.init.clone());
    let f = g.add(&init, &sums);
    let p = if o == 1 {
        let s = onnx::sigmoid(g, &f);
        onnx::binary_columns(g, &s)
    } else {
        onnx::softmax_rows(g, &f, o)
    };
    Ok(onnx::scatter_columns(g, &p, &m.classes, k))
}
