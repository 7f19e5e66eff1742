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

fn forest() -> Model {
    Model::new(Bagging::forest(5).fit_dataset(&data(), 3).unwrap())
}

#[test]
fn round_trip_through_a_file_both_formats() {
    let ds = data();
    let rows: Vec<usize> = (0..40).collect();
    let tree = Tree::default()
        .fit(&ds.view(&rows), &mut crate::rng::stream(0, 0))
        .unwrap();
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
    let rows: Vec<usize> = (0..40).collect();
    let tree = Tree::default()
        .fit(&ds.view(&rows), &mut crate::rng::stream(0, 0))
        .unwrap();
    let json = String::from_utf8(to_bytes(&tree, Format::Json).unwrap()).unwrap();
    // Point the root's left child at itself.
    let bad = json.replacen("\"left\":1,", "\"left\":0,", 1);
    assert_ne!(bad, json);
    let e = load_err(bad.as_bytes());
    assert!(e.contains("inconsistent model"), "{e}");
}
