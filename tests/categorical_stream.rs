//! Categorical columns in the streamed sample (issue 41 item 4): `fit`,
//! `evaluate` and `resample` on a file keep their sample while reading
//! (`rarity::stream`), and with categorical columns (`--categorical
//! native`, `--categorical-cols`, one-hot) the model is the in-memory fit's
//! byte for byte: the same level table (sorted level texts, every level of
//! the file, those seen only in dropped rows included) whatever the reader's
//! blocks (CSV blocks, Parquet row groups, plain or dictionary strings), the
//! one-pass or two-pass sample, and the thread count.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, DictionaryArray, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
};
use rand::RngExt;

use common::{comparable, model_bytes, run, scratch};
use rarity::data::read::{read_path, Categorical, ReadOptions};
use rarity::data::{ColumnEncoding, Dataset};
use rarity::evaluate::{cross_validate, Extras};
use rarity::persist::{to_bytes, Format};
use rarity::sample::RandomUnder;
use rarity::stream::{evaluate_file, fit_file, sample_file};

/// Merchants that each appear in one row of the common class only.
const SOLO: usize = 40;

/// The columns of [`rows`].
struct Rows {
    merchant: Vec<String>,
    amount: Vec<f64>,
    mcc: Vec<i64>,
    country: Vec<String>,
    class: Vec<i64>,
}

/// `n` seeded rows: `merchant` (text, `m` levels drawn popular first, so
/// the first-seen order is not the sorted one, plus [`SOLO`] levels `solo-k`
/// of one common-class row each), `amount`, `mcc` (12 numeric codes),
/// `country` (30 texts) and `class` (1 for about 5% of the rows, more often
/// at risky merchants).
fn rows(n: usize, m: usize) -> Rows {
    let mut g = rarity::rng::stream(41, 0);
    let mut r = Rows {
        merchant: Vec::with_capacity(n),
        amount: Vec::with_capacity(n),
        mcc: Vec::with_capacity(n),
        country: Vec::with_capacity(n),
        class: Vec::with_capacity(n),
    };
    for i in 0..n {
        let u: f64 = g.random();
        let j = (m as f64 * u * u) as usize;
        let solo = i % (n / SOLO) == 7;
        let p = if j.is_multiple_of(17) { 0.3 } else { 0.03 };
        let class = i64::from(!solo && g.random::<f64>() < p);
        r.merchant.push(if solo {
            format!("solo-{}", i / (n / SOLO))
        } else {
            format!("m{j}")
        });
        r.amount
            .push((g.random::<f64>() * 1000.0).round() / 10.0 + 9.0 * class as f64);
        r.mcc.push(5000 + (j as i64 * 7 % 12) * 11);
        r.country
            .push(format!("c{}", (g.random::<f64>() * 30.0) as usize));
        r.class.push(class);
    }
    r
}

/// The rows as CSV text.
fn csv(r: &Rows) -> String {
    let mut t = String::from("merchant,amount,mcc,country,class\n");
    for i in 0..r.class.len() {
        t.push_str(&format!(
            "{},{},{},{},{}\n",
            r.merchant[i], r.amount[i], r.mcc[i], r.country[i], r.class[i]
        ));
    }
    t
}

/// The rows as Parquet in row groups of `group` rows, `merchant` as plain
/// strings or dictionary-encoded.
fn parquet(path: &Path, r: &Rows, group: usize, dictionary: bool) {
    let merchant: ArrayRef = if dictionary {
        let mut levels: Vec<&str> = r.merchant.iter().map(String::as_str).collect();
        levels.sort_unstable();
        levels.dedup();
        // Dictionary order is not sorted order: reversed.
        levels.reverse();
        let keys: Vec<i32> = r
            .merchant
            .iter()
            .map(|m| levels.iter().position(|l| l == m).unwrap() as i32)
            .collect();
        Arc::new(
            DictionaryArray::<Int32Type>::try_new(
                Int32Array::from(keys),
                Arc::new(StringArray::from(levels)),
            )
            .unwrap(),
        )
    } else {
        Arc::new(StringArray::from(r.merchant.clone()))
    };
    let batch = RecordBatch::try_from_iter(vec![
        ("merchant", merchant),
        (
            "amount",
            Arc::new(Float64Array::from(r.amount.clone())) as ArrayRef,
        ),
        ("mcc", Arc::new(Int64Array::from(r.mcc.clone())) as ArrayRef),
        (
            "country",
            Arc::new(StringArray::from(r.country.clone())) as ArrayRef,
        ),
        (
            "class",
            Arc::new(Int64Array::from(r.class.clone())) as ArrayRef,
        ),
    ])
    .unwrap();
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(group))
        .build();
    let f = std::fs::File::create(path).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(f, batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

/// A scratch directory `name` holding `t.csv`, the CSV of [`rows`]`(n, m)`,
/// and that file's path.
fn csv_file(name: &str, n: usize, m: usize) -> (PathBuf, PathBuf) {
    let d = scratch(name);
    let path = d.join("t.csv");
    std::fs::write(&path, csv(&rows(n, m))).unwrap();
    (d, path)
}

/// Text columns as level codes and `mcc` declared categorical.
fn native() -> ReadOptions {
    ReadOptions {
        categorical: Categorical::Native,
        categorical_cols: vec!["mcc".into()],
        ..ReadOptions::default()
    }
}

/// Text columns one-hot encoded (`merchant`, with too many levels, left out).
fn one_hot() -> ReadOptions {
    ReadOptions {
        categorical: Categorical::OneHot,
        drop: vec!["merchant".into()],
        ..ReadOptions::default()
    }
}

/// `f` run on a pool of `threads` threads.
fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// The model file bytes of `spec` fitted in memory on `ds` (without the
/// fit time).
fn in_memory(spec: &str, ds: &Dataset, seed: u64) -> Vec<u8> {
    let fitted = rarity::spec::build_strategy(spec)
        .unwrap()
        .fit(ds, seed)
        .unwrap();
    model_bytes(&to_bytes(&fitted, Format::Binary).unwrap())
}

/// The model file bytes of `spec` fitted on the sample kept while reading
/// `path`, on `threads` threads; fails if the file was not streamed.
fn streamed(spec: &str, path: &Path, opts: &ReadOptions, threads: usize) -> Vec<u8> {
    let strategy = rarity::spec::build_strategy(spec).unwrap();
    let (fitted, _, _) = on_threads(threads, || fit_file(&strategy, path, opts, 7))
        .unwrap()
        .unwrap_or_else(|| panic!("{spec} on {}: not streamed", path.display()));
    model_bytes(&to_bytes(&fitted, Format::Binary).unwrap())
}

/// One-pass (`beta`) and two-pass (`ratio`, `rates`) samples.
const SPECS: [&str; 3] = [
    "under(beta=0.1)+forest(n=4)+correct",
    "under(ratio=1)+gbdt(rounds=8)",
    "under(rates=[0.3,1],exact)+tree(max_depth=6)",
];

#[test]
fn the_streamed_fit_is_the_in_memory_fit_whatever_the_blocks_and_threads() {
    let d = scratch("cat-stream-fit");
    let r = rows(60_000, 3_000);
    let text = csv(&r);
    assert!(text.len() > 1 << 20, "more than one 1 MiB reader block");
    let path = d.join("t.csv");
    std::fs::write(&path, &text).unwrap();
    let mut parquets = Vec::new();
    for (group, dictionary) in [(997, false), (8192, true), (60_000, false)] {
        let p = d.join(format!("t{group}.parquet"));
        parquet(&p, &r, group, dictionary);
        parquets.push(p);
    }
    for (name, opts) in [("native", native()), ("one-hot", one_hot())] {
        let (ds, _) = read_path(&path, &opts).unwrap();
        let categorical = ds
            .schema()
            .encodings
            .iter()
            .filter(|e| !matches!(e, ColumnEncoding::Numeric { .. }))
            .count();
        assert_eq!(categorical, if name == "native" { 3 } else { 1 }, "{name}");
        for spec in SPECS {
            let want = in_memory(spec, &ds, 7);
            for threads in [1, 2] {
                for p in std::iter::once(&path).chain(&parquets) {
                    assert!(
                        streamed(spec, p, &opts, threads) == want,
                        "{name} {spec} on {} at {threads} threads differs from the in-memory fit",
                        p.display()
                    );
                }
            }
        }
    }
}

#[test]
fn levels_seen_only_in_dropped_rows_are_levels_of_the_schema() {
    let (_, path) = csv_file("cat-stream-levels", 20_000, 500);
    let opts = native();
    let (ds, _) = read_path(&path, &opts).unwrap();
    let sampler = RandomUnder::beta(0.1);
    let s = sample_file(&sampler, &path, &opts, &mut rarity::rng::stream(7, 0))
        .unwrap()
        .expect("streamed");
    assert_eq!(s.data.schema().encodings, ds.schema().encodings);
    let j = ds.feature_index("merchant", "column").unwrap();
    let ColumnEncoding::Categorical { levels, .. } = &ds.schema().encodings[j] else {
        panic!("merchant is not categorical");
    };
    let mut sorted = levels.clone();
    sorted.sort();
    assert_eq!(levels, &sorted);
    let held: std::collections::HashSet<u64> = (0..s.data.n_rows())
        .map(|i| s.data.value(i, j) as u64)
        .collect();
    let dropped: Vec<usize> = (0..levels.len())
        .filter(|&c| levels[c].starts_with("solo-") && !held.contains(&(c as u64)))
        .collect();
    assert!(
        dropped.len() > SOLO / 2,
        "solo merchants dropped by the sample: {dropped:?}"
    );
    // Such a level is in no split's set: it is predicted as an unseen one.
    let strategy = rarity::spec::build_strategy(SPECS[0]).unwrap();
    let (fitted, _, _) = fit_file(&strategy, &path, &opts, 7).unwrap().unwrap();
    let mut x = Vec::new();
    for i in 0..s.data.n_rows().min(200) {
        for code in [dropped[0] as f64, f64::NAN] {
            let mut row = s.data.row(i).to_vec();
            row[j] = code;
            x.extend(row);
        }
    }
    let n = x.len() / ds.n_features();
    let probe = Dataset::new(x, vec![0; n], ds.schema().clone()).unwrap();
    let (p, _) = fitted.predict(&probe).unwrap();
    let p1 = p.column(1);
    for pair in p1.chunks(2) {
        assert_eq!(pair[0].to_bits(), pair[1].to_bits());
    }
    assert!(p1.iter().any(|&v| v != p1[0]), "the probe rows differ");
}

#[test]
fn evaluate_and_resample_stream_categorical_columns_too() {
    let (d, path) = csv_file("cat-stream-cv", 12_000, 400);
    let opts = native();
    let (ds, _) = read_path(&path, &opts).unwrap();
    let spec = "under(beta=0.2)+forest(n=3)+correct";
    let s = rarity::spec::build_strategy(spec).unwrap();
    let splitter = "3".parse().unwrap();
    let extras = Extras::default();
    let (got, _) = evaluate_file(&s, &splitter, &path, &opts, 9, &extras, false)
        .unwrap()
        .expect("streamed");
    let want = cross_validate(&s, &ds, &splitter, 9, &extras).unwrap();
    assert_eq!(got.folds.len(), want.folds.len());
    for (a, b) in got.folds.iter().zip(&want.folds) {
        let bits = |f: &rarity::evaluate::FoldResult| {
            f.metrics
                .iter()
                .map(|(m, v)| (m.clone(), v.to_bits()))
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(a), bits(b));
    }
    // resample from the file (streamed) and from standard input (in
    // memory) write the same rows, levels as their texts.
    let f = path.to_str().unwrap();
    let out = d.join("s.csv");
    let args = [
        "--categorical",
        "native",
        "--categorical-cols",
        "mcc",
        "--method",
        "under",
        "--beta",
        "0.2",
        "--quiet",
    ];
    let mut a = vec!["resample", f, "-o", out.to_str().unwrap()];
    a.extend(args);
    let (code, _, err) = run(&a);
    assert_eq!(code, 0, "{err}");
    let piped = d.join("p.csv");
    let mut child = Command::new(env!("CARGO_BIN_EXE_rarity"))
        .args(["resample", "-", "-o", piped.to_str().unwrap()])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&std::fs::read(&path).unwrap())
        .unwrap();
    assert!(child.wait().unwrap().success());
    let written = std::fs::read_to_string(&out).unwrap();
    assert_eq!(written, std::fs::read_to_string(&piped).unwrap());
    assert!(written.starts_with("merchant,amount,mcc,country,class\n"));
    assert!(written.lines().count() < 12_000 / 2, "a sample");
}

#[test]
fn the_command_line_fit_streams_at_any_thread_count() {
    let (d, path) = csv_file("cat-stream-cli", 20_000, 800);
    let f = path.to_str().unwrap();
    let (ds, _) = read_path(&path, &native()).unwrap();
    let spec = SPECS[0];
    let want = in_memory(spec, &ds, 42);
    for threads in ["1", "2"] {
        let m = d.join(format!("m{threads}.rarity"));
        let (code, _, err) = run(&[
            "--threads",
            threads,
            "fit",
            f,
            "--categorical",
            "native",
            "--categorical-cols",
            "mcc",
            "--model",
            spec,
            "-o",
            m.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(comparable(&m) == want, "{threads} threads");
    }
}
