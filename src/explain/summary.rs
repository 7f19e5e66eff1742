//! A readable summary of a model file (`rarity show`): the file's format
//! and rarity versions, the strategy spec, the schema (target, source
//! columns and their encodings, features) and class names, the training
//! priors, the keep rates of the sampler stage (Dal Pozzolo et al. 2015:
//! the `r_k` that `+correct` undoes with eq. 9), the correction, the prior
//! shift, the decision rule and its binary threshold (eq. 12 after a
//! correction), the fitted members, and the training rows and fit time
//! (absent from files written before rarity recorded them).

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::calibrate::{CalibrationMethod, PriorShift};
use crate::data::ColumnEncoding;
use crate::error::Result;
use crate::params::ParamType;
use crate::persist::{described, load_described, FileInfo};
use crate::strategy::{FittedStrategy, Member};

/// One source column of the training data.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColumnSummary {
    /// Its name in the source.
    pub name: String,
    /// `numeric` or `one-hot`.
    pub encoding: &'static str,
    /// A one-hot column's levels (empty for a numeric one).
    pub levels: Vec<String>,
}

/// One fitted model of the strategy (one, or one per fold of a calibration
/// ensemble).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemberSummary {
    /// The kind of fitted model (`Tree`, `Bagged`, `Gbdt`, ...).
    pub kind: String,
    /// The members of an ensemble, if it is one.
    pub size: Option<usize>,
    /// The keep rates of its sampler stage, per class.
    pub keep_rates: Vec<f64>,
    /// `platt` or `isotonic` when it has a calibrator.
    pub calibration: Option<&'static str>,
}

/// What a model file holds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelSummary {
    /// Format version, writing rarity version, encoding and size.
    #[serde(flatten)]
    pub file: FileInfo,
    /// The strategy's spec.
    pub spec: String,
    /// The target column of the training data.
    pub target: String,
    /// Its source columns, in source order.
    pub columns: Vec<ColumnSummary>,
    /// The features the model reads (a one-hot column's as `name=level`).
    pub features: Vec<String>,
    /// The `encode(target)` stage, if the strategy has one: the stage and,
    /// per encoded column, its levels and the features it became.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
    /// The `impute(...)` stage, if the strategy has one: the stage and its
    /// indicator features.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub imputation: Option<String>,
    /// What becomes of a row missing a value: `imputed`, `learned` (the
    /// learner takes it), or `refused` (an error; a column that
    /// `encode(target)` encodes still gives a missing level the prior).
    pub missing_values: &'static str,
    /// The class names, in class order.
    pub classes: Vec<String>,
    /// The training class priors.
    pub priors: Vec<f64>,
    /// The sampler stage's keep rates per class (1 without a sampler).
    pub keep_rates: Vec<f64>,
    /// `member` or `average` when `+correct` applies.
    pub correct: Option<String>,
    /// The shift to other priors (`priors(...)`, `em(...)`), if any.
    pub shift: Option<String>,
    /// The decision rule as resolved.
    pub decision: String,
    /// The binary threshold the rule amounts to, if it is one.
    pub threshold: Option<f64>,
    /// The fitted models.
    pub members: Vec<MemberSummary>,
    /// Rows of the training data (`None` in older files).
    pub training_rows: Option<usize>,
    /// Seconds the fit took (`None` in older files).
    pub fit_seconds: Option<f64>,
    /// The rows of the training summary `rarity monitor` compares with
    /// (`rarity fit --summary`; absent, and not written, without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub training_summary: Option<u64>,
}

fn member(m: &Member) -> MemberSummary {
    MemberSummary {
        kind: m.model.kind().to_string(),
        size: m.model.member_keep_rates().map(<[_]>::len),
        keep_rates: m.keep_rates.clone(),
        calibration: m.calibrator.as_ref().map(|c| match c.method() {
            CalibrationMethod::Platt => "platt",
            CalibrationMethod::Isotonic => "isotonic",
        }),
    }
}

fn numbers(v: &[f64]) -> String {
    v.iter().map(f64::to_string).collect::<Vec<_>>().join(",")
}

impl ModelSummary {
    /// The summary of `model`, read from a file that says `file`.
    pub fn of(model: &FittedStrategy, file: FileInfo) -> ModelSummary {
        let s = &model.schema;
        ModelSummary {
            file,
            spec: model.spec.clone(),
            target: s.target_name.clone(),
            columns: s
                .encodings
                .iter()
                .map(|e| match e {
                    ColumnEncoding::Numeric { name } => ColumnSummary {
                        name: name.clone(),
                        encoding: "numeric",
                        levels: Vec::new(),
                    },
                    ColumnEncoding::OneHot { name, levels } => ColumnSummary {
                        name: name.clone(),
                        encoding: "one-hot",
                        levels: levels.clone(),
                    },
                    ColumnEncoding::Categorical { name, levels } => ColumnSummary {
                        name: name.clone(),
                        encoding: "categorical",
                        levels: levels.clone(),
                    },
                })
                .collect(),
            features: s.feature_names.clone(),
            encoding: model.members[0].encoding.as_ref().map(|e| e.describe(s)),
            imputation: model.members[0].imputer.as_ref().map(|i| i.describe()),
            missing_values: if model.members.iter().all(|m| m.imputer.is_some()) {
                "imputed"
            } else if model.learner_takes_missing {
                "learned"
            } else {
                "refused"
            },
            classes: s.class_names.clone(),
            priors: model.priors.clone(),
            keep_rates: model.members[0].keep_rates.clone(),
            correct: model.correct.map(|c| c.to_text()),
            shift: model.shift.as_ref().map(|f| match &f.shift {
                PriorShift::To(p) => format!("priors({})", numbers(p)),
                PriorShift::Em { tol, max_iter } => format!("em(tol={tol},max_iter={max_iter})"),
            }),
            decision: model.rule.to_string(),
            threshold: model.rule.binary_threshold(),
            members: model.members.iter().map(member).collect(),
            training_rows: model.fit.map(|f| f.rows),
            fit_seconds: model.fit.map(|f| f.seconds),
            training_summary: model.training.as_ref().map(|t| t.rows),
        }
    }

    /// The summary of the model file at `path` (a clear error when it is
    /// not a model file of this rarity).
    ///
    /// ```
    /// use rarity::data::{bundled, read::ReadOptions};
    /// use rarity::explain::ModelSummary;
    /// let (ds, _) = bundled::find("ecoli4").unwrap().load(&ReadOptions::default()).unwrap();
    /// let fitted = rarity::spec::build_strategy("under(ratio=1)+forest(n=5)+correct")
    ///     .unwrap().fit(&ds, 1).unwrap();
    /// let path = std::env::temp_dir().join(format!("rarity-show-{}.rarity", std::process::id()));
    /// rarity::persist::save(&fitted, &path, rarity::persist::Format::Binary).unwrap();
    /// let s = ModelSummary::read(&path).unwrap();
    /// assert_eq!((s.file.format_version, s.file.checksum, s.training_rows), (3, true, Some(ds.n_rows())));
    /// assert_eq!(s.members[0].size, Some(5));
    /// assert!(s.keep_rates[0] < 1.0 && s.keep_rates[1] == 1.0);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn read(path: &Path) -> Result<ModelSummary> {
        let (model, file): (FittedStrategy, FileInfo) = load_described(path)?;
        Ok(ModelSummary::of(&model, file))
    }

    /// The summary of a model file's `bytes` (what [`ModelSummary::read`]
    /// gives for a file holding them; `path` only names it in errors).
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<ModelSummary> {
        let (model, file): (FittedStrategy, FileInfo) = described(bytes, path)?;
        Ok(ModelSummary::of(&model, file))
    }

    /// The summary as `key: value` lines.
    pub fn to_text(&self) -> String {
        let opt = |v: Option<String>| v.unwrap_or_else(|| "none".to_string());
        let mut t = String::new();
        let mut line = |k: &str, v: String| {
            let _ = writeln!(t, "{k:<15} {v}");
        };
        line(
            "format",
            format!(
                "version {} ({}, {} bytes), written by rarity {}",
                self.file.format_version,
                self.file.encoding,
                self.file.bytes,
                self.file.rarity_version
            ),
        );
        line(
            "checksum",
            if self.file.checksum {
                "xxh3-64, verified".to_string()
            } else {
                "none (written before model files had one: its integrity cannot be checked; \
                 save it again to add one)"
                    .to_string()
            },
        );
        line("strategy", self.spec.clone());
        line("target", self.target.clone());
        let columns: Vec<String> = self
            .columns
            .iter()
            .map(|c| match c.encoding {
                "one-hot" => format!("{} (one-hot, {} levels)", c.name, c.levels.len()),
                _ => c.name.clone(),
            })
            .collect();
        line("columns", columns.join(", "));
        line("features", self.features.len().to_string());
        if let Some(e) = &self.encoding {
            line("encoding", e.clone());
        }
        if let Some(i) = &self.imputation {
            line("imputation", i.clone());
        }
        line("missing values", self.missing_values.to_string());
        line("classes", self.classes.join(", "));
        line("priors", numbers(&self.priors));
        line("keep rates", numbers(&self.keep_rates));
        line("correct", opt(self.correct.clone()));
        line("shift", opt(self.shift.clone()));
        line("decision", self.decision.clone());
        line("threshold", opt(self.threshold.map(|t| t.to_string())));
        for (i, m) in self.members.iter().enumerate() {
            let mut v = m.kind.clone();
            if let Some(n) = m.size {
                let _ = write!(v, " of {n} members");
            }
            if let Some(c) = m.calibration {
                let _ = write!(v, ", {c} calibrator");
            }
            line(&format!("member {}", i + 1), v);
        }
        line(
            "training rows",
            opt(self.training_rows.map(|r| r.to_string())),
        );
        line(
            "fit time",
            opt(self.fit_seconds.map(|s| format!("{s:.3} s"))),
        );
        if let Some(rows) = self.training_summary {
            line(
                "summary",
                format!("{rows} training rows profiled (rarity monitor's reference)"),
            );
        }
        t
    }
}
