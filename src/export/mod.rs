//! A fitted strategy as an ONNX model (`rarity export`), for the systems
//! that score outside rarity (ONNX Runtime, Triton, the JVM and .NET
//! runtimes).
//!
//! At scoring time a sampler is the identity and everything after the
//! learner is a closed-form function of the probabilities, so the whole
//! strategy is one graph: input `X` (`[N, d]`, double, the model's numeric
//! feature columns in its order; a text column is a string input of its
//! own, one-hot encoded in the graph), each member's learner
//! ([`crate::learn::Classifier::to_onnx`]), the prior correction of Dal
//! Pozzolo et al. (2015, eq. 9; per member or on the average), the
//! calibrator, the average of the members, the move to known priors, and
//! the decision rule (for a corrected threshold, eq. 12's, resolved when
//! the model was fitted; an `encode(target)` stage is one `LabelEncoder`
//! per class beyond the first on each categorical column's string input,
//! keys its levels, values the fitted table's, default the prior). Outputs: `probabilities` (`[N, K]`, double, the
//! columns `p_<class>` of `rarity predict`) and `label` (`[N]`, the
//! decided class's name). Every step is written in double precision
//! operation by operation as rarity computes it, so ONNX Runtime's
//! probabilities equal rarity's up to summation order.
//!
//! A text value is read as rarity's readers read it: without its
//! surrounding ASCII whitespace ([`crate::data::read::trim_text`]), so
//! `'a '` is level `a` in the graph as in `rarity predict` (see
//! [`text_input`]).
//!
//! An `impute(...)` stage is `IsNaN` / `Where` nodes on each member's
//! features, its indicators appended (module `impute`); a text input's
//! missing markers (empty, `?`, `NA`) are NaN in its one-hot columns where
//! the model takes missing values, and a categorical column's LabelEncoder
//! already gives NaN to any text it does not know.
//!
//! What is not a function of one row (`+em` estimates the priors from the
//! batch) or has no graph yet is refused with the list of what is covered.

mod impute;

use serde_json::json;

use crate::calibrate::{onnx as cal, Correction, PriorShift};
use crate::data::ColumnEncoding;
use crate::error::{Error, Result};
use crate::onnx::graph::ML;
use crate::onnx::proto::Attr;
use crate::onnx::{self, DataType, Dim, Graph, Tensor, Value};
use crate::strategy::{correction_rates, FittedShift, FittedStrategy, Member};

/// What the export covers (named in its errors).
pub const COVERED: &str = "learners tree, forest, balanced-forest, rdt, gbdt, adaboost, adac2, \
     rusboost, logitboost, logistic, lda, qda, gnb, and bagging ensembles of them (bagging, \
     pt-bagging, eb-/rb-/smote-/underover-bagging, easy-ensemble; tree members for a hard vote or \
     +correct(mode=member)); stages +correct, +platt, +isotonic, +priors(...); every decision \
     (argmax, threshold(...), lambda(...), cost(...), benefit(...), tuned thresholds); numeric, \
     one-hot and categorical text features, impute(...), encode(target)";

/// The ONNX model of `model`: its bytes (the same model gives the same
/// bytes).
pub fn to_onnx(model: &FittedStrategy) -> Result<Vec<u8>> {
    let schema = &model.schema;
    let k = schema.class_names.len();
    let refuse = |what: String| {
        Error::invalid(format!(
            "{} cannot be exported to ONNX: {what} are not covered; the export covers {COVERED}",
            model.spec
        ))
    };
    let mut g = Graph::new();
    let rows = Dim::Named("N".into());
    let (x, inputs, texts) = features(&mut g, model)?;
    let mut sum: Option<Value> = None;
    for m in &model.members {
        let xm = member_features(&mut g, &x, m, &texts, schema.feature_names.len());
        let p = member_proba(&mut g, &xm, m, model.correct).map_err(refuse)?;
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
        ("inputs", inputs.to_string()),
        ("features", json!(schema.feature_names).to_string()),
        ("classes", json!(schema.class_names).to_string()),
        ("keep_rates", json!(keep_rates).to_string()),
        ("decision", model.rule.to_string()),
        ("priors", json!(model.priors).to_string()),
    ];
    Ok(g.into_model("rarity", env!("CARGO_PKG_VERSION"), &metadata))
}

/// The graph's inputs and the model's feature matrix (`[N, d]`) built
/// from them, with a description of the inputs for the metadata. `X` holds
/// the numeric columns, in the model's order; each text column (one-hot
/// encoded by rarity's reader) is a string input `[N, 1]` of its own, named
/// after the column, encoded inside the graph: one 0/1 column per level the
/// model knows (`Equal` against the levels), all zeros for a level it does
/// not (as `rarity predict --unknown ignore`). A categorical column (level
/// codes) is a string input of its own too, mapped to its level's code by
/// an `ai.onnx.ml` `LabelEncoder` (keys the levels, values their codes as
/// doubles, NaN for a level the model does not know, as rarity's readers
/// map it). Also returned: each categorical feature's index, string input
/// and levels, for an `encode(target)` stage ([`member_features`]).
fn features(
    g: &mut Graph,
    model: &FittedStrategy,
) -> Result<(Value, serde_json::Value, Vec<TextFeature>)> {
    let encodings = &model.schema.encodings;
    let numeric: Vec<&str> = encodings
        .iter()
        .filter(|e| matches!(e, ColumnEncoding::Numeric { .. }))
        .map(ColumnEncoding::name)
        .collect();
    let rows = Dim::Named("N".into());
    let x = g.input(
        "X",
        DataType::Double,
        &[rows.clone(), Dim::Fixed(numeric.len() as i64)],
    );
    let mut described = vec![json!({"name": "X", "type": "double", "columns": numeric})];
    if numeric.len() == encodings.len() {
        return Ok((x, json!(described), Vec::new()));
    }
    let missing_ok = model.missing_columns();
    let mut parts = Vec::with_capacity(encodings.len());
    let mut texts = Vec::new();
    let mut j = 0;
    let mut next_feature = 0;
    for (c, e) in encodings.iter().enumerate() {
        let feature = next_feature;
        next_feature += e.width();
        match e {
            ColumnEncoding::Numeric { .. } => {
                parts.push(g.columns(&x, j, j + 1));
                j += 1;
            }
            ColumnEncoding::OneHot { name, levels } => {
                let text = text_input(g, model, name, levels, &rows)?;
                let known = g.constant(Tensor::Strings(
                    vec![1, levels.len() as i64],
                    levels.clone(),
                ));
                let hit = g.op("Equal", &[&text, &known], &[]);
                let onehot = g.cast(&hit, DataType::Double);
                parts.push(if missing_ok[c] {
                    impute::missing_text(g, &text, &onehot)
                } else {
                    onehot
                });
                described.push(json!({"name": name, "type": "string", "levels": levels}));
            }
            ColumnEncoding::Categorical { name, levels } => {
                let text = text_input(g, model, name, levels, &rows)?;
                let keys = Tensor::Strings(vec![levels.len() as i64], levels.clone());
                let codes = Tensor::doubles((0..levels.len()).map(|c| c as f64).collect());
                let code = g.op_in(
                    ML,
                    "LabelEncoder",
                    &[&text],
                    &[
                        ("keys_tensor", Attr::Tensor(keys)),
                        ("values_tensor", Attr::Tensor(codes)),
                        (
                            "default_tensor",
                            Attr::Tensor(Tensor::doubles(vec![f64::NAN])),
                        ),
                    ],
                );
                parts.push(code);
                texts.push((feature, text, levels.clone()));
                described.push(
                    json!({"name": name, "type": "string", "levels": levels, "categorical": true}),
                );
            }
        }
    }
    let all = g.concat_columns(&parts.iter().collect::<Vec<_>>());
    Ok((all, json!(described), texts))
}

/// A categorical feature of the graph: its index among the features, its
/// string input and its levels.
type TextFeature = (usize, Value, Vec<String>);

/// The features member `m`'s learner reads from `x` (`d` columns): `x`
/// itself, or `x` through an `impute(...)` stage, then, after an
/// `encode(target)` stage, each categorical feature replaced by one
/// `LabelEncoder` per class beyond the first on its string input (keys the
/// levels, values the fitted table's, default the prior: an unseen or
/// missing level, as `FittedEncoding::apply`), or, after an imputation
/// (every code then a level's), by its table's values gathered at its code.
fn member_features(g: &mut Graph, x: &Value, m: &Member, texts: &[TextFeature], d: usize) -> Value {
    let (x, d) = match &m.imputer {
        Some(i) => (impute::imputed(g, x, i), i.feature_names().len()),
        None => (x.clone(), d),
    };
    let x = &x;
    let Some(e) = &m.encoding else {
        return x.clone();
    };
    let mut parts = Vec::new();
    let mut next = 0;
    for col in &e.columns {
        if col.feature > next {
            parts.push(g.columns(x, next, col.feature));
        }
        next = col.feature + 1;
        let w = col.table.width;
        if m.imputer.is_some() {
            let code = g.columns(x, col.feature, col.feature + 1);
            let at = g.cast(&code, DataType::Int64);
            for c in 0..w {
                let values = (0..col.table.values.len() / w.max(1))
                    .map(|l| col.table.values[l * w + c])
                    .collect();
                let table = g.doubles(values);
                parts.push(g.op("Gather", &[&table, &at], &[("axis", Attr::Int(0))]));
            }
            continue;
        }
        let Some((_, text, levels)) = texts.iter().find(|t| t.0 == col.feature) else {
            continue;
        };
        for c in 0..w {
            let keys = Tensor::Strings(vec![levels.len() as i64], levels.clone());
            let values = (0..levels.len())
                .map(|l| col.table.values[l * w + c])
                .collect();
            parts.push(g.op_in(
                ML,
                "LabelEncoder",
                &[text],
                &[
                    ("keys_tensor", Attr::Tensor(keys)),
                    ("values_tensor", Attr::Tensor(Tensor::doubles(values))),
                    (
                        "default_tensor",
                        Attr::Tensor(Tensor::doubles(vec![col.table.prior[c]])),
                    ),
                ],
            ));
        }
    }
    if next < d {
        parts.push(g.columns(x, next, d));
    }
    g.concat_columns(&parts.iter().collect::<Vec<_>>())
}

/// The string input `[N, 1]` of text column `name` (refused when its name
/// would clash with another input's), its values as rarity's readers take
/// them: a value that is one of `levels` once its surrounding ASCII
/// whitespace is trimmed becomes that level (the readers' rule, which the
/// graph has no operator for: one `RegexFullMatch` per level,
/// `[\t\n\f\r ]*LEVEL[\t\n\f\r ]*` with the level quoted as RE2's
/// `QuoteMeta` quotes it, and a `Where`); any other value stays as it is,
/// which no level equals.
fn text_input(
    g: &mut Graph,
    model: &FittedStrategy,
    name: &str,
    levels: &[String],
    rows: &Dim,
) -> Result<Value> {
    let encodings = &model.schema.encodings;
    if name == "X" || encodings.iter().filter(|o| o.name() == name).count() > 1 {
        return Err(Error::invalid(format!(
            "{} cannot be exported to ONNX: its text column '{name}' would share its input's \
             name with another input",
            model.spec
        )));
    }
    let raw = g.input(name, DataType::String, &[rows.clone(), Dim::Fixed(1)]);
    let mut text = raw.clone();
    for level in levels.iter().filter(|l| !l.is_empty()) {
        const SPACE: &str = r"[\t\n\f\r ]*";
        let pattern = format!("{SPACE}{}{SPACE}", quote_meta(level));
        let hit = g.op(
            "RegexFullMatch",
            &[&raw],
            &[("pattern", Attr::String(pattern))],
        );
        let as_level = g.constant(Tensor::Strings(vec![1, 1], vec![level.clone()]));
        text = g.op("Where", &[&hit, &as_level, &text], &[]);
    }
    Ok(text)
}

/// `text` as an RE2 pattern matching it literally, as RE2's `QuoteMeta`
/// writes it: ASCII letters, digits, `_` and non-ASCII characters as they
/// are, NUL as `\x00`, every other character after a backslash.
fn quote_meta(text: &str) -> String {
    let mut out = String::with_capacity(2 * text.len());
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || !c.is_ascii() {
            out.push(c);
        } else if c == '\0' {
            out.push_str("\\x00");
        } else {
            out.push('\\');
            out.push(c);
        }
    }
    out
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
            let rates = correction_rates(model, &m.keep_rates, mode);
            let p = match (model.member_keep_rates(), mode) {
                (Some(_), Correction::Member) => {
                    let hook = |_: usize, member: &[f64], p: &mut [f64]| {
                        let r: Vec<f64> = member.iter().map(|m| m.max(f64::MIN_POSITIVE)).collect();
                        crate::calibrate::prior::correct_row(p, &r);
                    };
                    model.to_onnx_members(g, x, &hook)?
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
