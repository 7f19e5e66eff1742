//! Temporary files and folders being written, and the process-wide list of
//! them.
//!
//! On Linux an output file is first an anonymous file (`O_TMPFILE`) in its
//! destination's folder: it has no name until it is complete, so that a
//! process killed in any way, SIGKILL included, leaves nothing behind (the
//! kernel frees an unlinked inode with its last descriptor). When it is
//! complete it is linked under a temporary name and renamed onto the
//! destination, both under the list's lock. Where the file system has no
//! anonymous files (or `/proc` is not mounted to link them), and for
//! folders, the temporary is named from the start.
//!
//! A named temporary is created beside its destination under a name nobody
//! can guess (`.NAME.<16 hex digits from the OS-seeded RNG>.tmp`) and
//! exclusively (`O_CREAT|O_EXCL|O_NOFOLLOW` for a file, `mkdir` for a
//! folder), retrying another name if one exists: nothing planted beforehand
//! (a symbolic link, a file) is ever followed or reused. This is what
//! `mkstemp(3)` and the `tempfile` crate do. Every temporary is locked while
//! it exists (`flock`), and the stale ones of an earlier run that was killed
//! are removed by the next run writing the same destination (see
//! [`super::stale`]).
//!
//! Every named temporary is registered while it exists and deregistered
//! when it is renamed into place or dropped. [`remove_all_pending`] removes
//! every one still registered: the CLI's signal handler calls it before
//! exiting on a signal. Creation, the final link and rename, and removal
//! happen under the list's lock, so a signal never races a rename.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// The temporaries that exist now: (id, path, is a folder).
static PENDING: Mutex<Vec<(u64, PathBuf, bool)>> = Mutex::new(Vec::new());

/// The next temporary's id.
static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A fresh id for a temporary.
fn next_id() -> u64 {
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// How many names are tried before giving up on `AlreadyExists`.
const ATTEMPTS: usize = 100;

fn list() -> MutexGuard<'static, Vec<(u64, PathBuf, bool)>> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes a temporary. A folder may still be being filled by another
/// thread (the signal thread removes it while the main thread writes a
/// report's files into it), so it is first renamed to a fresh name: the
/// filler's next file fails to be created instead of landing after
/// `remove_dir_all` listed the folder. A creation already under way can
/// still add one entry, which makes the last `rmdir` fail with "not
/// empty": the removal is retried.
fn remove(path: &Path, dir: bool) {
    if !dir {
        let _ = std::fs::remove_file(path);
        return;
    }
    let gone = renamed(path).filter(|g| std::fs::rename(path, g).is_ok());
    let at = gone.as_deref().unwrap_or(path);
    for _ in 0..100 {
        match std::fs::remove_dir_all(at) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                std::thread::sleep(std::time::Duration::from_millis(1))
            }
            _ => return,
        }
    }
}

/// Another temporary name of the same destination for the temporary
/// `path` (`.NAME.<hex>.tmp` with other digits), so that a run killed while
/// removing it leaves a stale temporary the next run removes.
fn renamed(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let dest = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (dest, tag) = dest.rsplit_once('.')?;
    if tag.len() != 16 || !tag.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    temp_name(&path.with_file_name(dest), "tmp").ok()
}

/// Removes every temporary file and folder still being written and keeps
/// the list locked, so nothing is created or renamed into place after it:
/// call it only just before the process exits.
pub fn remove_all_pending() {
    remove_and_hold(list());
}

/// Removes every temporary of the list and keeps it locked.
fn remove_and_hold(guard: MutexGuard<'static, Vec<(u64, PathBuf, bool)>>) {
    for (_, path, dir) in guard.iter() {
        remove(path, *dir);
    }
    std::mem::forget(guard);
}

/// [`remove_all_pending`], unless the list stays held for more than a
/// moment (by this very thread, when what failed was its own allocation):
/// for the command line's out-of-memory report, which must not wait for
/// ever. Allocates nothing for paths shorter than a few hundred bytes.
pub fn remove_all_pending_if_free() {
    for _ in 0..100 {
        let guard = match PENDING.try_lock() {
            Ok(g) => g,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => {
                std::thread::sleep(std::time::Duration::from_millis(1));
                continue;
            }
        };
        return remove_and_hold(guard);
    }
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
    /// The named temporary; for an anonymous file, its destination (the
    /// folder and the name it is linked under when finished).
    path: PathBuf,
    kind: Kind,
    /// An open descriptor of the temporary, holding its lock until the
    /// temporary is renamed into place or removed.
    held: File,
    /// Renamed into place: nothing to remove.
    done: bool,
}

/// What a [`Pending`] is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A named file.
    File,
    /// A named folder.
    Dir,
    /// An anonymous file (`O_TMPFILE`), named only when finished.
    Anonymous,
}

impl Pending {
    /// Creates a temporary file for `dest` with permission bits `mode`
    /// (before the umask): anonymous where the system allows, else named
    /// beside `dest`, exclusively. Stale temporaries of `dest` are removed
    /// first.
    pub(crate) fn file(dest: &Path, mode: u32) -> std::io::Result<(Pending, File)> {
        super::stale::sweep(dest);
        if let Some(made) = Self::anonymous(dest, mode)? {
            return Ok(made);
        }
        Self::create(dest, Kind::File, |p| {
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
            let f = o.open(p)?;
            let held = f.try_clone()?;
            Ok((f, held))
        })
    }

    /// Creates a temporary folder beside `dest`, exclusively. Stale
    /// temporaries of `dest` are removed first.
    pub(crate) fn dir(dest: &Path) -> std::io::Result<Pending> {
        super::stale::sweep(dest);
        Ok(Self::create(dest, Kind::Dir, |p| {
            std::fs::create_dir(p)?;
            Ok(((), File::open(p)?))
        })?
        .0)
    }

    /// An anonymous file in `dest`'s folder, or `None` where the system
    /// has none (then a named one is made).
    fn anonymous(dest: &Path, mode: u32) -> std::io::Result<Option<(Pending, File)>> {
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::fs::OpenOptionsExt;
            static LINKABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
            if !*LINKABLE.get_or_init(|| Path::new("/proc/self/fd").is_dir()) {
                return Ok(None);
            }
            let dir = match dest.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            let file = match std::fs::OpenOptions::new()
                .write(true)
                .mode(mode)
                .custom_flags(libc::O_TMPFILE | libc::O_CLOEXEC)
                .open(dir)
            {
                Ok(f) => f,
                // No anonymous files here (the file system, an old kernel).
                Err(e)
                    if e.raw_os_error().is_some_and(|c| {
                        matches!(
                            c,
                            libc::EOPNOTSUPP | libc::EISDIR | libc::EINVAL | libc::ENOENT
                        )
                    }) =>
                {
                    return Ok(None)
                }
                Err(e) => return Err(e),
            };
            let held = file.try_clone()?;
            super::stale::lock(&held);
            let p = Pending {
                id: next_id(),
                path: dest.to_path_buf(),
                kind: Kind::Anonymous,
                held,
                done: false,
            };
            Ok(Some((p, file)))
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (dest, mode);
            Ok(None)
        }
    }

    fn create<T>(
        dest: &Path,
        kind: Kind,
        make: impl Fn(&Path) -> std::io::Result<(T, File)>,
    ) -> std::io::Result<(Pending, T)> {
        let mut last = None;
        for _ in 0..ATTEMPTS {
            let path = temp_name(dest, "tmp")?;
            let mut guard = list();
            match make(&path) {
                Ok((made, held)) => {
                    super::stale::lock(&held);
                    let id = next_id();
                    guard.push((id, path.clone(), kind == Kind::Dir));
                    return Ok((
                        Pending {
                            id,
                            path,
                            kind,
                            held,
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

    /// The temporary's path (a folder's, to fill it).
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `put` (the rename into place) under the list's lock and, if it
    /// succeeds, forgets the temporary; if it fails the temporary is
    /// removed. An anonymous file is first linked under a temporary name,
    /// which `put` is given.
    pub(crate) fn finish<T>(
        mut self,
        put: impl FnOnce(&Path) -> std::io::Result<T>,
    ) -> std::io::Result<T> {
        let mut guard = list();
        let out = if self.kind == Kind::Anonymous {
            let linked = link_anonymous(&self.held, &self.path)?;
            let out = put(&linked);
            if out.is_err() {
                let _ = std::fs::remove_file(&linked);
            }
            out
        } else {
            put(&self.path)
        };
        if out.is_ok() {
            guard.retain(|(id, ..)| *id != self.id);
            self.done = true;
        }
        drop(guard);
        out
    }
}

/// Links the anonymous file open as `file` beside `dest` under a fresh
/// temporary name (`linkat` of its `/proc/self/fd` entry; a name taken by
/// then is retried) and returns the name.
fn link_anonymous(file: &File, dest: &Path) -> std::io::Result<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        use std::os::unix::ffi::OsStrExt;
        let from = std::ffi::CString::new(format!("/proc/self/fd/{}", file.as_raw_fd()))
            .expect("no NUL in a number");
        let mut last = None;
        for _ in 0..ATTEMPTS {
            let to = temp_name(dest, "tmp")?;
            let c = std::ffi::CString::new(to.as_os_str().as_bytes())
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
            // SAFETY: both paths are valid NUL-terminated strings.
            let r = unsafe {
                libc::linkat(
                    libc::AT_FDCWD,
                    from.as_ptr(),
                    libc::AT_FDCWD,
                    c.as_ptr(),
                    libc::AT_SYMLINK_FOLLOW,
                )
            };
            if r == 0 {
                return Ok(to);
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::AlreadyExists {
                return Err(e);
            }
            last = Some(e);
        }
        Err(last.expect("at least one attempt"))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (file, dest);
        Err(std::io::Error::other("anonymous files need Linux"))
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if self.done || self.kind == Kind::Anonymous {
            return; // in place, or never named: the kernel frees it
        }
        let mut guard = list();
        remove(&self.path, self.kind == Kind::Dir);
        guard.retain(|(id, ..)| *id != self.id);
    }
}

/// Opens the folder `dir` and takes its lock, held until the returned
/// descriptor is dropped: a previous report moved aside is locked so, until
/// it is removed, and a run killed meanwhile leaves it for the next run to
/// remove (see [`super::stale`]).
pub(crate) fn locked(dir: &Path) -> std::io::Result<File> {
    let f = File::open(dir)?;
    super::stale::lock(&f);
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The entries of `dir`.
    fn entries(dir: &Path) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = (std::fs::read_dir(dir).unwrap())
            .map(|e| e.unwrap().path())
            .collect();
        v.sort();
        v
    }

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
        let made = Pending::create(&dest, Kind::File, |_| {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&a)?;
            Ok(((), f))
        });
        assert_eq!(
            made.err().map(|e| e.kind()),
            Some(std::io::ErrorKind::AlreadyExists)
        );
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        // A real temporary folder is registered, then removed on drop.
        let p = Pending::dir(&dest).unwrap();
        let path = p.path().to_path_buf();
        assert!(path.is_dir() && list().iter().any(|(_, q, _)| *q == path));
        drop(p);
        assert!(!path.exists() && !list().iter().any(|(_, q, _)| *q == path));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_folder_being_filled_is_removed_whole() {
        let dir = super::super::scratch_dir("pending-filling");
        for round in 0..20 {
            let folder = temp_name(&dir.join(format!("rep{round}")), "tmp").unwrap();
            std::fs::create_dir(&folder).unwrap();
            let inside = folder.clone();
            // Another thread keeps adding files until the folder is gone,
            // as the main thread fills a report while a signal removes it.
            let filler = std::thread::spawn(move || {
                for i in 0.. {
                    if std::fs::write(inside.join(format!("f{i}.csv")), "x").is_err() {
                        return i;
                    }
                }
                unreachable!()
            });
            while std::fs::read_dir(&folder).unwrap().count() < 50 {
                std::thread::yield_now();
            }
            remove(&folder, true);
            assert_eq!(entries(&dir), Vec::<PathBuf>::new(), "round {round}");
            assert!(filler.join().unwrap() >= 50);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn an_output_file_has_no_name_until_it_is_complete() {
        use std::io::Write;
        let dir = super::super::scratch_dir("pending-anonymous");
        let dest = dir.join("o.csv");
        let (p, mut f) = Pending::file(&dest, 0o644).unwrap();
        f.write_all(b"a,b\n").unwrap();
        assert_eq!(entries(&dir), Vec::<PathBuf>::new(), "nothing is named yet");
        p.finish(|t| std::fs::rename(t, &dest)).unwrap();
        assert_eq!(entries(&dir), std::slice::from_ref(&dest));
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "a,b\n");
        // Dropped unfinished, it leaves nothing.
        let (p, mut f) = Pending::file(&dir.join("p.csv"), 0o644).unwrap();
        f.write_all(b"half").unwrap();
        drop((p, f));
        assert_eq!(entries(&dir), [dest]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn stale_temporaries_of_a_dead_run_are_removed_and_live_ones_kept() {
        let dir = super::super::scratch_dir("pending-stale");
        let dest = dir.join("rep");
        let long_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        let backdate = |p: &Path| File::open(p).unwrap().set_modified(long_ago).unwrap();
        // A dead run's folder (unlocked, old) and file: removed.
        let dead = temp_name(&dest, "tmp").unwrap();
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dead.join("index.html"), "half").unwrap();
        backdate(&dead);
        let dead_old = temp_name(&dest, "old").unwrap();
        std::fs::write(&dead_old, "x").unwrap();
        backdate(&dead_old);
        // A live run's folder (locked, however old): kept.
        let live = temp_name(&dest, "tmp").unwrap();
        std::fs::create_dir(&live).unwrap();
        let held = locked(&live).unwrap();
        backdate(&live);
        // A fresh unlocked one (just made, not locked yet): kept.
        let fresh = temp_name(&dest, "tmp").unwrap();
        std::fs::create_dir(&fresh).unwrap();
        // A link with a temporary's name, to a victim: kept, not followed.
        let victim = dir.join("victim");
        std::fs::create_dir(&victim).unwrap();
        std::fs::write(victim.join("precious"), "keep").unwrap();
        let link = temp_name(&dest, "tmp").unwrap();
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        // Another destination's temporary: not this sweep's.
        let other = temp_name(&dir.join("other"), "tmp").unwrap();
        std::fs::create_dir(&other).unwrap();
        backdate(&other);
        super::super::stale::sweep(&dest);
        let mut want = vec![
            live.clone(),
            fresh.clone(),
            link.clone(),
            other,
            victim.clone(),
        ];
        want.sort();
        assert_eq!(entries(&dir), want);
        assert!(victim.join("precious").exists());
        // Once its holder is gone, the live one is stale too.
        drop(held);
        super::super::stale::sweep(&dest);
        assert!(!live.exists() && fresh.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
