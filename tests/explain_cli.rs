//! `rarity explain` (permutation importance on held-out rows, split-gain
//! importances, table, JSON and HTML report) and `rarity show` (what a
//! model file holds), end to end; older model files without the fit record
//! still load; a categorical column, native or one-hot, is permuted as one
//! column; bad input is a clear error.

mod common;

use common::{file, run, scratch};
use serde_json::Value;

/// A table of `n` rows: `signal` decides the label, `noise` does not, `kind`
/// is a text column.
fn table(n: usize) -> Vec<u8> {
    let mut t = String::from("signal,noise,kind,y\n");
    for i in 0..n {
        let y = u32::from(i % 5 == 0);
        let signal = f64::from(y) * 2.0 + (i * 37 % 101) as f64 / 100.0;
        let noise = (i * 53 % 97) as f64 / 10.0;
        let kind = ["a", "b", "c"][i % 3];
        t.push_str(&format!("{signal},{noise},{kind},{y}\n"));
    }
    t.into_bytes()
}

/// Fits `spec` on the table (text columns one-hot) and returns the model's
/// path and the data's.
fn fitted(dir: &std::path::Path, spec: &str) -> (String, String) {
    let data = file(dir, "d.csv", &table(300));
    let model = dir.join("m.rarity").to_string_lossy().to_string();
    fit(&data, spec, &model, &[]);
    (model, data)
}

/// `rarity fit DATA -m SPEC -o MODEL EXTRA...` on the table, which succeeds.
fn fit(data: &str, spec: &str, model: &str, extra: &[&str]) {
    let mut args = vec![
        "fit",
        data,
        "--target",
        "y",
        "--categorical",
        "one-hot",
        "-m",
        spec,
        "-o",
        model,
        "--quiet",
    ];
    args.extend_from_slice(extra);
    let (code, _, err) = run(&args);
    assert_eq!(code, 0, "{err}");
}

fn json(args: &[&str]) -> Value {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap()
}

/// `rarity explain MODEL DATA --metric METRIC --repeats 3 --threads
/// THREADS --format json`.
fn explain_args<'a>(
    model: &'a str,
    data: &'a str,
    metric: &'a str,
    threads: &'a str,
) -> Vec<&'a str> {
    vec![
        "explain",
        model,
        data,
        "--metric",
        metric,
        "--repeats",
        "3",
        "--threads",
        threads,
        "--format",
        "json",
    ]
}

#[test]
fn explain_ranks_the_signal_first_at_any_thread_count() {
    let d = scratch("explain");
    let (model, data) = fitted(&d, "forest(n=20)");
    let args = |threads| explain_args(&model, &data, "average_precision", threads);
    let one = json(&args("1"));
    let two = json(&args("2"));
    assert_eq!(one, two);
    assert_eq!(one["metric"], "average_precision");
    assert_eq!(one["rows"], 300);
    let perm = one["permutation"].as_array().unwrap();
    // Three source columns: the one-hot `kind` is shuffled as one.
    assert_eq!(perm.len(), 3);
    assert_eq!(perm[0]["feature"], "signal");
    assert!(perm[0]["importance"].as_f64().unwrap() > 0.2);
    assert_eq!(perm[0]["drops"].as_array().unwrap().len(), 3);
    let gain = &one["split_gain"];
    assert_eq!(gain["members"], 20);
    assert_eq!(gain["features"][0][0], "signal");
    let total: f64 = gain["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f[1].as_f64().unwrap())
        .sum();
    assert!((total - 1.0).abs() < 1e-12);
    // Another seed shuffles otherwise.
    let mut other = args("2");
    other.extend(["--seed", "7"]);
    assert_ne!(json(&other)["permutation"], one["permutation"]);
}

#[test]
fn explain_writes_a_table_and_a_report_with_bar_charts() {
    let d = scratch("explain-report");
    let (model, data) = fitted(&d, "gbdt(rounds=20)");
    let dir = d.join("why");
    let (code, out, err) = run(&[
        "explain",
        &model,
        &data,
        "--metric",
        "roc_auc",
        "--report",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("permutation importance") && out.contains("split-gain"));
    assert!(out.lines().any(|l| l.trim_start().starts_with("signal")));
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("Split-gain importance"));
    for t in ["permutation", "split_gain"] {
        assert!(dir.join(format!("tables/{t}.csv")).is_file(), "{t}");
    }
    // A model without splits has permutation importances only.
    let (nb, _) = fitted(&d, "logistic");
    let v = json(&["explain", &nb, &data, "--format", "json"]);
    assert_eq!(v["split_gain"], Value::Null);
    assert_eq!(v["metric"], "average_precision");
}

#[test]
fn show_summarises_a_model_file() {
    let d = scratch("show");
    let (model, _) = fitted(&d, "under(beta=0.5)+forest(n=5)+correct+threshold(priors)");
    let v = json(&["show", &model, "--format", "json"]);
    assert_eq!(v["format_version"], rarity::persist::PLAIN_VERSION);
    assert_eq!(v["checksum"], true);
    assert_eq!(v["encoding"], "binary");
    assert_eq!(v["rarity_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        v["spec"],
        "under(beta=0.5)+forest(n=5)+correct+threshold(priors)"
    );
    assert_eq!(v["target"], "y");
    assert_eq!(v["classes"], serde_json::json!(["0", "1"]));
    assert_eq!(v["priors"], serde_json::json!([0.8, 0.2]));
    assert_eq!(v["keep_rates"][1], 1.0);
    assert!(v["keep_rates"][0].as_f64().unwrap() < 1.0);
    assert_eq!(v["correct"], "member");
    assert_eq!(v["members"][0]["kind"], "Bagged");
    assert_eq!(v["members"][0]["size"], 5);
    assert_eq!(v["training_rows"], 300);
    assert!(v["fit_seconds"].as_f64().unwrap() >= 0.0);
    // threshold(priors) after the correction: the prior of the positives.
    assert!((v["threshold"].as_f64().unwrap() - 0.2).abs() < 1e-12);
    assert_eq!(v["columns"][2]["encoding"], "one-hot");
    let (code, text, err) = run(&["show", &model]);
    assert_eq!(code, 0, "{err}");
    for key in [
        "format",
        "strategy",
        "keep rates",
        "decision",
        "member 1",
        "training rows",
    ] {
        assert!(text.contains(key), "{key}: {text}");
    }
}

#[test]
fn model_files_without_the_fit_record_still_load() {
    let d = scratch("show-old");
    // gnb: a learner that does not take missing values writes no
    // `learner_takes_missing`, so the fit record ends the body.
    let (model, data) = fitted(&d, "gnb");
    // The JSON encoding of the same model, its `fit` key and its checksum
    // removed: what a rarity of format version 1 wrote before recording
    // the fit and before model files had checksums.
    let json_model = d.join("m.json").to_string_lossy().to_string();
    fit(&data, "gnb", &json_model, &["--json-model"]);
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(&json_model).unwrap()).unwrap();
    assert!(v["model"].as_object_mut().unwrap().remove("fit").is_some());
    assert!(v.as_object_mut().unwrap().remove("checksum").is_some());
    v["format_version"] = 1.into();
    std::fs::write(&json_model, serde_json::to_vec(&v).unwrap()).unwrap();
    let s = json(&["show", &json_model, "--format", "json"]);
    assert_eq!(
        (s["training_rows"].clone(), s["encoding"].clone()),
        (Value::Null, "json".into())
    );
    assert_eq!(s["checksum"], false);
    let (code, text, err) = run(&["show", &json_model]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("checksum        none"), "{text}");
    // Binary: format version 1 (no checksum after the body length), and the
    // MessagePack array of the fitted strategy loses its last element (the
    // fit record), as older files lack it.
    let mut bytes = std::fs::read(&model).unwrap();
    let vlen = bytes[10] as usize;
    let head = 11 + vlen + 8;
    bytes.drain(head..head + 8);
    bytes[8..10].copy_from_slice(&1u16.to_le_bytes());
    assert_eq!(bytes[head], 0x98, "a fixarray of 8 fields");
    bytes[head] = 0x97;
    // The record [rows, seconds] ends the body: a fixarray of 2 holding
    // 300 (uint16) and an f64.
    let record = bytes.len() - 13;
    assert_eq!(bytes[record..record + 4], [0x92, 0xcd, 0x01, 0x2c]);
    assert_eq!(bytes[record + 4], 0xcb);
    bytes.truncate(record);
    let body = (bytes.len() - head) as u64;
    bytes[11 + vlen..head].copy_from_slice(&body.to_le_bytes());
    let old = file(&d, "old.rarity", &bytes);
    let s = json(&["show", &old, "--format", "json"]);
    assert_eq!(s["training_rows"], Value::Null);
    assert_eq!(s["spec"], "gnb");
    // It still predicts.
    let out = d.join("p.csv").to_string_lossy().to_string();
    let (code, _, err) = run(&["predict", &old, &data, "-o", &out, "--quiet"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn bad_input_is_a_clear_error() {
    let d = scratch("explain-bad");
    let (model, data) = fitted(&d, "gnb");
    let negatives = file(
        &d,
        "neg.csv",
        b"signal,noise,kind,y\n0.1,1,a,0\n0.2,2,b,0\n0.3,3,c,0\n",
    );
    let unknown = file(
        &d,
        "unk.csv",
        b"signal,noise,kind,y\n0.1,1,a,0\n0.2,2,b,7\n",
    );
    let no_target = file(&d, "nt.csv", b"signal,noise,kind\n0.1,1,a\n0.2,2,b\n");
    let not_model = file(&d, "x.rarity", b"hello");
    let (m, x) = (model.as_str(), data.as_str());
    for (args, why) in [
        (vec!["explain", m, x, "--repeats", "0"], "--repeats"),
        (vec!["explain", m, x, "--metric", "auc_roc"], "--metric"),
        (vec!["explain", m, &negatives], "undefined on these 3"),
        (vec!["explain", m, &unknown], "label '7'"),
        (vec!["explain", m, &no_target], "'y'"),
        (vec!["explain", &not_model, x], "not a rarity model file"),
        (vec!["explain", m], "no data"),
        (vec!["show", &not_model], "not a rarity model file"),
        (vec!["show", x], "not a rarity model file"),
        (vec!["explain", m, x, "--report", x], "not a directory"),
    ] {
        let (code, _, err) = run(&args);
        assert_ne!(code, 0, "{args:?}");
        assert!(
            err.contains(why) && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
}

/// A table of `n` rows whose label follows `shop` (80 text levels, more
/// than one-hot takes: every 8th shop is risky) and `signal`; `mcc` is a
/// numeric code of the shop, `noise` is not used by the label.
fn shops(n: usize) -> Vec<u8> {
    let mut t = String::from("shop,signal,noise,mcc,y\n");
    for i in 0..n {
        let shop = (i * 37) % 80;
        let risky = shop % 8 == 0;
        let y = u32::from((risky && i % 3 != 0) || i % 41 == 0);
        let signal = f64::from(y) * 0.6 + (i * 29 % 101) as f64 / 100.0;
        let noise = (i * 53 % 97) as f64 / 10.0;
        t.push_str(&format!(
            "s{shop},{signal},{noise},{},{y}\n",
            5000 + shop % 7
        ));
    }
    t.into_bytes()
}

#[test]
fn a_native_categorical_column_is_permuted_as_one_column() {
    let d = scratch("explain-native");
    let data = file(&d, "d.csv", &shops(1200));
    let model = d.join("m.rarity").to_string_lossy().to_string();
    let (code, _, err) = run(&[
        "fit",
        &data,
        "--target",
        "y",
        "--categorical",
        "native",
        "--categorical-cols",
        "mcc",
        "-m",
        "gbdt(rounds=30)",
        "-o",
        &model,
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    // Held-out rows with a shop the model has not seen: refused, unless
    // ignored (a level no split holds).
    let mut held = shops(400);
    held.extend_from_slice(b"s999,0.5,1.0,5003,1\n");
    let held = file(&d, "h.csv", &held);
    let (code, _, err) = run(&explain_args(&model, &held, "roc_auc", "1"));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("'s999' (1 row)"), "{err}");
    let args = |threads| {
        let mut a = explain_args(&model, &held, "roc_auc", threads);
        a.extend(["--unknown", "ignore"]);
        a
    };
    let one = json(&args("1"));
    assert_eq!(one, json(&args("2")));
    assert_eq!(one["rows"], 401);
    let perm = one["permutation"].as_array().unwrap();
    let names: Vec<&str> = perm
        .iter()
        .map(|p| p["feature"].as_str().unwrap())
        .collect();
    // One entry per source column, the categorical ones by their names.
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, ["mcc", "noise", "shop", "signal"]);
    let importance = |name: &str| {
        perm[names.iter().position(|n| *n == name).unwrap()]["importance"]
            .as_f64()
            .unwrap()
    };
    assert!(importance("shop") > importance("noise") + 0.02, "{perm:?}");
    let gain: Vec<&str> = one["split_gain"]["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f[0].as_str().unwrap())
        .collect();
    assert!(gain.contains(&"shop"), "{gain:?}");
}
