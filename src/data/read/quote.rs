//! Fields quoted into error messages: at most a short prefix, escaped, with
//! the field's length when it is cut, so that a huge or binary field (a
//! 1 GB line, NUL bytes, UTF-16 text) never makes a huge or raw message.

use std::fmt::Write;

/// The most characters of a field a message repeats.
const PREFIX_CHARS: usize = 40;

/// `field` as a message shows it: its first 40 characters with control
/// characters, NUL and invalid UTF-8 bytes escaped (`\0`, `\n`, `\x7f`,
/// `\xff`), followed by `... (N bytes)` when it is longer.
pub(crate) fn quoted(field: &[u8]) -> String {
    let mut out = String::new();
    let mut pos = 0;
    for _ in 0..PREFIX_CHARS {
        let rest = &field[pos..];
        if rest.is_empty() {
            break;
        }
        let take = rest.len().min(4);
        let c = (1..=take).find_map(|n| {
            std::str::from_utf8(&rest[..n])
                .ok()
                .and_then(|s| s.chars().next())
        });
        match c {
            Some(c) => {
                crate::printable::push_char(c, &mut out);
                pos += c.len_utf8();
            }
            None => {
                let _ = write!(out, "\\x{:02x}", rest[0]);
                pos += 1;
            }
        }
    }
    if pos < field.len() {
        let _ = write!(out, "... ({} bytes)", field.len());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::quoted;

    #[test]
    fn short_fields_are_kept_and_escaped() {
        assert_eq!(quoted(b"abc"), "abc");
        assert_eq!(quoted(b"a\0b\n"), "a\\0b\\n");
        assert_eq!(quoted(b"a\xffb"), "a\\xffb");
        assert_eq!(quoted("é".as_bytes()), "é");
    }

    #[test]
    fn long_fields_are_cut_with_their_length() {
        let q = quoted(&vec![b'x'; 1 << 20]);
        assert_eq!(q, format!("{}... (1048576 bytes)", "x".repeat(40)));
        let q = quoted(&[0xff; 100]);
        assert!(q.ends_with("... (100 bytes)") && q.len() < 200, "{q}");
    }
}
