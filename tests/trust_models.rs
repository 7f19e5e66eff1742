//! Model files and specs that crashed their reader or loaded meaning
//! nothing (issue 51, items 1, 2, 3, 6, 10 and 11): ensembles nested past
//! what can be read back, specs nested past the stack, trees deeper than
//! ONNX Runtime loads, a model read whole before its header, numbers and
//! names no fit makes (NaN, probabilities out of [0, 1], zero priors,
//! duplicate class names, a spec that is not the model's). Every file here
//! is crafted in the test, from a model fitted on a few rows.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use common::{file, run, scratch};
use rarity::data::Dataset;
use rarity::error::Error;
use rarity::learn::MAX_ENSEMBLE_NESTING;
use rarity::limits::MAX_TREE_DEPTH;
use rarity::persist::{from_bytes, to_bytes, Format, MAGIC};
use rarity::strategy::FittedStrategy;
use serde_json::{json, Value};

fn data() -> Dataset {
    Dataset::from_rows(
        (0..40)
            .map(|i| vec![(i % 7) as f64, (i % 5) as f64])
            .collect(),
        (0..40).map(|i| (i % 7 > 4) as u32).collect(),
        vec!["n".into(), "p".into()],
    )
    .unwrap()
}

fn three_classes() -> Dataset {
    Dataset::from_rows(
        (0..60)
            .map(|i| vec![(i % 7) as f64, (i % 5) as f64])
            .collect(),
        (0..60).map(|i| (i % 3) as u32).collect(),
        vec!["a".into(), "b".into(), "c".into()],
    )
    .unwrap()
}

/// A strategy fitted from `spec` on [`data`] (seed 1).
fn strategy(spec: &str) -> FittedStrategy {
    rarity::spec::build_strategy(spec)
        .unwrap()
        .fit(&data(), 1)
        .unwrap()
}

/// The JSON value of a strategy's file.
fn json_of(model: &FittedStrategy) -> Value {
    serde_json::from_slice(&to_bytes(model, Format::Json).unwrap()).unwrap()
}

/// A JSON model file of format version 1 (no checksum) of the file `v`.
fn v1_json(v: &Value) -> Vec<u8> {
    let mut v = v.clone();
    v.as_object_mut().unwrap().remove("checksum");
    v["format_version"] = 1.into();
    serde_json::to_vec(&v).unwrap()
}

/// A float that stands for NaN in [`v1_binary`].
const SENTINEL: f64 = 1.234_567_890_123e300;

/// A binary model file of format version 1 (no checksum) whose body is the
/// MessagePack of `model` (a JSON value), every float equal to [`SENTINEL`]
/// written as NaN (which JSON cannot hold).
fn v1_binary(model: &Value) -> Vec<u8> {
    let mut body = rmp_serde::to_vec_named(model).unwrap();
    let mut mark = vec![0xcb];
    mark.extend_from_slice(&SENTINEL.to_be_bytes());
    let mut at = 0;
    while let Some(i) = body[at..].windows(9).position(|w| w == mark) {
        body[at + i + 1..at + i + 9].copy_from_slice(&f64::NAN.to_be_bytes());
        at += i + 9;
    }
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&1u16.to_le_bytes());
    out.push(5);
    out.extend_from_slice(b"0.1.0");
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

/// The message of a model file that must be refused.
fn refused(bytes: &[u8]) -> String {
    match from_bytes::<FittedStrategy>(bytes, Path::new("m.rarity")) {
        Err(e @ Error::Model { .. }) => e.to_string(),
        other => panic!("expected a model error, got {:?}", other.map(|m| m.spec)),
    }
}

/// Runs `f` on a thread with a 1 MiB stack (a small worker's).
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn crafted_files_read_as_rarity_writes_them() {
    // The crafting below gives files that load when nothing is wrong.
    let m = strategy("tree");
    let v = json_of(&m);
    let back: FittedStrategy = from_bytes(&v1_binary(&v["model"]), Path::new("m")).unwrap();
    assert_eq!(back, m);
    let back: FittedStrategy = from_bytes(&v1_json(&v), Path::new("m")).unwrap();
    assert_eq!(back, m);
}

/// `n` baggings of one member around a tree.
fn nested_spec(n: usize) -> String {
    format!(
        "{}tree{}",
        "bagging(n=1,sample=none,learner=".repeat(n),
        ")".repeat(n)
    )
}

#[test]
fn ensembles_nest_to_the_limit_and_no_deeper() {
    on_small_stack(|| {
        // The deepest spec fits, and its strategy is written and read back
        // in both encodings.
        let m = strategy(&nested_spec(MAX_ENSEMBLE_NESTING));
        for format in [Format::Binary, Format::Json] {
            let bytes = to_bytes(&m, format).unwrap();
            let back: FittedStrategy = from_bytes(&bytes, Path::new("m")).unwrap();
            assert_eq!(back, m, "{format:?}");
        }
        // One more is refused where the spec is read, and so are 120
        // (which fitted, then crashed their reader).
        for n in [MAX_ENSEMBLE_NESTING + 1, 120] {
            let e = rarity::spec::build_strategy(&nested_spec(n))
                .unwrap_err()
                .to_string();
            assert!(e.contains("ensembles nested deeper than 16"), "{e}");
        }
    });
}

/// `model` (a `Model` value) inside `levels` more copies of `ensemble` (a
/// one-member `Bagged` value).
fn nest(model: &Value, ensemble: &Value, levels: usize) -> Value {
    let mut m = model.clone();
    for _ in 0..levels {
        let mut e = ensemble.clone();
        e["Bagged"]["members"] = json!([m]);
        m = e;
    }
    m
}

#[test]
fn crafted_files_nested_too_deep_are_refused_without_a_crash() {
    let v = json_of(&strategy("bagging(n=1,sample=none,learner=tree)"));
    on_small_stack(move || {
        let ensemble = v["model"]["members"][0]["model"].clone();
        let tree = ensemble["Bagged"]["members"][0].clone();
        let with = |levels: usize| {
            let mut w = v.clone();
            w["model"]["members"][0]["model"] = nest(&tree, &ensemble, levels);
            w
        };
        assert!(from_bytes::<FittedStrategy>(&v1_json(&with(16)), Path::new("m")).is_ok());
        for levels in [17, 30, 100] {
            let w = with(levels);
            // The nesting guard, or the decoders' depth limit (128).
            let e = refused(&v1_binary(&w["model"]));
            assert!(
                e.contains("nested deeper than 16") || e.contains("depth limit"),
                "{levels}: {e}"
            );
            let e = refused(&v1_json(&w));
            assert!(
                e.contains("nested deeper than 16") || e.contains("recursion limit"),
                "{levels}: {e}"
            );
        }
    });
}

/// A tree model value that is a chain `depth` splits deep over feature 0.
fn chain(depth: usize) -> Value {
    const LEAF: u32 = u32::MAX;
    let (mut nodes, mut counts) = (Vec::new(), Vec::new());
    for j in 0..depth {
        let i = nodes.len();
        nodes.push(json!({"feature": 0, "threshold": j as f64, "left": i + 1, "right": i + 2}));
        nodes.push(json!({"feature": LEAF, "threshold": 0.0, "left": j, "right": 0}));
        counts.extend(if j % 2 == 0 { [1.0, 0.0] } else { [0.0, 1.0] });
    }
    nodes.push(json!({"feature": LEAF, "threshold": 0.0, "left": depth, "right": 0}));
    counts.extend([1.0, 0.0]);
    json!({"Tree": {"n_features": 2, "n_classes": 2, "nodes": nodes,
        "leaf_counts": counts, "leaf_proba": counts, "sets": []}})
}

/// A version-1 JSON strategy file whose tree is a chain `depth` deep.
fn chain_file(depth: usize) -> Vec<u8> {
    let mut v = json_of(&strategy("tree"));
    v["model"]["members"][0]["model"] = chain(depth);
    v1_json(&v)
}

#[test]
fn trees_deeper_than_rarity_grows_are_refused() {
    let m: FittedStrategy = from_bytes(&chain_file(MAX_TREE_DEPTH), Path::new("m")).unwrap();
    assert!(rarity::export::to_onnx(&m).is_ok());
    for depth in [MAX_TREE_DEPTH + 1, 100_000] {
        let e = refused(&chain_file(depth));
        assert!(e.contains("deeper than 512 levels"), "{e}");
    }
    // Growing stops there: alternating labels make the exact splitter peel
    // one row per level.
    let n = 1500;
    let ds = Dataset::from_rows(
        (0..n).map(|i| vec![i as f64]).collect(),
        (0..n).map(|i| (i % 2) as u32).collect(),
        vec!["n".into(), "p".into()],
    )
    .unwrap();
    let exact = rarity::learn::tree::Tree {
        splitter: rarity::learn::tree::SplitSearch::Exact,
        ..Default::default()
    };
    let rows: Vec<usize> = (0..n).collect();
    let t = exact
        .grow(&ds.view(&rows), &mut rarity::rng::stream(0, 0))
        .unwrap();
    assert_eq!(t.depth(), MAX_TREE_DEPTH);
    let e = rarity::spec::build_learner("tree(max_depth=513)")
        .unwrap_err()
        .to_string();
    assert!(e.contains("max_depth"), "{e}");
}

/// The tree of a strategy file's `model` value.
fn tree_of(model: &mut Value) -> &mut Value {
    &mut model["members"][0]["model"]["Tree"]
}

#[test]
fn models_that_mean_nothing_are_refused_whatever_their_version() {
    let v = json_of(&strategy("tree"));
    type Edit = fn(&mut Value);
    let cases: [(Edit, &str); 17] = [
        (
            |w| {
                tree_of(w)["leaf_proba"][0] = 6.0.into();
                tree_of(w)["leaf_proba"][1] = (-5.0).into();
            },
            "tree leaf probability 0 is 6",
        ),
        (
            |w| tree_of(w)["leaf_proba"][0] = 1e308.into(),
            "tree leaf probability 0 is 1000",
        ),
        (
            |w| tree_of(w)["leaf_proba"][0] = SENTINEL.into(),
            "tree leaf probability 0 is NaN",
        ),
        (
            |w| w["priors"][0] = SENTINEL.into(),
            "training prior 0 is NaN",
        ),
        (
            |w| w["priors"][0] = (-0.5).into(),
            "training prior 0 is -0.5",
        ),
        (|w| w["priors"] = json!([0.0, 1.0]), "training prior 0 is 0"),
        (
            |w| w["members"][0]["keep_rates"][0] = SENTINEL.into(),
            "keep rate 0 is NaN",
        ),
        (
            |w| w["rule"] = json!({"Threshold": SENTINEL}),
            "threshold NaN",
        ),
        (
            |w| w["schema"]["class_names"] = json!(["a", "a"]),
            "class name 'a' appears twice",
        ),
        (
            |w| w["schema"]["class_names"] = json!(["a", ""]),
            "class name 1 is empty",
        ),
        (
            |w| w["spec"] = "forest(n=1000000000)+gbdt".into(),
            "names the learner 'forest', but the file holds a Tree model",
        ),
        (
            |w| w["spec"] = "tree+gbdt".into(),
            "names a stage that is not one",
        ),
        (|w| w["spec"] = "tree+correct".into(), "says correct is"),
        (|w| w["spec"] = "tree+platt".into(), "calibration"),
        (|w| w["spec"] = "tree(".into(), "does not parse"),
        // The root's right child made its left one: a node reached twice,
        // the right subtree never.
        (
            |w| {
                let left = tree_of(w)["nodes"][0]["left"].clone();
                tree_of(w)["nodes"][0]["right"] = left;
            },
            "tree node 1 has two parents",
        ),
        (
            |w| tree_of(w)["nodes"][0]["threshold"] = SENTINEL.into(),
            "NaN threshold",
        ),
    ];
    for (edit, needle) in cases {
        let mut w = v.clone();
        edit(&mut w["model"]);
        let e = refused(&v1_binary(&w["model"]));
        assert!(
            e.contains("inconsistent model") && e.contains(needle),
            "{needle}: {e}"
        );
        let mut floats = Vec::new();
        float_paths(&w, &mut Vec::new(), &mut floats);
        if !floats
            .iter()
            .any(|p| at_path(&mut w.clone(), p).as_f64() == Some(SENTINEL))
        {
            let e = refused(&v1_json(&w));
            assert!(e.contains(needle), "{needle}: {e}");
        }
    }
}

/// Every float of `v` (a JSON value), as a path of keys and indices.
fn float_paths(v: &Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match v {
        Value::Number(n) if n.is_f64() => out.push(at.clone()),
        Value::Array(items) => items.iter().enumerate().for_each(|(i, x)| {
            at.push(i.to_string());
            float_paths(x, at, out);
            at.pop();
        }),
        Value::Object(map) => map.iter().for_each(|(k, x)| {
            at.push(k.clone());
            float_paths(x, at, out);
            at.pop();
        }),
        _ => {}
    }
}

fn at_path<'a>(v: &'a mut Value, path: &[String]) -> &'a mut Value {
    path.iter().fold(v, |v, k| match v {
        Value::Array(items) => &mut items[k.parse::<usize>().unwrap()],
        other => &mut other[k.as_str()],
    })
}

#[test]
fn a_nan_anywhere_in_a_model_is_refused_or_changes_nothing() {
    // Every kind of model, with two classes and three, and the stages of a
    // strategy: a NaN in any of their numbers is refused, unless nothing
    // reads the number (a leaf's unused threshold).
    let mut specs: Vec<String> = rarity::learn::registry::LEARNERS
        .iter()
        .map(|e| e.name.to_string())
        .collect();
    specs.extend(
        [
            "forest(n=3)+correct",
            "under(ratio=1)+tree+platt",
            "tree+isotonic(ensemble=true)",
            "gbdt(rounds=3)+priors(0.3,0.7)",
            "logistic+cost(fn=5,fp=1)",
            "rus-boost(n=3)",
        ]
        .map(String::from),
    );
    let mut checked = 0;
    for spec in &specs {
        for ds in [data(), three_classes()] {
            let Ok(m) = rarity::spec::build_strategy(spec).unwrap().fit(&ds, 1) else {
                continue;
            };
            let want = m.predict_proba(&ds).unwrap();
            let v = json_of(&m);
            let mut paths = Vec::new();
            float_paths(&v["model"], &mut Vec::new(), &mut paths);
            for path in paths.iter().filter(|p| p[0] != "fit") {
                let mut w = v["model"].clone();
                *at_path(&mut w, path) = SENTINEL.into();
                match from_bytes::<FittedStrategy>(&v1_binary(&w), Path::new("m")) {
                    Err(e) => assert!(
                        e.to_string().contains("inconsistent model"),
                        "{spec} {path:?}: {e}"
                    ),
                    Ok(back) => assert!(
                        back.predict_proba(&ds).unwrap() == want,
                        "{spec}: a NaN at {path:?} loaded and changed the probabilities"
                    ),
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}

#[test]
fn the_cli_refuses_deep_specs_and_crafted_files_cleanly() {
    let dir = scratch("trust-models");
    let csv = file(
        &dir,
        "d.csv",
        b"a,b,y\n1,2,n\n2,3,p\n3,1,n\n4,5,p\n5,2,n\n6,1,p\n1,1,n\n2,2,p\n",
    );
    let out = dir.join("m.rarity").to_string_lossy().into_owned();
    let brackets = format!("forest(n={}{})", "[".repeat(20_000), "]".repeat(20_000));
    let baggings = format!(
        "{}tree{}",
        "bagging(learner=".repeat(3000),
        ")".repeat(3000)
    );
    for spec in [brackets.as_str(), &baggings, &nested_spec(120)] {
        let (code, _, err) = run(&["fit", &csv, "-m", spec, "-o", &out]);
        assert_ne!(code, 0, "{err}");
        assert!(err.contains("nested deeper than"), "{err}");
        assert!(err.len() < 4000, "{} bytes of error: {err}", err.len());
    }
    // A crafted file of 100 nested ensembles and a chain 100,000 deep:
    // show, predict and export say what is wrong.
    let v = json_of(&strategy("bagging(n=1,sample=none,learner=tree)"));
    let ensemble = v["model"]["members"][0]["model"].clone();
    let mut deep = v.clone();
    deep["model"]["members"][0]["model"] = nest(&ensemble["Bagged"]["members"][0], &ensemble, 100);
    let nested = file(&dir, "nested.json", &v1_json(&deep));
    let chained = file(&dir, "chain.json", &chain_file(100_000));
    let x = file(&dir, "x.csv", b"x0,x1\n1,2\n");
    let preds = dir.join("p.csv").to_string_lossy().into_owned();
    let onnx = dir.join("m.onnx").to_string_lossy().into_owned();
    for (model, needle) in [(&nested, "recursion limit"), (&chained, "deeper than 512")] {
        for args in [
            vec!["show", model.as_str()],
            vec!["predict", model.as_str(), &x, "-o", &preds],
            vec!["export", model.as_str(), "-o", &onnx],
        ] {
            let (code, _, err) = run(&args);
            assert_ne!(code, 0, "{args:?}");
            assert!(
                err.contains(needle) && !err.contains("panicked"),
                "{args:?}: {err}"
            );
        }
    }
    // Not a model: refused after its first bytes.
    #[cfg(target_os = "linux")]
    {
        let (code, _, err) = run(&["show", "/dev/zero"]);
        assert_ne!(code, 0);
        assert!(err.contains("not a rarity model file"), "{err}");
    }
    // A model on standard input followed by 64 MiB of zeros: refused at
    // the first extra byte (the writer then sees the pipe closed).
    let bin = to_bytes(&strategy("tree"), Format::Binary).unwrap();
    let data_csv = file(&dir, "data.csv", b"x0,x1\n1,2\n3,4\n");
    let mut child = Command::new(env!("CARGO_BIN_EXE_rarity"))
        .args(["predict", "-", &data_csv, "-o", &preds])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&bin);
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..64 {
            if stdin.write_all(&zeros).is_err() {
                return false;
            }
        }
        true
    });
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("unexpected bytes after the model"),
        "{err}"
    );
    assert!(!writer.join().unwrap(), "rarity read every zero");
}

/// A fitted strategy holding the training summary `rarity fit --summary`
/// keeps: a file of format version 4 that round-trips in both encodings
/// (a strategy without one is version 3); edits that break the summary's
/// counts are refused as the file loads, each with what is wrong.
#[test]
fn a_training_summary_is_version_4_and_checked_when_loaded() {
    use rarity::data::bundled;
    use rarity::data::read::{PredictOptions, ReadOptions};
    use rarity::persist::{described, Persist, FORMAT_VERSION, PLAIN_VERSION};
    use rarity::stream::monitor::{profile, PassOptions};
    let read = ReadOptions::default();
    let ds = bundled::find("ecoli4").unwrap().load(&read).unwrap().0;
    let mut fitted = rarity::spec::build_strategy("logistic")
        .unwrap()
        .fit(&ds, 1)
        .unwrap();
    assert_eq!(fitted.format_version(), PLAIN_VERSION);
    let table = bundled::find("ecoli4").unwrap().table(&read).unwrap();
    let pass = PassOptions {
        read: &PredictOptions::default(),
        label: Some(fitted.schema.target_name.as_str()),
    };
    let p = profile(&fitted, table, &pass).unwrap();
    fitted.training = Some(Box::new(p.summary()));
    for format in [Format::Binary, Format::Json] {
        let bytes = to_bytes(&fitted, format).unwrap();
        let (back, info) = described::<FittedStrategy>(&bytes, Path::new("m")).unwrap();
        assert_eq!(back, fitted);
        assert_eq!(info.format_version, FORMAT_VERSION);
    }
    type Edit = fn(&mut Value);
    let edits: [(&str, Edit); 6] = [
        ("column 0: a malformed sketch", |t| {
            t["columns"][0]["Numeric"]["level"] = 99.into()
        }),
        ("groups out of order", |t| {
            let c = t["columns"][0]["Numeric"]["counts"].as_array_mut().unwrap();
            c.swap(0, 1);
        }),
        ("do not add up", |t| t["rows"] = 1.into()),
        ("columns counted", |t| {
            t["columns"].as_array_mut().unwrap().pop();
        }),
        ("a cap of", |t| {
            t["scores"][0]["max_groups"] = (1u64 << 40).into()
        }),
        ("do not add up", |t| {
            t["decided"][0] = u64::MAX.into();
            t["decided"][1] = u64::MAX.into();
        }),
    ];
    let v = json_of(&fitted);
    for (needle, edit) in edits {
        let mut w = v.clone();
        edit(&mut w["model"]["training"]);
        let e = refused(&v1_json(&w));
        assert!(
            e.contains("training summary") && e.contains(needle),
            "{needle}: {e}"
        );
    }
}
