//! Kernels and the column cache of the SMO solver.
//!
//! `K(x, z) = x . z` (linear) or `exp(-gamma ||x - z||^2)` (RBF). The RBF
//! distance is computed as `||x||^2 + ||z||^2 - 2 x . z` from cached squared
//! norms (LIBSVM's approach; clamped at 0). The solver reads whole kernel
//! columns; [`Cache`] keeps the most recently used ones as `f32` (as LIBSVM
//! does, halving memory) within a byte budget and evicts the least recently
//! used column when full.

use serde::{Deserialize, Serialize};

use crate::learn::linalg::dot;

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
    /// `K(x, z)` given both squared norms.
    pub(crate) fn eval(&self, x: &[f64], z: &[f64], xx: f64, zz: f64) -> f64 {
        let dot = dot(x, z);
        match *self {
            Kernel::Linear => dot,
            Kernel::Rbf { gamma } => (-gamma * (xx + zz - 2.0 * dot).max(0.0)).exp(),
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

    fn column(&self, i: usize, out: &mut [f32]) {
        let xi = self.row(i);
        let ni = self.norms[i];
        for (j, o) in out.iter_mut().enumerate() {
            *o = self.kernel.eval(xi, self.row(j), ni, self.norms[j]) as f32;
        }
    }
}

/// Least-recently-used cache of kernel columns.
pub(crate) struct Cache<'g, 'a> {
    gram: &'g Gram<'a>,
    cols: Vec<Option<Box<[f32]>>>,
    stamp: Vec<u64>,
    clock: u64,
    held: usize,
    capacity: usize,
}

impl<'g, 'a> Cache<'g, 'a> {
    /// A cache holding at most `bytes` of columns (at least two columns).
    pub fn new(gram: &'g Gram<'a>, bytes: usize) -> Self {
        let n = gram.n();
        let per = (n * 4).max(1);
        Cache {
            gram,
            cols: (0..n).map(|_| None).collect(),
            stamp: vec![0; n],
            clock: 0,
            held: 0,
            capacity: (bytes / per).max(2),
        }
    }

    /// Makes column `i` resident (computing it if needed).
    pub fn touch(&mut self, i: usize) {
        self.clock += 1;
        self.stamp[i] = self.clock;
        if self.cols[i].is_some() {
            return;
        }
        let mut buf = if self.held >= self.capacity {
            // Evict the least recently used resident column; reuse its buffer.
            let victim = (0..self.cols.len())
                .filter(|&j| self.cols[j].is_some() && j != i)
                .min_by_key(|&j| self.stamp[j])
                .expect("a resident column");
            self.held -= 1;
            self.cols[victim].take().expect("resident")
        } else {
            vec![0.0f32; self.gram.n()].into_boxed_slice()
        };
        self.gram.column(i, &mut buf);
        self.cols[i] = Some(buf);
        self.held += 1;
    }

    /// Column `i`, which must have been touched since the last eviction.
    pub fn get(&self, i: usize) -> &[f32] {
        self.cols[i].as_deref().expect("touched column")
    }
}
