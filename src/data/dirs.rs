//! Loading every dataset of some directories for the papers' experiments:
//! each `.csv` file of each directory (default options, label in the last
//! column), or the bundled datasets when no directory is given, skipping
//! those with more rows than a limit.
//!
//! Only regular files are read (a symbolic link is followed to one): a
//! FIFO would block the experiment forever on its first read, a device or
//! socket is no dataset, and a dangling link names nothing. Each is
//! skipped and said so with the other skipped datasets, as `find -type f`
//! or `rsync` pass over what is not a file rather than stopping the walk.

use std::path::{Path, PathBuf};

use super::bundled::BUNDLED;
use super::read::{read_path, ReadOptions};
use super::Dataset;
use crate::error::{Error, Result};

/// Named datasets, and those left out.
#[derive(Debug, Clone)]
pub struct LoadedDatasets {
    /// Each dataset with its name (the file stem, or the bundled name), in
    /// order: directory by directory, files sorted by path.
    pub datasets: Vec<(String, Dataset)>,
    /// Why each left-out dataset was skipped (`NAME: N rows > --max-rows M`).
    pub skipped: Vec<String>,
}

/// Loads every `.csv` file of `dirs` (sorted by path within a directory), or
/// every bundled dataset when `dirs` is empty, skipping datasets with more
/// than `max_rows` rows and entries that are not regular files (see the
/// module docs). A directory, or a regular file that cannot be read, is an
/// error.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("rarity-doc-dirs-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// std::fs::write(dir.join("small.csv"), "x,y\n1,a\n2,b\n3,a\n").unwrap();
/// std::fs::write(dir.join("notes.txt"), "not a dataset").unwrap();
/// let loaded = rarity::data::dirs::load_dirs(&[dir.clone()], 2).unwrap();
/// assert!(loaded.datasets.is_empty());
/// assert_eq!(loaded.skipped, ["small: 3 rows > --max-rows 2"]);
/// let loaded = rarity::data::dirs::load_dirs(&[dir.clone()], 10).unwrap();
/// assert_eq!(loaded.datasets[0].0, "small");
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn load_dirs(dirs: &[PathBuf], max_rows: usize) -> Result<LoadedDatasets> {
    let mut datasets = Vec::new();
    let mut skipped = Vec::new();
    // A dataset read, or why an entry is not one.
    let mut keep = |name: String, ds: std::result::Result<Dataset, String>| match ds {
        Err(why) => skipped.push(format!("{name}: {why}")),
        Ok(ds) if ds.n_rows() > max_rows => skipped.push(format!(
            "{name}: {} rows > --max-rows {max_rows}",
            ds.n_rows()
        )),
        Ok(ds) => datasets.push((name, ds)),
    };
    if dirs.is_empty() {
        for b in BUNDLED {
            keep(b.name.to_string(), Ok(b.load(&ReadOptions::default())?.0));
        }
    }
    for dir in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| Error::io(dir, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "csv"))
            .collect();
        files.sort();
        for f in files {
            let name = f
                .file_stem()
                .map_or(String::new(), |s| s.to_string_lossy().into_owned());
            match not_regular(&f) {
                Some(why) => keep(name, Err(why)),
                None => keep(name, Ok(read_path(&f, &ReadOptions::default())?.0)),
            }
        }
    }
    Ok(LoadedDatasets { datasets, skipped })
}

/// Why `path` is not a regular file to read (links followed), or `None`
/// when it is one.
fn not_regular(path: &Path) -> Option<String> {
    let meta = match std::fs::metadata(path) {
        Ok(m) if m.is_file() => return None,
        Ok(m) => m,
        Err(e) => {
            return Some(match std::fs::read_link(path) {
                Ok(to) if e.kind() == std::io::ErrorKind::NotFound => format!(
                    "a symbolic link to '{}', which does not exist",
                    to.display()
                ),
                _ => format!("cannot be read ({e})"),
            })
        }
    };
    let t = meta.file_type();
    let what = if t.is_dir() {
        "a folder"
    } else {
        special_kind(&t)
    };
    Some(format!("not a regular file ({what})"))
}

/// What a special file is, in words.
fn special_kind(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    let _ = t;
    "a special file"
}
