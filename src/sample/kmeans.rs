//! k-means (Lloyd 1982, "Least squares quantization in PCM") with k-means++
//! seeding (Arthur & Vassilvitskii 2007, "k-means++: the advantages of
//! careful seeding"), for the samplers that cluster: cluster centroids and
//! k-means SMOTE.
//!
//! The first centre is a uniform row, each next one a row drawn with
//! probability proportional to its squared distance to the nearest centre
//! chosen. Lloyd's iterations then assign every row to its nearest centre
//! (the exact search of [`crate::neighbors`], in parallel) and move each
//! centre to the mean of its rows (summed in row order, so the result does
//! not depend on the thread count), until no assignment changes, the
//! centres move by less than scikit-learn's tolerance (the squared shifts
//! summed over the centres at most `1e-4` times the features' mean
//! variance; the rows are then assigned to the centres they ended at), or
//! `max_iter` iterations ran. Without the tolerance a k-means of a few
//! thousand clusters (cluster centroids of a large class) ran to its last
//! iteration moving a handful of rows between clusters each time. A centre
//! left without rows is moved to the row farthest from its centre. With one
//! cluster nothing is drawn: the centre is the mean.

use rand::RngExt;

use crate::neighbors::{knn, Exclude, Points};
use crate::rng::Rng;

/// Lloyd's iterations at most (scikit-learn's `KMeans` default).
pub(crate) const MAX_ITER: usize = 300;

/// The centres' summed squared shift, relative to the features' mean
/// variance, below which the iterations stop (scikit-learn's `tol`).
const TOL: f64 = 1e-4;

/// A clustering of `n` rows of `d` features into `k` clusters.
pub(crate) struct Clusters {
    /// The centres, row-major (`k x d`).
    pub(crate) centers: Vec<f64>,
    /// Each row's cluster.
    pub(crate) of: Vec<usize>,
    /// The number of clusters.
    pub(crate) k: usize,
}

impl Clusters {
    /// The rows of each cluster, in row order.
    pub(crate) fn members(&self) -> Vec<Vec<usize>> {
        let mut m = vec![Vec::new(); self.k];
        for (i, &c) in self.of.iter().enumerate() {
            m[c].push(i);
        }
        m
    }
}

/// k-means of the rows `x` (row-major, `d` features each) into
/// `min(k, rows)` clusters.
pub(crate) fn kmeans(x: &[f64], d: usize, k: usize, max_iter: usize, rng: &mut Rng) -> Clusters {
    let n = x.len().checked_div(d).unwrap_or(0);
    let k = k.min(n).max(1);
    let pts = Points::new(x, n, d).expect("shape");
    let mut centers = if k == 1 {
        Vec::new()
    } else {
        seed(pts, k, rng)
    };
    let mut of = vec![usize::MAX; n];
    if k == 1 {
        of.iter_mut().for_each(|c| *c = 0);
        centers = means(x, d, &of, 1).0;
        return Clusters { centers, of, k };
    }
    let tol = TOL * mean_variance(x, d);
    let mut assigned = false;
    for _ in 0..max_iter {
        let changed = assign(pts, &centers, k, &mut of);
        assigned = true;
        if !changed {
            break;
        }
        let (mut next, sizes) = means(x, d, &of, k);
        refill_empty(x, d, &of, &mut next, &sizes);
        let shift: f64 = next
            .chunks_exact(d.max(1))
            .zip(centers.chunks_exact(d.max(1)))
            .map(|(a, b)| crate::neighbors::dist2(a, b))
            .sum();
        centers = next;
        assigned = false;
        if shift <= tol {
            break;
        }
    }
    if !assigned {
        assign(pts, &centers, k, &mut of);
    }
    Clusters { centers, of, k }
}

/// Assigns every row to its nearest centre; whether any assignment changed.
fn assign(pts: Points<'_>, centers: &[f64], k: usize, of: &mut [usize]) -> bool {
    let d = pts.dim();
    let nn = knn(
        pts,
        Points::new(centers, k, d).expect("shape"),
        1,
        Exclude::Nothing,
    );
    let mut changed = false;
    for (i, c) in of.iter_mut().enumerate() {
        let near = nn.of(i)[0];
        changed |= *c != near;
        *c = near;
    }
    changed
}

/// The mean over the features of their variances (scikit-learn scales its
/// tolerance by it).
fn mean_variance(x: &[f64], d: usize) -> f64 {
    let n = x.len().checked_div(d).unwrap_or(0);
    if n == 0 || d == 0 {
        return 0.0;
    }
    let (mean, _) = means(x, d, &vec![0; n], 1);
    let mut var = vec![0.0; d];
    for row in x.chunks_exact(d) {
        for ((v, &a), &m) in var.iter_mut().zip(row).zip(&mean) {
            *v += (a - m) * (a - m);
        }
    }
    var.iter().sum::<f64>() / (n as f64 * d as f64)
}

/// k-means++ seeding: `k` distinct rows as centres (row-major).
fn seed(pts: Points<'_>, k: usize, rng: &mut Rng) -> Vec<f64> {
    let n = pts.len();
    let first = rng.random_range(0..n);
    let mut centers = pts.row(first).to_vec();
    let mut near: Vec<f64> = (0..n)
        .map(|i| crate::neighbors::dist2(pts.row(i), pts.row(first)))
        .collect();
    for _ in 1..k {
        let total: f64 = near.iter().sum();
        let pick = if total > 0.0 && total.is_finite() {
            let mut u = rng.random::<f64>() * total;
            let mut pick = n - 1;
            for (i, &w) in near.iter().enumerate() {
                if u < w {
                    pick = i;
                    break;
                }
                u -= w;
            }
            pick
        } else {
            rng.random_range(0..n)
        };
        let c = pts.row(pick);
        centers.extend_from_slice(c);
        for (i, v) in near.iter_mut().enumerate() {
            *v = v.min(crate::neighbors::dist2(pts.row(i), c));
        }
    }
    centers
}

/// The mean of each cluster's rows (row-major) and the clusters' sizes.
fn means(x: &[f64], d: usize, of: &[usize], k: usize) -> (Vec<f64>, Vec<usize>) {
    let mut sums = vec![0.0; k * d];
    let mut sizes = vec![0usize; k];
    for (row, &c) in x.chunks_exact(d.max(1)).zip(of) {
        sizes[c] += 1;
        for (s, v) in sums[c * d..(c + 1) * d].iter_mut().zip(row) {
            *s += v;
        }
    }
    for (c, &m) in sizes.iter().enumerate() {
        if m > 0 {
            sums[c * d..(c + 1) * d]
                .iter_mut()
                .for_each(|s| *s /= m as f64);
        }
    }
    (sums, sizes)
}

/// Moves every centre without rows to the row farthest from its own
/// centre (each such row used once).
fn refill_empty(x: &[f64], d: usize, of: &[usize], centers: &mut [f64], sizes: &[usize]) {
    let empty: Vec<usize> = (0..sizes.len()).filter(|&c| sizes[c] == 0).collect();
    if empty.is_empty() {
        return;
    }
    let mut far: Vec<(f64, usize)> = x
        .chunks_exact(d.max(1))
        .zip(of)
        .enumerate()
        .map(|(i, (row, &c))| {
            (
                crate::neighbors::dist2(row, &centers[c * d..(c + 1) * d]),
                i,
            )
        })
        .collect();
    far.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    for (c, (_, i)) in empty.into_iter().zip(far) {
        let row = x[i * d..(i + 1) * d].to_vec();
        centers[c * d..(c + 1) * d].copy_from_slice(&row);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    #[test]
    fn two_blobs_are_two_clusters() {
        let mut x = Vec::new();
        for i in 0..20 {
            let off = if i < 10 { 0.0 } else { 100.0 };
            x.extend_from_slice(&[off + (i % 3) as f64, off - (i % 4) as f64]);
        }
        let c = kmeans(&x, 2, 2, MAX_ITER, &mut stream(3, 0));
        let m = c.members();
        assert_eq!(m.len(), 2);
        let mut sizes: Vec<usize> = m.iter().map(Vec::len).collect();
        sizes.sort_unstable();
        assert_eq!(sizes, vec![10, 10]);
        assert!(m.iter().all(|r| r.iter().all(|&i| (i < 10) == (r[0] < 10))));
        let again = kmeans(&x, 2, 2, MAX_ITER, &mut stream(3, 0));
        assert_eq!(again.centers, c.centers);
    }

    #[test]
    fn one_cluster_is_the_mean_and_draws_nothing() {
        let x = [0.0, 2.0, 4.0, 6.0];
        let mut r = stream(1, 0);
        let before = r.clone();
        let c = kmeans(&x, 1, 1, MAX_ITER, &mut r);
        assert_eq!(c.centers, vec![3.0]);
        assert_eq!(r, before);
    }
}
