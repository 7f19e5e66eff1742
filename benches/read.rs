//! Times rarity's CSV reader on one file and reports its peak memory.
//!
//! Usage: `cargo bench --bench read -- FILE` (prints one JSON line). Driven
//! side by side with pandas by `benches/read_vs_pandas.py`.

use std::time::Instant;

use rarity::data::read::{read_path, ReadOptions};

/// Peak resident memory of this process in bytes (Linux `VmHWM`).
fn peak_rss() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

fn main() {
    let Some(path) = std::env::args().skip(1).find(|a| !a.starts_with("--")) else {
        eprintln!("usage: cargo bench --bench read -- FILE.csv");
        std::process::exit(2);
    };
    let t = Instant::now();
    let (ds, _) = match read_path(path.as_ref(), &ReadOptions::default()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{{\"seconds\": {secs:.4}, \"peak_rss\": {}, \"rows\": {}, \"features\": {}, \"matrix_bytes\": {}}}",
        peak_rss(),
        ds.n_rows(),
        ds.n_features(),
        ds.n_rows() * ds.n_features() * 8
    );
}
