//! Shared helpers of the fixture tests: reading the committed JSON and
//! comparing numbers.
//!
//! Fixture numbers encode NaN as `null` and infinities as `"inf"` / `"-inf"`.
//! Two numbers agree when both are NaN, both are the same infinity, or
//! `|a - b| <= tol * max(1, |b|)`: absolute for values up to 1 (rates,
//! probabilities, p-values), relative above.

#![allow(dead_code)]

use serde_json::Value;

pub fn load(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap()
}

pub fn num(v: &Value) -> f64 {
    match v {
        Value::Null => f64::NAN,
        Value::String(s) if s == "inf" => f64::INFINITY,
        Value::String(s) if s == "-inf" => f64::NEG_INFINITY,
        Value::Number(n) => n.as_f64().unwrap(),
        other => panic!("not a number: {other}"),
    }
}

pub fn nums(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(num).collect()
}

pub fn labels(v: &Value) -> Vec<u32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as u32)
        .collect()
}

pub fn agree(got: f64, want: f64, tol: f64) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if want.is_infinite() || got.is_infinite() {
        return got == want;
    }
    (got - want).abs() <= tol * want.abs().max(1.0)
}

pub fn check(case: &str, what: &str, got: f64, want: f64, tol: f64, failures: &mut Vec<String>) {
    if !agree(got, want, tol) {
        failures.push(format!("{case}: {what}: got {got:e}, want {want:e}"));
    }
}

pub fn check_all(
    case: &str,
    what: &str,
    got: &[f64],
    want: &[f64],
    tol: f64,
    failures: &mut Vec<String>,
) {
    if got.len() != want.len() {
        failures.push(format!(
            "{case}: {what}: {} values, want {}: {got:?} vs {want:?}",
            got.len(),
            want.len()
        ));
        return;
    }
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        check(case, &format!("{what}[{i}]"), g, w, tol, failures);
    }
}
