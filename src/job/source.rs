//! Where a job's rows come from: a data file or a bundled dataset, with
//! the reader's options. A job that can work while a file is read (`fit`'s
//! sampler stage, `evaluate`'s folds, `resample`'s draw) streams it and
//! falls back to reading it whole itself, so a front end hands the job its
//! source and never the choice.

use std::path::{Path, PathBuf};

use crate::data::read::{read_path, ReadOptions, ReadReport};
use crate::data::{bundled, Dataset, Schema};
use crate::error::Result;

/// A dataset to read.
#[derive(Debug, Clone)]
pub enum Origin {
    /// A file (CSV, Parquet, Arrow, KEEL, ARFF; `-` standard input).
    File(PathBuf),
    /// A bundled dataset, by name (`rarity datasets`).
    Bundled(String),
}

/// A dataset to read and how to read it.
#[derive(Debug, Clone)]
pub struct DataSource {
    /// Where the rows are.
    pub origin: Origin,
    /// The reader's options (missing values settled by the job's plan).
    pub read: ReadOptions,
}

impl DataSource {
    /// The file, when the rows are in one (a job may stream it).
    pub fn file(&self) -> Option<&Path> {
        match &self.origin {
            Origin::File(p) => Some(p),
            Origin::Bundled(_) => None,
        }
    }

    /// The schema training on these rows would give, before any row is
    /// read ([`crate::data::read::header_schema`]); `None` when only
    /// reading tells (standard input, a pipe, a KEEL/ARFF file, a bundled
    /// table, which is in memory).
    pub fn header_schema(&self) -> Result<Option<Schema>> {
        self.header_schema_with(&self.read)
    }

    /// [`Self::header_schema`] with other options (a job's key column).
    pub fn header_schema_with(&self, opts: &ReadOptions) -> Result<Option<Schema>> {
        match &self.origin {
            Origin::File(path) => crate::data::read::header_schema(path, opts),
            Origin::Bundled(_) => Ok(None),
        }
    }

    /// Every row, read whole; the categorical columns that strategies
    /// encode by target statistics (`--categorical target`, `COL=target`)
    /// marked for `Strategy::encoding_for`.
    pub fn read_whole(&self) -> Result<(Dataset, ReadReport)> {
        self.read_whole_with(&self.read)
    }

    /// [`Self::read_whole`] with other options (a job's key column).
    pub fn read_whole_with(&self, opts: &ReadOptions) -> Result<(Dataset, ReadReport)> {
        let (ds, report) = match &self.origin {
            Origin::File(path) => read_path(path, opts)?,
            Origin::Bundled(name) => bundled::find(name)?.load(opts)?,
        };
        Ok((opts.mark_target_statistics(ds), report))
    }
}
