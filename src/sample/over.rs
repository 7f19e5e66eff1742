//! Random oversampling with replacement (Kim's lecture notes, "up-sampling":
//! the small class is sampled with replacement until the classes reach the
//! wanted sizes), and the class-size targets shared with the SMOTE family.
//!
//! Every input row is kept once; the extra rows of class `c` are drawn
//! uniformly with replacement from that class, so the keep rate of `c` is
//! `target_c / N_c >= 1`.
//!
//! With `shrinkage`, the smoothed bootstrap (Menardi & Torelli 2014, ROSE,
//! the form imbalanced-learn's `shrinkage` takes): each extra row of class
//! `c` is its drawn row plus Gaussian noise, feature `j` of standard
//! deviation `shrinkage_c * h_c * s_cj`, with `s_cj` the class's sample
//! standard deviation of the feature and `h_c = (4 / ((d + 2) N_c))^(1 /
//! (d + 4))` (Silverman's rule for a `d`-variate normal kernel). A
//! shrinkage of 0 is the plain bootstrap.

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::params::{params, Bounds, Params};
use rand::RngExt;

use crate::rng::Rng;

use crate::sample::draw::{
    assemble_rows, majority_class, minority_class, two_class_counts, with_replacement,
};
use crate::sample::parts::{at_most_one, params_of_parts};
use crate::sample::{colon_list, spec, Sample, Sampler};

params! {
    /// The class sizes an oversampler aims at: at most one of `ratio`,
    /// `amount` and `counts`; with none, every class is brought up to the
    /// size of the largest.
    #[derive(Debug, Clone, PartialEq)]
    pub struct OverTarget {
        /// Every class other than the largest brought up to ratio * N_max
        /// (classes already that large left alone); at least N_min / N_max.
        pub ratio: Option<f64> = None => Bounds::positive(),
        /// SMOTE's amount N%: each class other than the largest gains
        /// round(N / 100 * N_c) rows (500 makes the minority six times larger).
        pub amount: Option<f64> = None => Bounds::at_least(0.0),
        /// Wanted size of each class, in class-id order (none below its size).
        pub counts: Option<Vec<usize>> = None,
    }
    check = one_target;
}

fn one_target(t: &OverTarget) -> Result<()> {
    at_most_one(
        &[t.ratio.is_some(), t.amount.is_some(), t.counts.is_some()],
        "give at most one of ratio, amount and counts (the class sizes to reach)",
    )
}

impl OverTarget {
    /// Wanted size of each class given the input `counts`, checked before
    /// anything is drawn: a sample of more rows (of `features` features)
    /// than the row limit or the memory available allows is an error that
    /// says how much it would need ([`crate::limits::check_rows`]).
    pub fn sizes(&self, counts: &[usize], features: usize) -> Result<Vec<usize>> {
        let sizes = self.wanted(counts)?;
        let what = match self.spec() {
            s if s.is_empty() => "oversampling".to_string(),
            s => format!("oversampling to {s}"),
        };
        crate::limits::check_rows(&what, sizes.iter().sum(), features)?;
        // Each size is at most the total just checked, so the casts are exact.
        Ok(sizes.iter().map(|&s| s as usize).collect())
    }

    /// Wanted size of each class given the input `counts`, as numbers (a
    /// user's ratio or amount may ask for more than a `usize` holds).
    fn wanted(&self, counts: &[usize]) -> Result<Vec<f64>> {
        self.check()?;
        let big = majority_class(counts);
        let nmax = counts[big];
        if let Some(r) = self.ratio {
            let nmin = counts[minority_class(counts)];
            let lo = nmin as f64 / nmax as f64;
            if !(r.is_finite() && r >= lo) {
                return Err(Error::invalid(format!(
                    "ratio = {r} is below its valid minimum N_min/N_max = {lo:.6} \
                     ({nmin} / {nmax}): oversampling cannot shrink a class"
                )));
            }
            let want = (r * nmax as f64).round();
            return Ok(counts
                .iter()
                .enumerate()
                .map(|(c, &n)| {
                    let n = n as f64;
                    if c == big || n == 0.0 {
                        n
                    } else {
                        n.max(want)
                    }
                })
                .collect());
        }
        if let Some(p) = self.amount {
            return Ok(counts
                .iter()
                .enumerate()
                .map(|(c, &n)| {
                    let n = n as f64;
                    if c == big {
                        n
                    } else {
                        n + (p / 100.0 * n).round()
                    }
                })
                .collect());
        }
        let Some(want) = &self.counts else {
            return Ok(counts
                .iter()
                .map(|&n| if n == 0 { 0.0 } else { nmax as f64 })
                .collect());
        };
        if want.len() != counts.len() {
            return Err(Error::invalid(format!(
                "{} class sizes given for {} classes",
                want.len(),
                counts.len()
            )));
        }
        for (c, (&w, &n)) in want.iter().zip(counts).enumerate() {
            if w < n {
                return Err(Error::invalid(format!(
                    "class {c} has {n} rows; oversampling cannot bring it down to {w}"
                )));
            }
            if n == 0 && w > 0 {
                return Err(Error::data(format!(
                    "class {c} has no rows to oversample from"
                )));
            }
        }
        Ok(want.iter().map(|&w| w as f64).collect())
    }

    /// The target as it appears in a sampler name (`ratio=0.5`, `amount=200`,
    /// `counts=100:100`; empty for balance).
    pub(crate) fn spec(&self) -> String {
        if let Some(r) = self.ratio {
            format!("ratio={r}")
        } else if let Some(p) = self.amount {
            format!("amount={p}")
        } else if let Some(v) = &self.counts {
            format!("counts={}", colon_list(v))
        } else {
            String::new()
        }
    }
}

params! {
    /// The smoothed bootstrap of random oversampling.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Smoothing {
        /// Noise added to each extra row, as a multiple of the kernel's
        /// bandwidth: one value for every class or one per class in
        /// class-id order (none: the plain bootstrap).
        pub shrinkage: Option<Vec<f64>> = None => Bounds::at_least(0.0),
    }
}

/// Random oversampling with replacement.
///
/// ```
/// use rarity::data::Dataset;
/// use rarity::sample::{OverTarget, RandomOver, Sampler};
/// let ds = Dataset::from_rows(vec![vec![0.0]; 5], vec![0, 0, 0, 0, 1],
///                             vec!["n".into(), "p".into()]).unwrap();
/// let s = RandomOver::default().resample(&ds, &mut rarity::rng::stream(1, 0)).unwrap();
/// assert_eq!(s.keep_rates, vec![1.0, 4.0]);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RandomOver {
    /// The class sizes to reach.
    pub target: OverTarget,
    /// The smoothed bootstrap, if asked.
    pub smoothing: Smoothing,
}

params_of_parts!(RandomOver: target, smoothing);

impl RandomOver {
    /// Oversampling to `target`.
    pub fn new(target: OverTarget) -> Self {
        RandomOver {
            target,
            smoothing: Smoothing::default(),
        }
    }

    /// Per class, the shrinkage of its extra rows (0: plain copies).
    fn shrinkage(&self, data: &Dataset) -> Result<Vec<f64>> {
        let k = data.n_classes();
        let per_class = match self.smoothing.shrinkage.as_deref() {
            None => vec![0.0; k],
            Some([one]) => vec![*one; k],
            Some(v) if v.len() == k => v.to_vec(),
            Some(v) => {
                return Err(Error::invalid(format!(
                    "over: {} shrinkage values given for {k} classes; give one, or one per class",
                    v.len()
                )))
            }
        };
        if per_class.iter().any(|&s| s > 0.0) && !data.categorical_features().is_empty() {
            return Err(Error::invalid(
                "over: the smoothed bootstrap (shrinkage > 0) adds noise to numbers; \
                 the table has categorical features",
            ));
        }
        Ok(per_class)
    }
}

/// Per feature, the sample standard deviation (`n - 1`) of the rows `pool`.
fn sample_sd(data: &Dataset, pool: &[usize]) -> Vec<f64> {
    let d = data.n_features();
    let n = pool.len() as f64;
    let mut mean = vec![0.0; d];
    for &i in pool {
        mean.iter_mut().zip(data.row(i)).for_each(|(m, v)| *m += v);
    }
    mean.iter_mut().for_each(|m| *m /= n);
    let mut ss = vec![0.0; d];
    for &i in pool {
        for ((s, v), m) in ss.iter_mut().zip(data.row(i)).zip(&mean) {
            *s += (v - m) * (v - m);
        }
    }
    ss.iter()
        .map(|s| if n > 1.0 { (s / (n - 1.0)).sqrt() } else { 0.0 })
        .collect()
}

/// A standard normal draw (Box-Muller on two uniforms).
fn normal(rng: &mut Rng) -> f64 {
    let u: f64 = 1.0 - rng.random::<f64>();
    let v: f64 = rng.random();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// Appends to `values` the rows `drawn` of `data`, each plus the smoothed
/// bootstrap's noise (`shrinkage` times the bandwidth of the rows `pool`).
fn smoothed(
    data: &Dataset,
    pool: &[usize],
    drawn: &[usize],
    shrinkage: f64,
    rng: &mut Rng,
    values: &mut Vec<f64>,
) {
    let d = data.n_features() as f64;
    let h = (4.0 / ((d + 2.0) * pool.len() as f64)).powf(1.0 / (d + 4.0));
    let scale: Vec<f64> = sample_sd(data, pool)
        .into_iter()
        .map(|s| shrinkage * h * s)
        .collect();
    for &i in drawn {
        for (v, s) in data.row(i).iter().zip(&scale) {
            values.push(v + s * normal(rng));
        }
    }
}

impl Sampler for RandomOver {
    /// Rows are drawn by class, never by their values.
    fn handles_missing(&self) -> bool {
        true
    }

    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        let counts = two_class_counts(data, "oversampling")?;
        let sizes = self.target.sizes(&counts, data.n_features())?;
        let shrinkage = self.shrinkage(data)?;
        let mut rows: Vec<usize> = (0..data.n_rows()).collect();
        let (mut values, mut labels) = (Vec::new(), Vec::new());
        for (c, pool) in data.rows_by_class().iter().enumerate() {
            let drawn = with_replacement(pool, sizes[c] - counts[c], rng);
            if shrinkage[c] > 0.0 {
                smoothed(data, pool, &drawn, shrinkage[c], rng, &mut values);
                labels.extend(std::iter::repeat_n(c as u32, drawn.len()));
            } else {
                rows.extend(drawn);
            }
        }
        let mut s = assemble_rows(data, rows, Vec::new());
        if !labels.is_empty() {
            s.synthetic_values = values;
            s.synthetic_labels = labels;
            s.keep_rates = s.compute_keep_rates(data);
        }
        Ok(s)
    }

    fn synthesizes(&self) -> bool {
        self.smoothing
            .shrinkage
            .as_ref()
            .is_some_and(|v| v.iter().any(|&s| s > 0.0))
    }

    fn name(&self) -> String {
        let shrink = self
            .smoothing
            .shrinkage
            .as_ref()
            .map(|v| format!("shrinkage={}", colon_list(v)))
            .unwrap_or_default();
        spec("over", &[self.target.spec(), shrink])
    }
}
