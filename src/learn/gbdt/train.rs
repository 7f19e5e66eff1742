//! The boosting loop (Friedman 2001, Algorithm 1 with Newton leaf steps;
//! stochastic gradient boosting, Friedman 2002): the training rows of the
//! view with their copies and weights, the class weights, the validation
//! rows of early stopping, then per round the gradients, the row sample,
//! one tree per output on a column sample, and the score updates.
//!
//! All randomness of round `r` comes from `rng::stream(base, r)`, `base`
//! drawn once from the fit's stream after the validation split, so a fit is
//! the same at any thread count. Scores of the rows a tree was grown on are
//! updated from its leaves' row ranges; the other rows (out of the round's
//! sample, validation rows) walk the tree on their bin codes.

use rand::RngExt;
use rayon::prelude::*;

use super::grow::{seen_missing, Bag, Gradients, Grower, Grown, Setup};
use super::hist::{Codes, Layout};
use super::loss::Loss;
use super::model::GbdtModel;
use super::quantize;
use super::split::{Grad, Rules};
use super::walk::Walk;
use super::Gbdt;
use crate::data::{Dataset, View};
use crate::error::{Error, Result};
use crate::learn::tree::Binned;
use crate::limits::MAX_TREE_DEPTH;
use crate::rng::{self, Rng};

/// The effective weight of each class of `data`'s `k` classes from the
/// weighted class totals of the training rows.
pub(super) fn class_weights(cfg: &Gbdt, totals: &[f64]) -> Result<Vec<f64>> {
    let k = totals.len();
    match cfg.scale_pos_weight {
        Some(_) if k != 2 => Err(Error::invalid(format!(
            "gbdt: scale_pos_weight is for two classes; this task has {k} \
             (give class_weight='w0,w1,...' instead)"
        ))),
        Some(s) => Ok(vec![1.0, s]),
        None => cfg.class_weight.for_totals(totals),
    }
}

/// The distinct rows of the view with a positive weight (ascending), and
/// each dataset row's number of copies in the view.
fn distinct_rows(view: &View<'_>) -> (Vec<u32>, Vec<u32>) {
    let data = view.data();
    let mut copies = vec![0u32; data.n_rows()];
    for &i in view.indices() {
        if data.weight(i) > 0.0 {
            copies[i] += 1;
        }
    }
    let rows = (0..data.n_rows() as u32)
        .filter(|&i| copies[i as usize] > 0)
        .collect();
    (rows, copies)
}

/// A stratified hold-out: of each class's rows, `round(fraction x count)`
/// (at most all but one) drawn at random. Returns (training, validation),
/// both ascending.
fn holdout(
    rows: &[u32],
    data: &Dataset,
    fraction: f64,
    rng: &mut Rng,
) -> Result<(Vec<u32>, Vec<u32>)> {
    let mut valid = Vec::new();
    for c in 0..data.n_classes() {
        let mut of: Vec<u32> = rows
            .iter()
            .copied()
            .filter(|&r| data.label(r as usize) == c)
            .collect();
        let take = ((fraction * of.len() as f64).round() as usize).min(of.len().saturating_sub(1));
        for j in 0..take {
            let r = rng.random_range(j..of.len());
            of.swap(j, r);
        }
        valid.extend_from_slice(&of[..take]);
    }
    if valid.is_empty() {
        return Err(Error::data(format!(
            "gbdt: early stopping holds out validation_fraction={fraction} of the {} training \
             rows, which is no row; give a larger validation_fraction or early_stopping=0",
            rows.len()
        )));
    }
    valid.sort_unstable();
    let mut train = Vec::with_capacity(rows.len() - valid.len());
    let mut v = valid.iter().peekable();
    for &r in rows {
        if v.peek() == Some(&&r) {
            v.next();
        } else {
            train.push(r);
        }
    }
    Ok((train, valid))
}

/// `k` of the positions `0..n`, uniformly without replacement, ascending
/// (Knuth's selection sampling, Algorithm S).
fn select(n: usize, k: usize, rng: &mut Rng) -> Vec<u32> {
    let mut out = Vec::with_capacity(k);
    for i in 0..n {
        if out.len() == k {
            break;
        }
        if rng.random_range(0..n - i) < k - out.len() {
            out.push(i as u32);
        }
    }
    out
}

/// `k` of the features `0..d` at random, ascending (all when `k == d`).
fn columns(d: usize, k: usize, rng: &mut Rng) -> Vec<usize> {
    let mut f: Vec<usize> = (0..d).collect();
    if k < d {
        for j in 0..k {
            let r = rng.random_range(j..d);
            f.swap(j, r);
        }
        f.truncate(k);
        f.sort_unstable();
    }
    f
}

/// `round(fraction x n)`, at least 1 and at most `n`.
fn share(fraction: f64, n: usize) -> usize {
    ((fraction * n as f64).round() as usize).clamp(1, n.max(1))
}

/// The model before its first tree (the classes present, their weights;
/// no initial scores yet), and the class weights.
fn start_model(
    cfg: &Gbdt,
    view: &View<'_>,
    rows: &[u32],
    copies: &[u32],
) -> Result<(GbdtModel, Vec<f64>)> {
    let data = view.data();
    let (d, k) = (data.n_features(), data.n_classes());
    let mut totals = vec![0.0; k];
    for &r in rows {
        let r = r as usize;
        totals[data.label(r)] += copies[r] as f64 * data.weight(r);
    }
    let class_weights = class_weights(cfg, &totals)?;
    let model = GbdtModel {
        n_classes: k,
        n_features: d,
        classes: (0..k).filter(|&c| totals[c] > 0.0).collect(),
        init: Vec::new(),
        trees: Vec::new(),
        class_weights: class_weights.clone(),
        walk: None,
    };
    Ok((model, class_weights))
}

/// The rows a fit trains and validates on: `local[p]` is the dataset row
/// at position `p` (the `m_train` training rows, then the validation
/// rows), `identity` when they are every dataset row in order (and so no
/// validation row), with each position's class slot, weight (copies x row
/// weight x class weight) and, when any training row repeats, its copies.
struct FitRows {
    local: Vec<u32>,
    m_train: usize,
    m_all: usize,
    identity: bool,
    y: Vec<u16>,
    w: Vec<f64>,
    copies: Option<Vec<u32>>,
}

/// Splits `rows` (the distinct rows of the view, `copies` of each) into
/// training and validation positions ([`FitRows`]).
fn fit_rows(
    cfg: &Gbdt,
    view: &View<'_>,
    classes: &[usize],
    class_weights: &[f64],
    rows: Vec<u32>,
    copies: &[u32],
    rng: &mut Rng,
) -> Result<FitRows> {
    let data = view.data();
    let mut slot = vec![0u16; data.n_classes()];
    for (j, &c) in classes.iter().enumerate() {
        slot[c] = j as u16;
    }
    let (train, valid) = if cfg.early_stopping > 0 {
        holdout(&rows, data, cfg.validation_fraction, rng)?
    } else {
        (rows, Vec::new())
    };
    let (m_train, m_all) = (train.len(), train.len() + valid.len());
    let local: Vec<u32> = train.into_iter().chain(valid).collect();
    let row_of = |p: usize| local[p] as usize;
    let y: Vec<u16> = (0..m_all).map(|p| slot[data.label(row_of(p))]).collect();
    let w: Vec<f64> = (0..m_all)
        .map(|p| {
            let r = row_of(p);
            copies[r] as f64 * data.weight(r) * class_weights[data.label(r)]
        })
        .collect();
    let train_copies: Vec<u32> = (0..m_train).map(|p| copies[row_of(p)]).collect();
    Ok(FitRows {
        identity: m_train == data.n_rows(),
        copies: train_copies.iter().any(|&n| n != 1).then_some(train_copies),
        local,
        m_train,
        m_all,
        y,
        w,
    })
}

/// The split and leaf rules of `cfg` on the features of `bins`.
fn rules<'a>(cfg: &Gbdt, bins: &'a Binned) -> Rules<'a> {
    Rules {
        l2: cfg.l2,
        max_delta_step: cfg.max_delta_step,
        min_leaf: cfg.min_samples_leaf.max(1) as f64,
        rows_by_hessian: cfg.leaf_rows == super::LeafRows::Hessian,
        min_child_weight: cfg.min_child_weight,
        cat: cfg.cat_rules(),
        levels: bins.all_levels(),
        missing: bins.all_missing(),
        bounds: None,
    }
}

/// The weighted mean loss of the validation positions at scores `f`
/// (output by output: `f[k * n + p]` for position `p` of `n`).
fn validation_loss(
    loss: &Loss,
    f: &[f64],
    y: &[u16],
    w: &[f64],
    positions: std::ops::Range<usize>,
) -> f64 {
    let (o, n) = (loss.outputs, y.len());
    let (mut sum, mut sw) = (0.0, 0.0);
    let mut row = vec![0.0; o];
    for p in positions {
        row.iter_mut()
            .enumerate()
            .for_each(|(k, v)| *v = f[k * n + p]);
        sum += w[p] * loss.loss(&row, y[p] as usize);
        sw += w[p];
    }
    sum / sw
}

/// Rows whose scores one task of [`add_tree`] updates.
const SCORE_ROWS: usize = 1 << 15;

/// Adds a grown tree's values to the scores of its output, `f` (one a
/// position): the rows it was grown on from its leaves' ranges, the others
/// (out of the round's sample `in_bag` when there is one, then the
/// validation rows `validation`) by walking it.
fn add_tree(
    f: &mut [f64],
    grown: &Grown,
    grower: &Grower,
    setup: &Setup,
    in_bag: Option<&[bool]>,
    validation: std::ops::Range<usize>,
) {
    let values = &grown.tree.values;
    let positions = grower.positions();
    // In parallel over blocks of rows, each task finding its rows among
    // each leaf's positions (ascending): every score is written by the task
    // owning its row alone.
    f.par_chunks_mut(SCORE_ROWS)
        .enumerate()
        .for_each(|(c, block)| {
            let (lo, hi) = ((c * SCORE_ROWS) as u32, ((c + 1) * SCORE_ROWS) as u32);
            for (leaf, &(s, e)) in grown.ranges.iter().enumerate() {
                let mine = &positions[s..e];
                let (a, b) = (
                    mine.partition_point(|&p| p < lo),
                    mine.partition_point(|&p| p < hi),
                );
                for &p in &mine[a..b] {
                    block[(p - lo) as usize] += values[leaf];
                }
            }
        });
    let in_bag = in_bag.unwrap_or(&[]);
    let out_of_bag = (0..in_bag.len()).filter(|&p| !in_bag[p]);
    for p in out_of_bag.chain(validation) {
        f[p] += values[grown.leaf_of(&setup.codes, p)];
    }
}

/// What every tree of a fit grows from: the bins' codes of the fitted rows
/// (`local`: their rows in `bins`, `None` when they are all of them in
/// order), the histogram layout of its `d` features and the split rules,
/// the size limits, and which features the `m_train` training rows miss a
/// value of.
fn setup<'a>(
    cfg: &Gbdt,
    bins: &'a Binned,
    local: Option<&'a [u32]>,
    quantized: bool,
    m_train: usize,
    d: usize,
    constraints: super::monotone::Constraints,
) -> Setup<'a> {
    let rules = rules(cfg, bins);
    // Quantized histograms without counts may be summed row-wise.
    let by_row = quantized && rules.rows_by_hessian;
    let codes = Codes::new(bins, local, by_row);
    Setup {
        bins,
        seen_missing: seen_missing(bins, &codes, m_train),
        codes,
        layout: Layout::new(bins, d, !rules.rows_by_hessian),
        rules,
        max_leaves: cfg.max_leaves,
        max_depth: match cfg.max_depth {
            0 => MAX_TREE_DEPTH,
            d => d.min(MAX_TREE_DEPTH),
        },
        learning_rate: cfg.learning_rate,
        constraints,
    }
}

/// Fits the model on `view`, whose dataset `bins` was built from.
pub(super) fn fit(cfg: &Gbdt, bins: &Binned, view: &View<'_>, rng: &mut Rng) -> Result<GbdtModel> {
    let d = view.data().n_features();
    let (rows, copies) = distinct_rows(view);
    if rows.is_empty() {
        return Err(Error::data(
            "cannot fit gbdt: no training row has a positive weight",
        ));
    }
    let (mut model, class_weights) = start_model(cfg, view, &rows, &copies)?;
    let classes = model.classes.clone();
    if classes.len() < 2 {
        return Ok(model);
    }
    let FitRows {
        local,
        m_train,
        m_all,
        identity,
        y,
        w,
        copies,
    } = fit_rows(cfg, view, &classes, &class_weights, rows, &copies, rng)?;

    let loss = Loss::for_classes(classes.len());
    let o = loss.outputs;
    let mut class_totals = vec![0.0; classes.len()];
    for p in 0..m_train {
        class_totals[y[p] as usize] += w[p];
    }
    model.init = loss.init(&class_totals);
    // The scores output by output: `f[k * m_all + p]`.
    let mut f: Vec<f64> = (0..m_all * o).map(|i| model.init[i / m_all]).collect();

    let quantized = quantize::applies(cfg.gradients, m_train)?;
    let local = (!identity).then_some(&local[..]);
    let constraints = cfg.constraints(view.data())?;
    let setup = setup(cfg, bins, local, quantized, m_train, d, constraints);
    let mut grads = vec![Grad::default(); m_train * o];
    let mut packed: Vec<u64> = Vec::new();
    let n_rows = share(cfg.subsample, m_train);
    let n_cols = share(cfg.colsample, d);
    let base: u64 = rng.random();
    let mut grower = Grower::default();
    let mut in_bag = vec![true; m_train];
    let (mut best_loss, mut best_round) = (f64::INFINITY, 0);
    for round in 0..cfg.rounds {
        let mut r = rng::stream(base, round as u64);
        loss.gradients(&f, m_all, &y[..m_train], &w[..m_train], &mut grads);
        let sample = (n_rows < m_train).then(|| select(m_train, n_rows, &mut r));
        if let Some(s) = &sample {
            in_bag.iter_mut().for_each(|b| *b = false);
            s.iter().for_each(|&p| in_bag[p as usize] = true);
        }
        let bag = sample.as_deref().map_or(Bag::All(m_train), Bag::Rows);
        for j in 0..o {
            let features = columns(d, n_cols, &mut r);
            let rows = &grads[j * m_train..(j + 1) * m_train];
            let scale = quantized.then(|| quantize::quantize(rows, r.random(), &mut packed));
            let grad = Gradients {
                rows,
                copies: copies.as_deref(),
                packed: scale.map(|s| (&packed[..], s)),
            };
            let grown = grower.grow(&setup, bag, &grad, &features);
            let in_bag = sample.is_some().then_some(&in_bag[..]);
            add_tree(
                &mut f[j * m_all..(j + 1) * m_all],
                &grown,
                &grower,
                &setup,
                in_bag,
                m_train..m_all,
            );
            model.trees.push(grown.tree);
        }
        if cfg.early_stopping > 0 {
            let vl = validation_loss(&loss, &f, &y, &w, m_train..m_all);
            if vl < best_loss {
                (best_loss, best_round) = (vl, round + 1);
            } else if round + 1 - best_round >= cfg.early_stopping {
                break;
            }
        }
    }
    if cfg.early_stopping > 0 {
        model.trees.truncate(best_round * o);
    }
    model.walk = Walk::new(&model.trees, d);
    Ok(model)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_sampling_draws_exact_counts_in_order() {
        let mut r = rng::stream(1, 0);
        for (n, k) in [(10, 3), (100, 100), (7, 1), (1000, 640)] {
            let s = select(n, k, &mut r);
            assert_eq!(s.len(), k);
            assert!(s.windows(2).all(|w| w[0] < w[1]) && s.iter().all(|&p| (p as usize) < n));
        }
        let c = columns(10, 4, &mut r);
        assert_eq!(c.len(), 4);
        assert!(c.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(columns(5, 5, &mut r), vec![0, 1, 2, 3, 4]);
        assert_eq!((share(0.8, 10), share(0.01, 10), share(1.0, 3)), (8, 1, 3));
    }
}
