//! Why this row: the exact contributions of a fitted strategy's source
//! columns to each row's output, and reason codes (`rarity predict
//! --reasons K` / `--contributions`, `rarity explain --rows N`,
//! `predict_contributions` and `reason_codes` in Python).
//!
//! **What is explained.** The learner's output as an additive form
//! ([`crate::learn::shap`]): path-dependent TreeSHAP for trees, forests,
//! bagging of trees, `gbdt`, AdaBoost and RUSBoost, LogitBoost; linear SHAP
//! for logistic regression and LDA. Then the strategy's stages, in order,
//! each taken into the form while it is a map of the form's output the form
//! can hold ([`Plan::of`]):
//!
//! - in log-odds (or softmax margins), `+correct` and a shift to known
//!   priors add a constant, so only the base moves: `-log(r_1 / r_0)` for
//!   the keep rates `r` of the sampling and the class weights (Dal Pozzolo
//!   et al. 2015, eq. 9: `log(beta)` for undersampling the negatives at
//!   `beta`), `-log r_k` on each margin, `+log(pi_t / pi_s)` for a shift;
//! - in probability, `+correct(mode=member)` on a bagging ensemble corrects
//!   each member's leaves (each tree's output is its leaf's, so a map of it
//!   is a tree again), and every stage of a single tree is taken into its
//!   leaves the same way;
//! - a stage that is not such a map (eq. 9 or a calibrator on an average
//!   of trees, Platt or isotonic on log-odds models, whose calibrators read
//!   the probability, `+em`, whose priors depend on the batch) stops there:
//!   the contributions explain the output before it, and the strategy's own
//!   probability is reported beside them ([`Plan::beside`]).
//!
//! So `base + sum of the contributions` is, for every row, the explained
//! output ([`Plan::space`]) to rounding, and with nothing beside it is the
//! strategy's probability (or its log-odds, its margins).
//!
//! **Source columns.** A one-hot column's features, and a target-encoded
//! column's `name=p(class)` features, add up to one contribution named by
//! the column, whose value is the row's level text. A calibration ensemble
//! (`+platt(ensemble=true)`) averages its fold models' contributions, as it
//! averages their outputs.

mod reasons;

pub use reasons::{ReasonBlock, ReasonKind, Reasons};

use serde::Serialize;

use crate::calibrate::prior::correct_row;
use crate::calibrate::{Correction, PriorShift};
use crate::data::target_encode::FittedEncoding;
use crate::data::{ColumnEncoding, Dataset, Schema};
use crate::error::{Error, Result};
use crate::learn::shap::{log_shift, Additive, Explainer, Output, Space};
use crate::learn::Model;
use crate::strategy::{correction_rates, FittedStrategy, Member};

/// The models whose contributions are exact, for error messages.
pub const EXPLAINED: &str = "tree, random_tree, forest, balanced-forest, rdt and every bagging \
     ensemble of trees (soft vote), gbdt, adaboost, adac2, rus-boost, logitboost, logistic and lda";

/// One member's explainer and how its features make the source columns.
#[derive(Debug, Clone)]
struct MemberPlan {
    explainer: Explainer,
    encoding: Option<FittedEncoding>,
    /// Per source column, the member's features that make it.
    groups: Vec<Vec<usize>>,
}

/// What a strategy's contributions explain, and their explainers: made
/// once per model ([`Plan::of`]), before any row is read.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The space of the explained output.
    pub space: Space,
    /// The dataset classes of the outputs: two when there is one output
    /// (the second's against the first), else one per output.
    pub classes: Vec<usize>,
    /// The stages whose result is reported beside the contributions
    /// rather than explained (empty: the strategy's probability itself).
    pub beside: Vec<String>,
    /// The stages taken into the explained output.
    pub taken: Vec<String>,
    /// The source columns, in order.
    pub columns: Vec<String>,
    members: Vec<MemberPlan>,
    schema: Schema,
}

/// The explained output and its contributions for some rows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Contributions {
    /// Rows explained.
    pub rows: usize,
    /// Outputs per row.
    pub outputs: usize,
    /// Source columns.
    pub columns: usize,
    /// Row-major: per row, per output, each column's contribution then the
    /// base value (`outputs * (columns + 1)` per row).
    pub values: Vec<f64>,
}

impl Contributions {
    /// Row `i`'s values.
    pub fn row(&self, i: usize) -> &[f64] {
        let len = self.outputs * (self.columns + 1);
        &self.values[i * len..(i + 1) * len]
    }
}

/// The groups of the source columns of `schema`: per column, its
/// features.
fn column_features(schema: &Schema) -> Vec<(String, Vec<usize>)> {
    let mut at = 0;
    schema
        .encodings
        .iter()
        .map(|e| {
            let w = e.width();
            at += w;
            (e.name().to_string(), (at - w..at).collect())
        })
        .collect()
}

/// The features of the encoded data that feature `j` of the raw data
/// became after `enc`: its `width` target statistics, or itself, shifted
/// by the encoded columns before it.
fn encoded_features(enc: &FittedEncoding, j: usize, width: usize) -> Vec<usize> {
    let before = enc.columns.iter().take_while(|c| c.feature < j).count();
    let start = j + before * (width.saturating_sub(1));
    match enc.columns.iter().any(|c| c.feature == j) {
        true => (start..start + width).collect(),
        false => vec![start],
    }
}

/// Keep rates floored as the member correction floors them.
fn floored(rates: &[f64]) -> Vec<f64> {
    rates.iter().map(|r| r.max(f64::MIN_POSITIVE)).collect()
}

/// Member `m`'s additive form with what of the correction and the
/// calibrator it can hold, and the stage it stopped at (if any).
fn member_form(
    m: &Member,
    correct: Option<Correction>,
) -> std::result::Result<(Additive, Vec<String>, Option<String>), String> {
    let model = &m.model;
    let mut taken = Vec::new();
    let mut form = match (model.member_keep_rates(), correct) {
        (Some(members), Some(Correction::Member)) => {
            let rates: Vec<Vec<f64>> = members.iter().map(|r| floored(r)).collect();
            taken.push("correct (each member's leaves)".to_string());
            model.additive_members(&|i, _, p| correct_row(p, &rates[i]))?
        }
        _ => model.additive(None)?,
    };
    if let Some(mode) = correct {
        let rates = correction_rates(model, &m.keep_rates, mode);
        if rates.iter().all(|&r| r == 1.0) {
        } else if let Some(stop) = take_reweight(&mut form, &rates, "correct") {
            return Ok((form, taken, Some(stop)));
        } else {
            taken.push("correct".into());
        }
    }
    if let Some(c) = &m.calibrator {
        let name = match c.method() {
            crate::calibrate::CalibrationMethod::Platt => "platt",
            crate::calibrate::CalibrationMethod::Isotonic => "isotonic",
        };
        let map = |p: &mut [f64]| {
            let q = c.transform(&crate::data::Proba::new(p.to_vec(), p.len()));
            p.copy_from_slice(q.row(0));
        };
        if !fold_single_tree(&mut form, &map) {
            return Ok((form, taken, Some(name.into())));
        }
        taken.push(name.into());
    }
    Ok((form, taken, None))
}

/// Takes the reweighting `p_k ∝ p_k / r_k` into `form` (`stage` names it):
/// a shift of the base in log-odds or margins, the leaves of a single
/// tree; `Some(stage)` when it cannot.
fn take_reweight(form: &mut Additive, rates: &[f64], stage: &str) -> Option<String> {
    match form.space {
        Space::LogOdds | Space::Margins => {
            let shift = log_shift(&form.classes, form.outputs(), rates);
            form.shift_bias(&shift);
            None
        }
        Space::Probability => {
            let r = floored(rates);
            (!fold_single_tree(form, &|p| correct_row(p, &r))).then(|| stage.to_string())
        }
    }
}

/// Applies `map` (on a leaf's class probabilities) to the leaves of a form
/// that is one tree in probability space; false for any other form.
fn fold_single_tree(form: &mut Additive, map: &dyn Fn(&mut [f64])) -> bool {
    if form.space != Space::Probability || form.trees.len() != 1 || form.linear.is_some() {
        return false;
    }
    let k = form.classes.len();
    let term = &mut form.trees[0];
    let binary = term.output == Output::One(0) && form.bias.len() == 1;
    term.tree.map_leaves(|v| {
        let mut p = if binary {
            vec![1.0 - v[0], v[0]]
        } else {
            v.clone()
        };
        map(&mut p);
        *v = if binary { vec![p[1]] } else { p[..k].to_vec() };
    });
    true
}

impl Plan {
    /// The plan of `fitted`'s contributions: the additive form of each
    /// member with the stages it holds, or a clear error naming what can be
    /// explained.
    pub fn of(fitted: &FittedStrategy) -> Result<Plan> {
        let refuse = |why: String| {
            Error::invalid(format!(
                "{}: no exact contributions for {why}; contributions are exact for {EXPLAINED}",
                fitted.spec
            ))
        };
        let k = fitted.schema.class_names.len();
        let raw = column_features(&fitted.schema);
        let mut members = Vec::new();
        let mut beside = Vec::new();
        let mut taken = Vec::new();
        let (mut space, mut classes) = (Space::Probability, Vec::new());
        let mut forms = Vec::new();
        for m in &fitted.members {
            let (form, t, stop) = member_form(m, fitted.correct).map_err(refuse)?;
            if form.classes.len() != k.max(2) || (form.outputs() != 1 && form.outputs() != k) {
                return Err(refuse(
                    "a model fitted without every class in its training rows".into(),
                ));
            }
            space = form.space;
            classes = form.classes.clone();
            taken = t;
            beside.extend(stop);
            forms.push((form, m.encoding.clone()));
        }
        let single = forms.len() == 1 && beside.is_empty();
        if let Some(s) = &fitted.shift {
            match (&s.shift, single) {
                (PriorShift::To(t), true) => {
                    let w: Vec<f64> = s.source.iter().zip(t).map(|(s, t)| s / t).collect();
                    match take_reweight(&mut forms[0].0, &w, "priors") {
                        Some(stop) => beside.push(stop),
                        None => taken.push("priors".into()),
                    }
                }
                (PriorShift::To(_), false) => beside.push("priors".into()),
                (PriorShift::Em { .. }, _) => beside.push("em".into()),
            }
        }
        if forms.len() > 1 && space != Space::Probability {
            beside.push("the average of the calibration's fold models".into());
        }
        beside.dedup();
        for (form, encoding) in forms {
            let (d, groups) = match &encoding {
                Some(e) => {
                    let width = k.saturating_sub(1);
                    let groups = raw
                        .iter()
                        .map(|(_, fs)| {
                            fs.iter()
                                .flat_map(|&j| encoded_features(e, j, width))
                                .collect()
                        })
                        .collect();
                    (e.feature_names().len(), groups)
                }
                None => (
                    fitted.schema.feature_names.len(),
                    raw.iter().map(|(_, fs)| fs.clone()).collect(),
                ),
            };
            let explainer = Explainer::new(&form, d).map_err(refuse)?;
            members.push(MemberPlan {
                explainer,
                encoding,
                groups,
            });
        }
        Ok(Plan {
            space,
            classes,
            beside,
            taken,
            columns: raw.into_iter().map(|(n, _)| n).collect(),
            members,
            schema: fitted.schema.clone(),
        })
    }

    /// Outputs per row: 1 for two classes, else one per class.
    pub fn outputs(&self) -> usize {
        if self.classes.len() == 2 && self.schema.class_names.len() == 2 {
            1
        } else {
            self.classes.len()
        }
    }

    /// The contributions of every row of `data` (the strategy's features),
    /// per source column, with the base value; in parallel over rows.
    pub fn explain(&self, data: &Dataset) -> Result<Contributions> {
        let (n, o, c) = (data.n_rows(), self.outputs(), self.columns.len());
        let mut values = vec![0.0; n * o * (c + 1)];
        let share = 1.0 / self.members.len() as f64;
        for m in &self.members {
            let encoded;
            let x = match &m.encoding {
                Some(e) => {
                    encoded = e.apply(data)?;
                    encoded.features()
                }
                None => data.features(),
            };
            let e = &m.explainer;
            let d = e.row_len() / o - 1;
            let mut own = vec![0.0; n * e.row_len()];
            e.explain(x, &mut own);
            for (row, out) in own.chunks(e.row_len()).zip(values.chunks_mut(o * (c + 1))) {
                for j in 0..o {
                    let (r, w) = (
                        &row[j * (d + 1)..(j + 1) * (d + 1)],
                        &mut out[j * (c + 1)..],
                    );
                    for (col, fs) in m.groups.iter().enumerate() {
                        w[col] += share * fs.iter().map(|&f| r[f]).sum::<f64>();
                    }
                    w[c] += share * r[d];
                }
            }
        }
        Ok(Contributions {
            rows: n,
            outputs: o,
            columns: c,
            values,
        })
    }

    /// Each column's contribution towards class `class` in row `i` of
    /// `contrib`: to its output, or against the one output of two classes
    /// when `class` is the first.
    pub fn towards(&self, contrib: &Contributions, i: usize, class: usize) -> Vec<f64> {
        let c = self.columns.len();
        let row = contrib.row(i);
        if contrib.outputs == 1 {
            let sign = if class == self.classes[1] { 1.0 } else { -1.0 };
            return row[..c].iter().map(|v| sign * v).collect();
        }
        let j = self.classes.iter().position(|&k| k == class).unwrap_or(0);
        row[j * (c + 1)..j * (c + 1) + c].to_vec()
    }

    /// The text of source column `col`'s value in row `i` of `data`: the
    /// number, or the level (empty when missing or unseen).
    pub fn value_text(&self, data: &Dataset, i: usize, col: usize) -> String {
        let groups = column_features(&self.schema);
        let fs = &groups[col].1;
        let row = data.row(i);
        match &self.schema.encodings[col] {
            ColumnEncoding::Numeric { .. } => {
                let v = row[fs[0]];
                if v.is_nan() {
                    String::new()
                } else {
                    format!("{v}")
                }
            }
            ColumnEncoding::OneHot { levels, .. } => fs
                .iter()
                .position(|&f| row[f] == 1.0)
                .map(|l| levels[l].clone())
                .unwrap_or_default(),
            ColumnEncoding::Categorical { levels, .. } => {
                let v = row[fs[0]];
                let ok = v >= 0.0 && (v as usize) < levels.len() && v.fract() == 0.0;
                if ok {
                    levels[v as usize].clone()
                } else {
                    String::new()
                }
            }
        }
    }

    /// A note of what the contributions explain, for reports.
    pub fn describe(&self) -> String {
        let what = match self.space {
            Space::LogOdds => "log-odds",
            Space::Margins => "softmax margins",
            Space::Probability => "probability",
        };
        match self.beside.is_empty() {
            true => format!("exact, in {what}: base + contributions = the strategy's output"),
            false => format!(
                "exact, in {what}, of the output before {} (whose probabilities are reported \
                 beside)",
                self.beside.join(", ")
            ),
        }
    }
}

/// Every tree of a fitted strategy as arrays: `rarity show --trees
/// --format json` and `dump_trees()` in Python (README, "Tree dumps").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TreeDump {
    /// The format's name and version.
    pub format: &'static str,
    /// The features the trees' `features` index (after encoding).
    pub features: Vec<String>,
    /// The class names; a form's `classes` index them.
    pub classes: Vec<String>,
    /// One additive form per fitted model (one, or one per fold of a
    /// calibration ensemble, whose outputs are averaged): its space, how
    /// its trees combine, its bias, its trees and its linear part, as the
    /// learner has them (no stage of the strategy taken in).
    pub models: Vec<Additive>,
}

impl TreeDump {
    /// The dump of `fitted`, or a clear error for a model without trees
    /// or coefficients.
    pub fn of(fitted: &FittedStrategy) -> Result<TreeDump> {
        let models = fitted
            .members
            .iter()
            .map(|m: &Member| {
                let model: &Model = &m.model;
                model.additive(None).map_err(|why| {
                    Error::invalid(format!(
                        "{}: no trees or coefficients to dump for {why}; models with them: \
                         {EXPLAINED}",
                        fitted.spec
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(TreeDump {
            format: "rarity-trees/1",
            features: fitted.model_feature_names().to_vec(),
            classes: fitted.schema.class_names.clone(),
            models,
        })
    }
}
