//! What native categorical splits share between the trees and `gbdt`: the
//! binning of a categorical feature by level, the set of bins a split sends
//! left while it is searched, the set of level codes a fitted split keeps,
//! and the search order of Fisher (1958) and Breiman et al. (1984, sec.
//! 9.4): a node's levels sorted by a statistic, each prefix of that order a
//! candidate left set.
//!
//! A categorical feature holds level codes `0..levels` (NaN for a missing
//! value or a level not seen in training). A split sends the rows whose code
//! is in its set left and every other row right: a missing value, an unseen
//! level, a level too rare to be placed on its own and any code outside the
//! set all go right. A set holds only levels seen in training, so a model
//! never sends an unseen level left.

use serde::{Deserialize, Serialize};

use super::score::Score;

/// One feature binned: each row's bin code, each bin's smallest and largest
/// value, and for a categorical feature its number of single-level bins.
pub(super) type BinnedFeature = (Vec<u8>, Vec<f64>, Vec<f64>, Option<usize>);

/// The level code of value `v` of a feature with `levels` levels, `None`
/// for NaN or anything that is not one of the codes `0..levels`.
#[inline]
pub(crate) fn code_of(v: f64, levels: usize) -> Option<usize> {
    (v >= 0.0 && v < levels as f64 && v.fract() == 0.0).then_some(v as usize)
}

/// Bins one categorical feature of `levels` levels: each row's bin code,
/// each bin's smallest and largest value (the level's code, NaN for the
/// grouped and missing bins), and the number of single-level bins, in at
/// most `max_bins` bins. The levels present get one bin each in code order;
/// when more than `max_bins - 1` are present, the `max_bins - 2` most
/// frequent keep theirs
/// (ties to the lower code) and the rest share one bin; missing values
/// (and values that are not a level's code) take the last bin.
pub(super) fn bin_levels(values: &[f64], levels: usize, max_bins: usize) -> BinnedFeature {
    let mut count = vec![0usize; levels];
    for c in values.iter().filter_map(|&v| code_of(v, levels)) {
        count[c] += 1;
    }
    let mut kept: Vec<usize> = (0..levels).filter(|&c| count[c] > 0).collect();
    let grouped = kept.len() > max_bins - 1;
    if grouped {
        kept.sort_by(|&a, &b| count[b].cmp(&count[a]).then(a.cmp(&b)));
        kept.truncate(max_bins - 2);
        kept.sort_unstable();
    }
    let other = kept.len();
    let missing = other + usize::from(grouped);
    let mut bin_of = vec![other as u8; levels];
    for (b, &c) in kept.iter().enumerate() {
        bin_of[c] = b as u8;
    }
    let mut has_missing = false;
    let codes = values
        .iter()
        .map(|&v| match code_of(v, levels) {
            Some(c) => bin_of[c],
            None => {
                has_missing = true;
                missing as u8
            }
        })
        .collect();
    let mut lo: Vec<f64> = kept.iter().map(|&c| c as f64).collect();
    let extra = usize::from(grouped) + usize::from(has_missing);
    lo.extend(std::iter::repeat_n(f64::NAN, extra));
    (codes, lo.clone(), lo, Some(kept.len()))
}

/// A set of bins of one feature (codes are bytes), while a split is searched.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct BinSet([u64; 4]);

impl BinSet {
    /// Adds bin `b`.
    pub fn insert(&mut self, b: usize) {
        self.0[b / 64] |= 1 << (b % 64);
    }

    /// Whether bin code `c` is in the set.
    #[inline(always)]
    pub fn contains(&self, c: u8) -> bool {
        self.0[usize::from(c / 64)] >> (c % 64) & 1 == 1
    }

    /// The bins in the set, ascending.
    pub fn bins(&self) -> impl Iterator<Item = usize> + '_ {
        (0..256).filter(|&b| self.contains(b as u8))
    }
}

/// The level codes a fitted categorical split sends left, as a bitset
/// (bit `c` of word `c / 64` for code `c`).
///
/// ```
/// use rarity::learn::tree::CatSet;
/// let s = CatSet::from_codes([1, 70]);
/// assert!(s.contains(1.0) && s.contains(70.0));
/// assert!(!s.contains(0.0) && !s.contains(f64::NAN) && !s.contains(1.5) && !s.contains(500.0));
/// assert_eq!(s.codes().collect::<Vec<_>>(), vec![1, 70]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatSet(pub Vec<u64>);

impl CatSet {
    /// The set of `codes`.
    pub fn from_codes(codes: impl IntoIterator<Item = usize>) -> CatSet {
        let mut words = Vec::new();
        for c in codes {
            if words.len() <= c / 64 {
                words.resize(c / 64 + 1, 0u64);
            }
            words[c / 64] |= 1 << (c % 64);
        }
        CatSet(words)
    }

    /// Whether value `x` is the code of a level in the set (false for NaN,
    /// a negative or fractional value, or a code beyond the set).
    #[inline]
    pub fn contains(&self, x: f64) -> bool {
        code_of(x, self.0.len() * 64).is_some_and(|c| self.0[c / 64] >> (c % 64) & 1 == 1)
    }

    /// The codes in the set, ascending.
    pub fn codes(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.0.len() * 64).filter(|&c| self.0[c / 64] >> (c % 64) & 1 == 1)
    }
}

/// The candidate left sets of a set split, in search order: with `order`
/// the node's eligible bins sorted by their statistic, the first `k` bins
/// for `k = 1..=max_left`, then (when `both_ends`) the last `k`, as
/// LightGBM scans; `each(bins added, k)` is called after each addition and
/// returns false to stop that direction. All of `order` may go left (the
/// rows of the bins outside it go right): the caller's row rules decide.
pub(crate) fn scan_prefixes(
    order: &[usize],
    max_left: usize,
    both_ends: bool,
    mut each: impl FnMut(usize, usize, bool) -> bool,
) {
    let most = max_left.min(order.len());
    for reverse in [false, true] {
        if reverse && !both_ends {
            break;
        }
        for k in 1..=most {
            let b = if reverse {
                order[order.len() - k]
            } else {
                order[k - 1]
            };
            if !each(b, k, reverse) {
                break;
            }
        }
    }
}

/// The bins of `order` a scan's candidate `(k, reverse)` sends left.
pub(crate) fn prefix_set(order: &[usize], k: usize, reverse: bool) -> BinSet {
    let mut set = BinSet::default();
    let chosen = if reverse {
        &order[order.len() - k..]
    } else {
        &order[..k]
    };
    chosen.iter().for_each(|&b| set.insert(b));
    set
}

/// Sorts `bins` by `stat` ascending, ties kept in bin order (a stable sort,
/// so the search does not depend on anything but the statistics).
pub(crate) fn sort_by_stat(bins: &mut [usize], stat: impl Fn(usize) -> f64) {
    bins.sort_by(|&a, &b| stat(a).total_cmp(&stat(b)));
}

/// A node of a classification tree as a set split sees it: its weighted
/// class totals, their sum, its row copies and the fewest copies a child
/// keeps.
pub(super) struct ClassNode<'a> {
    pub totals: &'a [f64],
    pub w: f64,
    pub samples: u64,
    pub min_leaf: u64,
}

/// The best set split of a classification tree's node on a categorical
/// feature whose histogram is `h` (per bin, `k` class weights and the row
/// copies; its first `levels` bins single levels), if one scores above
/// `floor`: its score and the bins going left.
///
/// The node's levels are sorted by a class's rate, highest first, smoothed
/// towards the node's (`(w_c + p_c) / (w + 1)`, one pseudo-row at the
/// node's class mix), and every prefix of that order is a candidate (so the
/// set holds the levels richest in the class). With two classes,
/// ordering by the positive rate finds the best split for Gini and entropy
/// among all `2^(L-1)` (Breiman et al. 1984, sec. 9.4; Fisher 1958); with
/// more classes no ordering is exact, and each class's one-versus-rest rate
/// orders one scan, the best of them kept (Coppersmith, Hong & Hosking 1999
/// discuss the gap). Ties keep the first candidate (the lower class, then
/// fewer levels).
pub(super) fn best_class_set<S: Score>(
    h: &[f64],
    k: usize,
    levels: usize,
    node: &ClassNode,
    score: &S,
    floor: f64,
) -> Option<(f64, BinSet)> {
    let cell = |b: usize| &h[b * (k + 1)..(b + 1) * (k + 1)];
    let present: Vec<usize> = (0..levels).filter(|&b| cell(b)[k] > 0.0).collect();
    let classes: Vec<usize> = match k {
        2 => vec![1],
        _ => (0..k).filter(|&c| node.totals[c] > 0.0).collect(),
    };
    let (mut best, mut best_score) = (None, floor);
    let mut left = vec![0.0; k];
    for c in classes {
        let prior = node.totals[c] / node.w;
        let mut order = present.clone();
        sort_by_stat(&mut order, |b| {
            let cl = cell(b);
            -(cl[c] + prior) / (cl[..k].iter().sum::<f64>() + 1.0)
        });
        left.iter_mut().for_each(|v| *v = 0.0);
        let (mut wl, mut nl) = (0.0, 0u64);
        scan_prefixes(&order, order.len(), false, |b, n, _| {
            let cl = cell(b);
            for (l, &v) in left.iter_mut().zip(&cl[..k]) {
                *l += v;
                wl += v;
            }
            nl += cl[k] as u64;
            if nl < node.min_leaf {
                return true;
            }
            if node.samples - nl < node.min_leaf {
                return false;
            }
            let sc = score.score(&left, node.totals, wl, node.w);
            if sc > best_score {
                best_score = sc;
                best = Some((sc, prefix_set(&order, n, false)));
            }
            true
        });
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_get_a_bin_each_and_missing_its_own() {
        let (codes, lo, _, levels) = bin_levels(&[2.0, 0.0, f64::NAN, 2.0, 7.5], 4, 255);
        // Levels 0 and 2 are present: bins 0 and 1; NaN and 7.5 (no code)
        // share the missing bin 2.
        assert_eq!(codes, vec![1, 0, 2, 1, 2]);
        assert_eq!((lo[0], lo[1], levels), (0.0, 2.0, Some(2)));
        assert!(lo[2].is_nan());
    }

    #[test]
    fn the_rarest_levels_share_one_bin_beyond_the_budget() {
        // 300 levels, level c seen c + 1 times: the 253 most frequent keep
        // a bin, levels 0..47 are grouped.
        let values: Vec<f64> = (0..300)
            .flat_map(|c| std::iter::repeat_n(c as f64, c + 1))
            .collect();
        let (codes, lo, _, levels) = bin_levels(&values, 300, 255);
        assert_eq!(levels, Some(253));
        assert_eq!(lo.len(), 254);
        assert_eq!(codes[0], 253);
        assert_eq!(lo[0], 47.0);
        assert_eq!(*codes.last().unwrap(), 252);
    }

    #[test]
    fn prefixes_come_from_both_ends_up_to_the_bound() {
        let mut seen = Vec::new();
        scan_prefixes(&[5, 3, 9], 2, true, |b, k, r| {
            seen.push((b, k, r));
            true
        });
        assert_eq!(
            seen,
            vec![(5, 1, false), (3, 2, false), (9, 1, true), (3, 2, true)]
        );
        seen.clear();
        scan_prefixes(&[5, 3, 9], 8, false, |b, k, r| {
            seen.push((b, k, r));
            k < 2
        });
        assert_eq!(seen, vec![(5, 1, false), (3, 2, false)]);
        assert_eq!(
            prefix_set(&[5, 3, 9], 2, true).bins().collect::<Vec<_>>(),
            vec![3, 9]
        );
    }
}
