//! Contributions from the command line (issue 54): `rarity predict
//! --reasons K` and `--contributions` (adding up to the log-odds of the
//! written probabilities, a one-hot column as one contribution with its
//! level as value), `rarity explain --rows N`, `rarity show --trees`; bad
//! input is refused before any work and leaves no file.

mod common;

use common::{file, run, scratch};
use serde_json::Value;

/// A table of `n` rows: `signal` decides the label, `noise` does not, `kind`
/// is a text column that matters a little.
fn table(n: usize) -> Vec<u8> {
    let mut t = String::from("signal,noise,kind,y\n");
    for i in 0..n {
        let kind = ["a", "b", "c"][i % 3];
        let y = u32::from(i % 5 == 0 || (kind == "c" && i % 7 == 0));
        let signal = f64::from(y) * 2.0 + (i * 37 % 101) as f64 / 100.0;
        let noise = (i * 53 % 97) as f64 / 10.0;
        t.push_str(&format!("{signal},{noise},{kind},{y}\n"));
    }
    t.into_bytes()
}

/// Fits `spec` (text columns one-hot) and returns the model's path and the
/// data's.
fn fitted(dir: &std::path::Path, spec: &str) -> (String, String) {
    let data = file(dir, "d.csv", &table(400));
    let model = dir.join("m.rarity").to_string_lossy().to_string();
    let (code, _, err) = run(&[
        "--quiet",
        "fit",
        &data,
        "--target",
        "y",
        "--categorical",
        "one-hot",
        "-m",
        spec,
        "-o",
        &model,
    ]);
    assert_eq!(code, 0, "{err}");
    (model, data)
}

/// The rows of a CSV file as its header and cells.
fn read_csv(path: &std::path::Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    (header, rows)
}

#[test]
fn contributions_add_up_to_the_written_log_odds() {
    let dir = scratch("contrib-sum");
    let (model, data) = fitted(
        &dir,
        "under(ratio=1)+gbdt(rounds=20,min_samples_leaf=5)+correct",
    );
    let out = dir.join("c.csv");
    let (code, stdout, err) = run(&[
        "--format",
        "json",
        "predict",
        &model,
        &data,
        "--contributions",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let j: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(j["contributions"]["space"], "log-odds");
    assert_eq!(j["contributions"]["beside"], serde_json::json!([]));
    let (header, rows) = read_csv(&out);
    assert_eq!(
        header,
        [
            "y",
            "p_0",
            "p_1",
            "label",
            "contribution_signal",
            "contribution_noise",
            "contribution_kind",
            "base_value"
        ]
    );
    for r in &rows {
        // After the kept target column y.
        let p1: f64 = r[2].parse().unwrap();
        let sum: f64 = r[4..].iter().map(|v| v.parse::<f64>().unwrap()).sum();
        assert!((sum - (p1 / (1.0 - p1)).ln()).abs() < 1e-9, "{r:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn reasons_name_the_column_and_its_level() {
    let dir = scratch("contrib-reasons");
    let (model, data) = fitted(&dir, "forest(n=10)");
    let out = dir.join("r.csv");
    let (code, _, err) = run(&[
        "predict",
        &model,
        &data,
        "--reasons",
        "3",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let (header, rows) = read_csv(&out);
    assert_eq!(
        header[4..],
        [
            "reason_1",
            "reason_2",
            "reason_3",
            "value_1",
            "value_2",
            "value_3",
            "contribution_1",
            "contribution_2",
            "contribution_3"
        ]
    );
    for (i, r) in rows.iter().enumerate() {
        // After the kept target column.
        let mut names = r[4..7].to_vec();
        names.sort();
        assert_eq!(names, ["kind", "noise", "signal"]);
        let at = r[4..7].iter().position(|c| c == "kind").unwrap();
        assert_eq!(r[7 + at], ["a", "b", "c"][i % 3]);
        let c: Vec<f64> = r[10..13].iter().map(|v| v.parse().unwrap()).collect();
        assert!(c[0] >= c[1] && c[1] >= c[2], "{r:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn explain_rows_and_show_trees() {
    let dir = scratch("contrib-explain");
    let (model, data) = fitted(&dir, "gbdt(rounds=10,min_samples_leaf=5)");
    let (code, stdout, err) = run(&[
        "--format",
        "json",
        "explain",
        &model,
        &data,
        "--rows",
        "4",
        "--reasons",
        "2",
    ]);
    assert_eq!(code, 0, "{err}");
    let j: Value = serde_json::from_str(&stdout).unwrap();
    let rows = j["rows"].as_array().unwrap();
    assert_eq!((rows.len(), j["rows_read"].as_u64()), (4, Some(400)));
    let scores: Vec<f64> = rows.iter().map(|r| r["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]));
    assert_eq!(rows[0]["reasons"].as_array().unwrap().len(), 2);
    let (code, text, _) = run(&["explain", &model, &data, "--rows", "2"]);
    assert!(
        code == 0 && text.contains("highest-scored") && text.contains("1. "),
        "{text}"
    );
    let (code, stdout, err) = run(&["show", &model, "--trees"]);
    assert_eq!(code, 0, "{err}");
    let dump: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(dump["format"], "rarity-trees/1");
    let m = &dump["models"][0];
    assert_eq!(
        (m["space"].as_str(), m["combine"].as_str()),
        (Some("log-odds"), Some("sum"))
    );
    let t = &m["trees"][0];
    let n = t["features"].as_array().unwrap().len();
    for key in [
        "children_left",
        "children_right",
        "children_default",
        "thresholds",
        "values",
        "node_sample_weight",
        "levels",
    ] {
        assert_eq!(t[key].as_array().unwrap().len(), n, "{key}");
    }
    assert!(t["node_sample_weight"][0].as_f64().unwrap() > 0.0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_requests_fail_before_any_work_and_write_nothing() {
    let dir = scratch("contrib-bad");
    let (model, data) = fitted(&dir, "knn");
    let out = dir.join("x.csv");
    let o = out.to_str().unwrap();
    let (code, _, err) = run(&["predict", &model, &data, "--reasons", "2", "-o", o]);
    assert!(
        code != 0 && err.contains("contributions are exact for"),
        "{err}"
    );
    let (code, _, err) = run(&["show", &model, "--trees"]);
    assert!(
        code != 0 && err.contains("no trees or coefficients"),
        "{err}"
    );
    let (model, data) = fitted(&dir, "gbdt(rounds=3)");
    for (args, says) in [
        (vec!["--reasons", "0"], "give 1 to 3"),
        (vec!["--reasons", "4"], "give 1 to 3"),
        (
            vec!["--reasons", "2", "--contributions"],
            "cannot be used with",
        ),
    ] {
        let mut a = vec!["predict", model.as_str(), data.as_str(), "-o", o];
        a.extend(args);
        let (code, _, err) = run(&a);
        assert!(code != 0 && err.contains(says), "{a:?}: {err}");
    }
    let (code, _, err) = run(&["explain", &model, &data, "--rows", "0"]);
    assert!(
        code != 0 && err.contains("--rows must be at least 1"),
        "{err}"
    );
    let missing = file(&dir, "m.csv", b"signal,kind\n1,a\n");
    let (code, _, err) = run(&["predict", &model, &missing, "--reasons", "1", "-o", o]);
    assert!(code != 0 && err.contains("noise"), "{err}");
    assert!(!out.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn contributions_are_the_same_at_any_thread_count_and_across_batches() {
    // 70,000 rows: two of predict's streamed batches (65,536 rows each).
    let dir = scratch("contrib-threads");
    let (model, _) = fitted(&dir, "gbdt(rounds=10,min_samples_leaf=5)");
    let big = file(&dir, "big.csv", &table(70_000));
    let small = file(&dir, "small.csv", &table(400));
    let mut outputs = Vec::new();
    for (threads, data) in [("1", &big), ("2", &big), ("2", &small)] {
        let out = dir.join(format!("c{threads}-{}.csv", outputs.len()));
        let (code, _, err) = run(&[
            "--quiet",
            "--threads",
            threads,
            "predict",
            &model,
            data,
            "--reasons",
            "2",
            "-o",
            out.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        outputs.push(std::fs::read_to_string(&out).unwrap());
    }
    assert_eq!(
        outputs[0], outputs[1],
        "one thread and two write the same bytes"
    );
    assert_eq!(outputs[0].lines().count(), 70_001);
    // The first rows of the big table are the small table: a row's reasons
    // do not depend on the rows scored with it.
    let head: Vec<&str> = outputs[0].lines().take(401).collect();
    assert_eq!(head, outputs[2].lines().collect::<Vec<_>>());
    std::fs::remove_dir_all(&dir).unwrap();
}
