//! No function over 100 lines: this test reads every `.rs` file under
//! `src/`, finds each `fn` with a body by brace matching (comments, strings
//! and character literals blanked first), and fails on a body longer than
//! [`MAX_LINES`] lines, counted from the `fn` line to its closing brace.
//! Tests are left out: `tests.rs` files and any item under `#[cfg(test)]`.
//!
//! A long function passes when the comment block just above it (among its
//! doc comments and attributes) has a line `// long: <why one body reads
//! better>`.

use std::path::Path;

mod common;

const MAX_LINES: usize = 100;
const CFG_TEST: &str = "#[cfg(test)]";

/// A function with a body: where it is and how long it is.
#[derive(Debug, Clone, PartialEq)]
struct Function {
    /// `file.rs::name`, the file relative to `src/`.
    path: String,
    /// 1-based line of the `fn` keyword.
    line: usize,
    lines: usize,
    /// The reason of a `// long:` comment above it, if any.
    reason: Option<String>,
}

/// The source with comments and the contents of string and character
/// literals replaced by spaces (newlines kept, so lines still count).
fn code_only(text: &str) -> Vec<char> {
    let b: Vec<char> = text.chars().collect();
    let mut out = b.clone();
    let blank = |out: &mut Vec<char>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != '\n' {
                *c = ' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        let next = b.get(i + 1).copied();
        if b[i] == '/' && next == Some('/') {
            let start = i;
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
            blank(&mut out, start, i);
        } else if b[i] == '/' && next == Some('*') {
            let (start, mut depth) = (i, 0usize);
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            blank(&mut out, start, i);
        } else if b[i] == 'r'
            && (next == Some('"') || next == Some('#'))
            && (i == 0 || !is_ident(b[i - 1]))
        {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                i += 1;
                continue;
            }
            let start = j + 1;
            j += 1;
            while j < b.len() {
                if b[j] == '"' && (1..=hashes).all(|k| b.get(j + k) == Some(&'#')) {
                    break;
                }
                j += 1;
            }
            blank(&mut out, start, j);
            i = j + 1 + hashes;
        } else if b[i] == '"' {
            let start = i + 1;
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            blank(&mut out, start, i);
            i += 1;
        } else if b[i] == '\'' {
            // A character literal ('x', '\n', '\u{..}'), not a lifetime.
            let end = if next == Some('\\') {
                (i + 2..b.len()).find(|&j| b[j] == '\'')
            } else if b.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(e) => {
                    blank(&mut out, i + 1, e);
                    i = e + 1;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The index of the brace that closes the one at `open`.
fn closing(code: &[char], open: usize) -> usize {
    let mut depth = 0usize;
    for (j, &c) in code.iter().enumerate().skip(open) {
        if c == '{' {
            depth += 1;
        } else if c == '}' {
            depth -= 1;
            if depth == 0 {
                return j;
            }
        }
    }
    code.len() - 1
}

/// The first `{` or `;` at bracket depth 0 from `from`: an item's body, or
/// its end when it has none.
fn body_or_end(code: &[char], from: usize) -> Option<(usize, char)> {
    let mut depth = 0i64;
    for (j, &c) in code.iter().enumerate().skip(from) {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            '{' | ';' if depth == 0 => return Some((j, c)),
            _ => {}
        }
    }
    None
}

/// The reason of a `// long:` line in the run of comment and attribute
/// lines just above line `line` (0-based).
fn long_reason(lines: &[&str], line: usize) -> Option<String> {
    for l in lines[..line].iter().rev() {
        let t = l.trim();
        if let Some(why) = t.strip_prefix("// long:") {
            return Some(why.trim().to_string());
        }
        if !(t.starts_with("//") || t.starts_with("#[")) {
            return None;
        }
    }
    None
}

/// Every function with a body in `text` (tests left out), `file` naming it.
fn functions(file: &str, text: &str) -> Vec<Function> {
    let code = code_only(text);
    let lines: Vec<&str> = text.lines().collect();
    let mut line_at = Vec::with_capacity(code.len());
    let mut n = 0;
    for &c in &code {
        line_at.push(n);
        n += usize::from(c == '\n');
    }
    let line_of = |at: usize| line_at[at];
    let word_at = |at: usize, w: &str| {
        let n = w.chars().count();
        at + n <= code.len()
            && code[at..at + n].iter().copied().eq(w.chars())
            && (at == 0 || !is_ident(code[at - 1]))
            && code.get(at + n).is_none_or(|&c| !is_ident(c))
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < code.len() {
        if code[i] == '#'
            && code[i..]
                .iter()
                .take(CFG_TEST.len())
                .copied()
                .eq(CFG_TEST.chars())
        {
            // Skip the item under it.
            match body_or_end(&code, i + CFG_TEST.len()) {
                Some((j, '{')) => i = closing(&code, j) + 1,
                Some((j, _)) => i = j + 1,
                None => break,
            }
        } else if word_at(i, "fn") {
            let name_start = (i + 2..code.len()).find(|&j| !code[j].is_whitespace());
            let Some(s) = name_start else { break };
            let name: String = code[s..].iter().take_while(|&&c| is_ident(c)).collect();
            if name.is_empty() {
                // `fn(..)` pointer types.
                i += 2;
                continue;
            }
            if let Some((j, '{')) = body_or_end(&code, s) {
                let (first, last) = (line_of(i), line_of(closing(&code, j)));
                out.push(Function {
                    path: format!("{file}::{name}"),
                    line: first + 1,
                    lines: last - first + 1,
                    reason: long_reason(&lines, first),
                });
                // Carry on inside the body: nested functions count alone.
                i = j + 1;
            } else {
                i = s;
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Every function under `src/` longer than [`MAX_LINES`].
fn long_functions() -> Vec<Function> {
    let mut files = Vec::new();
    common::sources(Path::new("src"), &mut files);
    files.sort();
    let mut out = Vec::new();
    for f in files {
        if f.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let rel = f.strip_prefix("src").unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&f).unwrap();
        out.extend(
            functions(&rel, &text)
                .into_iter()
                .filter(|f| f.lines > MAX_LINES),
        );
    }
    out
}

#[test]
fn no_function_is_over_100_lines_without_a_reason() {
    let long = long_functions();
    let mut offenders = Vec::new();
    for f in &long {
        match &f.reason {
            Some(r) if !r.is_empty() => {
                eprintln!(
                    "src/{} (line {}): {} lines, long: {r}",
                    f.path, f.line, f.lines
                )
            }
            _ => offenders.push(format!(
                "src/{} (line {}): {} lines",
                f.path, f.line, f.lines
            )),
        }
    }
    assert!(
        offenders.is_empty(),
        "functions over {MAX_LINES} lines (split them into collecting and rendering, \
         or give a `// long: <reason>` line above one whose single body reads better):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_checker_counts_bodies_and_skips_tests_strings_and_comments() {
    let src = "\
/// doc
fn a() {
    let s = \"}}}\"; // {{{
    let c = '{';
    fn inner<'a>(x: &'a str) -> &'a str { x }
}
trait T { fn decl(&self); fn with_body(&self) { r#\"{\"# ; } }
// long: one match reads better
#[inline]
fn b() {
}
#[cfg(test)]
mod tests {
    fn hidden() {}
}
fn c(f: fn(u8) -> u8) where u8: Copy { /* { */ }
";
    let got: Vec<(String, usize, usize, Option<String>)> = functions("x.rs", src)
        .into_iter()
        .map(|f| (f.path, f.line, f.lines, f.reason))
        .collect();
    let want = vec![
        ("x.rs::a".to_string(), 2, 5, None),
        ("x.rs::inner".to_string(), 5, 1, None),
        ("x.rs::with_body".to_string(), 7, 1, None),
        (
            "x.rs::b".to_string(),
            10,
            2,
            Some("one match reads better".to_string()),
        ),
        ("x.rs::c".to_string(), 16, 1, None),
    ];
    assert_eq!(got, want);
}
