//! k-means SMOTE (Douzas, Bacao & Last 2018, "Improving imbalanced learning
//! through a heuristic oversampling method based on k-means and SMOTE",
//! Information Sciences 465): the rows are clustered by k-means
//! ([`super::kmeans`], in the search space); for each class to enlarge,
//! the clusters where the class's share of rows reaches `balance` and that
//! hold more than `k` of its rows are kept, each weighted by its sparsity
//! `mean_distance^e / n` (the mean Euclidean distance between the class's
//! rows in the cluster, `n` those rows, `e` the density exponent, by
//! default the paper's `0.16 log_1.6(n)^1.8`); the class's new rows are
//! apportioned to the clusters by weight (largest remainders, so they add up
//! exactly; with `round_up`, each cluster's share is rounded up on its own,
//! imbalanced-learn's rule, and the total can pass the target by up to one
//! row a cluster) and made by
//! SMOTE within each cluster's rows of the class. The default `balance` is
//! imbalanced-learn's: half the class's share of all new rows. With one
//! cluster it is SMOTE, draw for draw.

use rayon::prelude::*;

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::params::{params, Bounds, Params};
use crate::rng::Rng;

use crate::sample::draw::two_class_counts;
use crate::sample::kmeans::{kmeans, Clusters, MAX_ITER};
use crate::sample::parts::params_of_parts;
use crate::sample::smote::{apportion, smote_class, spread};
use crate::sample::space::Space;
use crate::sample::{spec, OverTarget, Sample, Sampler, SmoteNeighbours};

params! {
    /// k-means SMOTE's clusters.
    #[derive(Debug, Clone, PartialEq)]
    pub struct KMeansClusters {
        /// Clusters of k-means (8: scikit-learn's default).
        pub clusters: usize = 8 => Bounds::at_least(1.0),
        /// Least share of a cluster's rows the class must hold for the
        /// cluster to be oversampled; none: half the class's share of all
        /// new rows.
        pub balance: Option<f64> = None => Bounds::at_least(0.0),
        /// The exponent of the mean distance in a cluster's sparsity; none:
        /// 0.16 log_1.6(n)^1.8.
        pub density_exponent: Option<f64> = None,
        /// Round each cluster's share of the new rows up on its own
        /// (imbalanced-learn's `KMeansSMOTE`; the total can pass the
        /// target) instead of by largest remainders (exact).
        pub round_up: bool = false,
    }
}

/// k-means SMOTE.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KMeansSmote {
    /// SMOTE's neighbour search within a cluster.
    pub neighbours: SmoteNeighbours,
    /// The clustering.
    pub clustering: KMeansClusters,
    /// The class sizes to reach.
    pub target: OverTarget,
}

params_of_parts!(KMeansSmote: neighbours, clustering, target);

/// The mean Euclidean distance between distinct rows `rows` of `x`
/// (row-major, `d` features), 0 for one row.
fn mean_distance(x: &[f64], d: usize, rows: &[usize]) -> f64 {
    let n = rows.len();
    if n < 2 {
        return 0.0;
    }
    let total: f64 = (0..n)
        .into_par_iter()
        .map(|a| {
            let ra = &x[rows[a] * d..(rows[a] + 1) * d];
            rows[a + 1..]
                .iter()
                .map(|&b| crate::neighbors::dist2(ra, &x[b * d..(b + 1) * d]).sqrt())
                .sum::<f64>()
        })
        .collect::<Vec<f64>>()
        .iter()
        .sum();
    2.0 * total / (n * (n - 1)) as f64
}

impl KMeansSmote {
    /// The clusters kept for class `c` (its rows in each, in row order) and
    /// their weights.
    fn weighted(
        &self,
        (data, x, d): (&Dataset, &[f64], usize),
        clusters: &Clusters,
        c: usize,
        balance: f64,
    ) -> (Vec<Vec<usize>>, Vec<f64>) {
        let (mut kept, mut weights) = (Vec::new(), Vec::new());
        for members in clusters.members() {
            let own: Vec<usize> = members
                .iter()
                .copied()
                .filter(|&i| data.label(i) == c)
                .collect();
            if members.is_empty()
                || (own.len() as f64) < balance * members.len() as f64
                || own.len() <= self.neighbours.k
            {
                continue;
            }
            let n = own.len() as f64;
            let e = self
                .clustering
                .density_exponent
                .unwrap_or_else(|| 0.16 * n.log(1.6).powf(1.8));
            weights.push(mean_distance(x, d, &own).powf(e) / n);
            kept.push(own);
        }
        (kept, weights)
    }
}

impl Sampler for KMeansSmote {
    fn synthesizes(&self) -> bool {
        true
    }

    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        self.check()?;
        let counts = two_class_counts(data, "kmeans-smote")?;
        let sizes = self.target.sizes(&counts, data.n_features())?;
        let total_new: usize = sizes.iter().zip(&counts).map(|(s, n)| s - n).sum();
        let space = Space::new(data, self.neighbours.standardise);
        let x = space.all().into_owned();
        let d = data.n_features();
        let clusters = kmeans(&x, d, self.clustering.clusters, MAX_ITER, rng);
        // Every class to enlarge has its clusters checked before any row is made.
        let mut plans = Vec::new();
        for c in (0..counts.len()).filter(|&c| sizes[c] > counts[c]) {
            let new = sizes[c] - counts[c];
            let balance = self
                .clustering
                .balance
                .unwrap_or(new as f64 / total_new as f64 / 2.0);
            let (kept, weights) = self.weighted((data, &x, d), &clusters, c, balance);
            if kept.is_empty() {
                return Err(Error::data(format!(
                    "kmeans-smote: no cluster holds a share of at least {balance} and more than \
                     k={} rows of class '{}'; lower balance or raise clusters (now {})",
                    self.neighbours.k,
                    data.class_names()[c],
                    clusters.k
                )));
            }
            let sum: f64 = weights.iter().sum();
            let w: Vec<f64> = if sum > 0.0 && sum.is_finite() {
                weights
            } else {
                vec![1.0; kept.len()]
            };
            let shares = if self.clustering.round_up {
                let sum: f64 = w.iter().sum();
                w.iter()
                    .map(|&v| (new as f64 * (v / sum)).ceil() as usize)
                    .collect()
            } else {
                apportion(new, &w)
            };
            plans.push((c, kept, shares));
        }
        let k = self.neighbours.k;
        self.neighbours.oversample(
            data,
            "kmeans-smote",
            &self.target,
            rng,
            |space, c, _pool, _new, rng, gen| {
                let Some((_, kept, shares)) = plans.iter().find(|p| p.0 == c) else {
                    return;
                };
                for (members, &share) in kept.iter().zip(shares) {
                    let per_row = spread(share, members.len(), rng);
                    smote_class(space, c, members, members, &per_row, (k, 1.0), rng, gen);
                }
            },
        )
    }

    fn name(&self) -> String {
        let c = &self.clustering;
        let mut middle = vec![format!("clusters={}", c.clusters)];
        if let Some(b) = c.balance {
            middle.push(format!("balance={b}"));
        }
        if let Some(e) = c.density_exponent {
            middle.push(format!("density_exponent={e}"));
        }
        if c.round_up {
            middle.push("round_up=true".to_string());
        }
        middle.push(self.target.spec());
        spec("kmeans-smote", &self.neighbours.parts(&middle))
    }
}
