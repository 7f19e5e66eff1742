//! The papers' named ensembles reproduce the properties the papers report
//! (issue 8), on the bundled datasets with the paper's 5x2 cross-validation.

use rarity::data::bundled::BUNDLED;
use rarity::data::read::ReadOptions;
use rarity::data::Dataset;
use rarity::evaluate::cross_validate;
use rarity::spec::build_strategy;
use rarity::split::Splitter;
use rarity::stats::mean;

fn bundled(kind: &str) -> Vec<(&'static str, Dataset)> {
    BUNDLED
        .iter()
        .filter(|b| b.kind == kind)
        .map(|b| (b.name, b.load(&ReadOptions::default()).unwrap().0))
        .collect()
}

fn named(name: &str) -> Dataset {
    rarity::data::bundled::find(name)
        .unwrap()
        .load(&ReadOptions::default())
        .unwrap()
        .0
}

/// Mean over 5x2 folds of each named metric.
fn cv(spec: &str, data: &Dataset, keys: &[&str]) -> Vec<f64> {
    let s = build_strategy(spec).unwrap();
    let splitter = Splitter::Stratified {
        repeats: 5,
        folds: 2,
    };
    let e = cross_validate(&s, data, &splitter, 7, &Default::default()).unwrap();
    keys.iter().map(|k| mean(&e.values(k))).collect()
}

/// Collell et al. Sec. 5.2 (multiclass): thresholds at the priors, argmax of
/// `p_k / pi_k`, give a macro accuracy at least that of plain argmax.
#[test]
fn pt_ma_macro_accuracy_beats_argmax_on_every_bundled_multiclass_set() {
    let sets = bundled("multiclass");
    assert!(sets.len() >= 5);
    for (name, ds) in sets {
        let pt = cv("pt-bagging(n=50)", &ds, &["macro_accuracy"])[0];
        let plain = cv("pt-bagging(n=50)+argmax", &ds, &["macro_accuracy"])[0];
        assert!(pt >= plain, "{name}: PT_MA {pt} < argmax {plain}");
    }
}

/// Collell et al. Fig. 2: PT_MA's minority and majority recalls are close,
/// EB-bagging's minority recall exceeds its majority recall (it
/// overcompensates), and plain argmax bagging favours the majority.
#[test]
fn recall_per_class_follows_figure_2() {
    let keys = ["tpr", "tnr"];
    let (mut pt, mut eb, mut plain) = (Vec::new(), Vec::new(), Vec::new());
    for (_, ds) in bundled("binary") {
        let gap = |spec: &str| {
            let r = cv(spec, &ds, &keys);
            r[0] - r[1]
        };
        pt.push(gap("pt-bagging(n=50)"));
        eb.push(gap("eb-bagging(n=50)"));
        plain.push(gap("pt-bagging(n=50)+threshold(0.5)"));
    }
    let (pt, eb, plain) = (mean(&pt), mean(&eb), mean(&plain));
    assert!(eb > 0.0, "EB minority - majority recall {eb}");
    assert!(plain < -0.1, "argmax bagging recall gap {plain}");
    assert!(
        pt.abs() < plain.abs() && pt.abs() < eb.abs(),
        "PT {pt}, EB {eb}, argmax {plain}"
    );
}

/// Every named ensemble fits binary data and takes the prior correction and
/// any decision; the multiclass ones take lambdas and a cost matrix.
#[test]
fn every_named_ensemble_takes_correction_and_decisions() {
    let binary = &named("ecoli4");
    for name in [
        "pt-bagging(n=5)",
        "eb-bagging(n=5)",
        "rb-bagging(n=5)",
        "smote-bagging(n=5)",
        "underover-bagging(n=5,a=25)",
        "under-bagging(n=5,beta=0.3)",
        "balanced-forest(n=5)",
        "easy-ensemble(n=2,rounds=5)",
        "rus-boost(n=5)",
    ] {
        for tail in [
            "",
            "+correct",
            "+correct(mode=average)+threshold(priors)",
            "+threshold(f1)",
            "+cost(fn=5,fp=1)",
        ] {
            let spec = format!("{name}{tail}");
            let r = cv(&spec, binary, &["roc_auc", "macro_accuracy"]);
            assert!(r.iter().all(|v| v.is_finite() && *v > 0.4), "{spec}: {r:?}");
        }
    }
    let multi = &named("newthyroid"); // 3 classes
    for spec in [
        "pt-bagging(n=10)",
        "pt-bagging(n=10)+lambda(0.5,0.3,0.2)",
        "underover-bagging(n=10,a=10)+cost(matrix='0,1,1;4,0,1;4,1,0')",
        "eb-bagging(n=10)+correct+threshold(priors)",
        "easy-ensemble(n=2,rounds=5)",
    ] {
        let r = cv(spec, multi, &["macro_accuracy"]);
        assert!(r[0] > 0.6, "{spec}: {r:?}");
    }
}

/// RUSBoost fits each round on a balanced undersample, so at 0.5 it finds
/// far more of the minority than AdaBoost on the same rounds.
#[test]
fn rus_boost_raises_minority_recall_over_adaboost() {
    let ds = named("yeast4"); // 51 positives in 1484
    let rus = cv("rus-boost(n=30)", &ds, &["tpr", "macro_accuracy"]);
    let ada = cv(
        "adaboost(n=30)+threshold(0.5)",
        &ds,
        &["tpr", "macro_accuracy"],
    );
    assert!(rus[0] > ada[0] + 0.2, "RUSBoost {rus:?}, AdaBoost {ada:?}");
    assert!(rus[1] > ada[1], "RUSBoost {rus:?}, AdaBoost {ada:?}");
}
