//! Numbers as rarity writes them: the shortest decimal text that reads back
//! to the same `f64`, laid out exactly as Rust's `{}` formatting lays it out
//! (no exponent: `0.0001`, `1e21` as `1000000000000000000000`, `1` for 1.0,
//! `-0` for negative zero), but written into a reused byte buffer without
//! allocating.
//!
//! The shortest digits come from Ryu (Adams 2018, "Ryū: fast float-to-string
//! conversion", PLDI), through the `ryu` crate: the shortest digit string
//! that round-trips, the one nearest the exact value when several do, which
//! is also what the standard library's Grisu/Dragon4 shortest mode picks.
//! The digits and decimal exponent are read back from Ryu's text and placed
//! as `{}` places them; the test below compares the two on random values of
//! every magnitude.

/// Appends the text of `v` to `out`; identical to `format!("{v}")`.
///
/// ```
/// let mut b = Vec::new();
/// for v in [1.0, 0.1, -2.5e-7, 1e21, 123.456, -0.0, f64::NAN] {
///     b.clear();
///     rarity::data::write::number::push_f64(&mut b, v);
///     assert_eq!(String::from_utf8(b.clone()).unwrap(), format!("{v}"));
/// }
/// ```
#[inline]
pub fn push_f64(out: &mut Vec<u8>, v: f64) {
    if !v.is_finite() {
        out.extend_from_slice(if v.is_nan() {
            b"NaN"
        } else if v > 0.0 {
            b"inf"
        } else {
            b"-inf"
        });
        return;
    }
    if v.is_sign_negative() {
        out.push(b'-');
    }
    let a = v.abs();
    if a == 0.0 {
        out.push(b'0');
        return;
    }
    // Small integers (the common case of counts, ids and 0/1 features).
    if a < 1e15 && a.fract() == 0.0 {
        let mut itoa = [0u8; 20];
        let mut n = a as u64;
        let mut i = itoa.len();
        while n > 0 {
            i -= 1;
            itoa[i] = b'0' + (n % 10) as u8;
            n /= 10;
        }
        out.extend_from_slice(&itoa[i..]);
        return;
    }
    if tie_possible(a) {
        // Ryu and `{}` break a tie between two equally near shortest
        // candidates differently; `{}` decides those rare values.
        use std::io::Write;
        let _ = write!(out, "{a}");
        return;
    }
    let mut buf = ryu::Buffer::new();
    let text = buf.format_finite(a).as_bytes();
    // Ryu writes `I.F` or `I.FeE` (or `IeE`); collect the significant digits
    // and the position of the decimal point relative to them.
    let (mantissa, exp10) = match text.iter().position(|&b| b == b'e') {
        Some(e) => (&text[..e], parse_exp(&text[e + 1..])),
        None => (text, 0),
    };
    let mut digits = [0u8; 24];
    let mut n = 0;
    let mut point: i32 = 0;
    let mut seen_point = false;
    let mut leading = true;
    for &b in mantissa {
        if b == b'.' {
            seen_point = true;
            continue;
        }
        if leading && b == b'0' {
            if seen_point {
                point -= 1;
            }
            continue;
        }
        leading = false;
        digits[n] = b;
        n += 1;
        if !seen_point {
            point += 1;
        }
    }
    while n > 0 && digits[n - 1] == b'0' {
        n -= 1;
    }
    let point = point + exp10;
    let digits = &digits[..n];
    if point <= 0 {
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat_n(b'0', (-point) as usize));
        out.extend_from_slice(digits);
    } else if (point as usize) < digits.len() {
        let p = point as usize;
        out.extend_from_slice(&digits[..p]);
        out.push(b'.');
        out.extend_from_slice(&digits[p..]);
    } else {
        out.extend_from_slice(digits);
        out.extend(std::iter::repeat_n(b'0', point as usize - digits.len()));
    }
}

/// Whether two shortest decimal candidates can be equally near `a` (> 0):
/// only when its exact decimal value has at most 18 significant digits (a
/// candidate of at most 17 digits plus a final 5), or it is an integer of
/// 2^53 or more (whose trailing digits shortest texts drop).
fn tie_possible(a: f64) -> bool {
    let bits = a.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    let (m, e) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), biased - 1075)
    };
    let zeros = m.trailing_zeros();
    let (m, e) = (m >> zeros, e + zeros as i32);
    if e >= 0 {
        return a >= 9_007_199_254_740_992.0;
    }
    // a = m / 2^k = m 5^k / 10^k: its significant digits are m 5^k's (more
    // than 18 once k > 26, as 5^27 > 10^18).
    if -e > 26 {
        return false;
    }
    (0..-e)
        .try_fold(u128::from(m), |acc, _| acc.checked_mul(5))
        .is_some_and(|exact| exact < 1_000_000_000_000_000_000)
}

fn parse_exp(s: &[u8]) -> i32 {
    let (neg, s) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    let v = s
        .iter()
        .fold(0i32, |acc, &b| acc * 10 + i32::from(b - b'0'));
    if neg {
        -v
    } else {
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    fn check(v: f64) {
        let mut b = Vec::new();
        push_f64(&mut b, v);
        assert_eq!(std::str::from_utf8(&b).unwrap(), format!("{v}"), "{v:e}");
    }

    #[test]
    fn same_text_as_display_at_every_magnitude() {
        for v in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.1,
            0.3,
            1.0 / 3.0,
            5e-324,
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::MIN,
            1e15,
            1e16,
            123456789012345680.0,
            9007199254740993.0,
            1e21,
            1e22,
            1e-7,
            0.000123,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            check(v);
        }
        let mut rng = crate::rng::stream(5, 0);
        for _ in 0..200_000 {
            // Random bit patterns cover every exponent; scaled uniforms the
            // magnitudes data have.
            let bits = f64::from_bits(rng.random::<u64>());
            if bits.is_finite() {
                check(bits);
            }
            let v = (rng.random::<f64>() - 0.5) * 10f64.powi(rng.random_range(-30..30));
            check(v);
            let digits = rng.random_range(0..10);
            check(format!("{v:.digits$}").parse().unwrap());
        }
    }
}
