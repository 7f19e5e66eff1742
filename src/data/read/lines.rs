//! A line-oriented CSV tokenizer (RFC 4180).
//!
//! Lines without a quote character, the common case for numeric data, are
//! split on the delimiter in place. A line with quotes is split by a
//! quote-aware pass (`""` is an escaped quote; a quoted field may span lines,
//! so lines are joined while the quote count is odd). CRLF endings and a UTF-8
//! byte-order mark on the first line are accepted. Blank lines are skipped.
//!
//! A line (a record, with the lines a quoted field spans) may be at most
//! [`max_line_bytes`] long: reading stops as soon as it passes that, so one
//! endless line cannot take memory without bound. The first line is
//! checked for what is not UTF-8 CSV at all: UTF-16 text and CR-only (old
//! Mac) line endings are named, with how to convert them.

use std::io::{BufRead, Read};
use std::sync::OnceLock;

use super::parse_err;
use crate::error::{Error, Result};

/// The longest line a CSV may have by default: 16 MiB. No numeric or
/// categorical table comes near it (a million columns of 16 characters),
/// and it bounds what one line can make the reader hold.
pub(super) const DEFAULT_MAX_LINE_BYTES: usize = 16 << 20;

/// The environment variable that raises (or lowers) the line limit.
pub(super) const MAX_LINE_ENV: &str = "RARITY_MAX_LINE_BYTES";

/// The longest line (and so the longest field) a CSV may have, in bytes:
/// `RARITY_MAX_LINE_BYTES` if set to a whole number >= 1, else
/// [`DEFAULT_MAX_LINE_BYTES`].
pub(super) fn max_line_bytes() -> usize {
    static MAX: OnceLock<usize> = OnceLock::new();
    *MAX.get_or_init(|| {
        std::env::var(MAX_LINE_ENV)
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&v| v >= 1)
            .unwrap_or(DEFAULT_MAX_LINE_BYTES)
    })
}

/// The error for a line longer than the limit (`line`: its number, `head`:
/// its first bytes, checked for CR-only endings when it is the first).
pub(super) fn too_long(origin: &str, line: u64, head: &[u8]) -> Error {
    if line == 1 {
        if let Some(why) = not_csv_text(head) {
            return parse_err(origin, why);
        }
    }
    parse_err(
        origin,
        format!(
            "line {line}: longer than {} bytes, the most one line (and so one field) may \
             hold; if the file is right, raise the limit with {MAX_LINE_ENV}=<bytes>",
            max_line_bytes()
        ),
    )
}

/// Why the first line of a file says it is not UTF-8 CSV with LF or CRLF
/// line endings: UTF-16 (a byte-order mark, or NUL bytes), or CR-only
/// line endings (a CR not followed by LF).
pub(super) fn not_csv_text(first: &[u8]) -> Option<String> {
    // UTF-16 text of ASCII characters has a NUL every other byte; a NUL
    // here and there is a binary or damaged file.
    let nuls = first.iter().filter(|&&b| b == 0).count();
    let odd = first.iter().skip(1).step_by(2).filter(|&&b| b == 0).count();
    let alternating = nuls * 4 >= first.len() && (odd * 10 >= nuls * 9 || odd * 10 <= nuls);
    if first.starts_with(b"\xFF\xFE") || first.starts_with(b"\xFE\xFF") || (nuls > 0 && alternating)
    {
        return Some(
            "the file is UTF-16 text, not UTF-8; convert it with: \
             iconv -f UTF-16 -t UTF-8 in.csv > out.csv"
                .to_string(),
        );
    }
    if let Some(at) = first.iter().position(|&b| b == 0) {
        return Some(format!(
            "the first line holds a NUL byte (byte {}): a binary or damaged file, not CSV text",
            at + 1
        ));
    }
    let mut end = first.len();
    while end > 0 && matches!(first[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    first[..end].contains(&b'\r').then(|| {
        "the file uses CR-only (old Mac) line endings; convert them with: \
         tr '\\r' '\\n' < in.csv > out.csv"
            .to_string()
    })
}

/// One record: its first line number and its fields.
#[derive(Debug, Default)]
pub(super) struct Record {
    data: Vec<u8>,
    bounds: Vec<(usize, usize)>,
    /// 1-based line number where the record starts.
    pub line: u64,
}

impl Record {
    /// Number of fields.
    pub fn len(&self) -> usize {
        self.bounds.len()
    }

    /// Field `j` (untrimmed).
    pub fn field(&self, j: usize) -> &[u8] {
        let (a, b) = self.bounds[j];
        &self.data[a..b]
    }

    /// All fields in order.
    pub fn fields(&self) -> impl Iterator<Item = &[u8]> {
        self.bounds.iter().map(|&(a, b)| &self.data[a..b])
    }
}

/// Reads records one at a time.
pub(super) struct Lines<R> {
    reader: R,
    delimiter: u8,
    line_no: u64,
    raw: Vec<u8>,
    origin: String,
    /// Whether the next line is the file's first (checked for UTF-16 and
    /// CR-only endings).
    first: bool,
    /// Bytes examined for quote characters so far: each byte of a record
    /// once, however many lines its quoted fields span (the work a record
    /// costs is linear in its length; tests bound it).
    quote_scanned: u64,
}

impl<R: BufRead> Lines<R> {
    pub fn new(reader: R, delimiter: u8, origin: &str) -> Self {
        Lines {
            first: true,
            ..Lines::starting_at(reader, delimiter, origin, 0)
        }
    }

    /// A reader whose first line is numbered `lines_before + 1`.
    pub fn starting_at(reader: R, delimiter: u8, origin: &str, lines_before: u64) -> Self {
        Lines {
            reader,
            delimiter,
            line_no: lines_before,
            raw: Vec::with_capacity(4096),
            origin: origin.to_string(),
            first: false,
            quote_scanned: 0,
        }
    }

    fn read_line(&mut self, into_raw_end: bool) -> Result<usize> {
        if !into_raw_end {
            self.raw.clear();
        }
        let max = max_line_bytes();
        let room = (max + 1).saturating_sub(self.raw.len()) as u64;
        let n = (&mut self.reader)
            .take(room)
            .read_until(b'\n', &mut self.raw)
            .map_err(|e| parse_err(&self.origin, format!("read failed: {e}")))?;
        if n > 0 {
            self.line_no += 1;
        }
        if self.raw.len() > max && self.raw.last() != Some(&b'\n') {
            let line = if self.first { 1 } else { self.line_no };
            return Err(too_long(&self.origin, line, &self.raw));
        }
        Ok(n)
    }

    /// Whether `raw[from..]` holds an odd number of quote characters.
    fn odd_quotes(&mut self, from: usize) -> bool {
        let tail = &self.raw[from..];
        self.quote_scanned += tail.len() as u64;
        tail.iter().filter(|&&b| b == b'"').count() % 2 == 1
    }

    /// The underlying reader (positioned after the last record read) and the
    /// number of lines consumed so far.
    pub fn into_parts(self) -> (R, u64) {
        (self.reader, self.line_no)
    }

    /// Fills `rec` with the next non-blank record; `false` at end of input.
    pub fn next(&mut self, rec: &mut Record) -> Result<bool> {
        loop {
            if self.read_line(false)? == 0 {
                return Ok(false);
            }
            rec.line = self.line_no;
            if std::mem::take(&mut self.first) {
                if let Some(why) = not_csv_text(&self.raw) {
                    return Err(parse_err(&self.origin, why));
                }
            }
            if self.line_no == 1 && self.raw.starts_with(b"\xEF\xBB\xBF") {
                self.raw.drain(..3);
            }
            let quoted = self.raw.contains(&b'"');
            if quoted {
                // A quoted field spans lines while the record's quote count
                // is odd; only the bytes each line adds are counted.
                let mut open = self.odd_quotes(0);
                while open {
                    let from = self.raw.len();
                    if self.read_line(true)? == 0 {
                        return Err(parse_err(
                            &self.origin,
                            format!("line {}: a quoted field is never closed", rec.line),
                        ));
                    }
                    open ^= self.odd_quotes(from);
                }
            }
            let mut end = self.raw.len();
            while end > 0 && matches!(self.raw[end - 1], b'\n' | b'\r') {
                end -= 1;
            }
            if self.raw[..end].iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            rec.bounds.clear();
            if quoted {
                split_quoted(&self.raw[..end], self.delimiter, rec);
            } else {
                std::mem::swap(&mut rec.data, &mut self.raw);
                let mut start = 0;
                for (i, &b) in rec.data[..end].iter().enumerate() {
                    if b == self.delimiter {
                        rec.bounds.push((start, i));
                        start = i + 1;
                    }
                }
                rec.bounds.push((start, end));
            }
            return Ok(true);
        }
    }
}

/// Splits a line with quotes, unescaping into `rec.data`.
fn split_quoted(line: &[u8], delim: u8, rec: &mut Record) {
    rec.data.clear();
    let mut start = 0;
    let mut in_quotes = false;
    let mut i = 0;
    while i < line.len() {
        let b = line[i];
        if in_quotes {
            if b == b'"' {
                if line.get(i + 1) == Some(&b'"') {
                    rec.data.push(b'"');
                    i += 1;
                } else {
                    in_quotes = false;
                }
            } else {
                rec.data.push(b);
            }
        } else if b == b'"' {
            in_quotes = true;
        } else if b == delim {
            rec.bounds.push((start, rec.data.len()));
            start = rec.data.len();
        } else {
            rec.data.push(b);
        }
        i += 1;
    }
    rec.bounds.push((start, rec.data.len()));
}

/// Fails unless `rec` has `width` fields (the header's count).
pub(super) fn check_width(rec: &Record, width: usize, origin: &str) -> Result<()> {
    if rec.len() != width {
        return Err(parse_err(
            origin,
            format!(
                "line {}: {} fields, but the header has {width}",
                rec.line,
                rec.len()
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(text: &[u8]) -> Vec<(u64, Vec<String>)> {
        let mut l = Lines::new(text, b',', "t");
        let mut rec = Record::default();
        let mut out = Vec::new();
        while l.next(&mut rec).unwrap() {
            let f = rec
                .fields()
                .map(|f| String::from_utf8_lossy(f).into_owned())
                .collect();
            out.push((rec.line, f));
        }
        out
    }

    #[test]
    fn plain_quoted_crlf_and_blank_lines() {
        let r = records(b"\xEF\xBB\xBFa,b\r\n\r\n1,\"x,\"\"y\"\"\"\n\"multi\nline\",2\n3,\n");
        assert_eq!(r[0], (1, vec!["a".into(), "b".into()]));
        assert_eq!(r[1], (3, vec!["1".into(), "x,\"y\"".into()]));
        assert_eq!(r[2], (4, vec!["multi\nline".into(), "2".into()]));
        assert_eq!(r[3], (6, vec!["3".into(), "".into()]));
    }

    #[test]
    fn a_field_of_many_lines_is_read_in_linear_work() {
        // 200,000 line breaks inside one quoted field: each byte of the
        // record is examined for quotes once (re-counting the record at each
        // line, as before, examined 2 * 10^10 bytes).
        let n = 200_000;
        let mut text = b"a,b\n1,\"".to_vec();
        text.extend(std::iter::repeat_n(b'\n', n));
        text.extend_from_slice(b"x\"\"y\",2\n3,4\n");
        let mut l = Lines::new(&text[..], b',', "t");
        let mut rec = Record::default();
        assert!(l.next(&mut rec).unwrap() && l.next(&mut rec).unwrap());
        assert_eq!(rec.line, 2);
        assert_eq!(
            rec.field(1).len(),
            n + 3,
            "the line breaks, x, a quote and y"
        );
        assert!(rec.field(1).ends_with(b"x\"y"));
        assert!(l.next(&mut rec).unwrap());
        assert_eq!((rec.line, rec.field(0)), (n as u64 + 3, &b"3"[..]));
        assert!(
            l.quote_scanned <= text.len() as u64,
            "{} bytes examined for a {}-byte input",
            l.quote_scanned,
            text.len()
        );
    }

    #[test]
    fn unterminated_quote_is_an_error() {
        let mut l = Lines::new(&b"a,\"b\n1,2\n"[..], b',', "t");
        let mut rec = Record::default();
        let e = l.next(&mut rec).unwrap_err().to_string();
        assert!(e.contains("line 1") && e.contains("never closed"), "{e}");
    }
}
