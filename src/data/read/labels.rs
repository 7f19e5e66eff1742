//! Class labels as CSV readers meet them: raw label bytes interned in
//! first-seen order with their counts, parts read in parallel merged, and
//! the final class ids assigned (see [`assign_classes`]).

use std::collections::HashMap;

use super::{assign_classes, parse_err};
use crate::error::Result;

/// Interns raw label bytes in first-seen order.
#[derive(Default)]
pub(super) struct Labels {
    ids: HashMap<Vec<u8>, u32>,
    names: Vec<String>,
    counts: Vec<usize>,
}

impl Labels {
    pub(super) fn intern(&mut self, raw: &[u8], origin: &str, line: u64) -> Result<u32> {
        if let Some(&id) = self.ids.get(raw) {
            self.counts[id as usize] += 1;
            return Ok(id);
        }
        let name = std::str::from_utf8(raw).map_err(|_| {
            parse_err(
                origin,
                format!("line {line}: the class label is not valid UTF-8"),
            )
        })?;
        let id = self.names.len() as u32;
        self.ids.insert(raw.to_vec(), id);
        self.names.push(name.to_string());
        self.counts.push(1);
        Ok(id)
    }

    /// Counts one more row of an already interned label.
    #[inline]
    pub(super) fn repeat(&mut self, id: u32) -> u32 {
        self.counts[id as usize] += 1;
        id
    }

    /// Adds another part's labels (in its first-seen order) and returns the
    /// map from that part's ids to ours.
    pub(super) fn merge(&mut self, other: Labels) -> Vec<u32> {
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

    /// Final class names and the remapped labels.
    pub(super) fn finish(
        self,
        raw: Vec<u32>,
        positive: Option<&str>,
    ) -> Result<(Vec<String>, Vec<u32>)> {
        let pairs: Vec<(String, usize)> = self.names.into_iter().zip(self.counts).collect();
        let (names, map) = assign_classes(&pairs, positive, false)?;
        Ok((names, raw.into_iter().map(|r| map[r as usize]).collect()))
    }
}
