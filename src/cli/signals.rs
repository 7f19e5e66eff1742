//! SIGINT and SIGTERM: every temporary file and folder being written is
//! removed and the process exits with the shell's convention, 128 + the
//! signal (130 for Ctrl-C, 143 for SIGTERM), as GNU `sort` removes its
//! temporaries on a signal.
//!
//! Both signals are blocked in the main thread before any other thread
//! starts (every later thread inherits the mask), and one thread waits for
//! them with `sigwait`: the cleanup runs as ordinary code, not in a signal
//! handler. A signal the process was started ignoring (`nohup`, a shell's
//! background job ignores SIGINT) stays ignored, as `sort` leaves it. The
//! Python package does not install this (it has its own KeyboardInterrupt
//! handling).

/// Installs the handling; call first thing in `main`, before any thread.
#[cfg(target_os = "linux")]
pub(super) fn install() {
    // SAFETY: the sigset is initialised by sigemptyset before use, and
    // pthread_sigmask only changes this thread's mask.
    let set = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        let mut any = false;
        for sig in [libc::SIGINT, libc::SIGTERM] {
            let mut old: libc::sigaction = std::mem::zeroed();
            let ignored = libc::sigaction(sig, std::ptr::null(), &mut old) == 0
                && old.sa_sigaction == libc::SIG_IGN;
            if !ignored {
                libc::sigaddset(&mut set, sig);
                any = true;
            }
        }
        if !any || libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return;
        }
        set
    };
    let waiter = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || loop {
            let mut signo = 0;
            // SAFETY: `set` is a valid, initialised sigset.
            if unsafe { libc::sigwait(&set, &mut signo) } == 0 {
                rarity::data::write::remove_all_pending();
                // SAFETY: _exit ends the process without running anything else.
                unsafe { libc::_exit(128 + signo) };
            }
        });
    if waiter.is_err() {
        // No thread to take them: let the signals act as before.
        // SAFETY: as above.
        unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut()) };
    }
}

/// Installs nothing where `sigwait` is not available.
#[cfg(not(target_os = "linux"))]
pub(super) fn install() {}
