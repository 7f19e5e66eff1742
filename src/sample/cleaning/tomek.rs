//! Tomek links (Tomek 1976, "Two modifications of CNN"): rows `a`, `b` of
//! different classes that are each other's nearest neighbour. [`TomekLinks`]
//! removes the member of each link outside the minority; SMOTE + Tomek and
//! one-sided selection use the links too.

use crate::data::Dataset;
use crate::error::Result;
use crate::neighbors::Exclude;
use crate::params::params;
use crate::rng::Rng;

use super::{classes_flag, clean, survivors};
use crate::sample::space::{std_flag, Labelled};
use crate::sample::{spec, Sample, Sampler};

params! {
    /// Tomek links: removes the non-minority member of every link.
    ///
    /// ```
    /// use rarity::data::Dataset;
    /// use rarity::sample::{Sampler, TomekLinks};
    /// let x = vec![vec![0.0], vec![1.0], vec![1.1], vec![5.0], vec![9.0]];
    /// let ds = Dataset::from_rows(x, vec![0, 0, 1, 0, 0], vec!["n".into(), "p".into()]).unwrap();
    /// let s = TomekLinks::default().resample(&ds, &mut rarity::rng::stream(0, 0)).unwrap();
    /// assert_eq!(s.rows, vec![0, 2, 3, 4]); // 1.0 and 1.1 are a link
    /// ```
    #[derive(Debug, Clone, PartialEq)]
    pub struct TomekLinks {
        /// The class ids cleaned, e.g. classes=1:2 (none: every class but
        /// the minority; imbalanced-learn's sampling_strategy as a list).
        pub classes: Option<Vec<usize>> = None,
        /// Search neighbours on standardised features (flag: standardise).
        pub standardise: bool = false,
    }
}

/// Pairs `(a, b)`, `a < b`, of mutual nearest neighbours of different classes.
pub(super) fn tomek_pairs(set: Labelled<'_>) -> Vec<(usize, usize)> {
    let nn = set.metric.knn(set.pts, set.pts, 1, Exclude::SameIndex);
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

/// Flags the members of the Tomek links of `set` whose class is flagged in
/// `target`.
pub(super) fn tomek_removed(set: Labelled<'_>, target: &[bool]) -> Vec<bool> {
    let mut removed = vec![false; set.pts.len()];
    for (a, b) in tomek_pairs(set) {
        for i in [a, b] {
            if target[set.label(i)] {
                removed[i] = true;
            }
        }
    }
    removed
}

impl Sampler for TomekLinks {
    fn resample(&self, data: &Dataset, _rng: &mut Rng) -> Result<Sample> {
        clean(
            self,
            data,
            ("tomek", self.standardise, self.classes.as_deref()),
            |set, cls| survivors(&tomek_removed(set, &cls.not_minority())),
        )
    }

    fn name(&self) -> String {
        spec(
            "tomek",
            &[classes_flag(&self.classes), std_flag(self.standardise)],
        )
    }
}
