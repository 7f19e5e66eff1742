//! The CSV encoder: rows formatted in parallel pieces into reused byte
//! buffers (numbers by [`push_f64`], text quoted when it must be), written
//! in order.

use std::io::Write;

use rayon::prelude::*;

use super::block::{level_of, Block, Column, ColumnSpec};
use super::number::push_f64;
use super::{quote, AtomicFile};
use crate::error::Result;

/// Rows formatted by one task.
const PIECE_ROWS: usize = 8192;

pub(super) struct CsvEncoder {
    buffers: Vec<Vec<u8>>,
}

impl CsvEncoder {
    /// Writes the header.
    pub(super) fn new(columns: &[ColumnSpec], file: &mut AtomicFile) -> Result<Self> {
        let header: Vec<String> = columns.iter().map(|c| quote(&c.name)).collect();
        let mut line = header.join(",");
        line.push('\n');
        file.writer()
            .write_all(line.as_bytes())
            .map_err(|e| file.err(e))?;
        Ok(CsvEncoder {
            buffers: Vec::new(),
        })
    }

    pub(super) fn write(&mut self, block: &Block, file: &mut AtomicFile) -> Result<()> {
        // Names are quoted once per block, not once per row.
        let quoted: Vec<Option<Vec<Vec<u8>>>> = block
            .columns
            .iter()
            .map(|c| match c {
                Column::Names { names, .. } => {
                    Some(names.iter().map(|n| quote(n).into_bytes()).collect())
                }
                _ => None,
            })
            .collect();
        let pieces = block.rows.div_ceil(PIECE_ROWS);
        // A batch of pieces is formatted in parallel, then written in order.
        let each = (PIECE_ROWS * block.columns.len().max(1) * 24) as u64;
        let batch = crate::limits::in_flight(each, 4 * rayon::current_num_threads());
        if self.buffers.len() < batch {
            self.buffers.resize_with(batch, Vec::new);
        }
        for first in (0..pieces).step_by(batch) {
            let last = (first + batch).min(pieces);
            self.buffers[..last - first]
                .par_iter_mut()
                .enumerate()
                .for_each(|(i, buf)| {
                    let a = (first + i) * PIECE_ROWS;
                    let b = (a + PIECE_ROWS).min(block.rows);
                    buf.clear();
                    format_rows(block, &quoted, a..b, buf);
                });
            for buf in &self.buffers[..last - first] {
                file.writer().write_all(buf).map_err(|e| file.err(e))?;
            }
        }
        Ok(())
    }
}

fn format_rows(
    block: &Block,
    quoted: &[Option<Vec<Vec<u8>>>],
    rows: std::ops::Range<usize>,
    buf: &mut Vec<u8>,
) {
    for i in rows {
        for (c, col) in block.columns.iter().enumerate() {
            if c > 0 {
                buf.push(b',');
            }
            match col {
                // A missing value (NaN) is an empty field, as the readers
                // read one.
                Column::Numbers { values, width, j } => {
                    let v = values[i * width + j];
                    if !v.is_nan() {
                        push_f64(buf, v);
                    }
                }
                Column::Names { ids, .. } => {
                    let names = quoted[c].as_ref().expect("names quoted");
                    buf.extend_from_slice(&names[ids[i] as usize]);
                }
                Column::Text { values, width, j } => push_text(buf, &values[i * width + j]),
                Column::Levels {
                    values,
                    width,
                    j,
                    levels,
                } => {
                    if let Some(s) = level_of(values[i * width + j], levels) {
                        push_text(buf, s);
                    }
                }
            }
        }
        buf.push(b'\n');
    }
}

/// `s`, quoted when it must be.
fn push_text(buf: &mut Vec<u8>, s: &str) {
    if s.contains([',', '"', '\n', '\r']) {
        buf.extend_from_slice(quote(s).as_bytes());
    } else {
        buf.extend_from_slice(s.as_bytes());
    }
}
