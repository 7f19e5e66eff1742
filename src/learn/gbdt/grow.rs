//! Leaf-wise growth of one boosted tree (LightGBM, Ke et al. 2017, sec. 2
//! and Shi 2007's best-first trees): the leaf whose best split gains most
//! is split next, until the tree has `max_leaves` leaves, no leaf has a
//! split with positive gain, or the depth limit stops every leaf.
//!
//! Each leaf owns a range of one list of row positions; a split partitions
//! that range stably (so rows stay in increasing position order, and the bin
//! codes are read in increasing addresses). A leaf's histograms are kept
//! until it is split; its children's come from building the smaller child's
//! and subtracting them from the parent's. Ties between leaves go to the
//! lowest leaf number. With quantized gradients ([`super::quantize`]) the
//! splits are searched on the quantized sums and each leaf's value is
//! computed from its rows' exact gradients once the tree is grown.

use rayon::prelude::*;

use std::borrow::Cow;
use std::mem::take;

use super::hist::{build, rescan, Codes, Hist, Layout, Ordered, Rows};
use super::monotone::{
    bounds_among, order, Constraints, Geometry, LeafBounds, MonotoneMethod, Other,
};
use super::quantize::Scale;
use super::split::{Bin, Grad, Rules, Split, Sums};
use super::tree::{GbdtNode, GbdtTree};
use crate::learn::constraints::allowed;
use crate::learn::tree::{BinSet, Binned, Column};
use crate::mem::prefetch;

/// Rows of a leaf from which gathering and partitioning run in parallel
/// blocks of this many rows (a fixed size, so the result does not depend on
/// the thread count).
const PARALLEL_ROWS: usize = 1 << 15;

/// Stably partitions `seg` by `col[p] <= cut`: the left part stays at the
/// front of `seg`, the right part goes to the front of `right`. Returns the
/// left part's length. Branch-free: every position is written to both sides
/// and the side's end moves by the test.
fn partition_block<C: Copy + Into<usize>>(
    col: &[C],
    goes_left: impl Fn(usize) -> bool,
    seg: &mut [u32],
    right: &mut [u32],
) -> usize {
    let (mut l, mut r) = (0, 0);
    for i in 0..seg.len() {
        if i + 32 < seg.len() {
            prefetch(col, seg[i + 32] as usize);
        }
        let p = seg[i];
        let left = goes_left(col[p as usize].into()) as usize;
        seg[l] = p;
        right[r] = p;
        l += left;
        r += 1 - left;
    }
    l
}

/// Stably partitions `seg` by `col[p] <= cut` (using `right`, as long, as
/// scratch) and returns the left part's length. Large ranges are
/// partitioned in blocks of [`PARALLEL_ROWS`] in parallel, then the blocks'
/// left and right parts are joined in block order (the same result).
fn partition<C: Copy + Into<usize> + Sync>(
    col: &[C],
    goes_left: impl Fn(usize) -> bool + Copy + Sync,
    seg: &mut [u32],
    right: &mut [u32],
) -> usize {
    if seg.len() < 2 * PARALLEL_ROWS {
        let l = partition_block(col, goes_left, seg, right);
        let k = seg.len() - l;
        seg[l..].copy_from_slice(&right[..k]);
        return l;
    }
    let lefts: Vec<usize> = seg
        .par_chunks_mut(PARALLEL_ROWS)
        .zip(right.par_chunks_mut(PARALLEL_ROWS))
        .map(|(b, r)| partition_block(col, goes_left, b, r))
        .collect();
    // Left parts move down in block order, then the right parts follow.
    let mut l = 0;
    for (b, &n) in lefts.iter().enumerate() {
        seg.copy_within(b * PARALLEL_ROWS..b * PARALLEL_ROWS + n, l);
        l += n;
    }
    let mut r = l;
    for (b, &n) in lefts.iter().enumerate() {
        let from = b * PARALLEL_ROWS;
        let k = (from + PARALLEL_ROWS).min(seg.len()) - from - n;
        seg[r..r + k].copy_from_slice(&right[from..from + k]);
        r += k;
    }
    l
}

/// Stably partitions `seg` by whether `cut` sends the code in `col` left
/// ([`partition`]).
fn partition_by<C: Copy + Into<usize> + Sync>(
    col: &[C],
    cut: &Cut,
    seg: &mut [u32],
    right: &mut [u32],
) -> usize {
    match cut {
        Cut::Upto(k) => partition(col, move |c| c <= *k, seg, right),
        Cut::UptoOr(k, m) => partition(col, move |c| c <= *k || c == *m, seg, right),
        Cut::In(set) => partition(col, move |c| set.contains(c), seg, right),
    }
}

/// Sets `out` to `src` at `rows`, in parallel blocks for many rows (each
/// value depends only on its row).
fn gather_into<T: Copy + Send + Sync>(out: &mut Vec<T>, src: &[T], rows: &[u32]) {
    let one = |&p: &u32| src[p as usize];
    if rows.len() >= PARALLEL_ROWS {
        rows.par_iter().map(one).collect_into_vec(out);
    } else {
        out.clear();
        out.extend(rows.iter().map(one));
    }
}

/// Which bin codes a split node sends left.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Cut {
    /// Codes up to this one.
    Upto(usize),
    /// Codes up to the first, and the second (the missing bin).
    UptoOr(usize, usize),
    /// Codes in this set (a categorical feature's levels).
    In(BinSet),
}

impl Cut {
    /// Whether code `c` goes left.
    #[inline]
    pub fn left(&self, c: usize) -> bool {
        match self {
            Cut::Upto(k) => c <= *k,
            Cut::UptoOr(k, m) => c <= *k || c == *m,
            Cut::In(s) => s.contains(c),
        }
    }
}

/// What the constraints give the children of `leaf` split by `b` at node
/// `node` (cut `cut`): each one's output, bounds and geometry, and the
/// features their branch has split on.
#[allow(clippy::type_complexity)]
fn child_constraints(
    s: &Setup,
    leaf: &Leaf,
    b: &Split,
    node: usize,
    cut: &Cut,
) -> (
    (f64, (f64, f64), Geometry),
    (f64, (f64, f64), Geometry),
    Vec<usize>,
) {
    let (vl, vr) = b.values.unwrap_or_else(|| {
        (
            s.rules.value(b.left.g, b.left.h),
            s.rules.value(b.right.g, b.right.h),
        )
    });
    let c = &s.constraints;
    let (geo_l, geo_r) = match c.tracks_leaves() {
        true => {
            let cut = match cut {
                Cut::Upto(k) => Some((*k, false)),
                Cut::UptoOr(k, _) => Some((*k, true)),
                Cut::In(_) => None,
            };
            leaf.geo.children(s.bins, node, b.feature, cut)
        }
        false => (Geometry::default(), Geometry::default()),
    };
    let used = match c.groups.is_empty() {
        true => Vec::new(),
        false => {
            let mut u = leaf.used.clone();
            if let Err(i) = u.binary_search(&b.feature) {
                u.insert(i, b.feature);
            }
            u
        }
    };
    // The basic method: a monotone split bounds its children by the
    // mean of their outputs.
    let (mut bl, mut br) = ((leaf.lo, leaf.hi), (leaf.lo, leaf.hi));
    let dir = c.dirs.get(b.feature).copied().unwrap_or(0);
    if dir != 0 && c.method == Some(MonotoneMethod::Basic) {
        let mid = (vl + vr) / 2.0;
        match dir > 0 {
            true => (bl.1, br.0) = (bl.1.min(mid), br.0.max(mid)),
            false => (bl.0, br.1) = (bl.0.max(mid), br.1.min(mid)),
        }
    }
    ((vl, bl, geo_l), (vr, br, geo_r), used)
}

/// The features a leaf whose branch split on `used` may split on, of the
/// tree's `features` (all of them without interaction constraints).
fn allowed_features<'a>(s: &Setup, used: &[usize], features: &'a [usize]) -> Cow<'a, [usize]> {
    match s.constraints.groups.is_empty() {
        true => Cow::Borrowed(features),
        false => Cow::Owned(allowed(&s.constraints.groups, used, features)),
    }
}

/// Per feature, whether some of the fit's first `m` row positions (its
/// training rows) have a missing value: a [missing bin](Binned::missing_bin)
/// code among theirs.
pub(super) fn seen_missing(bins: &Binned, codes: &Codes, m: usize) -> Vec<bool> {
    (0..bins.all_missing().len())
        .map(|f| {
            bins.missing_bin(f).is_some_and(|miss| match codes.col(f) {
                Column::Narrow(c) => c[..m].iter().any(|&v| usize::from(v) == miss),
                Column::Wide(c) => c[..m].iter().any(|&v| usize::from(v) == miss),
            })
        })
        .collect()
}

/// What every tree of one fit shares.
pub(super) struct Setup<'a> {
    pub bins: &'a Binned,
    pub codes: Codes<'a>,
    pub layout: Layout,
    pub rules: Rules<'a>,
    pub max_leaves: usize,
    /// Depth limit (at most `MAX_TREE_DEPTH`).
    pub max_depth: usize,
    pub learning_rate: f64,
    /// Per feature, whether the training rows have a missing value
    /// ([`seen_missing`]).
    pub seen_missing: Vec<bool>,
    /// Monotone and interaction constraints ([`super::monotone`]).
    pub constraints: Constraints,
}

impl Setup<'_> {
    /// The threshold, the bin cut and the missing values' direction of a
    /// threshold split `b`. A feature with missing values in training sends
    /// them the way the split learned; one without follows LightGBM's
    /// `missing_type=None`: a missing value met when scoring is read as 0,
    /// so it goes left when `0 <= threshold` (its validation and
    /// out-of-sample rows with a missing value too, by their codes).
    fn threshold_split(&self, b: &Split) -> (f64, Cut, bool) {
        let f = b.feature;
        let threshold = self.bins.threshold(f, b.left_bin, b.right_bin);
        let default_left = match self.seen_missing[f] {
            true => b.default_left,
            false => 0.0 <= threshold,
        };
        let cut = match self.bins.missing_bin(f) {
            Some(m) if default_left => Cut::UptoOr(b.left_bin, m),
            _ => Cut::Upto(b.left_bin),
        };
        (threshold, cut, default_left)
    }
}

/// The gradients of one output, by position.
pub(super) struct Gradients<'a> {
    pub rows: &'a [Grad],
    /// Row copies by position (`None`: one each).
    pub copies: Option<&'a [u32]>,
    /// The same gradients quantized and packed, with their scales, when the
    /// histograms sum those.
    pub packed: Option<(&'a [u64], Scale)>,
}

impl<'a> Gradients<'a> {
    /// The rows at positions `0..m`, as the histograms sum them.
    fn first(&self, m: usize) -> Rows<'a> {
        match self.packed {
            Some((q, scale)) => Rows::Packed(&q[..m], scale),
            None => Rows::Exact(&self.rows[..m]),
        }
    }
}

/// The rows a tree is grown on.
#[derive(Debug, Clone, Copy)]
pub(super) enum Bag<'a> {
    /// Every position `0..n`, in order.
    All(usize),
    /// These positions (ascending).
    Rows(&'a [u32]),
}

/// A tree as grown: the model's tree, each node's bin cut (codes up to it go
/// left) and each leaf's range in [`Grower::positions`].
pub(super) struct Grown {
    pub tree: GbdtTree,
    pub cuts: Vec<Cut>,
    pub ranges: Vec<(usize, usize)>,
}

impl Grown {
    /// The leaf of the row at position `pos`, by its bin codes.
    #[inline]
    pub fn leaf_of(&self, codes: &Codes, pos: usize) -> usize {
        let nodes = &self.tree.nodes;
        if nodes.is_empty() {
            return 0;
        }
        let mut i = 0usize;
        loop {
            let n = &nodes[i];
            let next = if self.cuts[i].left(codes.col(n.feature as usize).get(pos)) {
                n.left
            } else {
                n.right
            };
            if next < 0 {
                return !next as usize;
            }
            i = next as usize;
        }
    }
}

/// A leaf being grown.
struct Leaf {
    start: usize,
    end: usize,
    depth: usize,
    tot: Sums,
    /// The node pointing to it and on which side (`None` for the root).
    parent: Option<(usize, bool)>,
    hist: Option<Hist>,
    best: Option<Split>,
    /// Its output before shrinkage (with monotone constraints: within its
    /// bounds `lo..=hi`).
    value: f64,
    lo: f64,
    hi: f64,
    /// Where it lies (kept by the intermediate and advanced methods).
    geo: Geometry,
    /// The features its branch split on, ascending (kept with interaction
    /// constraints).
    used: Vec<usize>,
}

impl Leaf {
    /// Those of `leaves` (output and geometry) ordered with the leaf whose
    /// geometry is `geo`.
    fn others<'a>(
        s: &Setup,
        nodes: &[GbdtNode],
        geo: &Geometry,
        leaves: impl Iterator<Item = (f64, &'a Geometry)>,
    ) -> Vec<Other<'a>> {
        leaves
            .filter_map(|(value, g)| {
                let lower = order(nodes, &s.constraints.dirs, s.bins, g, geo)?;
                Some(Other {
                    value,
                    lower,
                    geo: g,
                })
            })
            .collect()
    }
}

/// The outputs and geometries of `leaves` but the split leaf `l`, and of
/// the `sibling` of the child whose others they are.
fn but_parent<'a>(
    leaves: &'a [Leaf],
    l: usize,
    sibling: (f64, &'a Geometry),
) -> impl Iterator<Item = (f64, &'a Geometry)> {
    (leaves.iter().enumerate())
        .filter(move |(i, _)| *i != l)
        .map(|(_, o)| (o.value, &o.geo))
        .chain(std::iter::once(sibling))
}

/// The bounds a leaf's split search works within, when the fit has monotone
/// constraints: its own `(lo, hi)` at its `depth`, with the leaves ordered
/// with it for the advanced method.
fn bounds_of<'a>(
    s: &'a Setup,
    (lo, hi): (f64, f64),
    depth: usize,
    geo: &'a Geometry,
    others: &'a [Other<'a>],
) -> Option<LeafBounds<'a>> {
    let c = &s.constraints;
    c.monotone().then(|| LeafBounds {
        lo,
        hi,
        dirs: &c.dirs,
        penalty: c.penalty_at(depth),
        advanced: (c.method == Some(MonotoneMethod::Advanced)).then_some((geo, others, s.bins)),
    })
}

/// Buffers reused by every tree of a fit.
#[derive(Default)]
pub(super) struct Grower {
    positions: Vec<u32>,
    scratch: Vec<u32>,
    ordered: Vec<Grad>,
    /// The packed gradients of the same rows (with quantized gradients,
    /// instead of `ordered`).
    ordered_packed: Vec<u64>,
    /// The copies of the rows in `ordered` (with row copies only).
    ordered_copies: Vec<u32>,
    pool: Vec<Hist>,
}

impl Grower {
    /// The row positions, grouped by leaf after [`Grower::grow`].
    pub fn positions(&self) -> &[u32] {
        &self.positions
    }

    /// Grows a tree on the rows of `bag` with the given gradients,
    /// splitting only on `features` (ascending).
    pub fn grow(&mut self, s: &Setup, bag: Bag, grad: &Gradients, features: &[usize]) -> Grown {
        self.positions.clear();
        let all = match bag {
            Bag::Rows(r) => {
                self.positions.extend_from_slice(r);
                false
            }
            Bag::All(n) => {
                self.positions.extend(0..n as u32);
                true
            }
        };
        let m = self.positions.len();
        self.scratch.resize(m, 0);
        // Every position in order: the gradients are already in the order
        // of the rows, with nothing to gather.
        let in_order = Ordered {
            positions: None,
            rows: grad.first(m),
            copies: grad.copies.map(|c| &c[..m]),
        };
        if !all {
            self.gather(0, m, grad);
        }
        let tot = match all {
            true => in_order.total(),
            false => self.ordered(None, grad).total(),
        };
        let mut root = Leaf {
            start: 0,
            end: m,
            depth: 0,
            tot,
            parent: None,
            hist: None,
            best: None,
            value: s.rules.value(tot.g, tot.h),
            lo: f64::NEG_INFINITY,
            hi: f64::INFINITY,
            geo: Geometry::default(),
            used: Vec::new(),
        };
        let mut nodes: Vec<GbdtNode> = Vec::new();
        let mut cuts: Vec<Cut> = Vec::new();
        if self.can_split(s, &root, 1) {
            let mut h = self.take_hist(s);
            let rows = match all {
                true => in_order,
                false => self.ordered(Some(&self.positions[..]), grad),
            };
            let geo = Geometry::default();
            let bounds = bounds_of(s, (root.lo, root.hi), 0, &geo, &[]);
            let rules = Rules {
                bounds: bounds.as_ref(),
                ..s.rules
            };
            let scan = Some((&rules, tot));
            (root.best, _) = build(&mut h, &s.layout, features, &s.codes, &rows, scan, None);
            root.hist = Some(h);
        }
        let mut leaves = vec![root];
        while leaves.len() < s.max_leaves {
            let mut pick: Option<(usize, f64)> = None;
            for (i, l) in leaves.iter().enumerate() {
                if let Some(b) = &l.best {
                    if pick.is_none_or(|(_, g)| b.gain > g) {
                        pick = Some((i, b.gain));
                    }
                }
            }
            let Some((l, _)) = pick else { break };
            self.split_next(s, &mut leaves, l, (&mut nodes, &mut cuts), grad, features);
        }
        for l in &mut leaves {
            if let Some(h) = l.hist.take() {
                self.pool.push(h);
            }
        }
        self.grown(s, &leaves, nodes, cuts, grad)
    }

    /// The tree of the grown `leaves`, split by `nodes` and `cuts`: each
    /// leaf's value (its output within its bounds under monotone
    /// constraints, else its step from its exact sums) times the learning
    /// rate, and the level sets of categorical splits.
    fn grown(
        &self,
        s: &Setup,
        leaves: &[Leaf],
        nodes: Vec<GbdtNode>,
        cuts: Vec<Cut>,
        grad: &Gradients,
    ) -> Grown {
        let values = match s.constraints.monotone() {
            true => leaves.iter().map(|l| s.learning_rate * l.value).collect(),
            false => self
                .leaf_sums(leaves, grad)
                .into_iter()
                .map(|t| s.learning_rate * s.rules.value(t.g, t.h))
                .collect(),
        };
        let sets = match cuts.iter().any(|c| matches!(c, Cut::In(_))) {
            true => nodes
                .iter()
                .zip(&cuts)
                .map(|(n, c)| match c {
                    Cut::In(b) => Some(s.bins.level_set(n.feature as usize, b)),
                    Cut::Upto(_) | Cut::UptoOr(..) => None,
                })
                .collect(),
            false => Vec::new(),
        };
        Grown {
            tree: GbdtTree {
                nodes,
                values,
                sets,
                covers: leaves.iter().map(|l| l.tot.n).collect(),
            },
            cuts,
            ranges: leaves.iter().map(|l| (l.start, l.end)).collect(),
        }
    }

    /// Splits leaf `l` of `leaves` by its best split and gives its children
    /// their histograms and best splits, within the bounds the monotone
    /// constraints give them (the intermediate and advanced methods also
    /// bound every other leaf anew, [`Grower::rebound`]).
    fn split_next(
        &mut self,
        s: &Setup,
        leaves: &mut Vec<Leaf>,
        l: usize,
        (nodes, cuts): (&mut Vec<GbdtNode>, &mut Vec<Cut>),
        grad: &Gradients,
        features: &[usize],
    ) {
        let (mut left, mut right) = self.split(s, l, &mut leaves[l], nodes, cuts, grad);
        let n_leaves = leaves.len() + 1;
        let allowed_here = allowed_features(s, &left.used, features);
        let h = leaves[l].hist.take().expect("a split leaf has histograms");
        // The leaves ordered with each child (intermediate, advanced): the
        // others but the parent, and the sibling. The geometries are lent
        // while the children are searched.
        let (left_geo, right_geo) = (take(&mut left.geo), take(&mut right.geo));
        let (left_others, right_others) = match s.constraints.tracks_leaves() {
            true => {
                let lo = Leaf::others(
                    s,
                    nodes,
                    &left_geo,
                    but_parent(leaves, l, (right.value, &right_geo)),
                );
                let ro = Leaf::others(
                    s,
                    nodes,
                    &right_geo,
                    but_parent(leaves, l, (left.value, &left_geo)),
                );
                ((left.lo, left.hi), (right.lo, right.hi)) =
                    (bounds_among(lo.iter()), bounds_among(ro.iter()));
                (lo, ro)
            }
            false => (Vec::new(), Vec::new()),
        };
        let lb = bounds_of(s, (left.lo, left.hi), left.depth, &left_geo, &left_others);
        let rb = bounds_of(
            s,
            (right.lo, right.hi),
            right.depth,
            &right_geo,
            &right_others,
        );
        let rules = (
            Rules {
                bounds: lb.as_ref(),
                ..s.rules
            },
            Rules {
                bounds: rb.as_ref(),
                ..s.rules
            },
        );
        self.children(
            s,
            h,
            (&mut left, &mut right),
            n_leaves,
            grad,
            &allowed_here,
            (&rules.0, &rules.1),
        );
        (left.geo, right.geo) = (left_geo, right_geo);
        leaves[l] = left;
        leaves.push(right);
        if s.constraints.tracks_leaves() {
            self.rebound(s, leaves, nodes, (l, n_leaves - 1), features);
        }
    }

    /// Each leaf's gradient sums for its value: as grown, or with quantized
    /// gradients, summed anew from its rows' exact gradients (in position
    /// order, one task a leaf).
    fn leaf_sums(&self, leaves: &[Leaf], grad: &Gradients) -> Vec<Bin> {
        if grad.packed.is_none() {
            return leaves
                .iter()
                .map(|l| Bin {
                    g: l.tot.g,
                    h: l.tot.h,
                })
                .collect();
        }
        leaves
            .par_iter()
            .map(|l| {
                let mut t = Bin::default();
                for &p in &self.positions[l.start..l.end] {
                    t.add_row(grad.rows[p as usize]);
                }
                t
            })
            .collect()
    }

    /// Whether a leaf may be split, once the tree has `n_leaves` leaves.
    fn can_split(&self, s: &Setup, l: &Leaf, n_leaves: usize) -> bool {
        n_leaves < s.max_leaves && l.depth < s.max_depth && l.tot.n >= 2.0 * s.rules.min_leaf
    }

    /// A histogram buffer (contents undefined).
    fn take_hist(&mut self, s: &Setup) -> Hist {
        self.pool.pop().unwrap_or_else(|| s.layout.hist())
    }

    /// Gathers the gradients (and copies) of positions `start..end` in
    /// order (in parallel blocks for large leaves; each value depends only
    /// on its row).
    fn gather(&mut self, start: usize, end: usize, grad: &Gradients) {
        let rows = &self.positions[start..end];
        match grad.packed {
            Some((q, _)) => gather_into(&mut self.ordered_packed, q, rows),
            None => gather_into(&mut self.ordered, grad.rows, rows),
        }
        if let Some(c) = grad.copies {
            self.ordered_copies.clear();
            self.ordered_copies
                .extend(rows.iter().map(|&p| c[p as usize]));
        }
    }

    /// The rows gathered last, at `positions` (`None`: `0..len` in order).
    fn ordered<'a>(&'a self, positions: Option<&'a [u32]>, grad: &Gradients) -> Ordered<'a> {
        Ordered {
            positions,
            rows: match grad.packed {
                Some((_, scale)) => Rows::Packed(&self.ordered_packed, scale),
                None => Rows::Exact(&self.ordered),
            },
            copies: grad.copies.map(|_| &self.ordered_copies[..]),
        }
    }

    /// Splits leaf number `me` by its best split: records the node,
    /// partitions its rows, and returns the two children (without
    /// histograms) with their sums (the row copies counted from the
    /// partition): the left keeps the number `me`, the right takes the next.
    fn split(
        &mut self,
        s: &Setup,
        me: usize,
        leaf: &mut Leaf,
        nodes: &mut Vec<GbdtNode>,
        cuts: &mut Vec<Cut>,
        grad: &Gradients,
    ) -> (Leaf, Leaf) {
        let b = leaf.best.take().expect("a leaf with a split");
        let node = nodes.len();
        // A tree with `node` split nodes has `node + 1` leaves.
        let (threshold, cut, default_left) = match &b.set {
            Some(set) => (0.0, Cut::In(set.clone()), false),
            None => s.threshold_split(&b),
        };
        nodes.push(GbdtNode {
            feature: b.feature as u32,
            threshold,
            left: !(me as i32),
            right: !(node as i32 + 1),
            gain: b.gain,
            default_left,
        });
        let mid = self.partition(s, leaf.start, leaf.end, b.feature, &cut);
        cuts.push(cut);
        let left_n = match grad.copies {
            Some(c) => self.positions[leaf.start..mid]
                .iter()
                .map(|&p| c[p as usize] as f64)
                .sum(),
            None => (mid - leaf.start) as f64,
        };
        let sums = |b: Bin, n: f64| Sums { g: b.g, h: b.h, n };
        match leaf.parent {
            Some((p, true)) => nodes[p].left = node as i32,
            Some((p, false)) => nodes[p].right = node as i32,
            None => {}
        }
        let ((vl, bl, geo_l), (vr, br, geo_r), used) =
            child_constraints(s, leaf, &b, node, &cuts[node]);
        let child = |start, end, tot, left, value, (lo, hi), geo| Leaf {
            start,
            end,
            depth: leaf.depth + 1,
            tot,
            parent: Some((node, left)),
            hist: None,
            best: None,
            value,
            lo,
            hi,
            geo,
            used: used.clone(),
        };
        (
            child(leaf.start, mid, sums(b.left, left_n), true, vl, bl, geo_l),
            child(
                mid,
                leaf.end,
                sums(b.right, leaf.tot.n - left_n),
                false,
                vr,
                br,
                geo_r,
            ),
        )
    }

    /// After a split whose children are leaves `fresh`: every other leaf
    /// ordered with one of them gets its bounds from the leaves ordered
    /// with it, and its best split searched again in its kept histograms
    /// (the intermediate and advanced methods, [`super::monotone`]).
    fn rebound(
        &mut self,
        s: &Setup,
        leaves: &mut [Leaf],
        nodes: &[GbdtNode],
        fresh: (usize, usize),
        features: &[usize],
    ) {
        let advanced = s.constraints.method == Some(MonotoneMethod::Advanced);
        let dirs = &s.constraints.dirs;
        for i in 0..leaves.len() {
            if i == fresh.0 || i == fresh.1 {
                continue;
            }
            let me = &leaves[i];
            // Only a leaf ordered with a new child can have new bounds.
            let fresh_geo = [&leaves[fresh.0].geo, &leaves[fresh.1].geo];
            if (fresh_geo.iter()).all(|g| order(nodes, dirs, s.bins, g, &me.geo).is_none()) {
                continue;
            }
            let all = (leaves.iter().enumerate())
                .filter(|(j, _)| *j != i)
                .map(|(_, o)| (o.value, &o.geo));
            let others = Leaf::others(s, nodes, &me.geo, all);
            let (lo, hi) = bounds_among(others.iter());
            let moved = (lo, hi) != (me.lo, me.hi);
            let best = me.hist.as_ref().filter(|_| moved || advanced).map(|h| {
                let allowed_here = allowed_features(s, &me.used, features);
                let bounds = bounds_of(s, (lo, hi), me.depth, &me.geo, &others);
                let rules = Rules {
                    bounds: bounds.as_ref(),
                    ..s.rules
                };
                rescan(h, &s.layout, &allowed_here, Some((&rules, me.tot)))
            });
            let me = &mut leaves[i];
            (me.lo, me.hi) = (lo, hi);
            if let Some(best) = best {
                me.best = best;
            }
        }
    }

    /// Stably partitions positions `start..end` by whether `cut` sends
    /// their code of `feature` left; returns where the right part starts.
    fn partition(
        &mut self,
        s: &Setup,
        start: usize,
        end: usize,
        feature: usize,
        cut: &Cut,
    ) -> usize {
        let seg = &mut self.positions[start..end];
        let right = &mut self.scratch[..seg.len()];
        start
            + match s.codes.col(feature) {
                Column::Narrow(col) => partition_by(col, cut, seg, right),
                Column::Wide(col) => partition_by(col, cut, seg, right),
            }
    }

    /// Gives the children of a split leaf (whose histograms are `h`) their
    /// histograms and best splits (by the rules of each, `rules`) when they
    /// may be split further (`n_leaves`: leaves after the split).
    #[allow(clippy::too_many_arguments)]
    fn children(
        &mut self,
        s: &Setup,
        mut h: Hist,
        (left, right): (&mut Leaf, &mut Leaf),
        n_leaves: usize,
        grad: &Gradients,
        features: &[usize],
        rules: (&Rules, &Rules),
    ) {
        let left_smaller = left.end - left.start <= right.end - right.start;
        {
            let (small, large, small_rules, large_rules) = if left_smaller {
                (left, right, rules.0, rules.1)
            } else {
                (right, left, rules.1, rules.0)
            };
            let need_small = self.can_split(s, small, n_leaves);
            let need_large = self.can_split(s, large, n_leaves);
            if need_large || need_small {
                let mut hs = if need_large {
                    self.take_hist(s)
                } else {
                    std::mem::take(&mut h)
                };
                self.gather(small.start, small.end, grad);
                let rows = self.ordered(Some(&self.positions[small.start..small.end]), grad);
                let scan = need_small.then_some((small_rules, small.tot));
                let larger = need_large.then_some((&mut h, Some((large_rules, large.tot))));
                (small.best, large.best) =
                    build(&mut hs, &s.layout, features, &s.codes, &rows, scan, larger);
                if need_large {
                    large.hist = Some(std::mem::take(&mut h));
                }
                if need_small {
                    small.hist = Some(hs);
                } else {
                    self.pool.push(hs);
                }
            }
        }
        if !h.bins.is_empty() {
            self.pool.push(h);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_partition_is_the_stable_partition() {
        let n = 5 * PARALLEL_ROWS + 123;
        let col: Vec<u8> = (0..n).map(|i| ((i * 7919) % 251) as u8).collect();
        let mut seg: Vec<u32> = (0..n as u32).filter(|i| i % 3 != 0).collect();
        let want: Vec<u32> = seg
            .iter()
            .filter(|&&p| col[p as usize] <= 100)
            .chain(seg.iter().filter(|&&p| col[p as usize] > 100))
            .copied()
            .collect();
        let mut right = vec![0; seg.len()];
        let l = partition(&col, |c| c <= 100, &mut seg, &mut right);
        assert_eq!(seg, want);
        assert_eq!(l, want.iter().filter(|&&p| col[p as usize] <= 100).count());
    }
}
