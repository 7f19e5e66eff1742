//! The rarity side of `benches/trees_vs_sklearn.py` (run that script; it
//! builds this target with `cargo bench --no-run` and calls it directly).
//!
//! ```text
//! trees cv FOLDS.json OUT.json THREADS SPEC
//!     for each dataset and fold in FOLDS.json: fit SPEC on the training rows,
//!     predict the test rows; write test probabilities and seconds to OUT.json
//! trees big DATA.bin LABELS.bin MASK.bin D THREADS SPEC OUT.bin
//!     fit SPEC on the rows whose MASK byte is 1 (f64 row-major features, u8
//!     labels), predict the others, write their positive-class
//!     probabilities (f64) to OUT.bin; print {"fit_seconds", "predict_seconds"}
//! ```

use std::time::Instant;

use rarity::data::Dataset;
use rarity::rng;
use serde_json::{json, Value};

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let result = match args.first().map(String::as_str) {
        Some("cv") if args.len() == 5 => cv(&args[1], &args[2], &args[3], &args[4]),
        Some("big") if args.len() == 8 => big(&args[1..]),
        _ => Err("usage: trees cv FOLDS OUT THREADS SPEC | trees big DATA LABELS MASK D THREADS SPEC OUT".into()),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn threads(t: &str) -> Res<()> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(t.parse()?)
        .build_global()?;
    Ok(())
}

/// Reads a numeric CSV with a header and the class (0/1) in the last column.
fn read_csv(path: &str) -> Res<Dataset> {
    let text = std::fs::read_to_string(path)?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().ok_or("empty file")?.split(',').collect();
    let d = header.len() - 1;
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let cells: Vec<&str> = line.split(',').collect();
        for c in &cells[..d] {
            x.push(c.trim().parse::<f64>()?);
        }
        y.push(cells[d].trim().parse::<f64>()? as u32);
    }
    let rows: Vec<Vec<f64>> = x.chunks(d).map(<[f64]>::to_vec).collect();
    Ok(Dataset::from_rows(rows, y, vec!["0".into(), "1".into()])?)
}

fn cv(folds: &str, out: &str, t: &str, spec: &str) -> Res<()> {
    threads(t)?;
    let learner = rarity::spec::build_learner(spec)?;
    let plan: Value = serde_json::from_str(&std::fs::read_to_string(folds)?)?;
    let mut results = Vec::new();
    for ds in plan.as_array().ok_or("folds: expected a list")? {
        let data = read_csv(ds["path"].as_str().ok_or("path")?)?;
        let mut seconds = 0.0;
        let mut probs = Vec::new();
        for (f, fold) in ds["folds"].as_array().ok_or("folds")?.iter().enumerate() {
            let idx = |key: &str| -> Vec<usize> {
                fold[key]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_u64())
                            .map(|v| v as usize)
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let (train, test) = (idx("train"), idx("test"));
            let start = Instant::now();
            let model = learner.fit(&data.view(&train), &mut rng::stream(1, f as u64))?;
            let p = model.predict_proba(&data.take(&test))?;
            seconds += start.elapsed().as_secs_f64();
            probs.push(p.column(1));
        }
        results.push(json!({"name": ds["name"], "seconds": seconds, "proba": probs}));
    }
    std::fs::write(out, serde_json::to_string(&results)?)?;
    Ok(())
}

fn big(a: &[String]) -> Res<()> {
    let (data, labels, mask, d, t, spec, out) = (&a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6]);
    threads(t)?;
    let d: usize = d.parse()?;
    let learner = rarity::spec::build_learner(spec)?;
    let raw = std::fs::read(data)?;
    let labels = std::fs::read(labels)?;
    let mask = std::fs::read(mask)?;
    let n = labels.len();
    let value = |i: usize| f64::from_le_bytes(raw[i * 8..i * 8 + 8].try_into().unwrap());
    let (mut xtr, mut ytr, mut xte, mut yte) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..n {
        let (x, y) = if mask[i] == 1 {
            (&mut xtr, &mut ytr)
        } else {
            (&mut xte, &mut yte)
        };
        x.extend((0..d).map(|j| value(i * d + j)));
        y.push(labels[i] as u32);
    }
    drop(raw);
    let schema = |d: usize| rarity::data::Schema {
        feature_names: (0..d).map(|j| format!("x{j}")).collect(),
        class_names: vec!["0".into(), "1".into()],
        encodings: vec![],
        target_name: "class".into(),
    };
    let train = Dataset::new(xtr, ytr, schema(d))?;
    let test = Dataset::new(xte, yte, schema(d))?;
    let rows: Vec<usize> = (0..train.n_rows()).collect();
    let start = Instant::now();
    let model = learner.fit(&train.view(&rows), &mut rng::stream(1, 0))?;
    let fit = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let p = model.predict_proba(&test)?;
    let predict = start.elapsed().as_secs_f64();
    let bytes: Vec<u8> = p.column(1).iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(out, bytes)?;
    println!(
        "{}",
        json!({"fit_seconds": fit, "predict_seconds": predict})
    );
    Ok(())
}
