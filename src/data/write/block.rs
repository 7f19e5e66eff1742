//! The rows of a table column by column, as the table writers take them
//! (CSV and Parquet encoders, [`super::TableWriter`]).

/// A column's name and whether it holds text (else numbers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnSpec {
    /// The header name.
    pub name: String,
    /// Text (labels, identifiers) rather than numbers.
    pub text: bool,
    /// Text that may be missing (a categorical column's levels): empty in
    /// CSV, null in Parquet.
    pub nullable: bool,
}

impl ColumnSpec {
    /// A numeric column.
    pub fn number(name: impl Into<String>) -> Self {
        ColumnSpec {
            name: name.into(),
            text: false,
            nullable: false,
        }
    }

    /// A numeric feature column, whose missing values (NaN) are nulls in
    /// Parquet (empty in CSV, as in every numeric column).
    pub fn feature(name: impl Into<String>) -> Self {
        ColumnSpec {
            nullable: true,
            ..ColumnSpec::number(name)
        }
    }

    /// A text column.
    pub fn text(name: impl Into<String>) -> Self {
        ColumnSpec {
            name: name.into(),
            text: true,
            nullable: false,
        }
    }

    /// A categorical column written as its level texts (missing values
    /// empty in CSV, null in Parquet).
    pub fn levels(name: impl Into<String>) -> Self {
        ColumnSpec {
            name: name.into(),
            text: true,
            nullable: true,
        }
    }
}

/// The values of one column for the rows of a [`Block`].
#[derive(Debug, Clone, Copy)]
pub enum Column<'a> {
    /// Column `j` of the row-major matrix `values` of `width` columns.
    Numbers {
        /// The matrix, `rows * width` values.
        values: &'a [f64],
        /// Values per row.
        width: usize,
        /// Which of them.
        j: usize,
    },
    /// Class ids written by name.
    Names {
        /// One id per row.
        ids: &'a [u32],
        /// The name of each id.
        names: &'a [String],
    },
    /// Column `j` of the row-major matrix `values` of `width` columns,
    /// level codes written as the texts `levels` (NaN: missing).
    Levels {
        /// The matrix, `rows * width` values.
        values: &'a [f64],
        /// Values per row.
        width: usize,
        /// Which of them.
        j: usize,
        /// The text of each code.
        levels: &'a [String],
    },
    /// Column `j` of the row-major text matrix `values` of `width` columns.
    Text {
        /// The matrix, `rows * width` texts.
        values: &'a [String],
        /// Texts per row.
        width: usize,
        /// Which of them.
        j: usize,
    },
}

impl Column<'_> {
    /// The columns of every feature of a row-major matrix.
    pub fn matrix(values: &[f64], width: usize) -> Vec<Column<'_>> {
        (0..width)
            .map(|j| Column::Numbers { values, width, j })
            .collect()
    }
}

/// Some rows of a table, column by column.
#[derive(Debug, Clone)]
pub struct Block<'a> {
    /// Number of rows.
    pub rows: usize,
    /// One entry per column of the table, in order.
    pub columns: Vec<Column<'a>>,
}

/// The level text of the code `v` (`None`: missing, NaN, or a value that is
/// no level's code).
pub(super) fn level_of(v: f64, levels: &[String]) -> Option<&str> {
    (v >= 0.0 && v.fract() == 0.0)
        .then(|| levels.get(v as usize))
        .flatten()
        .map(String::as_str)
}
