//! Numbers for reading: one format for metric values and one for p-values,
//! used by every report page and by the text output of the commands that
//! compare strategies. Files meant for programs (JSON, and the reports'
//! CSV and JSON tables) keep full precision.
//!
//! - A metric shows 3 significant digits (`0.815`, `0.0572`, `12.3`),
//!   whole numbers of 1,000 or more in full (`1235`), magnitudes below
//!   0.001 in scientific notation (`4.56e-5`), `NaN` as `-`.
//! - A p-value shows 2 significant digits: `0.032`, `0.0012`, and below
//!   0.001 in scientific notation (`1.6e-7`), never a rounded zero; `NaN`
//!   (no test) as `-`.

/// A metric value with 3 significant digits.
///
/// ```
/// use rarity::report::format::metric_text;
/// assert_eq!(metric_text(0.81544), "0.815");
/// assert_eq!(metric_text(0.057249), "0.0572");
/// assert_eq!(metric_text(12.345), "12.3");
/// assert_eq!(metric_text(1234.6), "1235");
/// assert_eq!(metric_text(4.5619e-5), "4.56e-5");
/// assert_eq!(metric_text(-0.3), "-0.300");
/// assert_eq!(metric_text(0.0), "0");
/// assert_eq!(metric_text(f64::NAN), "-");
/// ```
pub fn metric_text(v: f64) -> String {
    if v.is_nan() {
        return "-".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.into();
    }
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if a < 1e-3 {
        scientific(v, 2)
    } else if a >= 1000.0 {
        format!("{v:.0}")
    } else {
        // Round to 3 significant digits first: 0.99951 is 1.00, not 0.9995.
        let mag = a.log10().floor() as i32;
        let decimals = (2 - mag).max(0) as usize;
        let s = format!("{v:.decimals$}");
        let rounded: f64 = s.parse().unwrap_or(v);
        if rounded.abs() >= 10f64.powi(mag + 1) && decimals > 0 {
            format!("{v:.prec$}", prec = decimals - 1)
        } else {
            s
        }
    }
}

/// A p-value with 2 significant digits, scientific below 0.001.
///
/// ```
/// use rarity::report::format::p_value_text;
/// assert_eq!(p_value_text(1.6e-7), "1.6e-7");
/// assert_eq!(p_value_text(3.2e-12), "3.2e-12");
/// assert_eq!(p_value_text(0.0), "< 1e-16");
/// assert_eq!(p_value_text(0.01234), "0.012");
/// assert_eq!(p_value_text(0.0012), "0.0012");
/// assert_eq!(p_value_text(0.5), "0.50");
/// assert_eq!(p_value_text(1.0), "1");
/// assert_eq!(p_value_text(f64::NAN), "-");
/// ```
pub fn p_value_text(p: f64) -> String {
    if p.is_nan() {
        "-".into()
    } else if p == 0.0 {
        // Below what the distribution functions resolve, not zero.
        "< 1e-16".into()
    } else if p == 1.0 {
        format!("{p:.0}")
    } else if p.abs() < 1e-3 {
        scientific(p, 1)
    } else {
        let mag = p.abs().log10().floor() as i32;
        let decimals = (1 - mag).max(0) as usize;
        format!("{p:.decimals$}")
    }
}

/// `p = 0.012` as a sentence says it, `p < 1e-16` for a p-value below what
/// the distribution functions resolve ([`p_value_text`]).
///
/// ```
/// use rarity::report::format::p_equals_text;
/// assert_eq!(p_equals_text(0.5), "p = 0.50");
/// assert_eq!(p_equals_text(0.0), "p < 1e-16");
/// ```
pub fn p_equals_text(p: f64) -> String {
    if p == 0.0 {
        format!("p {}", p_value_text(p))
    } else {
        format!("p = {}", p_value_text(p))
    }
}

/// `v` in scientific notation with `decimals` digits after the point and a
/// plain exponent (`1.6e-7`).
fn scientific(v: f64, decimals: usize) -> String {
    format!("{v:.decimals$e}")
}

/// A mean and standard deviation over folds, each a [`metric_text`].
///
/// ```
/// assert_eq!(rarity::report::format::mean_std_text(0.81544, 0.02781), "0.815±0.0278");
/// ```
pub fn mean_std_text(mean: f64, std: f64) -> String {
    format!("{}±{}", metric_text(mean), metric_text(std))
}
