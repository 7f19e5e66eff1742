//! The `impute(...)` stage as ONNX nodes, written beside its Rust form
//! ([`crate::data::impute::FittedImpute::apply`]): every feature's missing
//! value (NaN) replaced by its fill value (`IsNaN`, `Where`), then the
//! indicators, 1.0 where a column of theirs is NaN, appended after the
//! features. Also the text inputs' missing markers (empty, `?`, `NA`, as
//! the readers read them) as NaN for the columns whose missing values the
//! model takes.

use crate::data::impute::FittedImpute;
use crate::onnx::{DataType, Graph, Tensor, Value};

/// The features `x` (`[N, d]`) through `imputer`: `[N, d + indicators]`.
pub(super) fn imputed(g: &mut Graph, x: &Value, imputer: &FittedImpute) -> Value {
    let d = imputer.fill.len();
    let nan = g.op("IsNaN", &[x], &[]);
    let fill = g.constant(Tensor::Double(vec![1, d as i64], imputer.fill.clone()));
    let filled = g.select(&nan, &fill, x);
    if imputer.indicators.is_empty() {
        return filled;
    }
    let flags = g.cast(&nan, DataType::Double);
    let mut parts = vec![filled];
    for group in &imputer.indicators {
        let cols = g.pick_columns(&flags, group.iter().map(|&k| k as i64).collect());
        // 1 when any of the column's features is missing.
        let any = if group.len() == 1 {
            cols
        } else {
            g.row_max(&cols)
        };
        parts.push(any);
    }
    g.concat_columns(&parts.iter().collect::<Vec<_>>())
}

/// `encoded` (the 0/1 columns of text input `text`, `[N, width]`) with NaN
/// in every column of a row whose text is a missing marker.
pub(super) fn missing_text(g: &mut Graph, text: &Value, encoded: &Value) -> Value {
    let markers = g.constant(Tensor::Strings(
        vec![1, 3],
        vec![String::new(), "?".into(), "NA".into()],
    ));
    let hit = g.op("Equal", &[text, &markers], &[]);
    let hit = g.cast(&hit, DataType::Double);
    let missing = g.row_max(&hit);
    let zero = g.scalar(0.0);
    let is_missing = g.op("Greater", &[&missing, &zero], &[]);
    let nan = g.scalar(f64::NAN);
    g.select(&is_missing, &nan, encoded)
}
