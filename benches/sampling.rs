//! Timing of rarity's samplers on the generated sets, two threads:
//!
//! - SMOTE to balance on 1,000,000 x 30 with 10,000 minority rows;
//! - Tomek links and ENN on 124,000 x 30 with 10% minority.
//!
//! Run with `cargo bench --bench sampling`. The generated sets are written to
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
    let mut f = fs::File::create(dir.join(format!("{name}.x.f64"))).expect("write bench data");
    for v in ds.features() {
        f.write_all(&v.to_le_bytes()).expect("write");
    }
    let mut f = fs::File::create(dir.join(format!("{name}.y.u32"))).expect("write bench data");
    for v in ds.labels() {
        f.write_all(&v.to_le_bytes()).expect("write");
    }
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

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/sampling-bench");
    fs::create_dir_all(&dir).expect("bench directory");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("thread pool");
    let mut results = Vec::new();

    let big = generate(1_000_000, 30, 10_000, 1);
    save(&big, &dir, "smote");
    let smote = Smote::new(5, OverTarget::Balance);
    let (t, s) = pool.install(|| {
        time(5, || {
            smote.resample(&big, &mut stream(7, 0)).expect("smote")
        })
    });
    println!(
        "smote 1,000,000 x 30, 10,000 minority -> balanced: {t:.3} s ({} synthetic rows)",
        s.synthetic_labels.len()
    );
    results.push(("smote", t));
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
    results.push(("smote_materialised", t));

    let mid = generate(124_000, 30, 12_400, 2);
    save(&mid, &dir, "clean");
    let (t, s) = pool.install(|| {
        time(1, || {
            TomekLinks::new()
                .resample(&mid, &mut stream(7, 0))
                .expect("tomek")
        })
    });
    println!(
        "tomek 124,000 x 30, 10% minority: {t:.3} s (kept {} rows)",
        s.rows.len()
    );
    results.push(("tomek", t));
    let enn = EditedNearestNeighbours::new(3, EnnRule::All).expect("k = 3");
    let (t, s) = pool.install(|| time(1, || enn.resample(&mid, &mut stream(7, 0)).expect("enn")));
    println!(
        "enn(k=3, rule=all) 124,000 x 30, 10% minority: {t:.3} s (kept {} rows)",
        s.rows.len()
    );
    results.push(("enn", t));

    let json = results
        .iter()
        .map(|(k, v)| format!("\"{k}\": {v}"))
        .collect::<Vec<_>>()
        .join(", ");
    fs::write(dir.join("rarity.json"), format!("{{{json}}}")).expect("write timings");
}
