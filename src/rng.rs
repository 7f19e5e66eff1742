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
