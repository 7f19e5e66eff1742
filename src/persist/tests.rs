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
    let three = Dataset::from_rows(
        (0..60)
            .map(|i| vec![(i % 7) as f64, (i % 5) as f64])
            .collect(),
        (0..60).map(|i| (i % 3) as u32).collect(),
        vec!["a".into(), "b".into(), "c".into()],
    )
    .unwrap();
    let mut models = vec![forest()];
    let entries = crate::learn::registry::LEARNERS.iter().chain(
        crate::ensemble::registry::ENSEMBLES
            .iter()
            .map(|e| &e.entry),
    );
    for entry in entries {
        let learner = (entry.build)(&crate::params::Call::bare(entry.name)).unwrap();
        // Two classes, and three where the learner takes them; each model
        // is of a kind its learner is listed as making.
        for set in [&ds, &three] {
            let Ok(model) = learner.fit(
                &set.view(&(0..set.n_rows()).collect::<Vec<_>>()),
                &mut crate::rng::stream(0, 0),
            ) else {
                continue;
            };
            let kind = model_kind(model.kind()).unwrap();
            assert!(
                kind.made_by.contains(&entry.name),
                "{} makes {} models, which do not list it",
                entry.name,
                kind.name
            );
            models.push(model);
        }
    }
    // Every name a kind lists is a learner or ensemble of the registries.
    for name in model_kinds().flat_map(|k| k.made_by) {
        assert!(
            crate::ensemble::registry::all_learners().any(|e| e.name == *name),
            "{name}"
        );
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

#[test]
fn models_nested_too_deep_are_neither_written_nor_read() {
    use crate::learn::MAX_ENSEMBLE_NESTING;
    let ds = data();
    let nested = |levels: usize| {
        let mut learner: std::sync::Arc<dyn Learner> = std::sync::Arc::new(Tree::default());
        for _ in 0..levels {
            learner = std::sync::Arc::new(Bagging::new(
                1,
                learner,
                std::sync::Arc::new(crate::sample::no_resampling::NoResampling),
            ));
        }
        fit(&*learner, &ds)
    };
    // The deepest nesting round-trips in both encodings on a small stack.
    let deepest = nested(MAX_ENSEMBLE_NESTING);
    let json = to_bytes(&deepest, Format::Json).unwrap();
    std::thread::Builder::new()
        .stack_size(512 << 10)
        .spawn(move || {
            for format in [Format::Binary, Format::Json] {
                let back: Model =
                    from_bytes(&to_bytes(&deepest, format).unwrap(), Path::new("m")).unwrap();
                assert_eq!(back, deepest, "{format:?}");
            }
        })
        .unwrap()
        .join()
        .unwrap();
    // One level more is not written.
    let e = to_bytes(&nested(MAX_ENSEMBLE_NESTING + 1), Format::Binary)
        .unwrap_err()
        .to_string();
    assert!(e.contains("nested deeper than 16"), "{e}");
    // A file one level (or far) deeper, crafted from the deepest: refused
    // as it is read, in both encodings, on a small stack.
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    std::thread::Builder::new()
        .stack_size(512 << 10)
        .spawn(move || {
            for extra in [1, 20, 200] {
                let mut m = v["model"].clone();
                for _ in 0..extra {
                    let mut outer = v["model"].clone();
                    outer["Bagged"]["members"] = serde_json::json!([m]);
                    m = outer;
                }
                let mut w = v.clone();
                w["model"] = m;
                let sum = json_checksum(PLAIN_VERSION, JSON_MAGIC, "0.1.0", &w["model"]).unwrap();
                w["checksum"] = format!("{JSON_CHECKSUM_PREFIX}{sum:016x}").into();
                let e = load_err(&serde_json::to_vec(&w).unwrap());
                assert!(
                    e.contains("nested deeper than 16") || e.contains("recursion limit"),
                    "{extra}: {e}"
                );
                let body = rmp_serde::to_vec_named(&w["model"]).unwrap();
                let mut bin = MAGIC.to_vec();
                bin.extend_from_slice(&1u16.to_le_bytes());
                bin.push(5);
                bin.extend_from_slice(b"0.1.0");
                bin.extend_from_slice(&(body.len() as u64).to_le_bytes());
                bin.extend_from_slice(&body);
                let e = load_err(&bin);
                assert!(
                    e.contains("nested deeper than 16") || e.contains("depth limit"),
                    "{extra}: {e}"
                );
            }
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn the_header_is_read_first_and_no_more_than_it_says() {
    let bin = to_bytes(&forest(), Format::Binary).unwrap();
    // A model followed by endless zeros on a stream: refused at the first
    // extra byte (reading it all would never end).
    let endless = std::io::Cursor::new(bin.clone()).chain(std::io::repeat(0));
    let e = read::<Model>(endless, Path::new("<stdin>"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("unexpected bytes after the model"), "{e}");
    // A JSON model the same.
    let json = to_bytes(&forest(), Format::Json).unwrap();
    let endless = std::io::Cursor::new(json).chain(std::io::repeat(0));
    assert!(read::<Model>(endless, Path::new("<stdin>")).is_err());
    // Endless zeros alone: not a model, after eight bytes.
    let e = read::<Model>(std::io::repeat(0), Path::new("<stdin>"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a rarity model file"), "{e}");
    #[cfg(target_os = "linux")]
    {
        let e = load::<Model>(Path::new("/dev/zero"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a rarity model file"), "{e}");
    }
    // A header that claims more than memory holds, on a stream: refused
    // before its body is read.
    let len_at = 11 + bin[10] as usize;
    let mut huge = bin.clone();
    huge[len_at..len_at + 8].copy_from_slice(&(u64::MAX / 2).to_le_bytes());
    let stream = std::io::Cursor::new(huge.clone()).chain(std::io::repeat(0));
    let e = read::<Model>(stream, Path::new("<stdin>"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("more than the memory available"), "{e}");
    // In a file (or bytes), against the size it has.
    let e = load_err(&huge);
    assert!(e.contains("truncated: the body has"), "{e}");
    // A stream holding just the model loads, reading all of it.
    let back: Model = read(std::io::Cursor::new(bin.clone()), Path::new("<stdin>")).unwrap();
    assert_eq!(back, forest());
    let (_, info) = described::<Model>(&bin, Path::new("m")).unwrap();
    assert_eq!(info.bytes, bin.len());
}

#[test]
fn the_checksum_covers_the_whole_file_and_cannot_be_downgraded() {
    let json = to_bytes(&forest(), Format::Json).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(v["format_version"], PLAIN_VERSION);
    let edited = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut w = v.clone();
        f(&mut w);
        serde_json::to_vec(&w).unwrap()
    };
    // Any field edited, the model untouched: refused.
    let e = load_err(&edited(&|w| w["rarity_version"] = "0.1.1".into()));
    assert!(e.contains("checksum mismatch"), "{e}");
    let e = load_err(&edited(&|w| w["format_version"] = 2.into()));
    assert!(e.contains("checksum mismatch"), "{e}");
    // Lowered to version 1 with its checksum still there: refused.
    let e = load_err(&edited(&|w| w["format_version"] = 1.into()));
    assert!(e.contains("its format version was changed"), "{e}");
    // A version that is not one, even in a file without a checksum.
    let e = load_err(&edited(&|w| {
        w["format_version"] = 1.into();
        w.as_object_mut().unwrap().remove("checksum");
        w["rarity_version"] = "999.0.0-\u{1b}[31m".into();
    }));
    assert!(
        e.contains("is not a version number") && !e.contains('\u{1b}'),
        "{e}"
    );
    // Files of format version 2 (the checksum of the model value alone)
    // still load; the binary layout of version 2 is version 3's.
    let old = edited(&|w| {
        w["format_version"] = 2.into();
        let sum = json_checksum(2, JSON_MAGIC, "0.1.0", &w["model"]).unwrap();
        w["checksum"] = format!("{JSON_CHECKSUM_PREFIX}{sum:016x}").into();
    });
    let (back, info) = described::<Model>(&old, Path::new("old")).unwrap();
    assert_eq!(
        (back, info.format_version, info.checksum),
        (forest(), 2, true)
    );
    let mut bin = to_bytes(&forest(), Format::Binary).unwrap();
    bin[8..10].copy_from_slice(&2u16.to_le_bytes());
    let head = 11 + bin[10] as usize + 8;
    let sum = checksum(&[&bin[..head], &bin[head + 8..]]);
    bin[head..head + 8].copy_from_slice(&sum.to_le_bytes());
    let (back, info) = described::<Model>(&bin, Path::new("old")).unwrap();
    assert_eq!((back, info.format_version), (forest(), 2));
}
