//! Turning raw labels into class ids (the binary convention: class 1 is the
//! positive class, the minority unless the user names one).
//!
//! Every reader and the Python package come through [`assign_classes`], so
//! its rules hold for all of them:
//! - A label column whose every label is a number is read as numbers: `0`,
//!   `0.0` and `-0` are one class, named by the number's canonical text (the
//!   shortest text that reads back as it, as rarity writes numbers; `-0` is
//!   `0`). A non-finite number (`inf`, `nan`, `1e309`) is an error. Integers
//!   beyond 2^53, which a float cannot tell apart, keep the column text.
//! - A target with more classes than a classifier can sensibly learn is an
//!   error (see [`check_class_count`]).

use std::collections::HashMap;

use crate::error::{Error, Result};

/// The most classes a target may have by default.
pub const DEFAULT_MAX_CLASSES: usize = 1000;

/// The environment variable that sets the most classes a target may have.
pub const MAX_CLASSES_ENV: &str = "RARITY_MAX_CLASSES";

/// Rows from which a target with a class for (nearly) every row is refused
/// whatever its class count: with more classes than half the rows, most
/// classes have one row, which no model can learn or validate.
const ID_CHECK_ROWS: usize = 200;

/// Fails when a target's `classes` (over `rows` rows) are more than a
/// classifier can sensibly learn: more than `RARITY_MAX_CLASSES` (default
/// [`DEFAULT_MAX_CLASSES`]: every model keeps per-class numbers in each
/// leaf or member, so size and time grow with rows × classes), or, with
/// the default limit and at least 200 rows, more classes than half the
/// rows (an identifier column, not a class).
pub fn check_class_count(classes: usize, rows: usize) -> Result<()> {
    let set = max_classes_set();
    let max = set.unwrap_or(DEFAULT_MAX_CLASSES);
    let id_like = set.is_none() && rows >= ID_CHECK_ROWS && classes * 2 > rows;
    if classes <= max && !id_like {
        return Ok(());
    }
    let why = if classes > max {
        format!("more than the {max} a classifier can sensibly learn")
    } else {
        "more than half the rows: nearly every row is a class of its own".to_string()
    };
    Err(Error::invalid(format!(
        "the target column has {classes} distinct labels in {rows} rows, {why}; is it an \
         identifier? choose the label column with --target NAME (or its 0-based index), \
         or, if it is right, allow more classes with {MAX_CLASSES_ENV}=<n>"
    )))
}

/// The class limit `RARITY_MAX_CLASSES` sets, if it does.
fn max_classes_set() -> Option<usize> {
    std::env::var(MAX_CLASSES_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
}

/// The most classes a target may have: `RARITY_MAX_CLASSES`, else
/// [`DEFAULT_MAX_CLASSES`].
pub(super) fn max_classes() -> usize {
    max_classes_set().unwrap_or(DEFAULT_MAX_CLASSES)
}

/// The value of a label read as a number, if it is one (non-finite values
/// included, to be refused).
fn label_number(label: &str) -> Option<f64> {
    label.trim().parse::<f64>().ok()
}

/// The canonical text of a numeric label: the shortest text that reads
/// back as `v` (as rarity writes numbers), `0` for `-0`.
fn canonical(v: f64) -> String {
    if v == 0.0 {
        "0".to_string()
    } else {
        format!("{v}")
    }
}

/// The class name a label of a numeric column has (its canonical text),
/// if it is a finite number.
pub(crate) fn canonical_label(label: &str) -> Option<String> {
    label_number(label)
        .filter(|v| v.is_finite() && !beyond_exact_integers(label, *v))
        .map(canonical)
}

/// Whether `label` is an integer literal a float cannot hold exactly.
fn beyond_exact_integers(label: &str, v: f64) -> bool {
    let t = label.trim().trim_start_matches(['+', '-']);
    !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) && v.abs() > 9_007_199_254_740_992.0
}

/// `labels` with numeric labels merged under their canonical text, when
/// every label is a number: the merged labels and, per given label, its
/// merged index. `None` when the column is text.
#[allow(clippy::type_complexity)]
fn merged_numbers(
    labels: &[(String, usize)],
) -> Result<Option<(Vec<(String, usize)>, Vec<usize>)>> {
    let mut values = Vec::with_capacity(labels.len());
    for (l, _) in labels {
        match label_number(l) {
            Some(v) if !beyond_exact_integers(l, v) => values.push(v),
            _ => return Ok(None),
        }
    }
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(Error::invalid(format!(
            "the label '{}' is not a finite number (the labels are numbers); \
             mark missing values with an empty field or '?'",
            super::quote::quoted(labels[i].0.as_bytes())
        )));
    }
    let names: Vec<String> = values.iter().map(|&v| canonical(v)).collect();
    let mut merged: Vec<(String, usize)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut of = Vec::with_capacity(labels.len());
    for (name, (_, count)) in names.into_iter().zip(labels) {
        let k = *index.entry(name.clone()).or_insert_with(|| {
            merged.push((name, 0));
            merged.len() - 1
        });
        merged[k].1 += count;
        of.push(k);
    }
    Ok(Some((merged, of)))
}

/// Indices of `labels` in sorted order: numerically when every label is a
/// number, else as text (by code point).
fn sorted(names: &[&str]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..names.len()).collect();
    let numeric: Option<Vec<f64>> = names.iter().map(|l| l.parse::<f64>().ok()).collect();
    match numeric {
        Some(v) => order.sort_by(|&a, &b| v[a].total_cmp(&v[b])),
        None => order.sort_by(|&a, &b| names[a].cmp(names[b])),
    }
    order
}

/// Each class's position when its label is sorted as labels are ordered
/// into classes (numerically when every label is a number, else as text):
/// the order of scikit-learn's `classes_`, which differs from rarity's class
/// ids when the positive class of a binary task sorts first.
///
/// ```
/// use rarity::data::read::label_order;
/// // Class 1 (the positive minority) is labelled "0": it sorts first.
/// assert_eq!(label_order(&["1".into(), "0".into()]), vec![1, 0]);
/// assert_eq!(label_order(&["b".into(), "a".into(), "c".into()]), vec![1, 0, 2]);
/// ```
pub fn label_order(names: &[String]) -> Vec<usize> {
    let order = sorted(&names.iter().map(String::as_str).collect::<Vec<_>>());
    let mut rank = vec![0; names.len()];
    for (r, &i) in order.iter().enumerate() {
        rank[i] = r;
    }
    rank
}

/// Orders raw labels into classes and returns `(class_names, map)` where
/// `map[raw_id]` is the class id of raw label `raw_id`.
///
/// `labels` are the distinct raw labels (in any order) with their row counts.
/// `declared` keeps the given order (KEEL/ARFF nominal targets) instead of
/// sorting. See the module docs of [`crate::data::read`] for the rules.
///
/// ```
/// use rarity::data::read::assign_classes;
/// let (names, map) = assign_classes(
///     &[("yes".into(), 10), ("no".into(), 90)], None, false).unwrap();
/// assert_eq!(names, vec!["no".to_string(), "yes".to_string()]);
/// assert_eq!(map, vec![1, 0]);
/// // Naming a positive label in a multiclass table binarises it.
/// let (names, map) = assign_classes(
///     &[("a".into(), 5), ("b".into(), 5), ("c".into(), 2)], Some("b"), false).unwrap();
/// assert_eq!(names, vec!["not b".to_string(), "b".to_string()]);
/// assert_eq!(map, vec![0, 1, 0]);
/// ```
pub fn assign_classes(
    labels: &[(String, usize)],
    positive: Option<&str>,
    declared: bool,
) -> Result<(Vec<String>, Vec<u32>)> {
    if !declared {
        if let Some((merged, of)) = merged_numbers(labels)? {
            let positive = positive.map(|p| label_number(p).map_or(p.to_string(), canonical));
            let (names, map) = assign_ordered(&merged, positive.as_deref(), false)?;
            return Ok((names, of.iter().map(|&k| map[k]).collect()));
        }
    }
    assign_ordered(labels, positive, declared)
}

/// [`assign_classes`] of labels that are already canonical.
fn assign_ordered(
    labels: &[(String, usize)],
    positive: Option<&str>,
    declared: bool,
) -> Result<(Vec<String>, Vec<u32>)> {
    if positive.is_none() {
        let present = labels.iter().filter(|(_, n)| *n > 0).count();
        check_class_count(present, labels.iter().map(|(_, n)| n).sum())?;
    }
    let mut order: Vec<usize> = (0..labels.len()).collect();
    if !declared {
        order = sorted(&labels.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>());
    }
    let present: Vec<usize> = order.iter().copied().filter(|&i| labels[i].1 > 0).collect();
    let mut map = vec![0u32; labels.len()];

    if let Some(pos) = positive {
        let Some(p) = labels.iter().position(|(l, _)| l == pos) else {
            return Err(Error::invalid(format!(
                "positive label '{pos}' not found; labels are: {}",
                present
                    .iter()
                    .map(|&i| labels[i].0.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        };
        let others: Vec<usize> = order.iter().copied().filter(|&i| i != p).collect();
        let negative_name = if others.len() == 1 {
            labels[others[0]].0.clone()
        } else {
            format!("not {pos}")
        };
        map[p] = 1;
        return Ok((vec![negative_name, pos.to_string()], map));
    }

    if present.len() == 2 && order.len() == 2 {
        let (a, b) = (present[0], present[1]);
        // The minority is positive; on a tie the later label in order is.
        let (neg, pos) = if labels[b].1 <= labels[a].1 {
            (a, b)
        } else {
            (b, a)
        };
        map[neg] = 0;
        map[pos] = 1;
        return Ok((vec![labels[neg].0.clone(), labels[pos].0.clone()], map));
    }
    for (id, &i) in order.iter().enumerate() {
        map[i] = id as u32;
    }
    Ok((order.iter().map(|&i| labels[i].0.clone()).collect(), map))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_labels_sort_numerically() {
        let labels = vec![("10".into(), 3), ("2".into(), 3), ("1".into(), 3)];
        let (names, map) = assign_classes(&labels, None, false).unwrap();
        assert_eq!(names, vec!["1", "2", "10"]);
        assert_eq!(map, vec![2, 1, 0]);
    }

    #[test]
    fn binary_minority_is_positive_even_if_sorted_first() {
        let labels = vec![("0".into(), 3), ("1".into(), 30)];
        let (names, map) = assign_classes(&labels, None, false).unwrap();
        assert_eq!(names, vec!["1", "0"]);
        assert_eq!(map, vec![1, 0]);
    }

    #[test]
    fn named_positive_wins_over_minority() {
        let labels = vec![("neg".into(), 3), ("pos".into(), 30)];
        let (names, map) = assign_classes(&labels, Some("pos"), false).unwrap();
        assert_eq!(names, vec!["neg", "pos"]);
        assert_eq!(map, vec![0, 1]);
    }

    #[test]
    fn unknown_positive_lists_labels() {
        let labels = vec![("a".into(), 1), ("b".into(), 2)];
        let e = assign_classes(&labels, Some("z"), false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("'z' not found") && e.contains("a, b"), "{e}");
    }

    #[test]
    fn numeric_labels_written_two_ways_are_one_class() {
        let labels = vec![
            ("0".into(), 3),
            ("0.0".into(), 3),
            ("-0".into(), 3),
            ("1".into(), 2),
            ("1.0".into(), 2),
        ];
        let (names, map) = assign_classes(&labels, None, false).unwrap();
        assert_eq!(names, vec!["0", "1"]);
        assert_eq!(map, vec![0, 0, 0, 1, 1]);
        let (names, _) = assign_classes(&labels, Some("1.0"), false).unwrap();
        assert_eq!(names, vec!["0", "1"]);
        // Text columns stay text.
        let text = vec![("1".into(), 1), ("1.0".into(), 1), ("a".into(), 1)];
        assert_eq!(assign_classes(&text, None, false).unwrap().0.len(), 3);
    }

    #[test]
    fn non_finite_numeric_labels_are_errors() {
        for bad in ["1e309", "inf", "NaN"] {
            let labels = vec![("0".into(), 1), (bad.into(), 1)];
            let e = assign_classes(&labels, None, false)
                .unwrap_err()
                .to_string();
            assert!(e.contains("not a finite number") && e.contains(bad), "{e}");
        }
    }

    #[test]
    fn a_class_per_row_is_refused() {
        let labels: Vec<(String, usize)> = (0..300).map(|i| (format!("id{i}"), 1)).collect();
        let e = assign_classes(&labels, None, false)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("300 distinct labels") && e.contains("--target"),
            "{e}"
        );
        let many: Vec<(String, usize)> = (0..1001).map(|i| (format!("c{i}"), 5)).collect();
        assert!(assign_classes(&many, None, false).is_err());
        let fine: Vec<(String, usize)> = (0..50).map(|i| (format!("c{i}"), 5)).collect();
        assert!(assign_classes(&fine, None, false).is_ok());
    }

    #[test]
    fn declared_order_is_kept_for_multiclass() {
        let labels = vec![("z".into(), 1), ("a".into(), 2), ("m".into(), 2)];
        let (names, _) = assign_classes(&labels, None, true).unwrap();
        assert_eq!(names, vec!["z", "a", "m"]);
    }
}
