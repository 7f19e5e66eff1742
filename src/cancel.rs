//! Cooperative cancellation of long work.
//!
//! A process-wide flag that a front end raises to stop work in progress
//! (the Python package does so on `KeyboardInterrupt`); the long loops of
//! the library (bagging members, boosting rounds, cross-validation cells,
//! neighbour searches, tree growth, solver iterations) call [`check`] and
//! return [`Error::Cancelled`] once it is raised. The command line never
//! raises it (Ctrl-C ends the process there).
//!
//! Work is cancelled as a whole: every job running when the flag is raised
//! stops. A front end brackets each job with a [`Job`] guard; the flag is
//! lowered when the last running job ends, so later jobs start clean.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::error::{Error, Result};

static REQUESTED: AtomicBool = AtomicBool::new(false);
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// Asks every running job to stop.
pub fn request() {
    REQUESTED.store(true, Ordering::Relaxed);
}

/// Whether a stop was asked for.
#[inline]
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// `Err(Error::Cancelled)` once a stop was asked for.
///
/// ```
/// let job = rarity::cancel::Job::start();
/// assert!(rarity::cancel::check().is_ok());
/// rarity::cancel::request();
/// assert!(rarity::cancel::check().is_err());
/// drop(job); // the last job ended: the flag is lowered
/// assert!(rarity::cancel::check().is_ok());
/// ```
#[inline]
pub fn check() -> Result<()> {
    if requested() {
        Err(Error::Cancelled)
    } else {
        Ok(())
    }
}

/// A running job: lowers the flag when the last one ends.
#[derive(Debug)]
pub struct Job(());

impl Job {
    /// Marks a job as running.
    pub fn start() -> Job {
        RUNNING.fetch_add(1, Ordering::SeqCst);
        Job(())
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        if RUNNING.fetch_sub(1, Ordering::SeqCst) == 1 {
            REQUESTED.store(false, Ordering::SeqCst);
        }
    }
}
