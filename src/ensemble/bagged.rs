//! The fitted ensemble: member models, each member's class keep rates, and the
//! vote that combines them (Collell et al. 2018, Algorithm 1, steps 2.2-2.4).

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::data::{Dataset, Proba};
use crate::error::{Error, Result};
use crate::learn::shap::{Additive, Space};
use crate::learn::tree::TreeModel;
use crate::learn::{
    check_features, in_blocks_of, shape, Classifier, Importances, Kind, LeafMap, MemberHook, Model,
    ROW_CHUNK,
};
use crate::onnx::{Graph, Value};
use crate::params::choice;

/// Rows per parallel task when a forest scores: each tree walks the whole
/// block before the next tree starts, so a larger block lets a tree's
/// nodes, once in cache, serve more rows, as long as the block's rows
/// (4,096 x 30 features: 1 MB) and a tree still fit in the core's L2
/// cache; and every thread should get blocks. Measured with every other
/// job paused, `predict` of 1,000,000 `generate fraud` rows, 100-tree
/// forests fitted on undersamples of 117,000 and 671,000 rows: 5.6-6.3 s
/// and 9.4-9.5 s with 256-row blocks, 5.3 s and 8.2 s with 4,096 (on the
/// first, 16,384 was no faster than 256: its rows no longer stay in L2). The
/// probabilities do not depend on it (each row adds its trees in order).
/// Below this many rows in a block, each row walks the trees several at a
/// time ([`TreeModel::leaves_of_row`]) instead of each tree walking the
/// rows ([`TreeModel::each_leaf`], which walks fewer than 16 rows one by
/// one).
const FEW_ROWS: usize = 16;

fn forest_block(n: usize) -> usize {
    const MOST: usize = 4096;
    if n <= ROW_CHUNK {
        return ROW_CHUNK;
    }
    n.div_ceil(2 * rayon::current_num_threads())
        .clamp(ROW_CHUNK, MOST)
}

choice! {
    /// How member predictions are combined.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    pub enum Vote {
        /// Average the members' probabilities and renormalise (Algorithm 1,
        /// steps 2.3-2.4 of the PT-bagging paper).
        Soft = "soft",
        /// The fraction of members whose most probable class is `k` (lowest
        /// class id on ties).
        Hard = "hard",
    }
}

/// A fitted ensemble: any models as members, combined by a [`Vote`].
///
/// Each member keeps the prior shift of its training sample: the per-class
/// keep rates it had ([`crate::sample::Sample::keep_rates`]), or 1 for every
/// class when the sampler keeps the priors by design
/// ([`crate::sample::Sampler::keeps_priors`], the plain bootstrap), times the
/// member model's own class weights ([`Classifier::class_weights`], which act
/// as keep rates), so that a calibration stage can undo each member's shift
/// before averaging with
/// [`BaggedModel::predict_proba_with`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BaggedModel {
    n_classes: usize,
    n_features: usize,
    members: Vec<Model>,
    keep_rates: Vec<Vec<f64>>,
    vote: Vote,
}

impl Kind for BaggedModel {
    const KIND: &'static str = "Bagged";
}

impl BaggedModel {
    /// An ensemble of `members` (at least one, all with the same classes and
    /// features), with one keep-rate vector per member.
    pub fn new(members: Vec<Model>, keep_rates: Vec<Vec<f64>>, vote: Vote) -> Result<Self> {
        let first = members
            .first()
            .ok_or_else(|| Error::invalid("an ensemble needs at least one member"))?;
        let m = BaggedModel {
            n_classes: first.n_classes(),
            n_features: first.n_features(),
            members,
            keep_rates,
            vote,
        };
        m.validate().map_err(Error::invalid)?;
        Ok(m)
    }

    /// The member models, in training order.
    pub fn members(&self) -> &[Model] {
        &self.members
    }

    /// Per member, the keep rate of each class in its training sample.
    pub fn keep_rates(&self) -> &[Vec<f64>] {
        &self.keep_rates
    }

    /// The vote.
    pub fn vote(&self) -> Vote {
        self.vote
    }

    /// One row: each member's probabilities go through `hook(member index,
    /// member keep rates, probabilities)` before the vote. `tmp` is scratch of
    /// length `k`.
    fn predict_row_with<F>(&self, x: &[f64], out: &mut [f64], tmp: &mut [f64], hook: &F)
    where
        F: Fn(usize, &[f64], &mut [f64]) + Sync,
    {
        out.iter_mut().for_each(|v| *v = 0.0);
        for (i, m) in self.members.iter().enumerate() {
            m.predict_row(x, tmp);
            hook(i, &self.keep_rates[i], tmp);
            add_vote(self.vote, tmp, out);
        }
        finish_row(out, self.members.len());
    }

    /// Probabilities for every row of `data`, after passing each member's
    /// probabilities of each row through `hook(member index, member keep
    /// rates, probabilities)`; e.g. the prior-shift correction
    /// `p_k ∝ p_k / r_k` of a calibration stage. The result is the same for
    /// any thread count (each row sums its members in member order).
    ///
    /// ```
    /// use rarity::data::Dataset;
    /// use rarity::ensemble::Bagging;
    /// let ds = Dataset::from_rows((0..20).map(|i| vec![i as f64]).collect(),
    ///     (0..20).map(|i| (i >= 15) as u32).collect(), vec!["n".into(), "p".into()]).unwrap();
    /// let model = Bagging::forest(5).fit_dataset(&ds, 1).unwrap();
    /// // Undo each member's keep rates (1 for a bootstrap, which keeps the priors).
    /// let p = model.predict_proba_with(&ds, |_, r, p| {
    ///     p.iter_mut().zip(r).for_each(|(v, r)| *v /= r);
    ///     let s: f64 = p.iter().sum();
    ///     p.iter_mut().for_each(|v| *v /= s);
    /// }).unwrap();
    /// assert_eq!(p.n_rows(), 20);
    /// ```
    pub fn predict_proba_with<F>(&self, data: &Dataset, hook: F) -> Result<Proba>
    where
        F: Fn(usize, &[f64], &mut [f64]) + Sync,
    {
        check_features(self.n_features, data)?;
        let k = self.n_classes;
        let d = data.n_features();
        // Forests: each tree finds the leaves of a whole block of rows at
        // once (compact nodes, rows walked in step); the arithmetic per row
        // is that of the general path below.
        let trees: Option<Vec<&TreeModel>> = self
            .members
            .iter()
            .map(|m| m.downcast_ref::<TreeModel>())
            .collect();
        let n = data.n_rows();
        let rows = match &trees {
            Some(_) => forest_block(n),
            None => ROW_CHUNK,
        };
        // A tree's output for a row is its leaf's probabilities through
        // the hook: computed once per leaf, not once per row, unless the
        // tree has more leaves than there are rows (a few rows: through
        // the hook row by row, the same values without a table to build).
        let hooked: Vec<Option<Vec<f64>>> = match &trees {
            Some(trees) if trees.iter().all(|t| t.n_leaves() > n) => vec![None; trees.len()],
            Some(trees) => trees
                .par_iter()
                .enumerate()
                .map(|(i, t)| {
                    if t.n_leaves() > n {
                        return None;
                    }
                    let mut table = Vec::with_capacity(t.n_leaves() * k);
                    for leaf in 0..t.n_leaves() {
                        let start = table.len();
                        table.extend_from_slice(t.proba_of_leaf(leaf));
                        hook(i, &self.keep_rates[i], &mut table[start..]);
                    }
                    Some(table)
                })
                .collect(),
            None => Vec::new(),
        };
        let p = in_blocks_of(data.n_rows(), k, rows, |first, chunk| {
            let mut tmp = vec![0.0; k];
            match &trees {
                Some(trees) if chunk.len() / k < FEW_ROWS => {
                    // A few rows: each walks all trees, several at a time.
                    let mut leaves = vec![0u32; trees.len()];
                    for (j, out) in chunk.chunks_mut(k).enumerate() {
                        TreeModel::leaves_of_row(trees, data.row(first + j), &mut leaves);
                        for (i, ((t, table), &l)) in
                            trees.iter().zip(&hooked).zip(&leaves).enumerate()
                        {
                            let p = leaf_vote(table, t, l as usize, &mut tmp, |p| {
                                hook(i, &self.keep_rates[i], p)
                            });
                            add_vote(self.vote, p, out);
                        }
                    }
                }
                Some(trees) => {
                    let rows = chunk.len() / k;
                    let x = &data.features()[first * d..(first + rows) * d];
                    for (i, (t, table)) in trees.iter().zip(&hooked).enumerate() {
                        t.each_leaf(x, d, rows, |r, l| {
                            let p = leaf_vote(table, t, l as usize, &mut tmp, |p| {
                                hook(i, &self.keep_rates[i], p)
                            });
                            add_vote(self.vote, p, &mut chunk[r * k..(r + 1) * k]);
                        });
                    }
                }
                None => {
                    // Member-major within the block keeps one member's nodes
                    // hot; each row still adds its members in member order.
                    for (i, m) in self.members.iter().enumerate() {
                        for (j, out) in chunk.chunks_mut(k).enumerate() {
                            m.predict_row(data.row(first + j), &mut tmp);
                            hook(i, &self.keep_rates[i], &mut tmp);
                            add_vote(self.vote, &tmp, out);
                        }
                    }
                }
            }
            for out in chunk.chunks_mut(k) {
                finish_row(out, self.members.len());
            }
        });
        Ok(p)
    }

    /// The members' additive forms averaged, member `i`'s leaf
    /// probabilities passed through `map(i, ..)` first: exact for a soft
    /// vote of members in probability space (trees), whose average is the
    /// vote (each member's probabilities sum to 1, so the vote's
    /// renormalisation changes nothing).
    fn additive_with(
        &self,
        map: impl Fn(usize, &mut [f64]) + Sync,
    ) -> std::result::Result<Additive, String> {
        if self.vote == Vote::Hard {
            return Err(
                "ensembles with a hard vote (the members' votes are counted, not summed)".into(),
            );
        }
        let mut forms = Vec::with_capacity(self.members.len());
        for (i, m) in self.members.iter().enumerate() {
            let f = m.additive(Some(&|p: &mut [f64]| map(i, p)))?;
            if f.space != Space::Probability {
                return Err(format!(
                    "ensembles of {} members (the vote averages their probabilities, a sum \
                     only for trees)",
                    m.kind()
                ));
            }
            forms.push(f);
        }
        Additive::average(forms)
    }

    /// Probabilities of member `i` alone.
    pub fn member_proba(&self, i: usize, data: &Dataset) -> Result<Proba> {
        let m = self.members.get(i).ok_or_else(|| {
            Error::invalid(format!(
                "member {i} requested; the ensemble has {}",
                self.members.len()
            ))
        })?;
        m.predict_proba(data)
    }
}

impl Classifier for BaggedModel {
    shape!(n_classes, n_features);

    /// Probabilities of one row (see [`Model::predict_row`]).
    fn predict_row(&self, x: &[f64], out: &mut [f64]) {
        let mut tmp = vec![0.0; self.n_classes];
        self.predict_row_with(x, out, &mut tmp, &|_, _, _| {});
    }

    /// Probabilities of the ensemble (see [`Model::predict_proba`]).
    fn predict_proba(&self, data: &Dataset) -> Result<Proba> {
        self.predict_proba_with(data, |_, _, _| {})
    }

    fn to_onnx(&self, g: &mut Graph, x: &Value) -> std::result::Result<Value, String> {
        self.to_onnx_with(g, x, None)
    }

    fn member_keep_rates(&self) -> Option<&[Vec<f64>]> {
        Some(&self.keep_rates)
    }

    fn additive(&self, leaf: Option<LeafMap<'_>>) -> std::result::Result<Additive, String> {
        self.additive_with(|_, p| {
            if let Some(f) = leaf {
                f(p)
            }
        })
    }

    fn additive_members(&self, hook: MemberHook<'_>) -> std::result::Result<Additive, String> {
        self.additive_with(|i, p| hook(i, &self.keep_rates[i], p))
    }

    fn predict_proba_members(&self, data: &Dataset, hook: MemberHook<'_>) -> Result<Proba> {
        self.predict_proba_with(data, hook)
    }

    fn to_onnx_members(
        &self,
        g: &mut Graph,
        x: &Value,
        hook: MemberHook<'_>,
    ) -> std::result::Result<Value, String> {
        self.to_onnx_with(g, x, Some(hook))
    }

    /// The mean of the members' normalised importances over the members
    /// with a split, with their std ([`Importances::over_members`]); `None`
    /// when a member has no importances.
    fn importances(&self) -> Option<Importances> {
        let each = self
            .members
            .iter()
            .map(Model::importances)
            .collect::<Option<Vec<_>>>()?;
        Some(Importances::over_members(&each))
    }

    /// Checks members and keep rates agree; says what is wrong.
    fn validate(&self) -> std::result::Result<(), String> {
        if self.members.is_empty() {
            return Err("ensemble has no members".into());
        }
        if self.keep_rates.len() != self.members.len() {
            return Err("ensemble has one keep-rate vector per member missing".into());
        }
        for (i, (m, r)) in self.members.iter().zip(&self.keep_rates).enumerate() {
            if m.n_classes() != self.n_classes || m.n_features() != self.n_features {
                return Err(format!("ensemble member {i} has another shape"));
            }
            if r.len() != self.n_classes {
                return Err(format!("ensemble member {i} has {} keep rates", r.len()));
            }
            crate::check::non_negative(&format!("ensemble member {i} keep rate"), r)?;
            m.validate()
                .map_err(|e| format!("ensemble member {i}: {e}"))?;
        }
        Ok(())
    }
}

/// Averages a row of summed votes and renormalises it (Algorithm 1, step 2.4).
/// A tree member's probabilities at leaf `l` after its hook: the row of its
/// precomputed `table`, or, without one, the leaf's probabilities passed
/// through `hook` in `tmp`.
#[inline]
fn leaf_vote<'a>(
    table: &'a Option<Vec<f64>>,
    t: &TreeModel,
    l: usize,
    tmp: &'a mut [f64],
    hook: impl FnOnce(&mut [f64]),
) -> &'a [f64] {
    let k = tmp.len();
    match table {
        Some(table) => &table[l * k..(l + 1) * k],
        None => {
            tmp.copy_from_slice(t.proba_of_leaf(l));
            hook(tmp);
            tmp
        }
    }
}

/// Adds a member's vote for probabilities `p` to `out`: `p` itself (soft),
/// or 1 for its first most probable class (hard).
#[inline]
pub(super) fn add_vote(vote: Vote, p: &[f64], out: &mut [f64]) {
    match vote {
        Vote::Soft => out.iter_mut().zip(p).for_each(|(o, v)| *o += v),
        Vote::Hard => {
            let mut best = 0;
            for c in 1..p.len() {
                if p[c] > p[best] {
                    best = c;
                }
            }
            out[best] += 1.0;
        }
    }
}

#[inline]
fn finish_row(out: &mut [f64], n: usize) {
    out.iter_mut().for_each(|v| *v /= n as f64);
    let s: f64 = out.iter().sum();
    if s > 0.0 {
        out.iter_mut().for_each(|v| *v /= s);
    } else {
        let k = out.len() as f64;
        out.iter_mut().for_each(|v| *v = 1.0 / k);
    }
}
