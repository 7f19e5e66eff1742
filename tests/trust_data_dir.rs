//! What an experiment's `--data-dir` may hold besides datasets (issue 51,
//! item 9): a FIFO named like a dataset hung the experiment forever and a
//! dangling link aborted it; both are skipped, and said so, as `find -type
//! f` passes over what is not a file.

mod common;

use std::process::{Command, Stdio};
use std::time::Duration;

use common::{output_within, scratch};

const BIN: &str = env!("CARGO_BIN_EXE_rarity");

#[test]
fn what_is_not_a_regular_file_is_skipped_and_said_so() {
    let dir = scratch("data-dir-special");
    let d = dir.join("ok.csv");
    let (c, _, e) = common::run(&[
        "generate",
        "gaussian",
        "--n",
        "300",
        "-o",
        &d.to_string_lossy(),
    ]);
    assert_eq!(c, 0, "{e}");
    let fifo = dir.join("pipe.csv");
    let st = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(st.success());
    std::os::unix::fs::symlink(dir.join("gone.csv"), dir.join("dangling.csv")).unwrap();
    std::os::unix::fs::symlink(&d, dir.join("link.csv")).unwrap();
    std::fs::create_dir(dir.join("folder.csv")).unwrap();
    let child = Command::new(BIN)
        .args([
            "experiment",
            "calibration",
            "--cv",
            "1x2",
            "--learners",
            "tree",
        ])
        .args(["--levels", "1", "--format", "json", "--data-dir"])
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = output_within(
        child,
        Duration::from_secs(120),
        "the experiment hangs on the FIFO",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let skipped: Vec<&str> = v["skipped"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert!(
        skipped.contains(&"pipe: not a regular file (a FIFO)"),
        "{skipped:?}"
    );
    assert!(
        skipped
            .iter()
            .any(|s| s.starts_with("dangling: a symbolic link to '")
                && s.ends_with("gone.csv', which does not exist")),
        "{skipped:?}"
    );
    assert!(
        skipped.contains(&"folder: not a regular file (a folder)"),
        "{skipped:?}"
    );
    // The dataset and the link to it are both read.
    let mut read: Vec<&str> = (v["cells"].as_array().unwrap().iter())
        .map(|c| c["dataset"].as_str().unwrap())
        .collect();
    read.dedup();
    assert_eq!(read, ["link", "ok"], "{v}");
}
