//! What one pass over a table counts for `rarity monitor` (issue 56), as
//! mergeable summaries of bounded size: per source column of a model its
//! values ([`Sketch`]) or levels ([`LevelCounts`]), per class the model's
//! probability, the rows decided as each class, the probabilities EM needs
//! and the labelled rows' summary ([`BinarySummary`]). The pass that fills
//! a profile is [`crate::stream::monitor::profile`]; profiles of parts of
//! a table merge into the profile of the whole ([`Profile::merge`]).
//!
//! **A training summary.** [`Profile::summary`] keeps what a *reference*
//! needs (the column and score counts, the decided rows), each sketch
//! coarsened to [`SUMMARY_GROUPS`] groups ([`SCORE_SUMMARY_GROUPS`] for the
//! class probabilities), without the EM and labelled
//! summaries a reference does not use: what `rarity fit --summary` stores
//! in the model file so that `rarity monitor` needs no reference table. A
//! coarsened sketch gives the drift at its level ([`Sketch::coarsened`]:
//! the same groups a sketch of that cap would hold), said by the drift's
//! `exact`. A summary read from a file is checked against the model
//! ([`Profile::check_summary`]) before it is used.

use serde::{Deserialize, Serialize};

use super::drift::{LevelCounts, Sketch};
use super::multiclass_summary::MulticlassSummary;
use super::summary::BinarySummary;
use super::vectors::VectorSample;
use crate::{Error, Result};

/// The groups of each column's sketch in a training summary: 1,024 keep a
/// decile's edge within about a thousandth of the rows of a smooth column,
/// at some 5 to 16 KB a column in a binary model file.
pub const SUMMARY_GROUPS: usize = 1 << 10;

/// The groups of each class probability's sketch in a training summary:
/// more than a column's, since a rare class's probabilities crowd near 0
/// across many orders of magnitude (a group holds a range of keys), and
/// there is one per class.
pub const SCORE_SUMMARY_GROUPS: usize = 1 << 13;

/// One source column's counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ColumnCounts {
    /// A numeric column's values.
    Numeric(Sketch),
    /// A categorical column's levels.
    Levels(LevelCounts),
}

/// What one pass over a table counted (see the module doc).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// Rows read.
    pub rows: u64,
    /// Per encoding of the model's schema, its counts.
    pub columns: Vec<ColumnCounts>,
    /// Per class, the model's probability of it (after any fixed prior
    /// shift: what `rarity predict` writes).
    pub scores: Vec<Sketch>,
    /// Scored rows decided as each class.
    pub decided: Vec<u64>,
    /// Rows not scored: a missing value the model cannot take.
    pub unscored: u64,
    /// Two classes: the positive class's probability before any prior
    /// shift, grouped for EM.
    pub em: Option<Sketch>,
    /// More classes: the probability vectors before any prior shift, a
    /// bounded sample for EM ([`VectorSample`]).
    pub em_vectors: Option<VectorSample>,
    /// Two classes, with a label column: the labelled rows' summary at the
    /// model's threshold.
    pub labelled: Option<BinarySummary>,
    /// More classes, with a label column: the labelled rows' summary, by
    /// the model's decided classes.
    pub labelled_classes: Option<MulticlassSummary>,
    /// Rows whose label was given.
    pub labelled_rows: u64,
    /// Their probabilities of the positive class, summed.
    pub labelled_p: f64,
    /// Those of them labelled positive.
    pub labelled_pos: u64,
}

/// The shape a model gives one source column's counts: numeric, or so many
/// levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnShape {
    /// Numeric values.
    Numeric,
    /// A categorical column of this many levels.
    Levels(usize),
}

impl Profile {
    /// Adds `other`, a profile of other rows of the same model's columns:
    /// the counts become those of both tables' rows in one pass (the
    /// sketches settle as they would have, [`Sketch::merge`]; the labelled
    /// probabilities' sum is added, equal to one pass's up to rounding).
    pub fn merge(&mut self, other: &Profile) -> Result<()> {
        let differ = || Error::invalid("the profiles count different models' columns");
        if self.columns.len() != other.columns.len()
            || self.scores.len() != other.scores.len()
            || self.em.is_some() != other.em.is_some()
            || self.em_vectors.is_some() != other.em_vectors.is_some()
            || self.labelled.is_some() != other.labelled.is_some()
            || self.labelled_classes.is_some() != other.labelled_classes.is_some()
        {
            return Err(differ());
        }
        for (a, b) in self.columns.iter_mut().zip(&other.columns) {
            match (a, b) {
                (ColumnCounts::Numeric(a), ColumnCounts::Numeric(b)) => a.merge(b)?,
                (ColumnCounts::Levels(a), ColumnCounts::Levels(b)) => a.merge(b)?,
                _ => return Err(differ()),
            }
        }
        for (a, b) in self.scores.iter_mut().zip(&other.scores) {
            a.merge(b)?;
        }
        if let (Some(a), Some(b)) = (self.em.as_mut(), other.em.as_ref()) {
            a.merge(b)?;
        }
        if let (Some(a), Some(b)) = (self.em_vectors.as_mut(), other.em_vectors.as_ref()) {
            a.merge(b)?;
        }
        if let (Some(a), Some(b)) = (self.labelled.as_mut(), other.labelled.as_ref()) {
            a.merge(b)?;
        }
        if let (Some(a), Some(b)) = (
            self.labelled_classes.as_mut(),
            other.labelled_classes.as_ref(),
        ) {
            a.merge(b)?;
        }
        (self.decided.iter_mut().zip(&other.decided)).for_each(|(a, b)| *a += b);
        self.rows += other.rows;
        self.unscored += other.unscored;
        self.labelled_rows += other.labelled_rows;
        self.labelled_p += other.labelled_p;
        self.labelled_pos += other.labelled_pos;
        Ok(())
    }

    /// What a reference needs of this profile, each sketch coarsened (see
    /// the module doc).
    pub fn summary(&self) -> Profile {
        let coarse = |s: &Sketch| s.coarsened(SUMMARY_GROUPS);
        Profile {
            rows: self.rows,
            columns: (self.columns.iter())
                .map(|c| match c {
                    ColumnCounts::Numeric(s) => ColumnCounts::Numeric(coarse(s)),
                    ColumnCounts::Levels(l) => ColumnCounts::Levels(l.clone()),
                })
                .collect(),
            scores: (self.scores.iter())
                .map(|s| s.coarsened(SCORE_SUMMARY_GROUPS))
                .collect(),
            decided: self.decided.clone(),
            unscored: self.unscored,
            em: None,
            em_vectors: None,
            labelled: None,
            labelled_classes: None,
            labelled_rows: 0,
            labelled_p: 0.0,
            labelled_pos: 0,
        }
    }

    /// Checks a training summary read from a file against the model whose
    /// source columns have `shapes` and which has `classes` classes: one
    /// count per column of its shape, one score sketch and one decided
    /// count per class, each sketch well formed ([`Sketch::check`]) within
    /// its cap, and every count adding up to the
    /// rows (a column counts each row once, a class's probability each
    /// scored row once).
    pub fn check_summary(&self, shapes: &[ColumnShape], classes: usize) -> Result<()> {
        let bad = |m: String| Err(Error::invalid(format!("training summary: {m}")));
        let labelled = self.labelled.is_some() || self.labelled_classes.is_some();
        if self.em.is_some() || self.em_vectors.is_some() || labelled {
            return bad("it holds a current table's EM or labelled counts".into());
        }
        if self.columns.len() != shapes.len() {
            return bad(format!(
                "{} columns counted, the model has {}",
                self.columns.len(),
                shapes.len()
            ));
        }
        if self.scores.len() != classes || self.decided.len() != classes {
            return bad(format!(
                "{} score and {} decided counts, the model has {classes} classes",
                self.scores.len(),
                self.decided.len()
            ));
        }
        let scored = self.rows.checked_sub(self.unscored);
        let decided = (self.decided.iter()).try_fold(0u64, |a, &b| a.checked_add(b));
        if scored.is_none() || decided != scored {
            return bad(format!(
                "{} rows, {} unscored and {:?} decided do not add up",
                self.rows, self.unscored, decided
            ));
        }
        let sketch = |what: String, s: &Sketch, rows: u64, cap: usize| -> Result<()> {
            s.check(cap)
                .map_err(|e| Error::invalid(format!("training summary: {what}: {e}")))?;
            if s.counted() != Some(rows) {
                return bad(format!("{what}: its counts do not add up to {rows} rows"));
            }
            Ok(())
        };
        for (i, (c, shape)) in self.columns.iter().zip(shapes).enumerate() {
            match (c, shape) {
                (ColumnCounts::Numeric(s), ColumnShape::Numeric) => {
                    sketch(format!("column {i}"), s, self.rows, SUMMARY_GROUPS)?
                }
                (ColumnCounts::Levels(l), ColumnShape::Levels(n)) => {
                    let total = (l.levels.iter().chain([&l.unseen, &l.missing]))
                        .try_fold(0u64, |a, &b| a.checked_add(b));
                    if l.levels.len() != *n || total != Some(self.rows) {
                        return bad(format!(
                            "column {i}: {} levels counted for the model's {n}, or counts \
                             that do not add up to the rows",
                            l.levels.len()
                        ));
                    }
                }
                _ => return bad(format!("column {i}: counted as another kind of column")),
            }
        }
        for (k, s) in self.scores.iter().enumerate() {
            let rows = scored.unwrap_or(0);
            sketch(
                format!("class {k}'s probability"),
                s,
                rows,
                SCORE_SUMMARY_GROUPS,
            )?;
        }
        Ok(())
    }
}
