//! The checks of what a model file holds, shared by every fitted type's
//! `validate` (models, calibrators, decision rules, encodings, the
//! strategy): numbers finite or at least not NaN, probabilities in `[0, 1]`
//! summing to 1, lengths, class indices, distinct names. Each check names
//! what it found wrong (`"logistic coefficient 3 is NaN"`), so a model file
//! that loads is one that means what it says, whatever its format version
//! (files written before checksums were verified by nothing else).
//!
//! As XGBoost's loader checks a model's parameters before using it, and
//! SQLite refuses a header whose numbers are out of range instead of
//! reading on, a value rarity never writes is refused when read, with what
//! it is.

/// What a check returns: `Err` says what is wrong.
pub type Checked = std::result::Result<(), String>;

/// How far a row of probabilities may sum from 1: `1e-8 + 1e-5`, the
/// tolerance of NumPy's `allclose` with which SciPy's `rv_discrete` accepts
/// a distribution's probabilities. A row of `k` frequencies computed in
/// floating point is within a few `k` ulps.
pub const SUM_TOLERANCE: f64 = 1e-8 + 1e-5;

/// Fails unless `values` has `want` entries.
pub fn len(what: &str, values: usize, want: usize) -> Checked {
    if values != want {
        return Err(format!("{what}: {values} values where {want} are expected"));
    }
    Ok(())
}

/// The first value failing `ok`, as "`what` `i` is `v`".
fn each(what: &str, values: &[f64], ok: impl Fn(f64) -> bool, rule: &str) -> Checked {
    match values.iter().position(|&v| !ok(v)) {
        Some(i) => Err(format!("{what} {i} is {}; {rule}", values[i])),
        None => Ok(()),
    }
}

/// Fails unless every value is finite.
pub fn finite(what: &str, values: &[f64]) -> Checked {
    each(what, values, f64::is_finite, "it must be finite")
}

/// Fails if a value is NaN (infinities are fine: a split threshold of
/// `inf` sends every number left, in rarity as in ONNX).
pub fn not_nan(what: &str, values: &[f64]) -> Checked {
    each(what, values, |v| !v.is_nan(), "it must be a number")
}

/// Fails unless every value is finite and `>= 0`.
pub fn non_negative(what: &str, values: &[f64]) -> Checked {
    each(
        what,
        values,
        |v| v.is_finite() && v >= 0.0,
        "it must be finite and >= 0",
    )
}

/// Fails unless every value is finite and `> 0`.
pub fn positive(what: &str, values: &[f64]) -> Checked {
    each(
        what,
        values,
        |v| v.is_finite() && v > 0.0,
        "it must be finite and > 0",
    )
}

/// Fails unless every value is in `[0, 1]` (a rate or a probability).
pub fn unit(what: &str, values: &[f64]) -> Checked {
    each(
        what,
        values,
        |v| (0.0..=1.0).contains(&v),
        "it must be in [0, 1]",
    )
}

/// Fails if two of `names` are equal (empty ones are fine: a level may be
/// the empty text).
pub fn distinct(what: &str, names: &[String]) -> Checked {
    let mut seen = std::collections::HashSet::with_capacity(names.len());
    if let Some(n) = names.iter().find(|n| !seen.insert(n.as_str())) {
        return Err(format!("{what} '{}' appears twice", n.escape_debug()));
    }
    Ok(())
}

/// Fails unless `values` is rows of `k` probabilities: each in `[0, 1]`,
/// each row summing to 1 within [`SUM_TOLERANCE`].
pub fn probability_rows(what: &str, values: &[f64], k: usize) -> Checked {
    unit(what, values)?;
    for (r, row) in values.chunks(k.max(1)).enumerate() {
        let s: f64 = row.iter().sum();
        if (s - 1.0).abs() > SUM_TOLERANCE {
            return Err(format!("{what} row {r} sums to {s}, not 1"));
        }
    }
    Ok(())
}

/// Fails unless `classes` (the classes a model saw, in the order of its
/// outputs) is ascending without repeats, each below `k`, and not empty.
pub fn classes(what: &str, classes: &[usize], k: usize) -> Checked {
    if classes.is_empty() {
        return Err(format!("{what}: no class"));
    }
    if let Some(&c) = classes.iter().find(|&&c| c >= k) {
        return Err(format!("{what}: class {c} of only {k}"));
    }
    if classes.windows(2).any(|w| w[0] >= w[1]) {
        return Err(format!(
            "{what}: classes {classes:?} are not ascending and distinct"
        ));
    }
    Ok(())
}

/// Fails unless every name is non-empty and no two are equal.
pub fn names(what: &str, names: &[String]) -> Checked {
    if let Some(i) = names.iter().position(|n| n.is_empty()) {
        return Err(format!("{what} {i} is empty"));
    }
    distinct(what, names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_check_names_what_is_wrong() {
        assert_eq!(
            finite("coefficient", &[1.0, f64::NAN]).unwrap_err(),
            "coefficient 1 is NaN; it must be finite"
        );
        assert!(finite("c", &[f64::INFINITY]).is_err() && not_nan("t", &[f64::INFINITY]).is_ok());
        assert!(non_negative("w", &[0.0, 2.0]).is_ok() && non_negative("w", &[-1.0]).is_err());
        assert!(positive("w", &[0.0]).is_err());
        assert!(probability_rows("leaf", &[0.25, 0.75, 1.0, 0.0], 2).is_ok());
        let e = probability_rows("leaf", &[6.0, -5.0], 2).unwrap_err();
        assert!(e.contains("leaf 0 is 6"), "{e}");
        let e = probability_rows("leaf", &[0.5, 0.4], 2).unwrap_err();
        assert!(e.contains("row 0 sums to 0.9"), "{e}");
        assert!(probability_rows("leaf", &[0.1, 0.2, 0.7], 3).is_ok());
        assert!(classes("m", &[0, 2], 3).is_ok());
        assert!(classes("m", &[1, 1], 3).is_err() && classes("m", &[3], 3).is_err());
        assert!(classes("m", &[], 3).is_err());
        assert!(names("class", &["a".into(), "b".into()]).is_ok());
        assert_eq!(
            names("class", &["a".into(), "a".into()]).unwrap_err(),
            "class 'a' appears twice"
        );
        assert!(names("class", &["".into()]).is_err());
        assert!(len("x", 2, 3).is_err() && len("x", 3, 3).is_ok());
    }
}
