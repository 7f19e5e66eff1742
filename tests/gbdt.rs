//! `gbdt` as a strategy: class weights undone by `+correct` (Dal Pozzolo et
//! al. 2015, eq. 9 with the weights as keep rates), binary and multiclass;
//! model files; the command line.

mod common;

use common::{run, scratch};
use rarity::data::{bundled, read::ReadOptions, Dataset};
use rarity::metrics::probability::brier;
use rarity::metrics::ranking::{average_precision, roc_auc};
use rarity::spec::build_strategy;

fn bundled(name: &str) -> Dataset {
    bundled::find(name)
        .unwrap()
        .load(&ReadOptions::default())
        .unwrap()
        .0
}

/// Probabilities of the strategy fitted on `ds`, on `ds`.
fn proba(spec: &str, ds: &Dataset) -> rarity::data::Proba {
    build_strategy(spec)
        .unwrap()
        .fit(ds, 7)
        .unwrap()
        .predict_proba(ds)
        .unwrap()
}

#[test]
fn correct_undoes_binary_class_weights_exactly_and_keeps_the_ranking() {
    let ds = bundled("yeast4");
    // Fitted on the even rows, judged on the odd ones.
    let even: Vec<usize> = (0..ds.n_rows()).step_by(2).collect();
    let odd: Vec<usize> = (1..ds.n_rows()).step_by(2).collect();
    let (train, test) = (ds.take(&even), ds.take(&odd));
    let c = train.class_counts();
    let s = c[0] as f64 / c[1] as f64;
    let fit = |spec: &str| {
        build_strategy(spec)
            .unwrap()
            .fit(&train, 7)
            .unwrap()
            .predict_proba(&test)
            .unwrap()
    };
    let weighted = fit(&format!("gbdt(scale_pos_weight={s})"));
    let corrected = fit(&format!("gbdt(scale_pos_weight={s})+correct"));
    let truth = test.labels();
    let (ps, pc) = (weighted.column(1), corrected.column(1));
    // eq. 9 with beta = w0 / w1 = 1 / s: p = beta p_s / (beta p_s - p_s + 1).
    for (a, b) in ps.iter().zip(&pc) {
        let beta = 1.0 / s;
        let eq9 = beta * a / (beta * a - a + 1.0);
        assert!((b - eq9).abs() < 1e-14, "{a} -> {b}, eq. 9 gives {eq9}");
    }
    // A monotone map: the ranking metrics are identical to the last digit.
    assert_eq!(
        roc_auc(truth, &ps, 1).unwrap(),
        roc_auc(truth, &pc, 1).unwrap()
    );
    assert_eq!(
        average_precision(truth, &ps, 1).unwrap(),
        average_precision(truth, &pc, 1).unwrap()
    );
    // The weighted probabilities are shifted towards the positives; the
    // corrected ones score a better Brier score.
    assert!(brier(truth, &corrected).unwrap() < brier(truth, &weighted).unwrap());
}

#[test]
fn correct_undoes_multiclass_class_weights() {
    let ds = bundled("contraceptive");
    let w = [1.0, 3.0, 0.5];
    let spec = "gbdt(rounds=30,class_weight='1,3,0.5')";
    let weighted = proba(spec, &ds);
    let corrected = proba(&format!("{spec}+correct"), &ds);
    for i in 0..ds.n_rows() {
        let raw: Vec<f64> = weighted.row(i).iter().zip(&w).map(|(p, w)| p / w).collect();
        let s: f64 = raw.iter().sum();
        for (got, want) in corrected.row(i).iter().zip(&raw) {
            assert!(
                (got - want / s).abs() < 1e-14,
                "row {i}: {got} vs {}",
                want / s
            );
        }
    }
    // balanced weights on a sampler's output: both shifts are undone.
    let both = proba(
        "under(ratio=1)+gbdt(rounds=20,class_weight=balanced)+correct",
        &ds,
    );
    let sums: Vec<f64> = (0..ds.n_rows()).map(|i| both.row(i).iter().sum()).collect();
    assert!(sums.iter().all(|s| (s - 1.0).abs() < 1e-12));
}

#[test]
fn weighted_gbdt_in_bagging_is_corrected_per_member() {
    let ds = bundled("ecoli4");
    let plain = proba("bagging(n=3,learner=gbdt(rounds=10),sample=bootstrap)", &ds);
    let undone = proba(
        "bagging(n=3,learner=gbdt(rounds=10,scale_pos_weight=4),sample=bootstrap)+correct",
        &ds,
    );
    // The bootstrap's keep rates are near 1 and the weights are undone, so
    // the two ensembles' probabilities are close in the mean.
    let m = |p: &rarity::data::Proba| p.column(1).iter().sum::<f64>() / ds.n_rows() as f64;
    assert!(
        (m(&plain) - m(&undone)).abs() < 0.02,
        "{} vs {}",
        m(&plain),
        m(&undone)
    );
}

#[test]
fn fit_save_predict_and_bad_specs_from_the_command_line() {
    let d = scratch("gbdt-cli");
    let model = d.join("m.rarity").to_string_lossy().into_owned();
    let (code, _, err) = run(&[
        "fit",
        "--dataset",
        "yeast4",
        "--model",
        "gbdt(rounds=20,class_weight=balanced)+correct+threshold(priors)",
        "-o",
        &model,
    ]);
    assert_eq!(code, 0, "{err}");
    let preds = d.join("p.csv").to_string_lossy().into_owned();
    let (code, out, err) = run(&["predict", &model, "--dataset", "yeast4", "-o", &preds]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("predicted 1484 rows"), "{out}");
    for (spec, says) in [
        ("gbdt(rounds=0)", "rounds=0 is invalid"),
        ("gbdt(learning_rate=-1)", "learning_rate"),
        ("gbdt(class_weight=balanced,scale_pos_weight=3)", "not both"),
        ("gbdt(leaves=3)", "did you mean 'max_leaves'"),
    ] {
        let (code, _, err) = run(&["evaluate", "--dataset", "yeast4", "--model", spec]);
        assert_ne!(code, 0, "{spec}");
        assert!(err.contains(says), "{spec}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let (code, _, err) = run(&[
        "evaluate",
        "--dataset",
        "balance",
        "--model",
        "gbdt(scale_pos_weight=2)",
    ]);
    assert_ne!(code, 0);
    assert!(
        err.contains("two classes") && !err.contains("panicked"),
        "{err}"
    );
}

#[test]
fn gbdt_model_files_round_trip() {
    let ds = bundled("glass");
    let s = build_strategy("gbdt(rounds=15,subsample=0.8,colsample=0.7)").unwrap();
    let fitted = s.fit(&ds, 3).unwrap();
    let d = scratch("gbdt-persist");
    for format in [
        rarity::persist::Format::Binary,
        rarity::persist::Format::Json,
    ] {
        let path = d.join(format!("m-{format:?}"));
        rarity::persist::save(&fitted, &path, format).unwrap();
        let back: rarity::strategy::FittedStrategy = rarity::persist::load(&path).unwrap();
        assert_eq!(back, fitted);
        assert_eq!(
            back.predict_proba(&ds).unwrap(),
            fitted.predict_proba(&ds).unwrap()
        );
    }
}
