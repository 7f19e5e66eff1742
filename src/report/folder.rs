//! The report folder, written whole: the files go into a temporary folder
//! beside it (an unpredictable name, created by the exclusive `mkdir`;
//! removed on any error and by the CLI's signal handler; locked while it
//! exists, so that the next run writing the report removes it if this one
//! is killed by a signal nobody can catch, see `data::write::stale`) that
//! is renamed into place at the end, as git writes its objects and sqlite
//! its journals: a report is there complete or not at all.
//!
//! An existing folder is replaced only when it is empty or holds a
//! previous rarity report (its `index.html` carries the
//! `<meta name="generator" content="rarity">` tag, or has the head older
//! reports wrote, and nothing else is beside it than `tables/` of CSV and
//! JSON files); any other folder is refused before any work, so a user's
//! folder is never destroyed. Replacing renames the old report aside, the
//! new one in, then removes the old one.

use std::path::{Path, PathBuf};

use crate::data::write::Pending;
use crate::error::{Error, Result};

/// The tag every report's `index.html` carries.
pub(super) const GENERATOR: &str = "<meta name=\"generator\" content=\"rarity\">";

/// The head of reports written before [`GENERATOR`] existed.
const LEGACY_HEAD: &str = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
                           <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>";

/// Checks before any work that a report can be written to `dir`, and
/// returns the folder it will be (links followed): an error for a dangling
/// link (saying what it points to), for something that is not a folder,
/// and for a folder that is neither empty nor a previous report.
pub fn check_report_dir(dir: &Path) -> Result<PathBuf> {
    let meta = match std::fs::symlink_metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(dir.to_path_buf()),
        Err(e) => return Err(Error::io(dir, e)),
    };
    let target = if meta.file_type().is_symlink() {
        match std::fs::canonicalize(dir) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let to = std::fs::read_link(dir).map_err(|e| Error::io(dir, e))?;
                return Err(Error::invalid(format!(
                    "report folder '{}' is a symbolic link to '{}', which does not exist; \
                     create it or remove the link",
                    dir.display(),
                    to.display()
                )));
            }
            Err(e) => return Err(Error::io(dir, e)),
        }
    } else {
        dir.to_path_buf()
    };
    if !target.is_dir() {
        return Err(Error::invalid(format!(
            "report directory '{}' exists and is not a directory",
            dir.display()
        )));
    }
    if !replaceable(&target).map_err(|e| Error::io(&target, e))? {
        return Err(Error::invalid(format!(
            "report folder '{}' exists and is not a rarity report; rarity replaces only an \
             empty folder or a previous report: choose another folder or remove it",
            dir.display()
        )));
    }
    Ok(target)
}

/// Whether `dir` is empty or a previous report.
fn replaceable(dir: &Path) -> std::io::Result<bool> {
    let mut index = false;
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let kind = e.file_type()?;
        match e.file_name().to_str() {
            Some("index.html") if kind.is_file() => index = true,
            Some("tables") if kind.is_dir() => {
                for t in std::fs::read_dir(e.path())? {
                    let t = t?;
                    let name = t.file_name().to_string_lossy().into_owned();
                    if !t.file_type()?.is_file()
                        || !(name.ends_with(".csv") || name.ends_with(".json"))
                    {
                        return Ok(false);
                    }
                }
            }
            _ => return Ok(false),
        }
    }
    if !index {
        // Empty, or only `tables/` left: not a report's own shape.
        return Ok(std::fs::read_dir(dir)?.next().is_none());
    }
    let mut head = vec![0u8; 4096];
    let n = std::io::Read::read(&mut std::fs::File::open(dir.join("index.html"))?, &mut head)?;
    let head = String::from_utf8_lossy(&head[..n]);
    Ok(head.contains(GENERATOR) || head.starts_with(LEGACY_HEAD))
}

/// Writes a report to `dir` whole: `fill` writes the files into a fresh
/// temporary folder, which then replaces `dir` (see the module docs).
pub(super) fn write_whole(dir: &Path, fill: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    let target = check_report_dir(dir)?;
    if let Some(parent) = target.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    }
    let tmp = Pending::dir(&target).map_err(|e| Error::io(dir, e))?;
    fill(tmp.path())?;
    tmp.finish(|t| put_in_place(t, &target))
        .map_err(|e| Error::io(dir, e))
}

/// Renames `tmp` onto `target`, moving a previous report aside first and
/// removing it after.
fn put_in_place(tmp: &Path, target: &Path) -> std::io::Result<()> {
    if !target.exists() {
        return std::fs::rename(tmp, target);
    }
    // Locked before it is moved aside: a run killed before removing it
    // leaves it for the next run to remove (`data::write::stale`).
    let _held = crate::data::write::locked(target)?;
    let aside = crate::data::write::temp_name(target, "old")?;
    std::fs::rename(target, &aside)?;
    if let Err(e) = std::fs::rename(tmp, target) {
        let _ = std::fs::rename(&aside, target);
        return Err(e);
    }
    std::fs::remove_dir_all(&aside)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failing_report_leaves_nothing_and_a_user_folder_is_kept() {
        let base = crate::data::write::scratch_dir("folder");
        let dir = base.join("rr");
        // A failure half way: one file written, then an error.
        let e = write_whole(&dir, |t| {
            std::fs::write(t.join("half.csv"), "x").unwrap();
            Err(Error::invalid("disk full"))
        });
        assert!(e.is_err());
        let left: Vec<_> = std::fs::read_dir(&base).unwrap().collect();
        assert!(left.is_empty(), "{left:?}");
        // A report is written whole, then replaced whole.
        for text in ["one", "two"] {
            write_whole(&dir, |t| {
                std::fs::write(t.join("index.html"), format!("{GENERATOR}{text}"))
                    .map_err(|e| Error::io(t, e))
            })
            .unwrap();
            let got = std::fs::read_to_string(dir.join("index.html")).unwrap();
            assert!(got.ends_with(text));
        }
        assert_eq!(std::fs::read_dir(&base).unwrap().count(), 1);
        // A folder of the user's is refused and kept.
        let mine = base.join("mine");
        std::fs::create_dir_all(&mine).unwrap();
        std::fs::write(mine.join("thesis.tex"), "precious").unwrap();
        let e = write_whole(&mine, |_| Ok(())).unwrap_err().to_string();
        assert!(e.contains("not a rarity report"), "{e}");
        assert!(mine.join("thesis.tex").exists());
        std::fs::remove_dir_all(&base).unwrap();
    }
}
