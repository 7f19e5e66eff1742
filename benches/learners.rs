//! The rarity side of `benches/learners_vs_sklearn.py` (run that script; it
//! builds this target with `cargo bench --no-run` and calls it directly).
//!
//! ```text
//! learners PLAN.json OUT.json SPEC
//!     for each dataset in PLAN.json ({"name", "path", "train", "test"}):
//!     fit SPEC on the training rows and predict the test rows, on one
//!     thread; write per dataset the seconds (fit + predict) and the test
//!     rows' positive-class probabilities to OUT.json
//! ```

use std::time::Instant;

use rarity::data::Dataset;
use rarity::rng;
use serde_json::{json, Value};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if args.len() != 3 {
        eprintln!("usage: learners PLAN.json OUT.json SPEC");
        std::process::exit(2);
    }
    if let Err(e) = run(&args[0], &args[1], &args[2]) {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

/// Reads a numeric CSV with a header and the class (0/1) in the last column.
fn read_csv(path: &str) -> Res<Dataset> {
    let text = std::fs::read_to_string(path)?;
    let mut lines = text.lines();
    let d = lines.next().ok_or("empty file")?.split(',').count() - 1;
    let (mut rows, mut y) = (Vec::new(), Vec::new());
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let cells: Vec<f64> = line
            .split(',')
            .map(|c| c.trim().parse::<f64>())
            .collect::<Result<_, _>>()?;
        y.push(cells[d] as u32);
        rows.push(cells[..d].to_vec());
    }
    Ok(Dataset::from_rows(rows, y, vec!["0".into(), "1".into()])?)
}

fn indices(v: &Value) -> Vec<usize> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_u64)
                .map(|i| i as usize)
                .collect()
        })
        .unwrap_or_default()
}

fn run(plan: &str, out: &str, spec: &str) -> Res<()> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global()?;
    let learner = rarity::spec::build_learner(spec)?;
    let plan: Value = serde_json::from_str(&std::fs::read_to_string(plan)?)?;
    let mut results = Vec::new();
    for ds in plan.as_array().ok_or("plan: expected a list")? {
        let data = read_csv(ds["path"].as_str().ok_or("path")?)?;
        let (train, test) = (indices(&ds["train"]), indices(&ds["test"]));
        let start = Instant::now();
        let model = learner.fit(&data.view(&train), &mut rng::stream(1, 0))?;
        let p = model.predict_proba(&data.take(&test))?;
        let seconds = start.elapsed().as_secs_f64();
        results.push(json!({"name": ds["name"], "seconds": seconds, "proba": p.column(1)}));
    }
    std::fs::write(out, serde_json::to_string(&results)?)?;
    Ok(())
}
