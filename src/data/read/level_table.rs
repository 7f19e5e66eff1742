//! Level tables of categorical columns read in parts (issue 41: a Spark
//! DataFrame's partitions). Each part collects the distinct level texts of
//! each column; tables merge by union, so the merged table does not depend
//! on how the rows were split into parts or in which order the parts are
//! merged; and a level's code is its rank among the column's sorted texts,
//! the code the file readers give (`ColumnEncoding::Categorical`). Memory
//! grows with the distinct levels, not the rows.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::is_missing;
use crate::data::ColumnEncoding;
use crate::error::{Error, Result};

/// The distinct levels of some named columns.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LevelTable {
    columns: Vec<(String, BTreeSet<String>)>,
}

impl LevelTable {
    /// An empty table of the columns `names`.
    pub fn new(names: Vec<String>) -> LevelTable {
        LevelTable {
            columns: names.into_iter().map(|n| (n, BTreeSet::new())).collect(),
        }
    }

    /// The columns' names, in the order given.
    pub fn names(&self) -> Vec<&str> {
        self.columns.iter().map(|(n, _)| n.as_str()).collect()
    }

    /// Adds the levels `texts` of column `column` (its position among the
    /// names), read as [`level_text`] reads them; a missing value is no
    /// level.
    pub fn add<'t>(&mut self, column: usize, texts: impl IntoIterator<Item = Option<&'t str>>) {
        let set = &mut self.columns[column].1;
        for t in texts.into_iter().filter_map(level_text) {
            if !set.contains(t) {
                set.insert(t.to_string());
            }
        }
    }

    /// Adds the levels of `other`, a table of the same columns.
    ///
    /// ```
    /// use rarity::data::read::LevelTable;
    /// let names = || vec!["shop".to_string()];
    /// let (mut a, mut b) = (LevelTable::new(names()), LevelTable::new(names()));
    /// a.add(0, [Some("z"), Some("b")]);
    /// b.add(0, [Some("b"), None, Some("a")]);
    /// let mut ab = a.clone();
    /// ab.merge(b.clone()).unwrap();
    /// b.merge(a).unwrap();
    /// assert_eq!(ab, b);
    /// assert_eq!(ab.levels(0), ["a", "b", "z"]);
    /// ```
    pub fn merge(&mut self, other: LevelTable) -> Result<()> {
        if self.names() != other.names() {
            return Err(Error::invalid(format!(
                "level tables of other columns cannot merge: {} and {}",
                self.names().join(", "),
                other.names().join(", ")
            )));
        }
        for ((_, mine), (_, theirs)) in self.columns.iter_mut().zip(other.columns) {
            if mine.len() < theirs.len() {
                let smaller = std::mem::replace(mine, theirs);
                mine.extend(smaller);
            } else {
                mine.extend(theirs);
            }
        }
        Ok(())
    }

    /// Column `column`'s levels in sorted order (a level's code is its
    /// position).
    pub fn levels(&self, column: usize) -> Vec<String> {
        self.columns[column].1.iter().cloned().collect()
    }

    /// Each column's encoding: categorical, with its sorted levels.
    pub fn encodings(&self) -> Vec<ColumnEncoding> {
        (0..self.columns.len())
            .map(|c| ColumnEncoding::Categorical {
                name: self.columns[c].0.clone(),
                levels: self.levels(c),
            })
            .collect()
    }
}

/// A value as a level, by the readers' rules: trimmed, and `None` for a
/// missing value (null, empty, `?` or `NA`).
pub fn level_text(raw: Option<&str>) -> Option<&str> {
    let t = super::trim_text(raw?);
    (!is_missing(t.as_bytes())).then_some(t)
}

/// The codes of the values `texts` of a column whose levels are `levels`
/// (sorted): `None` for a missing value ([`level_text`]), NaN for a level
/// not among them (as predicting a file reads an unseen level).
///
/// ```
/// use rarity::data::read::level_codes;
/// let levels = ["a", "b"].map(String::from);
/// let codes = level_codes(&levels, [Some(" b"), Some("c"), Some("NA"), None]);
/// assert_eq!(codes[0], Some(1.0));
/// assert!(codes[1].unwrap().is_nan());
/// assert_eq!(codes[2..], [None, None]);
/// ```
pub fn level_codes<'t>(
    levels: &[String],
    texts: impl IntoIterator<Item = Option<&'t str>>,
) -> Vec<Option<f64>> {
    texts
        .into_iter()
        .map(|t| level_text(t).map(|t| level_code(levels, t).map_or(f64::NAN, |c| c as f64)))
        .collect()
}

/// The code of level `text` among `levels` (a column's levels in sorted
/// order, as [`LevelTable::levels`] and the readers give them), `None` for
/// a level not among them.
///
/// ```
/// use rarity::data::read::level_code;
/// let levels = ["a", "b", "z"].map(String::from);
/// assert_eq!(level_code(&levels, "z"), Some(2));
/// assert_eq!(level_code(&levels, "c"), None);
/// ```
pub fn level_code(levels: &[String], text: &str) -> Option<usize> {
    levels.binary_search_by(|l| l.as_str().cmp(text)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Levels split into parts in any way merge into one table, whose codes
    /// are the ranks of the sorted texts.
    #[test]
    fn any_partition_of_the_rows_gives_the_same_table() {
        let texts: Vec<String> = (0..500).map(|i| format!("l{}", i * 7919 % 311)).collect();
        let whole = {
            let mut t = LevelTable::new(vec!["c".into(), "d".into()]);
            t.add(0, texts.iter().map(|s| Some(s.as_str())));
            t
        };
        for parts in [1, 3, 7, 64] {
            let mut tables: Vec<LevelTable> = (0..parts)
                .map(|p| {
                    let mut t = LevelTable::new(vec!["c".into(), "d".into()]);
                    let mine = texts.iter().skip(p).step_by(parts);
                    t.add(0, mine.map(|s| Some(s.as_str())));
                    t
                })
                .collect();
            tables.reverse();
            let mut merged = tables.pop().unwrap();
            for t in tables {
                merged.merge(t).unwrap();
            }
            assert_eq!(merged, whole, "{parts} parts");
        }
        let levels = whole.levels(0);
        assert_eq!(levels.len(), 311);
        for (c, l) in levels.iter().enumerate() {
            assert_eq!(level_code(&levels, l), Some(c));
        }
        assert!(whole.levels(1).is_empty());
        let other = LevelTable::new(vec!["c".into()]);
        let e = whole.clone().merge(other).unwrap_err();
        assert!(e.to_string().contains("other columns"), "{e}");
    }
}
