//! What an output path may be and what is never done to it (issue 36,
//! items 1, 3-7 and the report link of 19): planted links are not
//! followed, held streams are written in place, permissions are kept,
//! signals leave no temporaries, reports are written whole, names ending in
//! `.gz` / `.zst` are compressed.

mod common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{run, scratch, wait_writing_into};

const BIN: &str = env!("CARGO_BIN_EXE_rarity");

/// A small dataset `d.csv` and a tree model `m.rarity` fitted on it.
fn data_and_model(dir: &Path) -> (String, String) {
    let d = dir.join("d.csv").to_string_lossy().into_owned();
    let m = dir.join("m.rarity").to_string_lossy().into_owned();
    let (c, _, e) = run(&["generate", "gaussian", "--n", "200", "-o", &d]);
    assert_eq!(c, 0, "{e}");
    let (c, _, e) = run(&["fit", &d, "--model", "tree", "-o", &m]);
    assert_eq!(c, 0, "{e}");
    (d, m)
}

/// The hidden entries (temporaries) of `dir`.
fn hidden(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect()
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

#[test]
fn planted_temporary_links_are_never_followed() {
    let dir = scratch("trust-planted");
    let (d, m) = data_and_model(&dir);
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, "precious\n").unwrap();
    // The old scheme's names for the next pids, each a link to the victim.
    let me = std::process::id();
    for pid in me..me + 400 {
        let _ = std::os::unix::fs::symlink(&victim, dir.join(format!(".o.csv.tmp-{pid}")));
    }
    let out = dir.join("o.csv");
    let (c, _, e) = run(&["predict", &m, &d, "-o", &s(&out)]);
    assert_eq!(c, 0, "{e}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious\n");
    let meta = std::fs::symlink_metadata(&out).unwrap();
    assert!(meta.file_type().is_file(), "o.csv must be a regular file");
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .contains("p_0,p_1,label\n"));
    // Nothing but the planted links is left hidden.
    assert_eq!(hidden(&dir).len(), 400);
}

#[test]
fn a_held_stream_is_written_in_place() {
    let dir = scratch("trust-stream");
    let (d, m) = data_and_model(&dir);
    // `-o /proc/self/fd/1 >> app.log` appends to the log.
    let log = dir.join("app.log");
    std::fs::write(&log, "earlier line\n").unwrap();
    for spelling in ["/proc/self/fd/1", "/dev/stdout", "/dev/fd/1"] {
        let f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        let st = Command::new(BIN)
            .args(["predict", &m, &d, "-o", spelling])
            .stdout(Stdio::from(f))
            .status()
            .unwrap();
        assert!(st.success(), "{spelling}");
    }
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.starts_with("earlier line\n"), "{}", &text[..40]);
    assert_eq!(text.matches("p_0,p_1,label").count(), 3);
    assert!(std::fs::symlink_metadata(&log).unwrap().is_file());
    // Into a pipe.
    let out = Command::new(BIN)
        .args(["predict", &m, &d, "-o", "/dev/stdout"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("p_0,p_1,label\n"));
    // A descriptor that is not open is a clear error before any work.
    let (c, _, e) = run(&["predict", &m, &d, "-o", "/dev/fd/987"]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("not open"), "{e}");
}

#[test]
fn a_replaced_file_keeps_its_mode_and_owner_and_new_files_follow_the_umask() {
    let dir = scratch("trust-perms");
    let (d, m) = data_and_model(&dir);
    let p = dir.join("p.csv");
    std::fs::write(&p, "old\n").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
    let (c, _, e) = run(&["predict", &m, &d, "-o", &s(&p)]);
    assert_eq!(c, 0, "{e}");
    assert_eq!(std::fs::metadata(&p).unwrap().mode() & 0o7777, 0o600);
    // A new file under umask 077.
    let n = dir.join("new.csv");
    let st = Command::new("sh")
        .args([
            "-c",
            "umask 077; exec \"$@\"",
            "sh",
            BIN,
            "predict",
            &m,
            &d,
            "-o",
        ])
        .arg(&n)
        .status()
        .unwrap();
    assert!(st.success());
    assert_eq!(std::fs::metadata(&n).unwrap().mode() & 0o7777, 0o600);
    // As root, a file of another user stays theirs.
    if is_root() {
        std::os::unix::fs::chown(&p, Some(65534), Some(65534)).unwrap();
        let (c, _, e) = run(&["predict", &m, &d, "-o", &s(&p)]);
        assert_eq!(c, 0, "{e}");
        let meta = std::fs::metadata(&p).unwrap();
        assert_eq!((meta.uid(), meta.gid()), (65534, 65534));
    }
}

fn is_root() -> bool {
    std::fs::metadata("/proc/self")
        .map(|m| m.uid() == 0)
        .unwrap_or(false)
}

#[test]
fn a_file_the_user_could_not_write_is_refused() {
    if !is_root() || Command::new("setpriv").arg("--help").output().is_err() {
        eprintln!("skipped: needs root and setpriv to run as another user");
        return;
    }
    let dir = scratch("trust-readonly");
    let (d, m) = data_and_model(&dir);
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let p = dir.join("locked.csv");
    std::fs::write(&p, "keep\n").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN])
        .args(["predict", &m, &d, "-o"])
        .arg(&p)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("locked.csv") && err.contains("not writable"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "keep\n");
}

/// Starts a long `generate`, waits for its temporary, sends `signal`.
/// `generate`, interrupted by `signal` once its temporary exists: the exit
/// code and what is left in its folder. With `ignoring_int` it starts with
/// SIGINT ignored (as `nohup` and background jobs do): SIGINT must then
/// leave it running, and `signal` is sent after it.
fn interrupted(name: &str, signal: &str, ignoring_int: bool) -> (Option<i32>, Vec<PathBuf>) {
    let dir = scratch(name);
    let out = dir.join("big.csv");
    let mut command = if ignoring_int {
        let mut c = Command::new("sh");
        c.args(["-c", "trap '' INT; exec \"$0\" \"$@\"", BIN]);
        c
    } else {
        Command::new(BIN)
    };
    let mut child = command
        .args(["generate", "fraud", "--n", "3000000", "-q", "-o"])
        .arg(&out)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    wait_writing_into(&mut child, &dir);
    std::thread::sleep(Duration::from_millis(200));
    let pid = child.id().to_string();
    let kill = |signal: &str| {
        let st = Command::new("kill").args([signal, &pid]).status().unwrap();
        assert!(st.success());
    };
    if ignoring_int {
        kill("-INT");
        std::thread::sleep(Duration::from_millis(300));
        assert!(
            child.try_wait().unwrap().is_none(),
            "an ignored SIGINT ended it"
        );
    }
    kill(signal);
    let code = child.wait().unwrap().code();
    let left = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    (code, left)
}

#[test]
fn a_signal_removes_the_temporaries_and_exits_conventionally() {
    let (code, left) = interrupted("trust-sigint", "-INT", false);
    assert_eq!(code, Some(130));
    assert!(left.is_empty(), "{left:?}");
    let (code, left) = interrupted("trust-sigterm", "-TERM", false);
    assert_eq!(code, Some(143));
    assert!(left.is_empty(), "{left:?}");
    let (code, left) = interrupted("trust-sigint-ignored", "-TERM", true);
    assert_eq!(code, Some(143));
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_report_folder_is_replaced_whole_and_only_when_it_is_a_report() {
    let dir = scratch("trust-report");
    let (d, m) = data_and_model(&dir);
    // A dangling link: what it points to, and that it does not exist.
    let link = dir.join("gone");
    std::os::unix::fs::symlink("nowhere/at/all", &link).unwrap();
    let (c, _, e) = run(&["explain", &m, &d, "--report", &s(&link)]);
    assert_eq!(c, 2, "{e}");
    assert!(
        e.contains("nowhere/at/all") && e.contains("does not exist"),
        "{e}"
    );
    // A folder of the user's is refused before any work and kept.
    let mine = dir.join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "mine\n").unwrap();
    let (c, _, e) = run(&["explain", &m, &d, "--report", &s(&mine)]);
    assert_eq!(c, 2, "{e}");
    assert!(
        e.contains("mine") && e.contains("not a rarity report"),
        "{e}"
    );
    assert_eq!(std::fs::read_dir(&mine).unwrap().count(), 1);
    // A previous report is replaced whole; nothing else is left beside it.
    let rr = dir.join("rr");
    std::fs::create_dir(&rr).unwrap();
    for _ in 0..2 {
        let (c, _, e) = run(&["explain", &m, &d, "--report", &s(&rr)]);
        assert_eq!(c, 0, "{e}");
        std::fs::write(rr.join("tables/stale.csv"), "x\n").unwrap();
    }
    assert!(rr.join("index.html").is_file());
    assert!(hidden(&dir).is_empty(), "{:?}", hidden(&dir));
    let html = std::fs::read_to_string(rr.join("index.html")).unwrap();
    assert!(html.contains("<meta name=\"generator\" content=\"rarity\">"));
}

#[test]
fn names_ending_in_gz_or_zst_are_compressed() {
    let dir = scratch("trust-compress");
    let (d, m) = data_and_model(&dir);
    for (name, magic) in [
        ("x.csv.gz", &[0x1f, 0x8b][..]),
        ("x.csv.zst", &[0x28, 0xb5, 0x2f, 0xfd][..]),
    ] {
        let p = s(&dir.join(name));
        let (c, _, e) = run(&["generate", "gaussian", "--n", "300", "-o", &p]);
        assert_eq!(c, 0, "{e}");
        assert!(std::fs::read(&p).unwrap().starts_with(magic), "{name}");
        let (c, out, e) = run(&["inspect", &p]);
        assert_eq!(c, 0, "{e}");
        assert!(out.contains("rows: 300"), "{out}");
        // predict (TableWriter) too.
        let q = s(&dir.join(format!("p-{name}")));
        let (c, _, e) = run(&["predict", &m, &d, "-o", &q]);
        assert_eq!(c, 0, "{e}");
        assert!(std::fs::read(&q).unwrap().starts_with(magic), "p-{name}");
        let (c, out, e) = run(&["inspect", &q, "--target", "label"]);
        assert_eq!(c, 0, "{e}{out}");
    }
    // Parquet is never wrapped.
    let (c, _, e) = run(&[
        "generate",
        "gaussian",
        "--n",
        "30",
        "-o",
        &s(&dir.join("x.parquet.gz")),
    ]);
    assert_eq!(c, 2, "{e}");
    assert!(e.contains("Parquet"), "{e}");
}
