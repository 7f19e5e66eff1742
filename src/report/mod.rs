//! Reports any command can build: titled sections of paragraphs, tables and
//! SVG figures, written as one self-contained `index.html` (inline CSS and
//! SVG; no scripts, external URLs or fonts, so it opens offline) plus every
//! table as `tables/NAME.csv` and `tables/NAME.json`. The folder is written
//! whole: into a temporary folder renamed into place at the end, replacing
//! only an empty folder or a previous report ([`folder`]).
//!
//! [`svg`] draws the figures (ROC, precision-recall and reliability curves,
//! box plots, Demšar's critical-difference diagram, grouped bars), with
//! long lines thinned without changing their drawn shape ([`thin`]);
//! [`table`] holds the tables; [`format`] writes numbers for reading.
//!
//! ```
//! use rarity::report::{table::Table, Report};
//! let mut r = Report::new("Demo");
//! let mut t = Table::new(&["strategy", "auc"]);
//! t.row(vec!["forest".into(), 0.91.into()]);
//! r.section("Ranking").paragraph("Higher is better.").table("ranking", t);
//! let dir = std::env::temp_dir().join(format!("rarity-report-doc-{}", std::process::id()));
//! r.write(&dir).unwrap();
//! assert!(std::fs::read_to_string(dir.join("index.html")).unwrap().contains("<table>"));
//! assert!(dir.join("tables/ranking.csv").exists() && dir.join("tables/ranking.json").exists());
//! std::fs::remove_dir_all(&dir).unwrap();
//! ```

mod folder;
pub mod format;
pub mod svg;
pub mod table;
pub mod thin;

pub use folder::check_report_dir;
pub use format::p_value_text;

use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};
use table::Table;

/// Escapes text for HTML and SVG (element content and quoted attributes).
///
/// ```
/// assert_eq!(rarity::report::escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
/// ```
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// One element of a section.
#[derive(Debug, Clone, PartialEq)]
enum Block {
    Paragraph(String),
    Table {
        name: String,
        table: Table,
        folded: Option<String>,
    },
    Figure {
        caption: String,
        svg: String,
    },
}

/// A titled part of a report.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    heading: String,
    blocks: Vec<Block>,
}

impl Section {
    /// Appends a paragraph of plain text (escaped on output).
    pub fn paragraph(&mut self, text: &str) -> &mut Self {
        self.blocks.push(Block::Paragraph(text.to_string()));
        self
    }

    /// Appends a table shown in the page and written as
    /// `tables/NAME.csv` and `tables/NAME.json`. `name` may hold letters,
    /// digits, `_` and `-`, and must be unique in the report.
    pub fn table(&mut self, name: &str, table: Table) -> &mut Self {
        self.blocks.push(Block::Table {
            name: name.to_string(),
            table,
            folded: None,
        });
        self
    }

    /// Like [`Section::table`], but folded away in the page under `summary`
    /// (long tables such as per-fold values).
    pub fn folded_table(&mut self, name: &str, summary: &str, table: Table) -> &mut Self {
        self.blocks.push(Block::Table {
            name: name.to_string(),
            table,
            folded: Some(summary.to_string()),
        });
        self
    }

    /// Appends an SVG figure (from [`svg`]) with a caption.
    pub fn figure(&mut self, caption: &str, svg: String) -> &mut Self {
        self.blocks.push(Block::Figure {
            caption: caption.to_string(),
            svg,
        });
        self
    }
}

/// A report: a title and sections.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    title: String,
    sections: Vec<Section>,
}

/// The page's style: a 1,200 px column; tables scroll sideways rather than
/// overflow, and their text cells never wrap (a spec stays on one line);
/// figures fill the column in a grid of two (one when narrow), a figure
/// whose drawing is wider than [`WIDE_FIGURE_PX`] spanning the whole row;
/// no drawing is enlarged beyond [`MAX_ZOOM`] times its size.
const STYLE: &str = "body{font-family:sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;color:#222}\
h1{font-size:1.6em}h2{font-size:1.25em;border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}\
.scroll{overflow-x:auto}table{border-collapse:collapse;font-size:.85em;margin:.5em 0}\
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
td.txt{white-space:nowrap}th{background:#f3f3f3}\
.figures{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,480px),1fr));gap:1em 1.5em;margin:.5em 0}\
figure{margin:0}figure.wide{grid-column:1/-1}figcaption{font-size:.85em;color:#555}\
svg{display:block;width:100%;height:auto}.files{font-size:.8em;color:#555}";

/// A figure whose drawing is wider than this many px takes a whole row of
/// the page's figure grid.
pub const WIDE_FIGURE_PX: f64 = 600.0;

/// The most a drawing is enlarged to fill its place in the grid.
pub const MAX_ZOOM: f64 = 1.3;

/// The width of an SVG drawing from its `viewBox`.
fn svg_width(svg: &str) -> f64 {
    svg.split("viewBox=\"")
        .nth(1)
        .and_then(|v| v.split('"').next())
        .and_then(|v| v.split(' ').nth(2))
        .and_then(|w| w.parse().ok())
        .unwrap_or(0.0)
}

impl Report {
    /// An empty report.
    pub fn new(title: &str) -> Self {
        Report {
            title: title.to_string(),
            sections: Vec::new(),
        }
    }

    /// Appends a section and returns it for filling.
    pub fn section(&mut self, heading: &str) -> &mut Section {
        self.sections.push(Section {
            heading: heading.to_string(),
            blocks: Vec::new(),
        });
        self.sections.last_mut().expect("just pushed")
    }

    /// The tables, with their names, in order.
    fn tables(&self) -> impl Iterator<Item = (&str, &Table)> {
        self.sections.iter().flat_map(|s| {
            s.blocks.iter().filter_map(|b| match b {
                Block::Table { name, table, .. } => Some((name.as_str(), table)),
                _ => None,
            })
        })
    }

    /// Checks that table names are usable file names and unique.
    fn check_names(&self) -> Result<()> {
        let mut seen = std::collections::HashSet::new();
        for (name, _) in self.tables() {
            let ok = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if !ok {
                return Err(Error::invalid(format!(
                    "report table name '{name}': use letters, digits, '_' and '-'"
                )));
            }
            if !seen.insert(name) {
                return Err(Error::invalid(format!(
                    "report table name '{name}' is used twice"
                )));
            }
        }
        Ok(())
    }

    /// The whole page: one HTML document with inline CSS and SVG.
    pub fn to_html(&self) -> String {
        let mut h = format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             {generator}\n<title>{t}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{t}</h1>\n",
            t = escape(&self.title),
            generator = folder::GENERATOR
        );
        for s in &self.sections {
            h.push_str(&format!("<section>\n<h2>{}</h2>\n", escape(&s.heading)));
            let mut in_figures = false;
            for b in &s.blocks {
                // Consecutive figures share one grid.
                let figure = matches!(b, Block::Figure { .. });
                if figure && !in_figures {
                    h.push_str("<div class=\"figures\">\n");
                } else if !figure && in_figures {
                    h.push_str("</div>\n");
                }
                in_figures = figure;
                match b {
                    Block::Paragraph(p) => h.push_str(&format!("<p>{}</p>\n", escape(p))),
                    Block::Table {
                        name,
                        table,
                        folded,
                    } => {
                        let files = format!(
                            "<p class=\"files\">tables/{n}.csv, tables/{n}.json</p>\n",
                            n = escape(name)
                        );
                        let body = format!(
                            "<div class=\"scroll\" id=\"table-{}\">\n{}\n</div>\n{files}",
                            escape(name),
                            table.to_html()
                        );
                        match folded {
                            Some(summary) => h.push_str(&format!(
                                "<details>\n<summary>{}</summary>\n{body}</details>\n",
                                escape(summary)
                            )),
                            None => h.push_str(&body),
                        }
                    }
                    Block::Figure { caption, svg } => {
                        let w = svg_width(svg);
                        h.push_str(&format!(
                            "<figure{} style=\"max-width:{:.0}px\">\n{svg}<figcaption>{}</figcaption>\n</figure>\n",
                            if w > WIDE_FIGURE_PX { " class=\"wide\"" } else { "" },
                            w * MAX_ZOOM,
                            escape(caption)
                        ))
                    }
                }
            }
            if in_figures {
                h.push_str("</div>\n");
            }
            h.push_str("</section>\n");
        }
        h.push_str("</body>\n</html>\n");
        h
    }

    /// Writes `dir/index.html`, `dir/tables/NAME.csv` and
    /// `dir/tables/NAME.json`, whole (see [`folder`] and
    /// [`check_report_dir`], which commands call before their work).
    pub fn write(&self, dir: &Path) -> Result<()> {
        write_files(dir, &self.files()?)
    }

    /// Every file of the report as [`Report::write`] writes it, by its path
    /// in the report's folder (`tables/NAME.csv`, `tables/NAME.json`,
    /// `index.html`): what a result keeps when it is pickled, to write the
    /// same report later.
    pub fn files(&self) -> Result<Vec<(String, String)>> {
        self.check_names()?;
        let mut out = Vec::new();
        for (name, t) in self.tables() {
            out.push((format!("tables/{name}.csv"), t.to_csv()));
            let json = serde_json::to_string_pretty(&t.to_json())
                .map_err(|e| Error::invalid(format!("cannot encode table {name}: {e}")))?;
            out.push((format!("tables/{name}.json"), json + "\n"));
        }
        out.push(("index.html".to_string(), self.to_html()));
        Ok(out)
    }
}

/// Writes the files of a report ([`Report::files`]) to `dir`, whole (see
/// [`folder`]): each path must be `index.html` or `tables/NAME.csv|json`
/// with a table name of letters, digits, `_` and `-`, so that no path
/// leaves the folder.
pub fn write_files(dir: &Path, files: &[(String, String)]) -> Result<()> {
    for (path, _) in files {
        let table = path
            .strip_prefix("tables/")
            .and_then(|f| f.strip_suffix(".csv").or_else(|| f.strip_suffix(".json")));
        let ok = path == "index.html"
            || table.is_some_and(|n| {
                !n.is_empty()
                    && n.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            });
        if !ok {
            return Err(Error::invalid(format!(
                "report file '{path}': expected index.html or tables/NAME.csv|json"
            )));
        }
    }
    folder::write_whole(dir, |tmp| {
        let tables = tmp.join("tables");
        std::fs::create_dir(&tables).map_err(|e| Error::io(&tables, e))?;
        for (path, text) in files {
            write_new(&tmp.join(path), text)?;
        }
        Ok(())
    })
}

/// Writes a new file in the report's own temporary folder (created
/// exclusively, so nothing there is followed).
fn write_new(path: &Path, text: &str) -> Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    f.write_all(text.as_bytes())
        .and_then(|()| f.sync_all())
        .map_err(|e| Error::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_escapes_text_and_is_self_contained() {
        let mut r = Report::new("<script>alert(1)</script>");
        let mut t = Table::new(&["a"]);
        t.row(vec!["<b>x</b>".into()]);
        r.section("S & T")
            .paragraph("1 < 2")
            .table("t", t)
            .figure("cap <i>", svg::BoxPlot::new("b", "v").render());
        let h = r.to_html();
        assert!(!h.contains("<script"));
        assert!(h.contains("&lt;script&gt;") && h.contains("S &amp; T") && h.contains("1 &lt; 2"));
        assert!(h.contains("&lt;b&gt;x&lt;/b&gt;") && h.contains("cap &lt;i&gt;"));
        assert!(
            !h.contains("http://")
                || h.matches("http://").count()
                    == h.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
        );
        assert!(!h.contains("https://"));
    }

    #[test]
    fn bad_table_names_and_directories_are_errors() {
        let mut r = Report::new("t");
        r.section("s")
            .table("a", Table::new(&["x"]))
            .table("a", Table::new(&["x"]));
        assert!(r.check_names().is_err());
        let mut r = Report::new("t");
        r.section("s").table("../x", Table::new(&["x"]));
        assert!(r.check_names().is_err());
    }
}
