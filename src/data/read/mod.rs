//! Readers: CSV (plain, gzip or zstd), Parquet, Arrow IPC (Feather v2),
//! KEEL `.dat` and ARFF into a [`Dataset`], from files or standard input
//! (`-`), whole or in streamed blocks.
//!
//! Every format follows one set of rules (the papers use complete
//! instances only):
//! - Missing values are empty fields, `?` and `NA` (Parquet/IPC: nulls).
//!   [`Missing::Keep`] keeps them as NaN features for a strategy that takes
//!   them (a row missing its label is dropped and counted in
//!   [`ReadReport::dropped_label`]); [`Missing::Drop`] drops incomplete
//!   rows and counts them in [`ReadReport::dropped_missing`];
//!   [`Missing::Error`] makes them an error naming the line (row) and
//!   column. [`Missing::Auto`], settled by the command from its strategies
//!   before reading, drops when it reaches a reader.
//! - `NaN` and `inf` tokens are errors (`inf` is not a missing value, and
//!   a missing one is written empty, `?` or `NA`).
//! - The target is the last column unless named (by name, or by 0-based
//!   index; `-1` is the last). `drop` leaves columns out. An unknown column
//!   name is an error that suggests the closest names.
//! - Classes: labels that all parse as numbers are ordered numerically,
//!   others lexicographically (KEEL/ARFF: in declared order). For two classes
//!   class 1 is the positive class: the one named by `positive`, else the
//!   minority. Naming a positive label in a multiclass table makes the task
//!   binary, that label against the rest (`not <label>`).
//! - Non-numeric feature columns (CSV text, Parquet/IPC strings) are an
//!   error naming the column unless [`Categorical::OneHot`] is chosen;
//!   KEEL/ARFF nominal inputs are always one-hot encoded in declared level
//!   order. Features are then named `column=level`, and the mapping is kept
//!   in the [`Schema`](super::Schema) so prediction data is encoded the same
//!   way. A one-hot column may have at most [`MAX_LEVELS`] levels.
//! - With [`Categorical::Native`] or [`Categorical::Target`], a text column
//!   (CSV text whose values are not all numbers, Parquet/IPC strings and
//!   dictionaries) and every column named in `categorical_cols` is one
//!   feature of level codes (`ColumnEncoding::Categorical`): codes in sorted
//!   order of the level texts, no limit on their count. Predicting, a
//!   missing value or a level not seen in training is NaN, not an error.
//! - `column_modes` (`--categorical-cols merchant=native,channel=one-hot`)
//!   sets one column's mode whatever its values, so one schema can hold
//!   one-hot columns and level-code columns side by side.
//! - The column of `--cv time(...)` / `group(...)` is read as a
//!   [`KeyColumn`], not as a feature: ISO 8601 times (`dates`) and Parquet/IPC
//!   dates and timestamps as seconds since 1970; group ids of any count,
//!   text numbered in sorted order.
//!
//! The pieces: [`source`] opens an input and tells its format, the format
//! modules turn it into blocks of rows (`csv_blocks`, `arrow`), and `rows`
//! holds the rules and gathers blocks into a dataset. `columns` encodes
//! tables given column by column in memory (the Python package) by the same
//! rules.

mod arff;
mod arrow;
mod classes;
mod columns;
mod csv_blocks;
mod dates;
mod labels;
mod level_table;
mod lines;
mod number;
mod parquet_checks;
mod quote;
mod rows;
pub mod source;
mod speculate;

use std::path::Path;

use serde::Serialize;

use super::target_encode::Columns;
use super::{ColumnEncoding, Dataset, Schema};
use crate::error::{Error, Result};

pub use arrow::{numbers as arrow_numbers, texts as arrow_texts};
pub use classes::{assign_classes, label_order};
pub use columns::{
    encode_columns, encode_columns_keyed, encode_columns_with_schema, feature_names, Column,
    ColumnValues,
};
pub use level_table::{level_code, level_codes, level_text, LevelTable};
pub use rows::{Unknown, MAX_LEVELS};

/// The position of the target column among `names`, as every reader finds
/// it: `spec` a name (exact, else the one name equal ignoring ASCII case)
/// or a 0-based index (`-1`: the last); `None`: the last column. The
/// Python package's tables resolve their target through this too, so
/// `target="Outcome"` finds `outcome` there as `--target Outcome` does.
///
/// ```
/// use rarity::data::read::target_index;
/// let names: Vec<String> = ["Glucose", "outcome"].iter().map(|s| s.to_string()).collect();
/// assert_eq!(target_index(Some("Outcome"), &names, "t").unwrap(), 1);
/// assert_eq!(target_index(Some("-2"), &names, "t").unwrap(), 0);
/// assert!(target_index(Some("y"), &names, "t").is_err());
/// ```
pub fn target_index(spec: Option<&str>, names: &[String], origin: &str) -> Result<usize> {
    rows::resolve_target(spec, names, origin)
}
pub use source::Table;
pub use speculate::{read_speculative, Select, Speculated, UNDECIDED_ROWS};

use labels::Interner;
use rows::Sink;
use rows::{Block, Collector, Layout, Output};

/// What to do with missing values (`--missing`).
///
/// A command that fits a strategy settles [`Missing::Auto`] before it reads
/// a row (`crate::job::missing_policy`): [`Missing::Keep`] when every
/// strategy it fits takes missing values (`Strategy::takes_missing`),
/// [`Missing::Drop`] otherwise. A reader given `Auto` drops, as it did
/// before missing values could be kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Missing {
    /// Keep them where the strategy can take them, else drop the rows
    /// (the default; see above).
    #[default]
    Auto,
    /// Keep them: a missing feature value is NaN (a missing level of a
    /// categorical column a NaN code, of a one-hot column NaN in each of its
    /// 0/1 features), for a strategy that takes missing values. A row whose
    /// label (or `--cv time/group` key) is missing cannot be used: it is
    /// dropped and counted ([`ReadReport::dropped_label`]).
    Keep,
    /// Drop incomplete rows and count them.
    Drop,
    /// Fail on the first missing value, naming its line (row) and column.
    Error,
}

impl Missing {
    /// Whether the reader keeps missing feature values as NaN.
    pub fn keeps(self) -> bool {
        self == Missing::Keep
    }

    /// The policy's word, as `--missing` spells it.
    pub fn word(self) -> &'static str {
        match self {
            Missing::Auto => "auto",
            Missing::Keep => "keep",
            Missing::Drop => "drop",
            Missing::Error => "error",
        }
    }

    /// The policy a word names (`auto`, `keep`, `drop`, `error`).
    pub fn from_word(word: &str) -> Option<Missing> {
        [Missing::Auto, Missing::Keep, Missing::Drop, Missing::Error]
            .into_iter()
            .find(|m| m.word() == word)
    }
}

/// What to do with non-numeric feature columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Categorical {
    /// Fail, naming the column (the default).
    #[default]
    Error,
    /// One-hot encode: one 0/1 feature per level.
    OneHot,
    /// Keep as one feature of level codes
    /// ([`ColumnEncoding::Categorical`](super::ColumnEncoding)), for learners
    /// that split levels as sets; no limit on the number of levels. A CSV
    /// column whose values are all numbers stays numeric.
    Native,
    /// As [`Categorical::Native`] for reading, for a strategy that replaces
    /// each categorical feature by its cross-fitted target statistics
    /// ([`crate::data::target_stats`]).
    Target,
}

impl Categorical {
    /// The mode named `word` as the readers' options spell it (`error`,
    /// `one-hot`, `native`, `target`).
    pub fn named(word: &str) -> Option<Categorical> {
        Some(match word {
            "error" => Categorical::Error,
            "one-hot" => Categorical::OneHot,
            "native" => Categorical::Native,
            "target" => Categorical::Target,
            _ => return None,
        })
    }

    /// The mode's name ([`Categorical::named`] reads it back).
    pub fn name(self) -> &'static str {
        match self {
            Categorical::Error => "error",
            Categorical::OneHot => "one-hot",
            Categorical::Native => "native",
            Categorical::Target => "target",
        }
    }

    /// Whether non-numeric columns become level-code features.
    pub fn keeps_codes(self) -> bool {
        matches!(self, Categorical::Native | Categorical::Target)
    }
}

/// How the values of a column that splits rows rather than feeding the
/// models (`--cv time(col=...)`, `--cv group(col=...)`) are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// A time: numbers as they are; ISO 8601 dates and date-times given as
    /// text (`2024-01-31`, `2024-01-31T08:15:30+01:00`), Parquet/IPC dates
    /// and timestamps: seconds since 1970-01-01 UTC.
    Time,
    /// A group id: numbers as they are when every value is one; otherwise
    /// any text, numbered in sorted order of the distinct texts (no limit
    /// on their count, no one-hot encoding).
    Group,
}

/// A column read as a [`KeyKind`] (CSV, Parquet, Arrow IPC and tables
/// given by columns; KEEL/ARFF attributes keep their declared types).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyColumn {
    /// The column's name.
    pub name: String,
    /// How its values are read.
    pub kind: KeyKind,
}

/// Options shared by all readers.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// Target column: a name, or a 0-based index (`-1` = last). Default: last.
    pub target: Option<String>,
    /// The label of the positive class (binary tasks).
    pub positive: Option<String>,
    /// CSV field delimiter.
    pub delimiter: u8,
    /// Whether the CSV's first line is a header.
    pub has_header: bool,
    /// Non-numeric feature columns.
    pub categorical: Categorical,
    /// Columns read as categorical (level codes) whatever their values,
    /// numeric-looking codes included (`--categorical-cols`).
    pub categorical_cols: Vec<String>,
    /// Per-column modes overriding `categorical` (`--categorical-cols
    /// COL=MODE`), whatever the column's values: `Native` reads level codes
    /// (as `categorical_cols`), `OneHot` one 0/1 feature per level (at most
    /// [`MAX_LEVELS`]), `Error` numbers only. `Target` is a table-wide mode:
    /// allowed only with `categorical: Target`, which cannot be mixed with a
    /// `Native` column (the encode stage encodes every categorical column).
    pub column_modes: Vec<(String, Categorical)>,
    /// Missing values: kept, rows dropped, or an error.
    pub missing: Missing,
    /// Drop feature columns that take one value only.
    pub drop_constant: bool,
    /// Columns left out (by name).
    pub drop: Vec<String>,
    /// The decimal separator of CSV numbers (`.` or `,`).
    pub decimal: u8,
    /// A column read as a time or group key instead of a feature value.
    pub key: Option<KeyColumn>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            target: None,
            positive: None,
            delimiter: b',',
            has_header: true,
            categorical: Categorical::Error,
            categorical_cols: Vec::new(),
            column_modes: Vec::new(),
            missing: Missing::Auto,
            drop_constant: false,
            drop: Vec::new(),
            decimal: b'.',
            key: None,
        }
    }
}

impl ReadOptions {
    /// The categorical columns strategies encode by target statistics
    /// (`None`: none): with `categorical: Target` every one but those whose
    /// `column_modes` is `Native`; otherwise those whose mode is `Target`.
    pub fn target_columns(&self) -> Option<Columns> {
        let moded = |mode: Categorical| -> Vec<String> {
            (self.column_modes.iter())
                .filter(|(_, m)| *m == mode)
                .map(|(c, _)| c.clone())
                .collect()
        };
        if self.categorical == Categorical::Target {
            let native = moded(Categorical::Native);
            return Some(if native.is_empty() {
                Columns::All
            } else {
                Columns::AllBut(native)
            });
        }
        let target = moded(Categorical::Target);
        (!target.is_empty()).then_some(Columns::Only(target))
    }

    /// `ds`, read with these options, marked with the categorical columns
    /// strategies encode by target statistics ([`ReadOptions::target_columns`],
    /// [`Dataset::with_target_columns`]).
    pub fn mark_target_statistics(&self, ds: Dataset) -> Dataset {
        let Some(cols) = self.target_columns() else {
            return ds;
        };
        let names = ds.schema().categorical_names();
        let names = match cols {
            Columns::All => names,
            Columns::Only(only) => names.into_iter().filter(|n| only.contains(n)).collect(),
            Columns::AllBut(but) => names.into_iter().filter(|n| !but.contains(n)).collect(),
        };
        ds.with_target_columns(names)
    }

    /// Fails on options that contradict each other.
    pub fn check(&self) -> Result<()> {
        if !matches!(self.decimal, b'.' | b',') {
            return Err(Error::invalid(format!(
                "the decimal separator must be '.' or ',', got '{}'",
                self.decimal as char
            )));
        }
        if self.decimal == self.delimiter {
            return Err(Error::invalid(format!(
                "the decimal separator and the delimiter are both '{}'; with --decimal , \
                 give another delimiter, e.g. --delimiter ';'",
                self.decimal as char
            )));
        }
        Ok(())
    }
}

/// What a reader did besides producing the table.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ReadReport {
    /// Where the data came from.
    pub source: String,
    /// Data rows read (before dropping).
    pub rows_read: usize,
    /// Rows dropped for missing values.
    pub dropped_missing: usize,
    /// With [`Missing::Keep`]: rows dropped because their label (or their
    /// `--cv time/group` key) is missing: no strategy can learn from them.
    pub dropped_label: usize,
    /// With [`Missing::Keep`]: the feature values kept missing (NaN).
    pub kept_missing: usize,
    /// Feature columns dropped as constant.
    pub dropped_constant: Vec<String>,
    /// The target column's name (set by the training readers).
    #[serde(skip)]
    pub target: String,
}

/// Rows a command left out, and why (`rows_dropped` in JSON output).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RowsDropped {
    /// How many.
    pub count: usize,
    /// Why (empty when none).
    pub reason: String,
}

impl ReadReport {
    /// The rows dropped and why.
    pub fn rows_dropped(&self) -> RowsDropped {
        let mut why = Vec::new();
        if self.dropped_missing > 0 {
            why.push("missing values (empty, ?, NA or null)");
        }
        if self.dropped_label > 0 {
            why.push("a missing label (or cv key)");
        }
        RowsDropped {
            count: self.dropped_missing + self.dropped_label,
            reason: why.join("; "),
        }
    }

    /// A note for people (`None` when no row was dropped and no value was
    /// kept missing).
    pub fn dropped_note(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.dropped_missing > 0 {
            parts.push(format!(
                "dropped {} of {} rows with missing values (--missing keep to keep them, for \
                 a strategy that takes them: a learner that learns where they go, or an \
                 impute(...) stage first; --missing error to fail instead)",
                self.dropped_missing, self.rows_read
            ));
        }
        if self.dropped_label > 0 {
            parts.push(format!(
                "dropped {} of {} rows whose label is missing (--missing error to fail instead)",
                self.dropped_label, self.rows_read
            ));
        }
        if self.kept_missing > 0 {
            parts.push(format!(
                "kept {} missing value{} for the strategy (--missing drop to drop their rows)",
                self.kept_missing,
                if self.kept_missing == 1 { "" } else { "s" }
            ));
        }
        (!parts.is_empty()).then(|| format!("{}: {}", self.source, parts.join("; ")))
    }
}

/// File formats rarity reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Delimited text with an optional header (plain, gzip or zstd).
    Csv,
    /// KEEL `.dat` or Weka ARFF (same header grammar; KEEL adds
    /// `@inputs`/`@outputs` and `[min, max]` ranges).
    Arff,
    /// Apache Parquet.
    Parquet,
    /// Arrow IPC: Feather v2 files and IPC streams.
    Ipc,
}

impl Format {
    /// The format implied by a file name: `.dat` and `.arff` are KEEL/ARFF,
    /// `.parquet`/`.pq` Parquet, `.arrow`/`.feather`/`.ipc` Arrow IPC,
    /// anything else CSV. (Readers also look at the first bytes.)
    pub fn from_path(path: &Path) -> Format {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("dat") | Some("arff") => Format::Arff,
            Some("parquet") | Some("pq") => Format::Parquet,
            Some("arrow") | Some("feather") | Some("ipc") | Some("arrows") => Format::Ipc,
            _ => Format::Csv,
        }
    }
}

/// The schema training on `path` with `opts` would give, told by its header
/// alone (CSV) or its declared schema (Parquet, Arrow IPC) before any row is
/// read, so a job can check its spec's column names first: the feature
/// names in source order, a column declared categorical (or a string column
/// of a typed table the options read as levels) a categorical encoding
/// without levels, every other column numeric (a CSV column's kind is only
/// known from its values). `None` for standard input, a pipe or a KEEL/ARFF
/// file, which are read once and checked after reading, and when the header
/// alone does not give a training layout (reading then says why).
pub fn header_schema(path: &Path, opts: &ReadOptions) -> Result<Option<Schema>> {
    let file = !super::write::is_stdio(path)
        && std::fs::metadata(path).is_ok_and(|m| m.is_file())
        && source::name_format(path) != Format::Arff;
    if !file {
        return Ok(None);
    }
    opts.check()?;
    let table = Table::open(path, opts)?;
    // A layout the header cannot settle is reading's to report, with its
    // own options (a job's key column, ...): the preflight only adds checks.
    let Ok(layout) = table.train_layout(opts) else {
        return Ok(None);
    };
    let encodings: Vec<ColumnEncoding> = (layout.slots.iter())
        .map(|s| match s.kind {
            rows::Kind::Level | rows::Kind::Category => ColumnEncoding::Categorical {
                name: s.name.clone(),
                levels: Vec::new(),
            },
            _ => ColumnEncoding::Numeric {
                name: s.name.clone(),
            },
        })
        .collect();
    Ok(Some(Schema {
        feature_names: layout.slots.iter().map(|s| s.name.clone()).collect(),
        class_names: Vec::new(),
        encodings,
        target_name: layout
            .target
            .map_or_else(String::new, |t| layout.names[t].clone()),
    }))
}

/// Reads a file (`-`: standard input), its format told by its first bytes
/// or its name.
///
/// ```no_run
/// use rarity::data::read::{read_path, ReadOptions};
/// let (ds, report) = read_path("transactions.parquet".as_ref(), &ReadOptions::default()).unwrap();
/// println!("{} rows ({} dropped)", ds.n_rows(), report.dropped_missing);
/// ```
pub fn read_path(path: &Path, opts: &ReadOptions) -> Result<(Dataset, ReadReport)> {
    let (ds, report) = read_path_as_read(path, opts)?;
    Ok((opts.mark_target_statistics(ds), report))
}

/// [`read_path`] before a `--categorical target` table is marked.
fn read_path_as_read(path: &Path, opts: &ReadOptions) -> Result<(Dataset, ReadReport)> {
    opts.check()?;
    let is_arff = !super::write::is_stdio(path) && source::name_format(path) == Format::Arff;
    if is_arff {
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        if file.metadata().map_err(|e| Error::io(path, e))?.is_dir() {
            return Err(Error::invalid(format!(
                "{} is a directory, not a data file",
                path.display()
            )));
        }
        let origin = path.display().to_string();
        let reader = source::plain_stream(Box::new(file), &origin)?;
        return read_from(reader, &origin, Format::Arff, 0, opts);
    }
    read_table(Table::open(path, opts)?, opts)
}

/// Reads from any byte source; `origin` names it in messages. The format
/// is told by the first bytes (compression, Parquet, Arrow IPC), else
/// `format`; `size_hint` is unused and kept for callers.
///
/// ```
/// use rarity::data::read::{read_from, Format, ReadOptions};
/// let text = "a,b,label\n1,2,no\n3,4,yes\n5,6,no\n";
/// let (ds, _) = read_from(text.as_bytes(), "inline", Format::Csv, 0,
///                         &ReadOptions::default()).unwrap();
/// assert_eq!(ds.class_names(), &["no".to_string(), "yes".to_string()]);
/// assert_eq!(ds.class_counts(), vec![2, 1]);
/// ```
pub fn read_from<R: std::io::Read + Send>(
    reader: R,
    origin: &str,
    format: Format,
    _size_hint: u64,
    opts: &ReadOptions,
) -> Result<(Dataset, ReadReport)> {
    opts.check()?;
    if format == Format::Arff {
        let (ds, mut report) = arff::read_arff(reader, origin, opts)?;
        report.source = origin.to_string();
        return drop_constant(ds, report, opts);
    }
    read_table(
        Table::from_stream(Box::new(reader), origin, format, opts)?,
        opts,
    )
}

/// Reads every row of an opened table.
pub fn read_table(table: Table<'_>, opts: &ReadOptions) -> Result<(Dataset, ReadReport)> {
    let layout = table.train_layout(opts)?;
    let mut gather = Gather::new(&layout, table.size(), &|_| {});
    table.run(&layout, &mut gather)?;
    let (ds, report) = gather.collector.finish(opts.positive.as_deref(), None)?;
    drop_constant(ds, report, opts)
}

fn drop_constant(
    ds: Dataset,
    mut report: ReadReport,
    opts: &ReadOptions,
) -> Result<(Dataset, ReadReport)> {
    report.target = ds.schema().target_name.clone();
    if opts.drop_constant {
        let cols = ds.constant_columns();
        report.dropped_constant = cols
            .iter()
            .map(|&j| ds.feature_names()[j].clone())
            .collect();
        return Ok((ds.drop_columns(&cols), report));
    }
    Ok((ds, report))
}

/// Per-row keep decisions of a streamed sample: given a row's class id,
/// how many times it enters the sample (0: left out).
pub type Keep<'a> = &'a mut dyn FnMut(usize) -> usize;

/// Called with the rows read so far, after each block.
pub type Progress<'a> = &'a dyn Fn(u64);

/// A collector behind the sink interface, with an optional keep filter.
struct Gather<'a, 'k> {
    collector: Collector<'a>,
    /// Keep decisions and the class of each raw label id of this pass.
    keep: Option<(Keep<'k>, &'k ClassCounts, Vec<Option<u32>>)>,
    /// What is known of the input's size (to reserve the buffers once).
    size: source::Size,
    progress: Progress<'k>,
}

impl<'a, 'k> Gather<'a, 'k> {
    fn new(layout: &'a Layout, size: source::Size, progress: Progress<'k>) -> Self {
        Gather {
            collector: Collector::new(layout),
            keep: None,
            size,
            progress,
        }
    }
}

impl Sink for Gather<'_, '_> {
    fn numeric_slots(&self) -> &[bool] {
        self.collector.numeric_slots()
    }

    fn take(&mut self, block: &mut Block) -> Result<()> {
        if self.keep.is_none() {
            // Reserve once, from the first block: the whole table is kept.
            match std::mem::replace(&mut self.size, source::Size::Unknown) {
                source::Size::Rows(r) => self.collector.reserve(r as usize),
                source::Size::CsvBytes(b) if block.bytes > 0 => self.collector.reserve(
                    (b as f64 * block.n_rows() as f64 / block.bytes as f64 * 1.02) as usize + 16,
                ),
                _ => {}
            }
        }
        self.collector.globalise(block)?;
        (self.progress)(self.collector.report.rows_read as u64);
        let Some((keep, counts, class_of)) = &mut self.keep else {
            return self.collector.push_all(block);
        };
        for i in 0..block.labels.len() {
            let raw = block.labels[i] as usize;
            if raw >= class_of.len() {
                let labels = self.collector.labels();
                class_of.extend(
                    (class_of.len()..labels.len()).map(|r| counts.class_of(labels.name(r))),
                );
            }
            let class = class_of[raw].ok_or_else(|| {
                Error::data(format!(
                    "{}: the label '{}' was not there when the classes were counted; \
                     did the file change between the two passes?",
                    counts.report.source,
                    self.collector.label_name(raw)
                ))
            })?;
            let times = keep(class as usize);
            if times > 0 {
                self.collector.push_row(block, i, times)?;
            }
        }
        Ok(())
    }
}

/// The classes of a table and their row counts, from a pass that reads
/// the target column only.
#[derive(Debug, Clone)]
pub struct ClassCounts {
    labels: Interner,
    class_names: Vec<String>,
    class_of_raw: Vec<u32>,
    /// What the counting pass read.
    pub report: ReadReport,
}

impl ClassCounts {
    /// The class names (class ids index them).
    pub fn class_names(&self) -> &[String] {
        &self.class_names
    }

    /// Rows of each class.
    pub fn counts(&self) -> Vec<usize> {
        let mut c = vec![0; self.class_names.len()];
        for (raw, &n) in self.labels.counts().iter().enumerate() {
            c[self.class_of_raw[raw] as usize] += n;
        }
        c
    }

    /// The class of a label text.
    fn class_of(&self, label: &str) -> Option<u32> {
        self.labels
            .names()
            .position(|n| n == label)
            .map(|r| self.class_of_raw[r])
    }
}

/// Counts the classes of `table` (the counting pass of a streamed sample):
/// rows with a missing value in a used column are dropped as when reading.
pub fn count_classes(
    table: Table<'_>,
    opts: &ReadOptions,
    progress: Progress,
) -> Result<ClassCounts> {
    let layout = table.train_layout(opts)?.labels_only();
    let mut gather = Gather::new(&layout, source::Size::Unknown, progress);
    let mut counter = Counter {
        gather: &mut gather,
    };
    table.run(&layout, &mut counter)?;
    let collector = gather.collector;
    ClassCounts::of(collector.labels().clone(), collector.report, &layout, opts)
}

impl ClassCounts {
    /// The classes of the labels a pass over `layout`'s table counted.
    fn of(
        labels: Interner,
        report: ReadReport,
        layout: &Layout,
        opts: &ReadOptions,
    ) -> Result<ClassCounts> {
        if report.rows_read == 0 {
            return Err(parse_err(
                &layout.origin,
                "the file has a header but no data rows",
            ));
        }
        if labels.len() == 0 {
            return Err(parse_err(
                &layout.origin,
                format!(
                    "every one of the {} rows has a missing value and was dropped",
                    report.rows_read
                ),
            ));
        }
        let (class_names, class_of_raw) = labels.classes(opts.positive.as_deref())?;
        Ok(ClassCounts {
            labels,
            class_names,
            class_of_raw,
            report,
        })
    }
}

/// Globalises blocks and keeps nothing but the label counts.
struct Counter<'g, 'a, 'k> {
    gather: &'g mut Gather<'a, 'k>,
}

impl Sink for Counter<'_, '_, '_> {
    fn numeric_slots(&self) -> &[bool] {
        self.gather.numeric_slots()
    }

    fn take(&mut self, block: &mut Block) -> Result<()> {
        self.gather.collector.globalise(block)?;
        (self.gather.progress)(self.gather.collector.report.rows_read as u64);
        Ok(())
    }
}

/// Whether `path` can be read more than once, as the streaming commands'
/// passes need: a regular file, not standard input, a pipe or a device.
pub fn rereadable(path: &std::path::Path) -> bool {
    !crate::data::write::is_stdio(path) && std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// Reads the rows of `table` that `keep` selects (the sampling pass of a
/// streamed sample), with the classes of the counting pass `counts`.
/// Rows are kept in input order, each as many times as `keep` says.
pub fn read_selected(
    table: Table<'_>,
    opts: &ReadOptions,
    counts: &ClassCounts,
    keep: Keep,
    progress: Progress,
) -> Result<(Dataset, ReadReport)> {
    let layout = table.train_layout(opts)?;
    let mut gather = Gather::new(&layout, source::Size::Unknown, progress);
    gather.keep = Some((keep, counts, Vec::new()));
    table.run(&layout, &mut gather)?;
    let (ds, report) = gather
        .collector
        .finish(opts.positive.as_deref(), Some(&counts.labels))?;
    drop_constant(ds, report, opts)
}

/// Rows to predict on, encoded as the model's training data was.
#[derive(Debug)]
pub struct PredictBlock {
    /// The features (labels are placeholders).
    pub data: Dataset,
    /// One text per identifier column per row, row-major.
    pub ids: Vec<String>,
    /// With [`PredictOptions::keep_slots`], one value per source column of
    /// the model's schema (its encodings) per row, row-major, as read:
    /// [`slot_value`] tells a level, an unseen level and a missing value
    /// apart, which the features do not (a NaN code is either). Empty
    /// otherwise.
    pub slots: Vec<f64>,
}

/// What a source column's value in [`PredictBlock::slots`] is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SlotValue {
    /// A number (a numeric column's value).
    Number(f64),
    /// The model's level of this code (a categorical column's).
    Level(u32),
    /// A level the model does not know.
    Unseen,
    /// No value.
    Missing,
}

/// Fails, before any row is read, when the columns `names` of the table
/// `origin` lack a source column of `schema` (the error names them, with
/// close names), as [`predict_blocks`] would on its first row.
pub fn check_model_columns(names: &[String], origin: &str, schema: &Schema) -> Result<()> {
    let wanted: Vec<&str> = schema.encodings.iter().map(|e| e.name()).collect();
    rows::model_columns(names, &wanted, origin).map(|_| ())
}

/// Reads a value of [`PredictBlock::slots`].
pub fn slot_value(v: f64) -> SlotValue {
    match rows::code_of(v) {
        Some(rows::UNKNOWN) => SlotValue::Unseen,
        Some(c) => SlotValue::Level(c),
        None if v.is_nan() => SlotValue::Missing,
        None => SlotValue::Number(v),
    }
}

/// How data to predict on is read.
#[derive(Debug, Clone, Default)]
pub struct PredictOptions {
    /// Identifier columns carried to the output.
    pub ids: Vec<String>,
    /// The names the identifier columns take in the output, in the order
    /// of [`PredictOptions::ids`] (empty: their own).
    pub id_names: Vec<String>,
    /// Levels the model has not seen.
    pub unknown: Unknown,
    /// Per encoding of the model's schema (source column), whether a
    /// missing value is read as NaN because the model takes it
    /// (`FittedStrategy::missing_columns`); empty: none is. Any other
    /// missing value is an error.
    pub missing_ok: Vec<bool>,
    /// The decimal separator of CSV numbers.
    pub decimal: Option<u8>,
    /// Whether each block carries its source columns' values as read
    /// ([`PredictBlock::slots`]).
    pub keep_slots: bool,
}

/// Reads `table` in blocks encoded as the training data described by
/// `schema` was: source columns are found by name (any order; other
/// columns, the target included, are ignored), categorical levels map to
/// the training one-hot columns, and features the training data dropped
/// (constant columns) are dropped again. A missing value is NaN in a
/// column the model takes missing values in (`opts.missing_ok`), else an
/// error (a prediction is owed for every row); an unseen level, of a
/// one-hot or a categorical column, is an error that counts the rows and
/// lists the levels, or, with [`Unknown::Ignore`], an all-zero one-hot
/// group or a NaN code (the side of no split's set, the prior of a target
/// encoding). Each block goes to `f` as it is read.
pub fn predict_blocks(
    table: Table<'_>,
    schema: &Schema,
    opts: &PredictOptions,
    f: &mut dyn FnMut(PredictBlock) -> Result<()>,
) -> Result<ReadReport> {
    let layout = Layout::predict(
        table.names().to_vec(),
        schema,
        &opts.ids,
        opts.unknown,
        &opts.missing_ok,
        opts.decimal.unwrap_or(b'.'),
        table.origin(),
    )?;
    table.check_layout(&layout)?;
    let outputs = predict_outputs(schema)?;
    let mut sink = PredictSink {
        layout: &layout,
        schema,
        outputs,
        f,
        report: ReadReport {
            source: layout.origin.clone(),
            ..ReadReport::default()
        },
        unknown: std::collections::BTreeMap::new(),
        unknown_rows: 0,
        none: Vec::new(),
        keep_slots: opts.keep_slots,
    };
    table.run(&layout, &mut sink)?;
    if sink.report.rows_read == 0 {
        return Err(parse_err(
            &layout.origin,
            "the file has a header but no data rows",
        ));
    }
    if sink.unknown_rows > 0 && opts.unknown == Unknown::Error {
        let levels: Vec<String> = sink
            .unknown
            .iter()
            .map(|((s, l), n)| {
                format!(
                    "column '{}': '{l}' ({n} row{})",
                    layout.slots[*s].name,
                    if *n == 1 { "" } else { "s" }
                )
            })
            .collect();
        return Err(Error::data(format!(
            "{}: {} row(s) have {} level(s) the model was not trained on: {}; \
             --unknown ignore encodes them as all-zero one-hot columns (a categorical \
             column's as a level no split holds, the prior of a target encoding)",
            layout.origin,
            sink.unknown_rows,
            sink.unknown.len(),
            levels.join(", ")
        )));
    }
    Ok(sink.report)
}

/// For each model feature, what it is made of (slots in encoding order).
fn predict_outputs(schema: &Schema) -> Result<Vec<Output>> {
    let mut full: Vec<(String, Output)> = Vec::new();
    for (s, e) in schema.encodings.iter().enumerate() {
        match e {
            super::ColumnEncoding::Numeric { name } => full.push((name.clone(), Output::Value(s))),
            super::ColumnEncoding::OneHot { name, levels } => {
                for (c, l) in levels.iter().enumerate() {
                    full.push((format!("{name}={l}"), Output::Level(s, c as u32)));
                }
            }
            super::ColumnEncoding::Categorical { name, .. } => {
                full.push((name.clone(), Output::Code(s)))
            }
        }
    }
    schema
        .feature_names
        .iter()
        .map(|f| {
            full.iter()
                .find(|(n, _)| n == f)
                .map(|(_, o)| *o)
                .ok_or_else(|| {
                    Error::invalid(format!("the model's feature '{f}' has no source column"))
                })
        })
        .collect()
}

struct PredictSink<'a, 'f> {
    layout: &'a Layout,
    schema: &'a Schema,
    outputs: Vec<Output>,
    f: &'f mut dyn FnMut(PredictBlock) -> Result<()>,
    report: ReadReport,
    unknown: std::collections::BTreeMap<(usize, String), usize>,
    unknown_rows: usize,
    none: Vec<bool>,
    keep_slots: bool,
}

impl Sink for PredictSink<'_, '_> {
    fn numeric_slots(&self) -> &[bool] {
        &self.none
    }

    fn take(&mut self, block: &mut Block) -> Result<()> {
        self.report.rows_read += block.rows_read;
        self.unknown_rows += block.unknown_rows;
        for (k, n) in std::mem::take(&mut block.unknown) {
            *self.unknown.entry(k).or_insert(0) += n;
        }
        if self.unknown_rows > 0 && self.layout.unknown == Unknown::Error {
            // Keep counting; nothing will be written.
            return Ok(());
        }
        let rows = block.n_rows();
        let x = rows::expand(&block.x, self.layout.slots.len(), &self.outputs);
        let data = Dataset::new(x, vec![0; rows], self.schema.clone())?;
        let slots = match self.keep_slots {
            true => std::mem::take(&mut block.x),
            false => Vec::new(),
        };
        (self.f)(PredictBlock {
            data,
            ids: std::mem::take(&mut block.ids),
            slots,
        })
    }
}

/// Reads CSV rows to predict on, encoded as the training data of `schema`
/// was (see [`predict_blocks`]), as one dataset. The labels of the returned
/// dataset are placeholders.
///
/// ```
/// use rarity::data::read::{read_from, read_with_schema, Categorical, Format, ReadOptions};
/// let train = "colour,size,y\nred,1,a\nblue,2,b\n";
/// let opts = ReadOptions { categorical: Categorical::OneHot, ..ReadOptions::default() };
/// let (ds, _) = read_from(train.as_bytes(), "train", Format::Csv, 0, &opts).unwrap();
/// // Columns in another order, no label column.
/// let new = read_with_schema("size,colour\n5,blue\n".as_bytes(), "new", b',', ds.schema()).unwrap();
/// assert_eq!(new.row(0), &[1.0, 0.0, 5.0]);
/// assert!(read_with_schema("size,colour\n5,green\n".as_bytes(), "new", b',', ds.schema()).is_err());
/// ```
pub fn read_with_schema<R: std::io::Read + Send>(
    reader: R,
    origin: &str,
    delimiter: u8,
    schema: &Schema,
) -> Result<Dataset> {
    read_table_with_schema(
        csv_table(reader, origin, delimiter)?,
        schema,
        &PredictOptions::default(),
    )
}

/// Reads labelled rows encoded as the training data of `schema` was (see
/// [`predict_blocks`]; `opts.ids` is ignored), with the label column
/// `schema.target_name` mapped to the schema's classes: held-out rows to
/// score a saved model on. A missing or unknown label is an error naming
/// the row and the classes the model knows.
///
/// ```
/// use rarity::data::read::{read_from, read_labelled, Format, PredictOptions, ReadOptions, Table};
/// let (ds, _) = read_from("a,b,y\n1,2,p\n3,4,n\n".as_bytes(), "train", Format::Csv, 0, &ReadOptions::default()).unwrap();
/// let table = |t: &'static str| Table::from_stream(Box::new(t.as_bytes()), "new", Format::Csv, &ReadOptions::default()).unwrap();
/// let held = read_labelled(table("y,b,a\np,6,5\nn,8,7\n"), ds.schema(), &PredictOptions::default()).unwrap();
/// assert_eq!((held.row(1), held.labels()), (&[7.0, 8.0][..], &[1, 0][..]));
/// let e = read_labelled(table("y,b,a\nq,6,5\n"), ds.schema(), &PredictOptions::default()).unwrap_err();
/// assert!(e.to_string().contains("label 'q'"), "{e}");
/// ```
pub fn read_labelled(table: Table<'_>, schema: &Schema, opts: &PredictOptions) -> Result<Dataset> {
    let target = &schema.target_name;
    let opts = PredictOptions {
        ids: vec![target.clone()],
        ..opts.clone()
    };
    let (mut x, mut y) = (Vec::new(), Vec::new());
    predict_blocks(table, schema, &opts, &mut |b| {
        x.extend_from_slice(b.data.features());
        for label in &b.ids {
            let row = y.len() + 1;
            let class = schema
                .class_names
                .iter()
                .position(|c| c == label)
                .or_else(|| {
                    let canonical = classes::canonical_label(label)?;
                    schema.class_names.iter().position(|c| *c == canonical)
                });
            y.push(class.ok_or_else(|| {
                Error::data(format!(
                    "row {row}: label '{}' in column '{target}' is not a class of the \
                     model; its classes: {}",
                    quote::quoted(label.as_bytes()),
                    schema.class_names.join(", ")
                ))
            })? as u32);
        }
        Ok(())
    })?;
    Dataset::new(x, y, schema.clone())
}

/// A CSV table from a reader.
fn csv_table<'r, R: std::io::Read + Send + 'r>(
    reader: R,
    origin: &str,
    delimiter: u8,
) -> Result<Table<'r>> {
    let opts = ReadOptions {
        delimiter,
        ..ReadOptions::default()
    };
    Table::from_stream(Box::new(reader), origin, Format::Csv, &opts)
}

/// The rows of `table` encoded as `schema`'s, as one dataset.
fn read_table_with_schema(
    table: Table<'_>,
    schema: &Schema,
    opts: &PredictOptions,
) -> Result<Dataset> {
    let mut x = Vec::new();
    let mut n = 0;
    predict_blocks(table, schema, opts, &mut |b| {
        n += b.data.n_rows();
        x.extend_from_slice(b.data.features());
        Ok(())
    })?;
    Dataset::new(x, vec![0; n], schema.clone())
}

/// Reads an unlabelled target population for a training set of `schema`:
/// as [`read_with_schema`], but its columns must be exactly the training
/// set's (its label column may be present or not); a column the training
/// set lacks, or a missing one, is an error naming them. Missing values
/// are read as `opts` says (`missing_ok`).
///
/// ```
/// use rarity::data::read::{read_from, read_population, Format, PredictOptions, ReadOptions};
/// let (ds, _) = read_from("a,b,c,y\n1,2,3,p\n3,4,5,n\n".as_bytes(), "train", Format::Csv, 0, &ReadOptions::default()).unwrap();
/// let opts = PredictOptions::default();
/// assert!(read_population("c,b,a\n5,6,7\n".as_bytes(), "t", b',', ds.schema(), &opts).is_ok());
/// let e = read_population("a,b,c,d\n5,6,7,8\n".as_bytes(), "t", b',', ds.schema(), &opts).unwrap_err();
/// assert!(e.to_string().contains("has columns the training set lacks: d"), "{e}");
/// let e = read_population("a,b\n5,6\n".as_bytes(), "t", b',', ds.schema(), &opts).unwrap_err();
/// assert!(e.to_string().contains("lacks columns of the training set: c"), "{e}");
/// ```
pub fn read_population<R: std::io::Read + Send>(
    reader: R,
    origin: &str,
    delimiter: u8,
    schema: &Schema,
    opts: &PredictOptions,
) -> Result<Dataset> {
    let table = csv_table(reader, origin, delimiter)?;
    check_same_columns(table.names(), schema, origin)?;
    read_table_with_schema(table, schema, opts)
}

/// With `exact`, the columns of `names` must be those of `schema`'s source
/// (its features' columns, optionally its target column), in any order.
fn check_same_columns(names: &[String], schema: &Schema, origin: &str) -> Result<()> {
    let known: Vec<&str> = schema.encodings.iter().map(|e| e.name()).collect();
    let extra: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|n| !known.contains(n) && *n != schema.target_name)
        .collect();
    let missing: Vec<&str> = known
        .iter()
        .copied()
        .filter(|k| !names.iter().any(|n| n == k))
        .collect();
    let problem = match (extra.is_empty(), missing.is_empty()) {
        (true, true) => return Ok(()),
        (false, true) => format!("has columns the training set lacks: {}", extra.join(", ")),
        (true, false) => format!("lacks columns of the training set: {}", missing.join(", ")),
        (false, false) => format!(
            "has columns the training set lacks ({}) and lacks columns of the training set ({})",
            extra.join(", "),
            missing.join(", ")
        ),
    };
    Err(parse_err(
        origin,
        format!(
            "the target population {problem}; expected the training set's columns {} (and optionally its label '{}')",
            known.join(", "),
            schema.target_name
        ),
    ))
}

pub(crate) fn parse_err(origin: &str, msg: impl Into<String>) -> Error {
    Error::Parse {
        origin: origin.to_string(),
        message: msg.into(),
    }
}

/// Is this (trimmed) field a missing value marker?
pub(crate) fn is_missing(field: &[u8]) -> bool {
    matches!(field, b"" | b"?" | b"NA")
}

/// A field as the readers take it: without its surrounding ASCII
/// whitespace (space, tab, line feed, form feed, carriage return), the one
/// rule of every reader for numbers, labels and levels (and of the ONNX
/// export, which maps a padded level as they do).
pub(crate) fn trim(field: &[u8]) -> &[u8] {
    field.trim_ascii()
}

/// A text value as the readers take it ([`trim`]'s rule for text).
///
/// ```
/// assert_eq!(rarity::data::read::trim_text(" a b\t\r\n"), "a b");
/// assert_eq!(rarity::data::read::trim_text("\u{a0}a"), "\u{a0}a");
/// ```
pub fn trim_text(text: &str) -> &str {
    text.trim_ascii()
}
