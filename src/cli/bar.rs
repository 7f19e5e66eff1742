//! The progress bar of every long command: one bar on stderr, drawn from
//! the library's counters ([`rarity::progress`]) by a thread that polls
//! them, hidden with `--quiet` or when stderr is not a terminal. It only
//! reads the counters, so no result depends on it.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::Global;

/// How often the counters are read.
const POLL: Duration = Duration::from_millis(100);

/// The bar while a command runs; cleared when dropped.
struct Bar {
    stop: Arc<AtomicBool>,
    drawer: Option<JoinHandle<()>>,
}

/// Runs `work` with the bar shown (unless `--quiet` or stderr is not a
/// terminal) and cleared before anything else is printed.
pub fn during<T>(g: &Global, work: impl FnOnce() -> T) -> T {
    let _bar = start(g);
    work()
}

/// Starts the bar.
fn start(g: &Global) -> Bar {
    let stop = Arc::new(AtomicBool::new(false));
    // A thread that cannot be started (a process limit) means no bar, not
    // a panic: the bar is only a display.
    let drawer = (!g.quiet && std::io::stderr().is_terminal())
        .then(|| {
            let stop = Arc::clone(&stop);
            std::thread::Builder::new().spawn(move || draw(&stop)).ok()
        })
        .flatten();
    Bar { stop, drawer }
}

/// Redraws the bar from the counters until `stop` is set, then clears it.
fn draw(stop: &AtomicBool) {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("  {bar:24} {pos}/{len} {elapsed} {wide_msg}") {
        bar.set_style(style);
    }
    while !stop.load(Ordering::Acquire) {
        if let Some(s) = rarity::progress::snapshot() {
            bar.set_length(s.total.max(s.done));
            bar.set_position(s.done);
            bar.set_message(rarity::printable::escape(&s.label).into_owned());
        }
        std::thread::sleep(POLL);
    }
    bar.finish_and_clear();
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(d) = self.drawer.take() {
            // A drawing thread that panicked has nothing left to clear.
            let _ = d.join();
        }
    }
}
