//! Kernels and the column cache of the SMO solver.
//!
//! `K(x, z) = x . z` (linear) or `exp(-gamma ||x - z||^2)` (RBF). The RBF
//! distance is computed as `||x||^2 + ||z||^2 - 2 x . z` from cached squared
//! norms (LIBSVM's approach; clamped at 0). The solver reads kernel columns;
//! [`Cache`] keeps the most recently used ones as `f32` (as LIBSVM does,
//! halving memory) within a byte budget and evicts the least recently used
//! column when full.
//!
//! While the solver has shrunk its problem it needs a column only at the
//! active variables, so the cache computes just those entries (the bulk of
//! the kernel work on problems that shrink well). A partial column stays
//! valid while the active set only shrinks, that is until the solver
//! restores the full set and starts a new *epoch*; columns computed with
//! every variable active are complete and valid for good.

use serde::{Deserialize, Serialize};

use crate::learn::linalg::{dot, dots_block, transpose_block, BLOCK};

/// A kernel with its parameter resolved.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Kernel {
    /// `x . z`.
    Linear,
    /// `exp(-gamma ||x - z||^2)`.
    Rbf {
        /// Width parameter (> 0).
        gamma: f64,
    },
}

impl Kernel {
    /// Checks a kernel read from a file: an RBF width finite and `> 0`.
    pub(crate) fn validate(&self) -> Result<(), String> {
        match self {
            Kernel::Linear => Ok(()),
            Kernel::Rbf { gamma } => crate::check::positive("RBF kernel gamma", &[*gamma]),
        }
    }

    /// `K(x, z)` given both squared norms.
    pub(crate) fn eval(&self, x: &[f64], z: &[f64], xx: f64, zz: f64) -> f64 {
        let dot = dot(x, z);
        match *self {
            Kernel::Linear => dot,
            Kernel::Rbf { gamma } => (-gamma * (xx + zz - 2.0 * dot).max(0.0)).exp(),
        }
    }
}

impl Kernel {
    /// `K(x_b, z)` for the rows `b` of a block transposed by
    /// [`transpose_block`], given their squared norms `xx` and `z`'s `zz`.
    pub(crate) fn eval_block(
        &self,
        t: &[f64],
        xx: &[f64; BLOCK],
        z: &[f64],
        zz: f64,
    ) -> [f64; BLOCK] {
        let mut k = dots_block(z, t);
        if let Kernel::Rbf { gamma } = *self {
            for (kb, xb) in k.iter_mut().zip(xx) {
                *kb = (-gamma * (xb + zz - 2.0 * *kb).max(0.0)).exp();
            }
        }
        k
    }

    /// `K(x, z_s)` for each row `x` of `x` (row-major, `d` columns, squared
    /// norms `xx`) and each row `z_s` of `z` (squared norms `zz`), written
    /// row-major into `out` (`rows x zs`). Rows go through in blocks, so
    /// that `z` is read once per block.
    pub(crate) fn eval_rows(
        &self,
        x: &[f64],
        xx: &[f64],
        z: &[f64],
        zz: &[f64],
        d: usize,
        out: &mut [f64],
    ) {
        let m = zz.len();
        let mut t = vec![0.0; d * BLOCK];
        let mut norms = [0.0; BLOCK];
        for ((xs, ns), outs) in x
            .chunks(d * BLOCK)
            .zip(xx.chunks(BLOCK))
            .zip(out.chunks_mut(m * BLOCK))
        {
            transpose_block(xs, d, &mut t);
            norms[..ns.len()].copy_from_slice(ns);
            for (s, (zs, &zn)) in z.chunks_exact(d).zip(zz).enumerate() {
                let k = self.eval_block(&t, &norms, zs, zn);
                for (b, kb) in k.iter().take(ns.len()).enumerate() {
                    outs[b * m + s] = *kb;
                }
            }
        }
    }
}

/// Training rows with their squared norms, for kernel columns.
pub(crate) struct Gram<'a> {
    pub kernel: Kernel,
    pub x: &'a [f64],
    pub d: usize,
    pub norms: Vec<f64>,
}

impl<'a> Gram<'a> {
    pub fn new(kernel: Kernel, x: &'a [f64], d: usize) -> Self {
        let norms = x.chunks(d).map(|r| dot(r, r)).collect();
        Gram {
            kernel,
            x,
            d,
            norms,
        }
    }

    pub fn n(&self) -> usize {
        self.norms.len()
    }

    pub fn row(&self, i: usize) -> &[f64] {
        &self.x[i * self.d..(i + 1) * self.d]
    }

    pub fn entry(&self, i: usize, j: usize) -> f64 {
        self.kernel
            .eval(self.row(i), self.row(j), self.norms[i], self.norms[j])
    }

    /// Writes `K(x_i, x_t)` into `out[t]` for every `t` in `at`, or for all
    /// rows when `at` is `None`.
    fn column(&self, i: usize, at: Option<&[usize]>, out: &mut [f32]) {
        let xi = self.row(i);
        let ni = self.norms[i];
        let k = |t: usize| self.kernel.eval(xi, self.row(t), ni, self.norms[t]) as f32;
        match at {
            None => out.iter_mut().enumerate().for_each(|(t, o)| *o = k(t)),
            Some(at) => at.iter().for_each(|&t| out[t] = k(t)),
        }
    }
}

impl Gram<'_> {
    /// The complete columns `idx` (at most [`BLOCK`]) into `outs`, reading
    /// the rows once for all of them.
    fn columns(&self, idx: &[usize], outs: &mut [Box<[f32]>]) {
        let mut t = vec![0.0; self.d * BLOCK];
        let mut norms = [0.0; BLOCK];
        for (b, &i) in idx.iter().enumerate() {
            for (j, v) in self.row(i).iter().enumerate() {
                t[j * BLOCK + b] = *v;
            }
            norms[b] = self.norms[i];
        }
        for s in 0..self.n() {
            let k = self
                .kernel
                .eval_block(&t, &norms, self.row(s), self.norms[s]);
            for (out, kb) in outs.iter_mut().zip(k) {
                out[s] = kb as f32;
            }
        }
    }
}

/// The epoch mark of a complete column.
const COMPLETE: u32 = u32::MAX;

/// Least-recently-used cache of kernel columns.
pub(crate) struct Cache<'g, 'a> {
    gram: &'g Gram<'a>,
    cols: Vec<Option<Box<[f32]>>>,
    stamp: Vec<u64>,
    /// Per column: [`COMPLETE`], or the epoch its active entries belong to.
    valid: Vec<u32>,
    epoch: u32,
    clock: u64,
    held: usize,
    capacity: usize,
}

impl<'g, 'a> Cache<'g, 'a> {
    /// A cache holding at most `bytes` of columns (at least `BLOCK + 2`).
    pub fn new(gram: &'g Gram<'a>, bytes: usize) -> Self {
        let n = gram.n();
        let per = (n * 4).max(1);
        Cache {
            gram,
            cols: (0..n).map(|_| None).collect(),
            stamp: vec![0; n],
            valid: vec![0; n],
            epoch: 0,
            clock: 0,
            held: 0,
            capacity: (bytes / per).max(BLOCK + 2),
        }
    }

    /// Makes column `i` resident with (at least) the entries of the active
    /// variables `active`, which lists all of them or, in the current epoch,
    /// a subset of every active set of the epoch before it.
    pub fn touch(&mut self, i: usize, active: &[usize]) {
        self.clock += 1;
        self.stamp[i] = self.clock;
        let all = active.len() == self.gram.n();
        if self.cols[i].is_some() && (self.valid[i] == COMPLETE || self.valid[i] == self.epoch) {
            return;
        }
        let mut buf = match self.cols[i].take() {
            Some(buf) => buf,
            None => self.buffer(i),
        };
        self.gram.column(i, (!all).then_some(active), &mut buf);
        self.valid[i] = if all { COMPLETE } else { self.epoch };
        self.cols[i] = Some(buf);
    }

    /// Makes the columns `idx` (at most [`BLOCK`]) resident and complete,
    /// computing the missing ones together.
    pub fn touch_all(&mut self, idx: &[usize]) {
        let missing: Vec<usize> = idx
            .iter()
            .copied()
            .filter(|&i| self.cols[i].is_none() || self.valid[i] != COMPLETE)
            .collect();
        for &i in idx {
            self.clock += 1;
            self.stamp[i] = self.clock;
        }
        let mut bufs: Vec<Box<[f32]>> = missing
            .iter()
            .map(|&i| self.cols[i].take().unwrap_or_else(|| self.buffer(i)))
            .collect();
        self.gram.columns(&missing, &mut bufs);
        for (&i, buf) in missing.iter().zip(bufs) {
            self.valid[i] = COMPLETE;
            self.cols[i] = Some(buf);
        }
    }

    /// Makes column `i` resident and complete; `inactive` lists the
    /// variables outside the current active set (the entries a column of
    /// this epoch may lack).
    pub fn complete(&mut self, i: usize, inactive: &[usize]) {
        self.clock += 1;
        self.stamp[i] = self.clock;
        let (mut buf, at) = match self.cols[i].take() {
            Some(buf) if self.valid[i] == COMPLETE => {
                self.cols[i] = Some(buf);
                return;
            }
            Some(buf) if self.valid[i] == self.epoch => (buf, Some(inactive)),
            Some(buf) => (buf, None),
            None => (self.buffer(i), None),
        };
        self.gram.column(i, at, &mut buf);
        self.valid[i] = COMPLETE;
        self.cols[i] = Some(buf);
    }

    /// Starts a new epoch: the solver has restored every variable, so the
    /// partial columns computed so far no longer cover the active set.
    pub fn new_epoch(&mut self) {
        self.epoch += 1;
    }

    /// A buffer for a new resident column `i`: a fresh one while there is
    /// room, else the least recently used other column's.
    fn buffer(&mut self, i: usize) -> Box<[f32]> {
        if self.held < self.capacity {
            self.held += 1;
            return vec![0.0f32; self.gram.n()].into_boxed_slice();
        }
        let victim = (0..self.cols.len())
            .filter(|&j| self.cols[j].is_some() && j != i)
            .min_by_key(|&j| self.stamp[j])
            .expect("a resident column");
        self.cols[victim].take().expect("resident")
    }

    /// The rows and kernel the columns come from.
    pub fn gram(&self) -> &'g Gram<'a> {
        self.gram
    }

    /// The kernel.
    pub fn kernel(&self) -> Kernel {
        self.gram.kernel
    }

    /// Column `i`, which must have been touched since the last eviction
    /// (only the entries it was touched for are meaningful).
    pub fn get(&self, i: usize) -> &[f32] {
        self.cols[i].as_deref().expect("touched column")
    }
}
