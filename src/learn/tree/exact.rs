//! Growing an exact probability tree on presorted columns.
//!
//! The classic presorted scheme (SLIQ/SPRINT; scikit-learn's splitter sorts at
//! every node instead): each feature's rows are kept sorted by value in one
//! list per feature, and every node owns the same contiguous range in all
//! lists. Finding the best split of a node is one pass over each candidate
//! feature's range, accumulating weighted class totals and scoring every
//! boundary between distinct values; applying the split is a stable
//! partition of every list's range. Work per node is linear in its rows, with
//! no sorting after the one presort per dataset ([`Presorted`]).
//!
//! Candidate thresholds are midpoints between adjacent distinct values present
//! in the node, as in CART and scikit-learn. Features are visited in a random
//! order drawn at every node (as scikit-learn's splitter does, even with all
//! features) and ties in the score keep the first candidate met (thresholds
//! ascending), so tied features are chosen at random, and a fit is a pure
//! function of the data, the view and the random stream.

use rand::RngExt;

use super::model::{Growing, TreeModel};
use super::monotone::{self, Constraints, Range};
use super::presort::{row_info, Presorted, RowInfo};
use super::score::{xlnx, Entropy, GainRatio, Gini, Score};
use super::{Criterion, MissingSplits, Tree};
use crate::data::View;
use crate::error::{Error, Result};
use crate::params::Params;
use crate::rng::Rng;

/// A node waiting to be grown.
#[derive(Debug, Clone, Copy)]
struct Pending {
    start: usize,
    end: usize,
    depth: usize,
    samples: u64,
    parent: Option<(usize, bool)>,
    /// Bounds on the node's positive-class probability (monotone
    /// constraints, [`monotone`]).
    range: Range,
}

/// The best split found so far in a node.
#[derive(Debug, Clone, Copy)]
struct Best {
    score: f64,
    feature: usize,
    /// Position (within the node's range) of the last row of observed
    /// values going left.
    pos: usize,
    /// Whether the missing values go left.
    default_left: bool,
    /// A threshold on the observed values (not the `mia` split of the
    /// observed values from the missing ones).
    ordered: bool,
}

/// Working state of one fit.
struct Grower<'a> {
    cfg: &'a Tree,
    pre: &'a Presorted,
    info: Vec<RowInfo>,
    /// Unique rows of the fit per feature, `m` each, feature-major.
    lists: Vec<u32>,
    m: usize,
    scratch: Vec<u32>,
    go_left: Vec<bool>,
    feats: Vec<usize>,
    left: Vec<f64>,
    /// The class totals of a node's missing values of one feature.
    miss: Vec<f64>,
    d: usize,
    mtry: usize,
    min_leaf: u64,
    /// The monotone constraints, when a feature has one.
    mono: Option<Constraints>,
}

/// Grows an exact tree with `cfg` on `view`, whose dataset `pre` was built
/// from.
pub(crate) fn grow(
    cfg: &Tree,
    pre: &Presorted,
    view: &View<'_>,
    rng: &mut Rng,
) -> Result<TreeModel> {
    let data = view.data();
    let (d, k) = (data.n_features(), data.n_classes());
    if d == 0 {
        return Err(Error::data("cannot fit a tree: the data has no features"));
    }
    let mtry = cfg.max_features.resolve(d)?;
    cfg.check()?;
    let dirs = monotone::directions(cfg, view)?;
    let (info, totals) = row_info(view)?;
    let m = info.iter().filter(|r| r.cnt > 0).count();
    let mut lists = Vec::with_capacity(d * m);
    for f in 0..d {
        lists.extend(
            pre.order(f)
                .iter()
                .copied()
                .filter(|&r| info[r as usize].cnt > 0),
        );
    }
    let samples: u64 = info.iter().map(|r| r.cnt as u64).sum();
    let w: f64 = totals.iter().sum();
    let priors: Vec<f64> = totals.iter().map(|t| t / w).collect();
    let mut g = Grower {
        cfg,
        pre,
        info,
        lists,
        m,
        scratch: vec![0; m],
        go_left: vec![false; data.n_rows()],
        feats: (0..d).collect(),
        left: vec![0.0; k],
        miss: vec![0.0; k],
        d,
        mtry,
        min_leaf: cfg.min_samples_leaf.max(1) as u64,
        mono: dirs.map(|dirs| Constraints::new(dirs, cfg.leaf, &priors)),
    };
    let mut tree = Growing::new(d, k);
    let mut stack = vec![Pending {
        start: 0,
        end: m,
        depth: 0,
        samples,
        parent: None,
        range: Range::ALL,
    }];
    // Class totals of the pending nodes, k per entry, in stack order.
    let mut arena = totals;
    let mut tot = vec![0.0; k];
    let mut left_tot = vec![0.0; k];
    while let Some(node) = stack.pop() {
        crate::cancel::check()?;
        tot.copy_from_slice(&arena[arena.len() - k..]);
        arena.truncate(arena.len() - k);
        let best = if g.splittable(&node, &tot) {
            g.best_split(&node, &tot, rng)
        } else {
            None
        };
        let Some(best) = best else {
            tree.leaf_in(&tot, node.parent, node.range);
            continue;
        };
        let (threshold, left_samples, left_rows) = g.apply(&node, best, &mut left_tot, view);
        let idx = tree.split(best.feature, threshold, best.default_left, node.parent);
        let (left_range, right_range) = match &g.mono {
            Some(c) => c.children(best.feature, best.ordered, &left_tot, &tot, node.range),
            None => (node.range, node.range),
        };
        let mid = node.start + left_rows;
        let child = |start, end, samples, left, range| Pending {
            start,
            end,
            depth: node.depth + 1,
            samples,
            parent: Some((idx, left)),
            range,
        };
        // Right is pushed first so that the left child is grown next and
        // directly follows its parent.
        let right_samples = node.samples - left_samples;
        stack.push(child(mid, node.end, right_samples, false, right_range));
        arena.extend(tot.iter().zip(&left_tot).map(|(t, l)| (t - l).max(0.0)));
        stack.push(child(node.start, mid, left_samples, true, left_range));
        arena.extend_from_slice(&left_tot);
    }
    Ok(tree.finish(cfg.leaf, &priors))
}

impl Grower<'_> {
    /// Whether the stopping rules allow splitting this node.
    fn splittable(&self, node: &Pending, tot: &[f64]) -> bool {
        let present = tot.iter().filter(|&&t| t > 0.0).count();
        present > 1
            && node.end - node.start > 1
            && node.samples >= self.cfg.min_samples_split.max(2) as u64
            && node.samples >= 2 * self.min_leaf
            && node.depth < self.cfg.depth_limit()
    }

    /// The best split of the node over the candidate features, if any.
    fn best_split(&mut self, node: &Pending, tot: &[f64], rng: &mut Rng) -> Option<Best> {
        let w: f64 = tot.iter().sum();
        match self.cfg.criterion {
            Criterion::Gini => self.search(node, tot, w, &Gini, rng),
            Criterion::Entropy => self.search(node, tot, w, &Entropy, rng),
            Criterion::GainRatio => {
                let parent = tot.iter().map(|&t| xlnx(t)).sum::<f64>() - xlnx(w);
                self.search(node, tot, w, &GainRatio { parent: -parent }, rng)
            }
        }
    }

    /// Visits features in a random order drawn at every node until
    /// `max_features` of them that are not constant in the node have been
    /// scanned, as in scikit-learn (constant features do not count; with all
    /// features, the order breaks ties between features at random).
    fn search<S: Score>(
        &mut self,
        node: &Pending,
        tot: &[f64],
        w: f64,
        score: &S,
        rng: &mut Rng,
    ) -> Option<Best> {
        let mut best: Option<Best> = None;
        let mut scanned = 0;
        for j in 0..self.d {
            if scanned >= self.mtry {
                break;
            }
            let r = rng.random_range(j..self.d);
            self.feats.swap(j, r);
            let f = self.feats[j];
            let seg = &self.lists[f * self.m + node.start..f * self.m + node.end];
            let ranks = self.pre.ranks(f);
            if ranks[seg[0] as usize] == ranks[seg[seg.len() - 1] as usize] {
                continue;
            }
            scanned += 1;
            self.scan(f, node, tot, w, score, &mut best);
        }
        best
    }

    /// The rows of the node's missing values of feature `f` (the last of
    /// its sorted list), their class totals into `miss` and their copies.
    fn missing_of(&self, f: usize, node: &Pending, miss: &mut [f64]) -> (usize, u64) {
        miss.iter_mut().for_each(|v| *v = 0.0);
        let Some(nan) = self.pre.missing_rank(f) else {
            return (0, 0);
        };
        let seg = &self.lists[f * self.m + node.start..f * self.m + node.end];
        let ranks = self.pre.ranks(f);
        let (mut rows, mut copies) = (0, 0u64);
        for &r in seg.iter().rev().take_while(|&&r| ranks[r as usize] == nan) {
            let ri = self.info[r as usize];
            miss[ri.class as usize] += ri.w;
            copies += ri.cnt as u64;
            rows += 1;
        }
        (rows, copies)
    }

    /// Scores the splits of feature `f` in the node: every boundary between
    /// distinct observed values with the missing values on the right, then
    /// on the left, then (`mia`) the observed values against the missing
    /// ones, as scikit-learn's best splitter orders them. Without missing
    /// values in the node, a split sends them (met when scoring) to the
    /// child of more weight (scikit-learn's rule, the child with more rows,
    /// with a row's copies and weight counted; a tie goes right).
    #[inline]
    fn scan<S: Score>(
        &mut self,
        f: usize,
        node: &Pending,
        tot: &[f64],
        w: f64,
        score: &S,
        best: &mut Option<Best>,
    ) {
        let mut miss = std::mem::take(&mut self.miss);
        let (n_miss, miss_samples) = self.missing_of(f, node, &mut miss);
        let observed = node.end - node.start - n_miss;
        if observed > 0 {
            self.scan_from(f, node, observed, None, tot, w, score, best);
        }
        if n_miss > 0 && observed > 0 {
            let start = Some((&miss[..], miss_samples));
            self.scan_from(f, node, observed, start, tot, w, score, best);
            if self.cfg.missing_split == MissingSplits::Mia
                && node.samples - miss_samples >= self.min_leaf
                && miss_samples >= self.min_leaf
            {
                let mut wl = 0.0;
                for ((l, &t), &c) in self.left.iter_mut().zip(tot).zip(&miss) {
                    *l = (t - c).max(0.0);
                    wl += *l;
                }
                let s = score.score(&self.left, tot, wl, w);
                if s > best.map_or(f64::NEG_INFINITY, |b| b.score) {
                    *best = Some(Best {
                        score: s,
                        feature: f,
                        pos: observed - 1,
                        default_left: false,
                        ordered: false,
                    });
                }
            }
        }
        self.miss = miss;
    }

    /// One scan of [`Grower::scan`] over the first `observed` rows of
    /// feature `f`'s list in the node (its observed values), the left side
    /// starting with `start` (the missing values' class totals and copies,
    /// sent left) or empty.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn scan_from<S: Score>(
        &mut self,
        f: usize,
        node: &Pending,
        observed: usize,
        start: Option<(&[f64], u64)>,
        tot: &[f64],
        w: f64,
        score: &S,
        best: &mut Option<Best>,
    ) {
        let seg = &self.lists[f * self.m + node.start..f * self.m + node.start + observed];
        let has_missing = observed < node.end - node.start;
        let ranks = self.pre.ranks(f);
        let info = &self.info;
        let left = &mut self.left;
        let (mut wl, mut nl) = (0.0, 0u64);
        match start {
            Some((c, n)) => {
                left.copy_from_slice(c);
                wl = c.iter().sum();
                nl = n;
            }
            None => left.iter_mut().for_each(|v| *v = 0.0),
        }
        let mut rank = ranks[seg[0] as usize];
        let mut best_score = best.map_or(f64::NEG_INFINITY, |b| b.score);
        // A constrained feature's candidates must keep its direction.
        let mono = self.mono.as_ref().filter(|c| c.direction(f) != 0);
        for i in 0..seg.len() - 1 {
            let r = info[seg[i] as usize];
            left[r.class as usize] += r.w;
            wl += r.w;
            nl += r.cnt as u64;
            let next = ranks[seg[i + 1] as usize];
            if next == rank {
                continue;
            }
            rank = next;
            if nl < self.min_leaf {
                continue;
            }
            if node.samples - nl < self.min_leaf {
                break;
            }
            let s = score.score(left, tot, wl, w);
            if s > best_score && mono.is_none_or(|c| c.allows(f, left, tot, node.range)) {
                best_score = s;
                *best = Some(Best {
                    score: s,
                    feature: f,
                    pos: i,
                    default_left: match has_missing {
                        true => start.is_some(),
                        false => wl > w - wl,
                    },
                    ordered: true,
                });
            }
        }
    }

    /// Partitions every feature list of the node by the chosen split; fills
    /// the left child's class totals and returns the threshold, the left
    /// child's sample count and its number of rows. A split of the observed
    /// values from the missing ones sends every number left (threshold
    /// `f64::MAX`).
    fn apply(
        &mut self,
        node: &Pending,
        best: Best,
        left_tot: &mut [f64],
        view: &View<'_>,
    ) -> (f64, u64, usize) {
        let f = best.feature;
        let m = self.m;
        let seg = &self.lists[f * m + node.start..f * m + node.end];
        let data = view.data();
        let a = data.value(seg[best.pos] as usize, f);
        let b = data.value(seg[best.pos + 1] as usize, f);
        let mut threshold = a / 2.0 + b / 2.0;
        if b.is_nan() {
            threshold = f64::MAX;
        } else if threshold >= b || !threshold.is_finite() {
            threshold = a;
        }
        left_tot.iter_mut().for_each(|v| *v = 0.0);
        let (mut left_samples, mut left_rows) = (0u64, 0);
        for (i, &row) in seg.iter().enumerate() {
            let goes_left = match data.value(row as usize, f).is_nan() {
                true => best.default_left,
                false => i <= best.pos,
            };
            self.go_left[row as usize] = goes_left;
            if goes_left {
                let r = self.info[row as usize];
                left_tot[r.class as usize] += r.w;
                left_samples += r.cnt as u64;
                left_rows += 1;
            }
        }
        // The split feature's own list is already in order (left rows
        // first) unless missing values, at its end, go left.
        let own = best.default_left && self.pre.missing_rank(f).is_some();
        for g in (0..self.d).filter(|&g| g != f || own) {
            let seg = &mut self.lists[g * m + node.start..g * m + node.end];
            let (mut l, mut r) = (0, 0);
            for i in 0..seg.len() {
                let row = seg[i];
                if self.go_left[row as usize] {
                    seg[l] = row;
                    l += 1;
                } else {
                    self.scratch[r] = row;
                    r += 1;
                }
            }
            seg[l..].copy_from_slice(&self.scratch[..r]);
        }
        (threshold, left_samples, left_rows)
    }
}
