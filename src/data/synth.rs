//! Synthetic data.
//!
//! - [`GaussianTask`]: the Dal Pozzolo et al. (2015, Sec. IV-D) task:
//!   negatives ~ N(0, sigma), positives ~ N(mu, sigma) in each of `d`
//!   independent features, a fixed share of positives. The true posterior is
//!   known in closed form, so calibration can be checked against the truth:
//!   `log p(+|x)/p(-|x) = log(pi+/pi-) + sum_j (2 mu x_j - mu^2) / (2 sigma^2)`.
//! - [`FraudTask`]: a credit-card-like table for scale work (`Time`, `V1..V28`,
//!   `Amount`): positives at 0.172% by default, drawn from several clusters
//!   that overlap the negatives, with a heavy-tailed amount. Written as CSV
//!   or Parquet in chunks with bounded memory, in parallel, identical for
//!   any thread count. The population (the fraud clusters) is fixed: the
//!   seed draws rows from it, so tables of two seeds are two samples of one
//!   population; [`FraudTask::drift`] replaces a share of the clusters by
//!   new ones drawn from the seed (a population that drifted).

use std::io::Write;
use std::path::Path;

use rand::RngExt;
use rayon::prelude::*;

use super::fraud_categories::FraudCategories;
use super::write::{AtomicFile, Block, Column, ColumnSpec, TableFormat, TableWriter};
use super::{Dataset, Schema};
use crate::error::{Error, Result};
use crate::rng::{shuffle, stream, Rng};

/// One standard normal draw (Box-Muller, cosine branch).
pub fn standard_normal(rng: &mut Rng) -> f64 {
    let u1: f64 = 1.0 - rng.random::<f64>(); // in (0, 1]
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// The Dal Pozzolo Gaussian task.
///
/// ```
/// use rarity::data::synth::GaussianTask;
/// let task = GaussianTask { n: 1000, ..GaussianTask::default() };
/// let (ds, posterior) = task.generate(1).unwrap();
/// assert_eq!(ds.class_counts(), vec![900, 100]);
/// assert_eq!(posterior.len(), 1000);
/// assert!(posterior.iter().all(|p| (0.0..=1.0).contains(p)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GaussianTask {
    /// Rows.
    pub n: usize,
    /// Features.
    pub d: usize,
    /// Share of positives (rounded to a whole number of rows).
    pub positive_rate: f64,
    /// Mean of the positives in every feature (negatives have mean 0).
    pub mu: f64,
    /// Standard deviation of both classes.
    pub sigma: f64,
}

impl Default for GaussianTask {
    /// The paper's difficult task: n = 10,000, 10% positives, mu = 3, sigma = 3, d = 1.
    fn default() -> Self {
        GaussianTask {
            n: 10_000,
            d: 1,
            positive_rate: 0.1,
            mu: 3.0,
            sigma: 3.0,
        }
    }
}

/// The largest `|mu|` and `sigma` of a [`GaussianTask`].
pub const GAUSSIAN_MAX: f64 = 1e100;

impl GaussianTask {
    fn validate(&self) -> Result<()> {
        if self.n < 2 || self.d == 0 {
            return Err(Error::invalid("gaussian task needs n >= 2 and d >= 1"));
        }
        if !(self.positive_rate > 0.0 && self.positive_rate < 1.0) {
            return Err(Error::invalid(format!(
                "positive rate {} must lie strictly between 0 and 1",
                self.positive_rate
            )));
        }
        if !(self.sigma > 0.0 && self.sigma.is_finite() && self.mu.is_finite()) {
            return Err(Error::invalid("sigma must be > 0 and mu finite"));
        }
        // The posterior's log-likelihood ratio squares mu and multiplies it
        // by values near it: beyond 1e100 the products overflow.
        if self.mu.abs() > GAUSSIAN_MAX || self.sigma > GAUSSIAN_MAX {
            return Err(Error::invalid(format!(
                "mu = {:e} and sigma = {:e} must be at most {GAUSSIAN_MAX:e} in size: the true \
                 posterior p_true squares them",
                self.mu, self.sigma
            )));
        }
        // The table is drawn whole: its features, label and posterior.
        crate::limits::check_memory(
            &format!("a gaussian table of {} rows of {} features", self.n, self.d),
            self.n as f64 * (self.d as f64 + 2.0) * 8.0,
        )
    }

    /// The true posterior p(+|x) of a row.
    pub fn posterior(&self, x: &[f64]) -> f64 {
        let pi = self.positive_rate;
        let s2 = 2.0 * self.sigma * self.sigma;
        let llr: f64 = x
            .iter()
            .map(|&v| (2.0 * self.mu * v - self.mu * self.mu) / s2)
            .sum();
        let logit = (pi / (1.0 - pi)).ln() + llr;
        1.0 / (1.0 + (-logit).exp())
    }

    /// Draws the table (rows in random order) and the true posterior per row.
    pub fn generate(&self, seed: u64) -> Result<(Dataset, Vec<f64>)> {
        self.validate()?;
        let mut rng = stream(seed, 0);
        let n_pos = ((self.n as f64 * self.positive_rate).round() as usize).clamp(1, self.n - 1);
        let mut labels: Vec<u32> = (0..self.n).map(|i| u32::from(i < n_pos)).collect();
        shuffle(&mut labels, &mut rng);
        let mut x = Vec::with_capacity(self.n * self.d);
        let mut post = Vec::with_capacity(self.n);
        for &y in &labels {
            let mean = if y == 1 { self.mu } else { 0.0 };
            let start = x.len();
            for _ in 0..self.d {
                x.push(mean + self.sigma * standard_normal(&mut rng));
            }
            post.push(self.posterior(&x[start..]));
        }
        let names: Vec<String> = (0..self.d).map(|j| format!("x{j}")).collect();
        let schema = Schema::numeric(names, vec!["0".into(), "1".into()]);
        Ok((Dataset::new(x, labels, schema)?, post))
    }

    /// The table of [`GaussianTask::generate`] with the true posterior
    /// p(+|x) as a last feature column named [`TRUE_POSTERIOR`] (what
    /// `rarity generate gaussian` writes: drop it before training).
    ///
    /// ```
    /// use rarity::data::synth::{GaussianTask, TRUE_POSTERIOR};
    /// let task = GaussianTask { n: 100, d: 2, ..GaussianTask::default() };
    /// let ds = task.with_posterior(1).unwrap();
    /// assert_eq!(ds.feature_names(), &["x0", "x1", TRUE_POSTERIOR]);
    /// assert_eq!(ds.value(0, 2), task.posterior(&ds.row(0)[..2]));
    /// ```
    pub fn with_posterior(&self, seed: u64) -> Result<Dataset> {
        let (ds, post) = self.generate(seed)?;
        let mut x = Vec::with_capacity(ds.n_rows() * (self.d + 1));
        for (i, p) in post.iter().enumerate() {
            x.extend_from_slice(ds.row(i));
            x.push(*p);
        }
        let mut names = ds.feature_names().to_vec();
        names.push(TRUE_POSTERIOR.into());
        let schema = Schema::numeric(names, ds.class_names().to_vec());
        Dataset::new(x, ds.labels().to_vec(), schema)
    }
}

/// The column of [`GaussianTask::with_posterior`]: the true posterior.
pub const TRUE_POSTERIOR: &str = "p_true";

/// A credit-card-like fraud table (`Time`, `V1..V28`, `Amount`, `class`).
///
/// ```
/// use rarity::data::synth::FraudTask;
/// let task = FraudTask { n: 20_000, positive_rate: 0.01, ..FraudTask::default() };
/// let ds = task.generate(3).unwrap();
/// assert_eq!(ds.n_features(), 30);
/// let pos = ds.class_counts()[1];
/// assert!(pos > 140 && pos < 260, "{pos}");
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FraudTask {
    /// Rows.
    pub n: usize,
    /// Share of frauds (each row is a fraud with this probability).
    pub positive_rate: f64,
    /// Number of fraud clusters.
    pub clusters: usize,
    /// Share of the fraud clusters replaced by new ones drawn from the
    /// seed, in `[0, 1]` (at least one cluster when positive): 0 (the
    /// default) keeps the one population every seed samples; 1 gives each
    /// seed its own fraud patterns.
    pub drift: f64,
}

impl Default for FraudTask {
    /// 284,807 rows at 0.172% frauds (the credit-card dataset's size and rate).
    fn default() -> Self {
        FraudTask {
            n: 284_807,
            positive_rate: 0.00172,
            clusters: 4,
            drift: 0.0,
        }
    }
}

/// The seed of the fraud population's clusters (the command line's default
/// seed, so that its tables are those it wrote before the population was
/// fixed).
const POPULATION_SEED: u64 = 42;

/// Rows generated per random stream (and per parallel work unit).
const CHUNK: usize = 1 << 14;
/// Number of features of the fraud table.
const FRAUD_D: usize = 30;

impl FraudTask {
    fn validate(&self) -> Result<()> {
        if self.n == 0 {
            return Err(Error::invalid("fraud task needs n >= 1"));
        }
        if !(self.positive_rate > 0.0 && self.positive_rate < 1.0) {
            return Err(Error::invalid(format!(
                "positive rate {} must lie strictly between 0 and 1",
                self.positive_rate
            )));
        }
        if self.clusters == 0 {
            return Err(Error::invalid("fraud task needs at least one cluster"));
        }
        if !(0.0..=1.0).contains(&self.drift) {
            return Err(Error::invalid(format!(
                "drift {} must lie in [0, 1] (the share of fraud clusters replaced)",
                self.drift
            )));
        }
        // The table is drawn whole (its features and label), and each
        // cluster has a centre.
        crate::limits::check_memory(
            &format!(
                "a fraud table of {} rows and {} clusters",
                self.n, self.clusters
            ),
            (self.n as f64 + self.clusters as f64) * (FRAUD_D as f64 + 1.0) * 8.0,
        )
    }

    /// Column names: `Time`, `V1..V28`, `Amount`.
    pub fn feature_names() -> Vec<String> {
        std::iter::once("Time".to_string())
            .chain((1..=28).map(|j| format!("V{j}")))
            .chain(std::iter::once("Amount".to_string()))
            .collect()
    }

    /// Cluster centres: cluster `c` shifts six of the V features by 1.5-3.5
    /// standard deviations (signs alternate). The population's are fixed
    /// ([`POPULATION_SEED`]); with [`FraudTask::drift`], the first
    /// `ceil(drift * clusters)` are drawn from `seed` instead.
    fn centres(&self, seed: u64) -> Vec<[f64; 28]> {
        let draw = |seed: u64| -> Vec<[f64; 28]> {
            let mut rng = stream(seed, u64::MAX);
            (0..self.clusters)
                .map(|_| {
                    let mut c = [0.0; 28];
                    for _ in 0..6 {
                        let j = rng.random_range(0..28);
                        let sign = if rng.random::<bool>() { 1.0 } else { -1.0 };
                        c[j] = sign * (1.5 + 2.0 * rng.random::<f64>());
                    }
                    c
                })
                .collect()
        };
        let mut centres = draw(POPULATION_SEED);
        let drifted = (self.drift * self.clusters as f64).ceil() as usize;
        if drifted > 0 {
            // A stream of its own, so that a drifted seed-42 table differs
            // from the population too.
            let new = draw(stream(seed, u64::MAX - 1).random());
            centres[..drifted].copy_from_slice(&new[..drifted]);
        }
        centres
    }

    /// Fills one chunk of rows (row-major features, labels, and with `cats`
    /// each row's three level codes).
    fn chunk(
        &self,
        seed: u64,
        index: usize,
        centres: &[[f64; 28]],
        cats: Option<&FraudCategories>,
    ) -> Chunk {
        let start = index * CHUNK;
        let len = CHUNK.min(self.n - start);
        let mut rng = stream(seed, index as u64);
        let mut level_rng = FraudCategories::stream(seed, index);
        let mut x = Vec::with_capacity(len * FRAUD_D);
        let mut y = Vec::with_capacity(len);
        let mut levels = Vec::new();
        let span = 172_800.0 / self.n as f64; // two days of seconds
        for r in 0..len {
            let rate = match cats {
                Some(c) => {
                    let (l, risk) = c.draw(&mut level_rng);
                    levels.extend_from_slice(&l);
                    (self.positive_rate * risk).min(1.0)
                }
                None => self.positive_rate,
            };
            let fraud = rng.random::<f64>() < rate;
            x.push(((start + r) as f64 + rng.random::<f64>()) * span);
            let centre = fraud.then(|| &centres[rng.random_range(0..centres.len())]);
            for j in 0..28 {
                // Principal-component-like scales: decreasing variance.
                let scale = 2.0 / (1.0 + j as f64 / 6.0);
                let z = standard_normal(&mut rng);
                let v = match centre {
                    Some(c) => c[j] * scale + 1.3 * scale * z,
                    None => scale * z,
                };
                x.push(v);
            }
            // Heavy-tailed (log-normal) amounts; frauds are either small
            // probes or large withdrawals.
            let z = standard_normal(&mut rng);
            let amount = if fraud {
                if rng.random::<bool>() {
                    (0.5 + 0.8 * z).exp()
                } else {
                    (5.0 + 1.0 * z).exp()
                }
            } else {
                (3.0 + 1.3 * z).exp()
            };
            x.push((amount * 100.0).round() / 100.0);
            y.push(u32::from(fraud));
        }
        (x, y, levels)
    }

    fn n_chunks(&self) -> usize {
        self.n.div_ceil(CHUNK)
    }

    /// Generates the table in memory.
    pub fn generate(&self, seed: u64) -> Result<Dataset> {
        self.validate()?;
        let centres = self.centres(seed);
        let parts: Vec<Chunk> = (0..self.n_chunks())
            .into_par_iter()
            .map(|c| self.chunk(seed, c, &centres, None))
            .collect();
        let mut x = Vec::with_capacity(self.n * FRAUD_D);
        let mut y = Vec::with_capacity(self.n);
        for (px, py, _) in parts {
            x.extend_from_slice(&px);
            y.extend_from_slice(&py);
        }
        let schema = Schema::numeric(Self::feature_names(), vec!["0".into(), "1".into()]);
        Dataset::new(x, y, schema)
    }

    /// Writes the table atomically (`-`: standard output), as Parquet when
    /// `path` ends in `.parquet` and CSV otherwise, generating and
    /// formatting chunks in parallel, a bounded number at a time. Returns
    /// the class counts. Parquet holds the values rounded as the CSV
    /// writes them (`Time` and `Amount` to 2 decimals, `V` to 6).
    pub fn write_table(&self, seed: u64, path: &Path) -> Result<[usize; 2]> {
        self.write_table_with(seed, path, None)
    }

    /// [`FraudTask::write_table`], with `cats` the categorical fields
    /// (merchant, country, mcc: text columns before `class`) that carry much
    /// of the fraud signal ([`FraudCategories`]).
    pub fn write_table_with(
        &self,
        seed: u64,
        path: &Path,
        cats: Option<&FraudCategories>,
    ) -> Result<[usize; 2]> {
        let draw = self.draw(seed, cats)?;
        match TableFormat::from_path(path) {
            TableFormat::Csv => self.write_csv_with(&draw, path),
            TableFormat::Parquet => self.write_parquet(&draw, path),
        }
    }

    /// Writes the table as CSV (see [`FraudTask::write_table`]).
    pub fn write_csv(&self, seed: u64, path: &Path) -> Result<[usize; 2]> {
        self.write_csv_with(&self.draw(seed, None)?, path)
    }

    /// What every chunk of a draw shares, once the task is checked.
    fn draw<'a>(&self, seed: u64, cats: Option<&'a FraudCategories>) -> Result<Draw<'a>> {
        self.validate()?;
        Ok(Draw {
            seed,
            centres: self.centres(seed),
            cats,
        })
    }

    fn write_csv_with(&self, draw: &Draw<'_>, path: &Path) -> Result<[usize; 2]> {
        let mut f = AtomicFile::create_text_table(path)?;
        let mut header = Self::feature_names().join(",");
        if draw.cats.is_some() {
            header.push(',');
            header.push_str(&FraudCategories::names().join(","));
        }
        header.push_str(",class\n");
        f.writer()
            .write_all(header.as_bytes())
            .map_err(|e| f.err(e))?;
        let mut counts = [0usize; 2];
        self.for_each_batch(
            draw,
            |c| format_chunk(&c.0, &c.1, &c.2),
            |(t, c)| {
                f.writer().write_all(t.as_bytes()).map_err(|e| f.err(e))?;
                counts[0] += c[0];
                counts[1] += c[1];
                Ok(())
            },
        )?;
        f.commit()?;
        Ok(counts)
    }

    fn write_parquet(&self, draw: &Draw<'_>, path: &Path) -> Result<[usize; 2]> {
        let mut specs: Vec<ColumnSpec> = Self::feature_names()
            .into_iter()
            .map(ColumnSpec::number)
            .collect();
        if draw.cats.is_some() {
            specs.extend(FraudCategories::names().map(ColumnSpec::text));
        }
        specs.push(ColumnSpec::text("class"));
        let level_names: Vec<Vec<String>> = match draw.cats {
            Some(_) => (0..3).map(FraudCategories::texts).collect(),
            None => Vec::new(),
        };
        let mut w = TableWriter::create(path, TableFormat::Parquet, specs)?;
        let names = ["0".to_string(), "1".to_string()];
        let mut counts = [0usize; 2];
        self.for_each_batch(
            draw,
            |(mut x, y, levels)| {
                for row in x.chunks_mut(FRAUD_D) {
                    let last = row.len() - 1;
                    for (j, v) in row.iter_mut().enumerate() {
                        let scale = if j == 0 || j == last { 1e2 } else { 1e6 };
                        *v = (*v * scale).round() / scale;
                    }
                }
                let by_field: Vec<Vec<u32>> = (0..level_names.len())
                    .map(|f| levels.iter().skip(f).step_by(3).copied().collect())
                    .collect();
                (x, y, by_field)
            },
            |(x, y, by_field)| {
                counts[1] += y.iter().filter(|&&l| l == 1).count();
                counts[0] += y.iter().filter(|&&l| l == 0).count();
                let mut columns = Column::matrix(&x, FRAUD_D);
                for (ids, names) in by_field.iter().zip(&level_names) {
                    columns.push(Column::Names { ids, names });
                }
                columns.push(Column::Names {
                    ids: &y,
                    names: &names,
                });
                w.write(&Block {
                    rows: y.len(),
                    columns,
                })
            },
        )?;
        w.commit()?;
        Ok(counts)
    }

    /// Generates the chunks in order, `make` applied to each in parallel a
    /// batch at a time, `take` in order.
    fn for_each_batch<T: Send>(
        &self,
        draw: &Draw<'_>,
        make: impl Fn(Chunk) -> T + Sync,
        mut take: impl FnMut(T) -> Result<()>,
    ) -> Result<()> {
        // A chunk of 30 features and the label, with its text once written.
        let each = (CHUNK * 31 * 8 * 3) as u64;
        let batch = crate::limits::in_flight(each, 4 * rayon::current_num_threads());
        let n_chunks = self.n_chunks();
        for first in (0..n_chunks).step_by(batch) {
            let last = (first + batch).min(n_chunks);
            let made: Vec<T> = (first..last)
                .into_par_iter()
                .map(|c| make(self.chunk(draw.seed, c, &draw.centres, draw.cats)))
                .collect();
            for t in made {
                take(t)?;
            }
        }
        Ok(())
    }
}

/// The seed, cluster centres and categorical fields of one draw of a
/// [`FraudTask`], shared by all its chunks.
struct Draw<'a> {
    seed: u64,
    centres: Vec<[f64; 28]>,
    cats: Option<&'a FraudCategories>,
}

/// A chunk of rows: row-major features, labels, and (categorical fields)
/// three level codes per row.
type Chunk = (Vec<f64>, Vec<u32>, Vec<u32>);

/// CSV text of a chunk: `Time` with 2 decimals, `V` features with 6,
/// `Amount` with 2, then the level texts when `levels` holds three per row.
fn format_chunk(x: &[f64], y: &[u32], levels: &[u32]) -> (String, [usize; 2]) {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(y.len() * 260);
    let mut counts = [0usize; 2];
    for (i, (row, &label)) in x.chunks(FRAUD_D).zip(y).enumerate() {
        let _ = write!(s, "{:.2}", row[0]);
        for v in &row[1..29] {
            let _ = write!(s, ",{v:.6}");
        }
        let _ = write!(s, ",{:.2}", row[29]);
        for (f, &j) in levels.iter().skip(3 * i).take(3).enumerate() {
            let _ = write!(s, ",{}", FraudCategories::text(f, j));
        }
        let _ = writeln!(s, ",{label}");
        counts[label as usize] += 1;
    }
    (s, counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaussian_posterior_matches_bayes_rule() {
        let t = GaussianTask {
            n: 100,
            d: 2,
            ..GaussianTask::default()
        };
        // At x = (mu/2, mu/2) ... the likelihood ratio is 1, posterior = prior.
        let p = t.posterior(&[1.5, 1.5]);
        assert!((p - 0.1).abs() < 1e-12, "{p}");
        // Direct density computation at another point.
        let x = [2.0, -1.0];
        let dens = |m: f64| -> f64 {
            x.iter()
                .map(|&v| (-(v - m) * (v - m) / (2.0 * 9.0)).exp())
                .product()
        };
        let want = 0.1 * dens(3.0) / (0.1 * dens(3.0) + 0.9 * dens(0.0));
        assert!((t.posterior(&x) - want).abs() < 1e-12);
    }

    #[test]
    fn gaussian_moments_are_right() {
        let t = GaussianTask {
            n: 20_000,
            ..GaussianTask::default()
        };
        let (ds, _) = t.generate(9).unwrap();
        let mean = |k: usize| {
            let rows = ds.rows_of_class(k);
            rows.iter().map(|&i| ds.value(i, 0)).sum::<f64>() / rows.len() as f64
        };
        // Standard error of a class mean is at most 3 / sqrt(2000) ~ 0.067.
        assert!((mean(1) - 3.0).abs() < 0.25, "{}", mean(1));
        assert!(mean(0).abs() < 0.1, "{}", mean(0));
    }

    #[test]
    fn fraud_is_deterministic_across_thread_counts() {
        let t = FraudTask {
            n: 3 * CHUNK + 17,
            ..FraudTask::default()
        };
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let two = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let a = one.install(|| t.generate(5).unwrap());
        let b = two.install(|| t.generate(5).unwrap());
        assert_eq!(a.features(), b.features());
        assert_eq!(a.labels(), b.labels());
    }

    #[test]
    fn rejects_bad_parameters() {
        let bad = GaussianTask {
            positive_rate: 1.5,
            ..GaussianTask::default()
        };
        assert!(bad.generate(1).is_err());
        let bad = FraudTask {
            n: 0,
            ..FraudTask::default()
        };
        assert!(bad.generate(1).is_err());
    }
}
