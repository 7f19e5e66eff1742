//! A fitted strategy as an ONNX model (`rarity export`), for the systems
//! that score outside rarity (ONNX Runtime, Triton, the JVM and .NET
//! runtimes).
//!
//! At scoring time a sampler is the identity and everything after the
//! learner is a closed-form function of the probabilities, so the whole
//! strategy is one graph: input `X` (`[N, d]`, double, the model's feature
//! columns in its order), each member's learner
//! ([`crate::learn::Classifier::to_onnx`]), the prior correction of Dal
//! Pozzolo et al. (2015, eq. 9; per member or on the average), the
//! calibrator, the average of the members, the move to known priors, and
//! the decision rule (for a corrected threshold, eq. 12's, resolved when
//! the model was fitted). Outputs: `probabilities` (`[N, K]`, double, the
//! columns `p_<class>` of `rarity predict`) and `label` (`[N]`, the
//! decided class's name). Every step is written in double precision
//! operation by operation as rarity computes it, so ONNX Runtime's
//! probabilities equal rarity's up to summation order.
//!
//! What is not a function of one row (`+em` estimates the priors from the
//! batch) or has no graph yet is refused with the list of what is covered.

use serde_json::json;

use crate::calibrate::{onnx as cal, Correction, PriorShift};
use crate::data::ColumnEncoding;
use crate::ensemble::BaggedModel;
use crate::error::{Error, Result};
use crate::onnx::{self, DataType, Dim, Graph, Tensor, Value};
use crate::strategy::{sample_rates, FittedShift, FittedStrategy, Member};

/// What the export covers (named in its errors).
pub const COVERED: &str = "learners tree, forest, balanced-forest, rdt, gbdt, adaboost, adac2, \
     rusboost, logitboost, logistic, lda, qda, gnb, and bagging ensembles of them (bagging, \
     pt-bagging, eb-/rb-/smote-/underover-bagging, easy-ensemble; tree members for a hard vote or \
     +correct(mode=member)); stages +correct, +platt, +isotonic, +priors(...); every decision \
     (argmax, threshold(...), lambda(...), cost(...), benefit(...), tuned thresholds)";

/// The ONNX model of `model`: its bytes (the same model gives the same
/// bytes).
pub fn to_onnx(model: &FittedStrategy) -> Result<Vec<u8>> {
    check_features(model)?;
    let schema = &model.schema;
    let (d, k) = (schema.feature_names.len(), schema.class_names.len());
    let refuse = |what: String| {
        Error::invalid(format!(
            "{} cannot be exported to ONNX: {what} are not covered; the export covers {COVERED}",
            model.spec
        ))
    };
    let mut g = Graph::new();
    let rows = Dim::Named("N".into());
    let x = g.input("X", DataType::Double, &[rows.clone(), Dim::Fixed(d as i64)]);
    let mut sum: Option<Value> = None;
    for m in &model.members {
        let p = member_proba(&mut g, &x, m, model.correct).map_err(refuse)?;
        sum = Some(match sum {
            Some(s) => g.add(&s, &p),
            None => p,
        });
    }
    let mut p = sum.ok_or_else(|| Error::invalid("the model has no fitted member"))?;
    if model.members.len() > 1 {
        let n = g.scalar(model.members.len() as f64);
        let mean = g.div(&p, &n);
        p = onnx::normalise_rows(&mut g, &mean, k);
    }
    if let Some(shift) = &model.shift {
        p = shift_proba(&mut g, &p, shift).map_err(refuse)?;
    }
    let amounts = match &model.rule {
        crate::decide::Rule::Benefit(b) => {
            let j = schema
                .feature_names
                .iter()
                .position(|f| *f == b.amount)
                .ok_or_else(|| {
                    Error::invalid(format!(
                        "the benefit rule's amount column '{}' is not a feature of the model",
                        b.amount
                    ))
                })?;
            Some(g.columns(&x, j, j + 1))
        }
        _ => None,
    };
    let decided = model
        .rule
        .to_onnx(&mut g, &p, amounts.as_ref())
        .map_err(refuse)?;
    let names = g.constant(Tensor::Strings(vec![k as i64], schema.class_names.clone()));
    let label = g.op("Gather", &[&names, &decided], &[]);
    g.output(
        &p,
        "probabilities",
        DataType::Double,
        &[rows.clone(), Dim::Fixed(k as i64)],
    );
    g.output(&label, "label", DataType::String, &[rows]);
    let keep_rates: Vec<&Vec<f64>> = model.members.iter().map(|m| &m.keep_rates).collect();
    let metadata = [
        ("rarity_version", env!("CARGO_PKG_VERSION").to_string()),
        ("strategy", model.spec.clone()),
        ("features", json!(schema.feature_names).to_string()),
        ("classes", json!(schema.class_names).to_string()),
        ("keep_rates", json!(keep_rates).to_string()),
        ("decision", model.rule.to_string()),
        ("priors", json!(model.priors).to_string()),
    ];
    Ok(g.into_model("rarity", env!("CARGO_PKG_VERSION"), &metadata))
}

/// Refuses a model whose features include text columns (one-hot encoded
/// by rarity's reader, which the graph's numeric input cannot carry).
fn check_features(model: &FittedStrategy) -> Result<()> {
    let text: Vec<&str> = model
        .schema
        .encodings
        .iter()
        .filter(|e| matches!(e, ColumnEncoding::OneHot { .. }))
        .map(ColumnEncoding::name)
        .collect();
    if text.is_empty() {
        return Ok(());
    }
    Err(Error::invalid(format!(
        "{} cannot be exported to ONNX: its features include the text column{} {}, which the \
         graph's numeric input X cannot carry; encode {} as numbers before fitting, or leave {} \
         out with --drop",
        model.spec,
        if text.len() == 1 { "" } else { "s" },
        text.join(", "),
        if text.len() == 1 { "it" } else { "them" },
        if text.len() == 1 { "it" } else { "them" },
    )))
}

/// One member's probabilities: the learner's, corrected as
/// `strategy::corrected_proba` corrects them, then calibrated.
fn member_proba(
    g: &mut Graph,
    x: &Value,
    m: &Member,
    correct: Option<Correction>,
) -> std::result::Result<Value, String> {
    let model = &m.model;
    let mut p = match correct {
        None => model.to_onnx(g, x)?,
        Some(mode) => {
            let mut rates = m.keep_rates.clone();
            if let Some(w) = model.class_weights() {
                rates.iter_mut().zip(w).for_each(|(r, w)| *r *= w);
            }
            let p = match (model.downcast_ref::<BaggedModel>(), mode) {
                (Some(b), Correction::Member) => {
                    let hook = |_: usize, member: &[f64], p: &mut [f64]| {
                        let r: Vec<f64> = member.iter().map(|m| m.max(f64::MIN_POSITIVE)).collect();
                        crate::calibrate::prior::correct_row(p, &r);
                    };
                    b.to_onnx_with(g, x, Some(&hook))?
                }
                (Some(_), Correction::Average) => {
                    rates = sample_rates(model, &m.keep_rates);
                    model.to_onnx(g, x)?
                }
                _ => model.to_onnx(g, x)?,
            };
            cal::correct_keep_rates(g, &p, &rates)
        }
    };
    if let Some(c) = &m.calibrator {
        p = c.transform_onnx(g, &p);
    }
    Ok(p)
}

/// The move to other priors of `+priors(...)`.
fn shift_proba(g: &mut Graph, p: &Value, s: &FittedShift) -> std::result::Result<Value, String> {
    match &s.shift {
        PriorShift::To(target) => Ok(cal::adjust_to_priors(g, p, &s.source, target)),
        PriorShift::Em { .. } => Err(
            "+em (it estimates the priors from the whole batch being scored, so a row's \
             probability is not a function of that row)"
                .into(),
        ),
    }
}
