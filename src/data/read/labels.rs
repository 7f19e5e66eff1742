//! Text values as readers meet them (class labels, categorical levels):
//! raw bytes interned in first-seen order with their counts, the tables of
//! parts read in parallel merged in order, and the final class ids assigned
//! (see [`assign_classes`]).
//!
//! A reader interns one value per row and column, so the table is built for
//! that: a value is looked up by its bytes (no allocation), hashed once with
//! XXH3-64 (the hash is kept, so merging a part's table and growing the
//! table never hash again), and each distinct text is stored once, in one
//! buffer of all the texts. Emptying a table keeps its allocations, so the
//! per-block tables of a long read are allocated once.

use hashbrown::HashTable;
use twox_hash::XxHash3_64;

use super::assign_classes;
use crate::error::Result;

/// Interns raw text in first-seen order, counting each value.
#[derive(Debug, Default, Clone)]
pub(crate) struct Interner {
    /// The ids, found by their text's hash and compared by their text.
    ids: HashTable<u32>,
    /// Every distinct text, in id order, one after another (valid UTF-8).
    text: Vec<u8>,
    /// Where each id's text ends in `text`.
    ends: Vec<usize>,
    /// Each id's text's hash.
    hashes: Vec<u64>,
    counts: Vec<usize>,
}

impl Interner {
    /// The id of `raw`, added if new; `None` if it is not valid UTF-8.
    #[inline]
    pub(crate) fn intern(&mut self, raw: &[u8]) -> Option<u32> {
        let hash = XxHash3_64::oneshot(raw);
        match self.find(hash, raw) {
            Some(id) => {
                self.counts[id as usize] += 1;
                Some(id)
            }
            None => {
                std::str::from_utf8(raw).ok()?;
                Some(self.add(hash, raw, 1))
            }
        }
    }

    /// The id of the text `raw` whose hash is `hash`, if interned.
    #[inline]
    fn find(&self, hash: u64, raw: &[u8]) -> Option<u32> {
        self.ids
            .find(hash, |&id| self.bytes(id as usize) == raw)
            .copied()
    }

    /// Adds the new text `raw` (valid UTF-8, hash `hash`) seen `count`
    /// times; returns its id.
    fn add(&mut self, hash: u64, raw: &[u8], count: usize) -> u32 {
        let id = self.ends.len() as u32;
        let hashes = &self.hashes;
        self.ids.insert_unique(hash, id, |&i| hashes[i as usize]);
        self.text.extend_from_slice(raw);
        self.ends.push(self.text.len());
        self.hashes.push(hash);
        self.counts.push(count);
        id
    }

    /// The text of id `id` as bytes.
    #[inline]
    fn bytes(&self, id: usize) -> &[u8] {
        let start = if id == 0 { 0 } else { self.ends[id - 1] };
        &self.text[start..self.ends[id]]
    }

    /// Counts one more row of an already interned value.
    #[inline]
    pub(crate) fn repeat(&mut self, id: u32) -> u32 {
        self.counts[id as usize] += 1;
        id
    }

    /// The value of id `id`.
    pub(crate) fn name(&self, id: usize) -> &str {
        // Only valid UTF-8 is added (`intern` checks, `merge` copies
        // checked texts), so this cannot fail.
        std::str::from_utf8(self.bytes(id)).unwrap_or_default()
    }

    /// The values, in first-seen order (id order).
    pub(crate) fn names(&self) -> impl ExactSizeIterator<Item = &str> + Clone + '_ {
        (0..self.len()).map(|id| self.name(id))
    }

    /// The ids in the sorted order of their values (byte order, which is
    /// the order of the texts as strings).
    pub(crate) fn sorted_ids(&self) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| self.bytes(a as usize).cmp(self.bytes(b as usize)));
        order
    }

    /// Rows of each value.
    pub(crate) fn counts(&self) -> &[usize] {
        &self.counts
    }

    /// Number of distinct values.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Empties the table, keeping its allocations.
    pub(crate) fn clear(&mut self) {
        self.ids.clear();
        self.text.clear();
        self.ends.clear();
        self.hashes.clear();
        self.counts.clear();
    }

    /// Adds another table's values (in its first-seen order) and returns the
    /// map from that table's ids to ours.
    pub(crate) fn merge(&mut self, other: &Interner) -> Vec<u32> {
        let mut map = Vec::with_capacity(other.len());
        for (i, (&hash, &count)) in other.hashes.iter().zip(&other.counts).enumerate() {
            let raw = other.bytes(i);
            let id = match self.find(hash, raw) {
                Some(id) => {
                    self.counts[id as usize] += count;
                    id
                }
                None => self.add(hash, raw, count),
            };
            map.push(id);
        }
        map
    }

    /// Class names and, per raw id, its class id (see [`assign_classes`]).
    pub(crate) fn classes(&self, positive: Option<&str>) -> Result<(Vec<String>, Vec<u32>)> {
        let pairs: Vec<(String, usize)> = self
            .names()
            .map(str::to_string)
            .zip(self.counts.iter().copied())
            .collect();
        assign_classes(&pairs, positive, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids are first-seen, counts add up, texts come back as given, and a
    /// merged table maps the other's ids to the same texts, whatever the
    /// tables' growth (enough values to grow the hash table many times).
    #[test]
    fn interning_and_merging_keep_texts_ids_and_counts() {
        let values: Vec<String> = (0..5000).map(|i| format!("m{}", i * 7919 % 1201)).collect();
        let (a_part, b_part) = values.split_at(2600);
        let (mut a, mut b) = (Interner::default(), Interner::default());
        for v in a_part {
            a.intern(v.as_bytes()).unwrap();
        }
        for v in b_part {
            b.intern(v.as_bytes()).unwrap();
        }
        let mut first_seen: Vec<&str> = Vec::new();
        for v in &values {
            if !first_seen.contains(&v.as_str()) {
                first_seen.push(v);
            }
        }
        let mut whole = a.clone();
        let map = whole.merge(&b);
        assert_eq!(whole.names().collect::<Vec<_>>(), first_seen);
        for (i, name) in b.names().enumerate() {
            assert_eq!(whole.name(map[i] as usize), name);
        }
        let total: usize = whole.counts().iter().sum();
        assert_eq!(total, values.len());
        let m0 = values.iter().filter(|v| *v == "m0").count();
        let id = whole.intern(b"m0").unwrap() as usize;
        assert_eq!(whole.counts()[id], m0 + 1);
        let sorted: Vec<&str> = whole
            .sorted_ids()
            .iter()
            .map(|&i| whole.name(i as usize))
            .collect();
        let mut expected = first_seen.clone();
        expected.push("m0");
        expected.sort_unstable();
        expected.dedup();
        assert_eq!(sorted, expected);
        assert_eq!(whole.intern(&[0xff, 0xfe]), None);
        assert_eq!(whole.len(), first_seen.len());
        whole.clear();
        assert_eq!(whole.len(), 0);
        assert_eq!(whole.intern("é".as_bytes()), Some(0));
        assert_eq!(whole.name(0), "é");
    }
}
