//! Decimal text to `f64`, exactly and fast.
//!
//! Most numbers in data files are short decimals (`-0.123456`, `42`,
//! `1.5e3`). When the digits fit in a 53-bit integer `m` and the decimal
//! exponent `e` satisfies `|e| <= 22`, both `m` and `10^|e|` are exact `f64`
//! values and one IEEE multiplication or division gives the correctly
//! rounded result (Clinger 1990, the "fast path"). Everything else (long
//! mantissas, large exponents, `inf`, `NaN`, hex, odd syntax) goes to the
//! standard library's parser, which is correct for all inputs.
//!
//! Digits are read eight at a time where eight bytes of input remain: the
//! bytes are loaded as one little-endian `u64`, the run of leading digits is
//! found from a per-byte range test, and the run is combined into its value
//! with three multiply-and-shift steps that pair neighbouring digits, then
//! pairs, then quads (the "SWAR" technique, SIMD within a register).

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

/// Parses a trimmed number with the layout's decimal separator; `Ok(None)`
/// if it is not a number, an error if it is a non-finite token.
#[inline]
pub(crate) fn number(field: &[u8], decimal: u8) -> std::result::Result<Option<f64>, ()> {
    let v = if decimal == b'.' || !field.contains(&decimal) {
        parse_f64(field)
    } else {
        let swapped: Vec<u8> = field
            .iter()
            .map(|&b| if b == decimal { b'.' } else { b })
            .collect();
        parse_f64(&swapped)
    };
    match v {
        Some(v) if v.is_finite() => Ok(Some(v)),
        Some(_) => Err(()),
        None => Ok(None),
    }
}

/// Accumulates ASCII digits from `s[i..]` into `m`; returns the new index.
#[inline(always)]
fn digits(s: &[u8], mut i: usize, m: &mut u64) -> usize {
    while let Some(chunk) = s.get(i..i + 8) {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let n = leading_digits(word);
        if n > 0 {
            *m = m
                .wrapping_mul(POW10_U64[n])
                .wrapping_add(swar_value(word, n));
        }
        i += n;
        if n < 8 {
            return i;
        }
    }
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

const POW10_U64: [u64; 9] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// How many of the eight bytes of `word` (first byte lowest) are ASCII
/// digits before the first non-digit.
#[inline(always)]
fn leading_digits(word: u64) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    // A byte is a digit iff `b ^ 0x30 <= 9`. Adding 0x76 sets the top bit of
    // a byte exactly when that value exceeds 9, unless the byte overflows
    // (values >= 0x8A), whose own top bit the `| x` keeps. An overflow only
    // carries into higher bytes, which lie past the first non-digit.
    let x = word ^ (0x30 * ONES);
    let flags = (x.wrapping_add(0x76 * ONES) | x) & (0x80 * ONES);
    (flags.trailing_zeros() / 8) as usize
}

/// The value of the first `n` (1..=8) digit bytes of `word`.
#[inline(always)]
fn swar_value(word: u64, n: usize) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    // Move the n digits to the top bytes; the bytes below become zeros,
    // i.e. leading zero digits of an eight-digit number.
    let v = (word.wrapping_sub(0x30 * ONES)) << (8 * (8 - n));
    // Byte i holds the digit of weight 10^(7 - i). Combine neighbours:
    // 2-digit numbers in 16-bit lanes, then 4-digit, then 8-digit.
    let v = (v.wrapping_mul(10).wrapping_add(v >> 8)) & 0x00FF_00FF_00FF_00FF;
    let v = (v.wrapping_mul(100).wrapping_add(v >> 16)) & 0x0000_FFFF_0000_FFFF;
    (v.wrapping_mul(10_000).wrapping_add(v >> 32)) & 0xFFFF_FFFF
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
#[inline(always)]
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
    fn eight_byte_digit_runs_stop_at_the_first_non_digit() {
        for text in ["12345678", "1234567,", "0,345678", "9/:09999", "00000000"] {
            let word = u64::from_le_bytes(text.as_bytes().try_into().unwrap());
            let n = leading_digits(word);
            let want = text.bytes().take_while(u8::is_ascii_digit).count();
            assert_eq!(n, want, "{text}");
            if n > 0 {
                assert_eq!(swar_value(word, n), text[..n].parse::<u64>().unwrap());
            }
        }
        for b in 0..=255u8 {
            let word = u64::from_le_bytes([b'7', b, 0xFF, b'1', 0, b'5', 0x80, b'2']);
            let n = leading_digits(word);
            assert_eq!(n, if b.is_ascii_digit() { 2 } else { 1 }, "byte {b}");
        }
    }

    #[test]
    fn prefixes_followed_by_more_text_parse_like_std() {
        let mut rng = crate::rng::stream(12, 0);
        for _ in 0..100_000 {
            let v: f64 = (rng.random::<f64>() - 0.5) * 10f64.powi(rng.random_range(-9..12));
            let digits = rng.random_range(0..18);
            let num = format!("{v:.digits$}");
            let text = format!("{num},98765432.125,7");
            let want = num.parse::<f64>().unwrap();
            match parse_prefix(text.as_bytes()) {
                Some((got, len)) => {
                    assert_eq!(got.to_bits(), want.to_bits(), "{text}");
                    assert_eq!(len, num.len(), "{text}");
                }
                // Only mantissas beyond 2^53 (16 digits or more) leave the fast path.
                None => assert!(num.bytes().filter(u8::is_ascii_digit).count() >= 16),
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
