//! Work and memory that a file or a size could make unbounded (issue 51,
//! items 4, 5, 7 and 8), run as an attacker would run the binary: a
//! quoted field of a million line breaks, leave-one-out on more rows than
//! its folds can hold, ARFF declarations of millions of levels, memory
//! limits (`ulimit -v`) far below what the work needs.
//!
//! No test here measures time: work that would be quadratic is either
//! counted (the unit tests of `data::read::lines`) or given an input for
//! which quadratic work takes minutes while linear work takes a fraction
//! of a second, under a deadline of a minute.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::{output_within, scratch};

const BIN: &str = env!("CARGO_BIN_EXE_rarity");

/// Runs `rarity args` and returns its output, killing it (and failing)
/// if it has not finished within `limit`.
fn within(limit: Duration, args: &[&str]) -> Output {
    let child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    output_within(child, limit, &format!("rarity {args:?} hangs"))
}

/// Runs `rarity args` under `ulimit -v kib` (the address-space limit).
fn limited(kib: u64, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(BIN)
        .args(args)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

#[test]
fn a_quoted_field_of_a_million_line_breaks_is_read_in_linear_time() {
    // Re-counting the record's quotes at each of its lines took 19.6 s for
    // 300,000 line breaks; for 1,000,000 that is about 4 minutes.
    let dir = scratch("bounds-quoted");
    let path = dir.join("q.csv");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    f.write_all(b"a,note,y\n1,\"").unwrap();
    f.write_all(&vec![b'\n'; 1_000_000]).unwrap();
    f.write_all(b"end\",x\n2,plain,y\n3,plain,x\n").unwrap();
    drop(f);
    let out = within(
        Duration::from_secs(60),
        &["inspect", &s(&path), "--drop", "note", "--format", "json"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["n"], 3, "{v}");
}

#[test]
fn leave_one_out_on_more_rows_than_its_folds_can_hold_is_refused_before_any_work() {
    // 20,000 rows: 20,000 folds of 19,999 training rows, 3.2 GB of fold
    // lists; under a 1 GB limit that is refused at once, not allocated.
    let dir = scratch("bounds-loo");
    let d = s(&dir.join("d.csv"));
    let (c, _, e) = common::run(&["generate", "gaussian", "--n", "20000", "-o", &d]);
    assert_eq!(c, 0, "{e}");
    for args in [
        vec!["evaluate", &d, "--model", "tree", "--cv", "loo"],
        vec!["run", &d, "--model", "tree", "--cv", "loo", "-o", "-"],
    ] {
        let out = limited(1 << 20, &args);
        let e = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {e}");
        assert!(
            e.contains("leave-one-out on 20000 rows") && e.contains("would need 3.2 GB"),
            "{args:?}: {e}"
        );
    }
}

#[test]
fn an_arff_declaration_of_a_million_levels_is_refused_as_it_is_read() {
    let dir = scratch("bounds-arff");
    let levels = |n: usize| {
        (0..n)
            .map(|i| format!("l{i}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    // One input of 1,000,000 levels (7.9 MB): 1.5 GB to inspect before.
    let wide = dir.join("wide.arff");
    std::fs::write(
        &wide,
        format!(
            "@relation r\n@attribute a {{{}}}\n@attribute b real\n@attribute c {{p,q}}\n\
             @data\nl1,1,p\nl2,2,q\n",
            levels(1_000_000)
        ),
    )
    .unwrap();
    // Under 200 MB of address space, refused with a clear error, not aborted.
    let out = limited(200_000, &["inspect", &s(&wide)]);
    let e = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        e.contains("line 2") && e.contains("declares more than 65536 levels"),
        "{e}"
    );
    // A target declaring 5,000 classes (at most 1,000), refused before any row.
    let classes = dir.join("classes.arff");
    std::fs::write(
        &classes,
        format!(
            "@relation r\n@attribute b real\n@attribute c {{{}}}\n@data\n1,l0\n2,l1\n",
            levels(5_000)
        ),
    )
    .unwrap();
    let out = limited(200_000, &["inspect", &s(&classes)]);
    let e = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(e.contains("declares 5000 classes"), "{e}");
}
