//! `generate fraud --categorical` (issue 41 item 6): merchant, country and
//! merchant category code columns whose levels carry much of the fraud
//! signal, with the same levels and risks for every seed.

mod common;

use std::collections::HashMap;

use common::{run, scratch};

/// Writes a table with `--categorical` at `seed`; returns its text.
fn table(seed: &str, categorical: bool) -> String {
    let dir = scratch(&format!("fraud-categorical-{seed}-{categorical}"));
    let path = dir.join("t.csv");
    let mut args = vec![
        "generate",
        "fraud",
        "--n",
        "60000",
        "--positive-rate",
        "0.01",
        "--seed",
        seed,
        "-q",
        "-o",
        path.to_str().unwrap(),
    ];
    if categorical {
        args.push("--categorical");
    }
    let (code, _, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    std::fs::read_to_string(path).unwrap()
}

/// Per country: (frauds, rows).
fn by_country(text: &str) -> HashMap<String, (f64, f64)> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = header.iter().position(|h| *h == "country").unwrap();
    let mut out: HashMap<String, (f64, f64)> = HashMap::new();
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let e = out.entry(f[at].to_string()).or_default();
        e.0 += f64::from(f[f.len() - 1] == "1");
        e.1 += 1.0;
    }
    out
}

#[test]
fn categorical_fields_carry_a_fixed_populations_fraud_signal() {
    let a = table("42", true);
    let b = table("9", true);
    let header = a.lines().next().unwrap();
    assert!(
        header.ends_with(",Amount,merchant,country,mcc,class"),
        "{header}"
    );
    let row: Vec<&str> = a.lines().nth(1).unwrap().split(',').collect();
    assert!(row[30].starts_with('M') && row[31].len() == 2 && row[32].parse::<u32>().is_ok());
    // The riskiest countries of one seed are risky in another seed too.
    let (ra, rb) = (by_country(&a), by_country(&b));
    let mut countries: Vec<(&String, f64)> = ra
        .iter()
        .filter(|(_, v)| v.1 >= 100.0)
        .map(|(c, v)| (c, v.0 / v.1))
        .collect();
    countries.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(y.0)));
    let top: Vec<&String> = countries.iter().take(10).map(|c| c.0).collect();
    let (mut frauds, mut rows) = (0.0, 0.0);
    for c in &top {
        let v = rb.get(*c).copied().unwrap_or_default();
        frauds += v.0;
        rows += v.1;
    }
    let overall: f64 =
        rb.values().map(|v| v.0).sum::<f64>() / rb.values().map(|v| v.1).sum::<f64>();
    assert!(
        frauds / rows > 2.5 * overall,
        "top countries' rate {} vs {overall}",
        frauds / rows
    );
    // Without --categorical the table has no such columns.
    let plain = table("42", false);
    assert!(plain.lines().next().unwrap().ends_with(",Amount,class"));
}
