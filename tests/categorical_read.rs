//! Categorical columns read as level codes (issue 41 item 1): CSV text
//! columns with `--categorical native`, columns declared with
//! `--categorical-cols` (numeric-looking codes included), Parquet
//! dictionary columns, prediction with levels the model has not seen; the
//! learners that cannot take level codes (samplers on such columns:
//! `categorical_sampling.rs`).

mod common;

use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, DictionaryArray, Float64Array, Int32Array, RecordBatch, StringArray};
use rarity::data::read::{
    predict_blocks, read_from, read_path, Categorical, Format, PredictOptions, ReadOptions, Table,
};
use rarity::data::{ColumnEncoding, Dataset};

fn native() -> ReadOptions {
    ReadOptions {
        categorical: Categorical::Native,
        ..ReadOptions::default()
    }
}

fn csv(text: &str, opts: &ReadOptions) -> rarity::error::Result<Dataset> {
    read_from(text.as_bytes(), "t.csv", Format::Csv, 0, opts).map(|(d, _)| d)
}

/// Rows `shop,n,y` with `levels` shops, each row's shop the `i % levels`-th,
/// in the order given by `order`.
fn shops(levels: usize, order: impl Iterator<Item = usize>) -> String {
    let mut t = String::from("shop,n,y\n");
    for i in order {
        let s = i % levels;
        t += &format!(
            "s{s:03},{}.5,{}\n",
            i % 7,
            if s.is_multiple_of(5) { "p" } else { "n" }
        );
    }
    t
}

#[test]
fn csv_text_column_is_one_feature_of_sorted_codes_without_a_level_limit() {
    let forward = csv(&shops(120, 0..600), &native()).unwrap();
    let backward = csv(&shops(120, (0..600).rev()), &native()).unwrap();
    let s = forward.schema();
    assert_eq!(s.feature_names, vec!["shop", "n"]);
    assert_eq!(s.categorical_levels(), vec![Some(120), None]);
    let ColumnEncoding::Categorical { levels, .. } = &s.encodings[0] else {
        panic!("shop is not categorical: {:?}", s.encodings[0]);
    };
    let mut sorted = levels.clone();
    sorted.sort();
    assert_eq!(levels, &sorted, "levels in sorted order");
    // The code is the level's rank, whatever order rows came in.
    for (i, row) in (0..600).zip(0..600) {
        assert_eq!(forward.row(row)[0], (i % 120) as f64);
    }
    assert_eq!(backward.schema().encodings, s.encodings);
    assert_eq!(backward.row(0)[0], (599 % 120) as f64);
    // The default is unchanged: a text column is an error.
    let e = csv(&shops(3, 0..6), &ReadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("not a number"), "{e}");
}

#[test]
fn declared_columns_are_categorical_even_when_numeric() {
    let text = "mcc,amount,y\n5411,1.5,p\n5812,2.5,n\n5411,3.5,n\n7995,0.5,n\n";
    let opts = ReadOptions {
        categorical_cols: vec!["mcc".into()],
        ..ReadOptions::default()
    };
    let ds = csv(text, &opts).unwrap();
    assert_eq!(
        ds.schema().encodings[0],
        ColumnEncoding::Categorical {
            name: "mcc".into(),
            levels: vec!["5411".into(), "5812".into(), "7995".into()],
        }
    );
    assert_eq!(
        ds.schema().encodings[1],
        ColumnEncoding::Numeric {
            name: "amount".into()
        }
    );
    let codes: Vec<f64> = (0..4).map(|i| ds.row(i)[0]).collect();
    assert_eq!(codes, vec![0.0, 1.0, 0.0, 2.0]);
    // Undeclared, a numeric column stays numeric in native mode.
    let ds = csv(text, &native()).unwrap();
    assert_eq!(
        ds.schema().encodings[0],
        ColumnEncoding::Numeric { name: "mcc".into() }
    );
    // A declared column that is not there is a clear error.
    let opts = ReadOptions {
        categorical_cols: vec!["merchant".into()],
        ..ReadOptions::default()
    };
    let e = csv(text, &opts).unwrap_err();
    assert!(
        e.to_string()
            .contains("--categorical-cols column 'merchant' not found"),
        "{e}"
    );
}

/// A Parquet file whose `colour` column is dictionary encoded.
fn parquet_with_dictionary(path: &std::path::Path) {
    let keys = Int32Array::from(vec![0, 1, 2, 1, 0, 2, 1, 0]);
    let colour = DictionaryArray::<Int32Type>::try_new(
        keys,
        Arc::new(StringArray::from(vec!["red", "blue", "green"])),
    )
    .unwrap();
    let x = Float64Array::from(vec![0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5]);
    let y = StringArray::from(vec!["no", "yes", "no", "no", "yes", "no", "no", "yes"]);
    let batch = RecordBatch::try_from_iter(vec![
        ("colour", Arc::new(colour) as ArrayRef),
        ("x", Arc::new(x) as ArrayRef),
        ("y", Arc::new(y) as ArrayRef),
    ])
    .unwrap();
    let f = std::fs::File::create(path).unwrap();
    let mut w = parquet::arrow::ArrowWriter::try_new(f, batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

#[test]
fn parquet_dictionary_column_reads_as_categorical_codes() {
    let dir = common::scratch("categorical_parquet");
    let path = dir.join("t.parquet");
    parquet_with_dictionary(&path);
    let (ds, _) = read_path(&path, &native()).unwrap();
    assert_eq!(
        ds.schema().encodings[0],
        ColumnEncoding::Categorical {
            name: "colour".into(),
            levels: vec!["blue".into(), "green".into(), "red".into()],
        }
    );
    let codes: Vec<f64> = (0..8).map(|i| ds.row(i)[0]).collect();
    assert_eq!(codes, vec![2.0, 0.0, 1.0, 0.0, 2.0, 1.0, 0.0, 2.0]);
    // Without native/target the column is an error, as before.
    let e = read_path(&path, &ReadOptions::default()).unwrap_err();
    assert!(e.to_string().contains("holds text"), "{e}");
}

#[test]
fn prediction_reads_unseen_and_missing_levels_as_asked() {
    let train = csv("shop,n,y\nb,1,p\na,2,n\nc,3,n\na,4,p\n", &native()).unwrap();
    let table = Table::from_stream(
        Box::new("n,shop\n5,c\n6,zzz\n7,\n8,?\n9,a\n".as_bytes()),
        "new.csv",
        Format::Csv,
        &ReadOptions::default(),
    )
    .unwrap();
    // By default an unseen level is an error, as a one-hot column's.
    let table_of = || {
        Table::from_stream(
            Box::new("n,shop\n5,c\n6,zzz\n7,\n8,?\n9,a\n".as_bytes()),
            "new.csv",
            Format::Csv,
            &ReadOptions::default(),
        )
        .unwrap()
    };
    let taken = PredictOptions {
        missing_ok: vec![true; 2],
        ..PredictOptions::default()
    };
    let e = predict_blocks(table_of(), train.schema(), &taken, &mut |_| Ok(()));
    let e = e.unwrap_err().to_string();
    assert!(e.contains("'zzz' (1 row)"), "{e}");
    // Unseen levels ignored and missing ones taken by the model: NaN.
    let opts = PredictOptions {
        unknown: rarity::data::read::Unknown::Ignore,
        missing_ok: vec![true; 2],
        ..PredictOptions::default()
    };
    let mut rows = Vec::new();
    predict_blocks(table, train.schema(), &opts, &mut |b| {
        rows.extend((0..b.data.n_rows()).map(|i| b.data.row(i).to_vec()));
        Ok(())
    })
    .unwrap();
    assert_eq!(rows.len(), 5);
    assert_eq!(rows[0], vec![2.0, 5.0]);
    for (r, n) in rows[1..4].iter().zip([6.0, 7.0, 8.0]) {
        assert!(r[0].is_nan(), "an unseen or missing level is NaN: {r:?}");
        assert_eq!(r[1], n);
    }
    assert_eq!(rows[4], vec![0.0, 9.0]);
}

#[test]
fn cli_refuses_categorical_features_for_a_learner_without_native_splits() {
    let dir = common::scratch("categorical_cli");
    let data = common::file(&dir, "t.csv", shops(60, 0..300).as_bytes());
    let model = dir.join("m.json");
    let (code, _, err) = common::run(&[
        "fit",
        &data,
        "--categorical",
        "native",
        "--model",
        "under(beta=0.5)+logistic",
        "--output",
        model.to_str().unwrap(),
    ]);
    assert_ne!(code, 0);
    for needle in [
        "logistic",
        "column 'shop' is categorical",
        "--categorical one-hot",
    ] {
        assert!(err.contains(needle), "{needle}: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
    assert!(!model.exists(), "no model file written");
}

#[test]
fn a_tree_fits_predicts_and_exports_a_text_column_natively_from_the_cli() {
    let dir = common::scratch("categorical_cli_fit");
    let train = common::file(&dir, "train.csv", shops(120, 0..1200).as_bytes());
    // Two levels the model never saw, and one it did.
    let new = common::file(&dir, "new.csv", b"shop,n\nzz1,1.5\ns005,1.5\nzz2,3.5\n");
    let model = dir.join("m.rarity").display().to_string();
    let (code, _, err) = common::run(&[
        "fit",
        &train,
        "--target",
        "y",
        "--categorical",
        "native",
        "--model",
        "tree",
        "-o",
        &model,
    ]);
    assert_eq!(code, 0, "{err}");
    let out = dir.join("p.csv").display().to_string();
    let (code, _, err) = common::run(&["predict", &model, &new, "-o", &out]);
    assert!(
        code != 0 && err.contains("2 level(s) the model was not trained on"),
        "{err}"
    );
    let (code, _, err) = common::run(&["predict", &model, &new, "-o", &out, "--unknown", "ignore"]);
    assert_eq!(code, 0, "{err}");
    let p = std::fs::read_to_string(&out).unwrap();
    let rows: Vec<&str> = p.lines().skip(1).collect();
    // s005 is a positive shop (every fifth); with --unknown ignore unseen
    // shops go where the levels outside the set go.
    assert_eq!(rows.len(), 3, "{p}");
    assert_eq!(rows[0], rows[2], "unseen levels take one path: {p}");
    assert!(rows[1].ends_with(",p"), "{p}");
    let stdout = export(&dir, &model);
    assert!(
        stdout.contains("input X [N, 1] double, shop [N, 1] string"),
        "{stdout}"
    );
}

/// Exports `model` to ONNX in `dir`; what `export` says.
fn export(dir: &std::path::Path, model: &str) -> String {
    let onnx = dir.join("m.onnx").display().to_string();
    let (code, stdout, err) = common::run(&["export", model, "-o", &onnx]);
    assert_eq!(code, 0, "{err}");
    stdout
}

/// Rows `shop,ch,code,n,y`: 40 shops (every fifth positive), three
/// channels (text), four numeric-looking codes.
fn shops_and_channels() -> String {
    let mut t = String::from("shop,ch,code,n,y\n");
    for i in 0..600usize {
        let (s, ch) = (i % 40, ["web", "pos", "atm"][i % 3]);
        let p = s.is_multiple_of(5) || (ch == "atm" && i.is_multiple_of(7));
        t += &format!(
            "s{s:02},{ch},{},{}.5,{}\n",
            i % 4,
            i % 11,
            if p { "p" } else { "n" }
        );
    }
    t
}

#[test]
fn per_column_modes_put_one_hot_and_code_columns_in_one_schema() {
    let opts = ReadOptions {
        column_modes: vec![
            ("shop".into(), Categorical::Native),
            ("ch".into(), Categorical::OneHot),
            ("code".into(), Categorical::OneHot),
        ],
        ..ReadOptions::default()
    };
    let ds = csv(&shops_and_channels(), &opts).unwrap();
    let s = ds.schema();
    let kinds: Vec<&str> = s
        .encodings
        .iter()
        .map(|e| match e {
            ColumnEncoding::Numeric { .. } => "numeric",
            ColumnEncoding::OneHot { .. } => "one-hot",
            ColumnEncoding::Categorical { .. } => "codes",
        })
        .collect();
    // A numeric-looking column declared one-hot is one-hot all the same.
    assert_eq!(kinds, vec!["codes", "one-hot", "one-hot", "numeric"]);
    assert_eq!(s.categorical_levels()[0], Some(40));
    assert_eq!(s.feature_names.len(), 1 + 3 + 4 + 1);
    // The table's mode still decides the other columns: `ch` is text.
    let plain = ReadOptions {
        column_modes: vec![("shop".into(), Categorical::Native)],
        ..ReadOptions::default()
    };
    let e = csv(&shops_and_channels(), &plain).unwrap_err().to_string();
    assert!(e.contains("column 'ch'"), "{e}");
    // COL=error keeps a column numeric under a one-hot table.
    let strict = ReadOptions {
        categorical: Categorical::OneHot,
        column_modes: vec![("ch".into(), Categorical::Error)],
        ..ReadOptions::default()
    };
    let e = csv(&shops_and_channels(), &strict).unwrap_err().to_string();
    assert!(
        e.contains("column 'ch'") && e.contains("not a number"),
        "{e}"
    );
}

#[test]
fn per_column_modes_apply_to_parquet_columns_of_any_type() {
    let dir = common::scratch("categorical_parquet_modes");
    let path = dir.join("t.parquet");
    parquet_with_dictionary(&path);
    let opts = ReadOptions {
        categorical: Categorical::Native,
        column_modes: vec![
            ("colour".into(), Categorical::OneHot),
            ("x".into(), Categorical::Native),
        ],
        ..ReadOptions::default()
    };
    let (ds, _) = read_path(&path, &opts).unwrap();
    let s = ds.schema();
    assert!(
        matches!(&s.encodings[0], ColumnEncoding::OneHot { levels, .. } if levels.len() == 3),
        "{:?}",
        s.encodings[0]
    );
    assert_eq!(s.categorical_levels()[3], Some(8), "{:?}", s.encodings);
    let strict = ReadOptions {
        categorical: Categorical::OneHot,
        column_modes: vec![("colour".into(), Categorical::Error)],
        ..ReadOptions::default()
    };
    let e = read_path(&path, &strict).unwrap_err().to_string();
    assert!(e.contains("column 'colour' holds text"), "{e}");
}

#[test]
fn cli_mixed_modes_fit_predict_and_export() {
    let dir = common::scratch("categorical_cli_modes");
    let train = common::file(&dir, "train.csv", shops_and_channels().as_bytes());
    let new = common::file(
        &dir,
        "new.csv",
        b"shop,ch,code,n\ns05,web,1,1.5\nzz,pos,2,2.5\n",
    );
    let model = dir.join("m.rarity").display().to_string();
    let modes = "shop=native,ch=one-hot,code=one-hot";
    let fit = ["fit", &train, "--target", "y", "--categorical-cols", modes];
    let (code, _, err) = common::run(&[&fit[..], &["--model", "tree", "-o", &model]].concat());
    assert_eq!(code, 0, "{err}");
    // The unseen shop 'zz' is refused unless ignored (issue 51 item 13).
    let (code, _, err) = common::run(&["predict", &model, &new, "-o", "-"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("'zz' (1 row)"), "{err}");
    let (code, out, err) =
        common::run(&["predict", &model, &new, "-o", "-", "--unknown", "ignore"]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{out}");
    assert!(rows[0].ends_with(",p"), "s05 is a positive shop: {out}");
    let stdout = export(&dir, &model);
    assert!(
        stdout.contains("shop [N, 1] string, ch [N, 1] string"),
        "{stdout}"
    );
    // Target statistics for the code columns, one-hot for the channel.
    let target = dir.join("t.rarity").display().to_string();
    let flags = "--categorical target --categorical-cols ch=one-hot --model logistic";
    let base = ["fit", &train, "--target", "y", "-o", &target];
    let args: Vec<&str> = base.into_iter().chain(flags.split(' ')).collect();
    let (code, _, err) = common::run(&args);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn cli_bad_per_column_modes_are_errors_naming_the_column() {
    let dir = common::scratch("categorical_cli_bad_modes");
    let train = common::file(&dir, "train.csv", shops_and_channels().as_bytes());
    let model = dir.join("m.rarity");
    for (args, needle) in [
        (
            vec!["--categorical-cols", "shop=natve"],
            "mode of column 'shop'",
        ),
        (
            vec!["--categorical-cols", "shpo=native"],
            "'shpo' not found; did you mean 'shop'",
        ),
        (
            vec!["--categorical-cols", "shop,shop=one-hot"],
            "names the column 'shop' twice",
        ),
        (vec!["--categorical-cols", "=native"], "names no column"),
        (
            vec!["--categorical", "one-hot", "--categorical-cols", "ch=error"],
            "column 'ch'",
        ),
    ] {
        let m = model.to_str().unwrap();
        let base = ["fit", &train, "--target", "y", "--model", "tree", "-o", m];
        let (code, _, err) = common::run(&[&base[..], &args[..]].concat());
        assert_ne!(code, 0, "{args:?}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(!model.exists(), "no model file written");
    }
}
