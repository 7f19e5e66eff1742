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

use super::hist::{Bin, Layout};

/// The sums of a leaf's rows.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Totals {
    pub g: f64,
    pub h: f64,
    pub n: u64,
}

/// The best split of a leaf.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Split {
    pub feature: usize,
    /// The last bin going left and the next bin present in the leaf.
    pub left_bin: usize,
    pub right_bin: usize,
    pub gain: f64,
    pub left: Totals,
    pub right: Totals,
}

/// The regularisation and size rules of splits and leaf values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Rules {
    pub l2: f64,
    /// Bound on a leaf's step; 0 for none.
    pub max_delta_step: f64,
    pub min_leaf: u64,
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

    /// The best split of a leaf with sums `tot` over the histograms of
    /// `features` (ascending), if any has a positive gain.
    pub fn best(
        &self,
        hist: &[Bin],
        layout: &Layout,
        features: &[usize],
        tot: Totals,
    ) -> Option<Split> {
        let parent = self.score(tot.g, tot.h);
        let mut best: Option<Split> = None;
        let mut best_gain = 0.0;
        for &f in features {
            let (mut gl, mut hl, mut nl) = (0.0, 0.0, 0u64);
            let mut prev: Option<usize> = None;
            for (b, bin) in layout.feature(hist, f).iter().enumerate() {
                if bin.n == 0 {
                    continue;
                }
                if let Some(p) = prev {
                    if nl >= self.min_leaf {
                        if tot.n - nl < self.min_leaf {
                            break;
                        }
                        let hr = tot.h - hl;
                        if hl >= self.min_child_weight {
                            if hr < self.min_child_weight {
                                break;
                            }
                            let gr = tot.g - gl;
                            let gain = self.score(gl, hl) + self.score(gr, hr) - parent;
                            if gain > best_gain {
                                best_gain = gain;
                                best = Some(Split {
                                    feature: f,
                                    left_bin: p,
                                    right_bin: b,
                                    gain,
                                    left: Totals {
                                        g: gl,
                                        h: hl,
                                        n: nl,
                                    },
                                    right: Totals {
                                        g: gr,
                                        h: hr,
                                        n: tot.n - nl,
                                    },
                                });
                            }
                        }
                    }
                }
                gl += bin.g;
                hl += bin.h;
                nl += bin.n;
                prev = Some(b);
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(l2: f64, max_delta_step: f64) -> Rules {
        Rules {
            l2,
            max_delta_step,
            min_leaf: 1,
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
}
