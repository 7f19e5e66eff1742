//! The rarity side of `benches/gbdt_vs_lightgbm.py` (run that script; it
//! builds this target with `cargo bench --no-run` and calls it directly).
//!
//! ```text
//! gbdt cv DATA.bin LABELS.bin FOLDS.bin D THREADS SPEC OUT.bin [REPEATS]
//!     rows are f64 row-major features (D per row) and u8 labels (classes
//!     0..K, K = the largest label + 1, at least 2); FOLDS holds one u8 fold
//!     number per row. For each fold f = 0, 1, ...: copy the other folds'
//!     rows into a training table (not timed), fit SPEC on it (timed:
//!     binning and boosting), predict fold f's rows (timed apart). Writes
//!     every row's out-of-fold class probabilities (K f64 per row) to OUT
//!     and prints {"fit_seconds": [...], "fit_cpu_seconds": [...],
//!     "predict_seconds": [...], "predict_cpu_seconds": [...]} (CPU seconds
//!     of all threads). With REPEATS,
//!     each fold is fitted that many times (the same model) and the
//!     smallest times are reported: the least disturbed by other work on a
//!     shared machine.
//! gbdt sets PLAN.json OUT.json THREADS
//!     the side of `benches/gbdt_weighted_vs_lightgbm.py`: PLAN is a list of
//!     {"name", "path" (a CSV whose last column is the class, 1 positive),
//!     "folds": [{"train", "test", "specs"}]}; for each dataset, fold and
//!     strategy spec of the fold, fit the strategy (`spec::build_strategy`,
//!     seed = the fold's number, so the specs of a fold that share a sampler
//!     and learner fit the same model) on the training rows and predict the
//!     test rows. Writes [{"name", "proba": [fold][spec] -> class-1
//!     probabilities of the test rows, "seconds": [fold][spec]}] to OUT.
//! ```

use std::path::Path;
use std::time::Instant;

use rarity::data::read::{read_path, Missing, ReadOptions};
use rarity::data::{Dataset, Schema};
use rarity::rng;
use serde_json::{json, Value};

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let result = match args.first().map(String::as_str) {
        Some("cv") if args.len() == 8 || args.len() == 9 => cv(&args[1..]),
        Some("sets") if args.len() == 4 => sets(&args[1], &args[2], &args[3]),
        _ => Err(
            "usage: gbdt cv DATA LABELS FOLDS D THREADS SPEC OUT [REPEATS] | gbdt sets PLAN OUT THREADS"
                .into(),
        ),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn table(x: Vec<f64>, y: Vec<u32>, d: usize, k: usize) -> Res<Dataset> {
    let schema = Schema {
        feature_names: (0..d).map(|j| format!("x{j}")).collect(),
        class_names: (0..k).map(|c| c.to_string()).collect(),
        encodings: vec![],
        target_name: "class".into(),
    };
    Ok(Dataset::new(x, y, schema)?)
}

/// CPU seconds of this process so far (all threads).
fn cpu_seconds() -> f64 {
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
    t(u.ru_utime) + t(u.ru_stime)
}

/// The global pool of `t` threads, the main thread one of them (as the
/// command line's): a parallel loop called from it is not handed to
/// another thread and waited for.
fn threads(t: &str) -> Res<()> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(t.parse()?)
        .use_current_thread()
        .build_global()?;
    Ok(())
}

fn sets(plan: &str, out: &str, t: &str) -> Res<()> {
    threads(t)?;
    let plan: Value = serde_json::from_str(&std::fs::read_to_string(plan)?)?;
    let opts = ReadOptions {
        positive: Some("1".into()),
        missing: Missing::Error,
        ..ReadOptions::default()
    };
    let mut results = Vec::new();
    for ds in plan.as_array().ok_or("PLAN: expected a list")? {
        let path = ds["path"]
            .as_str()
            .ok_or("PLAN: a dataset without a path")?;
        let (data, _) = read_path(Path::new(path), &opts)?;
        let positive = data
            .class_names()
            .iter()
            .position(|c| c == "1")
            .ok_or_else(|| format!("{path}: no class 1"))?;
        let (mut probs, mut secs) = (Vec::new(), Vec::new());
        for (f, fold) in ds["folds"]
            .as_array()
            .ok_or("PLAN: no folds")?
            .iter()
            .enumerate()
        {
            let rows = |key: &str| serde_json::from_value::<Vec<usize>>(fold[key].clone());
            let (train, test) = (data.take(&rows("train")?), data.take(&rows("test")?));
            let (mut p_fold, mut s_fold) = (Vec::new(), Vec::new());
            for spec in fold["specs"]
                .as_array()
                .ok_or("PLAN: a fold without specs")?
            {
                let strategy = rarity::spec::build_strategy(spec.as_str().ok_or("a spec")?)?;
                let start = Instant::now();
                let p = strategy.fit(&train, f as u64)?.predict_proba(&test)?;
                s_fold.push(start.elapsed().as_secs_f64());
                p_fold.push(p.column(positive));
            }
            probs.push(p_fold);
            secs.push(s_fold);
        }
        results.push(json!({"name": ds["name"], "proba": probs, "seconds": secs}));
    }
    std::fs::write(out, serde_json::to_string(&results)?)?;
    Ok(())
}

fn cv(a: &[String]) -> Res<()> {
    let (data, labels, folds, d, t, spec, out) = (&a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6]);
    let repeats: usize = a.get(7).map_or(Ok(1), |r| r.parse())?;
    threads(t)?;
    let d: usize = d.parse()?;
    let learner = rarity::spec::build_learner(spec)?;
    let raw = std::fs::read(data)?;
    let labels = std::fs::read(labels)?;
    let folds = std::fs::read(folds)?;
    let n = labels.len();
    let value = |i: usize| f64::from_le_bytes(raw[i * 8..i * 8 + 8].try_into().unwrap());
    let n_folds = folds.iter().copied().max().map_or(0, |m| m as usize + 1);
    let k = labels
        .iter()
        .copied()
        .max()
        .map_or(2, |m| (m as usize + 1).max(2));
    let mut proba = vec![0.0; n * k];
    let (mut fit_s, mut fit_cpu) = (Vec::new(), Vec::new());
    let (mut pred_s, mut pred_cpu) = (Vec::new(), Vec::new());
    for f in 0..n_folds {
        let (mut xtr, mut ytr, mut xte, mut yte, mut te) = (vec![], vec![], vec![], vec![], vec![]);
        for i in 0..n {
            let (x, y) = if folds[i] as usize == f {
                te.push(i);
                (&mut xte, &mut yte)
            } else {
                (&mut xtr, &mut ytr)
            };
            x.extend((0..d).map(|j| value(i * d + j)));
            y.push(labels[i] as u32);
        }
        let train = table(xtr, ytr, d, k)?;
        let test = table(xte, yte, d, k)?;
        let rows: Vec<usize> = (0..train.n_rows()).collect();
        let (mut wall, mut cpu_s) = (f64::INFINITY, f64::INFINITY);
        let mut model = None;
        for _ in 0..repeats.max(1) {
            let (start, cpu) = (Instant::now(), cpu_seconds());
            model = Some(learner.fit(&train.view(&rows), &mut rng::stream(1, f as u64))?);
            wall = wall.min(start.elapsed().as_secs_f64());
            cpu_s = cpu_s.min(cpu_seconds() - cpu);
        }
        let model = model.expect("at least one fit");
        fit_s.push(wall);
        fit_cpu.push(cpu_s);
        let (start, cpu) = (Instant::now(), cpu_seconds());
        let p = model.predict_proba(&test)?;
        pred_s.push(start.elapsed().as_secs_f64());
        pred_cpu.push(cpu_seconds() - cpu);
        for (j, &i) in te.iter().enumerate() {
            proba[i * k..(i + 1) * k].copy_from_slice(p.row(j));
        }
    }
    let bytes: Vec<u8> = proba.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(out, bytes)?;
    println!(
        "{}",
        json!({"fit_seconds": fit_s, "fit_cpu_seconds": fit_cpu, "predict_seconds": pred_s,
               "predict_cpu_seconds": pred_cpu})
    );
    Ok(())
}
