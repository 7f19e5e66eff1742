//! Every kind of bad input gets a clear message on stderr and a non-zero exit,
//! never a panic, and never a half-written output file.

mod common;

use common::{file, run, scratch};

/// Asserts a failing run: non-zero exit, no panic, and `needles` in stderr.
fn fails_with(args: &[&str], needles: &[&str]) {
    let (code, _out, err) = run(args);
    assert_ne!(code, 0, "{args:?} should fail; stderr: {err}");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: expected {n:?} in stderr: {err}");
    }
}

#[test]
fn missing_file() {
    fails_with(
        &["inspect", "/no/such/file.csv"],
        &["/no/such/file.csv", "No such file"],
    );
}

#[test]
fn empty_file() {
    let d = scratch("empty");
    fails_with(&["inspect", &file(&d, "e.csv", b"")], &["empty"]);
    fails_with(&["inspect", &file(&d, "e.dat", b"")], &["empty"]);
}

#[test]
fn header_without_rows() {
    let d = scratch("header");
    fails_with(
        &["inspect", &file(&d, "h.csv", b"a,b,class\n")],
        &["no data rows"],
    );
}

#[test]
fn ragged_row_gives_line_number() {
    let d = scratch("ragged");
    let f = file(&d, "r.csv", b"a,b,class\n1,2,0\n3,4,1\n5,0\n");
    fails_with(&["inspect", &f], &["line 4", "2 fields", "header has 3"]);
}

#[test]
fn non_numeric_value_gives_line_and_column() {
    let d = scratch("text");
    let f = file(&d, "t.csv", b"a,b,class\n1,2,0\n3,abc,1\n");
    fails_with(
        &["inspect", &f],
        &[
            "line 3",
            "column 'b'",
            "'abc'",
            "--categorical native or target",
        ],
    );
}

#[test]
fn nan_and_inf_tokens_are_errors() {
    let d = scratch("nan");
    fails_with(
        &[
            "inspect",
            &file(&d, "n.csv", b"a,b,class\n1,NaN,0\n3,4,1\n"),
        ],
        &["line 2", "column 'b'", "'NaN'", "not a finite number"],
    );
    fails_with(
        &[
            "inspect",
            &file(&d, "i.csv", b"a,b,class\n1,2,0\n-inf,4,1\n"),
        ],
        &["line 3", "column 'a'", "'-inf'"],
    );
}

#[test]
fn unknown_target_lists_columns() {
    fails_with(
        &["inspect", "--dataset", "pima", "--target", "outcome"],
        &["'outcome' not found", "columns are: x0, x1"],
    );
}

#[test]
fn unknown_dataset_lists_bundled() {
    fails_with(
        &["inspect", "--dataset", "nope"],
        &["no bundled dataset 'nope'", "pima"],
    );
}

#[test]
fn non_utf8_bytes() {
    let d = scratch("utf8");
    fails_with(
        &["inspect", &file(&d, "h.csv", b"a,\xff\xfe,class\n1,2,0\n")],
        &["line 1", "not valid UTF-8"],
    );
    fails_with(
        &["inspect", &file(&d, "v.csv", b"a,b,class\n1,\xff,0\n")],
        &["line 2", "column 'b'", "not a number"],
    );
    fails_with(
        &["inspect", &file(&d, "l.csv", b"a,b,class\n1,2,\xff\n")],
        &["line 2", "class label is not valid UTF-8"],
    );
}

#[test]
fn single_enormous_line() {
    let d = scratch("huge");
    let mut big = Vec::with_capacity(40 << 20);
    for i in 0..4_000_000 {
        big.extend_from_slice(format!("{i},").as_bytes());
    }
    big.extend_from_slice(b"class");
    // 30 MB in one line: past the line limit (RARITY_MAX_LINE_BYTES).
    fails_with(
        &["inspect", &file(&d, "big.csv", &big)],
        &["line 1: longer than", "RARITY_MAX_LINE_BYTES"],
    );
}

#[test]
fn missing_values_dropped_or_rejected() {
    let d = scratch("missing");
    let f = file(&d, "m.csv", b"a,b,class\n1,,0\n3,?,1\n5,6,0\n7,8,1\n");
    let (code, out, err) = run(&["inspect", "--format", "json", &f]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["n"], 2);
    assert_eq!(v["dropped_missing"], 2);
    fails_with(
        &["inspect", "--missing", "error", &f],
        &["line 2", "column 'b'", "missing"],
    );
}

#[test]
fn one_class_only_where_two_are_needed() {
    let d = scratch("oneclass");
    let f = file(&d, "o.csv", b"a,class\n1,x\n2,x\n");
    let (ds, _) = rarity::data::read::read_path(f.as_ref(), &Default::default()).unwrap();
    let e = ds.require_two_classes().unwrap_err().to_string();
    assert!(e.contains("only one class") && e.contains("'x'"), "{e}");
}

#[test]
fn bad_options() {
    fails_with(
        &["inspect", "--dataset", "pima", "--delimiter", "ab"],
        &["--delimiter"],
    );
    fails_with(&["inspect"], &["no data"]);
    fails_with(
        &["inspect", "--dataset", "pima", "--positive", "7"],
        &["'7' not found"],
    );
    fails_with(&["--threads", "0", "datasets"], &["--threads"]);
}

#[test]
fn no_half_written_output() {
    let d = scratch("atomic");
    let out = d.join("g.csv");
    let o = out.to_string_lossy().into_owned();
    fails_with(
        &[
            "generate",
            "gaussian",
            "--n",
            "100",
            "--positive-rate",
            "2",
            "-o",
            &o,
        ],
        &["positive rate"],
    );
    assert!(!out.exists());
    let missing_dir = d.join("no/such/dir/g.csv");
    fails_with(
        &[
            "generate",
            "fraud",
            "--n",
            "100",
            "-o",
            &missing_dir.to_string_lossy(),
        ],
        &["no/such/dir"],
    );
    // Nothing but the directory we made is left behind (no temp files).
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0);
}
