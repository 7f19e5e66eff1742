//! Turning raw labels into class ids (the binary convention: class 1 is the
//! positive class, the minority unless the user names one).

use crate::error::{Error, Result};

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
    fn declared_order_is_kept_for_multiclass() {
        let labels = vec![("z".into(), 1), ("a".into(), 2), ("m".into(), 2)];
        let (names, _) = assign_classes(&labels, None, true).unwrap();
        assert_eq!(names, vec!["z", "a", "m"]);
    }
}
