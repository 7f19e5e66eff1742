//! `--cv time(...)` and `--cv group(...)` end to end: folds in time order,
//! the column out of the features, clear errors on bad columns.

mod common;

use common::{file, run, scratch};

/// A table of `n` rows: day (4 rows a day), card (7 cards), x, y.
fn table(n: usize) -> Vec<u8> {
    let mut t = String::from("day,card,x,y\n");
    for i in 0..n {
        let y = u32::from(i % 5 == 0);
        t.push_str(&format!(
            "{},{},{},{y}\n",
            i / 4,
            i % 7,
            (i * 37 % 101) as f64 / 10.0 + f64::from(y)
        ));
    }
    t.into_bytes()
}

#[test]
fn time_and_group_folds_run_and_write_their_blocks() {
    let d = scratch("cv-time");
    let f = file(&d, "t.csv", &table(200));
    let oof = d.join("oof.csv").to_string_lossy().to_string();
    let (code, out, err) = run(&[
        "evaluate",
        &f,
        "--target",
        "y",
        "-m",
        "logistic",
        "--cv",
        "time(col=day, folds=4)",
        "--oof",
        &oof,
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["folds"], 4);
    // The first fifth trains only: 160 test rows, fold f on days after fold f-1's.
    let text = std::fs::read_to_string(&oof).unwrap();
    let rows: Vec<(usize, usize)> = text
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].parse().unwrap(), f[2].parse().unwrap())
        })
        .collect();
    assert_eq!(rows.len(), 160);
    assert!(rows.iter().all(|&(row, fold)| row / 40 == fold + 1));
    let model = d.join("w.rarity").to_string_lossy().to_string();
    let (code, _, err) = run(&[
        "run",
        &f,
        "--target",
        "y",
        "-m",
        "logistic",
        "-m",
        "gnb",
        "--cv",
        "group(col=card, folds=3)",
        "-o",
        &model,
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn bad_time_and_group_columns_are_clear_errors() {
    let d = scratch("cv-bad");
    let f = file(&d, "t.csv", &table(40));
    let text = file(
        &d,
        "s.csv",
        b"day,x,y\nmon,1,0\ntue,2,1\nwed,3,0\nthu,4,1\n",
    );
    for (path, cv, why) in [
        (&f, "time(col=day, folds=10)", "needs at least 11"),
        (&f, "time(col=dy)", "did you mean 'day'"),
        (&f, "group(col=card, folds=8)", "7 groups"),
        (&f, "time(folds=3)", "name the column"),
        (&text, "time(col=day, folds=2)", "day"),
    ] {
        let (code, _, err) = run(&["evaluate", path, "--target", "y", "-m", "gnb", "--cv", cv]);
        assert_ne!(code, 0, "{cv}");
        assert!(
            err.contains(why) && !err.contains("panicked"),
            "{cv}: {err}"
        );
    }
}

/// The table of [`table`] as a dataset (features day, card, x).
fn dataset(n: usize) -> rarity::data::Dataset {
    let bytes = table(n);
    let (ds, _) = rarity::data::read::read_from(
        bytes.as_slice(),
        "t.csv",
        rarity::data::read::Format::Csv,
        0,
        &read_options(),
    )
    .expect("the table reads");
    ds
}

fn read_options() -> rarity::data::read::ReadOptions {
    rarity::data::read::ReadOptions {
        target: Some("y".into()),
        ..Default::default()
    }
}

#[test]
fn tuned_thresholds_are_tuned_on_inner_folds_of_the_same_scheme() {
    use rarity::split::Splitter;
    use rarity::strategy::CoreFits;
    let data = dataset(200);
    let s = rarity::spec::build_strategy("logistic+tune(metric=f1)").unwrap();
    let cv: Splitter = "time(col=day, folds=4)".parse().unwrap();
    let seen = cv.features(&data).unwrap();
    let inner = cv.inner(&data).unwrap();
    let folds = inner.folds(&seen, 3, 5, "too few").unwrap();
    let day = |i: usize| data.value(i, 0);
    for f in &folds {
        let last = f.train.iter().map(|&i| day(i)).fold(f64::MIN, f64::max);
        assert!(f.test.iter().all(|&i| day(i) > last));
    }
    let mut cores = CoreFits::new(&seen, 5).with_inner(inner);
    let model = s.fit_model(&mut cores, true).unwrap();
    let oof = model.oof.as_ref().unwrap();
    // Out-of-fold probabilities exist for the rows tested by an inner fold
    // only: the first block in time is never tested.
    let tested: Vec<usize> = {
        let mut t: Vec<usize> = folds.iter().flat_map(|f| f.test.clone()).collect();
        t.sort_unstable();
        t
    };
    assert!(tested.len() < 200 && tested.len() > 100);
    assert_eq!(oof.truth.len(), tested.len());
    let truth: Vec<u32> = tested.iter().map(|&i| data.labels()[i]).collect();
    assert_eq!(oof.truth, truth);
    // Stratified inner folds (no scheme) cover every row.
    let plain = s.fit_model(&mut CoreFits::new(&seen, 5), true).unwrap();
    assert_eq!(plain.oof.unwrap().truth.len(), 200);
}

#[test]
fn tune_under_time_folds_runs_and_says_when_a_training_part_is_too_short() {
    let d = scratch("cv-tune");
    let f = file(&d, "t.csv", &table(200));
    let args = |cv: &'static str| {
        vec![
            "evaluate",
            f.as_str(),
            "--target",
            "y",
            "-m",
            "logistic+tune(metric=f1)",
            "--cv",
            cv,
            "--format",
            "json",
        ]
    };
    let (code, out, err) = run(&args("time(col=day, folds=4)"));
    assert_eq!(code, 0, "{err}");
    let (_, again, _) = run(&args("time(col=day, folds=4)"));
    let metrics =
        |t: &str| serde_json::from_str::<serde_json::Value>(t).unwrap()["metrics"].clone();
    assert_eq!(metrics(&out), metrics(&again));
    // 50 days in 41 blocks: the first training part has 1-2 days, too few
    // for 3 inner time folds.
    let (code, _, err) = run(&args("time(col=day, folds=40)"));
    assert_ne!(code, 0);
    assert!(
        err.contains("inner folds")
            && err.contains("needs at least 4")
            && !err.contains("panicked"),
        "{err}"
    );
    let (code, _, err) = run(&args("group(col=card, folds=3)"));
    assert_eq!(code, 0, "{err}");
}

/// [`table`] with the day as an ISO 8601 date (or date-time, every other
/// day) and the card as a text id that sorts as the card numbers do.
fn text_table(n: usize) -> Vec<u8> {
    let text = String::from_utf8(table(n)).unwrap();
    let mut out = String::from("day,card,x,y\n");
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let day: i64 = f[0].parse().unwrap();
        // Days from 2024-02-20: across a leap day and a month end.
        let date = rarity_date(day);
        let when = if day % 2 == 0 {
            date
        } else {
            format!("{date}T23:59:59+00:00")
        };
        out.push_str(&format!("{when},card-{},{},{}\n", f[1], f[2], f[3]));
    }
    out.into_bytes()
}

/// 2024-02-20 plus `day` days, as `YYYY-MM-DD` (up to 100 days).
fn rarity_date(day: i64) -> String {
    let mut d = 20 + day;
    for (month, len) in [(2, 29), (3, 31), (4, 30), (5, 31), (6, 30)] {
        if d <= len {
            return format!("2024-{month:02}-{d:02}");
        }
        d -= len;
    }
    panic!("day {day} out of range");
}

/// The out-of-fold file of `evaluate` on `path` under `cv`.
fn oof_of(d: &std::path::Path, path: &str, cv: &str, extra: &[&str]) -> String {
    let oof = d.join("oof.csv").to_string_lossy().to_string();
    let mut args = vec![
        "evaluate", path, "--target", "y", "-m", "logistic", "--cv", cv, "--oof", &oof,
    ];
    args.extend_from_slice(extra);
    let (code, _, err) = run(&args);
    assert_eq!(code, 0, "{cv}: {err}");
    std::fs::read_to_string(&oof).unwrap()
}

#[test]
fn text_times_and_text_group_ids_split_as_their_numbers_do() {
    let d = scratch("cv-text-keys");
    let numbers = file(&d, "n.csv", &table(200));
    let texts = file(&d, "t.csv", &text_table(200));
    // ISO dates order the rows as the day numbers do (a date-time late on
    // day k still precedes day k + 1): the same blocks, the same folds.
    for cv in ["time(col=day, folds=4)", "time(col=day, folds=7)"] {
        let want = oof_of(&d, &numbers, cv, &["--drop", "card"]);
        let got = oof_of(&d, &texts, cv, &["--drop", "card"]);
        assert_eq!(got, want, "{cv}");
    }
    // Text ids, numbered in sorted order, are the card numbers 0..7 again.
    let cv = "group(col=card, folds=3)";
    let want = oof_of(&d, &numbers, cv, &["--drop", "day"]);
    let got = oof_of(&d, &texts, cv, &["--drop", "day"]);
    assert_eq!(got, want);
    // A model chosen under text groups predicts on data with or without the column.
    let model = d.join("m.rarity").to_string_lossy().to_string();
    let (code, _, err) = run(&[
        "run", &texts, "--target", "y", "--drop", "day", "-m", "logistic", "-m", "gnb", "--cv", cv,
        "-o", &model, "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    let out = d.join("p.csv").to_string_lossy().to_string();
    let (code, _, err) = run(&["predict", &model, &texts, "-o", &out]);
    assert_eq!(code, 0, "{err}");
    let bare = file(&d, "bare.csv", b"x,y\n1.5,0\n9.5,1\n");
    let (code, _, err) = run(&["predict", &model, &bare, "-o", &out]);
    assert_eq!(code, 0, "{err}");
    // keep=true makes the column a feature, read as features are: text is an error.
    let (code, _, err) = run(&[
        "evaluate",
        &texts,
        "--target",
        "y",
        "--drop",
        "day",
        "-m",
        "gnb",
        "--cv",
        "group(col=card, folds=3, keep=true)",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("'card-") && !err.contains("panicked"), "{err}");
}

#[test]
fn a_bad_time_or_group_key_is_a_clear_error() {
    let d = scratch("cv-text-bad");
    let slashes = file(&d, "s.csv", b"day,x,y\n01/02/2024,1,0\n02/02/2024,2,1\n");
    let feb30 = file(&d, "f.csv", b"day,x,y\n2024-02-28,1,0\n2024-02-30,2,1\n");
    let texts = file(&d, "t.csv", &text_table(40));
    for (path, cv, extra, why) in [
        (
            &slashes,
            "time(col=day, folds=2)",
            "",
            "'01/02/2024' is neither a number nor an ISO 8601 date",
        ),
        (
            &feb30,
            "time(col=day, folds=2)",
            "",
            "'2024-02-30' is neither",
        ),
        (
            &texts,
            "time(col=y)",
            "",
            "the time column 'y' is the target column",
        ),
        (
            &texts,
            "group(col=card)",
            "card",
            "the group column 'card' is left out with --drop",
        ),
        (&texts, "group(col=crd)", "day", "did you mean 'card'"),
    ] {
        let mut args = vec![
            "evaluate",
            path.as_str(),
            "--target",
            "y",
            "-m",
            "gnb",
            "--cv",
            cv,
        ];
        if !extra.is_empty() {
            args.extend(["--drop", extra]);
        }
        let (code, _, err) = run(&args);
        assert_ne!(code, 0, "{cv}");
        assert!(
            err.contains(why) && !err.contains("panicked"),
            "{cv}: {err}"
        );
    }
}

/// Parquet dates, timestamps (any unit, with or without a zone) and
/// strings as time and group keys; a timestamp that is not the key is an
/// error that names --cv time.
#[test]
fn parquet_dates_timestamps_and_strings_are_keys() {
    use arrow_array::{
        ArrayRef, Date32Array, Float64Array, Int64Array, RecordBatch, StringArray,
        TimestampMillisecondArray, TimestampNanosecondArray,
    };
    use std::sync::Arc;
    let d = scratch("cv-parquet-keys");
    let n = 200usize;
    let day: Vec<i64> = (0..n).map(|i| (i / 4) as i64).collect();
    let base = 19_773; // 2024-02-20 in days since 1970
    let x: Vec<f64> = (0..n)
        .map(|i| (i * 37 % 101) as f64 / 10.0 + f64::from(u8::from(i % 5 == 0)))
        .collect();
    let y: Vec<i64> = (0..n).map(|i| i64::from(i % 5 == 0)).collect();
    let write = |name: &str, day_col: ArrayRef, card: ArrayRef| {
        let batch = RecordBatch::try_from_iter([
            ("day", day_col),
            ("card", card),
            ("x", Arc::new(Float64Array::from(x.clone())) as ArrayRef),
            ("y", Arc::new(Int64Array::from(y.clone())) as ArrayRef),
        ])
        .unwrap();
        let path = d.join(name);
        let f = std::fs::File::create(&path).unwrap();
        let mut w = parquet::arrow::ArrowWriter::try_new(f, batch.schema(), None).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        path.to_string_lossy().to_string()
    };
    let cards = |i: usize| format!("card-{}", i % 7);
    let numbers = write(
        "n.parquet",
        Arc::new(Int64Array::from(day.clone())),
        Arc::new(Int64Array::from(
            (0..n).map(|i| (i % 7) as i64).collect::<Vec<_>>(),
        )),
    );
    let text_card: ArrayRef = Arc::new(StringArray::from((0..n).map(cards).collect::<Vec<_>>()));
    let dates = write(
        "d.parquet",
        Arc::new(Date32Array::from(
            day.iter().map(|&k| (base + k) as i32).collect::<Vec<_>>(),
        )),
        text_card.clone(),
    );
    let millis = write(
        "ms.parquet",
        Arc::new(
            TimestampMillisecondArray::from(
                day.iter()
                    .map(|&k| (base + k) * 86_400_000 + 3_600_000)
                    .collect::<Vec<_>>(),
            )
            .with_timezone("+01:00"),
        ),
        text_card.clone(),
    );
    let nanos = write(
        "ns.parquet",
        Arc::new(TimestampNanosecondArray::from(
            day.iter()
                .map(|&k| (base + k) * 86_400_000_000_000)
                .collect::<Vec<_>>(),
        )),
        text_card,
    );
    let iso = write(
        "iso.parquet",
        Arc::new(StringArray::from(
            day.iter().map(|&k| rarity_date(k)).collect::<Vec<_>>(),
        )),
        Arc::new(Int64Array::from(
            (0..n).map(|i| (i % 7) as i64).collect::<Vec<_>>(),
        )),
    );
    let time = "time(col=day, folds=4)";
    let want = oof_of(&d, &numbers, time, &["--drop", "card"]);
    for path in [&dates, &millis, &nanos, &iso] {
        assert_eq!(oof_of(&d, path, time, &["--drop", "card"]), want, "{path}");
    }
    let group = "group(col=card, folds=3)";
    let want = oof_of(&d, &numbers, group, &["--drop", "day"]);
    assert_eq!(oof_of(&d, &dates, group, &["--drop", "day"]), want);
    let (code, _, err) = run(&[
        "evaluate", &dates, "--target", "y", "--drop", "card", "-m", "gnb",
    ]);
    assert_ne!(code, 0);
    assert!(
        err.contains("column 'day' has type Date32") && err.contains("--cv time(col=day)"),
        "{err}"
    );
}
