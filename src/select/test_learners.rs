//! Test fixtures of the selection methods: a task a tree learns, a worse
//! learner, and one that labels a target set with a single class.

use std::sync::Arc;

use rand::RngExt;

use crate::data::Dataset;
use crate::error::Result;
use crate::learn::tree::Tree;
use crate::learn::Learner;
use crate::learn::Model;
use crate::rng;

/// A reasonable but worse learner: a tree fitted after flipping each
/// training label with probability 0.3.
#[derive(Debug)]
pub(crate) struct NoisyTree;

impl Learner for NoisyTree {
    fn fit(&self, data: &crate::data::View<'_>, rng: &mut crate::rng::Rng) -> Result<Model> {
        let ds = data.data().take(data.indices());
        let y: Vec<u32> = ds
            .labels()
            .iter()
            .map(|&c| if rng.random::<f64>() < 0.3 { 1 - c } else { c })
            .collect();
        let noisy = Dataset::new(ds.features().to_vec(), y, ds.schema().clone())?;
        let rows: Vec<usize> = (0..noisy.n_rows()).collect();
        Tree::default().fit(&noisy.view(&rows), rng)
    }
    fn name(&self) -> String {
        "noisy-tree".into()
    }
}

/// Always class 0: labels `T` with one class.
#[derive(Debug)]
pub(crate) struct AlwaysZero;

impl Learner for AlwaysZero {
    fn fit(&self, data: &crate::data::View<'_>, rng: &mut crate::rng::Rng) -> Result<Model> {
        let zero = (0..data.len()).find(|&i| data.label(i) == 0).unwrap_or(0);
        let rows = [data.indices()[zero]];
        Tree::default().fit(&data.data().view(&rows), rng)
    }
    fn name(&self) -> String {
        "always-zero".into()
    }
}

/// `n` rows with y = 1 iff x0 > 0.5, x0 uniform on `[shift, 1)`: a tree
/// learns it, the constant learner does not.
pub(crate) fn shifted(n: usize, shift: f64, seed: u64) -> Dataset {
    let mut r = rng::stream(seed, 0);
    let rows: Vec<Vec<f64>> = (0..n)
        .map(|_| vec![r.random::<f64>() * (1.0 - shift) + shift, r.random()])
        .collect();
    let y = rows.iter().map(|x| u32::from(x[0] > 0.5)).collect();
    Dataset::from_rows(rows, y, vec!["0".into(), "1".into()]).unwrap()
}

/// A training set `D` of `n` rows ([`shifted`] by 0, seed 1) and a target
/// set `T` of `n` rows shifted by `target_shift` (seed 2).
pub(crate) fn train_and_target(n: usize, target_shift: f64) -> (Dataset, Dataset) {
    (shifted(n, 0.0, 1), shifted(n, target_shift, 2))
}

/// [`NoisyTree`] then a tree: the second is better.
pub(crate) fn noisy_tree_and_tree() -> Vec<(String, Arc<dyn Learner>)> {
    vec![
        ("noisy-tree".into(), Arc::new(NoisyTree)),
        ("tree".into(), Arc::new(Tree::default())),
    ]
}

/// [`AlwaysZero`] then a tree.
pub(crate) fn always_zero_and_tree() -> Vec<(String, Arc<dyn Learner>)> {
    vec![
        ("always-zero".into(), Arc::new(AlwaysZero)),
        ("tree".into(), Arc::new(Tree::default())),
    ]
}
