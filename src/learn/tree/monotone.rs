//! Monotone constraints for a two-class [`Tree`](super::Tree)
//! (`tree(monotone=[debt_ratio:1, tenure:-1])`, and so every ensemble of
//! trees): scikit-learn 1.4's `monotonic_cst` for its decision trees
//! (`sklearn/tree/_splitter.pyx`, `_criterion.pyx`, `_tree.pyx`).
//!
//! Each node carries bounds `[lo, hi]` on its value, the positive class's
//! probability as the tree's [`LeafEstimate`] computes it from the node's
//! class totals, clipped to the bounds (the root's are `[-inf, inf]`). A
//! candidate split on a feature constrained to rise (direction 1) is valid
//! only when the left child's value is at most the right child's (for -1,
//! at least); the splitters keep the best valid candidate. After such a
//! split, with `mid` the mean of the two children's values, the left
//! child's `hi` becomes `mid` and the right child's `lo` too (the reverse
//! for -1); a split on an unconstrained feature, and the split of a
//! constrained feature's observed values from its missing ones (`mia`: every
//! observed value goes one way, so it orders nothing), pass the parent's
//! bounds to both children. Each leaf's probability of the positive class
//! is clipped to its bounds, the negative class's is one minus it, and the
//! tree stores those probabilities: every reader (the walks, the ONNX
//! export, contributions, model files) sees the same numbers.
//!
//! Why it holds: the bounds of a node's subtree lie inside its own, and at
//! a split on a rising feature every leaf on the left is at most `mid` and
//! every leaf on the right at least `mid`; a row whose constrained value
//! rises, the others held fixed, can only move from a left subtree to a
//! right one at such splits. Missing values of a split's feature follow
//! the split's default direction: the constraint is about observed values.

use super::LeafEstimate;
use crate::data::View;
use crate::error::Result;

/// Bounds on a node's positive-class probability.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Range {
    /// Lowest value.
    pub lo: f64,
    /// Highest value.
    pub hi: f64,
}

impl Range {
    /// No bound: the root's.
    pub const ALL: Range = Range {
        lo: f64::NEG_INFINITY,
        hi: f64::INFINITY,
    };

    /// Whether it bounds nothing.
    pub fn is_all(&self) -> bool {
        *self == Range::ALL
    }
}

/// The constraints of one two-class fit, resolved against its schema.
#[derive(Debug, Clone)]
pub(crate) struct Constraints {
    /// Per feature, its direction (1, -1, 0).
    dirs: Vec<i8>,
    estimate: LeafEstimate,
    priors: Vec<f64>,
}

/// The features' directions of `cfg.monotone` on the view's data, or
/// nothing when no column is constrained; an error naming the column for a
/// column the data lacks or that is categorical, and for more than two
/// classes.
pub(crate) fn directions(cfg: &super::Tree, view: &View<'_>) -> Result<Option<Vec<i8>>> {
    if cfg.monotone.is_empty() {
        return Ok(None);
    }
    let data = view.data();
    let dirs = cfg
        .monotone
        .directions_for(data.schema(), data.n_classes(), "tree monotone")?;
    Ok(dirs.iter().any(|&d| d != 0).then_some(dirs))
}

impl Constraints {
    /// The constraints of directions `dirs` (from [`directions`]) for a
    /// tree whose leaves are estimated by `estimate` with class priors
    /// `priors`.
    pub fn new(dirs: Vec<i8>, estimate: LeafEstimate, priors: &[f64]) -> Self {
        Constraints {
            dirs,
            estimate,
            priors: priors.to_vec(),
        }
    }

    /// Feature `f`'s direction.
    #[inline]
    pub fn direction(&self, f: usize) -> i8 {
        self.dirs[f]
    }

    /// The value of a node of class totals `counts` within `range`: its
    /// positive-class probability by the leaf estimate, clipped.
    pub fn value(&self, counts: &[f64], range: Range) -> f64 {
        let mut p = [0.0; 2];
        self.estimate.apply(counts, &self.priors, &mut p);
        clip(p[1], range)
    }

    /// Whether a threshold split of feature `f` in a node of class totals
    /// `tot` and bounds `range`, whose left child holds `left`, keeps the
    /// feature's direction: true on an unconstrained feature.
    pub fn allows(&self, f: usize, left: &[f64], tot: &[f64], range: Range) -> bool {
        let d = self.dirs[f];
        if d == 0 {
            return true;
        }
        let (vl, vr) = self.children_values(left, tot, range);
        (vl - vr) * f64::from(d) <= 0.0
    }

    /// The bounds of the children of a split of feature `f` (`ordered`: a
    /// threshold split of observed values, not the `mia` split of the
    /// observed values from the missing ones) in a node of class totals
    /// `tot` and bounds `range`, whose left child holds `left`.
    pub fn children(
        &self,
        f: usize,
        ordered: bool,
        left: &[f64],
        tot: &[f64],
        range: Range,
    ) -> (Range, Range) {
        let d = self.dirs[f];
        if d == 0 || !ordered {
            return (range, range);
        }
        let (vl, vr) = self.children_values(left, tot, range);
        let mid = vl / 2.0 + vr / 2.0;
        let low = Range { hi: mid, ..range };
        let high = Range { lo: mid, ..range };
        match d > 0 {
            true => (low, high),
            false => (high, low),
        }
    }

    /// The left and right children's values (their totals `left` and
    /// `tot - left`) within the parent's `range`.
    fn children_values(&self, left: &[f64], tot: &[f64], range: Range) -> (f64, f64) {
        let right = [(tot[0] - left[0]).max(0.0), (tot[1] - left[1]).max(0.0)];
        (self.value(left, range), self.value(&right, range))
    }
}

/// `p` within `range` (NaN stays NaN).
#[inline]
fn clip(p: f64, range: Range) -> f64 {
    if p < range.lo {
        range.lo
    } else if p > range.hi {
        range.hi
    } else {
        p
    }
}

/// Clips two-class leaf probabilities `p` to `range` on the positive
/// class's, the negative's one minus it; leaves `p` as it is when its
/// positive class's probability is inside (so an unconstrained leaf keeps
/// the estimate's numbers, bit for bit).
pub(crate) fn clip_leaf(p: &mut [f64], range: Range) {
    if p.len() != 2 || range.is_all() {
        return;
    }
    let c = clip(p[1], range);
    if c != p[1] {
        p[1] = c;
        p[0] = 1.0 - c;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{SplitSearch, Tree, TreeModel};
    use crate::data::{ColumnEncoding, Dataset};
    use crate::learn::{Classifier, Learner, Model};
    use crate::params::ParamType;
    use crate::rng;
    use rand::RngExt;

    /// `n` rows of three features in [0, 1) whose label depends on `x0`
    /// non-monotonically (up, down, up again) and on `x1`, with noise; a
    /// tenth of `x1` missing when `missing`.
    fn wavy(n: usize, missing: bool, seed: u64) -> Dataset {
        let mut r = rng::stream(seed, 0);
        let mut rows = Vec::with_capacity(n);
        let mut y = Vec::with_capacity(n);
        for _ in 0..n {
            let x: Vec<f64> = (0..3).map(|_| r.random::<f64>()).collect();
            let wave = (3.0 * std::f64::consts::PI * x[0]).sin();
            let p = 0.5 + 0.3 * wave + 0.15 * (x[1] - 0.5);
            y.push(u32::from(r.random::<f64>() < p));
            let mut x = x;
            if missing && r.random::<f64>() < 0.1 {
                x[1] = f64::NAN;
            }
            rows.push(x);
        }
        Dataset::from_rows(rows, y, vec!["n".into(), "p".into()]).unwrap()
    }

    fn fit(l: &dyn Learner, ds: &Dataset) -> Model {
        let rows: Vec<usize> = (0..ds.n_rows()).collect();
        l.fit(&ds.view(&rows), &mut rng::stream(11, 0)).unwrap()
    }

    fn tree(monotone: &str, splitter: SplitSearch) -> Tree {
        let v = crate::params::syntax::parse_value(monotone).unwrap();
        Tree {
            monotone: ParamType::from_value(&v).unwrap(),
            splitter,
            ..Tree::default()
        }
    }

    /// The largest step against direction `dir` of the positive class's
    /// probability as `x0` sweeps 50 values across [0, 1], for 40 base
    /// rows of `ds` (the others held fixed): 0 when the model keeps it.
    fn worst_step(m: &Model, ds: &Dataset, dir: f64) -> f64 {
        let (sweep, bases) = (50, 40);
        let mut rows = Vec::with_capacity(sweep * bases);
        for b in 0..bases {
            for s in 0..sweep {
                let mut x = ds.row(b).to_vec();
                x[0] = s as f64 / (sweep - 1) as f64;
                rows.push(x);
            }
        }
        let grid =
            Dataset::from_rows(rows, vec![0; sweep * bases], vec!["n".into(), "p".into()]).unwrap();
        let p = m.predict_proba(&grid).unwrap();
        let mut worst = 0.0f64;
        for b in 0..bases {
            for s in 1..sweep {
                let (a, c) = (p.row(b * sweep + s - 1)[1], p.row(b * sweep + s)[1]);
                worst = worst.max((a - c) * dir);
            }
        }
        worst
    }

    #[test]
    fn an_unconstrained_tree_is_not_monotone_and_a_constrained_one_is() {
        let ds = wavy(2000, false, 1);
        let free = fit(&Tree::default(), &ds);
        assert!(worst_step(&free, &ds, 1.0) > 0.1 && worst_step(&free, &ds, -1.0) > 0.1);
        let up = fit(&tree("[x0:1]", SplitSearch::Hist), &ds);
        assert_eq!(worst_step(&up, &ds, 1.0), 0.0);
        let down = fit(&tree("[x0:-1]", SplitSearch::Exact), &ds);
        assert_eq!(worst_step(&down, &ds, -1.0), 0.0);
        let up_exact = fit(&tree("[x0:1]", SplitSearch::Exact), &ds);
        assert_eq!(worst_step(&up_exact, &ds, 1.0), 0.0);
        // Still a tree that splits (on x0 too), not a single leaf.
        let t = up.downcast_ref::<TreeModel>().unwrap();
        assert!(t.n_leaves() > 20, "{}", t.n_leaves());
        assert!(t.nodes().iter().any(|n| !n.is_leaf() && n.feature == 0));
        // A direction of 0 is no constraint: the same tree as none.
        let zero = fit(&tree("[x0:0]", SplitSearch::Hist), &ds);
        assert_eq!(
            zero.downcast_ref::<TreeModel>(),
            free.downcast_ref::<TreeModel>()
        );
    }

    #[test]
    fn every_reader_sees_the_clipped_leaves() {
        let ds = wavy(2000, false, 2);
        let up = fit(&tree("[x0:1]", SplitSearch::Hist), &ds);
        let t = up.downcast_ref::<TreeModel>().unwrap();
        t.validate().unwrap();
        // Some leaf was clipped: its probabilities are not its frequencies.
        let clipped = (0..t.n_leaves()).any(|l| {
            let c = t.leaf_counts(l);
            t.proba_of_leaf(l)[1] != c[1] / (c[0] + c[1])
        });
        assert!(clipped);
        // The ONNX export's leaves are the stored probabilities.
        let table: Vec<f64> = (0..t.n_leaves())
            .flat_map(|l| t.proba_of_leaf(l).to_vec())
            .collect();
        assert_eq!(t.leaf_table(), table);
        // A model file reads back the same tree, predicting the same.
        let back: TreeModel = serde_json::from_str(&serde_json::to_string(t).unwrap()).unwrap();
        assert_eq!(&back, t);
        assert_eq!(worst_step(&Model::new(back), &ds, 1.0), 0.0);
    }

    #[test]
    fn missing_values_in_another_column_keep_the_constraint() {
        let ds = wavy(2000, true, 4);
        for splitter in [SplitSearch::Hist, SplitSearch::Exact] {
            let m = fit(&tree("[x0:1]", splitter), &ds);
            // The first base rows hold some with x1 missing.
            assert!((0..40).any(|i| ds.row(i)[1].is_nan()));
            assert_eq!(worst_step(&m, &ds, 1.0), 0.0, "{splitter:?}");
        }
    }

    #[test]
    fn missing_values_of_the_constrained_column_are_fitted() {
        let mut ds = wavy(1000, false, 5);
        let rows: Vec<Vec<f64>> = (0..ds.n_rows())
            .map(|i| {
                let mut x = ds.row(i).to_vec();
                if i % 7 == 0 {
                    x[0] = f64::NAN;
                }
                x
            })
            .collect();
        let y = ds.labels().to_vec();
        ds = Dataset::from_rows(rows, y, vec!["n".into(), "p".into()]).unwrap();
        for splitter in [SplitSearch::Hist, SplitSearch::Exact] {
            let m = fit(&tree("[x0:1]", splitter), &ds);
            let base = (0..ds.n_rows()).find(|&i| !ds.row(i)[0].is_nan()).unwrap();
            assert!(base < 40);
            assert_eq!(worst_step(&m, &ds, 1.0), 0.0, "{splitter:?}");
        }
    }

    fn fit_err(l: &dyn Learner, ds: &Dataset) -> String {
        let rows: Vec<usize> = (0..ds.n_rows()).collect();
        let e = l.fit(&ds.view(&rows), &mut rng::stream(0, 0)).unwrap_err();
        e.to_string()
    }

    #[test]
    fn bad_constraints_are_refused_naming_the_column() {
        let ds = wavy(200, false, 6);
        let e = fit_err(&tree("[x9:1]", SplitSearch::Hist), &ds);
        assert!(
            e.contains("no column named x9") && e.contains("x0, x1, x2"),
            "{e}"
        );
        let e = fit_err(&tree("[x1:1]", SplitSearch::Exact), &{
            let y: Vec<u32> = (0..ds.n_rows()).map(|i| (i % 3) as u32).collect();
            let rows = (0..ds.n_rows()).map(|i| ds.row(i).to_vec()).collect();
            Dataset::from_rows(rows, y, vec!["a".into(), "b".into(), "c".into()]).unwrap()
        });
        assert!(e.contains("3 classes"), "{e}");
        // x2 as a categorical column of level codes.
        let mut schema = ds.schema().clone();
        schema.encodings = vec![
            ColumnEncoding::Numeric { name: "x0".into() },
            ColumnEncoding::Numeric { name: "x1".into() },
            ColumnEncoding::Categorical {
                name: "x2".into(),
                levels: vec!["a".into(), "b".into()],
            },
        ];
        let rows = (0..ds.n_rows())
            .map(|i| {
                let mut x = ds.row(i).to_vec();
                x[2] = (x[2] < 0.5) as u8 as f64;
                x
            })
            .collect();
        let y = ds.labels().to_vec();
        let coded = Dataset::from_rows(rows, y, vec!["n".into(), "p".into()])
            .unwrap()
            .with_schema(schema)
            .unwrap();
        let e = fit_err(&tree("[x2:-1]", SplitSearch::Hist), &coded);
        assert!(e.contains("x2") && e.contains("categorical"), "{e}");
        // Spec errors name the parameter's form.
        let call = &crate::params::syntax::parse("tree(monotone=[x0:2])").unwrap()[0];
        let e = crate::params::from_call::<Tree>(call).unwrap_err();
        assert!(e.to_string().contains("direction 2"), "{e}");
    }
}
