//! Every metric against scikit-learn 1.9 on the committed fixtures
//! (`tools/gen_metric_fixtures.py`): values to 1e-12 (absolute up to 1,
//! relative above; see `common`).

mod common;

use common::{check, check_all, finish, labels, load, num, nums};
use rarity::data::Proba;
use rarity::metrics::calibration::{reliability_bins, Binning};
use rarity::metrics::catalogue::{metric, value};
use rarity::metrics::confusion::{Average, BinaryCounts, Confusion};
use rarity::metrics::probability::{brier_binary, murphy_decomposition, stratified_brier};
use rarity::metrics::ranking::{precision_recall_curve, roc_curve};
use rarity::metrics::score_report;

const TOL: f64 = 1e-12;

#[test]
fn binary_report_matches_scikit_learn() {
    let fx = load("metrics.json");
    let mut failures = Vec::new();
    let cases = fx["binary"].as_array().unwrap();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let truth = labels(&case["truth"]);
        let p = nums(&case["p"]);
        let report = score_report(
            &truth,
            &Proba::from_positive(&p),
            num(&case["threshold"]),
            &[],
        )
        .unwrap();
        let mut expected = case["expected"].as_object().unwrap().clone();
        // The within-bin terms of the Brier decomposition (issue 39) are in
        // the fixture's 10-bin Murphy section.
        for key in ["within_bin_variance", "within_bin_covariance"] {
            let want = case["murphy"]["10"][key].clone();
            expected.insert(format!("brier_{key}"), want);
        }
        assert_eq!(report.len(), expected.len(), "{name}: report keys");
        for (key, got) in &report {
            let want = expected
                .get(key)
                .unwrap_or_else(|| panic!("{name}: fixture lacks {key}"));
            check(name, key, *got, num(want), TOL, &mut failures);
        }
    }
    finish(failures, cases.len());
}

#[test]
fn alert_budget_metrics_match_numpy() {
    // precision / recall at k (ties shared), at an alert rate, recall at a
    // precision, precision at a recall: keys are the calls that ask for them.
    let fx = load("metrics.json");
    let mut failures = Vec::new();
    let cases = fx["binary"].as_array().unwrap();
    let mut checked = 0;
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let truth = labels(&case["truth"]);
        let proba = Proba::from_positive(&nums(&case["p"]));
        let no_labels = vec![0; truth.len()];
        for (key, want) in case["budget"].as_object().unwrap() {
            let m = metric(key).unwrap();
            let got = value(m, &truth, &proba, &no_labels).unwrap();
            check(name, key, got, num(want), TOL, &mut failures);
            checked += 1;
        }
    }
    assert!(checked > 15 * cases.len(), "{checked} values");
    finish(failures, cases.len());
}

#[test]
fn binary_curves_match_scikit_learn() {
    let fx = load("metrics.json");
    let mut failures = Vec::new();
    let cases = fx["binary"].as_array().unwrap();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let truth = labels(&case["truth"]);
        let p = nums(&case["p"]);
        let roc = roc_curve(&truth, &p, 1).unwrap();
        let want = &case["curves"]["roc"];
        check_all(
            name,
            "roc fpr",
            &roc.fpr,
            &nums(&want["fpr"]),
            TOL,
            &mut failures,
        );
        check_all(
            name,
            "roc tpr",
            &roc.tpr,
            &nums(&want["tpr"]),
            TOL,
            &mut failures,
        );
        check_all(
            name,
            "roc thresholds",
            &roc.thresholds,
            &nums(&want["thresholds"]),
            0.0,
            &mut failures,
        );
        let pr = precision_recall_curve(&truth, &p, 1).unwrap();
        let want = &case["curves"]["pr"];
        check_all(
            name,
            "precision",
            &pr.precision,
            &nums(&want["precision"]),
            TOL,
            &mut failures,
        );
        check_all(
            name,
            "recall",
            &pr.recall,
            &nums(&want["recall"]),
            TOL,
            &mut failures,
        );
        check_all(
            name,
            "pr thresholds",
            &pr.thresholds,
            &nums(&want["thresholds"]),
            0.0,
            &mut failures,
        );
        for (key, want) in case["calibration"].as_object().unwrap() {
            let (strategy, bins) = key.split_once('_').unwrap();
            let binning = if strategy == "uniform" {
                Binning::Uniform
            } else {
                Binning::Quantile
            };
            let got = reliability_bins(&truth, &p, 1, bins.parse().unwrap(), binning).unwrap();
            let counts: Vec<f64> = got.iter().map(|b| b.count as f64).collect();
            check_all(
                name,
                &format!("{key} count"),
                &counts,
                &nums(&want["count"]),
                0.0,
                &mut failures,
            );
            let obs: Vec<f64> = got.iter().map(|b| b.observed).collect();
            check_all(
                name,
                &format!("{key} prob_true"),
                &obs,
                &nums(&want["prob_true"]),
                TOL,
                &mut failures,
            );
            let pred: Vec<f64> = got.iter().map(|b| b.mean_predicted).collect();
            check_all(
                name,
                &format!("{key} prob_pred"),
                &pred,
                &nums(&want["prob_pred"]),
                TOL,
                &mut failures,
            );
        }
    }
    finish(failures, cases.len());
}

#[test]
fn binned_murphy_decomposition_matches_numpy_and_sums_to_the_brier_score() {
    let fx = load("metrics.json");
    let mut failures = Vec::new();
    let cases = fx["binary"].as_array().unwrap();
    let mut informative = 0;
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let truth = labels(&case["truth"]);
        let p = nums(&case["p"]);
        for (bins, want) in case["murphy"].as_object().unwrap() {
            let m = murphy_decomposition(&truth, &p, 1, bins.parse().unwrap()).unwrap();
            for (key, got) in [
                ("reliability", m.reliability),
                ("resolution", m.resolution),
                ("uncertainty", m.uncertainty),
                ("within_bin_variance", m.within_bin_variance),
                ("within_bin_covariance", m.within_bin_covariance),
            ] {
                let label = format!("murphy {bins} bins {key}");
                check(name, &label, got, num(&want[key]), TOL, &mut failures);
            }
            let sum = m.reliability - m.resolution + m.uncertainty + m.within_bin_variance
                - m.within_bin_covariance;
            let brier = brier_binary(&truth, &p, 1).unwrap();
            check(name, "murphy identity", sum, brier, TOL, &mut failures);
            // On continuous scores the binned terms are not the degenerate
            // distinct-value ones (reliability = Brier, resolution =
            // uncertainty).
            if name.starts_with("random_") {
                informative += 1;
                assert!(m.reliability < brier - 1e-3, "{name}: {m:?}, brier {brier}");
                assert!(m.resolution < m.uncertainty - 1e-3, "{name}: {m:?}");
            }
        }
    }
    assert!(informative > 0);
    finish(failures, cases.len());
}

#[test]
fn multiclass_report_and_averages_match_scikit_learn() {
    let fx = load("metrics.json");
    let mut failures = Vec::new();
    let cases = fx["multiclass"].as_array().unwrap();
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let truth = labels(&case["truth"]);
        let k = case["k"].as_u64().unwrap() as usize;
        let proba = Proba::new(nums(&case["proba"]), k);
        let mut report = score_report(&truth, &proba, 0.5, &[]).unwrap();
        // The multiclass Brier decomposition (issue 39) is checked against
        // tests/fixtures/murphy.json (tests/newcomer_results.rs).
        report.retain(|(k, _)| !k.starts_with("brier_"));
        let expected = case["expected"].as_object().unwrap();
        assert_eq!(report.len(), expected.len(), "{name}: report keys");
        for (key, got) in &report {
            let want = expected
                .get(key)
                .unwrap_or_else(|| panic!("{name}: fixture lacks {key}"));
            check(name, key, *got, num(want), TOL, &mut failures);
        }
        let predicted: Vec<u32> = proba.argmax().into_iter().map(|c| c as u32).collect();
        let c = Confusion::from_labels(&truth, &predicted, k).unwrap();
        for (key, want) in case["averages"].as_object().unwrap() {
            let (avg, beta) = key.split_once('_').unwrap();
            let how = match avg {
                "micro" => Average::Micro,
                "weighted" => Average::Weighted,
                _ => Average::Macro,
            };
            let beta: f64 = beta.parse().unwrap();
            check(
                name,
                &format!("{key} precision"),
                c.average(BinaryCounts::ppv, how),
                num(&want["precision"]),
                TOL,
                &mut failures,
            );
            check(
                name,
                &format!("{key} recall"),
                c.average(BinaryCounts::tpr, how),
                num(&want["recall"]),
                TOL,
                &mut failures,
            );
            check(
                name,
                &format!("{key} fbeta"),
                c.average(|b| b.fbeta(beta), how),
                num(&want["fbeta"]),
                TOL,
                &mut failures,
            );
        }
        let strat = stratified_brier(&truth, &proba).unwrap();
        check_all(
            name,
            "stratified brier",
            &strat,
            &nums(&case["stratified_brier"]),
            TOL,
            &mut failures,
        );
    }
    finish(failures, cases.len());
}
