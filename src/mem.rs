//! Large buffers that are written once, in parallel, right after allocation
//! (SMOTE's synthetic rows, a materialised sample: hundreds of megabytes).
//!
//! Such a buffer comes from the kernel as untouched pages (`calloc` maps a
//! large block anew and does not write it), and the first write to each
//! 4 KiB page takes a page fault that zeroes the page and charges it to the
//! memory cgroup: for a quarter of a gigabyte, 60,000 faults, which cost
//! more than computing and writing the values. Where transparent huge pages
//! are enabled for regions that ask for them (Linux's `madvise` mode, a
//! common default, or `always`), advising the buffer with
//! `madvise(MADV_HUGEPAGE)` before the first write lets each fault map a
//! 2 MiB page instead, 512 times fewer faults (the kernel's
//! `Documentation/admin-guide/mm/transhuge.rst`). Measured on a 235 MB
//! buffer filled by two threads: 0.16 s with 4 KiB pages, 0.075 s with huge
//! pages. Elsewhere (other systems, THP disabled, the advice refused) the
//! buffer is the same, only without the advice.
//!
//! Also here: asking the processor to fetch memory about to be read at
//! scattered places ([`prefetch`], [`prefetch_all`]), where the hardware
//! prefetcher cannot guess the next address.

/// Buffers smaller than this are not advised (a few pages' faults cost less
/// than the system call, and the huge pages would be mostly partial).
const ADVISE_MIN_BYTES: usize = 4 << 20;

/// `len` copies of `T::default()` (zero for the numbers this is used with)
/// in a fresh allocation advised for huge pages (see the module
/// documentation): for buffers whose every value is about to be written.
pub(crate) fn zeroed<T: Copy + Default>(len: usize) -> Vec<T> {
    // For numbers, `vec!` of zeros allocates with `calloc`, which does not
    // touch the pages of a fresh large block.
    let mut v = vec![T::default(); len];
    advise_huge_pages(&mut v);
    v
}

/// Asks the kernel to back the whole 2 MiB pages of `buf` with huge pages
/// when they are first touched; no effect on the values, nor off Linux.
fn advise_huge_pages<T>(buf: &mut [T]) {
    let bytes = std::mem::size_of_val(buf);
    if bytes < ADVISE_MIN_BYTES {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        const HUGE_PAGE: usize = 2 << 20;
        let start = buf.as_mut_ptr() as usize;
        // The 2 MiB-aligned part of the buffer (at least one huge page,
        // since the buffer spans at least two).
        let lo = start.next_multiple_of(HUGE_PAGE);
        let hi = (start + bytes) / HUGE_PAGE * HUGE_PAGE;
        if hi > lo {
            // SAFETY: `[lo, hi)` lies within `buf`, an allocation borrowed
            // mutably here, and `lo` is page-aligned as `madvise` requires.
            // `MADV_HUGEPAGE` only changes how the kernel backs these pages
            // on their next fault; it never changes their contents, so no
            // Rust value is affected. A failure (e.g. `EINVAL` on a kernel
            // without transparent huge pages) leaves the pages as they were,
            // so the result is ignored.
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
            }
        }
    }
}

/// Asks the processor to fetch the cache line of `s[at]` (nothing if `at`
/// is out of range, or off x86-64); no effect on any value.
#[inline(always)]
pub(crate) fn prefetch<T>(s: &[T], at: usize) {
    #[cfg(target_arch = "x86_64")]
    if at < s.len() {
        // SAFETY: `at` is in bounds; a prefetch reads nothing observable.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch(s.as_ptr().add(at).cast::<i8>(), _MM_HINT_T0);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (s, at);
}

/// [`prefetch`] of every cache line `s` spans.
#[inline(always)]
pub(crate) fn prefetch_all<T>(s: &[T]) {
    const LINE: usize = 64;
    let size = std::mem::size_of::<T>().max(1);
    let step = (LINE / size).max(1);
    let mut at = 0;
    while at < s.len() {
        prefetch(s, at);
        at += step;
    }
    // The last line, when `s` does not start on a line's boundary.
    prefetch(s, s.len().wrapping_sub(1));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroed_buffers_hold_zeros_and_take_writes() {
        for len in [0, 1, 1000, (ADVISE_MIN_BYTES / 8) + 12_345] {
            let mut v: Vec<f64> = zeroed(len);
            assert_eq!(v.len(), len);
            assert!(v.iter().all(|&x| x == 0.0));
            v.iter_mut().enumerate().for_each(|(i, x)| *x = i as f64);
            assert!(v.iter().enumerate().all(|(i, &x)| x == i as f64));
        }
        let u: Vec<usize> = zeroed(ADVISE_MIN_BYTES);
        assert!(u.iter().all(|&x| x == 0));
    }

    /// On Linux with transparent huge pages available, the aligned part of a
    /// large buffer carries the kernel's `hg` (huge page advised) flag.
    #[cfg(target_os = "linux")]
    #[test]
    fn large_buffers_are_advised() {
        let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled");
        if thp.map_or(true, |s| s.contains("[never]")) {
            return;
        }
        let v: Vec<f64> = zeroed(3 * ADVISE_MIN_BYTES / 8);
        let mid = v[v.len() / 2..].as_ptr() as usize;
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        let mut flags = None;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ') {
                if let Some((a, b)) = range.split_once('-') {
                    if let (Ok(a), Ok(b)) =
                        (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
                    {
                        inside = (a..b).contains(&mid);
                        continue;
                    }
                }
            }
            if inside {
                if let Some(f) = line.strip_prefix("VmFlags:") {
                    flags = Some(f.to_string());
                }
            }
        }
        let flags = flags.expect("the buffer's mapping is listed");
        assert!(flags.split_whitespace().any(|f| f == "hg"), "{flags}");
    }
}
