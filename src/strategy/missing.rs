//! Which strategies take missing values (NaN features), checked before any
//! work (issue 52): a strategy takes them when it imputes them first
//! (`impute(...)+...`, [`crate::data::impute`]), or when its learner learns
//! where they go ([`Learner::handles_missing`](crate::learn::Learner)) and
//! its sampler stage, if any, draws rows without measuring distances on
//! their values ([`Sampler::handles_missing`](crate::sample::Sampler)). A
//! categorical column that `encode(target)` encodes takes a missing level
//! too: it is given the prior, as an unseen one. Anything else is refused
//! with what to add, before the first fit; a fitted strategy refuses the
//! rows it cannot score in the same words.

use super::{FittedStrategy, Strategy};
use crate::data::target_encode::Columns;
use crate::data::{ColumnEncoding, Dataset};
use crate::error::{Error, Result};

impl Strategy {
    /// Whether the strategy takes missing values in every feature: an
    /// `impute(...)` stage, or a learner that handles them with a sampler
    /// stage (if any) that does too.
    ///
    /// ```
    /// let t = |s: &str| rarity::spec::build_strategy(s).unwrap().takes_missing();
    /// assert!(t("impute(median)+logistic") && t("impute(mean)+smote+knn"));
    /// assert!(!t("logistic") && !t("smote+logistic"));
    /// ```
    pub fn takes_missing(&self) -> bool {
        self.impute.is_some() || self.missing_obstacle().is_none()
    }

    /// What keeps the strategy, without an imputation, from taking missing
    /// values (`None`: nothing does): its sampler stage or its learner.
    fn missing_obstacle(&self) -> Option<String> {
        if let Some(s) = self.sampler.as_ref().filter(|s| !s.handles_missing()) {
            return Some(format!(
                "the sampler {} measures distances between rows, which a missing value leaves \
                 undefined",
                s.name()
            ));
        }
        (!self.learner.handles_missing()).then(|| {
            format!(
                "the learner {} does not learn where missing values go",
                self.learner.name()
            )
        })
    }

    /// Why the strategy cannot take missing values, and the stage that
    /// would let it (`None`: it takes them): the message of every refusal.
    ///
    /// ```
    /// let s = rarity::spec::build_strategy("smote+logistic").unwrap();
    /// let why = s.missing_refusal().unwrap();
    /// assert!(why.contains("impute(median)+smote+logistic"), "{why}");
    /// ```
    pub fn missing_refusal(&self) -> Option<String> {
        if self.impute.is_some() {
            return None;
        }
        let obstacle = self.missing_obstacle()?;
        Some(format!(
            "{}: {obstacle}; add an imputation first, e.g. impute(median)+{} (strategy=mean, \
             most_frequent or constant; indicator=true adds a 0/1 column per column with \
             holes), or drop the incomplete rows (--missing drop; missing='drop' in Python)",
            self.spec, self.spec
        ))
    }

    /// Fails, before any fitting, when a feature of `data` has no value in
    /// any row, or when a row misses a value the strategy cannot take
    /// ([`Strategy::missing_refusal`]; a missing level of a column its
    /// encoding encodes is taken).
    pub fn check_missing(&self, data: &Dataset) -> Result<()> {
        if data.first_missing().is_none() {
            return Ok(());
        }
        let counts = data.missing_counts();
        let names = data.feature_names();
        if let Some(j) = (0..counts.len()).find(|&j| counts[j] == data.n_rows()) {
            return Err(Error::data(format!(
                "column '{}' is missing in every one of the {} rows, so nothing can be learned \
                 from it; leave it out (--drop {})",
                names[j],
                data.n_rows(),
                names[j]
            )));
        }
        let Some(why) = self.missing_refusal() else {
            return Ok(());
        };
        let encoded = self.encoded_columns(data);
        let sampler_ok = self.sampler.as_ref().is_none_or(|s| s.handles_missing());
        let refused = (0..counts.len())
            .find(|&j| counts[j] > 0 && !(sampler_ok && encoded.contains(&names[j])));
        let Some(j) = refused else {
            return Ok(());
        };
        let row = (0..data.n_rows())
            .find(|&i| data.value(i, j).is_nan())
            .unwrap_or(0);
        Err(Error::invalid(format!(
            "column '{}' has {} missing value(s) (the first in row {row}, counting from 0); {why}",
            names[j], counts[j]
        )))
    }

    /// The categorical features of `data` its encoding gives a value to
    /// whatever their level (an `encode(target)` stage, or the columns
    /// `data` is marked to encode).
    fn encoded_columns(&self, data: &Dataset) -> Vec<String> {
        let Some(cols) = self.encoding_for(data).map(|e| e.cols) else {
            return Vec::new();
        };
        (data.schema().categorical_names().into_iter())
            .filter(|n| match &cols {
                Columns::All => true,
                Columns::Only(names) => names.contains(n),
                Columns::AllBut(names) => !names.contains(n),
            })
            .collect()
    }
}

impl FittedStrategy {
    /// Whether every member reads its rows through an `impute(...)` stage.
    fn imputes(&self) -> bool {
        self.members.iter().all(|m| m.imputer.is_some())
    }

    /// Per encoding of the schema (source column), whether a row missing
    /// its value can be scored: the learner takes missing values, the
    /// members impute them, or the column is categorical (level codes): a
    /// missing level is then a level no split holds, as it always was for
    /// native splits (it goes with the levels outside each set), and the
    /// prior for `encode(target)`, so that older model files predict as
    /// they did.
    pub fn missing_columns(&self) -> Vec<bool> {
        let all = self.learner_takes_missing || self.imputes();
        self.schema
            .encodings
            .iter()
            .map(|e| all || matches!(e, ColumnEncoding::Categorical { .. }))
            .collect()
    }

    /// Fails when a row of `data` misses a numeric or one-hot value the
    /// model cannot take ([`FittedStrategy::missing_columns`]), naming the
    /// row (counting from 0) and the column. A categorical feature's NaN
    /// code is a missing or an unseen level alike, which the readers tell
    /// apart and police (`PredictOptions::missing_ok`, `--unknown`).
    pub fn check_missing(&self, data: &Dataset) -> Result<()> {
        if self.learner_takes_missing || self.imputes() || data.first_missing().is_none() {
            return Ok(());
        }
        let counts = data.missing_counts();
        let ok = self.missing_columns();
        let columns = &self.schema.encodings;
        let names = data.feature_names();
        let codes = data.schema().categorical_levels();
        for (j, &c) in counts.iter().enumerate() {
            if codes[j].is_some() {
                continue;
            }
            let column = columns.iter().position(|e| match e {
                ColumnEncoding::OneHot { name, .. } => names[j].starts_with(&format!("{name}=")),
                e => e.name() == names[j],
            });
            if c == 0 || column.is_some_and(|k| ok[k]) {
                continue;
            }
            let row = (0..data.n_rows())
                .find(|&i| data.value(i, j).is_nan())
                .unwrap_or(0);
            return Err(Error::data(format!(
                "row {row} (counting from 0), feature '{}' is missing (NaN), and {} cannot \
                 take missing values there (a prediction is owed for every row): fit it with \
                 an impute(...) stage first, or with a learner that learns where missing \
                 values go",
                names[j], self.spec
            )));
        }
        Ok(())
    }
}
