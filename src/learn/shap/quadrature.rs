//! Gauss-Legendre quadrature on `[0, 1]`: `m` nodes and weights with
//! `sum_k w_k p(t_k) = int_0^1 p(t) dt` for every polynomial `p` of degree
//! at most `2m - 1` (Golub & Welsch 1969 for the rule; the nodes here are
//! the roots of the Legendre polynomial `P_m`, found by Newton's method
//! from Tricomi's estimate, the weights `2 / ((1 - x^2) P_m'(x)^2)`).

/// `P_m(x)` and `P_m'(x)` by the three-term recurrence.
fn legendre(m: usize, x: f64) -> (f64, f64) {
    let (mut p0, mut p1) = (1.0, x);
    for k in 2..=m {
        let k = k as f64;
        let p2 = ((2.0 * k - 1.0) * x * p1 - (k - 1.0) * p0) / k;
        p0 = p1;
        p1 = p2;
    }
    let dp = m as f64 * (x * p1 - p0) / (x * x - 1.0);
    (p1, dp)
}

/// The `m` nodes (ascending) and weights of the rule on `[0, 1]`.
pub(super) fn gauss_legendre(m: usize) -> (Vec<f64>, Vec<f64>) {
    let mut nodes = Vec::with_capacity(m);
    let mut weights = Vec::with_capacity(m);
    for i in 0..m {
        let mut x = (std::f64::consts::PI * (i as f64 + 0.75) / (m as f64 + 0.5)).cos();
        for _ in 0..100 {
            let (p, dp) = legendre(m, x);
            let dx = p / dp;
            x -= dx;
            if dx.abs() <= 1e-16 {
                break;
            }
        }
        let (_, dp) = legendre(m, x);
        nodes.push((1.0 - x) / 2.0);
        weights.push(1.0 / ((1.0 - x * x) * dp * dp));
    }
    (nodes, weights)
}

#[cfg(test)]
mod tests {
    use super::gauss_legendre;

    #[test]
    fn integrates_polynomials_up_to_degree_2m_minus_1() {
        for m in 1..=40 {
            let (t, w) = gauss_legendre(m);
            assert!(t.windows(2).all(|p| p[0] < p[1]) && t[0] > 0.0 && t[m - 1] < 1.0);
            for deg in 0..2 * m {
                let q: f64 = t.iter().zip(&w).map(|(t, w)| w * t.powi(deg as i32)).sum();
                let exact = 1.0 / (deg as f64 + 1.0);
                assert!(
                    (q - exact).abs() < 1e-14,
                    "m {m} degree {deg}: {q} vs {exact}"
                );
            }
        }
    }
}
