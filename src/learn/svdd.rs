//! One-class support vector data description (Tax & Duin 2004), in the
//! lecture's formulation (Kim, "SVDD"): the smallest hypersphere in kernel
//! space, centre `c` and radius `r`, holding the rows of one class up to
//! slacks,
//!
//! ```text
//! min r^2 + 1/(nu n) sum_i xi_i   s.t.  ||phi(x_i) - c||^2 <= r^2 + xi_i,
//! ```
//!
//! solved in its dual `max sum_i a_i K_ii - sum_ij a_i a_j K_ij` with
//! `sum a_i = 1`, `0 <= a_i <= 1/(nu n)` by the SMO solver of
//! [`crate::learn::svm`] (row weights `w_i` scale the bounds to
//! `w_i / (nu W)`). At most a fraction `nu` of the rows lie outside the
//! sphere and at least `nu` are support vectors. The squared distance of a
//! row to the centre is `K(x,x) - 2 sum_i a_i K(x_i, x) + sum_ij a_i a_j
//! K_ij`; `r^2` is its mean over the support vectors strictly inside the
//! bounds (the midpoint of the feasible interval when there are none).
//!
//! It learns the *normal* class only (the largest class of the fitted rows
//! unless one is named); the other rows are ignored. As a [`Model`] it
//! outputs an outlier probability, a logistic function of the distance
//! beyond the sphere, `p_out(x) = 1 / (1 + exp(-(d^2(x) - r^2) / s))` with
//! `s` the mean of `|d^2(x_i) - r^2|` over the training rows: 1/2 on the
//! sphere, increasing with the distance (so ranking metrics apply). The
//! normal class gets `1 - p_out` and the other classes share `p_out`
//! equally (for a binary task: the positive class gets `p_out`).

use crate::check;
use crate::learn::{shape, Classifier, Kind};
use serde::{Deserialize, Serialize};

use crate::data::View;
use crate::error::{Error, Result};
use crate::learn::rows::{sigmoid, Rows};
use crate::learn::svm::kernel::{Gram, Kernel};
use crate::learn::svm::smo::{self, Dual};
use crate::learn::svm::{Gamma, KernelKind};
use crate::learn::{Learner, Model};
use crate::params::{params, Bounds, ParamType, Value};
use crate::rng::Rng;

/// Which class is the normal one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Normal {
    /// The class with the largest (weighted) share of the fitted rows.
    Majority,
    /// A given class id.
    Class(usize),
}

/// `majority` or a class id.
impl ParamType for Normal {
    fn from_value(v: &Value) -> std::result::Result<Self, String> {
        match v.word() {
            Some("majority") => Ok(Normal::Majority),
            _ => usize::from_value(v).map(Normal::Class),
        }
    }
    fn expected() -> String {
        "majority or a class id".into()
    }
    fn to_text(&self) -> String {
        match self {
            Normal::Majority => "majority".into(),
            Normal::Class(c) => c.to_string(),
        }
    }
}

params! {
    /// The SVDD learner (hyper-parameters).
    ///
    /// ```
    /// use rarity::data::Dataset;
    /// use rarity::learn::{Learner, svdd::Svdd};
    /// let mut rows: Vec<Vec<f64>> = (0..50).map(|i| vec![(i % 7) as f64 * 0.1, (i % 5) as f64 * 0.1]).collect();
    /// rows.push(vec![5.0, 5.0]);
    /// let mut y = vec![0; 50];
    /// y.push(1);
    /// let ds = Dataset::from_rows(rows, y, vec!["normal".into(), "odd".into()]).unwrap();
    /// let idx: Vec<usize> = (0..51).collect();
    /// let m = Svdd::default().fit(&ds.view(&idx), &mut rarity::rng::stream(0, 0)).unwrap();
    /// let p = m.predict_proba(&ds).unwrap();
    /// assert!(p.row(50)[1] > 0.9 && p.row(0)[1] < p.row(50)[1]);
    /// ```
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Svdd {
        /// Target fraction of rows outside the sphere.
        pub nu: f64 = 0.05 => Bounds::left_open(0.0, 1.0),
        /// Kernel family.
        pub kernel: KernelKind = KernelKind::Rbf,
        /// RBF width.
        pub gamma: Gamma = Gamma::Scale,
        /// The class to describe.
        pub normal: Normal = Normal::Majority,
        /// SMO tolerance (maximal KKT violation), on the scale of LIBSVM's
        /// one-class SVM (multipliers in `[0, 1]` summing to `nu n`), so the
        /// same value means the same accuracy as scikit-learn's `OneClassSVM`.
        pub tol: f64 = 1e-3 => Bounds::positive(),
        /// Kernel cache size in MB.
        pub cache_mb: f64 = 200.0 => Bounds::positive(),
    }
}

/// A fitted SVDD.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SvddModel {
    k: usize,
    d: usize,
    kernel: Kernel,
    normal: usize,
    /// Support vectors (row-major), their squared norms and multipliers.
    sv: Vec<f64>,
    sv_norms: Vec<f64>,
    alpha: Vec<f64>,
    /// `sum_ij a_i a_j K_ij`.
    aka: f64,
    /// Squared radius.
    r2: f64,
    /// Scale of the logistic map.
    scale: f64,
}

impl Kind for SvddModel {
    const KIND: &'static str = "Svdd";
}

impl SvddModel {
    /// The squared radius of the sphere.
    pub fn radius2(&self) -> f64 {
        self.r2
    }

    /// The squared kernel distance of `x` to the centre.
    pub fn distance2(&self, x: &[f64]) -> f64 {
        self.distances2(x)[0]
    }

    /// The squared kernel distances of consecutive rows (`x` row-major) to
    /// the centre; the kernel values against the support vectors are
    /// computed for blocks of rows at a time.
    fn distances2(&self, x: &[f64]) -> Vec<f64> {
        let (d, m) = (self.d, self.alpha.len());
        let xx: Vec<f64> = x
            .chunks_exact(d)
            .map(|r| r.iter().map(|v| v * v).sum())
            .collect();
        let mut kx = vec![0.0; xx.len() * m];
        self.kernel
            .eval_rows(x, &xx, &self.sv, &self.sv_norms, d, &mut kx);
        x.chunks_exact(d)
            .zip(&xx)
            .enumerate()
            .map(|(r, (xi, &xn))| {
                let ki = &kx[r * m..(r + 1) * m];
                let kxx = self.kernel.eval(xi, xi, xn, xn);
                let cross: f64 = ki.iter().zip(&self.alpha).map(|(k, a)| a * k).sum();
                (kxx - 2.0 * cross + self.aka).max(0.0)
            })
            .collect()
    }
}

impl Classifier for SvddModel {
    shape!(k, d);

    /// Class probabilities of one row (see the module doc).
    fn predict_row(&self, x: &[f64], out: &mut [f64]) {
        self.predict_rows(x, out);
    }

    /// Class probabilities of consecutive rows: `x` is row-major `n x d`,
    /// `out` row-major `n x k`.
    fn predict_rows(&self, x: &[f64], out: &mut [f64]) {
        for (d2, out) in self.distances2(x).into_iter().zip(out.chunks_mut(self.k)) {
            let p = sigmoid((d2 - self.r2) / self.scale);
            let share = p / (self.k as f64 - 1.0).max(1.0);
            out.iter_mut().for_each(|o| *o = share);
            out[self.normal] = if self.k > 1 { 1.0 - p } else { 1.0 };
        }
    }

    /// Checks shapes.
    fn validate(&self) -> std::result::Result<(), String> {
        let m = self.alpha.len();
        let ok = self.normal < self.k
            && self.sv.len() == m * self.d
            && self.sv_norms.len() == m
            && self.scale > 0.0
            && self.scale.is_finite();
        if !ok {
            return Err("SVDD model: inconsistent shapes".into());
        }
        self.kernel.validate()?;
        check::finite("SVDD support vector", &self.sv)?;
        check::non_negative("SVDD support vector norm", &self.sv_norms)?;
        check::finite("SVDD multiplier", &self.alpha)?;
        check::finite("SVDD constant", &[self.aka, self.r2])
    }
}

impl Svdd {
    /// The class the sphere describes, which must have training rows.
    fn normal_class(&self, rows: &Rows, data: &View<'_>) -> Result<usize> {
        let tot = rows.class_weights();
        let normal = match self.normal {
            Normal::Class(c) if c < rows.k => c,
            Normal::Class(c) => {
                return Err(Error::invalid(format!(
                    "svdd: normal class {c} does not exist (there are {} classes)",
                    rows.k
                )))
            }
            Normal::Majority => (0..rows.k).fold(0, |b, c| if tot[c] > tot[b] { c } else { b }),
        };
        if tot[normal] <= 0.0 {
            return Err(Error::data(format!(
                "svdd: the normal class '{}' has no training rows",
                data.data().class_names()[normal]
            )));
        }
        Ok(normal)
    }
}

impl Learner for Svdd {
    fn fit(&self, data: &View<'_>, _rng: &mut Rng) -> Result<Model> {
        if !(self.nu > 0.0 && self.nu <= 1.0) {
            return Err(Error::invalid(format!(
                "svdd: nu={} is invalid; expected a number in (0, 1]",
                self.nu
            )));
        }
        if !(self.tol > 0.0 && self.cache_mb > 0.0) {
            return Err(Error::invalid("svdd: tol and cache_mb must be > 0"));
        }
        let rows = Rows::collapsed(data, "SVDD")?;
        let normal = self.normal_class(&rows, data)?;
        let d = rows.d;
        let idx: Vec<usize> = (0..rows.n()).filter(|&i| rows.y[i] == normal).collect();
        let x: Vec<f64> = idx
            .iter()
            .flat_map(|&i| rows.row(i).iter().copied())
            .collect();
        let w: Vec<f64> = idx.iter().map(|&i| rows.w[i]).collect();
        let kernel = match self.kernel {
            KernelKind::Linear => Kernel::Linear,
            KernelKind::Rbf => Kernel::Rbf {
                gamma: self.gamma.resolve(&x, d),
            },
        };
        let n = idx.len();
        let wsum: f64 = w.iter().sum();
        let upper: Vec<f64> = w.iter().map(|v| v / (self.nu * wsum)).collect();
        let alpha = feasible_start(&upper);
        let gram = Gram::new(kernel, &x, d);
        let diag: Vec<f64> = (0..n).map(|i| gram.entry(i, i)).collect();
        let sol = smo::solve(
            Dual {
                gram: &gram,
                y: vec![1.0; n],
                p: diag.iter().map(|v| -v).collect(),
                upper: upper.clone(),
                scale: 2.0,
                alpha,
                max_iter: None,
            },
            // The tolerance applies to LIBSVM's one-class scaling, whose
            // multipliers are nu W times these (sum nu W, bounds w_i): the
            // gradient here is 2 / (nu W) times that one's.
            self.tol * 2.0 / (self.nu * wsum),
            (self.cache_mb * 1024.0 * 1024.0) as usize,
        );
        // G = 2 K a - diag(K): (K a)_i = (G_i + K_ii) / 2.
        let ka: Vec<f64> = (0..n).map(|i| (sol.grad[i] + diag[i]) / 2.0).collect();
        let aka: f64 = sol.alpha.iter().zip(&ka).map(|(a, b)| a * b).sum();
        let dist2: Vec<f64> = (0..n)
            .map(|i| (diag[i] - 2.0 * ka[i] + aka).max(0.0))
            .collect();
        let r2 = radius2(&sol.alpha, &upper, &dist2);
        let spread: f64 = dist2
            .iter()
            .zip(&w)
            .map(|(v, wi)| wi * (v - r2).abs())
            .sum::<f64>()
            / wsum;
        let scale = if spread > 0.0 {
            spread
        } else {
            1e-12 * r2.abs().max(1.0)
        };
        let keep: Vec<usize> = (0..n).filter(|&i| sol.alpha[i] > 0.0).collect();
        let sv: Vec<f64> = keep
            .iter()
            .flat_map(|&i| gram.row(i).iter().copied())
            .collect();
        Ok(Model::new(SvddModel {
            k: rows.k,
            d,
            kernel,
            normal,
            sv_norms: keep.iter().map(|&i| gram.norms[i]).collect(),
            alpha: keep.iter().map(|&i| sol.alpha[i]).collect(),
            sv,
            aka,
            r2,
            scale,
        }))
    }

    fn name(&self) -> String {
        let k = match self.kernel {
            KernelKind::Linear => "linear".to_string(),
            KernelKind::Rbf => format!("rbf,gamma={}", self.gamma.to_text()),
        };
        format!(
            "svdd(nu={},kernel={k},normal={})",
            self.nu,
            self.normal.to_text()
        )
    }
}

/// A feasible start of the dual: fill the bounds `upper` in order until
/// the multipliers sum to 1.
fn feasible_start(upper: &[f64]) -> Vec<f64> {
    let mut alpha = vec![0.0; upper.len()];
    let mut left = 1.0;
    for (a, &u) in alpha.iter_mut().zip(upper) {
        *a = u.min(left);
        left -= *a;
        if left <= 0.0 {
            break;
        }
    }
    alpha
}

/// The squared radius of the sphere from the solution `alpha` (bounds
/// `upper`) and each row's squared distance to the centre `dist2`: the mean
/// over the free multipliers, else midway between the rows inside and
/// those outside.
fn radius2(alpha: &[f64], upper: &[f64], dist2: &[f64]) -> f64 {
    let (mut sum, mut free) = (0.0, 0usize);
    let (mut inside_max, mut outside_min) = (f64::NEG_INFINITY, f64::INFINITY);
    for (i, &a) in alpha.iter().enumerate() {
        if a <= 0.0 {
            inside_max = inside_max.max(dist2[i]);
        } else if a >= upper[i] {
            outside_min = outside_min.min(dist2[i]);
        } else {
            sum += dist2[i];
            free += 1;
        }
    }
    if free > 0 {
        sum / free as f64
    } else if inside_max.is_finite() && outside_min.is_finite() {
        (inside_max + outside_min) / 2.0
    } else if inside_max.is_finite() {
        inside_max
    } else {
        outside_min
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Dataset;
    use rand::RngExt;

    /// Two Gaussian blobs: 600 normal rows around 0, 60 others around 4.
    fn blobs() -> Dataset {
        let mut rng = crate::rng::stream(11, 0);
        let mut gauss = || {
            // Box-Muller.
            let (u, v): (f64, f64) = (rng.random::<f64>().max(1e-300), rng.random());
            (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
        };
        let mut rows = Vec::new();
        let mut y = Vec::new();
        for i in 0..660 {
            let c = u32::from(i >= 600);
            let centre = 4.0 * c as f64;
            rows.push(vec![centre + gauss(), centre + gauss()]);
            y.push(c);
        }
        Dataset::from_rows(rows, y, vec!["normal".into(), "odd".into()]).unwrap()
    }

    #[test]
    fn fraction_outside_is_close_to_nu_and_outliers_rank_high() {
        let ds = blobs();
        let idx: Vec<usize> = (0..ds.n_rows()).collect();
        for nu in [0.05, 0.1, 0.2] {
            let l = Svdd {
                nu,
                tol: 1e-5,
                ..Svdd::default()
            };
            let fitted = l
                .fit(&ds.view(&idx), &mut crate::rng::stream(0, 0))
                .unwrap();
            let m = fitted.downcast_ref::<SvddModel>().expect("an SVDD model");
            let outside = (0..600)
                .filter(|&i| m.distance2(ds.row(i)) > m.radius2() * (1.0 + 1e-6))
                .count() as f64
                / 600.0;
            eprintln!("nu {nu}: {outside} outside");
            assert!((outside - nu).abs() < 0.02, "nu {nu}: {outside} outside");
            let p = fitted.predict_proba(&ds).unwrap().column(1);
            let auc = crate::metrics::ranking::roc_auc(ds.labels(), &p, 1).unwrap();
            assert!(auc > 0.95, "nu {nu}: AUC {auc}");
        }
    }
}
