//! Growing a random decision tree (Fan, Wang, Yu & Ma 2003, "Is random model
//! better?"; the RDT learner of Fan & Davidson 2006, ReverseTesting).
//!
//! The structure ignores the labels: at each node a feature is drawn at
//! random among those not constant in the node, and the threshold uniformly
//! between that feature's smallest and largest value in the node (continuous
//! features may be chosen again deeper down, with a new threshold). Growth
//! stops at a pure node, at the depth limit (by default half the number of
//! features, as in Fan et al. 2003), or when no feature varies. Leaves keep
//! the weighted class totals of the training rows that reach them, so each
//! tree estimates `P(y | leaf)` by frequency and the ensemble averages them.
//!
//! Missing values (NaN) follow scikit-learn's random splitter (as the
//! structure ignores the labels, no direction is learned): the threshold is
//! drawn between the node's observed values, and a node with missing values
//! of the drawn feature sends them all to a side drawn at random; a node
//! without sends them (met when scoring) to the child of more weight (a
//! row's copies times its weight; a tie goes right).

use rand::RngExt;

use super::model::{numeric_left, Growing, TreeModel};
use super::presort::row_info;
use super::RandomTree;
use crate::data::View;
use crate::error::{Error, Result};
use crate::limits::MAX_TREE_DEPTH;
use crate::rng::Rng;

/// A node waiting to be grown.
#[derive(Debug, Clone, Copy)]
struct Pending {
    start: usize,
    end: usize,
    depth: usize,
    parent: Option<(usize, bool)>,
}

/// Grows one random decision tree on `view`.
pub(crate) fn grow(cfg: &RandomTree, view: &View<'_>, rng: &mut Rng) -> Result<TreeModel> {
    let data = view.data();
    let (d, k) = (data.n_features(), data.n_classes());
    if d == 0 {
        return Err(Error::data("cannot fit a tree: the data has no features"));
    }
    let max_depth = cfg.max_depth.unwrap_or((d / 2).max(1)).min(MAX_TREE_DEPTH);
    let (info, totals) = row_info(view)?;
    let w: f64 = totals.iter().sum();
    let priors: Vec<f64> = totals.iter().map(|t| t / w).collect();
    let mut rows: Vec<u32> = (0..info.len() as u32)
        .filter(|&i| info[i as usize].cnt > 0)
        .collect();
    let mut feats: Vec<usize> = (0..d).collect();
    let mut tree = Growing::new(d, k);
    let mut tot = vec![0.0; k];
    let mut stack = vec![Pending {
        start: 0,
        end: rows.len(),
        depth: 0,
        parent: None,
    }];
    while let Some(node) = stack.pop() {
        crate::cancel::check()?;
        let seg = &mut rows[node.start..node.end];
        tot.iter_mut().for_each(|v| *v = 0.0);
        let mut samples = 0u64;
        for &r in seg.iter() {
            let ri = info[r as usize];
            tot[ri.class as usize] += ri.w;
            samples += ri.cnt as u64;
        }
        let pure = tot.iter().filter(|&&t| t > 0.0).count() <= 1;
        let mut split = None;
        if !pure && node.depth < max_depth && samples >= cfg.min_samples_split.max(2) as u64 {
            // Draw features without replacement until one varies in the node.
            for j in 0..d {
                let r = rng.random_range(j..d);
                feats.swap(j, r);
                let f = feats[j];
                // The observed values' range (`min` and `max` skip a NaN).
                let (lo, hi, nan) = seg.iter().fold(
                    (f64::INFINITY, f64::NEG_INFINITY, false),
                    |(lo, hi, nan), &r| {
                        let v = data.value(r as usize, f);
                        (lo.min(v), hi.max(v), nan | v.is_nan())
                    },
                );
                if lo < hi {
                    let u: f64 = rng.random();
                    let mut t = lo + u * (hi - lo);
                    if t >= hi {
                        t = lo;
                    }
                    let default_left = nan.then(|| rng.random::<bool>());
                    split = Some((f, t, default_left));
                    break;
                }
            }
        }
        let Some((f, t, default_left)) = split else {
            tree.leaf(&tot, node.parent);
            continue;
        };
        // Unstable in-place partition: the rows going left first.
        let dl = default_left.unwrap_or(false);
        let (mut i, mut j) = (0, seg.len());
        while i < j {
            if numeric_left(data.value(seg[i] as usize, f), t, dl) {
                i += 1;
            } else {
                j -= 1;
                seg.swap(i, j);
            }
        }
        let default_left = default_left.unwrap_or_else(|| {
            let weight = |rows: &[u32]| rows.iter().map(|&r| info[r as usize].w).sum::<f64>();
            weight(&seg[..i]) > weight(&seg[i..])
        });
        let idx = tree.split(f, t, default_left, node.parent);
        let mid = node.start + i;
        stack.push(Pending {
            start: mid,
            end: node.end,
            depth: node.depth + 1,
            parent: Some((idx, false)),
        });
        stack.push(Pending {
            start: node.start,
            end: mid,
            depth: node.depth + 1,
            parent: Some((idx, true)),
        });
    }
    Ok(tree.finish(cfg.leaf, &priors))
}
