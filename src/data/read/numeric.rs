//! The fast path for all-numeric CSV: the input is cut into blocks at line
//! boundaries, blocks are parsed in parallel (each straight into an `f64`
//! buffer with its labels interned), and the parts are joined in order, so
//! the result and any error are exactly those of a sequential read. A block
//! holding a quote character could hide a line break inside a field, so from
//! the first such block on the rest is read sequentially.
//!
//! Memory stays bounded: a batch of a few 1 MiB blocks is in flight at once,
//! and the feature buffer is reserved from the file size up front.

use std::io::{BufRead, BufReader, Cursor, Read};

use rayon::prelude::*;

use super::labels::Labels;
use super::lines::{check_width, Lines, Record};
use super::number::parse_prefix;
use super::{is_missing, parse_err, parse_number, trim, Missing, ReadOptions, ReadReport};
use crate::error::Result;

const BLOCK: usize = 1 << 20;

/// The column layout of a numeric CSV, shared by the row parsers.
pub(super) struct Columns<'a> {
    pub names: &'a [String],
    pub target: usize,
    pub origin: &'a str,
    pub opts: &'a ReadOptions,
}

/// Rows parsed from one stretch of input.
#[derive(Default)]
struct Part {
    x: Vec<f64>,
    raw_y: Vec<u32>,
    labels: Labels,
    rows_read: usize,
    dropped: usize,
    /// Lines the part spans (for numbering the lines of later parts).
    lines: u64,
}

impl Part {
    /// Empties the part, keeping its buffers' allocations.
    fn clear(&mut self) {
        self.x.clear();
        self.raw_y.clear();
        self.labels = Labels::default();
        self.rows_read = 0;
        self.dropped = 0;
        self.lines = 0;
    }
}

/// Parses every record `lines` yields (plus `first`, a record already read).
fn parse_part<R: BufRead>(
    lines: &mut Lines<R>,
    first: Option<&Record>,
    cols: &Columns,
    reserve_rows: usize,
) -> Result<Part> {
    let width = cols.names.len();
    let d = width - 1;
    let mut part = Part {
        x: Vec::with_capacity(reserve_rows * d),
        raw_y: Vec::with_capacity(reserve_rows),
        ..Part::default()
    };
    let mut row_buf = vec![0.0f64; d];
    if let Some(rec) = first {
        parse_row(rec, cols, &mut row_buf, &mut part)?;
    }
    let mut rec = Record::default();
    while lines.next(&mut rec)? {
        parse_row(&rec, cols, &mut row_buf, &mut part)?;
    }
    Ok(part)
}

fn parse_row(rec: &Record, cols: &Columns, row_buf: &mut [f64], part: &mut Part) -> Result<()> {
    let (names, origin) = (cols.names, cols.origin);
    check_width(rec, names.len(), origin)?;
    part.rows_read += 1;
    let line = rec.line;
    let mut missing_col = None;
    let mut out = 0;
    for (j, field) in rec.fields().enumerate() {
        if j == cols.target {
            continue;
        }
        let f = trim(field);
        if is_missing(f) {
            missing_col.get_or_insert(j);
        } else {
            match parse_number(f, origin, line, &names[j])? {
                Some(v) => row_buf[out] = v,
                None => {
                    return Err(parse_err(
                        origin,
                        format!(
                            "line {line}, column '{}': '{}' is not a number; \
                             use --categorical one-hot to encode text columns",
                            names[j],
                            String::from_utf8_lossy(f)
                        ),
                    ))
                }
            }
        }
        out += 1;
    }
    let t = trim(rec.field(cols.target));
    if is_missing(t) {
        missing_col.get_or_insert(cols.target);
    }
    if let Some(j) = missing_col {
        if cols.opts.missing == Missing::Error {
            return Err(parse_err(
                origin,
                format!("line {line}, column '{}': missing value", names[j]),
            ));
        }
        part.dropped += 1;
        return Ok(());
    }
    part.raw_y.push(part.labels.intern(t, origin, line)?);
    part.x.extend_from_slice(row_buf);
    Ok(())
}

/// Parses the line starting at `text[0]` on the fast path: every feature
/// field a plain decimal with no surrounding spaces, a non-empty label, the
/// right field count, then `\n`, `\r\n` or the end. Returns the label's
/// byte range and the length of the line including its newline, or `None`
/// to send the line to the general path (quotes, spaces, missing values,
/// odd numbers, errors).
#[inline]
fn fast_line(text: &[u8], cols: &Columns, row_buf: &mut [f64]) -> Option<((usize, usize), usize)> {
    let width = cols.names.len();
    let delim = cols.opts.delimiter;
    let mut i = 0;
    let mut out = 0;
    let mut label = (0, 0);
    for j in 0..width {
        if j == cols.target {
            let start = i;
            while i < text.len() && !matches!(text[i], b'\n' | b'\r') && text[i] != delim {
                i += 1;
            }
            if i == start {
                return None;
            }
            label = (start, i);
        } else {
            let (v, n) = parse_prefix(&text[i..])?;
            row_buf[out] = v;
            out += 1;
            i += n;
        }
        if j + 1 < width {
            if text.get(i) != Some(&delim) {
                return None;
            }
            i += 1;
        }
    }
    match (text.get(i), text.get(i + 1)) {
        (None, _) => Some((label, i)),
        (Some(b'\n'), _) => Some((label, i + 1)),
        (Some(b'\r'), Some(b'\n')) => Some((label, i + 2)),
        (Some(b'\r'), None) => Some((label, i + 1)),
        _ => None,
    }
}

/// Parses a block of whole lines into `part`, which is cleared first (its
/// buffers are reused), line by line on the fast path, falling back to the
/// general tokenizer for any other line. Error messages count lines from
/// `lines_before`. A block holding a quote character is left unparsed
/// (`Ok(false)`): a quoted field may span the block's edge.
fn parse_block(block: &[u8], lines_before: u64, cols: &Columns, part: &mut Part) -> Result<bool> {
    if block.contains(&b'"') {
        return Ok(false);
    }
    let d = cols.names.len() - 1;
    let rows = block.len() / (8 * cols.names.len()).max(1) + 1;
    part.clear();
    part.x.reserve(rows * d);
    part.raw_y.reserve(rows);
    let mut row_buf = vec![0.0f64; d];
    let mut last: (&[u8], u32) = (&[], u32::MAX);
    let mut pos = 0;
    let mut line_no = lines_before;
    while pos < block.len() {
        line_no += 1;
        let text = &block[pos..];
        match fast_line(text, cols, &mut row_buf) {
            Some(((a, b), len)) => {
                let label = &text[a..b];
                let id = if label == last.0 {
                    part.labels.repeat(last.1)
                } else {
                    let id = part.labels.intern(label, cols.origin, line_no)?;
                    last = (label, id);
                    id
                };
                part.rows_read += 1;
                part.raw_y.push(id);
                part.x.extend_from_slice(&row_buf);
                pos += len;
            }
            None => {
                let end = text
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(text.len(), |e| e + 1);
                let mut l =
                    Lines::starting_at(&text[..end], cols.opts.delimiter, cols.origin, line_no - 1);
                let mut rec = Record::default();
                if l.next(&mut rec)? {
                    parse_row(&rec, cols, &mut row_buf, part)?;
                }
                pos += end;
            }
        }
    }
    part.lines = line_no - lines_before;
    Ok(true)
}

/// Reads one block into `buf` (whose allocation is reused): what `carry`
/// holds, then up to `BLOCK` bytes plus whatever completes the last line;
/// bytes after the last line break go back to `carry`. Returns `false` at
/// the end of input.
fn read_block<R: Read>(
    reader: &mut R,
    carry: &mut Vec<u8>,
    buf: &mut Vec<u8>,
    origin: &str,
) -> Result<bool> {
    buf.clear();
    buf.append(carry);
    loop {
        let before = buf.len();
        buf.reserve(BLOCK);
        reader
            .by_ref()
            .take(BLOCK as u64)
            .read_to_end(buf)
            .map_err(|e| parse_err(origin, format!("read failed: {e}")))?;
        let eof = buf.len() == before;
        if eof {
            return Ok(!buf.is_empty());
        }
        if let Some(pos) = buf[before..].iter().rposition(|&b| b == b'\n') {
            carry.extend_from_slice(&buf[before + pos + 1..]);
            buf.truncate(before + pos + 1);
            return Ok(true);
        }
    }
}

/// Blocks read ahead of the parser; their buffers are reused.
struct Batch {
    blocks: Vec<Vec<u8>>,
    filled: usize,
    /// The input ended while filling this batch.
    eof: bool,
}

impl Batch {
    fn new(size: usize) -> Self {
        Batch {
            blocks: vec![Vec::new(); size],
            filled: 0,
            eof: false,
        }
    }

    /// Reads blocks until the batch is full or the input ends.
    fn fill<R: Read>(&mut self, reader: &mut R, carry: &mut Vec<u8>, origin: &str) -> Result<()> {
        self.filled = 0;
        while self.filled < self.blocks.len() {
            if !read_block(reader, carry, &mut self.blocks[self.filled], origin)? {
                self.eof = true;
                break;
            }
            self.filled += 1;
        }
        Ok(())
    }
}

/// Appends the rows of `parts` to `x`, copying the parts in parallel into
/// the reserved tail of `x`.
fn append_rows(x: &mut Vec<f64>, parts: &[Part]) {
    let total: usize = parts.iter().map(|p| p.x.len()).sum();
    x.reserve(total);
    let mut tail = &mut x.spare_capacity_mut()[..total];
    let mut pieces = Vec::with_capacity(parts.len());
    for p in parts {
        let (head, rest) = tail.split_at_mut(p.x.len());
        pieces.push((head, &p.x[..]));
        tail = rest;
    }
    pieces.into_par_iter().for_each(|(dst, src)| {
        for (d, &v) in dst.iter_mut().zip(src) {
            d.write(v);
        }
    });
    let len = x.len() + total;
    // SAFETY: the `total` elements after the old length were all written
    // above (the pieces tile that range), and capacity was reserved for them.
    unsafe { x.set_len(len) };
}

/// Reads all data records after the header.
///
/// Returns the features (row-major), raw label ids, the label table and the
/// read report.
pub(super) fn read_numeric<R: Read + Send>(
    lines: Lines<BufReader<R>>,
    first: Option<&Record>,
    cols: &Columns,
    size_hint: u64,
) -> Result<(Vec<f64>, Vec<u32>, Labels, ReadReport)> {
    let d = cols.names.len() - 1;
    let origin = cols.origin;
    let (mut reader, mut line_no) = lines.into_parts();
    let mut x: Vec<f64> = Vec::new();
    let mut raw_y: Vec<u32> = Vec::new();
    let mut labels = Labels::default();
    let mut report = ReadReport::default();
    let mut absorb = |part: &mut Part, raw_y: &mut Vec<u32>| {
        let map = labels.merge(std::mem::take(&mut part.labels));
        raw_y.extend(part.raw_y.iter().map(|&r| map[r as usize]));
        report.rows_read += part.rows_read;
        report.dropped_missing += part.dropped;
    };
    if let Some(rec) = first {
        let mut none = Lines::new(&b""[..], cols.opts.delimiter, origin);
        let mut part = parse_part(&mut none, Some(rec), cols, 1)?;
        x.extend_from_slice(&part.x);
        absorb(&mut part, &mut raw_y);
    }
    let batch = 2 * rayon::current_num_threads().max(1);
    // While one batch is parsed (in parallel), the next one is read.
    let (mut cur, mut next) = (Batch::new(batch), Batch::new(batch));
    let mut parts: Vec<Part> = (0..batch).map(|_| Part::default()).collect();
    let mut carry = Vec::new();
    cur.fill(&mut reader, &mut carry, origin)?;
    if size_hint > 0 && cur.filled > 0 {
        let b = &cur.blocks[0];
        let row_bytes = b.iter().position(|&c| c == b'\n').unwrap_or(b.len()) + 1;
        let rows = (size_hint / row_bytes as u64 + 16) as usize;
        x.reserve_exact(rows.saturating_mul(d).min(1 << 31));
        raw_y.reserve_exact(rows.min(1 << 28));
    }
    loop {
        let filled = cur.filled;
        let (results, read) = rayon::join(
            || {
                cur.blocks[..filled]
                    .par_iter()
                    .zip(parts[..filled].par_iter_mut())
                    .map(|(block, part)| parse_block(block, 0, cols, part))
                    .collect::<Vec<_>>()
            },
            || {
                if cur.eof {
                    next.filled = 0;
                    Ok(())
                } else {
                    next.fill(&mut reader, &mut carry, origin)
                }
            },
        );
        let mut parsed = 0;
        for ((r, block), part) in results.into_iter().zip(&cur.blocks).zip(&mut parts) {
            // Line numbers are only known once earlier blocks are counted:
            // a failing block is parsed again from its true first line.
            let ok = match r {
                Ok(ok) => ok,
                Err(_) => parse_block(block, line_no, cols, part)?,
            };
            if !ok {
                break;
            }
            line_no += part.lines;
            parsed += 1;
        }
        append_rows(&mut x, &parts[..parsed]);
        for part in &mut parts[..parsed] {
            absorb(part, &mut raw_y);
        }
        read?;
        if parsed < filled {
            // A quote: the rest of the input is read record by record.
            let mut pending = Vec::new();
            for block in cur.blocks[parsed..filled]
                .iter()
                .chain(&next.blocks[..next.filled])
            {
                pending.extend_from_slice(block);
            }
            pending.append(&mut carry);
            let rest = Cursor::new(pending).chain(reader);
            let mut l = Lines::starting_at(
                BufReader::with_capacity(1 << 20, rest),
                cols.opts.delimiter,
                origin,
                line_no,
            );
            let mut part = parse_part(&mut l, None, cols, 0)?;
            x.extend_from_slice(&part.x);
            absorb(&mut part, &mut raw_y);
            break;
        }
        if cur.eof {
            break;
        }
        std::mem::swap(&mut cur, &mut next);
    }
    Ok((x, raw_y, labels, report))
}

#[cfg(test)]
mod tests {
    use crate::data::read::{read_from, Format, ReadOptions};

    /// About 6 MB of CSV: several blocks and batches.
    fn big(rows: usize) -> String {
        let mut s = String::from("a,b,c,class\n");
        for i in 0..rows {
            s.push_str(&format!(
                "{}.25,-{},{}e-3,{}\n",
                i,
                i % 97,
                i % 13,
                u8::from(i % 10 == 0)
            ));
        }
        s
    }

    fn read(text: &str) -> crate::Result<crate::Dataset> {
        read_from(
            text.as_bytes(),
            "t",
            Format::Csv,
            text.len() as u64,
            &ReadOptions::default(),
        )
        .map(|r| r.0)
    }

    #[test]
    fn blocks_join_in_order() {
        let rows = 300_000;
        let ds = read(&big(rows)).unwrap();
        assert_eq!(ds.n_rows(), rows);
        for i in [0, 1, 77_777, rows - 1] {
            assert_eq!(
                ds.row(i),
                &[
                    i as f64 + 0.25,
                    -((i % 97) as f64),
                    (i % 13) as f64 / 1000.0
                ]
            );
            assert_eq!(ds.label(i), usize::from(i % 10 == 0));
        }
    }

    #[test]
    fn errors_in_late_blocks_have_true_line_numbers() {
        let mut text = big(300_000);
        let needle = "\n250000.25,";
        let at = text.find(needle).unwrap() + 1;
        text.insert_str(at, "oops,");
        let e = read(&text).unwrap_err().to_string();
        // Row 250000 sits on line 250002 (header is line 1).
        assert!(e.contains("line 250002"), "{e}");
        assert!(e.contains("5 fields"), "{e}");
    }

    #[test]
    fn late_quotes_switch_to_sequential_reading() {
        let mut text = big(300_000);
        let at = text.find("\n200000.25,").unwrap() + 1;
        text.insert_str(at, "\"7\",\"-1\",\"0\",\"1\"\n\"multi\nline\",1,2,0\n");
        let e = read(&text).unwrap_err().to_string();
        // The multi-line quoted field is one record starting on line 200003.
        assert!(
            e.contains("line 200003") && e.contains("'multi\nline'"),
            "{e}"
        );
        text = text.replace("\"multi\nline\",1,2,0\n", "");
        let ds = read(&text).unwrap();
        assert_eq!(ds.n_rows(), 300_001);
        assert_eq!(ds.row(200_000), &[7.0, -1.0, 0.0]);
        assert_eq!(
            ds.row(300_000),
            &[
                299_999.25,
                -((299_999 % 97) as f64),
                (299_999 % 13) as f64 / 1000.0
            ]
        );
    }
}
