//! Quantized gradients for the histograms (Shi, Ke et al. 2022,
//! "Quantized Training of Gradient Boosting Decision Trees", NeurIPS;
//! LightGBM's `use_quantized_grad`).
//!
//! Before a tree is grown, each row's gradient `g` and hessian `h` are
//! rounded to whole multiples of two scales: `g ~ s_g q` with `q` in
//! `-127..=127` and `s_g = max |g| / 127`, `h ~ s_h r` with `r` in
//! `0..=255` and `s_h = max h / 255`. The rounding is stochastic (`q =
//! floor(g / s_g + u)`, `u` uniform on `[0, 1)`; the paper's Theorem 3.1),
//! so every histogram sum is unbiased; `u` (16 bits) comes from a generator
//! started per block of rows from the tree's key and the block's index, so
//! the values depend on the row's position, not on the thread count. The paper rounds to 2-3 bits to pack its histograms
//! into 16 bits; here a row's two integers are packed into one `u64` (`q`
//! in the upper half, two's complement, `r` in the lower), a histogram bin
//! sums whole words with one integer addition (8 bytes a bin where the
//! exact bins take 16), and more levels cost nothing. The halves cannot
//! spill into each other while `sum r < 2^32` and `|sum q| < 2^31`: true
//! for at most [`MAX_ROWS`] rows.
//!
//! Only the split search sees the quantized sums (a bin's sums are turned
//! back into `f64` by the scales as the bin is written out). A leaf's value
//! is computed from the exact gradients of its rows once the tree is grown
//! (the paper's leaf renewal, LightGBM's `quant_train_renew_leaf`), so the
//! rounding can move a split, never a step.

use rayon::prelude::*;

use super::split::{Bin, Grad};
use super::GradientSums;
use crate::error::{Error, Result};

/// Largest quantized gradient magnitude.
const G_LEVELS: f64 = 127.0;

/// Largest quantized hessian.
const H_LEVELS: f64 = 255.0;

/// The most rows whose packed sums cannot overflow: `255 * 2^24 < 2^32`
/// and `127 * 2^24 < 2^31`.
pub(super) const MAX_ROWS: usize = 1 << 24;

/// Training rows from which `gradients=auto` quantizes.
pub(super) const AUTO_ROWS: usize = 500_000;

/// Whether a fit on `rows` training rows quantizes its gradients under
/// `mode`; an error for `quantized` past [`MAX_ROWS`].
pub(super) fn applies(mode: GradientSums, rows: usize) -> Result<bool> {
    match mode {
        GradientSums::Exact => Ok(false),
        GradientSums::Auto => Ok((AUTO_ROWS..=MAX_ROWS).contains(&rows)),
        GradientSums::Quantized if rows <= MAX_ROWS => Ok(true),
        GradientSums::Quantized => Err(Error::invalid(format!(
            "gbdt: gradients=quantized takes at most {MAX_ROWS} training rows ({rows} given); \
             use gradients=auto or exact"
        ))),
    }
}

/// Rows per parallel task.
const CHUNK: usize = 1 << 14;

/// The values of one unit of the quantized gradient and hessian.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Scale {
    pub g: f64,
    pub h: f64,
}

impl Scale {
    /// The sums of a packed sum of rows, in the gradients' units.
    #[inline(always)]
    pub fn unpack(&self, s: u64) -> Bin {
        let r = s & 0xffff_ffff;
        let q = (s as i64 - r as i64) >> 32;
        Bin {
            g: q as f64 * self.g,
            h: r as f64 * self.h,
        }
    }
}

/// One row's quantized gradient `q` and hessian `r`, packed.
#[inline(always)]
fn pack(q: i64, r: u64) -> u64 {
    ((q as u64) << 32).wrapping_add(r)
}

/// The random words of one block of rows: wyrand (Wang Yi's generator: a
/// Weyl sequence through a 128-bit multiply), started from the tree's key
/// and the block's index, so a row's draws depend on its position only.
struct Draws(u64);

impl Draws {
    fn new(key: u64, block: usize) -> Draws {
        Draws(key ^ (block as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    /// Four uniform draws in `[0, 1)`, 16 bits each.
    #[inline(always)]
    fn next(&mut self) -> [f32; 4] {
        self.0 = self.0.wrapping_add(0xA076_1D64_78BD_642F);
        let t = (self.0 as u128) * ((self.0 ^ 0xE703_7ED1_A0B4_28DB) as u128);
        let z = ((t >> 64) as u64) ^ (t as u64);
        const UNIT: f32 = 1.0 / 65536.0;
        [0, 16, 32, 48].map(|k| ((z >> k) & 0xffff) as f32 * UNIT)
    }
}

/// One row's packed levels: `g` and `h` in units of the scales, rounded
/// down after adding the draws `ug`, `uh` (stochastic rounding), within the
/// levels.
#[inline(always)]
fn level(g: f32, h: f32, ug: f32, uh: f32) -> u64 {
    // Shifted up by 128 so that truncation rounds down; `g` is within
    // 127 levels but may round a hair past them.
    let q = ((g + ug + 128.0) as i64 - 128).clamp(-(G_LEVELS as i64), G_LEVELS as i64);
    let r = ((h + uh) as i64).clamp(0, H_LEVELS as i64);
    pack(q, r as u64)
}

/// The largest `|g|` and `h` of `rows`, in eight lanes (a comparison the
/// compiler turns into vector maxima, which `f32::max` is not).
fn largest(rows: &[Grad]) -> (f64, f64) {
    let (mut g, mut h) = ([0.0f32; 8], [0.0f32; 8]);
    let mut chunks = rows.chunks_exact(8);
    for c in &mut chunks {
        for k in 0..8 {
            let a = c[k].g.abs();
            g[k] = if a > g[k] { a } else { g[k] };
            h[k] = if c[k].h > h[k] { c[k].h } else { h[k] };
        }
    }
    for r in chunks.remainder() {
        g[0] = g[0].max(r.g.abs());
        h[0] = h[0].max(r.h);
    }
    let top = |v: [f32; 8]| v.iter().fold(0.0f64, |m, &x| m.max(x as f64));
    (top(g), top(h))
}

/// Quantizes `rows` (at most [`MAX_ROWS`]) into `out`, one packed word a
/// row, with the draws of `key`; returns the scales.
pub(super) fn quantize(rows: &[Grad], key: u64, out: &mut Vec<u64>) -> Scale {
    debug_assert!(rows.len() <= MAX_ROWS);
    let (gmax, hmax) = rows
        .par_chunks(CHUNK)
        .map(largest)
        .reduce(|| (0.0, 0.0), |a, b| (a.0.max(b.0), a.1.max(b.1)));
    // A scale of 0 (every value 0) would divide by 0: any scale then
    // gives the same zeros.
    let unit = |max: f64, levels: f64| if max > 0.0 { max / levels } else { 1.0 };
    let scale = Scale {
        g: unit(gmax, G_LEVELS),
        h: unit(hmax, H_LEVELS),
    };
    let (inv_g, inv_h) = ((1.0 / scale.g) as f32, (1.0 / scale.h) as f32);
    out.resize(rows.len(), 0);
    out.par_chunks_mut(CHUNK)
        .zip(rows.par_chunks(CHUNK))
        .enumerate()
        .for_each(|(c, (out, rows))| {
            let mut draws = Draws::new(key, c);
            for (out, rows) in out.chunks_mut(2).zip(rows.chunks(2)) {
                let u = draws.next();
                for (k, (o, r)) in out.iter_mut().zip(rows).enumerate() {
                    *o = level(r.g * inv_g, r.h * inv_h, u[2 * k], u[2 * k + 1]);
                }
            }
        });
    scale
}

/// The sum of packed rows (wrapping: the halves are exact while the rows
/// are at most [`MAX_ROWS`]).
#[inline(always)]
pub(super) fn add(a: u64, b: u64) -> u64 {
    a.wrapping_add(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(n: usize) -> Vec<Grad> {
        (0..n)
            .map(|i| {
                let x = ((i * 7919) % 1000) as f32 / 1000.0;
                Grad {
                    g: x - 0.3,
                    h: x * (1.0 - x) * 0.01,
                }
            })
            .collect()
    }

    #[test]
    fn packed_sums_unpack_to_the_sums_of_the_levels() {
        let scale = Scale { g: 0.5, h: 0.25 };
        let qs = [(-127i64, 255u64), (127, 0), (-3, 7), (0, 255), (-127, 1)];
        let (mut s, mut q, mut r) = (0u64, 0i64, 0u64);
        for _ in 0..1000 {
            for &(a, b) in &qs {
                s = add(s, pack(a, b));
                q += a;
                r += b;
            }
        }
        assert_eq!(
            scale.unpack(s),
            Bin {
                g: q as f64 * 0.5,
                h: r as f64 * 0.25
            }
        );
        // The largest magnitudes at the most rows stay apart.
        let n = MAX_ROWS as u64;
        let low = (0..n).fold(0u64, |s, _| add(s, pack(-127, 255)));
        assert_eq!(
            Scale { g: 1.0, h: 1.0 }.unpack(low),
            Bin {
                g: -127.0 * n as f64,
                h: 255.0 * n as f64
            }
        );
    }

    #[test]
    fn rounding_is_within_one_level_unbiased_and_repeatable() {
        let g = rows(50_000);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let s = quantize(&g, 7, &mut a);
        assert_eq!(quantize(&g, 7, &mut b), s);
        assert_eq!(a, b);
        quantize(&g, 8, &mut b);
        assert_ne!(a, b, "another key draws other roundings");
        let (mut eg, mut eh, mut tg, mut th) = (0.0, 0.0, 0.0, 0.0);
        for (r, &p) in g.iter().zip(&a) {
            let u = s.unpack(p);
            assert!((u.g - r.g as f64).abs() < s.g && (u.h - r.h as f64).abs() < s.h);
            assert!(u.h >= 0.0);
            (eg, eh) = (eg + u.g, eh + u.h);
            (tg, th) = (tg + r.g as f64, th + r.h as f64);
        }
        // Unbiased: the error of a sum of n draws is about sqrt(n) / 2 levels.
        let n = g.len() as f64;
        assert!((eg - tg).abs() < 4.0 * n.sqrt() * s.g, "{eg} vs {tg}");
        assert!((eh - th).abs() < 4.0 * n.sqrt() * s.h, "{eh} vs {th}");
    }

    #[test]
    fn auto_quantizes_large_fits_and_quantized_refuses_too_many_rows() {
        let on = |mode, rows| applies(mode, rows).unwrap();
        assert!(!on(GradientSums::Auto, AUTO_ROWS - 1) && on(GradientSums::Auto, AUTO_ROWS));
        assert!(!on(GradientSums::Auto, MAX_ROWS + 1) && on(GradientSums::Quantized, 10));
        assert!(!on(GradientSums::Exact, AUTO_ROWS));
        let e = applies(GradientSums::Quantized, MAX_ROWS + 1)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("gradients=quantized") && e.contains("16777216"),
            "{e}"
        );
    }

    #[test]
    fn all_zero_gradients_stay_zero() {
        let g = vec![Grad::default(); 10];
        let mut a = Vec::new();
        let s = quantize(&g, 1, &mut a);
        assert!(a.iter().all(|&p| s.unpack(p) == Bin::default()));
    }
}
