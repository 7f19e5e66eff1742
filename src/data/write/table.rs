//! Tables written block by block, as CSV or Parquet: the one writer behind
//! `rarity resample`, `predict` and `generate`.

use std::collections::HashMap;
use std::path::Path;

use super::block::{Block, Column, ColumnSpec};
use super::csv::CsvEncoder;
use super::parquet::ParquetEncoder;
use super::AtomicFile;
use crate::data::{ColumnEncoding, Dataset, Schema};
use crate::error::{Error, Result};

/// The file format of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    /// Comma-separated text with a header line.
    Csv,
    /// Apache Parquet (snappy-compressed).
    Parquet,
}

impl TableFormat {
    /// The format a path asks for: Parquet when it ends in `.parquet` (or
    /// `.pq`), CSV otherwise (and for `-`); a `.gz` / `.zst` suffix is
    /// looked through, as the readers do.
    pub fn from_path(path: &Path) -> TableFormat {
        match super::compress::strip_codec(path)
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("parquet" | "pq") => TableFormat::Parquet,
            _ => TableFormat::Csv,
        }
    }
}

enum Encoder {
    Csv(CsvEncoder),
    Parquet(Box<ParquetEncoder>),
}

/// A table being written block by block to an [`AtomicFile`].
///
/// ```
/// use rarity::data::write::{Block, Column, ColumnSpec, TableFormat, TableWriter};
/// let dir = std::env::temp_dir().join(format!("rarity-doc-tw-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("t.csv");
/// let cols = vec![ColumnSpec::number("p"), ColumnSpec::text("label")];
/// let mut w = TableWriter::create(&path, TableFormat::Csv, cols).unwrap();
/// let names = ["no".to_string(), "yes".to_string()];
/// w.write(&Block { rows: 2, columns: vec![
///     Column::Numbers { values: &[0.25, 1.0], width: 1, j: 0 },
///     Column::Names { ids: &[0, 1], names: &names },
/// ]}).unwrap();
/// w.commit().unwrap();
/// assert_eq!(std::fs::read_to_string(&path).unwrap(), "p,label\n0.25,no\n1,yes\n");
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub struct TableWriter {
    file: AtomicFile,
    encoder: Encoder,
    columns: usize,
}

impl TableWriter {
    /// Opens `path` (see [`AtomicFile::create`]) for a table of `columns`:
    /// CSV named `.gz` / `.zst` is compressed; Parquet, compressed inside,
    /// is never wrapped (such a name is an error).
    pub fn create(path: &Path, format: TableFormat, columns: Vec<ColumnSpec>) -> Result<Self> {
        let n = columns.len();
        let encoder = match format {
            TableFormat::Csv => {
                let mut file = AtomicFile::create_text_table(path)?;
                let e = Encoder::Csv(CsvEncoder::new(&columns, &mut file)?);
                (file, e)
            }
            TableFormat::Parquet => {
                if super::compress::codec_of(path).is_some() {
                    return Err(Error::invalid(format!(
                        "'{}': Parquet is compressed inside and is never wrapped in gzip or \
                         zstd; drop the last suffix",
                        path.display()
                    )));
                }
                let mut file = AtomicFile::create(path)?;
                let e = Encoder::Parquet(Box::new(ParquetEncoder::new(&columns, &mut file)?));
                (file, e)
            }
        };
        let (file, encoder) = encoder;
        Ok(TableWriter {
            file,
            encoder,
            columns: n,
        })
    }

    /// Appends the rows of `block` (one [`Column`] per table column).
    pub fn write(&mut self, block: &Block) -> Result<()> {
        assert_eq!(block.columns.len(), self.columns, "one column per spec");
        match &mut self.encoder {
            Encoder::Csv(c) => c.write(block, &mut self.file),
            Encoder::Parquet(p) => p.write(block, &self.file),
        }
    }

    /// Finishes the table and commits the file.
    pub fn commit(mut self) -> Result<()> {
        if let Encoder::Parquet(p) = self.encoder {
            let w = p.finish(&self.file)?;
            self.file.restore(w);
        }
        self.file.commit()
    }
}

/// Writes a dataset (feature columns, then the target by class name) as a
/// table of `format`, atomically. A categorical feature (level codes) is
/// written as its levels' texts, a missing value empty (CSV) or null
/// (Parquet), as the readers read them back.
pub fn write_dataset(ds: &Dataset, path: &Path, format: TableFormat) -> Result<()> {
    let schema = ds.schema();
    let levels = feature_levels(schema);
    let d = ds.n_features();
    let mut specs: Vec<ColumnSpec> = Vec::with_capacity(d + 1);
    let mut columns: Vec<Column<'_>> = Vec::with_capacity(d + 1);
    for (j, (name, levels)) in schema.feature_names.iter().zip(&levels).enumerate() {
        let values = ds.features();
        match levels {
            Some(levels) => {
                specs.push(ColumnSpec::levels(name));
                columns.push(Column::Levels {
                    values,
                    width: d,
                    j,
                    levels,
                });
            }
            None => {
                specs.push(ColumnSpec::feature(name));
                columns.push(Column::Numbers {
                    values,
                    width: d,
                    j,
                });
            }
        }
    }
    specs.push(ColumnSpec::text(schema.target_name.clone()));
    let mut w = TableWriter::create(path, format, specs)?;
    columns.push(Column::Names {
        ids: ds.labels(),
        names: ds.class_names(),
    });
    w.write(&Block {
        rows: ds.n_rows(),
        columns,
    })?;
    w.commit()
}

/// Per feature, the levels of a categorical feature (matched to its source
/// column by name, as [`crate::data::Schema::categorical_levels`] does).
fn feature_levels(schema: &Schema) -> Vec<Option<&[String]>> {
    let by_name: HashMap<&str, &[String]> = schema
        .encodings
        .iter()
        .filter_map(|e| match e {
            ColumnEncoding::Categorical { name, levels } => Some((name.as_str(), &levels[..])),
            _ => None,
        })
        .collect();
    schema
        .feature_names
        .iter()
        .map(|f| by_name.get(f.as_str()).copied())
        .collect()
}
