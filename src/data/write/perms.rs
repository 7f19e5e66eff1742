//! Permissions of a replaced output, as `sed -i` and `cp -p` keep them: a
//! file that rarity replaces keeps its mode bits and, where the process
//! may set them, its owner and group (`fchown` failing with `EPERM` is
//! ignored); a file the user could not write is never replaced
//! (`faccessat(W_OK, AT_EACCESS)`, so root passes, as in coreutils). New
//! files get `0o666` minus the umask.

use std::fs::{File, Metadata};
use std::path::Path;

use crate::error::{Error, Result};

/// The mode a temporary file is created with: `0o600` when it will replace
/// an existing file (widened to the final mode only before the rename, so
/// the content is never more readable than the final file), `0o666`
/// (minus the umask) for a new file.
pub(super) fn temp_mode(existing: Option<&Metadata>) -> u32 {
    if existing.is_some() {
        0o600
    } else {
        0o666
    }
}

/// Refuses to replace `path` when the effective user could not write it.
pub(super) fn check_writable(path: &Path) -> Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
            return Ok(());
        };
        // SAFETY: `c` is a valid NUL-terminated path for the call.
        let r =
            unsafe { libc::faccessat(libc::AT_FDCWD, c.as_ptr(), libc::W_OK, libc::AT_EACCESS) };
        if r != 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::NotFound {
                return Err(Error::invalid(format!(
                    "cannot replace '{}': it is not writable ({e}); rarity never replaces a file \
                     you could not write",
                    path.display()
                )));
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = path;
    Ok(())
}

/// Gives the temporary `file` the owner, group and mode of the file it
/// replaces (`old`): owner first, since a change of owner may clear the
/// set-id bits.
pub(super) fn keep(file: &File, old: &Metadata) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        use std::os::unix::fs::MetadataExt;
        let fd = file.as_raw_fd();
        // SAFETY: `fd` is an open descriptor owned by `file`.
        if unsafe { libc::fchown(fd, old.uid(), old.gid()) } != 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EPERM) {
                return Err(e);
            }
        }
        // SAFETY: as above.
        if unsafe { libc::fchmod(fd, old.mode() & 0o7777) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    #[cfg(not(target_os = "linux"))]
    file.set_permissions(old.permissions())?;
    Ok(())
}
