//! Trust in production (issue 36, items 2, 8 and 10): a command never
//! writes over what it reads, every output is checked before any work, and
//! a model file that changed after it was written is refused.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use common::{run, scratch};

/// A small table and a model fitted on it, in `d`.
fn data_and_model(d: &Path) -> (String, String) {
    let data = d.join("in.csv").to_string_lossy().to_string();
    let (code, _, err) = run(&[
        "generate", "gaussian", "--n", "300", "--d", "3", "-o", &data, "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    let model = d.join("m.rarity").to_string_lossy().to_string();
    let (code, _, err) = run(&[
        "fit",
        &data,
        "--model",
        "forest(n=5)",
        "-o",
        &model,
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    (data, model)
}

/// Runs `args`, expects a refusal whose message contains `says`, and that
/// every file in `unchanged` kept its bytes.
fn refused(args: &[&str], says: &str, unchanged: &[&str]) {
    let before: Vec<Vec<u8>> = unchanged
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    let (code, _, err) = run(args);
    assert_ne!(code, 0, "{args:?} succeeded");
    assert!(err.contains(says), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    for (p, b) in unchanged.iter().zip(before) {
        assert_eq!(std::fs::read(p).unwrap(), b, "{p} changed");
    }
}

#[test]
fn an_output_that_is_an_input_is_refused_before_any_work() {
    let d = scratch("trust-same");
    let (data, model) = data_and_model(&d);
    let same = "the same file";
    refused(&["predict", &model, &data, "-o", &data], same, &[&data]);
    refused(&["predict", &model, &data, "-o", &model], same, &[&model]);
    let spelled = d.join(".").join("in.csv").to_string_lossy().to_string();
    refused(&["predict", &model, &data, "-o", &spelled], same, &[&data]);
    let link = d.join("link.csv");
    std::os::unix::fs::symlink(&data, &link).unwrap();
    let link = link.to_string_lossy().to_string();
    refused(&["predict", &model, &link, "-o", &data], same, &[&data]);
    refused(&["fit", &data, "-m", "tree", "-o", &data], same, &[&data]);
    refused(
        &["evaluate", &data, "-m", "tree", "--oof", &data],
        same,
        &[&data],
    );
    refused(
        &["resample", &data, "--method", "under", "-o", &data],
        same,
        &[&data],
    );
    // A report folder holding the data: the report replaces it whole.
    refused(
        &["explain", &model, &data, "--report", &d.to_string_lossy()],
        "replaced whole",
        &[&data],
    );
    let scores = d.join("s.csv").to_string_lossy().to_string();
    std::fs::write(&scores, "y,p_1\n0,0.2\n1,0.9\n0,0.1\n1,0.7\n").unwrap();
    refused(
        &[
            "calibrate",
            &scores,
            "--proba",
            "p_1",
            "--beta",
            "0.5",
            "-o",
            &scores,
        ],
        same,
        &[&scores],
    );
    refused(
        &["generate", "bias", &data, "--class", "0.5,1", "-o", &data],
        same,
        &[&data],
    );
    // Two outputs naming one file.
    let out = d.join("out.rarity").to_string_lossy().to_string();
    refused(
        &[
            "run", &data, "-m", "tree", "--cv", "2", "-o", &out, "--oof", &out,
        ],
        "are the same file",
        &[],
    );
    // A model written into the report folder that replaces it.
    let rr = d.join("rr");
    std::fs::create_dir_all(&rr).unwrap();
    let inner = rr.join("index.html").to_string_lossy().to_string();
    refused(
        &[
            "run",
            &data,
            "-m",
            "tree",
            "--cv",
            "2",
            "--report",
            &rr.to_string_lossy(),
            "-o",
            &inner,
        ],
        "replaced whole",
        &[],
    );
    assert!(!Path::new(&inner).exists());
    // Standard output appending to the input (`-o - >> in.csv`), as cat
    // refuses "input file is output file".
    let before = std::fs::read(&data).unwrap();
    let appended = std::fs::OpenOptions::new()
        .append(true)
        .open(&data)
        .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rarity"))
        .args(["predict", &model, &data, "-o", "-"])
        .stdout(Stdio::from(appended))
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains(same));
    assert_eq!(std::fs::read(&data).unwrap(), before);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn an_output_that_cannot_be_written_is_refused_before_reading_data() {
    let d = scratch("trust-unwritable");
    let (data, model) = data_and_model(&d);
    // A forest that would take minutes on this table is refused at once.
    let big = d.join("big.csv").to_string_lossy().to_string();
    let (code, _, err) = run(&[
        "generate", "gaussian", "--n", "200000", "--d", "20", "-o", &big, "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    let start = Instant::now();
    refused(
        &[
            "fit",
            &big,
            "-m",
            "forest(n=2000)",
            "-o",
            "/nonexistent/dir/m.rarity",
        ],
        "the folder '/nonexistent/dir' does not exist",
        &[],
    );
    assert!(start.elapsed().as_secs_f64() < 5.0, "{:?}", start.elapsed());
    let dir = d.to_string_lossy().to_string();
    refused(&["predict", &model, &data, "-o", &dir], "directory", &[]);
    refused(
        &[
            "fit",
            &data,
            "-m",
            "tree",
            "-o",
            &format!("{data}/m.rarity"),
        ],
        "is not a folder",
        &[],
    );
    refused(
        &[
            "run",
            &data,
            "-m",
            "tree",
            "--cv",
            "2",
            "--oof",
            "/nonexistent/o.csv",
        ],
        "does not exist",
        &[],
    );
    refused(
        &[
            "run",
            &data,
            "-m",
            "tree",
            "--cv",
            "2",
            "--report",
            "/nonexistent/rr",
        ],
        "does not exist",
        &[],
    );
    refused(
        &[
            "generate",
            "fraud",
            "--n",
            "100",
            "-o",
            "/nonexistent/f.csv",
        ],
        "does not exist",
        &[],
    );
    refused(
        &[
            "experiment",
            "pt-bagging",
            "--data-dir",
            &dir,
            "--report",
            "/nonexistent/rr",
        ],
        "does not exist",
        &[],
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_model_file_that_changed_is_refused() {
    let d = scratch("trust-checksum");
    let (data, model) = data_and_model(&d);
    let good = std::fs::read(&model).unwrap();
    let out = d.join("p.csv").to_string_lossy().to_string();
    // Every tenth byte of the body, one bit each: never a prediction.
    let corrupt = d.join("bad.rarity").to_string_lossy().to_string();
    let head = 11 + good[10] as usize + 16;
    for i in (head..good.len()).step_by(good.len() / 10) {
        let mut b = good.clone();
        b[i] ^= 0x10;
        std::fs::write(&corrupt, &b).unwrap();
        let (code, _, err) = run(&["predict", &corrupt, &data, "-o", &out, "--quiet"]);
        assert_ne!(code, 0, "byte {i}");
        assert!(
            err.contains("model file is corrupt (checksum mismatch)"),
            "{err}"
        );
    }
    // `show` says the file carries a verified checksum.
    let (code, text, err) = run(&["show", &model]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("xxh3-64, verified"), "{text}");
    std::fs::remove_dir_all(&d).unwrap();
}
