//! The few dense linear-algebra routines the learners need, on row-major
//! square matrices of `f64`:
//!
//! - [`cholesky_solve`]: `A x = b` for symmetric positive (semi-)definite `A`
//!   by the Cholesky factorisation `A = L L^T` (Golub & Van Loan, *Matrix
//!   Computations*, 4th ed., Algorithm 4.2.1), with a growing diagonal shift
//!   when `A` is singular to working precision;
//! - [`sym_eigen`]: all eigenvalues and eigenvectors of a symmetric matrix by
//!   the cyclic Jacobi method (Golub & Van Loan, section 8.5), accurate to
//!   rounding in every eigenvalue, which is what the discriminant analyses'
//!   likelihoods need.

/// Solves `a x = b` (`a` is `n x n`, symmetric, positive semi-definite).
/// When the factorisation meets a non-positive pivot, retries with
/// `a + mu I`, `mu` growing from `1e-12` times the largest diagonal entry.
pub(crate) fn cholesky_solve(a: &[f64], b: &[f64]) -> Vec<f64> {
    let n = b.len();
    let scale = (0..n).map(|i| a[i * n + i].abs()).fold(0.0, f64::max).max(1e-300);
    let mut shift = 0.0;
    loop {
        if let Some(l) = cholesky(a, n, shift) {
            // Forward then backward substitution.
            let mut y = b.to_vec();
            for i in 0..n {
                let s: f64 = (0..i).map(|k| l[i * n + k] * y[k]).sum();
                y[i] = (y[i] - s) / l[i * n + i];
            }
            for i in (0..n).rev() {
                let s: f64 = (i + 1..n).map(|k| l[k * n + i] * y[k]).sum();
                y[i] = (y[i] - s) / l[i * n + i];
            }
            return y;
        }
        shift = if shift == 0.0 { 1e-12 * scale } else { shift * 10.0 };
    }
}

fn cholesky(a: &[f64], n: usize, shift: f64) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    for j in 0..n {
        let s: f64 = (0..j).map(|k| l[j * n + k] * l[j * n + k]).sum();
        let d = a[j * n + j] + shift - s;
        if !(d > 0.0) || !d.is_finite() {
            return None;
        }
        let dj = d.sqrt();
        l[j * n + j] = dj;
        for i in j + 1..n {
            let s: f64 = (0..j).map(|k| l[i * n + k] * l[j * n + k]).sum();
            l[i * n + j] = (a[i * n + j] - s) / dj;
        }
    }
    Some(l)
}

/// Eigen-decomposition of the symmetric `n x n` matrix `a`: returns the
/// eigenvalues and the eigenvectors as the columns of a row-major matrix
/// `v` (`a = v diag(values) v^T`).
pub(crate) fn sym_eigen(a: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut m = a.to_vec();
    let mut v = vec![0.0; n * n];
    for i in 0..n {
        v[i * n + i] = 1.0;
    }
    for _sweep in 0..100 {
        let off: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| m[i * n + j] * m[i * n + j])
            .sum();
        let diag: f64 = (0..n).map(|i| m[i * n + i] * m[i * n + i]).sum();
        if off <= 1e-30 * diag || off == 0.0 {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = m[p * n + q];
                if apq == 0.0 {
                    continue;
                }
                // Rotation zeroing m[p][q] (Golub & Van Loan, Alg. 8.5.1).
                let theta = (m[q * n + q] - m[p * n + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..n {
                    let (mkp, mkq) = (m[k * n + p], m[k * n + q]);
                    m[k * n + p] = c * mkp - s * mkq;
                    m[k * n + q] = s * mkp + c * mkq;
                }
                for k in 0..n {
                    let (mpk, mqk) = (m[p * n + k], m[q * n + k]);
                    m[p * n + k] = c * mpk - s * mqk;
                    m[q * n + k] = s * mpk + c * mqk;
                }
                for k in 0..n {
                    let (vkp, vkq) = (v[k * n + p], v[k * n + q]);
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    ((0..n).map(|i| m[i * n + i]).collect(), v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_and_decomposes() {
        let a = [4.0, 2.0, 0.6, 2.0, 5.0, 1.0, 0.6, 1.0, 3.0];
        let x = cholesky_solve(&a, &[1.0, 2.0, 3.0]);
        for i in 0..3 {
            let r: f64 = (0..3).map(|j| a[i * 3 + j] * x[j]).sum();
            assert!((r - [1.0, 2.0, 3.0][i]).abs() < 1e-12);
        }
        let (vals, v) = sym_eigen(&a, 3);
        for (k, &l) in vals.iter().enumerate() {
            for i in 0..3 {
                let av: f64 = (0..3).map(|j| a[i * 3 + j] * v[j * 3 + k]).sum();
                assert!((av - l * v[i * 3 + k]).abs() < 1e-12);
            }
        }
        // Singular: the shifted solve still returns finite numbers.
        let s = cholesky_solve(&[1.0, 1.0, 1.0, 1.0], &[1.0, 1.0]);
        assert!(s.iter().all(|v| v.is_finite()));
    }
}
