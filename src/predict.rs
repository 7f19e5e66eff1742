//! Predicting a whole file in constant memory: rows are read in blocks
//! ([`crate::data::read::predict_blocks`], any format), gathered into
//! batches of [`BATCH_ROWS`], scored by the fitted strategy, decided, and
//! written as they go ([`crate::data::write::TableWriter`], CSV or
//! Parquet). Each row's probabilities are computed exactly as
//! [`FittedStrategy::predict`] computes them on the whole table (row by
//! row, members in order), so the output does not depend on the batch
//! size. Memory: one batch of rows and its output text, whatever the
//! number of rows.

use std::path::Path;

use crate::data::read::{predict_blocks, PredictBlock, PredictOptions, ReadReport, Table};
use crate::data::scores::{prediction_block, prediction_columns};
use crate::data::write::{TableFormat, TableWriter};
use crate::data::Dataset;
use crate::error::Result;
use crate::strategy::FittedStrategy;

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
/// (identifier columns, `p_<class>` per class, `label`) to `output` (`-`:
/// standard output; Parquet when it ends in `.parquet`). `progress` is
/// called with the rows done after each batch. Nothing is left at `output`
/// if an error occurs.
pub fn predict_file(
    fitted: &FittedStrategy,
    input: Table,
    opts: &PredictOptions,
    output: &Path,
    progress: &dyn Fn(u64),
) -> Result<Predicted> {
    let names = &fitted.schema.class_names;
    let mut writer = TableWriter::create(
        output,
        TableFormat::from_path(output),
        prediction_columns(&opts.ids, names),
    )?;
    let n_ids = opts.ids.len();
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
        writer.write(&prediction_block(&p.ids, n_ids, names, &proba, &labels))?;
        rows += p.rows;
        progress(rows as u64);
        p.ids.clear();
        p.rows = 0;
        Ok(())
    };
    let report = predict_blocks(input, &fitted.schema, opts, &mut |b: PredictBlock| {
        pending.rows += b.data.n_rows();
        pending.x.extend_from_slice(b.data.features());
        pending.ids.extend(b.ids);
        if pending.rows >= BATCH_ROWS {
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
