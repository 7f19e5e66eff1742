//! The Parquet encoder: each block becomes an Arrow record batch (numbers
//! as `Float64`, text as `Utf8`, a categorical column's levels as `Utf8`
//! with nulls for missing values) written through the Apache `parquet`
//! crate's Arrow writer, snappy-compressed, in row groups of up to 2^20 rows.

use std::io::{BufWriter, Write};
use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{ArrayRef, Float64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use super::block::{level_of, Block, Column, ColumnSpec};
use super::AtomicFile;
use crate::error::{Error, Result};

type Sink = BufWriter<Box<dyn Write + Send>>;

pub(super) struct ParquetEncoder {
    schema: SchemaRef,
    writer: ArrowWriter<Sink>,
}

fn fail(file: &AtomicFile, e: impl std::fmt::Display) -> Error {
    file.err(std::io::Error::other(format!("writing Parquet: {e}")))
}

impl ParquetEncoder {
    pub(super) fn new(columns: &[ColumnSpec], file: &mut AtomicFile) -> Result<Self> {
        let fields: Vec<Field> = columns
            .iter()
            .map(|c| {
                let t = if c.text {
                    DataType::Utf8
                } else {
                    DataType::Float64
                };
                Field::new(c.name.clone(), t, c.nullable)
            })
            .collect();
        let schema = Arc::new(Schema::new(fields));
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(1 << 20))
            .build();
        let sink = file.take_writer();
        let writer =
            ArrowWriter::try_new(sink, schema.clone(), Some(props)).map_err(|e| fail(file, e))?;
        Ok(ParquetEncoder { schema, writer })
    }

    pub(super) fn write(&mut self, block: &Block, file: &AtomicFile) -> Result<()> {
        let arrays: Vec<ArrayRef> = block
            .columns
            .iter()
            .zip(self.schema.fields())
            .map(|(c, field)| -> ArrayRef {
                match *c {
                    // A missing value (NaN) of a nullable column is a null.
                    Column::Numbers { values, width, j } if field.is_nullable() => {
                        Arc::new(Float64Array::from_iter((0..block.rows).map(|i| {
                            let v = values[i * width + j];
                            (!v.is_nan()).then_some(v)
                        })))
                    }
                    Column::Numbers { values, width, j } => {
                        Arc::new(Float64Array::from_iter_values(
                            (0..block.rows).map(|i| values[i * width + j]),
                        ))
                    }
                    Column::Names { ids, names } => {
                        let mut b = StringBuilder::with_capacity(block.rows, block.rows * 4);
                        ids[..block.rows]
                            .iter()
                            .for_each(|&i| b.append_value(&names[i as usize]));
                        Arc::new(b.finish())
                    }
                    Column::Levels {
                        values,
                        width,
                        j,
                        levels,
                    } => {
                        let mut b = StringBuilder::with_capacity(block.rows, block.rows * 8);
                        (0..block.rows)
                            .for_each(|i| b.append_option(level_of(values[i * width + j], levels)));
                        Arc::new(b.finish())
                    }
                    Column::Text { values, width, j } => {
                        let mut b = StringBuilder::with_capacity(block.rows, block.rows * 8);
                        (0..block.rows).for_each(|i| b.append_value(&values[i * width + j]));
                        Arc::new(b.finish())
                    }
                }
            })
            .collect();
        let batch = RecordBatch::try_new(self.schema.clone(), arrays).map_err(|e| fail(file, e))?;
        self.writer.write(&batch).map_err(|e| fail(file, e))
    }

    /// Writes the footer and returns the sink.
    pub(super) fn finish(self, file: &AtomicFile) -> Result<Sink> {
        self.writer.into_inner().map_err(|e| fail(file, e))
    }
}
