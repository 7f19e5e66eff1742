//! The best set split of a leaf on a categorical feature, from its gradient
//! histogram (one bin per level: [`crate::learn::tree::Binned`]), as
//! LightGBM searches it (Ke et al. 2017; its `FindBestThresholdCategorical`).
//!
//! - **Few levels** (at most `max_cat_to_onehot` levels present in the
//!   leaf): every one-versus-rest split, one level left.
//! - **Many levels**: the levels with at least `cat_smooth` rows in the leaf
//!   are sorted by `G / (H + cat_smooth)` (their smoothed Newton step,
//!   negated), and the candidates are the first `k` and the last `k` of
//!   that order, `k` up to `max_cat_threshold` (and half the levels);
//!   along each direction a candidate is only evaluated once the levels
//!   added since the last one hold `min_data_per_group` rows, and the rest
//!   must keep as many. These splits' gains take an extra L2 penalty,
//!   `cat_l2`, on both children (the parent's score keeps the plain `l2`),
//!   as the many ways of cutting a long list overfit more than one
//!   threshold does. With two classes (one tree per round) the sort by the
//!   gradient statistic is the optimal ordering of Fisher (1958) for the
//!   second-order loss; with more, each class's tree sorts by its own
//!   gradients.
//!
//! Levels too rare to be sorted, the bin grouping the rarest levels of a
//! very wide column, and missing values never go left: they are on the
//! right with every level not in the set. Ties keep the first candidate
//! (the forward direction first, then fewer levels).

use super::split::{Bin, Rules, Split, Sums};
use crate::learn::tree::{prefix_set, scan_prefixes, sort_by_stat, BinSet};

impl Rules<'_> {
    /// The best set split on categorical feature `f` of a leaf with sums
    /// `tot`, whose single-level bins are `bins` (with their row copies
    /// `counts` when rows are counted as copies), if any has a positive
    /// gain. A level is present in the leaf when it holds a row: by its
    /// copies, or by its hessian's estimate of at least one row.
    pub(super) fn best_set(
        &self,
        f: usize,
        bins: &[Bin],
        counts: Option<&[f64]>,
        tot: Sums,
    ) -> Option<Split> {
        let rows = self.rows_in(tot);
        let count = |b: usize| counts.map_or(0.0, |c| c[b]);
        let rows_of = |b: usize| rows(&bins[b], count(b));
        let parent = self.score(tot.g, tot.h);
        let present: Vec<usize> = (0..bins.len()).filter(|&b| rows_of(b) > 0.0).collect();
        let mut best: Option<Split> = None;
        let mut offer = |rules: &Rules, left: Bin, set: &dyn Fn() -> BinSet| {
            let right = Bin {
                g: tot.g - left.g,
                h: tot.h - left.h,
            };
            let gain = rules.score(left.g, left.h) + rules.score(right.g, right.h) - parent;
            if gain > best.as_ref().map_or(0.0, |b| b.gain) {
                best = Some(Split {
                    feature: f,
                    left_bin: 0,
                    right_bin: 0,
                    gain,
                    left,
                    right,
                    set: Some(set()),
                    default_left: false,
                    values: None,
                });
            }
        };
        let fits = |left: &Bin, left_n: f64, right_min: f64| {
            let l = rows(left, left_n);
            let hr = tot.h - left.h;
            (
                l >= self.min_leaf && left.h >= self.min_child_weight,
                tot.n - l >= right_min && hr >= self.min_child_weight,
            )
        };
        if present.len() <= self.cat.max_onehot {
            for &b in &present {
                if fits(&bins[b], count(b), self.min_leaf) == (true, true) {
                    offer(self, bins[b], &|| prefix_set(&[b], 1, false));
                }
            }
            return best;
        }
        let many = Rules {
            l2: self.l2 + self.cat.l2,
            ..*self
        };
        let c = self.cat;
        let mut order: Vec<usize> = present
            .into_iter()
            .filter(|&b| rows_of(b) >= c.smooth)
            .collect();
        sort_by_stat(&mut order, |b| bins[b].g / (bins[b].h + c.smooth));
        let max_left = c.max_threshold.min(order.len().div_ceil(2));
        let (mut left, mut left_n, mut group) = (Bin::default(), 0.0, 0.0);
        scan_prefixes(&order, max_left, true, |b, k, reverse| {
            if k == 1 {
                (left, left_n, group) = (Bin::default(), 0.0, 0.0);
            }
            left.add(&bins[b]);
            left_n += count(b);
            group += rows_of(b);
            match fits(&left, left_n, self.min_leaf.max(c.min_per_group)) {
                (false, _) => return true,
                (true, false) => return false,
                (true, true) => {}
            }
            if group >= c.min_per_group {
                group = 0.0;
                offer(&many, left, &|| prefix_set(&order, k, reverse));
            }
            true
        });
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::gbdt::split::CatRules;

    fn rules(levels: &[Option<usize>], cat: CatRules) -> Rules<'_> {
        Rules {
            l2: 0.0,
            max_delta_step: 0.0,
            min_leaf: 1.0,
            rows_by_hessian: false,
            min_child_weight: 0.0,
            cat,
            levels,
            missing: &[],
            bounds: None,
        }
    }

    fn loose() -> CatRules {
        CatRules {
            smooth: 1.0,
            l2: 0.0,
            max_threshold: 32,
            min_per_group: 1.0,
            max_onehot: 0,
        }
    }

    /// Level `b`'s bin: `n` rows, gradient sum `g` (hessian 1 a row).
    fn bin(g: f64, n: f64) -> Sums {
        Sums { g, h: n, n }
    }

    fn total(bins: &[Sums]) -> Sums {
        bins.iter().fold(Sums::default(), |t, b| Sums {
            g: t.g + b.g,
            h: t.h + b.h,
            n: t.n + b.n,
        })
    }

    #[test]
    fn scattered_levels_of_one_sign_go_left_together() {
        // Levels 1, 4 and 6 carry negative gradients, scattered among the
        // codes: no threshold on the codes separates them, one set does.
        let bins: Vec<Sums> = (0..8)
            .map(|b| {
                if [1, 4, 6].contains(&b) {
                    bin(-5.0, 5.0)
                } else {
                    bin(3.0, 5.0)
                }
            })
            .collect();
        let levels = [Some(8)];
        let r = rules(&levels, loose());
        let s = r.best_on_sums(0, &bins, total(&bins)).unwrap();
        assert_eq!(s.set.unwrap().bins().collect::<Vec<_>>(), vec![1, 4, 6]);
        assert_eq!(s.left, Bin { g: -15.0, h: 15.0 });
        // Bounding the levels sent left to 2, the best set takes two of them.
        let two = rules(
            &levels,
            CatRules {
                max_threshold: 2,
                ..loose()
            },
        );
        let s2 = two.best_on_sums(0, &bins, total(&bins)).unwrap();
        assert_eq!(s2.set.unwrap().bins().count(), 2);
        assert!(s2.gain < s.gain);
    }

    #[test]
    fn rare_levels_and_the_missing_bin_never_go_left() {
        // Level 0 is the best one-versus-rest split but has 2 rows, fewer
        // than cat_smooth = 3; bin 3 (missing, the strongest) lies past the
        // 3 single-level bins.
        let bins = [
            bin(-8.0, 2.0),
            bin(-5.0, 5.0),
            bin(5.0, 5.0),
            bin(-9.0, 9.0),
        ];
        let levels = [Some(3)];
        let tot = total(&bins);
        let r = rules(
            &levels,
            CatRules {
                smooth: 3.0,
                ..loose()
            },
        );
        let s = r.best_on_sums(0, &bins, tot).unwrap();
        assert_eq!(s.set.unwrap().bins().collect::<Vec<_>>(), vec![2]);
        // Few levels: one-versus-rest, and the rare level may stand alone.
        let onehot = rules(
            &levels,
            CatRules {
                max_onehot: 4,
                ..loose()
            },
        );
        let s1 = onehot.best_on_sums(0, &bins, tot).unwrap();
        assert_eq!(s1.set.unwrap().bins().collect::<Vec<_>>(), vec![0]);
    }

    #[test]
    fn groups_need_enough_rows_and_cat_l2_shrinks_the_gain() {
        let bins: Vec<Sums> = (0..6)
            .map(|b| bin(if b < 3 { -2.0 } else { 2.0 }, 2.0))
            .collect();
        let levels = [Some(6)];
        let tot = total(&bins);
        let free = rules(&levels, loose()).best_on_sums(0, &bins, tot).unwrap();
        assert_eq!(free.set.unwrap().bins().count(), 3);
        // Groups of 5 rows: the first candidate is the third level (6 rows).
        let grouped = rules(
            &levels,
            CatRules {
                min_per_group: 5.0,
                ..loose()
            },
        );
        assert_eq!(grouped.best_on_sums(0, &bins, tot).unwrap().gain, free.gain);
        // 7 rows a group leave no candidate with 5 rows on the right.
        let none = rules(
            &levels,
            CatRules {
                min_per_group: 7.0,
                ..loose()
            },
        );
        assert!(none.best_on_sums(0, &bins, tot).is_none());
        let shrunk = rules(
            &levels,
            CatRules {
                l2: 10.0,
                ..loose()
            },
        )
        .best_on_sums(0, &bins, tot)
        .unwrap();
        assert!(shrunk.gain < free.gain);
    }
}
