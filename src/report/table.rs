//! Report tables: a header and rows of text or number cells, rendered as
//! CSV and JSON (full precision: the numbers read back exactly), Markdown
//! and HTML (rounded for reading by [`super::format`]: metrics to 3
//! significant digits, p-values like `1.6e-7`).

use serde_json::{Map, Value};

use super::format::{metric_text, p_value_text};
use crate::data::write::{fmt_value, quote};

/// One cell: text, or a number (`NaN`: undefined, written empty / `null`).
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// Text, written as is (escaped where the format needs it).
    Text(String),
    /// A number.
    Number(f64),
    /// A p-value (a number, shown as [`p_value_text`]).
    PValue(f64),
}

impl From<f64> for Cell {
    fn from(v: f64) -> Self {
        Cell::Number(v)
    }
}

impl From<usize> for Cell {
    fn from(v: usize) -> Self {
        Cell::Number(v as f64)
    }
}

impl From<&str> for Cell {
    fn from(v: &str) -> Self {
        Cell::Text(v.to_string())
    }
}

impl From<String> for Cell {
    fn from(v: String) -> Self {
        Cell::Text(v)
    }
}

impl From<bool> for Cell {
    fn from(v: bool) -> Self {
        Cell::Text(if v { "yes" } else { "no" }.to_string())
    }
}

impl Cell {
    /// The cell as a reader sees it: integers in full, other numbers as
    /// [`metric_text`], p-values as [`p_value_text`], `NaN` as `-`.
    fn display(&self) -> String {
        match self {
            Cell::Text(t) => t.clone(),
            Cell::Number(v) if v.fract() == 0.0 && v.abs() < 1e15 => format!("{v:.0}"),
            Cell::Number(v) => metric_text(*v),
            Cell::PValue(p) => p_value_text(*p),
        }
    }

    /// The number, if the cell holds one.
    fn number(&self) -> Option<f64> {
        match self {
            Cell::Text(_) => None,
            Cell::Number(v) | Cell::PValue(v) => Some(*v),
        }
    }
}

/// A table with named columns.
///
/// ```
/// use rarity::report::table::{Cell, Table};
/// let mut t = Table::new(&["strategy", "auc"]);
/// t.row(vec!["a,b".into(), 0.5.into()]);
/// t.row(vec!["c".into(), f64::NAN.into()]);
/// assert_eq!(t.to_csv(), "strategy,auc\n\"a,b\",0.5\nc,\n");
/// assert_eq!(t.to_json()[1]["auc"], serde_json::Value::Null);
/// assert!(t.to_markdown().starts_with("| strategy | auc |"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<Cell>>,
}

impl Table {
    /// An empty table with these column names.
    pub fn new(header: &[&str]) -> Self {
        Table {
            header: header.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row; missing cells are empty text, extra cells are kept
    /// under no column name in CSV and dropped from JSON.
    pub fn row(&mut self, cells: Vec<Cell>) {
        self.rows.push(cells);
    }

    /// Appends a row of text cells (already formatted for reading).
    pub fn text_row(&mut self, cells: Vec<String>) {
        self.rows.push(cells.into_iter().map(Cell::Text).collect());
    }

    /// The column names.
    pub fn header(&self) -> &[String] {
        &self.header
    }

    /// The rows.
    pub fn rows(&self) -> &[Vec<Cell>] {
        &self.rows
    }

    /// RFC 4180 CSV with a header line; numbers in full precision, `NaN`
    /// empty.
    pub fn to_csv(&self) -> String {
        let mut out = String::new();
        let line = |cells: Vec<String>, out: &mut String| {
            out.push_str(&cells.join(","));
            out.push('\n');
        };
        line(self.header.iter().map(|h| quote(h)).collect(), &mut out);
        for r in &self.rows {
            let cells = r
                .iter()
                .map(|c| match c.number() {
                    None => quote(&c.display()),
                    Some(v) if v.is_nan() => String::new(),
                    Some(v) => fmt_value(v),
                })
                .collect();
            line(cells, &mut out);
        }
        out
    }

    /// A JSON array with one object per row, keyed by column name;
    /// non-finite numbers are `null`.
    pub fn to_json(&self) -> Value {
        Value::Array(
            self.rows
                .iter()
                .map(|r| {
                    let obj: Map<String, Value> = self
                        .header
                        .iter()
                        .zip(r)
                        .map(|(h, c)| {
                            let v = match c.number() {
                                None => Value::String(c.display()),
                                Some(v) => serde_json::Number::from_f64(v)
                                    .map_or(Value::Null, Value::Number),
                            };
                            (h.clone(), v)
                        })
                        .collect();
                    Value::Object(obj)
                })
                .collect(),
        )
    }

    /// Aligned plain text for a terminal: two spaces between columns, the
    /// first column and every column of words left-aligned, columns of
    /// numbers right-aligned, a rule under the header, numbers rounded.
    ///
    /// ```
    /// use rarity::report::table::Table;
    /// let mut t = Table::new(&["metric", "value", "strategy"]);
    /// t.text_row(vec!["auc".into(), "0.91".into(), "tree".into()]);
    /// t.text_row(vec!["ap".into(), "-".into(), "logistic".into()]);
    /// assert_eq!(
    ///     t.to_text(),
    ///     "metric  value  strategy\n-----------------------\nauc      0.91  tree\nap          -  logistic\n"
    /// );
    /// ```
    pub fn to_text(&self) -> String {
        // Names from data cannot reach the terminal raw (see
        // `crate::printable`), nor break a row.
        let safe = |s: String| crate::printable::escape(&s).into_owned();
        let lines: Vec<Vec<String>> =
            std::iter::once(self.header.iter().cloned().map(safe).collect())
                .chain(
                    self.rows
                        .iter()
                        .map(|r| r.iter().map(|c| safe(c.display())).collect()),
                )
                .collect();
        let ncol = lines.iter().map(Vec::len).max().unwrap_or(0);
        let widths: Vec<usize> = (0..ncol)
            .map(|c| {
                lines
                    .iter()
                    .filter_map(|r| r.get(c))
                    .map(|s| s.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        // A column is numeric when every body cell starts like a number
        // (or is `-`, undefined).
        let numeric: Vec<bool> = (0..ncol)
            .map(|c| {
                c > 0
                    && lines.iter().skip(1).filter_map(|r| r.get(c)).all(|s| {
                        s == "-"
                            || s.starts_with(|ch: char| {
                                ch.is_ascii_digit() || ch == '-' || ch == '+' || ch == '.'
                            })
                    })
            })
            .collect();
        let mut out = String::new();
        for (i, r) in lines.iter().enumerate() {
            let cells: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(c, s)| {
                    if !numeric[c] {
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

    /// A GitHub-flavoured Markdown table (numbers rounded).
    pub fn to_markdown(&self) -> String {
        let esc = |s: &str| s.replace('|', "\\|");
        let mut out = format!(
            "| {} |\n|{}|\n",
            self.header
                .iter()
                .map(|h| esc(h))
                .collect::<Vec<_>>()
                .join(" | "),
            vec!["---"; self.header.len()].join("|")
        );
        for r in &self.rows {
            let cells: Vec<String> = r.iter().map(|c| esc(&c.display())).collect();
            out.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
        out
    }

    /// An HTML `<table>` (text escaped, numbers rounded and right-aligned;
    /// a column name may wrap after an underscore).
    pub fn to_html(&self) -> String {
        let mut out = String::from("<table>\n<thead><tr>");
        for h in &self.header {
            // Long column names may wrap after an underscore, nowhere else.
            let h = super::escape(h).replace('_', "_<wbr>");
            out.push_str(&format!("<th>{h}</th>"));
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        for r in &self.rows {
            out.push_str("<tr>");
            for c in r {
                let class = if c.number().is_some() {
                    " class=\"num\""
                } else {
                    " class=\"txt\""
                };
                out.push_str(&format!("<td{class}>{}</td>", super::escape(&c.display())));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody>\n</table>");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_escapes_text_and_rounds_numbers() {
        let mut t = Table::new(&["<name>"]);
        t.row(vec!["a & <b>".into()]);
        t.row(vec![0.123456.into()]);
        t.row(vec![3usize.into()]);
        t.row(vec![Cell::PValue(1.62e-7)]);
        let h = t.to_html();
        assert!(h.contains("&lt;name&gt;") && h.contains("a &amp; &lt;b&gt;"));
        assert!(h.contains(">0.123<") && h.contains(">3<") && h.contains(">1.6e-7<"));
        let last: f64 = t.to_csv().lines().last().unwrap().parse().unwrap();
        assert_eq!(last, 1.62e-7);
        assert!(!h.contains("<b>"));
    }

    #[test]
    fn csv_keeps_full_precision() {
        let mut t = Table::new(&["v"]);
        t.row(vec![(0.1 + 0.2).into()]);
        let csv = t.to_csv();
        let back: f64 = csv.lines().nth(1).unwrap().parse().unwrap();
        assert_eq!(back, 0.1 + 0.2);
    }
}
