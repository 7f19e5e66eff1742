//! Times rarity's ROC AUC and average precision on 10^7 scores, one thread,
//! and prints one JSON object.
//!
//! With `RARITY_BENCH_DATA=DIR` it reads `DIR/scores.f64` (little-endian f64)
//! and `DIR/labels.u8` (0/1), as written by `benches/ranking_vs_sklearn.py`,
//! so that scikit-learn is timed on the same data; otherwise it draws 10^7
//! scores (10% positives) from a seeded stream.

use rand::RngExt;
use rarity::metrics::ranking::{average_precision, roc_auc};
use std::time::Instant;

fn data() -> (Vec<u32>, Vec<f64>) {
    if let Ok(dir) = std::env::var("RARITY_BENCH_DATA") {
        let bytes = std::fs::read(format!("{dir}/scores.f64")).expect("scores.f64");
        let scores = bytes
            .chunks_exact(8)
            .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
            .collect();
        let labels = std::fs::read(format!("{dir}/labels.u8")).expect("labels.u8");
        return (labels.into_iter().map(u32::from).collect(), scores);
    }
    let mut rng = rarity::rng::stream(42, 0);
    let n = 10_000_000;
    let labels: Vec<u32> = (0..n)
        .map(|_| u32::from(rng.random::<f64>() < 0.1))
        .collect();
    let scores = labels
        .iter()
        .map(|&y| rng.random::<f64>() * 0.7 + 0.3 * f64::from(y))
        .collect();
    (labels, scores)
}

/// Best of `reps` wall-clock timings of `f`, with its last result.
fn best_of(reps: usize, mut f: impl FnMut() -> f64) -> (f64, f64) {
    let mut best = f64::INFINITY;
    let mut value = f64::NAN;
    for _ in 0..reps {
        let t = Instant::now();
        value = f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    (best, value)
}

fn main() {
    let (labels, scores) = data();
    let (auc_s, auc) = best_of(3, || roc_auc(&labels, &scores, 1).unwrap());
    let (ap_s, ap) = best_of(3, || average_precision(&labels, &scores, 1).unwrap());
    println!(
        "{{\"n\": {}, \"roc_auc_seconds\": {auc_s}, \"average_precision_seconds\": {ap_s}, \"roc_auc\": {auc}, \"average_precision\": {ap}}}",
        labels.len()
    );
}
