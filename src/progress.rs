//! Progress of long operations, for a front end to show: fitting
//! ensembles, cross-validation folds, neighbour searches, experiments over
//! datasets, reading large files.
//!
//! The library never prints. A long operation opens a [`Progress`] with a
//! label and its total amount of work and adds the work done as it goes; a
//! front end polls [`snapshot`] (the command line draws one bar on stderr).
//! Only the outermost open operation counts: one opened while another is
//! open (an ensemble fitted inside a cross-validation fold, a neighbour
//! search inside a resampling inside a fold) stays silent, so the outer
//! count is never reset by the work inside it. The counters are atomics the
//! library only writes: no result depends on them.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Whether an operation is counting.
static OPEN: AtomicBool = AtomicBool::new(false);
/// Work done by the counting operation.
static DONE: AtomicU64 = AtomicU64::new(0);
/// Its total work (0: unknown).
static TOTAL: AtomicU64 = AtomicU64::new(0);
/// What it is doing.
static LABEL: Mutex<String> = Mutex::new(String::new());

fn current_label() -> MutexGuard<'static, String> {
    // A label is plain text: one left half-written by a panicking thread is
    // still fine to show.
    LABEL.lock().unwrap_or_else(|e| e.into_inner())
}

/// A long operation's count of work done; the operation ends when it is
/// dropped.
///
/// ```
/// use rarity::progress::{snapshot, Progress};
/// let outer = Progress::start("folds", 10);
/// {
///     let inner = Progress::start("trees", 100); // inside another: silent
///     inner.add(50);
/// }
/// outer.add(3);
/// let s = snapshot().unwrap();
/// assert_eq!((s.label.as_str(), s.done, s.total), ("folds", 3, 10));
/// drop(outer);
/// assert_eq!(snapshot(), None);
/// ```
#[must_use = "the operation ends when its Progress is dropped"]
#[derive(Debug)]
pub struct Progress {
    counting: bool,
}

impl Progress {
    /// Opens an operation of `total` units of work (0 if unknown) that
    /// counts unless another is open.
    pub fn start(label: impl Into<String>, total: u64) -> Progress {
        let counting = OPEN
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .is_ok();
        if counting {
            *current_label() = label.into();
            DONE.store(0, Ordering::Relaxed);
            TOTAL.store(total, Ordering::Relaxed);
        }
        Progress { counting }
    }

    /// Adds `n` units of work done.
    pub fn add(&self, n: u64) {
        if self.counting {
            DONE.fetch_add(n, Ordering::Relaxed);
        }
    }

    /// Sets the work done so far (for operations that count it themselves,
    /// such as rows read).
    pub fn set_done(&self, done: u64) {
        if self.counting {
            DONE.store(done, Ordering::Relaxed);
        }
    }

    /// Sets the total, once it is known.
    pub fn set_total(&self, total: u64) {
        if self.counting {
            TOTAL.store(total, Ordering::Relaxed);
        }
    }

    /// Says what the operation is doing now (e.g. the dataset it is on).
    pub fn set_label(&self, text: impl Into<String>) {
        if self.counting {
            *current_label() = text.into();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if self.counting {
            OPEN.store(false, Ordering::Release);
        }
    }
}

/// The counted operation's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// What it is doing.
    pub label: String,
    /// Work done.
    pub done: u64,
    /// Total work (0: unknown).
    pub total: u64,
}

/// The operation being counted, if one is open.
pub fn snapshot() -> Option<Snapshot> {
    OPEN.load(Ordering::Acquire).then(|| Snapshot {
        label: current_label().clone(),
        done: DONE.load(Ordering::Relaxed),
        total: TOTAL.load(Ordering::Relaxed),
    })
}
