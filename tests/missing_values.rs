//! Missing values end to end (issue 52): the readers' `--missing keep`
//! (NaN features, a row missing its label dropped and counted), the
//! `impute(...)` stage (statistics of the training rows only, inside every
//! cross-validation fold; indicators voted by SMOTE, never interpolated),
//! the refusals that name the stage to add, model files with and without
//! the stage, the command line's fit / predict / run on a file with holes,
//! and unseen categorical levels following `--unknown` (issue 51 item 13).

mod common;

use common::{file, run, scratch};
use rarity::data::impute::{Impute, ImputeStrategy};
use rarity::data::read::{read_from, Categorical, Format, Missing, ReadOptions};
use rarity::data::Dataset;
use rarity::evaluate::{cross_validate, Extras};
use rarity::sample::{Sampler, Smote, SmoteNeighbours};
use rarity::spec::build_strategy;
use rarity::split::Splitter;

const NAN: f64 = f64::NAN;

/// A CSV of `n` rows `a,b,c,label`: `a` missing in one row of five, `b`
/// missing in half the positive rows (missingness carries the label), `c`
/// a level of `x, y, z` missing now and then; row 7's label is missing.
fn holes(n: usize) -> String {
    let mut t = String::from("a,b,c,label\n");
    for i in 0..n {
        let y = usize::from(i % 4 == 0);
        let a = if i % 5 == 2 {
            String::new()
        } else {
            format!("{}", (i % 13) as f64 * 0.5 + y as f64)
        };
        let b = if y == 1 && i % 8 == 0 {
            "?".to_string()
        } else {
            format!("{}", (i % 7) as f64 - 3.0)
        };
        let c = if i % 11 == 3 {
            "NA"
        } else {
            ["x", "y", "z"][i % 3]
        };
        let label = if i == 7 { String::new() } else { y.to_string() };
        t.push_str(&format!("{a},{b},{c},{label}\n"));
    }
    t
}

fn read(
    text: &str,
    missing: Missing,
    categorical: Categorical,
) -> rarity::Result<(Dataset, rarity::data::read::ReadReport)> {
    let opts = ReadOptions {
        missing,
        categorical,
        ..ReadOptions::default()
    };
    read_from(text.as_bytes(), "holes.csv", Format::Csv, 0, &opts)
}

#[test]
fn keep_reads_missing_values_as_nan_and_drops_rows_missing_their_label() {
    let text = holes(200);
    let (ds, report) = read(&text, Missing::Keep, Categorical::OneHot).unwrap();
    assert_eq!(
        (ds.n_rows(), report.dropped_label, report.dropped_missing),
        (199, 1, 0)
    );
    assert_eq!(ds.feature_names(), ["a", "b", "c=x", "c=y", "c=z"]);
    let counts = ds.missing_counts();
    // Rows 2, 7, 12, ... miss `a`; row 7 (no label) is gone.
    assert_eq!(counts[0], 40 - 1);
    assert_eq!(counts[1], 25);
    // A missing one-hot level is NaN in each of the column's features.
    assert!(counts[2] > 0 && counts[2] == counts[3] && counts[3] == counts[4]);
    assert_eq!(report.kept_missing, counts[0] + counts[1] + counts[2]);
    assert!(report.rows_dropped().reason.contains("a missing label"));
    // Level codes: a missing level is a NaN code.
    let (native, _) = read(&text, Missing::Keep, Categorical::Native).unwrap();
    assert_eq!(native.missing_counts()[2], counts[2]);
    // Drop: every incomplete row, counted; error: the first, named.
    let (dropped, report) = read(&text, Missing::Drop, Categorical::OneHot).unwrap();
    assert_eq!(dropped.first_missing(), None);
    assert_eq!(dropped.n_rows() + report.dropped_missing, 200);
    let e = read(&text, Missing::Error, Categorical::OneHot)
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 2, column 'b': missing value"), "{e}");
    // Infinities are still errors, whatever the policy.
    let e = read(
        "a,b,label\n1,inf,0\n2,3,1\n",
        Missing::Keep,
        Categorical::Error,
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("'inf' is not a finite number"),
        "{e}"
    );
}

#[test]
fn arff_keeps_missing_values_too() {
    let text = "@relation t\n@attribute a numeric\n@attribute c {u,v}\n@attribute y {n,p}\n@data\n\
                1,u,n\n?,v,p\n3,?,n\n4,u,?\n5,v,p\n";
    let opts = ReadOptions {
        missing: Missing::Keep,
        ..ReadOptions::default()
    };
    let (ds, report) = read_from(text.as_bytes(), "t.arff", Format::Arff, 0, &opts).unwrap();
    assert_eq!(
        (ds.n_rows(), report.dropped_label, report.kept_missing),
        (4, 1, 2)
    );
    assert!(ds.row(1)[0].is_nan());
    assert!(ds.row(2)[1].is_nan() && ds.row(2)[2].is_nan());
}

/// `n` rows of two features, `x1` missing in a quarter of the rows (of
/// both classes).
fn table(n: usize) -> Dataset {
    let mut r = rarity::rng::stream(5, 0);
    use rand::RngExt;
    let (mut rows, mut y) = (Vec::new(), Vec::new());
    for i in 0..n {
        let c = u32::from(i % 3 == 0);
        let x0 = r.random::<f64>() + c as f64;
        let x1 = if i % 4 == 1 {
            NAN
        } else {
            r.random::<f64>() * 4.0 - c as f64
        };
        rows.push(vec![x0, x1]);
        y.push(c);
    }
    Dataset::from_rows(rows, y, vec!["n".into(), "p".into()]).unwrap()
}

#[test]
fn imputation_statistics_come_from_each_folds_training_rows() {
    let ds = table(150);
    let s = build_strategy("impute(mean,indicator=true)+logistic").unwrap();
    let splitter: Splitter = "1x5".parse().unwrap();
    let extras = Extras {
        oof: true,
        ..Extras::default()
    };
    let ev = cross_validate(&s, &ds, &splitter, 3, &extras).unwrap();
    let folds = splitter.split_dataset(&ds, 3).unwrap();
    let mut leaky_differs = false;
    for (f, fold) in ev.folds.iter().zip(&folds) {
        let p = f.predictions.as_ref().unwrap();
        assert_eq!(p.rows, fold.test);
        // The fold's model, fitted on its training rows alone.
        let train = ds.take(&fold.train);
        let fitted = s.fit(&train, 11).unwrap();
        let imputer = fitted.members[0].imputer.as_ref().unwrap();
        let observed: Vec<f64> = (0..train.n_rows())
            .map(|i| train.value(i, 1))
            .filter(|v| !v.is_nan())
            .collect();
        let mean = observed.iter().sum::<f64>() / observed.len() as f64;
        assert_eq!(imputer.fill[1], mean);
        let test = ds.take(&fold.test);
        assert_eq!(
            fitted.predict_proba(&test).unwrap(),
            p.proba,
            "fold {}",
            fold.index
        );
        // Statistics of every row (the test fold's too) give other values.
        let all = Impute {
            strategy: ImputeStrategy::Mean,
            value: None,
            indicator: true,
        }
        .fit(&ds, None)
        .unwrap();
        leaky_differs |= all.fill[1] != imputer.fill[1];
    }
    assert!(
        leaky_differs,
        "the folds' statistics must differ from the whole table's"
    );
}

#[test]
fn smote_votes_the_indicators_it_would_otherwise_interpolate() {
    let ds = table(120);
    let imputer = Impute {
        indicator: true,
        ..Impute::default()
    }
    .fit(&ds, None)
    .unwrap();
    // Neighbours enough that rows with and without the hole meet (the
    // indicator is a distance of 1 apart).
    let smote = Smote {
        neighbours: SmoteNeighbours {
            k: 30,
            ..SmoteNeighbours::default()
        },
        ..Smote::default()
    };
    let draw = |data: &Dataset| {
        let sample = smote
            .resample(data, &mut rarity::rng::stream(9, 0))
            .unwrap();
        let out = sample.materialise(data).unwrap();
        (sample.rows.len(), out)
    };
    // Voted: every synthetic indicator is 0 or 1.
    let (kept, voted) = draw(&imputer.apply_voted(&ds).unwrap());
    assert!(voted.n_rows() > kept);
    assert!((kept..voted.n_rows()).all(|i| matches!(voted.value(i, 2), v if v == 0.0 || v == 1.0)));
    // Read as a number, SMOTE would put synthetic rows between 0 and 1.
    let (kept, numbers) = draw(&imputer.apply(&ds).unwrap());
    assert!(
        (kept..numbers.n_rows()).any(|i| numbers.value(i, 2) > 0.0 && numbers.value(i, 2) < 1.0)
    );
    // The strategy fits through the voted draw.
    let fitted = build_strategy("impute(median,indicator=true)+smote+logistic")
        .unwrap()
        .fit(&ds, 1)
        .unwrap();
    assert_eq!(fitted.model_feature_names(), ["x0", "x1", "missing(x1)"]);
}

#[test]
fn strategies_that_cannot_take_missing_values_say_which_stage_to_add() {
    let ds = table(60);
    for (spec, what) in [
        ("logistic", "the learner logistic"),
        ("smote+logistic", "the sampler smote"),
        ("knn", "the learner knn"),
        ("bagging(sample=smote,learner=tree)", "bagging"),
    ] {
        let e = build_strategy(spec)
            .unwrap()
            .fit(&ds, 1)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(what) && e.contains(&format!("impute(median)+{spec}")),
            "{spec}: {e}"
        );
        assert!(
            e.contains("column 'x1'") && e.contains("row 1, counting from 0"),
            "{e}"
        );
    }
    // A fitted strategy without the stage refuses rows it cannot score.
    let complete = ds.take(&(0..60).filter(|i| i % 4 != 1).collect::<Vec<_>>());
    let plain = build_strategy("logistic")
        .unwrap()
        .fit(&complete, 1)
        .unwrap();
    let e = plain.predict_proba(&ds).unwrap_err().to_string();
    assert!(
        e.contains("row 1 (counting from 0), feature 'x1' is missing"),
        "{e}"
    );
    let e = build_strategy("impute(strategy=constant)+logistic")
        .unwrap_err()
        .to_string();
    assert!(e.contains("needs the constant"), "{e}");
    let e = build_strategy("logistic+impute(mean)")
        .unwrap_err()
        .to_string();
    assert!(e.contains("must be a first stage"), "{e}");
    // A column missing in every row.
    let empty = Dataset::from_rows(
        vec![vec![1.0, NAN], vec![2.0, NAN], vec![3.0, NAN]],
        vec![0, 1, 0],
        vec!["n".into(), "p".into()],
    )
    .unwrap();
    let e = build_strategy("impute(mean)+logistic")
        .unwrap()
        .fit(&empty, 1)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("column 'x1' is missing in every one of the 3 rows"),
        "{e}"
    );
}

#[test]
fn members_without_the_stage_are_written_as_before() {
    let ds = table(60);
    let complete = ds.take(&(0..60).filter(|i| i % 4 != 1).collect::<Vec<_>>());
    let plain = build_strategy("tree(max_depth=2)")
        .unwrap()
        .fit(&complete, 1)
        .unwrap();
    let m = &plain.members[0];
    // The fields of the member before the stage existed, as MessagePack.
    let before = rmp_serde::to_vec(&(&m.model, &m.keep_rates, &m.calibrator)).unwrap();
    assert_eq!(rmp_serde::to_vec(m).unwrap(), before);
    // With the stage: written, read back, predicting the same.
    let fitted = build_strategy("impute(median,indicator=true)+tree(max_depth=2)")
        .unwrap()
        .fit(&ds, 1)
        .unwrap();
    let dir = scratch("missing-models");
    common::assert_round_trips(&fitted, &ds, &dir);
}

#[test]
fn the_command_line_fits_and_scores_rows_with_missing_values() {
    let d = scratch("missing-cli");
    let data = file(&d, "holes.csv", holes(300).as_bytes());
    let model = d.join("m.rarity").display().to_string();
    let out = d.join("p.csv").display().to_string();
    // --missing keep with a learner that cannot take them: refused first.
    let (code, _, err) = run(&[
        "fit",
        &data,
        "-m",
        "logistic",
        "--categorical",
        "one-hot",
        "--missing",
        "keep",
        "-o",
        &model,
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--missing keep") && err.contains("impute(median)+logistic"),
        "{err}"
    );
    // auto: the rows are dropped, and said so.
    let (code, _, err) = run(&[
        "fit",
        &data,
        "-m",
        "logistic",
        "--categorical",
        "one-hot",
        "-o",
        &model,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("dropped") && err.contains("with missing values"),
        "{err}"
    );
    let (code, _, err) = run(&["predict", &model, &data, "-o", &out]);
    assert_ne!(code, 0);
    assert!(
        err.contains("missing value (a prediction is owed for every row"),
        "{err}"
    );
    // With an imputation every row is kept, and every row is scored.
    let spec = "impute(median,indicator=true)+logistic";
    let (code, _, err) = run(&[
        "fit",
        &data,
        "-m",
        spec,
        "--categorical",
        "one-hot",
        "-o",
        &model,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("dropped 1 of 300 rows whose label is missing"),
        "{err}"
    );
    let (code, _, err) = run(&["predict", &model, &data, "-o", &out, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let written = std::fs::read_to_string(&out).unwrap();
    assert_eq!(written.lines().count(), 301);
    // The file's scores are the in-memory model's.
    let fitted: rarity::strategy::FittedStrategy = rarity::persist::load(model.as_ref()).unwrap();
    let (rows, _) = read(&holes(300), Missing::Keep, Categorical::OneHot).unwrap();
    let p = fitted.predict_proba(&rows).unwrap();
    let first: f64 = written
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .nth(2)
        .unwrap()
        .parse()
        .unwrap();
    // After the kept target column and p_0.
    assert_eq!(first, p.row(0)[1]);
    let (_, shown, _) = run(&["show", &model]);
    assert!(
        shown.contains("imputation")
            && shown.contains("missing(a)")
            && shown.contains("missing values  imputed"),
        "{shown}"
    );
    // inspect counts the missing values per column.
    let (code, text, err) = run(&["inspect", &data, "--categorical", "one-hot"]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("missing"), "{text}");
}

#[test]
fn unseen_categorical_levels_follow_unknown() {
    let d = scratch("missing-unknown");
    let mut train = String::from("c,x,label\n");
    for i in 0..80 {
        train.push_str(&format!(
            "{},{},{}\n",
            ["u", "v", "w"][i % 3],
            i % 5,
            u32::from(i % 3 == 0)
        ));
    }
    let data = file(&d, "train.csv", train.as_bytes());
    let new = file(&d, "new.csv", b"c,x\nu,1\nzz,2\n");
    let gap = file(&d, "gap.csv", b"c,x\nu,1\n,2\n");
    let out = d.join("p.csv").display().to_string();
    for spec in ["tree", "encode(target)+logistic"] {
        let model = d.join("m.rarity").display().to_string();
        let (code, _, err) = run(&[
            "fit",
            &data,
            "-m",
            spec,
            "--categorical",
            "native",
            "-o",
            &model,
        ]);
        assert_eq!(code, 0, "{spec}: {err}");
        let (code, _, err) = run(&["predict", &model, &new, "-o", &out]);
        assert_ne!(code, 0, "{spec}");
        assert!(
            err.contains("'zz' (1 row)") && err.contains("--unknown ignore"),
            "{spec}: {err}"
        );
        let (code, _, err) = run(&["predict", &model, &new, "-o", &out, "--unknown", "ignore"]);
        assert_eq!(code, 0, "{spec}: {err}");
        // A missing level: the target encoding gives it the prior, a
        // native split sends it with the levels outside its set.
        let (code, _, err) = run(&["predict", &model, &gap, "-o", &out]);
        assert_eq!(code, 0, "{spec}: {err}");
    }
}
