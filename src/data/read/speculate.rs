//! One pass instead of two for a sample whose draws need no counts.
//!
//! Random undersampling at a rate `beta` on a two-class table (Dal Pozzolo
//! et al. 2015, Sec. II) keeps every row of the minority and each row of
//! the other class when its uniform draw falls below `beta`, one draw per
//! row of that class in input order. Only which class is the minority
//! needs the counts. So each class draws from its own copy of the stream
//! as its rows go past, every row of a class that may still turn out to be
//! the minority is held, and once the file is read the counts decide which
//! rows are the sample. The caller's plan (made from those counts with the
//! same stream, as the in-memory sampler makes it) is checked against what
//! was held; whenever they differ (more than two labels, a class grouped
//! from several labels, the minority's rows let go to bound memory) the
//! pass has still counted the classes, and the caller reads the sample in
//! a second pass as before.
//!
//! Memory: the drawn rows, plus the undrawn rows of at most
//! [`UNDECIDED_ROWS`] rows before the larger class is let go, plus those of
//! the class that is still the smaller, which are in the sample if it
//! stays so.

use rand::RngExt;

use super::rows::{Block, Collector, Sink};
use super::{ClassCounts, Progress, ReadOptions, ReadReport, Table};
use crate::data::Dataset;
use crate::error::Result;
use crate::rng::Rng;

/// Undrawn rows held while both classes may still be the minority.
pub const UNDECIDED_ROWS: usize = 1 << 18;

/// What one speculative pass gave.
#[derive(Debug)]
pub enum Speculated {
    /// The sample, with the counts it was drawn from and the reader's
    /// report over the whole file.
    Sample(ClassCounts, Dataset, ReadReport),
    /// Only the counts: read the sample in a second pass.
    Counted(ClassCounts),
}

/// The keep rows of each class (per class id, the ordinals of its kept
/// rows, sorted) given the counts, or `None` to stop at the counts.
pub type Select<'a> = &'a mut dyn FnMut(&ClassCounts) -> Result<Option<Vec<Vec<u64>>>>;

/// Reads `table` once, drawing at `rate` from copies of `start` (see the
/// module docs) and holding at most `undecided` undrawn rows (usually
/// [`UNDECIDED_ROWS`]) while both classes may be the minority, and asks
/// `select` for the sample the counts call for.
pub fn read_speculative(
    table: Table<'_>,
    opts: &ReadOptions,
    rate: f64,
    start: &Rng,
    undecided: usize,
    select: Select,
    progress: Progress,
) -> Result<Speculated> {
    let layout = table.train_layout(opts)?;
    let mut held = Held {
        collector: Collector::new(&layout),
        rate,
        start,
        labels: Vec::new(),
        ordinal: Vec::new(),
        drawn: Vec::new(),
        undrawn: 0,
        undecided,
        counting: false,
        progress,
    };
    table.run(&layout, &mut held)?;
    let counts = ClassCounts::of(
        held.collector.labels().clone(),
        held.collector.report.clone(),
        &layout,
        opts,
    )?;
    if held.counting {
        return Ok(Speculated::Counted(counts));
    }
    let Some(wanted) = select(&counts)? else {
        return Ok(Speculated::Counted(counts));
    };
    let Some(keep) = held.keep(&counts, &wanted) else {
        return Ok(Speculated::Counted(counts));
    };
    let mut collector = held.collector;
    retain(&mut collector, &keep);
    let (data, report) = collector.finish(opts.positive.as_deref(), Some(&counts.labels))?;
    Ok(Speculated::Sample(counts, data, report))
}

/// A label's own copy of the draws.
struct Label {
    rng: Rng,
    seen: u64,
    /// Every row of it held so far (it may be the minority).
    whole: bool,
}

/// The sink: every block's labels counted, the rows that may be in the
/// sample held.
struct Held<'a, 's> {
    collector: Collector<'a>,
    rate: f64,
    start: &'s Rng,
    /// Per global raw label id.
    labels: Vec<Label>,
    /// Per held row: its ordinal among its label's rows, and whether it
    /// was drawn.
    ordinal: Vec<u64>,
    drawn: Vec<bool>,
    /// Held rows not drawn, and how many may be held while both classes
    /// may be the minority.
    undrawn: usize,
    undecided: usize,
    /// Gave up holding rows: the pass only counts.
    counting: bool,
    progress: Progress<'s>,
}

impl Sink for Held<'_, '_> {
    fn numeric_slots(&self) -> &[bool] {
        self.collector.numeric_slots()
    }

    fn take(&mut self, block: &mut Block) -> Result<()> {
        self.collector.globalise(block)?;
        (self.progress)(self.collector.report.rows_read as u64);
        if self.counting {
            return Ok(());
        }
        for i in 0..block.labels.len() {
            let raw = block.labels[i] as usize;
            while self.labels.len() <= raw {
                self.labels.push(Label {
                    rng: self.start.clone(),
                    seen: 0,
                    whole: true,
                });
            }
            if self.labels.len() > 2 {
                self.give_up();
                return Ok(());
            }
            let label = &mut self.labels[raw];
            let ordinal = label.seen;
            label.seen += 1;
            let drawn = label.rng.random::<f64>() < self.rate;
            if drawn || label.whole {
                self.collector.push_row(block, i, 1)?;
                self.ordinal.push(ordinal);
                self.drawn.push(drawn);
                self.undrawn += usize::from(!drawn);
            }
        }
        self.bound();
        Ok(())
    }
}

impl Held<'_, '_> {
    /// Lets go of the undrawn rows of a class that is not the smaller:
    /// the larger one once too many are held, and one that has grown past
    /// a class already let go (then neither can be the minority here).
    fn bound(&mut self) {
        let whole: Vec<usize> = (0..self.labels.len())
            .filter(|&l| self.labels[l].whole)
            .collect();
        let larger = match whole[..] {
            [a, b] if self.undrawn > self.undecided => {
                Some(if self.labels[a].seen >= self.labels[b].seen {
                    a
                } else {
                    b
                })
            }
            [w] if self.labels.len() == 2 && self.labels[w].seen > self.labels[1 - w].seen => {
                Some(w)
            }
            _ => None,
        };
        let Some(l) = larger else { return };
        self.labels[l].whole = false;
        if self.labels.iter().all(|l| !l.whole) {
            self.give_up();
            return;
        }
        let keep: Vec<bool> = (0..self.drawn.len())
            .map(|i| self.drawn[i] || self.collector.y[i] as usize != l)
            .collect();
        retain(&mut self.collector, &keep);
        let mut k = keep.iter();
        self.ordinal.retain(|_| *k.next().unwrap_or(&false));
        let mut k = keep.iter();
        self.drawn.retain(|_| *k.next().unwrap_or(&false));
        self.undrawn = self.drawn.iter().filter(|&&d| !d).count();
    }

    /// Stops holding rows; the pass only counts from here on.
    fn give_up(&mut self) {
        self.counting = true;
        self.collector.x = Vec::new();
        self.collector.y = Vec::new();
        self.ordinal = Vec::new();
        self.drawn = Vec::new();
    }

    /// Which held rows make the sample `wanted` (per class id, the kept
    /// ordinals), or `None` when the held rows are not that sample.
    fn keep(&self, counts: &ClassCounts, wanted: &[Vec<u64>]) -> Option<Vec<bool>> {
        let n_classes = counts.class_names.len();
        // Each class must be exactly one label, drawn or held whole.
        let mut label_of = vec![None; n_classes];
        for (raw, &c) in counts.class_of_raw.iter().enumerate() {
            if label_of[c as usize].replace(raw).is_some() {
                return None;
            }
        }
        let totals = counts.counts();
        let mut all = vec![false; self.labels.len()];
        for c in 0..n_classes {
            let raw = label_of[c]?;
            let w = wanted.get(c)?;
            if w.len() == totals[c] && w.iter().enumerate().all(|(i, &o)| o == i as u64) {
                if !self.labels.get(raw)?.whole {
                    return None;
                }
                all[raw] = true;
            }
        }
        let keep: Vec<bool> = (0..self.drawn.len())
            .map(|i| all[self.collector.y[i] as usize] || self.drawn[i])
            .collect();
        // The held sample, class by class, must be the one wanted.
        let mut at = vec![0usize; n_classes];
        for (i, _) in keep.iter().enumerate().filter(|(_, k)| **k) {
            let c = counts.class_of_raw[self.collector.y[i] as usize] as usize;
            if wanted[c].get(at[c]) != Some(&self.ordinal[i]) {
                return None;
            }
            at[c] += 1;
        }
        (0..n_classes)
            .all(|c| at[c] == wanted[c].len())
            .then_some(keep)
    }
}

/// Keeps the collected rows whose flag is set, in order.
fn retain(collector: &mut Collector, keep: &[bool]) {
    let m = collector.x.len() / collector.y.len().max(1);
    let mut to = 0;
    for (from, &k) in keep.iter().enumerate() {
        if k {
            if to != from {
                collector.x.copy_within(from * m..(from + 1) * m, to * m);
                collector.y[to] = collector.y[from];
            }
            to += 1;
        }
    }
    collector.x.truncate(to * m);
    collector.y.truncate(to);
}
