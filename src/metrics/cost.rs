//! Costs and benefits of decisions.
//!
//! - **Loss matrix** (Dal Pozzolo et al. 2015, Table II): `l[i][j]` is the
//!   loss of deciding class `i` when the true class is `j`. The realised cost
//!   of a set of decisions is the mean (or total) of `l[decision][truth]`;
//!   the risk of deciding `i` given class probabilities `p` is
//!   `sum_j p_j l[i][j]` (the paper's `r+` and `r-`).
//! - **Example-dependent benefit matrix** (Fan and Davidson 2006, Section 6):
//!   each cell is affine in the example's amount `y(x)`. For credit-card
//!   fraud with investigation overhead `v`: a caught fraud earns `y(x) - v`,
//!   a false alarm `-v`, missing or ignoring earns 0. Charity solicitation is
//!   the same matrix with the mailing cost (0.68) as `v` and the donation as
//!   `y(x)`. The total benefit is summed over the examples.
//!
//! Neither is in scikit-learn.

use serde::{Deserialize, Serialize};

use super::check_len;
use crate::data::Dataset;
use crate::{Error, Result};

/// A `k x k` loss matrix: `loss(i, j)` is the cost of deciding `i` when the
/// truth is `j`.
///
/// ```
/// use rarity::metrics::cost::LossMatrix;
/// // Missing a positive costs 10, a false alarm 1.
/// let l = LossMatrix::binary(0.0, 1.0, 10.0, 0.0).unwrap();
/// assert_eq!(l.mean_cost(&[1, 0, 0], &[0, 1, 0]).unwrap(), 11.0 / 3.0);
/// assert_eq!(l.risk(1, &[0.8, 0.2]), 0.8);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LossMatrix {
    k: usize,
    loss: Vec<f64>,
}

impl LossMatrix {
    /// A loss matrix from its rows: `rows[i][j]` is the loss of deciding `i`
    /// when the truth is `j`.
    pub fn new(rows: Vec<Vec<f64>>) -> Result<Self> {
        let k = rows.len();
        if k < 2 || rows.iter().any(|r| r.len() != k) {
            return Err(Error::invalid(
                "a loss matrix must be square with at least two classes",
            ));
        }
        if rows.iter().flatten().any(|v| !v.is_finite()) {
            return Err(Error::invalid("loss matrix entries must be finite numbers"));
        }
        // Elkan's (2001) reasonableness: for each true class, no wrong
        // decision costs less than the right one, and one costs more
        // (else the class need never be recognised: a matrix of zeros, or
        // a negative cost of a miss, flags every row or none).
        for j in 0..k {
            let right = rows[j][j];
            let wrong = (0..k).filter(|&i| i != j).map(|i| rows[i][j]);
            let (cheaper, dearer) =
                wrong.fold((false, false), |(c, d), w| (c || w < right, d || w > right));
            if cheaper || !dearer {
                let what = if k == 2 {
                    let (miss, hit) = if j == 1 { ("fn", "tp") } else { ("fp", "tn") };
                    format!(
                        "{miss} = {} must be more than {hit} = {right}",
                        rows[1 - j][j]
                    )
                } else {
                    format!(
                        "for true class {j}, every wrong decision must cost at least the right \
                         one ({right}) and one must cost more"
                    )
                };
                return Err(Error::invalid(format!(
                    "the loss matrix is not reasonable (Elkan 2001): {what}; a decision by it \
                     would flag every row or none"
                )));
            }
        }
        Ok(LossMatrix {
            k,
            loss: rows.into_iter().flatten().collect(),
        })
    }

    /// The binary matrix of Dal Pozzolo et al.'s Table II from its four
    /// entries `l00` (true negative), `l10` (false positive: decide 1, truth
    /// 0), `l01` (false negative) and `l11` (true positive).
    pub fn binary(l00: f64, l10: f64, l01: f64, l11: f64) -> Result<Self> {
        LossMatrix::new(vec![vec![l00, l01], vec![l10, l11]])
    }

    /// Number of classes.
    pub fn n_classes(&self) -> usize {
        self.k
    }

    /// Checks a matrix read from a file as [`LossMatrix::new`] checks its
    /// rows: square, at least two classes, every entry finite.
    pub fn validate(&self) -> std::result::Result<(), String> {
        if self.k < 2 || self.loss.len() != self.k * self.k {
            return Err(format!(
                "a loss matrix of {} entries for {} classes",
                self.loss.len(),
                self.k
            ));
        }
        crate::check::finite("loss matrix entry", &self.loss)
    }

    /// The Bayes minimum-risk threshold of a binary matrix (Dal Pozzolo,
    /// Sec. IV-A): positive iff `p >= tau` with
    /// `tau = (l10 - l00) / (l10 - l00 + l01 - l11)`.
    ///
    /// ```
    /// use rarity::metrics::cost::LossMatrix;
    /// // Missing a positive costs 10, a false alarm 1: tau = 1/11.
    /// let l = LossMatrix::binary(0.0, 1.0, 10.0, 0.0).unwrap();
    /// assert!((l.bayes_threshold().unwrap() - 1.0 / 11.0).abs() < 1e-15);
    /// ```
    pub fn bayes_threshold(&self) -> Result<f64> {
        if self.k != 2 {
            return Err(Error::invalid(
                "a single threshold needs a 2 x 2 loss matrix",
            ));
        }
        let (l00, l01, l10, l11) = (
            self.loss(0, 0),
            self.loss(0, 1),
            self.loss(1, 0),
            self.loss(1, 1),
        );
        let num = l10 - l00;
        let den = num + l01 - l11;
        if den.is_nan() || den <= 0.0 || num < 0.0 || num > den {
            return Err(Error::invalid(format!(
                "the loss matrix gives no threshold in [0, 1]: need l10 >= l00 and l01 >= l11 \
                 with one strict (got l00={l00}, l01={l01}, l10={l10}, l11={l11})"
            )));
        }
        Ok(num / den)
    }

    /// Loss of deciding `decision` when the truth is `truth`.
    pub fn loss(&self, decision: usize, truth: usize) -> f64 {
        self.loss[decision * self.k + truth]
    }

    /// Expected loss of deciding `decision` for class probabilities `p`.
    pub fn risk(&self, decision: usize, p: &[f64]) -> f64 {
        p.iter()
            .enumerate()
            .map(|(j, &pj)| pj * self.loss(decision, j))
            .sum()
    }

    /// Total loss of the decisions.
    pub fn total_cost(&self, truth: &[u32], decisions: &[u32]) -> Result<f64> {
        check_len(truth.len(), decisions.len(), "decisions")?;
        let mut sum = 0.0;
        for (i, (&t, &d)) in truth.iter().zip(decisions).enumerate() {
            if t as usize >= self.k || d as usize >= self.k {
                return Err(Error::data(format!(
                    "row {}: class {} is outside the {}-class loss matrix",
                    i + 1,
                    t.max(d),
                    self.k
                )));
            }
            sum += self.loss(d as usize, t as usize);
        }
        Ok(sum)
    }

    /// Mean loss per example of the decisions (the empirical expected cost).
    pub fn mean_cost(&self, truth: &[u32], decisions: &[u32]) -> Result<f64> {
        Ok(self.total_cost(truth, decisions)? / truth.len() as f64)
    }
}

/// The loss as a spec writes it: a binary matrix by its cells
/// (`fn=10,fp=1`, with `tp` and `tn` when not 0), a larger one whole
/// (`matrix='0,1,1;5,0,1;5,1,0'`, row = decided class).
///
/// ```
/// use rarity::metrics::cost::LossMatrix;
/// assert_eq!(LossMatrix::binary(0.0, 1.0, 10.0, 0.0).unwrap().to_string(), "fn=10,fp=1");
/// let m = LossMatrix::new(vec![vec![0.0, 1.0, 1.0], vec![5.0, 0.0, 1.0], vec![5.0, 1.0, 0.0]]).unwrap();
/// assert_eq!(m.to_string(), "matrix='0,1,1;5,0,1;5,1,0'");
/// ```
impl std::fmt::Display for LossMatrix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.k == 2 {
            write!(f, "fn={},fp={}", self.loss(0, 1), self.loss(1, 0))?;
            for (name, v) in [("tp", self.loss(1, 1)), ("tn", self.loss(0, 0))] {
                if v != 0.0 {
                    write!(f, ",{name}={v}")?;
                }
            }
            return Ok(());
        }
        let rows: Vec<String> = self
            .loss
            .chunks(self.k)
            .map(|r| r.iter().map(f64::to_string).collect::<Vec<_>>().join(","))
            .collect();
        write!(f, "matrix='{}'", rows.join(";"))
    }
}

/// A binary benefit matrix whose cells are affine in a per-example amount:
/// `benefit = per_amount * y(x) + fixed` for each (truth, decision) cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BenefitMatrix {
    /// `[truth][decision]` coefficient of the amount.
    pub per_amount: [[f64; 2]; 2],
    /// `[truth][decision]` constant.
    pub fixed: [[f64; 2]; 2],
}

impl BenefitMatrix {
    /// Fan and Davidson's matrix for acting on a positive at overhead `v`:
    /// a true positive earns `y(x) - v`, a false positive `-v`, a negative
    /// decision 0. Fraud detection uses `v = 90` and the transaction amount;
    /// donation solicitation `v = 0.68` and the donation.
    ///
    /// ```
    /// use rarity::metrics::cost::BenefitMatrix;
    /// let m = BenefitMatrix::overhead(90.0);
    /// // A caught 500 fraud, a false alarm, a missed 300 fraud, a quiet legit.
    /// let b = m.total_benefit(&[1, 0, 1, 0], &[1, 1, 0, 0], &[500.0, 40.0, 300.0, 20.0]).unwrap();
    /// assert_eq!(b, 410.0 - 90.0);
    /// ```
    pub fn overhead(v: f64) -> Self {
        BenefitMatrix {
            per_amount: [[0.0, 0.0], [0.0, 1.0]],
            fixed: [[0.0, -v], [0.0, -v]],
        }
    }

    /// Benefit of deciding `decision` on an example of class `truth` and
    /// amount `amount`.
    pub fn benefit(&self, truth: usize, decision: usize, amount: f64) -> f64 {
        self.per_amount[truth][decision] * amount + self.fixed[truth][decision]
    }

    /// Total benefit of binary decisions over examples with amounts.
    pub fn total_benefit(&self, truth: &[u32], decisions: &[u32], amounts: &[f64]) -> Result<f64> {
        check_len(truth.len(), decisions.len(), "decisions")?;
        check_len(truth.len(), amounts.len(), "amounts")?;
        let mut sum = 0.0;
        for i in 0..truth.len() {
            let (t, d) = (truth[i] as usize, decisions[i] as usize);
            if t > 1 || d > 1 {
                return Err(Error::data(format!(
                    "row {}: the benefit matrix is binary, got class {}",
                    i + 1,
                    t.max(d)
                )));
            }
            if !amounts[i].is_finite() {
                return Err(Error::data(format!(
                    "row {}: amount {} is not a finite number",
                    i + 1,
                    amounts[i]
                )));
            }
            sum += self.benefit(t, d, amounts[i]);
        }
        Ok(sum)
    }
}

/// Example-dependent benefit settings (Fan & Davidson 2006, Sec. 6): acting
/// on a positive earns `amount - overhead`, a false alarm costs `overhead`,
/// not acting earns 0 ([`BenefitMatrix::overhead`]); the decision acts iff
/// `p(positive) * amount > overhead`. The one description of the benefit
/// used by the decision rule, the evaluation and ReverseTesting's measure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Benefit {
    /// Feature column holding each row's amount.
    pub amount: String,
    /// Fixed cost of acting on a row (investigation, mailing).
    pub overhead: f64,
}

impl Benefit {
    /// Each row's amount, read from the feature column; the error names the
    /// columns when it is missing.
    ///
    /// ```
    /// use rarity::metrics::cost::Benefit;
    /// let ds = rarity::Dataset::from_rows(vec![vec![5.0], vec![7.0]], vec![0, 1], vec!["a".into(), "b".into()]).unwrap();
    /// let b = Benefit { amount: ds.feature_names()[0].clone(), overhead: 1.0 };
    /// assert_eq!(b.amounts(&ds).unwrap(), vec![5.0, 7.0]);
    /// ```
    pub fn amounts(&self, data: &Dataset) -> Result<Vec<f64>> {
        let j = data.feature_index(&self.amount, "amount column")?;
        Ok((0..data.n_rows()).map(|i| data.value(i, j)).collect())
    }

    /// The decisions for positive-class probabilities `p` and `amounts`:
    /// act (1) iff `p * amount > overhead`.
    pub fn decide(&self, p: &[f64], amounts: &[f64]) -> Result<Vec<u32>> {
        check_len(p.len(), amounts.len(), "amounts")?;
        Ok(p.iter()
            .zip(amounts)
            .map(|(p, a)| u32::from(p * a > self.overhead))
            .collect())
    }

    /// Total benefit of binary decisions.
    pub fn total(&self, truth: &[u32], decisions: &[u32], amounts: &[f64]) -> Result<f64> {
        BenefitMatrix::overhead(self.overhead).total_benefit(truth, decisions, amounts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loss_matrix_rejects_bad_shapes_and_labels() {
        assert!(LossMatrix::new(vec![vec![0.0, 1.0]]).is_err());
        assert!(LossMatrix::new(vec![vec![0.0, 1.0], vec![1.0]]).is_err());
        let l = LossMatrix::binary(0.0, 1.0, 5.0, 0.0).unwrap();
        assert!(l.total_cost(&[2], &[0]).is_err());
        assert_eq!(l.loss(0, 1), 5.0);
        assert_eq!(l.loss(1, 0), 1.0);
    }

    #[test]
    fn donation_matrix_subtracts_the_mailing_cost() {
        let m = BenefitMatrix::overhead(0.68);
        assert_eq!(m.benefit(1, 1, 10.0), 10.0 - 0.68);
        assert_eq!(m.benefit(0, 1, 10.0), -0.68);
        assert_eq!(m.benefit(1, 0, 10.0), 0.0);
        assert!(m.total_benefit(&[1], &[1], &[f64::NAN]).is_err());
    }
}
