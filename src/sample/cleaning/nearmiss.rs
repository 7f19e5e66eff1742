//! NearMiss (Mani & Zhang 2003, "kNN approach to unbalanced data
//! distributions: a case study involving information extraction"): each
//! class other than the minority reduced to the minority's size, keeping its
//! rows with the smallest mean distance to their `k` (3) nearest minority
//! rows (version 1), to their `k` farthest minority rows (version 2), or
//! (version 3) among the `k3` (3) nearest rows of each minority row, those
//! with the largest mean distance to their `k` nearest minority rows. Ties go
//! to the lower row index.

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::neighbors::{Exclude, Order, Points};
use crate::params::{params, Bounds, Params};
use crate::rng::Rng;

use super::clean;
use crate::sample::draw::Classes;
use crate::sample::parts::params_of_parts;
use crate::sample::space::{std_flag, Labelled};
use crate::sample::{spec, Sample, Sampler};

params! {
    /// How NearMiss scores a row.
    #[derive(Debug, Clone, PartialEq)]
    pub struct NearMissScores {
        /// Minority rows whose mean distance scores each row.
        pub k: usize = 3 => Bounds::at_least(1.0),
        /// Rows kept of each class, in class-id order (a class keeps every
        /// row when its count is its size or more); none: every class but
        /// the minority reduced to the minority's size.
        pub counts: Option<Vec<usize>> = None,
        /// Each reduced class's rows in score order, best first
        /// (imbalanced-learn's order), instead of input order.
        pub ranked: bool = false,
        /// The class ids reduced (none: every class; a class not named
        /// keeps every row, in input order).
        pub classes: Option<Vec<usize>> = None,
        /// Search neighbours on standardised features (flag: standardise).
        pub standardise: bool = false,
    }
}

params! {
    /// NearMiss-3's short list.
    #[derive(Debug, Clone, PartialEq)]
    pub struct ShortList {
        /// Nearest rows of each other class short-listed per minority row.
        pub k3: usize = 3 => Bounds::at_least(1.0),
    }
}

/// NearMiss version `V` (1, 2 or 3; `nearmiss1` .. `nearmiss3` in a spec):
/// each non-minority class reduced to the minority's size. The short list
/// serves version 3 only.
///
/// ```
/// use rarity::data::Dataset;
/// use rarity::sample::{NearMiss, Sampler};
/// let x = vec![vec![0.0], vec![1.0], vec![5.0], vec![1.2], vec![9.0]];
/// let ds = Dataset::from_rows(x, vec![0, 0, 0, 1, 0], vec!["n".into(), "p".into()]).unwrap();
/// let s = NearMiss::<1>::default().resample(&ds, &mut rarity::rng::stream(0, 0)).unwrap();
/// assert_eq!(s.rows, vec![1, 3]); // the negative nearest the positive
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NearMiss<const V: u8> {
    /// The scores.
    pub scores: NearMissScores,
    /// Version 3's short list.
    pub short_list: ShortList,
}

params_of_parts!(NearMiss<1>: scores);
params_of_parts!(NearMiss<2>: scores);
params_of_parts!(NearMiss<3>: scores, short_list);

impl<const V: u8> NearMiss<V> {
    /// The rows kept: the minority and, of every other class, the
    /// minority's size of rows with the best scores.
    fn select(&self, set: Labelled<'_>, cls: &Classes) -> Vec<usize> {
        let d = set.pts.dim();
        let mx = set.pts.gather(cls.minority_rows());
        let minority = Points::new(&mx, cls.minority_rows().len(), d).expect("shape");
        let n_min = cls.minority_rows().len();
        let mut rows = Vec::new();
        for (c, pool) in cls.rows.iter().enumerate() {
            if let Some(ids) = &self.scores.classes {
                if !ids.contains(&c) {
                    rows.extend_from_slice(pool);
                    continue;
                }
            }
            let want = match &self.scores.counts {
                Some(v) => v[c],
                None if c == cls.minority => pool.len(),
                None => n_min,
            };
            // A class kept whole keeps its input order, unless its count
            // was given and the order is by rank (imbalanced-learn ranks
            // every class its sampling_strategy names).
            let ranks_whole = self.scores.ranked && self.scores.counts.is_some();
            if want > pool.len() || want == pool.len() && !ranks_whole {
                rows.extend_from_slice(pool);
                continue;
            }
            let cand: Vec<usize> = if V == 3 {
                let px = set.pts.gather(pool);
                let short = set.metric.knn(
                    minority,
                    Points::new(&px, pool.len(), d).expect("shape"),
                    self.short_list.k3,
                    Exclude::Nothing,
                );
                let mut l: Vec<usize> = (0..short.len())
                    .flat_map(|q| short.of(q).to_vec())
                    .collect();
                l.sort_unstable();
                l.dedup();
                l.into_iter().map(|i| pool[i]).collect()
            } else {
                pool.to_vec()
            };
            let cx = set.pts.gather(&cand);
            let order = if V == 2 {
                Order::Farthest
            } else {
                Order::Nearest
            };
            let nn = set.metric.search(
                Points::new(&cx, cand.len(), d).expect("shape"),
                minority,
                self.scores.k,
                Exclude::Nothing,
                order,
            );
            let score: Vec<f64> = (0..cand.len())
                .map(|i| nn.dist2_of(i).iter().map(|v| v.sqrt()).sum::<f64>() / nn.k() as f64)
                .collect();
            let mut idx: Vec<usize> = (0..cand.len()).collect();
            if V == 3 {
                idx.sort_by(|&a, &b| score[b].total_cmp(&score[a]).then(cand[a].cmp(&cand[b])));
            } else {
                idx.sort_by(|&a, &b| score[a].total_cmp(&score[b]).then(cand[a].cmp(&cand[b])));
            }
            rows.extend(idx.into_iter().take(want).map(|i| cand[i]));
        }
        if !self.scores.ranked {
            rows.sort_unstable();
        }
        rows
    }
}

impl<const V: u8> Sampler for NearMiss<V> {
    fn resample(&self, data: &Dataset, _rng: &mut Rng) -> Result<Sample> {
        if !(1..=3).contains(&V) {
            return Err(Error::invalid(format!(
                "NearMiss version {V} does not exist: use 1, 2 or 3"
            )));
        }
        self.short_list.check()?;
        if let Some(v) = &self.scores.counts {
            if v.len() != data.n_classes() {
                return Err(Error::invalid(format!(
                    "nearmiss: {} counts given for {} classes",
                    v.len(),
                    data.n_classes()
                )));
            }
        }
        let std = self.scores.standardise;
        clean(&self.scores, data, ("nearmiss", std, None), |set, cls| {
            self.select(set, cls)
        })
    }

    fn name(&self) -> String {
        let k3 = if V == 3 {
            format!("k3={}", self.short_list.k3)
        } else {
            String::new()
        };
        spec(
            &format!("nearmiss{V}"),
            &[
                format!("k={}", self.scores.k),
                k3,
                self.scores
                    .counts
                    .as_ref()
                    .map(|v| format!("counts={}", crate::sample::colon_list(v)))
                    .unwrap_or_default(),
                if self.scores.ranked {
                    "ranked=true".into()
                } else {
                    String::new()
                },
                super::classes_flag(&self.scores.classes),
                std_flag(self.scores.standardise),
            ],
        )
    }
}
