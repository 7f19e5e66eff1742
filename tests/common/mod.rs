//! Helpers shared by the integration tests: run the `rarity` binary, make
//! scratch directories.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `rarity` with the given arguments.
pub fn rarity(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rarity"))
        .args(args)
        .output()
        .expect("the rarity binary runs")
}

/// Runs `rarity` and returns (exit code, stdout, stderr).
pub fn run(args: &[&str]) -> (i32, String, String) {
    let out = rarity(args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rarity-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `bytes` to `dir/name` and returns the path as a string.
pub fn file(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_string_lossy().into_owned()
}

/// The shared benchmark data directory, if this checkout sits beside it.
pub fn shared_data() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    p.join("MANIFEST.json").exists().then_some(p)
}
