//! Text that is safe to print to a terminal: the control characters a
//! file can carry in its names (column names, labels, levels, spec strings
//! and class names of model files, file names of a data folder) escaped, so
//! that printing them cannot move the cursor, clear the screen, set the
//! window title, rewrite a line (a carriage return) or reorder what is
//! shown.
//!
//! Escaped: every C0 control and DEL (U+0000-U+001F, U+007F), every C1
//! control (U+0080-U+009F: U+009B is CSI, and U+009D OSC, to terminals that
//! honour 8-bit controls), and the bidirectional embeddings, overrides and
//! isolates (U+202A-U+202E, U+2066-U+2069), which reorder the text around
//! them (CVE-2021-42574). Each becomes `\u{..}` (`\0`, `\n`, `\r`, `\t` for
//! those four), the notation the readers' error messages already use for a
//! field; every other character, non-ASCII letters included, is kept. This
//! is GNU `ls -b` and git's quoting of paths, without their quotes.
//!
//! Every text renderer goes through here: a table's cells
//! ([`crate::report::table::Table::to_text`]) with [`escape`]; the command
//! line's outputs (results, notes and errors on stdout and stderr, the
//! progress bar's label) and the Python package's texts (`to_text`,
//! `__repr__` and the messages of the errors it raises) with
//! [`escape_text`]; JSON with [`escape_json`]. Files rarity writes (CSV,
//! Parquet, model files, reports) keep their values as they are; a table
//! written to standard output is data too, escaped ([`Escaping`]) only when
//! standard output is a terminal, as GNU `ls` escapes names only there.

use std::borrow::Cow;
use std::fmt::Write;
use std::io;

/// Whether `c` is escaped (see the module docs).
pub fn is_unsafe(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Pushes `c` onto `out`, escaped when it [`is_unsafe`].
pub fn push_char(c: char, out: &mut String) {
    match c {
        '\0' => out.push_str("\\0"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if is_unsafe(c) => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
        c => out.push(c),
    }
}

/// `s` with every unsafe character escaped, line feeds and tabs included:
/// for one value (a name, a label, a table cell).
///
/// ```
/// use rarity::printable::escape;
/// assert_eq!(escape("amount"), "amount");
/// assert_eq!(escape("a\u{1b}]0;pwned\u{7}b"), "a\\u{1b}]0;pwned\\u{7}b");
/// assert_eq!(escape("two\nlines"), "two\\nlines");
/// assert_eq!(escape("Größe"), "Größe");
/// ```
pub fn escape(s: &str) -> Cow<'_, str> {
    escaped(s, |_| false)
}

/// `s` with every unsafe character escaped but line feeds and tabs: for a
/// whole text whose lines and columns are its own (a command's output, an
/// error message).
///
/// ```
/// use rarity::printable::escape_text;
/// assert_eq!(escape_text("col\tvalue\n\u{1b}[2J\n"), "col\tvalue\n\\u{1b}[2J\n");
/// assert_eq!(escape_text("over\rwrite"), "over\\rwrite");
/// ```
pub fn escape_text(s: &str) -> Cow<'_, str> {
    escaped(s, |c| c == '\n' || c == '\t')
}

/// A JSON document with the characters serde_json leaves raw in strings
/// (DEL, the C1 controls, the bidirectional controls) written as `\uXXXX`
/// escapes. Outside its strings a JSON document is ASCII, so this changes
/// no value: the document reads back the same.
///
/// ```
/// use rarity::printable::escape_json;
/// let doc = serde_json::json!({"name": "a\u{9b}2J"}).to_string();
/// let safe = escape_json(&doc);
/// assert_eq!(safe, r#"{"name":"a\u009b2J"}"#);
/// assert_eq!(serde_json::from_str::<serde_json::Value>(&safe).unwrap()["name"], "a\u{9b}2J");
/// ```
pub fn escape_json(doc: &str) -> Cow<'_, str> {
    if !doc.chars().any(is_unsafe) {
        return Cow::Borrowed(doc);
    }
    let mut out = String::with_capacity(doc.len() + 16);
    for c in doc.chars() {
        if is_unsafe(c) && !matches!(c, '\n' | '\t' | '\r') {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A writer that passes on what it is given with the unsafe characters
/// escaped as [`escape_text`] escapes them (line feeds and tabs kept), and
/// bytes that are not UTF-8 as `\xff`: for a stream to a terminal. A
/// character cut by the end of a write is held until the next one.
pub struct Escaping<W: io::Write> {
    inner: W,
    /// The first bytes of a character the last write ended inside.
    held: Vec<u8>,
}

impl<W: io::Write> Escaping<W> {
    /// Escapes what is written to `inner`.
    pub fn new(inner: W) -> Self {
        Escaping {
            inner,
            held: Vec::new(),
        }
    }

    /// Escapes `bytes` (held bytes first) into text, keeping an incomplete
    /// last character back.
    fn escaped(&mut self, bytes: &[u8]) -> String {
        let mut all = std::mem::take(&mut self.held);
        all.extend_from_slice(bytes);
        let mut out = String::with_capacity(all.len());
        let mut rest = &all[..];
        while !rest.is_empty() {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    out.push_str(&escape_text(s));
                    break;
                }
                Err(e) => {
                    let (good, bad) = rest.split_at(e.valid_up_to());
                    out.push_str(&escape_text(std::str::from_utf8(good).unwrap_or_default()));
                    match e.error_len() {
                        Some(n) => {
                            for b in &bad[..n] {
                                let _ = write!(out, "\\x{b:02x}");
                            }
                            rest = &bad[n..];
                        }
                        None => {
                            self.held = bad.to_vec();
                            break;
                        }
                    }
                }
            }
        }
        out
    }
}

impl<W: io::Write> io::Write for Escaping<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text = self.escaped(buf);
        self.inner.write_all(text.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.held.is_empty() {
            let cut: String = self.held.drain(..).map(|b| format!("\\x{b:02x}")).collect();
            self.inner.write_all(cut.as_bytes())?;
        }
        self.inner.flush()
    }
}

/// `s` with the unsafe characters that `keep` does not keep escaped.
fn escaped(s: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(|c| is_unsafe(c) && !keep(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if keep(c) {
            out.push(c);
        } else {
            push_char(c, &mut out);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_is_escaped_and_escaping_twice_changes_nothing() {
        for c in (0u32..0x20).chain(0x7f..0xa0).chain([0x202e, 0x2066]) {
            let c = char::from_u32(c).unwrap();
            let once = escape(&c.to_string()).into_owned();
            assert!(
                once.starts_with('\\') && !once.chars().any(is_unsafe),
                "{c:?}"
            );
            assert_eq!(escape(&once), once.as_str());
        }
        let text = "a\u{1b}[31mred\u{9b}0m\u{202e}";
        let safe = escape_text(text);
        assert_eq!(safe, "a\\u{1b}[31mred\\u{9b}0m\\u{202e}");
        assert!(matches!(escape_text(&safe), Cow::Borrowed(_)));
    }

    #[test]
    fn a_stream_is_escaped_across_its_writes() {
        use std::io::Write as _;
        let text = "a,b\u{1b}[2J\n\u{9b}c\u{202e},d\n".as_bytes();
        let whole = escape_text(std::str::from_utf8(text).unwrap())
            .into_owned()
            .into_bytes();
        // Cut at every byte: the same text, however the writes fall.
        for cut in 0..text.len() {
            let mut w = Escaping::new(Vec::new());
            w.write_all(&text[..cut]).unwrap();
            w.write_all(&text[cut..]).unwrap();
            w.flush().unwrap();
            assert_eq!(w.inner, whole, "cut at {cut}");
        }
        let mut w = Escaping::new(Vec::new());
        w.write_all(b"x\x9by\xe2\x80").unwrap();
        w.flush().unwrap();
        assert_eq!(w.inner, b"x\\x9by\\xe2\\x80");
    }
}
