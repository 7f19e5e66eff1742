//! What a command reads and writes, checked before any work: every output
//! can be written (its folder exists and is writable, it is not a folder,
//! not a file the user may not write), and no output is one of the inputs,
//! another output, or inside a report folder that is replaced whole.
//!
//! Sameness is the file's identity, not its spelling: device and inode
//! after following links, as `cat`'s "input file is output file" and
//! `cp`'s "are the same file" checks do, so `in.csv`, `./in.csv`, a link
//! to it and `/dev/stdout` redirected into it are all the same file. An
//! output that does not exist yet is named by its folder's canonical path
//! and its file name.

use std::path::{Path, PathBuf};

use super::{check_output, is_stdio, resolve, Resolved};
use crate::error::{Error, Result};

/// The files and folders of one command, each with the words that name it
/// in an error (`"-o"`, `"the model"`, ...).
#[derive(Debug, Default)]
pub struct JobPaths<'a> {
    inputs: Vec<(&'a str, &'a Path)>,
    outputs: Vec<(&'a str, &'a Path)>,
    reports: Vec<(&'a str, &'a Path)>,
}

/// Which file or folder a path names, for comparing two paths.
#[derive(Debug, PartialEq, Eq)]
enum Identity {
    /// An existing file: device and inode.
    Existing(u64, u64),
    /// A file to be created: its folder's canonical path and its name.
    New(PathBuf),
}

/// Standard output's identity when it is a regular file (`> file`).
fn stdout_identity() -> Option<Identity> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata("/dev/stdout").ok()?;
        m.is_file().then(|| Identity::Existing(m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    None
}

/// The identity of `path` (`None` when it cannot be told, e.g. its folder
/// does not exist, which [`folder_writable`] reports).
fn identity(path: &Path) -> Option<Identity> {
    if is_stdio(path) {
        return stdout_identity();
    }
    if let Ok(m) = std::fs::metadata(path) {
        if !m.is_file() {
            return None; // a device or FIFO is written in place, never replaced
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            return Some(Identity::Existing(m.dev(), m.ino()));
        }
        #[cfg(not(unix))]
        return std::fs::canonicalize(path).ok().map(Identity::New);
    }
    let name = path.file_name()?;
    let dir = std::fs::canonicalize(folder(path)).ok()?;
    Some(Identity::New(dir.join(name)))
}

/// The folder a path's file is in (`.` for a bare name).
fn folder(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Whether the current user may create files in `dir` (as `access(2)`
/// says: root may everywhere).
fn may_create_in(dir: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
            return false;
        };
        // SAFETY: `c` is a valid NUL-terminated string for the call.
        unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) == 0 }
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        true
    }
}

/// An error unless a new file or folder can be made at `path`: its folder
/// exists, is a folder, and is writable.
fn folder_writable(what: &str, path: &Path) -> Result<()> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_dir() && !m.is_file()) {
        return Ok(()); // a device or FIFO, written in place
    }
    let dir = folder(path);
    match std::fs::metadata(dir) {
        Err(_) => Err(Error::invalid(format!(
            "{what} '{}': the folder '{}' does not exist",
            path.display(),
            dir.display()
        ))),
        Ok(m) if !m.is_dir() => Err(Error::invalid(format!(
            "{what} '{}': '{}' is not a folder",
            path.display(),
            dir.display()
        ))),
        Ok(_) if !may_create_in(dir) => Err(Error::invalid(format!(
            "{what} '{}': the folder '{}' is not writable",
            path.display(),
            dir.display()
        ))),
        Ok(_) => Ok(()),
    }
}

impl<'a> JobPaths<'a> {
    /// No paths yet.
    pub fn new() -> Self {
        JobPaths::default()
    }

    /// A file the command reads (`-`, standard input, is skipped).
    pub fn input(mut self, what: &'a str, path: &'a Path) -> Self {
        if !is_stdio(path) {
            self.inputs.push((what, path));
        }
        self
    }

    /// A file the command reads, if given.
    pub fn input_opt(self, what: &'a str, path: Option<&'a PathBuf>) -> Self {
        match path {
            Some(p) => self.input(what, p),
            None => self,
        }
    }

    /// A file the command writes (`-` is standard output).
    pub fn output(mut self, what: &'a str, path: &'a Path) -> Self {
        self.outputs.push((what, path));
        self
    }

    /// A file the command writes, if asked for.
    pub fn output_opt(self, what: &'a str, path: Option<&'a PathBuf>) -> Self {
        match path {
            Some(p) => self.output(what, p),
            None => self,
        }
    }

    /// A report folder the command writes whole, if asked for.
    pub fn report_opt(mut self, what: &'a str, path: Option<&'a PathBuf>) -> Self {
        if let Some(p) = path {
            self.reports.push((what, p));
        }
        self
    }

    /// Checks every path (see the module docs); the first problem is the
    /// error.
    ///
    /// ```
    /// use rarity::data::write::JobPaths;
    /// use std::path::Path;
    /// let dir = std::env::temp_dir().join(format!("rarity-jobpaths-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let data = dir.join("in.csv");
    /// std::fs::write(&data, "x,y\n1,0\n").unwrap();
    /// let spelled = dir.join(".").join("in.csv");
    /// let e = JobPaths::new().input("the data", &data).output("-o", &spelled).check();
    /// assert!(e.unwrap_err().to_string().contains("is the data"));
    /// let out = dir.join("out.csv");
    /// assert!(JobPaths::new().input("the data", &data).output("-o", &out).check().is_ok());
    /// let nowhere = Path::new("/nonexistent/dir/m.rarity");
    /// assert!(JobPaths::new().output("-o", nowhere).check().is_err());
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn check(&self) -> Result<()> {
        for &(what, path) in &self.outputs {
            if is_stdio(path) {
                continue;
            }
            match resolve(path) {
                // Written beside the file a chain of links ends at.
                Ok(Resolved::Regular(target)) => folder_writable(what, &target)?,
                // A held stream or a device: written in place.
                Ok(_) => {}
                Err(e) => {
                    folder_writable(what, path)?;
                    return Err(e);
                }
            }
            check_output(path)?;
        }
        for &(what, path) in &self.reports {
            folder_writable(what, path)?;
        }
        for &(w, p) in &self.inputs {
            if let Some(&(rw, dir)) = self.reports.iter().find(|r| inside(p, r.1)) {
                return Err(Error::invalid(format!(
                    "{w} '{}' is inside the folder of {rw} '{}', which is replaced whole: \
                     write the report elsewhere",
                    p.display(),
                    dir.display()
                )));
            }
        }
        let inputs: Vec<_> = self
            .inputs
            .iter()
            .filter_map(|&(w, p)| Some((w, p, identity(p)?)))
            .collect();
        let mut written: Vec<(&str, &Path, Identity)> = Vec::new();
        for &(what, path) in &self.outputs {
            let Some(id) = identity(path) else { continue };
            if let Some((w, p, _)) = inputs.iter().find(|i| i.2 == id) {
                return Err(Error::invalid(format!(
                    "{what} '{}' is {w} '{}' (the same file): rarity never writes over \
                     what it reads; choose another output",
                    path.display(),
                    p.display()
                )));
            }
            if let Some((w, p, _)) = written.iter().find(|o| o.2 == id) {
                return Err(Error::invalid(format!(
                    "{what} '{}' and {w} '{}' are the same file: give each output its own name",
                    path.display(),
                    p.display()
                )));
            }
            for &(rw, dir) in &self.reports {
                if inside(path, dir) {
                    return Err(Error::invalid(format!(
                        "{what} '{}' is inside the folder of {rw} '{}', which is replaced \
                         whole: write it elsewhere",
                        path.display(),
                        dir.display()
                    )));
                }
            }
            written.push((what, path, id));
        }
        Ok(())
    }
}

/// Whether `path`'s folder is `dir` or below it (after following links).
fn inside(path: &Path, dir: &Path) -> bool {
    let (Ok(parent), Ok(dir)) = (
        std::fs::canonicalize(folder(path)),
        std::fs::canonicalize(dir),
    ) else {
        return false;
    };
    parent.starts_with(dir)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn the_same_file_by_any_spelling_is_refused() {
        let d = crate::data::write::scratch_dir("paths-same");
        let data = d.join("in.csv");
        std::fs::write(&data, "a,y\n1,0\n").unwrap();
        let link = d.join("link.csv");
        std::os::unix::fs::symlink(&data, &link).unwrap();
        let hard = d.join("hard.csv");
        std::fs::hard_link(&data, &hard).unwrap();
        for out in [data.clone(), link, hard, d.join("sub/../in.csv")] {
            std::fs::create_dir_all(d.join("sub")).unwrap();
            let e = JobPaths::new()
                .input("the data", &data)
                .output("-o", &out)
                .check()
                .unwrap_err()
                .to_string();
            assert!(e.contains("the same file"), "{}: {e}", out.display());
        }
        // Two outputs naming one new file.
        let a = d.join("new.csv");
        let b = d.join("sub/../new.csv");
        let e = JobPaths::new()
            .output("-o", &a)
            .output("--oof", &b)
            .check()
            .unwrap_err();
        assert!(e.to_string().contains("are the same file"), "{e}");
        // An output inside a report folder (existing or not).
        let report = d.join("rr");
        let inner = report.join("index.html");
        for _ in 0..2 {
            let e = JobPaths::new()
                .output("-o", &inner)
                .report_opt("--report", Some(&report))
                .check();
            if report.exists() {
                assert!(e.unwrap_err().to_string().contains("replaced whole"));
            } else {
                assert!(e.unwrap_err().to_string().contains("does not exist"));
            }
            std::fs::create_dir_all(&report).unwrap();
        }
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn outputs_that_cannot_be_written_are_refused_before_work() {
        let d = crate::data::write::scratch_dir("paths-unwritable");
        let e = JobPaths::new()
            .output("-o", Path::new("/nonexistent/dir/m.rarity"))
            .check()
            .unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
        let file = d.join("f");
        std::fs::write(&file, "x").unwrap();
        let under_file = file.join("m.rarity");
        let e = JobPaths::new()
            .output("-o", &under_file)
            .check()
            .unwrap_err();
        assert!(e.to_string().contains("is not a folder"), "{e}");
        let e = JobPaths::new().output("-o", &d).check().unwrap_err();
        assert!(e.to_string().contains("directory"), "{e}");
        let e = JobPaths::new()
            .report_opt("--report", Some(&PathBuf::from("/nonexistent/rr")))
            .check()
            .unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
        // Devices are written in place: no folder check, and two outputs
        // may both be /dev/null.
        assert!(JobPaths::new()
            .output("-o", Path::new("/dev/null"))
            .output("--oof", Path::new("/dev/null"))
            .check()
            .is_ok());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
