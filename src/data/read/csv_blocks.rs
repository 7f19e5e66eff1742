//! CSV rows into [`Block`]s, fast: the input is cut into blocks at line
//! boundaries, blocks are parsed in parallel (numbers straight into the
//! `f64` buffer, labels and levels interned per block), and handed to the
//! sink in order, so the result and any error are exactly those of a
//! sequential read. A block holding a quote character could hide a line
//! break inside a field, so from the first such block on the rest is read
//! record by record.
//!
//! Memory stays bounded: a batch of a few 1 MiB blocks is in flight at once
//! (two batches: one parsed while the next is read).

use std::io::{BufRead, BufReader, Cursor, Read};

use rayon::prelude::*;

use super::lines::{check_width, max_line_bytes, too_long, Lines, Record};
use super::number::{number, parse_prefix};
use super::quote::quoted;
use super::rows::Sink;
use super::rows::{code, Block, Kind, Layout, LevelOutcome, Role, UNKNOWN};
use super::{is_missing, parse_err, trim};
use crate::error::Result;

const BLOCK: usize = 1 << 20;

/// Rows per block on the record-by-record path.
const SEQUENTIAL_ROWS: usize = 1 << 16;

/// Per source column, what the parser does with it (slot hints applied).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Skip,
    Target,
    /// Skipped unless missing.
    Check,
    /// A number into slot `s`.
    Number(usize),
    /// A level of slot `s` (interned once the whole line is read).
    Level(usize),
    /// Anything else: the general path.
    Other,
}

/// The parser's view of a layout for one batch.
struct Plan<'a> {
    layout: &'a Layout,
    ops: Vec<Op>,
    /// Every column can be parsed on the fast path.
    fast: bool,
    hints: &'a [bool],
    delimiter: u8,
}

impl<'a> Plan<'a> {
    fn new(layout: &'a Layout, hints: &'a [bool], delimiter: u8) -> Self {
        let ops: Vec<Op> = layout
            .roles
            .iter()
            .map(|&r| match r {
                Role::Skip => Op::Skip,
                Role::Target => Op::Target,
                Role::Check => Op::Check,
                Role::Id(_) => Op::Other,
                Role::Feature(s) => {
                    let slot = &layout.slots[s];
                    let numeric = slot.kind == Kind::Number
                        || (matches!(slot.kind, Kind::Either | Kind::NumberOrCategory)
                            && hints.get(s) == Some(&true));
                    if numeric {
                        Op::Number(s)
                    } else if slot.kind == Kind::Time {
                        Op::Other
                    } else {
                        Op::Level(s)
                    }
                }
            })
            .collect();
        let fast = layout.decimal == b'.' && !ops.contains(&Op::Other);
        Plan {
            layout,
            ops,
            fast,
            hints,
            delimiter,
        }
    }
}

/// Parses one record on the general path into `part`.
fn parse_row(rec: &Record, plan: &Plan, row: &mut [f64], part: &mut Block) -> Result<()> {
    let layout = plan.layout;
    let origin = &layout.origin;
    check_width(rec, layout.names.len(), origin)?;
    part.rows_read += 1;
    let line = rec.line;
    let here = || format!("line {line}");
    // Missing values first: a dropped row leaves no label or level behind.
    // A slot whose missing value is kept reads it as NaN.
    let kept = |s: usize| layout.slots[s].missing_ok;
    let mut missing = None;
    let mut kept_here = 0;
    for (j, role) in layout.roles.iter().enumerate() {
        let checked = matches!(*role, Role::Target | Role::Check | Role::Feature(_));
        if checked && is_missing(trim(rec.field(j))) {
            if matches!(*role, Role::Feature(s) if kept(s)) {
                kept_here += 1;
                continue;
            }
            missing = Some(j);
            break;
        }
    }
    if let Some(j) = missing {
        return layout.drop_incomplete(part, &here(), j);
    }
    part.kept_missing += kept_here;
    let mut label = None;
    let ids_start = part.ids.len();
    part.ids
        .resize(ids_start + layout.id_names.len(), String::new());
    let mut unknown = false;
    for (j, role) in layout.roles.iter().enumerate() {
        let f = trim(rec.field(j));
        match *role {
            Role::Skip | Role::Check => {}
            Role::Target => label = Some(f),
            Role::Id(i) => part.ids[ids_start + i] = String::from_utf8_lossy(f).into_owned(),
            Role::Feature(s) if kept_here > 0 && kept(s) && is_missing(f) => row[s] = f64::NAN,
            Role::Feature(s) if layout.slots[s].kind == Kind::Time => {
                row[s] = layout.time_value(&here(), j, f)?;
            }
            Role::Feature(s) => unknown |= parse_feature(f, j, s, line, plan, row, part)?,
        }
    }
    if unknown {
        part.unknown_rows += 1;
    }
    if let Some(t) = label {
        let id = part.label_dict.intern(t).ok_or_else(|| {
            parse_err(
                origin,
                format!("{}: the class label is not valid UTF-8", here()),
            )
        })?;
        part.labels.push(id);
    }
    part.x.extend_from_slice(row);
    Ok(())
}

/// Parses feature field `f` of column `j` (slot `s`) of the record at
/// `line` into `row`: a level's code, or a number. Returns whether the
/// field is a level the layout does not know.
fn parse_feature(
    f: &[u8],
    j: usize,
    s: usize,
    line: u64,
    plan: &Plan,
    row: &mut [f64],
    part: &mut Block,
) -> Result<bool> {
    let layout = plan.layout;
    let origin = &layout.origin;
    let here = || format!("line {line}");
    let mut unknown = false;
    let as_number = match plan.ops[j] {
        Op::Number(_) => true,
        _ => match part.level(layout, s, f, plan.hints.get(s) == Some(&true)) {
            LevelOutcome::Code(c) => {
                row[s] = code(c);
                false
            }
            LevelOutcome::Unknown => {
                unknown = true;
                row[s] = code(UNKNOWN);
                false
            }
            LevelOutcome::AsNumber => true,
            LevelOutcome::Overflow => {
                // Rows so far hold codes; this row is not in `x` yet.
                part.convert_to_numbers(layout, s)?;
                true
            }
            LevelOutcome::TooMany => {
                return Err(layout.too_many_levels(s, std::str::from_utf8(f).ok()))
            }
            LevelOutcome::NotUtf8 => {
                return Err(parse_err(
                    origin,
                    format!("{}, column '{}': not valid UTF-8", here(), layout.names[j]),
                ))
            }
        },
    };
    if as_number {
        match number(f, layout.decimal) {
            Ok(Some(v)) => row[s] = v,
            Ok(None) if matches!(layout.slots[s].kind, Kind::Either | Kind::NumberOrCategory) => {
                return Err(layout.too_many_levels(s, std::str::from_utf8(f).ok()))
            }
            Ok(None) => return Err(layout.not_a_number(&here(), j, f)),
            Err(()) => {
                return Err(parse_err(
                    origin,
                    format!(
                        "{}, column '{}': '{}' is not a finite number; \
                             mark missing values with an empty field or '?'",
                        here(),
                        layout.names[j],
                        quoted(f)
                    ),
                ))
            }
        }
    }
    Ok(unknown)
}

/// A level field of a line on the fast path: (source column, slot, byte
/// range in the line).
type LevelField = (usize, usize, (usize, usize));

/// Parses the line starting at `text[0]` on the fast path: every numeric
/// feature field a plain decimal with no surrounding spaces, a non-empty
/// label and level fields, skipped fields free of quotes, the right field
/// count, then `\n`, `\r\n` or the end. Returns the label's byte range and
/// the length of the line including its newline, or `None` to send the line
/// to the general path. Level fields are only found (into `levels`), not
/// interned: a line sent to the general path leaves no level behind.
#[inline]
fn fast_line(
    text: &[u8],
    plan: &Plan,
    row: &mut [f64],
    levels: &mut Vec<LevelField>,
) -> Option<((usize, usize), usize)> {
    let width = plan.ops.len();
    let delim = plan.delimiter;
    let mut i = 0;
    let mut label = (0, 0);
    levels.clear();
    for (j, op) in plan.ops.iter().enumerate() {
        match *op {
            Op::Number(s) => {
                let (v, n) = parse_prefix(&text[i..])?;
                row[s] = v;
                i += n;
            }
            Op::Target | Op::Skip | Op::Check | Op::Level(_) => {
                let start = i;
                while i < text.len() && !matches!(text[i], b'\n' | b'\r') && text[i] != delim {
                    i += 1;
                }
                let field = &text[start..i];
                if *op != Op::Skip
                    && (matches!(field, b"" | b"?" | b"NA")
                        || field.first().is_some_and(u8::is_ascii_whitespace)
                        || field.last().is_some_and(u8::is_ascii_whitespace))
                {
                    // Possibly missing: the general path decides.
                    return None;
                }
                match *op {
                    Op::Target => label = (start, i),
                    Op::Level(s) => levels.push((j, s, (start, i))),
                    _ => {}
                }
            }
            Op::Other => return None,
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

/// Parses a block of whole lines into `part`, which is reset first (its
/// buffers are reused), line by line on the fast path where it can, the
/// general tokenizer otherwise. Error messages count lines from
/// `lines_before`. A block holding a quote character is left unparsed
/// (`Ok(false)`): a quoted field may span the block's edge.
fn parse_block(block: &[u8], lines_before: u64, plan: &Plan, part: &mut Block) -> Result<bool> {
    if block.contains(&b'"') {
        return Ok(false);
    }
    let layout = plan.layout;
    let m = layout.slots.len();
    part.reset(layout);
    let rows = block.len() / (8 * layout.names.len()).max(1) + 1;
    part.x.reserve(rows * m);
    part.labels.reserve(rows);
    let mut row = vec![0.0f64; m];
    if !plan.fast {
        // Every line takes the general path: one tokenizer for the block.
        let mut l = Lines::starting_at(block, plan.delimiter, &layout.origin, lines_before);
        let mut rec = Record::default();
        while l.next(&mut rec)? {
            parse_row(&rec, plan, &mut row, part)?;
        }
        part.lines = l.into_parts().1 - lines_before;
        part.bytes = block.len();
        return Ok(true);
    }
    let mut last: (&[u8], u32) = (&[], u32::MAX);
    let mut pos = 0;
    let mut line_no = lines_before;
    let has_target = layout.target.is_some();
    let mut levels = Vec::new();
    while pos < block.len() {
        line_no += 1;
        let text = &block[pos..];
        match fast_line(text, plan, &mut row, &mut levels) {
            Some(((a, b), len)) => {
                let mut unknown = false;
                for &(j, s, (a, b)) in &levels {
                    unknown |= parse_feature(&text[a..b], j, s, line_no, plan, &mut row, part)?;
                }
                if unknown {
                    part.unknown_rows += 1;
                }
                if has_target {
                    let label = &text[a..b];
                    let id = if label == last.0 {
                        part.label_dict.repeat(last.1)
                    } else {
                        let id = part.label_dict.intern(label).ok_or_else(|| {
                            parse_err(
                                &layout.origin,
                                format!("line {line_no}: the class label is not valid UTF-8"),
                            )
                        })?;
                        last = (label, id);
                        id
                    };
                    part.labels.push(id);
                }
                part.rows_read += 1;
                part.x.extend_from_slice(&row);
                pos += len;
            }
            None => {
                let end = text
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(text.len(), |e| e + 1);
                let mut l =
                    Lines::starting_at(&text[..end], plan.delimiter, &layout.origin, line_no - 1);
                let mut rec = Record::default();
                if l.next(&mut rec)? {
                    parse_row(&rec, plan, &mut row, part)?;
                }
                pos += end;
            }
        }
    }
    part.lines = line_no - lines_before;
    part.bytes = block.len();
    Ok(true)
}

/// Reads one block into `buf` (whose allocation is reused): what `carry`
/// holds, then up to `BLOCK` bytes plus whatever completes the last line;
/// bytes after the last line break go back to `carry`. Returns `false` at
/// the end of input, [`Read::Long`] when the block's first line is longer
/// than [`max_line_bytes`] (reading stops there: `buf` holds its start).
fn read_block<R: Read>(
    reader: &mut R,
    carry: &mut Vec<u8>,
    buf: &mut Vec<u8>,
    origin: &str,
) -> Result<Filled> {
    buf.clear();
    buf.append(carry);
    let max = max_line_bytes();
    loop {
        if buf.len() > max {
            // No line break yet: `buf` is one line.
            return Ok(Filled::Long);
        }
        let before = buf.len();
        buf.reserve(BLOCK);
        reader
            .by_ref()
            .take(BLOCK as u64)
            .read_to_end(buf)
            .map_err(|e| parse_err(origin, format!("read failed: {e}")))?;
        let eof = buf.len() == before;
        if eof {
            if buf.len() > max {
                return Ok(Filled::Long);
            }
            return Ok(if buf.is_empty() {
                Filled::End
            } else {
                Filled::Block
            });
        }
        if let Some(pos) = buf[before..].iter().rposition(|&b| b == b'\n') {
            carry.extend_from_slice(&buf[before + pos + 1..]);
            buf.truncate(before + pos + 1);
            return Ok(Filled::Block);
        }
    }
}

/// What [`read_block`] read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Filled {
    /// A block of whole lines.
    Block,
    /// Nothing: the input has ended.
    End,
    /// The start of a line longer than the limit.
    Long,
}

/// Blocks read ahead of the parser; their buffers are reused.
struct Batch {
    blocks: Vec<Vec<u8>>,
    filled: usize,
    /// The input ended while filling this batch.
    eof: bool,
    /// `blocks[filled]` holds the start of a line longer than the limit,
    /// the line after the filled blocks (reading stopped there).
    long: bool,
}

impl Batch {
    fn new(size: usize) -> Self {
        Batch {
            blocks: vec![Vec::new(); size],
            filled: 0,
            eof: false,
            long: false,
        }
    }

    /// Reads blocks until the batch is full or the input ends.
    fn fill<R: Read>(&mut self, reader: &mut R, carry: &mut Vec<u8>, origin: &str) -> Result<()> {
        self.filled = 0;
        while self.filled < self.blocks.len() {
            match read_block(reader, carry, &mut self.blocks[self.filled], origin)? {
                Filled::Block => self.filled += 1,
                Filled::End => {
                    self.eof = true;
                    break;
                }
                Filled::Long => {
                    self.eof = true;
                    self.long = true;
                    break;
                }
            }
        }
        Ok(())
    }
}

/// Parses records one at a time, handing the sink a block every
/// [`SEQUENTIAL_ROWS`] rows.
fn sequential<R: BufRead>(
    lines: &mut Lines<R>,
    first: Option<&Record>,
    layout: &Layout,
    delimiter: u8,
    sink: &mut dyn Sink,
) -> Result<()> {
    let hints = sink.numeric_slots().to_vec();
    let plan = Plan::new(layout, &hints, delimiter);
    let mut part = Block::new(layout);
    let mut row = vec![0.0f64; layout.slots.len()];
    if let Some(rec) = first {
        parse_row(rec, &plan, &mut row, &mut part)?;
    }
    let mut rec = Record::default();
    while lines.next(&mut rec)? {
        parse_row(&rec, &plan, &mut row, &mut part)?;
        if part.rows_read >= SEQUENTIAL_ROWS {
            sink.take(&mut part)?;
            part.reset(layout);
        }
    }
    if part.rows_read > 0 {
        sink.take(&mut part)?;
    }
    Ok(())
}

/// Reads every data record after the header (`first`: a record already
/// read that is data), handing the sink the blocks in order.
pub(super) fn read_blocks<R: Read + Send>(
    lines: Lines<BufReader<R>>,
    first: Option<&Record>,
    layout: &Layout,
    delimiter: u8,
    sink: &mut dyn Sink,
) -> Result<()> {
    let origin = layout.origin.as_str();
    if let Some(rec) = first {
        let mut none = Lines::new(&b""[..], delimiter, origin);
        sequential(&mut none, Some(rec), layout, delimiter, sink)?;
    }
    let (mut reader, mut line_no) = lines.into_parts();
    // Each block in flight: its text, and its values once parsed (about as
    // many bytes again, for short fields several times more), in two
    // batches; at most a sixteenth of the memory available.
    let batch = crate::limits::in_flight(16 * BLOCK as u64, 2 * rayon::current_num_threads());
    // While one batch is parsed (in parallel), the next one is read.
    let (mut cur, mut next) = (Batch::new(batch), Batch::new(batch));
    let mut parts: Vec<Block> = (0..batch).map(|_| Block::new(layout)).collect();
    let mut carry = Vec::new();
    cur.fill(&mut reader, &mut carry, origin)?;
    loop {
        let filled = cur.filled;
        let hints = sink.numeric_slots().to_vec();
        let plan = Plan::new(layout, &hints, delimiter);
        let (results, read) = rayon::join(
            || {
                cur.blocks[..filled]
                    .par_iter()
                    .zip(parts[..filled].par_iter_mut())
                    .map(|(block, part)| parse_block(block, 0, &plan, part))
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
                Err(_) => parse_block(block, line_no, &plan, part)?,
            };
            if !ok {
                break;
            }
            line_no += part.lines;
            parsed += 1;
        }
        for part in &mut parts[..parsed] {
            sink.take(part)?;
        }
        read?;
        if parsed < filled {
            // A quote: the rest of the input is read record by record.
            let mut pending = Vec::new();
            let long = |b: &Batch| usize::from(b.long);
            for block in cur.blocks[parsed..filled + long(&cur)]
                .iter()
                .chain(&next.blocks[..next.filled + long(&next)])
            {
                pending.extend_from_slice(block);
            }
            pending.append(&mut carry);
            let rest = Cursor::new(pending).chain(reader);
            let mut l = Lines::starting_at(
                BufReader::with_capacity(1 << 20, rest),
                delimiter,
                origin,
                line_no,
            );
            return sequential(&mut l, None, layout, delimiter, sink);
        }
        if cur.long {
            return Err(too_long(origin, line_no + 1, &cur.blocks[filled]));
        }
        if cur.eof {
            return Ok(());
        }
        std::mem::swap(&mut cur, &mut next);
    }
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
            e.contains("line 200003") && e.contains("'multi\\nline'"),
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

    /// Level fields read on the fast path give what the record-by-record
    /// path gives (a quote in the first line sends every line there):
    /// trimmed levels, and none left behind by a line the fast path hands
    /// over (a padded level) or by a row dropped for its missing label.
    #[test]
    fn fast_level_fields_read_as_the_general_path() {
        let mut s = String::from("n,shop,class\n");
        for i in 0..120_000 {
            let shop = match i % 1000 {
                3 => "  s3 ".to_string(),
                500 => "only-dropped".to_string(),
                _ => format!("s{}", i * 7919 % 613),
            };
            let class = if i % 1000 == 500 {
                ""
            } else {
                ["a", "b"][i % 2]
            };
            s.push_str(&format!("{}.5,{shop},{class}\n", i % 89));
        }
        let opts = ReadOptions {
            categorical: crate::data::read::Categorical::Native,
            ..ReadOptions::default()
        };
        let fast = read_from(s.as_bytes(), "t", Format::Csv, 0, &opts).unwrap();
        let quoted = s.replacen("\n0.5,", "\n\"0.5\",", 1);
        let general = read_from(quoted.as_bytes(), "t", Format::Csv, 0, &opts).unwrap();
        assert_eq!(fast.1.dropped_missing, 120);
        assert_eq!(fast.0.schema(), general.0.schema());
        assert_eq!(fast.0.n_rows(), general.0.n_rows());
        for i in 0..fast.0.n_rows() {
            assert_eq!(fast.0.row(i), general.0.row(i), "row {i}");
            assert_eq!(fast.0.label(i), general.0.label(i), "row {i}");
        }
        let crate::data::ColumnEncoding::Categorical { levels, .. } = &fast.0.schema().encodings[1]
        else {
            panic!("shop is not categorical");
        };
        assert!(levels.iter().any(|l| l == "s3"));
        assert!(!levels
            .iter()
            .any(|l| l.contains("dropped") || l.contains(' ')));
    }

    #[test]
    fn one_hot_columns_decided_across_blocks() {
        // Column `c` is text only near the end; `n` has many numbers.
        let mut s = String::from("n,c,class\n");
        for i in 0..200_000 {
            let c = if i == 199_990 {
                "x".to_string()
            } else {
                (i % 3).to_string()
            };
            s.push_str(&format!("{},{c},{}\n", i % 1000, u8::from(i % 7 == 0)));
        }
        let opts = ReadOptions {
            categorical: crate::data::read::Categorical::OneHot,
            ..ReadOptions::default()
        };
        let (ds, _) = read_from(s.as_bytes(), "t", Format::Csv, 0, &opts).unwrap();
        assert_eq!(ds.feature_names(), &["n", "c=0", "c=1", "c=2", "c=x"]);
        assert_eq!(ds.row(5), &[5.0, 0.0, 0.0, 1.0, 0.0]);
        assert_eq!(ds.row(199_990), &[990.0, 0.0, 0.0, 0.0, 1.0]);
        // A text value in a column of more than 50 numbers is too many levels.
        let bad = s.replacen("\n7,", "\nseven,", 1);
        let e = read_from(bad.as_bytes(), "t", Format::Csv, 0, &opts)
            .unwrap_err()
            .to_string();
        assert!(e.contains("column 'n'") && e.contains("--drop n"), "{e}");
    }
}
