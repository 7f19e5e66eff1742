//! The `encode(target, folds, smooth)` stage of a strategy (issue 41 item
//! 3): every categorical feature (level codes,
//! [`ColumnEncoding::Categorical`]) replaced by its target statistics
//! ([`crate::data::target_stats`]), one column per class beyond the first,
//! so that any learner can use categorical columns.
//!
//! **Names.** A categorical column `merchant` of a task with classes
//! `(legit, fraud)` becomes the feature `merchant=p(fraud)`, the shrunk
//! estimate of p(fraud | merchant); with classes `(a, b, c)` it becomes
//! `merchant=p(b)` and `merchant=p(c)`, in place of the column (the other
//! features keep their order).
//!
//! **Where it sits: after the sampler, before the learner.** The stage is
//! fitted on the rows the learner trains on (the sample, never test rows):
//! the training rows get cross-fitted values (each from the table fitted on
//! the other `folds` folds, Micci-Barreca 2001 with scikit-learn's
//! `TargetEncoder` cross-fitting), new rows the table fitted on all of them,
//! and every row is weighted by 1 / (its class's keep rate), so that on an
//! undersampled sample the statistic estimates the population's rate, not
//! the sample's (inflated by about 1/beta, as the model's probabilities are;
//! Dal Pozzolo et al. 2015's correction applied to the statistic); a row
//! with a weight of its own (`sample_weight=`) counts that many times more. Encoding
//! the sample rather than the data before sampling keeps the learner's rows
//! and the statistic's rows the same (a synthetic row of SMOTE gets the
//! value of the level it copied, cross-fitted with the sample), and makes a
//! strategy fitted on a sample drawn while a file streams
//! (`Strategy::fit_sampled`, `Strategy::fit_drawn`) the very model the
//! whole-data fit gives: only the sample and its keep rates are ever needed.
//!
//! **Which columns.** By default every categorical feature; `cols=`
//! (`encode(target, cols=[merchant, mcc])`, `--categorical-cols
//! merchant=target`) names the ones to encode, and the others stay level
//! codes for a learner with native categorical splits.
//!
//! Prediction: a level the tables do not hold (unseen in training, or
//! missing: a NaN code) gets the prior, the weighted class rates of the
//! training rows.

use serde::{Deserialize, Serialize};

use crate::data::target_stats::{cross_fit, Column, LevelTable, Smooth};
use crate::data::{ColumnEncoding, Dataset, Schema};
use crate::error::{Error, Result};

/// The stage as built from its spec: `encode(target, folds=5, smooth=auto)`.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetEncode {
    /// Folds of the cross-fit of the training rows' values.
    pub folds: usize,
    /// Shrinkage of each level's rate toward the prior.
    pub smooth: Smooth,
    /// The categorical features it encodes.
    pub cols: Columns,
}

/// The categorical features an encode stage encodes.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Columns {
    /// Every one.
    #[default]
    All,
    /// Those named (`cols=[merchant, mcc]`); each must be categorical.
    Only(Vec<String>),
    /// Every one but those named (`--categorical target` with
    /// `--categorical-cols channel=native`).
    AllBut(Vec<String>),
}

impl Default for TargetEncode {
    fn default() -> Self {
        TargetEncode {
            folds: 5,
            smooth: Smooth::Auto,
            cols: Columns::All,
        }
    }
}

/// One encoded feature: its index among the source features and its table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EncodedColumn {
    /// The categorical feature's index in the data given to the strategy.
    pub feature: usize,
    /// Its fitted level table (the prior for unseen or missing levels).
    pub table: LevelTable,
}

/// The fitted stage: the level tables and the schema of the encoded data
/// (what the learner was fitted on).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FittedEncoding {
    /// The stage as spec text, for `rarity show`.
    pub stage: String,
    /// The categorical features encoded, in feature order.
    pub columns: Vec<EncodedColumn>,
    /// Feature names and encodings of the encoded data.
    pub schema: Schema,
}

impl TargetEncode {
    /// The stage as spec text (parsed back to the same stage).
    ///
    /// ```
    /// use rarity::data::target_encode::{Columns, TargetEncode};
    /// assert_eq!(TargetEncode::default().to_text(), "encode(target,folds=5,smooth=auto)");
    /// let only = TargetEncode { cols: Columns::Only(vec!["mcc".into()]), ..Default::default() };
    /// assert_eq!(only.to_text(), "encode(target,folds=5,smooth=auto,cols=[mcc])");
    /// ```
    pub fn to_text(&self) -> String {
        let smooth = match self.smooth {
            Smooth::Auto => "auto".to_string(),
            Smooth::Count(m) => crate::params::number_text(m),
        };
        let cols = match &self.cols {
            Columns::Only(names) => format!(",cols={}", names_text(names)),
            Columns::All | Columns::AllBut(_) => String::new(),
        };
        format!("encode(target,folds={},smooth={smooth}{cols})", self.folds)
    }

    /// The categorical features of `schema` this stage encodes, as
    /// `(feature index, levels)`; an error when it names a feature that is
    /// not categorical, or there is none to encode.
    fn selected(&self, schema: &Schema) -> Result<Vec<(usize, usize)>> {
        let levels = schema.categorical_levels();
        let name = |j: usize| schema.feature_names[j].as_str();
        if let Columns::Only(names) = &self.cols {
            if let Some(n) = names
                .iter()
                .find(|n| !(0..levels.len()).any(|j| levels[j].is_some() && name(j) == n.as_str()))
            {
                return Err(Error::invalid(format!(
                    "{}: '{n}' is not a categorical column of the data (categorical columns: {})",
                    self.to_text(),
                    schema.categorical_names().join(", ")
                )));
            }
        }
        let wanted = |j: usize| match &self.cols {
            Columns::All => true,
            Columns::Only(names) => names.iter().any(|n| n == name(j)),
            Columns::AllBut(names) => !names.iter().any(|n| n == name(j)),
        };
        let cats: Vec<(usize, usize)> = (levels.iter().enumerate())
            .filter_map(|(j, l)| l.filter(|_| wanted(j)).map(|l| (j, l)))
            .collect();
        if cats.is_empty() {
            return Err(Error::invalid(format!(
                "{}: the data has no categorical column to encode (read text columns as \
                 categories with --categorical target or native, or name them with \
                 --categorical-cols)",
                self.to_text()
            )));
        }
        Ok(cats)
    }

    /// The stage as fitted on `schema`: `cols=` the features it encodes,
    /// unless that is every categorical one.
    fn fitted_text(&self, schema: &Schema, cats: &[(usize, usize)]) -> String {
        let all = schema.categorical_names();
        let names: Vec<String> = cats
            .iter()
            .map(|&(j, _)| schema.feature_names[j].clone())
            .collect();
        let cols = if names == all {
            Columns::All
        } else {
            Columns::Only(names)
        };
        TargetEncode {
            cols,
            ..self.clone()
        }
        .to_text()
    }

    /// Fits the stage on `train`, the rows the learner trains on, whose
    /// classes were kept at `keep_rates` (all 1 without sampling); `seed`
    /// draws the cross-fit's folds. Returns the encoded training rows
    /// (cross-fitted values) and the fitted tables (for new rows).
    pub fn fit(
        &self,
        train: &Dataset,
        keep_rates: &[f64],
        seed: u64,
    ) -> Result<(Dataset, FittedEncoding)> {
        let cats = self.selected(train.schema())?;
        let class_weight: Vec<f64> = keep_rates.iter().map(|r| 1.0 / r).collect();
        let n = train.n_rows();
        let mut values = Vec::with_capacity(cats.len());
        let mut columns = Vec::with_capacity(cats.len());
        for &(j, levels) in &cats {
            let codes: Vec<f64> = (0..n).map(|i| train.value(i, j)).collect();
            let col = Column {
                codes: &codes,
                labels: train.labels(),
                levels,
                class_weight: &class_weight,
                row_weight: train.weights(),
            };
            let (oof, table) = cross_fit(&col, self.folds, self.smooth, seed)?;
            values.push(oof);
            columns.push(EncodedColumn { feature: j, table });
        }
        let fitted = FittedEncoding {
            stage: self.fitted_text(train.schema(), &cats),
            schema: encoded_schema(train.schema(), &cats),
            columns,
        };
        let width = fitted.width();
        let encoded = fitted.build(train, |c, i| &values[c][i * width..(i + 1) * width])?;
        Ok((encoded, fitted))
    }
}

/// The schema of the encoded data: each categorical feature `(index,
/// levels)` of `cats` replaced by numeric features `name=p(class)`, one per
/// class beyond the first (the other categorical features stay codes).
fn encoded_schema(raw: &Schema, cats: &[(usize, usize)]) -> Schema {
    let classes = &raw.class_names[1.min(raw.class_names.len())..];
    let mut names = Vec::new();
    for (j, f) in raw.feature_names.iter().enumerate() {
        if cats.iter().any(|&(c, _)| c == j) {
            names.extend(classes.iter().map(|k| format!("{f}=p({k})")));
        } else {
            names.push(f.clone());
        }
    }
    let encoded = |name: &str| cats.iter().any(|&(c, _)| raw.feature_names[c] == name);
    let mut encodings = Vec::new();
    for e in &raw.encodings {
        match e {
            ColumnEncoding::Categorical { name, .. } if encoded(name) => {
                encodings.extend(classes.iter().map(|k| ColumnEncoding::Numeric {
                    name: format!("{name}=p({k})"),
                }))
            }
            other => encodings.push(other.clone()),
        }
    }
    Schema {
        feature_names: names,
        class_names: raw.class_names.clone(),
        encodings,
        target_name: raw.target_name.clone(),
    }
}

impl FittedEncoding {
    /// Values per encoded feature: the classes beyond the first.
    fn width(&self) -> usize {
        self.schema.class_names.len().saturating_sub(1)
    }

    /// `data` (the strategy's features: level codes) with each categorical
    /// feature replaced by its table's values; an unseen or missing level
    /// gets the prior.
    pub fn apply(&self, data: &Dataset) -> Result<Dataset> {
        let raw = data.n_features();
        let expected = self.schema.feature_names.len() + self.columns.len()
            - self.columns.len() * self.width();
        if raw != expected {
            return Err(Error::data(format!(
                "{}: the data has {raw} features, the encoding was fitted on {expected}",
                self.stage
            )));
        }
        self.build(data, |c, i| {
            self.columns[c]
                .table
                .value(data.value(i, self.columns[c].feature))
        })
    }

    /// `data` with the values of encoded column `c` at row `i` given by
    /// `value(c, i)`.
    fn build<'a>(
        &self,
        data: &Dataset,
        value: impl Fn(usize, usize) -> &'a [f64],
    ) -> Result<Dataset> {
        let d = self.schema.feature_names.len();
        let mut x = Vec::with_capacity(data.n_rows() * d);
        for i in 0..data.n_rows() {
            let row = data.row(i);
            let mut next = 0;
            for (c, col) in self.columns.iter().enumerate() {
                x.extend_from_slice(&row[next..col.feature]);
                x.extend_from_slice(value(c, i));
                next = col.feature + 1;
            }
            x.extend_from_slice(&row[next..]);
        }
        let encoded = Dataset::new(x, data.labels().to_vec(), self.schema.clone())?;
        match data.weights() {
            Some(w) => encoded.with_weights(w.to_vec()),
            None => Ok(encoded),
        }
    }

    /// Checks a loaded encoding against the schema of the data it reads
    /// (`raw`): each column a categorical feature of it, tables of the
    /// right width, the encoded schema's size.
    pub fn validate(&self, raw: &Schema) -> std::result::Result<(), String> {
        let levels = raw.categorical_levels();
        let width = raw.class_names.len().saturating_sub(1);
        for c in &self.columns {
            let t = &c.table;
            if levels.get(c.feature).copied().flatten().is_none()
                || t.width != width
                || t.prior.len() != width
                || (width > 0 && t.values.len() % width != 0)
            {
                return Err(format!(
                    "{}: an encoded column does not match the schema's categorical features",
                    self.stage
                ));
            }
        }
        for c in &self.columns {
            crate::check::unit(&format!("{}: level statistic", self.stage), &c.table.values)?;
            crate::check::unit(&format!("{}: prior statistic", self.stage), &c.table.prior)?;
        }
        if self.schema.feature_names.len() + self.columns.len()
            != raw.feature_names.len() + self.columns.len() * width
            || self.schema.class_names != raw.class_names
        {
            return Err(format!(
                "{}: the encoded features do not match the schema",
                self.stage
            ));
        }
        Ok(())
    }

    /// The stage and what it made of each column, for `rarity show`:
    /// `encode(target,folds=5,smooth=auto): merchant (1200 levels) ->
    /// merchant=p(fraud)` (`raw`: the schema of the data it reads).
    pub fn describe(&self, raw: &Schema) -> String {
        let width = self.width();
        let cols: Vec<String> = self
            .columns
            .iter()
            .enumerate()
            .map(|(c, col)| {
                let name = &raw.feature_names[col.feature];
                let at = col.feature + c * width.saturating_sub(1);
                let levels = col.table.values.len() / width.max(1);
                format!(
                    "{name} ({levels} levels) -> {}",
                    self.schema.feature_names[at..at + width].join(", ")
                )
            })
            .collect();
        format!("{}: {}", self.stage, cols.join("; "))
    }

    /// The encoded features' names, in the order the learner reads them.
    pub fn feature_names(&self) -> &[String] {
        &self.schema.feature_names
    }
}

/// Names as a spec list: `[merchant,mcc]` (a name that is not a plain word
/// quoted).
fn names_text(names: &[String]) -> String {
    use crate::params::ParamType;
    names.to_vec().to_text()
}
