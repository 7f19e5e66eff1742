//! Cluster centroids (Yen & Lee 2009, "Cluster-based under-sampling
//! approaches for imbalanced data distributions"; imbalanced-learn's
//! `ClusterCentroids`): each class reduced to `n` rows is clustered by
//! k-means into `n` clusters ([`super::kmeans`]), and replaced by the
//! clusters' centres (`voting=soft`, rows that are no input row) or by the
//! row of the class nearest each centre (`voting=hard`, a selection of
//! input rows, so the keep rates undo the prior shift as for any
//! undersampler). A row nearest two centres is kept twice, as
//! imbalanced-learn keeps it. By default every class but the minority is
//! reduced to the minority's size; `counts` gives each class's rows.
//! Features are compared as they are (numeric tables only: a centre of
//! level codes is no level).

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::neighbors::{knn, Exclude, Points};
use crate::params::{choice, params, Bounds, Params};
use crate::rng::Rng;

use crate::sample::draw::{assemble_rows, Classes};
use crate::sample::kmeans::kmeans;
use crate::sample::{colon_list, spec, Sample, Sampler};

choice! {
    /// What replaces a reduced class's rows.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Voting {
        /// The k-means centres themselves.
        Soft = "soft",
        /// The class's row nearest each centre.
        Hard = "hard",
    }
}

params! {
    /// Cluster centroids: reduced classes replaced by k-means centres.
    #[derive(Debug, Clone, PartialEq)]
    pub struct ClusterCentroids {
        /// soft: the centres; hard: the rows nearest them.
        pub voting: Voting = Voting::Soft,
        /// Rows wanted of each class, in class-id order (a class with that
        /// many rows or fewer is kept whole); none: every class but the
        /// minority reduced to the minority's size.
        pub counts: Option<Vec<usize>> = None,
        /// Lloyd's iterations at most.
        pub max_iter: usize = crate::sample::kmeans::MAX_ITER => Bounds::at_least(1.0),
    }
}

impl Sampler for ClusterCentroids {
    fn synthesizes(&self) -> bool {
        self.voting == Voting::Soft
    }

    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        self.check()?;
        let cls = Classes::of(data, "cluster-centroids")?;
        if data.schema().has_categorical() {
            return Err(Error::invalid(
                "cluster-centroids averages rows: the table has categorical features",
            ));
        }
        if let Some(v) = &self.counts {
            if v.len() != cls.counts.len() {
                return Err(Error::invalid(format!(
                    "cluster-centroids: {} counts given for {} classes",
                    v.len(),
                    cls.counts.len()
                )));
            }
        }
        let d = data.n_features();
        let n_min = cls.counts[cls.minority];
        let (mut rows, mut values, mut labels) = (Vec::new(), Vec::new(), Vec::new());
        for (c, pool) in cls.rows.iter().enumerate() {
            let want = match &self.counts {
                Some(v) => v[c],
                None if c == cls.minority => pool.len(),
                None => n_min,
            };
            if want >= pool.len() {
                rows.extend_from_slice(pool);
                continue;
            }
            if want == 0 {
                continue;
            }
            let x = Points::of(data).gather(pool);
            let clusters = kmeans(&x, d, want, self.max_iter, rng);
            match self.voting {
                Voting::Soft => {
                    values.extend_from_slice(&clusters.centers);
                    labels.extend(std::iter::repeat_n(c as u32, clusters.k));
                }
                Voting::Hard => {
                    let centres = Points::new(&clusters.centers, clusters.k, d).expect("shape");
                    let nn = knn(
                        centres,
                        Points::new(&x, pool.len(), d).expect("shape"),
                        1,
                        Exclude::Nothing,
                    );
                    rows.extend((0..clusters.k).map(|q| pool[nn.of(q)[0]]));
                }
            }
        }
        rows.sort_unstable();
        let mut notes = Vec::new();
        if self.voting == Voting::Hard {
            notes.push(
                "the rows kept depend on the features, not only on the class: correcting \
                 probabilities with the keep rates is approximate"
                    .to_string(),
            );
        }
        let mut s = assemble_rows(data, rows, notes);
        if !labels.is_empty() {
            s.synthetic_values = values;
            s.synthetic_labels = labels;
            s.keep_rates = s.compute_keep_rates(data);
        }
        Ok(s)
    }

    fn name(&self) -> String {
        spec(
            "cluster-centroids",
            &[
                match self.voting {
                    Voting::Soft => String::new(),
                    Voting::Hard => "voting=hard".into(),
                },
                self.counts
                    .as_ref()
                    .map(|v| format!("counts={}", colon_list(v)))
                    .unwrap_or_default(),
                if self.max_iter == crate::sample::kmeans::MAX_ITER {
                    String::new()
                } else {
                    format!("max_iter={}", self.max_iter)
                },
            ],
        )
    }
}
