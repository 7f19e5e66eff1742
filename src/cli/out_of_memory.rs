//! An allocation that fails is a clear error, not an abort.
//!
//! Rust's default reaction to a failed allocation is to print "memory
//! allocation of N bytes failed" and abort (SIGABRT, a core dump, the
//! temporaries of the outputs left). The command line's allocator is the
//! system's, watched: when an allocation fails outside the library's
//! fallible growth ([`rarity::limits::grow`], which reports the failure as
//! an error of its own), it says on stderr what could not be allocated and
//! the memory the process had, removes every pending temporary, and
//! exits with the code of an error (2), as coreutils' `xalloc_die` says
//! "memory exhausted" and exits. The message is written without
//! allocating (from a buffer on the stack, with `write(2)`); removing the
//! temporaries allocates only for long paths and folders, and a failure
//! there ends the process at once.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering};

/// The system allocator, with failures reported (see the module docs).
pub(super) struct Watched;

#[global_allocator]
static ALLOCATOR: Watched = Watched;

// SAFETY: every call is passed on to the system allocator unchanged; a
// null result is returned as it is (when the caller may fail) or ends the
// process.
unsafe impl GlobalAlloc for Watched {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        checked(System.alloc(layout), layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        checked(System.alloc_zeroed(layout), layout.size())
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        checked(System.realloc(ptr, layout, new_size), new_size)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

/// `p`, unless it is null and the caller cannot take a failure.
fn checked(p: *mut u8, size: usize) -> *mut u8 {
    if p.is_null() && !rarity::limits::allocation_may_fail() {
        exhausted(size);
    }
    p
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
fn exhausted(size_asked: usize) -> ! {
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
    let _ = out.write_str("error: out of memory: ");
    size(&mut out, size_asked as f64);
    let _ = out.write_str(" could not be allocated");
    if let Some(available) = rarity::limits::memory_available_if_read() {
        let _ = out.write_str("; the memory available was ");
        size(&mut out, available as f64);
    }
    if let Some(limit) = rarity::limits::address_space_limit() {
        let _ = out.write_str(" (ulimit -v: ");
        size(&mut out, limit as f64);
        let _ = out.write_str(")");
    }
    let _ = out.write_str("; try a smaller input, fewer --threads, or more memory\n");
    // The message first: removing a folder may allocate, and a failure
    // there ends the process at once (above).
    // SAFETY: write(2) of a buffer this function owns.
    unsafe {
        libc::write(2, out.buf.as_ptr().cast(), out.len);
    }
    rarity::data::write::remove_all_pending_if_free();
    // SAFETY: _exit ends the process and runs nothing.
    unsafe { libc::_exit(2) }
}
