//! Bernoulli keep decisions made per row from a hash of the seed and a row
//! key, so that a sample drawn in many pieces (Spark partitions, file
//! chunks) is the same however the rows are split or ordered.
//!
//! Random undersampling keeps each row of class `k` with probability
//! `r_k` (Dal Pozzolo et al. 2015, Sec. II: the selection variable `s`
//! with `p(s = 1 | y = k) = r_k`, independent of `x` given the class). A
//! seeded stream cannot be shared by machines that see the rows in an
//! unknown order, so the row's uniform draw is a hash instead:
//! `u = mix(mix(seed) ^ key) / 2^64` (53 bits), kept iff `u < r_k`. The
//! draws are independent of the classes and of each other as far as the
//! hash is random (`mix` is SplitMix64's finaliser, Steele, Lea & Flood
//! 2014, a bijection of `u64` with full avalanche).
//!
//! The row key is a given identifier column (an integer as its value, a
//! text as [`text_key`]), or, without one, [`row_key`] of the row's values:
//! every column in order, numbers by their `f64` value (so an integer and
//! the same float agree; `-0.0` is `0.0`), texts by their bytes, missing
//! values by a fixed marker. Identical rows then get one decision (both
//! kept or both dropped); give an identifier column when duplicates must
//! be drawn apart.

/// SplitMix64's finaliser: a bijection of `u64` mixing every input bit into
/// every output bit.
///
/// ```
/// use rarity::sample::keyed::mix;
/// assert_eq!(mix(0), 0);
/// assert_ne!(mix(1), mix(2));
/// ```
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The golden-ratio increment of SplitMix64: keeps `mix` away from its
/// fixed point 0 when chaining.
const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// The key of a missing value.
pub const MISSING: u64 = 0x6d69_7373_696e_6721;

/// The key of a text: FNV-1a of its UTF-8 bytes, mixed.
///
/// ```
/// use rarity::sample::keyed::text_key;
/// assert_eq!(text_key("txn-1"), text_key("txn-1"));
/// assert_ne!(text_key("txn-1"), text_key("txn-2"));
/// ```
pub fn text_key(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in s.as_bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    mix(h)
}

/// The key of a number: its `f64` bits (`-0.0` as `0.0`), mixed.
pub fn number_key(x: f64) -> u64 {
    mix((x + 0.0).to_bits())
}

/// The key of a row from the keys of its values, in column order.
///
/// ```
/// use rarity::sample::keyed::{number_key, row_key, text_key};
/// let a = row_key([number_key(1.0), text_key("x")]);
/// assert_eq!(a, row_key([number_key(1.0), text_key("x")]));
/// assert_ne!(a, row_key([text_key("x"), number_key(1.0)]));
/// ```
pub fn row_key(values: impl IntoIterator<Item = u64>) -> u64 {
    values
        .into_iter()
        .fold(GAMMA, |h, v| mix(h.wrapping_add(GAMMA) ^ v))
}

/// The uniform draw in `[0, 1)` of the row with key `key` for `seed`.
pub fn uniform(seed: u64, key: u64) -> f64 {
    (mix(mix(seed.wrapping_add(GAMMA)) ^ key) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Whether the row with key `key` is kept at rate `rate` for `seed`: every
/// row at rate 1 or more, none at 0.
///
/// ```
/// use rarity::sample::keyed::keep;
/// let kept = (0..100_000u64).filter(|&k| keep(42, k, 0.1)).count();
/// assert!((9_000..11_000).contains(&kept));
/// assert!((0..1000u64).all(|k| keep(42, k, 1.0)));
/// ```
pub fn keep(seed: u64, key: u64, rate: f64) -> bool {
    uniform(seed, key) < rate
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_uniform_and_depend_on_the_seed() {
        let n = 200_000u64;
        let mean = (0..n).map(|k| uniform(7, k)).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.005, "{mean}");
        // Each decile gets about a tenth of the keys.
        let mut deciles = [0u64; 10];
        (0..n).for_each(|k| deciles[(uniform(7, k) * 10.0) as usize] += 1);
        assert!(
            deciles.iter().all(|&c| c.abs_diff(n / 10) < n / 100),
            "{deciles:?}"
        );
        let same = (0..1000u64)
            .filter(|&k| keep(1, k, 0.5) == keep(2, k, 0.5))
            .count();
        assert!((400..600).contains(&same), "{same}");
    }

    #[test]
    fn numbers_are_keyed_by_value() {
        assert_eq!(number_key(-0.0), number_key(0.0));
        assert_eq!(number_key(3.0), number_key(f64::from(3u8)));
        assert_ne!(number_key(1.0), number_key(2.0));
        assert_ne!(row_key([MISSING]), row_key([number_key(0.0)]));
    }
}
