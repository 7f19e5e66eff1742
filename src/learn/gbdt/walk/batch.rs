//! Batch scoring: [`ROWS`] rows at a time through every tree, node by node,
//! as bit masks (bit `r` for row `r`) instead of row by row.
//!
//! The rows' features are first turned into one-byte codes against the
//! model's own thresholds: a feature's distinct split thresholds,
//! ascending, `t_0 < t_1 < ...`, and a value's code, the number of them it
//! is not `<=` to (a NaN is not `<=` to any, so it takes the largest code
//! and goes right at every split, as in the row walk). Then
//! `x <= t_k` exactly when `code <= k`: a split compares the block's 64
//! codes of its feature with one byte at once, which gives the mask of rows
//! going left. Split by split (children lie after their parents), a
//! child's mask is its parent's ANDed with the rows going its way; at the
//! leaves, each row reads its leaf's number back bit by bit and adds the
//! leaf's value to its score. Trees go in the model's order, so each row
//! adds the same values in the same order as the row walk: the scores are
//! identical bit for bit.
//!
//! A block holding a missing value (NaN) also gets, per feature, the mask
//! of its rows whose value is missing; a split whose `default_left` is set
//! adds that mask to the rows going left ([`numeric_left`]'s rule, as
//! masks). Other blocks skip both.
//!
//! The cost of a tree is per block, not per row, so blocks of few rows go
//! through the row walk instead (see [`MIN_ROWS`]).

use crate::learn::gbdt::tree::GbdtTree;
#[cfg(doc)]
use crate::learn::tree::numeric_left;

/// Rows scored together (one bit each in a `u64`).
pub(super) const ROWS: usize = 64;

/// Fewest rows in a block worth this layout: below it, the row walk is
/// faster (a tree costs the same here for 1 row as for 64).
pub(super) const MIN_ROWS: usize = 16;

/// Most leaves per tree: a leaf's number is one byte.
const MAX_LEAVES: usize = 256;

/// Most distinct thresholds per feature: codes `0..=255` are one byte.
const MAX_CUTS: usize = 255;

/// One split: rows whose code of `feature` is `<= code` go to `left`, and
/// so do missing values when `default_left`; the others to `right`
/// (indices local to the tree: its splits, then its leaves).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Split {
    feature: u32,
    code: u8,
    default_left: bool,
    left: u16,
    right: u16,
}

/// Where one tree lies in the layout.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Shape {
    /// Its first split in `Batch::splits`.
    split: usize,
    /// Its number of splits (its leaves are one more).
    splits: usize,
    /// Its first leaf value in `Batch::values`.
    value: usize,
    /// Bits of a leaf number (`2^bits >= leaves`).
    bits: u32,
}

/// The batch layout of a model's trees.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Batch {
    n_features: usize,
    /// Per feature, its distinct split thresholds ascending (empty for a
    /// feature no split uses).
    cuts: Vec<Vec<f64>>,
    /// The same cuts in groups of 16, for the AVX-512 codes.
    groups: Vec<Groups>,
    splits: Vec<Split>,
    values: Vec<f64>,
    trees: Vec<Shape>,
}

/// A feature's cuts in groups of 16 (the last one padded with +inf), and
/// the last cut of each group (+inf past the last group): a value's code is
/// 16 times the number of groups wholly below it plus its code in the next
/// group, two pairs of 8-wide comparisons.
#[derive(Debug, Clone, PartialEq)]
struct Groups {
    padded: Vec<f64>,
    last: [f64; 16],
}

impl Groups {
    fn new(cuts: &[f64]) -> Groups {
        let mut padded = cuts.to_vec();
        padded.resize(cuts.len().div_ceil(16).max(1) * 16, f64::INFINITY);
        let mut last = [f64::INFINITY; 16];
        for (l, g) in last.iter_mut().zip(padded.chunks_exact(16)) {
            *l = g[15];
        }
        Groups { padded, last }
    }
}

/// The working memory of [`Batch::add`], reused from block to block.
pub(super) struct Scratch {
    /// Column-major codes: feature `f` of row `r` at `f * ROWS + r`.
    codes: Vec<u8>,
    /// Per node of the current tree, the rows reaching it.
    reach: Vec<u64>,
    /// Per leaf of the current tree, the rows reaching the leaves before it.
    prefix: Vec<u64>,
    /// Per feature, the rows whose value is missing (filled for blocks
    /// holding a NaN).
    nan: Vec<u64>,
}

impl Batch {
    /// The layout of `trees` over `n_features` features, or `None` when a
    /// tree does not fit it (a NaN threshold, more than [`MAX_LEAVES`]
    /// leaves or more than [`MAX_CUTS`] distinct thresholds on a feature)
    /// or is malformed (the row walk's checks, and one parent per node).
    pub(super) fn new(trees: &[GbdtTree], n_features: usize) -> Option<Batch> {
        let mut cuts = vec![Vec::new(); n_features];
        for tree in trees {
            if tree.values.len() != tree.nodes.len() + 1 || tree.values.len() > MAX_LEAVES {
                return None;
            }
            for n in &tree.nodes {
                if n.threshold.is_nan() {
                    return None;
                }
                cuts.get_mut(n.feature as usize)?.push(n.threshold);
            }
        }
        for c in &mut cuts {
            c.sort_by(f64::total_cmp);
            c.dedup_by(|a, b| a == b);
            if c.len() > MAX_CUTS {
                return None;
            }
        }
        let mut batch = Batch {
            n_features,
            groups: cuts.iter().map(|c| Groups::new(c)).collect(),
            cuts,
            splits: Vec::new(),
            values: Vec::new(),
            trees: Vec::with_capacity(trees.len()),
        };
        for tree in trees {
            batch.push(tree)?;
        }
        Some(batch)
    }

    /// Appends `tree` (its thresholds already among the cuts), or `None`
    /// when a child does not lie after its parent inside the tree or a
    /// node is not reached from exactly one parent (the root from none).
    fn push(&mut self, tree: &GbdtTree) -> Option<()> {
        let (splits, leaves) = (tree.nodes.len(), tree.values.len());
        self.trees.push(Shape {
            split: self.splits.len(),
            splits,
            value: self.values.len(),
            bits: usize::BITS - (leaves - 1).leading_zeros(),
        });
        for (i, n) in tree.nodes.iter().enumerate() {
            let child = |c: i32| u16::try_from(super::local_child(c, i, splits, leaves)?).ok();
            let cuts = &self.cuts[n.feature as usize];
            // The cuts hold every threshold and compare equal to it at
            // this index (-0.0 and 0.0 are one cut, as they are to `<=`).
            let code = cuts.partition_point(|&t| t < n.threshold);
            self.splits.push(Split {
                feature: n.feature,
                code: u8::try_from(code).ok()?,
                default_left: n.default_left,
                left: child(n.left)?,
                right: child(n.right)?,
            });
        }
        // Every node but the root has one parent, so the rows reaching a
        // split are split in two and every row reaches one leaf.
        let mut parents = vec![0u8; splits + leaves];
        for n in &self.splits[self.splits.len() - splits..] {
            for c in [n.left, n.right] {
                parents[usize::from(c)] += 1;
            }
        }
        if parents[0] != 0 || parents[1..].iter().any(|&p| p != 1) {
            return None;
        }
        self.values.extend_from_slice(&tree.values);
        Some(())
    }

    /// Working memory for [`Batch::add`].
    pub(super) fn scratch(&self) -> Scratch {
        let nodes = self.trees.iter().map(|s| 2 * s.splits + 1).max();
        Scratch {
            codes: vec![0; self.n_features * ROWS],
            reach: vec![0; nodes.unwrap_or(1)],
            prefix: vec![0; nodes.unwrap_or(1) / 2 + 2],
            nan: vec![0; self.n_features],
        }
    }

    /// Adds every tree's leaf value to the scores of the rows of the
    /// row-major block `x` (at most [`ROWS`] rows, `d >= n_features` values
    /// each): tree `t` adds to output `t % o` of the row's `o` scores in
    /// `f`, trees in order; `nan`: the block may hold a missing value that
    /// a split sends left. The caller checks the shapes.
    pub(super) fn add(
        &self,
        x: &[f64],
        d: usize,
        o: usize,
        f: &mut [f64],
        s: &mut Scratch,
        nan: bool,
    ) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("popcnt")
        {
            // SAFETY: the CPU has the features `add_avx512` enables.
            return unsafe { self.add_avx512(x, d, o, f, s, nan) };
        }
        match nan {
            true => self.add_with::<false, true>(x, d, o, f, s),
            false => self.add_with::<false, false>(x, d, o, f, s),
        }
    }

    /// [`Batch::add`] comparing 64 codes in one instruction.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,popcnt")]
    fn add_avx512(&self, x: &[f64], d: usize, o: usize, f: &mut [f64], s: &mut Scratch, nan: bool) {
        match nan {
            true => self.add_with::<true, true>(x, d, o, f, s),
            false => self.add_with::<true, false>(x, d, o, f, s),
        }
    }

    /// [`Batch::add`], with AVX-512BW when `WIDE`, with the masks of the
    /// missing values when `NAN`.
    #[inline(always)]
    fn add_with<const WIDE: bool, const NAN: bool>(
        &self,
        x: &[f64],
        d: usize,
        o: usize,
        f: &mut [f64],
        s: &mut Scratch,
    ) {
        let rows = f.len() / o;
        debug_assert!(rows <= ROWS && x.len() >= rows * d && d >= self.n_features);
        for (feature, cuts) in self.cuts.iter().enumerate() {
            if cuts.is_empty() {
                continue;
            }
            let col = &mut s.codes[feature * ROWS..(feature + 1) * ROWS];
            let value = |r: usize| x[r * d + feature];
            if NAN {
                s.nan[feature] = (0..rows).fold(0, |m, r| m | u64::from(value(r).is_nan()) << r);
            }
            if WIDE {
                codes_wide(&self.groups[feature], cuts.len(), value, &mut col[..rows]);
                continue;
            }
            for (r, c) in col[..rows].iter_mut().enumerate() {
                *c = code(cuts, value(r));
            }
        }
        for (t, shape) in self.trees.iter().enumerate() {
            let leaf = self.leaves::<WIDE, NAN>(shape, s);
            let values = &self.values[shape.value..shape.value + shape.splits + 1];
            if o == 1 {
                for (fr, &l) in f.iter_mut().zip(&leaf) {
                    // SAFETY: every row reaches one leaf of the tree (one
                    // parent per node, checked by `Batch::new`), so its
                    // number is below the tree's leaf count.
                    *fr += unsafe { *values.get_unchecked(usize::from(l)) };
                }
                continue;
            }
            for (fr, &l) in f.chunks_exact_mut(o).zip(&leaf) {
                fr[t % o] += values[usize::from(l)];
            }
        }
    }

    /// Routes the block through the tree `shape`; returns each row's leaf
    /// (`NAN`: the missing values of a split's feature go left where its
    /// `default_left` is set).
    #[inline(always)]
    fn leaves<const WIDE: bool, const NAN: bool>(
        &self,
        shape: &Shape,
        s: &mut Scratch,
    ) -> [u8; ROWS] {
        let splits = &self.splits[shape.split..shape.split + shape.splits];
        let reach = &mut s.reach[..2 * shape.splits + 1];
        reach[0] = u64::MAX;
        for (i, n) in splits.iter().enumerate() {
            let at = n.feature as usize * ROWS;
            // SAFETY: `Batch::new` checked that features are below
            // `n_features` (the codes hold `ROWS` per feature) and that
            // children are nodes of the tree (`reach` holds them all), and
            // `i` is a split of the tree.
            unsafe {
                let col = &*s.codes.as_ptr().add(at).cast::<[u8; ROWS]>();
                let mut left = le_mask::<WIDE>(col, n.code);
                if NAN && n.default_left {
                    left |= *s.nan.get_unchecked(n.feature as usize);
                }
                let r = *reach.get_unchecked(i);
                *reach.get_unchecked_mut(usize::from(n.left)) = r & left;
                *reach.get_unchecked_mut(usize::from(n.right)) = r & !left;
            }
        }
        // The leaves' rows are disjoint, so the rows of leaves `a..b` are
        // `prefix[a] ^ prefix[b]`; bit `b` of row `r`'s leaf number is bit
        // `r` of `id[b]`, the rows of the leaves with bit `b` set (runs of
        // `2^b` leaves).
        let leaves = &reach[shape.splits..];
        let prefix = &mut s.prefix[..=leaves.len()];
        let mut acc = 0;
        for (p, &r) in prefix[1..].iter_mut().zip(leaves) {
            acc ^= r;
            *p = acc;
        }
        let mut id = [0u64; 8];
        for (b, m) in id.iter_mut().enumerate().take(shape.bits as usize) {
            let step = 1 << b;
            for a in (step..leaves.len()).step_by(2 * step) {
                *m ^= prefix[a] ^ prefix[(a + step).min(leaves.len())];
            }
        }
        let mut out = [0u8; ROWS];
        for (g, out) in out.chunks_exact_mut(8).enumerate() {
            let bytes = id[..shape.bits as usize]
                .iter()
                .enumerate()
                .fold(0, |v, (b, m)| {
                    v | (SPREAD[usize::from((m >> (8 * g)) as u8)] << b)
                });
            out.copy_from_slice(&bytes.to_le_bytes());
        }
        out
    }
}

/// Byte `i` of `SPREAD[m]` is bit `i` of `m`.
const SPREAD: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let mut i = 0;
        while i < 8 {
            t[m] |= ((m as u64 >> i) & 1) << (8 * i);
            i += 1;
        }
        m += 1;
    }
    t
};

/// The number of `cuts` (ascending, at least one) that `x` is not `<=` to:
/// a lower bound without branches.
#[inline(always)]
fn code(cuts: &[f64], x: f64) -> u8 {
    let mut base = 0;
    let mut size = cuts.len();
    while size > 1 {
        let half = size / 2;
        // A conditional move, not a branch: the rows' values are random.
        base = std::hint::select_unpredictable(x <= cuts[base + half], base, base + half);
        size -= half;
    }
    (base + 1 - usize::from(x <= cuts[base])) as u8
}

/// [`code`] of each of `values` into `codes`, with AVX-512: the groups of
/// `g` wholly below a value, then the cuts of the next group below it (a
/// NaN is below all, and its count is capped at `len`, the number of cuts).
#[inline(always)]
fn codes_wide(g: &Groups, len: usize, value: impl Fn(usize) -> f64, codes: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        let groups = g.padded.len() / 16;
        // SAFETY: only called inside `Batch::add_avx512` (a CPU with
        // AVX-512); `last` holds 16 values and `padded` 16 per group, and
        // the group index is capped below the number of groups.
        unsafe {
            let last = g.last.as_ptr();
            let (l0, l1) = (_mm512_loadu_pd(last), _mm512_loadu_pd(last.add(8)));
            let below = |xv: __m512d, a: __m512d, b: __m512d| {
                _mm512_cmp_pd_mask::<_CMP_NLE_UQ>(xv, a).count_ones()
                    + _mm512_cmp_pd_mask::<_CMP_NLE_UQ>(xv, b).count_ones()
            };
            if groups <= 8 {
                // The groups' last cuts fit one comparison.
                for (r, c) in codes.iter_mut().enumerate() {
                    let xv = _mm512_set1_pd(value(r));
                    let above = _mm512_cmp_pd_mask::<_CMP_NLE_UQ>(xv, l0).count_ones();
                    let group = (above as usize).min(groups - 1);
                    let p = g.padded.as_ptr().add(16 * group);
                    let n = 16 * group
                        + below(xv, _mm512_loadu_pd(p), _mm512_loadu_pd(p.add(8))) as usize;
                    *c = n.min(len) as u8;
                }
                return;
            }
            for (r, c) in codes.iter_mut().enumerate() {
                let xv = _mm512_set1_pd(value(r));
                let group = (below(xv, l0, l1) as usize).min(groups - 1);
                let p = g.padded.as_ptr().add(16 * group);
                let n =
                    16 * group + below(xv, _mm512_loadu_pd(p), _mm512_loadu_pd(p.add(8))) as usize;
                *c = n.min(len) as u8;
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    for (r, c) in codes.iter_mut().enumerate() {
        *c = code(&g.padded[..len], value(r));
    }
}

/// Bit `r` set when `col[r] <= k` (with AVX-512BW when `WIDE`).
#[inline(always)]
fn le_mask<const WIDE: bool>(col: &[u8; ROWS], k: u8) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        if WIDE {
            // SAFETY: `WIDE` is only set inside `Batch::add_avx512`, which
            // runs on a CPU with AVX-512BW; the load reads the 64 bytes of
            // `col`.
            return unsafe {
                _mm512_cmple_epu8_mask(
                    _mm512_loadu_si512(col.as_ptr().cast()),
                    _mm512_set1_epi8(k as i8),
                )
            };
        }
        // SAFETY: SSE2 is part of x86_64; the four loads read the 64 bytes
        // of `col`.
        unsafe {
            let kv = _mm_set1_epi8(k as i8);
            let mut m = 0u64;
            for q in 0..ROWS / 16 {
                let c = _mm_loadu_si128(col.as_ptr().add(16 * q).cast());
                let le = _mm_cmpeq_epi8(_mm_min_epu8(c, kv), c);
                m |= u64::from(_mm_movemask_epi8(le) as u16) << (16 * q);
            }
            m
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        col.iter()
            .enumerate()
            .fold(0, |m, (r, &c)| m | (u64::from(c <= k) << r))
    }
}
