//! The distance between rows with numeric and categorical features, SMOTE-NC's
//! (Chawla, Bowyer, Hall & Kegelmeyer 2002, section 6.1): the Euclidean
//! distance over the numeric features plus, for each categorical feature
//! whose levels differ, a fixed amount (the paper's `Med`, the median of the
//! numeric features' standard deviations over the minority class; the caller
//! chooses it). As a squared distance: `acc += Med^2` for each categorical
//! feature whose levels differ (two missing values, NaN, are the same
//! level), in feature order, then `acc = fma(q_j - r_j, q_j - r_j, acc)` for
//! each numeric feature in feature order. Ties are broken by the lower
//! reference index, as in the Euclidean searches.
//!
//! A [`Metric`] chooses between the two distances, so the samplers call one
//! search whatever their table holds: [`Metric::Euclidean`] is the module's
//! exact Euclidean search itself (the same lists, bit for bit), and
//! [`Metric::Mixed`] compares every query with every reference, in parallel
//! over blocks of queries (a block's lists depend on nothing else, so the
//! result is the same at any thread count). Every term is non-negative, so
//! a nearest search stops summing a pair once the sum passes the query's
//! current k-th distance: the pair could not enter the list (the levels
//! first, as they are cheap and large).

use rayon::prelude::*;

use super::{capped_k, dist2, search, Exclude, Lists, Neighbours, Order, Points};

/// Queries per parallel task of the mixed search.
const BLOCK: usize = 64;

/// How two points are compared.
#[derive(Debug, Clone, Copy)]
pub enum Metric<'a> {
    /// The Euclidean distance over every feature.
    Euclidean,
    /// SMOTE-NC's distance: Euclidean over the features not flagged in
    /// `categorical`, plus `penalty` (`Med^2`) to the squared distance for
    /// each flagged feature whose levels differ.
    Mixed {
        /// Per feature, whether it holds level codes.
        categorical: &'a [bool],
        /// What a differing level adds to the squared distance.
        penalty: f64,
    },
}

impl Metric<'_> {
    /// The squared distance of two points.
    ///
    /// ```
    /// use rarity::neighbors::Metric;
    /// let m = Metric::Mixed { categorical: &[false, true], penalty: 4.0 };
    /// assert_eq!(m.dist2(&[0.0, 1.0], &[3.0, 2.0]), 9.0 + 4.0);
    /// assert_eq!(m.dist2(&[0.0, f64::NAN], &[3.0, f64::NAN]), 9.0);
    /// ```
    #[inline]
    pub fn dist2(&self, a: &[f64], b: &[f64]) -> f64 {
        match *self {
            Metric::Euclidean => dist2(a, b),
            Metric::Mixed {
                categorical,
                penalty,
            } => {
                let of = |want: bool| (0..a.len()).filter(move |&j| categorical[j] == want);
                mixed_below(a, b, (of(true), of(false)), penalty, f64::INFINITY)
            }
        }
    }

    /// The `k` nearest references of every query under this metric (see
    /// [`super::knn`]).
    pub fn knn(
        &self,
        queries: Points<'_>,
        refs: Points<'_>,
        k: usize,
        exclude: Exclude<'_>,
    ) -> Neighbours {
        self.search(queries, refs, k, exclude, Order::Nearest)
    }

    /// Exact k-nearest (or k-farthest) search under this metric (see
    /// [`super::search`]).
    pub fn search(
        &self,
        queries: Points<'_>,
        refs: Points<'_>,
        k: usize,
        exclude: Exclude<'_>,
        order: Order,
    ) -> Neighbours {
        if matches!(self, Metric::Euclidean) {
            return search(queries, refs, k, exclude, order);
        }
        let k = capped_k(queries, refs, k, exclude);
        if k == 0 || queries.n == 0 {
            return Neighbours::none(k);
        }
        let sign = if order == Order::Farthest { -1.0 } else { 1.0 };
        // The categorical and the numeric features' indices, listed once.
        let (cat, num): (Vec<usize>, Vec<usize>) = match self {
            Metric::Mixed { categorical, .. } => (0..queries.d).partition(|&j| categorical[j]),
            Metric::Euclidean => (Vec::new(), Vec::new()),
        };
        let starts: Vec<usize> = (0..queries.n).step_by(BLOCK).collect();
        let parts: Vec<Lists> = starts
            .par_iter()
            .map(|&a| {
                let b = (a + BLOCK).min(queries.n);
                let mut lists = Lists::new(b - a, k);
                for q in a..b {
                    let skip = exclude.skip(q);
                    let row = queries.row(q);
                    for r in (0..refs.n).filter(|&r| r != skip) {
                        let d = match (*self, order) {
                            (Metric::Mixed { penalty, .. }, Order::Nearest) => {
                                let features = (cat.iter().copied(), num.iter().copied());
                                let worst = lists.worst(q - a);
                                mixed_below(row, refs.row(r), features, penalty, worst)
                            }
                            _ => self.dist2(row, refs.row(r)),
                        };
                        lists.offer(q - a, sign * d, r);
                    }
                }
                lists
            })
            .collect();
        let mut lists = Lists::concat(parts, queries.n, k);
        if order == Order::Farthest {
            lists.key.iter_mut().for_each(|v| *v = -*v);
        }
        Neighbours {
            k,
            index: lists.idx,
            dist2: lists.key,
        }
    }
}

/// The mixed squared distance of `a` and `b` (`features`: the categorical
/// features' indices, then the numeric ones', each in feature order), or,
/// once its partial sum passes `bound`, that partial sum (already more than
/// `bound`, as the whole would be: every term is non-negative and rounding
/// is monotone).
#[inline(always)]
fn mixed_below(
    a: &[f64],
    b: &[f64],
    features: (impl Iterator<Item = usize>, impl Iterator<Item = usize>),
    penalty: f64,
    bound: f64,
) -> f64 {
    let (cat, num) = features;
    let mut acc = 0.0;
    for j in cat {
        let (x, y) = (a[j], b[j]);
        if x != y && !(x.is_nan() && y.is_nan()) {
            acc += penalty;
        }
    }
    if acc > bound {
        return acc;
    }
    for j in num {
        let (x, y) = (a[j], b[j]);
        acc = (x - y).mul_add(x - y, acc);
        if acc > bound {
            return acc;
        }
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_differing_level_counts_as_the_penalty() {
        // One numeric feature, one categorical: row 1 is nearest row 0 by
        // value but of another level; with the penalty, row 2 wins.
        let x = [0.0, 0.0, 1.0, 1.0, 2.0, 0.0, 10.0, 1.0];
        let p = Points::new(&x, 4, 2).unwrap();
        let cat = [false, true];
        let plain = Metric::Euclidean.knn(p, p, 1, Exclude::SameIndex);
        assert_eq!(plain.of(0), &[1]);
        let mixed = Metric::Mixed {
            categorical: &cat,
            penalty: 9.0,
        };
        let nn = mixed.knn(p, p, 2, Exclude::SameIndex);
        assert_eq!(nn.of(0), &[2, 1]);
        assert_eq!(nn.dist2_of(0), &[4.0, 10.0]);
        let far = mixed.search(p, p, 1, Exclude::SameIndex, Order::Farthest);
        assert_eq!(far.of(0), &[3]);
        assert_eq!(far.dist2_of(0), &[109.0]);
    }

    #[test]
    fn the_same_lists_at_one_and_two_threads() {
        let x: Vec<f64> = (0..600)
            .map(|i| {
                if i % 2 == 0 {
                    (i * 37 % 101) as f64
                } else {
                    (i % 7) as f64
                }
            })
            .collect();
        let p = Points::new(&x, 300, 2).unwrap();
        let cat = [false, true];
        let m = Metric::Mixed {
            categorical: &cat,
            penalty: 25.0,
        };
        let at = |t| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .unwrap()
                .install(|| m.knn(p, p, 5, Exclude::SameIndex))
        };
        assert_eq!(at(1), at(2));
    }
}
