//! Target statistics for some categorical columns only (issue 41):
//! `--categorical-cols merchant=target` (the others stay level codes for
//! native splits), `--categorical target` with `COL=native`, and the spec
//! form `encode(target, cols=[...])`; in fit, show, predict, evaluate, the
//! streamed fit (at 1 and 2 threads) and the ONNX export, and the errors
//! when a learner is left with a column it cannot split.

mod common;

use rarity::data::read::{read_path, Categorical, ReadOptions};
use rarity::data::target_encode::{Columns, TargetEncode};
use rarity::persist::{to_bytes, Format};
use rarity::spec::build_strategy;

/// Rows `shop,ch,n,y`: 40 shops (every fifth one risky), three channels
/// (`atm` riskier; a risky shop is safe on `web`), a numeric column.
fn shops() -> String {
    let mut t = String::from("shop,ch,n,y\n");
    for i in 0..1500usize {
        let (s, ch) = ((i * 7) % 40, ["web", "pos", "atm"][i % 3]);
        let p = (s.is_multiple_of(5) && ch != "web") || (ch == "atm" && i.is_multiple_of(4));
        t += &format!("s{s:02},{ch},{}.5,{}\n", i % 11, if p { "p" } else { "n" });
    }
    t
}

/// Runs `rarity` with `args` (a space-separated string); fails unless it
/// exits 0; its stdout.
fn ok(args: &str) -> String {
    let all: Vec<&str> = args.split(' ').collect();
    let (code, out, err) = common::run(&all);
    assert_eq!(code, 0, "{all:?}: {err}");
    out
}

#[test]
fn per_column_target_encodes_only_the_named_columns_everywhere() {
    let dir = common::scratch("cat_target_cols");
    let train = common::file(&dir, "train.csv", shops().as_bytes());
    let new = common::file(
        &dir,
        "new.csv",
        b"shop,ch,n\ns05,atm,1.5\ns05,web,1.5\nzz,kiosk,2.5\n,web,3.5\n",
    );
    let m = |name: &str| dir.join(name).display().to_string();
    // Three spellings of the same strategy: shop by target statistics,
    // ch native.
    let fits = [
        (
            "a.rarity",
            "--categorical native --categorical-cols shop=target --model gbdt(rounds=10)",
        ),
        (
            "b.rarity",
            "--categorical target --categorical-cols ch=native --model gbdt(rounds=10)",
        ),
        (
            "c.rarity",
            "--categorical native --model encode(target,cols=shop)+gbdt(rounds=10)",
        ),
    ];
    let mut predictions = Vec::new();
    for (name, flags) in fits {
        ok(&format!("fit {train} --target y -o {} {flags}", m(name)));
        let shown = ok(&format!("show {}", m(name)));
        assert!(
            shown.contains(
                "encode(target,folds=5,smooth=auto,cols=[shop]): shop (40 levels) -> shop=p(p)"
            ),
            "{flags}: {shown}"
        );
        // Unseen levels follow --unknown (an error by default); the missing
        // shop gets the target encoding's prior.
        let (code, _, err) = common::run(&["predict", &m(name), &new, "-o", "-"]);
        assert!(code != 0 && err.contains("'zz' (1 row)"), "{err}");
        predictions.push(ok(&format!(
            "predict {} {new} --unknown ignore -o -",
            m(name)
        )));
        let eval = ok(&format!(
            "evaluate {train} --target y --cv 3 --format json {flags}"
        ));
        let v: serde_json::Value = serde_json::from_str(&eval).unwrap();
        assert!(
            v["metrics"]["roc_auc"]["mean"].as_f64().unwrap() > 0.8,
            "{eval}"
        );
    }
    assert_eq!(predictions[0], predictions[1]);
    assert_eq!(predictions[0], predictions[2]);
    // The native channel still splits: atm rows of a shop score above web.
    let p: Vec<f64> = predictions[0]
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().parse().unwrap())
        .collect();
    assert!(p[0] > p[1], "{}", predictions[0]);
    // The export maps shop through its level table and ch to codes.
    let onnx = m("a.onnx");
    let out = ok(&format!("export {} -o {onnx}", m("a.rarity")));
    assert!(
        out.contains("shop [N, 1] string, ch [N, 1] string"),
        "{out}"
    );
    let bytes = std::fs::read(&onnx).unwrap();
    let holds = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    assert!(holds(b"LabelEncoder") && holds(b"membership_values"));
}

#[test]
fn a_learner_left_with_a_native_column_it_cannot_split_is_an_error() {
    let dir = common::scratch("cat_target_cols_bad");
    let train = common::file(&dir, "train.csv", shops().as_bytes());
    let model = dir.join("m.rarity");
    let m = model.to_str().unwrap();
    for (flags, says) in [
        (
            "--categorical native --categorical-cols shop=target --model logistic",
            "column 'ch' is categorical",
        ),
        (
            "--categorical target --categorical-cols ch=native --model logistic",
            "column 'ch' is categorical",
        ),
        (
            "--categorical native --model encode(target,cols=shpo)+forest",
            "'shpo' is not a categorical column",
        ),
        (
            "--categorical native --model encode(target,cols=n)+forest",
            "'n' is not a categorical column",
        ),
        (
            "--categorical-cols shop=target,ch=one-hot --model encode(target,cols=ch)+forest",
            "'ch' is not a categorical column",
        ),
    ] {
        let line = format!("fit {train} --target y -o {m} {flags}");
        let (code, _, err) = common::run(&line.split(' ').collect::<Vec<_>>());
        assert_eq!(code, 2, "{flags}: {err}");
        assert!(err.contains(says), "{flags}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(!model.exists(), "no model file written");
    }
    // A one-hot channel beside a target shop suits any learner.
    ok(&format!(
        "fit {train} --target y -o {m} --categorical-cols shop=target,ch=one-hot --model logistic"
    ));
}

#[test]
fn the_spec_form_parses_and_prints_back() {
    let s = build_strategy("encode(target, cols=[shop, 'my col'])+forest").unwrap();
    let e = s.encode.clone().unwrap();
    assert_eq!(e.cols, Columns::Only(vec!["shop".into(), "my col".into()]));
    assert_eq!(
        e.to_text(),
        "encode(target,folds=5,smooth=auto,cols=[shop,'my col'])"
    );
    let again = build_strategy(&format!("{}+forest", e.to_text())).unwrap();
    assert_eq!(again.encode, Some(e));
    let one = build_strategy("encode(target, cols=shop)+forest").unwrap();
    assert_eq!(one.encode.unwrap().cols, Columns::Only(vec!["shop".into()]));
    let all = build_strategy("encode(target, cols=all)+forest").unwrap();
    assert_eq!(all.encode, Some(TargetEncode::default()));
    let err = build_strategy("encode(target, cols=3)+forest")
        .unwrap_err()
        .to_string();
    assert!(err.contains("cols"), "{err}");
}

#[test]
fn the_streamed_fit_encodes_the_same_columns_as_the_in_memory_fit() {
    let dir = common::scratch("cat_target_cols_stream");
    let path = dir.join("t.csv");
    std::fs::write(&path, shops()).unwrap();
    for opts in [
        ReadOptions {
            categorical: Categorical::Native,
            column_modes: vec![("shop".into(), Categorical::Target)],
            target: Some("y".into()),
            ..ReadOptions::default()
        },
        ReadOptions {
            categorical: Categorical::Target,
            column_modes: vec![("ch".into(), Categorical::Native)],
            target: Some("y".into()),
            ..ReadOptions::default()
        },
    ] {
        let (ds, _) = read_path(&path, &opts).unwrap();
        assert_eq!(ds.target_statistics(), Some(&["shop".to_string()][..]));
        let s = build_strategy("under(beta=0.5)+forest(n=3)+correct").unwrap();
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads);
            pool.build().unwrap().install(|| s.fit(&ds, 7).unwrap())
        };
        let whole = on(1);
        assert_eq!(whole, on(2), "the same fit at 1 and 2 threads");
        let (streamed, _, _) = rarity::stream::fit_file(&s.reading(&opts), &path, &opts, 7)
            .unwrap()
            .expect("streamed");
        let e = whole.members[0].encoding.as_ref().unwrap();
        assert_eq!(e.columns.len(), 1);
        assert_eq!(e.feature_names(), ["shop=p(p)", "ch", "n"]);
        assert_eq!(
            common::model_bytes(&to_bytes(&whole, Format::Binary).unwrap()),
            common::model_bytes(&to_bytes(&streamed, Format::Binary).unwrap())
        );
    }
}
