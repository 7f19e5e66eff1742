//! Helpers shared by the integration tests: run the `rarity` binary, make
//! scratch directories.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Every `.rs` file under `dir`.
pub fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

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

/// Saves `fitted` in `dir` in both model-file formats (`m-Binary`,
/// `m-Json`) and checks that each loads equal and predicts `ds` as it did.
pub fn assert_round_trips(
    fitted: &rarity::strategy::FittedStrategy,
    ds: &rarity::data::Dataset,
    dir: &Path,
) {
    for format in [
        rarity::persist::Format::Binary,
        rarity::persist::Format::Json,
    ] {
        let path = dir.join(format!("m-{format:?}"));
        rarity::persist::save(fitted, &path, format).unwrap();
        let back: rarity::strategy::FittedStrategy = rarity::persist::load(&path).unwrap();
        assert_eq!(&back, fitted, "{format:?}");
        assert_eq!(
            back.predict_proba(ds).unwrap(),
            fitted.predict_proba(ds).unwrap()
        );
    }
}

/// Writes `bytes` to `dir/name` and returns the path as a string.
pub fn file(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_string_lossy().into_owned()
}

/// A binary model file's bytes without its recorded fit time (the last 8
/// bytes: the f64 seconds of the fit record that ends the body) and without
/// its checksum (which covers the fit time), what two fits with the same
/// seed agree on.
pub fn model_bytes(bytes: &[u8]) -> Vec<u8> {
    let n = bytes.len();
    // The fit record ends the body, but for a `true` (0xc3) after it: the
    // learner takes missing values.
    let end = if n > 10 && bytes[n - 1] == 0xc3 && bytes[n - 10] == 0xcb {
        n - 1
    } else {
        n
    };
    assert!(
        end > 9 && bytes[end - 9] == 0xcb,
        "a binary model file ends with its fit time"
    );
    let sum = 11 + bytes[10] as usize + 8;
    [&bytes[..sum], &bytes[sum + 8..end - 8], &bytes[end..]].concat()
}

/// The bytes of the file at `path`, a model file's without its fit time
/// ([`model_bytes`]).
pub fn comparable(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    if path.extension().is_some_and(|e| e == "rarity") {
        model_bytes(&bytes)
    } else {
        bytes
    }
}

/// The shared benchmark data directory, if this checkout sits beside it.
pub fn shared_data() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
    p.join("MANIFEST.json").exists().then_some(p)
}

// ---- fixture helpers: reading committed JSON and comparing numbers.
// Fixture numbers encode NaN as null and infinities as "inf" / "-inf".
// Two numbers agree when both are NaN, both are the same infinity, or
// |a - b| <= tol * max(1, |b|): absolute up to 1, relative above.

pub fn load(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap()
}

pub fn num(v: &Value) -> f64 {
    match v {
        Value::Null => f64::NAN,
        Value::String(s) if s == "inf" => f64::INFINITY,
        Value::String(s) if s == "-inf" => f64::NEG_INFINITY,
        Value::Number(n) => n.as_f64().unwrap(),
        other => panic!("not a number: {other}"),
    }
}

pub fn nums(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(num).collect()
}

pub fn labels(v: &Value) -> Vec<u32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as u32)
        .collect()
}

pub fn agree(got: f64, want: f64, tol: f64) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if want.is_infinite() || got.is_infinite() {
        return got == want;
    }
    (got - want).abs() <= tol * want.abs().max(1.0)
}

pub fn check(case: &str, what: &str, got: f64, want: f64, tol: f64, failures: &mut Vec<String>) {
    if !agree(got, want, tol) {
        failures.push(format!("{case}: {what}: got {got:e}, want {want:e}"));
    }
}

pub fn check_all(
    case: &str,
    what: &str,
    got: &[f64],
    want: &[f64],
    tol: f64,
    failures: &mut Vec<String>,
) {
    if got.len() != want.len() {
        failures.push(format!(
            "{case}: {what}: {} values, want {}: {got:?} vs {want:?}",
            got.len(),
            want.len()
        ));
        return;
    }
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        check(case, &format!("{what}[{i}]"), g, w, tol, failures);
    }
}

/// Fails listing every mismatch, or when no fixture case was checked.
pub fn finish(failures: Vec<String>, checked: usize) {
    assert!(checked > 0, "no fixture cases were read");
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A 300-row table `dir/ok.csv` of two features, 30 rows positive: its path.
pub fn small_table(dir: &Path) -> String {
    let mut text = String::from("x1,x2,y\n");
    for i in 0..300 {
        let y = u32::from(i % 10 == 0);
        text.push_str(&format!("{},{},{y}\n", i % 17, (i * 7) % 23 + y * 5));
    }
    let p = dir.join("ok.csv");
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

/// Whether process `pid` holds a file of `dir` open: an output, which is
/// anonymous until it is complete (`/proc` shows `dir/#inode (deleted)`).
pub fn writing_into(pid: u32, dir: &Path) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten()
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .any(|to| to.starts_with(dir))
}

/// Waits until `child` holds a file of `dir` open ([`writing_into`]);
/// fails when it ends first or after 60 s.
pub fn wait_writing_into(child: &mut Child, dir: &Path) {
    let start = Instant::now();
    while !writing_into(child.id(), dir) {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the process ended before it opened a file of {}",
            dir.display()
        );
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no file of {} opened within 60 s",
            dir.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The output of `child` (its streams piped), killed and the test failed
/// with `what` when it has not finished within `limit`.
pub fn output_within(mut child: Child, limit: Duration, what: &str) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("{what} (not finished within {limit:?})");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}
