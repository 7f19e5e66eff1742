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
//! the leaf. Each child must keep at least `min_samples_leaf` row copies and
//! a hessian sum of at least `min_child_weight`, and the gain must be
//! positive. Features are scanned in index order and bins left to right;
//! ties keep the first candidate (as scikit-learn's splitter does).

/// Sums of gradients, hessians and row copies: of a histogram bin, of a
/// leaf, or one row's own values. The copies are a whole number, exact in an
/// `f64`, so that adding sums is three additions of one type.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Sums {
    pub g: f64,
    pub h: f64,
    pub n: f64,
}

impl Sums {
    /// Adds `r` to these sums.
    #[inline(always)]
    pub fn add(&mut self, r: &Sums) {
        self.g += r.g;
        self.h += r.h;
        self.n += r.n;
    }

    /// Adds a row with gradients `r` and `n` copies to these sums.
    #[inline(always)]
    pub fn add_row(&mut self, r: Grad, n: f64) {
        self.g += r.g as f64;
        self.h += r.h as f64;
        self.n += n;
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
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Split {
    pub feature: usize,
    /// The last bin going left and the next bin present in the leaf.
    pub left_bin: usize,
    pub right_bin: usize,
    pub gain: f64,
    pub left: Sums,
    pub right: Sums,
}

/// The regularisation and size rules of splits and leaf values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Rules {
    pub l2: f64,
    /// Bound on a leaf's step; 0 for none.
    pub max_delta_step: f64,
    pub min_leaf: f64,
    pub min_child_weight: f64,
}

impl Rules {
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

    /// The loss reduction of a leaf with sums `g`, `h` taking its step.
    #[inline]
    fn score(&self, g: f64, h: f64) -> f64 {
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

    /// The best split of a leaf with sums `tot` on feature `f`, whose
    /// histogram is `bins`, if any has a positive gain.
    pub fn best_on(&self, f: usize, bins: &[Sums], tot: Sums) -> Option<Split> {
        let parent = self.score(tot.g, tot.h);
        let mut best: Option<Split> = None;
        let mut best_gain = 0.0;
        let mut left = Sums::default();
        let mut prev: Option<usize> = None;
        for (b, bin) in bins.iter().enumerate() {
            if bin.n == 0.0 {
                continue;
            }
            if let Some(p) = prev {
                if left.n >= self.min_leaf {
                    if tot.n - left.n < self.min_leaf {
                        break;
                    }
                    let hr = tot.h - left.h;
                    if left.h >= self.min_child_weight {
                        if hr < self.min_child_weight {
                            break;
                        }
                        let gr = tot.g - left.g;
                        let gain = self.score(left.g, left.h) + self.score(gr, hr) - parent;
                        if gain > best_gain {
                            best_gain = gain;
                            let right = Sums {
                                g: gr,
                                h: hr,
                                n: tot.n - left.n,
                            };
                            best = Some(Split {
                                feature: f,
                                left_bin: p,
                                right_bin: b,
                                gain,
                                left,
                                right,
                            });
                        }
                    }
                }
            }
            left.add(bin);
            prev = Some(b);
        }
        best
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
mod tests {
    use super::*;

    fn rules(l2: f64, max_delta_step: f64) -> Rules {
        Rules {
            l2,
            max_delta_step,
            min_leaf: 1.0,
            min_child_weight: 0.0,
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
        let s = r.best_on(4, &bins, tot).unwrap();
        // Left {0}: 4/1 + 4/2 = 6; left {0, 2}: 1/2 + 1/1 = 1.5.
        assert_eq!((s.feature, s.left_bin, s.right_bin, s.gain), (4, 0, 2, 6.0));
        assert_eq!((s.left, s.right), (bins[0], bin(2.0, 2.0, 3.0)));
        // Three rows per leaf leave no split, nor does a hessian of 1.5.
        assert!(Rules { min_leaf: 3.0, ..r }
            .best_on(0, &bins, tot)
            .is_none());
        assert!(Rules {
            min_child_weight: 1.5,
            ..r
        }
        .best_on(0, &bins, tot)
        .is_none());
        let t = Split { feature: 1, ..s };
        assert_eq!(best_of([None, Some(s), Some(t)]), Some(s));
        assert_eq!(best_of([None, None]), None);
    }
}
