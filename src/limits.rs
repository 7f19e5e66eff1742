//! What the sizes a user gives may cost, checked before anything is
//! allocated: a size that cannot fit is a clear error that says how much it
//! would need, never an aborted allocation.
//!
//! - Memory: a size that implies `bytes` of memory is refused when `bytes`
//!   exceeds the memory available to the process ([`memory_available`]:
//!   Linux's `MemAvailable`, lowered by the address-space limit `ulimit -v`
//!   where one is set; 8 GiB where neither can be read).
//! - Rows: a sample that would hold more than [`max_rows`] rows (10^9 unless
//!   raised with `--max-sample-rows`) is refused, whatever the memory; a smaller
//!   one is refused when its rows (8 bytes a feature and the label, with
//!   32 bytes of bookkeeping) cannot fit in the memory available.
//! - Threads: at most [`max_threads`] worker threads.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use crate::error::{Error, Result};

/// The memory assumed available where the system does not say.
const FALLBACK_MEMORY: u64 = 8 << 30;

/// Rows a sample may hold unless raised ([`set_max_rows`]).
pub const DEFAULT_MAX_ROWS: u64 = 1_000_000_000;

/// The largest whole number a count parameter takes (members, rounds,
/// folds, k, ...): 2^32 - 1.
pub const MAX_COUNT: u64 = u32::MAX as u64;

/// The deepest tree rarity grows, reads or exports (the root at depth 0):
/// growing, a node at this depth becomes a leaf whatever `max_depth` says
/// (which accepts at most this); a model file holding a deeper tree is
/// refused when read, and an ONNX graph is never written with one.
///
/// Why 512: trees grown until pure on real data are far shallower (an
/// unpruned tree on 1,000,000 overlapping Gaussian rows is 38 deep, on
/// 13,086 rows of `sylva` 22, on 20,000 rows of alternating labels 111
/// with the histogram splitter), but the exact splitter grows such labels
/// into a chain 19,999 deep, one level per row; and ONNX Runtime (1.32)
/// reads a tree by recursion: a 2,000-deep chain overflows a 1 MiB stack
/// and about 12,000 the main thread's 8 MiB, killing the process that
/// loads the graph. A 512-deep chain loads within a 512 KiB stack.
pub const MAX_TREE_DEPTH: usize = 512;

/// Worker threads per available core at most ([`max_threads`]).
pub const THREADS_PER_CORE: usize = 4;

/// Worker threads at most, whatever the cores ([`max_threads`]).
pub const MAX_THREADS: usize = 1024;

static MAX_ROWS: AtomicU64 = AtomicU64::new(DEFAULT_MAX_ROWS);

/// The most rows a sample may hold.
pub fn max_rows() -> u64 {
    MAX_ROWS.load(Ordering::Relaxed)
}

/// Sets the most rows a sample may hold (the CLI's `--max-sample-rows`).
pub fn set_max_rows(rows: u64) {
    MAX_ROWS.store(rows, Ordering::Relaxed);
}

/// The most worker threads: 4 per available core, at most 1024. More
/// threads than cores only share the cores (the work is CPU-bound), and a
/// few per core cover the stalls of reading; beyond that they only take
/// stacks and process-table slots from a shared machine.
pub fn max_threads() -> usize {
    (cores() * THREADS_PER_CORE).min(MAX_THREADS)
}

/// The cores available to the process (`std::thread::available_parallelism`,
/// 1 where it cannot be read), asked once: on Linux the question reads
/// cgroup files, tens of microseconds that a one-row prediction from Python
/// would otherwise pay on every call.
pub fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Bytes of memory the process may still allocate: `MemAvailable` of
/// `/proc/meminfo`, at most the address-space limit (`RLIMIT_AS`) where one
/// is set; 8 GiB where neither is known. Read once.
pub fn memory_available() -> u64 {
    static MEMORY: OnceLock<u64> = OnceLock::new();
    *MEMORY.get_or_init(|| {
        let meminfo = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|t| mem_available_kib(&t))
            .map(|kib| kib.saturating_mul(1024));
        match (meminfo, address_space_limit()) {
            (Some(m), Some(l)) => m.min(l),
            (Some(m), None) => m,
            (None, Some(l)) => l.min(FALLBACK_MEMORY),
            (None, None) => FALLBACK_MEMORY,
        }
    })
}

/// The `MemAvailable` line of `/proc/meminfo`, in KiB.
fn mem_available_kib(meminfo: &str) -> Option<u64> {
    meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The soft address-space limit (`ulimit -v`), if one is set.
fn address_space_limit() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: `getrlimit` writes one `rlimit` into the struct it is given.
        let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } == 0;
        (ok && lim.rlim_cur != libc::RLIM_INFINITY).then_some(lim.rlim_cur)
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// `bytes` in words: `512 B`, `1.5 MB`, `64.0 GB` (powers of 1000).
pub fn bytes_text(bytes: f64) -> String {
    const UNITS: [&str; 6] = ["kB", "MB", "GB", "TB", "PB", "EB"];
    if bytes < 1000.0 {
        return format!("{bytes:.0} B");
    }
    let mut v = bytes;
    for unit in UNITS {
        v /= 1000.0;
        if v < 1000.0 {
            return format!("{v:.1} {unit}");
        }
    }
    format!("{bytes:.3e} B")
}

/// Fails when `what` would need more than the memory available: the error
/// says `"{what} would need {bytes}; ..."`. `bytes` is a float so that a
/// product of user sizes cannot overflow before it is checked.
pub fn check_memory(what: &str, bytes: f64) -> Result<()> {
    let available = memory_available();
    if bytes <= available as f64 {
        return Ok(());
    }
    Err(Error::invalid(format!(
        "{what} would need {}; the limit is the memory available, {}",
        bytes_text(bytes),
        bytes_text(available as f64)
    )))
}

/// Bytes a sample's row takes besides its features and label: a synthetic
/// row's recipe (two row numbers and a gap) and its row number while the
/// sample is drawn.
const ROW_OVERHEAD: f64 = 32.0;

/// Fails when a sample of `rows` rows of `features` features (stored as
/// 8-byte numbers, with the label, and [`ROW_OVERHEAD`] more while it is
/// drawn) cannot be held: more rows than [`max_rows`], or more bytes than
/// the memory available.
pub fn check_rows(what: &str, rows: f64, features: usize) -> Result<()> {
    let limit = max_rows();
    if !(rows <= limit as f64) {
        return Err(Error::invalid(format!(
            "{what} would make {rows:.0} rows; the limit is {limit} rows \
             (raise it with --max-sample-rows)"
        )));
    }
    let bytes = rows * ((features as f64 + 1.0) * 8.0 + ROW_OVERHEAD);
    check_memory(
        &format!("{what} ({rows:.0} rows of {features} features)"),
        bytes,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_in_words() {
        assert_eq!(bytes_text(512.0), "512 B");
        assert_eq!(bytes_text(64e9), "64.0 GB");
        assert_eq!(bytes_text(1.5e6), "1.5 MB");
    }

    #[test]
    fn meminfo_is_read() {
        let t = "MemTotal:       32000000 kB\nMemAvailable:   21734052 kB\n";
        assert_eq!(mem_available_kib(t), Some(21_734_052));
        assert_eq!(mem_available_kib("MemTotal: 5 kB\n"), None);
        assert!(memory_available() > 0);
    }

    #[test]
    fn what_cannot_fit_says_how_much_it_needs() {
        let e = check_memory("forest(n=1000000000)", 64e18)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("would need 64.0 EB") && e.contains("the limit is"),
            "{e}"
        );
        assert!(check_memory("a little", 1000.0).is_ok());
        let e = check_rows("smote", 1e12, 3).unwrap_err().to_string();
        assert!(
            e.contains("--max-sample-rows") && e.contains("1000000000000 rows"),
            "{e}"
        );
        assert!(check_rows("smote", f64::NAN, 3).is_err());
        assert!(check_rows("smote", 10.0, 3).is_ok());
    }

    #[test]
    fn threads_are_capped() {
        assert!((1..=MAX_THREADS).contains(&max_threads()));
    }
}
