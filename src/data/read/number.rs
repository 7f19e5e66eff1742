//! Decimal text to `f64`, exactly and fast.
//!
//! Most numbers in data files are short decimals (`-0.123456`, `42`,
//! `1.5e3`). When the digits fit in a 53-bit integer `m` and the decimal
//! exponent `e` satisfies `|e| <= 22`, both `m` and `10^|e|` are exact `f64`
//! values and one IEEE multiplication or division gives the correctly
//! rounded result (Clinger 1990, the "fast path"). Everything else (long
//! mantissas, large exponents, `inf`, `NaN`, hex, odd syntax) goes to the
//! standard library's parser, which is correct for all inputs.

const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Parses ASCII decimal text; `None` when it is not a number.
///
/// The result always equals `s.parse::<f64>()` for valid input.
pub fn parse_f64(s: &[u8]) -> Option<f64> {
    fast_path(s).or_else(|| std::str::from_utf8(s).ok()?.parse::<f64>().ok())
}

/// Accumulates ASCII digits from `s[i..]` into `m`; returns the new index.
#[inline(always)]
fn digits(s: &[u8], mut i: usize, m: &mut u64) -> usize {
    while i < s.len() {
        let d = s[i].wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        *m = m.wrapping_mul(10).wrapping_add(u64::from(d));
        i += 1;
    }
    i
}

#[inline]
fn fast_path(s: &[u8]) -> Option<f64> {
    parse_prefix(s)
        .filter(|&(_, n)| n == s.len())
        .map(|(v, _)| v)
}

/// Parses the decimal number at the start of `s` on the exact fast path and
/// returns it with the number of bytes it spans; `None` when the start of
/// `s` is not such a number (the caller then takes the general path).
/// The result is always finite.
#[inline]
pub fn parse_prefix(s: &[u8]) -> Option<(f64, usize)> {
    let neg = s.first() == Some(&b'-');
    let mut i = usize::from(matches!(s.first(), Some(b'-' | b'+')));
    let mut m: u64 = 0;
    let int_start = i;
    i = digits(s, i, &mut m);
    let mut n_digits = i - int_start;
    let mut exp: i64 = 0;
    if s.get(i) == Some(&b'.') {
        let frac_start = i + 1;
        i = digits(s, frac_start, &mut m);
        n_digits += i - frac_start;
        exp = -((i - frac_start) as i64);
    }
    // At most 19 digits (leading zeros included) cannot overflow a u64.
    if n_digits == 0 || n_digits > 19 {
        return None;
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        i += 1;
        let eneg = s.get(i) == Some(&b'-');
        i += usize::from(matches!(s.get(i), Some(b'-' | b'+')));
        let e_start = i;
        let mut e: u64 = 0;
        i = digits(s, i, &mut e);
        if i == e_start || i - e_start > 4 {
            return None;
        }
        exp += if eneg { -(e as i64) } else { e as i64 };
    }
    if m >= 1 << 53 {
        return None;
    }
    let v = m as f64;
    let v = match exp {
        0 => v,
        1..=22 => v * POW10[exp as usize],
        -22..=-1 => v / POW10[(-exp) as usize],
        _ => return None,
    };
    Some((if neg { -v } else { v }, i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    fn same(s: &str) {
        let want = s.parse::<f64>().ok();
        let got = parse_f64(s.as_bytes());
        assert_eq!(
            got.map(f64::to_bits),
            want.map(f64::to_bits),
            "{s}: got {got:?}, want {want:?}"
        );
    }

    #[test]
    fn agrees_with_std_on_tricky_inputs() {
        for s in [
            "0",
            "-0",
            "+1",
            "1.",
            ".5",
            "-.5",
            "1e5",
            "1E-5",
            "1.5e+3",
            "123456789012345678",
            "1234567890123456789012",
            "9007199254740993",
            "0.1",
            "0.30000000000000004",
            "2.2250738585072014e-308",
            "1e23",
            "1e-23",
            "1.7976931348623157e308",
            "inf",
            "-inf",
            "NaN",
            "",
            "-",
            "e5",
            "1e",
            "1e+",
            "1.2.3",
            "0x10",
            "1_0",
            " 1",
            "00001.5000",
            "5e-324",
        ] {
            if s.parse::<f64>().is_ok_and(f64::is_nan) {
                assert!(parse_f64(s.as_bytes()).is_some_and(f64::is_nan));
            } else {
                same(s);
            }
        }
    }

    #[test]
    fn agrees_with_std_on_random_decimals() {
        let mut rng = crate::rng::stream(11, 0);
        for _ in 0..200_000 {
            let v: f64 = (rng.random::<f64>() - 0.5) * 10f64.powi(rng.random_range(-12..12));
            let digits = rng.random_range(0..18);
            same(&format!("{v:.digits$}"));
            same(&format!("{v:e}"));
            same(&format!("{v}"));
        }
    }
}
