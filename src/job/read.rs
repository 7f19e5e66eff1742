//! The reading request every job's data comes through, from either front
//! end: the reader options as their users write them (`--delimiter tab`,
//! `decimal=","`, `--categorical-cols merchant=target`), parsed once here
//! into the reader's [`ReadOptions`], an error naming the parameter as the
//! front end spells it.

use crate::data::read::{Categorical, Missing, ReadOptions};
use crate::error::{Error, Result};
use crate::job::Front;

/// The reader options of a data file as text, the way the command line's
/// flags and Python's keyword arguments both give them.
#[derive(Debug, Clone)]
pub struct ReadSpec {
    /// The target column: a name or a 0-based index (negative from the
    /// end); `None`: the last column.
    pub target: Option<String>,
    /// The label of the positive class; `None`: the minority.
    pub positive: Option<String>,
    /// The CSV field delimiter: one ASCII character, or `tab`.
    pub delimiter: String,
    /// Whether the CSV has a header row (else the columns are `x0`, ...).
    pub header: bool,
    /// Non-numeric feature columns: `error`, `one-hot`, `native`, `target`.
    pub categorical: String,
    /// Columns read as categorical (`COL`), or with a mode of their own
    /// (`COL=MODE`).
    pub categorical_cols: Vec<String>,
    /// Missing values (settled by the job before reading).
    pub missing: Missing,
    /// Drop the feature columns that take a single value.
    pub drop_constant: bool,
    /// Columns left out.
    pub drop: Vec<String>,
    /// The decimal separator of CSV numbers: `.` or `,`.
    pub decimal: String,
    /// Which front end wrote it (for its error messages).
    pub front: Front,
}

impl Default for ReadSpec {
    fn default() -> Self {
        ReadSpec {
            target: None,
            positive: None,
            delimiter: ",".into(),
            header: true,
            categorical: "error".into(),
            categorical_cols: Vec::new(),
            missing: Missing::Auto,
            drop_constant: false,
            drop: Vec::new(),
            decimal: ".".into(),
            front: Front::Cli,
        }
    }
}

impl ReadSpec {
    /// The reader's options, every text parsed and checked.
    ///
    /// ```
    /// use rarity::data::read::Categorical;
    /// use rarity::job::{read::ReadSpec, Front};
    /// let spec = ReadSpec {
    ///     delimiter: "tab".into(),
    ///     categorical_cols: vec!["shop".into(), "card=target".into()],
    ///     ..ReadSpec::default()
    /// };
    /// let o = spec.options().unwrap();
    /// assert_eq!((o.delimiter, o.categorical_cols), (b'\t', vec!["shop".to_string()]));
    /// assert_eq!(o.column_modes, vec![("card".to_string(), Categorical::Target)]);
    /// let bad = ReadSpec { decimal: ";".into(), front: Front::Python, ..ReadSpec::default() };
    /// assert_eq!(bad.options().unwrap_err().to_string(), "decimal must be '.' or ',', got ';'");
    /// ```
    pub fn options(&self) -> Result<ReadOptions> {
        let front = self.front;
        let mut opts = ReadOptions {
            target: self.target.clone(),
            positive: self.positive.clone(),
            delimiter: delimiter(&self.delimiter, front)?,
            has_header: self.header,
            categorical: Categorical::named(&self.categorical).ok_or_else(|| {
                Error::invalid(format!(
                    "{} is invalid; expected error, one-hot, native or target",
                    given(front, "categorical", &self.categorical)
                ))
            })?,
            missing: self.missing,
            drop_constant: self.drop_constant,
            drop: self.drop.clone(),
            decimal: decimal(&self.decimal, front)?,
            ..ReadOptions::default()
        };
        for entry in &self.categorical_cols {
            match entry.split_once('=') {
                None => opts.categorical_cols.push(entry.clone()),
                Some((col, mode)) => opts
                    .column_modes
                    .push((col.to_string(), column_mode(col, mode, front)?)),
            }
        }
        Ok(opts)
    }
}

/// `name` given `value`, as the front end's user wrote it
/// (`--categorical 'x'`, `categorical='x'`).
fn given(front: Front, name: &str, value: &str) -> String {
    match front {
        Front::Cli => format!("{} '{value}'", front.param(name)),
        Front::Python => format!("{name}='{value}'"),
    }
}

/// The delimiter byte of `text`: one ASCII character, or `tab`.
fn delimiter(text: &str, front: Front) -> Result<u8> {
    match text {
        "tab" | "\\t" => Ok(b'\t'),
        s if s.len() == 1 && s.is_ascii() => Ok(s.as_bytes()[0]),
        s => Err(Error::invalid(format!(
            "{} must be one ASCII character or 'tab', got '{s}'",
            front.param("delimiter")
        ))),
    }
}

/// The decimal separator of `text`: `.` or `,`.
pub fn decimal(text: &str, front: Front) -> Result<u8> {
    match text {
        "." => Ok(b'.'),
        "," => Ok(b','),
        _ => Err(Error::invalid(format!(
            "{} must be '.' or ',', got '{text}'",
            front.param("decimal")
        ))),
    }
}

/// The mode of a `COL=MODE` entry of `categorical_cols`.
fn column_mode(col: &str, mode: &str, front: Front) -> Result<Categorical> {
    let p = front.param("categorical_cols");
    if col.is_empty() {
        return Err(Error::invalid(format!(
            "{p} '={mode}' names no column; write COL=MODE"
        )));
    }
    Categorical::named(mode).ok_or_else(|| {
        Error::invalid(format!(
            "{p} {col}={mode}: the mode of column '{col}' must be native, one-hot, target or error"
        ))
    })
}
