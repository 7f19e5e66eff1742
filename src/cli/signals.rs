//! Every signal whose default action ends the process: the temporary files
//! and folders being written are removed first, and the process exits with
//! the shell's convention, 128 + the signal (130 for Ctrl-C, 143 for
//! SIGTERM, 129 for SIGHUP), as GNU `sort` removes its temporaries on the
//! same list of signals (SIGALRM, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGIO,
//! SIGPROF, SIGVTALRM, SIGXCPU, SIGXFSZ), with SIGUSR1, SIGUSR2, SIGPWR,
//! SIGSTKFLT and the real-time signals, which end a process too.
//!
//! The signals are blocked in the main thread before any other thread
//! starts (every later thread inherits the mask), and one thread waits for
//! them with `sigwait`: the cleanup runs as ordinary code, not in a signal
//! handler. A signal the process was started ignoring (`nohup` ignores
//! SIGHUP, a shell's background job SIGINT) stays ignored, as `sort` leaves
//! it.
//!
//! Two need no waiting thread. SIGXFSZ (a file grown past `ulimit -f`) is
//! sent to the thread that wrote; blocked, the write fails with `EFBIG`
//! instead, an I/O error like any other, whose temporaries are removed as
//! the error unwinds. SIGPIPE is ignored by Rust's runtime: a write to a
//! closed pipe fails with `EPIPE` and ends the command (`cli/streams.rs`).
//!
//! What no handler can catch (SIGKILL, SIGSTOP, the kernel's out-of-memory
//! killer) leaves no output file behind, since files are anonymous until
//! complete, and its report folder is removed by the next run writing that
//! report (`data::write::pending`, `data::write::stale`). The faults
//! (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT of a failed assertion) cannot
//! be waited for: they stop the faulting thread at once. The Python package
//! does not install this (it has its own KeyboardInterrupt handling).

/// The signals handled (those ignored at start excepted).
#[cfg(target_os = "linux")]
fn ending_signals() -> Vec<libc::c_int> {
    let mut v = vec![
        libc::SIGHUP,
        libc::SIGINT,
        libc::SIGQUIT,
        libc::SIGTERM,
        libc::SIGUSR1,
        libc::SIGUSR2,
        libc::SIGALRM,
        libc::SIGVTALRM,
        libc::SIGPROF,
        libc::SIGXCPU,
        libc::SIGXFSZ,
        libc::SIGIO,
        libc::SIGPWR,
        libc::SIGSTKFLT,
    ];
    v.extend(libc::SIGRTMIN()..=libc::SIGRTMAX());
    v
}

/// Installs the handling; call first thing in `main`, before any thread.
#[cfg(target_os = "linux")]
pub(super) fn install() {
    // SAFETY: the sigsets are initialised by sigemptyset before use,
    // sigaction only reads the current disposition, and pthread_sigmask
    // only changes this thread's mask.
    let (blocked, waited) = unsafe {
        let mut blocked: libc::sigset_t = std::mem::zeroed();
        let mut waited: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut blocked);
        libc::sigemptyset(&mut waited);
        for sig in ending_signals() {
            let mut old: libc::sigaction = std::mem::zeroed();
            let ignored = libc::sigaction(sig, std::ptr::null(), &mut old) == 0
                && old.sa_sigaction == libc::SIG_IGN;
            if !ignored {
                libc::sigaddset(&mut blocked, sig);
                if sig != libc::SIGXFSZ {
                    libc::sigaddset(&mut waited, sig);
                }
            }
        }
        if libc::pthread_sigmask(libc::SIG_BLOCK, &blocked, std::ptr::null_mut()) != 0 {
            return;
        }
        (blocked, waited)
    };
    let waiter = std::thread::Builder::new()
        .name("signals".into())
        .stack_size(256 << 10)
        .spawn(move || loop {
            let mut signo = 0;
            // SAFETY: `waited` is a valid, initialised sigset.
            if unsafe { libc::sigwait(&waited, &mut signo) } == 0 {
                rarity::data::write::remove_all_pending();
                // SAFETY: _exit ends the process without running anything else.
                unsafe { libc::_exit(128 + signo) };
            }
        });
    if waiter.is_err() {
        // No thread to take them: let the signals act as before.
        // SAFETY: as above.
        unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &blocked, std::ptr::null_mut()) };
    }
}

/// Installs nothing where `sigwait` is not available.
#[cfg(not(target_os = "linux"))]
pub(super) fn install() {}
