//! Strategies on files larger than memory.
//!
//! **Sampling while reading** ([`sample_file`], [`fit_file`]): for a
//! sampler whose keep decision is per row and per class
//! ([`Sampler::plan`]: random undersampling at a rate `beta`, to a ratio,
//! or with per-class rates; Dal Pozzolo et al. 2015, Sec. II), a first pass
//! counts the classes (parsing the target column only; the others are
//! only looked at for missing values), the sampler draws which rows of each
//! class to keep from those counts alone, and a second pass keeps only
//! those rows. Undersampling at a rate `beta` on two classes
//! ([`Sampler::streaming_rate`]) needs the counts only to know which class
//! is the minority, so one pass draws and counts at once, and the counts
//! then pick the sample among the rows held ([`read_speculative`]; the
//! second pass remains for the cases it cannot settle). Memory is
//! proportional to the sample; the keep rates are the counted ones, so
//! `+correct` (eq. 9) is exact; the rows, and so the
//! fitted model, are those of the in-memory [`Strategy::fit`] for the same
//! seed, whatever the reader's block size or thread count.
//!
//! **Categorical columns** (`--categorical native|one-hot`,
//! `--categorical-cols`) are read too. The pass that keeps the sample also
//! reads every row's levels into one level table per column (each distinct
//! text once, with its count: memory grows with the levels, not the rows),
//! the kept rows holding codes of that table; at the end the codes are
//! renumbered by the sorted level texts, as the in-memory read does, and a
//! one-hot column's levels (or its turning numeric) are decided from every
//! row. So a column's levels are the **whole file's**, including levels
//! seen only in rows the sampler drops: they are real levels of the
//! population, and the schema (the model file) is the in-memory fit's. Such
//! a level has no training row, so no split of a tree, forest or `gbdt`
//! holds it in its set: predicting, it goes where an unseen level or a
//! missing value goes (`crate::learn::tree::categorical`).
//!
//! **Cross-validation while reading** ([`evaluate_file`], module
//! `evaluate`): the stratified folds cut from the class counts, each
//! fold's sample kept in one sampling pass, each row scored by the model of
//! its test fold in a third pass; the metrics are the in-memory ones.
//!
//! **Predicting in constant memory** ([`predict_file`]): rows are read in
//! blocks ([`crate::data::read::predict_blocks`], any format), gathered
//! into batches of [`BATCH_ROWS`], scored by the fitted strategy, decided,
//! and written as they go ([`crate::data::write::TableWriter`], CSV or
//! Parquet). Each row's probabilities are computed exactly as
//! [`FittedStrategy::predict`] computes them on the whole table (row by
//! row, members in order), so the output does not depend on the batch
//! size. Memory: one batch of rows and its output text, whatever the
//! number of rows.

use std::path::Path;

mod evaluate;
pub mod monitor;
pub use evaluate::evaluate_file;

use crate::contributions::{ReasonBlock, Reasons};
use crate::data::read::{
    count_classes, predict_blocks, read_selected, read_speculative, rereadable, ClassCounts,
    PredictBlock, PredictOptions, ReadOptions, ReadReport, Speculated, Table, UNDECIDED_ROWS,
};
use crate::data::scores::{prediction_block, prediction_columns};
use crate::data::write::{TableFormat, TableWriter};
use crate::data::{require_two_classes, Dataset};
use crate::error::Result;
use crate::progress::Progress;
use crate::rng::{self, Rng};
use crate::sample::plan::Plan;
use crate::sample::Sampler;
use crate::strategy::{FittedStrategy, Strategy};

/// A sample kept while a file was read.
#[derive(Debug)]
pub struct StreamedSample {
    /// The sampled rows, in file order (a row drawn twice appears twice).
    pub data: Dataset,
    /// Rows of each class in the whole file.
    pub counts: Vec<usize>,
    /// Per class: rows in the sample over rows in the file.
    pub keep_rates: Vec<f64>,
    /// Things the user should know.
    pub notes: Vec<String>,
    /// What the reader did (over the whole file).
    pub report: ReadReport,
}

/// Draws `sampler`'s sample from the file at `path` while reading it (see
/// the module docs), with `rng` (which ends where the in-memory
/// [`Sampler::resample`] would leave it). `None` when the sample cannot be
/// taken while reading: standard input (it cannot be read twice), a
/// sampler that needs the rows themselves, or `drop_constant` (which needs
/// every row to decide). Categorical columns are read as the whole file
/// would be (see the module docs on level tables).
pub fn sample_file(
    sampler: &dyn Sampler,
    path: &Path,
    opts: &ReadOptions,
    rng: &mut Rng,
) -> Result<Option<StreamedSample>> {
    if !rereadable(path) || opts.drop_constant {
        return Ok(None);
    }
    let table = Table::open(path, opts)?;
    let progress = Progress::start("rows read", 0);
    let mut plan = None;
    let counted = match sampler.streaming_rate() {
        Some(rate) => {
            let start = rng.clone();
            let mut select = |c: &ClassCounts| -> Result<Option<Vec<Vec<u64>>>> {
                require_two_classes(&c.counts(), c.class_names())?;
                let p = sampler
                    .plan(&c.counts(), c.class_names(), rng)
                    .transpose()?;
                let wanted = p.as_ref().map(|p| p.per_class.clone());
                plan = p;
                Ok(wanted)
            };
            let undecided = UNDECIDED_ROWS;
            match read_speculative(table, opts, rate, &start, undecided, &mut select, &|r| {
                progress.set_done(r)
            })? {
                Speculated::Sample(counted, data, report) => {
                    let plan = plan.expect("a sample comes from a plan");
                    return Ok(Some(streamed(data, counted.counts(), &plan, report)));
                }
                Speculated::Counted(counted) => counted,
            }
        }
        None => count_classes(table, opts, &|r| progress.set_done(r))?,
    };
    // The sample is read in a second pass.
    let counted_rows = counted.report.rows_read as u64;
    let counts = counted.counts();
    require_two_classes(&counts, counted.class_names())?;
    let plan = match plan {
        Some(p) => p,
        None => match sampler.plan(&counts, counted.class_names(), rng) {
            None => return Ok(None),
            Some(p) => p?,
        },
    };
    let mut cursor = plan.cursor();
    let (data, _) = read_selected(
        Table::open(path, opts)?,
        opts,
        &counted,
        &mut |c| cursor.keep(c),
        &|r| progress.set_done(counted_rows + r),
    )?;
    Ok(Some(streamed(data, counts, &plan, counted.report)))
}

/// The sample `data` drawn by `plan` from a file with `counts` rows per class.
fn streamed(data: Dataset, counts: Vec<usize>, plan: &Plan, report: ReadReport) -> StreamedSample {
    StreamedSample {
        data,
        keep_rates: keep_rates(&counts, plan),
        counts,
        notes: plan.notes.clone(),
        report,
    }
}

/// Per class: rows `plan` keeps over the `counts` it was drawn from (1 for
/// a class without rows).
fn keep_rates(counts: &[usize], plan: &Plan) -> Vec<f64> {
    counts
        .iter()
        .zip(plan.kept())
        .map(|(&n, k)| if n == 0 { 1.0 } else { k as f64 / n as f64 })
        .collect()
}

/// Fits `strategy` on the file at `path`, its sampler stage's sample kept
/// while reading (see the module docs); `None` when that cannot be done
/// (no sampler stage, calibration or a tuned decision, or
/// [`sample_file`]'s cases): read the file and use [`Strategy::fit`].
/// Returns the fitted strategy, the rows of the whole file and the
/// reader's report.
pub fn fit_file(
    strategy: &Strategy,
    path: &Path,
    opts: &ReadOptions,
    seed: u64,
) -> Result<Option<(FittedStrategy, usize, ReadReport)>> {
    let Some(sampler) = strategy
        .sampler
        .as_ref()
        .filter(|_| strategy.fits_on_sample())
    else {
        return Ok(None);
    };
    let mut r = rng::stream(seed, 0);
    let Some(sample) = sample_file(sampler.as_ref(), path, opts, &mut r)? else {
        return Ok(None);
    };
    let n: usize = sample.counts.iter().sum();
    let priors = sample.counts.iter().map(|&c| c as f64 / n as f64).collect();
    let mut fitted = strategy.fit_sampled(&sample.data, sample.keep_rates, priors, &mut r)?;
    // The training rows are the file's, not the sample's.
    if let Some(f) = fitted.fit.as_mut() {
        f.rows = n;
    }
    Ok(Some((fitted, n, sample.report)))
}

/// Rows scored and written at a time.
pub const BATCH_ROWS: usize = 1 << 16;

/// What [`predict_file`] did.
#[derive(Debug, Clone)]
pub struct Predicted {
    /// Rows predicted.
    pub rows: usize,
    /// Rows decided as each class.
    pub class_counts: Vec<usize>,
    /// What the reader did.
    pub report: ReadReport,
}

/// Predicts every row of `input` with `fitted` and writes the table
/// (identifier columns, `p_<class>` per class, `label`, then the columns
/// of `reasons` when given: [`crate::contributions`]) to `output` (`-`:
/// standard output; Parquet when it ends in `.parquet`), counting the rows
/// done in [`crate::progress`]. Nothing is left at `output` if an error
/// occurs. A strategy ending in `+em` estimates the target priors on all
/// the rows together (one batch: memory grows with the rows), as
/// [`FittedStrategy::predict`] on the whole table does.
pub fn predict_file(
    fitted: &FittedStrategy,
    input: Table<'_>,
    opts: &PredictOptions,
    output: &Path,
    reasons: Option<&Reasons>,
) -> Result<Predicted> {
    let progress = Progress::start("rows predicted", 0);
    let names = &fitted.schema.class_names;
    let shown = if opts.id_names.is_empty() {
        &opts.ids
    } else {
        &opts.id_names
    };
    let mut columns = prediction_columns(shown, names);
    columns.extend(reasons.map(Reasons::columns).unwrap_or_default());
    let mut writer = TableWriter::create(output, TableFormat::from_path(output), columns)?;
    let n_ids = opts.ids.len();
    let batch_rows = if fitted.batch_dependent() {
        usize::MAX
    } else {
        BATCH_ROWS
    };
    let mut counts = vec![0usize; names.len()];
    let mut rows = 0usize;
    let mut pending = Pending::default();
    let mut flush = |p: &mut Pending, writer: &mut TableWriter| -> Result<()> {
        if p.rows == 0 {
            return Ok(());
        }
        let data = Dataset::new(
            std::mem::take(&mut p.x),
            vec![0; p.rows],
            fitted.schema.clone(),
        )?;
        let (proba, labels) = fitted.predict(&data)?;
        labels.iter().for_each(|&l| counts[l as usize] += 1);
        let added = match reasons {
            Some(r) => r.block(&data, &labels)?,
            None => ReasonBlock::default(),
        };
        let mut block = prediction_block(&p.ids, n_ids, names, &proba, &labels);
        block.columns.extend(added.columns());
        writer.write(&block)?;
        rows += p.rows;
        progress.set_done(rows as u64);
        p.ids.clear();
        p.rows = 0;
        Ok(())
    };
    let report = predict_blocks(input, &fitted.schema, opts, &mut |b: PredictBlock| {
        pending.rows += b.data.n_rows();
        pending.x.extend_from_slice(b.data.features());
        pending.ids.extend(b.ids);
        if pending.rows >= batch_rows {
            flush(&mut pending, &mut writer)?;
        }
        Ok(())
    })?;
    flush(&mut pending, &mut writer)?;
    writer.commit()?;
    Ok(Predicted {
        rows,
        class_counts: counts,
        report,
    })
}

/// Rows read but not yet scored.
#[derive(Default)]
struct Pending {
    x: Vec<f64>,
    ids: Vec<String>,
    rows: usize,
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use rand::RngExt;

    use super::*;
    use crate::data::read::read_path;
    use crate::sample::RandomUnder;

    /// A CSV file of one feature and the labels `labels` in order.
    fn file(name: &str, labels: &[&str]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("rarity-stream-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut text = String::from("x,class\n");
        for (i, l) in labels.iter().enumerate() {
            text.push_str(&format!("{},{l}\n", i % 1000));
        }
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// `n` labels, `every`-th one `rare`, the rest `common`.
    fn mixed(
        n: usize,
        every: usize,
        rare: &'static str,
        common: &'static str,
    ) -> Vec<&'static str> {
        (0..n)
            .map(|i| if i % every == 0 { rare } else { common })
            .collect()
    }

    /// The one-pass read of `path` at `rate`, holding at most `undecided`
    /// undrawn rows, with the plan the in-memory sampler would make.
    fn speculate(path: &Path, rate: f64, undecided: usize) -> Speculated {
        let opts = ReadOptions::default();
        let sampler = RandomUnder::beta(rate);
        let mut rng = rng::stream(42, 0);
        let start = rng.clone();
        let mut select = |c: &ClassCounts| -> Result<Option<Vec<Vec<u64>>>> {
            let p = sampler.plan(&c.counts(), c.class_names(), &mut rng);
            Ok(p.transpose()?.map(|p| p.per_class))
        };
        let table = Table::open(path, &opts).unwrap();
        read_speculative(table, &opts, rate, &start, undecided, &mut select, &|_| {}).unwrap()
    }

    /// The streamed sample is the in-memory sample, and the stream ends
    /// where the in-memory draw leaves it.
    fn same_as_in_memory(path: &Path, rate: f64) {
        let opts = ReadOptions::default();
        let sampler = RandomUnder::beta(rate);
        let mut a = rng::stream(42, 0);
        let s = sample_file(&sampler, path, &opts, &mut a).unwrap().unwrap();
        let (ds, _) = read_path(path, &opts).unwrap();
        let mut b = rng::stream(42, 0);
        let want = sampler.resample(&ds, &mut b).unwrap();
        let rows = want.materialise(&ds).unwrap();
        assert_eq!(s.data.features(), rows.features());
        assert_eq!(s.data.labels(), rows.labels());
        assert_eq!(s.keep_rates, want.keep_rates);
        assert_eq!(a.random::<u64>(), b.random::<u64>());
    }

    #[test]
    fn one_pass_when_the_sample_is_what_was_held() {
        // Minority spread through the file, first, or last.
        let spread = file("spread.csv", &mixed(5000, 7, "1", "0"));
        let mut first = vec!["b"; 300];
        first.extend(vec!["a"; 3000]);
        let first = file("first.csv", &first);
        let mut last = vec!["a"; 3000];
        last.extend(vec!["b"; 300]);
        let last = file("last.csv", &last);
        for path in [&spread, &first, &last] {
            for undecided in [0, 100, 1 << 20] {
                assert!(matches!(
                    speculate(path, 0.2, undecided),
                    Speculated::Sample(..)
                ));
            }
            same_as_in_memory(path, 0.2);
            same_as_in_memory(path, 1.0);
        }
    }

    #[test]
    fn two_passes_when_it_is_not() {
        // Three labels: the other classes' draws follow each other.
        let mut labels = mixed(3000, 3, "c", "d");
        labels.extend(vec!["e"; 20]);
        let three = file("three.csv", &labels);
        assert!(matches!(
            speculate(&three, 0.3, 1 << 20),
            Speculated::Counted(_)
        ));
        same_as_in_memory(&three, 0.3);
        // A class large in the first block (so let go) that ends the
        // minority: more than a block (1 MiB) of it first.
        let mut swap = vec!["p"; 200_000];
        swap.extend(mixed(300_000, 50, "p", "q"));
        let swap = file("swap.csv", &swap);
        assert!(matches!(
            speculate(&swap, 0.1, 1000),
            Speculated::Counted(_)
        ));
        same_as_in_memory(&swap, 0.1);
    }
}
