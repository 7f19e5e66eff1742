use super::*;
use crate::data::Dataset;
use crate::ensemble::Bagging;
use crate::learn::tree::Tree;
use crate::learn::Learner;
use std::path::PathBuf;

fn tmp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("rarity-persist-{}-{name}", std::process::id()))
}

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

/// `learner` fitted on every row of `ds`.
fn fit(learner: &dyn Learner, ds: &Dataset) -> Model {
    let rows: Vec<usize> = (0..ds.n_rows()).collect();
    learner
        .fit(&ds.view(&rows), &mut crate::rng::stream(0, 0))
        .unwrap()
}

fn forest() -> Model {
    Model::new(Bagging::forest(5).fit_dataset(&data(), 3).unwrap())
}

#[test]
fn round_trip_through_a_file_both_formats() {
    let ds = data();
    let tree = fit(&Tree::default(), &ds);
    for (i, model) in [tree, forest()].into_iter().enumerate() {
        for format in [Format::Binary, Format::Json] {
            let path = tmp(&format!("rt{i}{format:?}"));
            save(&model, &path, format).unwrap();
            let back: Model = load(&path).unwrap();
            assert_eq!(back, model);
            assert_eq!(
                back.predict_proba(&ds).unwrap(),
                model.predict_proba(&ds).unwrap()
            );
            std::fs::remove_file(&path).unwrap();
        }
    }
    // No temporary file is left behind.
    let dir = std::env::temp_dir();
    let leftovers = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .contains(&format!("rarity-persist-{}-rt", std::process::id()))
        })
        .count();
    assert_eq!(leftovers, 0);
}

fn load_err(bytes: &[u8]) -> String {
    match from_bytes::<Model>(bytes, Path::new("m.model")) {
        Err(e @ Error::Model { .. }) => e.to_string(),
        other => panic!("expected a model error, got {other:?}"),
    }
}

#[test]
fn truncated_files_are_reported() {
    let bin = to_bytes(&forest(), Format::Binary).unwrap();
    for cut in [3, 12, 30, bin.len() / 2, bin.len() - 1] {
        let e = load_err(&bin[..cut]);
        assert!(e.contains("truncated"), "cut {cut}: {e}");
    }
    let json = to_bytes(&forest(), Format::Json).unwrap();
    let e = load_err(&json[..json.len() / 2]);
    assert!(e.contains("truncated"), "{e}");
}

#[test]
fn foreign_and_other_version_files_are_rejected() {
    let e = load_err(b"PK\x03\x04 a zip file");
    assert!(e.contains("not a rarity model file"), "{e}");
    let e = load_err(b"RARITYM\x02.........................");
    assert!(e.contains("magic"), "{e}");
    let mut bin = to_bytes(&forest(), Format::Binary).unwrap();
    bin[8] = 99;
    let e = load_err(&bin);
    assert!(e.contains("format version 99"), "{e}");
    let e = load_err(
        br#"{"magic": "other", "format_version": 1, "rarity_version": "0", "model": null}"#,
    );
    assert!(e.contains("magic"), "{e}");
    let e = load_err(b"{\"hello\": 1}");
    assert!(e.contains("not a rarity JSON model"), "{e}");
    let mut bin = to_bytes(&forest(), Format::Binary).unwrap();
    bin.push(0);
    assert!(load_err(&bin).contains("unexpected bytes"));
    let missing = load::<Model>(&tmp("does-not-exist")).unwrap_err();
    assert!(matches!(missing, Error::Io { .. }));
}

#[test]
fn inconsistent_models_are_rejected() {
    let ds = data();
    let tree = fit(&Tree::default(), &ds);
    let json = String::from_utf8(to_bytes(&tree, Format::Json).unwrap()).unwrap();
    // Point the root's left child at itself (and sign the edit, so that the
    // consistency check, not the checksum, is what refuses it).
    let bad = resign(&json.replacen("\"left\":1,", "\"left\":0,", 1));
    assert_ne!(bad, json);
    let e = load_err(bad.as_bytes());
    assert!(e.contains("inconsistent model"), "{e}");
}

/// A JSON model file with its checksum recomputed for its (edited) model.
fn resign(json: &str) -> String {
    let mut v: serde_json::Value = serde_json::from_str(json).unwrap();
    let version = v["format_version"].as_u64().unwrap() as u16;
    let by = v["rarity_version"].as_str().unwrap().to_string();
    let sum = json_checksum(version, JSON_MAGIC, &by, &v["model"]).unwrap();
    v["checksum"] = format!("{JSON_CHECKSUM_PREFIX}{sum:016x}").into();
    serde_json::to_string(&v).unwrap()
}

#[test]
fn every_flipped_bit_is_refused() {
    let bin = to_bytes(&forest(), Format::Binary).unwrap();
    for i in 0..bin.len() {
        for bit in [0, 3, 7] {
            let mut b = bin.clone();
            b[i] ^= 1 << bit;
            assert!(
                from_bytes::<Model>(&b, Path::new("m")).is_err(),
                "byte {i} bit {bit} loaded"
            );
        }
    }
    // In the body, the checksum is what says so.
    let mut b = bin.clone();
    let last = b.len() - 1;
    b[last] ^= 1;
    assert!(load_err(&b).contains("model file is corrupt (checksum mismatch)"));
    // A JSON model with one number changed.
    let json = String::from_utf8(to_bytes(&forest(), Format::Json).unwrap()).unwrap();
    let at = json.find("\"model\"").unwrap()
        + json[json.find("\"model\"").unwrap()..]
            .find(|c: char| c.is_ascii_digit() && c != '0')
            .unwrap();
    let mut edited = json.clone().into_bytes();
    edited[at] = if edited[at] == b'9' {
        b'8'
    } else {
        edited[at] + 1
    };
    let e = load_err(&edited);
    assert!(e.contains("checksum mismatch"), "{e}");
}

#[test]
fn files_of_format_version_1_load_without_a_checksum() {
    let model = forest();
    // Binary: version 1, no checksum after the body length.
    let mut bin = to_bytes(&model, Format::Binary).unwrap();
    let len_end = 11 + bin[10] as usize + 8;
    bin.drain(len_end..len_end + 8);
    bin[8..10].copy_from_slice(&1u16.to_le_bytes());
    let (back, info) = described::<Model>(&bin, Path::new("old")).unwrap();
    assert_eq!(
        (back, info.format_version, info.checksum),
        (model.clone(), 1, false)
    );
    // JSON: version 1, no checksum key.
    let json = String::from_utf8(to_bytes(&model, Format::Json).unwrap()).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v.as_object_mut().unwrap().remove("checksum");
    v["format_version"] = 1.into();
    let old = serde_json::to_vec(&v).unwrap();
    let (back, info) = described::<Model>(&old, Path::new("old")).unwrap();
    assert_eq!((back, info.checksum), (model.clone(), false));
    // Version 2 without its checksum is refused.
    v["format_version"] = 2.into();
    let e = load_err(&serde_json::to_vec(&v).unwrap());
    assert!(e.contains("no \"checksum\""), "{e}");
    // The same model gives the same bytes.
    assert_eq!(
        to_bytes(&model, Format::Binary).unwrap(),
        to_bytes(&model, Format::Binary).unwrap()
    );
}

#[test]
fn every_registered_kind_round_trips_under_its_registry_name() {
    let ds = data();
    let mut models = vec![forest()];
    for entry in crate::learn::registry::LEARNERS {
        let learner = (entry.build)(&crate::params::Call::bare(entry.name)).unwrap();
        models.push(fit(&*learner, &ds));
    }
    let mut written = std::collections::BTreeSet::new();
    for model in &models {
        let json = String::from_utf8(to_bytes(model, Format::Json).unwrap()).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let name = v["model"]
            .as_object()
            .unwrap()
            .keys()
            .next()
            .unwrap()
            .clone();
        assert_eq!(name, model.kind());
        for format in [Format::Binary, Format::Json] {
            let bytes = to_bytes(model, format).unwrap();
            let back: Model = from_bytes(&bytes, Path::new("m")).unwrap();
            assert_eq!(&back, model, "{name} {format:?}");
        }
        written.insert(name);
    }
    let registered: std::collections::BTreeSet<String> =
        model_kinds().map(|k| k.name.to_string()).collect();
    assert_eq!(written, registered);
}
