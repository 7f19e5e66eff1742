//! Naive Bayes: Gaussian and equal-width binned.
//!
//! Both score a row by `log P(c) + sum_j log P(x_j | c)` and normalise with
//! log-sum-exp; the priors are the (weighted) class frequencies of the
//! training rows, and classes absent from them get probability 0.
//!
//! - [`GaussianNb`]: scikit-learn's `GaussianNB` (user guide, "Gaussian
//!   Naive Bayes"): per-class weighted means and (biased) variances, each
//!   variance plus `var_smoothing * max_j Var(x_j)` with the unweighted
//!   variance taken over all the rows given to the fit. When every feature is
//!   constant that maximum is 0 and `var_smoothing` itself is added.
//! - [`BinnedNb`]: the naive Bayes of the ReverseTesting experiments (Fan &
//!   Davidson 2006, section 5, "naive Bayes using binning with 10 bins"):
//!   each feature is cut into `bins` equal-width bins over its training
//!   range (values outside it fall in the end bins; a constant feature has
//!   one bin) and `P(bin | c) = (W_cb + 1) / (W_c + bins)`, Laplace-smoothed
//!   weighted counts.

use crate::check;
use crate::learn::{shape, Classifier, Kind};
use crate::onnx::{self, Graph, Tensor, Value};
use serde::{Deserialize, Serialize};

use crate::data::View;
use crate::error::{Error, Result};
use crate::learn::rows::{softmax, Rows};
use crate::learn::{Learner, Model};
use crate::params::{params, Bounds};
use crate::rng::Rng;

params! {
    /// Gaussian naive Bayes (hyper-parameters).
    ///
    /// ```
    /// use rarity::data::Dataset;
    /// use rarity::learn::{Learner, naive_bayes::GaussianNb};
    /// let ds = Dataset::from_rows(vec![vec![0.0], vec![0.2], vec![2.0], vec![2.2]],
    ///     vec![0, 0, 1, 1], vec!["n".into(), "p".into()]).unwrap();
    /// let m = GaussianNb::default().fit(&ds.view(&[0, 1, 2, 3]), &mut rarity::rng::stream(0, 0)).unwrap();
    /// assert!(m.predict_proba(&ds).unwrap().row(3)[1] > 0.99);
    /// ```
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct GaussianNb {
        /// Fraction of the largest feature variance added to every variance.
        pub var_smoothing: f64 = 1e-9 => Bounds::positive(),
    }
}

/// A fitted Gaussian naive Bayes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GaussianNbModel {
    k: usize,
    d: usize,
    /// Present classes.
    classes: Vec<usize>,
    log_prior: Vec<f64>,
    /// Row-major `classes x d` means and smoothed variances.
    mean: Vec<f64>,
    var: Vec<f64>,
    /// Per class `-sum_j log(2 pi var_j) / 2`.
    log_norm: Vec<f64>,
}

impl Kind for GaussianNbModel {
    const KIND: &'static str = "GaussianNb";
}

impl Classifier for GaussianNbModel {
    shape!(k, d);

    fn predict_row(&self, x: &[f64], out: &mut [f64]) {
        let d = self.d;
        let mut jll: Vec<f64> = (0..self.classes.len())
            .map(|s| {
                let mut q = 0.0;
                let (mean, var) = (&self.mean[s * d..], &self.var[s * d..]);
                for ((xj, m), v) in x.iter().zip(mean).zip(var) {
                    let r = xj - m;
                    q += r * r / v;
                }
                self.log_prior[s] + self.log_norm[s] - 0.5 * q
            })
            .collect();
        softmax(&mut jll);
        scatter(&self.classes, &jll, out);
    }

    /// Checks shapes and that variances are positive.
    fn to_onnx(&self, g: &mut Graph, x: &Value) -> std::result::Result<Value, String> {
        let (d, m) = (self.d, self.classes.len());
        let shape = vec![m as i64, d as i64];
        let axis = g.ints(vec![1]);
        let rows = g.op("Unsqueeze", &[x, &axis], &[]);
        let mean = g.constant(Tensor::Double(shape.clone(), self.mean.clone()));
        let var = g.constant(Tensor::Double(shape, self.var.clone()));
        let r = g.sub(&rows, &mean);
        let rr = g.mul(&r, &r);
        let terms = g.div(&rr, &var);
        let q = onnx::sum_in_order(g, &terms, d, 2);
        let half = g.scalar(0.5);
        let hq = g.mul(&half, &q);
        let c: Vec<f64> = self
            .log_prior
            .iter()
            .zip(&self.log_norm)
            .map(|(p, n)| p + n)
            .collect();
        let c = g.doubles(c);
        let jll = g.sub(&c, &hq);
        let p = onnx::softmax_rows(g, &jll, m);
        Ok(onnx::scatter_columns(g, &p, &self.classes, self.k))
    }

    fn validate(&self) -> std::result::Result<(), String> {
        let m = self.classes.len();
        if m == 0
            || self.log_prior.len() != m
            || self.mean.len() != m * self.d
            || self.var.len() != m * self.d
            || self.log_norm.len() != m
            || self.classes.iter().any(|&c| c >= self.k)
            || self.var.iter().any(|&v| v.is_nan() || v <= 0.0)
        {
            return Err("gaussian naive Bayes model: inconsistent shapes or variances".into());
        }
        check::classes("gaussian naive Bayes model", &self.classes, self.k)?;
        check::finite("gaussian naive Bayes log prior", &self.log_prior)?;
        check::finite("gaussian naive Bayes mean", &self.mean)?;
        check::positive("gaussian naive Bayes variance", &self.var)?;
        check::finite("gaussian naive Bayes log normaliser", &self.log_norm)
    }
}

/// Writes per-present-class probabilities into a `k`-vector (0 elsewhere).
pub(crate) fn scatter(classes: &[usize], p: &[f64], out: &mut [f64]) {
    out.iter_mut().for_each(|o| *o = 0.0);
    for (&c, &v) in classes.iter().zip(p) {
        out[c] = v;
    }
}

impl Learner for GaussianNb {
    fn fit(&self, data: &View<'_>, _rng: &mut Rng) -> Result<Model> {
        if !(self.var_smoothing.is_finite() && self.var_smoothing > 0.0) {
            return Err(Error::invalid(format!(
                "gnb: var_smoothing={} is invalid; expected a positive number",
                self.var_smoothing
            )));
        }
        // Largest unweighted feature variance over the rows given.
        let ds = data.data();
        let d = ds.n_features();
        let n = data.len() as f64;
        let mut mu = vec![0.0; d];
        for i in 0..data.len() {
            mu.iter_mut().zip(data.row(i)).for_each(|(m, v)| *m += v);
        }
        mu.iter_mut().for_each(|m| *m /= n);
        let mut var = vec![0.0; d];
        for i in 0..data.len() {
            for ((s, v), m) in var.iter_mut().zip(data.row(i)).zip(&mu) {
                *s += (v - m) * (v - m);
            }
        }
        let max_var = var.iter().fold(0.0f64, |a, &v| a.max(v / n));
        let eps = self.var_smoothing * if max_var > 0.0 { max_var } else { 1.0 };

        let rows = Rows::collapsed(data, "gaussian naive Bayes")?;
        let classes = rows.present();
        let tot = rows.class_weights();
        let all: f64 = tot.iter().sum();
        let m = classes.len();
        let mut slot = vec![0; rows.k];
        for (s, &c) in classes.iter().enumerate() {
            slot[c] = s;
        }
        let mut mean = vec![0.0; m * d];
        for i in 0..rows.n() {
            let s = slot[rows.y[i]];
            for (a, v) in mean[s * d..(s + 1) * d].iter_mut().zip(rows.row(i)) {
                *a += rows.w[i] * v;
            }
        }
        for (s, &c) in classes.iter().enumerate() {
            mean[s * d..(s + 1) * d]
                .iter_mut()
                .for_each(|a| *a /= tot[c]);
        }
        let mut vars = vec![0.0; m * d];
        for i in 0..rows.n() {
            let s = slot[rows.y[i]];
            for (j, v) in rows.row(i).iter().enumerate() {
                let r = v - mean[s * d + j];
                vars[s * d + j] += rows.w[i] * r * r;
            }
        }
        for (s, &c) in classes.iter().enumerate() {
            vars[s * d..(s + 1) * d]
                .iter_mut()
                .for_each(|a| *a = *a / tot[c] + eps);
        }
        let log_norm = vars
            .chunks(d)
            .map(|v| {
                -0.5 * v
                    .iter()
                    .map(|v| (2.0 * std::f64::consts::PI * v).ln())
                    .sum::<f64>()
            })
            .collect();
        Ok(Model::new(GaussianNbModel {
            k: rows.k,
            d,
            log_norm,
            log_prior: classes.iter().map(|&c| (tot[c] / all).ln()).collect(),
            classes,
            mean,
            var: vars,
        }))
    }

    fn name(&self) -> String {
        format!("gnb(var_smoothing={})", self.var_smoothing)
    }
}

params! {
    /// Equal-width binned naive Bayes (hyper-parameters).
    ///
    /// ```
    /// use rarity::data::Dataset;
    /// use rarity::learn::{Learner, naive_bayes::BinnedNb};
    /// let ds = Dataset::from_rows((0..10).map(|i| vec![i as f64]).collect(),
    ///     vec![0, 0, 0, 0, 0, 1, 1, 1, 1, 1], vec!["n".into(), "p".into()]).unwrap();
    /// let rows: Vec<usize> = (0..10).collect();
    /// let m = BinnedNb::default().fit(&ds.view(&rows), &mut rarity::rng::stream(0, 0)).unwrap();
    /// // Bin of x = 9 holds one positive row: (1 + 1) / (5 + 10) vs (0 + 1) / (5 + 10).
    /// assert!((m.predict_proba(&ds).unwrap().row(9)[1] - 2.0 / 3.0).abs() < 1e-12);
    /// ```
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct BinnedNb {
        /// Bins per feature.
        pub bins: usize = 10 => Bounds::at_least(1.0),
    }
}

/// A fitted binned naive Bayes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BinnedNbModel {
    k: usize,
    d: usize,
    bins: usize,
    /// Per feature: lower end and bin width (0 for a constant feature).
    lo: Vec<f64>,
    width: Vec<f64>,
    classes: Vec<usize>,
    log_prior: Vec<f64>,
    /// `[class slot][feature][bin]` log-probabilities.
    log_p: Vec<f64>,
}

impl Kind for BinnedNbModel {
    const KIND: &'static str = "BinnedNb";
}

impl BinnedNbModel {
    fn bin(&self, j: usize, v: f64) -> usize {
        bin_of(self.lo[j], self.width[j], self.bins, v)
    }
}

impl Classifier for BinnedNbModel {
    shape!(k, d);

    fn predict_row(&self, x: &[f64], out: &mut [f64]) {
        let (d, b) = (self.d, self.bins);
        let mut s: Vec<f64> = self.log_prior.clone();
        for (j, &v) in x.iter().enumerate() {
            let bin = self.bin(j, v);
            for (c, sc) in s.iter_mut().enumerate() {
                *sc += self.log_p[(c * d + j) * b + bin];
            }
        }
        softmax(&mut s);
        scatter(&self.classes, &s, out);
    }

    /// Checks shapes.
    fn validate(&self) -> std::result::Result<(), String> {
        let m = self.classes.len();
        if m == 0
            || self.bins == 0
            || self.lo.len() != self.d
            || self.width.len() != self.d
            || self.log_prior.len() != m
            || self.log_p.len() != m * self.d * self.bins
            || self.classes.iter().any(|&c| c >= self.k)
        {
            return Err("binned naive Bayes model: inconsistent shapes".into());
        }
        check::classes("binned naive Bayes model", &self.classes, self.k)?;
        check::finite("binned naive Bayes lower end", &self.lo)?;
        check::non_negative("binned naive Bayes bin width", &self.width)?;
        check::finite("binned naive Bayes log prior", &self.log_prior)?;
        check::finite("binned naive Bayes log probability", &self.log_p)
    }
}

fn bin_of(lo: f64, width: f64, bins: usize, v: f64) -> usize {
    if width > 0.0 {
        let t = ((v - lo) / width).floor();
        if t <= 0.0 {
            0
        } else {
            (t as usize).min(bins - 1)
        }
    } else {
        0
    }
}

impl Learner for BinnedNb {
    fn fit(&self, data: &View<'_>, _rng: &mut Rng) -> Result<Model> {
        if self.bins == 0 {
            return Err(Error::invalid("nb-binned: bins must be at least 1"));
        }
        let rows = Rows::collapsed(data, "binned naive Bayes")?;
        let (d, b) = (rows.d, self.bins);
        // The table of log probabilities: a bin of every feature per class.
        crate::limits::check_memory(
            &format!("nb-binned(bins={b}) on {d} features and {} classes", rows.k),
            b as f64 * d as f64 * rows.k as f64 * 8.0,
        )?;
        let mut lo = vec![f64::INFINITY; d];
        let mut hi = vec![f64::NEG_INFINITY; d];
        for i in 0..rows.n() {
            for (j, &v) in rows.row(i).iter().enumerate() {
                lo[j] = lo[j].min(v);
                hi[j] = hi[j].max(v);
            }
        }
        let width: Vec<f64> = lo
            .iter()
            .zip(&hi)
            .map(|(l, h)| (h - l) / b as f64)
            .collect();
        let classes = rows.present();
        let tot = rows.class_weights();
        let all: f64 = tot.iter().sum();
        let mut slot = vec![0; rows.k];
        for (s, &c) in classes.iter().enumerate() {
            slot[c] = s;
        }
        let mut counts = vec![0.0; classes.len() * d * b];
        for i in 0..rows.n() {
            let s = slot[rows.y[i]];
            for (j, &v) in rows.row(i).iter().enumerate() {
                counts[(s * d + j) * b + bin_of(lo[j], width[j], b, v)] += rows.w[i];
            }
        }
        for (s, &c) in classes.iter().enumerate() {
            let denom = tot[c] + b as f64;
            counts[s * d * b..(s + 1) * d * b]
                .iter_mut()
                .for_each(|v| *v = ((*v + 1.0) / denom).ln());
        }
        Ok(Model::new(BinnedNbModel {
            k: rows.k,
            d,
            bins: b,
            lo,
            width,
            log_prior: classes.iter().map(|&c| (tot[c] / all).ln()).collect(),
            classes,
            log_p: counts,
        }))
    }

    fn name(&self) -> String {
        format!("nb-binned(bins={})", self.bins)
    }
}
