//! Printing results: aligned text tables and JSON on stdout, notes on stderr.

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use rarity::error::{Error, Result};
use rarity::report::Report;

/// Prints one JSON object (pretty, one trailing newline).
pub fn print_json<T: Serialize>(value: &T) -> Result<()> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| Error::invalid(format!("cannot encode JSON: {e}")))?;
    write_stdout(&format!("{text}\n"))
}

/// Writes `report` to `dir` (see [`Report::write`]) and, unless `quiet`,
/// says where on stderr.
pub fn write_report(report: &Report, dir: &Path, quiet: bool) -> Result<()> {
    report.write(dir)?;
    if !quiet {
        eprintln!("report written to {}", dir.join("index.html").display());
    }
    Ok(())
}

/// Writes to stdout, treating a closed pipe (`| head`) as success.
pub fn write_stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::io("<stdout>", e)),
        _ => Ok(()),
    }
}

/// A text table with a header row; columns after the first are right-aligned.
#[derive(Debug, Default)]
pub struct Table {
    rows: Vec<Vec<String>>,
}

impl Table {
    /// Starts a table with these column headers.
    pub fn new(header: &[&str]) -> Self {
        Table {
            rows: vec![header.iter().map(|s| s.to_string()).collect()],
        }
    }

    /// Appends a row.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Renders with two spaces between columns and a rule under the header.
    pub fn render(&self) -> String {
        let ncol = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        let widths: Vec<usize> = (0..ncol)
            .map(|c| {
                self.rows
                    .iter()
                    .filter_map(|r| r.get(c))
                    .map(|s| s.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let mut out = String::new();
        for (i, r) in self.rows.iter().enumerate() {
            let cells: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(c, s)| {
                    if c == 0 {
                        format!("{s:<w$}", w = widths[c])
                    } else {
                        format!("{s:>w$}", w = widths[c])
                    }
                })
                .collect();
            out.push_str(cells.join("  ").trim_end());
            out.push('\n');
            if i == 0 {
                out.push_str(
                    &"-".repeat(widths.iter().sum::<usize>() + 2 * ncol.saturating_sub(1)),
                );
                out.push('\n');
            }
        }
        out
    }
}

/// Formats a number for a text table with `digits` significant decimals.
pub fn num(v: f64, digits: usize) -> String {
    if v.is_nan() {
        "-".to_string()
    } else {
        format!("{v:.digits$}")
    }
}
