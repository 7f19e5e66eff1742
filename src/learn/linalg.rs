//! The few dense linear-algebra routines the learners need, on row-major
//! square matrices of `f64`:
//!
//! - [`cholesky_solve`]: `A x = b` for symmetric positive (semi-)definite `A`
//!   by the Cholesky factorisation `A = L L^T` (Golub & Van Loan, *Matrix
//!   Computations*, 4th ed., Algorithm 4.2.1), with a growing diagonal shift
//!   when `A` is singular to working precision;
//! - [`sym_eigen`]: all eigenvalues and eigenvectors of a symmetric matrix
//!   (Householder tridiagonalisation and implicit QL);
//! - [`dot`]: inner products with several accumulators, the inner loop of
//!   most learners;
//! - [`add_scatter`]: weighted sums of outer products `sum_i w_i z_i z_i^T`
//!   (covariances, Hessians);
//! - [`transpose_block`] and [`dots_block`]: inner products of one vector
//!   with [`BLOCK`] rows at once, so that a long vector (an eigenvector, a
//!   support vector) is read once per block of rows instead of once per row
//!   (prediction and kernel columns are bound by that reading otherwise).

/// Solves `a x = b` (`a` is `n x n`, symmetric, positive semi-definite).
/// When the factorisation meets a non-positive pivot, retries with
/// `a + mu I`, `mu` growing from `1e-12` times the largest diagonal entry.
pub(crate) fn cholesky_solve(a: &[f64], b: &[f64]) -> Vec<f64> {
    let l = cholesky_factor(a, b.len());
    let mut x = b.to_vec();
    cholesky_apply(&l, &mut x);
    x
}

/// The Cholesky factor `L` (row-major, lower triangle) of the symmetric
/// positive semi-definite `n x n` matrix `a`, shifted by `mu I` as
/// [`cholesky_solve`] describes when `a` is singular to working precision.
pub(crate) fn cholesky_factor(a: &[f64], n: usize) -> Vec<f64> {
    let scale = (0..n)
        .map(|i| a[i * n + i].abs())
        .fold(0.0, f64::max)
        .max(1e-300);
    let mut shift = 0.0;
    loop {
        if let Some(l) = cholesky(a, n, shift) {
            return l;
        }
        shift = if shift == 0.0 {
            1e-12 * scale
        } else {
            shift * 10.0
        };
    }
}

/// Overwrites `b` with `(L L^T)^{-1} b` for a factor from [`cholesky_factor`]
/// (forward, then backward substitution).
pub(crate) fn cholesky_apply(l: &[f64], b: &mut [f64]) {
    let n = b.len();
    for i in 0..n {
        let s: f64 = (0..i).map(|k| l[i * n + k] * b[k]).sum();
        b[i] = (b[i] - s) / l[i * n + i];
    }
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|k| l[k * n + i] * b[k]).sum();
        b[i] = (b[i] - s) / l[i * n + i];
    }
}

fn cholesky(a: &[f64], n: usize, shift: f64) -> Option<Vec<f64>> {
    let mut l = vec![0.0; n * n];
    for j in 0..n {
        let s: f64 = (0..j).map(|k| l[j * n + k] * l[j * n + k]).sum();
        let d = a[j * n + j] + shift - s;
        if d.is_nan() || d <= 0.0 || !d.is_finite() {
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

/// `a . b` with four independent partial sums (lets the compiler use SIMD
/// lanes; the rounding differs from a left-to-right sum only in the last
/// bits).
#[inline]
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f64; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..4 {
            acc[l] += x[l] * y[l];
        }
    }
    let mut s = (acc[0] + acc[2]) + (acc[1] + acc[3]);
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
    }
    s
}

/// Rows handled together by [`dots_block`].
pub(crate) const BLOCK: usize = 8;

/// Copies up to [`BLOCK`] rows (row-major, `d` columns) into `t`
/// feature-major, `t[j * BLOCK + b]` (`t.len() == d * BLOCK`); the slots of
/// missing rows keep their old values.
pub(crate) fn transpose_block(rows: &[f64], d: usize, t: &mut [f64]) {
    for (b, row) in rows.chunks_exact(d).enumerate() {
        for (j, v) in row.iter().enumerate() {
            t[j * BLOCK + b] = *v;
        }
    }
}

/// `v . row_b` for every row `b` of a block transposed by
/// [`transpose_block`]. Each row's products are summed in feature order, so
/// a row's value does not depend on the other rows of its block.
#[inline]
pub(crate) fn dots_block(v: &[f64], t: &[f64]) -> [f64; BLOCK] {
    let mut acc = [0.0; BLOCK];
    for (vj, tj) in v.iter().zip(t.chunks_exact(BLOCK)) {
        for b in 0..BLOCK {
            acc[b] += vj * tj[b];
        }
    }
    acc
}

/// Adds `sum_i w_i z_i z_i^T` to the upper triangle of the row-major
/// `d x d` matrix `cov`, for the rows `z` (row-major, `d` columns) and
/// weights `w`. Four rows go into each pass over the triangle, which is what
/// costs (`d^2 / 2` entries read and written per pass); the order of the
/// additions is fixed by the row order alone.
pub(crate) fn add_scatter(cov: &mut [f64], z: &[f64], w: &[f64], d: usize) {
    let (quads, rest) = (z.chunks_exact(4 * d), z.chunks_exact(4 * d).remainder());
    for (q, wq) in quads.zip(w.chunks_exact(4)) {
        let (z0, z1, z2, z3) = (&q[..d], &q[d..2 * d], &q[2 * d..3 * d], &q[3 * d..]);
        for a in 0..d {
            let (a0, a1, a2, a3) = (wq[0] * z0[a], wq[1] * z1[a], wq[2] * z2[a], wq[3] * z3[a]);
            let row = &mut cov[a * d + a..(a + 1) * d];
            for (k, cv) in row.iter_mut().enumerate() {
                let b = a + k;
                *cv += (a0 * z0[b] + a1 * z1[b]) + (a2 * z2[b] + a3 * z3[b]);
            }
        }
    }
    let done = w.len() - rest.len() / d;
    for (zi, &wi) in rest.chunks_exact(d).zip(&w[done..]) {
        for a in 0..d {
            let za = wi * zi[a];
            let row = &mut cov[a * d + a..(a + 1) * d];
            for (cv, zb) in row.iter_mut().zip(&zi[a..]) {
                *cv += za * zb;
            }
        }
    }
}

/// Eigen-decomposition of the symmetric `n x n` matrix `a`: returns the
/// eigenvalues and the eigenvectors as the *rows* of a row-major matrix
/// `v` (`a = v^T diag(values) v`; eigenvector `r` is `v[r * n..(r + 1) * n]`).
///
/// Householder reduction to tridiagonal form with the transformations
/// accumulated, then the implicit QL iteration with Wilkinson-style shifts
/// (the EISPACK procedures `tred2` and `tql2` of Bowdler, Martin, Reinsch &
/// Wilkinson 1968; Golub & Van Loan, sections 8.3.1 and 8.3.5). The
/// procedures' inner loops run down columns of the transformation, so it is
/// stored column-major (which for the symmetric input changes nothing):
/// every inner loop then walks contiguous memory.
pub(crate) fn sym_eigen(a: &[f64], n: usize) -> (Vec<f64>, Vec<f64>) {
    if n == 0 {
        return (Vec::new(), Vec::new());
    }
    let mut v = a.to_vec();
    let mut d = vec![0.0; n];
    let mut e = vec![0.0; n];
    tridiagonalise(&mut v, &mut d, &mut e, n);
    ql_implicit(&mut v, &mut d, &mut e, n);
    (d, v)
}

/// Householder tridiagonalisation; `v` (column-major) becomes the
/// accumulated orthogonal transformation, `d` the diagonal and `e[1..]` the
/// subdiagonal.
fn tridiagonalise(v: &mut [f64], d: &mut [f64], e: &mut [f64], n: usize) {
    let at = |i: usize, j: usize| j * n + i;
    for j in 0..n {
        d[j] = v[at(n - 1, j)];
    }
    for i in (1..n).rev() {
        let scale: f64 = d[..i].iter().map(|x| x.abs()).sum();
        let mut h = 0.0;
        if scale == 0.0 {
            e[i] = d[i - 1];
            for j in 0..i {
                d[j] = v[at(i - 1, j)];
                v[at(i, j)] = 0.0;
                v[at(j, i)] = 0.0;
            }
        } else {
            for x in d[..i].iter_mut() {
                *x /= scale;
                h += *x * *x;
            }
            let f = d[i - 1];
            let g = if f > 0.0 { -h.sqrt() } else { h.sqrt() };
            e[i] = scale * g;
            h -= f * g;
            d[i - 1] = f - g;
            e[..i].iter_mut().for_each(|x| *x = 0.0);
            for j in 0..i {
                let f = d[j];
                v[at(j, i)] = f;
                let mut g = e[j] + v[at(j, j)] * f;
                for k in j + 1..i {
                    g += v[at(k, j)] * d[k];
                    e[k] += v[at(k, j)] * f;
                }
                e[j] = g;
            }
            let mut f = 0.0;
            for j in 0..i {
                e[j] /= h;
                f += e[j] * d[j];
            }
            let hh = f / (h + h);
            for j in 0..i {
                e[j] -= hh * d[j];
            }
            for j in 0..i {
                let (f, g) = (d[j], e[j]);
                for k in j..i {
                    v[at(k, j)] -= f * e[k] + g * d[k];
                }
                d[j] = v[at(i - 1, j)];
                v[at(i, j)] = 0.0;
            }
        }
        d[i] = h;
    }
    // Accumulate the transformations.
    for i in 0..n - 1 {
        v[at(n - 1, i)] = v[at(i, i)];
        v[at(i, i)] = 1.0;
        let h = d[i + 1];
        if h != 0.0 {
            for k in 0..=i {
                d[k] = v[at(k, i + 1)] / h;
            }
            for j in 0..=i {
                let g: f64 = (0..=i).map(|k| v[at(k, i + 1)] * v[at(k, j)]).sum();
                for k in 0..=i {
                    v[at(k, j)] -= g * d[k];
                }
            }
        }
        for k in 0..=i {
            v[at(k, i + 1)] = 0.0;
        }
    }
    for j in 0..n {
        d[j] = v[at(n - 1, j)];
        v[at(n - 1, j)] = 0.0;
    }
    v[at(n - 1, n - 1)] = 1.0;
    e[0] = 0.0;
}

/// Implicit QL iteration on the tridiagonal `(d, e)`, rotating the columns
/// of `v` (column-major).
fn ql_implicit(v: &mut [f64], d: &mut [f64], e: &mut [f64], n: usize) {
    let at = |i: usize, j: usize| j * n + i;
    for i in 1..n {
        e[i - 1] = e[i];
    }
    e[n - 1] = 0.0;
    let mut f = 0.0;
    let mut tst1 = 0.0f64;
    let eps = f64::EPSILON;
    for l in 0..n {
        tst1 = tst1.max(d[l].abs() + e[l].abs());
        let mut m = l;
        while m < n - 1 && e[m].abs() > eps * tst1 {
            m += 1;
        }
        if m > l {
            for _ in 0..60 {
                let g = d[l];
                let mut p = (d[l + 1] - g) / (2.0 * e[l]);
                let mut r = p.hypot(1.0);
                if p < 0.0 {
                    r = -r;
                }
                d[l] = e[l] / (p + r);
                d[l + 1] = e[l] * (p + r);
                let dl1 = d[l + 1];
                let mut h = g - d[l];
                for x in d[l + 2..].iter_mut() {
                    *x -= h;
                }
                f += h;
                p = d[m];
                let (mut c, mut c2, mut c3) = (1.0, 1.0, 1.0);
                let el1 = e[l + 1];
                let (mut s, mut s2) = (0.0, 0.0);
                for i in (l..m).rev() {
                    c3 = c2;
                    c2 = c;
                    s2 = s;
                    let g = c * e[i];
                    h = c * p;
                    r = p.hypot(e[i]);
                    e[i + 1] = s * r;
                    s = e[i] / r;
                    c = p / r;
                    p = c * d[i] - s * g;
                    d[i + 1] = h + s * (c * g + s * d[i]);
                    for k in 0..n {
                        let h = v[at(k, i + 1)];
                        v[at(k, i + 1)] = s * v[at(k, i)] + c * h;
                        v[at(k, i)] = c * v[at(k, i)] - s * h;
                    }
                }
                p = -s * s2 * c3 * el1 * e[l] / dl1;
                e[l] = s * p;
                d[l] = c * p;
                if e[l].abs() <= eps * tst1 {
                    break;
                }
            }
        }
        d[l] += f;
        e[l] = 0.0;
    }
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
                let av: f64 = (0..3).map(|j| a[i * 3 + j] * v[k * 3 + j]).sum();
                assert!((av - l * v[k * 3 + i]).abs() < 1e-12);
            }
        }
        // A larger random symmetric matrix with repeated eigenvalues.
        let n = 9;
        let mut m = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..=i {
                let v = ((i * 7 + j * 3) % 5) as f64 - 2.0 + if i == j { 4.0 } else { 0.0 };
                m[i * n + j] = v;
                m[j * n + i] = v;
            }
        }
        m[0] = 0.0;
        let (vals, v) = sym_eigen(&m, n);
        for k in 0..n {
            for i in 0..n {
                let av: f64 = (0..n).map(|j| m[i * n + j] * v[k * n + j]).sum();
                assert!((av - vals[k] * v[k * n + i]).abs() < 1e-10, "{k} {i}");
            }
            for l in 0..n {
                let vv: f64 = (0..n).map(|i| v[k * n + i] * v[l * n + i]).sum();
                assert!((vv - (k == l) as u8 as f64).abs() < 1e-12);
            }
        }
        let eye = [1.0, 0.0, 0.0, 1.0];
        assert_eq!(sym_eigen(&eye, 2).0, vec![1.0, 1.0]);
        assert!((dot(&[1.0, 2.0, 3.0, 4.0, 5.0], &[1.0; 5]) - 15.0).abs() < 1e-15);
        let rows: Vec<f64> = (0..15).map(|v| v as f64).collect();
        let mut tb = vec![0.0; 5 * BLOCK];
        transpose_block(&rows, 5, &mut tb);
        let dots = dots_block(&[1.0, 0.0, 0.0, 0.0, 2.0], &tb);
        assert_eq!(&dots[..3], &[8.0, 23.0, 38.0]);
        // Singular: the shifted solve still returns finite numbers.
        let s = cholesky_solve(&[1.0, 1.0, 1.0, 1.0], &[1.0, 1.0]);
        assert!(s.iter().all(|v| v.is_finite()));
    }
}

#[cfg(test)]
mod zero_row {
    use super::*;

    #[test]
    fn zero_rows_and_columns() {
        let n = 4;
        let m = [
            2.0, 0.0, 0.5, 0.1, //
            0.0, 0.0, 0.0, 0.0, //
            0.5, 0.0, 1.0, 0.2, //
            0.1, 0.0, 0.2, 3.0,
        ];
        let (vals, v) = sym_eigen(&m, n);
        eprintln!("{vals:?}");
        for k in 0..n {
            for i in 0..n {
                let av: f64 = (0..n).map(|j| m[i * n + j] * v[k * n + j]).sum();
                assert!(
                    (av - vals[k] * v[k * n + i]).abs() < 1e-10,
                    "{k} {i} {vals:?}"
                );
            }
        }
    }
}
