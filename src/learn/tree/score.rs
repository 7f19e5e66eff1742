//! Split scores shared by the exact and histogram splitters: the weighted
//! impurity decrease of a binary split under Gini (Breiman et al. 1984),
//! entropy / information gain (Quinlan 1986) and C4.5's gain ratio (Quinlan
//! 1993), each written as a quantity to maximise from the left child's class
//! totals.

/// Scores a candidate split from the left side's class totals; larger is
/// better. `tot` and `w` are the node's totals and weight.
pub(crate) trait Score {
    fn score(&self, left: &[f64], tot: &[f64], wl: f64, w: f64) -> f64;
}

/// Gini: maximising `sum_k L_k^2 / W_L + sum_k R_k^2 / W_R` minimises the
/// weighted Gini impurity of the children (Breiman et al. 1984).
pub(crate) struct Gini;

impl Score for Gini {
    #[inline]
    fn score(&self, left: &[f64], tot: &[f64], wl: f64, w: f64) -> f64 {
        let wr = w - wl;
        let (mut sl, mut sr) = (0.0, 0.0);
        for (&l, &t) in left.iter().zip(tot) {
            let r = (t - l).max(0.0);
            sl += l * l;
            sr += r * r;
        }
        sl / wl + sr / wr
    }
}

#[inline]
pub(crate) fn xlnx(x: f64) -> f64 {
    if x > 0.0 {
        x * x.ln()
    } else {
        0.0
    }
}

/// `-(W_L H(L) + W_R H(R))` with weights as totals: maximising it maximises
/// the information gain (Quinlan 1986).
#[inline]
fn neg_child_entropy(left: &[f64], tot: &[f64], wl: f64, w: f64) -> f64 {
    let mut s = 0.0;
    for (&l, &t) in left.iter().zip(tot) {
        s += xlnx(l) + xlnx((t - l).max(0.0));
    }
    s - xlnx(wl) - xlnx(w - wl)
}

/// Entropy: information gain.
pub(crate) struct Entropy;

impl Score for Entropy {
    #[inline]
    fn score(&self, left: &[f64], tot: &[f64], wl: f64, w: f64) -> f64 {
        neg_child_entropy(left, tot, wl, w)
    }
}

/// C4.5's gain ratio: information gain over split information (Quinlan 1993).
/// `parent` is `W H(parent)` in the same units as [`neg_child_entropy`].
pub(crate) struct GainRatio {
    /// `-W H(parent)`, in the units of the child entropy term.
    pub(crate) parent: f64,
}

impl Score for GainRatio {
    #[inline]
    fn score(&self, left: &[f64], tot: &[f64], wl: f64, w: f64) -> f64 {
        let gain = (self.parent + neg_child_entropy(left, tot, wl, w)) / w;
        let (pl, pr) = (wl / w, (w - wl) / w);
        let split_info = -(xlnx(pl) + xlnx(pr));
        if split_info > 0.0 {
            gain / split_info
        } else {
            0.0
        }
    }
}
