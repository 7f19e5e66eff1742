//! Linear and quadratic discriminant analysis with adjustable class priors.
//!
//! Both model `x | c ~ N(mu_c, Sigma_c)` and classify by Bayes' rule with
//! priors `pi_c` (Hastie, Tibshirani & Friedman, *The Elements of
//! Statistical Learning*, 2nd ed., section 4.3). The priors default to the
//! (weighted) training frequencies; raising the prior of the small class is
//! the lecture's remedy for imbalance (Kim, "Adjusting prior probability":
//! "In LDA and QDA, increase the prior prob. for the small class"), and
//! `balanced` gives every class present the same prior. Priors given for
//! classes absent from the fitted rows are dropped and the rest renormalised.
//!
//! - [`Lda`]: a shared covariance, the pooled within-class maximum
//!   likelihood estimate `sum_i w_i (x_i - mu_{y_i})(x_i - mu_{y_i})^T / W`
//!   (`W` the total weight; scikit-learn >= 1.6 divides by `n` too). As in
//!   scikit-learn's `LinearDiscriminantAnalysis(solver='svd')` the features
//!   are first scaled by their pooled within-class standard deviation and
//!   directions of the scaled covariance with eigenvalue `<= tol^2`
//!   (`tol = 1e-4`) are dropped, so constant and collinear features are
//!   harmless; the scores are `log pi_c + m_c . z(x) - |m_c|^2 / 2` with `z`
//!   the whitening map and `m_c = z(mu_c)`. The probabilities agree with
//!   scikit-learn's (its second, between-class projection changes nothing
//!   when no between-class direction is dropped).
//! - [`Qda`]: one covariance per class, the maximum likelihood
//!   `sum_i w_i (x_i - mu_c)(..)^T / W_c` (as scikit-learn >= 1.6), regularised like scikit-learn's
//!   `QuadraticDiscriminantAnalysis(reg_param)` by mapping each eigenvalue
//!   `l` to `(1 - reg) l + reg`; scores `log pi_c - (sum_r (v_r .
//!   (x - mu_c))^2 / l_r + sum_r log l_r) / 2`. Unlike scikit-learn (which
//!   refuses a singular class covariance), eigenvalues are floored at `1e-9` times the largest
//!   feature variance (1e-9 when all are 0), so a class with fewer rows than
//!   features, a class of one row or a constant feature gives finite,
//!   very concentrated densities instead of failing.

use crate::check;
use crate::learn::logistic::{column_means, linear_form};
use crate::learn::shap::Additive;
use crate::learn::{shape, Classifier, Kind, LeafMap};
use crate::onnx::{self, Graph, Tensor, Value};
use serde::{Deserialize, Serialize};

use crate::data::View;
use crate::error::{Error, Result};
use crate::learn::linalg::{add_scatter, dot, dots_block, sym_eigen, transpose_block, BLOCK};
use crate::learn::naive_bayes::scatter;
use crate::learn::rows::per_class_param;
use crate::learn::rows::{softmax, Rows};
use crate::learn::{Learner, Model};
use crate::params::{params, Bounds, ParamType, Params};
use crate::rng::Rng;

/// Class priors of a discriminant analysis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Priors {
    /// The weighted class frequencies of the training rows.
    Train,
    /// Equal priors for the classes present.
    Balanced,
    /// Given priors, one per class id (normalised to sum to 1).
    Given(Vec<f64>),
}

impl Priors {
    /// The log-priors of the present classes.
    fn log_priors(&self, rows: &Rows, classes: &[usize]) -> Result<Vec<f64>> {
        let tot = rows.class_weights();
        let raw: Vec<f64> = match self {
            Priors::Train => classes.iter().map(|&c| tot[c]).collect(),
            Priors::Balanced => vec![1.0; classes.len()],
            Priors::Given(p) => {
                if p.len() != rows.k || p.iter().any(|v| !(v.is_finite() && *v >= 0.0)) {
                    return Err(Error::invalid(format!(
                        "priors: expected {} finite values >= 0 (one per class), got {p:?}",
                        rows.k
                    )));
                }
                classes.iter().map(|&c| p[c]).collect()
            }
        };
        let s: f64 = raw.iter().sum();
        if s.is_nan() || s <= 0.0 {
            return Err(Error::invalid(
                "priors: the classes present in the training rows all have prior 0",
            ));
        }
        // A class with prior 0 keeps a finite score far below the others.
        Ok(raw.iter().map(|v| (v / s).ln().max(-745.0)).collect())
    }
}

per_class_param!(Priors { Train = "train", Balanced = "balanced" }, "prior", "[0.1, 0.9]");

params! {
    /// Linear discriminant analysis (hyper-parameters).
    ///
    /// ```
    /// use rarity::data::Dataset;
    /// use rarity::learn::{Learner, discriminant::{Lda, Priors}};
    /// let ds = Dataset::from_rows(vec![vec![0.0, 1.0], vec![1.0, 0.5], vec![0.5, 0.0],
    ///                                  vec![3.0, 3.5], vec![4.0, 3.0]],
    ///     vec![0, 0, 0, 1, 1], vec!["n".into(), "p".into()]).unwrap();
    /// let rows = [0, 1, 2, 3, 4];
    /// let fit = |priors| Lda { priors }.fit(&ds.view(&rows), &mut rarity::rng::stream(0, 0)).unwrap();
    /// let p_train = fit(Priors::Train).predict_proba(&ds).unwrap();
    /// let p_up = fit(Priors::Given(vec![0.1, 0.9])).predict_proba(&ds).unwrap();
    /// assert!(p_up.row(2)[1] > p_train.row(2)[1]);
    /// ```
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Lda {
        /// Class priors.
        pub priors: Priors = Priors::Train,
    }
}

params! {
    /// Quadratic discriminant analysis (hyper-parameters).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Qda {
        /// Class priors.
        pub priors: Priors = Priors::Train,
        /// Shrinkage of each class covariance towards the identity.
        pub reg: f64 = 0.0 => Bounds::closed(0.0, 1.0),
    }
}

/// A fitted LDA: linear scores `coef_c . x + intercept_c`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LdaModel {
    k: usize,
    d: usize,
    classes: Vec<usize>,
    /// Row-major `classes x d`.
    coef: Vec<f64>,
    intercept: Vec<f64>,
    /// The weighted mean of each feature over the training rows, linear
    /// SHAP's reference; empty in files written before it was kept.
    /// Not written when empty, so such a file saved again is unchanged
    /// (the last field).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    means: Vec<f64>,
}

impl Kind for LdaModel {
    const KIND: &'static str = "Lda";
}

impl Classifier for LdaModel {
    shape!(k, d);

    fn predict_row(&self, x: &[f64], out: &mut [f64]) {
        let mut s: Vec<f64> = self
            .intercept
            .iter()
            .zip(self.coef.chunks(self.d))
            .map(|(b, w)| b + dot(w, x))
            .collect();
        softmax(&mut s);
        scatter(&self.classes, &s, out);
    }

    /// The scores: their difference (the log-odds) for two classes, else
    /// each class's margin (`leaf` does not apply).
    fn additive(&self, leaf: Option<LeafMap<'_>>) -> std::result::Result<Additive, String> {
        let _ = leaf;
        let d = self.d;
        if self.classes.len() == 2 {
            let coef = (0..d).map(|j| self.coef[d + j] - self.coef[j]).collect();
            let b = vec![self.intercept[1] - self.intercept[0]];
            return linear_form(&self.classes, coef, b, &self.means, d);
        }
        linear_form(
            &self.classes,
            self.coef.clone(),
            self.intercept.clone(),
            &self.means,
            d,
        )
    }

    /// Checks shapes.
    fn to_onnx(&self, g: &mut Graph, x: &Value) -> std::result::Result<Value, String> {
        let z = onnx::linear(g, x, &self.coef, &self.intercept);
        let p = onnx::softmax_rows(g, &z, self.classes.len());
        Ok(onnx::scatter_columns(g, &p, &self.classes, self.k))
    }

    fn validate(&self) -> std::result::Result<(), String> {
        let m = self.classes.len();
        if m == 0
            || self.intercept.len() != m
            || self.coef.len() != m * self.d
            || self.classes.iter().any(|&c| c >= self.k)
            || !(self.means.is_empty() || self.means.len() == self.d)
        {
            return Err("LDA model: inconsistent shapes".into());
        }
        check::classes("LDA model", &self.classes, self.k)?;
        check::finite("LDA coefficient", &self.coef)?;
        check::finite("LDA intercept", &self.intercept)
    }
}

/// A fitted QDA.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QdaModel {
    k: usize,
    d: usize,
    classes: Vec<usize>,
    /// Per class: mean (`d`), eigenvectors as rows (`d x d`), inverse
    /// eigenvalues (`d`), and the constant `log pi_c - sum log l / 2`.
    mean: Vec<f64>,
    rot: Vec<f64>,
    inv: Vec<f64>,
    constant: Vec<f64>,
}

impl Kind for QdaModel {
    const KIND: &'static str = "Qda";
}

impl Classifier for QdaModel {
    shape!(k, d);

    fn predict_row(&self, x: &[f64], out: &mut [f64]) {
        self.predict_rows(x, out);
    }

    /// Class probabilities of consecutive rows: `x` is row-major `n x d`,
    /// `out` row-major `n x k`.
    ///
    /// The rows are scored eight at a time, so that each eigenvector is
    /// read once per block rather than once per row (the `d^2` products per
    /// row and class are the whole cost of prediction). Each row's sums are
    /// accumulated in the same order whatever the block, so the result does
    /// not depend on how the rows are grouped.
    fn predict_rows(&self, x: &[f64], out: &mut [f64]) {
        let (d, m) = (self.d, self.classes.len());
        // Centred rows of the block, transposed.
        let mut diff = vec![0.0; d * BLOCK];
        let mut centred = vec![0.0; d * BLOCK];
        let mut s = vec![0.0; m * BLOCK];
        for (xs, outs) in x.chunks(d * BLOCK).zip(out.chunks_mut(self.k * BLOCK)) {
            let rows = xs.len() / d;
            for c in 0..m {
                let mu = &self.mean[c * d..(c + 1) * d];
                for (row, z) in xs.chunks(d).zip(centred.chunks_mut(d)) {
                    for ((zj, xj), mj) in z.iter_mut().zip(row).zip(mu) {
                        *zj = xj - mj;
                    }
                }
                transpose_block(&centred[..xs.len()], d, &mut diff);
                let mut q = [0.0; BLOCK];
                for r in 0..d {
                    let v = &self.rot[(c * d + r) * d..(c * d + r + 1) * d];
                    let t = dots_block(v, &diff);
                    let inv = self.inv[c * d + r];
                    for b in 0..BLOCK {
                        q[b] += t[b] * t[b] * inv;
                    }
                }
                for b in 0..rows {
                    s[b * m + c] = self.constant[c] - 0.5 * q[b];
                }
            }
            for (b, o) in outs.chunks_mut(self.k).enumerate() {
                let sb = &mut s[b * m..(b + 1) * m];
                softmax(sb);
                scatter(&self.classes, sb, o);
            }
        }
    }

    /// Checks shapes.
    fn to_onnx(&self, g: &mut Graph, x: &Value) -> std::result::Result<Value, String> {
        let (d, m) = (self.d, self.classes.len());
        let half = g.scalar(0.5);
        let mut scores = Vec::with_capacity(m);
        for c in 0..m {
            let mu = g.doubles(self.mean[c * d..(c + 1) * d].to_vec());
            let centred = g.sub(x, &mu);
            // t[r] = rot_c[r] · centred, summed over the features in order
            // (`dots_block`): products [N, r, j], then j added left to right.
            let axis = g.ints(vec![1]);
            let rows = g.op("Unsqueeze", &[&centred, &axis], &[]);
            let rot = g.constant(Tensor::Double(
                vec![d as i64, d as i64],
                self.rot[c * d * d..(c + 1) * d * d].to_vec(),
            ));
            let prod = g.mul(&rows, &rot);
            let t = onnx::sum_in_order(g, &prod, d, 2);
            let tt = g.mul(&t, &t);
            let inv = g.doubles(self.inv[c * d..(c + 1) * d].to_vec());
            let w = g.mul(&tt, &inv);
            let q = onnx::sum_in_order(g, &w, d, 1);
            let q = g.op("Unsqueeze", &[&q, &axis], &[]);
            let hq = g.mul(&half, &q);
            let k = g.scalar(self.constant[c]);
            scores.push(g.sub(&k, &hq));
        }
        let s = g.concat_columns(&scores.iter().collect::<Vec<_>>());
        let p = onnx::softmax_rows(g, &s, m);
        Ok(onnx::scatter_columns(g, &p, &self.classes, self.k))
    }

    fn validate(&self) -> std::result::Result<(), String> {
        let (m, d) = (self.classes.len(), self.d);
        if m == 0
            || self.mean.len() != m * d
            || self.rot.len() != m * d * d
            || self.inv.len() != m * d
            || self.constant.len() != m
            || self.classes.iter().any(|&c| c >= self.k)
        {
            return Err("QDA model: inconsistent shapes".into());
        }
        check::classes("QDA model", &self.classes, self.k)?;
        check::finite("QDA mean", &self.mean)?;
        check::finite("QDA eigenvector", &self.rot)?;
        check::positive("QDA inverse eigenvalue", &self.inv)?;
        check::finite("QDA constant", &self.constant)
    }
}

/// Copies the upper triangle of the row-major `d x d` matrix into the lower.
fn symmetrise(cov: &mut [f64], d: usize) {
    for a in 0..d {
        for b in 0..a {
            cov[a * d + b] = cov[b * d + a];
        }
    }
}

/// Weighted class means (`classes x d`) of the present classes.
fn class_means(rows: &Rows, classes: &[usize]) -> Vec<f64> {
    let d = rows.d;
    let tot = rows.class_weights();
    let mut slot = vec![0; rows.k];
    for (s, &c) in classes.iter().enumerate() {
        slot[c] = s;
    }
    let mut mean = vec![0.0; classes.len() * d];
    for i in 0..rows.n() {
        let s = slot[rows.y[i]];
        for (m, v) in mean[s * d..(s + 1) * d].iter_mut().zip(rows.row(i)) {
            *m += rows.w[i] * v;
        }
    }
    for (s, &c) in classes.iter().enumerate() {
        mean[s * d..(s + 1) * d]
            .iter_mut()
            .for_each(|m| *m /= tot[c]);
    }
    mean
}

impl Learner for Lda {
    fn fit(&self, data: &View<'_>, _rng: &mut Rng) -> Result<Model> {
        let rows = Rows::collapsed(data, "LDA")?;
        let classes = rows.present();
        let log_prior = self.priors.log_priors(&rows, &classes)?;
        let (k, d, m) = (rows.k, rows.d, classes.len());
        let mean = class_means(&rows, &classes);
        let mut slot = vec![0; k];
        for (s, &c) in classes.iter().enumerate() {
            slot[c] = s;
        }
        let total: f64 = rows.w.iter().sum();
        // Pooled within-class scatter, scaled by the within-class sd.
        let centred = |i: usize, j: usize| rows.x[i * d + j] - mean[slot[rows.y[i]] * d + j];
        let mut sd = vec![0.0; d];
        for i in 0..rows.n() {
            for (j, s) in sd.iter_mut().enumerate() {
                *s += rows.w[i] * centred(i, j).powi(2);
            }
        }
        // A within-class sd at rounding level of the feature's values (a
        // feature constant within every class, up to how the means round)
        // counts as 0, as an exact 0 does in scikit-learn, and becomes 1.
        for (j, s) in sd.iter_mut().enumerate() {
            *s = (*s / total).sqrt();
            let size = (0..m).map(|c| mean[c * d + j].abs()).fold(0.0, f64::max);
            if s.is_nan() || *s <= 1e-12 * size || *s == 0.0 {
                *s = 1.0;
            }
        }
        let mut z = vec![0.0; rows.n() * d];
        for (i, zi) in z.chunks_exact_mut(d).enumerate() {
            for (j, v) in zi.iter_mut().enumerate() {
                *v = centred(i, j) / sd[j];
            }
        }
        let w: Vec<f64> = rows.w.iter().map(|wi| wi / total).collect();
        let mut cov = vec![0.0; d * d];
        add_scatter(&mut cov, &z, &w, d);
        symmetrise(&mut cov, d);
        let (vals, vecs) = sym_eigen(&cov, d);
        // Whitening map z(x) = L^{-1/2} V^T (x / sd), on the kept directions.
        let kept: Vec<usize> = (0..d).filter(|&r| vals[r] > LDA_TOL * LDA_TOL).collect();
        let proj: Vec<f64> = kept
            .iter()
            .flat_map(|&r| {
                let s = 1.0 / vals[r].sqrt();
                (0..d).map(move |j| (j, r, s))
            })
            .map(|(j, r, s)| s * vecs[r * d + j] / sd[j])
            .collect();
        let mut coef = vec![0.0; m * d];
        let mut intercept = vec![0.0; m];
        for s in 0..m {
            let mu = &mean[s * d..(s + 1) * d];
            let mut norm = 0.0;
            for p in proj.chunks(d) {
                let mz: f64 = p.iter().zip(mu).map(|(a, b)| a * b).sum();
                norm += mz * mz;
                for j in 0..d {
                    coef[s * d + j] += mz * p[j];
                }
            }
            intercept[s] = log_prior[s] - 0.5 * norm;
        }
        Ok(Model::new(LdaModel {
            k,
            d,
            classes,
            coef,
            intercept,
            means: column_means(&rows),
        }))
    }

    fn name(&self) -> String {
        format!("lda(priors={})", self.priors.to_text())
    }
}

/// scikit-learn's default `tol` of the SVD solver.
const LDA_TOL: f64 = 1e-4;

impl Learner for Qda {
    fn fit(&self, data: &View<'_>, _rng: &mut Rng) -> Result<Model> {
        self.check()?;
        let rows = Rows::collapsed(data, "QDA")?;
        let classes = rows.present();
        let log_prior = self.priors.log_priors(&rows, &classes)?;
        let (d, m) = (rows.d, classes.len());
        let mean = class_means(&rows, &classes);
        let tot = rows.class_weights();
        // Variance floor: 1e-9 of the largest feature variance.
        let all: f64 = rows.w.iter().sum();
        let mut grand = vec![0.0; d];
        for i in 0..rows.n() {
            grand
                .iter_mut()
                .zip(rows.row(i))
                .for_each(|(g, v)| *g += rows.w[i] * v / all);
        }
        let mut var = vec![0.0; d];
        for i in 0..rows.n() {
            for ((v, x), g) in var.iter_mut().zip(rows.row(i)).zip(&grand) {
                *v += rows.w[i] * (x - g).powi(2);
            }
        }
        let max_var = var.iter().map(|v| v / all).fold(0.0f64, f64::max);
        let floor = 1e-9 * if max_var > 0.0 { max_var } else { 1.0 };
        let mut rot = Vec::with_capacity(m * d * d);
        let mut inv = Vec::with_capacity(m * d);
        let mut constant = Vec::with_capacity(m);
        for (s, &c) in classes.iter().enumerate() {
            let mu = &mean[s * d..(s + 1) * d];
            let own: Vec<usize> = (0..rows.n()).filter(|&i| rows.y[i] == c).collect();
            let mut z = Vec::with_capacity(own.len() * d);
            for &i in &own {
                z.extend(rows.row(i).iter().zip(mu).map(|(v, mu_j)| v - mu_j));
            }
            let w: Vec<f64> = own.iter().map(|&i| rows.w[i] / tot[c]).collect();
            let mut cov = vec![0.0; d * d];
            add_scatter(&mut cov, &z, &w, d);
            symmetrise(&mut cov, d);
            let (vals, vecs) = sym_eigen(&cov, d);
            let mut log_det = 0.0;
            for &v in &vals {
                let l = ((1.0 - self.reg) * v + self.reg).max(floor);
                log_det += l.ln();
                inv.push(1.0 / l);
            }
            rot.extend_from_slice(&vecs);
            constant.push(log_prior[s] - 0.5 * log_det);
        }
        Ok(Model::new(QdaModel {
            k: rows.k,
            d,
            classes,
            mean,
            rot,
            inv,
            constant,
        }))
    }

    fn name(&self) -> String {
        format!("qda(priors={},reg={})", self.priors.to_text(), self.reg)
    }
}
