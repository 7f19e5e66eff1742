//! Data in and out: Parquet and Arrow IPC inputs, compressed CSV, standard
//! input and output, devices, FIFOs and links as outputs, the streamed
//! sample of `fit` and `resample`, streamed `predict` and its options, and
//! the column rules (`--drop`, `--decimal`, level limits, close names).

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, DictionaryArray, Float32Array, Int32Array, Int64Array, RecordBatch, StringArray,
};
use common::{comparable, file, model_bytes, run, scratch};
use serde_json::Value;

fn rarity() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rarity"))
}

fn ok(args: &[&str]) -> String {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}

fn json(args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.extend(["--format", "json"]);
    serde_json::from_str(&ok(&a)).unwrap()
}

fn fails(args: &[&str], needles: &[&str]) -> String {
    let (code, _, err) = run(args);
    assert_ne!(code, 0, "{args:?} should fail");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: expected {n:?} in: {err}");
    }
    err
}

/// A CSV of `n` rows: three numeric features and a 0/1 class (1 in 8).
fn csv_text(n: usize) -> String {
    let mut s = String::from("a,b,c,class\n");
    for i in 0..n {
        s.push_str(&format!(
            "{},{},{},{}\n",
            (i % 17) as f64 * 0.5,
            (i * 7 % 13) as f64 - 6.0,
            (i % 5) as f64 / 3.0,
            u8::from(i % 8 == 0 || (i % 17 > 12 && i % 3 == 0))
        ));
    }
    s
}

/// A Parquet file with an int column with nulls, a float32 column, a
/// dictionary-encoded string column, a string target, in row groups of 3.
fn parquet_file(path: &Path, with_null: bool) {
    let a: Int32Array = if with_null {
        vec![Some(1), None, Some(3), Some(4), Some(5), Some(6), Some(7)].into()
    } else {
        vec![1, 2, 3, 4, 5, 6, 7].into()
    };
    let b = Float32Array::from(vec![0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5]);
    let keys = Int32Array::from(vec![0, 1, 0, 1, 1, 0, 0]);
    let colour = DictionaryArray::<Int32Type>::try_new(
        keys,
        Arc::new(StringArray::from(vec!["red", "blue"])),
    )
    .unwrap();
    let y = StringArray::from(vec!["no", "yes", "no", "no", "yes", "no", "no"]);
    let batch = RecordBatch::try_from_iter(vec![
        ("a", Arc::new(a) as ArrayRef),
        ("b", Arc::new(b) as ArrayRef),
        ("colour", Arc::new(colour) as ArrayRef),
        ("y", Arc::new(y) as ArrayRef),
    ])
    .unwrap();
    let props = parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(3))
        .build();
    let f = std::fs::File::create(path).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(f, batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

#[test]
fn parquet_nullable_dictionary_and_row_groups() {
    let d = scratch("pq");
    let p = d.join("t.parquet");
    parquet_file(&p, true);
    let p = p.to_str().unwrap();
    let v = json(&["inspect", p, "--categorical", "one-hot"]);
    assert_eq!(v["n"], 6, "{v}");
    assert_eq!(v["rows_dropped"]["count"], 1);
    assert_eq!(v["classes"], serde_json::json!(["no", "yes"]));
    let names: Vec<&str> = v["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a", "b", "colour=blue", "colour=red"]);
    // Text features without --categorical one-hot: an error naming the column.
    fails(
        &["inspect", p],
        &["column 'colour'", "--categorical native"],
    );
    // Same table as CSV reads the same.
    let csv = file(
        &d,
        "t.csv",
        b"a,b,colour,y\n1,0.5,red,no\n,1.5,blue,yes\n3,2.5,red,no\n4,3.5,blue,no\n5,4.5,blue,yes\n6,5.5,red,no\n7,6.5,red,no\n",
    );
    let w = json(&["inspect", &csv, "--categorical", "one-hot"]);
    assert_eq!(v["features"], w["features"]);
    assert_eq!(v["class_counts"], w["class_counts"]);
}

#[test]
fn parquet_bad_input_is_an_error() {
    let d = scratch("pqbad");
    let p = d.join("t.parquet");
    parquet_file(&p, false);
    let bytes = std::fs::read(&p).unwrap();
    // Truncated, and corrupt in the middle.
    let cut = file(&d, "cut.parquet", &bytes[..bytes.len() / 2]);
    fails(
        &["inspect", &cut, "--categorical", "one-hot"],
        &["cut.parquet"],
    );
    let mut bad = bytes.clone();
    let mid = bad.len() / 3;
    bad[mid..mid + 40].iter_mut().for_each(|b| *b = !*b);
    let bad = file(&d, "bad.parquet", &bad);
    let _ = run(&["inspect", &bad, "--categorical", "one-hot"]);
    // A target that is all null.
    let batch = RecordBatch::try_from_iter(vec![
        ("a", Arc::new(Int64Array::from(vec![1, 2])) as ArrayRef),
        (
            "y",
            Arc::new(StringArray::from(vec![None::<&str>, None])) as ArrayRef,
        ),
    ])
    .unwrap();
    let f = std::fs::File::create(d.join("null.parquet")).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(f, batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let p = d.join("null.parquet");
    fails(&["inspect", p.to_str().unwrap()], &["missing value"]);
    // An unsupported column type names the column, unless it is dropped.
    let batch = RecordBatch::try_from_iter(vec![
        ("a", Arc::new(Int64Array::from(vec![1, 2, 3])) as ArrayRef),
        (
            "when",
            Arc::new(arrow_array::Date32Array::from(vec![1, 2, 3])) as ArrayRef,
        ),
        ("y", Arc::new(Int64Array::from(vec![0, 1, 0])) as ArrayRef),
    ])
    .unwrap();
    let p = d.join("date.parquet");
    let f = std::fs::File::create(&p).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(f, batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let p = p.to_str().unwrap();
    fails(&["inspect", p], &["column 'when'", "Date32", "--drop when"]);
    assert_eq!(json(&["inspect", p, "--drop", "when"])["d"], 1);
}

#[test]
fn arrow_ipc_file_and_stream() {
    let d = scratch("ipc");
    let batch = RecordBatch::try_from_iter(vec![
        (
            "x",
            Arc::new(Int64Array::from(vec![1, 2, 3, 4])) as ArrayRef,
        ),
        (
            "y",
            Arc::new(StringArray::from(vec!["a", "b", "a", "a"])) as ArrayRef,
        ),
    ])
    .unwrap();
    let mut bytes = Vec::new();
    {
        let mut w = arrow_ipc::writer::FileWriter::try_new(&mut bytes, &batch.schema()).unwrap();
        w.write(&batch).unwrap();
        w.finish().unwrap();
    }
    let f = file(&d, "t.feather", &bytes);
    let v = json(&["inspect", &f]);
    assert_eq!(v["class_counts"], serde_json::json!([3, 1]));
    let mut stream = Vec::new();
    {
        let mut w = arrow_ipc::writer::StreamWriter::try_new(&mut stream, &batch.schema()).unwrap();
        w.write(&batch).unwrap();
        w.finish().unwrap();
    }
    // An IPC stream on standard input.
    let mut child = rarity()
        .args(["inspect", "-", "--format", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&stream).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let w: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(w["class_counts"], v["class_counts"]);
    // Truncated.
    let cut = file(&d, "cut.arrow", &bytes[..bytes.len() - 30]);
    fails(&["inspect", &cut], &["cut.arrow"]);
}

#[test]
fn compressed_csv_and_stdin() {
    let d = scratch("gz");
    let text = csv_text(500);
    let plain = file(&d, "t.csv", text.as_bytes());
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, text.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    let zst = zstd::stream::encode_all(text.as_bytes(), 1).unwrap();
    let want = json(&["inspect", &plain]);
    for (name, bytes) in [("t.csv.gz", &gz), ("t.csv.zst", &zst), ("noext", &gz)] {
        let f = file(&d, name, bytes);
        let v = json(&["inspect", &f]);
        assert_eq!(v["features"], want["features"], "{name}");
    }
    // A corrupt gzip stream.
    let mut bad = gz.clone();
    let n = bad.len();
    bad.truncate(n - 20);
    let bad = file(&d, "bad.csv.gz", &bad);
    fails(&["inspect", &bad], &["bad.csv.gz"]);
    // A file that ends mid-row.
    let mid = file(&d, "mid.csv", b"a,b,class\n1,2,0\n3,4,1\n5,");
    fails(&["inspect", &mid], &["line 4", "2 fields"]);
    // Standard input, for every reading command.
    let out = rarity()
        .args(["inspect", "-", "--format", "json"])
        .stdin(std::fs::File::open(&plain).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["features"], want["features"]);
    for args in [
        vec!["fit", "-", "--model", "tree", "-o"],
        vec![
            "evaluate", "-", "--model", "tree", "--cv", "2", "--format", "json",
        ],
        vec!["resample", "-", "--method", "under", "-o"],
    ] {
        let mut a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        if a.last().unwrap() == "-o" {
            a.push(d.join(format!("{}.out", a[0])).display().to_string());
        }
        let out = rarity()
            .args(&a)
            .stdin(std::fs::File::open(&plain).unwrap())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{a:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Input by the path of a pipe (`/dev/stdin` fed through a pipe, as
/// `<(zcat ...)` gives): read once as a stream, plain or compressed, by every
/// reading command, the streaming ones falling back to memory.
#[cfg(target_os = "linux")]
#[test]
fn pipes_by_path() {
    use std::io::Write;
    let d = scratch("pipes");
    let text = csv_text(500);
    let plain = file(&d, "t.csv", text.as_bytes());
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(text.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    let piped = |args: &[&str], bytes: &[u8]| {
        let mut child = rarity()
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = child.stdin.take().unwrap();
        let bytes = bytes.to_vec();
        let feed = std::thread::spawn(move || {
            let _ = input.write_all(&bytes);
        });
        let out = child.wait_with_output().unwrap();
        feed.join().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let json_of = |b: Vec<u8>| -> Value { serde_json::from_slice(&b).unwrap() };
    let want = json(&["inspect", &plain]);
    for bytes in [text.as_bytes(), &gz[..]] {
        let v = json_of(piped(&["inspect", "/dev/stdin", "--format", "json"], bytes));
        assert_eq!(v["features"], want["features"]);
    }
    let spec = "under(ratio=1)+tree";
    let evaluate = ["evaluate", "--model", spec, "--cv", "3"];
    let from_file = json(&[&evaluate[..], &[plain.as_str()]].concat());
    let from_pipe = json_of(piped(
        &[&evaluate[..], &["/dev/stdin", "--format", "json"]].concat(),
        text.as_bytes(),
    ));
    assert_eq!(from_file["metrics"], from_pipe["metrics"]);
    let model = d.join("m.rarity").display().to_string();
    piped(&["fit", "/dev/stdin", "--model", spec, "-o", &model], &gz);
    let sample = d.join("s.csv").display().to_string();
    piped(
        &["resample", "/dev/stdin", "--method", "under", "-o", &sample],
        text.as_bytes(),
    );
    assert!(std::fs::metadata(&model).unwrap().len() > 0);
    assert!(std::fs::read_to_string(&sample).unwrap().lines().count() > 1);
}

#[cfg(unix)]
#[test]
fn outputs_to_devices_fifos_links_and_stdout() {
    let d = scratch("outs");
    let f = file(&d, "t.csv", csv_text(200).as_bytes());
    // A device is written in place, never replaced.
    ok(&["resample", &f, "--method", "under", "-o", "/dev/null"]);
    let m = std::fs::metadata("/dev/null").unwrap();
    assert!(!m.is_file());
    // A FIFO: written directly while a reader drains it.
    let fifo = d.join("fifo");
    let st = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(st.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    ok(&[
        "resample",
        &f,
        "--method",
        "under",
        "-o",
        fifo.to_str().unwrap(),
    ]);
    let got = reader.join().unwrap();
    assert!(got.starts_with("a,b,c,class\n"), "{got}");
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    // A link is followed: the target gets the table, the link stays.
    let target = d.join("real.csv");
    std::fs::write(&target, "old").unwrap();
    let link = d.join("link.csv");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    ok(&[
        "resample",
        &f,
        "--method",
        "under",
        "-o",
        link.to_str().unwrap(),
    ]);
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(&target)
        .unwrap()
        .starts_with("a,b,c,class"));
    // `-o -` for every table-writing command: the table on stdout, the
    // summary on stderr.
    let out = ok(&["resample", &f, "--method", "under", "-o", "-"]);
    assert!(out.starts_with("a,b,c,class\n"), "{out}");
    let out = ok(&["generate", "gaussian", "--n", "10", "-o", "-"]);
    assert_eq!(out.lines().count(), 11, "{out}");
    let model = d.join("m.rarity");
    ok(&["fit", &f, "--model", "tree", "-o", model.to_str().unwrap()]);
    let out = ok(&["predict", model.to_str().unwrap(), &f, "-o", "-"]);
    assert!(out.starts_with("class,p_0,p_1,label\n"), "{out}");
    assert_eq!(out.lines().count(), 201);
    // A directory as output is an error, and nothing is left behind.
    fails(
        &[
            "resample",
            &f,
            "--method",
            "under",
            "-o",
            d.to_str().unwrap(),
        ],
        &["directory"],
    );
}

#[test]
fn parquet_outputs_read_back() {
    let d = scratch("pqout");
    let f = file(&d, "t.csv", csv_text(300).as_bytes());
    let pq = d.join("s.parquet");
    let pq = pq.to_str().unwrap();
    ok(&["resample", &f, "--method", "smote", "-o", pq]);
    let csv = d.join("s.csv");
    let csv = csv.to_str().unwrap();
    ok(&["resample", &f, "--method", "smote", "-o", csv]);
    assert_eq!(
        json(&["inspect", pq])["features"],
        json(&["inspect", csv])["features"]
    );
    let g = d.join("g.parquet");
    ok(&[
        "generate",
        "fraud",
        "--n",
        "3000",
        "-o",
        g.to_str().unwrap(),
    ]);
    let gc = d.join("g.csv");
    ok(&[
        "generate",
        "fraud",
        "--n",
        "3000",
        "-o",
        gc.to_str().unwrap(),
    ]);
    let (a, b) = (
        json(&["inspect", g.to_str().unwrap()]),
        json(&["inspect", gc.to_str().unwrap()]),
    );
    assert_eq!(a["class_counts"], b["class_counts"]);
    let model = d.join("m.rarity");
    ok(&[
        "fit",
        &f,
        "--model",
        "logistic",
        "-o",
        model.to_str().unwrap(),
    ]);
    let p = d.join("p.parquet");
    ok(&[
        "predict",
        model.to_str().unwrap(),
        &f,
        "-o",
        p.to_str().unwrap(),
    ]);
    // The kept target column `class` holds the table's text labels.
    let v = json(&[
        "inspect",
        p.to_str().unwrap(),
        "--target",
        "label",
        "--drop",
        "class",
    ]);
    assert_eq!(v["n"], 300);
}

#[test]
fn streamed_fit_is_the_in_memory_fit() {
    let d = scratch("stream");
    let text = csv_text(20_000);
    let f = file(&d, "t.csv", text.as_bytes());
    for spec in [
        "under(beta=0.3)+forest(n=5)+correct+threshold(priors)",
        "under(ratio=1)+tree",
        "under(rates=[0.2,1],exact)+logistic",
    ] {
        let mut models = Vec::new();
        for threads in ["1", "2", "3"] {
            let m = d.join(format!("m{threads}.rarity"));
            ok(&[
                "--threads",
                threads,
                "fit",
                &f,
                "--model",
                spec,
                "-o",
                m.to_str().unwrap(),
            ]);
            models.push(comparable(&m));
        }
        // Through the library, reading the whole table first.
        let (ds, _) = rarity::data::read::read_path(f.as_ref(), &Default::default()).unwrap();
        let fitted = rarity::spec::build_strategy(spec)
            .unwrap()
            .fit(&ds, 42)
            .unwrap();
        let whole = rarity::persist::to_bytes(&fitted, rarity::persist::Format::Binary).unwrap();
        for m in &models {
            assert!(
                *m == model_bytes(&whole),
                "{spec}: the streamed fit differs from the in-memory one"
            );
        }
    }
    // The same holds for resample's output, and the keep rates are exact.
    let out = d.join("u.csv");
    let v = json(&[
        "resample",
        &f,
        "--method",
        "under",
        "--beta",
        "0.25",
        "-o",
        out.to_str().unwrap(),
    ]);
    let (ds, _) = rarity::data::read::read_path(f.as_ref(), &Default::default()).unwrap();
    let s = rarity::sample::parse_sampler("under(beta=0.25)")
        .unwrap()
        .resample(&ds, &mut rarity::rng::stream(42, 0))
        .unwrap();
    let want: Vec<f64> = s.keep_rates.clone();
    let got: Vec<f64> = v["keep_rates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(got, want);
    let mem = d.join("mem.csv");
    rarity::data::write::write_csv(&s.materialise(&ds).unwrap(), &mem).unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&mem).unwrap());
}

#[test]
fn predict_options() {
    let d = scratch("predict");
    let train = file(
        &d,
        "train.csv",
        b"id,country,amount,class\n1,FR,10,0\n2,DE,20,0\n3,FR,15,1\n4,DE,30,0\n5,FR,12,1\n6,DE,25,0\n7,FR,11,0\n8,DE,21,1\n",
    );
    let model = d.join("m.rarity");
    let model = model.to_str().unwrap();
    ok(&[
        "fit",
        &train,
        "--categorical",
        "one-hot",
        "--drop",
        "id",
        "--model",
        "logistic",
        "-o",
        model,
    ]);
    let new = file(
        &d,
        "new.csv",
        b"id,amount,country\n10,12,FR\n11,30,JP\n12,22,DE\n13,14,KR\n14,9,JP\n",
    );
    // Unknown levels: an error counting rows and levels, or all-zero columns.
    let out = d.join("p.csv");
    let out = out.to_str().unwrap();
    fails(
        &["predict", model, &new, "-o", out],
        &[
            "3 row(s)",
            "2 level(s)",
            "'JP' (2 rows)",
            "'KR' (1 row)",
            "--unknown ignore",
        ],
    );
    assert!(!Path::new(out).exists());
    let v = json(&[
        "predict",
        model,
        &new,
        "--unknown",
        "ignore",
        "--id",
        "id",
        "-o",
        out,
    ]);
    assert_eq!(v["rows"], 5);
    assert_eq!(v["rows_dropped"]["count"], 0);
    let text = std::fs::read_to_string(out).unwrap();
    assert!(text.starts_with("id,p_0,p_1,label\n10,"), "{text}");
    // --decision on the saved probabilities.
    let p: Vec<f64> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).unwrap().parse().unwrap())
        .collect();
    for (rule, decide) in [
        (
            "threshold(0.3)",
            Box::new(|p: f64| p >= 0.3) as Box<dyn Fn(f64) -> bool>,
        ),
        ("cost(fn=10,fp=1)", Box::new(|p: f64| 10.0 * p >= 1.0 - p)),
    ] {
        ok(&[
            "predict",
            model,
            &new,
            "--unknown",
            "ignore",
            "--decision",
            rule,
            "-o",
            out,
        ]);
        let labels: Vec<String> = std::fs::read_to_string(out)
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| l.rsplit(',').next().unwrap().to_string())
            .collect();
        let want: Vec<String> = p
            .iter()
            .map(|&p| if decide(p) { "1" } else { "0" }.to_string())
            .collect();
        assert_eq!(labels, want, "{rule}");
    }
    fails(
        &[
            "predict",
            model,
            &new,
            "--decision",
            "tune(metric=f1)",
            "-o",
            out,
        ],
        &["tune"],
    );
}

#[test]
fn column_rules() {
    let d = scratch("cols");
    // --drop and close-name suggestions.
    let f = file(&d, "t.csv", b"Amount,txn,Class\n1,a1,0\n2,a2,1\n3,a3,0\n");
    fails(
        &["inspect", &f, "--target", "class_"],
        &["did you mean 'Class'"],
    );
    fails(&["inspect", &f, "--drop", "txnn"], &["did you mean 'txn'"]);
    let v = json(&["inspect", &f, "--drop", "txn", "--target", "Class"]);
    assert_eq!(v["d"], 1);
    // More than 50 levels: an error naming the column, suggesting --drop / --id.
    let mut t = String::from("amount,txn_id,class\n");
    for i in 0..120 {
        t.push_str(&format!("{i},T{i},{}\n", i % 2));
    }
    let f = file(&d, "ids.csv", t.as_bytes());
    fails(
        &["inspect", &f, "--categorical", "one-hot"],
        &[
            "column 'txn_id'",
            "more than 50",
            "--drop txn_id",
            "--id txn_id",
        ],
    );
    // Decimal commas.
    let f = file(&d, "eu.csv", b"a;b;class\n117,18;1;0\n3,5;2;1\n4;3;0\n");
    let e = fails(
        &["inspect", &f, "--delimiter", ";"],
        &["'117,18'", "--decimal ,"],
    );
    assert!(!e.contains("--categorical"), "{e}");
    let v = json(&["inspect", &f, "--delimiter", ";", "--decimal", ","]);
    assert_eq!(v["features"][0]["max"], 117.18);
    fails(&["inspect", &f, "--decimal", ","], &["both ','"]);
}

#[test]
fn dropped_rows_are_reported_by_every_reading_command() {
    let d = scratch("dropped");
    let mut t = csv_text(400);
    t = t.replacen("\n0,", "\n,", 3);
    let f = file(&d, "m.csv", t.as_bytes());
    let o = d.join("o.out");
    let o = o.to_str().unwrap();
    for args in [
        vec!["inspect", &f],
        // gnb does not take missing values, so `--missing auto` drops.
        vec!["fit", &f, "--model", "gnb", "-o", o],
        vec!["fit", &f, "--model", "under(beta=0.5)+gnb", "-o", o],
        vec!["evaluate", &f, "--model", "gnb", "--cv", "2"],
        vec![
            "resample",
            &f,
            "--method",
            "under",
            "--missing",
            "drop",
            "-o",
            o,
        ],
        vec!["resample", &f, "--method", "smote", "-o", o],
        vec!["run", &f, "-m", "gnb", "--cv", "2", "-o", o],
    ] {
        let v = json(&args);
        assert_eq!(v["rows_dropped"]["count"], 3, "{args:?}: {v}");
        assert!(
            v["rows_dropped"]["reason"]
                .as_str()
                .unwrap()
                .contains("missing"),
            "{args:?}"
        );
        let (code, _, err) = run(&args);
        assert_eq!(code, 0);
        assert!(err.contains("dropped 3 of 400 rows"), "{args:?}: {err}");
        let mut quiet = args.clone();
        quiet.push("--quiet");
        let (_, _, err) = run(&quiet);
        assert!(!err.contains("dropped"), "{args:?}: {err}");
    }
}
