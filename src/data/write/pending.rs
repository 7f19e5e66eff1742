//! Temporary files and folders being written, and the process-wide list of
//! them.
//!
//! A temporary is created beside its destination under a name nobody can
//! guess (`.NAME.<16 hex digits from the OS-seeded RNG>.tmp`) and
//! exclusively (`O_CREAT|O_EXCL|O_NOFOLLOW` for a file, `mkdir` for a
//! folder), retrying another name if one exists: nothing planted beforehand
//! (a symbolic link, a file) is ever followed or reused. This is what
//! `mkstemp(3)` and the `tempfile` crate do.
//!
//! Every temporary is registered while it exists and deregistered when it
//! is renamed into place or dropped. [`remove_all_pending`] removes every
//! one still registered: the CLI's signal handler calls it before exiting
//! on SIGINT / SIGTERM. Creation, the final rename and removal happen
//! under the list's lock, so a signal never races a rename.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// The temporaries that exist now: (id, path, is a folder).
static PENDING: Mutex<Vec<(u64, PathBuf, bool)>> = Mutex::new(Vec::new());

/// How many names are tried before giving up on `AlreadyExists`.
const ATTEMPTS: usize = 100;

fn list() -> MutexGuard<'static, Vec<(u64, PathBuf, bool)>> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

fn remove(path: &Path, dir: bool) {
    let _ = if dir {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    };
}

/// Removes every temporary file and folder still being written and keeps
/// the list locked, so nothing is created or renamed into place after it:
/// call it only just before the process exits.
pub fn remove_all_pending() {
    let guard = list();
    for (_, path, dir) in guard.iter() {
        remove(path, *dir);
    }
    std::mem::forget(guard);
}

/// A fresh unpredictable name beside `dest`: `.NAME.<hex>.tmp`.
pub(crate) fn temp_name(dest: &Path, suffix: &str) -> std::io::Result<PathBuf> {
    use rand::RngExt;
    let name = dest.file_name().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("'{}' is not a file path", dest.display()),
        )
    })?;
    let tag: u64 = rand::rng().random();
    Ok(dest.with_file_name(format!(".{}.{tag:016x}.{suffix}", name.to_string_lossy())))
}

/// A temporary file or folder, registered until [`Pending::finish`]ed or
/// dropped (then removed).
pub(crate) struct Pending {
    id: u64,
    path: PathBuf,
    dir: bool,
    /// Renamed into place: nothing to remove.
    done: bool,
}

impl Pending {
    /// Creates a temporary file beside `dest` with permission bits `mode`
    /// (before the umask), exclusively.
    pub(crate) fn file(dest: &Path, mode: u32) -> std::io::Result<(Pending, File)> {
        Self::create(dest, false, |p| {
            let mut o = std::fs::OpenOptions::new();
            o.write(true).create_new(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                o.mode(mode);
                #[cfg(target_os = "linux")]
                o.custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
            }
            #[cfg(not(unix))]
            let _ = mode;
            o.open(p)
        })
    }

    /// Creates a temporary folder beside `dest`, exclusively.
    pub(crate) fn dir(dest: &Path) -> std::io::Result<Pending> {
        Ok(Self::create(dest, true, |p| std::fs::create_dir(p))?.0)
    }

    fn create<T>(
        dest: &Path,
        dir: bool,
        make: impl Fn(&Path) -> std::io::Result<T>,
    ) -> std::io::Result<(Pending, T)> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let mut last = None;
        for _ in 0..ATTEMPTS {
            let path = temp_name(dest, "tmp")?;
            let mut guard = list();
            match make(&path) {
                Ok(made) => {
                    let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    guard.push((id, path.clone(), dir));
                    return Ok((
                        Pending {
                            id,
                            path,
                            dir,
                            done: false,
                        },
                        made,
                    ));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.expect("at least one attempt"))
    }

    /// The temporary's path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `put` (the rename into place) under the list's lock and, if it
    /// succeeds, forgets the temporary; if it fails the temporary is
    /// removed.
    pub(crate) fn finish<T>(
        mut self,
        put: impl FnOnce(&Path) -> std::io::Result<T>,
    ) -> std::io::Result<T> {
        let mut guard = list();
        let out = put(&self.path);
        if out.is_ok() {
            guard.retain(|(id, ..)| *id != self.id);
            self.done = true;
        }
        drop(guard);
        out
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let mut guard = list();
        remove(&self.path, self.dir);
        guard.retain(|(id, ..)| *id != self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn planted_links_are_never_followed() {
        let dir = super::super::scratch_dir("pending");
        let victim = dir.join("victim.txt");
        std::fs::write(&victim, "keep").unwrap();
        let dest = dir.join("o.csv");
        // Names differ every time and carry 64 random bits.
        let a = temp_name(&dest, "tmp").unwrap();
        let b = temp_name(&dest, "tmp").unwrap();
        assert_ne!(a, b);
        let name = a.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with(".o.csv.") && name.ends_with(".tmp") && name.len() == 27);
        assert!(!name.contains(&format!("tmp-{}", std::process::id())));
        // A link planted at the very name chosen is refused, not followed.
        std::os::unix::fs::symlink(&victim, &a).unwrap();
        let made = Pending::create(&dest, false, |_| {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&a)
        });
        assert_eq!(
            made.err().map(|e| e.kind()),
            Some(std::io::ErrorKind::AlreadyExists)
        );
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        // A real temporary is registered, then removed on drop.
        let (p, _) = Pending::file(&dest, 0o600).unwrap();
        let path = p.path().to_path_buf();
        assert!(path.exists() && list().iter().any(|(_, q, _)| *q == path));
        drop(p);
        assert!(!path.exists() && !list().iter().any(|(_, q, _)| *q == path));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
