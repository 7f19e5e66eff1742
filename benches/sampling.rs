//! Timing of rarity's samplers on the generated sets, two threads:
//!
//! - SMOTE to balance on 1,000,000 x 30 with 10,000 minority rows;
//! - Tomek links and ENN on 124,000 x 30 with 10% minority.
//!
//! Run with `cargo bench --bench sampling` (append `-- smote`, `-- tomek` or
//! `-- enn` to run only those parts). The generated sets are written to
//! `target/sampling-bench/` (raw little-endian f64 features and u32 labels)
//! with the timings (`rarity.json`), so that
//! `python3 benches/imblearn_compare.py` times imbalanced-learn on the very
//! same data and prints the ratios.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use rand::RngExt;
use rarity::data::Dataset;
use rarity::neighbors::{knn, Exclude, Points};
use rarity::rng::stream;
use rarity::sample::{EditedNearestNeighbours, EnnRule, OverTarget, Sampler, Smote, TomekLinks};

/// `n` rows, `d` standard normal features; the first `n_min` rows are class 1
/// and shifted by +1 in every feature.
fn generate(n: usize, d: usize, n_min: usize, seed: u64) -> Dataset {
    let mut r = stream(seed, 0);
    let mut x = Vec::with_capacity(n * d);
    for i in 0..n {
        let shift = if i < n_min { 1.0 } else { 0.0 };
        for _ in 0..d {
            let u: f64 = r.random::<f64>().max(1e-300);
            let v: f64 = r.random();
            x.push((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos() + shift);
        }
    }
    let y: Vec<u32> = (0..n).map(|i| u32::from(i < n_min)).collect();
    let rows: Vec<Vec<f64>> = x.chunks(d).map(<[f64]>::to_vec).collect();
    Dataset::from_rows(rows, y, vec!["neg".into(), "pos".into()]).expect("valid data")
}

fn save(ds: &Dataset, dir: &Path, name: &str) {
    let create = |ext: &str| {
        let f = fs::File::create(dir.join(format!("{name}.{ext}"))).expect("write bench data");
        std::io::BufWriter::new(f)
    };
    let mut f = create("x.f64");
    for v in ds.features() {
        f.write_all(&v.to_le_bytes()).expect("write");
    }
    f.flush().expect("write");
    let mut f = create("y.u32");
    for v in ds.labels() {
        f.write_all(&v.to_le_bytes()).expect("write");
    }
    f.flush().expect("write");
    let meta = format!("{{\"n\": {}, \"d\": {}}}", ds.n_rows(), ds.n_features());
    fs::write(dir.join(format!("{name}.json")), meta).expect("write");
}

/// Best of `reps` wall times, in seconds, and the last result.
fn time<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..reps {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed().as_secs_f64());
        out = Some(r);
    }
    (best, out.expect("at least one repetition"))
}

/// Timings already recorded (a run of some parts keeps the others).
fn load_timings(path: &Path) -> Vec<(String, f64)> {
    let text = fs::read_to_string(path).unwrap_or_default();
    text.trim()
        .trim_start_matches('{')
        .trim_end_matches('}')
        .split(',')
        .filter_map(|kv| {
            let (k, v) = kv.split_once(':')?;
            Some((
                k.trim().trim_matches('"').to_string(),
                v.trim().parse().ok()?,
            ))
        })
        .collect()
}

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/sampling-bench");
    fs::create_dir_all(&dir).expect("bench directory");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("thread pool");
    let parts = ["smote", "tomek", "enn"];
    let asked: Vec<String> = std::env::args()
        .filter(|a| parts.contains(&a.as_str()))
        .collect();
    let run = |p: &str| asked.is_empty() || asked.iter().any(|a| a == p);
    let json_path = dir.join("rarity.json");
    let mut results = load_timings(&json_path);
    let mut record = |k: &str, t: f64| {
        results.retain(|(name, _)| name != k);
        results.push((k.to_string(), t));
    };

    if run("smote") {
        let big = generate(1_000_000, 30, 10_000, 1);
        save(&big, &dir, "smote");
        let minority: Vec<f64> = big.features()[..10_000 * 30].to_vec();
        let p = Points::new(&minority, 10_000, 30).expect("shape");
        let (t, _) = pool.install(|| time(5, || knn(p, p, 5, Exclude::SameIndex)));
        println!("neighbour search 10,000 x 10,000 x 30, k = 5: {t:.3} s");
        record("knn_10k", t);
        let smote = Smote::new(5, OverTarget::default());
        let (t, s) = pool.install(|| {
            time(5, || {
                smote.resample(&big, &mut stream(7, 0)).expect("smote")
            })
        });
        println!(
            "smote 1,000,000 x 30, 10,000 minority -> balanced: {t:.3} s ({} synthetic rows)",
            s.synthetic_labels.len()
        );
        record("smote", t);
        let (t, m) = pool.install(|| {
            time(3, || {
                let s = smote.resample(&big, &mut stream(7, 0)).expect("smote");
                s.materialise(&big).expect("materialise")
            })
        });
        println!(
            "smote + materialised dataset ({} rows): {t:.3} s",
            m.n_rows()
        );
        record("smote_materialised", t);
    }
    if run("tomek") || run("enn") {
        let mid = generate(124_000, 30, 12_400, 2);
        save(&mid, &dir, "clean");
        if run("tomek") {
            let tomek = TomekLinks::default();
            let (t, s) = pool.install(|| {
                time(1, || {
                    tomek.resample(&mid, &mut stream(7, 0)).expect("tomek")
                })
            });
            println!(
                "tomek 124,000 x 30, 10% minority: {t:.3} s (kept {} rows)",
                s.rows.len()
            );
            record("tomek", t);
        }
        if run("enn") {
            let enn = EditedNearestNeighbours::new(3, EnnRule::All).expect("k = 3");
            let (t, s) =
                pool.install(|| time(1, || enn.resample(&mid, &mut stream(7, 0)).expect("enn")));
            println!(
                "enn(k=3, rule=all) 124,000 x 30, 10% minority: {t:.3} s (kept {} rows)",
                s.rows.len()
            );
            record("enn", t);
        }
    }
    let json = results
        .iter()
        .map(|(k, v)| format!("\"{k}\": {v}"))
        .collect::<Vec<_>>()
        .join(", ");
    fs::write(json_path, format!("{{{json}}}")).expect("write timings");
}
