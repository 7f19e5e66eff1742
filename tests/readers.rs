//! Reading real files: CSV dialects, KEEL/ARFF, and (when `../shared` sits
//! beside the checkout) every shared dataset against its MANIFEST.

mod common;

use common::{file, run, scratch, shared_data};
use serde_json::Value;

fn inspect_json(args: &[&str]) -> Value {
    let mut a = vec!["inspect", "--format", "json"];
    a.extend_from_slice(args);
    let (code, out, err) = run(&a);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn csv_dialects() {
    let d = scratch("dialects");
    // BOM, CRLF, quoted fields, semicolons, target by name in the middle.
    let f = file(
        &d,
        "q.csv",
        b"\xEF\xBB\xBF\"a\";\"label\";b\r\n1;\"yes\";2\r\n3;no;4\r\n5;no;6\r\n",
    );
    let v = inspect_json(&[&f, "--delimiter", ";", "--target", "label"]);
    assert_eq!(v["d"], 2);
    assert_eq!(v["classes"], serde_json::json!(["no", "yes"]));
    assert_eq!(v["class_counts"], serde_json::json!([2, 1]));
    assert_eq!(v["features"][0]["name"], "a");
    // No header; target by index; tab delimiter.
    let f = file(&d, "t.tsv", b"1\t0\t9\n2\t1\t9\n3\t1\t9\n");
    let v = inspect_json(&[&f, "--no-header", "--delimiter", "tab", "--target", "1"]);
    assert_eq!(v["class_counts"], serde_json::json!([2, 1]));
    assert_eq!(v["classes"], serde_json::json!(["1", "0"]));
    // Constant column dropped on request.
    let v = inspect_json(&[
        &f,
        "--no-header",
        "--delimiter",
        "tab",
        "--target",
        "1",
        "--drop-constant",
    ]);
    assert_eq!(v["d"], 1);
    assert_eq!(v["dropped_constant"], serde_json::json!(["x2"]));
}

#[test]
fn categorical_one_hot_and_positive_label() {
    let d = scratch("onehot");
    let f = file(
        &d,
        "c.csv",
        b"colour,size,y\nred,1,a\nblue,2,b\nred,3,c\ngreen,4,a\n",
    );
    let v = inspect_json(&[&f, "--categorical", "one-hot"]);
    let names: Vec<&str> = v["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        vec!["colour=blue", "colour=green", "colour=red", "size"]
    );
    assert_eq!(v["classes"], serde_json::json!(["a", "b", "c"]));
    // --positive on a multiclass table: that label against the rest.
    let v = inspect_json(&[&f, "--categorical", "one-hot", "--positive", "a"]);
    assert_eq!(v["classes"], serde_json::json!(["not a", "a"]));
    assert_eq!(v["class_counts"], serde_json::json!([2, 2]));
}

#[test]
fn bundled_json_has_the_contract_keys() {
    let v = inspect_json(&["--dataset", "pima"]);
    assert_eq!(v["n"], 768);
    assert_eq!(v["d"], 8);
    assert_eq!(v["classes"], serde_json::json!(["0", "1"]));
    assert_eq!(v["class_counts"], serde_json::json!([500, 268]));
}

#[test]
fn generated_data_reads_back() {
    let d = scratch("gen");
    let g = d.join("g.csv").to_string_lossy().into_owned();
    let (code, _, err) = run(&["generate", "gaussian", "--n", "500", "--d", "3", "-o", &g]);
    assert_eq!(code, 0, "{err}");
    let v = inspect_json(&[&g]);
    assert_eq!(v["class_counts"], serde_json::json!([450, 50]));
    assert_eq!(v["d"], 4); // x0..x2 and the true posterior p_true
    let f = d.join("f.csv").to_string_lossy().into_owned();
    let (code, _, err) = run(&[
        "generate",
        "fraud",
        "--n",
        "40000",
        "--positive-rate",
        "0.01",
        "-o",
        &f,
    ]);
    assert_eq!(code, 0, "{err}");
    let v = inspect_json(&[&f]);
    assert_eq!(v["n"], 40000);
    assert_eq!(v["d"], 30);
    let pos = v["class_counts"][1].as_u64().unwrap();
    assert!((300..500).contains(&pos), "{pos}");
}

#[test]
fn shared_csvs_match_manifest() {
    let Some(dir) = shared_data() else {
        eprintln!("skipped: ../shared/data is not beside this checkout");
        return;
    };
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("MANIFEST.json")).unwrap()).unwrap();
    let mut checked = 0;
    for e in manifest.as_array().unwrap() {
        let name = e["name"].as_str().unwrap();
        let kind = e["kind"].as_str().unwrap();
        let path = dir.join(kind).join(format!("{name}.csv"));
        let v = inspect_json(&[path.to_str().unwrap()]);
        assert_eq!(v["n"], e["n"], "{name}");
        assert_eq!(v["class_counts"], e["class_counts"], "{name}");
        checked += 1;
    }
    assert!(checked >= 80, "only {checked} datasets in the manifest");
}

#[test]
fn keel_raw_files_match_manifest() {
    let Some(dir) = shared_data() else {
        eprintln!("skipped: ../shared/data is not beside this checkout");
        return;
    };
    let raw = dir.join("keel-raw");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(raw.join("MANIFEST.json")).unwrap()).unwrap();
    let entries = manifest.as_array().unwrap();
    let on_disk = std::fs::read_dir(&raw)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "dat")
        })
        .count();
    assert_eq!(
        on_disk,
        entries.len(),
        "every .dat file has a manifest entry"
    );
    for e in entries {
        let f = raw.join(e["file"].as_str().unwrap());
        let v = inspect_json(&[f.to_str().unwrap()]);
        assert_eq!(v["n"], e["n"], "{f:?}");
        assert_eq!(v["dropped_missing"], e["rows_with_missing"], "{f:?}");
        let counts = e["label_counts"].as_object().unwrap();
        for (k, name) in v["classes"].as_array().unwrap().iter().enumerate() {
            assert_eq!(
                v["class_counts"][k],
                counts[name.as_str().unwrap()],
                "{f:?} {name}"
            );
        }
        assert_eq!(
            v["classes"][1], "positive",
            "{f:?}: the minority is positive"
        );
    }
}
