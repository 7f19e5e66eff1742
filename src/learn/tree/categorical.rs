//! What native categorical splits share between the trees and `gbdt`: the
//! binning of a categorical feature by level, the set of bins a split sends
//! left while it is searched, the set of level codes a fitted split keeps,
//! and the search order of Fisher (1958) and Breiman et al. (1984, sec.
//! 9.4): a node's levels sorted by a statistic, each prefix of that order a
//! candidate left set.
//!
//! A classification tree's search ([`best_class_set`]) regularises that
//! order as LightGBM does its gradient-ordered search (Ke et al. 2017;
//! `cat_smooth`, `min_data_per_group`, `max_cat_threshold`, `cat_l2`):
//! unpruned trees order deep nodes whose levels hold a few rows each, where
//! the raw in-node rate is an in-sample target statistic and overfits
//! (Micci-Barreca 2001 and Prokhorenkova et al. 2018 on target statistics'
//! shrinkage and leakage). Each level's rate is shrunk towards the node's,
//! levels with too few rows stay on the right, candidates must add enough
//! rows, a split sends a bounded number of levels left, and the children's
//! class mixes are shrunk when the split is scored.
//! A column of few levels (at most `max_cat_to_onehot`, LightGBM's bound
//! for its one-hot splits) has few partitions to overfit with: its search
//! is exhaustive and unregularised (each level against the rest, and every
//! prefix of the raw in-node order), so a level of a few rows can still be
//! split off in a small node.
//!
//! A categorical feature holds level codes `0..levels` (NaN for a missing
//! value or a level not seen in training). A split sends the rows whose code
//! is in its set left and every other row right: a missing value, an unseen
//! level, a level too rare to be placed on its own and any code outside the
//! set all go right. A set holds only levels seen in training, so a model
//! never sends an unseen level left.

use serde::{Deserialize, Serialize};

use super::score::Score;

/// One feature's bin codes, by row: one byte each, or two for a
/// categorical feature keeping more levels than one byte can number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Codes {
    Narrow(Vec<u8>),
    Wide(Vec<u16>),
}

/// One feature binned: each row's bin code, each bin's smallest and largest
/// value, and for a categorical feature its number of single-level bins.
pub(super) type BinnedFeature = (Codes, Vec<f64>, Vec<f64>, Option<usize>);

/// The most bins of a categorical feature (codes fit in a `u16`).
const MAX_LEVEL_BINS: usize = 1 << 16;

/// Share of a wide categorical feature's rows (missing values aside) whose
/// levels keep a bin of their own (LightGBM's rule).
const COVER: f64 = 0.99;

/// Fewest rows a level beyond the first `max_bins - 2` needs to keep a bin
/// of its own (LightGBM's `min_data_in_bin`).
const MIN_LEVEL_ROWS: usize = 3;

/// The level code of value `v` of a feature with `levels` levels, `None`
/// for NaN or anything that is not one of the codes `0..levels`.
#[inline]
pub(crate) fn code_of(v: f64, levels: usize) -> Option<usize> {
    // A whole number in range survives the round trip through `usize`
    // (no `fract`: it is a call to `trunc` without SSE4.1).
    let c = v as usize;
    (v >= 0.0 && v < levels as f64 && c as f64 == v).then_some(c)
}

/// The levels of a categorical feature that keep a bin of their own, in
/// code order, from each level's row count, and whether the others are
/// grouped. When at most `max_bins - 1` levels are present every one
/// keeps its bin. Otherwise the levels are taken by decreasing count
/// (ties to the lower code): the first `max_bins - 2` always (so a column
/// keeps at least what one byte numbers), then further ones while the
/// levels taken cover less than [`COVER`] of the rows and the next level
/// has at least [`MIN_LEVEL_ROWS`] rows, up to [`MAX_LEVEL_BINS`]` - 2`
/// levels (LightGBM keeps levels by the same coverage rule, in its
/// `BinMapper::FindBin`); the rest share one bin.
fn kept_levels(count: &[usize], max_bins: usize) -> (Vec<usize>, bool) {
    let mut kept: Vec<usize> = (0..count.len()).filter(|&c| count[c] > 0).collect();
    if kept.len() < max_bins {
        return (kept, false);
    }
    kept.sort_by(|&a, &b| count[b].cmp(&count[a]).then(a.cmp(&b)));
    let rows: usize = count.iter().sum();
    let cover = (rows as f64 * COVER).round() as usize;
    let (mut used, mut take) = (0, 0);
    for &c in &kept {
        let more = take < max_bins - 2
            || (used < cover && count[c] >= MIN_LEVEL_ROWS && take < MAX_LEVEL_BINS - 2);
        if !more {
            break;
        }
        used += count[c];
        take += 1;
    }
    let grouped = take < kept.len();
    kept.truncate(take);
    kept.sort_unstable();
    (kept, grouped)
}

/// Bins one categorical feature of `levels` levels: each row's bin code,
/// each bin's smallest and largest value (the level's code, NaN for the
/// grouped and missing bins), and the number of single-level bins. The
/// levels kept ([`kept_levels`]) get one bin each in code order, the rest
/// share the next bin, and missing values (and values that are not a
/// level's code) take the last. Codes are one byte when the bins fit in
/// `max_bins`, else two.
pub(super) fn bin_levels(values: &[f64], levels: usize, max_bins: usize) -> BinnedFeature {
    let mut count = vec![0usize; levels];
    for c in values.iter().filter_map(|&v| code_of(v, levels)) {
        count[c] += 1;
    }
    let (kept, grouped) = kept_levels(&count, max_bins);
    let other = kept.len();
    let missing = other + usize::from(grouped);
    let mut bin_of = vec![other; levels];
    for (b, &c) in kept.iter().enumerate() {
        bin_of[c] = b;
    }
    let code = |v: f64| code_of(v, levels).map_or(missing, |c| bin_of[c]);
    let has_missing = values.iter().any(|&v| code_of(v, levels).is_none());
    let mut lo: Vec<f64> = kept.iter().map(|&c| c as f64).collect();
    let extra = usize::from(grouped) + usize::from(has_missing);
    lo.extend(std::iter::repeat_n(f64::NAN, extra));
    let codes = if lo.len() <= max_bins {
        Codes::Narrow(values.iter().map(|&v| code(v) as u8).collect())
    } else {
        Codes::Wide(values.iter().map(|&v| code(v) as u16).collect())
    };
    (codes, lo.clone(), lo, Some(kept.len()))
}

/// A set of bins of one feature, while a split is searched.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct BinSet(CatSet);

impl BinSet {
    /// Adds bin `b`.
    pub fn insert(&mut self, b: usize) {
        self.0.insert(b);
    }

    /// Whether bin code `c` is in the set.
    #[inline(always)]
    pub fn contains(&self, c: usize) -> bool {
        self.0.has(c)
    }

    /// The bins in the set, ascending.
    pub fn bins(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.codes()
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
        let mut set = CatSet::default();
        codes.into_iter().for_each(|c| set.insert(c));
        set
    }

    /// Adds code `c`.
    fn insert(&mut self, c: usize) {
        if self.0.len() <= c / 64 {
            self.0.resize(c / 64 + 1, 0u64);
        }
        self.0[c / 64] |= 1 << (c % 64);
    }

    /// Whether code `c` is in the set.
    #[inline(always)]
    fn has(&self, c: usize) -> bool {
        self.0.get(c / 64).is_some_and(|w| w >> (c % 64) & 1 == 1)
    }

    /// Whether value `x` is the code of a level in the set (false for NaN,
    /// a negative or fractional value, or a code beyond the set).
    #[inline]
    pub fn contains(&self, x: f64) -> bool {
        code_of(x, self.0.len() * 64).is_some_and(|c| self.has(c))
    }

    /// The codes in the set, ascending.
    pub fn codes(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.0.len() * 64).filter(|&c| self.has(c))
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

/// The rules of a classification tree's set search (the [`super::Tree`]
/// parameters of the same names).
#[derive(Debug, Clone, Copy)]
pub(super) struct CatRules {
    pub smooth: f64,
    pub min_per_group: f64,
    pub max_threshold: usize,
    pub l2: f64,
    pub max_onehot: usize,
}

/// A node of a classification tree as a set split sees it: its weighted
/// class totals, their sum, its row copies, the fewest copies a child
/// keeps and the set search's rules.
pub(super) struct ClassNode<'a> {
    pub totals: &'a [f64],
    pub w: f64,
    pub samples: u64,
    pub min_leaf: u64,
    pub rules: CatRules,
}

impl ClassNode<'_> {
    /// The score of a set split with class totals `left` (weight `wl`),
    /// each child's class mix first pulled towards the node's by `l2`
    /// pseudo-rows (its weight kept): `q_c = (n_c + l2 p_c) / (n + l2)`.
    /// The smaller a child, the closer its mix to the node's and the
    /// smaller the gain, as LightGBM's `cat_l2` shrinks a child's step.
    fn score<S: Score>(&self, score: &S, left: &[f64], wl: f64, buf: &mut [f64]) -> f64 {
        let l2 = self.rules.l2;
        if l2 == 0.0 {
            return score.score(left, self.totals, wl, self.w);
        }
        let wr = self.w - wl;
        let (sl, sr) = (wl / (wl + l2), wr / (wr + l2));
        let (shrunk_left, shrunk_tot) = buf.split_at_mut(left.len());
        for c in 0..left.len() {
            let p = self.totals[c] / self.w;
            let right = (self.totals[c] - left[c]).max(0.0);
            shrunk_left[c] = (left[c] + l2 * p) * sl;
            shrunk_tot[c] = shrunk_left[c] + (right + l2 * p) * sr;
        }
        score.score(shrunk_left, shrunk_tot, wl, self.w)
    }
}

/// The best split of a node on a feature of few levels (at most
/// `max_cat_to_onehot`, its `present` ones in the node), searched
/// exhaustively and unregularised, scored as a threshold split is (no
/// `cat_l2`, no `cat_smooth` or `min_data_per_group`): every one level against the rest
/// (LightGBM's one-hot rule) and every prefix of the levels sorted by each
/// class's raw in-node rate, which for two classes holds the best of all
/// `2^(L-1)` partitions (Breiman et al. 1984, sec. 9.4). Few levels leave
/// few ways to overfit, and a level of a few rows may go left on its own.
fn best_few_levels<S: Score>(
    h: &[f64],
    k: usize,
    present: &[usize],
    node: &ClassNode,
    score: &S,
    floor: f64,
) -> Option<(f64, BinSet)> {
    let cell = |b: usize| &h[b * (k + 1)..(b + 1) * (k + 1)];
    let (mut best, mut best_score) = (None, floor);
    let mut offer = |bins: &[usize]| {
        let mut left = vec![0.0; k];
        let mut nl = 0u64;
        for &b in bins {
            left.iter_mut()
                .zip(&cell(b)[..k])
                .for_each(|(l, v)| *l += v);
            nl += cell(b)[k] as u64;
        }
        if nl < node.min_leaf || node.samples - nl < node.min_leaf {
            return;
        }
        let sc = score.score(&left, node.totals, left.iter().sum(), node.w);
        if sc > best_score {
            best_score = sc;
            best = Some((sc, prefix_set(bins, bins.len(), false)));
        }
    };
    present.iter().for_each(|&b| offer(&[b]));
    let classes = if k == 2 { 1..2 } else { 0..k };
    for c in classes {
        let mut order = present.to_vec();
        sort_by_stat(&mut order, |b| {
            -cell(b)[c] / cell(b)[..k].iter().sum::<f64>().max(f64::MIN_POSITIVE)
        });
        (2..order.len()).for_each(|n| offer(&order[..n]));
    }
    best
}

/// The best set split of a classification tree's node on a categorical
/// feature whose histogram is `h` (per bin, `k` class weights and the row
/// copies; its first `levels` bins single levels), if one scores above
/// `floor`: its score and the bins going left.
///
/// The levels with at least `cat_smooth` rows in the node (and at least
/// one) are sorted by a class's rate smoothed towards the node's,
/// `(w_c + s p_c) / (w + s)` with `s = cat_smooth` (an empirical-Bayes
/// shrinkage: a level seen a few times keeps about the node's rate instead
/// of an extreme one), and the candidates are the first `k` and the last
/// `k` levels of that order, `k` up to `max_cat_threshold` and half the
/// sorted levels, as LightGBM scans (Ke et al. 2017). Along each
/// direction a candidate is scored only once the levels added since the
/// last one hold `min_data_per_group` rows, and the right side must keep
/// as many; the score shrinks both children by `cat_l2` pseudo-rows
/// ([`ClassNode::score`]). With two classes, ordering by the positive rate
/// finds the best split for Gini and entropy among all `2^(L-1)` (Breiman
/// et al. 1984, sec. 9.4; Fisher 1958) when nothing is bounded; with more
/// classes no ordering is exact, and each class's one-versus-rest rate
/// orders one scan, the best of them kept (Coppersmith, Hong & Hosking 1999
/// discuss the gap). Ties keep the first candidate (the lower class, the
/// forward direction, then fewer levels).
pub(super) fn best_class_set<S: Score>(
    h: &[f64],
    k: usize,
    levels: usize,
    node: &ClassNode,
    score: &S,
    floor: f64,
) -> Option<(f64, BinSet)> {
    let rules = node.rules;
    let cell = |b: usize| &h[b * (k + 1)..(b + 1) * (k + 1)];
    if levels <= rules.max_onehot {
        let seen: Vec<usize> = (0..levels).filter(|&b| cell(b)[k] > 0.0).collect();
        return best_few_levels(h, k, &seen, node, score, floor);
    }
    let fewest = rules.smooth.max(1.0);
    let present: Vec<usize> = (0..levels).filter(|&b| cell(b)[k] >= fewest).collect();
    let classes: Vec<usize> = match k {
        2 => vec![1],
        _ => (0..k).filter(|&c| node.totals[c] > 0.0).collect(),
    };
    let most = rules.max_threshold.min(present.len().div_ceil(2));
    let (mut best, mut best_score) = (None, floor);
    let (mut left, mut buf) = (vec![0.0; k], vec![0.0; 2 * k]);
    for c in classes {
        let prior = node.totals[c] / node.w;
        let mut order = present.clone();
        sort_by_stat(&mut order, |b| {
            let cl = cell(b);
            -(cl[c] + rules.smooth * prior) / (cl[..k].iter().sum::<f64>() + rules.smooth)
        });
        let (mut wl, mut nl, mut group) = (0.0, 0u64, 0.0);
        scan_prefixes(&order, most, true, |b, n, reverse| {
            if n == 1 {
                left.iter_mut().for_each(|v| *v = 0.0);
                (wl, nl, group) = (0.0, 0, 0.0);
            }
            let cl = cell(b);
            for (l, &v) in left.iter_mut().zip(&cl[..k]) {
                *l += v;
                wl += v;
            }
            nl += cl[k] as u64;
            group += cl[k];
            if nl < node.min_leaf {
                return true;
            }
            let rest = node.samples - nl;
            if rest < node.min_leaf || (rest as f64) < rules.min_per_group {
                return false;
            }
            if group < rules.min_per_group {
                return true;
            }
            group = 0.0;
            let sc = node.score(score, &left, wl, &mut buf);
            if sc > best_score {
                best_score = sc;
                best = Some((sc, prefix_set(&order, n, reverse)));
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
        assert_eq!(codes, Codes::Narrow(vec![1, 0, 2, 1, 2]));
        assert_eq!((lo[0], lo[1], levels), (0.0, 2.0, Some(2)));
        assert!(lo[2].is_nan());
    }

    #[test]
    fn levels_covering_99_percent_keep_their_bins_beyond_one_byte() {
        // 300 levels, level c seen c + 1 times (45,150 rows): the 253 most
        // frequent (levels 47..300) cover 44,022 rows, short of 99%
        // (44,699); levels 46 down to 29 (18 more) bring 44,715.
        let values: Vec<f64> = (0..300)
            .flat_map(|c| std::iter::repeat_n(c as f64, c + 1))
            .collect();
        let (codes, lo, _, levels) = bin_levels(&values, 300, 255);
        assert_eq!(levels, Some(271));
        assert_eq!(lo.len(), 272);
        assert_eq!(lo[0], 29.0);
        let Codes::Wide(codes) = codes else {
            panic!("272 bins need two-byte codes")
        };
        // Level 0 is grouped (bin 271), level 29 keeps bin 0.
        assert_eq!((codes[0], codes[values.len() - 1]), (271, 270));
        assert_eq!(codes[values.iter().position(|&v| v == 29.0).unwrap()], 0);
    }

    #[test]
    fn levels_too_rare_stay_grouped_and_narrow_columns_stay_narrow() {
        // 253 levels of 10 rows and 1,000 levels of 2 rows: the 99% rule
        // would take rare levels, but fewer than 3 rows never keep a bin
        // beyond the first 253, so the codes stay one byte.
        let values: Vec<f64> = (0..1253)
            .flat_map(|c| std::iter::repeat_n(c as f64, if c < 253 { 10 } else { 2 }))
            .collect();
        let (codes, lo, _, levels) = bin_levels(&values, 1253, 255);
        assert_eq!((levels, lo.len()), (Some(253), 254));
        assert!(matches!(codes, Codes::Narrow(_)));
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
