//! Contributions as columns of a predictions table: the `K` strongest
//! reasons of each row (`reason_1..K`, the columns; `value_1..K`, the
//! row's values, level texts for categories; `contribution_1..K`, towards
//! the decided class, strongest first, ties in column order), or every
//! column's contribution and the base value.

use super::{Contributions, Plan};
use crate::data::write::{Column, ColumnSpec};
use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::strategy::FittedStrategy;

/// Which columns to add.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReasonKind {
    /// The `K` strongest reasons.
    Reasons(usize),
    /// Every column's contribution and the base value.
    Contributions,
}

/// A plan of contributions and the columns it adds to predictions.
#[derive(Debug, Clone)]
pub struct Reasons {
    /// The contributions' plan.
    pub plan: Plan,
    /// The columns added.
    pub kind: ReasonKind,
    class_names: Vec<String>,
}

/// The values of the added columns for a block of rows.
#[derive(Debug, Clone, Default)]
pub struct ReasonBlock {
    texts: Vec<String>,
    text_width: usize,
    numbers: Vec<f64>,
    number_width: usize,
}

impl ReasonBlock {
    /// The block's columns, in the order of [`Reasons::columns`].
    pub fn columns(&self) -> Vec<Column<'_>> {
        let text = |j| Column::Text {
            values: &self.texts,
            width: self.text_width,
            j,
        };
        let number = |j| Column::Numbers {
            values: &self.numbers,
            width: self.number_width,
            j,
        };
        match self.text_width {
            0 => (0..self.number_width).map(number).collect(),
            w => {
                let k = w / 2;
                (0..w).map(text).chain((0..k).map(number)).collect()
            }
        }
    }
}

impl Reasons {
    /// The columns `kind` adds for `fitted`: fails, before any row is
    /// read, when the model has no exact contributions or `K` is 0 or more
    /// than its source columns.
    pub fn new(fitted: &FittedStrategy, kind: ReasonKind) -> Result<Reasons> {
        let columns = fitted.schema.encodings.len();
        if let ReasonKind::Reasons(k) = kind {
            if k == 0 || k > columns {
                return Err(Error::invalid(format!(
                    "{k} reasons asked for; the model has {columns} source columns, so give 1 to \
                     {columns}"
                )));
            }
        }
        Ok(Reasons {
            plan: Plan::of(fitted)?,
            kind,
            class_names: fitted.schema.class_names.clone(),
        })
    }

    /// The names and kinds of the added columns.
    pub fn columns(&self) -> Vec<ColumnSpec> {
        match self.kind {
            ReasonKind::Reasons(k) => (1..=k)
                .map(|i| ColumnSpec::text(format!("reason_{i}")))
                .chain((1..=k).map(|i| ColumnSpec::text(format!("value_{i}"))))
                .chain((1..=k).map(|i| ColumnSpec::number(format!("contribution_{i}"))))
                .collect(),
            ReasonKind::Contributions => {
                let p = &self.plan;
                let mut specs = Vec::new();
                for j in 0..p.outputs() {
                    let suffix = match p.outputs() {
                        1 => String::new(),
                        _ => format!("_{}", self.class_names[p.classes[j]]),
                    };
                    specs.extend(
                        p.columns
                            .iter()
                            .map(|c| ColumnSpec::number(format!("contribution{suffix}_{c}"))),
                    );
                    specs.push(ColumnSpec::number(format!("base_value{suffix}")));
                }
                specs
            }
        }
    }

    /// The added columns' values for the rows of `data`, decided as
    /// `labels`.
    pub fn block(&self, data: &Dataset, labels: &[u32]) -> Result<ReasonBlock> {
        let contrib = self.plan.explain(data)?;
        Ok(match self.kind {
            ReasonKind::Contributions => ReasonBlock {
                number_width: contrib.outputs * (contrib.columns + 1),
                numbers: contrib.values,
                ..ReasonBlock::default()
            },
            ReasonKind::Reasons(k) => self.strongest(data, &contrib, labels, k),
        })
    }

    /// Each row's `k` strongest reasons towards its decided class.
    fn strongest(
        &self,
        data: &Dataset,
        contrib: &Contributions,
        labels: &[u32],
        k: usize,
    ) -> ReasonBlock {
        let mut out = ReasonBlock {
            texts: Vec::with_capacity(labels.len() * 2 * k),
            text_width: 2 * k,
            numbers: Vec::with_capacity(labels.len() * k),
            number_width: k,
        };
        for (i, &label) in labels.iter().enumerate() {
            let top = self.plan.ranked(contrib, i, label as usize);
            let top = &top[..k];
            out.texts
                .extend(top.iter().map(|&(c, _)| self.plan.columns[c].clone()));
            out.texts
                .extend(top.iter().map(|&(c, _)| self.plan.value_text(data, i, c)));
            out.numbers.extend(top.iter().map(|&(_, v)| v));
        }
        out
    }
}

impl Plan {
    /// Row `i`'s columns with their contributions towards `class`,
    /// strongest first (ties in column order).
    pub fn ranked(&self, contrib: &Contributions, i: usize, class: usize) -> Vec<(usize, f64)> {
        let mut v: Vec<(usize, f64)> = self
            .towards(contrib, i, class)
            .into_iter()
            .enumerate()
            .collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        v
    }
}
