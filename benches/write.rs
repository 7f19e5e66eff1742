//! The CSV writer's speed against the way rarity wrote CSV before (one
//! `format!("{v}")` `String` per value, one thread), and against rarity's
//! reader on the same file, on a `generate fraud`-like table held in memory.
//!
//! Usage: `cargo bench --bench write -- [ROWS]` (default 1,000,000 rows x
//! 30 features; prints one JSON line). The file goes to
//! `target/write-bench/` and is removed afterwards.

use std::io::Write;
use std::time::Instant;

use rarity::data::read::{read_path, ReadOptions};
use rarity::data::synth::FraudTask;
use rarity::data::write::{write_dataset, TableFormat};
use rarity::data::Dataset;

/// The writer as it was: a `String` per value, one thread.
fn old_write(ds: &Dataset, path: &std::path::Path) -> std::io::Result<()> {
    let mut f = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    let mut buf = String::with_capacity(1 << 17);
    buf.push_str(&ds.feature_names().join(","));
    buf.push(',');
    buf.push_str(&ds.schema().target_name);
    buf.push('\n');
    for i in 0..ds.n_rows() {
        for v in ds.row(i) {
            buf.push_str(&format!("{v}"));
            buf.push(',');
        }
        buf.push_str(&ds.class_names()[ds.label(i)]);
        buf.push('\n');
        if buf.len() > 1 << 16 {
            f.write_all(buf.as_bytes())?;
            buf.clear();
        }
    }
    f.write_all(buf.as_bytes())?;
    f.flush()
}

fn best(reps: usize, mut f: impl FnMut()) -> f64 {
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let rows: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let ds = FraudTask {
        n: rows,
        ..FraudTask::default()
    }
    .generate(7)
    .expect("generate");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/write-bench");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.csv");
    let new_s = best(3, || write_dataset(&ds, &path, TableFormat::Csv).unwrap());
    let bytes = std::fs::metadata(&path).unwrap().len() as f64;
    let read_s = best(3, || {
        read_path(&path, &ReadOptions::default()).unwrap();
    });
    let old_path = dir.join("old.csv");
    let old_s = best(1, || old_write(&ds, &old_path).unwrap());
    assert_eq!(
        std::fs::read(&path).unwrap(),
        std::fs::read(&old_path).unwrap(),
        "the two writers must write the same bytes"
    );
    let pq = dir.join("t.parquet");
    let pq_s = best(3, || write_dataset(&ds, &pq, TableFormat::Parquet).unwrap());
    let mb = bytes / 1e6;
    println!(
        "{{\"rows\": {rows}, \"csv_mb\": {mb:.1}, \"threads\": {}, \"write_s\": {new_s:.3}, \"write_mb_s\": {:.0}, \
         \"old_write_s\": {old_s:.3}, \"old_write_mb_s\": {:.0}, \"speedup\": {:.1}, \"read_s\": {read_s:.3}, \
         \"read_mb_s\": {:.0}, \"parquet_write_s\": {pq_s:.3}}}",
        rayon::current_num_threads(),
        mb / new_s,
        mb / old_s,
        old_s / new_s,
        mb / read_s
    );
    let _ = std::fs::remove_dir_all(&dir);
}
