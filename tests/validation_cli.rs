//! `--cv time(...)` and `--cv group(...)` end to end: folds in time order,
//! the column out of the features, clear errors on bad columns.

mod common;

use common::{file, run, scratch};

/// A table of `n` rows: day (4 rows a day), card (7 cards), x, y.
fn table(n: usize) -> Vec<u8> {
    let mut t = String::from("day,card,x,y\n");
    for i in 0..n {
        let y = u32::from(i % 5 == 0);
        t.push_str(&format!(
            "{},{},{},{y}\n",
            i / 4,
            i % 7,
            (i * 37 % 101) as f64 / 10.0 + f64::from(y)
        ));
    }
    t.into_bytes()
}

#[test]
fn time_and_group_folds_run_and_write_their_blocks() {
    let d = scratch("cv-time");
    let f = file(&d, "t.csv", &table(200));
    let oof = d.join("oof.csv").to_string_lossy().to_string();
    let (code, out, err) = run(&[
        "evaluate",
        &f,
        "--target",
        "y",
        "-m",
        "logistic",
        "--cv",
        "time(col=day, folds=4)",
        "--oof",
        &oof,
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["folds"], 4);
    // The first fifth trains only: 160 test rows, fold f on days after fold f-1's.
    let text = std::fs::read_to_string(&oof).unwrap();
    let rows: Vec<(usize, usize)> = text
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].parse().unwrap(), f[2].parse().unwrap())
        })
        .collect();
    assert_eq!(rows.len(), 160);
    assert!(rows.iter().all(|&(row, fold)| row / 40 == fold + 1));
    let model = d.join("w.rarity").to_string_lossy().to_string();
    let (code, _, err) = run(&[
        "run",
        &f,
        "--target",
        "y",
        "-m",
        "logistic",
        "-m",
        "gnb",
        "--cv",
        "group(col=card, folds=3)",
        "-o",
        &model,
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn bad_time_and_group_columns_are_clear_errors() {
    let d = scratch("cv-bad");
    let f = file(&d, "t.csv", &table(40));
    let text = file(
        &d,
        "s.csv",
        b"day,x,y\nmon,1,0\ntue,2,1\nwed,3,0\nthu,4,1\n",
    );
    for (path, cv, why) in [
        (&f, "time(col=day, folds=10)", "needs at least 11"),
        (&f, "time(col=dy)", "did you mean 'day'"),
        (&f, "group(col=card, folds=8)", "7 groups"),
        (&f, "time(folds=3)", "name the column"),
        (&text, "time(col=day, folds=2)", "day"),
    ] {
        let (code, _, err) = run(&["evaluate", path, "--target", "y", "-m", "gnb", "--cv", cv]);
        assert_ne!(code, 0, "{cv}");
        assert!(
            err.contains(why) && !err.contains("panicked"),
            "{cv}: {err}"
        );
    }
}
