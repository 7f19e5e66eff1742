//! A bounded summary of probability vectors that many machines can build
//! apart and merge: what `rarity monitor` runs Saerens' EM on for models of
//! more than two classes (issue 56), where one probability is not enough
//! and a histogram over the simplex would blur the posteriors EM adjusts.
//!
//! **Exact while small.** Every distinct vector (its bits, not a rounding
//! of them) is one group with its number of rows. While a table has at most
//! `cap` distinct vectors (default [`DEFAULT_CAP`]), the groups are the
//! table's rows exactly, and EM on them is EM on the rows: a tree model's
//! leaves, a binned score, any table of up to `cap` rows.
//!
//! **A sample of distinct vectors beyond.** Each distinct vector has a key,
//! a 64-bit hash of its bits ([`hash`]), and the summary keeps the `cap`
//! vectors with the smallest keys, each with *all* its rows (bottom-k
//! sampling of distinct items, Cohen and Kaplan 2007). A vector's key does
//! not depend on where its rows lie, so a vector among the `cap` smallest
//! of the whole table is among the smallest of every part that holds it:
//! merged parts keep the same vectors with the same counts as one pass
//! over the table, for any partitioning and merge order. The kept vectors
//! are a uniform sample of the distinct ones; the mean over their rows (a
//! ratio estimate) is then consistent, with the variance of a cluster
//! sample: when most rows fall on a few vectors the sample is exact for
//! them (they are few), and when vectors are mostly distinct it is a
//! uniform sample of `cap` rows. [`VectorSample::exact`] says which.
//!
//! A summary holds up to twice the cap before it compacts (sorts by key,
//! adds up equal vectors, keeps the `cap` smallest), so compaction is paid
//! once per cap's worth of new rows.

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// Distinct vectors kept unless asked otherwise.
pub const DEFAULT_CAP: usize = 1 << 14;

/// The key of a vector: its coordinates' bits mixed by SplitMix64's
/// finaliser (Steele, Lea and Flood 2014), one round per coordinate, so
/// equal vectors have equal keys and the keys of distinct ones look
/// uniform.
pub fn hash(v: &[f64]) -> u64 {
    let mut h: u64 = 0x9e37_79b9_7f4a_7c15;
    for x in v {
        // -0.0 and 0.0 are the same probability.
        let bits = if *x == 0.0 { 0 } else { x.to_bits() };
        h = mix(h ^ bits);
    }
    h
}

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A bounded, mergeable summary of the probability vectors of a table's
/// rows (see the module doc).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VectorSample {
    /// Coordinates per vector.
    k: usize,
    /// The most distinct vectors kept.
    cap: usize,
    /// Per group: its key, its rows.
    keys: Vec<(u64, u64)>,
    /// The groups' vectors, `k` values each, in the order of `keys`.
    values: Vec<f64>,
    /// Rows added, kept or not.
    rows: u64,
    /// Whether a distinct vector was ever left out.
    dropped: bool,
}

impl VectorSample {
    /// An empty summary of `k`-vectors keeping at most `cap` distinct ones.
    pub fn new(k: usize, cap: usize) -> Result<VectorSample> {
        if k == 0 || cap == 0 {
            return Err(Error::invalid(
                "a vector sample needs at least one coordinate and one kept vector",
            ));
        }
        Ok(VectorSample {
            k,
            cap,
            keys: Vec::new(),
            values: Vec::new(),
            rows: 0,
            dropped: false,
        })
    }

    /// Adds the rows of `flat`, `k` values each.
    pub fn add_rows(&mut self, flat: &[f64]) {
        for v in flat.chunks_exact(self.k) {
            let start = self.values.len();
            // -0.0 kept as 0.0, so that equal probabilities have equal bits.
            (self.values).extend(v.iter().map(|&x| if x == 0.0 { 0.0 } else { x }));
            self.keys.push((hash(&self.values[start..]), 1));
            self.rows += 1;
        }
        if self.keys.len() >= 2 * self.cap {
            self.compact();
        }
    }

    /// Adds `other`, a summary of other rows of the same width and cap.
    pub fn merge(&mut self, other: &VectorSample) -> Result<()> {
        if (self.k, self.cap) != (other.k, other.cap) {
            return Err(Error::invalid(
                "the vector samples differ in width or cap and cannot be merged",
            ));
        }
        self.keys.extend_from_slice(&other.keys);
        self.values.extend_from_slice(&other.values);
        self.rows += other.rows;
        self.dropped |= other.dropped;
        if self.keys.len() >= 2 * self.cap {
            self.compact();
        }
        Ok(())
    }

    /// Rows added, kept or not.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Whether every row's vector is kept: the groups are then the rows.
    pub fn exact(&self) -> bool {
        let mut s = self.clone();
        s.compact();
        !s.dropped
    }

    /// The kept vectors with their rows, in key order (the same for any
    /// partitioning of the rows): `(values, k per group, rows per group)`.
    pub fn groups(&self) -> (Vec<f64>, Vec<u64>) {
        let mut s = self.clone();
        s.compact();
        (s.values, s.keys.iter().map(|g| g.1).collect())
    }

    /// Sorts the groups by key (then by bits, so that distinct vectors of
    /// one key keep one order), adds up equal vectors and keeps the `cap`
    /// smallest keys' vectors.
    fn compact(&mut self) {
        let k = self.k;
        let row = |i: usize| &self.values[i * k..(i + 1) * k];
        let mut order: Vec<usize> = (0..self.keys.len()).collect();
        order.sort_by(|&a, &b| {
            (self.keys[a].0.cmp(&self.keys[b].0)).then_with(|| {
                let (x, y) = (row(a), row(b));
                (x.iter().zip(y))
                    .map(|(p, q)| p.to_bits().cmp(&q.to_bits()))
                    .find(|o| o.is_ne())
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
        });
        let (mut keys, mut values): (Vec<(u64, u64)>, Vec<f64>) = (Vec::new(), Vec::new());
        let bits_eq =
            |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits());
        for i in order {
            // Equal vectors are adjacent in this order.
            let same = (keys.last()).is_some_and(|last: &(u64, u64)| {
                last.0 == self.keys[i].0 && bits_eq(&values[values.len() - k..], row(i))
            });
            if same {
                let n = keys.len() - 1;
                keys[n].1 += self.keys[i].1;
            } else if keys.len() == self.cap {
                // A larger key than every kept one's (or an equal key's
                // vector of larger bits).
                self.dropped = true;
            } else {
                keys.push(self.keys[i]);
                values.extend_from_slice(row(i));
            }
        }
        self.keys = keys;
        self.values = values;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    fn rows(n: usize, distinct: usize, seed: u64) -> Vec<f64> {
        let mut r = crate::rng::stream(seed, 0);
        (0..n)
            .flat_map(|_| {
                let j = r.random_range(0..distinct) as f64;
                let a = (j + 1.0) / (distinct as f64 + 2.0);
                vec![a, (1.0 - a) / 2.0, 1.0 - a - (1.0 - a) / 2.0]
            })
            .collect()
    }

    fn summary(flat: &[f64], parts: usize, cap: usize) -> VectorSample {
        let n = flat.len() / 3;
        let mut out = VectorSample::new(3, cap).unwrap();
        let size = n.div_ceil(parts);
        let mut pieces: Vec<VectorSample> = flat
            .chunks(size * 3)
            .map(|c| {
                let mut s = VectorSample::new(3, cap).unwrap();
                // Rows in blocks of 7, as a reader hands them over.
                c.chunks(21).for_each(|b| s.add_rows(b));
                s
            })
            .collect();
        pieces.reverse();
        for p in &pieces {
            out.merge(p).unwrap();
        }
        out
    }

    #[test]
    fn exact_while_the_distinct_vectors_fit() {
        let flat = rows(5_000, 40, 1);
        let s = summary(&flat, 1, 64);
        assert!(s.exact());
        let (v, n) = s.groups();
        assert_eq!(n.iter().sum::<u64>(), 5_000);
        assert_eq!(n.len(), v.len() / 3);
        // Each group's rows are the rows of that vector.
        for (g, &m) in n.iter().enumerate() {
            let want = flat
                .chunks(3)
                .filter(|r| *r == &v[g * 3..g * 3 + 3])
                .count();
            assert_eq!(m as usize, want);
        }
    }

    #[test]
    fn a_sample_beyond_the_cap_is_the_same_for_any_partitioning() {
        let flat = rows(20_000, 3_000, 2);
        let one = summary(&flat, 1, 100);
        assert!(!one.exact());
        assert_eq!(one.groups().1.len(), 100);
        for parts in [2, 3, 7] {
            assert_eq!(one.groups(), summary(&flat, parts, 100).groups(), "{parts}");
        }
        // The kept vectors carry every row of theirs.
        let (v, n) = one.groups();
        for (g, &m) in n.iter().enumerate() {
            let want = flat
                .chunks(3)
                .filter(|r| *r == &v[g * 3..g * 3 + 3])
                .count();
            assert_eq!(m as usize, want);
        }
        // ... and are the smallest keys of all the distinct vectors.
        let mut all: Vec<u64> = flat.chunks(3).map(hash).collect();
        all.sort_unstable();
        all.dedup();
        let kept: Vec<u64> = v.chunks(3).map(hash).collect();
        assert_eq!(kept, all[..100].to_vec());
    }

    #[test]
    fn bad_shapes_are_errors() {
        assert!(VectorSample::new(0, 10).is_err());
        assert!(VectorSample::new(3, 0).is_err());
        let mut a = VectorSample::new(3, 10).unwrap();
        let b = VectorSample::new(4, 10).unwrap();
        assert!(a.merge(&b).is_err());
    }
}
