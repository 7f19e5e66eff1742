//! Draws made from the class counts alone ([`Plan`]): the samplers whose
//! keep decision is per row and per class (random undersampling at a rate,
//! to a ratio, or with per-class rates) choose, for each class, which of
//! its rows to keep by their ordinal among that class's rows. The same plan
//! gives the in-memory sample ([`Plan::rows`]) and the sample kept while a
//! file is read ([`PlanCursor::keep`], after a pass that counts the
//! classes), so both are the same rows for the same seed, whatever the
//! block size or thread count of the reader.

use std::collections::HashMap;

use rand::RngExt;

use crate::rng::Rng;

/// Per class, the ordinals (0-based positions among the class's rows, in
/// input order) of the rows kept, sorted, a row drawn twice listed twice.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    /// The kept ordinals of each class.
    pub per_class: Vec<Vec<u64>>,
    /// Things the user should know.
    pub notes: Vec<String>,
}

impl Plan {
    /// Rows kept of each class.
    pub fn kept(&self) -> Vec<usize> {
        self.per_class.iter().map(Vec::len).collect()
    }

    /// The kept rows as indices, given the rows of each class
    /// (`groups[c][ordinal]`), in class order.
    pub fn rows(&self, groups: &[Vec<usize>]) -> Vec<usize> {
        self.per_class
            .iter()
            .zip(groups)
            .flat_map(|(ords, pool)| ords.iter().map(move |&o| pool[o as usize]))
            .collect()
    }

    /// A cursor for keeping rows as they stream past.
    pub fn cursor(&self) -> PlanCursor<'_> {
        PlanCursor {
            plan: self,
            seen: vec![0; self.per_class.len()],
            at: vec![0; self.per_class.len()],
        }
    }
}

/// Walks a [`Plan`] along the rows of an input in order.
#[derive(Debug)]
pub struct PlanCursor<'a> {
    plan: &'a Plan,
    seen: Vec<u64>,
    at: Vec<usize>,
}

impl PlanCursor<'_> {
    /// How many times the next row, of class `class`, is kept (0: left out).
    ///
    /// ```
    /// use rarity::sample::plan::Plan;
    /// let plan = Plan { per_class: vec![vec![1, 1], vec![0]], notes: vec![] };
    /// let mut c = plan.cursor();
    /// let times: Vec<usize> = [0, 1, 0, 1].iter().map(|&k| c.keep(k)).collect();
    /// assert_eq!(times, vec![0, 1, 2, 0]);
    /// ```
    #[inline]
    pub fn keep(&mut self, class: usize) -> usize {
        let o = self.seen[class];
        self.seen[class] += 1;
        let ords = &self.plan.per_class[class];
        let mut n = 0;
        while self.at[class] < ords.len() && ords[self.at[class]] == o {
            self.at[class] += 1;
            n += 1;
        }
        n
    }
}

/// Each of `n` ordinals kept with probability `p`: one uniform draw per
/// ordinal in order, as `draw::bernoulli` draws for a pool of `n` rows.
pub(crate) fn bernoulli_ordinals(n: usize, p: f64, rng: &mut Rng) -> Vec<u64> {
    (0..n as u64).filter(|_| rng.random::<f64>() < p).collect()
}

/// `m` distinct ordinals of `0..n` (capped at `n`), sorted: the draws of
/// `draw::without_replacement` on a pool of `n` rows (a partial
/// Fisher-Yates shuffle), kept in a map of the displaced entries so memory
/// grows with `m`, not `n`.
pub(crate) fn without_replacement_ordinals(n: usize, m: usize, rng: &mut Rng) -> Vec<u64> {
    let m = m.min(n);
    let mut moved: HashMap<usize, usize> = HashMap::with_capacity(2 * m);
    let mut out = Vec::with_capacity(m);
    for i in 0..m {
        let j = rng.random_range(i..n);
        let vi = *moved.get(&i).unwrap_or(&i);
        let vj = *moved.get(&j).unwrap_or(&j);
        moved.insert(j, vi);
        moved.insert(i, vj);
        out.push(vj as u64);
    }
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;
    use crate::sample::draw::without_replacement;

    #[test]
    fn ordinal_draws_are_the_pool_draws() {
        let pool: Vec<usize> = (0..1000).collect();
        for m in [0, 1, 17, 999, 1000, 5000] {
            let mut a = without_replacement(&pool, m, &mut stream(3, m as u64));
            a.sort_unstable();
            let b = without_replacement_ordinals(1000, m, &mut stream(3, m as u64));
            assert_eq!(a, b.iter().map(|&o| o as usize).collect::<Vec<_>>());
        }
        // One uniform per row in order, as the pool draw it replaced.
        let mut r = stream(4, 0);
        let a: Vec<u64> = (0..1000u64).filter(|_| r.random::<f64>() < 0.1).collect();
        assert_eq!(a, bernoulli_ordinals(1000, 0.1, &mut stream(4, 0)));
    }

    #[test]
    fn bernoulli_rate_within_binomial_error() {
        let kept = bernoulli_ordinals(20_000, 0.3, &mut stream(2, 0)).len() as f64;
        let sd = (20_000.0f64 * 0.3 * 0.7).sqrt();
        assert!((kept - 6_000.0).abs() < 5.0 * sd, "{kept}");
    }
}
