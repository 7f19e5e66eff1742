//! Random undersampling (Dal Pozzolo et al. 2015, section II).
//!
//! Each row of a class other than the minority is selected with probability
//! `beta = p(s = 1 | -)` (the selection variable `s`, independent of `x` given
//! the class), and every minority row is kept (`p(s = 1 | +) = 1`). The
//! paper balances at `beta = N+/N-`, but eq. 9 holds for any `beta` in
//! (0, 1]: below `N+/N-` the negatives end up fewer than the positives, which
//! the sample's notes say, and nothing is refused (a rate taken from a whole
//! file must work in cross-validation folds whose ratio differs slightly).
//! Two modes:
//!
//! - **Bernoulli** (the paper's definition): each row kept independently with
//!   probability `beta`; the number kept is Binomial(`N-`, `beta`).
//! - **Exact count**: `round(beta * N-)` rows drawn without replacement.
//!
//! The keep rates reported are the realised ones (rows kept over rows in the
//! input), which in exact mode equal `round(beta N-)/N-`.

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::params::{choice, params, Bounds, Params};
use crate::rng::Rng;

use crate::sample::draw::{assemble_rows, minority_class, two_class_counts, with_replacement};
use crate::sample::parts::at_most_one;
use crate::sample::plan::{bernoulli_ordinals, without_replacement_ordinals, Plan};
use crate::sample::{colon_list, Sample, Sampler};

params! {
    /// Random undersampling at a rate, to a ratio, or with per-class rates
    /// (at most one of `beta`, `ratio` and `rates`; none is `ratio=1`).
    ///
    /// ```
    /// use rarity::data::Dataset;
    /// use rarity::sample::{RandomUnder, Sampler};
    /// let y: Vec<u32> = (0..100).map(|i| u32::from(i < 10)).collect();
    /// let ds = Dataset::from_rows(vec![vec![0.0]; 100], y, vec!["n".into(), "p".into()]).unwrap();
    /// let s = RandomUnder::beta(0.5).exact(true).resample(&ds, &mut rarity::rng::stream(1, 0)).unwrap();
    /// assert_eq!(s.keep_rates, vec![0.5, 1.0]); // 45 of 90 negatives, all positives
    /// // Below N+/N- the negatives become the minority: a note, not an error.
    /// let s = RandomUnder::beta(0.05).exact(true).resample(&ds, &mut rarity::rng::stream(1, 0)).unwrap();
    /// assert!(s.notes[0].contains("now the minority"));
    /// ```
    #[derive(Debug, Clone, PartialEq)]
    pub struct RandomUnder {
        /// Keep rate of every class other than the minority (below N+/N-
        /// they become the minority, which a note says); Bernoulli draws by
        /// default.
        pub beta: Option<f64> = None => Bounds::left_open(0.0, 1.0),
        /// Minority-to-class ratio N+/N_c wanted after sampling for every
        /// class larger than that (1 balances the classes; a class already
        /// at or below it keeps every row); exact counts by default.
        /// ratio=1 when no target is given.
        pub ratio: Option<f64> = None => Bounds::left_open(0.0, 1.0),
        /// A keep rate per class, in class-id order; Bernoulli draws by default.
        pub rates: Option<Vec<f64>> = None => Bounds::left_open(0.0, 1.0),
        /// How rows are drawn (flags: exact, bernoulli); none: bernoulli
        /// for beta and rates, exact for ratio.
        pub mode: Option<UnderMode> = None,
        /// Draw each reduced class's round(rate * N_c) rows with
        /// replacement (imbalanced-learn's replacement=True): exact counts,
        /// repeats allowed.
        pub replacement: bool = false,
    }
    check = one_target;
}

choice! {
    /// How the rows of a class are drawn at its keep rate.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum UnderMode {
        /// `round(rate * N_c)` rows drawn without replacement.
        Exact = "exact",
        /// Each row kept independently with probability `rate`.
        Bernoulli = "bernoulli",
    }
}

fn one_target(u: &RandomUnder) -> Result<()> {
    if u.replacement && u.mode == Some(UnderMode::Bernoulli) {
        return Err(Error::invalid(
            "under: replacement draws exact counts; it cannot be bernoulli",
        ));
    }
    at_most_one(
        &[u.beta.is_some(), u.ratio.is_some(), u.rates.is_some()],
        "under: give only one of beta, ratio and rates",
    )
}

impl RandomUnder {
    /// Keep each non-minority row with probability `beta` (Bernoulli mode).
    pub fn beta(beta: f64) -> Self {
        RandomUnder {
            beta: Some(beta),
            ..RandomUnder::default()
        }
    }

    /// Undersample to minority/majority ratio `ratio` (exact-count mode).
    pub fn ratio(ratio: f64) -> Self {
        RandomUnder {
            ratio: Some(ratio),
            ..RandomUnder::default()
        }
    }

    /// Per-class keep rates (Bernoulli mode).
    pub fn rates(rates: Vec<f64>) -> Self {
        RandomUnder {
            rates: Some(rates),
            ..RandomUnder::default()
        }
    }

    /// Exact-count mode (`round(rate * N_c)` rows drawn) instead of Bernoulli.
    pub fn exact(mut self, exact: bool) -> Self {
        self.mode = Some(if exact {
            UnderMode::Exact
        } else {
            UnderMode::Bernoulli
        });
        self
    }

    /// Whether rows are drawn in exact counts (the mode given, else the
    /// target's default).
    pub fn is_exact(&self) -> bool {
        if self.replacement {
            return true;
        }
        match self.mode {
            Some(m) => m == UnderMode::Exact,
            None => self.beta.is_none() && self.rates.is_none(),
        }
    }

    /// The keep rate wanted for each class of `counts` (the parameters'
    /// own ranges, (0, 1], are checked when they are set): `beta` for every
    /// class but the minority, the given `rates`, or the rates that bring
    /// each class to the `ratio`.
    ///
    /// ```
    /// use rarity::sample::RandomUnder;
    /// assert_eq!(RandomUnder::beta(0.1).rates_for(&[900, 100]).unwrap(), vec![0.1, 1.0]);
    /// assert_eq!(RandomUnder::ratio(0.5).rates_for(&[1000, 100]).unwrap(), vec![0.2, 1.0]);
    /// ```
    pub fn rates_for(&self, counts: &[usize]) -> Result<Vec<f64>> {
        self.check()?;
        let m = minority_class(counts);
        let nm = counts[m] as f64;
        if let Some(beta) = self.beta {
            return Ok((0..counts.len())
                .map(|c| if c == m { 1.0 } else { beta })
                .collect());
        }
        if let Some(rates) = &self.rates {
            if rates.len() != counts.len() {
                return Err(Error::invalid(format!(
                    "{} keep rates given for {} classes",
                    rates.len(),
                    counts.len()
                )));
            }
            return Ok(rates.clone());
        }
        let r = self.ratio.unwrap_or(1.0);
        Ok(counts
            .iter()
            .enumerate()
            .map(|(c, &n)| {
                if c == m || n == 0 {
                    1.0
                } else {
                    (nm / (r * n as f64)).min(1.0)
                }
            })
            .collect())
    }
}

impl RandomUnder {
    /// The draw for classes of `counts` rows (see [`Sampler::plan`]).
    fn draw(&self, counts: &[usize], class_names: &[String], rng: &mut Rng) -> Result<Plan> {
        self.check()?;
        let rates = self.rates_for(counts)?;
        let exact = self.is_exact();
        let mut plan = Plan::default();
        for (c, &n) in counts.iter().enumerate() {
            let r = rates[c];
            let kept = if r >= 1.0 {
                (0..n as u64).collect()
            } else if exact {
                without_replacement_ordinals(n, (r * n as f64).round() as usize, rng)
            } else {
                bernoulli_ordinals(n, r, rng)
            };
            if n > 0 && kept.is_empty() {
                plan.notes.push(format!(
                    "class '{}' lost all its rows at keep rate {r}",
                    class_names[c]
                ));
            }
            plan.per_class.push(kept);
        }
        let kept: Vec<usize> = plan.per_class.iter().map(Vec::len).collect();
        plan.notes.extend(minority_note(class_names, counts, &kept));
        if self.beta.is_none() && self.rates.is_none() {
            let ratio = self.ratio.unwrap_or(1.0);
            plan.notes
                .extend(ratio_note(class_names, counts, &rates, ratio));
        }
        Ok(plan)
    }
}

impl Sampler for RandomUnder {
    /// Rows are drawn by class, never by their values.
    fn handles_missing(&self) -> bool {
        true
    }

    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        self.check()?;
        let counts = two_class_counts(data, "undersampling")?;
        if self.replacement {
            let rates = self.rates_for(&counts)?;
            let mut rows = Vec::new();
            for (c, pool) in data.rows_by_class().iter().enumerate() {
                if rates[c] >= 1.0 {
                    rows.extend_from_slice(pool);
                } else {
                    let m = (rates[c] * pool.len() as f64).round() as usize;
                    rows.extend(with_replacement(pool, m, rng));
                }
            }
            rows.sort_unstable();
            return Ok(assemble_rows(data, rows, Vec::new()));
        }
        let plan = self.draw(&counts, data.class_names(), rng)?;
        let mut rows = plan.rows(&data.rows_by_class());
        rows.sort_unstable();
        Ok(assemble_rows(data, rows, plan.notes))
    }

    fn plan(
        &self,
        counts: &[usize],
        class_names: &[String],
        rng: &mut Rng,
    ) -> Option<Result<Plan>> {
        (!self.replacement).then(|| self.draw(counts, class_names, rng))
    }

    fn streaming_rate(&self) -> Option<f64> {
        self.beta.filter(|_| !self.is_exact())
    }

    fn name(&self) -> String {
        let exact = self.is_exact();
        let mode = match (exact, self.replacement) {
            (_, true) => ",replacement=true",
            (true, false) => ",exact",
            (false, false) => "",
        };
        if let Some(b) = self.beta {
            format!("under(beta={b}{mode})")
        } else if let Some(v) = &self.rates {
            format!("under(rates={}{mode})", colon_list(v))
        } else {
            let mode = match (exact, self.replacement) {
                (_, true) => ",replacement=true",
                (true, false) => "",
                (false, false) => ",bernoulli",
            };
            format!("under(ratio={}{mode})", self.ratio.unwrap_or(1.0))
        }
    }
}

/// A note when undersampling left a class other than the input's minority
/// with fewer rows than the minority: eq. 9 still undoes the shift, but the
/// user should know the classes swapped sizes.
fn minority_note(names: &[String], before: &[usize], kept: &[usize]) -> Option<String> {
    let m = minority_class(before);
    let smaller: Vec<String> = (0..kept.len())
        .filter(|&c| c != m && before[c] > 0 && kept[c] < kept[m])
        .map(|c| format!("'{}' ({} of {} rows kept)", names[c], kept[c], before[c]))
        .collect();
    (!smaller.is_empty()).then(|| {
        format!(
            "{} {} now the minority, below the {} rows of '{}'; the keep rates still \
             undo the prior shift (Dal Pozzolo et al. 2015, eq. 9)",
            smaller.join(" and "),
            if smaller.len() == 1 { "is" } else { "are" },
            kept[m],
            names[m]
        )
    })
}

/// A note when `ratio` asks for no fewer rows of some class than it has (its
/// minority-to-class ratio is already at or above `ratio`): that class keeps
/// every row.
fn ratio_note(names: &[String], counts: &[usize], rates: &[f64], ratio: f64) -> Option<String> {
    let m = minority_class(counts);
    let kept_all: Vec<String> = (0..counts.len())
        .filter(|&c| c != m && counts[c] > counts[m] && rates[c] >= 1.0)
        .map(|c| {
            format!(
                "'{}' (N+/N = {:.6})",
                names[c],
                counts[m] as f64 / counts[c] as f64
            )
        })
        .collect();
    (!kept_all.is_empty()).then(|| {
        format!(
            "ratio = {ratio} is below the current ratio of {}: every row kept",
            kept_all.join(", ")
        )
    })
}
