//! Inputs that used to give a silently wrong answer, a huge message or
//! unbounded memory (issue 36, items 9, 11, 14, 17, 18 and part of 19):
//! duplicate column names, numeric labels written two ways, a class per
//! row, long and binary fields, CR-only and UTF-16 files, `generate bias`
//! keeping nothing, the model from standard input, `--target -1`.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::{ArrayRef, Int64Array, RecordBatch};
use common::{file, run, scratch};

/// Runs rarity and checks it fails, without a panic, with every needle in
/// its message; returns stderr.
fn fails(args: &[&str], needles: &[&str]) -> String {
    let (code, _out, err) = run(args);
    assert_ne!(code, 0, "{args:?} should fail; stderr: {err}");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: expected {n:?} in: {err}");
    }
    err
}

/// Eight rows where `a` (first column) and `a` (second) differ.
const DUPLICATE_CSV: &[u8] =
    b"a,a,b,y\n0,1,5,n\n1,0,5,p\n0,1,6,n\n1,0,6,p\n0,1,5,n\n1,0,5,p\n0,1,6,n\n1,0,6,p\n";

#[test]
fn duplicate_column_names_in_csv_are_an_error_naming_them() {
    let d = scratch("dup-csv");
    let f = file(&d, "dup.csv", DUPLICATE_CSV);
    let needles = ["duplicate column names", "'a' (columns 1, 2)", "rename"];
    fails(&["inspect", &f], &needles);
    fails(&["inspect", &f, "--drop", "a"], &needles);
    let m = d.join("m.rarity");
    fails(
        &["fit", &f, "--model", "tree", "-o", m.to_str().unwrap()],
        &needles,
    );
    assert!(!m.exists());
    // Predicting on such a file is refused too.
    let ok = file(&d, "ok.csv", b"a,b,y\n0,5,n\n1,5,p\n0,6,n\n1,6,p\n");
    let (code, _, err) = run(&["fit", &ok, "--model", "tree", "-o", m.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let out = d.join("p.csv");
    fails(
        &[
            "predict",
            m.to_str().unwrap(),
            &f,
            "-o",
            out.to_str().unwrap(),
        ],
        &needles,
    );
}

#[test]
fn duplicate_column_names_in_parquet_are_an_error() {
    let d = scratch("dup-parquet");
    let col = |v: Vec<i64>| Arc::new(Int64Array::from(v)) as ArrayRef;
    let batch = RecordBatch::try_from_iter(vec![
        ("a", col(vec![0, 1, 0, 1])),
        ("a", col(vec![1, 0, 1, 0])),
        ("y", col(vec![0, 1, 0, 1])),
    ])
    .unwrap();
    let p = d.join("dup.parquet");
    let f = std::fs::File::create(&p).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(f, batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let p = p.to_str().unwrap();
    fails(&["inspect", p], &["duplicate column names", "'a'"]);
    fails(&["inspect", p, "--drop", "a"], &["duplicate column names"]);
}

/// The class names `inspect --format json` reports for `csv`.
fn classes_of(csv: &[u8], name: &str) -> Vec<String> {
    let d = scratch(name);
    let f = file(&d, "l.csv", csv);
    let (code, out, err) = run(&["inspect", "--format", "json", &f]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let classes = v["classes"].as_array().expect("classes in the JSON");
    classes
        .iter()
        .map(|c| {
            c["name"]
                .as_str()
                .or(c.as_str())
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

#[test]
fn a_numeric_class_written_two_ways_is_one_class() {
    let mut names = classes_of(b"x,y\n1,0\n2,0.0\n3,-0\n4,1\n5,1.0\n6,1\n", "labels");
    names.sort();
    assert_eq!(names, vec!["0", "1"]);
    // A text column stays text.
    let mut names = classes_of(b"x,y\n1,a\n2,1.0\n3,1\n4,a\n", "text-labels");
    names.sort();
    assert_eq!(names, vec!["1", "1.0", "a"]);
    // A label that is not a finite number is an error, as in a feature.
    let d = scratch("inf-label");
    let f = file(&d, "inf.csv", b"x,y\n1,0\n2,1e309\n3,1\n");
    fails(&["inspect", &f], &["'1e309' is not a finite number"]);
}

#[test]
fn a_class_per_row_is_refused_fast() {
    let d = scratch("classes");
    let mut csv = String::from("x,id\n");
    for i in 0..2000 {
        csv.push_str(&format!("{i},u{i}\n"));
    }
    let f = file(&d, "ids.csv", csv.as_bytes());
    let m = d.join("m.rarity");
    let start = Instant::now();
    fails(
        &["fit", &f, "--model", "tree", "-o", m.to_str().unwrap()],
        &["2000 distinct labels", "--target", "RARITY_MAX_CLASSES"],
    );
    assert!(start.elapsed() < Duration::from_secs(20));
}

#[test]
fn a_huge_bad_field_gives_a_short_escaped_message() {
    let d = scratch("long-field");
    let mut csv = b"a,y\n1,p\n2,n\n".to_vec();
    csv.extend_from_slice(b"x\0");
    csv.extend(std::iter::repeat_n(b'z', 1 << 20));
    csv.extend_from_slice(b",p\n");
    let f = file(&d, "big-field.csv", &csv);
    let err = fails(&["inspect", &f], &["is not a number", "\\0", "bytes)"]);
    assert!(err.len() < 300, "{} bytes: {err}", err.len());
    assert!(!err.contains('\0'));
}

#[test]
fn one_endless_field_is_refused_quickly() {
    let d = scratch("endless");
    let p = d.join("endless.csv.zst");
    let out = std::fs::File::create(&p).unwrap();
    let mut z = zstd::stream::write::Encoder::new(out, 1).unwrap();
    z.write_all(b"a,y\n1,p\n2,n\n3,").unwrap();
    let chunk = vec![b'7'; 1 << 20];
    for _ in 0..200 {
        z.write_all(&chunk).unwrap();
    }
    z.write_all(b",p\n").unwrap();
    z.finish().unwrap();
    let start = Instant::now();
    fails(
        &["inspect", p.to_str().unwrap()],
        &["line 4: longer than", "RARITY_MAX_LINE_BYTES"],
    );
    assert!(start.elapsed() < Duration::from_secs(20));
    // The limit can be raised: a 2 MiB field then reads.
    let mut csv = b"a,y\n1,p\n2,n\n".to_vec();
    csv.extend(std::iter::repeat_n(b'1', 2 << 20));
    csv.extend_from_slice(b",p\n");
    let f = file(&d, "wide.csv", &csv);
    let raised = Command::new(env!("CARGO_BIN_EXE_rarity"))
        .args(["inspect", &f])
        .env("RARITY_MAX_LINE_BYTES", "1000000")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&raised.stderr);
    assert!(err.contains("longer than 1000000 bytes"), "{err}");
}

#[test]
fn cr_only_and_utf16_files_are_named() {
    let d = scratch("encodings");
    let cr = file(&d, "cr.csv", b"a,b,y\r1,2,p\r3,4,n\r5,6,p\r");
    fails(&["inspect", &cr], &["CR-only", "tr "]);
    let text = "a,b,y\n1,2,p\n3,4,n\n";
    let mut le = vec![0xFF, 0xFE];
    le.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    let le = file(&d, "le.csv", &le);
    fails(&["inspect", &le], &["UTF-16", "iconv -f UTF-16 -t UTF-8"]);
    let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    let be = file(&d, "be.csv", &be);
    fails(&["inspect", &be], &["UTF-16"]);
    // One NUL in a header is a damaged file, not UTF-16 (issue 58).
    let nul = file(&d, "nul.csv", b"a\0b,c\n1,2\n3,4\n");
    fails(&["inspect", &nul], &["NUL byte (byte 2)", "not CSV text"]);
}

#[test]
fn generate_bias_that_keeps_nothing_is_refused() {
    let d = scratch("bias-none");
    let f = file(&d, "ok.csv", b"a,y\n1,p\n2,n\n3,p\n4,n\n");
    let out = d.join("out.csv");
    fails(
        &[
            "generate",
            "bias",
            &f,
            "--class",
            "0,0",
            "-o",
            out.to_str().unwrap(),
        ],
        &["keeps none of the 4 rows"],
    );
    assert!(!out.exists());
}

#[test]
fn the_model_can_come_from_standard_input() {
    let d = scratch("model-stdin");
    let f = file(&d, "ok.csv", b"a,y\n1,p\n2,n\n3,p\n4,n\n");
    let m = d.join("m.rarity");
    let (code, _, err) = run(&["fit", &f, "--model", "tree", "-o", m.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let piped = |args: &[&str]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_rarity"))
            .args(args)
            .stdin(Stdio::from(std::fs::File::open(&m).unwrap()))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        c.stdin.take();
        c.wait_with_output().unwrap()
    };
    let out = piped(&["predict", "-", &f, "-o", "-"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        // The kept target column y, then the probabilities and the label.
        stdout.starts_with("y,p_n,p_p,label\n"),
        "{stdout}"
    );
    let out = piped(&["predict", "-", "-", "-o", "-"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("cannot both come from standard input"));
}

#[test]
fn a_negative_target_index_says_which_column() {
    let d = scratch("target-index");
    let f = file(&d, "ok.csv", b"a,b,y\n1,2,p\n2,3,n\n3,4,p\n4,5,n\n");
    let (code, _, err) = run(&["inspect", &f, "--target", "-1"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("--target -1 is the column 'y'"), "{err}");
    let (_, _, err) = run(&["inspect", &f, "--target", "y"]);
    assert!(!err.contains("note: --target"), "{err}");
}

#[test]
fn an_endless_arff_line_is_refused() {
    let d = scratch("arff-endless");
    let mut arff = b"@relation r\n@attribute a real\n@attribute y {p,n}\n@data\n1,p\n".to_vec();
    arff.extend(std::iter::repeat_n(b'1', 17 << 20));
    arff.extend_from_slice(b",n\n");
    let f = file(&d, "long.arff", &arff);
    fails(
        &["inspect", &f],
        &["line 6: longer than", "RARITY_MAX_LINE_BYTES"],
    );
}
