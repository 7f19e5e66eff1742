//! `rarity export`: the ONNX graph's structure, read back with a minimal
//! protobuf decoder (ONNX Runtime checks the numbers in
//! `python/tests/test_onnx.py`), and the errors of what cannot be exported.

mod common;

use common::{run, scratch};

/// A decoded protobuf field: a varint, or length-delimited bytes.
#[derive(Debug, Clone)]
enum Field {
    Int(u64),
    Bytes(Vec<u8>),
}

fn varint(b: &[u8], at: &mut usize) -> u64 {
    let (mut v, mut shift) = (0u64, 0);
    loop {
        let byte = b[*at];
        *at += 1;
        v |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return v;
        }
        shift += 7;
    }
}

/// The fields of one message, in order.
fn decode(b: &[u8]) -> Vec<(u32, Field)> {
    let (mut at, mut out) = (0, Vec::new());
    while at < b.len() {
        let key = varint(b, &mut at);
        let (field, wire) = ((key >> 3) as u32, key & 7);
        let value = match wire {
            0 => Field::Int(varint(b, &mut at)),
            1 => {
                at += 8;
                Field::Int(0)
            }
            2 => {
                let n = varint(b, &mut at) as usize;
                at += n;
                Field::Bytes(b[at - n..at].to_vec())
            }
            5 => {
                at += 4;
                Field::Int(0)
            }
            w => panic!("unexpected wire type {w}"),
        };
        out.push((field, value));
    }
    out
}

fn bytes_of(m: &[(u32, Field)], field: u32) -> Vec<Vec<u8>> {
    m.iter()
        .filter(|(f, _)| *f == field)
        .filter_map(|(_, v)| match v {
            Field::Bytes(b) => Some(b.clone()),
            Field::Int(_) => None,
        })
        .collect()
}

fn int_of(m: &[(u32, Field)], field: u32) -> Option<u64> {
    m.iter().find_map(|(f, v)| match v {
        Field::Int(i) if *f == field => Some(*i),
        _ => None,
    })
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).unwrap()
}

/// Fits `spec` on a bundled dataset and exports it; the ONNX bytes.
fn exported(dir: &std::path::Path, dataset: &str, spec: &str) -> Vec<u8> {
    let (model, graph) = (dir.join("m.rarity"), dir.join("m.onnx"));
    let (m, g) = (model.to_str().unwrap(), graph.to_str().unwrap());
    let (code, _, err) = run(&["fit", "--dataset", dataset, "-m", spec, "-o", m]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = run(&["export", m, "-o", g]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("exported"), "{out}");
    std::fs::read(&graph).unwrap()
}

#[test]
fn a_forest_is_one_tree_ensemble_with_the_models_columns_and_outputs() {
    let dir = scratch("onnx-forest");
    let bytes = exported(
        &dir,
        "pima",
        "under(beta=0.5)+forest(n=7)+correct+threshold(priors)",
    );
    let model = decode(&bytes);
    assert_eq!(int_of(&model, 1), Some(10), "IR version");
    let opsets: Vec<(String, u64)> = bytes_of(&model, 8)
        .iter()
        .map(|o| {
            let o = decode(o);
            let domain = bytes_of(&o, 1).first().map(|b| text(b)).unwrap_or_default();
            (domain, int_of(&o, 2).unwrap())
        })
        .collect();
    assert_eq!(opsets, vec![("".into(), 21), ("ai.onnx.ml".into(), 5)]);
    let meta: Vec<(String, String)> = bytes_of(&model, 14)
        .iter()
        .map(|e| {
            let e = decode(e);
            (text(&bytes_of(&e, 1)[0]), text(&bytes_of(&e, 2)[0]))
        })
        .collect();
    let get = |k: &str| {
        meta.iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(
        get("strategy").unwrap(),
        "under(beta=0.5)+forest(n=7)+correct+threshold(priors)"
    );
    assert_eq!(get("classes").unwrap(), r#"["0","1"]"#);
    assert!(get("features").unwrap().starts_with(r#"["x0","x1""#));
    assert!(get("keep_rates").unwrap().starts_with("[["));
    assert!(get("rarity_version").is_some() && get("decision").is_some());
    let graph = decode(&bytes_of(&model, 7)[0]);
    let io = |field| -> Vec<String> {
        bytes_of(&graph, field)
            .iter()
            .map(|v| text(&bytes_of(&decode(v), 1)[0]))
            .collect()
    };
    assert_eq!(io(11), vec!["X"]);
    assert_eq!(io(12), vec!["probabilities", "label"]);
    let ops: Vec<String> = bytes_of(&graph, 1)
        .iter()
        .map(|n| text(&bytes_of(&decode(n), 4)[0]))
        .collect();
    assert_eq!(
        ops.iter().filter(|o| *o == "TreeEnsemble").count(),
        1,
        "{ops:?}"
    );
    let ensemble = bytes_of(&graph, 1)
        .into_iter()
        .map(|n| decode(&n))
        .find(|n| text(&bytes_of(n, 4)[0]) == "TreeEnsemble")
        .unwrap();
    let roots = bytes_of(&ensemble, 5)
        .into_iter()
        .map(|a| decode(&a))
        .find(|a| text(&bytes_of(a, 1)[0]) == "tree_roots")
        .unwrap();
    // Packed ints: one root per tree and class (seven trees, two classes).
    let packed = &bytes_of(&roots, 8)[0];
    let (mut at, mut n) = (0, 0);
    while at < packed.len() {
        varint(packed, &mut at);
        n += 1;
    }
    assert_eq!(n, 14);
    assert!(
        ops.contains(&"Gather".to_string()),
        "the label is a class name"
    );
}

#[test]
fn the_same_model_gives_the_same_bytes() {
    let dir = scratch("onnx-same");
    let a = exported(&dir, "glass", "gbdt(rounds=5)+isotonic");
    let model = dir.join("m.rarity");
    let again = dir.join("again.onnx");
    let (code, _, err) = run(&[
        "export",
        model.to_str().unwrap(),
        "-o",
        again.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(&again).unwrap(), a);
}

#[test]
fn what_cannot_be_exported_is_refused_with_what_can() {
    let dir = scratch("onnx-refused");
    for (spec, says) in [
        ("forest(n=3)+em", "+em"),
        ("svm", "Svm models"),
        ("knn", "Knn models"),
    ] {
        let (model, graph) = (dir.join("m.rarity"), dir.join("m.onnx"));
        let (m, g) = (model.to_str().unwrap(), graph.to_str().unwrap());
        let (code, _, err) = run(&["fit", "--dataset", "pima", "-m", spec, "-o", m]);
        assert_eq!(code, 0, "{err}");
        let (code, _, err) = run(&["export", m, "-o", g]);
        assert_ne!(code, 0, "{spec}");
        assert!(
            err.contains("cannot be exported to ONNX") && err.contains(says),
            "{err}"
        );
        assert!(err.contains("the export covers"), "{err}");
        assert!(!graph.exists(), "{spec}: no output is left");
    }
}

/// Fits `spec` on the CSV text `csv` read with `--categorical
/// categorical`, exports it, and returns the model file's path with the
/// graph's input names and operator types.
fn fit_export(
    dir: &std::path::Path,
    csv: &str,
    categorical: &str,
    spec: &str,
) -> (String, Vec<String>, Vec<String>) {
    let data = common::file(dir, "t.csv", csv.as_bytes());
    let m = dir.join("m.rarity").display().to_string();
    let (code, _, err) = run(&[
        "fit",
        &data,
        "--categorical",
        categorical,
        "-m",
        spec,
        "-o",
        &m,
    ]);
    assert_eq!(code, 0, "{err}");
    let graph_path = dir.join("m.onnx");
    let (code, _, err) = run(&["export", &m, "-o", graph_path.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let model_proto = decode(&std::fs::read(&graph_path).unwrap());
    let graph = decode(&bytes_of(&model_proto, 7)[0]);
    let names = |field: u32, name: u32| -> Vec<String> {
        bytes_of(&graph, field)
            .iter()
            .map(|v| text(&bytes_of(&decode(v), name)[0]))
            .collect()
    };
    (m, names(11, 1), names(1, 4))
}

#[test]
fn text_columns_are_string_inputs_and_the_model_is_never_the_output() {
    let dir = scratch("onnx-text");
    let mut csv = String::from("amount,channel,class\n");
    for i in 0..120 {
        let ch = if i % 3 == 0 { "shop" } else { "web" };
        csv.push_str(&format!("{}.5,{ch},{}\n", i % 17, u8::from(i % 7 == 0)));
    }
    let (m, inputs, ops) = fit_export(&dir, &csv, "one-hot", "tree");
    assert_eq!(inputs, vec!["X", "channel"]);
    assert!(ops.contains(&"Equal".to_string()), "{ops:?}");
    let before = std::fs::read(&m).unwrap();
    let (code, _, err) = run(&["export", &m, "-o", &m]);
    assert_ne!(code, 0);
    assert!(err.contains("the same file"), "{err}");
    assert_eq!(std::fs::read(&m).unwrap(), before, "the model is unchanged");
}

#[test]
fn target_statistics_are_label_encoders_on_the_string_input() {
    let dir = scratch("onnx-target");
    let mut csv = String::from("amount,merchant,class\n");
    for i in 0..300 {
        let m = i % 23;
        let y = u8::from(m < 3 || i % 11 == 0);
        csv.push_str(&format!("{}.5,m{m},{y}\n", i % 17));
    }
    let (_, inputs, ops) = fit_export(&dir, &csv, "target", "logistic+platt(ensemble=true)");
    assert_eq!(inputs, vec!["X", "merchant"]);
    // The level codes' encoder, and one per fold model's table (three
    // calibration folds, each with its own encoding).
    let encoders = ops.iter().filter(|o| *o == "LabelEncoder").count();
    assert_eq!(encoders, 1 + 3, "{ops:?}");
}

/// The packed integers of the attribute `name` of the graph's
/// `TreeEnsemble` node, if it has one.
fn tree_ensemble_ints(bytes: &[u8], name: &str) -> Option<Vec<u64>> {
    let model = decode(bytes);
    let graph = decode(&bytes_of(&model, 7)[0]);
    let node = bytes_of(&graph, 1)
        .into_iter()
        .map(|n| decode(&n))
        .find(|n| text(&bytes_of(n, 4)[0]) == "TreeEnsemble")?;
    let attr = bytes_of(&node, 5)
        .into_iter()
        .map(|a| decode(&a))
        .find(|a| text(&bytes_of(a, 1)[0]) == name)?;
    let packed = &bytes_of(&attr, 8)[0];
    let (mut at, mut out) = (0, Vec::new());
    while at < packed.len() {
        out.push(varint(packed, &mut at));
    }
    Some(out)
}

#[test]
fn missing_values_take_each_splits_learned_direction_in_the_graph() {
    // Trees fitted without a missing value still send one somewhere (gbdt:
    // where 0 goes, LightGBM's rule; trees: to the heavier child): the
    // graph says so per node, beside its other node attributes.
    let dir = scratch("onnx-missing");
    for spec in ["gbdt(rounds=10)", "forest(n=5)", "tree(max_depth=4)"] {
        let bytes = exported(&dir, "pima", spec);
        let tracks = tree_ensemble_ints(&bytes, "nodes_missing_value_tracks_true")
            .unwrap_or_else(|| panic!("{spec}: no nodes_missing_value_tracks_true"));
        let features = tree_ensemble_ints(&bytes, "nodes_featureids").unwrap();
        assert_eq!(tracks.len(), features.len(), "{spec}");
        // pima's features are non-negative and gbdt's thresholds lie
        // between two training values, so 0 (and with it a missing value)
        // goes left at every gbdt split; the trees' heavier children lie
        // on both sides.
        let both = tracks.contains(&1) && tracks.contains(&0);
        assert!(
            both || spec.starts_with("gbdt") && tracks.contains(&1),
            "{spec}: {tracks:?}"
        );
        assert!(tracks.iter().all(|&t| t <= 1), "{spec}");
    }
}
