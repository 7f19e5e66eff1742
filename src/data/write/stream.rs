//! Outputs that name a stream the process already holds: `-`,
//! `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`,
//! `/proc/thread-self/fd/N` and `/proc/<own pid>/fd/N` (so bash's
//! `>(...)`, which passes `/dev/fd/63`). They are recognised by their
//! spelling before any link is followed and written through a duplicate of
//! descriptor N, in place, as `-` is: never renamed over and never
//! reopened (reopening `/proc/self/fd/1` of a `>> log` would lose
//! `O_APPEND` and overwrite the log's head). This is what GNU coreutils
//! (`tee`, `dd of=`) do with these names on Linux.
//!
//! A descriptor that is not open for writing is refused before any work:
//! the command line starts with a standard output closed by its caller
//! (`>&-`) held open read-only (`cli/streams.rs`), where Rust's runtime
//! would have put `/dev/null` and every row would silently vanish.

use std::fs::File;
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

/// A duplicate of descriptor `fd` (a clear error when it is not open for
/// writing); `path` names it in messages. A write error, a closed pipe
/// (`EPIPE`) included, is the command's error, as it is for coreutils.
pub(super) fn open(path: &Path, fd: i32) -> Result<File> {
    duplicate(path, fd)
}

#[cfg(unix)]
fn duplicate(path: &Path, fd: i32) -> Result<File> {
    use std::os::fd::{BorrowedFd, OwnedFd};
    // SAFETY: fcntl(F_GETFL) only inspects the descriptor table.
    let flags = unsafe { libc_fcntl_getfl(fd) };
    if flags < 0 {
        return Err(Error::invalid(format!(
            "'{}' names file descriptor {fd}, which is not open",
            path.display()
        )));
    }
    if !writable(flags) {
        let what = if fd == 1 {
            "standard output".to_string()
        } else {
            format!("'{}' (file descriptor {fd})", path.display())
        };
        return Err(Error::invalid(format!(
            "{what} is not open for writing (was it closed, as with >&-?)"
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

/// The status flags of descriptor `fd` (`fcntl(F_GETFL)`), negative when
/// it is not open.
#[cfg(all(unix, target_os = "linux"))]
unsafe fn libc_fcntl_getfl(fd: i32) -> i32 {
    libc::fcntl(fd, libc::F_GETFL)
}

/// Whether a descriptor of status `flags` may be written.
#[cfg(all(unix, target_os = "linux"))]
fn writable(flags: i32) -> bool {
    flags & libc::O_ACCMODE != libc::O_RDONLY
}

#[cfg(all(unix, not(target_os = "linux")))]
unsafe fn libc_fcntl_getfl(fd: i32) -> i32 {
    if fd >= 0 {
        0
    } else {
        -1
    }
}

#[cfg(all(unix, not(target_os = "linux")))]
fn writable(_flags: i32) -> bool {
    true
}

#[cfg(not(unix))]
fn duplicate(path: &Path, _fd: i32) -> Result<File> {
    Err(Error::invalid(format!(
        "'{}': writing to a file descriptor needs a Unix system",
        path.display()
    )))
}

/// A duplicate of standard output, to write to (an error when it is not
/// open for writing). Rust's `std::io::stdout` takes a write that fails
/// with `EBADF` for a success, so a closed standard output is written
/// through this instead.
pub fn stdout() -> Result<File> {
    duplicate(Path::new("<stdout>"), 1)
}

/// Checks before any work that a stream output's descriptor is open for
/// writing.
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
