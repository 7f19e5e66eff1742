//! Support vector machines: C-SVC with linear or RBF kernels.
//!
//! - Training solves the C-SVC dual (Cortes & Vapnik 1995) with per-row
//!   bounds `C_i = C x class weight x row weight` (a row repeated in a bag
//!   counts once with its copies summed into the weight, which is the same
//!   problem), by SMO with second-order working set selection
//!   (module `smo`) and an LRU kernel cache: LIBSVM's algorithm, so the
//!   decision values agree with scikit-learn's `SVC` (which wraps LIBSVM)
//!   up to the solvers' tolerance.
//! - With the linear kernel, when SMO from zero has not converged after
//!   `LINEAR_BUDGET + 40 d^2 / (d + 4)` steps (about the interior-point
//!   method's work), it restarts from the solution of an
//!   interior-point method finished by an active-set solve (module
//!   `interior`) and polishes it for at most `POLISH_ITER + 20 n` steps.
//!   On unscaled features (`C = 1`, kernel values of 10^6 and more) SMO from
//!   zero, LIBSVM's included, needs millions of steps (scikit-learn's `SVC`
//!   runs for minutes on pima-sized sets); from this start it usually
//!   needs none. Where the kernel values exceed what the `f32` column cache
//!   and `f64` gradients resolve, no solver meets the tolerance; the cap
//!   stops the polish instead of LIBSVM's `10^7`-step limit.
//! - `gamma=scale` is scikit-learn's `1 / (d Var(X))` (variance of all
//!   feature values of the rows given, 1 when it is 0).
//! - Several classes: one-vs-one (Knerr et al. 1990; LIBSVM's scheme), one
//!   binary machine per pair of classes present.
//! - Probabilities: for each machine, Platt scaling
//!   ([`crate::calibrate::Platt`]) fitted on decision values from internal
//!   `folds`-fold cross-validation on its rows (as LIBSVM's
//!   `svm_binary_svc_probability`; a training fold with one class gives the
//!   held-out rows a decision of +-1); with more than two classes the
//!   pairwise probabilities are coupled by the second method of Wu, Lin &
//!   Weng (2004, "Probability estimates for multi-class classification by
//!   pairwise coupling", JMLR 5, eq. (21) solved by their Algorithm 2).
//!   The folds are drawn from the fit's random stream. Platt's fit ignores
//!   row weights.

mod coupling;
mod interior;
pub(crate) mod kernel;
pub(crate) mod smo;

use crate::check;
use crate::learn::{shape, Classifier, Kind};
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

pub use kernel::Kernel;

use self::kernel::Gram;
use self::smo::Dual;
use crate::calibrate::Platt;
use crate::data::View;
use crate::error::{Error, Result};
use crate::learn::linalg::dot;
use crate::learn::naive_bayes::scatter;
use crate::learn::rows::{ClassWeight, Rows};
use crate::learn::{Learner, Model};
use crate::params::{choice, params, word_or_number, Bounds, ParamType};
use crate::rng::Rng;

choice! {
    /// The kernel family of an [`Svm`].
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    pub enum KernelKind {
        /// Linear kernel.
        Linear = "linear",
        /// Gaussian RBF kernel.
        Rbf = "rbf",
    }
}

/// The RBF width.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Gamma {
    /// `1 / (d Var(X))` (scikit-learn's default).
    Scale,
    /// `1 / d`.
    Auto,
    /// A given value (> 0).
    Value(f64),
}

impl Gamma {
    /// The value for training rows `x` (row-major, `d` columns).
    pub(crate) fn resolve(&self, x: &[f64], d: usize) -> f64 {
        match *self {
            Gamma::Value(g) => g,
            Gamma::Auto => 1.0 / d as f64,
            Gamma::Scale => {
                let n = x.len() as f64;
                let mean = x.iter().sum::<f64>() / n;
                let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
                if var > 0.0 {
                    1.0 / (d as f64 * var)
                } else {
                    1.0
                }
            }
        }
    }
}

word_or_number!(
    Gamma { Scale = "scale", Auto = "auto" },
    |x| x > 0.0,
    "scale, auto or a positive number"
);

params! {
    /// The SVM learner (hyper-parameters).
    ///
    /// ```
    /// use rarity::data::Dataset;
    /// use rarity::learn::{Learner, svm::Svm};
    /// let ds = Dataset::from_rows((0..40).map(|i| vec![(i % 20) as f64, (i / 20) as f64]).collect(),
    ///     (0..40).map(|i| u32::from(i % 20 >= 10)).collect(), vec!["n".into(), "p".into()]).unwrap();
    /// let rows: Vec<usize> = (0..40).collect();
    /// let m = Svm::default().fit(&ds.view(&rows), &mut rarity::rng::stream(0, 0)).unwrap();
    /// let p = m.predict_proba(&ds).unwrap();
    /// assert!(p.row(19)[1] > 0.5 && p.row(0)[1] < 0.5);
    /// ```
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Svm {
        /// Kernel family.
        pub kernel: KernelKind = KernelKind::Rbf,
        /// Box constraint.
        pub c: f64 = 1.0 => Bounds::positive(),
        /// RBF width (ignored by the linear kernel).
        pub gamma: Gamma = Gamma::Scale,
        /// Class weights multiplying `C`.
        pub class_weight: ClassWeight = ClassWeight::None,
        /// Stopping tolerance of SMO (maximal KKT violation).
        pub tol: f64 = 1e-3 => Bounds::positive(),
        /// Kernel cache size in MB (per machine being trained).
        pub cache_mb: f64 = 200.0 => Bounds::positive(),
        /// Folds of the internal cross-validation for Platt scaling.
        pub folds: usize = 5 => Bounds::at_least(2.0),
    }
}

/// SMO iterations (plus `40 d^2 / (d + 4)`) from zero after which a
/// linear problem is handed to the interior-point method.
const LINEAR_BUDGET: usize = 1_000;
/// SMO iterations (plus `20 n`) allowed after an interior-point start.
const POLISH_ITER: usize = 100_000;

/// One binary machine of a fitted [`SvmModel`]: positive decisions favour
/// class `first`, negative ones class `second`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairMachine {
    first: usize,
    second: usize,
    /// Support vector indices into the model's table and their `a_i y_i`.
    sv: Vec<u32>,
    coef: Vec<f64>,
    /// The linear kernel's weight vector (empty for RBF).
    w: Vec<f64>,
    rho: f64,
    platt: Platt,
}

/// A fitted SVM.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SvmModel {
    k: usize,
    d: usize,
    kernel: Kernel,
    /// Classes present in training.
    classes: Vec<usize>,
    /// Support vectors, row-major (empty for the linear kernel).
    sv: Vec<f64>,
    sv_norms: Vec<f64>,
    machines: Vec<PairMachine>,
}

impl Kind for SvmModel {
    const KIND: &'static str = "Svm";
}

impl SvmModel {
    /// Number of distinct support vectors (0 for the linear kernel, which
    /// keeps weight vectors instead).
    pub fn n_support(&self) -> usize {
        self.sv_norms.len()
    }

    /// Decision values of one row, one per machine (class pairs in
    /// lexicographic order of class ids, positive favouring the first).
    /// With two classes the single value is negated so that positive
    /// favours the higher class id (scikit-learn's binary convention).
    pub fn decision_function(&self, x: &[f64]) -> Vec<f64> {
        let mut v = self.raw_decisions(x);
        if v.len() == 1 {
            v[0] = -v[0];
        }
        v
    }

    /// Decision values of consecutive rows (`x` row-major), row-major
    /// `rows x machines`. The kernel values against the support vectors are
    /// computed for blocks of rows at a time ([`Kernel`]'s `eval_rows`).
    fn raw_decisions(&self, x: &[f64]) -> Vec<f64> {
        let d = self.d;
        let nsv = self.sv_norms.len();
        let mut kx = vec![0.0; x.len() / d * nsv];
        if nsv > 0 {
            let xx: Vec<f64> = x.chunks_exact(d).map(|r| dot(r, r)).collect();
            self.kernel
                .eval_rows(x, &xx, &self.sv, &self.sv_norms, d, &mut kx);
        }
        let mut out = Vec::with_capacity(x.len() / d * self.machines.len());
        for (r, xi) in x.chunks_exact(d).enumerate() {
            let ki = &kx[r * nsv..(r + 1) * nsv];
            out.extend(self.machines.iter().map(|m| {
                let f = if m.w.is_empty() {
                    m.sv.iter()
                        .zip(&m.coef)
                        .map(|(&i, c)| c * ki[i as usize])
                        .sum::<f64>()
                } else {
                    dot(&m.w, xi)
                };
                f - m.rho
            }));
        }
        out
    }

    /// Class probabilities from one row's decision values.
    fn probabilities(&self, dec: &[f64], out: &mut [f64]) {
        if self.classes.len() == 2 {
            let p = self.machines[0].platt.apply(dec[0]);
            scatter(&self.classes, &[p, 1.0 - p], out);
            return;
        }
        let m = self.classes.len();
        let mut slot = vec![0; self.k];
        for (s, &c) in self.classes.iter().enumerate() {
            slot[c] = s;
        }
        let mut r = vec![0.0; m * m];
        for (mach, &f) in self.machines.iter().zip(dec) {
            let p = mach.platt.apply(f).clamp(1e-7, 1.0 - 1e-7);
            let (a, b) = (slot[mach.first], slot[mach.second]);
            r[a * m + b] = p;
            r[b * m + a] = 1.0 - p;
        }
        let p = coupling::couple(&r, m);
        scatter(&self.classes, &p, out);
    }
}

impl Classifier for SvmModel {
    shape!(k, d);

    fn predict_row(&self, x: &[f64], out: &mut [f64]) {
        self.predict_rows(x, out);
    }

    /// Class probabilities of consecutive rows: `x` is row-major `n x d`,
    /// `out` row-major `n x k`.
    fn predict_rows(&self, x: &[f64], out: &mut [f64]) {
        if self.classes.len() == 1 {
            out.chunks_mut(self.k)
                .for_each(|o| scatter(&self.classes, &[1.0], o));
            return;
        }
        let dec = self.raw_decisions(x);
        for (dec, o) in dec.chunks(self.machines.len()).zip(out.chunks_mut(self.k)) {
            self.probabilities(dec, o);
        }
    }

    /// Checks shapes and indices.
    fn validate(&self) -> std::result::Result<(), String> {
        let m = self.classes.len();
        let nsv = self.sv_norms.len();
        let ok = m >= 1
            && self.machines.len() == m * (m - 1) / 2
            && self.sv.len() == nsv * self.d
            && self.classes.iter().all(|&c| c < self.k)
            && self.machines.iter().all(|p| {
                p.first < self.k
                    && p.second < self.k
                    && p.sv.len() == p.coef.len()
                    && p.sv.iter().all(|&i| (i as usize) < nsv)
                    && (p.w.is_empty() || p.w.len() == self.d)
            });
        if !ok {
            return Err("SVM model: inconsistent shapes or indices".into());
        }
        check::classes("SVM model", &self.classes, self.k)?;
        self.kernel.validate()?;
        check::finite("SVM support vector", &self.sv)?;
        check::non_negative("SVM support vector norm", &self.sv_norms)?;
        for (i, p) in self.machines.iter().enumerate() {
            let numbers = [p.rho, p.platt.a, p.platt.b];
            check::finite(&format!("SVM machine {i} coefficient"), &p.coef)?;
            check::finite(&format!("SVM machine {i} weight"), &p.w)?;
            check::finite(
                &format!("SVM machine {i} offset or Platt parameter"),
                &numbers,
            )?;
        }
        Ok(())
    }
}

/// A trained binary machine on a subset: multipliers times labels and rho.
struct Trained {
    coef: Vec<f64>,
    rho: f64,
}

impl Svm {
    fn check(&self) -> Result<()> {
        let bad = |what: &str| Err(Error::invalid(format!("svm: {what}")));
        if !(self.c.is_finite() && self.c > 0.0) {
            return bad(&format!(
                "c={} is invalid; expected a positive number",
                self.c
            ));
        }
        if let Gamma::Value(g) = self.gamma {
            if !(g.is_finite() && g > 0.0) {
                return bad(&format!(
                    "gamma={g} is invalid; expected scale, auto or a positive number"
                ));
            }
        }
        let positive = |v: f64| v > 0.0 && v.is_finite();
        if !positive(self.tol) || !positive(self.cache_mb) || self.folds < 2 {
            return bad("tol and cache_mb must be > 0 and folds >= 2");
        }
        Ok(())
    }

    /// The support vectors of one binary C-SVC trained on the rows `x`
    /// (row-major, `d` features) with labels `positive` and unit weights:
    /// the rows whose dual coefficient is not zero, in row order (what
    /// SVM-SMOTE takes for the class border). No Platt scaling is fitted.
    pub fn support_rows(&self, x: &[f64], d: usize, positive: &[bool]) -> Result<Vec<usize>> {
        self.check()?;
        let kernel = match self.kernel {
            KernelKind::Linear => Kernel::Linear,
            KernelKind::Rbf => Kernel::Rbf {
                gamma: self.gamma.resolve(x, d),
            },
        };
        let y: Vec<f64> = positive
            .iter()
            .map(|&p| if p { 1.0 } else { -1.0 })
            .collect();
        if y.iter().all(|&v| v > 0.0) || y.iter().all(|&v| v < 0.0) {
            return Err(Error::data("svm: the rows hold one class only"));
        }
        let upper = vec![self.c; y.len()];
        let t = self.train(kernel, x, d, &y, &upper);
        Ok((0..y.len()).filter(|&i| t.coef[i] != 0.0).collect())
    }

    fn cache_bytes(&self) -> usize {
        (self.cache_mb * 1024.0 * 1024.0) as usize
    }

    /// Trains on the rows `x` with labels +-1 and bounds `upper` (for the
    /// linear kernel, by SMO with the interior-point fallback described in
    /// the module documentation).
    fn train(&self, kernel: Kernel, x: &[f64], d: usize, y: &[f64], upper: &[f64]) -> Trained {
        let n = y.len();
        let gram = Gram::new(kernel, x, d);
        let dual = |alpha: Vec<f64>, max_iter: Option<usize>| Dual {
            gram: &gram,
            y: y.to_vec(),
            p: vec![-1.0; n],
            upper: upper.to_vec(),
            scale: 1.0,
            alpha,
            max_iter,
        };
        // About the interior-point method's work (40 iterations of `n d^2`)
        // in SMO steps (`n d` each, and a margin): past it, the former wins.
        let budget = (kernel == Kernel::Linear).then_some(LINEAR_BUDGET + 40 * d * d / (d + 4));
        let mut sol = smo::solve(dual(vec![0.0; n], budget), self.tol, self.cache_bytes());
        if !sol.converged && kernel == Kernel::Linear {
            // A hard linear problem: polish the interior-point solution, or
            // (should that method break down) carry on to LIBSVM's limit.
            sol = match interior::start(x, d, y, upper) {
                Some(start) => smo::solve(
                    dual(start, Some(POLISH_ITER + 20 * n)),
                    self.tol,
                    self.cache_bytes(),
                ),
                None => smo::solve(dual(sol.alpha, None), self.tol, self.cache_bytes()),
            };
        }
        Trained {
            coef: sol.alpha.iter().zip(y).map(|(a, y)| a * y).collect(),
            rho: smo::rho(&sol, y, upper),
        }
    }

    /// Platt scaling on `folds`-fold cross-validated decision values.
    fn platt(
        &self,
        kernel: Kernel,
        x: &[f64],
        d: usize,
        y: &[f64],
        upper: &[f64],
        rng: &mut Rng,
    ) -> Result<Platt> {
        let n = y.len();
        let mut order: Vec<usize> = (0..n).collect();
        order.shuffle(rng);
        let folds = self.folds.min(n);
        let mut dec = vec![0.0; n];
        for f in 0..folds {
            let (lo, hi) = (f * n / folds, (f + 1) * n / folds);
            let test = &order[lo..hi];
            let train: Vec<usize> = order[..lo].iter().chain(&order[hi..]).copied().collect();
            let pos = train.iter().filter(|&&i| y[i] > 0.0).count();
            if pos == 0 || pos == train.len() {
                let v = if pos == 0 { -1.0 } else { 1.0 };
                test.iter().for_each(|&i| dec[i] = v);
                continue;
            }
            let tx: Vec<f64> = train
                .iter()
                .flat_map(|&i| x[i * d..(i + 1) * d].iter().copied())
                .collect();
            let ty: Vec<f64> = train.iter().map(|&i| y[i]).collect();
            let tu: Vec<f64> = train.iter().map(|&i| upper[i]).collect();
            let t = self.train(kernel, &tx, d, &ty, &tu);
            let gram = Gram::new(kernel, &tx, d);
            for &i in test {
                let xi = &x[i * d..(i + 1) * d];
                let xx: f64 = xi.iter().map(|v| v * v).sum();
                let mut s = -t.rho;
                for (j, &c) in t.coef.iter().enumerate() {
                    if c != 0.0 {
                        s += c * kernel.eval(gram.row(j), xi, gram.norms[j], xx);
                    }
                }
                dec[i] = s;
            }
        }
        let positive: Vec<bool> = y.iter().map(|&v| v > 0.0).collect();
        Platt::fit(&dec, &positive)
    }
}

impl Learner for Svm {
    fn fit(&self, data: &View<'_>, rng: &mut Rng) -> Result<Model> {
        self.check()?;
        let mut rows = Rows::collapsed(data, "an SVM")?;
        let factors = self.class_weight.factors(&rows)?;
        let (k, d) = (rows.k, rows.d);
        let kernel = match self.kernel {
            KernelKind::Linear => Kernel::Linear,
            KernelKind::Rbf => {
                let all: Vec<f64> = (0..data.len())
                    .flat_map(|i| data.row(i).iter().copied())
                    .collect();
                Kernel::Rbf {
                    gamma: self.gamma.resolve(&all, d),
                }
            }
        };
        rows.scale_classes(&factors);
        let classes: Vec<usize> = rows.present();
        let mut machines = Vec::new();
        let mut sv_of_row = vec![u32::MAX; rows.n()];
        let mut sv: Vec<f64> = Vec::new();
        for (ai, &a) in classes.iter().enumerate() {
            for &b in &classes[ai + 1..] {
                let idx: Vec<usize> = (0..rows.n())
                    .filter(|&i| rows.y[i] == a || rows.y[i] == b)
                    .collect();
                let x: Vec<f64> = idx
                    .iter()
                    .flat_map(|&i| rows.row(i).iter().copied())
                    .collect();
                let y: Vec<f64> = idx
                    .iter()
                    .map(|&i| if rows.y[i] == a { 1.0 } else { -1.0 })
                    .collect();
                let upper: Vec<f64> = idx.iter().map(|&i| self.c * rows.w[i]).collect();
                let t = self.train(kernel, &x, d, &y, &upper);
                let platt = self.platt(kernel, &x, d, &y, &upper, rng)?;
                let mut m = PairMachine {
                    first: a,
                    second: b,
                    sv: Vec::new(),
                    coef: Vec::new(),
                    w: Vec::new(),
                    rho: t.rho,
                    platt,
                };
                match kernel {
                    Kernel::Linear => {
                        m.w = vec![0.0; d];
                        for (j, &c) in t.coef.iter().enumerate() {
                            for (wv, xv) in m.w.iter_mut().zip(&x[j * d..(j + 1) * d]) {
                                *wv += c * xv;
                            }
                        }
                    }
                    Kernel::Rbf { .. } => {
                        for (j, &c) in t.coef.iter().enumerate() {
                            if c == 0.0 {
                                continue;
                            }
                            let r = idx[j];
                            if sv_of_row[r] == u32::MAX {
                                sv_of_row[r] = (sv.len() / d) as u32;
                                sv.extend_from_slice(rows.row(r));
                            }
                            m.sv.push(sv_of_row[r]);
                            m.coef.push(c);
                        }
                    }
                }
                machines.push(m);
            }
        }
        let sv_norms = sv
            .chunks(d)
            .map(|r| r.iter().map(|v| v * v).sum())
            .collect();
        Ok(Model::new(SvmModel {
            k,
            d,
            kernel,
            classes,
            sv,
            sv_norms,
            machines,
        }))
    }

    fn name(&self) -> String {
        let mut s = match self.kernel {
            KernelKind::Linear => format!("svm(kernel=linear,c={}", self.c),
            KernelKind::Rbf => {
                format!("svm(kernel=rbf,c={},gamma={}", self.c, self.gamma.to_text())
            }
        };
        if self.class_weight != ClassWeight::None {
            s += &format!(",class_weight={}", self.class_weight.to_text());
        }
        s + ")"
    }

    /// Platt scaling fitted on internally cross-validated decision values
    /// (ignoring row and class weights): calibrated.
    fn calibrated(&self) -> bool {
        true
    }
}
