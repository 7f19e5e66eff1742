//! SMOTE and its variants.
//!
//! - **SMOTE** (Chawla, Bowyer, Hall & Kegelmeyer 2002; Kim's lecture, five
//!   steps): for a minority row `x`, find its `k` nearest minority rows, pick
//!   one, `x_nn`, at random, and add `x + u (x_nn - x)` with `u ~ U(0, 1)`.
//!   The number of new rows of each class is set by an [`OverTarget`]
//!   (balance, ratio, amount `N%`, counts). As in the paper, every minority
//!   row generates `floor(new / n)` rows and the remaining `new mod n` are
//!   generated from distinct minority rows chosen at random.
//! - **Borderline-SMOTE1** (Han, Wang & Mao 2005): only minority rows in
//!   "danger" generate rows: those with `m/2 <= m' < m` of their `m` nearest
//!   neighbours (over all rows) in another class (`m' = m` is noise and is
//!   skipped); neighbours for interpolation are the `k` nearest minority rows.
//!   **Borderline-SMOTE2** (same paper, `kind=2`): each danger row's new
//!   rows go half towards its `k` nearest rows of its class (gap in
//!   `[0, 1)`) and half towards its `k` nearest rows of the other classes,
//!   with a gap in `[0, 0.5)`, so they stay on the row's side. The rows in
//!   danger are the sample's fact `danger`.
//! - **ADASYN** (He, Bai, Garcia & Li 2008): row `i` generates `g_i`
//!   rows with `g_i` proportional to `r_i`, the share of other-class rows among
//!   its `k` nearest neighbours; the `g_i` are rounded by largest remainders
//!   so that they add up to the number wanted (with `round_each`, each on
//!   its own, half to even, as imbalanced-learn's `np.rint`).
//! - **The SMOTE/undersampling hybrid** of Collell et al. (2018, section 4.2,
//!   after Chawla et al.'s `perc.over` / `perc.under`): SMOTE adds `amount%` of
//!   the minority (500: five new rows per minority row) and every other class
//!   keeps `under%` of the number of *new* minority rows (120%: `1.2 * 5 n+ =
//!   6 n+` rows), which with the `n+` originals gives a balanced set.
//!
//! On a table with categorical features (level codes) every variant is
//! SMOTE-NC (Chawla et al. 2002, section 6.1): neighbours are searched with
//! the mixed distance ([`crate::sample::space`]) and a synthetic row's level
//! at each categorical feature is the majority vote of its seed row and the
//! seed's `k` neighbours (`nominal`), never an interpolated code; the numeric
//! features are interpolated as above.
//!
//! A class to enlarge needs more than `k` rows (each row's `k` nearest
//! other rows of its class): with `n <= k` rows the sampler fails and says
//! which `k` would do, as imbalanced-learn does (it raises `ValueError`),
//! rather than quietly interpolating with fewer neighbours. For several
//! classes, every class the target enlarges is treated as "the minority",
//! with all other rows as "the majority".

use rand::RngExt;
use rayon::prelude::*;

use crate::data::{Between, Dataset};
use crate::error::{Error, Result};
use crate::neighbors::{Exclude, Points};
use crate::params::{params, Bounds, Params};
use crate::rng::{stream, Rng};

use crate::sample::draw::{
    assemble, assemble_all_rows, minority_class, two_class_counts, with_replacement,
    without_replacement,
};
use crate::sample::nominal::vote_levels;
use crate::sample::parts::params_of_parts;
use crate::sample::space::{std_flag, Space};
use crate::sample::OverTarget;
use crate::sample::{spec, Sample, Sampler};

/// Minority rows interpolated per parallel task (each task has its own
/// random stream, so results do not depend on the thread count).
const CHUNK: usize = 256;

params! {
    /// SMOTE's neighbour search, shared by its variants: how many rows of
    /// the class to interpolate towards, and in which feature space.
    #[derive(Debug, Clone, PartialEq)]
    pub struct SmoteNeighbours {
        /// Nearest rows of the same class to interpolate towards (5 in the
        /// paper); every class to enlarge needs more than k rows.
        pub k: usize = 5 => Bounds::at_least(1.0),
        /// Search neighbours on standardised features (flag: standardise);
        /// new rows are still interpolated in the original units.
        pub standardise: bool = false,
        /// Categorical features: the seed row votes on a synthetic row's
        /// level with its k neighbours (SMOTE-NC's rule); false: the
        /// neighbours alone (imbalanced-learn's).
        pub seed_vote: bool = true,
    }
}

impl SmoteNeighbours {
    /// `k` neighbours on the features as they are.
    pub fn k(k: usize) -> Self {
        SmoteNeighbours {
            k,
            ..SmoteNeighbours::default()
        }
    }

    /// The parameters as they appear in a sampler's name, the flag last.
    pub(crate) fn parts(&self, middle: &[String]) -> Vec<String> {
        let mut p = vec![format!("k={}", self.k)];
        p.extend_from_slice(middle);
        if !self.seed_vote {
            p.push("seed_vote=false".into());
        }
        p.push(std_flag(self.standardise));
        p
    }

    /// The draw of a SMOTE variant called `name`: every input row kept once,
    /// and for every class `c` that `target` enlarges, `make(space, c,
    /// pool, new, rng, gen)` generates its `new` rows into `gen` (`pool`: the
    /// rows of `c`, in row order).
    pub(crate) fn oversample(
        &self,
        data: &Dataset,
        name: &str,
        target: &OverTarget,
        rng: &mut Rng,
        mut make: impl FnMut(&Space<'_>, usize, &[usize], usize, &mut Rng, &mut Generated),
    ) -> Result<Sample> {
        self.check()?;
        let counts = two_class_counts(data, name)?;
        let sizes = target.sizes(&counts, data.n_features())?;
        let space = Space::new(data, self.standardise);
        let mut gen = Generated {
            neighbours_vote: !self.seed_vote,
            ..Generated::default()
        };
        // Only the classes to enlarge have their rows listed (with a large
        // majority, listing it would cost more than the minority's search).
        let grown: Vec<usize> = (0..counts.len())
            .filter(|&c| sizes[c] > counts[c])
            .collect();
        for &c in &grown {
            check_k(data, name, c, counts[c], self.k)?;
        }
        for c in grown {
            let pool = data.rows_of_class(c);
            make(&space, c, &pool, sizes[c] - counts[c], rng, &mut gen);
        }
        Ok(gen.finish_all_rows(data, &counts, space.note()))
    }
}

/// SMOTE.
///
/// ```
/// use rarity::data::Dataset;
/// use rarity::sample::{OverTarget, Sampler, Smote};
/// let rows: Vec<Vec<f64>> = (0..20).map(|i| vec![i as f64, (i % 3) as f64]).collect();
/// let y: Vec<u32> = (0..20).map(|i| u32::from(i >= 14)).collect();
/// let ds = Dataset::from_rows(rows, y, vec!["n".into(), "p".into()]).unwrap();
/// let s = Smote::new(5, OverTarget::default()).resample(&ds, &mut rarity::rng::stream(1, 0)).unwrap();
/// assert_eq!(s.synthetic_labels.len(), 8);      // 6 minority rows raised to 14
/// assert_eq!(s.keep_rates, vec![1.0, 14.0 / 6.0]);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Smote {
    /// The neighbour search.
    pub neighbours: SmoteNeighbours,
    /// The class sizes to reach.
    pub target: OverTarget,
}

params_of_parts!(Smote: neighbours, target);

impl Smote {
    /// SMOTE with `k` neighbours (5 in the paper) to `target`.
    pub fn new(k: usize, target: OverTarget) -> Self {
        Smote {
            neighbours: SmoteNeighbours::k(k),
            target,
        }
    }

    /// The parameters as they appear in the sampler's name.
    pub(crate) fn parts(&self) -> Vec<String> {
        self.neighbours.parts(&[self.target.spec()])
    }
}

impl Sampler for Smote {
    fn synthesizes(&self) -> bool {
        true
    }

    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        let k = self.neighbours.k;
        self.neighbours.oversample(
            data,
            "smote",
            &self.target,
            rng,
            |space, c, pool, new, rng, gen| {
                let per_row = spread(new, pool.len(), rng);
                smote_class(space, c, pool, pool, &per_row, (k, 1.0), rng, gen);
            },
        )
    }

    fn name(&self) -> String {
        spec("smote", &self.parts())
    }
}

params! {
    /// Borderline-SMOTE's danger test.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Danger {
        /// Neighbours over all rows for the danger test (10 in
        /// scikit-learn-contrib; Han et al. leave it free).
        pub m: usize = 10 => Bounds::at_least(1.0),
        /// 1: Borderline-SMOTE1; 2: Borderline-SMOTE2 (half the new rows
        /// towards other classes, at most halfway).
        pub kind: usize = 1 => Bounds::closed(1.0, 2.0),
    }
}

/// Borderline-SMOTE1: SMOTE from the minority rows in danger only.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BorderlineSmote {
    /// The neighbour search for the interpolation.
    pub neighbours: SmoteNeighbours,
    /// The danger test.
    pub danger: Danger,
    /// The class sizes to reach.
    pub target: OverTarget,
}

params_of_parts!(BorderlineSmote: neighbours, danger, target);

impl Sampler for BorderlineSmote {
    fn synthesizes(&self) -> bool {
        true
    }

    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        self.danger.check()?;
        let name = "borderline-smote";
        let k = self.neighbours.k;
        let make =
            |space: &Space<'_>, c, pool: &[usize], new, rng: &mut Rng, gen: &mut Generated| {
                let nn = space.among_all(pool, self.danger.m);
                let m = nn.k();
                let danger: Vec<usize> = (0..pool.len())
                    .filter(|&i| {
                        let other = nn.of(i).iter().filter(|&&j| data.label(j) != c).count();
                        2 * other >= m && other < m
                    })
                    .map(|i| pool[i])
                    .collect();
                if danger.is_empty() {
                    gen.notes.push(format!(
                    "borderline-smote: no row of class '{}' is in danger (m = {m}); none generated",
                    data.class_names()[c]
                ));
                    return;
                }
                gen.danger.extend_from_slice(&danger);
                let per_row = spread(new, danger.len(), rng);
                if self.danger.kind == 1 {
                    smote_class(space, c, &danger, pool, &per_row, (k, 1.0), rng, gen);
                    return;
                }
                let own: Vec<usize> = per_row.iter().map(|&n| n / 2).collect();
                let other: Vec<usize> = per_row.iter().zip(&own).map(|(n, o)| n - o).collect();
                let rest: Vec<usize> = (0..data.n_rows()).filter(|&i| data.label(i) != c).collect();
                smote_class(space, c, &danger, pool, &own, (k, 1.0), rng, gen);
                let k2 = k.min(rest.len());
                smote_class(space, c, &danger, &rest, &other, (k2, 0.5), rng, gen);
            };
        self.neighbours
            .oversample(data, name, &self.target, rng, make)
    }

    fn name(&self) -> String {
        let kind = if self.danger.kind == 1 {
            String::new()
        } else {
            format!("kind={}", self.danger.kind)
        };
        let middle = [format!("m={}", self.danger.m), kind, self.target.spec()];
        spec("borderline-smote", &self.neighbours.parts(&middle))
    }
}

params! {
    /// How ADASYN turns its weights into rows per minority row.
    #[derive(Debug, Clone, PartialEq)]
    pub struct AdasynShares {
        /// Round each row's share on its own (imbalanced-learn's; the
        /// total can miss the target by a few rows) instead of by largest
        /// remainders (exact).
        pub round_each: bool = false,
    }
}

/// ADASYN: more synthetic rows from minority rows with more other-class
/// neighbours; `k` serves both the weights and the interpolation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Adasyn {
    /// The neighbour search.
    pub neighbours: SmoteNeighbours,
    /// The class sizes to reach.
    pub target: OverTarget,
    /// The rounding of the rows per minority row.
    pub shares: AdasynShares,
}

params_of_parts!(Adasyn: neighbours, target, shares);

impl Sampler for Adasyn {
    fn synthesizes(&self) -> bool {
        true
    }

    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        let k = self.neighbours.k;
        let make =
            |space: &Space<'_>, c, pool: &[usize], new, rng: &mut Rng, gen: &mut Generated| {
                let nn = space.among_all(pool, k);
                let mut w: Vec<f64> = (0..pool.len())
                    .map(|i| nn.of(i).iter().filter(|&&j| data.label(j) != c).count() as f64)
                    .collect();
                if w.iter().all(|&v| v == 0.0) {
                    gen.notes.push(format!(
                        "adasyn: no row of class '{}' has a neighbour of another class; \
                     rows generated uniformly (plain SMOTE)",
                        data.class_names()[c]
                    ));
                    w.iter_mut().for_each(|v| *v = 1.0);
                }
                let per_row = if self.shares.round_each {
                    let sum: f64 = w.iter().sum();
                    w.iter()
                        .map(|&v| (v / sum * new as f64).round_ties_even() as usize)
                        .collect()
                } else {
                    apportion(new, &w)
                };
                smote_class(space, c, pool, pool, &per_row, (k, 1.0), rng, gen);
            };
        self.neighbours
            .oversample(data, "adasyn", &self.target, rng, make)
    }

    fn name(&self) -> String {
        let round = if self.shares.round_each {
            "round_each=true".to_string()
        } else {
            String::new()
        };
        spec(
            "adasyn",
            &self.neighbours.parts(&[self.target.spec(), round]),
        )
    }
}

params! {
    /// The sizes of the SMOTE/undersampling hybrid.
    #[derive(Debug, Clone, PartialEq)]
    pub struct HybridSizes {
        /// New minority rows in percent of the minority (500: five per row).
        pub amount: f64 = 500.0 => Bounds::positive(),
        /// Rows kept of every other class, in percent of the new minority rows.
        pub under: f64 = 120.0 => Bounds::positive(),
    }
}

/// The SMOTE-bagging draw of Collell et al.: SMOTE `amount%` of the
/// minority, every other class undersampled to `under%` of the new minority
/// rows.
///
/// ```
/// use rarity::data::Dataset;
/// use rarity::sample::{Sampler, SmoteHybrid};
/// let rows: Vec<Vec<f64>> = (0..100).map(|i| vec![i as f64]).collect();
/// let y: Vec<u32> = (0..100).map(|i| u32::from(i < 10)).collect();
/// let ds = Dataset::from_rows(rows, y, vec!["n".into(), "p".into()]).unwrap();
/// let s = SmoteHybrid::default().resample(&ds, &mut rarity::rng::stream(1, 0)).unwrap();
/// let out = s.materialise(&ds).unwrap();
/// assert_eq!(out.class_counts(), vec![60, 60]); // 10 + 500% = 60; 120% of 50 = 60
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SmoteHybrid {
    /// The percentages (the paper's 500% / 120% by default).
    pub sizes: HybridSizes,
    /// The neighbour search.
    pub neighbours: SmoteNeighbours,
}

params_of_parts!(SmoteHybrid: sizes, neighbours);

impl Sampler for SmoteHybrid {
    fn synthesizes(&self) -> bool {
        true
    }

    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        self.check()?;
        let counts = two_class_counts(data, "hybrid")?;
        let m = minority_class(&counts);
        // Sizes checked as numbers before they become counts: the minority,
        // its new rows and `keep` rows of every other class.
        let new = (self.sizes.amount / 100.0 * counts[m] as f64).round();
        let keep = (self.sizes.under / 100.0 * new).round();
        let others = counts.iter().filter(|&&n| n > 0).count().saturating_sub(1);
        crate::limits::check_rows(
            &self.name(),
            counts[m] as f64 + new + keep * others as f64,
            data.n_features(),
        )?;
        let (new, keep) = (new as usize, keep as usize);
        let k = self.neighbours.k;
        if new > 0 {
            check_k(data, "hybrid", m, counts[m], k)?;
        }
        let space = Space::new(data, self.neighbours.standardise);
        let mut gen = Generated {
            neighbours_vote: !self.neighbours.seed_vote,
            ..Generated::default()
        };
        let mut rows = Vec::new();
        for (c, pool) in data.rows_by_class().iter().enumerate() {
            if c == m {
                rows.extend_from_slice(pool);
                let per_row = spread(new, pool.len(), rng);
                smote_class(&space, c, pool, pool, &per_row, (k, 1.0), rng, &mut gen);
            } else if keep <= pool.len() {
                rows.extend(without_replacement(pool, keep, rng));
            } else {
                gen.notes.push(format!(
                    "hybrid: class '{}' has {} rows, fewer than the {keep} asked; \
                     all kept and {} drawn again with replacement",
                    data.class_names()[c],
                    pool.len(),
                    keep - pool.len()
                ));
                rows.extend_from_slice(pool);
                rows.extend(with_replacement(pool, keep - pool.len(), rng));
            }
        }
        rows.sort_unstable();
        Ok(gen.finish(data, rows, space.note()))
    }

    fn name(&self) -> String {
        let mut parts = vec![
            format!("amount={}", self.sizes.amount),
            format!("under={}", self.sizes.under),
        ];
        parts.extend(self.neighbours.parts(&[]));
        spec("hybrid", &parts)
    }
}

/// Synthetic rows collected over classes, with notes.
#[derive(Default)]
pub(crate) struct Generated {
    between: Vec<Between>,
    /// The rows' levels at the categorical features (row-major).
    levels: Vec<f64>,
    labels: Vec<u32>,
    /// Notes for the sample.
    pub(crate) notes: Vec<String>,
    /// The rows Borderline-SMOTE found in danger (the sample's fact
    /// `danger` when any test ran).
    danger: Vec<usize>,
    /// Whether a synthetic row's levels are voted by the seed's neighbours
    /// alone (`seed_vote=false`).
    neighbours_vote: bool,
}

impl Generated {
    fn finish(self, data: &Dataset, rows: Vec<usize>, mut notes: Vec<String>) -> Sample {
        notes.extend(self.notes);
        assemble(data, rows, self.between, self.levels, self.labels, notes)
    }

    /// The fact `danger` of the rows found in danger (none: no fact).
    fn danger_fact(&self) -> Vec<(String, Vec<f64>)> {
        if self.danger.is_empty() {
            return Vec::new();
        }
        vec![(
            "danger".into(),
            self.danger.iter().map(|&i| i as f64).collect(),
        )]
    }

    /// As [`Generated::finish`] with every row kept once; `counts` are the
    /// data's class counts (the keep rates follow from them without a pass
    /// over the rows).
    fn finish_all_rows(self, data: &Dataset, counts: &[usize], mut notes: Vec<String>) -> Sample {
        let facts = self.danger_fact();
        notes.extend(self.notes);
        let mut s = assemble_all_rows(data, counts, self.between, self.levels, self.labels, notes);
        s.facts = facts;
        s
    }
}

/// `total` items spread over `n` slots: `total / n` each, and one more for
/// `total mod n` distinct slots chosen at random.
pub(crate) fn spread(total: usize, n: usize, rng: &mut Rng) -> Vec<usize> {
    if n == 0 {
        return Vec::new();
    }
    let mut out = vec![total / n; n];
    let slots: Vec<usize> = (0..n).collect();
    for i in without_replacement(&slots, total % n, rng) {
        out[i] += 1;
    }
    out
}

/// `total` split in proportion to the weights `w` (not all zero), rounded by
/// largest remainders (ties: lower index), so the parts add up to `total`.
pub(crate) fn apportion(total: usize, w: &[f64]) -> Vec<usize> {
    let sum: f64 = w.iter().sum();
    let quota: Vec<f64> = w.iter().map(|&v| v / sum * total as f64).collect();
    let mut out: Vec<usize> = quota.iter().map(|q| q.floor() as usize).collect();
    let given: usize = out.iter().sum();
    let mut order: Vec<usize> = (0..w.len()).collect();
    order.sort_by(|&a, &b| {
        let fa = quota[a] - quota[a].floor();
        let fb = quota[b] - quota[b].floor();
        fb.total_cmp(&fa).then(a.cmp(&b))
    });
    for &i in order.iter().take(total.saturating_sub(given)) {
        out[i] += 1;
    }
    out
}

/// Fails unless class `c` (`n` rows) has more than `k` rows: each new row
/// is interpolated towards one of a row's `k` nearest other rows of its
/// class. The message says which `k` would do.
fn check_k(data: &Dataset, name: &str, c: usize, n: usize, k: usize) -> Result<()> {
    if n > k {
        return Ok(());
    }
    let class = &data.class_names()[c];
    let fix = if n >= 2 {
        format!("give k={} or less", n - 1)
    } else {
        "SMOTE interpolates between rows of a class and needs at least two; \
         `over` duplicates rows instead"
            .to_string()
    };
    Err(Error::data(format!(
        "{name}: k={k} needs more than {k} rows of class '{class}' (each row's k nearest \
         rows of its class), but the class has {n}; {fix}"
    )))
}

/// SMOTE for class `c`: `per_row[i]` new rows from each base row `bases[i]`,
/// interpolated towards one of its `k` nearest rows in `pool` (the class's
/// rows, or for Borderline-SMOTE2 the other classes' rows), at a gap drawn
/// uniformly in `[0, step)`. Appends to `gen`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn smote_class(
    space: &Space<'_>,
    c: usize,
    bases: &[usize],
    pool: &[usize],
    per_row: &[usize],
    (k, step): (usize, f64),
    rng: &mut Rng,
    gen: &mut Generated,
) {
    let data = space.data();
    let d = data.n_features();
    let total: usize = per_row.iter().sum();
    if total == 0 {
        return;
    }
    debug_assert!(pool.len() >= k, "check_k ran before");
    // Neighbours of each base row among the pool, excluding the base itself.
    let pool_x = space.gather(pool);
    let refs = Points::new(&pool_x, pool.len(), d).expect("shape");
    let metric = space.metric();
    let nn = if bases == pool {
        metric.knn(refs, refs, k, Exclude::SameIndex)
    } else {
        let pos: Option<Vec<usize>> = bases.iter().map(|b| pool.binary_search(b).ok()).collect();
        let q = space.gather(bases);
        let exclude = match &pos {
            Some(pos) => Exclude::Given(pos),
            None => Exclude::Nothing,
        };
        metric.knn(
            Points::new(&q, bases.len(), d).expect("shape"),
            refs,
            k,
            exclude,
        )
    };
    let seed: u64 = rng.random();
    let start = gen.between.len();
    if start == 0 {
        // Fresh pages, advised for huge pages and not written until the
        // parallel tasks below write each recipe once (see `crate::mem`).
        gen.between = crate::mem::zeroed(total);
    } else {
        gen.between.resize(start + total, Between::default());
    }
    let mut outs = Vec::new();
    let mut rest = &mut gen.between[start..];
    for chunk in per_row.chunks(CHUNK) {
        let (head, tail) = rest.split_at_mut(chunk.iter().sum());
        outs.push(head);
        rest = tail;
    }
    outs.into_par_iter().enumerate().for_each(|(ci, out)| {
        let mut r = stream(seed, ci as u64);
        let mut made = out.iter_mut();
        for i in ci * CHUNK..(ci * CHUNK + CHUNK).min(per_row.len()) {
            let near = nn.of(i);
            for _ in 0..per_row[i] {
                let to = pool[near[r.random_range(0..near.len())]];
                let gap: f64 = r.random::<f64>() * step;
                *made.next().expect("one recipe per new row") = Between {
                    from: bases[i],
                    to,
                    gap,
                };
            }
        }
    });
    let categorical = data.categorical_features();
    vote_levels(
        data,
        (&categorical, !gen.neighbours_vote),
        (bases, pool, &nn),
        per_row,
        &mut gen.levels,
    );
    gen.labels.extend(std::iter::repeat_n(c as u32, total));
}
