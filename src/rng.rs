//! Seeded random streams.
//!
//! All randomness in rarity comes from ChaCha8 streams keyed by a user seed and
//! a stream index (bag number, fold number, repeat number, ...). A member's
//! stream depends only on `(seed, index)`, never on which thread runs it, so
//! results are bit-identical for any thread count.

use rand::SeedableRng;
pub use rand_chacha::ChaCha8Rng as Rng;

/// The seed used when the user gives none (`--seed`).
pub const DEFAULT_SEED: u64 = 42;

/// The random stream number `index` for `seed`.
///
/// ```
/// use rand::RngExt;
/// let mut a = rarity::rng::stream(7, 3);
/// let mut b = rarity::rng::stream(7, 3);
/// assert_eq!(a.random::<u64>(), b.random::<u64>());
/// let mut c = rarity::rng::stream(7, 4);
/// assert_ne!(rarity::rng::stream(7, 3).random::<u64>(), c.random::<u64>());
/// ```
pub fn stream(seed: u64, index: u64) -> Rng {
    let mut r = Rng::seed_from_u64(seed);
    r.set_stream(index);
    r
}

/// A child stream of `parent`: draws one `u64` from it and uses that as the
/// seed of stream `index`. Use it to give sub-tasks of a seeded task their own
/// independent, reproducible streams.
pub fn child(parent: &mut Rng, index: u64) -> Rng {
    use rand::RngExt;
    stream(parent.random::<u64>(), index)
}

/// Shuffles `v` in place (Fisher-Yates from the end: for `i` from
/// `len - 1` down to 1, swap `v[i]` with `v[j]`, `j` uniform in `0..=i`).
/// The draws are part of every seeded result that shuffles (stratified folds,
/// CNN's visiting order, the synthetic tables), so this sequence must not change.
///
/// ```
/// let mut v: Vec<usize> = (0..10).collect();
/// rarity::rng::shuffle(&mut v, &mut rarity::rng::stream(1, 0));
/// v.sort_unstable();
/// assert_eq!(v, (0..10).collect::<Vec<_>>());
/// ```
pub fn shuffle<T>(v: &mut [T], rng: &mut Rng) {
    use rand::RngExt;
    for i in (1..v.len()).rev() {
        let j = rng.random_range(0..=i);
        v.swap(i, j);
    }
}
