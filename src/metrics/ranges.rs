//! Exact ROC AUC, average precision and trapezoidal PR AUC of scores that
//! many machines sorted apart: the rows are cut into ranges of the score
//! (every row of one score in one range, as Spark's `repartitionByRange`
//! does), each range sorted on its own machine.
//!
//! Each group of tied scores adds terms that depend only on its own counts
//! and on the numbers of negative and positive rows scoring above it
//! ([`RankSums::add_group`]): ROC AUC's Mann-Whitney count `neg_g (2
//! pos_above_g + pos_g)` (an integer, summed in `u128` and divided by `2 N P`
//! once), average precision's step `(R_g - R_above) P_g` and the trapezoid
//! `(R_g - R_above) (P_g + P_above) / 2`, with recall `R` and precision `P`
//! computed from the counts exactly as the one-table walk computes them. So
//! a first pass counts each range's rows per class ([`counts_above`] turns
//! those into the rows above each range), and a second pass walks each
//! range's sorted rows ([`RangeWalk`]) and returns its sums, which the
//! driver adds. The area is the one-table integer; the two float sums are
//! the same terms added in another order (equal to the last few bits).

use super::ranking::RankSums;
use super::summary::score_key;
use crate::{Error, Result};

/// The rows scoring above each range: `ranges[i] = (its lowest score key,
/// its negatives, its positives)` in any order; the answer holds `[negatives,
/// positives]` above range `i`, for each `i`. Ranges must not overlap
/// (their lowest keys are distinct).
pub fn counts_above(ranges: &[(i64, u64, u64)]) -> Result<Vec<[u64; 2]>> {
    let mut order: Vec<usize> = (0..ranges.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(ranges[i].0));
    if let Some(w) = order.windows(2).find(|w| ranges[w[0]].0 == ranges[w[1]].0) {
        return Err(Error::invalid(format!(
            "two ranges start at the same score key {}: the ranges overlap",
            ranges[w[0]].0
        )));
    }
    let mut out = vec![[0u64; 2]; ranges.len()];
    let mut above = [0u64; 2];
    for i in order {
        out[i] = above;
        above[0] += ranges[i].1;
        above[1] += ranges[i].2;
    }
    Ok(out)
}

/// A walk over one range's rows in ascending order of score, adding each
/// group of tied scores' terms.
#[derive(Debug, Clone)]
pub struct RangeWalk {
    /// [negatives, positives] scoring above the range.
    above: [u64; 2],
    /// [negatives, positives] of the range.
    totals: [u64; 2],
    /// Positive rows in all the ranges.
    n_pos: u64,
    /// Rows of the range walked, the current group's included.
    seen: [u64; 2],
    /// The current group's key and rows.
    current: Option<(i64, [u64; 2])>,
    sums: RankSums,
}

impl RangeWalk {
    /// A walk of a range of `totals = [negatives, positives]` rows with
    /// `above` scoring higher, of `n_pos` positives in all.
    pub fn new(above: [u64; 2], totals: [u64; 2], n_pos: u64) -> Self {
        RangeWalk {
            above,
            totals,
            n_pos,
            seen: [0; 2],
            current: None,
            sums: RankSums::default(),
        }
    }

    /// Adds the next rows (classes 0 or 1 and probabilities), in ascending
    /// order of probability.
    pub fn add(&mut self, truth: &[u32], p: &[f64]) -> Result<()> {
        super::check_len(truth.len(), p.len(), "probabilities")?;
        for (&t, &q) in truth.iter().zip(p) {
            if t > 1 {
                return Err(Error::data(format!(
                    "label {t} is not one of the 2 classes 0..1"
                )));
            }
            let k = score_key(q);
            match &mut self.current {
                Some((ck, c)) if *ck == k => c[t as usize] += 1,
                Some((ck, _)) if *ck > k => {
                    return Err(Error::data(format!(
                        "the range's rows are not sorted: score {q} after a higher one"
                    )))
                }
                _ => {
                    self.flush();
                    let mut c = [0u64; 2];
                    c[t as usize] = 1;
                    self.current = Some((k, c));
                }
            }
            self.seen[t as usize] += 1;
        }
        Ok(())
    }

    /// Adds the finished group's terms.
    fn flush(&mut self) {
        if let Some((_, c)) = self.current.take() {
            // Rows above the group: above the range, plus the range's rows
            // not yet walked (the walk goes up), the group's excluded.
            let higher =
                [0, 1].map(|i| self.above[i] + self.totals[i].saturating_sub(self.seen[i]));
            self.sums.add_group(higher, c, self.n_pos);
        }
    }

    /// The range's sums; an error if the rows walked are not the range's
    /// counted rows (the data changed between the passes).
    pub fn finish(mut self) -> Result<RankSums> {
        if self.seen != self.totals {
            return Err(Error::data(format!(
                "the range held {:?} [negative, positive] rows in the first pass and {:?} in the \
                 second: the data changed between the passes",
                self.totals, self.seen
            )));
        }
        self.flush();
        Ok(self.sums)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::ranking::binary_ranking;
    use rand::RngExt;

    /// Rows sorted by probability with many ties, cut into `cuts + 1`
    /// ranges at random places between distinct probabilities.
    fn ranges(
        n: usize,
        cuts: usize,
        seed: u64,
    ) -> (Vec<u32>, Vec<f64>, Vec<std::ops::Range<usize>>) {
        let mut r = crate::rng::stream(seed, 0);
        let mut p: Vec<f64> = (0..n)
            .map(|i| {
                if i % 3 == 0 {
                    f64::from(r.random_range(0..50u32)) / 50.0
                } else {
                    r.random::<f64>()
                }
            })
            .collect();
        p.sort_by(f64::total_cmp);
        let truth = p
            .iter()
            .map(|&q| u32::from(r.random::<f64>() < q))
            .collect();
        let mut bounds: Vec<usize> = (0..cuts).map(|_| r.random_range(1..n)).collect();
        bounds.iter_mut().for_each(|b| {
            while *b < n && p[*b] == p[*b - 1] {
                *b += 1;
            }
        });
        bounds.extend([0, n]);
        bounds.sort();
        bounds.dedup();
        let parts = bounds.windows(2).map(|w| w[0]..w[1]).collect();
        (truth, p, parts)
    }

    #[test]
    fn ranges_walked_apart_give_the_one_table_ranking_metrics() {
        for (seed, cuts) in [(1, 0), (2, 3), (3, 12)] {
            let (truth, p, parts) = ranges(4000, cuts, seed);
            let want = binary_ranking(&truth, &p, 1).unwrap();
            let count = |r: &std::ops::Range<usize>| {
                let pos = truth[r.clone()].iter().filter(|&&t| t == 1).count() as u64;
                (score_key(p[r.start]), r.len() as u64 - pos, pos)
            };
            let mut totals: Vec<(i64, u64, u64)> = parts.iter().map(count).collect();
            // The first pass's rows arrive in any order.
            totals.reverse();
            let above = counts_above(&totals).unwrap();
            let n_pos = totals.iter().map(|t| t.2).sum();
            let mut sums = RankSums::default();
            for (r, (a, t)) in parts.iter().rev().zip(above.iter().zip(&totals)) {
                let mut w = RangeWalk::new(*a, [t.1, t.2], n_pos);
                // In two batches, cut inside a group of ties if there is one.
                let mid = r.start + r.len() / 2;
                w.add(&truth[r.start..mid], &p[r.start..mid]).unwrap();
                w.add(&truth[mid..r.end], &p[mid..r.end]).unwrap();
                sums.merge(&w.finish().unwrap());
            }
            let n_neg = truth.len() as u64 - n_pos;
            let got = sums.scores(n_pos, n_neg);
            assert_eq!(got.roc_auc.to_bits(), want.roc_auc.to_bits(), "{cuts} cuts");
            assert!((got.average_precision - want.average_precision).abs() <= 1e-12);
            assert!((got.pr_auc_trapezoid - want.pr_auc_trapezoid).abs() <= 1e-12);
        }
    }

    #[test]
    fn unsorted_rows_changed_data_and_overlapping_ranges_are_errors() {
        let mut w = RangeWalk::new([0, 0], [2, 0], 1);
        let e = w.add(&[0, 0], &[0.5, 0.2]).unwrap_err().to_string();
        assert!(e.contains("not sorted"), "{e}");
        let mut w = RangeWalk::new([0, 0], [2, 1], 1);
        w.add(&[0, 1], &[0.2, 0.5]).unwrap();
        let e = w.finish().unwrap_err().to_string();
        assert!(e.contains("changed between the passes"), "{e}");
        let e = counts_above(&[(3, 1, 1), (3, 2, 0)])
            .unwrap_err()
            .to_string();
        assert!(e.contains("overlap"), "{e}");
        let mut w = RangeWalk::new([0, 0], [1, 0], 1);
        assert!(w
            .add(&[2], &[0.1])
            .unwrap_err()
            .to_string()
            .contains("label 2"));
    }
}
