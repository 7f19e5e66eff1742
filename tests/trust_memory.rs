//! Memory limits fail, never abort (issue 51, item 8). Under an
//! address-space limit (`prlimit --as`, as `ulimit -v`) the worker threads,
//! their stacks and the allocator's arenas are sized to fit it; the buffers
//! that grow with their input (a decompression bomb, a Parquet stream held
//! whole, the rows of an ARFF file) are refused with what they would need;
//! any other allocation that fails is a clear error (exit 2, the
//! temporaries removed, an existing output untouched), never Rust's
//! "memory allocation of N bytes failed" abort.
//!
//! Every run is under an address-space limit and a time limit, so that a
//! regression fails in seconds without taking the machine's memory.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::{scratch, small_table};

/// The binary under an address-space limit of `bytes` and a 60 s time
/// limit, given `args`.
fn limited(bytes: u64, args: &[&str]) -> Command {
    let mut cmd = Command::new("timeout");
    cmd.args(["60", "prlimit", &format!("--as={bytes}"), "--"])
        .arg(env!("CARGO_BIN_EXE_rarity"))
        .args(args);
    cmd
}

/// `ulimit -v 80000` (KiB), the limit.
const ULIMIT_80000: u64 = 80_000 * 1024;

/// Asserts a clear failure: exit 2, an `error:` line with `words`, and no
/// panic, abort or Rust allocation message.
fn failed_clearly(out: &Output, words: &[&str]) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{:?}: {err}", out.status);
    assert!(err.starts_with("error: "), "{err}");
    for w in words {
        assert!(err.contains(w), "no '{w}' in: {err}");
    }
    for bad in ["panicked", "memory allocation of", "overflowed"] {
        assert!(!err.contains(bad), "{err}");
    }
    err
}

/// That `err` says a buffer was refused or could not be allocated.
fn says_memory(err: &str) -> bool {
    err.contains("would need") || err.contains("could not be allocated")
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A model fitted on `data`, at `dir/name`: what a failed command must
/// leave as it was.
fn existing_model(dir: &Path, data: &str, name: &str) -> (String, Vec<u8>) {
    let model = dir.join(name).to_string_lossy().into_owned();
    let out = Command::new(env!("CARGO_BIN_EXE_rarity"))
        .args(["fit", data, "-m", "tree", "-o", &model, "-q"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let bytes = std::fs::read(&model).unwrap();
    (model, bytes)
}

#[test]
fn commands_run_under_ulimit_v_80000() {
    let d = scratch("memory-ulimit");
    let data = small_table(&d);
    let model = d.join("w.rarity").to_string_lossy().into_owned();
    // One thread per core by default, and as many as allowed (4 a core, 8
    // here at most) when asked: each thread's allocator arena would
    // reserve 64 MiB of the 82 MB (eight threads aborted before the fix),
    // and its stack 2 MiB.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let most = (4 * cores).min(8).to_string();
    for threads in [&[][..], &["--threads", &most][..]] {
        let mut args = threads.to_vec();
        args.extend(["run", &data, "-o", &model, "--cv", "3"]);
        let out = limited(ULIMIT_80000, &args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {:?}: {err}", out.status);
        // The winner is saved.
        std::fs::remove_file(&model).unwrap();
    }
    let out = limited(
        ULIMIT_80000,
        &[
            "--threads",
            &most,
            "evaluate",
            &data,
            "--model",
            "forest(n=20)",
        ],
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn thread_stacks_that_cannot_fit_are_refused() {
    // Stacks of 1 GiB (`RUST_MIN_STACK`, read by Rust for every thread)
    // under a 4 GB limit: four do not fit, and by default fewer start.
    let gib = "1073741824";
    let limit = 4_000_000_000;
    let out = limited(limit, &["--threads", "4", "datasets"])
        .env("RUST_MIN_STACK", gib)
        .output()
        .unwrap();
    failed_clearly(
        &out,
        &["--threads 4", "thread stacks", "ulimit -v", "fewer threads"],
    );
    let out = limited(limit, &["datasets"])
        .env("RUST_MIN_STACK", gib)
        .env("RAYON_NUM_THREADS", "4")
        .output()
        .unwrap();
    failed_clearly(&out, &["RAYON_NUM_THREADS=4", "thread stacks"]);
    let out = limited(limit, &["datasets"])
        .env("RUST_MIN_STACK", gib)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn a_decompression_bomb_is_refused_with_what_it_would_need() {
    // 50 million rows in a few hundred kB of gzip: 600 MB as a table, under
    // a 400 MB limit.
    let d = scratch("memory-bomb");
    let (model, before) = existing_model(&d, &small_table(&d), "m.rarity");
    let bomb = d.join("bomb.csv.gz");
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(&bomb).unwrap(),
        flate2::Compression::fast(),
    );
    gz.write_all(b"a,y\n2,1\n").unwrap();
    let chunk = b"1,0\n".repeat(1 << 16);
    for _ in 0..50_000_000 / (1 << 16) {
        gz.write_all(&chunk).unwrap();
    }
    gz.finish().unwrap();
    let listing = names(&d);
    let bomb = bomb.to_string_lossy().into_owned();
    let out = limited(400_000_000, &["fit", &bomb, "-m", "tree", "-o", &model])
        .output()
        .unwrap();
    let err = failed_clearly(&out, &["bomb.csv.gz: the table read so far"]);
    assert!(says_memory(&err), "{err}");
    assert_eq!(std::fs::read(&model).unwrap(), before);
    assert_eq!(names(&d), listing);
}

#[test]
fn a_parquet_stream_is_held_within_the_memory_available() {
    // A stream that begins as Parquet is held whole (its schema is at its
    // end): 1 GB of it under a 300 MB limit.
    let mut child = limited(300_000_000, &["inspect", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let zeros = vec![0u8; 1 << 20];
        let _ = stdin.write_all(b"PAR1");
        // Until the reader gives up (a broken pipe).
        for _ in 0..1000 {
            if stdin.write_all(&zeros).is_err() {
                break;
            }
        }
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    let err = failed_clearly(&out, &["<stdin>: the whole input", "give it as a file"]);
    assert!(says_memory(&err), "{err}");
}

#[test]
fn arff_rows_are_held_within_the_memory_available() {
    // 3 million rows of two values (12 MB): about 600 MB as rows of texts,
    // under a 300 MB limit.
    let d = scratch("memory-arff");
    let mut text = String::from("@relation r\n@attribute a numeric\n@attribute y {0,1}\n@data\n");
    text.push_str("2,1\n");
    text.push_str(&"1,0\n".repeat(3_000_000));
    let p = d.join("big.arff");
    std::fs::write(&p, text).unwrap();
    let p = p.to_string_lossy().into_owned();
    let out = limited(300_000_000, &["inspect", &p]).output().unwrap();
    failed_clearly(
        &out,
        &[
            "big.arff: the rows read",
            "take more than the memory available",
        ],
    );
}

#[test]
fn an_allocation_that_fails_elsewhere_is_a_clear_error() {
    // A million rows fit in 70 MB; a forest grown on them does not, and
    // its allocations are not the reader's.
    let d = scratch("memory-oom");
    let data = d.join("g.csv").to_string_lossy().into_owned();
    let out = Command::new(env!("CARGO_BIN_EXE_rarity"))
        .args(["generate", "gaussian", "--n", "1000000", "-o", &data, "-q"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let (model, before) = existing_model(&d, &small_table(&d), "f.rarity");
    let listing = names(&d);
    let out = limited(
        70_000 * 1024,
        &[
            "--threads",
            "2",
            "fit",
            &data,
            "-m",
            "forest(n=20)",
            "-o",
            &model,
        ],
    )
    .output()
    .unwrap();
    let err = failed_clearly(&out, &["could not be allocated", "ulimit -v"]);
    assert!(err.ends_with('\n') && err.lines().count() == 1, "{err}");
    assert_eq!(std::fs::read(&model).unwrap(), before);
    assert_eq!(names(&d), listing);
}
