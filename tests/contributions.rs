//! Exact contributions of fitted strategies (issue 54): every explained
//! learner adds up to its output in its space, `+correct` moves the base
//! only, stages that are not maps of the output stand beside, source
//! columns get one contribution, older files ask to be fitted again.

use rarity::contributions::{Plan, ReasonKind, Reasons};
use rarity::data::bundled;
use rarity::data::read::{Categorical, ReadOptions};
use rarity::data::Dataset;
use rarity::learn::shap::Space;
use rarity::strategy::FittedStrategy;

fn load(name: &str) -> Dataset {
    bundled::find(name)
        .unwrap()
        .load(&ReadOptions::default())
        .unwrap()
        .0
}

/// The explained output of row `i` from the strategy's probabilities `p`
/// (what `base + sum` must equal when nothing stands beside).
fn output_of(plan: &Plan, p: &[f64]) -> Vec<f64> {
    match (plan.space, plan.outputs()) {
        (Space::Probability, 1) => vec![p[plan.classes[1]]],
        (Space::Probability, _) => plan.classes.iter().map(|&c| p[c]).collect(),
        (_, 1) => vec![(p[plan.classes[1]] / p[plan.classes[0]]).ln()],
        // Margins: compared up to a constant, through their differences.
        _ => plan
            .classes
            .iter()
            .map(|&c| (p[c] / p[plan.classes[0]]).ln())
            .collect(),
    }
}

/// Checks `base + sum = output` for every row of `data` under `spec`,
/// within `tol`, and returns the plan.
fn locally_accurate(spec: &str, data: &Dataset, tol: f64) -> Plan {
    let fitted = rarity::spec::build_strategy(spec)
        .unwrap()
        .fit(data, 3)
        .unwrap();
    let plan = Plan::of(&fitted).unwrap_or_else(|e| panic!("{spec}: {e}"));
    assert!(plan.beside.is_empty(), "{spec}: {:?} beside", plan.beside);
    let contrib = plan.explain(data).unwrap();
    let proba = fitted.predict_proba(data).unwrap();
    let c = plan.columns.len();
    for i in 0..data.n_rows() {
        let row = contrib.row(i);
        let sums: Vec<f64> = (0..contrib.outputs)
            .map(|j| row[j * (c + 1)..(j + 1) * (c + 1)].iter().sum())
            .collect();
        let want = output_of(&plan, proba.row(i));
        let got: Vec<f64> = match (plan.space, contrib.outputs) {
            (Space::Margins, _) => sums.iter().map(|s| s - sums[0]).collect(),
            _ => sums,
        };
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < tol, "{spec} row {i}: {g} vs {w}");
        }
    }
    plan
}

#[test]
fn every_explained_model_adds_up_to_its_output() {
    let ds = load("ecoli4");
    for spec in [
        "tree",
        "tree(max_depth=3,leaf=laplace)",
        "random_tree",
        "forest(n=8)",
        "rdt(n=6)",
        "balanced-forest(n=6)",
        "bagging(n=4,learner=tree(max_depth=4))",
        "gbdt(rounds=15,min_samples_leaf=5)",
        "adaboost(n=10,depth=2)",
        "adac2(n=6)",
        "rus-boost(n=8,depth=2)",
        "logitboost(n=12)",
        "logistic",
        "lda",
    ] {
        locally_accurate(spec, &ds, 1e-9);
    }
}

#[test]
fn multiclass_models_add_up_per_class() {
    let ds = load("balance");
    for spec in [
        "tree(max_depth=5)",
        "forest(n=5)",
        "gbdt(rounds=10,min_samples_leaf=5)",
        "adaboost(n=8,depth=2)",
        "logitboost(n=6)",
        "logistic",
        "lda",
    ] {
        let plan = locally_accurate(spec, &ds, 1e-9);
        assert_eq!(plan.outputs(), 3, "{spec}");
    }
}

#[test]
fn a_correction_moves_the_base_only() {
    let ds = load("yeast4");
    let spec = "under(ratio=1)+gbdt(rounds=10,min_samples_leaf=5)";
    let plain = rarity::spec::build_strategy(spec)
        .unwrap()
        .fit(&ds, 3)
        .unwrap();
    let corrected = rarity::spec::build_strategy(&format!("{spec}+correct"))
        .unwrap()
        .fit(&ds, 3)
        .unwrap();
    let (a, b) = (Plan::of(&plain).unwrap(), Plan::of(&corrected).unwrap());
    assert_eq!(b.taken, vec!["correct".to_string()]);
    let (ca, cb) = (a.explain(&ds).unwrap(), b.explain(&ds).unwrap());
    let c = a.columns.len();
    let r = &corrected.members[0].keep_rates;
    let beta = r[0] / r[1];
    assert!(beta < 0.2, "{r:?}");
    for i in 0..ds.n_rows() {
        let (ra, rb) = (ca.row(i), cb.row(i));
        assert_eq!(ra[..c], rb[..c]);
        assert!((rb[c] - (ra[c] + beta.ln())).abs() < 1e-12);
    }
    locally_accurate(&format!("{spec}+correct"), &ds, 1e-9);
    locally_accurate("gbdt(rounds=10,class_weight=balanced)+correct", &ds, 1e-9);
    locally_accurate("under(ratio=1)+tree(max_depth=4)+correct", &ds, 1e-9);
    locally_accurate("under-bagging(n=5)+correct", &ds, 1e-9);
    locally_accurate("under(ratio=1)+logistic+correct+priors(0.5,0.5)", &ds, 1e-9);
}

#[test]
fn stages_that_are_not_maps_of_the_output_stand_beside() {
    let ds = load("ecoli4");
    let fit = |spec: &str| {
        let f = rarity::spec::build_strategy(spec)
            .unwrap()
            .fit(&ds, 1)
            .unwrap();
        Plan::of(&f).unwrap()
    };
    assert_eq!(
        fit("gbdt(rounds=5)+platt").beside,
        vec!["platt".to_string()]
    );
    assert_eq!(
        fit("under(ratio=1)+forest(n=4)+correct(mode=average)").beside,
        vec!["correct".to_string()]
    );
    assert!(fit("forest(n=4)+isotonic").beside == vec!["isotonic".to_string()]);
    // A single tree takes every stage into its leaves.
    locally_accurate("under(ratio=1)+tree(max_depth=3)+correct+platt", &ds, 1e-9);
}

#[test]
fn what_cannot_be_explained_exactly_is_refused_naming_what_can() {
    let ds = load("ecoli4");
    for spec in [
        "knn",
        "gnb",
        "qda",
        "bagging(n=3,learner=logistic)",
        "forest(n=3,vote=hard)",
    ] {
        let Ok(s) = rarity::spec::build_strategy(spec) else {
            continue;
        };
        let f = s.fit(&ds, 1).unwrap();
        let e = Plan::of(&f).unwrap_err().to_string();
        assert!(
            e.contains("contributions are exact for") && e.contains("gbdt"),
            "{spec}: {e}"
        );
    }
}

#[test]
fn one_hot_and_encoded_columns_get_one_contribution_each() {
    // A table with a text column, one-hot encoded and target-encoded.
    let dir = std::env::temp_dir().join(format!("rarity-contrib-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.csv");
    let mut text = String::from("x,colour,y\n");
    for i in 0..400 {
        let colour = ["red", "green", "blue"][i % 3];
        let y = u8::from((i % 3 == 0 && i % 7 < 5) || i % 11 == 0);
        text += &format!("{},{colour},{y}\n", (i % 17) as f64 / 4.0);
    }
    std::fs::write(&path, text).unwrap();
    for (mode, spec) in [
        (Categorical::OneHot, "gbdt(rounds=8,min_samples_leaf=5)"),
        (Categorical::Native, "encode(target)+logistic"),
        (Categorical::Native, "forest(n=4)"),
    ] {
        let opts = ReadOptions {
            target: Some("y".into()),
            categorical: mode,
            ..ReadOptions::default()
        };
        let (ds, _) = rarity::data::read::read_path(&path, &opts).unwrap();
        let plan = locally_accurate(spec, &ds, 1e-9);
        assert_eq!(
            plan.columns,
            vec!["x".to_string(), "colour".to_string()],
            "{spec}"
        );
        assert_eq!(plan.value_text(&ds, 0, 1), "red");
        assert_eq!(plan.value_text(&ds, 1, 1), "green");
        assert_eq!(plan.value_text(&ds, 1, 0), "0.25");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn reasons_are_ordered_towards_the_decided_class() {
    let ds = load("ecoli4");
    let fitted = rarity::spec::build_strategy("gbdt(rounds=10)")
        .unwrap()
        .fit(&ds, 1)
        .unwrap();
    let r = Reasons::new(&fitted, ReasonKind::Reasons(3)).unwrap();
    let (_, labels) = fitted.predict(&ds).unwrap();
    let contrib = r.plan.explain(&ds).unwrap();
    for (i, &l) in labels.iter().enumerate() {
        let ranked = r.plan.ranked(&contrib, i, l as usize);
        assert!(ranked.windows(2).all(|w| w[0].1 >= w[1].1));
        let towards = r.plan.towards(&contrib, i, l as usize);
        let sign = if l == 1 { 1.0 } else { -1.0 };
        assert_eq!(towards[2], sign * contrib.row(i)[2]);
    }
    assert!(Reasons::new(&fitted, ReasonKind::Reasons(0)).is_err());
    assert!(Reasons::new(&fitted, ReasonKind::Reasons(ds.n_features() + 1)).is_err());
    assert!(Reasons::new(&fitted, ReasonKind::Reasons(ds.n_features())).is_ok());
}

/// `v` with every object key `key` removed, at any depth.
fn without(v: &mut serde_json::Value, key: &str) {
    match v {
        serde_json::Value::Object(m) => {
            m.remove(key);
            m.values_mut().for_each(|x| without(x, key));
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(|x| without(x, key)),
        _ => {}
    }
}

#[test]
fn older_files_without_covers_predict_as_before_and_ask_to_refit() {
    use rarity::persist::{from_bytes, to_bytes, Format};
    let ds = load("ecoli4");
    for (spec, key) in [
        ("gbdt(rounds=5)", "covers"),
        ("logistic", "means"),
        ("logitboost(n=4)", "covers"),
    ] {
        let fitted = rarity::spec::build_strategy(spec)
            .unwrap()
            .fit(&ds, 1)
            .unwrap();
        let mut v: serde_json::Value =
            serde_json::from_slice(&to_bytes(&fitted, Format::Json).unwrap()).unwrap();
        without(&mut v["model"], key);
        v.as_object_mut().unwrap().remove("checksum");
        v["format_version"] = 1.into();
        let old: FittedStrategy = from_bytes(
            &serde_json::to_vec(&v).unwrap(),
            std::path::Path::new("old"),
        )
        .unwrap();
        assert_eq!(
            old.predict_proba(&ds).unwrap(),
            fitted.predict_proba(&ds).unwrap()
        );
        let e = Plan::of(&old).unwrap_err().to_string();
        assert!(e.contains("fit the model again"), "{spec}: {e}");
        // Trees and forests kept their leaves' class totals: they explain.
    }
    let forest = rarity::spec::build_strategy("forest(n=3)")
        .unwrap()
        .fit(&ds, 1)
        .unwrap();
    assert!(Plan::of(&forest).is_ok());
}

/// Rows with holes in two of three features, the first's hole more
/// frequent among the positives, so the learned directions differ.
fn with_holes(n: usize) -> Dataset {
    use rand::RngExt;
    let mut r = rarity::rng::stream(11, 0);
    let (mut rows, mut y) = (Vec::new(), Vec::new());
    for i in 0..n {
        let c = u32::from(i % 5 == 0);
        let hole = r.random::<f64>() < if c == 1 { 0.5 } else { 0.05 };
        let x0 = if hole {
            f64::NAN
        } else {
            r.random::<f64>() + 0.5 * c as f64
        };
        let x1 = if i % 7 == 3 {
            f64::NAN
        } else {
            r.random::<f64>()
        };
        rows.push(vec![x0, x1, r.random::<f64>() - 0.3 * c as f64]);
        y.push(c);
    }
    Dataset::from_rows(rows, y, vec!["n".into(), "p".into()]).unwrap()
}

#[test]
fn rows_with_missing_values_follow_each_split_s_learned_direction() {
    let ds = with_holes(600);
    assert!(ds.first_missing().is_some());
    for spec in ["tree", "forest(n=6)", "gbdt(rounds=20,min_samples_leaf=5)"] {
        locally_accurate(spec, &ds, 1e-9);
    }
}
