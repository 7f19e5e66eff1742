//! Pairwise coupling of probabilities (Wu, Lin & Weng 2004, "Probability
//! estimates for multi-class classification by pairwise coupling", JMLR 5:
//! the second method, eq. (21)).
//!
//! Given `r_ij ~ P(y = i | y in {i, j})`, find the distribution `p`
//! minimising `sum_i sum_{j != i} (r_ji p_i - r_ij p_j)^2`, i.e.
//! `min p^T Q p` subject to `sum p = 1` with `Q_ii = sum_{j != i} r_ji^2` and
//! `Q_ij = -r_ji r_ij`, by the fixed-point iteration of their Algorithm 2
//! (coordinate updates keeping `p` normalised), stopped when every
//! `|(Q p)_t - p^T Q p|` is below `0.005 / k` or after `max(100, k)` rounds.

/// The coupled distribution for the row-major `k x k` matrix `r`
/// (`r[i*k + j] = r_ij`, diagonal ignored).
pub(crate) fn couple(r: &[f64], k: usize) -> Vec<f64> {
    let mut q = vec![0.0; k * k];
    for t in 0..k {
        for j in 0..k {
            if j != t {
                q[t * k + t] += r[j * k + t] * r[j * k + t];
                q[t * k + j] = -r[j * k + t] * r[t * k + j];
            }
        }
    }
    let mut p = vec![1.0 / k as f64; k];
    let mut qp = vec![0.0; k];
    let eps = 0.005 / k as f64;
    for _ in 0..100.max(k) {
        let mut pqp = 0.0;
        for t in 0..k {
            qp[t] = (0..k).map(|j| q[t * k + j] * p[j]).sum();
            pqp += p[t] * qp[t];
        }
        if qp.iter().all(|&v| (v - pqp).abs() < eps) {
            break;
        }
        for t in 0..k {
            let diff = (pqp - qp[t]) / q[t * k + t];
            p[t] += diff;
            let scale = 1.0 + diff;
            pqp = (pqp + diff * (diff * q[t * k + t] + 2.0 * qp[t])) / (scale * scale);
            for j in 0..k {
                qp[j] = (qp[j] + diff * q[t * k + j]) / scale;
                p[j] /= scale;
            }
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consistent_pairwise_probabilities_are_recovered() {
        let truth = [0.5, 0.3, 0.2];
        let mut r = vec![0.0; 9];
        for i in 0..3 {
            for j in 0..3 {
                if i != j {
                    r[i * 3 + j] = truth[i] / (truth[i] + truth[j]);
                }
            }
        }
        let p = couple(&r, 3);
        for (a, b) in p.iter().zip(truth) {
            assert!((a - b).abs() < 1e-3, "{p:?}");
        }
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }
}
