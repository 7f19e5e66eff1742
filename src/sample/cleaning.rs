//! Informative undersampling (Kim's lecture, "selection criteria"; the set of
//! R's `unbalanced` package) and the SMOTE + cleaning hybrids.
//!
//! - **Tomek links** (Tomek 1976): rows `a`, `b` of different classes that are
//!   each other's nearest neighbour; the member outside the minority is removed.
//! - **ENN**, edited nearest neighbours (Wilson 1972): a row outside the
//!   minority is removed when its `k` (3) nearest neighbours outvote its class
//!   ([`EnnRule::Mode`], Wilson's rule: some other class has more votes than
//!   its own) or, with [`EnnRule::All`], when any neighbour disagrees.
//! - **CNN**, condensed nearest neighbour (Hart 1968): the store starts with
//!   the minority and one random row of the class being reduced; rows of that
//!   class are visited in random order and added when the 1-NN rule on the
//!   store misclassifies them; passes repeat until one adds nothing.
//! - **OSS**, one-sided selection (Kubat & Matwin 1997): the store (minority
//!   plus one random row per other class) classifies every other row by 1-NN
//!   once; the misclassified join it; then the non-minority members of Tomek
//!   links within the result are removed.
//! - **NCL**, neighbourhood cleaning rule (Laurikkala 2001): ENN (mode rule,
//!   `k` = 3) on the other classes, plus, for every minority row that its `k`
//!   nearest neighbours misclassify, those neighbours that belong to a class
//!   of at least half the minority's size.
//! - **NearMiss** (Mani & Zhang 2003), each other class reduced to the
//!   minority's size, keeping its rows with the smallest mean distance to
//!   their `k` (3) nearest minority rows (version 1), to their `k` farthest
//!   minority rows (version 2), or (version 3) among the `k3` (3) nearest rows
//!   of each minority row, those with the largest mean distance to their `k`
//!   nearest minority rows. Ties go to the lower row index.
//! - **SMOTE + Tomek**, **SMOTE + ENN** (Batista, Prati & Monard 2004): SMOTE,
//!   then Tomek links (both members removed) or ENN (any class) on the result,
//!   synthetic rows included.
//!
//! These selections depend on `x`, not only on the class, so the keep rates
//! (which are exact counts) undo the prior shift only approximately; every
//! sample says so in its notes. For several classes the minority is the
//! smallest class and every other class is reduced.

use rand::RngExt;
use rayon::prelude::*;

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::rng::{shuffle, Rng};

use super::draw::{assemble, minority_class, two_class_counts};
use super::smote::{std_flag, Space};
use super::{spec, Sample, Sampler, Smote};
use crate::neighbors::{gather, knn, search, Exclude, Order, Points};

const X_DEPENDENT: &str = "the selection depends on the features, not only on the class: \
                           correcting probabilities with the keep rates is approximate";

/// How ENN decides that a row disagrees with its neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnnRule {
    /// Wilson's rule: removed when another class has more neighbours than its own.
    Mode,
    /// Removed when any neighbour is of another class (scikit-learn-contrib's default).
    All,
}

/// A labelled point set: the data's rows, or the data plus synthetic rows.
#[derive(Clone, Copy)]
struct Labelled<'a> {
    pts: Points<'a>,
    y: &'a [u32],
    n_classes: usize,
}

impl Labelled<'_> {
    fn label(&self, i: usize) -> usize {
        self.y[i] as usize
    }
}

/// Pairs `(a, b)`, `a < b`, of mutual nearest neighbours of different classes.
fn tomek_pairs(set: Labelled<'_>) -> Vec<(usize, usize)> {
    let nn = knn(set.pts, set.pts, 1, Exclude::SameIndex);
    if nn.is_empty() {
        return Vec::new();
    }
    (0..set.pts.len())
        .filter_map(|a| {
            let b = nn.of(a)[0];
            (a < b && nn.of(b)[0] == a && set.y[a] != set.y[b]).then_some((a, b))
        })
        .collect()
}

/// Rows of the classes flagged in `target` that ENN removes.
///
/// One self-search of all rows (each pair of rows visited once) gives every
/// row its `k` neighbours; only the flagged classes' rows are then judged.
fn enn_removed(set: Labelled<'_>, k: usize, rule: EnnRule, target: &[bool]) -> Vec<bool> {
    let nn = knn(set.pts, set.pts, k, Exclude::SameIndex);
    let mut out = vec![false; set.pts.len()];
    if nn.is_empty() {
        return out;
    }
    let mut votes = vec![0usize; set.n_classes];
    for (i, slot) in out.iter_mut().enumerate() {
        if !target[set.label(i)] {
            continue;
        }
        votes.iter_mut().for_each(|v| *v = 0);
        for &j in nn.of(i) {
            votes[set.label(j)] += 1;
        }
        let own = votes[set.label(i)];
        *slot = match rule {
            EnnRule::Mode => votes.iter().any(|&v| v > own),
            EnnRule::All => own < nn.k(),
        };
    }
    out
}

fn gather_points(p: Points<'_>, rows: &[usize]) -> Vec<f64> {
    let mut out = Vec::with_capacity(rows.len() * p.dim());
    for &i in rows {
        out.extend_from_slice(p.row(i));
    }
    out
}

fn dist2(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .fold(0.0, |s, (x, y)| (x - y).mul_add(x - y, s))
}

/// Hart's condensing of the rows `cands` (one class) against a store that
/// holds `store` (the minority) plus one seed; returns the rows of the class kept.
fn condense(set: Labelled<'_>, store: &[usize], cands: &[usize], rng: &mut Rng) -> Vec<usize> {
    let c = set.label(cands[0]);
    let seed = cands[rng.random_range(0..cands.len())];
    let mut order: Vec<usize> = cands.iter().copied().filter(|&i| i != seed).collect();
    shuffle(&mut order, rng);
    let mut store: Vec<usize> = store.to_vec();
    store.push(seed);
    // Nearest store row (squared distance, row) of every candidate, kept up to date.
    let d = set.pts.dim();
    let sx = gather_points(set.pts, &store);
    let ox = gather_points(set.pts, &order);
    let nn = knn(
        Points::new(&ox, order.len(), d).expect("shape"),
        Points::new(&sx, store.len(), d).expect("shape"),
        1,
        Exclude::Nothing,
    );
    let mut near: Vec<(f64, usize)> = (0..order.len())
        .map(|i| (nn.dist2_of(i)[0], store[nn.of(i)[0]]))
        .collect();
    let mut inside = vec![false; order.len()];
    let mut kept = vec![seed];
    loop {
        let mut added = false;
        for p in 0..order.len() {
            if inside[p] || set.label(near[p].1) == c {
                continue;
            }
            inside[p] = true;
            added = true;
            let new = order[p];
            kept.push(new);
            let nx = set.pts.row(new);
            near.par_iter_mut().enumerate().for_each(|(q, slot)| {
                let dq = dist2(set.pts.row(order[q]), nx);
                if dq < slot.0 {
                    *slot = (dq, new);
                }
            });
        }
        if !added {
            break;
        }
    }
    kept.sort_unstable();
    kept
}

/// Keep-mask of the rows left after removing `removed`.
fn survivors(removed: &[bool]) -> Vec<usize> {
    removed
        .iter()
        .enumerate()
        .filter_map(|(i, &r)| (!r).then_some(i))
        .collect()
}

/// The data's rows as a labelled set in the chosen feature space.
fn with_space<T>(
    data: &Dataset,
    standardise: bool,
    f: impl FnOnce(Labelled<'_>) -> T,
) -> (T, Vec<String>) {
    let space = Space::new(data, standardise);
    let notes = space.note();
    let buf;
    let pts = match &space.scaling {
        Some(s) => {
            buf = gather(
                data.features(),
                data.n_features(),
                &(0..data.n_rows()).collect::<Vec<_>>(),
                Some(s),
            );
            Points::new(&buf, data.n_rows(), data.n_features()).expect("shape")
        }
        None => Points::of(data),
    };
    let set = Labelled {
        pts,
        y: data.labels(),
        n_classes: data.n_classes(),
    };
    (f(set), notes)
}

fn not_minority(counts: &[usize]) -> Vec<bool> {
    let m = minority_class(counts);
    (0..counts.len()).map(|c| c != m).collect()
}

fn finish(data: &Dataset, rows: Vec<usize>, mut notes: Vec<String>) -> Sample {
    notes.push(X_DEPENDENT.into());
    assemble(data, rows, Vec::new(), Vec::new(), notes)
}

/// Tomek links: removes the non-minority member of every link.
///
/// ```
/// use rarity::data::Dataset;
/// use rarity::sample::{Sampler, TomekLinks};
/// let x = vec![vec![0.0], vec![1.0], vec![1.1], vec![5.0], vec![9.0]];
/// let ds = Dataset::from_rows(x, vec![0, 0, 1, 0, 0], vec!["n".into(), "p".into()]).unwrap();
/// let s = TomekLinks::new().resample(&ds, &mut rarity::rng::stream(0, 0)).unwrap();
/// assert_eq!(s.rows, vec![0, 2, 3, 4]); // 1.0 and 1.1 are a link
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TomekLinks {
    standardise: bool,
}

impl TomekLinks {
    /// Tomek links on the features as they are.
    pub fn new() -> Self {
        TomekLinks::default()
    }

    /// Search neighbours on standardised features.
    pub fn standardise(mut self, on: bool) -> Self {
        self.standardise = on;
        self
    }
}

impl Sampler for TomekLinks {
    fn resample(&self, data: &Dataset, _rng: &mut Rng) -> Result<Sample> {
        let counts = two_class_counts(data, "tomek")?;
        let target = not_minority(&counts);
        let (removed, notes) = with_space(data, self.standardise, |set| {
            let mut removed = vec![false; set.pts.len()];
            for (a, b) in tomek_pairs(set) {
                for i in [a, b] {
                    if target[set.label(i)] {
                        removed[i] = true;
                    }
                }
            }
            removed
        });
        Ok(finish(data, survivors(&removed), notes))
    }

    fn name(&self) -> String {
        spec("tomek", &[std_flag(self.standardise)])
    }
}

/// Edited nearest neighbours on the classes other than the minority.
#[derive(Debug, Clone, PartialEq)]
pub struct EditedNearestNeighbours {
    k: usize,
    rule: EnnRule,
    standardise: bool,
}

impl EditedNearestNeighbours {
    /// ENN with `k` neighbours (3 in Wilson's and the later papers).
    pub fn new(k: usize, rule: EnnRule) -> Result<Self> {
        if k == 0 {
            return Err(Error::invalid("enn: k must be at least 1 neighbour"));
        }
        Ok(EditedNearestNeighbours {
            k,
            rule,
            standardise: false,
        })
    }

    /// Search neighbours on standardised features.
    pub fn standardise(mut self, on: bool) -> Self {
        self.standardise = on;
        self
    }
}

impl Sampler for EditedNearestNeighbours {
    fn resample(&self, data: &Dataset, _rng: &mut Rng) -> Result<Sample> {
        let counts = two_class_counts(data, "enn")?;
        let target = not_minority(&counts);
        let (removed, notes) = with_space(data, self.standardise, |set| {
            enn_removed(set, self.k, self.rule, &target)
        });
        Ok(finish(data, survivors(&removed), notes))
    }

    fn name(&self) -> String {
        spec(
            "enn",
            &[
                format!("k={}", self.k),
                rule_flag(self.rule),
                std_flag(self.standardise),
            ],
        )
    }
}

fn rule_flag(rule: EnnRule) -> String {
    match rule {
        EnnRule::Mode => String::new(),
        EnnRule::All => "rule=all".into(),
    }
}

/// Hart's condensed nearest neighbour, each non-minority class condensed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CondensedNearestNeighbour {
    standardise: bool,
}

impl CondensedNearestNeighbour {
    /// CNN on the features as they are.
    pub fn new() -> Self {
        CondensedNearestNeighbour::default()
    }

    /// Search neighbours on standardised features.
    pub fn standardise(mut self, on: bool) -> Self {
        self.standardise = on;
        self
    }
}

impl Sampler for CondensedNearestNeighbour {
    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        let counts = two_class_counts(data, "cnn")?;
        let m = minority_class(&counts);
        let groups = data.rows_by_class();
        let (mut rows, notes) = with_space(data, self.standardise, |set| {
            let mut rows = groups[m].clone();
            for (c, pool) in groups.iter().enumerate() {
                if c != m && !pool.is_empty() {
                    rows.extend(condense(set, &groups[m], pool, rng));
                }
            }
            rows
        });
        rows.sort_unstable();
        Ok(finish(data, rows, notes))
    }

    fn name(&self) -> String {
        spec("cnn", &[std_flag(self.standardise)])
    }
}

/// Kubat & Matwin's one-sided selection.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OneSidedSelection {
    standardise: bool,
}

impl OneSidedSelection {
    /// OSS on the features as they are.
    pub fn new() -> Self {
        OneSidedSelection::default()
    }

    /// Search neighbours on standardised features.
    pub fn standardise(mut self, on: bool) -> Self {
        self.standardise = on;
        self
    }
}

impl Sampler for OneSidedSelection {
    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        let counts = two_class_counts(data, "oss")?;
        let m = minority_class(&counts);
        let groups = data.rows_by_class();
        let (rows, notes) = with_space(data, self.standardise, |set| {
            let d = set.pts.dim();
            let mut chosen = groups[m].clone();
            for (c, pool) in groups.iter().enumerate() {
                if c == m || pool.is_empty() {
                    continue;
                }
                let seed = pool[rng.random_range(0..pool.len())];
                let mut store = groups[m].clone();
                store.push(seed);
                let sx = gather_points(set.pts, &store);
                let px = gather_points(set.pts, pool);
                let nn = knn(
                    Points::new(&px, pool.len(), d).expect("shape"),
                    Points::new(&sx, store.len(), d).expect("shape"),
                    1,
                    Exclude::Nothing,
                );
                chosen.push(seed);
                chosen.extend(
                    (0..pool.len())
                        .filter(|&i| pool[i] != seed && set.label(store[nn.of(i)[0]]) != c)
                        .map(|i| pool[i]),
                );
            }
            chosen.sort_unstable();
            // Tomek links within the chosen rows.
            let cx = gather_points(set.pts, &chosen);
            let cy: Vec<u32> = chosen.iter().map(|&i| set.y[i]).collect();
            let sub = Labelled {
                pts: Points::new(&cx, chosen.len(), d).expect("shape"),
                y: &cy,
                n_classes: set.n_classes,
            };
            let mut removed = vec![false; chosen.len()];
            for (a, b) in tomek_pairs(sub) {
                for i in [a, b] {
                    if sub.label(i) != m {
                        removed[i] = true;
                    }
                }
            }
            survivors(&removed).into_iter().map(|i| chosen[i]).collect()
        });
        Ok(finish(data, rows, notes))
    }

    fn name(&self) -> String {
        spec("oss", &[std_flag(self.standardise)])
    }
}

/// Laurikkala's neighbourhood cleaning rule.
#[derive(Debug, Clone, PartialEq)]
pub struct NeighbourhoodCleaningRule {
    k: usize,
    standardise: bool,
}

impl NeighbourhoodCleaningRule {
    /// NCL with `k` neighbours (3 in the paper).
    pub fn new(k: usize) -> Result<Self> {
        if k == 0 {
            return Err(Error::invalid("ncl: k must be at least 1 neighbour"));
        }
        Ok(NeighbourhoodCleaningRule {
            k,
            standardise: false,
        })
    }

    /// Search neighbours on standardised features.
    pub fn standardise(mut self, on: bool) -> Self {
        self.standardise = on;
        self
    }
}

impl Sampler for NeighbourhoodCleaningRule {
    fn resample(&self, data: &Dataset, _rng: &mut Rng) -> Result<Sample> {
        let counts = two_class_counts(data, "ncl")?;
        let m = minority_class(&counts);
        let target = not_minority(&counts);
        let big_enough: Vec<bool> = counts
            .iter()
            .enumerate()
            .map(|(c, &n)| c != m && 2 * n >= counts[m])
            .collect();
        let (removed, notes) = with_space(data, self.standardise, |set| {
            let mut removed = enn_removed(set, self.k, EnnRule::Mode, &target);
            let minority: Vec<usize> = (0..set.pts.len()).filter(|&i| set.label(i) == m).collect();
            let q = gather_points(set.pts, &minority);
            let nn = knn(
                Points::new(&q, minority.len(), set.pts.dim()).expect("shape"),
                set.pts,
                self.k,
                Exclude::Given(&minority),
            );
            let mut votes = vec![0usize; set.n_classes];
            for qi in 0..minority.len() {
                votes.iter_mut().for_each(|v| *v = 0);
                for &j in nn.of(qi) {
                    votes[set.label(j)] += 1;
                }
                if votes.iter().any(|&v| v > votes[m]) {
                    for &j in nn.of(qi) {
                        if big_enough[set.label(j)] {
                            removed[j] = true;
                        }
                    }
                }
            }
            removed
        });
        Ok(finish(data, survivors(&removed), notes))
    }

    fn name(&self) -> String {
        spec(
            "ncl",
            &[format!("k={}", self.k), std_flag(self.standardise)],
        )
    }
}

/// NearMiss 1, 2 or 3: each non-minority class reduced to the minority's size.
#[derive(Debug, Clone, PartialEq)]
pub struct NearMiss {
    version: u8,
    k: usize,
    k3: usize,
    standardise: bool,
}

impl NearMiss {
    /// NearMiss `version` (1, 2 or 3) with `k` minority neighbours for the
    /// scores (3) and, for version 3, `k3` (3) short-listed rows per minority row.
    pub fn new(version: u8, k: usize, k3: usize) -> Result<Self> {
        if !(1..=3).contains(&version) {
            return Err(Error::invalid(format!(
                "NearMiss version {version} does not exist: use 1, 2 or 3"
            )));
        }
        if k == 0 || k3 == 0 {
            return Err(Error::invalid(
                "nearmiss: neighbour counts must be at least 1",
            ));
        }
        Ok(NearMiss {
            version,
            k,
            k3,
            standardise: false,
        })
    }

    /// Search neighbours on standardised features.
    pub fn standardise(mut self, on: bool) -> Self {
        self.standardise = on;
        self
    }
}

impl Sampler for NearMiss {
    fn resample(&self, data: &Dataset, _rng: &mut Rng) -> Result<Sample> {
        let counts = two_class_counts(data, "nearmiss")?;
        let m = minority_class(&counts);
        let groups = data.rows_by_class();
        let (mut rows, notes) = with_space(data, self.standardise, |set| {
            let d = set.pts.dim();
            let mx = gather_points(set.pts, &groups[m]);
            let minority = Points::new(&mx, groups[m].len(), d).expect("shape");
            let mut rows = groups[m].clone();
            for (c, pool) in groups.iter().enumerate() {
                if c == m || pool.is_empty() {
                    continue;
                }
                let cand: Vec<usize> = if self.version == 3 {
                    let px = gather_points(set.pts, pool);
                    let short = knn(
                        minority,
                        Points::new(&px, pool.len(), d).expect("shape"),
                        self.k3,
                        Exclude::Nothing,
                    );
                    let mut l: Vec<usize> = (0..short.len())
                        .flat_map(|q| short.of(q).to_vec())
                        .collect();
                    l.sort_unstable();
                    l.dedup();
                    l.into_iter().map(|i| pool[i]).collect()
                } else {
                    pool.clone()
                };
                let cx = gather_points(set.pts, &cand);
                let order = if self.version == 2 {
                    Order::Farthest
                } else {
                    Order::Nearest
                };
                let nn = search(
                    Points::new(&cx, cand.len(), d).expect("shape"),
                    minority,
                    self.k,
                    Exclude::Nothing,
                    order,
                );
                let score: Vec<f64> = (0..cand.len())
                    .map(|i| nn.dist2_of(i).iter().map(|v| v.sqrt()).sum::<f64>() / nn.k() as f64)
                    .collect();
                let mut idx: Vec<usize> = (0..cand.len()).collect();
                if self.version == 3 {
                    idx.sort_by(|&a, &b| score[b].total_cmp(&score[a]).then(cand[a].cmp(&cand[b])));
                } else {
                    idx.sort_by(|&a, &b| score[a].total_cmp(&score[b]).then(cand[a].cmp(&cand[b])));
                }
                rows.extend(idx.into_iter().take(counts[m]).map(|i| cand[i]));
            }
            rows
        });
        rows.sort_unstable();
        Ok(finish(data, rows, notes))
    }

    fn name(&self) -> String {
        let k3 = if self.version == 3 {
            format!("k3={}", self.k3)
        } else {
            String::new()
        };
        spec(
            &format!("nearmiss{}", self.version),
            &[format!("k={}", self.k), k3, std_flag(self.standardise)],
        )
    }
}

/// SMOTE, then a cleaning of all classes (synthetic rows included) on the result.
fn smote_then_clean(
    smote: &Smote,
    data: &Dataset,
    rng: &mut Rng,
    standardise: bool,
    clean: impl FnOnce(Labelled<'_>) -> Vec<bool>,
) -> Result<Sample> {
    let s = smote.resample(data, rng)?;
    let n = data.n_rows();
    let d = data.n_features();
    let space = Space::new(data, standardise);
    let all: Vec<usize> = (0..n).collect();
    let mut x = gather(data.features(), d, &all, space.scaling.as_ref());
    let m = s.synthetic_labels.len();
    match &space.scaling {
        Some(sc) => {
            for r in s.synthetic_x.chunks(d.max(1)).take(m) {
                sc.push_scaled(r, &mut x);
            }
        }
        None => x.extend_from_slice(&s.synthetic_x),
    }
    let mut y = data.labels().to_vec();
    y.extend_from_slice(&s.synthetic_labels);
    let set = Labelled {
        pts: Points::new(&x, n + m, d).expect("shape"),
        y: &y,
        n_classes: data.n_classes(),
    };
    let removed = clean(set);
    let rows: Vec<usize> = (0..n).filter(|&i| !removed[i]).collect();
    let mut sx = Vec::new();
    let mut sy = Vec::new();
    for j in 0..m {
        if !removed[n + j] {
            sx.extend_from_slice(&s.synthetic_x[j * d..(j + 1) * d]);
            sy.push(s.synthetic_labels[j]);
        }
    }
    let mut notes = s.notes;
    notes.push(X_DEPENDENT.into());
    Ok(assemble(data, rows, sx, sy, notes))
}

/// SMOTE followed by the removal of both members of every Tomek link.
#[derive(Debug, Clone, PartialEq)]
pub struct SmoteTomek {
    smote: Smote,
    standardise: bool,
}

impl SmoteTomek {
    /// The given SMOTE, then Tomek links.
    pub fn new(smote: Smote, standardise: bool) -> Self {
        SmoteTomek {
            smote: smote.standardise(standardise),
            standardise,
        }
    }
}

impl Sampler for SmoteTomek {
    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        smote_then_clean(&self.smote, data, rng, self.standardise, |set| {
            let mut removed = vec![false; set.pts.len()];
            for (a, b) in tomek_pairs(set) {
                removed[a] = true;
                removed[b] = true;
            }
            removed
        })
    }

    fn name(&self) -> String {
        spec("smote-tomek", &self.smote.parts())
    }
}

/// SMOTE followed by ENN on every class.
#[derive(Debug, Clone, PartialEq)]
pub struct SmoteEnn {
    smote: Smote,
    enn: EditedNearestNeighbours,
}

impl SmoteEnn {
    /// The given SMOTE, then the given ENN applied to all classes.
    pub fn new(smote: Smote, enn: EditedNearestNeighbours) -> Self {
        SmoteEnn {
            smote: smote.standardise(enn.standardise),
            enn,
        }
    }
}

impl Sampler for SmoteEnn {
    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        let all = vec![true; data.n_classes()];
        smote_then_clean(&self.smote, data, rng, self.enn.standardise, |set| {
            enn_removed(set, self.enn.k, self.enn.rule, &all)
        })
    }

    fn name(&self) -> String {
        let mut parts = self.smote.parts();
        parts.push(format!("enn_k={}", self.enn.k));
        parts.push(rule_flag(self.enn.rule));
        spec("smote-enn", &parts)
    }
}
