//! Cross-validation of a file larger than memory: the stratified folds of
//! [`crate::evaluate::cross_validate`] cut while the file is read, each
//! fold's training sample kept while reading (Dal Pozzolo et al. 2015,
//! Sec. II: the sampler's keep decision is per row and per class), the test
//! rows scored as they pass.
//!
//! 1. A counting pass gives the rows of each class. The folds of a repeat
//!    depend on those counts alone ([`class_folds`]: the fold of each row
//!    by its position among its class's rows, 2 bytes a row and repeat),
//!    so each fold's training counts, and from them its sampler plan
//!    ([`Sampler::plan`], drawn with the fold's seed as in memory), are
//!    known before a row is kept.
//! 2. A sampling pass walks every fold's plan along the rows that fold
//!    trains on and keeps a row once for all the folds that draw it. Each
//!    fold's strategy is then fitted on its rows ([`Strategy::fit_sampled`]),
//!    one fold at a time.
//! 3. A scoring pass reads the rows in blocks and scores each with the
//!    model of the fold that tests it, row by row as in memory. The
//!    metrics need every test row's probabilities (ROC AUC sorts them):
//!    8 bytes per class and 2 more per row and repeat are kept, not the
//!    rows; test rows are scored in batches of [`BATCH_ROWS`] per fold.
//!
//! The folds, samples, models and so every metric are those of the
//! in-memory evaluation for the same seed (the timings aside), whatever the
//! reader's block size or thread count.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use super::{keep_rates, BATCH_ROWS};
use crate::calibrate::PriorShift;
use crate::data::read::{
    count_classes, predict_blocks, read_selected, rereadable, ClassCounts, PredictBlock,
    PredictOptions, ReadOptions, ReadReport, Table,
};
use crate::data::{require_two_classes, Dataset, Proba, Schema};
use crate::error::{Error, Result};
use crate::evaluate::{fold_seed, pooled, scored, Evaluation, Extras};
use crate::progress::Progress;
use crate::rng::{self, Rng};
use crate::sample::plan::Plan;
use crate::sample::Sampler;
use crate::split::{check_stratified, class_folds, Fold, Splitter};
use crate::strategy::{FittedStrategy, Strategy};

/// One fold of one repeat while the file is read.
struct FoldRun {
    fold: Fold,
    /// Rows of each class the fold trains on.
    train_counts: Vec<usize>,
    plan: Plan,
    /// The fold's stream after its sampler's draw.
    rng: Rng,
    /// Per row kept for the fold: its first copy in the union of the samples
    /// and how many times the fold keeps it.
    picks: Vec<(usize, usize)>,
    fitted: Option<FittedStrategy>,
    fit_seconds: f64,
    predict_seconds: f64,
    /// Test rows read but not yet scored (features, row-major).
    pending: Vec<f64>,
    pending_rows: usize,
    /// The test rows' classes and decided classes (at most 256 classes).
    truth: Vec<u8>,
    labels: Vec<u8>,
    proba: Vec<f64>,
}

impl FoldRun {
    /// Scores the pending test rows.
    fn flush(&mut self, schema: &Schema) -> Result<()> {
        if self.pending_rows == 0 {
            return Ok(());
        }
        let rows = std::mem::take(&mut self.pending_rows);
        let data = Dataset::new(
            std::mem::take(&mut self.pending),
            vec![0; rows],
            schema.clone(),
        )?;
        let t0 = Instant::now();
        let fitted = self.fitted.as_ref().expect("fitted before scoring");
        let (p, labels) = fitted.predict(&data)?;
        self.predict_seconds += t0.elapsed().as_secs_f64();
        self.proba.extend_from_slice(p.values());
        self.labels.extend(labels.iter().map(|&l| l as u8));
        Ok(())
    }
}

/// Cross-validates `strategy` on the file at `path` with `splitter` as
/// [`crate::evaluate::cross_validate`] (or, with `pool`,
/// [`crate::evaluate::cross_validate_pooled`]) does on the whole table, in
/// memory proportional to the folds' samples and the test predictions (see
/// the module docs). `None` when that cannot be done: a splitter other than
/// stratified folds, a strategy [`Strategy::fit_sampled`] cannot fit or
/// whose decisions depend on the batch (`+em`), extras beyond metrics, the
/// cases of [`super::sample_file`], rows dropped for missing values (every
/// row must be scored), or more than 256 classes; read the table and
/// evaluate in memory. Returns the evaluation and the counting pass's
/// report.
pub fn evaluate_file(
    strategy: &Strategy,
    splitter: &Splitter,
    path: &Path,
    opts: &ReadOptions,
    seed: u64,
    extras: &Extras,
    pool: bool,
) -> Result<Option<(Evaluation, ReadReport)>> {
    let Some((repeats, folds, sampler)) = streamable(strategy, splitter, path, opts, extras) else {
        return Ok(None);
    };
    let table = Table::open(path, opts)?;
    let progress = Progress::start("rows read", 0);
    let counted = count_classes(table, opts, &|r| progress.set_done(r))?;
    let counts = counted.counts();
    let names = counted.class_names();
    if counted.report.rows_dropped().count > 0 || counts.len() > 256 {
        return Ok(None);
    }
    require_two_classes(&counts, names)?;
    check_stratified(&counts, folds, &|c| {
        format!("class '{}'", names[c as usize])
    })?;
    let cuts: Vec<Vec<Vec<u16>>> = (0..repeats)
        .map(|r| class_folds(&counts, folds, r, seed))
        .collect();
    let Some(mut runs) = fold_runs(sampler, &cuts, names, folds, seed)? else {
        return Ok(None);
    };
    let passes = Passes {
        path,
        opts,
        counted: &counted,
        counts: &counts,
        cuts: &cuts,
        folds,
        progress: &progress,
    };
    let (union_data, classes) = passes.sample(&mut runs)?;
    let schema = fit_folds(strategy, &mut runs, union_data)?;
    passes.score(&classes, &mut runs, &schema)?;
    let evaluation = evaluation_of(strategy, runs, counts.len(), extras, pool)?;
    Ok(Some((evaluation, counted.report)))
}

/// The repeats, folds and sampler of an evaluation the file can be streamed
/// for, before the file is read; `None` for the cases of [`evaluate_file`]
/// seen from its arguments alone.
fn streamable<'s>(
    strategy: &'s Strategy,
    splitter: &Splitter,
    path: &Path,
    opts: &ReadOptions,
    extras: &Extras,
) -> Option<(usize, usize, &'s Arc<dyn Sampler>)> {
    let Splitter::Stratified { repeats, folds } = *splitter else {
        return None;
    };
    let plain_extras = extras.cost.is_none()
        && extras.benefit.is_none()
        && !extras.oof
        && !extras.keep_predictions;
    let sampler = strategy.sampler.as_ref()?;
    if !plain_extras
        || !strategy.fits_on_sample()
        || matches!(strategy.shift, Some(PriorShift::Em { .. }))
        || !rereadable(path)
        || opts.drop_constant
        || folds < 2
        || repeats == 0
    {
        return None;
    }
    Some((repeats, folds, sampler))
}

/// Every fold of every repeat with its training counts and sampler plan
/// (drawn with the fold's seed); `None` when the sampler has no plan.
fn fold_runs(
    sampler: &Arc<dyn Sampler>,
    cuts: &[Vec<Vec<u16>>],
    names: &[String],
    folds: usize,
    seed: u64,
) -> Result<Option<Vec<FoldRun>>> {
    let mut runs = Vec::with_capacity(cuts.len() * folds);
    for (r, cut) in cuts.iter().enumerate() {
        for f in 0..folds {
            let fold = Fold {
                repeat: r,
                index: f,
                train: Vec::new(),
                test: Vec::new(),
            };
            let train_counts: Vec<usize> = cut
                .iter()
                .map(|of| of.iter().filter(|&&g| g as usize != f).count())
                .collect();
            let mut rng = rng::stream(fold_seed(seed, &fold), 0);
            let Some(plan) = sampler.plan(&train_counts, names, &mut rng) else {
                return Ok(None);
            };
            runs.push(FoldRun {
                fold,
                train_counts,
                plan: plan?,
                rng,
                picks: Vec::new(),
                fitted: None,
                fit_seconds: 0.0,
                predict_seconds: 0.0,
                pending: Vec::new(),
                pending_rows: 0,
                truth: Vec::new(),
                labels: Vec::new(),
                proba: Vec::new(),
            });
        }
    }
    Ok(Some(runs))
}

/// What the sampling and scoring passes share: the file, the counting
/// pass, and the folds of each class's rows.
struct Passes<'a> {
    path: &'a Path,
    opts: &'a ReadOptions,
    counted: &'a ClassCounts,
    counts: &'a [usize],
    cuts: &'a [Vec<Vec<u16>>],
    folds: usize,
    progress: &'a Progress,
}

impl Passes<'_> {
    /// The sampling pass: the union of the folds' samples (each fold's rows
    /// in it left in its `picks`), and each row's class.
    fn sample(&self, runs: &mut [FoldRun]) -> Result<(Dataset, Vec<u8>)> {
        let (counts, cuts, folds) = (self.counts, self.cuts, self.folds);
        let n = self.counted.report.rows_read;
        let mut classes: Vec<u8> = Vec::with_capacity(n);
        let mut union = 0usize;
        // More rows of a class than the counting pass saw: the file changed.
        let mut grown = false;
        let mut cursors: Vec<_> = runs.iter().map(|run| run.plan.cursor()).collect();
        let mut picks: Vec<Vec<(usize, usize)>> = vec![Vec::new(); runs.len()];
        let mut seen = vec![0usize; counts.len()];
        let mut keep = |c: usize| -> usize {
            let at = seen[c];
            seen[c] += 1;
            if at >= counts[c] {
                grown = true;
                return 0;
            }
            classes.push(c as u8);
            let mut copies = 0;
            for (r, cut) in cuts.iter().enumerate() {
                let tested = cut[c][at] as usize;
                for f in (0..folds).filter(|&f| f != tested) {
                    let i = r * folds + f;
                    let k = cursors[i].keep(c);
                    if k > 0 {
                        picks[i].push((union, k));
                        copies = copies.max(k);
                    }
                }
            }
            union += copies;
            copies
        };
        let table = Table::open(self.path, self.opts)?;
        let (data, _) = read_selected(table, self.opts, self.counted, &mut keep, &|r| {
            self.progress.set_done(n as u64 + r)
        })?;
        for (run, p) in runs.iter_mut().zip(picks) {
            run.picks = p;
        }
        if grown || classes.len() != n {
            return Err(changed(self.path));
        }
        Ok((data, classes))
    }

    /// The scoring pass: each row by the model of the fold that tests it,
    /// `classes` giving each row's class.
    fn score(&self, classes: &[u8], runs: &mut [FoldRun], schema: &Schema) -> Result<()> {
        let (path, cuts, folds) = (self.path, self.cuts, self.folds);
        let n = self.counted.report.rows_read;
        // Missing values reach the fold models as they reached the fits.
        let predict_opts = PredictOptions {
            decimal: Some(self.opts.decimal),
            missing_ok: vec![self.opts.missing.keeps(); schema.encodings.len()],
            ..PredictOptions::default()
        };
        let mut row = 0usize;
        let mut seen = vec![0usize; self.counts.len()];
        let already = 2 * n as u64;
        let report = predict_blocks(
            Table::open(path, self.opts)?,
            schema,
            &predict_opts,
            &mut |b: PredictBlock| {
                let m = b.data.n_rows();
                if row + m > n {
                    return Err(changed(path));
                }
                let at: Vec<(usize, usize)> = (0..m)
                    .map(|i| {
                        let c = classes[row + i] as usize;
                        seen[c] += 1;
                        (c, seen[c] - 1)
                    })
                    .collect();
                for (r, cut) in cuts.iter().enumerate() {
                    for (i, &(c, a)) in at.iter().enumerate() {
                        let run = &mut runs[r * folds + cut[c][a] as usize];
                        run.pending.extend_from_slice(b.data.row(i));
                        run.pending_rows += 1;
                        run.truth.push(c as u8);
                        if run.pending_rows == BATCH_ROWS {
                            run.flush(schema)?;
                        }
                    }
                }
                row += m;
                self.progress.set_done(already + row as u64);
                crate::cancel::check()
            },
        )?;
        if row != n || report.rows_read != n {
            return Err(changed(path));
        }
        for run in runs {
            run.flush(schema)?;
        }
        Ok(())
    }
}

/// Fits each fold's strategy on its rows of the union of the samples, one
/// fold at a time; returns the union's schema (the union itself dropped).
fn fit_folds(strategy: &Strategy, runs: &mut [FoldRun], union_data: Dataset) -> Result<Schema> {
    let priors_of = |c: &[usize]| {
        let t: usize = c.iter().sum();
        c.iter().map(|&k| k as f64 / t as f64).collect::<Vec<_>>()
    };
    for run in runs {
        crate::cancel::check()?;
        let rows: Vec<usize> = run
            .picks
            .iter()
            .flat_map(|&(at, k)| std::iter::repeat_n(at, k))
            .collect();
        let sample = union_data.take(&rows);
        let rates = keep_rates(&run.train_counts, &run.plan);
        let priors = priors_of(&run.train_counts);
        let t0 = Instant::now();
        let fitted = strategy.fit_sampled(&sample, rates, priors, &mut run.rng)?;
        run.fit_seconds = t0.elapsed().as_secs_f64();
        run.fitted = Some(fitted);
        run.picks = Vec::new();
    }
    Ok(union_data.schema().clone())
}

/// Every fold's metrics, from its scored test rows, as one evaluation of
/// `k` classes (pooled with `pool`).
fn evaluation_of(
    strategy: &Strategy,
    runs: Vec<FoldRun>,
    k: usize,
    extras: &Extras,
    pool: bool,
) -> Result<Evaluation> {
    let mut results = Vec::with_capacity(runs.len());
    for run in runs {
        let proba = Proba::new(run.proba, k);
        let truth: Vec<u32> = run.truth.iter().map(|&c| c as u32).collect();
        let labels = run.labels.iter().map(|&c| c as u32).collect();
        let mut r = scored(&truth, None, proba, labels, extras)?;
        r.repeat = run.fold.repeat;
        r.fold = run.fold.index;
        r.fit_seconds = run.fit_seconds;
        r.predict_seconds = run.predict_seconds;
        if !pool {
            r.predictions = None;
        }
        results.push(r);
    }
    if pool {
        pooled(&strategy.spec, results, k, None, extras)
    } else {
        Ok(Evaluation {
            spec: strategy.spec.clone(),
            folds: results,
            pooled: false,
            pooled_folds: Vec::new(),
        })
    }
}

/// The error of a file whose rows changed between passes.
fn changed(path: &Path) -> Error {
    Error::data(format!(
        "{}: the file changed while it was read (its rows differ from one pass to the next)",
        path.display()
    ))
}
