//! The progress facility: the library's counters (`rarity::progress`) and
//! the bar every long command draws from them on stderr, hidden by
//! `--quiet` or when stderr is not a terminal, never changing an output.
//! The terminal runs go through util-linux `script`, which gives the
//! command a pseudo-terminal.

mod common;

use std::process::Command;

use common::{comparable, run, scratch};

/// Single-quotes `s` for `sh`.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// Runs `rarity args` with stdout to `stdout_file` and stderr on a
/// pseudo-terminal; returns what the terminal showed.
fn on_terminal(args: &[&str], stdout_file: &std::path::Path) -> String {
    let mut cmd = vec![quote(env!("CARGO_BIN_EXE_rarity"))];
    cmd.extend(args.iter().map(|a| quote(a)));
    let line = format!(
        "{} > {}",
        cmd.join(" "),
        quote(&stdout_file.to_string_lossy())
    );
    let out = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .output()
        .expect("util-linux `script` runs");
    assert!(out.status.success(), "{line}: {:?}", out);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every long command, writing into `dir` under the name `tag`: the
/// arguments and the files it writes.
fn commands(dir: &std::path::Path, tag: &str) -> Vec<(Vec<String>, Vec<std::path::PathBuf>)> {
    let file = |name: &str| dir.join(format!("{tag}-{name}"));
    let (model, resampled, preds) = (file("m.rarity"), file("r.csv"), file("p.csv"));
    let shared = dir.join("shared.rarity");
    let cmd = |args: &[&str], files: &[&std::path::PathBuf]| {
        (
            args.iter().map(|a| a.to_string()).collect(),
            files.iter().map(|f| f.to_path_buf()).collect(),
        )
    };
    let s = |p: &std::path::Path| p.to_string_lossy().into_owned();
    vec![
        cmd(
            &[
                "fit",
                "--dataset",
                "pima",
                "-m",
                "forest(n=400)+platt",
                "-o",
                &s(&model),
            ],
            &[&model],
        ),
        cmd(
            &[
                "resample",
                "--dataset",
                "pima",
                "--method",
                "smote-tomek",
                "-o",
                &s(&resampled),
            ],
            &[&resampled],
        ),
        cmd(
            &[
                "predict",
                &s(&shared),
                "--dataset",
                "pima",
                "-o",
                &s(&preds),
            ],
            &[&preds],
        ),
        cmd(
            &[
                "evaluate",
                "--dataset",
                "ecoli4",
                "-m",
                "forest(n=50)",
                "--cv",
                "2x5",
                "--format",
                "json",
            ],
            &[],
        ),
    ]
}

/// `evaluate --format json` without its measured times.
fn without_times(text: &str) -> String {
    text.lines()
        .filter(|l| !l.contains("_seconds"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_bar_shows_on_a_terminal_and_changes_no_output() {
    let dir = scratch("bar");
    let shared = dir.join("shared.rarity").to_string_lossy().into_owned();
    let (code, _, err) = run(&[
        "fit",
        "--dataset",
        "pima",
        "-m",
        "forest(n=300)",
        "-o",
        &shared,
    ]);
    assert_eq!(code, 0, "{err}");
    let piped = commands(&dir, "piped");
    let tty = commands(&dir, "tty");
    let mut drawn = 0;
    for ((a, files_a), (b, files_b)) in piped.iter().zip(&tty) {
        // Not a terminal: stderr stays empty (no bar, no escape codes).
        let args: Vec<&str> = a.iter().map(String::as_str).collect();
        let (code, stdout_a, err) = run(&args);
        assert_eq!(code, 0, "{err}");
        assert!(err.is_empty(), "{args:?}: {err:?}");
        // A terminal: the bar is drawn (when the command runs long enough
        // for a redraw) and cleared.
        let args: Vec<&str> = b.iter().map(String::as_str).collect();
        let out_file = dir.join("stdout.txt");
        let screen = on_terminal(&args, &out_file);
        if screen.contains('░') || screen.contains('█') {
            drawn += 1;
        }
        let stdout_b = std::fs::read_to_string(&out_file).unwrap();
        // The same bytes, bar or no bar (file names aside).
        let norm = |t: &str| without_times(t).replace("piped-", "").replace("tty-", "");
        assert_eq!(norm(&stdout_a), norm(&stdout_b), "{args:?}");
        for (fa, fb) in files_a.iter().zip(files_b) {
            assert_eq!(comparable(fa), comparable(fb), "{fa:?}");
        }
    }
    // The 400-tree forest with Platt's three cross-fits takes long enough.
    assert!(drawn >= 1, "no bar was drawn on the terminal");
    // --quiet hides it on a terminal too.
    let screen = on_terminal(
        &[
            "--quiet",
            "fit",
            "--dataset",
            "pima",
            "-m",
            "forest(n=400)+platt",
            "-o",
            &shared,
        ],
        &dir.join("stdout.txt"),
    );
    assert!(!screen.contains('░') && !screen.contains('█'), "{screen:?}");
}

#[test]
fn only_the_outermost_operation_counts() {
    use rarity::progress::{snapshot, Progress};
    // The only test of this process that uses the counters.
    assert_eq!(snapshot(), None);
    let outer = Progress::start("outer", 4);
    let inner = Progress::start("inner", 100);
    inner.add(60);
    inner.set_label("still inner");
    outer.add(1);
    let s = snapshot().unwrap();
    assert_eq!((s.label.as_str(), s.done, s.total), ("outer", 1, 4));
    drop(inner);
    assert!(snapshot().is_some());
    drop(outer);
    assert_eq!(snapshot(), None);
    // The experiments count their datasets as they finish them.
    let ds = rarity::Dataset::from_rows(
        vec![vec![0.0], vec![1.0]],
        vec![0, 1],
        vec!["a".into(), "b".into()],
    )
    .unwrap();
    let sets = vec![("one".to_string(), ds.clone()), ("two".to_string(), ds)];
    let mut seen = Vec::new();
    for (name, _) in rarity::experiment::each_dataset(&sets) {
        let s = snapshot().unwrap();
        seen.push((name.clone(), s.label, s.done, s.total));
    }
    assert_eq!(
        seen,
        [
            ("one".into(), "one".into(), 0, 2),
            ("two".into(), "two".into(), 1, 2)
        ]
    );
    assert_eq!(snapshot(), None);
}
