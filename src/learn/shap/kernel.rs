//! The walk that gives a row's contributions, tree by tree: the module
//! doc's polynomials of `t` held by their values at the nodes `t_k` of a
//! Gauss-Legendre rule.
//!
//! Walking down from the root, each node keeps `G(t_k)`, the product over
//! the unique features of its path of their factors `q_j(t) = z_j +
//! t (o_j - z_j)`; a leaf returns `H = v G`, and a split returns the sum of
//! its children's. Feature `i` of the edge into child `c` adds `sum_k w_k
//! (a_i(t_k) - a'_i(t_k)) H_c(t_k)`, with `a = (o - z) / q` after the edge
//! and `a'` before it (1 and 0 at the feature's first split): summed along
//! a path, these differences telescope to the leaf's own
//! `(o_i - z_i) / q_i`, so each feature gets `v_l (o_i - z_i) int G_l / q_i
//! dt` from each leaf, the module doc's value. Whether the row follows an edge is known
//! only for the row, but `o` is 0 or 1, so each edge holds the three
//! multipliers of `G` (hot to hot, hot to cold, cold to cold) and the two
//! differences `a - a'` (cold to cold adds nothing) as tables, built once
//! per model ([`Explainer::new`]).
//!
//! Rows are explained in blocks, each block tree by tree (a tree's tables
//! stay in cache while it walks the block's rows), eight rows walking each
//! tree in step ([`LANES`]), in parallel over blocks; a row's values add its trees in tree order whatever the block,
//! so they do not depend on the block size or the thread count.

use rayon::prelude::*;

use super::quadrature::gauss_legendre;
use super::{split_fractions, Additive, Output, ShapTree};
use crate::learn::tree::CatSet;

/// Marks "none" in [`Flat::set`] and a leaf's children.
const NONE: u32 = u32::MAX;

/// Rows explained per parallel task.
const BLOCK: usize = 64;

/// One node of the walk.
#[derive(Debug, Clone, Copy)]
struct Flat {
    threshold: f64,
    feature: u32,
    left: u32,
    right: u32,
    set: u32,
    missing_left: bool,
}

impl Flat {
    #[inline(always)]
    fn is_leaf(&self) -> bool {
        self.left == NONE
    }

    /// [`super::Split::goes_left`] on the node's copy of the split.
    #[inline(always)]
    fn goes_left(&self, x: &[f64], sets: &[CatSet]) -> bool {
        let v = x[self.feature as usize];
        if v.is_nan() {
            return self.missing_left;
        }
        if self.set == NONE {
            v <= self.threshold
        } else {
            sets[self.set as usize].contains(v)
        }
    }
}

/// One tree prepared for the walk.
#[derive(Debug, Clone)]
struct Prepared {
    /// Quadrature nodes.
    m: usize,
    width: usize,
    output: Output,
    /// Depth of the deepest leaf.
    depth: usize,
    nodes: Vec<Flat>,
    /// Per node, the tables of the edge into it: `6 m` values (the
    /// multipliers hot-hot, hot-cold and cold-cold, then the weighted
    /// differences in the same order).
    edges: Vec<f64>,
    /// Per node, `width` values (leaves').
    values: Vec<f64>,
}

/// An additive form made ready to explain rows: the trees' tables, the
/// base values and the linear part.
#[derive(Debug, Clone)]
pub struct Explainer {
    outputs: usize,
    d: usize,
    trees: Vec<Prepared>,
    sets: Vec<CatSet>,
    base: Vec<f64>,
    linear: Option<(Vec<f64>, Vec<f64>)>,
}

/// The quadrature points of a tree whose paths hold at most `unique`
/// distinct features: `ceil(unique / 2)`, rounded up to a power of two up
/// to 64 (a rule of more points is exact too, and the walk's loops then
/// have a length known when compiled).
fn points(unique: usize) -> usize {
    let m = unique.div_ceil(2).max(1);
    if m <= 64 {
        m.next_power_of_two()
    } else {
        m
    }
}

impl Explainer {
    /// Prepares `form` for rows of `d` features. Fails when a tree splits
    /// on a feature beyond `d` or its nodes are not in depth-first order.
    pub fn new(form: &Additive, d: usize) -> Result<Explainer, String> {
        let outputs = form.outputs();
        let mut base = form.bias.clone();
        let mut sets = Vec::new();
        let mut trees = Vec::with_capacity(form.trees.len());
        for term in &form.trees {
            let p = prepare(&term.tree, term.output, d, outputs, &mut sets)?;
            let root = &term.tree.values[0];
            match term.output {
                Output::One(j) => base[j] += root[0],
                Output::All => base.iter_mut().zip(root).for_each(|(b, v)| *b += v),
            }
            trees.push(p);
        }
        let linear = match &form.linear {
            Some(l) => {
                if l.mean.len() != d || l.coef.len() != d * outputs {
                    return Err("the linear part does not match the features".into());
                }
                for (j, b) in base.iter_mut().enumerate() {
                    *b += crate::learn::linalg::dot(&l.coef[j * d..(j + 1) * d], &l.mean);
                }
                Some((l.coef.clone(), l.mean.clone()))
            }
            None => None,
        };
        Ok(Explainer {
            outputs,
            d,
            trees,
            sets,
            base,
            linear,
        })
    }

    /// Number of outputs.
    pub fn outputs(&self) -> usize {
        self.outputs
    }

    /// Values per row: `outputs x (d + 1)`, each output's `d`
    /// contributions followed by its base value (LightGBM's `pred_contrib`
    /// layout).
    pub fn row_len(&self) -> usize {
        self.outputs * (self.d + 1)
    }

    /// The contributions of the `rows` rows of the row-major `x` (`d`
    /// values each) into `out` ([`Explainer::row_len`] per row), in
    /// parallel over blocks of rows.
    pub fn explain(&self, x: &[f64], out: &mut [f64]) {
        let (d, len) = (self.d.max(1), self.row_len());
        out.par_chunks_mut(len * BLOCK)
            .zip(x.par_chunks(d * BLOCK))
            .for_each(|(o, x)| self.explain_block(x, o));
    }

    /// One block of rows, tree by tree.
    fn explain_block(&self, x: &[f64], out: &mut [f64]) {
        let (d, len) = (self.d, self.row_len());
        out.iter_mut().for_each(|v| *v = 0.0);
        let mut s = Scratch {
            g: Vec::new(),
            h: Vec::new(),
            hot: vec![[true; LANES]; d],
            frames: Vec::new(),
        };
        let rows = out.len() / len;
        for t in &self.trees {
            s.fit(t);
            for first in (0..rows).step_by(LANES) {
                let lanes = LANES.min(rows - first);
                let xr = &x[first * d..(first + lanes) * d];
                let phi = &mut out[first * len..(first + lanes) * len];
                let sets = &self.sets[..];
                match t.m {
                    1 => walk::<1>(t, sets, xr, lanes, d, phi, len, &mut s),
                    2 => walk::<2>(t, sets, xr, lanes, d, phi, len, &mut s),
                    4 => walk::<4>(t, sets, xr, lanes, d, phi, len, &mut s),
                    8 => walk::<8>(t, sets, xr, lanes, d, phi, len, &mut s),
                    16 => walk::<16>(t, sets, xr, lanes, d, phi, len, &mut s),
                    32 => walk::<32>(t, sets, xr, lanes, d, phi, len, &mut s),
                    _ => walk::<0>(t, sets, xr, lanes, d, phi, len, &mut s),
                }
            }
        }
        for r in 0..rows {
            let phi = &mut out[r * len..(r + 1) * len];
            for j in 0..self.outputs {
                phi[j * (d + 1) + d] = self.base[j];
            }
            if let Some((coef, mean)) = &self.linear {
                let xr = &x[r * d..(r + 1) * d];
                for j in 0..self.outputs {
                    for f in 0..d {
                        phi[j * (d + 1) + f] += coef[j * d + f] * (xr[f] - mean[f]);
                    }
                }
            }
        }
    }
}

/// Rows walking a tree together, in step: the tree's path is the same
/// for every row (only which edges each row follows differs), so the
/// walk's bookkeeping is paid once for them all and its arithmetic runs
/// over `LANES x m` values at a time.
const LANES: usize = 8;

/// The buffers of one block's walks.
struct Scratch {
    /// `G` per depth, lane and quadrature node.
    g: Vec<f64>,
    /// `H` per depth, lane, output and quadrature node.
    h: Vec<f64>,
    /// Per feature and lane, whether the row has followed every split on
    /// the feature so far.
    hot: Vec<[bool; LANES]>,
    frames: Vec<Frame>,
}

impl Scratch {
    /// Room for tree `t`'s walks.
    fn fit(&mut self, t: &Prepared) {
        let levels = t.depth + 2;
        self.g.resize(levels * LANES * t.m, 0.0);
        self.h.resize(levels * LANES * t.m * t.width, 0.0);
    }
}

/// A split on the walk's path.
#[derive(Debug, Clone, Copy)]
struct Frame {
    node: u32,
    /// 1 once its left child is entered, 2 once its right one is.
    stage: u8,
    /// Per lane, whether the row goes left.
    left_goes: [bool; LANES],
    /// Per lane, the row's state of the split's feature above it.
    hot_before: [bool; LANES],
}

/// How the row's state of the edge's feature changes along the edge: its
/// tables' place in the edge's six rows (hot to hot, hot to cold, cold to
/// cold).
#[inline(always)]
fn case_of(hot_before: bool, follows: bool) -> usize {
    match (hot_before, follows) {
        (false, _) => 2,
        (true, true) => 0,
        (true, false) => 1,
    }
}

/// `sum_k a_k b_k`.
#[inline(always)]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

// long: the walk is one loop over an explicit stack (down to a child, a
// leaf's value back up, a split's sum back up), whose three steps share
// the stack, the lanes' buffers and the tables; apart they would pass all
// of them.
/// Adds tree `t`'s contributions of the `lanes` rows of `x` (`d` values
/// each) to theirs in `phi` (`len` values each), `N` quadrature points
/// (`t.m` when `N` is 0).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn walk<const N: usize>(
    t: &Prepared,
    sets: &[CatSet],
    x: &[f64],
    lanes: usize,
    d: usize,
    phi: &mut [f64],
    len: usize,
    s: &mut Scratch,
) {
    let m = if N == 0 { t.m } else { N };
    let w = t.width;
    let (gl, hl) = (LANES * m, LANES * w * m);
    if t.nodes[0].is_leaf() {
        return;
    }
    let at = |o: usize| match t.output {
        Output::One(j) => j * (d + 1),
        Output::All => o * (d + 1),
    };
    let Scratch { g, h, hot, frames } = s;
    g[..gl].iter_mut().for_each(|v| *v = 1.0);
    frames.clear();
    frames.push(Frame {
        node: 0,
        stage: 0,
        left_goes: [false; LANES],
        hot_before: [true; LANES],
    });
    while !frames.is_empty() {
        let depth = frames.len() - 1;
        let top = &mut frames[depth];
        let n = t.nodes[top.node as usize];
        let f = n.feature as usize;
        let (child, left) = match top.stage {
            0 => {
                for l in 0..lanes {
                    top.left_goes[l] = n.goes_left(&x[l * d..(l + 1) * d], sets);
                }
                top.hot_before = hot[f];
                top.stage = 1;
                h[depth * hl..(depth + 1) * hl]
                    .iter_mut()
                    .for_each(|v| *v = 0.0);
                (n.left as usize, true)
            }
            1 => {
                top.stage = 2;
                (n.right as usize, false)
            }
            _ => {
                // Both children are done: hand this node's H to its parent.
                let me = top.node as usize;
                frames.pop();
                let Some(parent) = frames.last() else { break };
                let pf = t.nodes[parent.node as usize].feature as usize;
                hot[pf] = parent.hot_before;
                let e = &t.edges[me * 6 * m..(me + 1) * 6 * m];
                let (lower, upper) = h.split_at_mut(depth * hl);
                let hp = &mut lower[(depth - 1) * hl..depth * hl];
                for l in 0..lanes {
                    let follows = (parent.stage == 1) == parent.left_goes[l];
                    let c = case_of(parent.hot_before[l], follows);
                    let diff = &e[(3 + c) * m..(4 + c) * m];
                    let row = &mut phi[l * len..(l + 1) * len];
                    for o in 0..w {
                        let at_k = (l * w + o) * m;
                        let hco = &upper[at_k..at_k + m];
                        row[at(o) + pf] += dot(diff, hco);
                        let hpo = &mut hp[at_k..at_k + m];
                        (0..m).for_each(|k| hpo[k] += hco[k]);
                    }
                }
                continue;
            }
        };
        let e = &t.edges[child * 6 * m..(child + 1) * 6 * m];
        let (gp, gc) = g.split_at_mut((depth + 1) * gl);
        let gp = &gp[depth * gl..];
        let cn = t.nodes[child];
        let mut cases = [0usize; LANES];
        for l in 0..lanes {
            let c = case_of(top.hot_before[l], top.left_goes[l] == left);
            cases[l] = c;
            let mult = &e[c * m..(c + 1) * m];
            let (gpl, gcl) = (&gp[l * m..(l + 1) * m], &mut gc[l * m..(l + 1) * m]);
            (0..m).for_each(|k| gcl[k] = gpl[k] * mult[k]);
        }
        if cn.is_leaf() {
            let v = &t.values[child * w..(child + 1) * w];
            let hp = &mut h[depth * hl..(depth + 1) * hl];
            for l in 0..lanes {
                let gcl = &gc[l * m..(l + 1) * m];
                let c = cases[l];
                let dl = dot(&e[(3 + c) * m..(4 + c) * m], gcl);
                let row = &mut phi[l * len..(l + 1) * len];
                for (o, &vo) in v.iter().enumerate() {
                    let ho = &mut hp[(l * w + o) * m..(l * w + o + 1) * m];
                    (0..m).for_each(|k| ho[k] += vo * gcl[k]);
                    row[at(o) + f] += vo * dl;
                }
            }
            continue;
        }
        let hf = &mut hot[f];
        for l in 0..lanes {
            hf[l] = cases[l] == 0;
        }
        frames.push(Frame {
            node: child as u32,
            stage: 0,
            left_goes: [false; LANES],
            hot_before: [true; LANES],
        });
    }
}

/// `q(t) = z + t (o - z)` for a hot (`o = 1`) or cold (`o = 0`) feature.
fn q(z: f64, hot: bool, t: f64) -> f64 {
    if hot {
        z + t * (1.0 - z)
    } else {
        z * (1.0 - t)
    }
}

/// `a(t) = (o - z) / q(t)`: `(1 - z) / q` when hot, `-1 / (1 - t)` when
/// cold (whatever `z`).
fn a(z: f64, hot: bool, t: f64) -> f64 {
    if hot {
        (1.0 - z) / q(z, true, t)
    } else {
        -1.0 / (1.0 - t)
    }
}

// long: one depth-first pass builds every table of the walk (the nodes'
// copies, each edge's multipliers and differences from the cover fraction
// products of its path, the depth and the rule's size), which share the
// pass's stack of per-feature products.
/// The walk's tables of `tree`, its sets appended to `sets`.
fn prepare(
    tree: &ShapTree,
    output: Output,
    d: usize,
    outputs: usize,
    sets: &mut Vec<CatSet>,
) -> Result<Prepared, String> {
    let n = tree.n_nodes();
    let width = tree.width();
    match output {
        Output::One(j) if j < outputs && width == 1 => {}
        Output::All if width == outputs => {}
        _ => return Err("a tree's values do not match the outputs".into()),
    }
    let mut nodes = Vec::with_capacity(n);
    for i in 0..n {
        let split = tree.split(i);
        let (l, r) = (tree.children_left[i], tree.children_right[i]);
        let flat = match split {
            None => Flat {
                threshold: 0.0,
                feature: 0,
                left: NONE,
                right: NONE,
                set: NONE,
                missing_left: false,
            },
            Some(s) => {
                let ok = |c: i64| c as usize > i && (c as usize) < n;
                if s.feature >= d || !ok(l) || !ok(r) || l as usize != i + 1 {
                    return Err(format!("tree node {i} has an invalid feature or child"));
                }
                let set = match s.set {
                    Some(set) => {
                        sets.push(set);
                        (sets.len() - 1) as u32
                    }
                    None => NONE,
                };
                Flat {
                    threshold: s.threshold,
                    feature: s.feature as u32,
                    left: l as u32,
                    right: r as u32,
                    set,
                    missing_left: s.missing_left,
                }
            }
        };
        nodes.push(flat);
    }
    // Per node: its depth, its cover fraction, and (for the edge into it)
    // the product of its feature's fractions before and after it.
    let mut fraction = vec![1.0; n];
    let mut before = vec![1.0; n];
    let mut depth = vec![0usize; n];
    let mut unique = vec![0usize; n];
    let mut max_unique = 0;
    // The path's product per feature, set on the way down an edge and
    // restored on the way back up (events on one stack: a subtree's come
    // off it before the restoring one under them).
    let mut z = vec![1.0f64; d];
    let mut count = vec![0u32; d];
    enum Event {
        Enter(usize),
        Set(usize, f64, u32),
    }
    let mut stack = vec![Event::Enter(0)];
    while let Some(ev) = stack.pop() {
        let i = match ev {
            Event::Set(f, zf, cf) => {
                z[f] = zf;
                count[f] = cf;
                continue;
            }
            Event::Enter(i) => i,
        };
        let nd = nodes[i];
        if nd.is_leaf() {
            continue;
        }
        let f = nd.feature as usize;
        let (l, r) = (nd.left as usize, nd.right as usize);
        let (fl, fr) = split_fractions(tree.node_sample_weight[l], tree.node_sample_weight[r]);
        for (c, fc) in [(r, fr), (l, fl)] {
            fraction[c] = fc;
            before[c] = z[f];
            depth[c] = depth[i] + 1;
            unique[c] = unique[i] + usize::from(count[f] == 0);
            max_unique = max_unique.max(unique[c]);
            stack.push(Event::Set(f, z[f], count[f]));
            stack.push(Event::Enter(c));
            stack.push(Event::Set(f, z[f] * fc, count[f] + 1));
        }
    }
    let m = points(max_unique);
    let (ts, ws) = gauss_legendre(m);
    // Per edge, six rows of `m`: the multipliers of G hot to hot, hot to
    // cold, cold to cold (the cover fraction), then the weighted
    // differences `w_k (a - a')` in the same order (cold to cold: 0).
    let mut edges = vec![0.0; n * 6 * m];
    for c in 1..n {
        let (zb, za) = (before[c], before[c] * fraction[c]);
        let e = &mut edges[c * 6 * m..(c + 1) * 6 * m];
        for k in 0..m {
            let t = ts[k];
            e[k] = q(za, true, t) / q(zb, true, t);
            e[m + k] = q(za, false, t) / q(zb, true, t);
            e[2 * m + k] = fraction[c];
            e[3 * m + k] = ws[k] * (a(za, true, t) - a(zb, true, t));
            e[4 * m + k] = ws[k] * (a(za, false, t) - a(zb, true, t));
        }
    }
    let mut values = vec![0.0; n * width];
    for (i, v) in tree.values.iter().enumerate() {
        values[i * width..(i + 1) * width].copy_from_slice(v);
    }
    Ok(Prepared {
        m,
        width,
        output,
        depth: depth.iter().copied().max().unwrap_or(0),
        nodes,
        edges,
        values,
    })
}
