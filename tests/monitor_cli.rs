//! `rarity monitor` end to end (issue 56): the current fraud rate found
//! without labels on generated data with a known shift, drift found and
//! named, categorical levels with unseen and missing values, `--fail-on`'s
//! exit code, the JSON contract, the same output at any thread count, and
//! the bad inputs.

mod common;

use std::path::Path;

use common::{file, run, scratch};
use serde_json::Value;

fn json(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn ok(args: &[&str]) -> String {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}

/// `rarity generate fraud` rows at a positive rate; returns the path.
fn fraud(dir: &Path, name: &str, n: &str, rate: &str, seed: &str) -> String {
    let p = dir.join(name).to_string_lossy().into_owned();
    ok(&[
        "-q",
        "generate",
        "fraud",
        "--n",
        n,
        "--positive-rate",
        rate,
        "--seed",
        seed,
        "-o",
        &p,
    ]);
    p
}

/// The share of rows of class 1 (the last column) in a CSV.
fn positive_share(path: &str) -> f64 {
    let text = std::fs::read_to_string(path).unwrap();
    let rows: Vec<&str> = text.lines().skip(1).collect();
    let pos = rows.iter().filter(|l| l.ends_with(",1")).count();
    pos as f64 / rows.len() as f64
}

/// A model trained at 0.17% fraud, on 200,000 rows, scoring populations
/// drawn at 0.5% and at 0.05%: Saerens' EM on the unlabelled probabilities
/// finds each population's rate within 10% relative, and the bootstrap
/// interval covers both that rate and the share of positives the 200,000
/// rows happen to hold (0.483% and 0.048%). EM is only as good as the
/// model's calibration: on these tables `logistic` is off by 8% and 12%,
/// `gbdt+isotonic` by 5% and 23%, `gbdt+platt` by 2.5% and 8% (its mean
/// probability on its training rows is 18% above their positive share:
/// the 0.05% case's floor).
#[test]
fn em_finds_the_new_fraud_rate_without_labels() {
    let d = scratch("monitor-em");
    let train = fraud(&d, "train.csv", "200000", "0.0017", "1");
    let m = d.join("m.rarity").to_string_lossy().into_owned();
    ok(&["-q", "fit", &train, "-m", "gbdt+platt", "-o", &m]);
    for (rate, seed) in [("0.005", "2"), ("0.0005", "3")] {
        let cur = fraud(&d, &format!("cur-{rate}.csv"), "200000", rate, seed);
        let (truth, share) = (rate.parse::<f64>().unwrap(), positive_share(&cur));
        let v = json(&ok(&[
            "--format",
            "json",
            "monitor",
            &m,
            "--reference",
            &train,
            "--current",
            &cur,
        ]));
        let p = &v["priors"];
        let est = p["estimated"]["1"].as_f64().unwrap();
        let (lo, hi) = (
            p["low"]["1"].as_f64().unwrap(),
            p["high"]["1"].as_f64().unwrap(),
        );
        assert!(
            ((est - truth) / truth).abs() < 0.10,
            "{rate}: {est} vs {truth}"
        );
        for t in [truth, share] {
            assert!(lo <= t && t <= hi, "{rate}: [{lo}, {hi}] misses {t}");
        }
        assert!(lo < est && est < hi, "{rate}: {est} outside [{lo}, {hi}]");
        let training = p["training"]["1"].as_f64().unwrap();
        assert!((training - positive_share(&train)).abs() < 1e-12);
        assert_eq!(p["outside"], Value::Bool(true), "{rate}: {p}");
        assert_eq!(
            p["outside_classes"],
            serde_json::json!(["1"]),
            "{rate}: {p}"
        );
        // The other class's interval is the mirror of the positive one's.
        let (lo0, hi0) = (
            p["low"]["0"].as_f64().unwrap(),
            p["high"]["0"].as_f64().unwrap(),
        );
        assert!(
            (lo0 - (1.0 - hi)).abs() < 1e-12 && (hi0 - (1.0 - lo)).abs() < 1e-12,
            "{p}"
        );
        let sum = est + p["estimated"]["0"].as_f64().unwrap();
        assert!((sum - 1.0).abs() < 1e-12);
        assert!(
            p["threshold"].is_null(),
            "argmax decides: no threshold to move"
        );
    }
}

/// Three Gaussian classes in two dimensions (means on a triangle, unit
/// variance) drawn at `priors`: multinomial logistic regression is the true
/// model, so its probabilities are calibrated. Returns the path.
fn three_classes(dir: &Path, name: &str, n: usize, priors: [f64; 3], seed: u64) -> String {
    use rand::RngExt;
    let mut r = rarity::rng::stream(seed, 0);
    let means = [(0.0, 0.0), (2.0, 0.5), (0.8, 2.0)];
    let mut text = String::from("x0,x1,class\n");
    for _ in 0..n {
        let u: f64 = r.random();
        let c = if u < priors[0] {
            0
        } else if u < priors[0] + priors[1] {
            1
        } else {
            2
        };
        let mut normal = || {
            let (a, b): (f64, f64) = (r.random::<f64>().max(1e-300), r.random());
            (-2.0 * a.ln()).sqrt() * (std::f64::consts::TAU * b).cos()
        };
        let (x, y) = (means[c].0 + normal(), means[c].1 + normal());
        text.push_str(&format!("{x},{y},{}\n", ["a", "b", "c"][c]));
    }
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

/// More than two classes: EM on the probability vectors finds each
/// class's new prior. A model trained at (0.7, 0.2, 0.1) scores a
/// population at (0.45, 0.2, 0.35): on 20,000 rows (every vector kept:
/// `exact`) and on 80,000 rows (more distinct vectors than the sample's
/// cap: a sample of them, `on: sample`, not exact), each estimate is within
/// 10% relative of the truth and its interval covers it; the training
/// priors of the classes that moved are outside, and `--fail-on prior=1.5x` names the class that
/// moved most.
#[test]
fn em_finds_each_class_prior_of_a_multiclass_model() {
    let d = scratch("monitor-em-multiclass");
    let train = three_classes(&d, "train.csv", 30_000, [0.7, 0.2, 0.1], 1);
    let m = d.join("m.rarity").to_string_lossy().into_owned();
    ok(&["-q", "fit", &train, "-m", "logistic", "-o", &m]);
    let truth = [0.45, 0.2, 0.35];
    for (n, exact) in [(20_000, true), (80_000, false)] {
        let cur = three_classes(&d, &format!("cur-{n}.csv"), n, truth, 2);
        let v = json(&ok(&[
            "--format",
            "json",
            "monitor",
            &m,
            "--reference",
            &train,
            "--current",
            &cur,
        ]));
        let p = &v["priors"];
        assert_eq!(p["em"]["on"], "sample", "{p}");
        assert_eq!(p["em"]["exact"], exact, "{p}");
        let mut sum = 0.0;
        for (j, k) in ["a", "b", "c"].iter().enumerate() {
            let est = p["estimated"][k].as_f64().unwrap();
            let (lo, hi) = (
                p["low"][k].as_f64().unwrap(),
                p["high"][k].as_f64().unwrap(),
            );
            assert!(
                ((est - truth[j]) / truth[j]).abs() < 0.10,
                "{n} {k}: {est} vs {}",
                truth[j]
            );
            assert!(lo <= truth[j] && truth[j] <= hi, "{n} {k}: [{lo}, {hi}]");
            sum += est;
        }
        assert!((sum - 1.0).abs() < 1e-9, "{sum}");
        assert_eq!(p["outside"], true, "{p}");
        let outside = p["outside_classes"].as_array().unwrap();
        assert!(
            outside.contains(&"a".into()) && outside.contains(&"c".into()),
            "{p}"
        );
        if !exact {
            assert_eq!(p["em"]["groups"], 1 << 15, "{p}");
            let (code, _, err) = run(&[
                "monitor",
                &m,
                "--reference",
                &train,
                "--current",
                &cur,
                "--fail-on",
                "prior=1.5x",
            ]);
            assert_eq!(code, 3, "{err}");
            assert!(
                err.contains("prior of c") && !err.contains("prior of b"),
                "{err}"
            );
        }
    }
    // A current table of one row: bootstrap replicates that draw no row
    // are left out, not an error.
    let one = d.join("one.csv");
    let text = std::fs::read_to_string(&train).unwrap();
    std::fs::write(
        &one,
        text.lines().take(2).collect::<Vec<_>>().join("\n") + "\n",
    )
    .unwrap();
    let one = one.to_string_lossy().into_owned();
    let v = json(&ok(&[
        "--format",
        "json",
        "monitor",
        &m,
        "--reference",
        &train,
        "--current",
        &one,
    ]));
    assert!(v["priors"]["estimated"].is_object(), "{}", v["priors"]);
    assert!(
        v["priors"]["low"]["a"].as_f64().is_some(),
        "{}",
        v["priors"]
    );
}

/// Rewrites column `col` of a CSV through `f` (the header kept).
fn rewrite(src: &str, dst: &Path, col: usize, f: impl Fn(usize, &str) -> String) -> String {
    let text = std::fs::read_to_string(src).unwrap();
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        let mut cells: Vec<String> = line.split(',').map(str::to_string).collect();
        if i > 0 {
            cells[col] = f(i, &cells[col]);
        }
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    std::fs::write(dst, out).unwrap();
    dst.to_string_lossy().into_owned()
}

#[test]
fn drift_is_found_named_and_fails_the_job_when_asked() {
    let d = scratch("monitor-drift");
    let reference = fraud(&d, "ref.csv", "20000", "0.01", "1");
    let m = d.join("m.rarity").to_string_lossy().into_owned();
    ok(&["-q", "fit", &reference, "-m", "logistic", "-o", &m]);
    let same = fraud(&d, "same.csv", "20000", "0.01", "2");
    // V1 (column 1) moved by 3 (about 1.5 of its standard deviations);
    // Amount (column 29) missing in 1 row of 10.
    let shifted = rewrite(&same, &d.join("v1.csv"), 1, |_, v| {
        format!("{}", v.parse::<f64>().unwrap() + 3.0)
    });
    let moved = rewrite(&shifted, &d.join("moved.csv"), 29, |i, v| {
        if i % 10 == 0 {
            String::new()
        } else {
            v.to_string()
        }
    });
    let base = ["--format", "json", "monitor", &m, "--reference", &reference];
    let calm = json(&ok(&[&base[..], &["--current", &same]].concat()));
    for c in calm["columns"].as_array().unwrap() {
        assert_eq!(c["status"], "stable", "{c}");
    }
    let (code, out, err) =
        run(&[&base[..], &["--current", &moved, "--fail-on", "psi=0.25"]].concat());
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("condition met: psi=0.25: V1 has PSI"), "{err}");
    let v = json(&out);
    let cols = v["columns"].as_array().unwrap();
    let v1 = cols.iter().find(|c| c["column"] == "V1").unwrap();
    assert_eq!(v1["status"], "drifted", "{v1}");
    assert!(v1["ks"].as_f64().unwrap() > 0.3, "{v1}");
    let top: Vec<&str> = cols[..2]
        .iter()
        .map(|c| c["column"].as_str().unwrap())
        .collect();
    assert!(top.contains(&"V1") && top.contains(&"Amount"), "{top:?}");
    assert!(cols[2]["psi"].as_f64().unwrap() < 0.1);
    let amount = cols.iter().find(|c| c["column"] == "Amount").unwrap();
    assert_eq!(amount["moved"][0]["bin"], "(missing)", "{amount}");
    let share = amount["moved"][0]["current"].as_f64().unwrap();
    assert!((share - 0.1).abs() < 1e-3, "{share}");
    // Ordered by drift.
    let psis: Vec<f64> = cols.iter().map(|c| c["psi"].as_f64().unwrap()).collect();
    assert!(psis.windows(2).all(|w| w[0] >= w[1]), "{psis:?}");
    // The contract's keys.
    for k in ["columns", "score", "alert_rate", "priors", "failed"] {
        assert!(!v[k].is_null(), "{k}");
    }
    assert!(v["score"]["psi"]["1"].is_number() && v["score"]["psi"]["0"].is_number());
    assert!(v["alert_rate"]["reference"].is_number() && v["alert_rate"]["current"].is_number());
    assert_eq!(
        v["failed"].as_array().unwrap().len(),
        2,
        "V1 and Amount: {}",
        v["failed"]
    );
    // Amount's missing values cannot be scored by a logistic model.
    assert_eq!(v["current"]["unscored"], 2000);
    // Same output at any thread count.
    let one = ok(&[&["--threads", "1"][..], &base[..], &["--current", &moved]].concat());
    let two = ok(&[&["--threads", "2"][..], &base[..], &["--current", &moved]].concat());
    assert_eq!(one, two);
}

#[test]
fn labelled_rows_get_the_metrics_of_score() {
    let d = scratch("monitor-label");
    let reference = fraud(&d, "ref.csv", "20000", "0.01", "1");
    let m = d.join("m.rarity").to_string_lossy().into_owned();
    ok(&["-q", "fit", &reference, "-m", "logistic+platt", "-o", &m]);
    let cur = fraud(&d, "cur.csv", "20000", "0.02", "2");
    // Only the first half's labels have matured.
    let partial = rewrite(&cur, &d.join("partial.csv"), 30, |i, v| {
        if i > 10_000 {
            String::new()
        } else {
            v.to_string()
        }
    });
    let v = json(&ok(&[
        "--format",
        "json",
        "monitor",
        &m,
        "--reference",
        &reference,
        "--current",
        &partial,
        "--label",
        "class",
    ]));
    let l = &v["labelled"];
    assert_eq!(l["rows"], 10_000);
    for k in ["roc_auc", "average_precision", "brier", "brier_reliability"] {
        assert!(l[k].is_number(), "{k}: {l}");
        assert!(l["reference"][k].is_number(), "reference {k}: {l}");
    }
    assert_eq!(l["reference"]["rows"], 20_000);
    // The reliability tables add up to the rows and to calibration in the
    // large: sum rows x mean = the probabilities' sum, rows x observed the
    // positives.
    for (table, rows) in [
        (&l["reliability"], 10_000.0),
        (&l["reference"]["reliability"], 20_000.0),
    ] {
        let bins = table.as_array().unwrap();
        assert_eq!(bins.len(), 10);
        assert_eq!(bins[0]["bin"], "[0.0, 0.1)");
        assert_eq!(bins[9]["bin"], "[0.9, 1.0]");
        let n: f64 = bins.iter().map(|b| b["rows"].as_f64().unwrap()).sum();
        assert_eq!(n, rows);
        if rows == 10_000.0 {
            let weighted = |k: &str| -> f64 {
                (bins.iter())
                    .filter(|b| b["rows"].as_f64().unwrap() > 0.0)
                    .map(|b| b["rows"].as_f64().unwrap() * b[k].as_f64().unwrap())
                    .sum::<f64>()
                    / rows
            };
            let c = &l["calibration"];
            assert!(
                (weighted("mean_predicted") - c["mean_predicted"].as_f64().unwrap()).abs() < 1e-12
            );
            assert!((weighted("observed") - c["observed"].as_f64().unwrap()).abs() < 1e-12);
        }
    }
    // The report: drift, score bins, the EM prior, the labelled metrics.
    let dir = d.join("report");
    let (code, _, err) = run(&[
        "-q",
        "monitor",
        &m,
        "--reference",
        &reference,
        "--current",
        &partial,
        "--label",
        "class",
        "--report",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    for needle in [
        "Input drift",
        "Score drift",
        "Current priors without labels",
        "Labelled rows",
    ] {
        assert!(html.contains(needle), "{needle}");
    }
    assert_eq!(
        html.matches("<svg").count(),
        4,
        "drift, p_1's bins, the prior, the reliability diagram"
    );
    let rel = std::fs::read_to_string(dir.join("tables").join("reliability.csv")).unwrap();
    assert!(
        rel.starts_with("bin,side,rows,mean_predicted,observed\n"),
        "{rel}"
    );
    assert_eq!(rel.lines().count(), 21, "10 bins reference, 10 current");
    let table = std::fs::read_to_string(dir.join("tables").join("labelled.csv")).unwrap();
    assert!(
        table.starts_with("metric,reference,current\n") && table.contains("brier_reliability,")
    );
    assert!(l["calibration"]["z"].is_number());
    // Against `rarity score` on the same rows' probabilities.
    let text = std::fs::read_to_string(&cur).unwrap();
    let head: Vec<&str> = text.lines().take(10_001).collect();
    let half = file(&d, "half.csv", (head.join("\n") + "\n").as_bytes());
    let p = d.join("p.csv").to_string_lossy().into_owned();
    ok(&["-q", "predict", &m, &half, "-o", &p]);
    let s = json(&ok(&[
        "--format", "json", "score", &p, "--truth", "class", "--proba", "p_1",
    ]));
    for k in ["roc_auc", "average_precision", "brier"] {
        let (a, b) = (l[k].as_f64().unwrap(), s[k].as_f64().unwrap());
        assert!((a - b).abs() < 1e-12, "{k}: {a} vs {b}");
    }
}

#[test]
fn categorical_levels_unseen_and_missing_are_bins() {
    let d = scratch("monitor-levels");
    let mut train = String::from("channel,amount,class\n");
    let mut cur = String::from("channel,amount,class\n");
    for i in 0..600 {
        let c = ["web", "pos", "atm"][i % 3];
        train.push_str(&format!("{c},{},{}\n", i % 17, u8::from(i % 7 == 0)));
        let c = match i % 6 {
            0 => "phone", // unseen in training
            1 => "",      // missing
            _ => ["web", "pos", "atm"][i % 3],
        };
        cur.push_str(&format!("{c},{},{}\n", i % 17, u8::from(i % 7 == 0)));
    }
    let train = file(&d, "train.csv", train.as_bytes());
    let cur = file(&d, "cur.csv", cur.as_bytes());
    let m = d.join("m.rarity").to_string_lossy().into_owned();
    ok(&[
        "-q",
        "fit",
        &train,
        "-m",
        "gbdt",
        "--categorical",
        "native",
        "-o",
        &m,
    ]);
    let v = json(&ok(&[
        "--format",
        "json",
        "monitor",
        &m,
        "--reference",
        &train,
        "--current",
        &cur,
    ]));
    let c = &v["columns"][0];
    assert_eq!(
        (c["column"].as_str(), c["kind"].as_str()),
        (Some("channel"), Some("categorical"))
    );
    assert!(c.get("ks").is_none());
    let bins: Vec<&str> = c["moved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["bin"].as_str().unwrap())
        .collect();
    assert!(
        bins.contains(&"(unseen)") && bins.contains(&"(missing)"),
        "{bins:?}"
    );
}

#[test]
fn bad_inputs_are_refused_before_the_work() {
    let d = scratch("monitor-bad");
    let reference = fraud(&d, "ref.csv", "3000", "0.05", "1");
    let m = d.join("m.rarity").to_string_lossy().into_owned();
    ok(&["-q", "fit", &reference, "-m", "logistic", "-o", &m]);
    let raw = d.join("raw.rarity").to_string_lossy().into_owned();
    ok(&[
        "-q",
        "fit",
        &reference,
        "-m",
        "under(beta=0.5)+gbdt(rounds=5)",
        "-o",
        &raw,
    ]);
    let em = d.join("em.rarity").to_string_lossy().into_owned();
    ok(&["-q", "fit", &reference, "-m", "logistic+em", "-o", &em]);
    let header = std::fs::read_to_string(&reference).unwrap();
    let header = header.lines().next().unwrap().to_string();
    let empty = file(&d, "empty.csv", format!("{header}\n").as_bytes());
    let renamed = file(&d, "renamed.csv", header.replace("V3,", "v_3,").as_bytes());
    let wrong_label = rewrite(&reference, &d.join("labels.csv"), 30, |_, _| "2".into());
    let cases: &[(&str, &[&str], &str)] = &[
        (
            &m,
            &["--bins", "1"],
            "monitor: --bins 1: expected a whole number >= 2",
        ),
        (&m, &["--fail-on", "psi"], "--fail-on psi: no '='"),
        (&m, &["--fail-on", "drift=1"], "unknown condition"),
        (&m, &["--fail-on", "prior=0.5x"], "the ratio must be >= 1"),
        (&m, &["--label", "V1"], "an input of the model"),
        (&m, &["--label", "nope"], "no label column 'nope'"),
        (&raw, &["--fail-on", "prior=2x"], "add +isotonic or +platt"),
        (&em, &[], "+em moves its probabilities"),
    ];
    for (model, extra, needle) in cases {
        let args = [
            &[
                "monitor",
                model,
                "--reference",
                &reference,
                "--current",
                &reference,
            ][..],
            extra,
        ]
        .concat();
        let (code, out, err) = run(&args);
        assert_eq!(code, 2, "{extra:?}: {err}");
        assert!(err.contains(needle), "{extra:?}: {needle} not in {err}");
        assert!(out.is_empty());
    }
    let current = |cur: &str, extra: &[&str]| {
        run(&[
            &["monitor", &m, "--reference", &reference, "--current", cur][..],
            extra,
        ]
        .concat())
    };
    let (code, _, err) = current(&empty, &[]);
    assert!(code == 2 && err.contains("no data rows"), "{err}");
    let (code, _, err) = current(&renamed, &[]);
    assert!(
        code == 2 && err.contains("'V3'") && err.contains("v_3"),
        "{err}"
    );
    let (code, _, err) = current(&wrong_label, &["--label", "class"]);
    assert!(
        code == 2 && err.contains("label '2' is not a class"),
        "{err}"
    );
    // A multiclass model (its labelled metrics: the test below).
    let thyroid = d.join("thyroid.rarity").to_string_lossy().into_owned();
    ok(&[
        "-q",
        "fit",
        "--dataset",
        "newthyroid",
        "-m",
        "logistic",
        "-o",
        &thyroid,
    ]);
    // Without labels a multiclass model is monitored, with EM's estimate
    // on every row's probabilities (215 rows).
    let v = json(&ok(&[
        "--format",
        "json",
        "monitor",
        &thyroid,
        "--dataset",
        "newthyroid",
        "--current-dataset",
        "newthyroid",
    ]));
    let pr = &v["priors"];
    assert!(
        pr["estimated"].is_object() && pr["reason"].is_null(),
        "{pr}"
    );
    assert!(
        pr["em"]["on"] == "sample" && pr["em"]["exact"] == true,
        "{pr}"
    );
    let sum: f64 = (pr["estimated"].as_object().unwrap().values())
        .map(|x| x.as_f64().unwrap())
        .sum();
    assert!((sum - 1.0).abs() < 1e-9, "{pr}");
    assert!(v["columns"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["psi"] == 0.0));
}

/// `rarity fit --summary` keeps the training table's profile in the model
/// (a file of format version 4), and `rarity monitor` without
/// `--reference` compares with it: the same rows, alert rate and priors as
/// with the training table given, each column's PSI and KS within the
/// coarser summary's error and of the same status, the reference named as
/// the summary. A model without a summary, and a summary asked of
/// standard input, are refused with what to do.
#[test]
fn the_training_summary_is_the_reference_when_none_is_given() {
    let d = scratch("monitor-summary");
    let train = fraud(&d, "train.csv", "20000", "0.01", "1");
    let (plain, kept) = (
        d.join("plain.rarity").to_string_lossy().into_owned(),
        d.join("kept.rarity").to_string_lossy().into_owned(),
    );
    ok(&["-q", "fit", &train, "-m", "logistic", "-o", &plain]);
    ok(&[
        "-q",
        "fit",
        &train,
        "-m",
        "logistic",
        "--summary",
        "-o",
        &kept,
    ]);
    let same = fraud(&d, "same.csv", "20000", "0.02", "2");
    let cur = rewrite(&same, &d.join("cur.csv"), 1, |_, v| {
        format!("{}", v.parse::<f64>().unwrap() + 3.0)
    });
    let base = ["--format", "json", "monitor", &kept, "--current", &cur];
    let given = json(&ok(&[&base[..], &["--reference", &train]].concat()));
    let summary = json(&ok(&base));
    assert_eq!(
        summary["reference"]["source"],
        "the model's training summary"
    );
    assert_eq!(summary["reference"]["rows"], given["reference"]["rows"]);
    for k in ["alert_rate", "priors", "current"] {
        assert_eq!(summary[k], given[k], "{k}");
    }
    let by_name = |v: &Value| -> Vec<(String, f64, f64, String)> {
        let mut out: Vec<_> = (v["columns"].as_array().unwrap().iter())
            .map(|c| {
                (
                    c["column"].as_str().unwrap().to_string(),
                    c["psi"].as_f64().unwrap(),
                    c["ks"].as_f64().unwrap(),
                    c["status"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    };
    for (a, b) in by_name(&summary).iter().zip(by_name(&given)) {
        assert_eq!((&a.0, &a.3), (&b.0, &b.3), "{a:?} {b:?}");
        assert!(
            (a.1 - b.1).abs() < 0.01 && (a.2 - b.2).abs() < 0.01,
            "{a:?} {b:?}"
        );
    }
    assert_eq!(summary["columns"][0]["column"], "V1");
    for (k, p) in given["score"]["psi"].as_object().unwrap() {
        let q = summary["score"]["psi"][k].as_f64().unwrap();
        assert!((q - p.as_f64().unwrap()).abs() < 0.01, "{k}: {q} {p}");
    }
    let shown = json(&ok(&["--format", "json", "show", &kept]));
    assert_eq!(
        (
            shown["format_version"].as_u64(),
            shown["training_summary"].as_u64()
        ),
        (Some(4), Some(20000))
    );
    let plain_shown = json(&ok(&["--format", "json", "show", &plain]));
    assert_eq!(plain_shown["format_version"], 3);
    assert!(plain_shown.get("training_summary").is_none());
    let (code, out, err) = run(&["monitor", &plain, "--current", &cur]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(
        err.contains("holds no training summary") && err.contains("--reference FILE"),
        "{err}"
    );
    let stdin = d.join("stdin.rarity").to_string_lossy().into_owned();
    let (code, _, err) = run(&["fit", "-", "-m", "logistic", "--summary", "-o", &stdin]);
    assert_eq!(code, 2);
    assert!(err.contains("standard input can be read once"), "{err}");
    assert!(!Path::new(&stdin).exists());
    // A named pipe (or any file that is not a regular one) is refused
    // before it is opened, so the fit does not wait on it.
    #[cfg(unix)]
    {
        let fifo = d.join("fifo.csv");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let f = fifo.to_string_lossy().into_owned();
            let (code, _, err) = run(&["fit", &f, "-m", "logistic", "--summary", "-o", &stdin]);
            assert_eq!(code, 2);
            assert!(
                err.contains("(not a regular file) can be read once"),
                "{err}"
            );
        }
    }
}

/// A model of three classes on labelled rows (two thirds of the current
/// table matured): the labelled metrics are `rarity score`'s on `rarity
/// predict`'s output for the same rows (the model's decided classes, every
/// key, within 1e-12), each class's calibration in the large adds up to
/// its reliability table, the reference (the training table, which has the
/// target) gets its metrics too, and the JSON, text and report give them
/// by class.
#[test]
fn labelled_rows_of_a_multiclass_model_get_the_metrics_of_score() {
    let d = scratch("monitor-label-multiclass");
    let train = three_classes(&d, "train.csv", 20_000, [0.7, 0.2, 0.1], 1);
    let m = d.join("m.rarity").to_string_lossy().into_owned();
    ok(&[
        "-q",
        "fit",
        &train,
        "--target",
        "class",
        "-m",
        "logistic+platt",
        "-o",
        &m,
    ]);
    let cur = three_classes(&d, "cur.csv", 9_000, [0.5, 0.2, 0.3], 2);
    let partial = rewrite(&cur, &d.join("partial.csv"), 2, |i, v| {
        if i % 3 == 0 {
            String::new()
        } else {
            v.to_string()
        }
    });
    let args = [
        "monitor",
        &m,
        "--reference",
        &train,
        "--current",
        &partial,
        "--label",
        "class",
    ];
    let v = json(&ok(&[&["--format", "json"][..], &args].concat()));
    let l = &v["labelled"];
    assert_eq!(l["rows"], 6_000);
    assert_eq!(l["reference"]["rows"], 20_000);
    assert_eq!(l["ranking_exact"], 1.0);
    // Against `rarity score` on the labelled rows' predictions.
    let text = std::fs::read_to_string(&cur).unwrap();
    let kept: Vec<&str> = (text.lines().enumerate())
        .filter(|(i, _)| *i == 0 || i % 3 != 0)
        .map(|(_, l)| l)
        .collect();
    let labelled = file(&d, "labelled.csv", (kept.join("\n") + "\n").as_bytes());
    let p = d.join("p.csv").to_string_lossy().into_owned();
    ok(&["-q", "predict", &m, &labelled, "-o", &p]);
    let s = json(&ok(&[
        "--format", "json", "score", &p, "--truth", "class", "--proba", "p_a", "--proba", "p_b",
        "--proba", "p_c",
    ]));
    let mut compared = 0;
    for (k, want) in s.as_object().unwrap() {
        let Some(want) = want.as_f64() else { continue };
        let got = l[k].as_f64().unwrap_or_else(|| panic!("{k} missing: {l}"));
        assert!(
            (got - want).abs() <= 1e-12 * want.abs().max(1.0),
            "{k}: {got} vs {want}"
        );
        compared += 1;
    }
    assert!(compared >= 20, "{compared} metrics compared: {s}");
    for class in ["a", "b", "c"] {
        let c = &l["calibration"][class];
        assert!(c["z"].is_number() && c["moved"].is_boolean(), "{c}");
        let bins = l["reliability"][class].as_array().unwrap();
        let n: f64 = bins.iter().map(|b| b["rows"].as_f64().unwrap()).sum();
        assert_eq!(n, 6_000.0);
        let observed: f64 = (bins.iter())
            .filter(|b| b["rows"].as_f64().unwrap() > 0.0)
            .map(|b| b["rows"].as_f64().unwrap() * b["observed"].as_f64().unwrap())
            .sum::<f64>()
            / n;
        assert!((observed - c["observed"].as_f64().unwrap()).abs() < 1e-12);
        assert_eq!(
            l["reference"]["reliability"][class]
                .as_array()
                .unwrap()
                .len(),
            10
        );
    }
    // The population moved to class c: its probability is no longer
    // calibrated in the large.
    assert_eq!(l["calibration"]["c"]["moved"], true, "{l}");
    let out = ok(&args);
    assert!(
        out.contains("hand-till") && out.contains("reliability of class c"),
        "{out}"
    );
    let dir = d.join("report");
    ok(&[&args[..], &["--report", dir.to_str().unwrap()]].concat());
    let rel = std::fs::read_to_string(dir.join("tables").join("reliability.csv")).unwrap();
    assert!(
        rel.starts_with("class,bin,side,rows,mean_predicted,observed\n"),
        "{rel}"
    );
    assert_eq!(
        rel.lines().count(),
        61,
        "3 classes, 10 bins, reference and current"
    );
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(html.contains("class c against the rest"), "{html}");
}
