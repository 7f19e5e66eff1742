//! Writing output: tables (CSV or Parquet, chosen by the file name) and
//! whole files, safely.
//!
//! What an output path may be ([`AtomicFile`], checked before any work by
//! [`check_output`]):
//!
//! - `-`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`,
//!   `/proc/<own pid>/fd/N` (so bash's `>(...)`): the stream the process
//!   already holds, written in place through a duplicate of its descriptor
//!   (an appended log stays appended; see [`stream`]);
//! - a regular file or a new path: written to a temporary file beside it
//!   (an unpredictable name, created exclusively, never through a link; see
//!   [`pending`]) and renamed into place only when complete, so an error or
//!   a signal never leaves a half-written file behind. A replaced file
//!   keeps its mode, owner and group; a file the user could not write is
//!   refused; a new file gets `0o666` minus the umask (see [`perms`]);
//! - a symbolic link is followed to its target (the link stays a link);
//! - anything else that exists (a device such as `/dev/null`, a FIFO, a
//!   terminal) is written directly: it is never replaced by a regular file;
//!   a terminal (standard output included) gets the bytes with their
//!   control characters escaped ([`crate::printable::Escaping`]);
//! - a directory is an error.
//!
//! Tables ([`TableWriter`]) are CSV with numbers in shortest round-trip form
//! ([`number::push_f64`], formatted in parallel blocks), or Parquet when the
//! path ends in `.parquet`; CSV named `.gz` / `.zst` is compressed (see
//! [`compress`]), as the readers decompress by the same names.

mod block;
mod compress;
mod csv;
pub mod number;
mod parquet;
mod paths;
mod pending;
mod perms;
mod stale;
mod stream;
mod table;

use std::fs::{File, Metadata};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub use block::{Block, Column, ColumnSpec};
pub use paths::JobPaths;
pub(crate) use pending::{locked, temp_name, Pending};
pub use pending::{remove_all_pending, remove_all_pending_if_free};
pub use stream::stdout;
pub use table::{write_dataset, TableFormat, TableWriter};

use crate::error::{Error, Result};

/// Where the bytes of an [`AtomicFile`] go.
enum Target {
    /// A temporary file renamed onto `path` on commit; `old` is the file it
    /// replaces.
    Rename {
        tmp: Pending,
        file: File,
        old: Option<Box<Metadata>>,
    },
    /// An existing special file (device, FIFO) or a held stream, written in
    /// place.
    Direct,
    /// Standard output.
    Stdout,
}

/// An output file: a temporary file that becomes `path` on
/// [`AtomicFile::commit`] and is removed if dropped uncommitted, or, for
/// `-`, streams and special files, the destination itself (see the module
/// docs).
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
    target: Target,
    out: Option<BufWriter<Box<dyn Write + Send>>>,
    /// The compressed stream under `out`, finished on commit.
    codec: Option<compress::Finisher>,
}

/// What a path names once symbolic links are followed.
enum Resolved {
    /// A regular file or nothing yet: write beside it and rename.
    Regular(PathBuf),
    /// Something else that exists: write to it directly.
    Special(PathBuf),
    /// A stream the process holds (descriptor N).
    Stream(i32),
}

/// Follows symbolic links from `path` to what they name; a stream's
/// spelling is recognised before any link is followed.
fn resolve(path: &Path) -> Result<Resolved> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        if let Some(fd) = stream::stream_fd(&p) {
            return Ok(Resolved::Stream(fd));
        }
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&p).map_err(|e| Error::io(&p, e))?;
                p = match p.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            Ok(m) if m.is_dir() => {
                return Err(Error::invalid(format!(
                    "'{}' is a directory; give a file name for the output",
                    path.display()
                )))
            }
            Ok(m) if m.is_file() => return Ok(Resolved::Regular(p)),
            Ok(_) => return Ok(Resolved::Special(p)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Resolved::Regular(p)),
            Err(e) => return Err(Error::io(&p, e)),
        }
    }
    Err(Error::invalid(format!(
        "'{}': too many levels of symbolic links",
        path.display()
    )))
}

/// The file a regular output replaces, if it exists.
fn existing(p: &Path) -> Result<Option<Metadata>> {
    match std::fs::metadata(p) {
        Ok(m) => Ok(Some(m)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(p, e)),
    }
}

/// Checks before any work that `path` can be an output: an error for a
/// directory, a loop of links, a stream descriptor (standard output for
/// `-`) that is not open for writing, or an
/// existing file the user could not write (see [`AtomicFile::create`]).
pub fn check_output(path: &Path) -> Result<()> {
    if is_stdio(path) {
        return stream::check(path, 1);
    }
    match resolve(path)? {
        Resolved::Stream(fd) => stream::check(path, fd),
        Resolved::Regular(p) if existing(&p)?.is_some() => perms::check_writable(&p),
        _ => Ok(()),
    }
}

/// Whether `path` means standard input or output (`-`).
pub fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Whether `path` writes to the process's standard output (`-`,
/// `/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`, ...).
pub fn is_stdout(path: &Path) -> bool {
    stream::stream_fd(path) == Some(1)
}

fn buffered(w: Box<dyn Write + Send>) -> Option<BufWriter<Box<dyn Write + Send>>> {
    Some(BufWriter::with_capacity(1 << 20, w))
}

/// A file written in place, its control characters escaped when it is a
/// terminal ([`crate::printable::Escaping`]): a table to a terminal is read
/// by a person, and a name in it must not drive the terminal.
fn in_place(f: File) -> Box<dyn Write + Send> {
    use std::io::IsTerminal;
    if f.is_terminal() {
        Box::new(crate::printable::Escaping::new(f))
    } else {
        Box::new(f)
    }
}

impl AtomicFile {
    /// Opens the output `path` (see the module docs for what is done with
    /// `-`, streams, links, special files and directories).
    pub fn create(path: &Path) -> Result<Self> {
        let direct = |target, w| AtomicFile {
            path: path.to_path_buf(),
            target,
            out: buffered(w),
            codec: None,
        };
        if is_stdio(path) {
            return Ok(AtomicFile {
                path: PathBuf::from("<stdout>"),
                ..direct(Target::Stdout, in_place(stream::stdout()?))
            });
        }
        match resolve(path)? {
            Resolved::Stream(fd) => {
                // What was printed through Rust's stdout goes first.
                let _ = std::io::stdout().flush();
                let s = stream::open(path, fd)?;
                Ok(direct(Target::Direct, in_place(s)))
            }
            Resolved::Special(p) => {
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&p)
                    .map_err(|e| Error::io(path, e))?;
                Ok(direct(Target::Direct, in_place(file)))
            }
            Resolved::Regular(p) => {
                let old = existing(&p)?.map(Box::new);
                if old.is_some() {
                    perms::check_writable(&p)?;
                }
                let (tmp, file) = Pending::file(&p, perms::temp_mode(old.as_deref()))
                    .map_err(|e| Error::io(path, e))?;
                let handle = file.try_clone().map_err(|e| Error::io(path, e))?;
                Ok(AtomicFile {
                    path: p,
                    target: Target::Rename {
                        tmp,
                        file: handle,
                        old,
                    },
                    out: buffered(Box::new(file)),
                    codec: None,
                })
            }
        }
    }

    /// Opens `path` for a text table: compressed when its name ends in
    /// `.gz` / `.zst` (see [`compress`]).
    pub(crate) fn create_text_table(path: &Path) -> Result<Self> {
        let mut f = Self::create(path)?;
        if let Some(codec) = compress::codec_of(path) {
            let inner = f
                .take_writer()
                .into_inner()
                .map_err(|e| f.err(e.into_error()))?;
            let (w, fin) = compress::wrap(codec, inner).map_err(|e| f.err(e))?;
            f.restore(BufWriter::with_capacity(1 << 20, w));
            f.codec = Some(fin);
        }
        Ok(f)
    }

    /// The buffered writer.
    pub fn writer(&mut self) -> &mut BufWriter<Box<dyn Write + Send>> {
        self.out.as_mut().expect("writer used after commit")
    }

    /// Takes the writer out (to hand it to an encoder that owns its sink);
    /// give it back with [`AtomicFile::restore`] before committing.
    pub(crate) fn take_writer(&mut self) -> BufWriter<Box<dyn Write + Send>> {
        self.out.take().expect("writer taken twice")
    }

    /// Puts back a writer taken with [`AtomicFile::take_writer`].
    pub(crate) fn restore(&mut self, w: BufWriter<Box<dyn Write + Send>>) {
        self.out = Some(w);
    }

    /// Flushes (finishing a compressed stream) and, for a regular file,
    /// gives the temporary the replaced file's mode and owner, syncs it and
    /// renames it onto the target.
    pub fn commit(mut self) -> Result<()> {
        let mut out = self.out.take().expect("commit called twice");
        out.flush().map_err(|e| Error::io(&self.path, e))?;
        drop(out);
        if let Some(codec) = self.codec.take() {
            codec.finish().map_err(|e| Error::io(&self.path, e))?;
        }
        let path = self.path;
        if let Target::Rename { tmp, file, old } = self.target {
            if let Some(old) = &old {
                perms::keep(&file, old).map_err(|e| Error::io(&path, e))?;
            }
            file.sync_all().map_err(|e| Error::io(&path, e))?;
            tmp.finish(|t| std::fs::rename(t, &path))
                .map_err(|e| Error::io(&path, e))?;
        }
        Ok(())
    }

    /// Maps an I/O error on this file to [`Error::Io`].
    pub fn err(&self, e: std::io::Error) -> Error {
        Error::io(&self.path, e)
    }
}

/// Formats a value the way rarity writes numbers: the shortest text that
/// reads back to the same `f64`.
pub fn fmt_value(v: f64) -> String {
    let mut b = Vec::with_capacity(24);
    number::push_f64(&mut b, v);
    String::from_utf8(b).expect("number text is ASCII")
}

/// Writes a dataset as CSV (header of feature names and the target name;
/// labels by class name), atomically.
pub fn write_csv(ds: &super::Dataset, path: &Path) -> Result<()> {
    write_dataset(ds, path, TableFormat::Csv)
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

/// A fresh, empty directory `rarity-{name}-{pid}` under the system's
/// temporary directory, for the tests that write files.
#[cfg(test)]
pub(crate) fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rarity-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn links_are_followed_and_special_files_written_in_place() {
        let dir = scratch_dir("out");
        let real = dir.join("real.csv");
        std::fs::write(&real, "old").unwrap();
        let link = dir.join("link.csv");
        std::os::unix::fs::symlink("real.csv", &link).unwrap();
        let mut f = AtomicFile::create(&link).unwrap();
        f.writer().write_all(b"new").unwrap();
        f.commit().unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        // /dev/null stays a character device.
        let mut f = AtomicFile::create(Path::new("/dev/null")).unwrap();
        f.writer().write_all(b"discarded").unwrap();
        f.commit().unwrap();
        assert!(!std::fs::metadata("/dev/null").unwrap().is_file());
        assert!(AtomicFile::create(&dir).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
