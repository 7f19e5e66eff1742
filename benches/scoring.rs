//! The library side of `benches/scoring.py --library`: one-row latency of
//! the entry `rarity predict` uses.
//!
//! ```text
//! scoring latency MODEL.rarity ROWS.bin D CALLS
//!     ROWS holds f64 rows (D per row). For CALLS calls, round-robin over
//!     the rows: build a 1-row Dataset sharing the model's schema
//!     (`Dataset::from_shared`) and call FittedStrategy::predict on it
//!     (probabilities and label), each call timed alone, on a pool of one
//!     thread. Prints the median in microseconds.
//! scoring batch MODEL.rarity ROWS.bin D REPEATS
//!     FittedStrategy::predict_proba on all the rows, one thread; prints
//!     the best rows per second of REPEATS runs.
//! ```

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use rarity::data::{Dataset, Values};
use rarity::strategy::FittedStrategy;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool");
    let result = pool.install(|| match args.first().map(String::as_str) {
        Some(job @ ("latency" | "batch")) if args.len() == 5 => run(job, &args[1..]),
        _ => Err("usage: scoring latency|batch MODEL ROWS D CALLS|REPEATS".into()),
    });
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

fn run(job: &str, args: &[String]) -> Res<()> {
    let model: FittedStrategy = rarity::persist::load(Path::new(&args[0]))?;
    let bytes = std::fs::read(&args[1])?;
    let x: Vec<f64> = bytes
        .chunks_exact(8)
        .map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes")))
        .collect();
    let d: usize = args[2].parse()?;
    let count: usize = args[3].parse()?;
    let n = x.len() / d;
    if job == "batch" {
        let data = Dataset::new(x, vec![0; n], model.schema.clone())?;
        let mut best = f64::INFINITY;
        for _ in 0..count {
            let t = Instant::now();
            std::hint::black_box(model.predict_proba(&data)?);
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!("{:.0} rows/s", n as f64 / best);
        return Ok(());
    }
    let schema = Arc::new(model.schema.clone());
    let mut times = Vec::with_capacity(count);
    for i in 0..count {
        let row = &x[(i % n) * d..(i % n + 1) * d];
        let t = Instant::now();
        let data =
            Dataset::from_shared(Values::from_vec(row.to_vec()), vec![0], Arc::clone(&schema))?;
        std::hint::black_box(model.predict(&data)?);
        times.push(t.elapsed().as_nanos() as f64 / 1e3);
    }
    times.sort_by(f64::total_cmp);
    println!("{:.2} us", times[count / 2]);
    Ok(())
}
