//! A bagging ensemble as an ONNX graph. Tree members are one `TreeEnsemble`
//! node whose leaves hold each member's vote (its leaf's probabilities, or
//! their argmax for a hard vote), after the hook that corrects a member's
//! probabilities by its own keep rates (`+correct(mode=member)`) has been
//! applied to every leaf; other members are summed node by node (soft
//! votes without a hook only). The sum is divided by the number of members
//! and renormalised, as [`BaggedModel`] predicts.

use crate::learn::tree::TreeModel;
use crate::learn::{Classifier, MemberHook};
use crate::onnx::{self, tree_sum, Graph, TreeTable, Value};

use super::bagged::{add_vote, BaggedModel, Vote};

impl BaggedModel {
    /// The ensemble's probabilities in `g`, each member's passed through
    /// `hook` first (`None`: as they are).
    pub fn to_onnx_with(
        &self,
        g: &mut Graph,
        x: &Value,
        hook: Option<MemberHook<'_>>,
    ) -> Result<Value, String> {
        let k = self.n_classes();
        let trees: Option<Vec<&TreeModel>> = self
            .members()
            .iter()
            .map(|m| m.downcast_ref::<TreeModel>())
            .collect();
        let sum = match trees {
            Some(trees) => {
                let tables: Vec<TreeTable> = trees
                    .iter()
                    .enumerate()
                    .map(|(i, t)| {
                        let mut leaves = vec![0.0; t.n_leaves() * k];
                        let mut p = vec![0.0; k];
                        for (l, out) in leaves.chunks_mut(k).enumerate() {
                            p.copy_from_slice(t.proba_of_leaf(l));
                            if let Some(h) = hook {
                                h(i, &self.keep_rates()[i], &mut p);
                            }
                            add_vote(self.vote(), &p, out);
                        }
                        t.onnx_table(leaves)
                    })
                    .collect();
                tree_sum(g, x, &tables, k)?
            }
            None if hook.is_none() && self.vote() == Vote::Soft => {
                let mut sum: Option<Value> = None;
                for m in self.members() {
                    let p = m.to_onnx(g, x)?;
                    sum = Some(match sum {
                        Some(s) => g.add(&s, &p),
                        None => p,
                    });
                }
                sum.ok_or("an ensemble without members")?
            }
            None => {
                return Err(
                    "bagging ensembles of non-tree members with a hard vote or a per-member \
                     correction"
                        .into(),
                )
            }
        };
        let n = g.scalar(self.members().len() as f64);
        let mean = g.div(&sum, &n);
        Ok(onnx::normalise_rows(g, &mean, k))
    }
}
