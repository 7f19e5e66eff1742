//! What a new user trips over on the command line (issue 39, items 9 and
//! 14-16): SMOTE's `k` larger than a class allows is an error, a model file
//! given as data is named as such, a table missing a model's columns gets
//! the list of what is missing, and a mistyped `--method` gets a suggestion.

mod common;

use common::{file, run, scratch};

/// 30 rows of class `n` and `minority` rows of class `p`, two features.
fn small_table(minority: usize) -> String {
    let mut t = String::from("a,b,y\n");
    for i in 0..30 {
        t.push_str(&format!("{i},{},n\n", i % 7));
    }
    for i in 0..minority {
        t.push_str(&format!("{},{},p\n", 100 + i, i % 3));
    }
    t
}

#[test]
fn smote_with_k_above_the_minority_is_an_error_as_in_imbalanced_learn() {
    let d = scratch("smote-k");
    let data = file(&d, "small.csv", small_table(4).as_bytes());
    let out = d.join("out.csv");
    let out_s = out.to_string_lossy().into_owned();
    for method in [
        "smote",
        "borderline-smote",
        "adasyn",
        "smote-tomek",
        "hybrid",
    ] {
        let (code, _, err) = run(&[
            "resample", &data, "--method", method, "--k", "5", "-o", &out_s,
        ]);
        assert_eq!(code, 2, "{method}: {err}");
        assert!(
            err.contains("k=5 needs more than 5 rows of class 'p'")
                && err.contains("has 4; give k=3 or less"),
            "{method}: {err}"
        );
        assert!(!out.exists(), "{method}: no output on an error");
    }
    // k = 3 fits four rows: no note of a lowered k.
    let (code, stdout, err) = run(&[
        "resample", &data, "--method", "smote", "--k", "3", "-o", &out_s,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!stdout.contains("k reduced") && !err.contains("k reduced"));
    // Inside a strategy too.
    let (code, _, err) = run(&[
        "fit",
        &data,
        "--model",
        "smote(k=9)+tree",
        "-o",
        &d.join("m.rarity").to_string_lossy(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("give k=3 or less"), "{err}");
}

#[test]
fn a_model_file_given_as_data_is_named_as_such() {
    let d = scratch("model-as-data");
    for (name, json) in [("m.rarity", false), ("m.json", true)] {
        let model = d.join(name).to_string_lossy().into_owned();
        let mut args = vec![
            "fit",
            "--dataset",
            "glass6",
            "--model",
            "tree(max_depth=2)",
            "-o",
            &model,
        ];
        if json {
            args.push("--json-model");
        }
        let (code, _, err) = run(&args);
        assert_eq!(code, 0, "{err}");
        let out = d.join("p.csv").to_string_lossy().into_owned();
        for args in [
            vec!["predict", &model, &model, "-o", &out],
            vec!["inspect", &model],
        ] {
            let (code, _, err) = run(&args);
            assert_eq!(code, 2, "{args:?}: {err}");
            assert!(
                err.contains(&format!("{model} is a rarity model file, not a data table")),
                "{args:?}: {err}"
            );
            assert!(!err.contains("UTF-8"), "{err}");
        }
    }
}

#[test]
fn a_table_missing_model_columns_lists_them_and_suggests_only_close_names() {
    let d = scratch("missing-columns");
    let train = file(
        &d,
        "train.csv",
        small_table(12).replace("a,b,y", "V1,V5,Class").as_bytes(),
    );
    let model = d.join("m.rarity").to_string_lossy().into_owned();
    let (code, _, err) = run(&["fit", &train, "--model", "tree", "-o", &model]);
    assert_eq!(code, 0, "{err}");
    let out = d.join("p.csv").to_string_lossy().into_owned();
    // V5 missing: V1 is another column of the model, no spelling of V5.
    let only_v1 = file(&d, "v1.csv", b"V1,other\n1,2\n3,4\n");
    let (code, _, err) = run(&["predict", &model, &only_v1, "-o", &out]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the model needs 1 column(s) that the data does not have: 'V5'")
            && err.contains("the model uses 'V1', 'V5'")
            && err.contains("the data has 'V1', 'other'"),
        "{err}"
    );
    assert!(!err.contains("did you mean"), "{err}");
    // Both missing, one of them close to a column the model does not use.
    let typo = file(&d, "typo.csv", b"VV1,x\n1,2\n");
    let (code, _, err) = run(&["predict", &model, &typo, "-o", &out]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("2 column(s) that the data does not have: 'V1', 'V5'")
            && err.contains("did you mean 'VV1' for 'V1'?"),
        "{err}"
    );
    assert!(!d.join("p.csv").exists());
}

#[test]
fn a_mistyped_method_gets_a_suggestion() {
    let d = scratch("method-typo");
    let data = file(&d, "small.csv", small_table(8).as_bytes());
    let out = d.join("out.csv").to_string_lossy().into_owned();
    let (code, _, err) = run(&["resample", &data, "--method", "smoot", "-o", &out]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("did you mean 'smote'?"), "{err}");
}

#[test]
fn run_leaves_smote_bagging_out_of_its_defaults_when_a_fold_is_too_small_for_k() {
    let d = scratch("run-small-minority");
    // Seven minority rows: some training folds of 2x5 CV hold five, not
    // more than SMOTE-bagging's k = 5.
    let data = file(&d, "small.csv", small_table(7).as_bytes());
    let winner = d.join("w.rarity").to_string_lossy().into_owned();
    let (code, out, err) = run(&["run", &data, "-o", &winner]);
    assert_eq!(code, 0, "{err}");
    assert!(
        !out.contains("smote-bagging") && out.contains("eb-bagging"),
        "{out}"
    );
    // Named, it runs and fails with the reason.
    let (code, _, err) = run(&["run", &data, "-m", "smote-bagging(n=5)", "-o", &winner]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("needs more than 5 rows of class 'p'"), "{err}");
}
