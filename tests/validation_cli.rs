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
