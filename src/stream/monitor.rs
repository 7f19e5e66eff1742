//! One pass over a table for `rarity monitor` (issue 56): every row read
//! once, in blocks, as [`super::predict_file`] reads them, and counted into
//! mergeable summaries of bounded size ([`crate::metrics::drift`],
//! [`BinarySummary`]): per source column of the model its values (numeric)
//! or levels (categorical, with the unseen and the missing rows); per class
//! the model's probability; the rows decided as each class; the positive
//! class's probability before any prior shift, for Saerens' EM (with more
//! classes, a bounded sample of the probability vectors,
//! [`crate::metrics::vectors`]); and, for
//! the rows that carry a label, the metrics of `rarity score`.
//!
//! A missing value is counted in its column's missing bin whether or not
//! the model takes it; a row with a missing value the model cannot take is
//! not scored ([`Profile::unscored`]). Rows are scored in batches of
//! [`super::BATCH_ROWS`], each row's probabilities its own
//! ([`FittedStrategy::predict`]), and the summaries are counts and sums
//! added in row order: the profile does not depend on the reader's block
//! size or thread count.

use crate::data::read::{
    predict_blocks, slot_value, PredictBlock, PredictOptions, SlotValue, Table,
};
use crate::data::{ColumnEncoding, Dataset, Proba};
use crate::decide::Rule;
use crate::error::{Error, Result};
use crate::metrics::drift::{LevelCounts, Sketch};
use crate::metrics::multiclass_summary::MulticlassSummary;
use crate::metrics::profile::{ColumnCounts, Profile};
use crate::metrics::summary::BinarySummary;
use crate::metrics::vectors::VectorSample;
use crate::strategy::FittedStrategy;

/// The cap on the groups of the positive-class probability kept for EM:
/// its bootstrap runs EM once per replicate over the groups.
pub const EM_GROUPS: usize = 1 << 14;

/// The cap on the distinct probability vectors kept for EM on more than
/// two classes (each row of the sample is EM's and every bootstrap
/// replicate's work).
pub const EM_VECTORS: usize = 1 << 15;

/// The threshold of the metrics of labelled rows: the model's own on the
/// positive class when it decides by one, else 0.5 (`rarity score`'s).
pub fn summary_threshold(rule: &Rule) -> f64 {
    match rule {
        Rule::Threshold(t) => *t,
        _ => 0.5,
    }
}

/// A profile's pass-side half (its data and merging are
/// [`crate::metrics::profile`]'s, below the strategies that store one).
impl Profile {
    /// The profile of no rows of `fitted`'s columns (`labels`: counting a
    /// label column).
    pub fn new(fitted: &FittedStrategy, labels: bool) -> Result<Profile> {
        let k = fitted.schema.class_names.len();
        let columns = (fitted.schema.encodings.iter())
            .map(|e| match e {
                ColumnEncoding::Numeric { .. } => ColumnCounts::Numeric(Sketch::new()),
                ColumnEncoding::OneHot { levels, .. }
                | ColumnEncoding::Categorical { levels, .. } => {
                    ColumnCounts::Levels(LevelCounts::new(levels.len()))
                }
            })
            .collect();
        let binary = k == 2;
        Ok(Profile {
            rows: 0,
            columns,
            scores: vec![Sketch::new(); k],
            decided: vec![0; k],
            unscored: 0,
            em: match binary {
                true => Some(Sketch::with_max_groups(EM_GROUPS)?),
                false => None,
            },
            em_vectors: match binary {
                true => None,
                false => Some(VectorSample::new(k, EM_VECTORS)?),
            },
            labelled: match binary && labels {
                true => Some(BinarySummary::new(summary_threshold(&fitted.rule))?),
                false => None,
            },
            labelled_classes: match !binary && labels {
                true => Some(MulticlassSummary::new(k)?),
                false => None,
            },
            labelled_rows: 0,
            labelled_p: 0.0,
            labelled_pos: 0,
        })
    }

    /// Counts one block's source values; returns which rows can be scored.
    fn count_columns(&mut self, slots: &[f64], missing_ok: &[bool]) -> Vec<bool> {
        let m = self.columns.len();
        let rows = slots.len().checked_div(m).unwrap_or(0);
        let mut scorable = vec![true; rows];
        for (i, row) in slots.chunks(m.max(1)).take(rows).enumerate() {
            for (s, (&v, c)) in row.iter().zip(&mut self.columns).enumerate() {
                let value = slot_value(v);
                if value == SlotValue::Missing && !missing_ok[s] {
                    scorable[i] = false;
                }
                match (c, value) {
                    (ColumnCounts::Numeric(sk), SlotValue::Number(x)) => sk.add(x),
                    (ColumnCounts::Numeric(sk), _) => sk.add(f64::NAN),
                    (ColumnCounts::Levels(l), SlotValue::Level(c)) => {
                        match l.levels.get_mut(c as usize) {
                            Some(n) => *n += 1,
                            None => l.unseen += 1,
                        }
                    }
                    (ColumnCounts::Levels(l), SlotValue::Unseen) => l.unseen += 1,
                    (ColumnCounts::Levels(l), _) => l.missing += 1,
                }
            }
        }
        self.rows += rows as u64;
        scorable
    }
}

/// How a pass reads its table.
pub struct PassOptions<'a> {
    /// The reader's options for rows to predict on (identifier columns are
    /// replaced by the label column).
    pub read: &'a PredictOptions,
    /// The column of labels, when the table has one: its rows without a
    /// label (an empty value) are unlabelled.
    pub label: Option<&'a str>,
}

/// Reads every row of `table` once and counts it (see the module doc).
pub fn profile(
    fitted: &FittedStrategy,
    table: Table<'_>,
    pass: &PassOptions<'_>,
) -> Result<Profile> {
    if fitted.batch_dependent() {
        return Err(Error::invalid(format!(
            "{}: a strategy ending in +em moves its probabilities with each batch of rows; \
             monitor the same model without +em (its EM estimate is what monitor reports)",
            fitted.spec
        )));
    }
    let missing_ok = fitted.missing_columns();
    let opts = PredictOptions {
        ids: pass.label.map(str::to_string).into_iter().collect(),
        id_names: Vec::new(),
        unknown: crate::data::read::Unknown::Ignore,
        missing_ok: vec![true; missing_ok.len()],
        keep_slots: true,
        ..pass.read.clone()
    };
    let mut out = Profile::new(fitted, pass.label.is_some())?;
    let mut pending = Batch::default();
    predict_blocks(table, &fitted.schema, &opts, &mut |b: PredictBlock| {
        let scorable = out.count_columns(&b.slots, &missing_ok);
        pending.add(b, &scorable, pass.label.is_some(), fitted)?;
        if pending.rows >= super::BATCH_ROWS {
            pending.flush(fitted, &mut out)?;
        }
        Ok(())
    })?;
    pending.flush(fitted, &mut out)?;
    out.unscored = out.rows - out.decided.iter().sum::<u64>();
    Ok(out)
}

/// Scorable rows read but not yet scored, with their labels.
#[derive(Default)]
struct Batch {
    x: Vec<f64>,
    /// Per row: its class, or `None` unlabelled (or no label column).
    labels: Vec<Option<u32>>,
    rows: usize,
}

impl Batch {
    fn add(
        &mut self,
        b: PredictBlock,
        scorable: &[bool],
        labelled: bool,
        fitted: &FittedStrategy,
    ) -> Result<()> {
        let m = b.data.n_features();
        let x = b.data.features();
        for (i, &ok) in scorable.iter().enumerate() {
            if !ok {
                continue;
            }
            self.x.extend_from_slice(&x[i * m..(i + 1) * m]);
            self.labels.push(match labelled {
                true => class_of(&b.ids[i], &fitted.schema.class_names)?,
                false => None,
            });
            self.rows += 1;
        }
        Ok(())
    }

    fn flush(&mut self, fitted: &FittedStrategy, out: &mut Profile) -> Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        let data = Dataset::new(
            std::mem::take(&mut self.x),
            vec![0; self.rows],
            fitted.schema.clone(),
        )?;
        let (proba, decided) = fitted.predict(&data)?;
        for (k, s) in out.scores.iter_mut().enumerate() {
            s.add_all(&proba.column(k));
        }
        decided.iter().for_each(|&c| out.decided[c as usize] += 1);
        if out.em.is_some() || out.em_vectors.is_some() {
            let before: Proba = match fitted.shift {
                Some(_) => fitted.model_proba(&data)?,
                None => proba.clone(),
            };
            if let Some(em) = out.em.as_mut() {
                em.add_all(&before.column(1));
            }
            if let Some(em) = out.em_vectors.as_mut() {
                em.add_rows(before.values());
            }
        }
        if let Some(summary) = out.labelled_classes.as_mut() {
            let (mut t, mut p, mut d) = (Vec::new(), Vec::new(), Vec::new());
            for (i, l) in self.labels.iter().enumerate() {
                if let Some(c) = l {
                    t.push(*c);
                    p.extend_from_slice(proba.row(i));
                    d.push(decided[i]);
                }
            }
            out.labelled_rows += t.len() as u64;
            summary.add(&t, &p, &d)?;
        }
        if let Some(summary) = out.labelled.as_mut() {
            let (mut t, mut p) = (Vec::new(), Vec::new());
            for (i, l) in self.labels.iter().enumerate() {
                if let Some(c) = l {
                    t.push(*c);
                    p.push(proba.row(i)[1]);
                }
            }
            out.labelled_rows += t.len() as u64;
            out.labelled_pos += t.iter().filter(|&&c| c == 1).count() as u64;
            out.labelled_p += p.iter().sum::<f64>();
            summary.add(&t, &p)?;
        }
        self.labels.clear();
        self.rows = 0;
        Ok(())
    }
}

/// The class of a label text (`None`: empty, unlabelled), or an error
/// naming the label and the model's classes.
fn class_of(text: &str, classes: &[String]) -> Result<Option<u32>> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    match classes.iter().position(|c| c == t) {
        Some(k) => Ok(Some(k as u32)),
        None => Err(Error::data(format!(
            "label '{t}' is not a class of the model, whose classes are {}",
            classes.join(", ")
        ))),
    }
}
