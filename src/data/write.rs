//! Writing output files safely: everything goes to a temporary file beside
//! the target and is renamed into place only when complete, so an error never
//! leaves a half-written file behind.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::Dataset;
use crate::error::{Error, Result};

/// A file being written: a temporary path that becomes `path` on
/// [`AtomicFile::commit`] and is removed if dropped uncommitted.
///
/// ```
/// use std::io::Write;
/// let dir = std::env::temp_dir().join(format!("rarity-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let target = dir.join("out.txt");
/// let mut f = rarity::data::write::AtomicFile::create(&target).unwrap();
/// writeln!(f.writer(), "hello").unwrap();
/// f.commit().unwrap();
/// assert_eq!(std::fs::read_to_string(&target).unwrap(), "hello\n");
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    out: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Opens a temporary file next to `path`.
    pub fn create(path: &Path) -> Result<Self> {
        let name = path
            .file_name()
            .ok_or_else(|| Error::invalid(format!("'{}' is not a file path", path.display())))?;
        let tmp = path.with_file_name(format!(
            ".{}.tmp-{}",
            name.to_string_lossy(),
            std::process::id()
        ));
        let file = File::create(&tmp).map_err(|e| Error::io(path, e))?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp,
            out: Some(BufWriter::with_capacity(1 << 20, file)),
        })
    }

    /// The buffered writer to the temporary file.
    pub fn writer(&mut self) -> &mut BufWriter<File> {
        self.out.as_mut().expect("writer used after commit")
    }

    /// Flushes, syncs and renames the temporary file onto the target.
    pub fn commit(mut self) -> Result<()> {
        let out = self.out.take().expect("commit called twice");
        let file = out
            .into_inner()
            .map_err(|e| Error::io(&self.path, e.into_error()))?;
        file.sync_all().map_err(|e| Error::io(&self.path, e))?;
        std::fs::rename(&self.tmp, &self.path).map_err(|e| Error::io(&self.path, e))
    }

    /// Maps an I/O error on this file to [`Error::Io`].
    pub fn err(&self, e: std::io::Error) -> Error {
        Error::io(&self.path, e)
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.out.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Formats a value the way rarity writes numbers: the shortest text that
/// reads back to the same `f64`.
pub fn fmt_value(v: f64) -> String {
    format!("{v}")
}

/// Writes a dataset as CSV (header of feature names and the target name;
/// labels by class name), atomically.
pub fn write_csv(ds: &Dataset, path: &Path) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    let schema = ds.schema();
    let header: Vec<String> = schema
        .feature_names
        .iter()
        .chain(std::iter::once(&schema.target_name))
        .map(|s| quote(s))
        .collect();
    let w = f.writer();
    let mut buf = String::with_capacity(1024);
    buf.push_str(&header.join(","));
    buf.push('\n');
    for i in 0..ds.n_rows() {
        for v in ds.row(i) {
            buf.push_str(&fmt_value(*v));
            buf.push(',');
        }
        buf.push_str(&quote(&ds.class_names()[ds.label(i)]));
        buf.push('\n');
        if buf.len() > 1 << 16 {
            w.write_all(buf.as_bytes())
                .map_err(|e| Error::io(path, e))?;
            buf.clear();
        }
    }
    w.write_all(buf.as_bytes())
        .map_err(|e| Error::io(path, e))?;
    f.commit()
}

/// Quotes a CSV field when it needs it (a comma, quote or line break).
///
/// ```
/// use rarity::data::write::quote;
/// assert_eq!(quote("plain"), "plain");
/// assert_eq!(quote("a,\"b\""), "\"a,\"\"b\"\"\"");
/// ```
pub fn quote(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
