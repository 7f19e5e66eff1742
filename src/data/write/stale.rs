//! Temporaries an earlier run left behind, removed by the next run that
//! writes the same destination, safely.
//!
//! A process killed by a signal nobody can catch (SIGKILL, the kernel's
//! out-of-memory killer, a power cut) leaves its named temporaries: a
//! report's folder, which cannot be anonymous, and the instant between a
//! finished anonymous file being linked under its temporary name and
//! renamed into place. Each temporary is therefore locked while it exists
//! (`flock` on an open descriptor of it, which the kernel releases when the
//! process ends however it ends), and before a run makes a temporary for a
//! destination it removes the earlier ones of that destination that are
//! stale, as git prunes its `tmp_obj_*` files and as lock files are broken
//! once their holder is known to be gone. An entry is removed only when
//! all of these hold:
//!
//! - its name is one rarity makes for this destination,
//!   `.NAME.<16 hex digits>.tmp` or `.old`, beside it;
//! - it is a file or a folder (never a symbolic link, never followed) owned
//!   by the user running rarity;
//! - it was last modified more than [`STALE_AFTER`] ago (a temporary is
//!   locked right after it is made; this covers that instant);
//! - its lock can be taken: no living process holds it.
//!
//! What remains: a stale temporary stays until a later run writes the same
//! destination; one of another user, or on a file system without `flock`
//! (where the lock cannot be taken, so nothing is removed), stays.

use std::fs::File;
use std::path::Path;
use std::time::Duration;

/// How long after its last change a temporary may be stale.
pub(super) const STALE_AFTER: Duration = Duration::from_secs(10);

/// Takes the lock of the temporary open as `f`: exclusive, waiting for
/// nothing. `false` when another open descriptor holds it.
pub(super) fn lock(f: &File) -> bool {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a descriptor `f` owns.
        unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
    }
    #[cfg(not(unix))]
    {
        let _ = f;
        true
    }
}

/// Whether `name` is one of the temporaries rarity makes for a
/// destination named `dest_name`.
fn is_temporary_of(name: &str, dest_name: &str) -> bool {
    let Some(rest) = name
        .strip_prefix('.')
        .and_then(|r| r.strip_prefix(dest_name))
        .and_then(|r| r.strip_prefix('.'))
    else {
        return false;
    };
    let Some((tag, kind)) = rest.split_once('.') else {
        return false;
    };
    tag.len() == 16 && tag.bytes().all(|b| b.is_ascii_hexdigit()) && matches!(kind, "tmp" | "old")
}

/// Removes the stale temporaries of `dest` (see the module docs); what
/// cannot be read or removed is left as it is.
pub(super) fn sweep(dest: &Path) {
    let Some(dest_name) = dest.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return;
    };
    let dir = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        if name
            .to_str()
            .is_some_and(|n| is_temporary_of(n, &dest_name))
        {
            remove_if_stale(&e.path());
        }
    }
}

/// Removes `path` if it is a stale temporary of this user.
fn remove_if_stale(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            return;
        };
        let kind = meta.file_type();
        // SAFETY: geteuid has no preconditions.
        let mine = meta.uid() == unsafe { libc::geteuid() };
        let old = meta
            .modified()
            .ok()
            .and_then(|m| m.elapsed().ok())
            .is_some_and(|age| age > STALE_AFTER);
        if !(kind.is_file() || kind.is_dir()) || !mine || !old {
            return;
        }
        // Opened without following a link, without blocking, and checked to
        // be the entry just examined.
        let mut o = std::fs::OpenOptions::new();
        o.read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC);
        let Ok(f) = o.open(path) else {
            return;
        };
        let same = f
            .metadata()
            .is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino());
        if !same || !lock(&f) {
            return;
        }
        let _ = if kind.is_dir() {
            std::fs::remove_dir_all(path)
        } else {
            std::fs::remove_file(path)
        };
    }
    #[cfg(not(unix))]
    let _ = path;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_this_destinations_temporaries_are_candidates() {
        assert!(is_temporary_of(".o.csv.0123456789abcdef.tmp", "o.csv"));
        assert!(is_temporary_of(".rep.0123456789ABCDEF.old", "rep"));
        for other in [
            ".o.csv.0123456789abcdef.tmp.x",
            ".o.csv.0123456789abcde.tmp",
            ".o.csv.0123456789abcdeg.tmp",
            ".p.csv.0123456789abcdef.tmp",
            "o.csv.0123456789abcdef.tmp",
            ".o.csv.0123456789abcdef.bak",
        ] {
            assert!(!is_temporary_of(other, "o.csv"), "{other}");
        }
    }
}
