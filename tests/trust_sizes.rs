//! Bounded resources (issue 36, items 12, 13, 15, 16): sizes that cannot
//! fit are refused before anything is allocated, with what they would
//! need; `--threads` has a cap; a thread pool that cannot start is an
//! error, not a panic.
//!
//! Every run that could allocate without bound runs under an address-space
//! limit (`prlimit --as`), so that a regression aborts at once instead of
//! taking the machine's memory.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{scratch, small_table};

/// Address-space limit of the child processes: enough for the binary and a
/// small table, far below what any refused size would need.
const AS_LIMIT: &str = "--as=4000000000";

/// Runs the binary under the address-space limit and a 30 s time limit:
/// (exit code, stderr).
fn limited<A: AsRef<str> + std::fmt::Debug>(args: &[A]) -> (i32, String) {
    // A time limit too: a regression fails in seconds, not hours.
    let out = Command::new("timeout")
        .args(["30", "prlimit", AS_LIMIT, "--"])
        .arg(env!("CARGO_BIN_EXE_rarity"))
        .args(args.iter().map(AsRef::as_ref))
        .output()
        .expect("prlimit runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Asserts a clear refusal: exit 2, the expected words, no panic or abort.
fn refused<A: AsRef<str> + std::fmt::Debug>(args: &[A], words: &[&str]) {
    let start = std::time::Instant::now();
    let (code, err) = limited(args);
    assert_eq!(code, 2, "{args:?}: exit {code}: {err}");
    for w in words {
        assert!(err.contains(w), "{args:?}: no '{w}' in: {err}");
    }
    assert!(
        !err.contains("panicked") && !err.contains("memory allocation"),
        "{err}"
    );
    // Refused before any work: the binary starts and stops at once.
    assert!(
        start.elapsed().as_secs() < 10,
        "{args:?} took {:?}",
        start.elapsed()
    );
}

#[test]
fn member_counts_that_cannot_fit_are_refused_with_what_they_need() {
    let d = scratch("sizes-members");
    let data = small_table(&d);
    for spec in [
        "forest(n=1000000000)",
        "bagging(n=1e9)",
        "rdt(n=1e9)",
        "pt-bagging(n=1e9)",
        "easy-ensemble(n=1e9)",
        "forest(n=4294967295)",
    ] {
        refused(
            &["evaluate", &data, "--model", spec],
            &["would need", "GB", "the limit is the memory available"],
        );
    }
}

#[test]
fn counts_beyond_any_integer_say_they_are_too_large() {
    let d = scratch("sizes-large");
    let data = small_table(&d);
    for (spec, said) in [
        ("forest(n=1e18)", "n=1e18 is invalid"),
        ("forest(n=4294967296)", "n=4294967296 is invalid"),
        ("knn(k=1e300)", "k=1e300 is invalid"),
    ] {
        refused(
            &["evaluate", &data, "--model", spec],
            &[said, "too large: at most 4294967295"],
        );
    }
}

#[test]
fn cross_validation_that_cannot_fit_is_refused() {
    let d = scratch("sizes-cv");
    let data = small_table(&d);
    refused(
        &[
            "evaluate",
            &data,
            "--model",
            "tree",
            "--cv",
            "100000000000x2",
        ],
        &["100000000000x2", "would need"],
    );
    refused(
        &["evaluate", &data, "--model", "tree", "--cv", "2x100000"],
        &["at most 65535 folds"],
    );
}

#[test]
fn oversampling_amounts_that_cannot_fit_are_refused() {
    let d = scratch("sizes-over");
    let data = small_table(&d);
    let out = d.join("s.csv").to_string_lossy().into_owned();
    let resample = |extra: &[&'static str]| -> Vec<String> {
        let mut a: Vec<String> = ["resample", &data, "-o", &out]
            .iter()
            .map(|s| s.to_string())
            .collect();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    // Beyond the default row limit of 10^9 (30 minority rows).
    refused(
        &resample(&["--method", "smote", "--amount", "1e10"]),
        &[
            "3000000300 rows",
            "the limit is 1000000000 rows",
            "--max-sample-rows",
        ],
    );
    refused(
        &resample(&["--method", "hybrid(amount=1e10)"]),
        &["rows", "--max-sample-rows"],
    );
    // Within the row limit, beyond the memory (under the address-space
    // limit): what it would need.
    for method in ["smote(amount=1e9)", "hybrid(amount=1e9)"] {
        refused(
            &resample(&["--method", method]),
            &["0 rows of 2 features", "would need", "GB"],
        );
    }
    // The row limit raised: memory is the limit.
    refused(
        &resample(&[
            "--method",
            "smote",
            "--amount",
            "1e12",
            "--max-sample-rows",
            "1000000000000000",
        ]),
        &["would need", "the limit is the memory available"],
    );
    // A lower row limit refuses a small oversampling; the default allows it.
    refused(
        &resample(&["--method", "smote", "--max-sample-rows", "400"]),
        &["the limit is 400 rows"],
    );
    let (code, err) = limited(&resample(&["--method", "smote"]));
    assert_eq!(code, 0, "{err}");
    for spec in [
        "over(ratio=1000000)+tree",
        "smote-bagging(amount=1e9)",
        "underover-bagging(a=1e9)",
        "bagging(sample=bootstrap(fraction=1e9))",
    ] {
        // Beyond the row limit, or (under the address-space limit) the
        // memory available.
        refused(
            &["evaluate", &data, "--model", spec],
            &["rows", "the limit is"],
        );
    }
}

#[test]
fn threads_above_the_cap_are_refused() {
    let (code, err) = limited(&["--threads", "100000", "datasets"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--threads 100000") && err.contains("cap of"),
        "{err}"
    );
    let (code, err) = limited(&["--threads", "1", "datasets"]);
    assert_eq!(code, 0, "{err}");
    // rayon's own variable is held to the same cap.
    let out = Command::new("timeout")
        .args(["30", "prlimit", AS_LIMIT, "--"])
        .arg(env!("CARGO_BIN_EXE_rarity"))
        .arg("datasets")
        .env("RAYON_NUM_THREADS", "100000")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("RAYON_NUM_THREADS=100000"), "{err}");
}

/// A copy of the binary that any user may run, in a fresh directory.
fn public_binary(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("rarity");
    std::fs::copy(env!("CARGO_BIN_EXE_rarity"), &bin).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

#[test]
fn a_thread_pool_that_cannot_start_is_an_error() {
    // RLIMIT_NPROC is not enforced for root: run as nobody when root.
    let root = real_uid() == 0;
    if root && Command::new("setpriv").arg("--version").output().is_err() {
        eprintln!("skipped: running as root without setpriv to drop to another user");
        return;
    }
    let d = scratch("sizes-nproc");
    let data = small_table(&d);
    let bin = public_binary(&d);
    let mut cmd = Command::new("timeout");
    // One process for the user: no thread can be started.
    cmd.args(["30", "prlimit", "--nproc=1", AS_LIMIT, "--"]);
    if root {
        cmd.args([
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
        ]);
    }
    let out = cmd
        .arg(&bin)
        .args(["--threads", "2", "evaluate", &data, "--model", "tree"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("could not start 2 worker threads") && err.contains("--threads 1"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// The real user id of this process.
fn real_uid() -> u32 {
    let out = Command::new("id").arg("-u").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

#[test]
fn generated_tables_that_cannot_fit_are_refused() {
    let d = scratch("sizes-generate");
    let out = d.join("g.csv").to_string_lossy().into_owned();
    refused(
        &["generate", "gaussian", "--n", "100000000000", "-o", &out],
        &["100000000000 rows", "would need", "TB"],
    );
    refused(
        &[
            "generate",
            "gaussian",
            "--n",
            "1000",
            "--d",
            "1000000000000000",
            "-o",
            &out,
        ],
        &["would need"],
    );
    refused(
        &[
            "generate",
            "fraud",
            "--clusters",
            "100000000000",
            "-o",
            &out,
        ],
        &["100000000000 clusters", "would need"],
    );
    assert!(!Path::new(&out).exists());
}
