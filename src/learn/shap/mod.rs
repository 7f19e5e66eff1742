//! Exact per-row contributions of a fitted model: its output written as an
//! additive form ([`Additive`]: trees and a linear part summed in a stated
//! space), explained by path-dependent TreeSHAP (Lundberg, Erion & Lee
//! 2018; Lundberg et al. 2020, Algorithm 2 computes the same values) and
//! linear SHAP.
//!
//! **The trees.** Each tree is held as arrays ([`ShapTree`], the format
//! `rarity show --trees` writes and `shap.TreeExplainer` reads as a custom
//! model): per node its children, the child a missing value takes, the
//! split feature, the threshold or the set of level codes sent left, the
//! node's values (a leaf's output; a split's the cover-weighted mean of its
//! leaves) and its cover, the training weight that reached it. A row goes
//! left when its value is `<= threshold` (a set split: when its level is in
//! the set) and a missing value to the default child, as the model's own
//! walk sends it ([`Split::goes_left`]).
//!
//! **The values.** For leaf `l` with the unique features `P_l` of its
//! path, let `z_j` be the product of the cover fractions `cover(child) /
//! cover(node)` of the path's nodes on feature `j` and `o_j` whether the
//! row follows all of them. Path-dependent TreeSHAP is the Shapley value of
//! the game `v(S) = sum_l v_l prod_{j in P_l} (j in S ? o_j : z_j)`, which
//! for one leaf is `phi_i = v_l (o_i - z_i) int_0^1 prod_{j != i} (z_j +
//! t (o_j - z_j)) dt` (the Shapley weights `|S|! (D-|S|-1)! / D!` are the
//! Beta integrals `int t^|S| (1-t)^(D-|S|-1) dt`). The kernel
//! ([`kernel`]) evaluates these polynomials of `t` at the nodes of a
//! Gauss-Legendre rule of `ceil(D/2)` points, exact for their degree
//! `D - 1` (the polynomial form of Yu et al. 2022, "Linear TreeShap"): one
//! walk of the tree per row, `O(nodes x D/2)` instead of Algorithm 2's
//! `O(leaves x D^2)`, the same values to rounding.
//!
//! **Local accuracy.** `base + sum_i phi_i` is the model's output in the
//! form's [`Space`] for every row: the base is `v(empty)`, the
//! cover-weighted mean output of each tree, plus the form's bias.
//!
//! **Linear parts** (logistic regression, LDA): `phi_j = w_j (x_j - m_j)`
//! with `m_j` the weighted mean of feature `j` over the training rows, the
//! base `b + sum_j w_j m_j` (linear SHAP with independent features,
//! Lundberg & Lee 2017).

mod kernel;
mod quadrature;

pub use kernel::Explainer;

use serde::Serialize;

use crate::learn::tree::CatSet;

/// The space an additive form's outputs are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Space {
    /// The log-odds of the second class against the first (one output).
    LogOdds,
    /// One softmax margin per class (the probabilities are their softmax).
    Margins,
    /// Probabilities: of the second class (two classes, one output), else
    /// one per class.
    Probability,
}

impl Space {
    /// Its name in files and messages.
    pub fn name(&self) -> &'static str {
        match self {
            Space::LogOdds => "log-odds",
            Space::Margins => "margins",
            Space::Probability => "probability",
        }
    }
}

/// How a split routes a row: `x <= threshold` (or the row's level in
/// `set`) goes left; a missing value (NaN) goes left only when
/// `missing_left`.
#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    /// The split feature.
    pub feature: usize,
    /// The threshold (unused with a set).
    pub threshold: f64,
    /// The level codes sent left, for a categorical split.
    pub set: Option<CatSet>,
    /// Where a missing value goes.
    pub missing_left: bool,
}

impl Split {
    /// Whether value `v` goes left: the walk every tree's prediction takes.
    #[inline]
    pub fn goes_left(&self, v: f64) -> bool {
        if v.is_nan() {
            return self.missing_left;
        }
        match &self.set {
            Some(s) => s.contains(v),
            None => v <= self.threshold,
        }
    }
}

/// A node of a tree being read into a [`ShapTree`].
#[derive(Debug, Clone)]
pub enum Node<R> {
    /// A split and its two children.
    Split(Split, R, R),
    /// A leaf: its output values and its cover.
    Leaf(Vec<f64>, f64),
}

/// One tree as arrays, nodes in depth-first order (a split's left child
/// right after it). The JSON of `rarity show --trees` (README, "Tree
/// dumps").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShapTree {
    /// Per node, its left child (`-1` for a leaf).
    pub children_left: Vec<i64>,
    /// Per node, its right child (`-1` for a leaf).
    pub children_right: Vec<i64>,
    /// Per node, the child a missing value goes to (`-1` for a leaf).
    pub children_default: Vec<i64>,
    /// Per node, the split feature (`-1` for a leaf).
    pub features: Vec<i64>,
    /// Per node, the threshold: `x <= threshold` goes left (0 for a leaf
    /// and a set split).
    pub thresholds: Vec<f64>,
    /// Per node, the level codes a categorical split sends left (`null`
    /// otherwise).
    pub levels: Vec<Option<Vec<usize>>>,
    /// Per node, its `width` values: a leaf's outputs, a split's the
    /// cover-weighted mean of its children's.
    pub values: Vec<Vec<f64>>,
    /// Per node, the training weight that reached it (a split's is its
    /// children's sum).
    pub node_sample_weight: Vec<f64>,
    /// The sets themselves (for the walk).
    #[serde(skip)]
    sets: Vec<Option<CatSet>>,
    #[serde(skip)]
    missing_left: Vec<bool>,
}

impl ShapTree {
    /// The tree whose root is `root`, each node read by `node`. Values
    /// must have the same width at every leaf; a cover must be finite and
    /// at least 0. Nodes are read depth first, with an explicit stack (a
    /// deep tree does not recurse).
    pub fn read<R: Copy>(root: R, mut node: impl FnMut(R) -> Node<R>) -> Result<ShapTree, String> {
        let mut t = ShapTree {
            children_left: Vec::new(),
            children_right: Vec::new(),
            children_default: Vec::new(),
            features: Vec::new(),
            thresholds: Vec::new(),
            levels: Vec::new(),
            values: Vec::new(),
            node_sample_weight: Vec::new(),
            sets: Vec::new(),
            missing_left: Vec::new(),
        };
        // (node, index of its parent and whether it is the right child)
        let mut stack: Vec<(R, Option<usize>)> = vec![(root, None)];
        let mut width = None;
        while let Some((r, parent)) = stack.pop() {
            let i = t.features.len();
            if let Some(p) = parent {
                // The left child is visited right after its parent.
                if t.children_left[p] < 0 {
                    t.children_left[p] = i as i64;
                } else {
                    t.children_right[p] = i as i64;
                }
            }
            match node(r) {
                Node::Split(s, left, right) => {
                    t.children_left.push(-1);
                    t.children_right.push(-1);
                    t.children_default.push(-1);
                    t.features.push(s.feature as i64);
                    t.thresholds
                        .push(if s.set.is_some() { 0.0 } else { s.threshold });
                    t.levels.push(s.set.as_ref().map(|c| c.codes().collect()));
                    t.values.push(Vec::new());
                    t.node_sample_weight.push(0.0);
                    t.missing_left.push(s.missing_left);
                    t.sets.push(s.set);
                    stack.push((right, Some(i)));
                    stack.push((left, Some(i)));
                }
                Node::Leaf(v, cover) => {
                    if !(cover.is_finite() && cover >= 0.0) || v.iter().any(|x| !x.is_finite()) {
                        return Err(format!(
                            "a leaf has cover {cover} or a value that is not finite"
                        ));
                    }
                    if *width.get_or_insert(v.len()) != v.len() || v.is_empty() {
                        return Err("the leaves have values of different widths".into());
                    }
                    t.children_left.push(-1);
                    t.children_right.push(-1);
                    t.children_default.push(-1);
                    t.features.push(-1);
                    t.thresholds.push(0.0);
                    t.levels.push(None);
                    t.values.push(v);
                    t.node_sample_weight.push(cover);
                    t.missing_left.push(false);
                    t.sets.push(None);
                }
            }
        }
        t.fill_splits(width.unwrap_or(1));
        Ok(t)
    }

    /// Each split's cover (its children's sum) and values (their
    /// cover-weighted mean; their plain mean when nothing reached it).
    fn fill_splits(&mut self, width: usize) {
        // Children come after their parent: a reverse pass sees them first.
        for i in (0..self.features.len()).rev() {
            if self.features[i] < 0 {
                continue;
            }
            let (l, r) = (
                self.children_left[i] as usize,
                self.children_right[i] as usize,
            );
            let (cl, cr) = (self.node_sample_weight[l], self.node_sample_weight[r]);
            let c = cl + cr;
            let (fl, fr) = split_fractions(cl, cr);
            self.children_default[i] = if self.missing_left[i] { l } else { r } as i64;
            self.values[i] = (0..width)
                .map(|w| fl * self.values[l][w] + fr * self.values[r][w])
                .collect();
            self.node_sample_weight[i] = c;
        }
    }

    /// Each leaf's values changed by `f` (the splits' means follow).
    pub fn map_leaves(&mut self, mut f: impl FnMut(&mut Vec<f64>)) {
        let width = self.width();
        for i in 0..self.n_nodes() {
            if self.features[i] < 0 {
                f(&mut self.values[i]);
            }
        }
        self.fill_splits(width);
    }

    /// Number of nodes.
    pub fn n_nodes(&self) -> usize {
        self.features.len()
    }

    /// Values per node.
    pub fn width(&self) -> usize {
        self.values.first().map_or(1, Vec::len)
    }

    /// The split of node `i`, `None` for a leaf.
    pub fn split(&self, i: usize) -> Option<Split> {
        (self.features[i] >= 0).then(|| Split {
            feature: self.features[i] as usize,
            threshold: self.thresholds[i],
            set: self.sets[i].clone(),
            missing_left: self.missing_left[i],
        })
    }

    /// Every value multiplied by `s`.
    pub fn scaled(mut self, s: f64) -> ShapTree {
        self.values.iter_mut().flatten().for_each(|v| *v *= s);
        self
    }

    /// The node row `x` ends in.
    pub fn leaf(&self, x: &[f64]) -> usize {
        let mut i = 0;
        while let Some(s) = self.split(i) {
            i = if s.goes_left(x[s.feature]) {
                self.children_left[i]
            } else {
                self.children_right[i]
            } as usize;
        }
        i
    }
}

/// The fractions of a split's cover its children hold: `cl / (cl + cr)`
/// and `cr / (cl + cr)`, or a half each when nothing reached it.
pub(crate) fn split_fractions(cl: f64, cr: f64) -> (f64, f64) {
    let c = cl + cr;
    if c > 0.0 {
        (cl / c, cr / c)
    } else {
        (0.5, 0.5)
    }
}

/// Which outputs a tree's values go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Output {
    /// One output (the tree's values have width 1).
    One(usize),
    /// Every output, one value each.
    All,
}

/// One tree of an additive form and the outputs it adds to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Term {
    /// The outputs its values add to.
    pub output: Output,
    /// The tree (values already multiplied by any weight of the tree).
    #[serde(flatten)]
    pub tree: ShapTree,
}

/// The linear part of an additive form.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Linear {
    /// Row-major, `d` per output.
    pub coef: Vec<f64>,
    /// The training rows' weighted mean of each feature (linear SHAP's
    /// reference).
    pub mean: Vec<f64>,
}

/// How the trees of a form were combined (for the dump).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Combine {
    /// Summed, with the bias (boosting; values already shrunk).
    Sum,
    /// Averaged (forests, bagging): each tree's values carry `1 / n`.
    Average,
}

/// A model's output as a sum: `bias + sum of its trees' values + coef .
/// x`, per output, in [`Additive::space`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Additive {
    /// The space of the outputs.
    pub space: Space,
    /// The dataset classes the outputs stand for: two (the output is the
    /// second's against the first) when there is one output, else one per
    /// output.
    pub classes: Vec<usize>,
    /// How the trees were combined.
    pub combine: Combine,
    /// The constant of each output (boosting's initial scores).
    pub bias: Vec<f64>,
    /// The trees.
    pub trees: Vec<Term>,
    /// The linear part, if any.
    pub linear: Option<Linear>,
}

impl Additive {
    /// Number of outputs.
    pub fn outputs(&self) -> usize {
        self.bias.len()
    }

    /// A form of trees summed into `outputs` outputs.
    pub fn of_trees(space: Space, classes: Vec<usize>, bias: Vec<f64>, trees: Vec<Term>) -> Self {
        Additive {
            space,
            classes,
            combine: Combine::Sum,
            bias,
            trees,
            linear: None,
        }
    }

    /// Boosted trees over the classes `classes`: tree `t` adds to output
    /// `t % outputs` from `bias` (one output per value of `bias`: the
    /// log-odds of two classes, else each class's softmax margin).
    pub fn boosted(classes: Vec<usize>, bias: Vec<f64>, trees: Vec<ShapTree>) -> Self {
        let o = bias.len().max(1);
        let space = if o == 1 {
            Space::LogOdds
        } else {
            Space::Margins
        };
        let trees = trees
            .into_iter()
            .enumerate()
            .map(|(t, tree)| Term {
                output: Output::One(t % o),
                tree,
            })
            .collect();
        Additive::of_trees(space, classes, bias, trees)
    }

    /// Each output moved by `shift` (a prior correction in log-odds or
    /// margins: the contributions do not change, only the base).
    pub fn shift_bias(&mut self, shift: &[f64]) {
        self.bias.iter_mut().zip(shift).for_each(|(b, s)| *b += s);
    }

    /// The mean of `forms` (one output space and classes): their trees
    /// with values divided by their count, their biases and linear parts
    /// averaged.
    pub fn average(forms: Vec<Additive>) -> Result<Additive, String> {
        let n = forms.len() as f64;
        let mut it = forms.into_iter();
        let mut out = it.next().ok_or("nothing to average")?;
        let scale = |t: Term| Term {
            output: t.output,
            tree: t.tree.scaled(1.0 / n),
        };
        out.trees = std::mem::take(&mut out.trees)
            .into_iter()
            .map(scale)
            .collect();
        out.bias.iter_mut().for_each(|b| *b /= n);
        if let Some(l) = &mut out.linear {
            l.coef.iter_mut().for_each(|c| *c /= n);
        }
        for f in it {
            if f.space != out.space || f.classes != out.classes || f.outputs() != out.outputs() {
                return Err("the members' outputs differ".into());
            }
            out.bias
                .iter_mut()
                .zip(&f.bias)
                .for_each(|(b, v)| *b += v / n);
            out.trees.extend(f.trees.into_iter().map(scale));
            match (&mut out.linear, f.linear) {
                (Some(a), Some(b)) if a.mean == b.mean => a
                    .coef
                    .iter_mut()
                    .zip(&b.coef)
                    .for_each(|(c, v)| *c += v / n),
                (None, None) => {}
                _ => return Err("the members' linear parts differ".into()),
            }
        }
        out.combine = Combine::Average;
        Ok(out)
    }

    /// The outputs of row `x` as the form computes them (trees walked, the
    /// linear part added): what the contributions add up to.
    pub fn output(&self, x: &[f64]) -> Vec<f64> {
        let mut out = self.bias.clone();
        for t in &self.trees {
            let v = &t.tree.values[t.tree.leaf(x)];
            match t.output {
                Output::One(j) => out[j] += v[0],
                Output::All => out.iter_mut().zip(v).for_each(|(o, v)| *o += v),
            }
        }
        if let Some(l) = &self.linear {
            let d = l.mean.len();
            for (j, o) in out.iter_mut().enumerate() {
                *o += crate::learn::linalg::dot(&l.coef[j * d..(j + 1) * d], x);
            }
        }
        out
    }
}

/// The log-odds (or, beyond two outputs, log) shifts that undo keep rates
/// `rates` (one per dataset class) on a form whose outputs stand for
/// `classes`: `-log(r_pos / r_neg)` for one output, `-log r_k` per margin
/// (Dal Pozzolo et al. 2015, eq. 9, in log-odds).
pub fn log_shift(classes: &[usize], outputs: usize, rates: &[f64]) -> Vec<f64> {
    if outputs == 1 {
        vec![-(rates[classes[1]] / rates[classes[0]]).ln()]
    } else {
        classes.iter().map(|&c| -rates[c].ln()).collect()
    }
}

#[cfg(test)]
mod tests;
