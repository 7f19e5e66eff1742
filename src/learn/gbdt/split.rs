//! Leaf values and the best split of a leaf from its gradient histograms
//! (Chen & Guestrin 2016, eq. 5-7; Ke et al. 2017).
//!
//! A leaf with gradient sum `G` and hessian sum `H` takes the Newton step
//! `v = -G / (H + l2)` (L2 on leaf values, `l2` = XGBoost's `lambda`),
//! clipped to `[-max_delta_step, max_delta_step]` when that bound is set
//! (XGBoost's `max_delta_step`): with a rare class the hessians `p (1 - p)`
//! of its rows are tiny, the unbounded step `-G / H` is huge, and the
//! boosting overshoots and oscillates. The leaf's loss reduction for a step
//! `v` is `-(2 G v + (H + l2) v^2)`, which for the unclipped step is
//! `G^2 / (H + l2)`; a split's gain is the children's reductions minus the
//! parent's (the constant 1/2 of the papers is left out, as scikit-learn
//! does; it scales every gain alike).
//!
//! Candidate splits lie between two consecutive bins that are non-empty in
//! the leaf. Each child must keep at least `min_samples_leaf` rows as
//! LightGBM counts them (`leaf_rows=hessian`, the default; `leaf_rows=rows`
//! counts the row copies themselves, as scikit-learn does), and a hessian
//! sum of at least `min_child_weight`, and the gain must be positive.
//!
//! **Rows counted by their hessian.** A child's row count is the leaf's row
//! copies times the child's share of the leaf's hessian, rounded
//! (LightGBM's `min_data_in_leaf`, whose histograms estimate counts as
//! `sum_hessian * num_data / leaf_hessian`). In the first round every row
//! has the same hessian and the count is exact; later the rows the model is
//! sure of (hessian `p (1 - p)` near 0) count for little and the uncertain
//! ones for more, so a few rows of a rare class that the model still gets
//! wrong can have a leaf of their own. Counting the rows themselves, as
//! rarity did before, kept every leaf at 20 rows: 12 separable positives
//! shared their leaf with the 8 nearest negatives in every tree, tied with
//! them for good. On the 70 shared binary sets (`benches/
//! gbdt_small_vs_lightgbm.py`) the hessian count lifts the mean AP from
//! 0.6918 to 0.7007 (LightGBM 0.6963); the mean AUC moves from 0.9061 to
//! 0.9041 (LightGBM 0.9033).
//!
//! Features are scanned in index order and bins left to right;
//! ties keep the first candidate (as scikit-learn's splitter does). A
//! categorical feature's best split is a set of levels
//! ([`super::categorical`]). A numeric feature whose last bin holds its
//! missing values is scanned with them on the right, then on the left,
//! then split from the observed values ([`Rules::best_on`]).

use super::monotone::LeafBounds;
use crate::learn::tree::BinSet;

/// Sums of gradients, hessians and row copies of a leaf. The copies are a
/// whole number, exact in an `f64`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Sums {
    pub g: f64,
    pub h: f64,
    pub n: f64,
}

/// Sums of gradients and hessians: of a histogram bin, or one side of a
/// split. 16 bytes, added as one pair.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[repr(C)]
pub(super) struct Bin {
    pub g: f64,
    pub h: f64,
}

impl Bin {
    /// One row's gradients, in double precision.
    #[inline(always)]
    pub fn of(r: Grad) -> Bin {
        Bin {
            g: r.g as f64,
            h: r.h as f64,
        }
    }

    /// Adds `r` to these sums.
    #[inline(always)]
    pub fn add(&mut self, r: &Bin) {
        self.g += r.g;
        self.h += r.h;
    }

    /// Adds a row with gradients `r`.
    #[inline(always)]
    pub fn add_row(&mut self, r: Grad) {
        self.add(&Bin::of(r));
    }

    /// Subtracts `r` from these sums.
    #[inline(always)]
    pub fn sub(&mut self, r: &Bin) {
        self.g -= r.g;
        self.h -= r.h;
    }
}

/// One row's gradient and hessian as the loss computes them (single
/// precision: a leaf's rows are gathered into these, 8 bytes a row, and
/// summed in double precision).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Grad {
    pub g: f32,
    pub h: f32,
}

/// The best split of a leaf.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Split {
    pub feature: usize,
    /// The last bin going left and the next bin present in the leaf.
    pub left_bin: usize,
    pub right_bin: usize,
    pub gain: f64,
    /// The gradient sums of each side (their row copies are counted when
    /// the leaf's rows are partitioned).
    pub left: Bin,
    pub right: Bin,
    /// For a categorical feature, the bins going left (every other bin,
    /// missing values included, goes right); `None` for a threshold split.
    pub set: Option<BinSet>,
    /// Whether a threshold split sends the missing values (its feature's
    /// missing bin) left.
    pub default_left: bool,
    /// The children's outputs (before shrinkage) within the leaf's
    /// monotone bounds; `None` without bounds (each then takes its step).
    pub values: Option<(f64, f64)>,
}

/// The regularisation and size rules of splits and leaf values.
#[derive(Debug, Clone, Copy)]
pub(super) struct Rules<'a> {
    pub l2: f64,
    /// Bound on a leaf's step; 0 for none.
    pub max_delta_step: f64,
    pub min_leaf: f64,
    /// Rows counted by their share of the leaf's hessian (`leaf_rows=hessian`),
    /// else the row copies themselves (the histograms then count them).
    pub rows_by_hessian: bool,
    pub min_child_weight: f64,
    /// The rules of set splits on categorical features.
    pub cat: CatRules,
    /// Per feature, its number of single-level bins when it is categorical
    /// ([`Binned::levels`](crate::learn::tree::Binned::levels)); features
    /// past its end are numeric.
    pub levels: &'a [Option<usize>],
    /// Per feature, whether its histogram's last bin holds its missing
    /// values ([`Binned::missing_bin`](crate::learn::tree::Binned::missing_bin));
    /// features past its end have none.
    pub missing: &'a [bool],
    /// The leaf's monotone bounds, when the fit has monotone constraints
    /// ([`super::monotone`]).
    pub bounds: Option<&'a LeafBounds<'a>>,
}

impl Rules<'_> {
    /// The leaf value (before shrinkage) of rows with sums `g`, `h`.
    pub fn value(&self, g: f64, h: f64) -> f64 {
        let den = h + self.l2;
        if den <= 0.0 {
            return 0.0;
        }
        let v = -g / den;
        if self.max_delta_step > 0.0 {
            v.clamp(-self.max_delta_step, self.max_delta_step)
        } else {
            v
        }
    }

    /// The loss reduction of a leaf with sums `g`, `h` taking step `v`.
    #[inline]
    fn score_at(&self, g: f64, h: f64, v: f64) -> f64 {
        let den = h + self.l2;
        if den <= 0.0 {
            return 0.0;
        }
        -(2.0 * g * v + den * v * v)
    }

    /// The leaf value of sums `g`, `h` within `[lo, hi]`.
    #[inline]
    fn value_within(&self, g: f64, h: f64, (lo, hi): (f64, f64)) -> f64 {
        self.value(g, h).max(lo).min(hi)
    }

    /// The loss reduction of a leaf with sums `g`, `h` taking its step.
    #[inline]
    pub(super) fn score(&self, g: f64, h: f64) -> f64 {
        let den = h + self.l2;
        if den <= 0.0 {
            return 0.0;
        }
        if self.max_delta_step > 0.0 {
            let v = self.value(g, h);
            -(2.0 * g * v + den * v * v)
        } else {
            g * g / den
        }
    }

    /// `score(gl, hl) + score(gr, hr)`, the two scores taken side by side
    /// in one pair of lanes (SSE2, part of every x86-64 CPU: one division
    /// for both), with the same operations in the same order, so the same
    /// bits.
    #[inline(always)]
    fn scores(&self, gl: f64, hl: f64, gr: f64, hr: f64) -> f64 {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::*;
            // SAFETY: SSE2 is in the x86-64 baseline; these are plain
            // arithmetic on registers.
            unsafe {
                let g = _mm_set_pd(gr, gl);
                let den = _mm_add_pd(_mm_set_pd(hr, hl), _mm_set1_pd(self.l2));
                let sign = _mm_set1_pd(-0.0);
                let s = if self.max_delta_step > 0.0 {
                    let m = _mm_set1_pd(self.max_delta_step);
                    let v = _mm_div_pd(_mm_xor_pd(g, sign), den);
                    let v = _mm_max_pd(_mm_min_pd(v, m), _mm_xor_pd(m, sign));
                    let t = _mm_add_pd(
                        _mm_mul_pd(_mm_mul_pd(_mm_set1_pd(2.0), g), v),
                        _mm_mul_pd(_mm_mul_pd(den, v), v),
                    );
                    _mm_xor_pd(t, sign)
                } else {
                    _mm_div_pd(_mm_mul_pd(g, g), den)
                };
                // A side without curvature scores 0.
                let s = _mm_and_pd(s, _mm_cmpgt_pd(den, _mm_setzero_pd()));
                let mut out = [0.0; 2];
                _mm_storeu_pd(out.as_mut_ptr(), s);
                out[0] + out[1]
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self.score(gl, hl) + self.score(gr, hr)
        }
    }

    /// The best split of a leaf with sums `tot` on feature `f`, whose
    /// histogram is `bins` (with the bins' row copies `counts` when rows are
    /// counted as copies), if any has a positive gain.
    pub fn best_on(
        &self,
        f: usize,
        bins: &[Bin],
        counts: Option<&[f64]>,
        tot: Sums,
    ) -> Option<Split> {
        if self.rows_by_hessian && tot.h <= 0.0 {
            // No curvature: no row counts, and no step to take.
            return None;
        }
        if let Some(b) = self.bounds {
            return self.best_bounded(f, bins, counts, tot, b);
        }
        if let Some(levels) = self.levels.get(f).copied().flatten() {
            return self.best_set(f, &bins[..levels], counts.map(|c| &c[..levels]), tot);
        }
        let parent = self.score(tot.g, tot.h);
        let gain = |l: &Bin, r: &Bin, _: usize| self.scores(l.g, l.h, r.g, r.h) - parent;
        if self.missing.get(f) == Some(&true) {
            return self.best_with_missing(f, bins, counts, tot, gain);
        }
        let c = self.thresholds(bins, counts, tot, (Bin::default(), 0.0), gain)?;
        Some(c.split(f, tot, false))
    }

    /// [`Rules::best_on`] within monotone bounds `b` ([`super::monotone`]):
    /// the children's steps clamped to their bounds, a split against
    /// feature `f`'s direction refused, the gain of a monotone split
    /// scaled by the penalty. A categorical feature's best set is searched
    /// as without bounds, then scored at the clamped outputs.
    fn best_bounded(
        &self,
        f: usize,
        bins: &[Bin],
        counts: Option<&[f64]>,
        tot: Sums,
        b: &LeafBounds,
    ) -> Option<Split> {
        let whole = (b.lo, b.hi);
        let parent = self.score_at(tot.g, tot.h, self.value_within(tot.g, tot.h, whole));
        let unbounded = Rules {
            bounds: None,
            ..*self
        };
        if let Some(levels) = self.levels.get(f).copied().flatten() {
            let mut s =
                unbounded.best_set(f, &bins[..levels], counts.map(|c| &c[..levels]), tot)?;
            let (vl, vr) = (
                self.value_within(s.left.g, s.left.h, whole),
                self.value_within(s.right.g, s.right.h, whole),
            );
            s.gain = self.score_at(s.left.g, s.left.h, vl)
                + self.score_at(s.right.g, s.right.h, vr)
                - parent;
            s.values = Some((vl, vr));
            return (s.gain > 0.0).then_some(s);
        }
        let dir = b.dir(f);
        let per_threshold = b.children(f, bins.len());
        let missing = self.missing.get(f) == Some(&true);
        // Candidate `t` (the last bin going left); the observed values
        // against the missing ones (`t = m - 1` with the missing bin `m`
        // alone on the right) take the leaf's bounds.
        // (A threshold candidate's next bin is an observed one, before `m`.)
        let apart = |right_bin: usize| missing && right_bin == bins.len() - 1;
        let sides = |t: usize, apart: bool| match (&per_threshold, apart) {
            (Some(c), false) => c.at(t),
            _ => (whole, whole),
        };
        let values = |l: &Bin, r: &Bin, t: usize, apart: bool| {
            let (bl, br) = sides(t, apart);
            (
                self.value_within(l.g, l.h, bl),
                self.value_within(r.g, r.h, br),
            )
        };
        let penalty = if dir != 0 { b.penalty } else { 1.0 };
        let gain_of = |l: &Bin, r: &Bin, t: usize, apart: bool| {
            let (vl, vr) = values(l, r, t, apart);
            if (dir > 0 && vl > vr) || (dir < 0 && vl < vr) {
                return f64::NEG_INFINITY;
            }
            (self.score_at(l.g, l.h, vl) + self.score_at(r.g, r.h, vr) - parent) * penalty
        };
        let mut s = if missing {
            // `usize::MAX` marks the observed values against the missing.
            let gain = |l: &Bin, r: &Bin, t: usize| match t {
                usize::MAX => gain_of(l, r, 0, true),
                t => gain_of(l, r, t, false),
            };
            self.best_with_missing(f, bins, counts, tot, gain)?
        } else {
            let gain = |l: &Bin, r: &Bin, t: usize| gain_of(l, r, t, false);
            let c = self.thresholds(bins, counts, tot, (Bin::default(), 0.0), gain)?;
            c.split(f, tot, false)
        };
        s.values = Some(values(&s.left, &s.right, s.left_bin, apart(s.right_bin)));
        Some(s)
    }

    /// The best split of numeric feature `f` whose histogram's last bin
    /// holds its missing values, scored as scikit-learn's best splitter
    /// does (and LightGBM's two scans): every threshold on the observed
    /// values with the missing ones on the right, then with them on the
    /// left, then the observed values against the missing ones; ties keep
    /// the first. When the leaf holds no missing value, the splits are the
    /// thresholds alone and the missing values (met only later, when
    /// scoring) go to the side of the larger hessian: the side with more
    /// rows as `leaf_rows=hessian` counts them (scikit-learn's rule, the
    /// child with the most samples; a tie goes right).
    fn best_with_missing(
        &self,
        f: usize,
        bins: &[Bin],
        counts: Option<&[f64]>,
        tot: Sums,
        gain: impl Fn(&Bin, &Bin, usize) -> f64 + Copy,
    ) -> Option<Split> {
        let m = bins.len() - 1;
        let (values, miss) = (&bins[..m], bins[m]);
        let value_counts = counts.map(|c| &c[..m]);
        let miss_n = counts.map_or(0.0, |c| c[m]);
        let has_missing = match counts {
            Some(_) => miss_n > 0.0,
            None => miss.h > 0.0,
        };
        let right = self.thresholds(values, value_counts, tot, (Bin::default(), 0.0), gain);
        if !has_missing {
            return right.map(|c| {
                let default_left = c.left.h > tot.h - c.left.h;
                c.split(f, tot, default_left)
            });
        }
        let mut best = right.map(|c| (c, false));
        let left = self.thresholds(values, value_counts, tot, (miss, miss_n), gain);
        let apart = self.observed_apart(m, miss, miss_n, tot, gain);
        for (c, default_left) in [(left, true), (apart, false)] {
            if let Some(c) = c.filter(|c| best.as_ref().is_none_or(|(b, _)| c.gain > b.gain)) {
                best = Some((c, default_left));
            }
        }
        best.map(|(c, default_left)| c.split(f, tot, default_left))
    }

    /// The split of a leaf with sums `tot` sending its observed values
    /// (bins `0..m`) left and its missing ones (sums `miss`, `miss_n` row
    /// copies when counted) right, if the leaf rules allow it and it gains.
    /// `gain(left, right, usize::MAX)` scores it.
    fn observed_apart(
        &self,
        m: usize,
        miss: Bin,
        miss_n: f64,
        tot: Sums,
        gain: impl Fn(&Bin, &Bin, usize) -> f64,
    ) -> Option<Candidate> {
        let left = Bin {
            g: tot.g - miss.g,
            h: tot.h - miss.h,
        };
        let (left_rows, right_rows) = match self.rows_by_hessian {
            true => {
                let x = left.h * tot.n / tot.h;
                (x >= self.min_leaf - 0.5, x < tot.n - self.min_leaf + 0.5)
            }
            false => (tot.n - miss_n >= self.min_leaf, miss_n >= self.min_leaf),
        };
        let weights = left.h >= self.min_child_weight && miss.h >= self.min_child_weight;
        if !(left_rows && right_rows && weights && left.h > 0.0) {
            return None;
        }
        let gain = gain(&left, &miss, usize::MAX);
        (gain > 0.0).then_some(Candidate {
            left_bin: m - 1,
            right_bin: m,
            gain,
            left,
        })
    }

    /// The best threshold on a numeric feature's bins `bins` (with their
    /// row copies `counts` when rows are counted as copies) of a leaf with
    /// sums `tot`, the left side starting from `start` (sums and row
    /// copies: the missing values sent left, or nothing), each candidate
    /// scored by `gain(left, right, last bin going left)`.
    fn thresholds(
        &self,
        bins: &[Bin],
        counts: Option<&[f64]>,
        tot: Sums,
        start: (Bin, f64),
        gain: impl Fn(&Bin, &Bin, usize) -> f64,
    ) -> Option<Candidate> {
        match counts {
            // A child's rows, round(h x rows_per_h), are at least min_leaf
            // when h x rows_per_h >= min_leaf - 1/2 (min_leaf is whole); the
            // right child's are too few once the left's pass
            // n - min_leaf + 1/2.
            None => {
                let per_h = tot.n / tot.h;
                let (lo, hi) = (self.min_leaf - 0.5, tot.n - self.min_leaf + 0.5);
                self.scan(
                    bins,
                    tot,
                    start.0,
                    |b| bins[b].h > 0.0,
                    |left, _| {
                        let x = left.h * per_h;
                        (x >= lo, x >= hi)
                    },
                    gain,
                )
            }
            Some(c) => {
                let (lo, hi) = (self.min_leaf, tot.n - self.min_leaf);
                let mut n = start.1;
                self.scan(
                    bins,
                    tot,
                    start.0,
                    |b| c[b] > 0.0,
                    |_, b| {
                        // The copies of the bins before bin `b`, added as the
                        // scan passes them.
                        n += c[b - 1];
                        (n >= lo, n > hi)
                    },
                    gain,
                )
            }
        }
    }

    /// The scan of [`Rules::thresholds`] over a numeric feature's bins, left
    /// to right, the left side starting from `start`: candidates lie before
    /// each bin `present(b)` after the first; `rows(left, b)` (called for
    /// every bin from the second on, in order) tells whether the left
    /// side's rows are enough and whether the right side's are too few;
    /// `gain(left, right, last bin going left)` scores a candidate.
    #[inline(always)]
    fn scan(
        &self,
        bins: &[Bin],
        tot: Sums,
        start: Bin,
        present: impl Fn(usize) -> bool,
        mut rows: impl FnMut(&Bin, usize) -> (bool, bool),
        gain: impl Fn(&Bin, &Bin, usize) -> f64,
    ) -> Option<Candidate> {
        let first = (0..bins.len()).find(|&b| present(b))?;
        let mut best: Option<Candidate> = None;
        let mut best_gain = 0.0;
        let mut left = start;
        for bin in &bins[..=first] {
            left.add(bin);
        }
        let mut prev = first;
        for (b, bin) in bins.iter().enumerate().skip(first + 1) {
            let (enough, too_few_right) = rows(&left, b);
            if present(b) {
                if enough {
                    if too_few_right {
                        break;
                    }
                    let hr = tot.h - left.h;
                    if left.h >= self.min_child_weight {
                        if hr < self.min_child_weight {
                            break;
                        }
                        let right = Bin {
                            g: tot.g - left.g,
                            h: hr,
                        };
                        let gain = gain(&left, &right, prev);
                        if gain > best_gain {
                            best_gain = gain;
                            best = Some(Candidate {
                                left_bin: prev,
                                right_bin: b,
                                gain,
                                left,
                            });
                        }
                    }
                }
                prev = b;
            }
            left.add(bin);
        }
        best
    }
}

/// A threshold split found by a scan: the last bin going left and the next
/// bin present, the gain and the left side's sums.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    left_bin: usize,
    right_bin: usize,
    gain: f64,
    left: Bin,
}

impl Candidate {
    /// The split of feature `f` of a leaf with sums `tot`.
    fn split(self, f: usize, tot: Sums, default_left: bool) -> Split {
        Split {
            feature: f,
            left_bin: self.left_bin,
            right_bin: self.right_bin,
            gain: self.gain,
            left: self.left,
            right: Bin {
                g: tot.g - self.left.g,
                h: tot.h - self.left.h,
            },
            set: None,
            default_left,
            values: None,
        }
    }
}

impl Rules<'_> {
    /// How a child's rows are counted in a leaf with sums `tot`: by its
    /// share of the leaf's hessian (`leaf_rows=hessian`), or as the row
    /// copies `n` of its bins.
    pub(super) fn rows_in(&self, tot: Sums) -> impl Fn(&Bin, f64) -> f64 + '_ {
        // Row copies per unit of hessian in this leaf.
        let rows_per_h = tot.n / tot.h;
        move |s: &Bin, n: f64| {
            if self.rows_by_hessian {
                (s.h * rows_per_h).round()
            } else {
                n
            }
        }
    }
}

/// The parameters of set splits on categorical features
/// ([`super::categorical`]) (LightGBM's names and defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct CatRules {
    /// Smoothing count of a level's statistic, and the fewest rows a level
    /// needs in a leaf to be sorted and sent left.
    pub smooth: f64,
    /// Extra L2 penalty on the children of a many-level split.
    pub l2: f64,
    /// Most levels one split sends left.
    pub max_threshold: usize,
    /// Fewest rows per group of levels between candidates, and on the right.
    pub min_per_group: f64,
    /// At most this many levels present: one-versus-rest splits.
    pub max_onehot: usize,
}

impl Default for CatRules {
    fn default() -> Self {
        CatRules {
            smooth: 10.0,
            l2: 10.0,
            max_threshold: 32,
            min_per_group: 100.0,
            max_onehot: 4,
        }
    }
}

/// The best of the features' best splits, given in feature order: the
/// largest gain, the first on ties.
pub(super) fn best_of(candidates: impl IntoIterator<Item = Option<Split>>) -> Option<Split> {
    candidates
        .into_iter()
        .flatten()
        .fold(None, |best: Option<Split>, c| match best {
            Some(b) if b.gain >= c.gain => Some(b),
            _ => Some(c),
        })
}

#[cfg(test)]
impl Rules<'_> {
    /// [`Rules::best_on`] on bins given with their row copies (which the
    /// histograms keep only when rows are counted as copies).
    pub(super) fn best_on_sums(&self, f: usize, bins: &[Sums], tot: Sums) -> Option<Split> {
        let gh: Vec<Bin> = bins.iter().map(|b| Bin { g: b.g, h: b.h }).collect();
        let n: Vec<f64> = bins.iter().map(|b| b.n).collect();
        let counts = (!self.rows_by_hessian).then_some(&n[..]);
        self.best_on(f, &gh, counts, tot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(l2: f64, max_delta_step: f64) -> Rules<'static> {
        Rules {
            l2,
            max_delta_step,
            min_leaf: 1.0,
            rows_by_hessian: true,
            min_child_weight: 0.0,
            cat: CatRules::default(),
            levels: &[],
            missing: &[],
            bounds: None,
        }
    }

    #[test]
    fn leaf_values_take_the_l2_newton_step_within_the_bound() {
        assert_eq!(rules(0.0, 0.0).value(-3.0, 2.0), 1.5);
        assert_eq!(rules(1.0, 0.0).value(-3.0, 2.0), 1.0);
        assert_eq!(rules(0.0, 0.5).value(-3.0, 2.0), 0.5);
        assert_eq!(rules(0.0, 0.5).value(3.0, 0.001), -0.5);
        // Unclipped, the score is G^2 / (H + l2), the reduction of the loss's
        // second-order model at its minimum.
        let r = rules(1.0, 0.0);
        assert_eq!(r.score(-3.0, 2.0), 3.0);
        // Clipped at v = 0.5: -(2 G v + (H + l2) v^2) = 3 - 0.75.
        assert_eq!(rules(1.0, 0.5).score(-3.0, 2.0), 2.25);
    }

    #[test]
    fn the_best_split_respects_the_leaf_rules_and_ties_keep_the_first() {
        let bin = |g: f64, h: f64, n: f64| Sums { g, h, n };
        // Bins 0, 2, 3 hold rows; bin 1 is empty in this leaf.
        let bins = [
            bin(-2.0, 1.0, 2.0),
            bin(0.0, 0.0, 0.0),
            bin(1.0, 1.0, 1.0),
            bin(1.0, 1.0, 2.0),
        ];
        let tot = bin(0.0, 3.0, 5.0);
        let r = rules(0.0, 0.0);
        let s = r.best_on_sums(4, &bins, tot).unwrap();
        // Left {0}: 4/1 + 4/2 = 6; left {0, 2}: 1/2 + 1/1 = 1.5.
        assert_eq!((s.feature, s.left_bin, s.right_bin, s.gain), (4, 0, 2, 6.0));
        assert_eq!(
            (s.left, s.right),
            (Bin { g: -2.0, h: 1.0 }, Bin { g: 2.0, h: 2.0 })
        );
        // Three rows per leaf leave no split, nor does a hessian of 1.5.
        assert!(Rules { min_leaf: 3.0, ..r }
            .best_on_sums(0, &bins, tot)
            .is_none());
        assert!(Rules {
            min_child_weight: 1.5,
            ..r
        }
        .best_on_sums(0, &bins, tot)
        .is_none());
        // Rows are counted by their share of the hessian: bin 0's 2 rows
        // hold 4 of the 6 units, so count as round(4 x 10 / 6) = 7 rows, and
        // the 8 rows of bins 1 and 2 as 3.
        let skewed = [bin(-4.0, 4.0, 2.0), bin(2.0, 1.0, 4.0), bin(2.0, 1.0, 4.0)];
        let s3 = Rules { min_leaf: 3.0, ..r }
            .best_on_sums(0, &skewed, bin(0.0, 6.0, 10.0))
            .unwrap();
        assert_eq!((s3.left_bin, s3.right_bin), (0, 1));
        assert!(Rules { min_leaf: 4.0, ..r }
            .best_on_sums(0, &skewed, bin(0.0, 6.0, 10.0))
            .is_none());
        // Counting the row copies themselves (`leaf_rows=rows`), bin 0's 2
        // rows are too few: the split moves to after bin 1.
        let by_rows = Rules {
            min_leaf: 3.0,
            rows_by_hessian: false,
            ..r
        }
        .best_on_sums(0, &skewed, bin(0.0, 6.0, 10.0))
        .unwrap();
        assert_eq!((by_rows.left_bin, by_rows.right_bin), (1, 2));
        let t = Split {
            feature: 1,
            ..s.clone()
        };
        assert_eq!(best_of([None, Some(s.clone()), Some(t)]), Some(s));
        assert_eq!(best_of([None, None]), None);
    }
}
