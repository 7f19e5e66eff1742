//! OSS, one-sided selection (Kubat & Matwin 1997, "Addressing the curse of
//! imbalanced training sets: one-sided selection"): the store (the minority
//! plus one random row per other class) classifies every other row by 1-NN
//! once; the misclassified join it; then the non-minority members of Tomek
//! links within the result are removed.

use rand::RngExt;

use crate::data::Dataset;
use crate::error::Result;
use crate::neighbors::Points;
use crate::params::{params, Params};
use crate::rng::Rng;

use super::tomek::tomek_removed;
use super::{finish, nearest_in, not_minority, survivors};
use crate::sample::draw::{minority_class, two_class_counts};
use crate::sample::space::{std_flag, Labelled, Space};
use crate::sample::{spec, Sample, Sampler};

params! {
    /// Kubat & Matwin's one-sided selection.
    #[derive(Debug, Clone, PartialEq)]
    pub struct OneSidedSelection {
        /// Search neighbours on standardised features (flag: standardise).
        pub standardise: bool = false,
    }
}

impl Sampler for OneSidedSelection {
    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        self.check()?;
        let counts = two_class_counts(data, "oss")?;
        let m = minority_class(&counts);
        let groups = data.rows_by_class();
        let space = Space::new(data, self.standardise);
        let x = space.all();
        let set = Labelled::of(data, &x);
        let mut chosen = groups[m].clone();
        for (c, pool) in groups.iter().enumerate() {
            if c == m || pool.is_empty() {
                continue;
            }
            let seed = pool[rng.random_range(0..pool.len())];
            let mut store = groups[m].clone();
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
        };
        let removed = tomek_removed(sub, &not_minority(&counts));
        let rows = survivors(&removed).into_iter().map(|i| chosen[i]).collect();
        Ok(finish(data, rows, space.note()))
    }

    fn name(&self) -> String {
        spec("oss", &[std_flag(self.standardise)])
    }
}
