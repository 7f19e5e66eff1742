//! The `impute(strategy, value, indicator)` stage of a strategy (issue 52):
//! every missing feature value (NaN) replaced by a statistic of the
//! training rows, so that a learner or a sampler that cannot take missing
//! values (logistic regression, SVM, naive Bayes, LDA/QDA, kNN, SVDD;
//! SMOTE and its relatives, ENN, Tomek links, NearMiss, CNN, which measure
//! distances) can be fitted on a table with holes. scikit-learn's
//! `SimpleImputer` is the model, `MissingIndicator` the indicators.
//!
//! **Statistics.** Per numeric feature: the median (NumPy's: the mean of the
//! two middle values of an even count), the mean, the most frequent value
//! (the smallest of those tied), or the constant `value`, of the values the
//! training rows hold (NaN left out). A categorical column, level codes
//! (`ColumnEncoding::Categorical`) or a one-hot group, takes its most
//! frequent level whatever the strategy (a mean of levels means nothing; the
//! smallest code among ties): the one-hot group's features then read 1 for
//! that level, 0 for the others. A column missing in every training row has
//! no statistic and is an error naming it (give `impute(strategy=constant,
//! value=...)` for a numeric one, or leave it out).
//!
//! **Indicators.** With `indicator=true`, one 0/1 feature `missing(col)` per
//! source column that misses a value in some training row, after the
//! features, in column order (scikit-learn's `add_indicator`, features
//! "missing-only"): 1 where the row's value was missing. A column complete
//! in training gets none, and a value it misses later is imputed all the
//! same.
//!
//! **Where it sits: before the sampler, fitted on the training rows.** The
//! statistics are those of the rows the strategy is fitted on (in a
//! cross-validation, of each fold's training part, never of its test part;
//! in a cross-fit for calibration or tuned decisions, of each inner fold's),
//! before any sampling: the sampler then sees complete rows, which every
//! sampler that measures distances needs, and the statistic is the
//! population's, not that of a sample an undersampler or SMOTE reshaped
//! (imbalanced-learn's pipelines put the imputer first for the same
//! reasons). A sample drawn outside rarity (`Strategy::fit_drawn`, a Spark
//! job) is all the stage sees: its rows are weighted by 1 / (their class's
//! keep rate), so the statistic still estimates the population's, as
//! `encode(target)` weights them ([`crate::data::target_encode`]). Row
//! weights (`sample_weight=`) count as repeated rows.
//!
//! **Indicators are voted by synthesizing samplers.** While the sampler
//! draws, each indicator is declared a categorical feature of two levels
//! (codes 0 and 1, its values), so SMOTE-NC's rule applies to it (Chawla et
//! al. 2002, section 6.1: `sample::nominal`): a synthetic row's indicator is
//! the vote of its seed and the seed's neighbours, never a point between 0
//! and 1, and the neighbour search counts a differing indicator as a
//! differing level. The learner then reads the indicators as numbers.
//!
//! Prediction: each member keeps its fitted stage; a new row's missing
//! values get the training statistics and its indicators are computed the
//! same way (`export` writes both as ONNX nodes).

use serde::{Deserialize, Serialize};

use crate::data::{ColumnEncoding, Dataset, Schema};
use crate::error::{Error, Result};
use crate::params::number_text;

crate::params::choice! {
    /// The statistic a numeric feature's missing values get.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
    pub enum ImputeStrategy {
        /// The median of the training values.
        Median = "median",
        /// The mean of the training values.
        Mean = "mean",
        /// The most frequent training value (the smallest among ties).
        MostFrequent = "most_frequent",
        /// A constant (`value=`).
        Constant = "constant",
    }
}

/// The stage as built from its spec: `impute(strategy=median, value=none,
/// indicator=false)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Impute {
    /// The statistic of numeric features.
    pub strategy: ImputeStrategy,
    /// The value of `strategy=constant` (required there, refused
    /// elsewhere).
    pub value: Option<f64>,
    /// Add one 0/1 indicator feature per column missing a training value.
    pub indicator: bool,
}

impl Default for Impute {
    fn default() -> Self {
        Impute {
            strategy: ImputeStrategy::Median,
            value: None,
            indicator: false,
        }
    }
}

/// The fitted stage: one fill value per feature of the data it reads, the
/// columns with an indicator, and the schema of the imputed data (what the
/// sampler and the learner see).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FittedImpute {
    /// The stage as spec text, for `rarity show`.
    pub stage: String,
    /// Per feature of the data it reads, the value a missing one gets.
    pub fill: Vec<f64>,
    /// Per indicator feature, in order, the features of its source column
    /// (one, or a one-hot group's).
    pub indicators: Vec<Vec<usize>>,
    /// Feature names and encodings of the imputed data: the data's, then
    /// the indicators (numeric).
    pub schema: Schema,
}

/// How each feature of a schema belongs to its source column: the
/// column's index among the encodings, and whether the column is
/// categorical (level codes, or a one-hot group).
fn feature_columns(schema: &Schema) -> Vec<(usize, bool)> {
    let mut of = std::collections::HashMap::new();
    for (c, e) in schema.encodings.iter().enumerate() {
        match e {
            ColumnEncoding::Numeric { name } => {
                of.insert(name.clone(), (c, false));
            }
            ColumnEncoding::Categorical { name, .. } => {
                of.insert(name.clone(), (c, true));
            }
            ColumnEncoding::OneHot { name, levels } => {
                for l in levels {
                    of.insert(format!("{name}={l}"), (c, true));
                }
            }
        }
    }
    // A feature no encoding names (a table built by hand) is its own
    // numeric column.
    let extra = schema.encodings.len();
    (schema.feature_names.iter().enumerate())
        .map(|(j, f)| of.get(f).copied().unwrap_or((extra + j, false)))
        .collect()
}

/// The name of the indicator feature of column `name`.
pub fn indicator_name(name: &str) -> String {
    format!("missing({name})")
}

impl Impute {
    /// The stage as spec text (parsed back to the same stage).
    ///
    /// ```
    /// use rarity::data::impute::{Impute, ImputeStrategy};
    /// assert_eq!(Impute::default().to_text(), "impute(strategy=median,indicator=false)");
    /// let c = Impute { strategy: ImputeStrategy::Constant, value: Some(-1.0), indicator: true };
    /// assert_eq!(c.to_text(), "impute(strategy=constant,value=-1,indicator=true)");
    /// ```
    pub fn to_text(&self) -> String {
        use crate::params::ParamType;
        let value = self
            .value
            .map_or(String::new(), |v| format!(",value={}", number_text(v)));
        format!(
            "impute(strategy={}{value},indicator={})",
            self.strategy.to_text(),
            self.indicator
        )
    }

    /// Fails on parameters that contradict each other: `constant` needs a
    /// `value`, the other strategies take none.
    pub fn check(&self) -> Result<()> {
        match (self.strategy, self.value) {
            (ImputeStrategy::Constant, None) => Err(Error::invalid(
                "impute(strategy=constant) needs the constant: impute(strategy=constant, value=0)",
            )),
            (ImputeStrategy::Constant, Some(v)) if !v.is_finite() => Err(Error::invalid(format!(
                "impute(strategy=constant, value={v}): the value must be a finite number"
            ))),
            (ImputeStrategy::Constant, Some(_)) | (_, None) => Ok(()),
            (s, Some(_)) => Err(Error::invalid(format!(
                "impute(strategy={}): value= is the constant of strategy=constant; the {} \
                 comes from the training rows",
                crate::params::ParamType::to_text(&s),
                crate::params::ParamType::to_text(&s).replace('_', " ")
            ))),
        }
    }

    /// Fits the stage on the rows of `train`, each weighted by its row
    /// weight times `class_weight[its class]` (`None`: 1; a sample drawn
    /// elsewhere passes 1 / keep rate). Returns the fitted stage; apply it
    /// with [`FittedImpute::apply`].
    pub fn fit(&self, train: &Dataset, class_weight: Option<&[f64]>) -> Result<FittedImpute> {
        self.check()?;
        let schema = train.schema();
        let d = train.n_features();
        let n = train.n_rows();
        let columns = feature_columns(schema);
        let weight = |i: usize| train.weight(i) * class_weight.map_or(1.0, |w| w[train.label(i)]);
        // A one-hot group's value is its most frequent level, over the rows
        // holding one.
        let mut fill = vec![f64::NAN; d];
        let mut done = vec![false; d];
        for j in 0..d {
            if done[j] {
                continue;
            }
            let (col, categorical) = columns[j];
            let group: Vec<usize> = (j..d).filter(|&k| columns[k].0 == col).collect();
            let observed = (0..n).filter(|&i| !train.value(i, j).is_nan());
            let column_name = || source_name(schema, col, j);
            if group.len() > 1 {
                // One-hot: the level (feature) set to 1 in the most weight.
                let mut mass = vec![0.0; group.len()];
                let mut any = false;
                for i in observed {
                    any = true;
                    if let Some(g) = group.iter().position(|&k| train.value(i, k) == 1.0) {
                        mass[g] += weight(i);
                    }
                }
                if !any {
                    return Err(all_missing(&column_name(), n, true));
                }
                let best = (0..group.len()).fold(0, |b, g| if mass[g] > mass[b] { g } else { b });
                for (g, &k) in group.iter().enumerate() {
                    fill[k] = if g == best { 1.0 } else { 0.0 };
                    done[k] = true;
                }
                continue;
            }
            let values: Vec<(f64, f64)> =
                observed.map(|i| (train.value(i, j), weight(i))).collect();
            if values.is_empty() && (categorical || self.strategy != ImputeStrategy::Constant) {
                return Err(all_missing(&column_name(), n, !categorical));
            }
            fill[j] = match (categorical, self.strategy) {
                (true, _) | (false, ImputeStrategy::MostFrequent) => most_frequent(values),
                (false, ImputeStrategy::Median) => weighted_median(values),
                (false, ImputeStrategy::Mean) => weighted_mean(&values),
                (false, ImputeStrategy::Constant) => self.value.unwrap_or(0.0),
            };
            done[j] = true;
        }
        let mut indicators: Vec<Vec<usize>> = Vec::new();
        if self.indicator {
            let mut seen_cols = Vec::new();
            for j in 0..d {
                let col = columns[j].0;
                if seen_cols.contains(&col) || !(0..n).any(|i| train.value(i, j).is_nan()) {
                    continue;
                }
                seen_cols.push(col);
                indicators.push((j..d).filter(|&k| columns[k].0 == col).collect());
            }
        }
        let mut imputed = schema.clone();
        for group in &indicators {
            let name = indicator_name(&source_name(schema, columns[group[0]].0, group[0]));
            if imputed.feature_names.contains(&name) {
                return Err(Error::invalid(format!(
                    "{}: the indicator feature '{name}' would share its name with a column of \
                     the data; rename that column",
                    self.to_text()
                )));
            }
            imputed.feature_names.push(name.clone());
            imputed.encodings.push(ColumnEncoding::Numeric { name });
        }
        Ok(FittedImpute {
            stage: self.to_text(),
            fill,
            indicators,
            schema: imputed,
        })
    }
}

/// The name of source column `col` of `schema` (feature `j`'s).
fn source_name(schema: &Schema, col: usize, j: usize) -> String {
    match schema.encodings.get(col) {
        Some(e) => e.name().to_string(),
        None => schema.feature_names[j].clone(),
    }
}

/// The error of a column with no value in any of the `n` training rows.
fn all_missing(column: &str, n: usize, numeric: bool) -> Error {
    let constant = if numeric {
        " or impute it with a constant (impute(strategy=constant, value=0))"
    } else {
        ""
    };
    Error::data(format!(
        "impute: column '{column}' is missing in every one of the {n} training rows, so no \
         value can be learned for it; leave it out (--drop {column}){constant}"
    ))
}

/// The value holding the most weight among `(value, weight)` pairs, the
/// smallest among ties (scikit-learn's `most_frequent`).
fn most_frequent(mut values: Vec<(f64, f64)>) -> f64 {
    values.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut best, mut best_mass) = (values[0].0, 0.0);
    let mut i = 0;
    while i < values.len() {
        let v = values[i].0;
        let mut mass = 0.0;
        while i < values.len() && values[i].0 == v {
            mass += values[i].1;
            i += 1;
        }
        if mass > best_mass {
            (best, best_mass) = (v, mass);
        }
    }
    best
}

/// The weighted median of `(value, weight)` pairs: the first value at which
/// the cumulative weight reaches half the total, or, when it lands on half
/// exactly, the mean of that value and the next (NumPy's median for unit
/// weights).
fn weighted_median(mut values: Vec<(f64, f64)>) -> f64 {
    values.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = values.iter().map(|v| v.1).sum();
    let half = total / 2.0;
    let mut cum = 0.0;
    for (i, &(v, w)) in values.iter().enumerate() {
        cum += w;
        if cum == half {
            if let Some(&(next, _)) = values[i + 1..].iter().find(|p| p.1 > 0.0) {
                return (v + next) / 2.0;
            }
        }
        if cum >= half && w > 0.0 {
            return v;
        }
    }
    values[values.len() - 1].0
}

/// The weighted mean of `(value, weight)` pairs, summed in row order.
fn weighted_mean(values: &[(f64, f64)]) -> f64 {
    let (sum, total) = values
        .iter()
        .fold((0.0, 0.0), |(s, t), &(v, w)| (s + v * w, t + w));
    sum / total
}

impl FittedImpute {
    /// `data` (the features the stage was fitted on) with every missing
    /// value replaced by its fill value and the indicators appended.
    pub fn apply(&self, data: &Dataset) -> Result<Dataset> {
        self.apply_with(data, self.schema.clone())
    }

    /// [`FittedImpute::apply`] with the indicators declared categorical
    /// features of two levels (their codes are their values): the data a
    /// sampler draws from, so that a synthesizing sampler votes them
    /// (`sample::nominal`) instead of interpolating. [`FittedImpute::learned`]
    /// turns a sample of it back into what the learner reads.
    pub fn apply_voted(&self, data: &Dataset) -> Result<Dataset> {
        self.apply_with(data, self.voted_schema())
    }

    /// A dataset of [`FittedImpute::apply_voted`]'s schema (a sample drawn
    /// from it) with the indicators numbers again, as the learner reads them.
    pub fn learned(&self, sample: &Dataset) -> Result<Dataset> {
        sample.with_schema(self.schema.clone())
    }

    fn voted_schema(&self) -> Schema {
        let mut s = self.schema.clone();
        let first = s.encodings.len() - self.indicators.len();
        for e in &mut s.encodings[first..] {
            *e = ColumnEncoding::Categorical {
                name: e.name().to_string(),
                levels: vec!["0".into(), "1".into()],
            };
        }
        s
    }

    fn apply_with(&self, data: &Dataset, schema: Schema) -> Result<Dataset> {
        let d = self.fill.len();
        if data.n_features() != d {
            return Err(Error::data(format!(
                "{}: the data has {} features, the stage was fitted on {d}",
                self.stage,
                data.n_features()
            )));
        }
        let width = d + self.indicators.len();
        let mut x = Vec::with_capacity(data.n_rows() * width);
        for i in 0..data.n_rows() {
            let row = data.row(i);
            x.extend(
                row.iter()
                    .zip(&self.fill)
                    .map(|(&v, &f)| if v.is_nan() { f } else { v }),
            );
            x.extend(
                self.indicators
                    .iter()
                    .map(|g| f64::from(u8::from(g.iter().any(|&k| row[k].is_nan())))),
            );
        }
        let imputed = Dataset::new(x, data.labels().to_vec(), schema)?;
        match data.weights() {
            Some(w) => imputed.with_weights(w.to_vec()),
            None => Ok(imputed),
        }
    }

    /// Checks a loaded stage against the schema of the data it reads
    /// (`raw`): one fill value per feature, none missing, indicators of
    /// existing features, the imputed schema's size.
    pub fn validate(&self, raw: &Schema) -> std::result::Result<(), String> {
        let d = raw.feature_names.len();
        let bad = self.fill.len() != d
            || self.fill.iter().any(|v| !v.is_finite())
            || self
                .indicators
                .iter()
                .any(|g| g.is_empty() || g.iter().any(|&k| k >= d))
            || self.schema.feature_names.len() != d + self.indicators.len()
            || self.schema.feature_names[..d] != raw.feature_names[..]
            || self.schema.class_names != raw.class_names;
        if bad {
            return Err(format!(
                "{}: the imputation does not match the schema's features",
                self.stage
            ));
        }
        Ok(())
    }

    /// The stage and what it fills, for `rarity show`:
    /// `impute(strategy=median,indicator=true): a=1.5, b=0; indicators
    /// missing(a)` (the first 20 fill values).
    pub fn describe(&self) -> String {
        const SHOWN: usize = 20;
        let d = self.fill.len();
        let mut fills: Vec<String> = (self.schema.feature_names.iter().zip(&self.fill))
            .take(SHOWN)
            .map(|(n, v)| format!("{n}={}", number_text(*v)))
            .collect();
        if d > SHOWN {
            fills.push(format!("and {} more", d - SHOWN));
        }
        let added = &self.schema.feature_names[d..];
        let indicators = if added.is_empty() {
            "no indicator".to_string()
        } else {
            format!("indicators {}", added.join(", "))
        };
        format!("{}: {}; {indicators}", self.stage, fills.join(", "))
    }

    /// The imputed features' names (the indicators last), in the order the
    /// stage after it reads them.
    pub fn feature_names(&self) -> &[String] {
        &self.schema.feature_names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: Vec<Vec<f64>>, y: Vec<u32>) -> Dataset {
        Dataset::from_rows(rows, y, vec!["n".into(), "p".into()]).unwrap()
    }

    const NAN: f64 = f64::NAN;

    #[test]
    fn statistics_of_the_observed_values() {
        let ds = table(
            vec![
                vec![1.0, 5.0],
                vec![NAN, 5.0],
                vec![3.0, NAN],
                vec![10.0, 7.0],
                vec![2.0, 7.0],
            ],
            vec![0, 0, 1, 1, 0],
        );
        let fill = |strategy, value| {
            let s = Impute {
                strategy,
                value,
                indicator: false,
            };
            s.fit(&ds, None).unwrap().fill
        };
        // NumPy: median([1, 3, 10, 2]) = 2.5, median([5, 5, 7, 7]) = 6.
        assert_eq!(fill(ImputeStrategy::Median, None), vec![2.5, 6.0]);
        assert_eq!(fill(ImputeStrategy::Mean, None), vec![4.0, 6.0]);
        // Ties: the smallest.
        assert_eq!(fill(ImputeStrategy::MostFrequent, None), vec![1.0, 5.0]);
        assert_eq!(fill(ImputeStrategy::Constant, Some(-1.0)), vec![-1.0, -1.0]);
        // Weighted by class: a class weight of 3 on class 1.
        let s = Impute::default();
        assert_eq!(s.fit(&ds, Some(&[1.0, 3.0])).unwrap().fill, vec![3.0, 7.0]);
    }

    #[test]
    fn applied_with_indicators_of_the_columns_that_missed() {
        let ds = table(
            vec![
                vec![1.0, 5.0, 0.0],
                vec![NAN, 5.0, 1.0],
                vec![3.0, 6.0, 2.0],
            ],
            vec![0, 0, 1],
        );
        let s = Impute {
            indicator: true,
            ..Impute::default()
        };
        let f = s.fit(&ds, None).unwrap();
        assert_eq!(f.feature_names(), &["x0", "x1", "x2", "missing(x0)"]);
        let new = table(vec![vec![NAN, NAN, 4.0], vec![7.0, 8.0, 9.0]], vec![0, 1]);
        let out = f.apply(&new).unwrap();
        // x1 had no missing training value: imputed, but no indicator.
        assert_eq!(out.row(0), &[2.0, 5.0, 4.0, 1.0]);
        assert_eq!(out.row(1), &[7.0, 8.0, 9.0, 0.0]);
        let voted = f.apply_voted(&new).unwrap();
        assert_eq!(voted.schema().categorical_levels()[3], Some(2));
        assert_eq!(f.learned(&voted).unwrap().schema(), out.schema());
        f.validate(ds.schema()).unwrap();
    }

    #[test]
    fn one_hot_groups_and_codes_take_their_most_frequent_level() {
        let mut schema = Schema::numeric(
            vec!["c=a".into(), "c=b".into(), "k".into()],
            vec!["n".into(), "p".into()],
        );
        schema.encodings = vec![
            ColumnEncoding::OneHot {
                name: "c".into(),
                levels: vec!["a".into(), "b".into()],
            },
            ColumnEncoding::Categorical {
                name: "k".into(),
                levels: vec!["u".into(), "v".into()],
            },
        ];
        let x = vec![
            0.0, 1.0, 1.0, //
            NAN, NAN, 1.0, //
            0.0, 1.0, NAN, //
            1.0, 0.0, 0.0,
        ];
        let ds = Dataset::new(x, vec![0, 1, 0, 1], schema).unwrap();
        for strategy in [ImputeStrategy::Mean, ImputeStrategy::Median] {
            let s = Impute {
                strategy,
                value: None,
                indicator: true,
            };
            let f = s.fit(&ds, None).unwrap();
            assert_eq!(f.fill, vec![0.0, 1.0, 1.0]);
            // One indicator per source column: the group's, then k's.
            assert_eq!(f.indicators, vec![vec![0, 1], vec![2]]);
            assert_eq!(f.feature_names()[3..], ["missing(c)", "missing(k)"]);
        }
    }

    #[test]
    fn bad_parameters_and_empty_columns_are_errors() {
        let ds = table(vec![vec![1.0, NAN], vec![2.0, NAN]], vec![0, 1]);
        let e = Impute::default().fit(&ds, None).unwrap_err().to_string();
        assert!(
            e.contains("column 'x1' is missing in every one of the 2 training rows"),
            "{e}"
        );
        let c = Impute {
            strategy: ImputeStrategy::Constant,
            value: None,
            indicator: false,
        };
        let e = c.fit(&ds, None).unwrap_err().to_string();
        assert!(e.contains("needs the constant"), "{e}");
        let c = Impute {
            strategy: ImputeStrategy::Constant,
            value: Some(0.5),
            indicator: false,
        };
        assert_eq!(c.fit(&ds, None).unwrap().fill, vec![0.5, 0.5]);
        let m = Impute {
            strategy: ImputeStrategy::Mean,
            value: Some(1.0),
            indicator: false,
        };
        assert!(m
            .check()
            .unwrap_err()
            .to_string()
            .contains("strategy=constant"));
    }
}
