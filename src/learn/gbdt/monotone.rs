//! Monotone and interaction constraints of the boosted trees (LightGBM's
//! `monotone_constraints`, `monotone_constraints_method`,
//! `monotone_penalty` and `interaction_constraints`; scikit-learn's
//! `monotonic_cst` and `interaction_cst`).
//!
//! **Monotone.** A tree is monotone in feature `f` (direction `+1`) when no
//! two points that differ only by a larger `f` get a smaller output. Every
//! leaf carries bounds `[lo, hi]` on its output (before shrinkage), and a
//! candidate split's children take their Newton steps clamped to the bounds
//! their side allows; a split on a constrained feature whose left output
//! exceeds its right (direction `+1`) or falls below it (`-1`) is refused,
//! and gains are the loss reductions at the clamped outputs. How the bounds
//! are set is the method (LightGBM's three, their meaning as its
//! documentation gives it):
//!
//! - `basic`: a split on a constrained feature puts the mean of its
//!   children's outputs between them: the lower child's descendants stay
//!   under it, the upper's above; other splits pass the bounds down. It
//!   costs nothing and over-constrains.
//! - `intermediate`: a leaf's bounds are the outputs of the leaves that
//!   must stay below it and above it, recomputed after every split, and a
//!   leaf whose bounds moved has its best split searched again.
//! - `advanced`: the same, and a candidate's children get the bounds of
//!   their own halves of the leaf (fewer leaves constrain a smaller
//!   region), per threshold.
//!
//! Two leaves must keep an order when some point of one is below some point
//! of the other in the constraints' order (larger in every `+1` feature,
//! smaller in every `-1` one, equal in the others). Leaves are boxes of bin
//! codes; two leaves of one tree are apart in the feature of their lowest
//! common split, so only leaves parted by a constrained feature can be
//! ordered, and then in the direction that split gives (`order`). A
//! categorical feature's level sets are taken as overlapping, which can only
//! add orders, never lose one. The invariant, kept by every split: every
//! ordered pair of leaves has its outputs in order (each child's output lies
//! within bounds taken from every leaf ordered with it), so the tree, and the
//! sum of the trees, is monotone. Missing values have no place in the order:
//! the guarantee is over observed values, as LightGBM's.
//!
//! **Penalty.** `monotone_penalty = P` multiplies the gain of a split on a
//! constrained feature at depth `d` by `eps` when `P >= d + 1`, by `1 - P /
//! 2^d` when `P <= 1`, else by `1 - 2^(P - 1 - d)` (LightGBM's
//! `ComputeMonotoneSplitGainPenalty`, `eps = 1e-15`): `P` forbids monotone
//! splits in the first `floor(P)` levels.
//!
//! **Interactions.** Each branch records the features it split on; a leaf may
//! split only on the features of the groups holding all of them
//! ([`crate::learn::constraints::allowed`]).
//!
//! **Leaf values.** A constrained tree's leaves keep the outputs their
//! splits chose (the clamped steps of the sums the search used): with
//! quantized gradients these are the quantized sums' steps, not recomputed
//! from the exact gradients, since a recomputed value could leave its
//! bounds.

use serde::{Deserialize, Serialize};

use super::tree::GbdtNode;
use crate::learn::tree::Binned;
use crate::params::choice;

choice! {
    /// How the bounds of a monotone tree's leaves are set (LightGBM's
    /// `monotone_constraints_method`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    pub enum MonotoneMethod {
        /// A constrained split bounds its children by the mean of their
        /// outputs; fast and the most constraining.
        Basic = "basic",
        /// A leaf is bounded by the outputs of the leaves ordered with it,
        /// recomputed after every split.
        Intermediate = "intermediate",
        /// As intermediate, with each candidate's children bounded by the
        /// leaves ordered with their own halves.
        Advanced = "advanced",
    }
}

/// The constraints of one fit, by feature.
#[derive(Debug, Clone, Default)]
pub(super) struct Constraints {
    /// Per feature, its direction (empty when none is monotone).
    pub dirs: Vec<i8>,
    pub method: Option<MonotoneMethod>,
    pub penalty: f64,
    /// The interaction groups as sorted features (empty: no constraint).
    pub groups: Vec<Vec<usize>>,
}

impl Constraints {
    /// Whether some feature is monotone.
    pub fn monotone(&self) -> bool {
        self.dirs.iter().any(|&d| d != 0)
    }

    /// Whether leaves need their boxes and paths (every method but basic).
    pub fn tracks_leaves(&self) -> bool {
        self.monotone() && self.method != Some(MonotoneMethod::Basic)
    }

    /// The gain factor of a monotone split at `depth` (module doc).
    pub fn penalty_at(&self, depth: usize) -> f64 {
        const EPS: f64 = 1e-15;
        let (p, d) = (self.penalty, depth as f64);
        if p >= d + 1.0 {
            EPS
        } else if p <= 1.0 {
            1.0 - p / 2f64.powf(d) + EPS
        } else {
            1.0 - 2f64.powf(p - 1.0 - d) + EPS
        }
    }
}

/// A leaf's observed bin codes `lo..=hi` of one numeric feature (none when
/// `lo > hi`) and whether its missing values are in it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Span {
    pub lo: i64,
    pub hi: i64,
    pub miss: bool,
}

impl Span {
    /// Every code of feature `f`.
    pub fn full(bins: &Binned, f: usize) -> Span {
        let miss = bins.missing_bin(f).is_some();
        Span {
            lo: 0,
            hi: bins.n_bins(f) as i64 - 1 - i64::from(miss),
            miss,
        }
    }

    /// Whether some observed value lies in it.
    fn observed(&self) -> bool {
        self.lo <= self.hi
    }

    /// The spans of the two sides of a threshold split sending codes up
    /// to `k` left, and the missing values left when `left_miss`.
    fn sides(&self, (k, left_miss): (usize, bool)) -> (Span, Span) {
        let k = k as i64;
        let left = Span {
            lo: self.lo,
            hi: self.hi.min(k),
            miss: self.miss && left_miss,
        };
        let right = Span {
            lo: self.lo.max(k + 1),
            hi: self.hi,
            miss: self.miss && !left_miss,
        };
        (left, right)
    }
}

/// Whether some point of span `lower` is below some point of span `upper`
/// in a feature of direction `d` (equal when `d` is 0).
fn compatible(lower: &Span, upper: &Span, d: i8) -> bool {
    if lower.miss && upper.miss {
        return true;
    }
    if !(lower.observed() && upper.observed()) {
        return false;
    }
    match d {
        0 => lower.lo <= upper.hi && upper.lo <= lower.hi,
        d if d > 0 => lower.lo <= upper.hi,
        _ => lower.hi >= upper.lo,
    }
}

/// Where a leaf lies in its tree: the splits above it and its spans of the
/// numeric features they split on.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Geometry {
    /// The split nodes from the root and the side taken (left: true).
    pub path: Vec<(u32, bool)>,
    /// By feature, ascending.
    pub spans: Vec<(usize, Span)>,
}

impl Geometry {
    /// The span of feature `f`.
    fn span(&self, bins: &Binned, f: usize) -> Span {
        match self.spans.binary_search_by_key(&f, |(g, _)| *g) {
            Ok(i) => self.spans[i].1,
            Err(_) => Span::full(bins, f),
        }
    }

    /// The geometries of the two children of a leaf split at `node` on
    /// feature `f`: by threshold `cut` (codes up to it left, and whether
    /// the missing values go left), or by a set of levels (`None`).
    pub fn children(
        &self,
        bins: &Binned,
        node: usize,
        f: usize,
        cut: Option<(usize, bool)>,
    ) -> (Self, Self) {
        let mut l = self.clone();
        let mut r = self.clone();
        l.path.push((node as u32, true));
        r.path.push((node as u32, false));
        if let Some(cut) = cut {
            let (a, b) = self.span(bins, f).sides(cut);
            for (g, s) in [(&mut l, a), (&mut r, b)] {
                match g.spans.binary_search_by_key(&f, |(h, _)| *h) {
                    Ok(i) => g.spans[i].1 = s,
                    Err(i) => g.spans.insert(i, (f, s)),
                }
            }
        }
        (l, r)
    }
}

/// Whether leaves `a` and `b` must keep an order: `Some(true)` when `a`'s
/// output may not exceed `b`'s, `Some(false)` for the reverse (module doc).
pub(super) fn order(
    nodes: &[GbdtNode],
    dirs: &[i8],
    bins: &Binned,
    a: &Geometry,
    b: &Geometry,
) -> Option<bool> {
    let (&(node, a_left), _) = a.path.iter().zip(&b.path).find(|(x, y)| x != y)?;
    let d = dirs[nodes[node as usize].feature as usize];
    if d == 0 {
        return None;
    }
    let a_lower = (d > 0) == a_left;
    let (lo, up) = if a_lower { (a, b) } else { (b, a) };
    // Every feature either spans, walked in step (both lists ascend); a
    // feature neither splits on spans all its codes in both.
    let (x, y) = (&lo.spans, &up.spans);
    let (mut i, mut j) = (0, 0);
    loop {
        let f = match (x.get(i).map(|p| p.0), y.get(j).map(|q| q.0)) {
            (Some(p), Some(q)) => p.min(q),
            (Some(p), None) | (None, Some(p)) => p,
            (None, None) => break,
        };
        let take = |list: &[(usize, Span)], k: &mut usize| match list.get(*k) {
            Some(&(g, s)) if g == f => {
                *k += 1;
                s
            }
            _ => Span::full(bins, f),
        };
        let (s, t) = (take(x, &mut i), take(y, &mut j));
        if !compatible(&s, &t, dirs[f]) {
            return None;
        }
    }
    Some(a_lower)
}

/// A leaf ordered with the one being split: its output, whether it is the
/// lower of the two, and where it lies.
#[derive(Debug, Clone, Copy)]
pub(super) struct Other<'a> {
    pub value: f64,
    pub lower: bool,
    pub geo: &'a Geometry,
}

/// The bounds a leaf's split search works within.
#[derive(Debug, Clone)]
pub(super) struct LeafBounds<'a> {
    pub lo: f64,
    pub hi: f64,
    pub dirs: &'a [i8],
    /// The gain factor of a monotone split at the leaf's depth.
    pub penalty: f64,
    /// With the advanced method: the leaf's geometry, the leaves ordered
    /// with it and the bins, from which each candidate's children get
    /// bounds of their own.
    pub advanced: Option<(&'a Geometry, &'a [Other<'a>], &'a Binned)>,
}

/// Per threshold (the last bin going left), the bounds of the left and the
/// right child: `(lo, hi)` each. Each child's bounds are a step function of
/// the threshold, kept where it steps: the left child's tighten as the
/// threshold rises, from `left.0` (unbounded below it) to the last entry
/// of `left.1` (held above it); the right child's loosen, from the first
/// entry of `right.1` (held below `right.0`) to none past its last.
pub(super) struct ChildBounds {
    left: (i64, Vec<(f64, f64)>),
    right: (i64, Vec<(f64, f64)>),
}

impl ChildBounds {
    /// The children's bounds when bin `t` is the last going left.
    #[inline]
    pub fn at(&self, t: usize) -> ((f64, f64), (f64, f64)) {
        let unbounded = (f64::NEG_INFINITY, f64::INFINITY);
        let t = t as i64;
        let (from, l) = (self.left.0, &self.left.1);
        let left = match t < from || l.is_empty() {
            true => unbounded,
            false => l[((t - from) as usize).min(l.len() - 1)],
        };
        let (from, r) = (self.right.0, &self.right.1);
        let right = match t >= from + r.len() as i64 || r.is_empty() {
            true => unbounded,
            false => r[(t - from).max(0) as usize],
        };
        (left, right)
    }
}

impl LeafBounds<'_> {
    /// The direction of feature `f`.
    pub fn dir(&self, f: usize) -> i8 {
        self.dirs.get(f).copied().unwrap_or(0)
    }

    /// With the advanced method, the children's bounds of every threshold
    /// of numeric feature `f` of `n` bins: each ordered leaf bounds the
    /// left child from the first threshold at which the left half (growing
    /// with the threshold) is ordered with it, and the right child up to
    /// the last at which the right half (shrinking) is; found by bisection,
    /// the order being monotone in the threshold. The halves keep the
    /// leaf's missing values, which can only add orders.
    pub fn children(&self, f: usize, n: usize) -> Option<ChildBounds> {
        let (geo, others, bins) = self.advanced?;
        let d = self.dir(f);
        let x = geo.span(bins, f);
        let unbounded = (f64::NEG_INFINITY, f64::INFINITY);
        let half = |t: i64, is_left: bool| match is_left {
            true => Span { hi: t, ..x },
            false => Span { lo: t + 1, ..x },
        };
        // Whether `o` (lower or not, its span `m` of `f`) is ordered with
        // a half whose span is `s`.
        let ordered = |o: &Other, m: &Span, s: &Span| match o.lower {
            true => compatible(m, s, d),
            false => compatible(s, m, d),
        };
        let tighten = |b: &mut (f64, f64), o: &Other| match o.lower {
            true => b.0 = b.0.max(o.value),
            false => b.1 = b.1.min(o.value),
        };
        let (first, last) = (x.lo.max(0), x.hi.min(n as i64 - 1));
        // Where each ordered leaf starts bounding the left child and stops
        // bounding the right one.
        let (mut lefts, mut rights) = (Vec::new(), Vec::new());
        for o in others {
            let m = o.geo.span(bins, f);
            let ordered = |s: &Span| ordered(o, &m, s);
            // The smallest t whose left half is ordered with `o`.
            if first <= last && ordered(&half(last, true)) {
                let (mut a, mut b) = (first, last);
                while a < b {
                    let mid = a + (b - a) / 2;
                    if ordered(&half(mid, true)) {
                        b = mid;
                    } else {
                        a = mid + 1;
                    }
                }
                lefts.push((a, o));
            }
            // The largest t whose right half is ordered with `o`.
            if first <= last && ordered(&half(first, false)) {
                let (mut a, mut b) = (first, last);
                while a < b {
                    let mid = a + (b - a + 1) / 2;
                    if ordered(&half(mid, false)) {
                        a = mid;
                    } else {
                        b = mid - 1;
                    }
                }
                rights.push((a, o));
            }
        }
        // The steps, each entry the tightest of those at or before it (the
        // left child) or at or after it (the right one).
        let steps = |events: &[(i64, &Other)], rising: bool| {
            let Some(lo) = events.iter().map(|e| e.0).min() else {
                return (0, Vec::new());
            };
            let hi = events.iter().map(|e| e.0).max().unwrap_or(lo);
            let mut v = vec![unbounded; (hi - lo + 1) as usize];
            for &(a, o) in events {
                tighten(&mut v[(a - lo) as usize], o);
            }
            let w = v.len();
            for k in 1..w {
                let (i, p) = match rising {
                    true => (k, v[k - 1]),
                    false => (w - 1 - k, v[w - k]),
                };
                v[i] = (v[i].0.max(p.0), v[i].1.min(p.1));
            }
            (lo, v)
        };
        Some(ChildBounds {
            left: steps(&lefts, true),
            right: steps(&rights, false),
        })
    }
}

/// A leaf's bounds from the leaves ordered with it: the largest output of
/// those below, the smallest of those above.
pub(super) fn bounds_among<'a: 'b, 'b>(others: impl Iterator<Item = &'b Other<'a>>) -> (f64, f64) {
    others.fold((f64::NEG_INFINITY, f64::INFINITY), |(lo, hi), o| {
        match o.lower {
            true => (lo.max(o.value), hi),
            false => (lo, hi.min(o.value)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Dataset;
    use crate::learn::constraints::{Interactions, Monotone};
    use crate::learn::gbdt::{Gbdt, GbdtModel};
    use crate::learn::{Learner, Model};
    use rand::RngExt;

    /// 2,000 rows whose class-1 rate rises and falls with x0 (a sine), rises
    /// with x1 (missing in one row of 20) and ignores x2.
    fn wavy() -> Dataset {
        let mut r = crate::rng::stream(7, 0);
        let (mut rows, mut y) = (Vec::new(), Vec::new());
        for i in 0..2000 {
            let (a, b, c): (f64, f64, f64) = (r.random(), r.random(), r.random());
            let z = 3.0 * (6.0 * a).sin() + 2.0 * b - 1.5 + 0.5 * r.random::<f64>();
            y.push(u32::from(r.random::<f64>() < 1.0 / (1.0 + (-z).exp())));
            rows.push(vec![a, if i % 20 == 0 { f64::NAN } else { b }, c]);
        }
        Dataset::from_rows(rows, y, vec!["n".into(), "p".into()]).unwrap()
    }

    /// The largest move against direction `dir` of the class-1
    /// probability of `m` as feature `f` sweeps 50 values over [0, 1], the
    /// others held at those of the first 40 rows of `d`.
    fn against(m: &Model, d: &Dataset, f: usize, dir: f64) -> f64 {
        let mut worst: f64 = 0.0;
        for i in 0..40 {
            let rows: Vec<Vec<f64>> = (0..50)
                .map(|k| {
                    let mut x = d.row(i).to_vec();
                    x[f] = k as f64 / 49.0;
                    x
                })
                .collect();
            let sweep =
                Dataset::from_rows(rows, vec![0; 50], vec!["n".into(), "p".into()]).unwrap();
            let p = m.predict_proba(&sweep).unwrap();
            for k in 1..50 {
                worst = worst.max(dir * (p.row(k - 1)[1] - p.row(k)[1]));
            }
        }
        worst
    }

    fn fit(g: &Gbdt, d: &Dataset) -> Model {
        let rows: Vec<usize> = (0..d.n_rows()).collect();
        g.fit(&d.view(&rows), &mut crate::rng::stream(3, 0))
            .unwrap()
    }

    fn mono(pairs: &[(&str, i8)]) -> Monotone {
        Monotone(pairs.iter().map(|(n, d)| (n.to_string(), *d)).collect())
    }

    #[test]
    fn every_method_keeps_the_directions_the_plain_fit_breaks() {
        let d = wavy();
        let plain = fit(&Gbdt::default(), &d);
        assert!(against(&plain, &d, 0, 1.0) > 0.05 && against(&plain, &d, 0, -1.0) > 0.05);
        for method in [
            MonotoneMethod::Basic,
            MonotoneMethod::Intermediate,
            MonotoneMethod::Advanced,
        ] {
            for (x0, x1) in [(1, 1), (-1, 0)] {
                let g = Gbdt {
                    monotone: mono(&[("x0", x0), ("x1", x1)]),
                    monotone_method: method,
                    ..Gbdt::default()
                };
                let m = fit(&g, &d);
                assert_eq!(against(&m, &d, 0, f64::from(x0)), 0.0, "{method:?} x0:{x0}");
                if x1 != 0 {
                    assert_eq!(against(&m, &d, 1, 1.0), 0.0, "{method:?} x1");
                }
                // Still a model: the trees split.
                let t = &m.downcast_ref::<GbdtModel>().unwrap().trees()[0];
                assert!(t.nodes.len() > 3, "{method:?}");
            }
        }
    }

    #[test]
    fn the_penalty_keeps_monotone_splits_off_the_first_levels() {
        let d = wavy();
        let g = Gbdt {
            monotone: mono(&[("x0", 1), ("x1", 1)]),
            monotone_penalty: 2.0,
            rounds: 5,
            ..Gbdt::default()
        };
        let m = fit(&g, &d);
        for t in m.downcast_ref::<GbdtModel>().unwrap().trees() {
            // The root and its children split on x2, the free feature.
            assert_eq!(t.nodes[0].feature, 2);
        }
        assert_eq!(against(&m, &d, 0, 1.0), 0.0);
    }

    #[test]
    fn interaction_groups_keep_each_branch_in_one_group() {
        let d = wavy();
        let g = Gbdt {
            interaction: Interactions(vec![vec!["x0".into(), "x2".into()], vec!["x1".into()]]),
            ..Gbdt::default()
        };
        let m = fit(&g, &d);
        let mut splits_x1 = 0;
        for t in m.downcast_ref::<GbdtModel>().unwrap().trees() {
            // Every branch below a node on x1 stays on x1, and no branch
            // that took x0 or x2 takes x1.
            fn walk(t: &crate::learn::gbdt::GbdtTree, i: i32, group: Option<bool>, n: &mut usize) {
                if i < 0 {
                    return;
                }
                let node = &t.nodes[i as usize];
                let is_x1 = node.feature == 1;
                *n += usize::from(is_x1);
                assert!(group.is_none_or(|g| g == is_x1), "a branch mixes groups");
                walk(t, node.left, Some(is_x1), n);
                walk(t, node.right, Some(is_x1), n);
            }
            if !t.nodes.is_empty() {
                walk(t, 0, None, &mut splits_x1);
            }
        }
        assert!(splits_x1 > 0);
    }

    #[test]
    fn constraints_name_columns_of_the_data() {
        let d = wavy();
        let rows: Vec<usize> = (0..d.n_rows()).collect();
        let bad = |g: Gbdt| {
            g.fit(&d.view(&rows), &mut crate::rng::stream(3, 0))
                .unwrap_err()
                .to_string()
        };
        let e = bad(Gbdt {
            monotone: mono(&[("debt", 1)]),
            ..Gbdt::default()
        });
        assert!(
            e.contains("no column named debt") && e.contains("x0, x1, x2"),
            "{e}"
        );
        let e = bad(Gbdt {
            interaction: Interactions(vec![vec!["zz".into()]]),
            ..Gbdt::default()
        });
        assert!(e.contains("no column named zz"), "{e}");
    }

    fn span(lo: i64, hi: i64, miss: bool) -> Span {
        Span { lo, hi, miss }
    }

    #[test]
    fn spans_split_as_the_cut_sends_codes_and_missing_values() {
        let s = span(0, 9, true);
        assert_eq!(s.sides((3, false)), (span(0, 3, false), span(4, 9, true)));
        assert_eq!(s.sides((3, true)), (span(0, 3, true), span(4, 9, false)));
        // The observed values against the missing ones.
        let (l, r) = s.sides((9, false));
        assert!(l.observed() && !l.miss && !r.observed() && r.miss);
    }

    #[test]
    fn orders_need_a_point_below_another() {
        let (a, b) = (span(0, 3, false), span(4, 9, false));
        assert!(compatible(&a, &b, 1) && !compatible(&b, &a, 1));
        assert!(compatible(&b, &a, -1) && !compatible(&a, &b, -1));
        assert!(!compatible(&a, &b, 0) && compatible(&a, &span(3, 5, false), 0));
        assert!(compatible(&span(0, 3, true), &span(4, 3, true), 0));
        assert!(!compatible(&span(0, 3, false), &span(4, 3, true), 1));
    }

    #[test]
    fn the_penalty_forbids_the_first_levels() {
        let c = |p| Constraints {
            penalty: p,
            ..Constraints::default()
        };
        assert_eq!(c(0.0).penalty_at(0), 1.0 + 1e-15);
        assert_eq!(c(2.0).penalty_at(1), 1e-15);
        assert_eq!(c(1.0).penalty_at(1), 0.5 + 1e-15);
        assert_eq!(c(1.5).penalty_at(2), 1.0 - 2f64.powf(-1.5) + 1e-15);
    }
}
