//! SVM-SMOTE (Nguyen, Cooper & Kamei 2011, "Borderline over-sampling for
//! imbalanced data classification", IJKESDP 3(1)): the support vectors of
//! a C-SVM ([`crate::learn::svm::Svm`], RBF kernel, `gamma=scale`,
//! one class against the rest) approximate the class border. A support
//! vector of the class whose `m` nearest rows (over all rows) are all of
//! other classes is noise and dropped; one with at least half of them of
//! other classes is in danger and generates rows by interpolation towards
//! its `k` nearest rows of its class (as SMOTE); the others are safe and
//! generate rows by extrapolation, away from a neighbour by a gap in
//! `[0, out_step)`, widening the class's region towards the border. When
//! both kinds exist the new rows are split evenly (imbalanced-learn draws
//! the split from a Beta(10, 10)). When every support vector is noise the
//! method has nothing to work from and says so.

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::learn::svm::Svm;
use crate::params::{params, Bounds, Params};
use crate::rng::Rng;

use crate::sample::draw::two_class_counts;
use crate::sample::parts::params_of_parts;
use crate::sample::smote::{smote_class, spread};
use crate::sample::space::Space;
use crate::sample::{spec, OverTarget, Sample, Sampler, SmoteNeighbours};

params! {
    /// SVM-SMOTE's border.
    #[derive(Debug, Clone, PartialEq)]
    pub struct SvmBorder {
        /// Neighbours over all rows for the noise and danger tests.
        pub m: usize = 10 => Bounds::at_least(1.0),
        /// The SVM's box constraint C.
        pub c: f64 = 1.0 => Bounds::positive(),
        /// The largest extrapolation gap of a safe support vector's rows.
        pub out_step: f64 = 0.5 => Bounds::at_least(0.0),
    }
}

/// SVM-SMOTE.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SvmSmote {
    /// SMOTE's neighbour search among the class's rows.
    pub neighbours: SmoteNeighbours,
    /// The support vectors' tests.
    pub border: SvmBorder,
    /// The class sizes to reach.
    pub target: OverTarget,
}

params_of_parts!(SvmSmote: neighbours, border, target);

/// The support vectors of class `c` that are not noise: `(danger, safe)`,
/// row numbers in row order.
fn border_rows(this: &SvmSmote, space: &Space<'_>, c: usize) -> Result<(Vec<usize>, Vec<usize>)> {
    let data = space.data();
    let x = space.all();
    let positive: Vec<bool> = data.labels().iter().map(|&y| y as usize == c).collect();
    let svm = Svm {
        c: this.border.c,
        ..Svm::default()
    };
    let sv: Vec<usize> = svm
        .support_rows(&x, data.n_features(), &positive)?
        .into_iter()
        .filter(|&i| positive[i])
        .collect();
    let nn = space.among_all(&sv, this.border.m);
    let m = nn.k();
    let (mut danger, mut safe) = (Vec::new(), Vec::new());
    for (q, &i) in sv.iter().enumerate() {
        let other = nn.of(q).iter().filter(|&&j| !positive[j]).count();
        if other == m {
            continue;
        }
        if 2 * other >= m {
            danger.push(i);
        } else {
            safe.push(i);
        }
    }
    if danger.is_empty() && safe.is_empty() {
        return Err(Error::data(format!(
            "svm-smote: every support vector of class '{}' is noise (all its m={m} nearest rows \
             are of other classes): SVM-SMOTE is not adapted to your dataset; try another SMOTE \
             variant",
            data.class_names()[c]
        )));
    }
    Ok((danger, safe))
}

impl Sampler for SvmSmote {
    fn synthesizes(&self) -> bool {
        true
    }

    fn resample(&self, data: &Dataset, rng: &mut Rng) -> Result<Sample> {
        self.check()?;
        let counts = two_class_counts(data, "svm-smote")?;
        let sizes = self.target.sizes(&counts, data.n_features())?;
        let space = Space::new(data, self.neighbours.standardise);
        // The support vectors of every class to enlarge, before any row is made.
        let mut borders = Vec::new();
        for c in (0..counts.len()).filter(|&c| sizes[c] > counts[c]) {
            borders.push((c, border_rows(self, &space, c)?));
        }
        let (k, out) = (self.neighbours.k, self.border.out_step);
        self.neighbours.oversample(
            data,
            "svm-smote",
            &self.target,
            rng,
            |space, c, pool, new, rng, gen| {
                let Some((_, (danger, safe))) = borders.iter().find(|b| b.0 == c) else {
                    return;
                };
                let to_safe = match (danger.is_empty(), safe.is_empty()) {
                    (true, _) => new,
                    (_, true) => 0,
                    _ => new / 2,
                };
                if !safe.is_empty() {
                    let per_row = spread(to_safe, safe.len(), rng);
                    smote_class(space, c, safe, pool, &per_row, (k, -out), rng, gen);
                }
                if !danger.is_empty() {
                    let per_row = spread(new - to_safe, danger.len(), rng);
                    smote_class(space, c, danger, pool, &per_row, (k, 1.0), rng, gen);
                }
            },
        )
    }

    fn name(&self) -> String {
        let b = &self.border;
        let middle = [
            format!("m={}", b.m),
            format!("c={}", b.c),
            format!("out_step={}", b.out_step),
            self.target.spec(),
        ];
        spec("svm-smote", &self.neighbours.parts(&middle))
    }
}
