//! Sorting scores by value: an order-preserving map from `f64` to `u64` and an
//! LSD radix sort on those keys.
//!
//! Ranking metrics need the scores in order once. Sorting the positives' and
//! the negatives' scores separately, as bare `u64` keys, avoids carrying labels
//! through the sort; a radix sort of 8-bit digits skips the digits on which all
//! keys agree (for probabilities, the sign and most exponent bits), so 10^7
//! scores sort in a few passes over memory.

/// The sort key of a finite score: unsigned order of the key is the numeric
/// order of the score, and `-0.0` gets the key of `0.0` (they are equal scores).
pub(crate) fn key(x: f64) -> u64 {
    let bits = (x + 0.0).to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// The score of a key made by [`key`].
pub(crate) fn unkey(k: u64) -> f64 {
    if k >> 63 == 1 {
        f64::from_bits(k & !(1 << 63))
    } else {
        f64::from_bits(!k)
    }
}

/// Sorts `keys` ascending (least significant digit first, 8-bit digits).
pub(crate) fn radix_sort(keys: &mut Vec<u64>) {
    let n = keys.len();
    if n < 256 {
        keys.sort_unstable();
        return;
    }
    let mut counts = vec![[0usize; 256]; 8];
    for &k in keys.iter() {
        for (d, c) in counts.iter_mut().enumerate() {
            c[((k >> (8 * d)) & 0xff) as usize] += 1;
        }
    }
    let mut buf = vec![0u64; n];
    for (d, c) in counts.iter().enumerate() {
        // A digit shared by every key leaves the order unchanged.
        if c.contains(&n) {
            continue;
        }
        let mut start = [0usize; 256];
        let mut acc = 0;
        for (s, &m) in start.iter_mut().zip(c.iter()) {
            *s = acc;
            acc += m;
        }
        let shift = 8 * d;
        for &k in keys.iter() {
            let b = ((k >> shift) & 0xff) as usize;
            buf[start[b]] = k;
            start[b] += 1;
        }
        std::mem::swap(keys, &mut buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn keys_preserve_order_and_round_trip() {
        let xs = [-1e300, -2.5, -1e-310, -0.0, 0.0, 1e-310, 0.25, 1.0, 7e200];
        for w in xs.windows(2) {
            assert!(key(w[0]) <= key(w[1]), "{} {}", w[0], w[1]);
        }
        assert_eq!(key(-0.0), key(0.0));
        for &x in &xs {
            assert_eq!(unkey(key(x)), x + 0.0);
        }
    }

    #[test]
    fn radix_sort_matches_std_sort() {
        let mut rng = crate::rng::stream(3, 0);
        for &n in &[0usize, 1, 255, 256, 5000] {
            let xs: Vec<f64> = (0..n)
                .map(|i| match i % 4 {
                    0 => rng.random::<f64>(),
                    1 => -rng.random::<f64>() * 1e5,
                    2 => (rng.random_range(0..10) as f64) / 10.0,
                    _ => 0.5,
                })
                .collect();
            let mut keys: Vec<u64> = xs.iter().map(|&x| key(x)).collect();
            radix_sort(&mut keys);
            let mut want = xs.clone();
            want.sort_by(f64::total_cmp);
            let got: Vec<f64> = keys.iter().map(|&k| unkey(k)).collect();
            assert_eq!(got, want);
        }
    }
}
