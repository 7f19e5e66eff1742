//! Outputs that name a stream the process already holds: `-`,
//! `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`,
//! `/proc/thread-self/fd/N` and `/proc/<own pid>/fd/N` (so bash's
//! `>(...)`, which passes `/dev/fd/63`). They are recognised by their
//! spelling before any link is followed and written through a duplicate of
//! descriptor N, in place, as `-` is: never renamed over and never
//! reopened (reopening `/proc/self/fd/1` of a `>> log` would lose
//! `O_APPEND` and overwrite the log's head). This is what GNU coreutils
//! (`tee`, `dd of=`) do with these names on Linux.

use std::fs::File;
use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};

/// The descriptor a path names as a stream, if it is one of the spellings
/// above (`-` is descriptor 1).
pub(super) fn stream_fd(path: &Path) -> Option<i32> {
    let s = path.to_str()?;
    let fd = |n: &str| -> Option<i32> {
        if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        n.parse().ok()
    };
    match s {
        "-" | "/dev/stdout" => return Some(1),
        "/dev/stderr" => return Some(2),
        _ => {}
    }
    if let Some(n) = s.strip_prefix("/dev/fd/") {
        return fd(n);
    }
    let rest = s.strip_prefix("/proc/")?;
    let (who, n) = rest.split_once("/fd/")?;
    let own = who == "self"
        || who == "thread-self"
        || who.parse::<u32>().ok() == Some(std::process::id());
    if own {
        fd(n)
    } else {
        None
    }
}

/// A writer that treats a closed pipe (`| head`) as the end of the output
/// rather than an error: standard output (`-`) and held streams.
pub(super) struct PipeEnd<W> {
    inner: W,
    closed: bool,
}

impl<W: Write> PipeEnd<W> {
    /// Writes to `inner` until its reader goes away.
    pub(super) fn new(inner: W) -> Self {
        PipeEnd {
            inner,
            closed: false,
        }
    }

    /// `r`, with a closed pipe marking the end of the output.
    fn ended(&mut self, r: std::io::Result<()>) -> std::io::Result<()> {
        match r {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            r => r,
        }
    }
}

impl<W: Write> Write for PipeEnd<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if !self.closed {
            let r = self.inner.write_all(buf);
            self.ended(r)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let r = self.inner.flush();
        self.ended(r)
    }
}

/// A duplicate of descriptor `fd` (a clear error when it is not open),
/// written until its reader goes away; `path` names it in messages.
pub(super) fn open(path: &Path, fd: i32) -> Result<PipeEnd<File>> {
    Ok(PipeEnd::new(duplicate(path, fd)?))
}

#[cfg(unix)]
fn duplicate(path: &Path, fd: i32) -> Result<File> {
    use std::os::fd::{BorrowedFd, OwnedFd};
    // SAFETY: fcntl(F_GETFD) only inspects the descriptor table.
    if unsafe { libc_fcntl_getfd(fd) } < 0 {
        return Err(Error::invalid(format!(
            "'{}' names file descriptor {fd}, which is not open",
            path.display()
        )));
    }
    // SAFETY: `fd` was just checked to be open and is only borrowed for the
    // duplication.
    let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
    let owned: OwnedFd = borrowed
        .try_clone_to_owned()
        .map_err(|e| Error::io(path, e))?;
    Ok(File::from(owned))
}

#[cfg(all(unix, target_os = "linux"))]
unsafe fn libc_fcntl_getfd(fd: i32) -> i32 {
    libc::fcntl(fd, libc::F_GETFD)
}

#[cfg(all(unix, not(target_os = "linux")))]
unsafe fn libc_fcntl_getfd(fd: i32) -> i32 {
    if fd >= 0 {
        0
    } else {
        -1
    }
}

#[cfg(not(unix))]
fn duplicate(path: &Path, _fd: i32) -> Result<File> {
    Err(Error::invalid(format!(
        "'{}': writing to a file descriptor needs a Unix system",
        path.display()
    )))
}

/// Checks before any work that a stream output's descriptor is open.
pub(super) fn check(path: &Path, fd: i32) -> Result<()> {
    duplicate(path, fd).map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_spellings_are_recognised() {
        let own = format!("/proc/{}/fd/7", std::process::id());
        for (p, want) in [
            ("-", Some(1)),
            ("/dev/stdout", Some(1)),
            ("/dev/stderr", Some(2)),
            ("/dev/fd/63", Some(63)),
            ("/proc/self/fd/1", Some(1)),
            ("/proc/thread-self/fd/4", Some(4)),
            (own.as_str(), Some(7)),
            ("/proc/1/fd/1", None),
            ("/dev/fd/", None),
            ("/dev/fd/1x", None),
            ("/dev/null", None),
            ("out.csv", None),
        ] {
            assert_eq!(stream_fd(Path::new(p)), want, "{p}");
        }
        assert!(check(Path::new("/dev/fd/987654"), 987654).is_err());
    }
}
