//! What a run that is ended leaves behind (issue 51, item 14): nothing,
//! for every signal that ends a process by default, for a file-size limit
//! (SIGXFSZ) and for SIGKILL, which no handler sees (outputs are anonymous
//! files until complete); a report folder of a killed run is removed by the
//! next run writing that report.

mod common;

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, SystemTime};

use common::{scratch, wait_writing_into};

const BIN: &str = env!("CARGO_BIN_EXE_rarity");

/// The entries of `dir`.
fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = (std::fs::read_dir(dir).unwrap())
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

/// The hidden entries (temporaries) of `dir`.
fn hidden(dir: &Path) -> Vec<PathBuf> {
    (entries(dir).into_iter())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect()
}

/// A long `generate` into `dir/big.csv`, once it has started writing.
fn writing(dir: &Path) -> Child {
    let mut child = Command::new(BIN)
        .args(["generate", "fraud", "--n", "3000000", "-q", "-o"])
        .arg(dir.join("big.csv"))
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    wait_writing_into(&mut child, dir);
    child
}

fn kill(child: &Child, signal: &str) {
    let st = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
}

#[test]
fn every_signal_that_ends_a_process_leaves_nothing_behind() {
    // (signal, its number): the exit code is 128 + the number.
    for (signal, n) in [
        ("-HUP", 1),
        ("-QUIT", 3),
        ("-USR1", 10),
        ("-USR2", 12),
        ("-ALRM", 14),
        ("-XCPU", 24),
        ("-RTMIN", 34),
    ] {
        let dir = scratch(&format!("leftovers{signal}"));
        let mut child = writing(&dir);
        std::thread::sleep(Duration::from_millis(100));
        kill(&child, signal);
        let st = child.wait().unwrap();
        assert_eq!(st.code(), Some(128 + n), "{signal}: {st:?}");
        assert_eq!(entries(&dir), Vec::<PathBuf>::new(), "{signal}");
    }
}

#[test]
fn sigkill_leaves_no_output_file() {
    // Before anonymous outputs, 4 of 12 such kills left a temporary.
    for trial in 0..8u64 {
        let dir = scratch(&format!("leftovers-kill-{trial}"));
        let mut child = writing(&dir);
        std::thread::sleep(Duration::from_millis(40 * trial));
        kill(&child, "-KILL");
        let st = child.wait().unwrap();
        assert_eq!(st.signal(), Some(9), "trial {trial}");
        assert_eq!(entries(&dir), Vec::<PathBuf>::new(), "trial {trial}");
    }
}

#[test]
fn a_file_size_limit_is_an_error_that_leaves_nothing() {
    // `ulimit -f` makes the kernel send SIGXFSZ, which ended the process
    // with its temporary left; blocked, the write fails with EFBIG instead.
    let dir = scratch("leftovers-fsize");
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 200 && exec \"$0\" generate fraud --n 100000 -q -o \"$1\"")
        .arg(BIN)
        .arg(dir.join("big.csv"))
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{e}");
    assert!(e.contains("File too large"), "{e}");
    assert_eq!(entries(&dir), Vec::<PathBuf>::new());
}

/// Runs `run --report rep` in `dir` and sends `signal` while its report's
/// temporary folder exists: the exit status, or `None` when the report was
/// complete before the folder was seen.
fn during_report(dir: &Path, signal: &str) -> Option<std::process::ExitStatus> {
    let mut child = Command::new(BIN)
        .current_dir(dir)
        .args(["run", "d.csv", "--model", "tree", "--report", "rep", "-q"])
        .args(["-o", "m.rarity"])
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    loop {
        if child.try_wait().unwrap().is_some() {
            return None;
        }
        let seen = (std::fs::read_dir(dir).unwrap())
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with(".rep."));
        if seen {
            kill(&child, signal);
            return Some(child.wait().unwrap());
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// A folder with the dataset `d.csv`.
fn report_case(name: &str) -> PathBuf {
    let dir = scratch(name);
    let d = dir.join("d.csv").to_string_lossy().into_owned();
    let (c, _, e) = common::run(&["generate", "gaussian", "--n", "2000", "-q", "-o", &d]);
    assert_eq!(c, 0, "{e}");
    dir
}

#[test]
fn a_report_folder_is_removed_on_sighup() {
    let dir = report_case("leftovers-report-hup");
    let mut caught = false;
    for _ in 0..10 {
        let st = during_report(&dir, "-HUP");
        assert_eq!(hidden(&dir), Vec::<PathBuf>::new(), "{st:?}");
        if st.is_some_and(|s| s.code() == Some(129)) {
            caught = true;
            break;
        }
    }
    assert!(caught, "the report was always complete before SIGHUP");
}

#[test]
fn a_killed_runs_report_folder_is_removed_by_the_next_run() {
    let dir = report_case("leftovers-report-kill");
    let left = (0..10).find_map(|_| {
        during_report(&dir, "-KILL")?;
        let h = hidden(&dir);
        (!h.is_empty()).then_some(h)
    });
    let left = left.expect("the report was always complete before SIGKILL");
    // What SIGKILL left: the report's temporary folder, unlocked now. It is
    // stale once a little time has passed; backdated rather than waited for.
    let long_ago = SystemTime::now() - Duration::from_secs(3600);
    for p in &left {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with(".rep.") || name.starts_with(".m.rarity."),
            "{name}"
        );
        std::fs::File::open(p)
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
    }
    // A temporary of a run still alive (its lock held) is kept.
    let live = dir.join(".rep.0123456789abcdef.tmp");
    std::fs::create_dir(&live).unwrap();
    let mut holder = Command::new("flock")
        .arg(&live)
        .args(["sleep", "60"])
        .spawn()
        .unwrap();
    wait_writing_into(&mut holder, &dir);
    std::fs::File::open(&live)
        .unwrap()
        .set_modified(long_ago)
        .unwrap();
    let (c, _, e) = common::run(&[
        "run",
        &dir.join("d.csv").to_string_lossy(),
        "--model",
        "tree",
        "--report",
        &dir.join("rep").to_string_lossy(),
        "-q",
        "-o",
        &dir.join("m.rarity").to_string_lossy(),
    ]);
    assert_eq!(c, 0, "{e}");
    let _ = holder.kill();
    let _ = holder.wait();
    assert_eq!(
        hidden(&dir),
        std::slice::from_ref(&live),
        "the stale folder is removed"
    );
    assert!(dir.join("rep/index.html").exists());
}
