//! Ranks with ties averaged, mean ranks (Demsar 2006, Section 3.2.2) and rank
//! sums (Dal Pozzolo et al. 2015, Table V).

use super::check_table;
use crate::Result;

/// Ranks `1..=n` of `x` in ascending order, tied values sharing the mean of
/// their ranks (SciPy's `rankdata(method="average")`).
///
/// ```
/// use rarity::stats::rankdata;
/// assert_eq!(rankdata(&[0.3, 0.1, 0.3, 0.2]), vec![3.5, 1.0, 3.5, 2.0]);
/// ```
pub fn rankdata(x: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    let mut ranks = vec![0.0; x.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && x[order[end]] == x[order[start]] {
            end += 1;
        }
        // Ranks start+1 ..= end share their mean.
        let r = (start + 1 + end) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = r;
        }
        start = end;
    }
    ranks
}

/// Mean rank of each method over the rows of `table`, rank 1 being the best
/// in each row (Demsar's `R_j`); `higher_is_better` says which way is best.
///
/// ```
/// use rarity::stats::mean_ranks;
/// let auc = vec![vec![0.9, 0.8, 0.7], vec![0.6, 0.8, 0.7]];
/// assert_eq!(mean_ranks(&auc, true).unwrap(), vec![2.0, 1.5, 2.5]);
/// ```
pub fn mean_ranks(table: &[Vec<f64>], higher_is_better: bool) -> Result<Vec<f64>> {
    let k = check_table(table, 1)?;
    let mut sums = vec![0.0; k];
    for row in table {
        let keyed: Vec<f64> = if higher_is_better {
            row.iter().map(|v| -v).collect()
        } else {
            row.clone()
        };
        for (s, r) in sums.iter_mut().zip(rankdata(&keyed)) {
            *s += r;
        }
    }
    Ok(sums.iter().map(|s| s / table.len() as f64).collect())
}

/// Rank sums of Dal Pozzolo et al.'s Table V: in each row (one dataset and
/// sampling rate) the method with the highest value gets rank `k` and the
/// lowest rank 1 (ties averaged); ranks are summed over rows.
///
/// ```
/// use rarity::stats::rank_sums;
/// let cells = vec![vec![0.9, 0.8, 0.8], vec![0.5, 0.7, 0.6]];
/// assert_eq!(rank_sums(&cells).unwrap(), vec![4.0, 4.5, 3.5]);
/// ```
pub fn rank_sums(table: &[Vec<f64>]) -> Result<Vec<f64>> {
    let k = check_table(table, 1)?;
    let mut sums = vec![0.0; k];
    for row in table {
        for (s, r) in sums.iter_mut().zip(rankdata(row)) {
            *s += r;
        }
    }
    Ok(sums)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_of_all_ties_are_the_middle() {
        assert_eq!(rankdata(&[2.0; 4]), vec![2.5; 4]);
        assert!(rankdata(&[]).is_empty());
    }

    #[test]
    fn ragged_or_non_finite_tables_are_errors() {
        assert!(rank_sums(&[vec![1.0, 2.0], vec![1.0]]).is_err());
        assert!(mean_ranks(&[vec![1.0, f64::NAN]], true).is_err());
        assert!(rank_sums(&[]).is_err());
    }
}
