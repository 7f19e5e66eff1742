//! The categorical fields of `generate fraud --categorical` (issue 41 item
//! 6): a merchant id (20,000 merchants, a few high-risk ones among many
//! clean ones), a country (200) and a merchant category code (1,000 MCCs).
//! Each row's fraud probability is the table's rate times its three levels'
//! risks (normalised so the overall rate stays the one asked for), so a
//! large share of the signal lives in the categories.
//!
//! The levels (their popularity and risk) are one fixed population, drawn
//! from a seed of their own: every `--seed` samples the same merchants,
//! countries and codes. A row's levels come from a random stream of their
//! own, so the other columns are drawn as without `--categorical`.

use rand::RngExt;

use crate::rng::{stream, Rng};

/// Levels of each field: merchant, country, merchant category code.
const LEVELS: [usize; 3] = [20_000, 200, 1_000];
/// Share of high-risk levels of each field, and their risk multiplier.
const RISKY: [(f64, f64); 3] = [(0.01, 40.0), (0.05, 5.0), (0.03, 8.0)];
/// The seed of the fixed population of levels.
const POPULATION_SEED: u64 = 0xCA7E_6041;
/// Streams of a row's levels start here (after any chunk index).
const LEVEL_STREAMS: u64 = 1 << 40;

/// The three fields' level tables.
#[derive(Debug, Clone)]
pub struct FraudCategories {
    /// Per field, per level: its risk multiplier.
    risk: [Vec<f64>; 3],
    /// 1 / the mean risk of a row (over the population's levels).
    scale: f64,
}

impl Default for FraudCategories {
    fn default() -> Self {
        Self::new()
    }
}

impl FraudCategories {
    /// The fixed population of levels.
    pub fn new() -> Self {
        let mut rng = stream(POPULATION_SEED, 0);
        let risk: [Vec<f64>; 3] = std::array::from_fn(|f| {
            let (share, high) = RISKY[f];
            (0..LEVELS[f])
                .map(|_| {
                    if rng.random::<f64>() < share {
                        high
                    } else {
                        0.3 + 0.7 * rng.random::<f64>()
                    }
                })
                .collect()
        });
        // Rows draw level `floor(L u^2)`: level j with probability
        // sqrt((j+1)/L) - sqrt(j/L) (popular levels first).
        let mean = |f: usize| -> f64 {
            let l = LEVELS[f] as f64;
            (0..LEVELS[f])
                .map(|j| risk[f][j] * (((j + 1) as f64 / l).sqrt() - (j as f64 / l).sqrt()))
                .sum()
        };
        let scale = 1.0 / (mean(0) * mean(1) * mean(2));
        FraudCategories { risk, scale }
    }

    /// The random stream of the levels of chunk `index`'s rows.
    pub fn stream(seed: u64, index: usize) -> Rng {
        stream(seed, LEVEL_STREAMS + index as u64)
    }

    /// Draws a row's levels (merchant, country, code) and returns them with
    /// the row's risk multiplier (mean 1 over rows).
    pub fn draw(&self, rng: &mut Rng) -> ([u32; 3], f64) {
        let mut levels = [0u32; 3];
        let mut risk = self.scale;
        for f in 0..3 {
            let u: f64 = rng.random();
            let j = ((LEVELS[f] as f64 * u * u) as usize).min(LEVELS[f] - 1);
            levels[f] = j as u32;
            risk *= self.risk[f][j];
        }
        (levels, risk)
    }

    /// The column names of the fields.
    pub fn names() -> [&'static str; 3] {
        ["merchant", "country", "mcc"]
    }

    /// The text of level `j` of field `f`: `M00042`, a two-letter country
    /// code, a four-digit merchant category code.
    pub fn text(f: usize, j: u32) -> String {
        match f {
            0 => format!("M{j:05}"),
            1 => {
                let a = |i: u32| char::from(b'A' + (i % 26) as u8);
                format!("{}{}", a(j / 26), a(j))
            }
            _ => format!("{}", 1000 + 7 * j),
        }
    }

    /// Every level text of field `f`, in code order.
    pub fn texts(f: usize) -> Vec<String> {
        (0..LEVELS[f] as u32).map(|j| Self::text(f, j)).collect()
    }
}
