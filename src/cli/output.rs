//! Printing results: aligned text tables and JSON on stdout, notes on stderr.
//!
//! Everything printed goes through [`rarity::printable`]: text with its
//! control characters escaped (line feeds and tabs kept), JSON with the
//! characters serde_json leaves raw escaped, so no name from a data or
//! model file reaches the terminal raw. Tables written with `-o -` are
//! data, not text, and are written as they are.

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use rarity::error::{Error, Result};
use rarity::report::Report;

pub use rarity::job::fixed as num;
pub use rarity::job::resample::counts_table;
pub use rarity::report::table::Table;

/// Prints one JSON object (pretty, one trailing newline).
pub fn print_json<T: Serialize>(value: &T) -> Result<()> {
    write_stdout(&json_text(value)?)
}

/// Writes `report` to `dir` (see [`Report::write`]) and, unless `quiet`,
/// says where on stderr.
pub fn write_report(report: &Report, dir: &Path, quiet: bool) -> Result<()> {
    report.write(dir)?;
    if !quiet {
        note(&format!(
            "report written to {}",
            dir.join("index.html").display()
        ));
    }
    Ok(())
}

/// Prints one line on stderr, its control characters escaped.
pub fn note(line: &str) {
    eprintln!("{}", rarity::printable::escape_text(line));
}

/// Writes to stdout: a write error, a closed pipe (`| head`) included,
/// is the command's error (see `cli/streams.rs` for how it ends).
pub fn write_stdout(text: &str) -> Result<()> {
    let text = rarity::printable::escape_text(text);
    let mut out = rarity::data::write::stdout()?;
    out.write_all(text.as_bytes())
        .map_err(|e| Error::io("<stdout>", e))
}

/// Prints a command's summary (text or a JSON value already rendered):
/// on stdout, or on stderr (unless `quiet`) when the command's table went
/// to stdout (`-o -`, `-o /dev/stdout`, ...).
pub fn print_summary(table_output: &Path, quiet: bool, text: &str) -> Result<()> {
    if rarity::data::write::is_stdout(table_output) {
        if !quiet {
            eprint!("{}", rarity::printable::escape_text(text));
        }
        return Ok(());
    }
    write_stdout(text)
}

/// A JSON value as `print_json` prints it.
pub fn json_text<T: Serialize>(value: &T) -> Result<String> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| Error::invalid(format!("cannot encode JSON: {e}")))?;
    Ok(format!("{}\n", rarity::printable::escape_json(&text)))
}

/// The path of this binary when `rarity` on the `PATH` is not it (a
/// newcomer's `cargo run --release` runs `target/release/rarity`), so that
/// a `next:` line names a command that works; `None` when `rarity` is it.
pub fn program_off_path() -> Option<String> {
    let me = std::env::current_exe().ok()?;
    let me = std::fs::canonicalize(&me).unwrap_or(me);
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("rarity"))
            .find(|p| p.is_file())
    });
    if on_path.and_then(|p| std::fs::canonicalize(p).ok()).as_ref() == Some(&me) {
        return None;
    }
    let cwd = std::env::current_dir().ok();
    let shown = cwd
        .and_then(|d| me.strip_prefix(&d).ok().map(|r| Path::new(".").join(r)))
        .unwrap_or_else(|| me.clone());
    Some(shown.display().to_string())
}
