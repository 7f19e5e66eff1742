//! OSS, one-sided selection (Kubat & Matwin 1997, "Addressing the curse of
//! imbalanced training sets: one-sided selection"): the store (the minority
//! plus one random row per other class) classifies every other row by 1-NN
//! once; the misclassified join it; then the non-minority members of Tomek
//! links within the result are removed.

use rand::RngExt;

use crate::data::Dataset;
use crate::error::Result;
use crate::neighbors::Points;
use crate::params::params;
use crate::rng::Rng;

use super::tomek::tomek_removed;
use super::{classes_flag, clean, nearest_in, survivors};
use crate::sample::space::{std_flag, Labelled};
use crate::sample::{spec, Sample, Sampler};

params! {
    /// Kubat & Matwin's one-sided selection.
    #[derive(Debug, Clone, PartialEq)]
    pub struct OneSidedSelection {
        /// The class ids cleaned, e.g. classes=1:2 (none: every class but
        /// the minority; imbalanced-learn's sampling_strategy as a list).
        pub classes: Option<Vec<usize>> = None,
        /// Search neighbours on standardised features (flag: standardise).
        pub standardise: bool = false,
    }
}

impl Sampler for OneSidedSelection {
    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        clean(
            self,
            data,
            ("oss", self.standardise, self.classes.as_deref()),
            |set, cls| {
                let mut chosen = cls.minority_rows().to_vec();
                chosen.extend(cls.kept_whole());
                for (c, pool) in cls.others() {
                    let seed = pool[rng.random_range(0..pool.len())];
                    let mut store = cls.minority_rows().to_vec();
                    store.push(seed);
                    let nn = nearest_in(set, pool, &store);
                    chosen.push(seed);
                    chosen.extend(
                        (0..pool.len())
                            .filter(|&i| pool[i] != seed && set.label(store[nn.of(i)[0]]) != c)
                            .map(|i| pool[i]),
                    );
                }
                chosen.sort_unstable();
                // Tomek links within the chosen rows.
                let cx = set.pts.gather(&chosen);
                let cy: Vec<u32> = chosen.iter().map(|&i| set.y[i]).collect();
                let sub = Labelled {
                    pts: Points::new(&cx, chosen.len(), set.pts.dim()).expect("shape"),
                    y: &cy,
                    n_classes: set.n_classes,
                    metric: set.metric,
                };
                let removed = tomek_removed(sub, &cls.not_minority());
                survivors(&removed).into_iter().map(|i| chosen[i]).collect()
            },
        )
    }

    fn name(&self) -> String {
        spec(
            "oss",
            &[classes_flag(&self.classes), std_flag(self.standardise)],
        )
    }
}
