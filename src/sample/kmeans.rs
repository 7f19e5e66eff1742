//! k-means (Lloyd 1982, "Least squares quantization in PCM") with k-means++
//! seeding (Arthur & Vassilvitskii 2007, "k-means++: the advantages of
//! careful seeding"), for the samplers that cluster: cluster centroids and
//! k-means SMOTE.
//!
//! The first centre is a uniform row, each next one a row drawn with
//! probability proportional to its squared distance to the nearest centre
//! chosen. Lloyd's iterations then assign every row to its nearest centre
//! (exact squared Euclidean distances, ties to the lower centre, in
//! parallel over rows) and move each centre to the mean of its rows
//! (summed in row order, so the result does not depend on the thread
//! count), until no assignment changes, the
//! centres move by less than scikit-learn's tolerance (the squared shifts
//! summed over the centres at most `1e-4` times the features' mean
//! variance; the rows are then assigned to the centres they ended at), or
//! `max_iter` iterations ran. Without the tolerance a k-means of a few
//! thousand clusters (cluster centroids of a large class) ran to its last
//! iteration moving a handful of rows between clusters each time.
//!
//! **Speed.** The distances are k-means' own, not the neighbour search's:
//! a row is compared with 32 centres at once, held feature-major so that
//! one feature's differences to all of them are one vectorised loop whose
//! sums stay in registers (compiled for AVX2 or AVX-512 when the CPU has
//! them; each centre's sum still runs over the features in order, so the
//! result is the same at any width), and there is no fused
//! multiply-add, which the default x86-64 target turns into a library call
//! per feature. With the general neighbour search, which converts every
//! row again at each iteration and tiles for many references, k-means
//! SMOTE's 8 centres and cluster centroids' k-means++ seeding took most of
//! the samplers' time (perf: 48% of k-means SMOTE's in the search's tile; a
//! quarter of cluster centroids' in the seeding and its multiply-add
//! calls); with the kernel of this file the two are 2.0x and 1.3x
//! imbalanced-learn's speed (`benches/python_samplers_vs_imblearn.py`).
//!
//! A centre left without rows is moved to the row farthest from its
//! centre. With one cluster nothing is drawn: the centre is the mean.

use rand::RngExt;
use rayon::prelude::*;

use crate::neighbors::Points;
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
            .map(|(a, b)| sq_dist(a, b))
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

/// Rows per parallel task of the assignment and the seeding.
const ROWS_PER_TASK: usize = 512;

/// The squared Euclidean distance of `a` and `b`, summed over the features
/// in order, without fused multiply-adds.
#[inline(always)]
fn sq_dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).fold(0.0, |acc, (&x, &y)| {
        let t = x - y;
        acc + t * t
    })
}

/// Centres compared with a row at once: their sums stay in registers
/// (four AVX-512 or eight AVX2 registers).
const LANES: usize = 32;

/// Assigns every row to its nearest centre (ties to the lower centre);
/// whether any assignment changed.
fn assign(pts: Points<'_>, centers: &[f64], k: usize, of: &mut [usize]) -> bool {
    let blocks = blocks_of(centers, k, pts.dim().max(1));
    let wide = Wide::detect();
    of.par_chunks_mut(ROWS_PER_TASK)
        .enumerate()
        .map(|(t, part)| wide.nearest(pts, t * ROWS_PER_TASK, &blocks, part))
        .reduce(|| false, |a, b| a | b)
}

/// The `k` centres (`d` features each) in blocks of [`LANES`],
/// feature-major within a block: `(b * d + j) * LANES + l` holds centre
/// `b * LANES + l`'s feature j; the padding centres are infinitely far.
fn blocks_of(centers: &[f64], k: usize, d: usize) -> Vec<f64> {
    let mut blocks = vec![f64::INFINITY; k.div_ceil(LANES) * d * LANES];
    for (c, centre) in centers.chunks_exact(d).enumerate() {
        for (j, &v) in centre.iter().enumerate() {
            blocks[((c / LANES) * d + j) * LANES + c % LANES] = v;
        }
    }
    blocks
}

/// The vector width the assignment is compiled for, found at run time.
/// Without fused multiply-adds every width adds the same numbers in the
/// same order, so the assignment does not depend on the CPU.
#[derive(Clone, Copy)]
enum Wide {
    #[cfg(target_arch = "x86_64")]
    Avx512,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    Portable,
}

impl Wide {
    fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx512f") {
                return Wide::Avx512;
            }
            if has!("avx2") {
                return Wide::Avx2;
            }
        }
        Wide::Portable
    }

    /// [`nearest`], compiled for this width.
    fn nearest(self, pts: Points<'_>, start: usize, blocks: &[f64], of: &mut [usize]) -> bool {
        match self {
            // SAFETY: detect() found AVX-512F on this CPU.
            #[cfg(target_arch = "x86_64")]
            Wide::Avx512 => unsafe { nearest_avx512(pts, start, blocks, of) },
            // SAFETY: detect() found AVX2 on this CPU.
            #[cfg(target_arch = "x86_64")]
            Wide::Avx2 => unsafe { nearest_avx2(pts, start, blocks, of) },
            Wide::Portable => nearest(pts, start, blocks, of),
        }
    }
}

/// # Safety
/// The CPU must support AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2")]
unsafe fn nearest_avx512(pts: Points<'_>, start: usize, blocks: &[f64], of: &mut [usize]) -> bool {
    nearest(pts, start, blocks, of)
}

/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn nearest_avx2(pts: Points<'_>, start: usize, blocks: &[f64], of: &mut [usize]) -> bool {
    nearest(pts, start, blocks, of)
}

/// Sets `of[i]` to the nearest centre of row `start + i` of `pts` (the
/// centres in [`assign`]'s blocks; ties to the lower centre); whether any
/// changed.
#[inline(always)]
fn nearest(pts: Points<'_>, start: usize, blocks: &[f64], of: &mut [usize]) -> bool {
    let d = pts.dim().max(1);
    let mut changed = false;
    for (i, slot) in of.iter_mut().enumerate() {
        let row = pts.row(start + i);
        let (mut best, mut near) = (f64::INFINITY, 0);
        for (b, block) in blocks.chunks_exact(d * LANES).enumerate() {
            let mut acc = [0.0f64; LANES];
            for (&x, cs) in row.iter().zip(block.chunks_exact(LANES)) {
                for (a, &cv) in acc.iter_mut().zip(cs) {
                    let diff = x - cv;
                    *a += diff * diff;
                }
            }
            for (l, &v) in acc.iter().enumerate() {
                if v < best {
                    (best, near) = (v, b * LANES + l);
                }
            }
        }
        changed |= *slot != near;
        *slot = near;
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
        .into_par_iter()
        .with_min_len(ROWS_PER_TASK)
        .map(|i| sq_dist(pts.row(i), pts.row(first)))
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
        near.par_iter_mut()
            .with_min_len(ROWS_PER_TASK)
            .enumerate()
            .for_each(|(i, v)| *v = v.min(sq_dist(pts.row(i), c)));
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
        .map(|(i, (row, &c))| (sq_dist(row, &centers[c * d..(c + 1) * d]), i))
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
    fn every_width_assigns_the_nearest_centre_as_plain_arithmetic_does() {
        // 37 centres: a full block of 32 and a padded one; duplicated
        // centres tie, and the lower one wins.
        let (n, d, k) = (700, 5, 37);
        let mut r = stream(9, 0);
        let x: Vec<f64> = (0..n * d).map(|_| r.random::<f64>() * 4.0 - 2.0).collect();
        let mut centers: Vec<f64> = (0..k * d).map(|_| r.random::<f64>() * 4.0 - 2.0).collect();
        centers.copy_within(3 * d..4 * d, 30 * d);
        let pts = Points::new(&x, n, d).unwrap();
        let want: Vec<usize> = (0..n)
            .map(|i| {
                let dist = |c: usize| sq_dist(pts.row(i), &centers[c * d..(c + 1) * d]);
                (0..k).fold(0, |b, c| if dist(c) < dist(b) { c } else { b })
            })
            .collect();
        assert!(!want.contains(&30), "the duplicate loses its ties");
        let mut widths = vec![Wide::Portable, Wide::detect()];
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            widths.push(Wide::Avx2);
        }
        for wide in widths {
            let mut of = vec![usize::MAX; n];
            assert!(wide.nearest(pts, 0, &blocks_of(&centers, k, d), &mut of));
            assert_eq!(of, want);
        }
        let mut of = vec![usize::MAX; n];
        assert!(assign(pts, &centers, k, &mut of));
        assert_eq!(of, want);
        assert!(!assign(pts, &centers, k, &mut of), "nothing changes twice");
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
