//! Running library work from Python: on a rayon pool of `n_jobs` threads,
//! with the GIL released, stoppable by `KeyboardInterrupt`, safe after
//! `fork`, and never panicking across the boundary.
//!
//! - Under an address-space limit (`ulimit -v`) the default thread count
//!   is sized to the stacks the limit holds, and an explicit `n_jobs` whose
//!   stacks do not fit is a `ValueError` ([`threads`]); the module's
//!   allocator reports a failed allocation and ends the process with exit
//!   code 2 (`rarity::out_of_memory`), where Rust would abort.
//! - Pools are cached by size. A child process made by `fork` has none of
//!   its parent's threads, so the cache is keyed by the process id: the
//!   first job in a child builds fresh pools (the parent's are forgotten,
//!   never joined). rayon's global pool is never used: every call that may
//!   reach rayon runs inside one of these pools.
//! - The calling thread releases the GIL and waits for the job, waking
//!   every 50 ms to run Python's signal handlers; on `KeyboardInterrupt`
//!   (or any exception a handler raises) it raises the library's
//!   cooperative cancellation flag ([`rarity::cancel`]), waits for the job
//!   to return, and re-raises the exception.
//! - A panic inside the library is caught on the worker and raised as
//!   `RuntimeError` (an internal error to report), never unwinding through
//!   Python.
//! - Small jobs ([`run_small`]: scoring a few rows, microseconds of work)
//!   run on the calling thread, with the GIL released: handing them to a
//!   pool thread and waking the caller again costs more than the work. The
//!   calling thread is then the one thread of its own pool (rayon's
//!   `use_current_thread`), so any parallel loop the job reaches stays on
//!   it and rayon's global pool is still never used.

use std::cell::OnceCell;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use rayon::ThreadPool;

/// How often a waiting caller checks for signals.
const POLL: Duration = Duration::from_millis(50);

/// Cached pools of one process: `(pid, size -> pool)`.
static POOLS: Mutex<Option<(u32, HashMap<usize, Arc<ThreadPool>>)>> = Mutex::new(None);

/// The thread count `n_jobs` asks for: `None` every core (fewer under an
/// address-space limit too small for their stacks:
/// [`rarity::limits::default_threads`]), `-1` every core, `n > 0` that
/// many, `-2` all but one (joblib's convention `cores + 1 + n_jobs`); more
/// than [`rarity::limits::max_threads`], fewer than one, or more than the
/// address space left under `ulimit -v` holds stacks for, is a
/// `ValueError`.
pub fn threads(n_jobs: Option<i64>) -> PyResult<usize> {
    let cores = rarity::limits::cores() as i64;
    let n =
        match n_jobs {
            None => return Ok(rarity::limits::default_threads()),
            Some(0) => return Err(PyValueError::new_err(
                "n_jobs=0 is invalid; expected a positive number of threads, or -1 for every core",
            )),
            Some(n) if n > 0 => n,
            Some(n) if cores + 1 + n >= 1 => cores + 1 + n,
            Some(n) => {
                return Err(PyValueError::new_err(format!(
                "n_jobs={n} is invalid: a negative n_jobs asks for every core but |n_jobs| - 1 \
                 (joblib's cores + 1 + n_jobs), and this machine has {cores}; use -1 to -{cores}, \
                 or a positive count"
            )))
            }
        };
    let cap = rarity::limits::max_threads();
    if n > cap as i64 {
        return Err(PyValueError::new_err(format!(
            "n_jobs={n} is more than the cap of {cap} threads ({} per available core, at most {}): \
             more threads than that only share the same cores",
            rarity::limits::THREADS_PER_CORE,
            rarity::limits::MAX_THREADS
        )));
    }
    rarity::limits::check_thread_stacks(&format!("n_jobs={n}"), n as usize).map_err(to_py)?;
    Ok(n as usize)
}

fn build(n: usize) -> PyResult<Arc<ThreadPool>> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .thread_name(|i| format!("rarity-{i}"))
        .build()
        .map(Arc::new)
        .map_err(|e| {
            PyRuntimeError::new_err(format!(
                "cannot start {n} threads: {e}; the process may have reached its limit of \
                 processes (ulimit -u) or of address space (ulimit -v): try n_jobs=1"
            ))
        })
}

/// The pool of `n` threads of this process.
fn pool(n: usize) -> PyResult<Arc<ThreadPool>> {
    let pid = std::process::id();
    // A lock held by a thread of the parent at fork time is never released
    // in the child: then build an uncached pool rather than wait forever.
    let Ok(mut guard) = POOLS.try_lock() else {
        return build(n);
    };
    if guard.as_ref().is_some_and(|(p, _)| *p != pid) {
        // The parent's pools: their threads do not exist here.
        if let Some((_, old)) = guard.take() {
            std::mem::forget(old);
        }
    }
    let (_, pools) = guard.get_or_insert_with(|| (pid, HashMap::new()));
    if let Some(pool) = pools.get(&n) {
        return Ok(Arc::clone(pool));
    }
    let pool = build(n)?;
    pools.insert(n, Arc::clone(&pool));
    Ok(pool)
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// A library error as the Python exception it raises: `ValueError` with
/// the library's message (`KeyboardInterrupt` for a cancelled job).
pub fn to_py(e: rarity::Error) -> PyErr {
    match e {
        rarity::Error::Cancelled => PyKeyboardInterrupt::new_err("interrupted"),
        e => PyValueError::new_err(rarity::printable::escape_text(&e.to_string()).into_owned()),
    }
}

/// Runs `f` on the pool of `n_jobs` threads with the GIL released (see the
/// module doc) and returns its result.
pub fn run<T, F>(py: Python<'_>, n_jobs: Option<i64>, f: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce() -> rarity::Result<T> + Send + 'static,
{
    let pool = pool(threads(n_jobs)?)?;
    let (tx, rx) = mpsc::channel();
    let job = rarity::cancel::Job::start();
    pool.spawn(move || {
        let out = catch_unwind(AssertUnwindSafe(f));
        let _ = tx.send(out);
    });
    let mut interrupted: Option<PyErr> = None;
    let mut rx = rx;
    let outcome = loop {
        let (got, back) = py.detach(move || (rx.recv_timeout(POLL), rx));
        rx = back;
        match got {
            Ok(out) => break out,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if interrupted.is_none() {
                    if let Err(e) = py.check_signals() {
                        rarity::cancel::request();
                        interrupted = Some(e);
                    }
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                break Err(Box::new("the worker thread ended without a result")
                    as Box<dyn std::any::Any + Send>)
            }
        }
    };
    drop(job);
    if let Some(e) = interrupted {
        return Err(e);
    }
    match outcome {
        Ok(r) => r.map_err(to_py),
        Err(p) => Err(PyRuntimeError::new_err(format!(
            "internal error in rarity (please report it): {}",
            panic_text(p.as_ref())
        ))),
    }
}

thread_local! {
    /// The calling thread's own one-thread pool (`None` if it cannot be
    /// made, e.g. on a thread that is a worker of another pool).
    static OWN: OnceCell<Option<ThreadPool>> = const { OnceCell::new() };
}

/// The calling thread's own pool: one thread, itself.
fn own_pool() -> Option<ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .use_current_thread()
        .build()
        .ok()
}

/// Runs `f`, a small job, on the calling thread with the GIL released (see
/// the module doc); `n_jobs` is checked as [`run`] checks it, and a thread
/// that cannot have its own pool hands `f` to [`run`].
pub fn run_small<T, F>(py: Python<'_>, n_jobs: Option<i64>, f: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce() -> rarity::Result<T> + Send + 'static,
{
    threads(n_jobs)?;
    let outcome = py.detach(move || {
        OWN.with(move |own| match own.get_or_init(own_pool) {
            Some(pool) => Ok(catch_unwind(AssertUnwindSafe(|| pool.install(f)))),
            None => Err(f),
        })
    });
    match outcome {
        Ok(Ok(r)) => r.map_err(to_py),
        Ok(Err(p)) => Err(PyRuntimeError::new_err(format!(
            "internal error in rarity (please report it): {}",
            panic_text(p.as_ref())
        ))),
        Err(f) => run(py, n_jobs, f),
    }
}

/// The number of threads `n_jobs` gives (see `threads`).
#[pyfunction]
#[pyo3(signature = (n_jobs=None))]
pub fn threads_for(n_jobs: Option<i64>) -> PyResult<usize> {
    threads(n_jobs)
}
