//! What reaches the terminal (issue 51, items 15 and 16): a closed or
//! broken standard output ends the command as it ends coreutils (no
//! summary claims rows that were not written), and names from data and
//! model files never carry a control character to the terminal.

mod common;

use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Output, Stdio};

use common::scratch;

const BIN: &str = env!("CARGO_BIN_EXE_rarity");

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs `rarity args` through `sh -c "PREFIX exec rarity args SUFFIX"`.
fn shell(prefix: &str, args: &[&str], suffix: &str) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("{prefix} exec \"$0\" \"$@\" {suffix}"))
        .arg(BIN)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn a_closed_stdout_is_an_error_not_a_success() {
    // The runtime reopened descriptor 1 on /dev/null: "wrote 10000 rows".
    let out = shell("", &["generate", "gaussian", "-o", "-"], ">&-");
    let e = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(
        e.contains("standard output is not open for writing") && !e.contains("wrote"),
        "{e}"
    );
    // A result printed to a closed stdout: an error too.
    let dir = scratch("terminal-closed");
    let d = dir.join("d.csv").to_string_lossy().into_owned();
    let (c, _, e) = common::run(&["generate", "gaussian", "--n", "100", "-q", "-o", &d]);
    assert_eq!(c, 0, "{e}");
    let out = shell("", &["inspect", &d], ">&-");
    assert_ne!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // A closed stdin is not an empty file.
    let out = shell("", &["inspect", "-"], "<&-");
    let e = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(e.contains("standard input is not open for reading"), "{e}");
}

/// `rarity args` writing its table to stdout, whose reader reads one line
/// and goes away: the exit status and stderr.
fn read_one_line(args: &[&str], sigpipe_ignored: bool) -> (std::process::ExitStatus, String) {
    let mut c = if sigpipe_ignored {
        let mut c = Command::new("sh");
        c.args(["-c", "trap '' PIPE; exec \"$0\" \"$@\"", BIN]);
        c
    } else {
        Command::new(BIN)
    };
    let mut child = c
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(!first.is_empty());
    // The reader is dropped here: the pipe has no reader any more.
    let out = child.wait_with_output().unwrap();
    (out.status, text(&out.stderr))
}

#[test]
fn a_broken_pipe_ends_the_command_without_claiming_the_rows() {
    let dir = scratch("terminal-pipe");
    let d = dir.join("d.csv").to_string_lossy().into_owned();
    let m = dir.join("m.rarity").to_string_lossy().into_owned();
    let (c, _, e) = common::run(&["generate", "gaussian", "--n", "300000", "-q", "-o", &d]);
    assert_eq!(c, 0, "{e}");
    let (c, _, e) = common::run(&["fit", &d, "--model", "logistic", "-o", &m]);
    assert_eq!(c, 0, "{e}");
    let cases: [&[&str]; 2] = [
        &["generate", "gaussian", "--n", "1000000", "-o", "-"],
        &["predict", &m, &d, "-o", "-"],
    ];
    for args in cases {
        // As `seq 1000000 | head -1`: ended by SIGPIPE, silently.
        let (st, e) = read_one_line(args, false);
        assert_eq!(st.signal(), Some(13), "{args:?}: {st:?} {e}");
        assert!(!e.contains("wrote") && !e.contains("predicted"), "{e}");
        // Started with SIGPIPE ignored: a write error, said once.
        let (st, e) = read_one_line(args, true);
        assert_eq!(st.code(), Some(3), "{args:?}: {e}");
        assert!(
            e.contains("Broken pipe") && !e.contains("wrote") && !e.contains("predicted"),
            "{e}"
        );
    }
}

/// Bytes that drive a terminal: C0 controls but line feed and tab, DEL, C1
/// controls (UTF-8 `C2 80`-`C2 9F`), the bidirectional overrides.
fn drives_a_terminal(out: &[u8]) -> Option<usize> {
    let s = String::from_utf8_lossy(out);
    s.char_indices()
        .find(|&(_, c)| {
            (c.is_control() && c != '\n' && c != '\t')
                || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .map(|(i, _)| i)
}

/// `base` and then `more`.
fn with<'a>(base: &[&'a str], more: &[&'a str]) -> Vec<&'a str> {
    [base, more].concat()
}

fn assert_safe(what: &str, out: &Output) {
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        if let Some(i) = drives_a_terminal(bytes) {
            let s = text(bytes);
            panic!(
                "{what}: {stream} carries a control at {i}: {:?}",
                &s[i.saturating_sub(40)..]
            );
        }
    }
}

#[test]
fn names_from_files_never_reach_the_terminal_raw() {
    let dir = scratch("terminal-escapes");
    // A window title, a cleared screen, a bell, an 8-bit CSI, a carriage
    // return that rewrites the line, a right-to-left override.
    let title = "\u{1b}]0;pwned\u{7}\u{1b}[2J";
    let header = format!("amount{title},kind\u{9b}31m,label\u{202e}");
    let mut csv = format!("{header}\n");
    for i in 0..300 {
        let y = if i % 10 == 0 { "fraud\u{1b}[5m" } else { "ok" };
        let kind = if i % 2 == 0 {
            "a\u{1b}[8m"
        } else {
            "b\rhidden"
        };
        csv.push_str(&format!("{},{kind},{y}\n", (i * 37 % 101) as f64 / 10.0));
    }
    let d = dir.join("evil.csv");
    std::fs::write(&d, csv).unwrap();
    let d = d.to_string_lossy().into_owned();
    let path = |n: &str| dir.join(n).to_string_lossy().into_owned();
    let (m, p) = (path("m.rarity"), path("p.csv"));
    let nat = ["--categorical", "native"];
    let run = |what: &str, args: &[&str]| -> Output {
        let out = Command::new(BIN).args(args).output().unwrap();
        assert_safe(what, &out);
        out
    };
    let fit = run(
        "fit",
        &with(&["fit", &d, "--model", "tree", "-o", &m], &nat),
    );
    assert!(fit.status.success(), "{}", text(&fit.stderr));
    let inspect = run("inspect", &with(&["inspect", &d], &nat));
    assert!(text(&inspect.stdout).contains("amount\\u{1b}]0;pwned\\u{7}\\u{1b}[2J"));
    let show = run("show", &["show", &m]);
    assert!(
        text(&show.stdout).contains("fraud\\u{1b}[5m"),
        "{}",
        text(&show.stdout)
    );
    let predict = run("predict", &["predict", &m, &d, "-o", &p]);
    assert!(text(&predict.stdout).contains("fraud\\u{1b}[5m"));
    // The predictions are data: written as the model's classes are named.
    assert!(std::fs::read_to_string(&p)
        .unwrap()
        .contains("fraud\u{1b}[5m"));
    // A table to stdout is data, written as it is when piped, escaped when
    // stdout is a terminal (a pseudo-terminal of `script`, whose line
    // discipline turns each line feed into CR LF).
    let piped = Command::new(BIN)
        .args(["predict", &m, &d, "-o", "-", "-q"])
        .output()
        .unwrap();
    // (after the kept target column)
    assert!(text(&piped.stdout).contains(",p_ok,p_fraud\u{1b}[5m,label\n"));
    let tty = Command::new("script")
        .args([
            "-qec",
            &format!("'{BIN}' predict '{m}' '{d}' -o - -q"),
            "/dev/null",
        ])
        .output()
        .unwrap();
    let shown = text(&tty.stdout).replace("\r\n", "\n");
    assert!(
        shown.contains(",p_ok,p_fraud\\u{1b}[5m,label\n"),
        "{shown:?}"
    );
    assert_eq!(drives_a_terminal(shown.as_bytes()), None, "{shown:?}");
    run(
        "evaluate",
        &with(&["evaluate", &d, "--model", "tree", "--cv", "3"], &nat),
    );
    run(
        "run",
        &with(&["run", &d, "--model", "tree", "--cv", "3", "-o", &m], &nat),
    );
    run("explain", &with(&["explain", &m, &d], &nat));
    // Errors that name a column or a level.
    let e = run("a text column", &["inspect", &d]);
    assert!(
        text(&e.stderr).contains("kind\\u{9b}31m"),
        "{}",
        text(&e.stderr)
    );
    run("an unknown target", &["inspect", &d, "--target", "nope"]);
    run(
        "an unknown positive",
        &with(&["inspect", &d, "--positive", "x"], &nat),
    );
    // JSON: escaped, and the names read back exactly.
    let json = run("show json", &["show", &m, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["classes"][1], "fraud\u{1b}[5m", "{v}");
    assert!(v.to_string().contains("kind\u{9b}31m"));
    for fmt in ["text", "json"] {
        run(fmt, &with(&["inspect", &d, "--format", fmt], &nat));
    }
}
