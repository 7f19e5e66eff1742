//! What the sizes a user gives may cost, checked before anything is
//! allocated: a size that cannot fit is a clear error that says how much it
//! would need, never an aborted allocation.
//!
//! - Memory: a size that implies `bytes` of memory is refused when `bytes`
//!   exceeds the memory available to the process ([`memory_available`]:
//!   the least of Linux's `MemAvailable`, the address space left under
//!   `ulimit -v` and what the memory cgroup still allows; 8 GiB where none
//!   can be read). Buffers that grow with the input grow through [`grow`],
//!   checked against the same figure, their allocation allowed to fail
//!   ([`allocation_may_fail`]) so that a failure is an error, not an abort.
//! - Under an address-space limit, the allocator's per-thread arenas
//!   ([`fit_allocator_to_address_space`]), the worker threads' stacks
//!   ([`check_thread_stacks`], [`default_threads`]) and the buffers in
//!   flight ([`in_flight`]) are sized to fit it.
//! - Rows: a sample that would hold more than [`max_rows`] rows (10^9 unless
//!   raised with `--max-sample-rows`) is refused, whatever the memory; a smaller
//!   one is refused when its rows (8 bytes a feature and the label, with
//!   32 bytes of bookkeeping) cannot fit in the memory available.
//! - Threads: at most [`max_threads`] worker threads.

use std::cell::Cell;
use std::path::{Path, PathBuf};
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

/// Bytes of memory the process may still allocate: the least of
/// `MemAvailable` of `/proc/meminfo`, the address space left under
/// `RLIMIT_AS` (the limit less what the process maps already, `VmSize`),
/// and the memory cgroup's room ([`cgroup_room`]); 8 GiB where none is
/// known. Read once.
pub fn memory_available() -> u64 {
    *MEMORY.get_or_init(|| {
        let meminfo = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|t| kib_field(&t, "MemAvailable:"))
            .map(|kib| kib.saturating_mul(1024));
        let limits = [meminfo, address_space_left(), cgroup_room()];
        match limits.iter().flatten().min() {
            Some(&least) if meminfo.is_some() => least,
            Some(&least) => least.min(FALLBACK_MEMORY),
            None => FALLBACK_MEMORY,
        }
    })
}

static MEMORY: OnceLock<u64> = OnceLock::new();

/// [`memory_available`] if it has been read, without reading it (for a
/// caller that may not allocate: the command line's out-of-memory report).
pub fn memory_available_if_read() -> Option<u64> {
    MEMORY.get().copied()
}

/// The value of the `name` line (`MemAvailable:`, `VmSize:`) of a
/// `/proc` file in kB, in KiB.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix(name))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The soft address-space limit (`ulimit -v`), if one is set.
pub fn address_space_limit() -> Option<u64> {
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

/// The address space left under `ulimit -v`: the limit less the process's
/// `VmSize` now; `None` without a limit.
fn address_space_left() -> Option<u64> {
    let limit = address_space_limit()?;
    let mapped = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|t| kib_field(&t, "VmSize:"))
        .map_or(0, |kib| kib.saturating_mul(1024));
    Some(limit.saturating_sub(mapped))
}

/// Which version of the cgroup interface a folder speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cgroup {
    /// cgroup v2: `memory.max`, `memory.current`, `inactive_file`.
    V2,
    /// cgroup v1's memory controller: `memory.limit_in_bytes`,
    /// `memory.usage_in_bytes`, `total_inactive_file`.
    V1,
}

/// The memory the process's cgroups still allow: over the process's
/// cgroup and each ancestor up to the mount point, the least of the limit
/// less the working set (usage less the inactive file cache, which the
/// kernel reclaims before it fails an allocation: the figure the kubelet
/// evicts by). `None` where no cgroup limits memory.
fn cgroup_room() -> Option<u64> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let read = |p: &Path| std::fs::read_to_string(p).ok();
    cgroup_dirs(&cgroups, &mounts)
        .into_iter()
        .filter_map(|(dir, v)| room(&dir, v, &read))
        .min()
}

/// The folders of the process's memory cgroups, leaf first then each
/// ancestor up to its hierarchy's mount point, with their version, from
/// the texts of `/proc/self/cgroup` and `/proc/self/mountinfo`.
fn cgroup_dirs(cgroups: &str, mountinfo: &str) -> Vec<(PathBuf, Cgroup)> {
    let mut out = Vec::new();
    for line in cgroups.lines() {
        let mut f = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (f.next(), f.next(), f.next()) else {
            continue;
        };
        let version = match controllers {
            "" => Cgroup::V2,
            c if c.split(',').any(|c| c == "memory") => Cgroup::V1,
            _ => continue,
        };
        for m in mountinfo.lines() {
            let Some((pre, post)) = m.split_once(" - ") else {
                continue;
            };
            let pre: Vec<&str> = pre.split(' ').collect();
            let post: Vec<&str> = post.split(' ').collect();
            let (Some(root), Some(point), Some(fstype)) = (pre.get(3), pre.get(4), post.first())
            else {
                continue;
            };
            let ours = match version {
                Cgroup::V2 => *fstype == "cgroup2",
                Cgroup::V1 => {
                    *fstype == "cgroup"
                        && post
                            .get(2)
                            .is_some_and(|o| o.split(',').any(|o| o == "memory"))
                }
            };
            if !ours {
                continue;
            }
            // The cgroup's path below the mounted root of its hierarchy.
            let below = path
                .strip_prefix(root)
                .unwrap_or(path)
                .trim_start_matches('/');
            let top = PathBuf::from(point);
            let mut dir = top.join(below);
            loop {
                out.push((dir.clone(), version));
                if dir == top || !dir.pop() {
                    break;
                }
            }
            break;
        }
    }
    out
}

/// The room one cgroup folder leaves (its limit less its working set),
/// `None` when it sets no limit; `read` reads a file.
fn room(dir: &Path, v: Cgroup, read: &dyn Fn(&Path) -> Option<String>) -> Option<u64> {
    let (limit, usage, inactive) = match v {
        Cgroup::V2 => ("memory.max", "memory.current", "inactive_file "),
        Cgroup::V1 => (
            "memory.limit_in_bytes",
            "memory.usage_in_bytes",
            "total_inactive_file ",
        ),
    };
    let number = |name: &str| read(&dir.join(name)).and_then(|t| t.trim().parse::<u64>().ok());
    // "max" (v2) does not parse; v1 writes no limit as a number near 2^63.
    let limit = number(limit).filter(|&l| l < 1 << 60)?;
    let usage = number(usage).unwrap_or(0);
    let cache = read(&dir.join("memory.stat"))
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix(inactive))
                .and_then(|n| n.trim().parse::<u64>().ok())
        })
        .unwrap_or(0);
    Some(limit.saturating_sub(usage.saturating_sub(cache)))
}

/// The bytes a worker thread's stack takes: `RUST_MIN_STACK` (read by Rust
/// and rayon for every thread they start), else Rust's 2 MiB.
pub fn thread_stack_bytes() -> u64 {
    std::env::var("RUST_MIN_STACK")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(2 << 20)
}

/// Fails when `threads` worker threads' stacks do not fit in the address
/// space left under `ulimit -v` (stacks are reserved whole; a cgroup counts
/// only the pages they touch): `what` names the count (`--threads 64`).
pub fn check_thread_stacks(what: &str, threads: usize) -> Result<()> {
    let bytes = threads as f64 * thread_stack_bytes() as f64;
    match address_space_left() {
        Some(left) if bytes > left as f64 => Err(Error::invalid(format!(
            "{what} would need {} of thread stacks; the limit is the address space left under \
             ulimit -v, {}: use fewer threads",
            bytes_text(bytes),
            bytes_text(left as f64)
        ))),
        _ => Ok(()),
    }
}

/// The worker threads to start when none are asked for: one per core, but
/// under `ulimit -v` no more than an eighth of the address space left holds
/// stacks for (at least one).
pub fn default_threads() -> usize {
    let fit = address_space_left().map_or(usize::MAX, |left| {
        (left / 8 / thread_stack_bytes().max(1)).max(1) as usize
    });
    cores().min(fit).min(max_threads())
}

/// Under `ulimit -v`, limits glibc's allocator to as many arenas as an
/// eighth of the limit holds (at least one). Each thread that allocates
/// may otherwise get an arena of its own, reserving 64 MiB of address
/// space (glibc's `HEAP_MAX_SIZE` on 64-bit systems) whatever it uses: a
/// few threads exhaust an 80 MB limit before any work. Call before any
/// thread starts; nothing elsewhere, or without a limit.
pub fn fit_allocator_to_address_space() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if let Some(limit) = address_space_limit() {
        const ARENA: u64 = 64 << 20;
        let arenas = (limit / 8 / ARENA).clamp(1, 8 * cores() as u64);
        // SAFETY: mallopt only sets a tuning parameter of the allocator.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, arenas as libc::c_int);
        }
    }
}

/// How many buffers of `each` bytes may be in flight at once: `wanted`,
/// but no more than a sixteenth of the memory available holds (at least
/// one). For pipelines whose result does not depend on how many are in
/// flight (the CSV reader's and writer's batches).
pub fn in_flight(each: u64, wanted: usize) -> usize {
    let fit = (memory_available() / 16 / each.max(1)).max(1);
    wanted.min(fit.min(usize::MAX as u64) as usize).max(1)
}

thread_local! {
    /// Whether an allocation of this thread may fail without ending the
    /// process (inside [`grow`]).
    static MAY_FAIL: Cell<bool> = const { Cell::new(false) };
}

/// Whether the allocation being made by this thread may fail and be
/// reported as an error: true inside [`grow`]. The command line's
/// allocator ends the process with a clear message on any other failed
/// allocation (Rust's default aborts).
pub fn allocation_may_fail() -> bool {
    MAY_FAIL.with(Cell::get)
}

/// Makes room in `buf` for `additional` more items, as a buffer that grows
/// with its input must: refused with a clear error when the whole buffer
/// would not fit in the memory available, and when the allocation fails
/// (at the usual doubling, then by less). `what` names the buffer in
/// the error ("reading data.csv: the table").
pub fn grow<T>(buf: &mut Vec<T>, additional: usize, what: &str) -> Result<()> {
    if buf.capacity() - buf.len() >= additional {
        return Ok(());
    }
    let item = std::mem::size_of::<T>().max(1) as f64;
    let bytes = (buf.len() as f64 + additional as f64) * item;
    check_memory(what, bytes)?;
    let was = MAY_FAIL.with(|f| f.replace(true));
    // Doubling, else a quarter more, else exactly what is asked: a large
    // buffer that grows needs its old and new blocks at once.
    let made = buf
        .try_reserve(additional)
        .or_else(|_| buf.try_reserve_exact(additional.max(buf.len() / 4)))
        .or_else(|_| buf.try_reserve_exact(additional));
    MAY_FAIL.with(|f| f.set(was));
    made.map_err(|_| {
        Error::invalid(format!(
            "{what} could not be allocated (the memory available was {}; a buffer that grows \
             needs its old and its new block at once)",
            bytes_text(memory_available() as f64)
        ))
    })
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
        assert_eq!(kib_field(t, "MemAvailable:"), Some(21_734_052));
        assert_eq!(kib_field("MemTotal: 5 kB\n", "MemAvailable:"), None);
        assert!(memory_available() > 0);
        assert_eq!(memory_available_if_read(), Some(memory_available()));
    }

    #[test]
    fn cgroup_limits_are_found_and_read() {
        // v2 in a container whose cgroup is mounted at its own root, and a
        // v1 memory hierarchy whose mount shows the whole tree.
        let cgroups = "0::/\n4:memory:/jobs/j1\n3:cpu,cpuacct:/jobs/j1\n";
        let mounts = "\
            30 23 0:26 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n\
            35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n\
            36 31 0:33 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu,cpuacct\n";
        let dirs = cgroup_dirs(cgroups, mounts);
        let want = [
            ("/sys/fs/cgroup/unified", Cgroup::V2),
            ("/sys/fs/cgroup/memory/jobs/j1", Cgroup::V1),
            ("/sys/fs/cgroup/memory/jobs", Cgroup::V1),
            ("/sys/fs/cgroup/memory", Cgroup::V1),
        ];
        let want: Vec<(PathBuf, Cgroup)> = want.iter().map(|(p, v)| (p.into(), *v)).collect();
        assert_eq!(dirs, want);
        // A mount of the cgroup itself (namespaced): its path is the root.
        let dirs = cgroup_dirs(
            "0::/a/b\n",
            "30 23 0:26 /a/b /sys/fs/cgroup rw - cgroup2 c rw\n",
        );
        assert_eq!(dirs, [(PathBuf::from("/sys/fs/cgroup"), Cgroup::V2)]);
        let files = |p: &Path| -> Option<String> {
            let name = p.file_name()?.to_str()?;
            Some(
                match name {
                    "memory.max" => "4294967296\n",
                    "memory.current" => "3221225472\n",
                    "memory.stat" => "anon 1\ninactive_file 1073741824\nactive_file 5\n",
                    "memory.limit_in_bytes" => "9223372036854771712\n",
                    _ => return None,
                }
                .to_string(),
            )
        };
        // 4 GiB less (3 GiB used less 1 GiB of inactive cache): 2 GiB.
        assert_eq!(room(Path::new("/x"), Cgroup::V2, &files), Some(2 << 30));
        // v1 without a limit.
        assert_eq!(room(Path::new("/x"), Cgroup::V1, &files), None);
    }

    #[test]
    fn buffers_grow_within_the_memory_available() {
        let mut v: Vec<u64> = Vec::new();
        grow(&mut v, 1000, "a table").unwrap();
        assert!(v.capacity() >= 1000 && !allocation_may_fail());
        let e = grow(&mut v, usize::MAX / 16, "reading x.csv: the table")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("reading x.csv: the table would need"), "{e}");
        let mut w: Vec<u8> = Vec::new();
        assert!(grow(&mut w, 10, "small").is_ok());
        assert!(in_flight(1, 8) == 8 && in_flight(u64::MAX, 8) == 1);
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
        assert!((1..=cores()).contains(&default_threads()));
        assert!(check_thread_stacks("--threads 2", 2).is_ok());
    }
}
