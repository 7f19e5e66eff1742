//! Samplers in strategy specs: per-class rates and counts as lists, flags,
//! and the fitted strategy trained on the resampled rows, from Rust and on
//! the command line.

mod common;

use rarity::data::Dataset;
use rarity::spec::build_strategy;

/// 80 rows, 20 of class 1, two features.
fn data() -> Dataset {
    let rows: Vec<Vec<f64>> = (0..80)
        .map(|i| vec![(i % 9) as f64, (i % 4) as f64 + f64::from(u8::from(i < 20))])
        .collect();
    let y: Vec<u32> = (0..80).map(|i| u32::from(i < 20)).collect();
    Dataset::from_rows(rows, y, vec!["neg".into(), "pos".into()]).unwrap()
}

#[test]
fn per_class_rates_and_counts_work_in_a_strategy_spec() {
    let ds = data();
    for (spec, name, rates) in [
        ("under(rates=[0.5,1])+tree", "under(rates=0.5:1)", None),
        ("under(rates=0.5:1)+tree", "under(rates=0.5:1)", None),
        (
            "under(rates=[0.5, 1], exact)+tree",
            "under(rates=0.5:1,exact)",
            Some(vec![0.5, 1.0]),
        ),
        (
            "smote(counts=[100,100])+tree",
            "smote(k=5,counts=100:100)",
            Some(vec![100.0 / 60.0, 5.0]),
        ),
        (
            "smote(counts=100:100, standardise)+tree",
            "smote(k=5,counts=100:100,standardise)",
            Some(vec![100.0 / 60.0, 5.0]),
        ),
    ] {
        let s = build_strategy(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let sampler = s.sampler.clone().expect("a sampler stage");
        assert_eq!(sampler.name(), name, "{spec}");
        let sample = sampler
            .resample(&ds, &mut rarity::rng::stream(3, 0))
            .unwrap();
        if let Some(r) = rates {
            assert_eq!(sample.keep_rates, r, "{spec}");
        }
        s.fit(&ds, 3).unwrap_or_else(|e| panic!("{spec}: {e}"));
    }
}

#[test]
fn sampler_spec_errors_say_what_is_accepted() {
    let err = |s: &str| build_strategy(s).unwrap_err().to_string();
    assert!(err("under(rates=[0.5,2])+tree").contains("rates=[0.5,2] is invalid"));
    assert!(err("smote(counts=[1.5,2])+tree").contains("a list of whole numbers"));
    let e = err("bagging(n=3,sample=smoot)");
    assert!(e.contains("smoot") && e.contains("under"), "{e}");
    let e = err("smote(k=3)");
    assert!(e.contains("must be followed by a learner"), "{e}");
}

#[test]
fn per_class_rates_and_counts_work_on_the_command_line() {
    for model in [
        "under(rates=[0.5,1])+tree",
        "under(rates=0.5:1)+tree",
        "smote(counts=[316,316])+tree",
    ] {
        let (code, text, err) = common::run(&[
            "evaluate",
            "--quiet",
            "--dataset",
            "ecoli4",
            "--model",
            model,
            "--cv",
            "3",
            "--format",
            "json",
        ]);
        assert_eq!(code, 0, "{model}: {err}");
        let v: serde_json::Value = serde_json::from_str(&text).expect("a JSON report");
        assert!(v.to_string().contains(model), "{model}: {text}");
    }
}
