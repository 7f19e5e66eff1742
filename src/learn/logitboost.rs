//! LogitBoost with regression stumps (Friedman, Hastie & Tibshirani 2000,
//! "Additive logistic regression: a statistical view of boosting", Annals
//! of Statistics 28: Algorithm 3 for two classes, Algorithm 6 for `J`).
//!
//! Two classes (`y* = 1` for the higher class id present): start from
//! `F = 0`, `p = 1/2`; each round computes the working response
//! `z_i = (y*_i - p_i) / (p_i (1 - p_i))` and weights `w_i = r_i p_i (1 - p_i)`
//! (`r_i` the row weight), fits a regression stump to `z` by weighted least
//! squares, and sets `F <- F + f/2`, `p = 1 / (1 + exp(-2F))`.
//! `J > 2` classes: one stump per class and round on its own response, then
//! `f_j <- (J-1)/J (f_j - mean_k f_k)`, `F_j <- F_j + f_j`,
//! `p_j = exp(F_j) / sum_k exp(F_k)`.
//!
//! As the paper advises (section 6, "numerical stability"), the working
//! response is clipped to `[-4, 4]` and weights are floored at `1e-24`
//! times the row weight. A stump splits at the midpoint between adjacent
//! distinct values (`x <= t` goes left); with no split possible it is the
//! weighted mean of `z`. Dal Pozzolo et al. (2015) use LogitBoost among
//! their base learners.

use crate::check;
use crate::learn::shap::{self, Additive, Node, ShapTree};
use crate::learn::{shape, Classifier, Kind, LeafMap};
use crate::onnx::{self, Child, Graph, Split, TreeTable, Value};
use serde::{Deserialize, Serialize};

use crate::data::View;
use crate::error::{Error, Result};
use crate::learn::logistic::onnx_proba;
use crate::learn::naive_bayes::scatter;
use crate::learn::rows::{sigmoid, softmax, Rows};
use crate::learn::{Learner, Model};
use crate::params::{params, Bounds};
use crate::rng::Rng;

params! {
    /// The LogitBoost learner (hyper-parameters).
    ///
    /// ```
    /// use rarity::data::Dataset;
    /// use rarity::learn::{Learner, logitboost::LogitBoost};
    /// let ds = Dataset::from_rows((0..20).map(|i| vec![i as f64]).collect(),
    ///     (0..20).map(|i| u32::from(i >= 12)).collect(), vec!["n".into(), "p".into()]).unwrap();
    /// let rows: Vec<usize> = (0..20).collect();
    /// let m = LogitBoost { n: 10 }.fit(&ds.view(&rows), &mut rarity::rng::stream(0, 0)).unwrap();
    /// let p = m.predict_proba(&ds).unwrap();
    /// assert!(p.row(15)[1] > 0.9 && p.row(3)[1] < 0.1);
    /// ```
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct LogitBoost {
        /// Boosting rounds.
        pub n: usize = 100 => Bounds::at_least(1.0),
    }
}

/// A regression stump: `left` when `x[feature] <= threshold`, else `right`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Stump {
    feature: u32,
    threshold: f64,
    left: f64,
    right: f64,
    /// The training rows' weights on each side, the covers of its
    /// contributions (`None` in files written before they were kept).
    #[serde(default)]
    covers: Option<[f64; 2]>,
}

impl Stump {
    /// The stump with the weights `w` of the rows of `rows` on each side
    /// as its covers.
    fn with_covers(mut self, rows: &Rows) -> Stump {
        let mut c = [0.0; 2];
        for i in 0..rows.n() {
            c[usize::from(rows.row(i)[self.feature as usize] > self.threshold)] += rows.w[i];
        }
        self.covers = Some(c);
        self
    }

    /// The stump as a tree whose leaves hold `scale` times its values.
    fn shap_tree(&self, scale: f64) -> std::result::Result<ShapTree, String> {
        let c = self.covers.ok_or(
            "logitboost models saved before rarity kept each stump's training weights, which \
             contributions weigh paths by: fit the model again with this version",
        )?;
        ShapTree::read(0u8, |r| match r {
            0 => Node::Split(
                shap::Split {
                    feature: self.feature as usize,
                    threshold: self.threshold,
                    set: None,
                    missing_left: false,
                },
                1,
                2,
            ),
            1 => Node::Leaf(vec![scale * self.left], c[0]),
            _ => Node::Leaf(vec![scale * self.right], c[1]),
        })
    }

    fn eval(&self, x: &[f64]) -> f64 {
        if x[self.feature as usize] <= self.threshold {
            self.left
        } else {
            self.right
        }
    }
}

/// A fitted LogitBoost model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogitBoostModel {
    k: usize,
    d: usize,
    classes: Vec<usize>,
    /// Per round, one stump (two classes) or one per class present; already
    /// scaled, so `F` is their sum.
    stumps: Vec<Stump>,
}

impl Kind for LogitBoostModel {
    const KIND: &'static str = "LogitBoost";
}

impl LogitBoostModel {
    fn outputs(&self) -> usize {
        if self.classes.len() == 2 {
            1
        } else {
            self.classes.len()
        }
    }
}

impl Classifier for LogitBoostModel {
    shape!(k, d);

    fn predict_row(&self, x: &[f64], out: &mut [f64]) {
        let m = self.classes.len();
        if m == 1 {
            scatter(&self.classes, &[1.0], out);
            return;
        }
        let o = self.outputs();
        let mut f = vec![0.0; o];
        for (i, s) in self.stumps.iter().enumerate() {
            f[i % o] += s.eval(x);
        }
        if o == 1 {
            let p = sigmoid(2.0 * f[0]);
            scatter(&self.classes, &[1.0 - p, p], out);
        } else {
            softmax(&mut f);
            scatter(&self.classes, &f, out);
        }
    }

    /// The stumps: twice their sum in log-odds for two classes (`p =
    /// 1 / (1 + exp(-2F))`), else each class's margin (no probability
    /// leaves: `leaf` does not apply).
    fn additive(&self, leaf: Option<LeafMap<'_>>) -> std::result::Result<Additive, String> {
        let _ = leaf;
        if self.classes.len() < 2 || self.stumps.is_empty() {
            return Err("a logitboost model without stumps".into());
        }
        let o = self.outputs();
        let scale = if o == 1 { 2.0 } else { 1.0 };
        let trees = self
            .stumps
            .iter()
            .map(|s| s.shap_tree(scale))
            .collect::<std::result::Result<Vec<_>, String>>()?;
        Ok(Additive::boosted(self.classes.clone(), vec![0.0; o], trees))
    }

    /// Checks shapes.
    fn to_onnx(&self, g: &mut Graph, x: &Value) -> std::result::Result<Value, String> {
        if self.classes.len() == 1 {
            let mut row = vec![0.0; self.k];
            row[self.classes[0]] = 1.0;
            return Ok(onnx::constant_rows(g, x, row));
        }
        let o = self.outputs();
        let tables: Vec<TreeTable> = self
            .stumps
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let mut leaves = vec![0.0; 2 * o];
                leaves[i % o] = s.left;
                leaves[o + i % o] = s.right;
                TreeTable {
                    splits: vec![Split {
                        feature: s.feature as usize,
                        threshold: s.threshold,
                        left: Child::Leaf(0),
                        right: Child::Leaf(1),
                        default_left: false,
                    }],
                    leaves,
                    members: Vec::new(),
                }
            })
            .collect();
        let f = onnx::tree_sum(g, x, &tables, o)?;
        // Two classes: p = 1 / (1 + exp(-2F)).
        let z = if o == 1 {
            let two = g.scalar(2.0);
            g.mul(&two, &f)
        } else {
            f
        };
        Ok(onnx_proba(g, &z, o, &self.classes, self.k))
    }

    fn validate(&self) -> std::result::Result<(), String> {
        let ok = !self.classes.is_empty()
            && self.classes.iter().all(|&c| c < self.k)
            && self.stumps.len().is_multiple_of(self.outputs())
            && self.stumps.iter().all(|s| {
                (s.feature as usize) < self.d
                    && s.covers
                        .is_none_or(|c| c.iter().all(|v| v.is_finite() && *v >= 0.0))
            });
        if !ok {
            return Err("LogitBoost model: inconsistent shapes".into());
        }
        check::classes("LogitBoost model", &self.classes, self.k)?;
        for (i, s) in self.stumps.iter().enumerate() {
            check::not_nan(&format!("LogitBoost stump {i} threshold"), &[s.threshold])?;
            check::finite(&format!("LogitBoost stump {i} value"), &[s.left, s.right])?;
        }
        Ok(())
    }
}

/// Rows of each feature sorted by value, for the stump search.
struct Sorted {
    order: Vec<Vec<u32>>,
}

impl Sorted {
    fn new(rows: &Rows) -> Self {
        let order = (0..rows.d)
            .map(|j| {
                let mut o: Vec<u32> = (0..rows.n() as u32).collect();
                o.sort_by(|&a, &b| {
                    rows.x[a as usize * rows.d + j].total_cmp(&rows.x[b as usize * rows.d + j])
                });
                o
            })
            .collect();
        Sorted { order }
    }

    /// The weighted least-squares stump for response `z` and weights `w`.
    fn fit(&self, rows: &Rows, z: &[f64], w: &[f64]) -> Stump {
        let sw: f64 = w.iter().sum();
        let swz: f64 = w.iter().zip(z).map(|(a, b)| a * b).sum();
        let mean = swz / sw;
        let mut best = Stump {
            feature: 0,
            threshold: f64::MAX,
            left: mean,
            right: mean,
            covers: None,
        };
        // Maximise swz_L^2 / sw_L + swz_R^2 / sw_R (= minimise the SSE).
        let mut best_gain = swz * swz / sw * (1.0 + 1e-12);
        let d = rows.d;
        for (j, order) in self.order.iter().enumerate() {
            let (mut lw, mut lz) = (0.0, 0.0);
            for t in 0..order.len() - 1 {
                let i = order[t] as usize;
                lw += w[i];
                lz += w[i] * z[i];
                let (v, next) = (rows.x[i * d + j], rows.x[order[t + 1] as usize * d + j]);
                if v == next || lw <= 0.0 || sw - lw <= 0.0 {
                    continue;
                }
                let (rw, rz) = (sw - lw, swz - lz);
                let gain = lz * lz / lw + rz * rz / rw;
                if gain > best_gain {
                    best_gain = gain;
                    best = Stump {
                        feature: j as u32,
                        threshold: v + (next - v) / 2.0,
                        left: lz / lw,
                        right: rz / rw,
                        covers: None,
                    };
                }
            }
        }
        best
    }
}

const Z_MAX: f64 = 4.0;

impl Learner for LogitBoost {
    fn fit(&self, data: &View<'_>, _rng: &mut Rng) -> Result<Model> {
        if self.n == 0 {
            return Err(Error::invalid("logitboost: n must be at least 1"));
        }
        let rows = Rows::collapsed(data, "LogitBoost")?;
        let classes = rows.present();
        let mut model = LogitBoostModel {
            k: rows.k,
            d: rows.d,
            classes: classes.clone(),
            stumps: Vec::new(),
        };
        let m = classes.len();
        if m < 2 {
            return Ok(Model::new(model));
        }
        let n = rows.n();
        let o = model.outputs();
        let mut slot = vec![0; rows.k];
        for (s, &c) in classes.iter().enumerate() {
            slot[c] = s;
        }
        // Target class (slot) of each row; for two classes output 0 is class
        // slot 1.
        let target: Vec<usize> = rows.y.iter().map(|&c| slot[c]).collect();
        let sorted = Sorted::new(&rows);
        let mut f = vec![0.0; n * o];
        let mut p = vec![0.0; n * o];
        let mut z = vec![0.0; n];
        let mut w = vec![0.0; n];
        for _ in 0..self.n {
            crate::cancel::check()?;
            // Current probabilities.
            for i in 0..n {
                if o == 1 {
                    p[i] = sigmoid(2.0 * f[i]);
                } else {
                    let row = &mut p[i * o..(i + 1) * o];
                    row.copy_from_slice(&f[i * o..(i + 1) * o]);
                    softmax(row);
                }
            }
            let mut round = Vec::with_capacity(o);
            for j in 0..o {
                for i in 0..n {
                    let pij = p[i * o + j];
                    let y = if o == 1 {
                        (target[i] == 1) as u8 as f64
                    } else {
                        (target[i] == j) as u8 as f64
                    };
                    let v = pij * (1.0 - pij);
                    w[i] = rows.w[i] * v.max(1e-24);
                    z[i] = if v > 0.0 {
                        ((y - pij) / v).clamp(-Z_MAX, Z_MAX)
                    } else if y > pij {
                        Z_MAX
                    } else {
                        -Z_MAX
                    };
                }
                round.push(sorted.fit(&rows, &z, &w).with_covers(&rows));
            }
            if o == 1 {
                round[0].left *= 0.5;
                round[0].right *= 0.5;
            } else {
                // f_j <- (J-1)/J (f_j - mean_k f_k), on both sides of each
                // stump: evaluate per row instead, since the stumps split on
                // different features.
                let jf = o as f64;
                let scale = (jf - 1.0) / jf;
                let mut vals = vec![0.0; o];
                for i in 0..n {
                    let x = rows.row(i);
                    for (v, s) in vals.iter_mut().zip(&round) {
                        *v = s.eval(x);
                    }
                    let mean = vals.iter().sum::<f64>() / jf;
                    for j in 0..o {
                        f[i * o + j] += scale * (vals[j] - mean);
                    }
                }
                for s in round.iter_mut() {
                    s.left *= scale;
                    s.right *= scale;
                }
                // The centring term is the same for every class, so it
                // cancels in the softmax: the model stores the scaled stumps.
                model.stumps.extend(round);
                continue;
            }
            for (i, fi) in f.iter_mut().enumerate() {
                *fi += round[0].eval(rows.row(i));
            }
            model.stumps.extend(round);
        }
        Ok(Model::new(model))
    }

    fn name(&self) -> String {
        format!("logitboost(n={})", self.n)
    }
}
