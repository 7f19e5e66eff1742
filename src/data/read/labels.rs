//! Text values as readers meet them (class labels, categorical levels):
//! raw bytes interned in first-seen order with their counts, the tables of
//! parts read in parallel merged in order, and the final class ids assigned
//! (see [`assign_classes`]).

use std::collections::HashMap;

use super::assign_classes;
use crate::error::Result;

/// Interns raw text in first-seen order, counting each value.
#[derive(Debug, Default, Clone)]
pub(crate) struct Interner {
    ids: HashMap<Vec<u8>, u32>,
    names: Vec<String>,
    counts: Vec<usize>,
}

impl Interner {
    /// The id of `raw`, added if new; `None` if it is not valid UTF-8.
    #[inline]
    pub(crate) fn intern(&mut self, raw: &[u8]) -> Option<u32> {
        if let Some(&id) = self.ids.get(raw) {
            self.counts[id as usize] += 1;
            return Some(id);
        }
        let name = std::str::from_utf8(raw).ok()?;
        let id = self.names.len() as u32;
        self.ids.insert(raw.to_vec(), id);
        self.names.push(name.to_string());
        self.counts.push(1);
        Some(id)
    }

    /// Counts one more row of an already interned value.
    #[inline]
    pub(crate) fn repeat(&mut self, id: u32) -> u32 {
        self.counts[id as usize] += 1;
        id
    }

    /// The values, in first-seen order.
    pub(crate) fn names(&self) -> &[String] {
        &self.names
    }

    /// Rows of each value.
    pub(crate) fn counts(&self) -> &[usize] {
        &self.counts
    }

    /// Number of distinct values.
    pub(crate) fn len(&self) -> usize {
        self.names.len()
    }

    /// Adds another table's values (in its first-seen order) and returns the
    /// map from that table's ids to ours.
    pub(crate) fn merge(&mut self, other: Interner) -> Vec<u32> {
        let mut map = Vec::with_capacity(other.names.len());
        for (name, count) in other.names.into_iter().zip(other.counts) {
            let key = name.as_bytes().to_vec();
            let id = match self.ids.get(&key) {
                Some(&id) => id,
                None => {
                    let id = self.names.len() as u32;
                    self.ids.insert(key, id);
                    self.names.push(name);
                    self.counts.push(0);
                    id
                }
            };
            self.counts[id as usize] += count;
            map.push(id);
        }
        map
    }

    /// Class names and, per raw id, its class id (see [`assign_classes`]).
    pub(crate) fn classes(&self, positive: Option<&str>) -> Result<(Vec<String>, Vec<u32>)> {
        let pairs: Vec<(String, usize)> = self
            .names
            .iter()
            .cloned()
            .zip(self.counts.iter().copied())
            .collect();
        assign_classes(&pairs, positive, false)
    }
}
