//! What a fitted strategy read from a model file must mean, checked when it
//! is loaded whatever its format version ([`Persist::validate`]): the
//! schema (class names non-empty and distinct, feature and level names
//! distinct), the priors (a distribution, every class present), each
//! member (its model's own check, shape and keep rates, its calibrator,
//! imputation and encoding), the prior shift, the decision rule, the fit
//! record, the training summary (its counts against the schema), and the
//! spec, which must name the stages the file holds: its
//! learner one that fits the members' kind of model
//! ([`crate::learn::ModelKind::made_by`]), `impute`, `encode`, `correct`,
//! a calibration and a prior shift exactly where the file has them. Each
//! failure says what is wrong.

use super::{FittedStrategy, Member};
use crate::calibrate::PriorShift;
use crate::check::{self, Checked};
use crate::data::{ColumnEncoding, Schema};
use crate::decide::registry::{build_stage, Stage};
use crate::decide::Rule;
use crate::metrics::profile::ColumnShape;
use crate::params::syntax;
use crate::persist::{model_kind, Persist, FORMAT_VERSION, PLAIN_VERSION};
use crate::sample::registry::is_sampler;

impl Persist for FittedStrategy {
    fn validate(&self) -> Checked {
        let k = self.schema.class_names.len();
        check_schema(&self.schema)?;
        if self.members.is_empty() {
            return Err("no fitted model".into());
        }
        check::len("priors", self.priors.len(), k)?;
        check::positive("training prior", &self.priors)?;
        check::probability_rows("training priors", &self.priors, k)?;
        for (i, m) in self.members.iter().enumerate() {
            self.check_member(m).map_err(|e| match self.members.len() {
                1 => e,
                _ => format!("member {i}: {e}"),
            })?;
        }
        if let Some(s) = &self.shift {
            check::len("prior shift source priors", s.source.len(), k)?;
            check::positive("prior shift source prior", &s.source)?;
            match &s.shift {
                PriorShift::To(t) => {
                    check::len("target priors", t.len(), k)?;
                    check::positive("target prior", t)?;
                    check::probability_rows("target priors", t, k)?;
                }
                PriorShift::Em { tol, max_iter } => {
                    check::positive("em tolerance", &[*tol])?;
                    if *max_iter == 0 {
                        return Err("em: max_iter is 0".into());
                    }
                }
            }
        }
        self.rule.validate(k).map_err(|e| e.to_string())?;
        if let Rule::Benefit(b) = &self.rule {
            if !self.schema.feature_names.contains(&b.amount) {
                return Err(format!(
                    "the benefit rule's amount column '{}' is not a feature",
                    b.amount.escape_debug()
                ));
            }
        }
        if let Some(f) = &self.fit {
            check::non_negative("fit seconds", &[f.seconds])?;
        }
        if let Some(t) = &self.training {
            let shapes: Vec<ColumnShape> = (self.schema.encodings.iter())
                .map(|e| match e {
                    ColumnEncoding::Numeric { .. } => ColumnShape::Numeric,
                    ColumnEncoding::OneHot { levels, .. }
                    | ColumnEncoding::Categorical { levels, .. } => {
                        ColumnShape::Levels(levels.len())
                    }
                })
                .collect();
            t.check_summary(&shapes, k).map_err(|e| e.to_string())?;
        }
        self.check_spec()
            .map_err(|e| format!("its spec '{}' {e}", self.spec.escape_debug()))
    }

    fn format_version(&self) -> u16 {
        match self.training {
            Some(_) => FORMAT_VERSION,
            None => PLAIN_VERSION,
        }
    }
}

/// Class names non-empty and distinct (they head the probability columns),
/// feature names and source columns distinct, each column's levels
/// distinct.
fn check_schema(schema: &Schema) -> Checked {
    if schema.class_names.len() < 2 {
        return Err(format!(
            "{} class names; a model separates at least two classes",
            schema.class_names.len()
        ));
    }
    check::names("class name", &schema.class_names)?;
    check::distinct("feature name", &schema.feature_names)?;
    let columns: Vec<String> = schema
        .encodings
        .iter()
        .map(|e| e.name().to_string())
        .collect();
    check::distinct("source column", &columns)?;
    for e in &schema.encodings {
        if let ColumnEncoding::OneHot { name, levels }
        | ColumnEncoding::Categorical { name, levels } = e
        {
            check::distinct(&format!("column '{}': level", name.escape_debug()), levels)?;
        }
    }
    Ok(())
}

impl FittedStrategy {
    /// One member: its model's own check, the model's shape against the
    /// schema (through its encoding), its keep rates, its calibrator.
    fn check_member(&self, m: &Member) -> Checked {
        let k = self.schema.class_names.len();
        m.model.validate()?;
        if m.model.n_classes() != k || m.keep_rates.len() != k {
            return Err(format!(
                "class counts disagree: schema {k}, model {}, keep rates {}",
                m.model.n_classes(),
                m.keep_rates.len()
            ));
        }
        check::non_negative("keep rate", &m.keep_rates)?;
        let imputed = match &m.imputer {
            Some(i) => {
                i.validate(&self.schema)?;
                &i.schema
            }
            None => &self.schema,
        };
        let features = match &m.encoding {
            Some(e) => {
                e.validate(imputed)?;
                e.feature_names().len()
            }
            None => imputed.feature_names.len(),
        };
        if m.model.n_features() != features {
            return Err("the model's feature count differs from the schema's".into());
        }
        match &m.calibrator {
            Some(c) => c.validate(k),
            None => Ok(()),
        }
    }

    /// The spec against what the file holds (see the module docs); the
    /// error completes "its spec '...'".
    fn check_spec(&self) -> Checked {
        let stages = syntax::parse(&self.spec).map_err(|e| format!("does not parse: {e}"))?;
        let mut rest = stages.iter().peekable();
        let impute = rest.next_if(|c| c.name == "impute").is_some();
        let encode = rest.next_if(|c| c.name == "encode").is_some();
        let learner = match rest.next() {
            Some(c) if is_sampler(&c.name) => rest.next(),
            c => c,
        }
        .ok_or("names no learner")?;
        for m in &self.members {
            let kind = m.model.kind();
            let makers = model_kind(kind).map_or(&[][..], |k| k.made_by);
            if !makers.contains(&learner.name.as_str()) {
                return Err(format!(
                    "names the learner '{}', but the file holds a {kind} model, which {} fit",
                    learner.name.escape_debug(),
                    makers.join(", ")
                ));
            }
            if encode && m.encoding.is_none() {
                return Err("names encode(target), but the file holds no encoding".into());
            }
            if impute != m.imputer.is_some() {
                return Err(format!(
                    "{} impute(...), but the file holds {} imputation",
                    if impute { "names" } else { "does not name" },
                    if m.imputer.is_some() { "an" } else { "no" }
                ));
            }
        }
        let (mut correct, mut calibration, mut shift) = (None, None, None);
        for call in rest {
            match build_stage(call).map_err(|e| format!("names a stage that is not one: {e}"))? {
                Stage::Correct(mode) => correct = Some(mode),
                Stage::Calibrate(c) => calibration = Some(c),
                Stage::Shift(s) => shift = Some(s),
                Stage::Decide(_) => {}
                Stage::Encode(_) => return Err("names encode(...) after the learner".into()),
                Stage::Impute(_) => return Err("names impute(...) after the learner".into()),
            }
        }
        if correct != self.correct {
            return Err(format!(
                "says correct is {:?}, but the file holds {:?}",
                correct, self.correct
            ));
        }
        let calibrated = self
            .members
            .iter()
            .filter(|m| m.calibrator.is_some())
            .count();
        let methods_agree = self
            .members
            .iter()
            .all(|m| m.calibrator.as_ref().map(|c| c.method()) == calibration.map(|c| c.method));
        let folds = calibration.is_some_and(|c| c.ensemble);
        if !methods_agree || (calibration.is_some() && calibrated != self.members.len()) {
            return Err("names a calibration that the file's calibrators do not match".into());
        }
        if self.members.len() > 1 && !folds {
            return Err(format!(
                "fits one model, but the file holds {} (one per fold is platt(ensemble=true)'s or \
                 isotonic(ensemble=true)'s)",
                self.members.len()
            ));
        }
        if shift.as_ref() != self.shift.as_ref().map(|s| &s.shift) {
            return Err("names a prior shift other than the file's".into());
        }
        Ok(())
    }
}
