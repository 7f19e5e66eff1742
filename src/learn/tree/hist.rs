//! Growing a probability tree on binned features (histogram splits).
//!
//! The scheme of LightGBM (Ke et al. 2017) and scikit-learn's
//! `HistGradientBoostingClassifier`, applied to a classification tree: the
//! features are binned once per dataset ([`Binned`]); a node owns a range of
//! one list of row indices; its best split comes from per-feature histograms
//! of weighted class totals (and row copies), one cumulative pass over at
//! most 255 bins per feature. Candidate splits lie between two bins that are
//! both non-empty in the node, with nothing between them in the node; the
//! threshold is the midpoint of the gap between the dataset's largest value
//! of the left bin and smallest value of the right bin. With one bin per
//! distinct value this is exactly the exact splitter's midpoint, and the tree
//! equals the exact one ([`super::exact`]) for integer weights.
//!
//! When every feature is a candidate (`max_features = none`), a node's
//! histograms are kept and its children's derived by the sibling-subtraction
//! trick: the smaller child's histograms are built from its rows and the
//! larger child's are the parent's minus the smaller's. With fewer candidate
//! features (random forests), each drawn feature's histogram is built from
//! the node's rows, so unused features cost nothing.
//!
//! A categorical feature's bins are its levels, and its candidate splits
//! sets of levels ([`super::categorical::best_class_set`]): the rows whose
//! level is in the set go left, every other row (missing values included)
//! right. A numeric feature's missing values have a bin of their own, the
//! last ([`Binned::missing_bin`]), which each threshold scores on either
//! side (the module doc of [`super`] says in which order).
//!
//! Features are visited in a random order drawn at every node (as in
//! scikit-learn's splitter) and ties keep the first candidate met, so tied
//! splits are broken at random but reproducibly from the fit's stream.

use rand::RngExt;

use super::binned::Binned;
use super::categorical::{best_class_set, BinSet, CatRules, ClassNode};
use super::model::{Growing, TreeModel};
use super::monotone::{self, Constraints, Range};
use super::presort::{row_info, RowInfo};
use super::score::{xlnx, Entropy, GainRatio, Gini, Score};
use super::{Criterion, MissingSplits, Tree};
use crate::data::View;
use crate::error::{Error, Result};
use crate::params::Params;
use crate::rng::Rng;

/// A node waiting to be grown.
#[derive(Debug)]
struct Pending {
    start: usize,
    end: usize,
    depth: usize,
    samples: u64,
    parent: Option<(usize, bool)>,
    totals: Vec<f64>,
    /// All features' histograms (subtraction mode only).
    hist: Option<Vec<f64>>,
    /// Bounds on the node's positive-class probability (monotone
    /// constraints, [`monotone`]).
    range: Range,
}

/// The best split found so far in a node.
#[derive(Debug, Clone)]
struct Best {
    score: f64,
    feature: usize,
    /// Last non-empty bin going left, and the next non-empty bin.
    left_bin: usize,
    right_bin: usize,
    /// For a categorical feature, the bins going left.
    set: Option<BinSet>,
    /// Whether the missing values (the feature's missing bin) go left.
    default_left: bool,
}

/// Working state of one fit.
struct Grower<'a> {
    cfg: &'a Tree,
    bins: &'a Binned,
    info: Vec<RowInfo>,
    /// Distinct rows of the fit; each node owns a range.
    rows: Vec<u32>,
    scratch: Vec<u32>,
    feats: Vec<usize>,
    /// One feature's histogram (direct mode).
    one: Vec<f64>,
    /// Spare all-feature histograms.
    pool: Vec<Vec<f64>>,
    left: Vec<f64>,
    k: usize,
    d: usize,
    mtry: usize,
    min_leaf: u64,
    subtract: bool,
    /// The monotone constraints, when a feature has one.
    mono: Option<Constraints>,
}

/// Grows a tree with `cfg` on `view`, whose dataset `bins` was built from.
pub(crate) fn grow(cfg: &Tree, bins: &Binned, view: &View<'_>, rng: &mut Rng) -> Result<TreeModel> {
    let data = view.data();
    let (d, k) = (data.n_features(), data.n_classes());
    if d == 0 {
        return Err(Error::data("cannot fit a tree: the data has no features"));
    }
    let mtry = cfg.max_features.resolve(d)?;
    cfg.check()?;
    let dirs = monotone::directions(cfg, view)?;
    let (info, totals) = row_info(view)?;
    let rows: Vec<u32> = (0..info.len() as u32)
        .filter(|&r| info[r as usize].cnt > 0)
        .collect();
    let samples: u64 = info.iter().map(|r| r.cnt as u64).sum();
    let w: f64 = totals.iter().sum();
    let priors: Vec<f64> = totals.iter().map(|t| t / w).collect();
    let m = rows.len();
    let mut g = Grower {
        cfg,
        bins,
        info,
        rows,
        scratch: vec![0; m],
        feats: (0..d).collect(),
        one: Vec::new(),
        pool: Vec::new(),
        left: vec![0.0; k],
        k,
        d,
        mtry,
        min_leaf: cfg.min_samples_leaf.max(1) as u64,
        subtract: mtry == d,
        mono: dirs.map(|dirs| Constraints::new(dirs, cfg.leaf, &priors)),
    };
    let mut tree = Growing::new(d, k);
    let mut root = Pending {
        start: 0,
        end: m,
        depth: 0,
        samples,
        parent: None,
        totals,
        hist: None,
        range: Range::ALL,
    };
    if g.subtract && g.splittable(&root) {
        let mut h = g.take_hist();
        g.build_all(0, m, &mut h);
        root.hist = Some(h);
    }
    let mut stack = vec![root];
    let mut left_tot = vec![0.0; k];
    while let Some(mut node) = stack.pop() {
        crate::cancel::check()?;
        let best = if g.splittable(&node) {
            g.best_split(&node, rng)
        } else {
            None
        };
        let Some(best) = best else {
            tree.leaf_in(&node.totals, node.parent, node.range);
            if let Some(h) = node.hist.take() {
                g.pool.push(h);
            }
            continue;
        };
        let (mut left, mut right) = g.split(&mut tree, &node, best, &mut left_tot);
        if let Some(h) = node.hist.take() {
            g.children_hists(h, &mut left, &mut right);
        }
        // Right is pushed first so that the left child is grown next and
        // directly follows its parent.
        stack.push(right);
        stack.push(left);
    }
    Ok(tree.finish(cfg.leaf, &priors))
}

impl Grower<'_> {
    /// Splits `node` by `best`: partitions its rows, appends the split to
    /// `tree` and returns the children (without histograms), the left
    /// child's class totals also in `left_tot`.
    fn split(
        &mut self,
        tree: &mut Growing,
        node: &Pending,
        best: Best,
        left_tot: &mut [f64],
    ) -> (Pending, Pending) {
        let (mid, left_samples) = self.apply(node, &best, left_tot);
        let f = best.feature;
        let (left_range, right_range) = match &self.mono {
            Some(c) => {
                let ordered =
                    best.set.is_none() && self.bins.missing_bin(f) != Some(best.right_bin);
                c.children(f, ordered, left_tot, &node.totals, node.range)
            }
            None => (node.range, node.range),
        };
        let idx = self.record(tree, best, node.parent);
        let right_tot: Vec<f64> = node
            .totals
            .iter()
            .zip(left_tot.iter())
            .map(|(t, l)| (t - l).max(0.0))
            .collect();
        let left = Pending {
            start: node.start,
            end: mid,
            depth: node.depth + 1,
            samples: left_samples,
            parent: Some((idx, true)),
            totals: left_tot.to_vec(),
            hist: None,
            range: left_range,
        };
        let right = Pending {
            start: mid,
            end: node.end,
            depth: node.depth + 1,
            samples: node.samples - left_samples,
            parent: Some((idx, false)),
            totals: right_tot,
            hist: None,
            range: right_range,
        };
        (left, right)
    }

    /// Whether the stopping rules allow splitting this node.
    fn splittable(&self, node: &Pending) -> bool {
        let present = node.totals.iter().filter(|&&t| t > 0.0).count();
        present > 1
            && node.end - node.start > 1
            && node.samples >= self.cfg.min_samples_split.max(2) as u64
            && node.samples >= 2 * self.min_leaf
            && node.depth < self.cfg.depth_limit()
    }

    /// A zeroed all-feature histogram buffer.
    fn take_hist(&mut self) -> Vec<f64> {
        let len = self.bins.total_bins() * (self.k + 1);
        match self.pool.pop() {
            Some(mut h) => {
                h.iter_mut().for_each(|v| *v = 0.0);
                h
            }
            None => vec![0.0; len],
        }
    }

    /// Adds rows `start..end` to the histogram `h` of feature `f` (bins of
    /// `k` class weights and one copy count).
    #[inline]
    fn add_rows(&self, f: usize, start: usize, end: usize, h: &mut [f64]) {
        let s = self.k + 1;
        let k = self.k;
        let codes = self.bins.column(f);
        for &r in &self.rows[start..end] {
            let ri = self.info[r as usize];
            let b = codes.get(r as usize) * s;
            h[b + ri.class as usize] += ri.w;
            h[b + k] += ri.cnt as f64;
        }
    }

    /// All features' histograms of rows `start..end` into the zeroed `h`.
    fn build_all(&self, start: usize, end: usize, h: &mut [f64]) {
        let s = self.k + 1;
        for f in 0..self.d {
            let (a, b) = (self.bins.offset(f) * s, self.bins.offset(f + 1) * s);
            self.add_rows(f, start, end, &mut h[a..b]);
        }
    }

    /// Gives the children of a split node their histograms, when they may be
    /// split: the smaller child's built from its rows, the larger's derived
    /// from the parent's `h` by subtraction.
    fn children_hists(&mut self, mut h: Vec<f64>, left: &mut Pending, right: &mut Pending) {
        let left_smaller = left.end - left.start <= right.end - right.start;
        let (small, large) = if left_smaller {
            (left, right)
        } else {
            (right, left)
        };
        let (need_small, need_large) = (self.splittable(small), self.splittable(large));
        if need_large {
            let mut hs = self.take_hist();
            self.build_all(small.start, small.end, &mut hs);
            h.iter_mut().zip(&hs).for_each(|(p, c)| *p -= c);
            large.hist = Some(h);
            if need_small {
                small.hist = Some(hs);
            } else {
                self.pool.push(hs);
            }
        } else if need_small {
            h.iter_mut().for_each(|v| *v = 0.0);
            self.build_all(small.start, small.end, &mut h);
            small.hist = Some(h);
        } else {
            self.pool.push(h);
        }
    }

    /// The best split of the node over the candidate features, if any.
    fn best_split(&mut self, node: &Pending, rng: &mut Rng) -> Option<Best> {
        let tot = &node.totals;
        let w: f64 = tot.iter().sum();
        match self.cfg.criterion {
            Criterion::Gini => self.search(node, w, &Gini, rng),
            Criterion::Entropy => self.search(node, w, &Entropy, rng),
            Criterion::GainRatio => {
                let parent = tot.iter().map(|&t| xlnx(t)).sum::<f64>() - xlnx(w);
                self.search(node, w, &GainRatio { parent: -parent }, rng)
            }
        }
    }

    /// Visits features in a random order until `max_features` of them that
    /// are not constant in the node have been scanned (constant features do
    /// not count, as in scikit-learn).
    fn search<S: Score>(
        &mut self,
        node: &Pending,
        w: f64,
        score: &S,
        rng: &mut Rng,
    ) -> Option<Best> {
        let s = self.k + 1;
        let mut best: Option<Best> = None;
        let mut scanned = 0;
        let mut one = std::mem::take(&mut self.one);
        for j in 0..self.d {
            if scanned >= self.mtry {
                break;
            }
            let r = rng.random_range(j..self.d);
            self.feats.swap(j, r);
            let f = self.feats[j];
            let (a, b) = (self.bins.offset(f) * s, self.bins.offset(f + 1) * s);
            let h: &[f64] = match &node.hist {
                Some(all) => &all[a..b],
                None => {
                    one.clear();
                    one.resize(b - a, 0.0);
                    self.add_rows(f, node.start, node.end, &mut one);
                    &one
                }
            };
            let varies = match self.bins.levels(f) {
                Some(levels) => self.scan_set(f, h, levels, node, w, score, &mut best),
                None => self.scan(f, h, node, w, score, &mut best),
            };
            if varies {
                scanned += 1;
            }
        }
        self.one = one;
        best
    }

    /// Scores the splits of numeric feature `f` whose histogram is `h`: every
    /// boundary between consecutive non-empty bins of observed values with
    /// the missing ones (its [missing bin](Binned::missing_bin)) on the
    /// right, then on the left, then, under [`MissingSplits::Mia`], the
    /// observed values against the missing ones; false when the feature is
    /// constant in the node.
    #[inline]
    fn scan<S: Score>(
        &mut self,
        f: usize,
        h: &[f64],
        node: &Pending,
        w: f64,
        score: &S,
        best: &mut Option<Best>,
    ) -> bool {
        let s = self.k + 1;
        let Some(m) = self.bins.missing_bin(f) else {
            return self.scan_values(f, h, None, node, w, score, best);
        };
        let (values, miss) = h.split_at(m * s);
        if miss[self.k] == 0.0 {
            return self.scan_values(f, values, None, node, w, score, best);
        }
        let varies = self.scan_values(f, values, Some(miss), node, w, score, best);
        let observed = values.chunks_exact(s).any(|c| c[self.k] > 0.0);
        if observed && self.cfg.missing_split == MissingSplits::Mia {
            self.observed_apart(f, m, miss, node, w, score, best);
        }
        varies || observed
    }

    /// The split of the node's observed values of feature `f` (bins `0..m`)
    /// from its missing ones (histogram cell `miss`), kept in `best` when
    /// the leaf rules allow it and it beats it.
    #[allow(clippy::too_many_arguments)]
    fn observed_apart<S: Score>(
        &mut self,
        f: usize,
        m: usize,
        miss: &[f64],
        node: &Pending,
        w: f64,
        score: &S,
        best: &mut Option<Best>,
    ) {
        let k = self.k;
        let n_miss = miss[k] as u64;
        if node.samples - n_miss < self.min_leaf || n_miss < self.min_leaf {
            return;
        }
        let left = &mut self.left;
        let mut wl = 0.0;
        for ((l, &t), &c) in left.iter_mut().zip(&node.totals).zip(&miss[..k]) {
            *l = (t - c).max(0.0);
            wl += *l;
        }
        let sc = score.score(left, &node.totals, wl, w);
        if sc > best.as_ref().map_or(f64::NEG_INFINITY, |b| b.score) {
            *best = Some(Best {
                score: sc,
                feature: f,
                left_bin: m - 1,
                right_bin: m,
                set: None,
                default_left: false,
            });
        }
    }

    /// Scores every boundary between consecutive non-empty bins of feature
    /// `f`'s histogram of observed values `h`: with the node's missing
    /// values (histogram cell `miss`) on the right, then on the left, when
    /// it has some; false when no two bins are non-empty. Without missing
    /// values, a split sends them (met when scoring) to the child of more
    /// weight (scikit-learn's rule, the child with more rows, with a row's
    /// copies and weight counted; a tie goes right).
    #[allow(clippy::too_many_arguments)]
    fn scan_values<S: Score>(
        &mut self,
        f: usize,
        h: &[f64],
        miss: Option<&[f64]>,
        node: &Pending,
        w: f64,
        score: &S,
        best: &mut Option<Best>,
    ) -> bool {
        let varies = self.scan_from(f, h, None, miss.is_some(), node, w, score, best);
        if miss.is_some() {
            self.scan_from(f, h, miss, true, node, w, score, best);
        }
        varies
    }

    /// One left-to-right scan of [`Grower::scan_values`], the left side
    /// starting with the cell `start` (the missing values sent left) or
    /// empty; `has_missing`: the node has missing values, whose direction
    /// is then `start`'s.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn scan_from<S: Score>(
        &mut self,
        f: usize,
        h: &[f64],
        start: Option<&[f64]>,
        has_missing: bool,
        node: &Pending,
        w: f64,
        score: &S,
        best: &mut Option<Best>,
    ) -> bool {
        let k = self.k;
        let s = k + 1;
        let left = &mut self.left;
        let (mut wl, mut nl) = (0.0, 0u64);
        match start {
            Some(c) => {
                left.copy_from_slice(&c[..k]);
                wl = c[..k].iter().sum();
                nl = c[k] as u64;
            }
            None => left.iter_mut().for_each(|v| *v = 0.0),
        }
        let mut prev: Option<usize> = None;
        let mut varies = false;
        let mut best_score = best.as_ref().map_or(f64::NEG_INFINITY, |b| b.score);
        // A constrained feature's candidates must keep its direction.
        let mono = self.mono.as_ref().filter(|c| c.direction(f) != 0);
        for (bin, cell) in h.chunks_exact(s).enumerate() {
            let cnt = cell[k];
            if cnt == 0.0 {
                continue;
            }
            if let Some(p) = prev {
                varies = true;
                if nl >= self.min_leaf {
                    if node.samples - nl < self.min_leaf {
                        break;
                    }
                    let sc = score.score(left, &node.totals, wl, w);
                    if sc > best_score
                        && mono.is_none_or(|c| c.allows(f, left, &node.totals, node.range))
                    {
                        best_score = sc;
                        *best = Some(Best {
                            score: sc,
                            feature: f,
                            left_bin: p,
                            right_bin: bin,
                            set: None,
                            default_left: match has_missing {
                                true => start.is_some(),
                                false => wl > w - wl,
                            },
                        });
                    }
                }
            }
            for (l, &v) in left.iter_mut().zip(&cell[..k]) {
                *l += v;
                wl += v;
            }
            nl += cnt as u64;
            prev = Some(bin);
        }
        varies
    }

    /// The best set split of categorical feature `f` (histogram `h`, its
    /// first `levels` bins single levels), kept in `best` when it beats it;
    /// false when the feature is constant in the node.
    #[allow(clippy::too_many_arguments)]
    fn scan_set<S: Score>(
        &self,
        f: usize,
        h: &[f64],
        levels: usize,
        node: &Pending,
        w: f64,
        score: &S,
        best: &mut Option<Best>,
    ) -> bool {
        let k = self.k;
        let present = h.chunks_exact(k + 1).filter(|c| c[k] > 0.0).count();
        let at = ClassNode {
            totals: &node.totals,
            w,
            samples: node.samples,
            min_leaf: self.min_leaf,
            rules: CatRules {
                smooth: self.cfg.cat_smooth,
                min_per_group: self.cfg.min_data_per_group as f64,
                max_threshold: self.cfg.max_cat_threshold,
                l2: self.cfg.cat_l2,
                max_onehot: self.cfg.max_cat_to_onehot,
            },
        };
        let floor = best.as_ref().map_or(f64::NEG_INFINITY, |b| b.score);
        if let Some((sc, set)) = best_class_set(h, k, levels, &at, score, floor) {
            *best = Some(Best {
                score: sc,
                feature: f,
                left_bin: 0,
                right_bin: 0,
                set: Some(set),
                default_left: false,
            });
        }
        present > 1
    }

    /// Appends the chosen split to `tree` (a threshold, or a set of levels);
    /// returns its node index.
    fn record(&self, tree: &mut Growing, best: Best, parent: Option<(usize, bool)>) -> usize {
        let f = best.feature;
        match best.set {
            Some(set) => tree.split_set(f, self.bins.level_set(f, &set), parent),
            None => {
                let threshold = self.bins.threshold(f, best.left_bin, best.right_bin);
                tree.split(f, threshold, best.default_left, parent)
            }
        }
    }

    /// Stably partitions the node's rows by the chosen split; fills the left
    /// child's class totals and returns the first position of the right
    /// child and the left child's sample count.
    fn apply(&mut self, node: &Pending, best: &Best, left_tot: &mut [f64]) -> (usize, u64) {
        match &best.set {
            Some(set) => self.partition(node, best.feature, left_tot, |c| set.contains(c)),
            None => {
                let cut = best.left_bin;
                match (self.bins.missing_bin(best.feature), best.default_left) {
                    (Some(m), true) => {
                        self.partition(node, best.feature, left_tot, |c| c <= cut || c == m)
                    }
                    _ => self.partition(node, best.feature, left_tot, |c| c <= cut),
                }
            }
        }
    }

    /// [`Grower::apply`] with the rows whose code of `f` `goes_left` left.
    fn partition(
        &mut self,
        node: &Pending,
        f: usize,
        left_tot: &mut [f64],
        goes_left: impl Fn(usize) -> bool,
    ) -> (usize, u64) {
        let codes = self.bins.column(f);
        left_tot.iter_mut().for_each(|v| *v = 0.0);
        let mut left_samples = 0u64;
        let seg = &mut self.rows[node.start..node.end];
        let (mut l, mut r) = (0, 0);
        for i in 0..seg.len() {
            let row = seg[i];
            if goes_left(codes.get(row as usize)) {
                let ri = self.info[row as usize];
                left_tot[ri.class as usize] += ri.w;
                left_samples += ri.cnt as u64;
                seg[l] = row;
                l += 1;
            } else {
                self.scratch[r] = row;
                r += 1;
            }
        }
        seg[l..].copy_from_slice(&self.scratch[..r]);
        (node.start + l, left_samples)
    }
}
