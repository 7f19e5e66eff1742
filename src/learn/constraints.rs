//! Monotone and interaction constraints named by source column: the
//! `monotone=[debt_ratio:1, tenure:-1]` of `gbdt`, `tree` (and every
//! ensemble of trees), the `signs=` of `logistic`, and `gbdt`'s
//! `interaction=[[a,b],[c,d,e]]`.
//!
//! A constraint names source columns (a name with odd characters quoted:
//! `'debt ratio':1`); a direction is `1` (the model's probability of the
//! positive class may never fall as the column rises, the others held
//! fixed), `-1` (may never rise) or `0` (no constraint). Names are resolved
//! against the fitted data's schema when the learner fits
//! ([`Monotone::directions`], [`Interactions::groups`]): an unknown name is
//! an error that lists the columns, the target and categorical columns
//! (level codes or one-hot groups: their levels have no order) cannot be
//! monotone. An interaction group names a source column once; the one-hot
//! features of a text column are that one column. Features no group names
//! form one more group of their own (scikit-learn's `interaction_cst`
//! rule), so a branch splits on the features of a single group.
//!
//! Constraints keep their meaning for two classes only: beyond, a monotone
//! constraint has no single meaning (which class's probability?), and the
//! learners refuse it, as scikit-learn's HistGradientBoosting does.

use serde::{Deserialize, Serialize};

use crate::data::{ColumnEncoding, Schema};
use crate::error::{Error, Result};
use crate::params::syntax::Value;
use crate::params::ParamType;

/// Per source column, a direction the model must keep: `[name:1, ...]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Monotone(pub Vec<(String, i8)>);

/// Groups of source columns a branch may combine: `[[a,b],[c,d,e]]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interactions(pub Vec<Vec<String>>);

/// A column name in a spec: a bare name or a quoted text.
fn name_of(v: &Value) -> Option<String> {
    match v {
        Value::Text(t) => Some(t.clone()),
        Value::Call(c) if c.args.is_empty() => Some(c.name.clone()),
        _ => None,
    }
}

/// The items of a list value (a lone item is a list of one).
fn items(v: &Value) -> Vec<Value> {
    match v {
        Value::List(items) => items.clone(),
        other => vec![other.clone()],
    }
}

impl ParamType for Monotone {
    fn from_value(v: &Value) -> std::result::Result<Self, String> {
        // `[a:1]` is a list holding the list `a:1`; a bare `a:1` is that
        // pair alone.
        let pairs = match v {
            Value::List(xs) if xs.len() == 2 && name_of(&xs[0]).is_some() => vec![v.clone()],
            _ => items(v),
        };
        let mut out: Vec<(String, i8)> = Vec::new();
        for p in &pairs {
            let Value::List(xs) = p else {
                return Err(String::new());
            };
            let [name, dir] = &xs[..] else {
                return Err(String::new());
            };
            let Some(name) = name_of(name) else {
                return Err(String::new());
            };
            let d = match dir {
                Value::Number(x) if *x == 1.0 || *x == -1.0 || *x == 0.0 => *x as i8,
                Value::Number(x) => {
                    return Err(format!(
                        "column {name}: direction {x} is not one of 1 (increasing), \
                         -1 (decreasing), 0 (none)"
                    ))
                }
                _ => return Err(String::new()),
            };
            if out.iter().any(|(n, _)| *n == name) {
                return Err(format!("column {name} is named twice"));
            }
            out.push((name, d));
        }
        Ok(Monotone(out))
    }

    fn expected() -> String {
        "a list of column:direction pairs such as [debt_ratio:1, tenure:-1] \
         (direction 1, -1 or 0; [] for none)"
            .into()
    }

    fn to_text(&self) -> String {
        let pairs: Vec<String> = self
            .0
            .iter()
            .map(|(n, d)| format!("{}:{d}", n.to_text()))
            .collect();
        format!("[{}]", pairs.join(","))
    }
}

impl ParamType for Interactions {
    fn from_value(v: &Value) -> std::result::Result<Self, String> {
        let mut out = Vec::new();
        for g in items(v) {
            let Value::List(names) = g else {
                return Err(String::new());
            };
            let mut group: Vec<String> = Vec::new();
            for n in &names {
                let Some(n) = name_of(n) else {
                    return Err(String::new());
                };
                if group.contains(&n) {
                    return Err(format!("column {n} is named twice in one group"));
                }
                group.push(n);
            }
            if group.is_empty() {
                return Err("an interaction group is empty".into());
            }
            out.push(group);
        }
        Ok(Interactions(out))
    }

    fn expected() -> String {
        "a list of groups of columns such as [[a,b],[c,d,e]] ([] for none)".into()
    }

    fn to_text(&self) -> String {
        let groups: Vec<String> = self
            .0
            .iter()
            .map(|g| {
                let names: Vec<String> = g.iter().map(|n| n.to_text()).collect();
                format!("[{}]", names.join(","))
            })
            .collect();
        format!("[{}]", groups.join(","))
    }
}

/// The source columns of `schema` with the features each one gives, in
/// source order: its encodings, or one numeric column per feature when the
/// encodings do not cover the features (a table built from rows).
fn columns(schema: &Schema) -> Vec<(String, std::ops::Range<usize>, bool)> {
    let width: usize = schema.encodings.iter().map(ColumnEncoding::width).sum();
    if schema.encodings.is_empty() || width != schema.feature_names.len() {
        return (schema.feature_names.iter().enumerate())
            .map(|(j, n)| (n.clone(), j..j + 1, false))
            .collect();
    }
    let mut at = 0;
    schema
        .encodings
        .iter()
        .map(|e| {
            let r = at..at + e.width();
            at = r.end;
            let categorical = !matches!(e, ColumnEncoding::Numeric { .. });
            (e.name().to_string(), r, categorical)
        })
        .collect()
}

/// The features of source column `name`, or an error naming the columns.
fn features_of(
    cols: &[(String, std::ops::Range<usize>, bool)],
    schema: &Schema,
    name: &str,
    what: &str,
) -> Result<(std::ops::Range<usize>, bool)> {
    if let Some((_, r, cat)) = cols.iter().find(|(n, ..)| n == name) {
        return Ok((r.clone(), *cat));
    }
    if name == schema.target_name {
        return Err(Error::invalid(format!(
            "{what}: {name} is the target, not an input column"
        )));
    }
    let names: Vec<&str> = cols.iter().map(|(n, ..)| n.as_str()).collect();
    let hint = crate::error::did_you_mean(name, names.iter().copied())
        .map_or_else(String::new, |m| format!(" (did you mean {m}?)"));
    let shown = match names.len() {
        0..=30 => names.join(", "),
        n => format!("{}, ... ({n} columns)", names[..30].join(", ")),
    };
    Err(Error::invalid(format!(
        "{what}: no column named {name}{hint}; the columns are {shown}"
    )))
}

impl Monotone {
    /// Whether no column is constrained.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|(_, d)| *d == 0)
    }

    /// Per feature of `schema`, its direction (0 for none): every named
    /// column must be a numeric input column of it. `what` names the
    /// parameter in errors (`gbdt monotone`).
    pub fn directions(&self, schema: &Schema, what: &str) -> Result<Vec<i8>> {
        let cols = columns(schema);
        let mut out = vec![0i8; schema.feature_names.len()];
        for (name, d) in &self.0 {
            let (r, categorical) = features_of(&cols, schema, name, what)?;
            if categorical && *d != 0 {
                return Err(Error::invalid(format!(
                    "{what}: {name} is a categorical column, whose levels have no order: \
                     it cannot be monotone"
                )));
            }
            for j in r {
                out[j] = *d;
            }
        }
        Ok(out)
    }

    /// [`Monotone::directions`] for a fit on `k` classes: a constraint
    /// needs two.
    pub fn directions_for(&self, schema: &Schema, k: usize, what: &str) -> Result<Vec<i8>> {
        if k > 2 && !self.is_empty() {
            return Err(Error::invalid(format!(
                "{what}: a monotone constraint has no single meaning for {k} classes \
                 (the probability of which?); constrain a two-class model"
            )));
        }
        self.directions(schema, what)
    }
}

impl Interactions {
    /// Whether there are no groups.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The groups as feature indices of `schema` (a one-hot column gives
    /// all its features), with the features no group names as one group
    /// more when there are any.
    pub fn groups(&self, schema: &Schema, what: &str) -> Result<Vec<Vec<usize>>> {
        let cols = columns(schema);
        let mut named = vec![false; schema.feature_names.len()];
        let mut out = Vec::with_capacity(self.0.len() + 1);
        for g in &self.0 {
            let mut group = Vec::new();
            for name in g {
                let (r, _) = features_of(&cols, schema, name, what)?;
                for j in r {
                    named[j] = true;
                    group.push(j);
                }
            }
            group.sort_unstable();
            out.push(group);
        }
        let rest: Vec<usize> = (0..named.len()).filter(|&j| !named[j]).collect();
        if !rest.is_empty() {
            out.push(rest);
        }
        Ok(out)
    }
}

/// The features a branch that has split on `used` may split on next: the
/// union of the groups holding every feature of `used` (all of `features`
/// when there are no groups).
pub fn allowed(groups: &[Vec<usize>], used: &[usize], features: &[usize]) -> Vec<usize> {
    if groups.is_empty() {
        return features.to_vec();
    }
    let ok: Vec<&Vec<usize>> = groups
        .iter()
        .filter(|g| used.iter().all(|u| g.binary_search(u).is_ok()))
        .collect();
    features
        .iter()
        .copied()
        .filter(|f| ok.iter().any(|g| g.binary_search(f).is_ok()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::syntax::parse_value;

    fn schema() -> Schema {
        let mut s = Schema::numeric(
            vec![
                "a".into(),
                "b".into(),
                "c=x".into(),
                "c=y".into(),
                "d".into(),
            ],
            vec!["n".into(), "p".into()],
        );
        s.encodings = vec![
            ColumnEncoding::Numeric { name: "a".into() },
            ColumnEncoding::Numeric { name: "b".into() },
            ColumnEncoding::OneHot {
                name: "c".into(),
                levels: vec!["x".into(), "y".into()],
            },
            ColumnEncoding::Numeric { name: "d".into() },
        ];
        s.target_name = "class".into();
        s
    }

    fn mono(text: &str) -> std::result::Result<Monotone, String> {
        Monotone::from_value(&parse_value(text).unwrap())
    }

    #[test]
    fn monotone_pairs_parse_and_print_back() {
        let m = mono("[a:1, 'b b':-1]").unwrap();
        assert_eq!(m.0, vec![("a".into(), 1), ("b b".into(), -1)]);
        assert_eq!(m.to_text(), "[a:1,'b b':-1]");
        assert_eq!(mono(&m.to_text()).unwrap(), m);
        assert_eq!(mono("a:1").unwrap().0, vec![("a".into(), 1)]);
        assert_eq!(mono("[]").unwrap(), Monotone::default());
        assert!(mono("[a:2]").unwrap_err().contains("direction 2"));
        assert!(mono("[a:1, a:-1]").unwrap_err().contains("twice"));
        assert!(mono("[a]").is_err() && mono("[1:1]").is_err());
    }

    #[test]
    fn directions_resolve_source_columns_and_refuse_what_has_no_order() {
        let s = schema();
        let d = mono("[d:-1, a:1]").unwrap().directions(&s, "gbdt").unwrap();
        assert_eq!(d, vec![1, 0, 0, 0, -1]);
        let e = mono("[zz:1]").unwrap().directions(&s, "gbdt").unwrap_err();
        assert!(e.to_string().contains("no column named zz") && e.to_string().contains("a, b"));
        let e = mono("[class:1]")
            .unwrap()
            .directions(&s, "gbdt")
            .unwrap_err();
        assert!(e.to_string().contains("is the target"), "{e}");
        let e = mono("[c:1]").unwrap().directions(&s, "gbdt").unwrap_err();
        assert!(e.to_string().contains("categorical"), "{e}");
        let e = mono("[a:1]")
            .unwrap()
            .directions_for(&s, 3, "gbdt")
            .unwrap_err();
        assert!(e.to_string().contains("3 classes"), "{e}");
    }

    #[test]
    fn interaction_groups_resolve_and_the_rest_form_one_group() {
        let s = schema();
        let v = |t: &str| Interactions::from_value(&parse_value(t).unwrap());
        let g = v("[[a,c],[b]]").unwrap().groups(&s, "gbdt").unwrap();
        assert_eq!(g, vec![vec![0, 2, 3], vec![1], vec![4]]);
        assert_eq!(v("[[a,c],[b]]").unwrap().to_text(), "[[a,c],[b]]");
        assert!(v("[[a,a]]").unwrap_err().contains("twice"));
        assert!(v("[[]]").is_err());
        assert_eq!(allowed(&g, &[], &[0, 1, 2, 3, 4]), vec![0, 1, 2, 3, 4]);
        assert_eq!(allowed(&g, &[2], &[0, 1, 2, 3, 4]), vec![0, 2, 3]);
        assert_eq!(allowed(&g, &[2, 1], &[0, 1, 2, 3, 4]), Vec::<usize>::new());
        assert_eq!(allowed(&[], &[2], &[0, 4]), vec![0, 4]);
    }
}
