//! Standard streams the command line was started without, and the end of a
//! pipe's reader: both end the command the way coreutils' do.
//!
//! - A standard input or output closed by the caller (`<&-`, `>&-`):
//!   Rust's runtime opens `/dev/null` on such a descriptor before `main`,
//!   so that every row written would vanish and the command claim success.
//!   A function that runs before the runtime (an `.init_array` entry, run by
//!   the loader) holds the descriptor open instead on `/dev/null` the wrong
//!   way round (standard output read-only, standard input write-only): it
//!   cannot be reused by a file opened later, and every write to it (every
//!   read) fails with `EBADF`, the error a closed descriptor gives
//!   `seq 3 >&-` ("write error: Bad file descriptor"). An output `-` is
//!   then refused before any work.
//! - A reader that went away (`| head -1`): writing gets `EPIPE`, which
//!   ends the command as an error, so no summary claims rows that were not
//!   written. As coreutils under the default disposition of SIGPIPE (which
//!   the runtime replaces by "ignore", so the inherited one is read by the
//!   same early function), the process then dies of SIGPIPE, silently,
//!   after removing its temporaries; started with SIGPIPE ignored, it says
//!   "Broken pipe" and exits with the I/O error's code, as coreutils do.

use std::sync::atomic::{AtomicBool, Ordering};

/// Whether SIGPIPE had its default disposition when the process started.
static SIGPIPE_WAS_DEFAULT: AtomicBool = AtomicBool::new(false);

/// Run by the loader before Rust's runtime starts (see the module docs).
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static BEFORE_RUNTIME: extern "C" fn() = before_runtime;

/// Holds closed standard input and output open the wrong way round and
/// records SIGPIPE's inherited disposition. Runs before `main`: only
/// system calls, nothing that needs the runtime.
#[cfg(target_os = "linux")]
extern "C" fn before_runtime() {
    // SAFETY: fcntl, open, dup2, close and sigaction on descriptors 0 and 1
    // and a zeroed sigaction struct: no memory is shared with anything, and
    // nothing else runs yet.
    unsafe {
        for (fd, flags) in [(0, libc::O_WRONLY), (1, libc::O_RDONLY)] {
            if libc::fcntl(fd, libc::F_GETFD) >= 0 {
                continue;
            }
            // The lowest free descriptor: `fd` itself, the lower ones being
            // open (descriptor 0 is held first).
            let null = libc::open(c"/dev/null".as_ptr(), flags);
            if null >= 0 && null != fd {
                libc::dup2(null, fd);
                libc::close(null);
            }
        }
        let mut old: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(libc::SIGPIPE, std::ptr::null(), &mut old) == 0 {
            SIGPIPE_WAS_DEFAULT.store(old.sa_sigaction == libc::SIG_DFL, Ordering::Relaxed);
        }
    }
}

/// Whether `e` is a write to a pipe whose reader went away.
pub(super) fn is_broken_pipe(e: &rarity::Error) -> bool {
    matches!(e, rarity::Error::Io { source, .. } if source.kind() == std::io::ErrorKind::BrokenPipe)
}

/// Ends the process by SIGPIPE, as coreutils end under its default
/// disposition, when that is what the process inherited; returns otherwise
/// (the caller reports the error). Temporaries are removed first.
pub(super) fn end_by_sigpipe() {
    #[cfg(target_os = "linux")]
    if SIGPIPE_WAS_DEFAULT.load(Ordering::Relaxed) {
        rarity::data::write::remove_all_pending();
        // SAFETY: restoring the default disposition and raising the signal
        // end the process; no Rust state is touched.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
            libc::raise(libc::SIGPIPE);
        }
    }
}
