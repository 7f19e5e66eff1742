//! The `encode(target)` stage end to end (issue 41 item 3): the spec form
//! and its errors, the leakage test through `rarity evaluate` (a noise
//! column with many levels is worth nothing out of fold), the keep-rate
//! correction inside a sampling strategy, determinism at 1 and 2 threads,
//! unseen levels at prediction, model files (old ones still load) and
//! `--categorical target` on the command line.

mod common;

use rand::RngExt;
use rarity::data::target_encode::TargetEncode;
use rarity::data::target_stats::Smooth;
use rarity::data::{ColumnEncoding, Dataset, Schema};
use rarity::spec::build_strategy;
use rarity::strategy::FittedStrategy;

/// `n` rows of a numeric column `x` (noise) and a categorical column
/// `merchant` of `levels` levels (codes), class `fraud` with probability
/// `rate(level)`.
fn table(n: usize, levels: usize, seed: u64, rate: impl Fn(usize) -> f64) -> Dataset {
    let mut r = rarity::rng::stream(seed, 0);
    let (mut x, mut y) = (Vec::with_capacity(2 * n), Vec::with_capacity(n));
    for _ in 0..n {
        let l = r.random_range(0..levels);
        x.push(r.random::<f64>());
        x.push(l as f64);
        y.push(u32::from(r.random::<f64>() < rate(l)));
    }
    let mut schema = Schema::numeric(
        vec!["x".into(), "merchant".into()],
        vec!["legit".into(), "fraud".into()],
    );
    schema.encodings[1] = ColumnEncoding::Categorical {
        name: "merchant".into(),
        levels: (0..levels).map(|l| format!("m{l:05}")).collect(),
    };
    Dataset::new(x, y, schema).unwrap()
}

/// `ds` as a CSV file: `x,merchant,label`, merchants by name.
fn csv(ds: &Dataset) -> String {
    let mut t = String::from("x,merchant,label\n");
    for i in 0..ds.n_rows() {
        let r = ds.row(i);
        let label = &ds.class_names()[ds.label(i)];
        t.push_str(&format!("{},m{:05},{label}\n", r[0], r[1] as usize));
    }
    t
}

/// The population rate of `fraud` per level of `ds`'s merchant column.
fn level_rates(ds: &Dataset, levels: usize) -> Vec<f64> {
    let (mut pos, mut all) = (vec![0.0; levels], vec![0.0; levels]);
    for i in 0..ds.n_rows() {
        let l = ds.row(i)[1] as usize;
        all[l] += 1.0;
        pos[l] += ds.label(i) as f64;
    }
    pos.iter().zip(&all).map(|(p, a)| p / a).collect()
}

fn evaluate_auc(args: &[&str]) -> f64 {
    let (code, out, err) = common::run(args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["metrics"]["roc_auc"]["mean"].as_f64().unwrap()
}

#[test]
fn the_spec_parses_prints_back_and_bad_parameters_fail() {
    let s = build_strategy("encode(target)+under(beta=0.3)+logistic+correct").unwrap();
    assert_eq!(s.encode, Some(TargetEncode::default()));
    assert!(s.sampler.is_some() && s.correct.is_some());
    assert_eq!(s.stem, "encode(target)+under(beta=0.3)+logistic+correct");
    let s = build_strategy("encode(target, smooth=20, folds=3) + forest").unwrap();
    let e = s.encode.unwrap();
    assert_eq!((e.folds, e.smooth), (3, Smooth::Count(20.0)));
    assert_eq!(e.to_text(), "encode(target,folds=3,smooth=20)");
    let again = build_strategy(&format!("{}+forest", e.to_text())).unwrap();
    assert_eq!(again.encode, Some(e));
    assert_eq!(build_strategy("logistic").unwrap().encode, None);
    for (spec, says) in [
        ("encode(target, folds=1)+logistic", "folds"),
        ("encode(target, smooth=-1)+logistic", "smooth"),
        ("encode(target, smooth=big)+logistic", "auto or a count"),
        ("encode(target, fold=3)+logistic", "did you mean 'folds'"),
        ("encode(onehot)+logistic", "encode(target"),
        ("encode+logistic", "encode(target"),
        ("logistic+encode(target)", "must be a first stage"),
        ("under(beta=0.3)+encode(target)+logistic", "encode"),
        ("encode(target)", "no learner"),
    ] {
        let err = build_strategy(spec).unwrap_err().to_string();
        assert!(err.contains(says), "{spec}: {err}");
    }
    assert!(rarity::spec::help().contains("encode"));
}

#[test]
fn a_noise_column_with_many_levels_has_an_out_of_fold_auc_of_one_half() {
    let dir = common::scratch("target_encoding_leak");
    let noise = table(5000, 1500, 3, |_| 0.2);
    let noise = common::file(&dir, "noise.csv", csv(&noise).as_bytes());
    let args = |f: &str, cat: &str, model: &str| {
        [
            "--format",
            "json",
            "evaluate",
            f,
            "--categorical",
            cat,
            "--model",
            model,
            "--cv",
            "5",
        ]
        .map(str::to_string)
    };
    let run = |a: [String; 10]| evaluate_auc(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let auc = run(args(&noise, "target", "logistic"));
    assert!((auc - 0.5).abs() < 0.05, "noise: out-of-fold AUC {auc}");
    // The stage the flag adds is encode(target) itself.
    let explicit = run(args(&noise, "native", "encode(target)+logistic"));
    assert_eq!(auc, explicit);
    // The same stage finds merchants that carry the signal.
    let signal = table(5000, 100, 3, |l| if l % 10 == 0 { 0.7 } else { 0.1 });
    let signal = common::file(&dir, "signal.csv", csv(&signal).as_bytes());
    let auc = run(args(&signal, "target", "logistic"));
    assert!(auc > 0.7, "signal: out-of-fold AUC {auc}");
}

#[test]
fn on_an_undersampled_table_the_statistic_estimates_the_population_rate() {
    let levels = 10;
    let population = table(60_000, levels, 5, |l| 0.02 + 0.02 * l as f64);
    let truth = level_rates(&population, levels);
    // Keep every fraud and a fifth of the legit rows.
    let mut r = rarity::rng::stream(9, 0);
    let rows: Vec<usize> = (0..population.n_rows())
        .filter(|&i| population.label(i) == 1 || r.random::<f64>() < 0.2)
        .collect();
    let sample = population.take(&rows);
    let stage = TargetEncode {
        smooth: Smooth::Count(0.0),
        ..TargetEncode::default()
    };
    let (_, corrected) = stage.fit(&sample, &[0.2, 1.0], 1).unwrap();
    let (_, uncorrected) = stage.fit(&sample, &[1.0, 1.0], 1).unwrap();
    for (l, &t) in truth.iter().enumerate() {
        let c = corrected.columns[0].table.values[l];
        let u = uncorrected.columns[0].table.values[l];
        assert!((c - t).abs() < 0.015, "level {l}: {c} vs {t}");
        assert!(u > 2.0 * t, "level {l}: uncorrected {u} vs {t}");
    }
    // Inside a strategy the stage is fitted on the sampler's sample with
    // its keep rates.
    let s = build_strategy("encode(target, smooth=0)+under(beta=0.2)+logistic").unwrap();
    let fitted = s.fit(&population, 7).unwrap();
    let m = &fitted.members[0];
    assert!((m.keep_rates[0] - 0.2).abs() < 0.01 && m.keep_rates[1] == 1.0);
    let table = &m.encoding.as_ref().unwrap().columns[0].table;
    for (l, &t) in truth.iter().enumerate() {
        let v = table.values[l];
        assert!((v - t).abs() < 0.015, "level {l}: {v} vs {t}");
    }
}

#[test]
fn fits_are_identical_at_one_and_two_threads() {
    let ds = table(4000, 300, 11, |l| if l % 7 == 0 { 0.5 } else { 0.1 });
    let s = build_strategy("encode(target)+under(beta=0.3)+forest(n=5)+platt").unwrap();
    let fit = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| s.fit(&ds, 4).unwrap())
    };
    let one = fit(1);
    assert!(one.members[0].encoding.is_some());
    let two = fit(2);
    assert_eq!(one, two);
    assert_eq!(
        one.predict_proba(&ds).unwrap(),
        two.predict_proba(&ds).unwrap()
    );
}

#[test]
fn unseen_and_missing_levels_get_the_prior() {
    let ds = table(3000, 50, 13, |l| if l < 5 { 0.6 } else { 0.1 });
    let fitted = build_strategy("encode(target)+logistic")
        .unwrap()
        .fit(&ds, 1)
        .unwrap();
    let e = fitted.members[0].encoding.as_ref().unwrap();
    assert_eq!(e.feature_names(), ["x", "merchant=p(fraud)"]);
    let new = Dataset::new(
        vec![0.5, f64::NAN, 0.5, 0.0, 0.5, 3.0],
        vec![0, 0, 0],
        ds.schema().clone(),
    )
    .unwrap();
    let encoded = e.apply(&new).unwrap();
    let prior = &e.columns[0].table.prior;
    assert_eq!(encoded.row(0)[1], prior[0]);
    assert_eq!(encoded.row(1)[1], e.columns[0].table.values[0]);
    let p = fitted.predict_proba(&new).unwrap();
    // Level 0 is a risky merchant: above the unknown one.
    assert!(p.row(1)[1] > p.row(0)[1], "{:?}", p.values());
}

#[test]
fn model_files_keep_the_tables_and_old_files_still_load() {
    let dir = common::scratch("target_encoding_files");
    let ds = table(2000, 40, 17, |l| if l < 4 { 0.6 } else { 0.1 });
    let fitted = build_strategy("encode(target)+under(beta=0.5)+logistic+correct")
        .unwrap()
        .fit(&ds, 2)
        .unwrap();
    for format in [
        rarity::persist::Format::Binary,
        rarity::persist::Format::Json,
    ] {
        let path = dir.join("m.rarity");
        rarity::persist::save(&fitted, &path, format).unwrap();
        let back: FittedStrategy = rarity::persist::load(&path).unwrap();
        assert_eq!(back, fitted);
        assert_eq!(back.predict(&ds).unwrap(), fitted.predict(&ds).unwrap());
    }
    // Written by rarity before the stage existed (`rarity fit --dataset
    // ecoli4 --model logistic`): members without an encoding.
    for name in ["before_encode.rarity", "before_encode.json"] {
        let path = std::path::Path::new("tests/fixtures").join(name);
        let old: FittedStrategy = rarity::persist::load(&path).unwrap();
        assert!(old.members[0].encoding.is_none(), "{name}");
        // Saved again, the same bytes as then (no new field written).
        let again = dir.join(name);
        let format = if name.ends_with(".json") {
            rarity::persist::Format::Json
        } else {
            rarity::persist::Format::Binary
        };
        rarity::persist::save(&old, &again, format).unwrap();
        // The model's own bytes, without the header that names the format
        // version (files of then were version 2): the binary body, or the
        // JSON's `model` object.
        let (a, b) = (
            std::fs::read(&path).unwrap(),
            std::fs::read(&again).unwrap(),
        );
        let body = |bytes: &[u8]| -> Vec<u8> {
            if name.ends_with(".json") {
                let v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
                return serde_json::to_vec(&v["model"]).unwrap();
            }
            let at = 11 + bytes[10] as usize;
            let n = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
            bytes[bytes.len() - n..].to_vec()
        };
        assert!(
            body(&a) == body(&b),
            "{name}: saved again, the model differs"
        );
    }
}

#[test]
fn the_command_line_fits_shows_and_predicts_with_categorical_target() {
    let dir = common::scratch("target_encoding_cli");
    let ds = table(3000, 200, 19, |l| if l % 10 == 0 { 0.6 } else { 0.1 });
    let train = common::file(&dir, "train.csv", csv(&ds).as_bytes());
    let new = common::file(
        &dir,
        "new.csv",
        b"x,merchant\n0.5,zz1\n0.5,m00000\n0.5,zz2\n",
    );
    let model = dir.join("m.rarity").display().to_string();
    // The sampler's sample is kept while the file is read.
    let (code, _, err) = common::run(&[
        "fit",
        &train,
        "--categorical",
        "target",
        "--model",
        "under(beta=0.3)+logistic+correct",
        "-o",
        &model,
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, shown, err) = common::run(&["show", &model]);
    assert_eq!(code, 0, "{err}");
    assert!(
        shown.contains("encoding") && shown.contains("merchant (200 levels) -> merchant=p(fraud)"),
        "{shown}"
    );
    let out = dir.join("p.csv").display().to_string();
    // Unseen levels follow --unknown, an error by default (issue 51 item 13).
    let (code, _, err) = common::run(&["predict", &model, &new, "-o", &out]);
    assert!(
        code != 0 && err.contains("the model was not trained on"),
        "{err}"
    );
    let (code, _, err) = common::run(&["predict", &model, &new, "-o", &out, "--unknown", "ignore"]);
    assert_eq!(code, 0, "{err}");
    let p = std::fs::read_to_string(&out).unwrap();
    let rows: Vec<&str> = p.lines().skip(1).collect();
    assert_eq!(rows.len(), 3, "{p}");
    assert_eq!(rows[0], rows[2], "unseen levels get the prior: {p}");
    assert_ne!(rows[0], rows[1], "{p}");
    // Without the flag or the stage, logistic refuses level codes.
    let (code, _, err) = common::run(&[
        "fit",
        &train,
        "--categorical",
        "native",
        "--model",
        "logistic",
        "-o",
        &model,
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("encode(target)"), "{err}");
}

#[test]
fn a_multiclass_task_gets_one_column_per_class_beyond_the_first() {
    let two = table(3000, 30, 23, |l| if l < 3 { 0.6 } else { 0.1 });
    // A third class for the merchants 3..6.
    let y: Vec<u32> = (0..two.n_rows())
        .map(|i| match two.row(i)[1] as usize {
            3..=5 if i % 2 == 0 => 2,
            _ => two.labels()[i],
        })
        .collect();
    let mut schema = two.schema().clone();
    schema.class_names = vec!["a".into(), "b".into(), "c".into()];
    let ds = Dataset::new(two.features().to_vec(), y, schema).unwrap();
    let fitted = build_strategy("encode(target)+gbdt(rounds=5)")
        .unwrap()
        .fit(&ds, 3)
        .unwrap();
    let names = ["x", "merchant=p(b)", "merchant=p(c)"];
    assert_eq!(fitted.model_feature_names(), names);
    let e = fitted.members[0].encoding.as_ref().unwrap();
    assert_eq!(e.columns[0].table.width, 2);
    // Merchant 3 is a class-c merchant: its p(c) is well above the prior.
    let t = &e.columns[0].table;
    assert!(t.values[3 * 2 + 1] > 2.0 * t.prior[1], "{:?}", t.values);
    let dir = common::scratch("target_encoding_multiclass");
    let path = dir.join("m.rarity");
    rarity::persist::save(&fitted, &path, rarity::persist::Format::Binary).unwrap();
    let back: FittedStrategy = rarity::persist::load(&path).unwrap();
    assert_eq!(back.predict(&ds).unwrap(), fitted.predict(&ds).unwrap());
    let imp = rarity::explain::split_gain_importances(&back).unwrap();
    assert_eq!(imp.values.len(), names.len());
}

#[test]
fn a_row_weight_counts_as_that_many_copies_of_the_row() {
    let ds = table(2000, 40, 17, |l| if l % 5 == 0 { 0.4 } else { 0.05 });
    let mut r = rarity::rng::stream(3, 0);
    let repeats: Vec<usize> = (0..ds.n_rows()).map(|_| r.random_range(1..4)).collect();
    let weighted = ds
        .clone()
        .with_weights(repeats.iter().map(|&k| k as f64).collect())
        .unwrap();
    let rows: Vec<usize> = (0..ds.n_rows())
        .flat_map(|i| std::iter::repeat_n(i, repeats[i]))
        .collect();
    let copies = ds.take(&rows);
    for smooth in [Smooth::Auto, Smooth::Count(10.0)] {
        let stage = TargetEncode {
            smooth,
            ..TargetEncode::default()
        };
        for keep in [[1.0, 1.0], [0.25, 1.0]] {
            let (_, w) = stage.fit(&weighted, &keep, 1).unwrap();
            let (_, c) = stage.fit(&copies, &keep, 1).unwrap();
            let (w, c) = (&w.columns[0].table, &c.columns[0].table);
            let close = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-12);
            assert!(
                close(&w.values, &c.values) && close(&w.prior, &c.prior),
                "{smooth:?} {keep:?}"
            );
        }
        // Unweighted, the table differs: the weights are not ignored.
        let (_, plain) = stage.fit(&ds, &[1.0, 1.0], 1).unwrap();
        let (_, w) = stage.fit(&weighted, &[1.0, 1.0], 1).unwrap();
        assert_ne!(plain.columns[0].table.values, w.columns[0].table.values);
    }
}

#[test]
fn a_missing_level_in_training_rows_gets_the_prior_of_its_fold() {
    let ds = table(3000, 20, 19, |l| if l < 4 { 0.5 } else { 0.05 });
    // Every tenth row misses its level (NaN code).
    let mut x = ds.features().to_vec();
    for i in (0..ds.n_rows()).step_by(10) {
        x[i * 2 + 1] = f64::NAN;
    }
    let gappy = Dataset::new(x, ds.labels().to_vec(), ds.schema().clone()).unwrap();
    let stage = TargetEncode::default();
    let (encoded, fitted) = stage.fit(&gappy, &[1.0, 1.0], 1).unwrap();
    let prior = fitted.columns[0].table.prior[0];
    let missing: Vec<f64> = (0..ds.n_rows())
        .step_by(10)
        .map(|i| encoded.row(i)[1])
        .collect();
    // Out of fold, each is the prior of the table fitted on the other
    // folds: at most `folds` distinct values, each near the overall prior.
    let mut distinct = missing.clone();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    assert!(distinct.len() <= 5, "{distinct:?}");
    assert!(
        distinct.iter().all(|v| (v - prior).abs() < 0.02),
        "{distinct:?} vs {prior}"
    );
    // The table fitted on every row counts them in the prior only.
    let (_, complete) = stage.fit(&ds, &[1.0, 1.0], 1).unwrap();
    assert_eq!(
        fitted.columns[0].table.prior,
        complete.columns[0].table.prior
    );
}
