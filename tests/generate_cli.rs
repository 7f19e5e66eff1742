//! `rarity generate`: the Gaussian task's true posterior column and biased
//! training samples.

mod common;

use common::{run, scratch};

/// The rows of a CSV written by rarity: header and fields.
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
fn gaussian_writes_the_true_posterior() {
    let d = scratch("gen-ptrue");
    let out = d.join("g.csv");
    let (code, _, err) = run(&[
        "generate",
        "gaussian",
        "--n",
        "400",
        "--d",
        "2",
        "--mu",
        "1.5",
        "--sigma",
        "2",
        "--positive-rate",
        "0.2",
        "-o",
        &out.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("p_true is the true posterior"), "{err}");
    let (header, rows) = read_csv(&out);
    assert_eq!(header, ["x0", "x1", "p_true", "class"]);
    assert_eq!(rows.len(), 400);
    // Closed form (Dal Pozzolo et al. 2015, Sec. IV-D): logit p(+|x) =
    // log(pi / (1 - pi)) + sum_j (2 mu x_j - mu^2) / (2 sigma^2).
    let (mu, s2, pi) = (1.5f64, 8.0f64, 0.2f64);
    let mut positives = 0;
    for r in &rows {
        let x: Vec<f64> = r[..2].iter().map(|v| v.parse().unwrap()).collect();
        let logit =
            (pi / (1.0 - pi)).ln() + x.iter().map(|v| (2.0 * mu * v - mu * mu) / s2).sum::<f64>();
        let want = 1.0 / (1.0 + (-logit).exp());
        let got: f64 = r[2].parse().unwrap();
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        positives += usize::from(r[3] == "1");
    }
    assert_eq!(positives, 80);
}

/// Runs `generate bias --dataset pima ARGS -o OUT --format json`: the
/// report and the written rows (header, fields).
fn bias_pima(
    args: &[&str],
    out: &std::path::Path,
) -> (serde_json::Value, Vec<String>, Vec<Vec<String>>) {
    let o = out.to_string_lossy();
    let base = [
        "generate",
        "bias",
        "--dataset",
        "pima",
        "-o",
        &o,
        "--format",
        "json",
    ];
    let (code, text, err) = run(&[&base[..], args].concat());
    assert_eq!(code, 0, "{args:?}: {err}");
    let (header, rows) = read_csv(out);
    (serde_json::from_str(&text).unwrap(), header, rows)
}

#[test]
fn bias_writes_a_feature_or_class_biased_sample() {
    let out = scratch("gen-bias").join("b.csv");
    // pima: 768 rows, 500 negatives and 268 positives.
    let (v, header, kept) = bias_pima(&["--feature", "x1", "--drop", "0.25"], &out);
    assert_eq!(
        v["bias"],
        serde_json::json!({"feature": "x1", "drop": 0.25})
    );
    assert_eq!(kept.len(), 768 - 192);
    let after: u64 = v["after"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .sum();
    assert_eq!(after, 576);
    // Every kept x1 is at least the 192nd smallest of pima's x1, and 0.25
    // is the default.
    let j = header.iter().position(|h| h == "x1").unwrap();
    let (_, _, all) = bias_pima(&["--feature", "x1", "--drop", "0"], &out);
    let mut x: Vec<f64> = all.iter().map(|r| r[j].parse().unwrap()).collect();
    x.sort_by(f64::total_cmp);
    let (_, _, default) = bias_pima(&["--feature", "x1"], &out);
    assert_eq!(default, kept);
    assert!(kept
        .iter()
        .all(|r| r[j].parse::<f64>().unwrap() >= x[192 - 1]));
    // Class bias: every positive dropped, every negative kept.
    let (v, _, rows) = bias_pima(&["--class", "1,0"], &out);
    assert_eq!(v["after"], serde_json::json!([500, 0]));
    assert_eq!(rows.len(), 500);
}

#[test]
fn bias_errors_name_what_is_wrong() {
    let d = scratch("gen-bias-bad");
    let out = d.join("b.csv");
    let o = out.to_string_lossy().into_owned();
    for (args, needle) in [
        (
            vec!["--feature", "X1"],
            "'X1' is not a feature (did you mean 'x1'?)",
        ),
        (vec!["--feature", "x1", "--drop", "1"], "[0, 1)"),
        (vec!["--class", "1"], "one keep rate per class"),
        (vec!["--class", "1,x"], "'x' is not a keep rate"),
        (vec![], "--feature"),
    ] {
        let mut a = vec!["generate", "bias", "--dataset", "pima", "-o", &o];
        a.extend(args);
        let (code, _, err) = run(&a);
        assert_ne!(code, 0);
        assert!(err.contains(needle) && !err.contains("panicked"), "{err}");
        assert!(!out.exists());
    }
}
