//! An allocation that fails is a clear error, not an abort.
//!
//! Rust's default reaction to a failed allocation is to print "memory
//! allocation of N bytes failed" and abort (SIGABRT, a core dump, the
//! temporaries of the outputs left). [`Watched`] is the system's allocator,
//! watched: when an allocation fails outside the library's fallible growth
//! ([`crate::limits::grow`], which reports the failure as an error of its
//! own), it says on stderr what could not be allocated and the memory the
//! process had, removes every pending temporary, and exits with the code of
//! an error (2), as coreutils' `xalloc_die` says "memory exhausted" and
//! exits. The library sets no allocator: the command line and the Python
//! module each declare a `Watched` as their `#[global_allocator]`, with the
//! advice their users can act on (`--threads`, `n_jobs`). Rust code cannot
//! unwind out of a failed allocation, so in Python too the process ends
//! (a `MemoryError` is not possible); the buffers that grow with their
//! input fail before that, as `ValueError`s. The message is written without
//! allocating (from a buffer on the stack, with `write(2)`); removing the
//! temporaries allocates only for long paths and folders, and a failure
//! there ends the process at once.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering};

/// The system allocator, with failures reported (see the module docs).
pub struct Watched {
    /// The message's first words ("error", "rarity: error").
    opening: &'static str,
    /// What the user may do, the message's last words ("try a smaller
    /// input, fewer --threads, or more memory").
    advice: &'static str,
}

impl Watched {
    /// The allocator whose failure message starts with `opening` and ends
    /// with `advice` (at most 200 bytes each: the message is written from a
    /// buffer of 512 bytes on the stack).
    pub const fn new(opening: &'static str, advice: &'static str) -> Watched {
        Watched { opening, advice }
    }
}

// SAFETY: every call is passed on to the system allocator unchanged; a
// null result is returned as it is (when the caller may fail) or ends the
// process.
unsafe impl GlobalAlloc for Watched {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.checked(System.alloc(layout), layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.checked(System.alloc_zeroed(layout), layout.size())
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        self.checked(System.realloc(ptr, layout, new_size), new_size)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

impl Watched {
    /// `p`, unless it is null and the caller cannot take a failure.
    fn checked(&self, p: *mut u8, size: usize) -> *mut u8 {
        if p.is_null() && !crate::limits::allocation_may_fail() {
            exhausted(size, self.opening, self.advice);
        }
        p
    }
}

/// A fixed buffer that `write!` fills without allocating (what does not
/// fit is dropped).
struct StackText {
    buf: [u8; 512],
    len: usize,
}

impl std::fmt::Write for StackText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let room = self.buf.len() - self.len;
        let n = s.len().min(room);
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

/// `bytes` as `1.5 GB` (powers of 1000, as `limits::bytes_text`), written
/// without allocating.
fn size(out: &mut StackText, bytes: f64) {
    use std::fmt::Write;
    let units = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];
    let (mut v, mut u) = (bytes, 0);
    while v >= 1000.0 && u + 1 < units.len() {
        v /= 1000.0;
        u += 1;
    }
    let _ = if u == 0 {
        write!(out, "{v:.0} B")
    } else {
        write!(out, "{v:.1} {}", units[u])
    };
}

/// Removes the temporaries, reports and exits (see the module docs).
fn exhausted(size_asked: usize, opening: &str, advice: &str) -> ! {
    use std::fmt::Write;
    static ONCE: AtomicBool = AtomicBool::new(false);
    if ONCE.swap(true, Ordering::SeqCst) {
        // A second failure while the first is reported (by another thread,
        // or by this one removing the temporaries): give the report a
        // moment to end the process, then end it.
        std::thread::sleep(std::time::Duration::from_secs(1));
        // SAFETY: _exit ends the process and runs nothing.
        unsafe { libc::_exit(2) };
    }
    let mut out = StackText {
        buf: [0; 512],
        len: 0,
    };
    let _ = out.write_str(opening);
    let _ = out.write_str(": out of memory: ");
    size(&mut out, size_asked as f64);
    let _ = out.write_str(" could not be allocated");
    if let Some(available) = crate::limits::memory_available_if_read() {
        let _ = out.write_str("; the memory available was ");
        size(&mut out, available as f64);
    }
    if let Some(limit) = crate::limits::address_space_limit() {
        let _ = out.write_str(" (ulimit -v: ");
        size(&mut out, limit as f64);
        let _ = out.write_str(")");
    }
    let _ = out.write_str("; ");
    let _ = out.write_str(advice);
    let _ = out.write_str("\n");
    // The message first: removing a folder may allocate, and a failure
    // there ends the process at once (above).
    // SAFETY: write(2) of a buffer this function owns.
    unsafe {
        libc::write(2, out.buf.as_ptr().cast(), out.len);
    }
    crate::data::write::remove_all_pending_if_free();
    // SAFETY: _exit ends the process and runs nothing.
    unsafe { libc::_exit(2) }
}
