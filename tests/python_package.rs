//! The Python package's tests (`python/tests`), run by `cargo test`: when
//! `python3` with `venv` is available, a virtual environment under
//! `target/` gets `pip install ./python[test,spark]` (the package built from
//! this checkout, with pytest, scikit-learn, imbalanced-learn, pandas,
//! polars, pyarrow, joblib, onnx, onnxruntime and pyspark) and pytest runs there (the Spark
//! tests need a Java runtime too, else they say why they skip); any pytest
//! failure fails this
//! test. The environment is reused while the package's sources (the
//! library's included) are unchanged. Without Python the test says so and
//! passes.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A Python 3.9+ with the `venv` module, if there is one.
fn python() -> Option<String> {
    let candidates = [std::env::var("RARITY_PYTHON").ok(), Some("python3".into())];
    candidates.into_iter().flatten().find(|p| {
        Command::new(p)
            .args([
                "-c",
                "import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 9))",
            ])
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// Every file under `dir` whose name ends in one of `exts`, sorted.
fn files(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = p.file_name().unwrap_or_default().to_string_lossy();
        if p.is_dir() {
            if !matches!(name.as_ref(), "target" | "__pycache__" | ".pytest_cache") {
                files(&p, exts, out);
            }
        } else if exts.iter().any(|x| name.ends_with(x)) {
            out.push(p);
        }
    }
}

/// A hash of everything the installed package is built from.
fn sources_hash() -> String {
    let root = Path::new(ROOT);
    let mut paths = vec![
        root.join("Cargo.toml"),
        root.join("Cargo.lock"),
        root.join("python/Cargo.toml"),
        root.join("python/pyproject.toml"),
    ];
    files(&root.join("src"), &[".rs"], &mut paths);
    files(&root.join("data"), &[".csv"], &mut paths);
    files(&root.join("python/src"), &[".rs"], &mut paths);
    files(
        &root.join("python/rarity"),
        &[".py", ".pyi", "py.typed"],
        &mut paths,
    );
    paths.sort();
    let mut h = DefaultHasher::new();
    for p in &paths {
        p.strip_prefix(root).unwrap_or(p).hash(&mut h);
        std::fs::read(p).unwrap_or_default().hash(&mut h);
    }
    format!("{:016x}", h.finish())
}

fn run(cmd: &mut Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    if !out.status.success() {
        panic!(
            "{what} failed ({}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn python_package_tests_pass() {
    let Some(python) = python() else {
        eprintln!(
            "SKIPPED: the Python package tests need python3 (>= 3.9) with the venv module; \
             none was found (set RARITY_PYTHON to choose one)"
        );
        return;
    };
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-venv");
    let bin = venv.join(if cfg!(windows) { "Scripts" } else { "bin" });
    let py = bin.join("python");
    let stamp = venv.join("rarity-sources.hash");
    let hash = sources_hash();
    if !py.exists() {
        run(
            Command::new(&python).args(["-m", "venv"]).arg(&venv),
            "creating the virtual environment",
        );
    }
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(hash.as_str()) {
        eprintln!("installing ./python[test,spark] into {}", venv.display());
        run(
            Command::new(&py).args(["-m", "pip", "install", "--quiet", "--upgrade", "pip"]),
            "upgrading pip",
        );
        run(
            Command::new(&py)
                .args(["-m", "pip", "install", "--quiet"])
                .arg(format!(
                    "{}[test,spark]",
                    Path::new(ROOT).join("python").display()
                )),
            "pip install ./python[test,spark]",
        );
        std::fs::write(&stamp, &hash).unwrap();
    }
    let out = Command::new(&py)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(Path::new(ROOT).join("python/tests"))
        .env("RARITY_BIN", env!("CARGO_BIN_EXE_rarity"))
        // Not `python/`: its `rarity` source directory would shadow the
        // installed package.
        .current_dir(Path::new(ROOT).join("python/tests"))
        .output()
        .expect("pytest runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let tail: Vec<&str> = stdout.lines().rev().take(60).collect();
    eprintln!("{}", tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
    assert!(
        out.status.success(),
        "pytest failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
